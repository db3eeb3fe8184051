"""The learned title scorer: its candidates, its trees, the shipped model, and titles of made-up abstracts."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

from generator.analysis.boosted_trees import BoostedTrees
from generator.analysis.titles import (
    FEATURES,
    MODEL_FILE,
    NAME_FEATURES,
    VERDICT_FEATURES,
    VERDICT_FILE,
    WORD_FEATURES,
    NameContextRates,
    TitleModel,
    VerdictModel,
    acted_on,
    derive_title,
    derive_titles,
    gerund,
    hide_math,
    is_background,
    lead_with_name,
    left_unfinished,
    likeliest_name,
    name_candidates,
    name_contexts,
    name_marks,
    opens_with_a_predicate,
    pieces_of_spelled_out_names,
    reads_as_a_sentence,
    shipped_model,
    shipped_verdicts,
    stops_short,
    tells_as_an_abstract,
    title_candidates,
    word_chances,
    word_features,
    written_name,
)

# Made up for these tests (no corpus abstract or title is copied here).
NAMED = (
    "Reading long documents is slow for language models. We present SkimNet, a hierarchical reader that "
    "skips irrelevant paragraphs for long document question answering. SkimNet reads 4x fewer tokens "
    "than a full reader and matches its accuracy on three benchmarks."
)
BACKGROUND_FIRST = (
    "Deep networks are widely used in many applications and are known to be poorly calibrated. "
    "In this paper, we propose temperature ensembles for calibrating deep classifiers under "
    "distribution shift. Temperature ensembles average the predictions of several temperatures, and "
    "calibrating deep classifiers this way halves the calibration error under shift."
)


def test_a_saved_model_loads_as_it_was(tmp_path) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, len(FEATURES))).astype(np.float32)
    titles = BoostedTrees.from_histogram_boosting(HistGradientBoostingRegressor(max_iter=5).fit(x, x[:, 0]))
    names_x = x[:, : len(NAME_FEATURES)]
    names = BoostedTrees.from_histogram_boosting(
        HistGradientBoostingClassifier(max_iter=5).fit(names_x, x[:, 1] > 0)
    )
    words_x = x[:, : len(WORD_FEATURES)]
    words = BoostedTrees.from_histogram_boosting(
        HistGradientBoostingClassifier(max_iter=5).fit(words_x, x[:, 2] > 0)
    )
    context = NameContextRates({"<propose": 0.6, "<on": 0.02}, 0.1)
    model = TitleModel(
        titles, names, -1.5, {"bandit": 0.4, "novel": 0.01}, 0.1, {"imagenet": 5.2}, words, context
    )
    model.save(tmp_path / "model.npz")
    model.save(tmp_path / "again.npz")
    assert (tmp_path / "model.npz").read_bytes() == (tmp_path / "again.npz").read_bytes()
    loaded = TitleModel.load(tmp_path / "model.npz")
    assert np.allclose(loaded.titles.predict(x), titles.predict(x))
    assert np.allclose(loaded.names.predict(names_x), names.predict(names_x))
    assert loaded.words is not None and np.allclose(loaded.words.predict(words_x), words.predict(words_x))
    assert (loaded.name_threshold, loaded.base_rate) == (-1.5, 0.1)
    assert loaded.title_rate == pytest.approx(model.title_rate) and loaded.abstracts_using == pytest.approx(
        model.abstracts_using
    )
    assert loaded.name_context.rates == pytest.approx(context.rates) and loaded.name_context.base == 0.1


def test_the_model_ships_in_the_package_and_is_small() -> None:
    shipped = resources.files("generator.analysis").joinpath(MODEL_FILE)
    assert shipped.is_file()
    assert len(shipped.read_bytes()) <= 5_000_000
    model = shipped_model()
    assert len(model.titles.roots) > 10 and len(model.names.roots) > 10
    assert model.words is not None and len(model.words.roots) > 10
    assert 0 < model.base_rate < 1 and len(model.title_rate) > 1000


def test_candidates_include_what_the_paper_does_and_its_shorter_cuts() -> None:
    candidates, rules_name = title_candidates(BACKGROUND_FIRST.replace("  ", " "))
    texts = {c.text for c in candidates}
    assert "Temperature ensembles for calibrating deep classifiers under distribution shift" in texts
    assert "Temperature ensembles for calibrating deep classifiers" in texts
    assert rules_name is None
    assert {c.kind for c in candidates} >= {"opening", "clause", "phrase"}


def test_a_named_method_leads_the_title_with_what_it_does() -> None:
    title = derive_title(NAMED)
    assert title.startswith("SkimNet: "), title
    assert not is_background(title)
    assert "SkimNet" in {c.name for c in name_candidates(NAMED)}


def test_a_background_opening_gives_way_to_the_contribution() -> None:
    title = derive_title(BACKGROUND_FIRST)
    assert not is_background(title), title
    assert "temperature ensembles" in title.lower(), title


@pytest.mark.parametrize(
    ("title", "background"),
    [
        ("Foundation models such as GPT-4 are routinely fine-tuned", True),
        ("Recent advances in diffusion models", True),
        ("GNNs rely on the exchange of messages along the edges", True),
        ("Tail bounds for martingale mixtures", False),
        ("SkimNet: A hierarchical reader for long document question answering", False),
    ],
)
def test_background_statements_are_recognised(title: str, background: bool) -> None:
    assert is_background(title) is background


@pytest.mark.parametrize(
    ("phrase", "sentence"),
    [
        ("This brittleness of safety alignment", True),
        ("Not put at risk the budding field", True),
        ("SkimNet introduces a lineage graph", True),
        ("Simulated by a constant number of rounds", True),
        ("Temperature ensembles for calibrating deep classifiers", False),
        ("On the convergence of adaptive methods", False),
        ("Learning rates matter", False),
        # a finite verb without its subject
        ("Involves constructing a graph from features", True),
        ("Requires the model to be calibrated", True),
        ("Attacks on language models", False),
        ("Models of long documents", False),
        # a verb between its subject and its object, further in
        ("Long-document skimming (LDS) reduces the cost of reading", True),
        ("Terms in the summaries reduce the length of a document", True),
        ("A reader to skim the documents", False),
        ("Readers that skim the documents", False),
        ("Stacked deep sets and quantile pooling", False),
        ("On long documents, SkimNet outperforms existing readers", True),
        ("SkimNet outperforms", True),
        ("Skimming", False),
        ("The SkimNet reader for long documents", False),
        # an adverb between the subject and its verb
        ("Distances between skimmed documents closely match reading times", True),
        ("Readers that often skim long documents", False),
    ],
)
def test_a_sentence_is_no_title(phrase: str, sentence: bool) -> None:
    assert reads_as_a_sentence(phrase) is sentence


def test_a_name_leads_once_and_the_title_keeps_its_length() -> None:
    assert lead_with_name("SkimNet, a reader for documents", None) == "SkimNet: A reader for documents"
    assert lead_with_name("Reading, a pastime", None) == "Reading, a pastime"
    assert (
        lead_with_name("A reader that skips paragraphs", "SkimNet")
        == "SkimNet: A reader that skips paragraphs"
    )
    assert lead_with_name("The SkimNet reader for documents", "SkimNet") == "The SkimNet reader for documents"
    assert (
        lead_with_name("A hierarchical reader (termed SkimNet) for documents", "SkimNet")
        == "SkimNet: A hierarchical reader for documents"
    )
    assert lead_with_name("SkimNet, a reader for documents", "SkimNet") == "SkimNet: A reader for documents"
    assert (
        lead_with_name("SkimNet (SN) is a reader for documents", "SkimNet")
        == "SkimNet: A reader for documents"
    )
    long = lead_with_name("A reader " + "of many long documents " * 10, "SkimNet")
    assert long.startswith("SkimNet: ") and len(long) <= 90


def test_titles_are_deterministic_and_math_survives() -> None:
    abstract = "We study sampling from a density $p$ on a compact set of high dimension with few queries."
    assert derive_title(abstract) == derive_title(abstract)
    assert "$p$" in derive_title(abstract) or "zqmath" not in derive_title(abstract)


def _candidate_texts(abstract: str) -> list[str]:
    """The texts of an abstract's candidate titles."""
    return [c.text for c in title_candidates(hide_math(abstract)[0])[0]]


