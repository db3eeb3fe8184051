"""The readers of exported paper lists: CSV/TSV, BibTeX, CSL-JSON, OpenReview JSON and arXiv Atom.

The same papers written in every format read back with the same titles, authors, abstracts and
links; each format's own conventions are read as the tools that export it write them; a file that is
not what its name says, or a malformed record, stops with the file (and line) and what was expected.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from generator.engine.settings import configured_site_url
from generator.errors import DigestError, InputError
from generator.model import Paper, SourceLocation
from generator.project.settings import columns_option
from generator.sources import ReadOptions, read_collection
from generator.sources.base import one_line, paragraphs
from generator.sources.table import MISSING_VALUES
from tests import paper_exports
from tests.conftest import PROJECT_ROOT

SHARED = PROJECT_ROOT.parent / "shared"
ICML = SHARED / "corpora" / "icml2024.jsonl"
SAMPLES = SHARED / "samples"

HERE = SourceLocation(Path("fixture"), 1)
FIXTURE = [
    Paper(
        id="p1",
        title="$\\bf{\\Phi}_\\textrm{Flow}$: Differentiable Simulations -- for {PyTorch} & Jax",
        abstract="We present $\\Phi_\\textrm{Flow}$, a toolkit that is 50% faster (p < 0.05) at ~10x scale; "
        "see ``quoted'' text, a_b, c^d, #1, $5 and \\emph{this}. It \"works\".\n\nA second paragraph.",
        authors=("Philipp Holl", "Nils Thuerey"),
        url="https://icml.cc/virtual/2024/poster/35005",
        venue="ICML 2024",
        year=2024,
        source=HERE,
    ),
    Paper(
        id="p2",
        title="Über Graphen: Łukasz's Müller–Nießner “Approach”",
        abstract="Sørensen and Gölge study graph neural networks for node classification on "
        "heterophilous graphs; message passing over-smooths with depth — we fix it {partly}.",
        authors=("Søren Kaae Sønderby", "Juan Carlos de la Cruz", "Prabhat", "Marc-André Carbonneau"),
        url="https://example.org/paper?id=7&x=%20y#frag",
        author_keywords=("graph neural networks", "heterophily, homophily"),
        venue="Transactions on Machine Learning Research",
        year=2023,
        source=HERE,
    ),
    Paper(
        id="p3",
        title="A Note Without a Venue",
        abstract="Large language models can be steered at decoding time with a reward model; "
        "we evaluate the approach on $\\mathcal{O}(n^2)$ benchmarks and [a link](https://x.org).",
        authors=("Ann Anders",),
        source=HERE,
    ),
]

Writer = Callable[[Sequence[Paper]], str]
FORMATS: dict[str, Writer] = {
    "papers.csv": paper_exports.to_csv,
    "papers.tsv": lambda papers: paper_exports.to_csv(papers, "\t"),
    "papers.bib": paper_exports.to_bibtex,
    "zotero.json": paper_exports.to_csl_json,
    "openreview-v1.json": lambda papers: paper_exports.to_openreview(papers, 1),
    "openreview-v2.json": lambda papers: paper_exports.to_openreview(papers, 2),
    "arxiv.xml": paper_exports.to_arxiv_atom,
}
LINE_WRAPPING_FORMATS = (".bib", ".xml")
"""Formats whose prose is hard-wrapped TeX or XML text: a single line break there is a space."""


def _as_read(papers: Sequence[Paper], name: str) -> list[tuple]:
    """What a reader of ``name`` should give for each paper: title, authors, abstract, link, and the
    authors' keywords where the writer puts them (not CSL-JSON's nor arXiv's)."""
    wrapped = name.endswith(LINE_WRAPPING_FORMATS)
    keywords = not name.startswith(("zotero", "arxiv"))
    return [
        (
            one_line(p.title),
            p.authors,
            paragraphs(p.abstract) if wrapped else p.abstract,
            p.url,
            p.author_keywords if keywords else (),
        )
        for p in papers
    ]


def _round_trip(papers: Sequence[Paper], name: str, folder: Path) -> list[tuple]:
    path = folder / name
    path.write_text(FORMATS[name](papers), encoding="utf-8")
    read = read_collection([path]).papers
    return [(p.title, p.authors, p.abstract, _expected_link(p, name), p.author_keywords) for p in read]


def _expected_link(paper: Paper, name: str) -> str | None:
    """A paper without a link of its own gets its page on OpenReview or arXiv; the others none."""
    fallbacks = {"openreview": "https://openreview.net/forum?id=", "arxiv": "http://arxiv.org/abs/"}
    fallback = next((url for prefix, url in fallbacks.items() if name.startswith(prefix)), None)
    if fallback and paper.url and paper.url.startswith(fallback):
        return None
    return paper.url


@pytest.mark.parametrize("name", FORMATS)
def test_fixture_reads_back_the_same_in_every_format(tmp_path: Path, name: str) -> None:
    assert _round_trip(FIXTURE, name, tmp_path) == _as_read(FIXTURE, name)


@pytest.mark.skipif(not ICML.is_file(), reason="../shared/corpora/icml2024.jsonl is not here")
@pytest.mark.parametrize("name", FORMATS)
def test_icml_sample_reads_back_the_same_in_every_format(tmp_path: Path, name: str) -> None:
    papers = read_collection([ICML]).papers[::13]  # 203 papers, math and TeX ligatures among them
    assert len(papers) > 200
    assert _round_trip(papers, name, tmp_path) == _as_read(papers, name)


# --- one digest from a folder of every format --------------------------------------------------


