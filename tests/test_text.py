from __future__ import annotations

import re

import pytest

from generator.analysis.text import (
    is_verb,
    keyword_slug,
    ly_adverb,
    paper_slug,
    plural_noun,
    strip_markup,
    unique_titles,
)
from generator.analysis.titles import (
    derive_title,
    hide_math,
    is_background,
    lead_with_name,
    restore_math,
    title_candidates,
)


def candidate_titles(abstract: str) -> list[str]:
    """The titles the scorer may choose among (math restored), each led by the name the rules find."""
    plain, formulas = hide_math(abstract)
    candidates, name = title_candidates(plain)
    return [restore_math(lead_with_name(c.text, name), formulas) for c in candidates]


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ("**C**ontrolled **P**robability", "Controlled Probability"),
        ("a *partially* solved _task_ and snake_case", "a partially solved task and snake_case"),
        ("bound $O(\\sqrt{T})$ holds", "bound holds"),
        ("see [our code](https://github.com/x/y) or https://example.org/page.", "see our code or ."),
        ("<b>bold</b> &amp; <script>alert(1)</script>", "bold & alert(1)"),
        ("\\textbf{Deep} \\emph{nets}", "Deep nets"),
        ("zeroth-order LLM GNNs", "zeroth-order LLM GNNs"),
        ("costs $5 and $10 today", "costs $5 and $10 today"),
    ],
)
def test_strip_markup(raw: str, plain: str) -> None:
    assert strip_markup(raw) == plain


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (
            "Large models are costly. We present EE-LLM, a framework for large-scale training and inference "
            "of early-exit large language models (LLMs). It works.",
            "EE-LLM: A framework for large-scale training and inference",
        ),
        (
            "In this paper, we propose a novel algorithm, called Multi Epoch Decentralized Online Learning "
            "(ME-DOL), for which we establish the sample complexity.",
            "ME-DOL: Multi Epoch Decentralized Online Learning, an algorithm",
        ),
        (
            "In this paper, we investigate the role of social media influencers in enhancing the visibility "
            "of machine learning research, particularly the citation counts.",
            "The role of social media influencers in enhancing the visibility",
        ),
        (
            "Perceptual metrics matter. We introduce a new metric, DreamSim, tuned to align with human "
            "perception of image similarity. It works well.",
            "DreamSim: A metric tuned to align with human perception of image similarity",
        ),
        (
            "We propose Compaction and Disambiguation (CODA), a novel two-stage framework for learning "
            "compact representations. Results follow.",
            "CODA: Compaction and Disambiguation, a two-stage framework",
        ),
        (
            "Privacy matters. We derive a technique to selectively forget concepts in "
            "pretrained generative models. Our method, dubbed Selective Amnesia, enables forgetting.",
            "Selective Amnesia: A technique to selectively forget concepts",
        ),
        (  # the spelled-out name starts at a content word, not at the verb before it
            "Interactions are hard to model. We propose a Polyhedron Attention Module (PAM) to create "
            "piecewise polynomial models. It is accurate.",
            "PAM: A Polyhedron Attention Module to create piecewise polynomial models",
        ),
        (  # "we propose and analyze X": the description is X, not "And analyze X"
            "Data matrices are often sparse. We propose and analyze an iteratively reweighted least "
            "squares (IRLS) algorithm that leverages both structures.",
            "IRLS: An iteratively reweighted least squares",
        ),
        (  # "we propose to design X": the description is X, not "To design X"
            "Transformers are slow on small devices. To enable fast inference, we propose to design "
            "Hardware-Aware Transformers (HAT) with neural architecture search. It is fast.",
            "HAT: Hardware-Aware Transformers with neural architecture search",
        ),
    ],
)
def test_the_named_contribution_is_a_candidate_title(abstract: str, title: str) -> None:
    assert title in candidate_titles(abstract)


def test_derived_title_is_short_and_clean() -> None:
    abstract = "Gradient methods " + "and more words " * 50 + "."
    title = derive_title(abstract)
    assert 10 < len(title) <= 100
    assert not title.endswith(("and", " ", ","))
    assert "**" not in derive_title("**Bold** claims about $x$ are made here in this long opening sentence.")