def _candidate(abstract: str, name: str):
    plain, _ = hide_math(abstract)
    found = {c.name: c for c in name_candidates(plain, name_marks(abstract))}
    assert name in found, sorted(found)
    return dict(zip(NAME_FEATURES, found[name].features, strict=False)), found[name]


def test_a_repository_address_names_the_method() -> None:
    abstract = (
        "Reading long documents is slow. We present a hierarchical reader that skips paragraphs. "
        "Code is at https://github.com/some-lab/SkimNet_release."
    )
    assert name_marks(abstract).repositories == ("SkimNet",)
    features, _ = _candidate(abstract, "SkimNet")  # the text never names it: the address does
    assert features["repository"] == 1 and features["occurrences"] == 0
    # a lower-case repository marks the name the text writes
    spelled = "We present SkimNet, a reader. Code: https://gitlab.com/lab/skimnet."
    assert _candidate(spelled, "SkimNet")[0]["repository"] == 1
    assert _candidate(spelled.replace("skimnet", "other"), "SkimNet")[0]["repository"] == 0


@pytest.mark.parametrize(
    "written",
    ["$\\mathsf{SkimNet}$", "$\\texttt{SkimNet}$", "\\textsc{SkimNet}", "$SkimNet$", "**SkimNet**"],
)
def test_a_name_set_in_a_typeface_is_a_marked_name(written: str) -> None:
    abstract = f"We present {written}, a reader that skips paragraphs of long documents."
    plain, formulas = hide_math(abstract)
    assert "SkimNet" in plain.split(", ")[0] and not formulas
    assert _candidate(abstract, "SkimNet")[0]["typeface"] == 1
    assert _candidate(NAMED, "SkimNet")[0]["typeface"] == 0


def test_math_stays_math_but_letters_set_apart_spell_words() -> None:
    plain, formulas = hide_math("A density $p$ on $\\mathbb{R}$ with $\\mathbf{W}$, top-$K$ and $O(n)$.")
    assert formulas == ["$p$", "$\\mathbb{R}$", "$\\mathbf{W}$", "$K$", "$O(n)$"]
    plain, formulas = hide_math("$\\textbf{Co}$ntrastive $L$ocked $\\textbf{T}$uning")
    assert plain == "Contrastive Locked Tuning" and not formulas