def test_folder_mixing_all_formats_builds_one_digest_with_papers_bib(tmp_path: Path, fake_embedder) -> None:
    import bibtexparser

    from generator.build import BuildRequest, build_digest
    from generator.progress import Reporter
    from generator.project.settings import load_settings

    folder = tmp_path / "inputs"
    folder.mkdir()
    papers = [
        Paper(
            id=f"x{i}",
            title=f"Paper {i} on topic {i % 3}",
            abstract=f"Abstract {i}: " + "words " * 12 + str(i),
            authors=(f"Author {i}", "Shared Person"),
            url=f"https://example.org/{i}",
            venue="ICML 2024",
            year=2024,
            source=HERE,
        )
        for i in range(len(FORMATS) * 2)
    ]
    for index, name in enumerate(FORMATS):
        (folder / name).write_text(FORMATS[name](papers[index * 2 : index * 2 + 2]), encoding="utf-8")
    (folder / "notes.md").write_text("not a paper list")
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4")
    (folder / "README.md").write_text("# Our papers")
    (folder / ".DS_Store").write_bytes(b"\0")

    settings = load_settings(PROJECT_ROOT)
    settings = type(settings)(**{**settings.__dict__, "cache_dir": tmp_path / "cache"})
    request = BuildRequest((folder,), tmp_path / "docs", tmp_path / "site")
    reporter = Reporter(quiet=True)
    warned: list[str] = []
    reporter.warn = warned.append  # type: ignore[method-assign]
    result = build_digest(settings, request, reporter, fake_embedder)

    assert len(result.digest.papers) == len(papers)
    assert [w for w in warned if "not read" in w] == [
        f"{folder}: 2 items not read (not .atom, .bib, .csv, .json, .jsonl, .tsv, .txt, .xml; "
        "folders are not searched): notes.md, scan.pdf"
    ]
    exported = json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))
    bib_text = (tmp_path / "site" / "papers.bib").read_text(encoding="utf-8")
    assert bib_text == (tmp_path / "docs" / "papers.bib").read_text(encoding="utf-8")
    library = bibtexparser.parse_string(bib_text)
    assert not library.failed_blocks
    entries = {entry.key: entry for entry in library.entries}
    assert len(entries) == len(papers)
    site_url = configured_site_url(PROJECT_ROOT / "mkdocs.yml")
    # url: the paper's own link, as its source gave it; digest-url: its page in the digest.
    assert {entry.fields_dict["url"].value for entry in entries.values()} == {p.url for p in papers}
    pages = {entry.fields_dict["digest-url"].value for entry in entries.values()}
    assert pages == {f"{site_url.rstrip('/')}/{record['url']}" for record in exported}
    by_title = {entry.fields_dict["title"].value: entry for entry in entries.values()}
    assert sorted(by_title) == sorted(p.title for p in papers)
    for paper in papers:
        entry = by_title[paper.title]
        from_arxiv = paper in papers[-2:]  # arxiv.xml, the last format: cited as arXiv cites it
        assert entry.entry_type == ("misc" if from_arxiv else "inproceedings")
        if from_arxiv:
            assert entry.fields_dict["archiveprefix"].value == "arXiv"
            assert entry.fields_dict["eprint"].value.startswith("2401.")
        else:
            assert entry.fields_dict["booktitle"].value == "ICML 2024"
        assert (
            entry.fields_dict["author"].value == f"{paper.authors[0].split()[1]}, Author and Person, Shared"
        )
        assert entry.fields_dict["year"].value == "2024"


def test_papers_bib_keys_stay_put_when_papers_are_added() -> None:
    from generator.model import TitledPaper
    from generator.site.bibtex import bibtex_entry, bibtex_key
    from generator.sources.base import guessed_entry_type as entry_type

    paper = TitledPaper(FIXTURE[0], FIXTURE[0].title or "", False, "slug")
    assert bibtex_key(paper) == bibtex_key(TitledPaper(FIXTURE[0], FIXTURE[0].title or "", False, "other"))
    assert bibtex_key(paper).startswith("holl2024differentiable-")
    assert bibtex_key(paper) != bibtex_key(TitledPaper(FIXTURE[1], FIXTURE[1].title or "", False, "s"))
    # A derived title changes with the derivation (a sentence added to the abstract, a new version):
    # the key of an untitled paper does not follow it.
    untitled = replace(FIXTURE[0], title=None)
    derived = [
        bibtex_key(TitledPaper(untitled, title, True, "slug")) for title in ("Role of X", "TestBench: Y")
    ]
    assert derived[0] == derived[1] and derived[0].startswith("holl2024-")
    entry = bibtex_entry(paper, url="https://digest.example/papers/x/")
    assert "author = {Holl, Philipp and Thuerey, Nils}" in entry
    assert "digest-url = {https://digest.example/papers/x/}" in entry
    assert "url = {https://icml.cc/virtual/2024/poster/35005}" in entry
    assert (
        entry_type("ICML 2024"),
        entry_type("Journal of ML Research"),
        entry_type("arXiv"),
        entry_type(None),
    ) == ("inproceedings", "article", "misc", "misc")


# --- each format's conventions -----------------------------------------------------------------


def _write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_csv_headers_delimiters_bom_and_lists(tmp_path: Path) -> None:
    semicolons = _write(
        tmp_path,
        "sheet.csv",
        "\ufeffPaper Title;Summary;Author Names;KEYWORDS;Link;Session\n"
        '"One; two";"An abstract, with commas; and semicolons.";Ann Lee, Bo Chen and Cy Diaz;a | b;'
        "https://x.org/1;Oral 1\n",
    )
    tabs = _write(tmp_path, "sheet.tsv", "id\ttitle\tabstract\tauthors\n7\tT\tAbstract seven.\tA B|C D\n")
    excel = _write(tmp_path, "excel.csv", "sep=;\r\ntitle;abstract\r\nA, B;An abstract, of a kind.\r\n")
    one, seven, eight = read_collection([semicolons, tabs, excel]).papers
    assert (eight.title, eight.abstract, eight.source.line) == ("A, B", "An abstract, of a kind.", 3)
    assert (one.title, one.abstract, one.authors, one.author_keywords, one.url, one.track) == (
        "One; two",
        "An abstract, with commas; and semicolons.",
        ("Ann Lee", "Bo Chen", "Cy Diaz"),
        ("a", "b"),
        "https://x.org/1",
        "Oral 1",
    )
    assert (seven.id, seven.authors, seven.source.line) == ("7", ("A B", "C D"), 2)


def test_csv_columns_option_names_other_headers(tmp_path: Path) -> None:
    path = _write(tmp_path, "odd.csv", "Paper,Text,Who\nA title,The abstract.,X Y\n")
    with pytest.raises(InputError, match=r"odd\.csv:1: no abstract column .*--columns abstract=NAME"):
        read_collection([path])
    options = ReadOptions(columns=columns_option("abstract=Text,title=Paper,authors=Who"))
    (paper,) = read_collection([path], options=options).papers
    assert (paper.title, paper.abstract, paper.authors) == ("A title", "The abstract.", ("X Y",))
    with pytest.raises(InputError, match="no column 'Nope'"):
        read_collection([path], options=ReadOptions(columns=(("abstract", "Nope"),)))
    with pytest.raises(DigestError, match="unknown field 'summary'"):
        columns_option("summary=Text")


def test_columns_kept_in_pyproject(tmp_path: Path) -> None:
    from generator.project.settings import load_settings

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.paper-digest]\ncolumns = { abstract = "Text", title = "Paper" }\n')
    assert load_settings(tmp_path).columns == (("abstract", "Text"), ("title", "Paper"))
    pyproject.write_text('[tool.paper-digest]\ncolumns = { summary = "Text" }\n')
    with pytest.raises(DigestError, match="unknown field 'summary'"):
        load_settings(tmp_path)


def test_csv_rows_without_abstract_and_relative_links_are_named(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "papers.csv",
        "UID,title,abstract,pdf_url,href\nA1,T1,First.,static/a.pdf,https://x.org/a\n"
        "A2,T2,NA,static/b.pdf,NA\nA3,T3,Third.,static/c.pdf,NA\n",
    )
    collection = read_collection([path])
    assert [p.url for p in collection.papers] == ["https://x.org/a", None]
    assert (
        f"{path}: 1 row skipped, no abstract (empty, or NA and the like): line 3 (A2)" in collection.warnings
    )
    assert any("line 4 ('static/c.pdf')" in w for w in collection.warnings)


