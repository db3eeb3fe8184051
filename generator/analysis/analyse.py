"""Analysis: settle titles and addresses, embed each paper once, extract keywords, find related papers,
group the papers into topics and lay them out on a map.

No I/O: ``analyse`` is given what earlier builds found (``Known``: keyword candidates, KeyBERT's
similarities, the digest-wide fit, the neighbour lists, the map layout) and returns, with the
digest, what it found anew (``Found``), for the build to store in its cache.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from generator.analysis.embed import Embedder, ProgressCallback
from generator.analysis.explain import explain_related, keyphrase_vocabulary, similarity_scale
from generator.analysis.fit import DigestFit, paper_key
from generator.analysis.keyphrases import Candidate, canonical, canonical_key
from generator.analysis.keyphrases.canonical import as_authors_write
from generator.analysis.keyphrases.variants import group_keyword_variants
from generator.analysis.keywords import NewEntries, choose_keywords, find_candidates, keyword_similarities
from generator.analysis.neighbours import NeighbourState, neighbour_key, paper_neighbours
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
    spelled = (
        (spellings.get(canonical_key(k), as_authors_write(canonical(k))), k) for k in paper.author_keywords
    )
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


@dataclass(frozen=True)
class Known:
    """What earlier builds found, as the build gives it in (nothing: everything is found afresh)."""

    candidates: Mapping[str, dict[str, Candidate]] = field(default_factory=dict)
    """Abstracts' keyphrase candidates by ``keywords.candidate_key``."""
    similarities: Mapping[str, np.ndarray] = field(default_factory=dict)
    """Papers' KeyBERT similarities by ``keywords.similarity_key``."""
    fit: DigestFit | None = None
    """The last digest-wide fit of this model; reused while few papers changed since."""
    neighbours: Mapping[str, NeighbourState] = field(default_factory=dict)
    """Neighbour lists computed in a fit, by ``neighbours.neighbour_key``."""
    layouts: Mapping[str, np.ndarray] = field(default_factory=dict)
    """Map positions by ``paper_map.layout_key``."""


@dataclass
class Found:
    """What this analysis computed that it was not given, for the build to store."""

    candidates: NewEntries[dict[str, Candidate]] = field(default_factory=NewEntries)
    similarities: NewEntries[np.ndarray] = field(default_factory=NewEntries)
    neighbours: tuple[str, NeighbourState] | None = None
    """The neighbour lists by their key, when they are not the ones given in."""
    fit: DigestFit | None = None
    """A fresh digest-wide fit; set once the map is laid out (``PendingDigest.complete``)."""
    layout: tuple[str, np.ndarray] | None = None
    """A fresh t-SNE layout by its key; set once the map is laid out."""


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
    found: Found = field(default_factory=Found)
    """What it found anew; complete once the map is laid out."""

    @property
    def map_ready(self) -> bool:
        return self.map_job is None or self.map_job.done

    def complete(self) -> Digest:
        if self.map_job is not None:
            layout = self.map_job.result()
            for paper, (x, y) in zip(self.digest.papers, layout.positions, strict=True):
                paper.map_position = (float(x), float(y))
            self.digest.map_method = layout.method
            self.found.layout = self.map_job.fresh()
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
    known: Known | None = None,
) -> PendingDigest:
    """The digest of ``collection``, reusing what ``known`` holds: its fit (``generator.analysis.fit``)
    while few papers changed, and each step's earlier results by their content keys. Returns before
    a fresh map is laid out: call ``complete`` on the result for the whole digest, and take what it
    found anew from its ``found``."""
    known = known if known is not None else Known()
    found = Found()
    entries = settle_titles(collection.papers)
    parts = [text_parts(entry) for entry in entries]
    texts = [text for text, _ in parts]
    keys = [paper_key(text) for text in texts]

    misses_before, hits_before = getattr(embedder, "misses", 0), getattr(embedder, "hits", 0)
    with reporter.stage("embed papers", total=len(texts), unit="papers") as advance:
        embeddings = embed_papers(parts, embedder, advance)
    vectors = embeddings.text
    papers_embedded = getattr(embedder, "misses", len(texts)) - misses_before

    with reporter.stage("keyword candidates", total=len(texts), unit="papers") as advance:
        candidates = find_candidates(
            [entry.paper.abstract for entry in entries],
            [None if entry.title_was_derived else entry.title for entry in entries],
            keywords_per_paper,
            known.candidates,
        )
        found.candidates = candidates.extracted
        advance(len(texts))
    with reporter.stage("keywords", total=len(candidates.to_embed), unit="phrases") as advance:
        similarities = keyword_similarities(candidates, vectors, embedder, advance, known.similarities)
        found.similarities = similarities.found
        keywords = choose_keywords(candidates, similarities.per_paper, keywords_per_paper)
    # What was read for these two steps is not needed past here: let it go before the related papers.
    known = replace(known, candidates={}, similarities={})
    del similarities
    embedded = EmbeddingCounts(
        papers=papers_embedded,
        phrases=getattr(embedder, "misses", papers_embedded + len(candidates.to_embed))
        - misses_before
        - papers_embedded,
        cached=getattr(embedder, "hits", 0) - hits_before,
    )

    fit = known.fit
    if fit is not None and not fit.reusable_for(keys, vectors.shape[1]):
        reporter.info(f"analysis fit: {fit.describe_changes(keys)} since it was made; refitting")
        fit = None

    with reporter.stage("related papers"):
        # A reused fit needs no phrase counts but those of the changed papers (``paper_neighbours``).
        counts = None if fit is not None else count_phrases(texts)
        space_fit = fit.space if fit is not None else fit_space(counts, embeddings)
        state_key = neighbour_key(embedder.name, space_fit, related_per_paper)
        previous = known.neighbours.get(state_key) if fit is not None else None
        neighbourhood = paper_neighbours(
            space_fit, texts, keys, embeddings, related_per_paper, previous=previous, counts=counts
        )
        space = neighbourhood.space
        if neighbourhood.recomputed_rows is not None:
            reporter.info(
                f"related papers: updated, {plural(neighbourhood.recomputed_rows, 'list')} recomputed "
                "or merged, the rest kept from the last build"
            )
        if neighbourhood.state is not previous:
            found.neighbours = (state_key, neighbourhood.state)
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
        map_job = start_map_layout(space.expanded, known.layouts)
    in_background = not map_job.done
    if fit is not None:
        reporter.info(f"analysis fit: reused ({fit.describe_changes(keys)} since it was made)")

    def on_map(layout: MapLayout) -> None:
        if fit is None:
            found.fit = DigestFit(
                embedder.name, tuple(keys), space_fit, topic_fit, layout.positions, layout.method
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
            keywords=found_keywords,
            author_keywords=author_keywords(entry.paper, candidates.spellings),
            related=near,
            topic=topic_of.get(index),
        )
        for index, (entry, found_keywords, near) in enumerate(zip(entries, keywords, related, strict=True))
    ]
    variants = merge_keyword_variants(papers, candidates.spellings)
    digest = Digest(
        name=collection.name,
        papers=papers,
        model_name=embedder.name,
        topics=topics,
        keyword_variants=variants,
    )
    return PendingDigest(digest, map_job, on_map, embedded, found)
