from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.errors import DigestError, InputError
from generator.sources import ReadOptions, read_collection
from tests.conftest import PROJECT_ROOT, write_text_input


def test_bundled_abstracts_are_the_icml_digest() -> None:
    collection = read_collection([PROJECT_ROOT / "abstracts"])
    assert collection.name == "ICML 2024 Papers"
    assert len(collection.papers) == 57
    assert all(paper.title is None for paper in collection.papers)
    assert collection.papers[0].abstract.startswith("As the number of accepted papers")
    assert collection.papers[0].source.line == 3


def test_text_format_blocks_crlf_bom_and_multiline(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(
        "\ufeffMy Papers\r\n\r\nFirst abstract line one\r\nline two.\r\n\r\n\r\nSecond abstract.\r\n".encode()
    )
    collection = read_collection([path])
    assert collection.name == "My Papers"
    assert [p.abstract for p in collection.papers] == [
        "First abstract line one\nline two.",
        "Second abstract.",
    ]
    assert [p.source.line for p in collection.papers] == [3, 7]


def test_ids_are_stable_hashes_of_the_abstract(tmp_path: Path) -> None:
    one = read_collection(
        [write_text_input(tmp_path / "a.txt", "X", ["Alpha beta gamma delta.", "Other one."])]
    )
    two = read_collection(
        [write_text_input(tmp_path / "b.txt", "X", ["New paper first.", "Alpha beta gamma delta."])]
    )
    assert one.papers[0].id == two.papers[1].id
    assert one.papers[0].id != one.papers[1].id


@pytest.mark.parametrize(
    ("content", "line", "fragment"),
    [
        (b"", None, "empty"),
        (b"Just a header\n", 1, "no abstracts"),
        (
            b"This is clearly an abstract line\nthat continues on a second line.\n\nAnother.\n",
            1,
            "first line",
        ),
        (b"Header\n\nGood abstract.\n\nBad \xff byte here.\n", 5, "UTF-8"),
        (b"\x00\x01\x02binary", None, "binary"),
    ],
)
def test_malformed_text_files_name_file_and_line(tmp_path: Path, content: bytes, line, fragment: str) -> None:
    path = tmp_path / "broken.txt"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        read_collection([path])
    assert caught.value.path == path
    assert caught.value.line == line
    assert fragment in str(caught.value)
    assert str(path) in str(caught.value)


def test_jsonl_reads_fields_and_keeps_ids(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    rows = [
        {
            "id": "abc/1",
            "title": "A  Title",
            "authors": ["Ann", "Bo"],
            "abstract": "Text one.",
            "url": "https://x",
            "venue": "ICML",
            "year": 2024,
            "keywords": ["k1"],
            "labels": ["ignored"],
        },
        {"id": 7, "abstract": "Text two."},
        {"abstract": "Text three."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    collection = read_collection([path])
    first, second, third = collection.papers
    assert (first.id, first.title, first.authors, first.year, first.author_keywords) == (
        "abc/1",
        "A Title",
        ("Ann", "Bo"),
        2024,
        ("k1",),
    )
    assert second.id == "7"
    assert len(third.id) == 12
    assert collection.name == "Paper Digest"


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ('{"abstract": "ok"', "not valid JSON"),
        ('{"title": "no abstract"}', "missing 'abstract'"),
        ('["a list"]', "JSON object"),
        ('{"abstract": "x", "authors": "a", "year": "soon"}', "'year'"),
        ('{"abstract": "x", "authors": [1, 2]}', "'authors'"),
    ],
)
def test_malformed_jsonl_names_the_line(tmp_path: Path, line: str, fragment: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"abstract": "fine"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_collection([path])
    assert caught.value.line == 2
    assert fragment in str(caught.value)


def test_folders_mix_formats_and_duplicates_warn(tmp_path: Path) -> None:
    write_text_input(tmp_path / "a.txt", "Mixed", ["Shared abstract text here.", "Only in text."])
    (tmp_path / "b.jsonl").write_text(json.dumps({"abstract": "Shared  abstract text here."}) + "\n")
    (tmp_path / "notes.md").write_text("ignored: not an input format")
    collection = read_collection([tmp_path])
    assert len(collection.papers) == 2
    duplicates = [w for w in collection.warnings if "same abstract" in w]
    assert len(duplicates) == 1
    assert "a.txt:3" in duplicates[0] and "b.jsonl:1" in duplicates[0]


def test_many_duplicates_give_one_warning_with_the_count_the_first_places_and_the_kept_copy(
    tmp_path: Path,
) -> None:
    abstracts = [f"Abstract number {i} about a distinct matter, with enough words to pass." for i in range(7)]
    write_text_input(tmp_path / "a.txt", "Twice", abstracts)
    write_text_input(tmp_path / "b.txt", "Twice", abstracts)  # the same file exported again
    collection = read_collection([tmp_path])
    assert len(collection.papers) == 7
    assert all(p.source.path.name == "a.txt" for p in collection.papers)
    duplicates = [w for w in collection.warnings if "left out as duplicates" in w]
    assert len(duplicates) == 1, collection.warnings
    warning = duplicates[0]
    assert warning.startswith("7 papers left out as duplicates")
    assert "the first in input order" in warning and "kept" in warning
    # The first five copies by place, each with the copy kept; the other two only counted.
    assert f"{tmp_path / 'b.txt'}:3 (same as {tmp_path / 'a.txt'}:3)" in warning
    assert f"{tmp_path / 'b.txt'}:11 (same as {tmp_path / 'a.txt'}:11)" in warning
    assert "b.txt:13" not in warning and warning.endswith("and 2 more")


def test_of_duplicates_the_copy_with_a_title_and_authors_is_kept_at_the_first_place(tmp_path: Path) -> None:
    abstracts = [f"Abstract number {i} about a distinct matter, with enough words to pass." for i in range(3)]
    write_text_input(tmp_path / "a.txt", "Bare", abstracts)
    (tmp_path / "b.csv").write_text(
        f'title,authors,abstract\nThe middle one,Ada Lovelace,"{abstracts[1]}"\n', encoding="utf-8"
    )
    collection = read_collection([tmp_path])
    assert [p.title for p in collection.papers] == [None, "The middle one", None]
    assert collection.papers[1].authors == ("Ada Lovelace",)
    (warning,) = [w for w in collection.warnings if "left out as duplicates" in w]
    assert f"{tmp_path / 'a.txt'}:5 (same as {tmp_path / 'b.csv'}:2)" in warning


def test_missing_path_and_conflicting_names(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_collection([tmp_path / "nope.txt"])
    write_text_input(tmp_path / "a.txt", "One", ["Abstract one."])
    write_text_input(tmp_path / "b.txt", "Two", ["Abstract two."])
    with pytest.raises(DigestError, match="different collections"):
        read_collection([tmp_path])
    assert read_collection([tmp_path], name="Both").name == "Both"


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "x", "abstract": "one"}\n{"id": "x", "abstract": "two"}\n')
    with pytest.raises(InputError, match="already used"):
        read_collection([path])


def test_abstract_length_limits(tmp_path: Path) -> None:
    path = write_text_input(tmp_path / "a.txt", "X", ["Too short.", "word " * 30])
    collection = read_collection([path])
    assert len(collection.papers) == 2
    assert any("a.txt:3" in w and "only 2 words" in w for w in collection.warnings)
    huge = write_text_input(tmp_path / "b.txt", "X", ["fine abstract " * 10, "x" * 1_000_000])
    with pytest.raises(InputError, match="1,000,000 characters") as caught:
        read_collection([huge])
    assert caught.value.line == 5


def _inputs_with_unreadable_records(folder: Path) -> dict[str, Path]:
    """Good papers beside records of every kind that cannot be read, and one unreadable file."""
    good = "We study graph neural networks for node classification, case {}, on large graphs."
    table = folder / "a-table.csv"
    table.write_text(
        "id,abstract,year\n"
        f'c1,"{good.format(1)}",2024\n'
        f'c2,"{good.format(2)}",2024,extra\n'  # one field too many
        f'c3,"{good.format(3)}",soon\n'  # a year that is no number
        f'c4,"{good.format(4)}",2023\n',
        encoding="utf-8",
    )
    lines = folder / "lines.jsonl"
    lines.write_text(
        json.dumps({"id": "j1", "abstract": good.format(5)})
        + "\n{not json\n"
        + json.dumps({"id": "c1", "abstract": good.format(6)})  # an id already used
        + "\n",
        encoding="utf-8",
    )
    binary = folder / "broken.bib"
    binary.write_bytes(b"\x00\x01 not text")
    return {"table": table, "lines": lines, "binary": binary}


def test_keep_going_reads_the_readable_records_and_names_every_other(tmp_path: Path) -> None:
    files = _inputs_with_unreadable_records(tmp_path)
    with pytest.raises(InputError) as strict:  # the default: the first problem stops everything
        read_collection([tmp_path])
    assert (strict.value.path, strict.value.line) == (files["table"], 3)

    collection = read_collection([tmp_path], options=ReadOptions(keep_going=True))
    assert [p.id for p in collection.papers] == ["c1", "c4", "j1"]
    table, lines, binary = files["table"], files["lines"], files["binary"]
    # In input order, the checks of the whole collection (ids) last.
    assert [s.split(": ", 1)[0] for s in collection.skipped] == [
        f"{table}:3",
        f"{table}:4",
        str(binary),
        f"{lines}:2",
        f"{lines}:3",
    ]
    assert "row has 4 fields" in collection.skipped[0] and "'year' must be a number" in collection.skipped[1]
    assert "binary file" in collection.skipped[2] and "not valid JSON" in collection.skipped[3]
    assert "id 'c1' is already used" in collection.skipped[4]


def test_keep_going_with_nothing_readable_still_stops_and_says_why(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n[1]\n", encoding="utf-8")
    with pytest.raises(DigestError, match=r"no abstracts found .* 2 records could not be read") as caught:
        read_collection([bad], options=ReadOptions(keep_going=True))
    assert f"{bad}:1: not valid JSON" in str(caught.value) and f"{bad}:2: expected a JSON object" in str(
        caught.value
    )


def test_keep_going_reads_the_rows_around_a_quote_never_closed(tmp_path: Path) -> None:
    good = "Abstract number {} about graph neural networks and their depth."
    table = tmp_path / "papers.csv"
    table.write_text(
        "id,title,abstract\n"
        f'c1,One,"{good.format(1)}"\n'
        f'c2,Two,"{good.format(2)} "quoted" words\n'  # the quote before the abstract never closes
        f'c3,Three,"{good.format(3)}"\n'
        f'c4,Four,"{good.format(4)}\n',  # nor does the last row's
        encoding="utf-8",
    )
    with pytest.raises(InputError) as strict:
        read_collection([table])
    assert strict.value.line == 3 and "not a readable CSV row" in str(strict.value)
    collection = read_collection([table], options=ReadOptions(keep_going=True))
    assert [p.id for p in collection.papers] == ["c1", "c3"]
    assert [s.split(": ", 1)[0] for s in collection.skipped] == [f"{table}:3", f"{table}:5"]