BIBTEX = r"""
@string{icml = "International Conference on Machine Learning"}
@inproceedings{muller2020,
	title = {{BERT} and {\"O}ther {Models}: {A} \& {B}},
	author = {M{\"u}ller, Hans and de la Cruz, Juan Carlos and {Google Research} and others},
	booktitle = icml,
	year = {2020},
	month = jul,
	doi = {10.1000/xyz_1},
	keywords = {Computer Science - Machine Learning, Unreviewed},
	abstract = {We study {\"o}ber-models --- 50% faster than $O(n^2)$,
	with line breaks.},
}

@article{kaiser_one_2017,
	title = {One Model},
	author = {Kaiser, Łukasz},
	journal = {arXiv:1706.05137 [cs]},
	eprint = {1706.05137v2},
	archivePrefix = {arXiv},
	abstract = {An abstract.},
	doi = {10.1/first},
	doi = {10.1/second},
}

@book{nobody, title = {No Abstract}, author = {A, B}}
@misc{nobody2, title = {No Abstract Either}}
"""


def test_bibtex_latex_names_links_and_skipped_entries(tmp_path: Path) -> None:
    path = _write(tmp_path, "library.bib", BIBTEX)
    collection = read_collection([path])
    first, second = collection.papers
    assert first.id == "muller2020"
    assert first.title == "BERT and Öther Models: A & B"
    assert first.authors == ("Hans Müller", "Juan Carlos de la Cruz", "Google Research")
    assert first.abstract == "We study öber-models — 50% faster than $O(n^2)$, with line breaks."
    assert (first.venue, first.year, first.url) == (
        "International Conference on Machine Learning",
        2020,
        "https://doi.org/10.1000/xyz_1",
    )
    assert first.author_keywords == ("Computer Science - Machine Learning", "Unreviewed")
    assert (first.source.line, second.source.line) == (3, 15)
    assert (second.authors, second.venue, second.url) == (
        ("Łukasz Kaiser",),
        "arXiv",
        "https://doi.org/10.1/first",
    )
    assert f"{path}:15: entry 'kaiser_one_2017' gives 'doi' twice; the first is used, as BibTeX does" in (
        collection.warnings
    )
    assert f"{path}: 2 entries skipped, no abstract: nobody, nobody2" in collection.warnings


OPENREVIEW_V1 = [
    {
        "id": "n1",
        "forum": "F1",
        "invitation": "ICLR.cc/2019/Conference/-/Blind_Submission",
        "cdate": 1538352000000,
        "content": {
            "title": "V1 Title",
            "authors": ["A One", "B Two"],
            "authorids": ["~A_One1", "b@x.org"],
            "abstract": "Abstract one.",
            "keywords": ["graphs", "learning"],
            "pdf": "/pdf/abc.pdf",
            "venue": "ICLR 2019 Poster",
            "_bibtex": "@inproceedings{...}",
        },
    },
    {
        "id": "r1",
        "forum": "F1",
        "replyto": "F1",
        "invitation": "ICLR.cc/2019/Conference/-/Official_Review",
        "content": {"title": "Review", "review": "Good.", "rating": "7"},
    },
]
OPENREVIEW_V2 = [
    {
        "id": "n2",
        "forum": "F2",
        "invitations": ["ICLR.cc/2024/Conference/-/Submission"],
        "pdate": 1705000000000,
        "content": {
            "title": {"value": "V2 Title"},
            "authors": {"value": ["C Three"]},
            "abstract": {"value": "Abstract two."},
            "keywords": {"value": ["vision"]},
            "primary_area": {"value": "generative models"},
            "venueid": {"value": "ICLR.cc/2024/Conference"},
        },
    },
]


def test_openreview_notes_of_both_api_versions(tmp_path: Path) -> None:
    v1 = _write(tmp_path, "v1.json", json.dumps(OPENREVIEW_V1, indent=1))
    v2 = _write(tmp_path, "v2.json", json.dumps({"notes": OPENREVIEW_V2, "count": 1}, indent=1))
    collection = read_collection([v1, v2])
    one, two = collection.papers
    assert (one.id, one.title, one.authors, one.author_keywords, one.url, one.venue, one.year) == (
        "F1",
        "V1 Title",
        ("A One", "B Two"),
        ("graphs", "learning"),
        "https://openreview.net/pdf/abc.pdf",
        "ICLR 2019 Poster",
        2019,
    )
    assert (two.id, two.url, two.year, two.track, two.source.line) == (
        "F2",
        "https://openreview.net/forum?id=F2",
        2024,
        "generative models",
        3,
    )
    assert f"{v1}: 1 note skipped, no abstract (reviews or comments?): F1" in collection.warnings
    assert read_collection([_write(tmp_path, "v1only.json", json.dumps(OPENREVIEW_V1))]).name == (
        "ICLR 2019 Poster Papers"
    )