def test_a_short_form_brings_its_long_form() -> None:
    abstract = (
        "Regression is hard. We propose Rank-N-Contrast (RNC), a framework that learns continuous "
        "representations. RNC works, and so does a novel method, ``Meet in the Middle'' (MIM)."
    )
    features, pair = _candidate(abstract, "Rank-N-Contrast (RNC)")
    assert features["long_and_short"] == 1 and set(pair.forms) >= {"Rank-N-Contrast", "RNC"}
    assert _candidate(abstract, "Rank-N-Contrast")[0]["long_form"] == 1
    assert _candidate(abstract, "RNC")[0]["has_long_form"] == 1
    assert _candidate(abstract, "Meet in the Middle (MIM)")[0]["long_and_short"] == 1  # not "method and …"
    assert _candidate(abstract, "Meet in the Middle")[0]["quoted"] == 1
    reversed_ = "We propose a bandit algorithm called MARS (Maximum Average Randomly Sampled) for arms."
    assert _candidate(reversed_, "MARS (Maximum Average Randomly Sampled)")[0]["long_and_short"] == 1


def test_a_name_leads_unless_the_description_has_it_as_a_word() -> None:
    assert lead_with_name("Input plasticity of agents", "PLASTIC") == "PLASTIC: Input plasticity of agents"
    assert (
        lead_with_name("A framework that learns representations", "Rank-N-Contrast (RNC)")
        == "RNC: Rank-N-Contrast, a framework that learns representations"
    )
    assert lead_with_name("RNC for regression", "Rank-N-Contrast (RNC)") == "RNC for regression"


def test_a_long_form_the_description_spells_out_leads_with_its_short_form() -> None:
    pair = "Memory-Augmented Transformer (MAT)"
    assert (
        lead_with_name("Memory-Augmented Transformer for captions", pair)
        == "MAT: Memory-Augmented Transformer for captions"
    )
    assert lead_with_name("MAT for captions", pair) == "MAT for captions"
    assert (
        lead_with_name("A recurrent captioner", pair)
        == "MAT: Memory-Augmented Transformer, a recurrent captioner"
    )
    # real titles lead with the short form; the long form stands alone when no "a …" follows it
    assert lead_with_name("Recurrent captioning", pair) == "MAT: Memory-Augmented Transformer"
    assert lead_with_name("Memory-Augmented Transformer (MAT)", pair) == "MAT: Memory-Augmented Transformer"


def test_a_word_the_abstract_repeats_and_introduces_is_likelier_in_the_title() -> None:
    plain = hide_math(NAMED)[0]
    words, rows = word_features(plain, "SkimNet", {"reader": 0.3, "benchmark": 0.01}, 0.1)
    assert len(words) == len(rows) and rows.shape[1] == len(WORD_FEATURES)
    chances = word_chances([plain], ["SkimNet"], shipped_model())[0]
    assert set(chances) == set(words) and all(0 < p < 1 for p in chances.values())
    assert chances["skimnet"] > chances["benchmark"]


def test_a_dash_set_against_the_words_breaks_the_phrase() -> None:
    plain = hide_math("The architecture --CARTE for Table Entries-- uses graphs. It runs—and scales—well.")[0]
    assert plain == "The architecture — CARTE for Table Entries — uses graphs. It runs — and scales — well."
    assert hide_math("The Kullback–Leibler divergence and pre-training")[0] == (
        "The Kullback–Leibler divergence and pre-training"
    )
    assert lead_with_name("Architecture --CARTE for tables", "CARTE") == "Architecture --CARTE for tables"


def test_what_something_is_said_to_be_is_no_name_given() -> None:
    abstract = "The problem is NP-hard and APX-hard. We introduce SkimNet, a reader for long documents."
    assert _candidate(abstract, "APX-hard")[0]["predicate"] == 1
    assert _candidate(abstract, "SkimNet")[0]["predicate"] == 0


def test_a_description_of_the_names_words_only_is_no_description() -> None:
    # the description left once the name's aside is taken out and the title shortened to fit
    name = "Hierarchical Document Skimming Network (HDSN)"
    assert lead_with_name("Hierarchical Document Skimming Network (HDSN) for finding answers", name) == (
        "HDSN: Hierarchical Document Skimming Network for finding answers"
    )
    assert lead_with_name("Social Environment", "Social Environment Design") == "Social Environment Design"
    assert lead_with_name("Social environments for agents", "Social Environment Design") == (
        "Social Environment Design: Social environments for agents"
    )


def test_a_capitalised_word_set_before_a_description_is_its_name() -> None:
    assert lead_with_name("Flextron, a network architecture", None) == "Flextron: A network architecture"
    assert lead_with_name("Second, a network architecture", None) == "Second, a network architecture"


def test_a_leading_sentence_adverb_and_a_hanging_function_phrase_are_dropped() -> None:
    abstract = (
        "We study readers of long documents. Second, SkimNet skips paragraphs. "
        "Moreover, hierarchical readers for long documents in order to save tokens are fast."
    )
    texts = [c.text for c in title_candidates(abstract)[0]]
    assert not any(t.startswith(("Second", "Moreover")) for t in texts)
    assert "Hierarchical readers for long documents" in texts
    assert not any(t.endswith(" in order") for t in texts)


def test_a_spaced_dash_splits_a_phrase_into_its_pieces() -> None:
    plain = hide_math("The architecture --CARTE for Table Entries-- uses graphs for tables.")[0]
    texts = [c.text for c in title_candidates(plain)[0]]
    assert "CARTE for Table Entries" in texts
    assert not any("—" in t for t in texts)


