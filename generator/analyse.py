"""Analysis: settle titles and addresses, embed each paper once, extract keywords, find related papers."""

from __future__ import annotations

from collections.abc import Sequence

from generator.embed import Embedder
from generator.keywords import count_candidates, extract_keywords
from generator.model import AnalysedPaper, Collection, Digest, Paper, TitledPaper
from generator.progress import Reporter
from generator.related import find_related
from generator.text import derive_title, paper_slug, strip_markup, unique_titles


def settle_titles(papers: Sequence[Paper]) -> list[TitledPaper]:
    """Display titles (derived from the abstract when missing, unique in the digest) and slugs."""
    base_titles = [paper.title or derive_title(paper.abstract) for paper in papers]
    return [
        TitledPaper(
            paper=paper,
            title=title,
            title_was_derived=paper.title is None,
            slug=paper_slug(base, paper.id),
        )
        for paper, base, title in zip(papers, base_titles, unique_titles(base_titles), strict=True)
    ]


def analysis_text(entry: TitledPaper) -> str:
    """What gets embedded and mined for keywords: the given title and the abstract, as plain text."""
    abstract = strip_markup(entry.paper.abstract)
    if entry.title_was_derived:
        return abstract
    return f"{strip_markup(entry.title)}. {abstract}"


def analyse(
    collection: Collection,
    embedder: Embedder,
    reporter: Reporter,
    keywords_per_paper: int = 5,
    related_per_paper: int = 5,
) -> Digest:
    entries = settle_titles(collection.papers)
    texts = [analysis_text(entry) for entry in entries]

    with reporter.stage("embed papers", total=len(texts), unit="papers") as advance:
        vectors = embedder.embed(texts, advance)

    with reporter.stage("keywords", total=count_candidates(texts), unit="phrases") as advance:
        keywords = extract_keywords(texts, vectors, embedder, keywords_per_paper, advance)

    with reporter.stage("related papers"):
        related = find_related(vectors, keywords, related_per_paper)

    papers = [
        AnalysedPaper(entry=entry, keywords=found, related=near)
        for entry, found, near in zip(entries, keywords, related, strict=True)
    ]
    return Digest(name=collection.name, papers=papers, model_name=embedder.name)
