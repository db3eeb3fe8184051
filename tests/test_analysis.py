from __future__ import annotations

import json
import sqlite3
import unicodedata
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.analysis.analyse import analysis_text, embed_papers, settle_titles, text_parts
from generator.analysis.keyphrases import Candidate, abstract_candidates, canonical, canonical_key
from generator.analysis.keyphrases.candidates import _span_key, find_acronyms
from generator.analysis.keyphrases.canonical import key_parts
from generator.analysis.keyphrases.ranker import (
    CUT_HEAD_SHARE,
    FEATURES,
    STRAY_FEATURES,
    StrayModel,
    cut_head,
    keyword_model,
    keyword_strays,
    lone_words,
    may_show,
    modifier,
    paper_features,
    word_stats,
)
from generator.analysis.keywords import (
    FIELD_DEFINITIONS,
    MIN_KEYWORDS,
    MIN_SCORE,
    OWN_NAME_FLOOR,
    Candidates,
    _own_name,
    _pick,
    candidate_key,
    choose_keywords,
    find_candidates,
    keyword_similarities,
    odds_by_key,
    rank_keywords,
    repeats,
)
from generator.analysis.related import find_related
from generator.analysis.text import keyword_slug
from generator.cache.candidates import CandidateStore
from generator.cache.database import open_cache
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from generator.model import Keyword, Paper, SourceLocation
from tests.conftest import SAMPLE_ABSTRACTS


def test_cache_reuses_vectors_and_keys_by_model_and_text(tmp_path: Path, fake_embedder) -> None:
    cache = EmbeddingCache.open(tmp_path / "c.sqlite3")
    embedder = CachedEmbedder(fake_embedder, cache)
    first = embedder.embed(["alpha beta", "gamma", "alpha beta"])
    assert fake_embedder.calls == [2]
    second = embedder.embed(["gamma", "alpha beta", "delta"])
    assert fake_embedder.calls == [2, 1]
    np.testing.assert_array_equal(first[0], second[1])
    assert EmbeddingCache.key("m1", "t") != EmbeddingCache.key("m2", "t")


def test_corrupt_or_foreign_cache_is_rebuilt(tmp_path: Path, fake_embedder) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    cache = EmbeddingCache.open(path)
    assert cache.was_reset
    CachedEmbedder(fake_embedder, cache).embed(["x"])
    cache.close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    again = EmbeddingCache.open(path)
    assert again.was_reset
    assert again.get_many([EmbeddingCache.key(fake_embedder.name, "x")]) == {}