def test_a_title_does_not_end_on_a_formula_that_is_only_a_sign() -> None:
    abstract = (
        "The linear ordering problem consists in finding a linear order $<$ on a finite set $A$ so as to "
        "minimize the sum of costs associated with pairs of elements."
    )
    candidates = candidate_titles(abstract)
    assert "The linear ordering problem consists in finding a linear order" in candidates
    assert not any(title.endswith("$<$") for title in [*candidates, derive_title(abstract)])
    # a formula that names something still ends a title
    assert "Sampling from a density $p$" in candidate_titles(
        "Sampling from a density $p$ on a compact set of high dimension is hard."
    )


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (  # an enumeration lists the parts: "three approaches: 1) …" is not the title
            "Graph learning is hard for deep models today. We propose three approaches: 1) GraphMix to "
            "enhance node classification, 2) GraphDrop to prune edges. Both work.",
            "Graph learning is hard for deep models today",
        ),
        (  # "simple yet effective": the adjective is kept with its partner, not half dropped
            "Domain shift hurts detectors. We propose StyleNet, a simple yet effective scheme for domain "
            "generalization of object detectors. StyleNet improves detectors.",
            "StyleNet: A simple yet effective scheme for domain generalization of object detectors",
        ),
        (  # a name given in brackets is described by the phrase it closes
            "Planning with language models is hard. To address these limitations, we present an "
            "AlphaZero-like tree-search learning framework for LLMs (termed TS-LLM), showing how tree "
            "search helps LLMs. TS-LLM improves planning.",
            "TS-LLM: An AlphaZero-like tree-search learning framework for LLMs",
        ),
        (  # a model in brackets after a modifier is an example, not the paper's name
            "Preference alignment of language models is hard. We present comprehensive experimental "
            "results on small-scale (GPT-2) and large-scale language models and show the efficacy of "
            "our reward mixture.",
            "Comprehensive experimental results on small-scale (GPT-2) and large-scale language models",
        ),
        (  # an opening clause sets the scene; the paper says what it investigates
            "As the number of accepted papers at conferences reaches into the thousands, reading them "
            "gets hard. In this paper, we investigate the role of social media influencers in the "
            "visibility of research papers.",
            "The role of social media influencers in the visibility of research papers",
        ),
    ],
)
def test_a_whole_phrase_about_the_paper_is_a_candidate_title(abstract: str, title: str) -> None:
    assert title in candidate_titles(abstract)


def test_an_opening_that_states_background_gives_way_to_what_the_paper_does() -> None:
    abstract = (
        "Sparse linear ordering is a problem that admits many orders. We introduce algorithms for solving "
        "the problem partially by deciding efficiently for some pairs whether they are ordered."
    )
    # not "Sparse linear ordering is a problem", nor "… partially by deciding" (a gerund after "by")
    assert "Algorithms for solving the problem" in candidate_titles(abstract)
    assert not is_background(derive_title(abstract)), derive_title(abstract)


def test_an_opening_gerund_loses_its_adverb_rather_than_the_title_its_words() -> None:
    abstract = (
        "Flexibly quantifying both irreducible aleatoric and model-dependent epistemic uncertainties "
        "plays an important role for complex regression problems. Deep networks can help."
    )
    assert not any(t.startswith("Flexibly") for t in candidate_titles(abstract))
    assert not derive_title(abstract).startswith("Flexibly")


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (  # "due (to …)" and a negated adjective ("unsafe", without "behaviour") leave a title hanging
            "Real image denoising remains very challenging for modern camera pipelines and phones due to "
            "the complexity of noise.",
            "Real image denoising remains very challenging for modern camera pipelines and phones",
        ),
        (
            "Chat models such as GPT-4 are routinely fine-tuned to avoid unsafe or otherwise problematic "
            "behaviour.",
            "Chat models such as GPT-4",
        ),
    ],
)
def test_a_title_does_not_end_on_due_or_a_negated_adjective(abstract: str, title: str) -> None:
    assert title in candidate_titles(abstract)
    assert not any(t.endswith((" due", " unsafe")) for t in candidate_titles(abstract))


