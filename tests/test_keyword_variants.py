"""One page per keyword: spelling, hyphenation, number and acronym variants share one keyword."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from generator.analysis.keyphrases import canonical
from generator.analysis.keyphrases.variants import group_keyword_variants, spelling_key


def _grouped(keywords_per_paper: list[list[str]], texts: list[str] | None = None):
    per_paper = [[(canonical(k), k) for k in keywords] for keywords in keywords_per_paper]
    return group_keyword_variants(per_paper, texts or [""] * len(per_paper))


def test_spelling_hyphenation_and_number_variants_share_one_keyword() -> None:
    grouped = _grouped(
        [
            ["deepfake", "video"],
            ["Deep-Fake", "Videos"],
            ["deep fake", "GANs"],
            ["deepfakes", "gan"],
            ["deepfake"],
        ]
    )
    assert grouped.of("deep-fake") == grouped.of("deep fake") == grouped.of("deepfake") == "deepfake"
    assert grouped.of("videos") == grouped.of("video") == "video"
    assert grouped.of(canonical("GANs")) == grouped.of("gan")
    # The variants are listed as the authors wrote them, the shown form apart.
    assert grouped.variants["deepfake"] == ("deep fake", "Deep-Fake", "deepfakes")
    assert grouped.variants["video"] == ("Videos",)


def test_the_most_used_spelling_is_shown() -> None:
    grouped = _grouped([["multi-task learning"], ["multitask learning"], ["multitask learning"]])
    assert grouped.of("multi-task learning") == "multitask learning"
    grouped = _grouped([["optimisation"], ["optimization"], ["optimization"]])
    assert grouped.of("optimisation") == "optimization"


def test_an_acronym_joins_what_the_digest_spells_it_out_as() -> None:
    texts = [
        "We study large language models (LLMs) as agents.",
        "Artificial intelligence (AI) in games.",
        "",
        "",
    ]
    grouped = _grouped(
        [["LLM", "AI"], ["large language model"], ["llm", "artificial intelligence"], ["LLMs"]], texts
    )
    assert grouped.of("LLM") == grouped.of("llm") == grouped.of("large language model")
    assert grouped.of("AI") == grouped.of("artificial intelligence")
    assert grouped.of("large language model") == "LLM"  # three papers write LLM, one the words


def test_an_acronym_nobody_spells_out_stays_apart() -> None:
    grouped = _grouped([["LLM"], ["large language model"]])
    assert grouped.of("LLM") != grouped.of("large language model")


def test_no_wrong_merges() -> None:
    texts = ["Artificial intelligence (AI) for all.", "", "", ""]
    grouped = _grouped([["ai"], ["A.I. for games"], ["artificial intelligence"], ["gas", "GA"]], texts)
    assert grouped.of("A.I. for game") == "A.I. for game"
    assert grouped.of("ai") == grouped.of("artificial intelligence") != grouped.of("A.I. for game")
    assert grouped.of("gas") != grouped.of("GA")


def test_an_acronym_a_paper_spells_out_otherwise_stays_its_own() -> None:
    texts = [
        "Artificial neural networks (ANNs) learn.",
        "Artificial neural networks (ANN) again.",
        "A technique for approximate nearest neighbor (ANN) search.",
        "",
    ]
    grouped = _grouped([[], [], ["ANN"], ["artificial neural network"]], texts)
    assert (
        grouped.of("ANN") == "ANN" and grouped.of("artificial neural network") == "artificial neural network"
    )


def test_a_keyword_that_spells_out_its_acronym_joins_both() -> None:
    grouped = _grouped([["Large Language Model (LLM)"], ["LLMs"], ["large language models"], ["LLM"]])
    assert (
        len(
            {
                grouped.of(canonical(k))
                for k in ["Large Language Model (LLM)", "LLMs", "large language models"]
            }
        )
        == 1
    )


KEYWORD = (
    st.text(alphabet=st.sampled_from("abcdeS -.()"), min_size=1, max_size=14).map(canonical).filter(bool)
)


@given(st.lists(st.lists(KEYWORD, max_size=4), min_size=1, max_size=6))
def test_grouping_is_a_partition_of_the_keywords(keywords_per_paper: list[list[str]]) -> None:
    grouped = _grouped(keywords_per_paper)
    forms = {k for keywords in keywords_per_paper for k in keywords}
    for form in forms:
        shown = grouped.of(form)
        assert shown in forms and grouped.of(shown) == shown
    # Only keywords of one spelling key, a plural or an acronym join: without texts, no acronyms.
    for form in forms:
        shown = grouped.of(form)
        a, b = spelling_key(form), spelling_key(shown)
        assert (
            a == b
            or a.rstrip("s") == b.rstrip("s")
            or a.startswith(b)
            or b.startswith(a)
            or "(" in form + shown
        )


def test_a_keyword_that_is_more_than_its_acronym_stays_its_own() -> None:
    keywords = ["computer vision convolutional neural networks (CNN)", "CNN", "convolutional neural network"]
    grouped = _grouped([[k] for k in keywords])
    assert grouped.of(canonical(keywords[0])) == canonical(keywords[0])