def test_related_never_self_sorted_with_shared_keywords() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(30, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    keywords = [[Keyword("shared", 1.0), Keyword(f"own{i}", 1.0)] for i in range(30)]
    related = find_related(vectors, keywords, 5)
    for index, near in enumerate(related):
        assert len(near) == 5
        assert index not in [r.index for r in near]
        scores = [r.score for r in near]
        assert scores == sorted(scores, reverse=True)
        expected = vectors[index] @ vectors[near[0].index]
        assert abs(near[0].score - expected) < 1e-3
        assert all(r.shared_keywords == ("shared",) for r in near)
    assert find_related(vectors[:1], keywords[:1], 5) == [[]]


def test_keywords_come_from_clean_text(fake_embedder) -> None:
    abstracts = [
        "Our **C**ontrolled **P**robability sampler beats baselines on zeroth-order optimization. "
        "The Controlled Probability sampler is simple.",
        "We study zeroth-order optimization with large language models (LLMs). LLMs are costly.",
        "Large Language Models can be tuned with zeroth order optimization, see https://x.org/a.",
    ]
    candidates = find_candidates(abstracts, [None] * 3, 5)
    found = rank_keywords(candidates, fake_embedder.embed(abstracts), fake_embedder, 5, strays=None)
    words = [k.text for paper in found for k in paper]
    assert "controlled probability sampler" in words or "controlled probability" in words
    assert not any("ontrolled" in w.replace("controlled", "") or "*" in w or "http" in w for w in words)
    # One spelling across the digest: plural, case, hyphen and acronym variants collapse.
    assert "zeroth-order optimization" in [k.text for k in found[2]]
    assert "zeroth order optimization" not in words
    assert "large language model" in [k.text for k in found[1]]
    assert not {"LLM", "LLMs", "large language models", "Large Language Models"} & set(words)
    assert all(2 <= len(paper) <= 5 for paper in found)


def test_keywords_avoid_the_slips_a_reader_sees(fake_embedder) -> None:
    """No lone -ize verb, no keyword inside another of its paper, and an acronym one abstract uses
    undefined is shown as written when only one other abstract defines it (it may be that paper's own
    name: "HP" was "hierarchical planning" in a paper about hyperparameters)."""
    abstracts = [
        # (the paper speaks of its own work from the first sentence: no background to set aside)
        "Our Wasserstein Wormhole embeds distributions. We optimize the Wasserstein Wormhole encoder; "
        "Wasserstein Wormhole scales to millions of distributions.",
        "Large language models (LLMs) follow instructions. Instruction tuning of large language models.",
        "Watermarks for LLMs: a watermark survives paraphrases by LLMs.",
        "Graph neural networks (GNNs) pass messages. We regularize GNN message passing.",
    ]
    candidates = find_candidates(abstracts, [None] * len(abstracts), 5)
    found = [
        [k.text for k in paper]
        for paper in rank_keywords(candidates, fake_embedder.embed(abstracts), fake_embedder, 5)
    ]
    words = {k for paper in found for k in paper}
    assert not {"optimize", "regularize"} & words
    # "Wasserstein" as authors write it (a name), "wormhole" lowercase
    assert any("Wasserstein wormhole" in k for k in found[0]) and "wormhole" not in found[0]
    for paper in found:  # no keyword inside another of its paper after stemming
        assert not any(repeats(a, b) for i, a in enumerate(paper) for b in paper[i + 1 :])
    # a weak second keyword is no longer shown (``MIN_KEYWORDS``): the candidate itself stays "LLM"
    assert "llm" in candidates.per_paper[2] and "large language model" not in candidates.per_paper[2]
    assert "large language model" not in found[2]
    # A GNN-defining abstract resolves its own use; the initials must spell the acronym.
    assert "graph neural network" in found[3] and "GNN" not in words
    unresolved = find_candidates(["We watermark LLM outputs with LLM text detection."], [None], 5)
    assert "llm" in unresolved.per_paper[0]  # no abstract of that digest defines it


def _counted(**counts: int) -> dict[str, Candidate]:
    """Candidates by key; an underscore is a space, a double one a hyphen ("graph__based")."""
    candidates = {}
    for name, count in counts.items():
        form = name.replace("__", "-").replace("_", " ")
        candidates[form.replace("-", " ")] = Candidate(form.replace("-", " "), form, count)
    return candidates


def test_no_keyword_repeats_another_of_its_paper() -> None:
    """Of two keywords one of which holds the other after stemming, the better-scored one stays and the
    next candidate takes the other's place: five keywords, five different things."""
    scored = [
        (0.9, "wasserstein wormhole"),
        (0.8, "neural network"),
        (0.75, "wormhole"),
        (0.7, "message passing"),
        (0.6, "graph neural network"),
        (0.55, "robustness"),
        (0.5, "robust training"),
        (0.4, "benchmark"),
    ]
    picked = _pick(scored, 5)
    assert picked == [
        (0.9, "wasserstein wormhole"),
        (0.8, "neural network"),
        (0.7, "message passing"),
        (0.55, "robustness"),
        (0.4, "benchmark"),
    ]
    assert repeats("Large Language Models", "language model")
    assert not repeats("reward model", "diffusion model")
    # two phrases sharing two words say the same twice (readers' verdicts: 11 of 15 REDUNDANT or STRAY),
    # unless the two words are the head both end with: two kinds of one thing
    assert repeats("sentiment analysis task", "sentiment analysis model")
    assert repeats("language model actor", "large language model")
    assert not repeats("hybrid reinforcement learning", "inverse reinforcement learning")
    assert not repeats("graph neural network", "graph transformer")


def test_an_acronym_is_read_through_asides_and_numbers() -> None:
    # an aside inside the long form, a number written as a word, a "2" read "to", a letter counted
    assert find_acronyms("how out-of-domain (OOD) generalization (OODG) differs")["OODG"] == (
        "out-of-domain generalization"
    )
    assert find_acronyms("EM for two-component Mixed Linear Regression (2MLR)")["2MLR"] == (
        "Mixed Linear Regression"
    )
    assert find_acronyms("a text-to-image (T2I) model")["T2I"] == "text-to-image"
    assert find_acronyms("generative subgame solving (GS2) scales")["GS2"] == "generative subgame solving"
    # a long form that runs over an aside joins no two phrases; a count that does not match is no word
    assert "FA" not in find_acronyms("federated learning (FL) and analytics (FA)")
    assert "D3TW" not in find_acronyms("we use dynamic time warping (D3TW)")
    # over an aside, every letter opens a word of the long form, one word a letter at most
    assert "GA" not in find_acronyms("graph neural networks (GNNs) with attention (GA)")
    assert find_acronyms("generative subgame solvers (GS2s) win")["GS2"] == "generative subgame solvers"
    assert not repeats("", "graph") and not repeats("—", "graph")


def test_a_word_with_letters_of_any_script_is_one_word() -> None:
    abstract = (
        "We solve the Schrödinger bridge problem with a Rényi divergence bound, measured by Fréchet "
        "inception distance. The Lévy-Itō Model (LIM) follows."
    )
    keys = set(abstract_candidates(abstract))
    assert {"schrödinger bridge problem", "rényi divergence bound", "fréchet inception distance"} <= keys
    assert not any(key.startswith(("dinger", "nyi", "chet")) for key in keys)
    assert find_acronyms(abstract) == {"LIM": "Lévy-Itō Model"}
    # decomposed ("o" and a combining diaeresis) reads as composed
    assert set(abstract_candidates(unicodedata.normalize("NFD", abstract))) == keys


def test_a_name_keeps_its_sharp() -> None:
    # "QuIP#" is the paper's method, "QuIP" the one it improves on; "the#" is no name
    found = abstract_candidates("We introduce QuIP#. QuIP# improves QuIP's processing. See the# sign.")
    assert found[canonical_key("QuIP#")].count == 2 and found[canonical_key("QuIP")].count == 1
    assert canonical_key("the#") not in found
    assert keyword_slug("QuIP#") == "quip-sharp" != keyword_slug("QuIP")
    assert keyword_slug("#P-hard") == "sharp-p-hard"


def test_an_acronym_longer_spelled_out_than_a_keyword_stays_a_word() -> None:
    # spelled out, only its pieces would be candidates: the acronym is the reader's handle on the name
    abstract = (
        "We propose Contextualized Critiques with Constrained Preference Optimization (C3PO). "
        "C3PO learns from verbal feedback. We study large language models (LLMs) with C3PO. LLMs improve."
    )
    found = abstract_candidates(abstract)
    assert canonical_key("C3PO") in found
    assert canonical_key("LLM") not in found and found[canonical_key("large language model")].count == 2


@given(
    st.lists(
        st.lists(
            st.sampled_from(["graph", "neural", "network", "robust", "robustness", "model"]),
            min_size=1,
            max_size=3,
        ),
        max_size=12,
    )
)
def test_picked_keywords_never_repeat_each_other(phrases: list[list[str]]) -> None:
    spellings = list(dict.fromkeys(" ".join(words) for words in phrases))
    scored = [(float(-rank), spelling) for rank, spelling in enumerate(spellings)]
    picked = [spelling for _, spelling in _pick(scored, 5)]
    assert picked == [s for s in spellings if s in picked]  # best first, a subsequence
    assert not any(repeats(a, b) for i, a in enumerate(picked) for b in picked[i + 1 :])
    weak = {s for rank, s in enumerate(spellings) if -rank < MIN_SCORE}  # not shown past MIN_KEYWORDS
    assert len(picked) == 5 or all(
        s in picked or any(repeats(s, p) for p in picked) or (s in weak and len(picked) >= MIN_KEYWORDS)
        for s in spellings
    )


@pytest.mark.parametrize(
    ("phrase", "form"),
    [
        ("Large Language Models", "large language model"),
        ("GNNs", "GNN"),
        ("zeroth-order methods", "zeroth-order method"),
        ("hypotheses", "hypothesis"),
        ("analysis", "analysis"),
    ],
)
def test_canonical_forms(phrase: str, form: str) -> None:
    assert canonical(phrase) == form
    assert canonical_key("zeroth-order method") == canonical_key("Zeroth Order Methods")


# Words as the candidate finder cuts them: letters and digits, joined inside by - ' ’ or /.
WORD = st.one_of(
    st.from_regex(r"[A-Za-z0-9]{1,6}(?:[-'’/][A-Za-z0-9]{1,6}){0,2}", fullmatch=True),
    st.sampled_from(["LLMs", "ViTs", "3D", "ab/s", "Analyses", "zeroth-order", "fine-tuned", "in/outs"]),
)


@given(st.lists(WORD, min_size=1, max_size=4))
def test_span_keys_are_the_canonical_keys_of_their_words(words: list[str]) -> None:
    parts = [key_parts(word) for word in words]
    assert _span_key(parts, 0, len(words)) == canonical_key(" ".join(words))


def test_candidates_are_phrases_not_word_salad() -> None:
    text = (
        "As the number of accepted papers reaches into the thousands, we investigate how social media "
        "influencers increase citation counts of papers they share. Adam depends on hyperparameters."
    )
    keys = set(abstract_candidates(text))
    assert "social media influencer" in keys and "citation count" in keys
    assert not any(k.split()[0] in {"the", "we", "investigate", "increase"} for k in keys)
    assert "adam depends" not in keys and "accepted" not in keys


def test_an_acronym_inside_a_phrase_is_spelled_out_as_the_digest_defines_it() -> None:
    defining = find_candidates(
        [
            "Reinforcement learning (RL) from preferences is hard. Preference-based reinforcement "
            "learning needs labels.",
        ]
        * FIELD_DEFINITIONS
        + [
            "We study preference-based RL and RL agents. Preference-based reinforcement learning "
            "is cheap, and preference-based RL is popular.",
        ],
        [None] * (FIELD_DEFINITIONS + 1),
        5,
    )
    second = defining.per_paper[-1]
    assert "preference based rl" not in second and "rl agent" not in second
    assert second["preference based reinforcement learning"].count == 3
    assert second["reinforcement learning agent"].form == "reinforcement learning agent"


def test_a_given_titles_phrases_are_candidates_even_if_the_abstract_never_uses_them(
    fake_embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Authors' keywords often come from their title: its phrases are candidates with no uses in the
    abstract, read with the abstract's acronyms, always ranked, and no use the digest's papers share."""
    abstracts = [
        "Large language models (LLMs) follow instructions. We tune LLMs on preference pairs.",
        "We tune large language models on preference pairs with a reward.",
    ]
    titles = ["Watermarking LLMs via Token Lattices", None]
    candidates = find_candidates(abstracts, titles, 5)
    first = candidates.per_paper[0]
    assert first["large language model"].in_title and first["large language model"].count == 2
    assert first["token lattice"].count == 0 and first["token lattice"].in_title
    assert first["token lattice"].first_position == 1.0
    assert "llm" not in first and "token lattice" not in candidates.per_paper[1]
    assert candidates.papers_using["token lattice"] == 0
    assert "token lattice" in candidates.to_embed
    # ranked with the others: shown when two are, whatever the fake embedder's weak score
    monkeypatch.setattr("generator.analysis.keywords.MIN_KEYWORDS", 2)
    ranked = rank_keywords(candidates, fake_embedder.embed(abstracts), fake_embedder, 5, strays=None)
    assert "token lattice" in [k.text for k in ranked[0]]
    assert not abstract_candidates(abstracts[1]).keys() & {"token lattice", "watermarking"}


def test_a_possessive_ends_its_owners_phrase() -> None:
    text = (
        "Large language models (LLMs) explain decisions. We test the LLM's explanations and the "
        "encoder’s attention maps; large language models are brittle, and it's costly."
    )
    keys = set(abstract_candidates(text))
    assert {"large language model", "explanation", "encoder", "attention map"} <= keys
    assert not any("'" in key or "’" in key for key in keys)
    assert "large language" not in keys  # always followed by "model" once the possessive is gone


def test_each_paper_is_embedded_once_with_its_given_title_and_opening_as_parts(fake_embedder) -> None:
    location = SourceLocation(Path("x.txt"), 1)
    papers = (
        Paper(
            id="a",
            abstract="Graph neural networks *oversmooth*.  Deep ones more so. We propose $k$-hop fixes. "
            "They work.",
            title="Fixing **oversmoothing** in GNNs",
            source=location,
        ),
        Paper(id="b", abstract="One sentence only, with no full stop at the end", source=location),
    )
    entries = settle_titles(papers)
    (text, spans), (other, other_spans) = text_parts(entries[0]), text_parts(entries[1])
    assert text == analysis_text(entries[0]) and other == analysis_text(entries[1])
    title, opening = (text[start:end] for start, end in spans)
    assert title == "Fixing oversmoothing in GNNs"
    assert opening == "Graph neural networks oversmooth. Deep ones more so."
    assert other_spans[0, 0] == other_spans[0, 1]  # b's title was derived: no title part
    assert other[slice(*other_spans[1])] == other

    calls = []
    real = fake_embedder.embed_spans
    fake_embedder.embed_spans = lambda *a, **k: (calls.append(len(a[0])), real(*a, **k))[1]
    embeddings = embed_papers([text_parts(entry) for entry in entries], fake_embedder)
    assert calls == [2]  # one pass over the two papers
    np.testing.assert_allclose(embeddings.text, fake_embedder.embed([text, other]))
    np.testing.assert_allclose(embeddings.opening[0], fake_embedder.embed([opening])[0])
    np.testing.assert_allclose(embeddings.title[0], fake_embedder.embed([title])[0])
    assert embeddings.has_title.tolist() == [True, False]
    assert not embeddings.title[1].any()


def test_titles_unique_and_slugs_independent_of_neighbours() -> None:
    location = SourceLocation(Path("x"), 1)
    papers = [Paper(id=str(i), abstract=a, source=location) for i, a in enumerate(SAMPLE_ABSTRACTS)]
    twin = Paper(id="twin", abstract=SAMPLE_ABSTRACTS[0] + " Extra.", source=location)
    alone = {e.paper.id: e.slug for e in settle_titles(papers)}
    together = settle_titles([twin, *papers])
    assert {e.paper.id: e.slug for e in together if e.paper.id != "twin"} == alone
    titles = [e.title for e in together]
    assert len(set(titles)) == len(titles)


def stored_candidates(cache_dir: Path, abstracts: list[str], titles: list[str | None]) -> Candidates:
    """``find_candidates`` as the build runs it: given the stored candidates, its new ones stored."""
    database = open_cache(cache_dir)
    store = CandidateStore(database)
    found = find_candidates(abstracts, titles, 5, store.known())
    store.save(found.extracted)
    database.close()  # type: ignore[union-attr]
    return found


def test_stored_candidates_spare_extracting_all_but_new_or_edited_abstracts(tmp_path: Path) -> None:
    abstracts = list(SAMPLE_ABSTRACTS)
    titles: list[str | None] = [None] * len(abstracts)
    titles[1] = "Oversmoothing in Deep Graph Neural Networks"
    expected = find_candidates(abstracts, titles, 5)

    first = stored_candidates(tmp_path, abstracts, titles)
    assert first == expected and len(first.extracted.new) == len(abstracts)
    stored = CandidateStore(open_cache(tmp_path)).known()
    for abstract, title in zip(abstracts, titles, strict=True):  # stored as extracted
        key = candidate_key(abstract, title)
        assert stored[key] == first.extracted.new[key]
        unrated = {k: replace(c, own_odds=None) for k, c in stored[key].items()}
        assert unrated == abstract_candidates(abstract, title), "the name detector's odds added only"
    again = stored_candidates(tmp_path, abstracts, titles)
    assert again.per_paper == expected.per_paper and again.extracted.new == {}
    rated = [c.own_odds for paper in again.per_paper for c in paper.values() if c.own_odds is not None]
    assert rated, "the name detector's odds come back from the store (GraphMix)"

    abstracts[1] += " We also release code."
    edited = stored_candidates(tmp_path, abstracts, titles)
    assert edited.per_paper == find_candidates(abstracts, titles, 5).per_paper
    assert list(edited.extracted.new) == [candidate_key(abstracts[1], titles[1])]
    assert len(CandidateStore(open_cache(tmp_path)).known()) == len(abstracts), "the old row is gone"


def test_candidate_store_never_trusts_a_bad_row(tmp_path: Path) -> None:
    import sqlite3

    from generator.cache.database import CACHE_DATABASE

    abstracts, titles = list(SAMPLE_ABSTRACTS), [None] * len(SAMPLE_ABSTRACTS)
    expected = find_candidates(abstracts, titles, 5).per_paper
    stored_candidates(tmp_path, abstracts, titles)
    database = sqlite3.connect(tmp_path / CACHE_DATABASE)
    key, data = database.execute(
        "SELECT key, data FROM entries WHERE kind = 'keyphrase candidates'"
    ).fetchone()
    for field, bad in ((2, "three"), (11, "likely"), (11, True)):  # a count, odds that are not numbers
        rows = json.loads(data)
        rows[0][field] = bad
        with database:
            database.execute("UPDATE entries SET data = ? WHERE key = ?", (json.dumps(rows).encode(), key))
        found = stored_candidates(tmp_path, abstracts, titles)
        assert found.per_paper == expected and list(found.extracted.new) == [key]

    for change in ("UPDATE entries SET data = x'00ff'", "UPDATE entries SET code = 'other code'"):
        with database:
            database.execute(change)
        found = stored_candidates(tmp_path, abstracts, titles)
        assert found.per_paper == expected and len(found.extracted.new) == len(abstracts)
    database.close()


def test_keyword_similarities_are_kept_so_an_edit_runs_keybert_for_one_paper(
    fake_embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.analysis import keywords as keywords_module
    from generator.cache.similarities import KIND, SimilarityStore

    abstracts = [
        "Graph neural networks pass messages between nodes of molecular graphs.",
        "Message passing in graph neural networks for citation graphs and node labels.",
        "Diffusion models generate images; score matching trains diffusion models.",
        "Score matching for diffusion models of audio, and faster sampling of diffusion models.",
    ]
    ranked: list[int] = []
    real = keywords_module._keybert_similarities

    def counted(
        per_paper: list[list[str]], spellings: list[str], paper_vectors: np.ndarray, phrases: np.ndarray
    ) -> list[dict[str, float]]:
        ranked.append(len(per_paper))
        return real(per_paper, spellings, paper_vectors, phrases)

    monkeypatch.setattr(keywords_module, "_keybert_similarities", counted)

    def run(texts: list[str], stored: bool) -> list[list[Keyword]]:
        """Keywords as the build ranks them (``stored``: given the stored similarities, the new ones
        stored), else with nothing known."""
        candidates = find_candidates(texts, [None] * len(texts), 5)
        vectors = fake_embedder.embed(texts)
        if not stored:
            return rank_keywords(candidates, vectors, fake_embedder, 5)
        database = open_cache(tmp_path)
        store = SimilarityStore(database)
        similarities = keyword_similarities(candidates, vectors, fake_embedder, known=store.known())
        store.save(similarities.found)
        database.close()  # type: ignore[union-attr]
        return choose_keywords(candidates, similarities.per_paper, 5)

    unstored = run(abstracts, False)
    assert run(abstracts, True) == unstored and ranked == [4, 4]
    assert run(abstracts, True) == unstored and ranked[-1] == 0, "all four read back"

    edited = [*abstracts[:3], abstracts[3] + " Score matching again."]
    assert run(edited, True) == run(edited, False)
    assert ranked[-2:] == [1, 4], "only the edited paper was ranked by KeyBERT"

    # A row that does not hold one value per candidate is ranked again, never trusted.
    database = open_cache(tmp_path)
    database._connection.execute("UPDATE entries SET data = x'00' WHERE kind = ?", (KIND,))
    database._connection.commit()
    database.close()
    assert run(edited, True) == run(edited, False) and ranked[-2:] == [4, 4]


def test_a_lone_gerund_of_an_ize_verb_is_no_keyword_but_other_ing_nouns_are() -> None:
    keys = set(abstract_candidates("Optimizing helps. Denoising helps. Minimizing helps. Advertising helps."))
    assert {"denoising", "advertising"} <= keys and not {"optimizing", "minimizing"} & keys


@pytest.mark.parametrize(
    "word", ["size", "addition", "research", "finding", "linear", "finite", "challenging", "discuss"]
)
def test_learned_word_statistics_call_fillers(word: str) -> None:
    """The shipped statistics (learned from 50,000 abstracts) find the fillers a reader complained of:
    common words their abstracts seldom title, and words that seldom end a noun phrase."""
    assert word_stats().filler(word, word)


@pytest.mark.parametrize(
    "word", ["robustness", "transformer", "clustering", "privacy", "graph", "calibration"]
)
def test_learned_word_statistics_keep_topical_nouns(word: str) -> None:
    assert not word_stats().filler(word, word)
    assert not word_stats().filler("size", "GAN") and not word_stats().filler(
        "finite horizon", "finite horizon"
    )


def test_keywords_never_show_a_filler_word_alone(fake_embedder) -> None:
    """Fillers the abstract repeats early and often (which the old weights rewarded) stay out."""
    abstracts = [
        "Size matters: the size of the linear model and its size in addition to the finding. In addition, "
        "size and findings and linear probes. Graph transformers scale with size; a finding of graph "
        "transformers.",
        "We discuss research on graph transformers. Research on linear attention in addition to size.",
        "Graph transformers and linear attention: the finding and size of attention heads.",
    ]
    candidates = find_candidates(abstracts, [None] * 3, 5)
    assert {"size", "finding", "addition", "research", "linear"} & set(candidates.per_paper[0])
    found = rank_keywords(candidates, fake_embedder.embed(abstracts), fake_embedder, 5, strays=None)
    shown = {k.text for paper in found for k in paper}
    assert not {"size", "finding", "addition", "research", "linear", "discuss"} & shown
    assert "graph transformer" in shown


def test_a_phrase_cut_inside_a_longer_one_is_no_candidate() -> None:
    found = abstract_candidates(
        "We study early-exit large language models. Early-exit large language models save compute, "
        "and training early-exit large language models is cheap."
    )
    assert "early exit large language" not in found
    assert "large language model" in found
    # A shorter span the abstract always continues with the same word is a cut term: never shown.
    stats = word_stats()
    marl = abstract_candidates(
        "Multi-agent reinforcement learning is hard. We study multi-agent reinforcement learning "
        "with a language model based planner; language model based agents are slow."
    )
    assert marl["multi agent"].followed_by == "reinforcement" and not may_show(marl["multi agent"], stats)
    assert may_show(marl["reinforcement learning"], stats)
    assert marl["language model"].followed_by == "based" and may_show(marl["language model"], stats)
    # Three words that stand on their own somewhere in the abstract stay.
    kept = abstract_candidates("Graph neural network training is slow. We speed up graph neural network.")
    assert "graph neural network" in kept


@pytest.mark.parametrize(
    ("text", "tail", "before"),
    [
        ("We analyse stochastic gradient Langevin dynamics; stochastic gradient Langevin dynamics mixes.",
         "gradient langevin dynamics", "stochastic"),
        # a verb that broke the run counts when the field's titles use the longer name
        ("We improve named entity recognition. Our named entity recognition model is fast.",
         "entity recognition", "named"),
        ("We train large language models. Large language models are big.", "language model", "large"),
    ],
)  # fmt: skip
def test_a_tail_cut_from_a_longer_name_is_no_keyword(text: str, tail: str, before: str) -> None:
    stats = word_stats()
    candidate = abstract_candidates(text)[tail]
    assert candidate.preceded_by == before
    assert cut_head(candidate, 1.0, stats)
    # ... unless most of the digest's papers using it write it alone
    assert not cut_head(candidate, CUT_HEAD_SHARE - 0.1, stats)


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("We study differentially private gradient descent. Differentially private gradient descent is slow.",
         "private gradient descent"),  # an adverb before it
        ("A novel graph neural network. The novel graph neural network is good.", "graph neural network"),
    ],
)  # fmt: skip
def test_a_generic_word_before_a_phrase_makes_no_longer_name(text: str, phrase: str) -> None:
    candidate = abstract_candidates(text)[phrase]
    assert candidate.preceded_by and not cut_head(candidate, 1.0, word_stats())


def test_the_digest_decides_which_tails_and_modifiers_are_hidden(fake_embedder) -> None:
    """A phrase most papers of the digest write after the same word is hidden where a paper does so
    too; one most papers use alone ("reinforcement learning") is not. A word or compound most uses of
    which come before a noun ("zero-shot") is never shown alone."""
    abstracts = [
        "Multi-agent reinforcement learning is hard; we study multi-agent reinforcement learning.",
        "Reinforcement learning from human feedback. Reinforcement learning is costly.",
        "We use reinforcement learning for robots.",
        "Stochastic gradient Langevin dynamics samples. Stochastic gradient Langevin dynamics is noisy.",
        "Stochastic gradient Langevin dynamics converges for zero-shot classification.",
        "Zero-shot retrieval with zero-shot prompts, zero-shot baselines and zero-shot search; the model "
        "is zero-shot.",
    ]
    candidates = find_candidates(abstracts, [None] * len(abstracts), 5)
    assert "reinforcement learning" not in candidates.hidden[0]
    assert "gradient langevin dynamics" in candidates.hidden[3]
    assert "zero shot" in candidates.hidden[5] and "zero shot retrieval" not in candidates.hidden[5]
    found = rank_keywords(candidates, fake_embedder.embed(abstracts), fake_embedder, 5)
    shown = {k.text for paper in found for k in paper}
    assert not {"zero-shot", "gradient langevin dynamics"} & shown
    assert "reinforcement learning" in shown


def test_a_modifier_is_a_word_seldom_ending_its_noun_phrase() -> None:
    assert modifier("zero-shot", heads=1, uses=5)
    assert not modifier("zero-shot", heads=2, uses=5)
    assert not modifier("transformer", heads=3, uses=4)
    assert not modifier("GNN", heads=0, uses=5), "an acronym is a name"
    assert not modifier("zero-shot learning", heads=0, uses=5), "a phrase of words is judged elsewhere"


def test_an_acronym_takes_another_abstracts_definition_only_as_a_field_convention() -> None:
    defining = ["Large language models (LLMs) follow instructions."] * FIELD_DEFINITIONS
    using = "Watermarks for LLMs survive paraphrases."
    convention = find_candidates([*defining, using], [None] * (FIELD_DEFINITIONS + 1), 5)
    assert "large language model" in convention.per_paper[-1] and "llm" not in convention.per_paper[-1]
    once = find_candidates([defining[0], using], [None, None], 5)
    assert "llm" in once.per_paper[-1] and "large language model" not in once.per_paper[-1]


def test_a_paper_shows_fewer_keywords_rather_than_weak_ones() -> None:
    """Past ``MIN_KEYWORDS``, a keyword scoring below ``MIN_SCORE`` is not shown, unless it is a name
    of the paper's own."""
    scored = [(MIN_SCORE + 3 - rank, f"strong {rank}") for rank in range(MIN_KEYWORDS)]
    scored += [
        (MIN_SCORE - 1, "deep learning"),
        (MIN_SCORE - 2, "EmotionAttack"),
        (MIN_SCORE - 3, "uncertainty"),
    ]
    picked = [spelling for _, spelling in _pick(scored, 5, own={"EmotionAttack"})]
    assert picked == [f"strong {rank}" for rank in range(MIN_KEYWORDS)] + ["EmotionAttack"]
    weak = [(MIN_SCORE - 10 - rank, f"weak {rank}") for rank in range(5)]
    assert len(_pick(weak, 5)) == MIN_KEYWORDS  # a paper always shows some keywords


def test_a_paper_s_own_name_is_one_the_digest_and_the_field_do_not_use() -> None:
    stats = word_stats()

    def name(form: str, own_odds: float | None = 0.0) -> Candidate:
        return Candidate(canonical_key(form), form, 2, 0.1, len(form.split()), own_odds=own_odds)

    assert _own_name("EmotionAttack", name("EmotionAttack"), 1, stats)
    assert not _own_name("EmotionAttack", name("EmotionAttack"), 2, stats), "another paper uses it"
    assert not _own_name("AI", name("AI"), 1, stats), "the field's"
    assert not _own_name("CLIP", name("CLIP"), 1, stats), "the field's"
    assert not _own_name("ML conference", name("ML conference"), 1, stats), "a phrase, not a name"
    assert not _own_name("emotion", name("emotion"), 1, stats), "not written as a name"
    below = name("EmotionAttack", OWN_NAME_FLOOR - 0.01)
    assert not _own_name("EmotionAttack", below, 1, stats), "the name detector: one the paper only uses"
    assert _own_name("EmotionAttack", name("EmotionAttack", OWN_NAME_FLOOR), 1, stats)
    assert not _own_name("EmotionAttack", name("EmotionAttack", None), 1, stats), "no name to the detector"
    titled = replace(below, in_title=True)
    assert _own_name("EmotionAttack", titled, 1, stats), "the paper's given title names it"


def test_the_detector_s_names_rate_the_keywords_they_are() -> None:
    by_key = odds_by_key({"IntCEMs": -1.0, "Masked Image Residual Learning (MIRL)": -0.5, "MIRL": -3.0})
    assert by_key["intcem"] == -1.0, "a plural name is its keyword"
    assert by_key["mirl"] == -0.5, "a long form rates its short form; the better odds of the two"
    assert canonical_key("Masked Image Residual Learning (MIRL)") in by_key


def test_the_name_detector_tells_a_paper_s_own_name_from_a_place_it_mentions() -> None:
    """The title name detector's odds reach the keyword candidates (and the cache with them): a name
    the abstract proposes is its own, a place in a list is not."""
    abstracts = [
        "Governments worldwide seek to regulate AI systems. In this position paper, we survey policy "
        "documents published by public-sector institutions in the EU, US, and China to highlight gaps "
        "between the technical requirements of proposed policy actions and the state of the art.",
        "Large language models respond to emotional stimuli. We propose EmotionAttack, a method that "
        "injects emotional prompts to impair model performance. EmotionAttack reduces accuracy on "
        "eight tasks, and our analysis shows that EmotionAttack transfers across models.",
    ]
    found = find_candidates(abstracts, [None, None], 5)
    place, own = found.per_paper[0]["eu"], found.per_paper[1]["emotionattack"]
    assert place.own_odds is not None and place.own_odds < OWN_NAME_FLOOR
    assert own.own_odds is not None and own.own_odds >= OWN_NAME_FLOOR
    assert all(c.own_odds is None for c in found.per_paper[1].values() if c.key != "emotionattack")


def test_the_ranker_prefers_what_makes_a_keyword() -> None:
    """The shipped model ranks a candidate higher when it is closer to the paper, used more often
    and earlier, and lower when it is only ever a piece of a longer candidate."""
    model = keyword_model()
    stats = word_stats()
    candidates = {
        "attention head": Candidate("attention head", "attention head", 2, 0.1, 2),
        "attention head pruning": Candidate("attention head pruning", "attention head pruning", 2, 0.1, 3),
    }
    base = paper_features(["attention head"], [0.5], candidates, {"attention head": 3}, 100, stats)[0]
    closer = base.copy()
    closer[FEATURES.index("similarity")] = 0.7
    later = base.copy()
    later[FEATURES.index("early")] = 0.0
    assert base[FEATURES.index("inside_longer")] == 1.0
    alone = base.copy()
    alone[FEATURES.index("inside_longer")] = 0.0
    score = model.scores(np.vstack([base, closer, later, alone]))
    assert score[1] > score[0] > score[2]
    assert score[3] > score[0]
    assert model.title_bonus > 0


@pytest.mark.parametrize(
    "word", ["december", "weight", "environment", "shift", "epoch", "hand", "sum", "heart"]
)
def test_words_authors_never_list_alone_are_no_keyword(word: str) -> None:
    assert not lone_words().stands_alone(Candidate(word, word, 1), word_stats())


@pytest.mark.parametrize("word", ["transformer", "robustness", "generalization", "interpretability"])
def test_words_authors_list_alone_may_be_keywords(word: str) -> None:
    stats = word_stats()
    assert lone_words().stands_alone(Candidate(word, word, 1), stats)
    # a phrase or an acronym is never judged as a lone word
    assert lone_words().stands_alone(Candidate("weight decay", "weight decay", 1, words=2), stats)
    assert lone_words().stands_alone(Candidate("sam", "SAM", 1), stats)
    # a phrase authors list often ranks above one they seldom list
    assert lone_words().bonus(Candidate(word, word, 1), stats) > lone_words().bonus(
        Candidate("weight", "weight", 1), stats
    )


def test_a_title_compound_stays_one_keyphrase_and_a_measurement_is_none() -> None:
    # "matching" and "design" read as verbs alone; titles use these pairs as noun phrases
    found = abstract_candidates(
        "We study online bipartite matching and analog circuit design for stereo audio at 44.1kHz."
    )
    forms = {c.form for c in found.values()}
    assert {"online bipartite matching", "analog circuit design"} <= forms
    assert "online bipartite" not in forms
    assert not any("khz" in key for key in found), "44.1kHz is one token, a measurement"


def test_a_term_titles_use_opens_a_keyphrase_though_its_first_word_is_generic() -> None:
    # "time" opens no keyphrase ("time complexity" of "in time complexity"), but titles use "time series"
    forms = {
        c.form for c in abstract_candidates("Linear models do well at time series forecasting.").values()
    }
    assert "time series forecasting" in forms
    forms = {c.form for c in abstract_candidates("We bound the running time of the solver.").values()}
    assert not any(form.startswith("time") for form in forms)


def test_uses_in_the_background_or_an_example_are_counted_as_asides() -> None:
    found = abstract_candidates(
        "Lightweight super-resolution models are costly. Techniques such as knowledge distillation "
        "or channel pruning need resources. We propose meta pruning, unlike weight decay, for "
        "super-resolution. Meta pruning is fast."
    )
    assert found["knowledge distillation"].aside == 1  # before the paper speaks of itself
    assert found["meta pruning"].aside == 0
    assert found["weight decay"].aside == 1  # "unlike weight decay"
    assert (found["super resolution"].count, found["super resolution"].aside) == (2, 1)


def _strays(intercept: float, weights: dict[str, float] | None = None) -> StrayModel:
    width = len(STRAY_FEATURES)
    vector = [0.0] * width
    for feature, weight in (weights or {}).items():
        vector[STRAY_FEATURES.index(feature)] = weight
    return StrayModel((0.0,) * width, (1.0,) * width, tuple(vector), intercept, 0.0)


def test_keywords_a_reader_would_call_stray_are_not_shown(fake_embedder) -> None:
    texts = [
        "Graph neural networks pass messages between nodes of molecular graphs and citation graphs.",
        "Message passing in graph neural networks for citation graphs, node labels and molecules.",
        "Diffusion models generate images; score matching trains diffusion models of images.",
        "Score matching for diffusion models of audio, and faster sampling of diffusion models.",
    ]
    candidates = find_candidates(texts, [None] * len(texts), 5)
    similarities = keyword_similarities(candidates, fake_embedder.embed(texts), fake_embedder).per_paper
    plain = choose_keywords(candidates, similarities, 5, strays=None)
    assert all(plain)
    # none likely STRAY: the same keywords
    assert choose_keywords(candidates, similarities, 5, strays=_strays(-10.0)) == plain
    # all likely STRAY: none shown
    assert choose_keywords(candidates, similarities, 5, strays=_strays(10.0)) == [[] for _ in texts]
    # the odds rise with the place: only the first of each paper is left
    first_only = choose_keywords(candidates, similarities, 5, strays=_strays(-0.5, {"position": 1.0}))
    assert first_only == [keywords[:1] for keywords in plain]


def test_the_shipped_stray_model_reads_back_and_checks_its_features() -> None:
    model = keyword_strays()
    assert model is not None and len(model.weights) == len(STRAY_FEATURES)
    assert StrayModel.from_json(json.loads(json.dumps(model.to_json()))) == model
    data = model.to_json()
    data["features"] = list(STRAY_FEATURES[:-1])
    with pytest.raises(ValueError, match="stray model"):
        StrayModel.from_json(data)


@pytest.mark.parametrize(
    ("form", "shown"),
    [
        ("bayesian neural network", "Bayesian neural network"),
        ("sequential monte carlo", "sequential Monte Carlo"),
        ("kullback-leibler divergence", "Kullback-Leibler divergence"),
        ("hopfield network", "Hopfield network"),
        ("johnson-lindenstrauss lemma", "Johnson-Lindenstrauss lemma"),  # a hyphenated name, whole
        ("good generalization", "good generalization"),  # "Good-Turing" makes no name of "good"
        ("lipschitz-continuous function", "lipschitz-continuous function"),  # no half-capitalised word
        ("newton's method", "Newton's method"),
        ("large language model", "large language model"),
        ("LLM", "LLM"),
        ("table", "table"),
    ],
)
def test_keywords_capitalise_the_names_authors_capitalise(form: str, shown: str) -> None:
    """Learned from how 50,000 abstracts write each word inside a sentence; the key stays the same."""
    from generator.analysis.keyphrases.canonical import as_authors_write

    assert as_authors_write(form) == shown
    assert canonical_key(shown) == canonical_key(form)


def test_a_digest_spells_a_name_in_its_keywords_as_authors_write_it() -> None:
    abstracts = ["We study bayesian neural networks. Bayesian neural networks are calibrated."] * 2
    candidates = find_candidates(abstracts, [None, None], 5)
    assert candidates.spellings[canonical_key("bayesian neural network")] == "Bayesian neural network"