def test_a_title_says_what_the_paper_does_not_that_it_does_it() -> None:
    for abstract, phrase in [
        (
            "We give the first tester-learner for halfspaces that succeeds universally over a wide class "
            "of structured distributions.",
            "tester-learner for halfspaces",
        ),
        (
            "This work focuses on the training dynamics of one associative memory module storing outer "
            "products of token embeddings.",
            # the whole phrase is too long for a title, and one cut before "of token embeddings" stops short
            "associative memory module storing outer products",
        ),
    ]:
        title = derive_title(abstract)
        # "first", like "novel", is what every abstract says; "We give", "This work focuses on" say nothing
        assert phrase in title.lower() and not re.search(r"\b(first|we|work|focuses)\b", title, re.I), title


def test_a_title_keeps_its_subject_when_what_follows_is_no_verb_of_doing() -> None:
    for abstract, start in [
        ("We are interested in learning sparse representations of graphs from data.", "We are interested"),
        ("We do not assume access to the reward function in this setting.", "We do not assume"),
        ("We investigate to what extent large language models reason about space.", "To what extent"),
    ]:
        assert any(t.startswith(start) for t in candidate_titles(abstract)), candidate_titles(abstract)


def test_a_parenthesis_does_not_cut_a_title() -> None:
    title = derive_title(
        "This paper explores the connections between tempering (for Monte Carlo; MC) and mirror descent "
        "to sample from a target distribution."
    )
    assert title.count("(") == title.count(")"), title
    assert "The connections between tempering (for Monte Carlo; MC) and mirror descent" in candidate_titles(
        "This paper explores the connections between tempering (for Monte Carlo; MC) and mirror descent "
        "to sample from a target distribution."
    )


@pytest.mark.parametrize(
    "abstract",
    [
        "We study the Backward Rewarding Mechanisms (BRMs) and show that they converge quickly in games.",
        "Ordinary differential equations (ODEs) approximating physical systems are studied here at length.",
        "We present a framework for learning with noisy labels, with Controlled probability, "
        + "and then many more words " * 10,
        "Reward models learn preferences. We report comprehensive experimental results on small-scale "
        "models and large-scale models trained with feedback from many annotators over many rounds.",
        "We propose $\\underline{\\text{S}}$tructure-$\\underline{\\text{A}}$ware Shapley-based "
        "$\\underline{\\text{M}}$ultipiece $\\underline{\\text{E}}$xplanation method for graphs.",
    ],
)
def test_derived_titles_never_hang_and_fit(abstract: str) -> None:
    for title in [derive_title(abstract), *candidate_titles(abstract)]:
        assert_whole(title)


def assert_whole(title: str) -> None:
    last = title.split()[-1].lower()
    assert last not in {
        "and",
        "show",
        "approximating",
        "with",
        "controlled",
        "of",
        "the",
        "for",
        "small-scale",
    }, title
    assert 10 <= len(title) <= 90, title


def test_unique_titles_number_repeats() -> None:
    assert unique_titles(["A", "B", "a", "A"]) == ["A", "B", "a (2)", "A (3)"]


def test_slugs_are_stable_and_safe() -> None:
    slug = paper_slug("Attention Is All You Need!", "1706.03762")
    assert slug == paper_slug("Attention Is All You Need!", "1706.03762")
    assert slug.startswith("attention-is-all-you-need-")
    assert paper_slug("Same title", "a") != paper_slug("Same title", "b")
    for weird in ["../../x", "/etc/passwd", "CON", "x" * 300]:
        made = paper_slug(weird, weird)
        assert "/" not in made and ".." not in made and len(made) <= 70
    assert paper_slug("∑∏", "id").startswith("paper-") or paper_slug("∑∏", "id")
    assert keyword_slug("Large Language Models") == "large-language-models"