@pytest.mark.parametrize(
    ("candidate", "short"),
    [
        ("The role of readers in raising the visibility", True),  # "… of research papers"
        ("Long documents by hierarchical", True),  # "… by hierarchical skimming."
        ("Skimmed summaries closely match full", True),  # "… full summaries"
        ("The role of readers", False),  # "… in raising": a phrase may end before a preposition
        ("Long documents by hierarchical skimming", False),
        ("Skimmed summaries", False),  # "… closely match": its verb follows
        ("A reader of research papers", False),  # reworded: not in the abstract, nothing to judge
    ],
)
def test_a_phrase_the_abstract_goes_on_with_stops_short(candidate: str, short: bool) -> None:
    abstract = (
        "We study the role of readers in raising the visibility of research papers. We summarise "
        "long documents by hierarchical skimming. Skimmed summaries closely match full summaries."
    )
    assert stops_short(candidate, abstract) is short


def test_a_phrase_used_whole_somewhere_does_not_stop_short() -> None:
    abstract = "Readers of long documents skim. Long documents are slow to read for long documents readers."
    assert not stops_short("long documents", abstract)


def test_the_words_around_a_names_uses_are_its_context() -> None:
    abstract = (
        "We propose SkimNet, a reader for long documents. On ImageNet, SkimNet outperforms BERT. "
        "We evaluate on ImageNet and compare with BERT baselines."
    )
    plain = hide_math(abstract)[0]
    found = {c.name: c for c in name_candidates(plain, name_marks(abstract))}
    skimnet = name_contexts(plain, found["SkimNet"])
    assert {"<we", "<propose", ">a", ">reader", ">outperforms"} <= skimnet
    assert "<evaluate" not in skimnet  # another sentence's words are not its context
    assert {"<evaluate", "<on", ">and"} <= name_contexts(plain, found["ImageNet"])
    assert ">baselines" in name_contexts(plain, found["BERT"])


def test_context_rates_rate_a_names_context_by_its_words() -> None:
    rates = NameContextRates({"<propose": 0.8, "<on": 0.05}, 0.2)
    best, worst, mean = rates.features(frozenset({"<propose", "<on", "<unseen"}))
    assert best == pytest.approx(np.log(4)) and worst == pytest.approx(np.log(0.05 / 0.95))
    assert mean == pytest.approx((best + worst) / 2)
    assert rates.features(frozenset({"<unseen"})) == pytest.approx((np.log(0.25),) * 3)


@pytest.mark.parametrize(
    ("description", "name", "title"),
    [
        (
            "A dataset, SkimQA, with questions on long documents",
            "SkimQA",
            "SkimQA: A dataset with questions on long documents",
        ),
        (
            "A hierarchical reader named SkimNet for long documents",
            "SkimNet",
            "SkimNet: A hierarchical reader for long documents",
        ),
        ("A hierarchical reader, SkimNet", "SkimNet", "SkimNet: A hierarchical reader"),
        ("A reader called SkimNet (Skimming Network)", "SkimNet", "SkimNet: Skimming Network"),
        ("A reader named Skimming Network (SkimNet)", "SkimNet", "SkimNet: Skimming Network"),
        # what the name stands for is its description; a purpose is not
        ("SkimNet for Skimming Neural Networks", "SkimNet", "SkimNet: Skimming Neural Networks"),
        ("SkimNet for Long Documents", "SkimNet", "SkimNet for Long Documents"),
        ("Skimmer for Short Documents", "Skimmer", "Skimmer for Short Documents"),  # one capital spells none
        # a name after a clause that is not the noun it names stays where it is
        (
            "Unlike other readers of documents, SkimNet",
            "SkimNet",
            "Unlike other readers of documents, SkimNet",
        ),
    ],
)
def test_a_name_given_in_passing_leads_its_description(description: str, name: str, title: str) -> None:
    assert lead_with_name(description, name) == title


@pytest.mark.parametrize(
    ("candidate", "unfinished"),
    [
        ("For example, online matching of riders", True),  # real titles never open with "For"
        ("Unlike diffusion models for images", True),
        ("Be incorporated into reading frameworks", True),  # an auxiliary opens only a question
        ("The distance between the generated distribution", True),  # "… and the data"
        ("An equivalence between a type of reader", True),
        ("Both fast skimming", True),
        ("The gap between skimming and reading", False),
        ("Alignment between modalities", False),  # "between" a plural is whole
        ("Lithography, transferring chip design masks", True),  # the aside of a subject
        ("Lithography, transferring chip design masks and wafers", True),
        ("Rescaling, thinning or complementing", False),  # a list
        ("Graphs, string diagrams", False),  # "string" is no participle
        ("The distance between two readers", False),
        ("Towards faster skimming of long documents", False),  # titles open with "Towards"
        ("On the skimming of long documents", False),
        ("Can readers skim?", False),
        ("(ACL'19) that long document readers", True),  # an aside opens no title
        ("Design adaptive readers", True),  # "we can design adaptive readers": subject dropped
        ("Design of adaptive readers", False),
        ("Control barrier functions for readers", False),
        ("Uses selective skimming to read faster", True),  # no title opens with "Uses"
        ("Outperforming prior readers on long documents", True),
        ("Improving readers of long documents", False),  # real titles open with "Improving"
        ("Skimming conjecture [Brand", True),  # cut inside a bracket
        ("Skimming conjecture [Brand 2019]", False),
        ("Multi-group skimming model formalizes", True),  # cut after its verb (a learned one)
        ("Learning to learn", False),
        ("Skimming with provable guarantees", False),  # "guarantees" is a noun as often
        ("Skimming in natural language with fuSE", False),  # a name, not the verb "fuse"
        ("Readers of long documents, such as novels", True),  # no real title holds "such as"
        ("The role of this skimming", True),  # nor "of this", pointing back
        ("Skimming samples the next paragraph according", True),  # no real title ends "according"
        ("Paragraph features extracted", True),  # no title ends "extracted" (learned, 300+ abstracts)
        ("Discards irrelevant paragraphs of long documents", True),  # a third-person verb opens no title
        ("Discarding irrelevant paragraphs of long documents", False),
        ("Even in regular skimming readers", True),  # an adverbial, not a noun phrase
        ("Even faster skimming of long documents", False),  # "even" before an adjective opens titles
    ],
)
def test_a_phrase_left_unfinished_is_no_title(candidate: str, unfinished: bool) -> None:
    assert left_unfinished(candidate) is unfinished


