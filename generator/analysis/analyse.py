"""Analysis: settle titles and addresses, embed each paper once, extract keywords, find related papers,
group the papers into topics and lay them out on a map."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from generator.analysis.embed import CachedEmbedder, Embedder, ProgressCallback
from generator.analysis.explain import explain_related, keyphrase_vocabulary, similarity_scale
from generator.analysis.fit import DigestFit, FitStore, paper_key
from generator.analysis.keyphrases import canonical, canonical_key
from generator.analysis.keyphrases.variants import group_keyword_variants
from generator.analysis.keywords import find_candidates, rank_keywords
from generator.analysis.neighbours import paper_neighbours
from generator.analysis.paper_map import MapJob, MapLayout, place_on_map, start_map_layout
from generator.analysis.related import (
    OPENING_SENTENCES,
    PaperEmbeddings,
    count_phrases,
    fit_space,
    related_from,
)
from generator.analysis.text import paper_slug, split_sentences, strip_markup, unique_titles
from generator.analysis.titles import derive_titles
from generator.analysis.topics import assign_topics, fit_topics
from generator.cache.candidates import CandidateStore
from generator.cache.neighbours import NeighbourStore, neighbour_key
from generator.cache.similarities import SimilarityStore
from generator.model import AnalysedPaper, Collection, Digest, Keyword, Paper, TitledPaper
from generator.progress import Reporter, plural


def settle_titles(papers: Sequence[Paper]) -> list[TitledPaper]:
    """Display titles (derived from the abstract when missing, unique in the digest) and slugs: the one
    a paper had before (``Paper.address``), else one made from its title and id."""
    untitled = [paper for paper in papers if not paper.title]
    derived = iter(derive_titles([paper.abstract for paper in untitled]))
    base_titles = [paper.title or next(derived) for paper in papers]
    return [
        TitledPaper(
            paper=paper,
            title=title,
            title_was_derived=paper.title is None,
            slug=paper.address or paper_slug(base, paper.id),
        )
        for paper, base, title in zip(papers, base_titles, unique_titles(base_titles), strict=True)
    ]


def analysis_text(entry: TitledPaper) -> str:
    """What gets embedded and mined for keywords: the given title and the abstract, as plain text."""
    abstract = strip_markup(entry.paper.abstract)
    if entry.title_was_derived:
        return abstract
    return f"{strip_markup(entry.title)}. {abstract}"


def keyword_text(entry: TitledPaper) -> str:
    """Where a paper spells out the acronyms of its keywords: its title, abstract and own keywords."""
    return ". ".join([analysis_text(entry), *entry.paper.author_keywords])


def text_parts(entry: TitledPaper) -> tuple[str, np.ndarray]:
    """The paper's analysis text (``analysis_text``) and where in it are the given title (empty for
    a derived one) and the abstract's first ``OPENING_SENTENCES`` sentences: 2 × [start, end)."""
    text = analysis_text(entry)
    title = "" if entry.title_was_derived else strip_markup(entry.title)
    abstract_start = 0 if entry.title_was_derived else len(title) + 2
    opening_end = abstract_start
    for sentence in split_sentences(text[abstract_start:])[:OPENING_SENTENCES]:
        opening_end = text.index(sentence, opening_end) + len(sentence)
    return text, np.array([[0, len(title)], [abstract_start, opening_end]], dtype=np.int64)


def embed_papers(
    parts: Sequence[tuple[str, np.ndarray]], embedder: Embedder, progress: ProgressCallback | None = None
) -> PaperEmbeddings:
    """Each paper's analysis text embedded, and its given title and opening pooled from the same
    pass over it (the model reads each paper once); ``parts`` are the papers' ``text_parts``."""
    if not parts:
        empty = np.zeros((0, 0), dtype=np.float32)
        return PaperEmbeddings(empty, empty, empty)
    texts = [text for text, _ in parts]
    vectors = embedder.embed_spans(texts, np.stack([spans for _, spans in parts]), progress)
    return PaperEmbeddings(text=vectors[:, 0], title=vectors[:, 1], opening=vectors[:, 2])


def author_keywords(paper: Paper, spellings: dict[str, str]) -> list[str]:
    """The authors' keywords in the digest's spelling (one per concept), so they merge with ours."""
    return list(dict.fromkeys(spelled for spelled, _ in _spelled_author_keywords(paper, spellings)))