def test_csl_json_names_dates_and_links(tmp_path: Path) -> None:
    items = [
        {
            "id": "http://zotero.org/users/1/items/A",
            "type": "article-journal",
            "title": "On <i>E. coli</i>",
            "author": [
                {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"},
                {"literal": "The Microbiome Consortium"},
            ],
            "abstract": "Line one.\nLine two.",
            "issued": {"date-parts": [["2024", 11, 13]]},
            "container-title": "Cell",
            "DOI": "10.1016/j.cell.2024.10.022",
        },
        {
            "id": 2,
            "type": "thesis",
            "title": "Thesis",
            "issued": {"raw": "2021-05"},
            "abstract": "Text.",
            "URL": "https://x.org/t",
            "keyword": "a, b",
        },
        {"id": "c", "type": "article", "title": "No abstract"},
    ]
    path = _write(tmp_path, "Exported Items.json", json.dumps(items, indent="\t"))
    collection = read_collection([path])
    first, second = collection.papers
    assert first.title == "On E. coli"
    assert first.authors == ("Ludwig van Beethoven", "The Microbiome Consortium")
    assert (first.abstract, first.year, first.venue, first.url) == (
        "Line one.\nLine two.",
        2024,
        "Cell",
        "https://doi.org/10.1016/j.cell.2024.10.022",
    )
    # CSL's "keyword(s) or tag(s)": the library's tags, the reader's, not the authors'.
    assert (second.id, second.year, second.url, second.tags, second.author_keywords) == (
        "2",
        2021,
        "https://x.org/t",
        ("a", "b"),
        (),
    )
    assert f"{path}: 1 item skipped, no abstract: c" in collection.warnings


ATOM_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'


def test_arxiv_ids_links_and_categories(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "query.xml",
        ATOM_HEAD + "<entry><id>http://arxiv.org/abs/cond-mat/0412498v3</id>"
        "<published>2004-12-19T16:18:24Z</published><title>Thermal\n  melting</title>"
        "<summary>  We present\nthe theory.\n</summary><author><name>A Del Maestro</name></author>"
        '<link href="http://arxiv.org/abs/cond-mat/0412498v3" rel="alternate" type="text/html"/>'
        '<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cond-mat.str-el"/>'
        '<arxiv:doi xmlns:arxiv="http://arxiv.org/schemas/atom">10.1103/PhysRevB.71.134509</arxiv:doi>'
        "</entry></feed>\n",
    )
    (paper,) = read_collection([path]).papers
    assert paper.doi == "10.1103/PhysRevB.71.134509"
    assert (paper.id, paper.title, paper.abstract, paper.authors, paper.year, paper.track, paper.venue) == (
        "cond-mat/0412498",
        "Thermal melting",
        "We present the theory.",
        ("A Del Maestro",),
        2004,
        "cond-mat.str-el",
        "arXiv",
    )
    assert paper.url == "http://arxiv.org/abs/cond-mat/0412498v3"


# --- files that are not what their names say; malformed records ---------------------------------


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "a.json",
            '{"title": "x"}',
            r"a\.json: JSON holding an object with keys 'title'; expected a list of "
            "OpenReview notes",
        ),
        ("a.json", "[1, 2]", r"a\.json:1: a JSON list of numbers; expected a list of OpenReview notes"),
        ("a.json", "[]", r"a\.json: JSON holding an empty list; expected"),
        (
            "a.json",
            '[{"abstract": "x"},\n {"abstract": ["no"]}]',
            r"a\.json:2: item \[1\]: 'abstract' must be a "
            "string, not a list",
        ),
        (
            "a.json",
            '[{"content": {"abstract": "x"}, "id": "1"},\n {"content": {"abstract": "y", "title": [1]}, '
            '"id": "2"}]',
            r"a\.json:2: note \[1\]: content 'title' must be a string, not a list",
        ),
        ("a.json", '[{"abstract": "x", "type": "book"}, {"content": {}}]', r"a\.json:1: item \[1\]"),
        ("a.json", '{"notes": [1]', r"a\.json:1: not valid JSON"),
        (
            "a.xml",
            "<html><body>Not found</body></html>",
            r"a\.xml:1: an XML document whose root is <html>, not an "
            "Atom feed; expected",
        ),
        ("a.xml", ATOM_HEAD + "<entry><id>x</id>", r"a\.xml:3: not well-formed XML"),
        ("a.xml", ATOM_HEAD + "</feed>", r"a\.xml: an Atom feed with no <entry>"),
        (
            "a.xml",
            ATOM_HEAD + "<entry><id>http://arxiv.org/api/errors#incorrect_id_format</id><summary>"
            "incorrect id format</summary></entry></feed>",
            r"a\.xml:3: the arXiv API answered with an error",
        ),
        ("a.xml", '<?xml version="1.0"?><!DOCTYPE f [<!ENTITY e "x">]><feed>&e;</feed>', r"a\.xml: refused"),
        (
            "a.bib",
            '{"this": "is JSON"}',
            r"a\.bib: holds no BibTeX entries; expected entries such as @article",
        ),
        (
            "a.bib",
            "@article{ok, abstract = {Fine.}}\n\n@article{broken,\n title = {Unclosed\n",
            r"a\.bib:3: not a "
            "readable BibTeX entry",
        ),
        (
            "a.bib",
            "@article{a, abstract = {One.}}\n@article{a, abstract = {Two.}}\n",
            r"a\.bib:2: not a readable",
        ),
        ("a.csv", 'title,abstract\nT,"unclosed\n', r"a\.csv:2: not a readable CSV row"),
        ("a.csv", "title,abstract\nT,A,extra\n", r"a\.csv:2: row has 3 fields, the header has 2"),
        ("a.csv", "title,abstract\n", r"a\.csv: no row has an abstract"),
        (
            "a.csv",
            "Title,title,abstract\nA,B,C\n",
            r"a\.csv:1: columns 'Title' and 'title' both read as 'title'",
        ),
        ("a.csv", b"title,abstract\nT,caf\xe9\n", r"a\.csv:2: not valid UTF-8"),
        # a field past Python's CSV limit, and abstracts past ours: said as what they likely mean
        (  # a quote left open runs the rows after it into one field
            "a.csv",
            'title,abstract\nT,"Open\n' + "T,word word\n" * 15_000,
            r"a\.csv:2: .*field runs past .* a quote left open",
        ),
        (
            "a.csv",
            'title,abstract\nT,"Open\n' + "T,word word\n" * 2_000 + 'T,end"\n',
            r"a\.csv:2: .*limit is 20,000\); is a quote left open",
        ),
        (
            "a.jsonl",
            '{"abstract": "' + "word " * 5_000 + '"}\n',
            r"a\.jsonl:1: .*limit is 20,000\); is this field not",
        ),
        (
            "a.txt",
            "Title\n\n" + "word " * 5_000 + "\n",
            r"a\.txt:3: .*limit is 20,000\); is a blank line missing",
        ),
    ],
)
def test_wrong_files_and_malformed_records_say_where_and_what(
    tmp_path: Path, name: str, content: str | bytes, message: str
) -> None:
    path = _write(tmp_path, name, content)
    with pytest.raises(DigestError, match=message.replace("a\\.", f"{tmp_path}/a\\.")):
        read_collection([path])


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.json", '{"not": "papers"}', ": JSON holding an object"),
        (
            "bad.bib",
            "@article{b,\n title = {Unclosed\n\n@article{c, abstract = {x}}\n",
            ":1: not a readable BibTeX",
        ),
    ],
)
def test_bad_file_stops_the_cli_with_one_line_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, message: str
) -> None:
    from generator.cli import main

    folder = tmp_path / "in"
    folder.mkdir()
    _write(folder, "good.csv", "title,abstract\nT,An abstract.\n")
    bad = _write(folder, name, content)
    docs, site = tmp_path / "docs", tmp_path / "site"
    code = main(
        [
            "build",
            str(folder),
            "--project",
            str(PROJECT_ROOT),
            "--docs-dir",
            str(docs),
            "--site-dir",
            str(site),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--columns",
            "title=Title",
        ]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {bad}{message}"), err
    assert not docs.exists() and not site.exists()


# --- the genuine exports in ../shared/samples -------------------------------------------------------


def _sample(folder: str) -> Path:
    found = sorted((SAMPLES / folder).glob("*")) if (SAMPLES / folder).is_dir() else []
    if not found:
        pytest.skip(f"../shared/samples/{folder} is not here")
    return found[0]


def test_miniconf_csv_sample() -> None:
    path = _sample("csv")
    collection = read_collection([path])
    # 104 rows; two (C2000, C2001) have "NA" (R's missing value) for an abstract.
    assert len(collection.papers) == 102
    assert any(
        "2 rows skipped, no abstract" in w and "(C2000)" in w and "(C2001)" in w for w in collection.warnings
    )
    first = collection.papers[0]
    assert (first.id, first.authors, first.track) == ("A1046", ("Lia Bozarth", "Ceren Budak"), "Full Paper")
    assert first.url == "https://ojs.aaai.org/index.php/ICWSM/article/view/18043"
    assert sum("\n" in p.abstract for p in collection.papers) == 20


def test_zotero_bibtex_sample() -> None:
    path = _sample("bibtex")
    collection = read_collection([path])
    assert len(collection.papers) == 216
    skipped = [w for w in collection.warnings if "skipped" in w]
    assert len(skipped) == 1 and "16 entries skipped, no abstract: bello_attention_2019," in skipped[0]
    assert any("'mildenhall_nerf_2020' gives 'doi' twice" in w for w in collection.warnings)
    by_id = {p.id: p for p in collection.papers}
    nerf = by_id["mildenhall_nerf_2020"]
    assert nerf.title == "NeRF: Representing Scenes as Neural Radiance Fields for View Synthesis"
    assert all("{" not in (p.title or "") and "\\" not in (p.title or "") for p in collection.papers)
    assert sum(p.venue == "arXiv" for p in collection.papers) == 70
    # Zotero writes the library's tags into ``keywords``: the reader's "Viewed" and arXiv's subjects.
    assert not any(p.author_keywords for p in collection.papers)
    assert by_id["cootes_active_1995"].tags == ("Viewed",)
    tags = {tag for p in collection.papers for tag in p.tags}
    assert {"Unreviewed", "Computer Science - Machine Learning"} <= tags


def test_arxiv_atom_sample() -> None:
    collection = read_collection([_sample("arxiv")])
    assert len(collection.papers) == 10 and not collection.warnings
    first = collection.papers[0]
    assert (first.id, first.authors, first.year, first.track) == (
        "1201.4869",
        ("Adrian Del Maestro",),
        2012,
        "cond-mat.mes-hall",
    )
    assert first.abstract.startswith(
        "As helium-4 is cooled below 2.17 K it undergoes a phase transition to a\n".replace("\n", " ")
    )


def test_zotero_csl_json_sample() -> None:
    path = _sample("csl_json")
    collection = read_collection([path])
    assert len(collection.papers) == 12
    assert collection.warnings == (
        f"{path}: 1 item skipped, no abstract: http://zotero.org/users/6749987/items/LFXXJ8JZ",
    )
    assert all(p.year and p.authors and p.title for p in collection.papers)


# --- property tests: untrusted files never crash a reader ----------------------------------------

READER_SUFFIXES = (".csv", ".tsv", ".bib", ".json", ".xml")
FIELD_TEXT = st.lists(
    st.one_of(
        st.text(max_size=15),
        st.sampled_from(
            [
                "{",
                "}",
                "\\",
                "$",
                "%",
                "&",
                "#",
                "_",
                "~",
                "^",
                "--",
                "``",
                "''",
                '"',
                ",",
                ";",
                "|",
                "\t",
                "\n",
                "\r\n",
                "\ufeff",
                "\\\\",
                "\\'",
                '{\\"o}',
                "\\url{",
                "$$",
                "\\(",
                "\\[",
                "@article{",
                " and ",
                "others",
                "<",
                "&amp;",
                "]]>",
                "<!--",
                "\x0b",
                "\x00",
            ]
        ),
    ),
    max_size=10,
).map("".join)


def _only_clear_errors(path: Path) -> None:
    try:
        collection = read_collection([path])
    except DigestError as error:
        assert str(path) in str(error)
        assert "\n" not in str(error).split(": ", 1)[0]
    else:
        assert collection.papers and all(p.abstract.strip() for p in collection.papers)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(READER_SUFFIXES), st.binary(max_size=300))