def test_a_phrase_stops_short_before_a_word_titles_join_to_it() -> None:
    # "design" reads as a verb alone; real titles use "circuit design" as one noun phrase
    abstract = "We study supervised finetuning for automated analog circuit design. We design readers."
    assert stops_short("Supervised finetuning for automated analog circuit", abstract)
    assert not stops_short("Supervised finetuning for automated analog circuit design", abstract)


def test_a_verb_learned_from_abstracts_makes_a_sentence() -> None:
    # "constitutes" and "overfits" are in no hand list: their base forms follow "to"/"can" in abstracts
    assert reads_as_a_sentence("Satellite data constitutes a distinct modality for readers")
    assert reads_as_a_sentence("The diffusion model overfits to the training data")
    assert not reads_as_a_sentence("Adversarial attacks on long document readers")  # "the attack"


def test_a_plural_and_its_bare_verb_make_a_sentence() -> None:
    assert reads_as_a_sentence("The skimming and reading models give nearly identical answers")
    assert not reads_as_a_sentence("Adversarial attacks on long document readers")
    assert not reads_as_a_sentence("Graphics design principles for readers")  # "graphics" no plural


def test_tex_en_dash_between_two_names_joins_them() -> None:
    plain = hide_math("The Weisfeiler--Leman test of readers --SkimNet-- skims fast.")[0]
    assert "Weisfeiler–Leman test" in plain
    assert "— SkimNet —" in plain


@pytest.mark.parametrize(
    ("verb", "form"),
    [("uses", "using"), ("extend", "extending"), ("applies", "applying"), ("map", "mapping"),
     ("focuses", "focusing"), ("leverage", "leveraging"), ("fixes", "fixing"), ("set", "setting"),
     ("train", "training"), ("relate", "relating"), ("studies", "studying")],
)  # fmt: skip
def test_the_gerund_of_a_verb(verb: str, form: str) -> None:
    assert gerund(verb) == form


def test_what_the_paper_does_with_something_is_a_gerund_candidate() -> None:
    abstract = (
        "Reading long documents is slow. We propose SkimNet, a reader for long documents, and use "
        "the structure of the documents to skip paragraphs. We demonstrate the speed of SkimNet."
    )
    texts = _candidate_texts(abstract)
    assert "Using the structure of the documents to skip paragraphs" in texts
    assert not any(t.startswith(("Proposing", "Demonstrating")) for t in texts)


def test_an_object_without_its_verb_is_no_candidate() -> None:
    # "The bias of readers" says the paper is about bias; it reduces it
    abstract = (
        "Long document readers are biased. SkimNet reduces the bias of readers on long documents, "
        "and we achieve state-of-the-art accuracy on skimming benchmarks."
    )
    texts = _candidate_texts(abstract)
    assert (
        "Reducing the bias of readers on long documents" in texts
        or "Reducing bias of readers on long documents" in texts
    )
    assert not any(t.lower().startswith(("the bias of readers", "bias of readers")) for t in texts)
    assert not any(t.lower().startswith("state-of-the-art accuracy") for t in texts)  # a claim


def test_an_opening_keeps_the_verb_the_paper_sets_out_to_do() -> None:
    # "we propose to maximize AUC via …": "AUC via …" is the object with its verb dropped
    abstract = (
        "Directly solving a minimax problem cannot achieve satisfactory AUC. To address this issue, we "
        "propose to maximize AUC via optimizing a federated multi-level compositional minimax problem."
    )
    texts = _candidate_texts(abstract)
    assert "Maximizing AUC via optimizing a federated multi-level compositional minimax problem" in texts
    assert not any(t.startswith("AUC via") for t in texts)
    # past an adverb; and a light verb whose -ing form titles do not open with leaves its object
    abstract = (
        "Existing methods ignore the skeleton. We propose to explicitly encode anatomical constraints by "
        "modeling their skeletons. We propose to perform optimization within the data manifold using "
        "diffusion models."
    )
    texts = _candidate_texts(abstract)
    assert "Encoding anatomical constraints by modeling their skeletons" in texts
    assert "Optimization within the data manifold using diffusion models" in texts
    # "to" before a noun is no verb's; a that-clause is a claim
    abstract = (
        "This paper contributes to model interpretability research for large language models. We aim to "
        "show that transformers learn in-context linear regression with gradient descent."
    )
    texts = _candidate_texts(abstract)
    assert not any(t.startswith("Modeling interpretability") for t in texts)
    assert not any(t.lower().startswith(("that transformers", "showing that")) for t in texts)