def _spelled_author_keywords(paper: Paper, spellings: dict[str, str]) -> list[tuple[str, str]]:
    """Each of the authors' keywords as ``(the digest's spelling, as given)``."""
    spelled = ((spellings.get(canonical_key(k), canonical(k)), k) for k in paper.author_keywords)
    return [(form, given) for form, given in spelled if form]


def merge_keyword_variants(
    papers: list[AnalysedPaper], spellings: dict[str, str]
) -> dict[str, tuple[str, ...]]:
    """One keyword per concept across the digest (``group_keyword_variants``): each paper's keywords,
    the authors' and the keywords its related papers share with it rewritten to the form shown for
    their group, in place. Returns the other spellings of each shown form, for its keyword page."""
    per_paper = [
        [(k.text, k.text) for k in paper.keywords] + _spelled_author_keywords(paper.entry.paper, spellings)
        for paper in papers
    ]
    texts = [keyword_text(paper.entry) for paper in papers]
    grouped = group_keyword_variants(per_paper, texts)
    for paper in papers:
        seen: set[str] = set()
        keywords = []
        for keyword in paper.keywords:
            shown = grouped.of(keyword.text)
            if shown not in seen:
                seen.add(shown)
                keywords.append(keyword if shown == keyword.text else Keyword(shown, keyword.score))
        paper.keywords = keywords
        # The authors' spelling kept for their paper's page, which links it to the group's page.
        as_given: dict[str, str] = {}
        for form, given in _spelled_author_keywords(paper.entry.paper, spellings):
            as_given.setdefault(grouped.of(form), given)
        paper.author_keywords = list(as_given)
        paper.author_keywords_as_given = list(as_given.values())
        paper.related = [
            replace(r, shared_keywords=tuple(dict.fromkeys(grouped.of(k) for k in r.shared_keywords)))
            for r in paper.related
        ]
    return grouped.variants


@dataclass(frozen=True)
class EmbeddingCounts:
    papers: int = 0
    """Papers (title and abstract, read once for the whole and its parts) embedded by the model."""
    phrases: int = 0
    """Keyword phrases embedded by the model."""
    cached: int = 0
    """Texts of either kind found in the embedding cache."""


@dataclass
class PendingDigest:
    """The analysed digest, complete but for the paper map, which t-SNE may still be computing in a
    worker process: pages that do not show positions can be rendered and built meanwhile."""

    digest: Digest
    """Its papers' ``map_position`` and its ``map_method`` are set by ``complete``."""
    map_job: MapJob | None = None
    """``None`` once the map is in the digest."""
    on_map: Callable[[MapLayout], None] | None = None
    """Called once with the finished layout (stores it with the digest's fit)."""
    embedded: EmbeddingCounts = field(default_factory=lambda: EmbeddingCounts())
    """How many texts of each kind this analysis embedded and took from the cache."""

    @property
    def map_ready(self) -> bool:
        return self.map_job is None or self.map_job.done

    def complete(self) -> Digest:
        if self.map_job is not None:
            layout = self.map_job.result()
            for paper, (x, y) in zip(self.digest.papers, layout.positions, strict=True):
                paper.map_position = (float(x), float(y))
            self.digest.map_method = layout.method
            if self.on_map is not None:
                self.on_map(layout)
            self.map_job = None
        return self.digest

    def cancel(self) -> None:
        if self.map_job is not None:
            self.map_job.cancel()