@pytest.mark.parametrize(
    ("cut", "kept"),
    [
        (
            "Speech representation learning has shown remarkable success at finding",
            "Speech representation learning has shown remarkable success",
        ),
        (
            "Reinforcement learning algorithms typically utilize learning and/or",
            "Reinforcement learning algorithms typically utilize learning",
        ),
        ("To fine-tune diffusion model (a)", "To fine-tune diffusion model"),
        ("Diffusion models for spatial puzzle solving", "Diffusion models for spatial puzzle solving"),
        ("The problem of interactive decision making", "The problem of interactive decision making"),
        ("Graph neural networks for matching", "Graph neural networks for matching"),
        ("Ordering the sentences of a (possibly large)", "Ordering the sentences"),
        ("Learning with the (noisy) labels of", "Learning with the (noisy) labels"),
        ("Message passing in neural networks (GNNs)", "Message passing in neural networks (GNNs)"),
        ("A constant number of attention layers can efficiently", "A constant number of attention layers"),
        ("Deep ensembles are increasingly", "Deep ensembles"),
        ("Mixtures from the exponential family", "Mixtures from the exponential family"),
        ("Message passing under heterophily", "Message passing under heterophily"),
        # a bare verb form after a singular noun or an adjective is a noun, by agreement
        ("Data-regularised environment design", "Data-regularised environment design"),
        ("An empirical study", "An empirical study"),
        ("Large language models learn", "Large language models"),
        ("Methods for grammar induction suffer", "Methods for grammar induction"),
        ("Training data show", "Training data"),
        ("A framework that can automatically design", "A framework"),
        # an adverb modifies no noun: what follows one is no phrase's end
        ("Learning with differentially private", "Learning"),
        ("Provably efficient reinforcement learning", "Provably efficient reinforcement learning"),
        ("Early stopping", "Early stopping"),
        ("Policies with adaptively sparse", "Policies"),
        ("Learning the optimal policy given", "Learning the optimal policy"),  # a past form: a verb
        ("Diffusion models for protein design", "Diffusion models for protein design"),  # a learned pair
    ],
)
def test_a_cut_title_never_hangs_on_a_gerund_without_its_object_or_a_conjunction(cut: str, kept: str) -> None:
    from generator.analysis.text import _trim_hanging_end

    assert _trim_hanging_end(cut) == kept


def test_a_title_is_not_the_concession_an_abstract_opens_with() -> None:
    abstract = (
        "Although there has been work to develop ex-post private mechanisms from Ligett et al. '17 and "
        "Whitehouse et al '22 that seeks to provide privacy guarantees subject to a target level of "
        "accuracy, there was not a way to use them with differentially private mechanisms. "
        "Furthermore, there has yet to be work on how ex-post private mechanisms compose. "
        "We develop privacy filters that allow an analyst to switch between differentially private "
        "mechanisms and ex-post private mechanisms."
    )
    title = derive_title(abstract)
    assert not title.lower().startswith(("although", "though", "while", "whereas", "despite")), title
    assert any(t.startswith("Privacy filters") for t in candidate_titles(abstract))


@pytest.mark.parametrize(
    ("word", "adverb"),
    [("efficiently", True), ("closely", True), ("family", False), ("anomaly", False), ("apply", False),
     ("fly", False), ("butterfly", False)],
)  # fmt: skip
def test_a_word_in_ly_is_an_adverb_unless_a_noun_or_verb(word: str, adverb: bool) -> None:
    """One test serves the title checks and the sentence cuts: "… closely match" reads past the
    adverb, "anomaly" ends a phrase."""
    assert ly_adverb(word) is adverb


@pytest.mark.parametrize(
    ("word", "plural"), [("models", True), ("graphs", True), ("metrics", True), ("analysis", False),
                         ("focus", False), ("loss", False)]
)  # fmt: skip
def test_a_plural_noun_by_its_ending(word: str, plural: bool) -> None:
    assert plural_noun(word) is plural


@pytest.mark.parametrize(("word", "verb"), [("uses", True), ("Penalize", True), ("constitutes", True),
                                            ("graph", False), ("anomaly", False)])  # fmt: skip
def test_a_verb_from_the_hand_list_or_learned_from_abstracts(word: str, verb: bool) -> None:
    assert is_verb(word) is verb