def test_a_pair_half_said_stops_short_and_a_claim_is_no_gerund() -> None:
    abstract = (
        "In this paper, we aim to learn associations between visual attributes of fonts and the verbal "
        "context of the texts they are typically applied to."
    )
    assert stops_short("Associations between visual attributes of fonts", abstract)
    assert not stops_short("Associations between visual attributes of fonts and verbal context", abstract)
    # "between two …" is whole, and "and study" joins another clause
    abstract = "We consider a student-teacher framework between two LLM agents and study when to intervene."
    assert not stops_short("A student-teacher framework between two LLM agents", abstract)
    assert stops_short(
        "A student-teacher framework between the teacher",
        abstract.replace("two LLM agents", "the teacher and the student"),
    )
    assert acted_on("explain", "that interactive concepts involving more input variables") is None
    assert not stops_short(
        "The interaction between users", "We model the interaction between users and then derive a bound."
    )
    assert not stops_short(
        "The correlation between two variables",
        "We study the correlation between two variables and their margins.",
    )
    assert acted_on("explain", "interactive concepts") == "explaining interactive concepts"


def test_a_phrase_a_negation_opens_is_no_candidate() -> None:
    from generator.analysis.titles import _phrase_runs

    # Alone, what follows "less" or "without" says the opposite of the abstract ("Toxic models")
    abstract = (
        "AurA lowers the activations of toxic neurons, making it an effective method for deploying safer "
        "and less toxic models. It works without any labeled toxicity data and not only reduces toxic "
        "generation but also keeps perplexity."
    )
    texts = [t.lower() for t in _candidate_texts(abstract)]
    assert "effective method" in texts
    assert not any(t.startswith(("toxic models", "labeled toxicity data")) for t in texts)
    second = "It works without labels and not only reduces toxic generation but also keeps perplexity."
    assert ("toxic generation", "reduces") in _phrase_runs(second)  # "not only X" says X
    assert _phrase_runs("Not all graph neural networks are equally expressive.") == [
        ("graph neural networks", None)
    ]
    assert _phrase_runs("We prove at least linear convergence rates.") == [("linear convergence rates", None)]
    assert _phrase_runs("Existing methods do not scale to large graphs.") == [("large graphs", None)]


@pytest.mark.parametrize(
    ("verb", "phrase", "title"),
    [
        (None, "skimming of long documents", "skimming of long documents"),
        ("propose", "skim networks for long documents", "skim networks for long documents"),  # the work
        ("introducing", "skim networks", "skim networks"),
        ("proposed", "skim networks", "skim networks"),  # a participle, no verb dropped
        ("reduces", "the bias of readers", "reducing the bias of readers"),
        ("outperforms", "prior readers", None),  # a claim
        ("achieving", "faster reading", None),
    ],
)
def test_a_phrase_as_a_title_given_the_verb_it_is_the_object_of(
    verb: str | None, phrase: str, title: str | None
) -> None:
    assert acted_on(verb, phrase) == title


def test_a_name_keeps_its_sharp() -> None:
    names = [c.name for c in name_candidates(hide_math("We introduce SkimNet#, improving on SkimNet.")[0])]
    assert "SkimNet#" in names


def _verdicts(
    weights: dict[str, float], intercept: float, threshold: float, margin: float = 0.0
) -> VerdictModel:
    width = len(VERDICT_FEATURES)
    vector = np.zeros(width)
    for feature, weight in weights.items():
        vector[VERDICT_FEATURES.index(feature)] = weight
    return VerdictModel(np.zeros(width), np.ones(width), vector, intercept, threshold, margin)


def test_verdicts_pass_over_a_candidate_a_reader_would_call_wrong() -> None:
    model = shipped_model()
    best = derive_titles([NAMED], model)[0]
    # odds of WRONG fall with the gap to the best score: the best-scored is passed over for another
    passing_over = _verdicts({"gap_to_best": -100.0}, 1.0, 0.0)
    other = derive_titles([NAMED], model, passing_over)[0]
    assert other != best
    # … unless the other is not less likely WRONG by the margin
    assert derive_titles([NAMED], model, _verdicts({"gap_to_best": -0.01}, 1.0, 0.0, margin=5.0))[0] == best
    # nor when the best-scored is below the threshold
    assert derive_titles([NAMED], model, _verdicts({"gap_to_best": -100.0}, 1.0, 2.0))[0] == best
    # every candidate as likely WRONG: the least likely (all equal: the best-scored) stays
    assert derive_titles([NAMED], model, _verdicts({}, 5.0, 0.0))[0] == best
    # no candidate likely WRONG: the best-scored stays
    assert derive_titles([NAMED], model, _verdicts({}, -5.0, 0.0))[0] == best


def test_the_shipped_verdicts_load_and_decide_the_default_titles(tmp_path) -> None:
    verdicts = shipped_verdicts()
    assert verdicts is not None and len(verdicts.weights) == len(VERDICT_FEATURES)
    path = tmp_path / VERDICT_FILE
    verdicts.save(path)
    again = VerdictModel.load(path)
    assert again.threshold == verdicts.threshold and again.margin == verdicts.margin
    assert np.array_equal(again.weights, verdicts.weights)
    abstracts = [NAMED, BACKGROUND_FIRST]
    assert derive_titles(abstracts) == derive_titles(abstracts, shipped_model(), verdicts)
    np.savez(path, features=np.array(VERDICT_FEATURES[:-1]))
    with pytest.raises(ValueError, match="retrain"):
        VerdictModel.load(path)