def analyse(
    collection: Collection,
    embedder: Embedder,
    reporter: Reporter,
    keywords_per_paper: int = 5,
    related_per_paper: int = 5,
    cache_dir: Path | None = None,
    refit: bool = False,
) -> PendingDigest:
    """``cache_dir`` keeps the digest-wide fit (``generator.analysis.fit``) and the map between builds; by
    default it is the folder of the embedding cache. ``refit`` fits the space, topics and map afresh
    even when the stored fit could be reused. Returns before a fresh map is laid out: call
    ``complete`` on the result for the whole digest."""
    entries = settle_titles(collection.papers)
    parts = [text_parts(entry) for entry in entries]
    texts = [text for text, _ in parts]
    keys = [paper_key(text) for text in texts]

    misses_before, hits_before = getattr(embedder, "misses", 0), getattr(embedder, "hits", 0)
    with reporter.stage("embed papers", total=len(texts), unit="papers") as advance:
        embeddings = embed_papers(parts, embedder, advance)
    vectors = embeddings.text
    papers_embedded = getattr(embedder, "misses", len(texts)) - misses_before

    if cache_dir is None and isinstance(embedder, CachedEmbedder):
        cache_dir = embedder.cache.path.parent
    with reporter.stage("keyword candidates", total=len(texts), unit="papers") as advance:
        candidates = find_candidates(
            [entry.paper.abstract for entry in entries],
            [None if entry.title_was_derived else entry.title for entry in entries],
            keywords_per_paper,
            CandidateStore(cache_dir) if cache_dir is not None else None,
        )
        advance(len(texts))
    with reporter.stage("keywords", total=len(candidates.to_embed), unit="phrases") as advance:
        keywords = rank_keywords(
            candidates,
            vectors,
            embedder,
            keywords_per_paper,
            advance,
            store=SimilarityStore(cache_dir, embedder.name) if cache_dir is not None else None,
        )
    embedded = EmbeddingCounts(
        papers=papers_embedded,
        phrases=getattr(embedder, "misses", papers_embedded + len(candidates.to_embed))
        - misses_before
        - papers_embedded,
        cached=getattr(embedder, "hits", 0) - hits_before,
    )

    fit_store = FitStore(cache_dir, embedder.name) if cache_dir is not None else None
    fit = None if refit or fit_store is None else fit_store.load()
    if fit is not None and not fit.reusable_for(keys, vectors.shape[1]):
        reporter.info(f"analysis fit: {fit.describe_changes(keys)} since it was made; refitting")
        fit = None

    with reporter.stage("related papers"):
        # A reused fit needs no phrase counts but those of the changed papers (``paper_neighbours``).
        counts = None if fit is not None else count_phrases(texts)
        space_fit = fit.space if fit is not None else fit_space(counts, embeddings)
        neighbour_store = NeighbourStore(cache_dir, embedder.name) if cache_dir is not None else None
        state_key = neighbour_key(embedder.name, space_fit, related_per_paper) if neighbour_store else ""
        previous = (
            neighbour_store.load(state_key) if neighbour_store is not None and fit is not None else None
        )
        neighbourhood = paper_neighbours(
            space_fit, texts, keys, embeddings, related_per_paper, previous=previous, counts=counts
        )
        space = neighbourhood.space
        if neighbourhood.recomputed_rows is not None:
            reporter.info(
                f"related papers: updated, {plural(neighbourhood.recomputed_rows, 'list')} recomputed "
                "or merged, the rest kept from the last build"
            )
        if neighbour_store is not None and neighbourhood.state is not previous:
            neighbour_store.save(state_key, neighbourhood.state)
        related = related_from(neighbourhood.state.related, keywords)
        vocabulary = keyphrase_vocabulary(
            keywords, [c.keys() for c in candidates.per_paper], candidates.spellings, embedder.embed, vectors
        )
        related = explain_related(related, vocabulary, similarity_scale(space.expanded))

    with reporter.stage("topics"):
        topic_fit = fit.topics if fit is not None else fit_topics(counts, space.vectors)
        topics = assign_topics(topic_fit, space.vectors, texts)
    topic_of = {member: number for number, topic in enumerate(topics) for member in topic.members}

    map_started = time.perf_counter()
    if fit is not None:
        map_job = MapJob(place_on_map(fit.map_positions(), keys, space.expanded, fit.map_method))
    else:
        map_job = start_map_layout(space.expanded, cache_dir)
    in_background = not map_job.done
    if fit is not None:
        reporter.info(f"analysis fit: reused ({fit.describe_changes(keys)} since it was made)")

    def on_map(layout: MapLayout) -> None:
        if fit is None and fit_store is not None:
            fit_store.save(
                DigestFit(embedder.name, tuple(keys), space_fit, topic_fit, layout.positions, layout.method)
            )
        if fit is not None:
            how = "kept from the last fit, new and edited papers placed among their neighbours"
        elif layout.from_cache:
            how = "from cache"
        else:
            how = "laid out in a worker process while the pages were built" if in_background else "laid out"
        reporter.finished("paper map", time.perf_counter() - map_started, f"{layout.method}, {how}")

    papers = [
        AnalysedPaper(
            entry=entry,
            keywords=found,
            author_keywords=author_keywords(entry.paper, candidates.spellings),
            related=near,
            topic=topic_of.get(index),
        )
        for index, (entry, found, near) in enumerate(zip(entries, keywords, related, strict=True))
    ]
    variants = merge_keyword_variants(papers, candidates.spellings)
    digest = Digest(
        name=collection.name,
        papers=papers,
        model_name=embedder.name,
        topics=topics,
        keyword_variants=variants,
    )
    return PendingDigest(digest, map_job, on_map, embedded)
