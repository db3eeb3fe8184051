"""The records that flow between stages: sources -> Paper -> analysis -> pages."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class SourceLocation:
    """Where a paper came from, for messages that point the maintainer at the file."""

    path: Path
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class PersonName:
    """One author's name in BibTeX's four parts, ``von Last, Jr, First`` ("Di Ruscio, Davide": last
    "Di Ruscio"; "van Gogh, Vincent": von "van"), written as the citation's values are."""

    last: str
    first: str = ""
    von: str = ""
    jr: str = ""


@dataclass(frozen=True)
class Citation:
    """The paper's bibliographic record as its source wrote it, for the entry the site cites it by.

    A field the source did not give is absent: a title the digest derived is never here."""

    entry_type: str
    """The BibTeX entry type: the source's own, or its item type's ("journalArticle" -> "article")."""
    authors: tuple[PersonName, ...] = ()
    """Empty when the source gives names whole ("Ada Lovelace"): the paper's authors are split then."""
    fields: tuple[tuple[str, str], ...] = ()
    """Every other field carried, in the source's order: ``title``, ``journal``/``booktitle``,
    ``year``, ``doi``, ``url``, ``volume``, ``pages`` …"""
    editors: tuple[PersonName, ...] = ()
    """The editors in their parts, from a source that gives them apart from its fields (CSL-JSON, a
    Zotero table); a BibTeX source's ``editor`` is one of its ``fields``."""
    latex: bool = False
    """Whether values are LaTeX as a BibTeX source wrote them (braces, accents, ``\\&``), rather
    than Unicode text that is escaped when written."""

    def field(self, name: str) -> str | None:
        return next((value for key, value in self.fields if key == name), None)


@dataclass(frozen=True)
class Paper:
    """One paper as read from an input file, before any analysis.

    ``title`` is ``None`` when the input gave none; a title is derived later.
    """

    id: str
    abstract: str
    source: SourceLocation
    title: str | None = None
    authors: tuple[str, ...] = ()
    url: str | None = None
    doi: str | None = None
    """The bare DOI ("10.1000/xyz") when the input gives one, whatever ``url`` is: citations carry it."""
    venue: str | None = None
    year: int | None = None
    author_keywords: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    """The reader's own tags from a reference manager's export (Zotero's "Manual Tags" and
    "Automatic Tags", Mendeley's ``mendeley-tags``, JabRef's ``groups``): not the authors' keywords."""
    track: str | None = None
    """The track, session, area or arXiv category the paper was listed under, when the input says."""
    address: str | None = None
    """The page address (slug) the paper had in earlier builds, when it had one
    (``generator.sources.identity``); a new paper's is made from its title and id."""
    citation: Citation | None = None
    """How the source cites the paper, when its format says (BibTeX, CSL-JSON, a reference manager's
    table, OpenReview, arXiv); without one the citation is made from the fields above."""


@dataclass(frozen=True)
class Collection:
    """Everything the readers produced: the digest's name and its papers in input order."""

    name: str
    papers: tuple[Paper, ...]
    warnings: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    """With ``--keep-going``: each record or file passed over, as "file:line: problem"."""


@dataclass(frozen=True)
class Keyword:
    text: str
    score: float


@dataclass(frozen=True)
class RelatedPaper:
    index: int
    """Position of the related paper in the digest's paper list."""
    score: float
    shared_keywords: tuple[str, ...]
    closeness: float | None = None
    """The share of the digest's pairs of papers at least this similar ("closest 1% of pairs")."""


@dataclass(frozen=True)
class TitledPaper:
    """A paper with its display title and stable page address settled."""

    paper: Paper
    title: str
    title_was_derived: bool
    slug: str


@dataclass(frozen=True)
class Topic:
    """A group of similar papers, named by the phrases that set it apart."""

    label: str
    """The phrases joined with " · " (e.g. "reinforcement learning · policy · exploration")."""
    phrases: tuple[str, ...]
    members: tuple[int, ...]
    """Positions in the digest's paper list, the most typical paper of the topic first."""


@dataclass
class AnalysedPaper:
    entry: TitledPaper
    keywords: list[Keyword] = field(default_factory=list)
    related: list[RelatedPaper] = field(default_factory=list)
    author_keywords: list[str] = field(default_factory=list)
    """The authors' own keywords, in the digest's spelling, so they share keyword pages."""
    author_keywords_as_given: list[str] = field(default_factory=list)
    """Each of ``author_keywords`` as the authors wrote it ("Deep-Fakes" for "deepfake"), for their
    paper's page; empty when not known (then the digest's spelling is shown)."""
    topic: int | None = None
    """Position of the paper's topic in ``Digest.topics``."""
    map_position: tuple[float, float] | None = None
    """Where the paper sits on the paper map, inside the unit square."""


@dataclass
class Digest:
    name: str
    papers: list[AnalysedPaper]
    model_name: str
    stats: dict[str, float] = field(default_factory=dict)
    topics: list[Topic] = field(default_factory=list)
    map_method: str | None = None
    """How the paper map was laid out ("t-SNE" or "PCA")."""
    keyword_variants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """A keyword as shown -> the other spellings of it in the digest (hyphenated, plural, its acronym
    or what that stands for) whose papers share its page (``generator.analysis.keyphrases.variants``)."""