def test_a_piece_of_a_spelled_out_name_is_no_name() -> None:
    abstract = "We propose an Ecologically-Inspired GENetic (EIGEN) approach. EIGEN searches networks."
    plain = hide_math(abstract)[0]
    names = [c.name for c in name_candidates(plain)]
    assert pieces_of_spelled_out_names(plain, names) == {"GENetic", "Ecologically-Inspired"}
    scores = np.array([5.0 if n == "GENetic" else 0.0 for n in names])
    assert likeliest_name(plain, names, scores)[0] not in {"GENetic", "Ecologically-Inspired"}
    # used on its own elsewhere, the word may still be a name
    alone = hide_math(abstract + " GENetic operators mutate it.")[0]
    assert "GENetic" not in pieces_of_spelled_out_names(alone, [c.name for c in name_candidates(alone)])
    # spelled out in words that make no name of their own ("importanCE" has no capital first)
    traced = hide_math("We propose the TRAjectory importanCE (TRACE) framework. TRACE scores best.")[0]
    pieces = pieces_of_spelled_out_names(traced, [c.name for c in name_candidates(traced)])
    assert pieces == {"TRAjectory", "importanCE"}


def test_a_phrase_worded_as_an_abstract_tells_is_no_title() -> None:
    # a word abstracts use and titles never do (learned from scale_50k's titles)
    assert tells_as_an_abstract("The recently proposed model of RL with aggregate bandit feedback")
    assert tells_as_an_abstract("The proposed LiteVL even outperforms previous models")
    assert not tells_as_an_abstract("A framework called Chain of Code")  # the name is set aside
    assert not tells_as_an_abstract("AIMS: a benchmark")  # a name in capitals is no word
    assert not tells_as_an_abstract("OURS: a benchmark")
    assert tells_as_an_abstract("FooNet—however good")  # words as the learner reads them
    # opening with a word that opens abstracts' sentences about prior work and almost never a title
    assert tells_as_an_abstract("State-of-the-art dynamical systems reconstruction")
    assert tells_as_an_abstract("Existing dialogue policy methods")
    assert not tells_as_an_abstract("PRIOR: a benchmark")
    # the authors speaking; a question word asking nothing
    assert tells_as_an_abstract("When we naively finetune strong pretrained models on weak labels")
    assert tells_as_an_abstract("Why and how out-of-domain generalization in DSR")
    assert not tells_as_an_abstract("Which Edges Should We Learn First?")
    # a demonstrative points back into the abstract
    assert tells_as_an_abstract("A research agenda towards this end by introducing Social Environment Design")
    assert tells_as_an_abstract("A recurrent pose-attention network (RPAN) to address this challenge")
    assert not tells_as_an_abstract("Is This Loss Informative?")
    assert not tells_as_an_abstract("How Gradient Noise Attracts SGD Dynamics")
    assert not tells_as_an_abstract("How to Hack Kalman Filtering")
    assert not tells_as_an_abstract("Robust optimization in protein fitness landscapes")


def test_a_phrase_opening_with_a_predicate_is_a_fragment() -> None:
    # what abstracts say of a subject before a preposition, and no title opens with (learned)
    assert opens_with_a_predicate("Important for fine-tuning with preference data")
    assert opens_with_a_predicate("Able to weakly supervise superhuman models")
    assert opens_with_a_predicate("Factually consistent with persona facts")  # after an adverb
    assert opens_with_a_predicate("Extracted from attention mechanisms of Transformer")
    assert not opens_with_a_predicate("Accelerated On-Device training")  # "On-Device" is no preposition
    assert not opens_with_a_predicate("Learning to learn")
    assert not opens_with_a_predicate("Important features")


def test_a_phrase_the_abstract_goes_on_with_by_agreement_stops_short() -> None:
    plain = "To prevent overfitting, we introduce data-regularised environment design (DRED)."
    assert stops_short("Data-regularised environment", plain)  # "environment [design]": a noun
    assert not stops_short("Large language models", "Large language models learn to reason.")
    assert not stops_short("Methods for grammar induction", "Methods for grammar induction suffer.")
    # the subject the verb agrees with may come before the candidate, in its clause
    assert not stops_short("Curriculum learning", "Agents trained with curriculum learning generalize.")
    assert stops_short("Environment", "Tests show that our environment design works.")
    # a past form agrees with nothing: "given" is no noun
    assert not stops_short("Best model", "We select the best model given a compute budget.")


def test_a_best_candidate_cut_from_the_name_stands_for_the_name() -> None:
    from generator.analysis.titles import _cut_from_name

    assert _cut_from_name("Social Environment", "Social Environment Design")
    assert not _cut_from_name("Social Environment Design", "Social Environment Design")
    assert not _cut_from_name("Dynamic Sparse Training", "Dynamic Sparse Training (DST)")
    assert not _cut_from_name("Social Environment", None)


def test_a_candidate_trimmed_to_one_hanging_word_is_none() -> None:
    from generator.analysis.titles import _variants

    assert _variants("differentially private", "phrase", 0) == []  # not "Differentially"
    assert [c.text for c in _variants("differentially private representation learning", "phrase", 0)] == [
        "Differentially private representation learning"
    ]


