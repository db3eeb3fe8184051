"""Citations as the source wrote them (issue 37): every format's entry type, name parts and fields
reach the page's BibTeX block, ``papers.bib`` and the Google Scholar tags, checked field by field
against a reference reading (``benchmarks/citation_roundtrip.py``: bibtexparser + pylatexenc)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import bibtexparser
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from generator.errors import InputError
from generator.model import AnalysedPaper, Citation, Paper, PersonName, SourceLocation, TitledPaper
from generator.site.bibtex import _closes_in_order, bibtex_entry
from generator.site.render import citation_meta
from generator.sources import read_collection
from generator.sources.bibtex import latex_to_text

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("PAPER_DIGEST_SAMPLES") or PROJECT_ROOT.parent / "shared" / "samples")
EXPORTS = os.environ.get("PAPER_DIGEST_EXPORTS")
"""Real exports gathered from public repositories (their origins in benchmarks/notes/input-formats.md);
kept outside the repository, so these tests skip without them."""


def _benchmark():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "citation_roundtrip", PROJECT_ROOT / "benchmarks" / "citation_roundtrip.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("citation_roundtrip", module)
    spec.loader.exec_module(module)
    return module


ROUND_TRIP = _benchmark()

# An ACM Digital Library export's habits (``\&amp;``, ``M&amp;S``, ``Burgue\~{n}o``, ``month = may``),
# every entry type, and the name cases BibTeX's grammar makes hard.
ACM_AND_FRIENDS = r"""
@article{10.1145/3712008,
author = {Burgue\~{n}o, Lola and Di Ruscio, Davide and Sahraoui, Houari and Wimmer, Manuel},
title = {Automation in Model-Driven Engineering: A Look Back, and Ahead},
year = {2025}, issue_date = {June 2025}, publisher = {Association for Computing Machinery},
address = {New York, NY, USA}, volume = {34}, number = {5}, issn = {1049-331X},
url = {https://doi.org/10.1145/3712008}, doi = {10.1145/3712008},
abstract = {Model-Driven Engineering \&amp; automation: M&amp;S and more.},
journal = {ACM Trans. Softw. Eng. Methodol.}, month = may, articleno = {122}, numpages = {25},
keywords = {Model-Driven Engineering (MDE), automation}
}
@inproceedings{10.1145/3652620.3687804,
author = {Birchler De Allende, Alan and van der Aalst, Wil M. P. and King, Jr., Martin and
  {\'E}mile Zola and others},
title = {From Attack Trees to Attack-Defense Trees with Generative AI \&amp; Natural Language Processing},
year = {2024}, isbn = {9798400706226}, publisher = {Association for Computing Machinery},
booktitle = {Proceedings of M\&amp;S '24}, pages = {561–569}, location = {Linz, Austria},
series = {MODELS Companion '24}, abstract = {An abstract about attack trees.}
}
@inbook{10.5555/3712729.3712962,
author = {Carreira-Munich, Tobias and Paz-Marcolla, Valent\'{\i}n},
title = {DEVS Copilot}, year = {2025}, publisher = {IEEE Press},
booktitle = {Proceedings of the Winter Simulation Conference},
pages = {2785–2796}, abstract = {An abstract about DEVS.}
}
@incollection{chapter1, author = {Ng, Andrew and {MetaCardis Consortium}}, title = {A {GAN} Chapter},
booktitle = {Handbook of Things}, editor = {Ed, Itor}, publisher = {Springer}, year = 2020,
abstract = {A chapter abstract.}}
@book{book1, author = {de la Fontaine, Jean}, title = {Fables}, publisher = {Barbin}, year = {1668},
address = {Paris}, abstract = {A book abstract.}}
@techreport{report1, author = {Doe, John}, title = {A Report}, institution = {MIT}, number = {TR-1},
year = {2019}, abstract = {A report abstract.}}
@phdthesis{thesis1, author = {Roe, Jane}, title = {A Thesis}, school = {ETH Z{\"u}rich}, year = {2018},
abstract = {A thesis abstract.}}
@misc{arxiv1, author = {Vaswani, Ashish and Shazeer, Noam}, title = {Attention Is All You Need},
year = {2017}, eprint = {1706.03762}, archiveprefix = {arXiv}, primaryclass = {cs.CL},
url = {https://arxiv.org/abs/1706.03762}, abstract = {An arXiv abstract.}}
@inproceedings{acl1, title = "Bacteria Biotope at {B}io{NLP} Open Shared Tasks 2019",
    author = "Bossy, Robert  and  Del{\'e}ger, Louise", booktitle = "Proceedings of BioNLP",
    month = nov, year = "2019", address = "Hong Kong, China", url = "https://aclanthology.org/D19-5719",
    doi = "10.18653/v1/D19-5719", pages = "121--131", abstract = "An ACL abstract."}
"""


def _tallies(path: Path) -> dict:  # type: ignore[type-arg]
    _, tallies, count, _ = ROUND_TRIP.round_trip(path)
    assert count > 0
    return tallies


def _assert_all_equal(tallies: dict) -> None:  # type: ignore[type-arg]
    for output, tally in tallies.items():
        assert tally.differences == [], output
        assert tally.compared > 0 and tally.equal == tally.compared, output


def test_bibtex_entry_types_names_and_fields_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "acm.bib"
    path.write_text(ACM_AND_FRIENDS, encoding="utf-8")
    tallies = _tallies(path)
    _assert_all_equal(tallies)
    assert not tallies["page BibTeX"].not_carried  # every field of these entries is carried
    papers = {paper.id: paper for paper in read_collection([path]).papers}
    entries = {
        key: bibtexparser.parse_string(bibtex_entry(TitledPaper(p, p.title or "", False, key))).entries[0]
        for key, p in papers.items()
    }
    assert {key: entry.entry_type for key, entry in entries.items()} == {
        "10.1145/3712008": "article",
        "10.1145/3652620.3687804": "inproceedings",
        "10.5555/3712729.3712962": "inbook",
        "chapter1": "incollection",
        "book1": "book",
        "report1": "techreport",
        "thesis1": "phdthesis",
        "arxiv1": "misc",
        "acl1": "inproceedings",
    }
    article = entries["10.1145/3712008"].fields_dict
    assert article["author"].value.startswith(r"Burgue{\~{n}}o, Lola and Di Ruscio, Davide and")
    assert papers["10.1145/3712008"].authors[:2] == ("Lola Burgueño", "Davide Di Ruscio")
    assert article["journal"].value == "ACM Trans. Softw. Eng. Methodol."
    assert "booktitle" not in article
    assert papers["10.1145/3712008"].abstract == "Model-Driven Engineering & automation: M&S and more."
    proceedings = entries["10.1145/3652620.3687804"].fields_dict
    assert latex_to_text(proceedings["title"].value).endswith("Generative AI & Natural Language Processing")
    assert latex_to_text(proceedings["booktitle"].value) == "Proceedings of M&S '24"
    assert proceedings["author"].value == (
        r"Birchler De Allende, Alan and van der Aalst, Wil M. P. and King, Jr., Martin and "
        r"Zola, {\'E}mile and others"
    )
    assert entries["chapter1"].fields_dict["author"].value == "Ng, Andrew and {MetaCardis Consortium}"
    assert entries["book1"].fields_dict["author"].value == "de la Fontaine, Jean"
    assert "month = nov" in bibtex_entry(TitledPaper(papers["acl1"], "x", False, "x"))


def test_scholar_tags_follow_the_entry_type(tmp_path: Path) -> None:
    path = tmp_path / "acm.bib"
    path.write_text(ACM_AND_FRIENDS, encoding="utf-8")
    papers = {paper.id: paper for paper in read_collection([path]).papers}

    def tags(key: str) -> dict[str, str]:
        paper = papers[key]
        return dict(citation_meta(AnalysedPaper(entry=TitledPaper(paper, paper.title or "", False, key))))

    article = tags("10.1145/3712008")
    assert article["citation_journal_title"] == "ACM Trans. Softw. Eng. Methodol."
    assert (article["citation_volume"], article["citation_issue"], article["citation_doi"]) == (
        "34",
        "5",
        "10.1145/3712008",
    )
    assert "citation_conference_title" not in article
    paper = tags("10.1145/3652620.3687804")
    assert paper["citation_conference_title"] == "Proceedings of M&S '24"
    assert (paper["citation_firstpage"], paper["citation_lastpage"]) == ("561", "569")
    assert (
        tags("10.5555/3712729.3712962")["citation_inbook_title"]
        == "Proceedings of the Winter Simulation Conference"
    )
    assert tags("report1")["citation_technical_report_institution"] == "MIT"
    assert tags("thesis1")["citation_dissertation_institution"] == "ETH Zürich"


def test_a_derived_title_is_never_cited_as_the_papers_own() -> None:
    paper = Paper(
        id="u1",
        abstract="The role of social media influencers in enhancing the visibility of brands.",
        source=SourceLocation(Path("x.txt"), 1),
        authors=("Ada Lovelace",),
        year=2024,
    )
    entry = TitledPaper(paper, "The role of social media influencers in enhancing the visibility", True, "s")
    (parsed,) = bibtexparser.parse_string(bibtex_entry(entry)).entries
    assert "title" not in parsed.fields_dict
    assert parsed.fields_dict["note"].value.startswith("Untitled in the source; Paper Digest's title for it")
    tags = citation_meta(AnalysedPaper(entry=entry))
    assert "citation_title" not in dict(tags)
    assert dict(tags)["citation_author"] == "Ada Lovelace"


CSL_ITEMS = [
    {
        "id": "a",
        "type": "article-journal",
        "title": "On <i>things</i>",
        "author": [
            {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"},
            {"family": "Di Ruscio", "given": "Davide"},
            {"family": "King", "given": "Martin", "suffix": "Jr."},
            {"literal": "MetaCardis Consortium"},
        ],
        "container-title": "Cell",
        "editor": [{"family": "Fontaine", "given": "Jean", "dropping-particle": "de la"}],
        "volume": "12",
        "issue": "3",
        "page": "1-10",
        "DOI": "10.1000/x",
        "URL": "https://example.org/a",
        "issued": {"date-parts": [[2024, 11, 13]]},
        "abstract": "An abstract.",
    },
    {"id": "b", "type": "chapter", "title": "C", "container-title": "Book", "abstract": "B abstract."},
    {"id": "c", "type": "report", "title": "R", "publisher": "MIT", "abstract": "C abstract."},
    {"id": "d", "type": "paper-conference", "title": "P", "container-title": "ICML", "abstract": "D."},
    {"id": "e", "type": "article", "title": "Preprint", "abstract": "E abstract."},
]

ZOTERO_CSV = (
    '\ufeff"Key","Item Type","Publication Year","Author","Title","Publication Title","ISBN","ISSN","DOI",'
    '"Url","Abstract Note","Pages","Issue","Volume","Publisher","Place","Manual Tags","Automatic Tags"\n'
    '"K1","journalArticle","2025","Burgueño, Lola; Di Ruscio, Davide","Automation in MDE","ACM TOSEM","",'
    '"1049-331X","10.1145/3712008","https://doi.org/10.1145/3712008","An abstract.","1-25","5","34",'
    '"ACM","New York","Viewed","Computer Science"\n'
    '"K2","conferencePaper","2024","Jones, Zachary,M.","A Paper","Proc. X","","","","","B abstract.",'
    '"","","","","","",""\n'
    '"K3","bookSection","2020","Ng, Andrew","A Chapter","A Book","","","","","C abstract.","","","","",'
    '"","",""\n'
    '"K4","report","2019","Doe, John","A Report","MIT","","","","","D abstract.","","","","","","",""\n'
    '"K5","preprint","2023","Lee, Ann","A Preprint","arXiv","","","","https://arxiv.org/abs/2301.00001",'
    '"E abstract.","","","","","","",""\n'
)


@pytest.mark.parametrize(
    ("file_name", "content", "entry_types", "written"),
    [
        pytest.param(
            "items.json",
            json.dumps(CSL_ITEMS),
            {"a": "article", "b": "incollection", "c": "techreport", "d": "inproceedings", "e": "misc"},
            {
                ("a", "On things"): (
                    "author = {van Beethoven, Ludwig and Di Ruscio, Davide and King, Jr., Martin and ",
                    "{MetaCardis Consortium}}",
                    "editor = {de la Fontaine, Jean}",
                )
            },
            id="csl-json types, particles and fields",
        ),
        pytest.param(
            "My Library.csv",
            ZOTERO_CSV,
            {"K1": "article", "K2": "inproceedings", "K3": "incollection", "K4": "techreport", "K5": "misc"},
            {
                ("K1", "Automation in MDE"): (
                    "author = {Burgueño, Lola and Di Ruscio, Davide}",
                    "journal = {ACM TOSEM}",
                    "volume = {34}",
                    "number = {5}",
                ),
                ("K2", "A Paper"): ("author = {Jones, {Zachary,M.}}",),
            },
            id="zotero-csv item types and name parts",
        ),
    ],
)
def test_export_entry_types_and_fields_round_trip(
    tmp_path: Path,
    file_name: str,
    content: str,
    entry_types: dict[str, str],
    written: dict[tuple[str, str], tuple[str, ...]],
) -> None:
    path = tmp_path / file_name
    path.write_text(content, encoding="utf-8")
    _assert_all_equal(_tallies(path))
    papers = {p.id: p for p in read_collection([path]).papers}
    assert {key: p.citation.entry_type for key, p in papers.items() if p.citation} == entry_types
    for (key, title), expected in written.items():
        entry = bibtex_entry(TitledPaper(papers[key], title, False, key))
        for text in expected:
            assert text in entry, (key, text)


def test_openreview_cites_its_own_bibtex_and_arxiv_cites_as_arxiv_does(tmp_path: Path) -> None:
    notes = [
        {
            "id": "F1",
            "forum": "F1",
            "content": {
                "title": {"value": "Accepted"},
                "authors": {"value": ["Ann Lee", "Luis de la Cruz"]},
                "abstract": {"value": "An accepted paper."},
                "venue": {"value": "ICLR 2024 poster"},
                "_bibtex": {
                    "value": "@inproceedings{\nlee2024accepted,\ntitle={Accepted},\nauthor={Ann Lee and "
                    "Luis de la Cruz},\nbooktitle={The Twelfth International Conference on Learning "
                    "Representations},\nyear={2024},\nurl={https://openreview.net/forum?id=F1}\n}"
                },
            },
        },
        {
            "id": "F2",
            "forum": "F2",
            "content": {
                "title": {"value": "Under review"},
                "authors": {"value": ["Bo Chen"]},
                "abstract": {"value": "A submitted paper."},
                "venue": {"value": "Submitted to ICLR 2025"},
            },
        },
    ]
    path = tmp_path / "notes.json"
    path.write_text(json.dumps(notes), encoding="utf-8")
    papers = {p.id: p for p in read_collection([path]).papers}
    accepted = bibtex_entry(TitledPaper(papers["F1"], "Accepted", False, "a"))
    assert accepted.startswith("@inproceedings{")
    assert "booktitle = {The Twelfth International Conference on Learning Representations}" in accepted
    assert "author = {Lee, Ann and de la Cruz, Luis}" in accepted
    assert bibtex_entry(TitledPaper(papers["F2"], "Under review", False, "b")).startswith("@misc{")

    atom = _sample_file("arxiv")
    if atom is not None:
        _assert_all_equal(_tallies(atom))


def _sample_file(folder: str) -> Path | None:
    found = sorted((SAMPLES / folder).glob("*")) if (SAMPLES / folder).is_dir() else []
    return found[0] if found else None


@pytest.mark.parametrize("folder", ["bibtex", "csl_json", "csv", "arxiv"])
def test_every_shared_sample_round_trips_field_by_field(folder: str) -> None:
    path = _sample_file(folder)
    if path is None:
        pytest.skip(f"../shared/samples/{folder} is not here (or set PAPER_DIGEST_SAMPLES)")
    _assert_all_equal(_tallies(path))


def _exports() -> list[Path]:
    return ROUND_TRIP.files_in([Path(EXPORTS)]) if EXPORTS and Path(EXPORTS).is_dir() else []


@pytest.mark.slow
@pytest.mark.skipif(not _exports(), reason="set PAPER_DIGEST_EXPORTS to a folder of gathered exports")
@pytest.mark.parametrize("path", _exports(), ids=lambda path: path.name)
def test_gathered_exports_round_trip_field_by_field(path: Path) -> None:
    tallies = _tallies(path)
    for output, tally in tallies.items():
        # A source's own malformed data (a URL typed as an author) is listed, never silently changed.
        assert tally.equal / tally.compared >= 0.999, (output, tally.differences[:5])


# --- properties: any name, any item, one parsable entry that gives the parts back --------------

_part = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=300, deadline=None)
@given(first=_part, von=_part, last=_part, jr=_part)
def test_any_name_is_written_so_bibtex_reads_the_same_name_back(
    first: str, von: str, last: str, jr: str
) -> None:
    person = PersonName(last=last, first=first, von=von, jr=jr)
    paper = Paper(
        id="p",
        abstract="A.",
        source=SourceLocation(Path("x"), 1),
        citation=Citation("article", (person, PersonName(last="Other")), (("title", "T"),)),
    )
    library = bibtexparser.parse_string(bibtex_entry(TitledPaper(paper, "T", False, "p")))
    assert not library.failed_blocks
    fields = library.entries[0].fields_dict
    if not " ".join(f"{first} {von} {last} {jr}".split()):
        assert fields["author"].value == "Other"
        return
    names = ROUND_TRIP.bibtex_records_from(library.entries[0])[1]
    assert len(names) == 2 and names[1]["last"] == "Other"

    def words(*parts: str) -> list[str]:
        return " ".join(parts).split()

    got = names[0]
    assert words(got["first"], got["von"], got["last"], got["jr"]) == words(
        *((first, von, last, jr) if last.strip() else (first, von, jr))
    )
    if not von.strip() and last.strip():
        assert words(got["last"]) == words(last) and words(got["first"]) == words(first)


_value = st.one_of(st.none(), st.text(max_size=20), st.integers(), st.lists(st.text(max_size=5), max_size=2))


@settings(max_examples=200, deadline=None)
@given(
    kind=st.one_of(st.sampled_from(["article-journal", "chapter", "report", "thesis", "book"]), _value),
    volume=_value,
    page=_value,
    publisher=_value,
    container=_value,
    family=_value,
)
def test_csl_items_of_any_shape_give_a_parsable_citation_or_a_clear_error(
    tmp_path_factory: pytest.TempPathFactory,
    kind: object,
    volume: object,
    page: object,
    publisher: object,
    container: object,
    family: object,
) -> None:
    item = {"id": "x", "type": kind, "title": "T", "abstract": "An abstract.", "volume": volume, "page": page}
    item |= {
        "publisher": publisher,
        "container-title": container,
        "author": [{"family": family, "given": "A"}],
    }
    path = tmp_path_factory.mktemp("csl") / "items.json"
    path.write_text(json.dumps([item]), encoding="utf-8")
    try:
        papers = read_collection([path]).papers
    except InputError:
        return
    except Exception as error:  # DigestError (nothing readable) is a clear error too
        assert type(error).__name__ == "DigestError", error
        return
    for paper in papers:
        library = bibtexparser.parse_string(bibtex_entry(TitledPaper(paper, "T", False, "x")))
        assert not library.failed_blocks and len(library.entries) == 1


def _pieces(*pieces: str, size: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=size).map("".join)


# Names as exports write them: letters, commas, braces, "and", ties, accents as commands (a lone
# backslash or tilde is left to the readers' arbitrary-text properties, which only ask for no crash).
_latex_name = _pieces(*"AbcÉé ,{}-.", "and", " and ", "D.~E.", "\\~{n}", "{\\'E}", "\\'{e}", size=15)


@settings(max_examples=200, deadline=None)
@given(
    author=_latex_name,
    title=_pieces(*"Ab &;{}\\$%#_", "&amp;", "\\&amp;", size=12),
)
# An accent command opening a name after "and", which bibtexparser's splitter loses unbraced.
@example(author="A and  and \\'{e}", title="")
# A name whose von part is a lone "and" ("and D. E."), which a reader takes for a separator.
@example(author=", and  and D.~E.", title="")
# A title ending in a control space ("$\\ "), read as "$\\": written back with its space.
@example(author="A", title="$\\ ")
def test_any_bibtex_entry_reads_back_the_same_from_the_digests_entry(
    tmp_path_factory: pytest.TempPathFactory, author: str, title: str
) -> None:
    # A well-formed entry: braces that close in order (one that does not is the arbitrary-text
    # properties' business, which ask only for a clear error or a paper).
    assume(all(_closes_in_order(value) for value in (author, title)))
    folder = tmp_path_factory.mktemp("bib")
    source = folder / "in.bib"
    source.write_text(
        f"@article{{k, author = {{{author}}}, title = {{{title}}}, abstract = {{A.}}}}\n", "utf-8"
    )
    try:
        (paper,) = read_collection([source]).papers
    except (InputError, ValueError):
        return
    except Exception as error:  # DigestError: nothing readable
        assert type(error).__name__ == "DigestError", error
        return
    written = folder / "out.bib"
    written.write_text(
        bibtex_entry(TitledPaper(paper, paper.title or "T", False, "k"), abstract=True), "utf-8"
    )
    (again,) = read_collection([written]).papers
    assert (again.title or "") == (paper.title or "")
    assert again.citation and paper.citation and again.citation.entry_type == "article"

    def parts(citation: Citation) -> list[str]:
        """Each name's text, part by part (an accent ending the first name stays in it). A name given
        without a last name, or with braces BibTeX would misread, is written whole: its words count."""
        texts = (
            [" ".join(latex_to_text(p).split()) for p in (n.first, n.von, n.last, n.jr)]
            for n in citation.authors
        )
        return [" ".join(text for text in name if text) for name in texts]

    assert parts(again.citation) == parts(paper.citation)


@settings(max_examples=150, deadline=None)
@given(bibtex=_pieces(*'@{}=,"\\ abc', "@misc{", "author=", "title=", size=25))
def test_any_openreview_bibtex_gives_a_parsable_citation(
    tmp_path_factory: pytest.TempPathFactory, bibtex: str
) -> None:
    note = {"id": "F", "content": {"title": "T", "abstract": "An abstract.", "_bibtex": bibtex}}
    path = tmp_path_factory.mktemp("or") / "notes.json"
    path.write_text(json.dumps([note]), encoding="utf-8")
    (paper,) = read_collection([path]).papers
    library = bibtexparser.parse_string(bibtex_entry(TitledPaper(paper, "T", False, "F")))
    assert not library.failed_blocks and len(library.entries) == 1