def test_arbitrary_bytes_fail_only_with_the_file_named(suffix: str, content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(content)
        _only_clear_errors(path)


def _raw_files(title: str, abstract: str, author: str) -> dict[str, str]:
    """Each format with the text put in as it is, unescaped: well-formed or not, depending on it."""
    return {
        "raw.csv": f"title,abstract,authors\n{title},{abstract},{author}\n",
        "raw.tsv": f"title\tabstract\tauthors\n{title}\t{abstract}\t{author}\n",
        # Reference managers' shapes: Zotero's headers, EndNote's tabs and "//", JabRef's Custom1.
        "zotero.csv": "Key,Title,Author,Abstract Note,Manual Tags\n"
        f"K1,{title},{author}; {author},{abstract},{title}\n",
        "endnote.txt": "Reference Type\tTitle\tAuthor\tAbstract\n"
        f"Journal Article\t{title}\t{author}//{author}\t{abstract}\n",
        "jabref.csv": "BibliographyType,Identifier,Author,Title,Custom1,Custom3\n"
        f"7,{title},{author} and {author},{title},{abstract},{author}\n",
        "raw.bib": f"@article{{key,\n title = {{{title}}},\n author = {{{author}}},\n"
        f" abstract = {{{abstract}}}\n}}\n",
        "raw.xml": ATOM_HEAD + f"<entry><id>http://arxiv.org/abs/1</id><title>{title}</title>"
        f"<summary>{abstract}</summary><author><name>{author}</name></author></entry></feed>",
        "csl.json": json.dumps(
            [
                {
                    "type": "article",
                    "title": title,
                    "abstract": abstract,
                    "author": [{"family": author}],
                    "issued": {"raw": title},
                }
            ]
        ),
        "notes.json": json.dumps(
            [
                {
                    "id": title,
                    "content": {
                        "title": {"value": title},
                        "abstract": abstract,
                        "authors": [author],
                        "pdf": title,
                    },
                }
            ]
        ),
    }


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FIELD_TEXT, FIELD_TEXT, FIELD_TEXT)
def test_arbitrary_field_text_fails_only_with_the_file_named(title: str, abstract: str, author: str) -> None:
    papers = [
        Paper(
            id="a",
            title=title,
            abstract=abstract or "x",
            authors=(author,) if author.strip() else (),
            source=HERE,
        )
    ]
    with tempfile.TemporaryDirectory() as folder:
        files = _raw_files(title, abstract, author)
        files.update({name: write(papers) for name, write in FORMATS.items()})
        for name, content in files.items():
            path = Path(folder) / name
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
            _only_clear_errors(path)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FIELD_TEXT.filter(lambda t: t.strip()), FIELD_TEXT.filter(lambda t: t.strip()))