def test_a_description_shortened_beside_its_name_leaves_no_pair_half_said() -> None:
    description = "An object-centric Latent Diffusion Model (LDM) designed for both image and video data"
    titled = lead_with_name(description, "SlotDiffusion")
    assert titled == "SlotDiffusion: An object-centric Latent Diffusion Model (LDM)"
    description = "A variation of the Log-Derivative trick tailored towards categorical distributions"
    assert lead_with_name(description, "IndeCateR") == "IndeCateR: A variation of the Log-Derivative trick"


def test_what_the_paper_sets_itself_against_is_no_title() -> None:
    from generator.analysis.titles import set_against

    plain = "In contrast to the prevailing interpretation of Low-Rank Adaptation (LoRA), we frame it anew."
    assert set_against("Prevailing interpretation of Low-Rank Adaptation", plain)
    assert set_against("Best single-view method", "It errs less than the best single-view method")
    # named as its own elsewhere in the abstract: not only set against
    plain = "We propose control modules. Unlike adapters, control modules are nonlinear."
    assert not set_against("Control modules", plain)


def test_a_spelled_out_name_is_one_phrase() -> None:
    from generator.analysis.text import _spelled_out

    plain = "To prevent drift, we introduce data-regularised environment design (DRED) here."
    assert _spelled_out("DRED", plain) == "data-regularised environment design"
    plain = "Models memorise noisy labels. We propose Label-Retrieval-Augmented (LRA) diffusion."
    assert _spelled_out("LRA", plain) == "Label-Retrieval-Augmented"
    assert (
        title_candidates(
            "Agents overfit their levels. To prevent both overfitting and distributional shift, we introduce "
            "data-regularised environment design (DRED). DRED generates levels with a generative model."
        )[0][0].text
        == "Data-regularised environment design"
    )


def test_a_name_is_taken_as_the_abstract_writes_it() -> None:
    # punctuation glued to its end is no part of it
    assert written_name("MultiHumES–", "We release MultiHumES– a corpus.") == "MultiHumES"
    # an adjective made of a name is the paper's name only when the abstract spells that name out
    names = ["Recursion in Recursion (RIR)", "RIR", "RIR-based"]
    plain = "We propose Recursion in Recursion (RIR). RIR-based models generalise."
    assert written_name("RIR-based", plain, names) == "Recursion in Recursion (RIR)"
    assert written_name("GNN-based", "GNN-based encoders work.", ["GNN", "GNN-based"]) is None
    assert written_name("Scene-Aware", "Scene-Aware Networks see.") == "Scene-Aware"
    assert written_name("-based", "x") is None
    # two variants of one name are that name; one name with an underscore stays as it is
    assert written_name("DP-Mix_Self", "We propose DP-Mix_Self and DP-Mix_Diff.") == "DP-Mix"
    assert written_name("DuReader_robust", "We release DuReader_robust.") == "DuReader_robust"
    # every use goes on with the same number or acronym: the name includes it
    assert written_name("StyleTTS", "We present StyleTTS 2, a model. StyleTTS 2 wins.") == "StyleTTS 2"
    assert written_name("TyDi", "TyDi QA is a dataset. TyDi QA covers 11 languages.") == "TyDi QA"
    assert written_name("StyleTTS", "StyleTTS 2 improves on StyleTTS.") == "StyleTTS"
    assert written_name("WHERE", "WHERE ARE YOU? is a task. WHERE ARE YOU? asks.") == "WHERE"
    # one use says nothing of the name ("CoNLL02 NER"), nor does a number or acronym cut short
    assert written_name("CoNLL02", "We test on CoNLL02 NER.") == "CoNLL02"
    assert written_name("GPT", "GPT 3.5-turbo and GPT 3.5-turbo") == "GPT"
    assert written_name("NTU", "NTU RGB+D and NTU RGB+D") == "NTU"
    # capitals glued to an inflected verb are a typo; capitals glued to a word part are a name
    assert written_name("BERTachieved", "the BERTachieved results") is None
    assert written_name("KLearn", "KLearn learns.") == "KLearn"
    # the likeliest name is returned as written
    plain = "We present StyleTTS 2, a text-to-speech model. StyleTTS 2 beats baselines."
    assert likeliest_name(plain, ["StyleTTS"], np.array([1.0]))[0] == "StyleTTS 2"


def test_a_quoted_name_is_set_aside_like_a_bare_one() -> None:
    assert lead_with_name('A large-scale dataset called "COIN" for instruction videos', "COIN") == (
        "COIN: A large-scale dataset for instruction videos"
    )
    assert lead_with_name('"Neural Illumination," a new approach to lighting', "Neural Illumination") == (
        "Neural Illumination: A new approach to lighting"
    )


def test_a_participle_after_its_noun_stops_short_without_its_complement() -> None:
    abstract = (
        "We study the near-future risks posed by autonomous weapons. MLQA is a benchmark intended to "
        "spur research. Weapons posed risks."
    )
    assert stops_short("Near-future risks posed", abstract)
    assert stops_short("A benchmark intended", abstract)
    assert not stops_short("Near-future risks posed by autonomous weapons", abstract)
    # a noun in -eed and an adjective after "are" end their phrase before a preposition
    abstract = "We study boosting inference speed for models, and learning when data are unlabeled in use."
    assert not stops_short("Boosting inference speed", abstract)
    assert not stops_short("Learning when data are unlabeled", abstract)