def test_arbitrary_text_reads_back_from_structured_formats(title: str, abstract: str) -> None:
    """What CSV and the JSON formats carry comes back exactly (titles on one line)."""
    # Files are read with their line ends as "\n" and must not hold NUL.
    title, abstract = (
        text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n") for text in (title, abstract)
    )
    assume(abstract.strip() and title.strip())
    papers = [Paper(id="a", title=title, abstract=abstract, source=HERE)]
    with tempfile.TemporaryDirectory() as folder:
        for name in ("papers.csv", "zotero.json", "openreview-v1.json", "openreview-v2.json"):
            path = Path(folder) / name
            path.write_text(FORMATS[name](papers), encoding="utf-8")
            (paper,) = read_collection([path]).papers
            assert (paper.title, paper.abstract) == (one_line(title), abstract.strip()), name


def test_csv_names_unread_columns_when_no_authors_or_title_column_was_found(tmp_path: Path) -> None:
    path = tmp_path / "odd.csv"
    path.write_text(
        "Paper Title;Summary;Writers\nA title;We study graph neural networks for node classification "
        "and show that depth helps on large graphs.;Ann Lee\n",
        encoding="utf-8",
    )
    collection = read_collection([path])
    assert collection.papers[0].title == "A title" and collection.papers[0].authors == ()
    (warning,) = collection.warnings
    assert (
        "no authors column found" in warning
        and "'Writers'" in warning
        and "--columns authors=NAME" in warning
    )
    with_columns = read_collection([path], options=ReadOptions(columns=(("authors", "Writers"),)))
    assert with_columns.papers[0].authors == ("Ann Lee",) and not with_columns.warnings


def test_jsonl_says_when_the_abstract_is_there_but_not_text(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"abstract": 42}\n', encoding="utf-8")
    with pytest.raises(DigestError, match=r"p.jsonl:1: 'abstract' must be a non-empty string, found int"):
        read_collection([path])


# Reference managers' CSV exports, each in the shape its tool writes (generator/sources/table.py says
# where each column set comes from): read without --columns.
ABSTRACT_ONE = "We study graph neural networks for node classification and show that depth helps."
ABSTRACT_TWO = "Reward models steer language models at decoding time, at a small cost in fluency."


def _csv_line(cells: Sequence[str], delimiter: str = ",") -> str:
    import csv
    import io

    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_ALL).writerow(cells)
    return out.getvalue()


def test_zotero_csv_export_reads_without_columns(tmp_path: Path) -> None:
    header = [
        "Key", "Item Type", "Publication Year", "Author", "Title", "Publication Title", "ISBN", "ISSN",
        "DOI", "Url", "Abstract Note", "Date", "Date Added", "Date Modified", "Access Date", "Pages",
        "Num Pages", "Issue", "Volume", "Number Of Volumes", "Journal Abbreviation", "Short Title",
        "Series", "Series Number", "Series Text", "Series Title", "Publisher", "Place", "Language",
        "Rights", "Type", "Archive", "Archive Location", "Library Catalog", "Call Number", "Extra",
        "Notes", "File Attachments", "Link Attachments", "Manual Tags", "Automatic Tags", "Editor",
        "Conference Name",
    ]  # fmt: skip

    def row(**values: str) -> str:
        return _csv_line([values.get(name, "") for name in header])

    text = "\ufeff" + _csv_line(header)  # Zotero writes a BOM
    text += row(
        **{
            "Key": "ABCD2345", "Item Type": "conferencePaper", "Publication Year": "2024",
            "Author": "Lovelace, Ada; de la Cruz, Juan Carlos", "Title": "Deep graphs",
            "Publication Title": "Proceedings of ICML", "DOI": "https://doi.org/10.1000/xyz", "Url": "",
            "Abstract Note": ABSTRACT_ONE, "Manual Tags": "graphs; depth",
            "Automatic Tags": "Computer Science - Machine Learning; graphs",
        }
    )  # fmt: skip
    text += row(
        **{
            "Key": "EFGH6789", "Item Type": "journalArticle", "Publication Year": "2023",
            "Author": "Turing, Alan", "Title": "Reward decoding", "Url": "https://example.org/2",
            "DOI": "not a DOI",
            "Abstract Note": ABSTRACT_TWO,
        }
    )  # fmt: skip
    text += row(**{"Key": "NOABSTRA", "Title": "A book without an abstract"})
    path = _write(tmp_path, "Exported Items.csv", text)
    collection = read_collection([path])
    one, two = collection.papers
    assert (one.id, one.title, one.abstract, one.year, one.venue) == (
        "ABCD2345",
        "Deep graphs",
        ABSTRACT_ONE,
        2024,
        "Proceedings of ICML",
    )
    assert one.authors == ("Ada Lovelace", "Juan Carlos de la Cruz")
    assert one.url == "https://doi.org/10.1000/xyz"  # the DOI, as no Url is given
    assert (one.doi, two.doi) == ("10.1000/xyz", None)
    # Manual and automatic tags are the reader's tags, not the authors' keywords (issue 37).
    assert one.tags == ("graphs", "depth", "Computer Science - Machine Learning")
    assert one.author_keywords == ()
    assert (two.authors, two.url) == (("Alan Turing",), "https://example.org/2")  # one name, not two
    assert any("1 row skipped" in w and "(NOABSTRA)" in w for w in collection.warnings)


def test_endnote_tab_delimited_export_reads_without_columns(tmp_path: Path) -> None:
    header = [
        "Reference Type", "Author", "Year", "Title", "Secondary Author", "Secondary Title",
        "Place Published", "Publisher", "Volume", "Number", "Pages", "Keywords", "Abstract", "Notes",
        "URL", "Electronic Resource Number", "Record Number",
    ]  # fmt: skip
    rows = [
        ["Journal Article", "Lovelace, A.//Turing, A. M.", "2024", "Deep graphs", "", "Machine Learning",
         "", "", "3", "", "1-9", "graphs//depth", ABSTRACT_ONE, "", "", "10.1000/xyz", "12"],
        ["Conference Proceedings", "Ada Lovelace; Alan Turing", "2023", "Reward decoding", "Hopper, G",
         "NeurIPS", "", "", "", "", "", "decoding", ABSTRACT_TWO, "", "https://example.org/2", "", "13"],
    ]  # fmt: skip
    text = "".join(_csv_line(cells, "\t") for cells in [header, *rows])
    path = _write(tmp_path, "endnote.tsv", text.replace('"', ""))  # EndNote quotes nothing
    one, two = read_collection([path]).papers
    assert (one.title, one.year, one.venue, one.url) == (
        "Deep graphs",
        2024,
        "Machine Learning",
        "https://doi.org/10.1000/xyz",
    )
    assert one.authors == ("A. Lovelace", "A. M. Turing") and one.author_keywords == ("graphs", "depth")
    assert (two.authors, two.venue, two.url) == (
        ("Ada Lovelace", "Alan Turing"),
        "NeurIPS",
        "https://example.org/2",
    )
    # EndNote saves it as .txt: read as the table it is, not as a name line and abstracts.
    as_text = _write(tmp_path, "endnote.txt", text.replace('"', ""))
    assert list(read_collection([as_text]).papers) == [
        replace(paper, source=replace(paper.source, path=as_text)) for paper in (one, two)
    ]


def test_jabref_openoffice_csv_export_reads_without_columns(tmp_path: Path) -> None:
    # JabRef's openoffice-csv layout: the header names Custom1-5; rows put the abstract in Custom1,
    # the comment in Custom2, the keywords in Custom3, the file in Custom4 and the key in Custom5.
    header = (
        "BibliographyType,ISBN,Identifier,Author,Title,Journal,Volume,Number,Month,Pages,Year,Address,"
        "Note,URL,Booktitle,Chapter,Edition,Series,Editor,Publisher,ReportType,Howpublished,Institution,"
        "Organizations,School,Annote,Custom1,Custom2,Custom3,Custom4,Custom5\n"
    )

    def row(kind: str, key: str, author: str, title: str, journal: str, year: str, url: str, book: str,
            abstract: str, keywords: str) -> str:  # fmt: skip
        cells = [kind, "", key, author, title, journal, "", "", "", "", year, "", "", url, book]
        cells += [""] * 11 + [abstract, "", keywords, "", ""]
        return _csv_line(cells).replace('"7"', "7")

    text = header + row(
        "7", "lovelace2024", "Lovelace, Ada; Turing, Alan", "Deep graphs", "Machine Learning", "2024",
        "", "", ABSTRACT_ONE, "graphs, depth",
    ) + row(
        "1", "turing2023", "Turing, Alan", "Reward decoding", "", "2023", "https://example.org/2",
        "Proc. NeurIPS", ABSTRACT_TWO, "decoding",
    )  # fmt: skip
    path = _write(tmp_path, "jabref.csv", text)
    one, two = read_collection([path]).papers
    assert (one.id, one.abstract, one.authors, one.venue, one.year) == (
        "lovelace2024",
        ABSTRACT_ONE,
        ("Ada Lovelace", "Alan Turing"),
        "Machine Learning",
        2024,
    )
    assert one.author_keywords == ("graphs, depth",)  # JabRef keeps BibTeX's comma list as one cell
    assert (two.id, two.authors, two.venue, two.url) == (
        "turing2023",
        ("Alan Turing",),
        "Proc. NeurIPS",
        "https://example.org/2",
    )


def test_jabref_bibtex_style_and_mendeley_tables_read_without_columns(tmp_path: Path) -> None:
    jabref = _write(
        tmp_path,
        "jabref-table.csv",
        "Identifier,Type,Author,Title,Journal,Year,Abstract,Keywords,URL,DOI\n"
        + _csv_line(
            ["k1", "article", "Müller, Hans and de la Cruz, Juan", "Deep graphs", "JMLR", "2024",
             ABSTRACT_ONE, "graphs; depth", "", "10.1/x"]
        ),
    )  # fmt: skip
    (paper,) = read_collection([jabref]).papers
    assert (paper.id, paper.authors, paper.venue, paper.url) == (
        "k1",
        ("Hans Müller", "Juan de la Cruz"),
        "JMLR",
        "https://doi.org/10.1/x",
    )
    mendeley = _write(
        tmp_path,
        "mendeley.csv",
        "Title,Authors,Abstract,Year,Source,DOI,URL,Tags\n"
        + _csv_line(["Deep graphs", "Ada Lovelace, Alan Turing", ABSTRACT_ONE, "2024", "ICML", "",
                     "https://example.org/1", "graphs;depth"]),
    )  # fmt: skip
    (paper,) = read_collection([mendeley]).papers
    assert (paper.authors, paper.venue, paper.url, paper.tags, paper.author_keywords) == (
        ("Ada Lovelace", "Alan Turing"),  # "First Last" names, comma-separated, stay as they are
        "ICML",
        "https://example.org/1",
        ("graphs", "depth"),  # a library's "Tags" are the reader's
        (),
    )


NAME_WORD = st.text(alphabet=st.characters(categories=["Lu", "Ll"]), min_size=1, max_size=8)
PERSON = st.tuples(st.lists(NAME_WORD, min_size=1, max_size=2), st.lists(NAME_WORD, min_size=1, max_size=2))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["zotero", "endnote", "jabref", "miniconf"]),
    st.lists(PERSON, min_size=1, max_size=4),
    FIELD_TEXT,
)
def test_authors_in_each_export_style_read_back_given_name_first(
    style: str, people: list[tuple[list[str], list[str]]], title: str
) -> None:
    """Whatever the names, each export's way of writing an author list reads back as the same
    people, "Given Family", and the rest of the row (any title) fails only with the file named."""
    words = [word.lower() for given, family in people for word in given + family]
    assume(not {"and", "jr", "sr"} & set(words))
    assume(not {"II", "III", "IV"} & {" ".join(given) for given, _ in people})  # "King, III" is a suffix
    written = {
        "zotero": "; ".join(f"{' '.join(f)}, {' '.join(g)}" for g, f in people),
        "endnote": "//".join(f"{' '.join(f)}, {' '.join(g)}" for g, f in people),
        "jabref": " and ".join(f"{' '.join(f)}, {' '.join(g)}" for g, f in people),
        "miniconf": "|".join(f"{' '.join(g)} {' '.join(f)}" for g, f in people),
    }[style]
    header = {
        "zotero": "Key,Title,Author,Abstract Note",
        "endnote": "Reference Type,Title,Author,Abstract",
        "jabref": "BibliographyType,Title,Author,Abstract",
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.csv"
        first = header.get(style, "id,title,authors,abstract")
        path.write_text(first + "\n" + _csv_line(["x1", "Title", written, ABSTRACT_ONE]), encoding="utf-8")
        (paper,) = read_collection([path]).papers
        assert paper.authors == tuple(f"{' '.join(g)} {' '.join(f)}" for g, f in people)
        path.write_text(first + "\n" + _csv_line(["x1", title, written, ABSTRACT_ONE]), encoding="utf-8",
                        errors="surrogatepass")  # fmt: skip
        _only_clear_errors(path)


def test_a_given_name_that_looks_like_a_numeral_is_a_given_name(tmp_path: Path) -> None:
    text = "Key,Title,Author,Abstract Note\n" + _csv_line(
        ["k1", "T", "Wang, Xi; Smith, V; King, Jr.; Gates, III", ABSTRACT_ONE]
    )
    (paper,) = read_collection([_write(tmp_path, "zotero.csv", text)]).papers
    assert paper.authors == ("Xi Wang", "V Smith", "King, Jr.", "Gates, III")


# --- the reader's tags are not the authors' keywords (issue 37) ----------------------------------

ZOTERO_FILE = "file = {Full Text PDF:C\\:\\\\Users\\\\a\\\\Zotero\\\\x.pdf:application/pdf}"


def _bib_entry(key: str, extra: str) -> str:
    abstract = f"{ABSTRACT_ONE} ({key})"  # each its own: a copy of an abstract is dropped as a duplicate
    return f"@article{{{key},\n\ttitle = {{T {key}}},\n\tabstract = {{{abstract}}},\n{extra}\n}}\n"


def test_reference_managers_tags_are_tags_and_publishers_keywords_are_the_authors(tmp_path: Path) -> None:
    zotero = _bib_entry(
        "smith_graphs_2020", "\tkeywords = {Unreviewed, Computer Science - Machine Learning},"
    )
    zotero += _bib_entry("lee_depth_2021", f"\tkeywords = {{Viewed}},\n\t{ZOTERO_FILE},")
    mendeley = _bib_entry(
        "k1", "keywords = {graph neural networks,to-read,Depth},\nmendeley-tags = {to-read,depth}"
    )
    jabref = _bib_entry("k2", "keywords = {graph neural networks},\ngroups = {Thesis, Project A}")
    acm = _bib_entry("k3", "keywords = {graph neural networks, depth}")
    read = {
        name: read_collection([_write(tmp_path, f"{name}.bib", text)]).papers
        for name, text in {"zotero": zotero, "mendeley": mendeley, "jabref": jabref, "acm": acm}.items()
    }
    # Zotero (its attachments name a MIME type) writes every tag of the library into keywords.
    assert [(p.author_keywords, p.tags) for p in read["zotero"]] == [
        ((), ("Unreviewed", "Computer Science - Machine Learning")),
        ((), ("Viewed",)),
    ]
    ((mendeley_paper,), (jabref_paper,), (acm_paper,)) = read["mendeley"], read["jabref"], read["acm"]
    assert (mendeley_paper.author_keywords, mendeley_paper.tags) == (
        ("graph neural networks",),
        ("to-read", "Depth"),
    )
    assert (jabref_paper.author_keywords, jabref_paper.tags) == (
        ("graph neural networks",),
        ("Thesis", "Project A"),
    )
    assert (acm_paper.author_keywords, acm_paper.tags) == (("graph neural networks", "depth"), ())


ZOTERO_CSV_EXPORTS = sorted((PROJECT_ROOT.parent / "_exports" / "kw").glob("zotero_*.csv"))
"""Real Zotero CSV exports gathered from public repositories, kept outside the repository (see
benchmarks/notes/input-formats.md); the test skips without them."""


@pytest.mark.skipif(not ZOTERO_CSV_EXPORTS, reason="no real Zotero CSV exports in ../_exports/kw")
@pytest.mark.parametrize("path", ZOTERO_CSV_EXPORTS, ids=lambda path: path.name)
def test_real_zotero_csv_exports_give_tags_not_keywords(path: Path) -> None:
    import csv

    collection = read_collection([path])
    with path.open(encoding="utf-8-sig", newline="") as file:
        rows = {row["Key"]: row for row in csv.DictReader(file)}
    assert collection.papers
    for paper in collection.papers:
        row = rows[paper.id]
        written = [one_line(t) for c in ("Manual Tags", "Automatic Tags") for t in row.get(c, "").split(";")]
        assert paper.author_keywords == ()
        assert set(paper.tags) == {t for t in written if t} and len(paper.tags) == len(set(paper.tags))


KEYWORD_TEXT = st.text(alphabet=st.characters(categories=["L", "N", "Zs", "Pd"]), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(KEYWORD_TEXT, max_size=5),
    st.lists(KEYWORD_TEXT, max_size=3),
    st.lists(KEYWORD_TEXT, max_size=3),
    st.booleans(),
)
def test_bibtex_keywords_are_split_into_authors_keywords_and_tags(
    keywords: list[str], mendeley_tags: list[str], groups: list[str], zotero: bool
) -> None:
    """Whatever the keywords, every one is read either as the authors' or as a tag, never both, and
    no tag is an author's keyword."""
    assume(all("," not in k and ";" not in k for k in keywords + mendeley_tags + groups))
    fields = [f"keywords = {{{', '.join(keywords)}}}", f"mendeley-tags = {{{','.join(mendeley_tags)}}}"]
    fields.append(f"groups = {{{', '.join(groups)}}}")
    if zotero:
        fields.append(ZOTERO_FILE)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.bib"
        path.write_text(_bib_entry("k", ",\n".join(fields) + ","), encoding="utf-8")
        (paper,) = read_collection([path]).papers
    given_words = [one_line(k) for k in keywords if one_line(k)]
    assert not set(paper.author_keywords) & set(paper.tags)
    assert set(paper.author_keywords) | set(paper.tags) >= set(given_words)
    if zotero:
        assert paper.author_keywords == ()
    tagged = {one_line(t).casefold() for t in mendeley_tags if one_line(t)}
    assert all(k.casefold() not in tagged for k in paper.author_keywords)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(KEYWORD_TEXT, max_size=4), st.lists(KEYWORD_TEXT, max_size=4), st.lists(KEYWORD_TEXT, max_size=3)
)
def test_zotero_csv_and_csl_json_tags_never_become_authors_keywords(
    manual: list[str], automatic: list[str], keywords: list[str]
) -> None:
    """Any tags of a Zotero CSV row or a CSL-JSON item are read as tags, each once, and only a
    table's own keywords column as the authors' keywords."""
    assume(all(not set(";|,/") & set(t) for t in manual + automatic + keywords))
    # A cell holding only "NaN" or "NA" is what pandas and R write for an empty one: read as empty, by
    # design (table.MISSING_VALUES), so a lone tag spelled so is not this property's business.
    assume(all("; ".join(tags).strip() not in MISSING_VALUES for tags in (manual, automatic, keywords)))
    header = ["Key", "Item Type", "Title", "Abstract Note", "Manual Tags", "Automatic Tags", "Keywords"]
    row = [
        "K1",
        "journalArticle",
        "T",
        ABSTRACT_ONE,
        "; ".join(manual),
        "; ".join(automatic),
        "; ".join(keywords),
    ]
    item = {
        "id": "a",
        "type": "article",
        "title": "T",
        "abstract": ABSTRACT_ONE,
        "keyword": ", ".join(manual),
    }
    with tempfile.TemporaryDirectory() as folder:
        table = Path(folder) / "zotero.csv"
        table.write_text(_csv_line(header) + _csv_line(row), encoding="utf-8")
        csl = Path(folder) / "items.json"
        csl.write_text(json.dumps([item]), encoding="utf-8")
        (from_table,) = read_collection([table]).papers
        (from_csl,) = read_collection([csl]).papers
    words = lambda texts: tuple(dict.fromkeys(w for t in texts if (w := one_line(t))))  # noqa: E731
    assert from_table.tags == words(manual + automatic)
    assert from_table.author_keywords == words(keywords)
    assert (from_csl.tags, from_csl.author_keywords) == (words(manual), ())
