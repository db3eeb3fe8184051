"""Readable text for Material's search results, which show a page's indexed text as it is.

Formulas in the index are TeX in arithmatex's delimiters (``\\(3.1\\times\\)``), which a result shows
raw. Here they become plain text that keeps TeX's command names as words (``3.1 times``): the
search separator already splits TeX at backslashes, braces, ``^`` and ``_``, so a query matches
the same words as before (``delta`` still finds ``\\delta``). Titles are treated the same way.
"""

from __future__ import annotations

import re
from typing import Any

_INDEXED_MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_WRAPPER = re.compile(r"\\(?:text[a-z]*|math[a-z]*|operatorname|bm|boldsymbol|emph|mbox|hbox)\*?\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)\*?|\\(.)", re.S)
_SPACING = {
    ",",
    ";",
    ":",
    "!",
    " ",
    "quad",
    "qquad",
    "left",
    "right",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "displaystyle",
}


def readable_tex(formula: str) -> str:
    """A formula as plain text: wrappers unwrapped, commands as their names, braces dropped."""
    text = formula
    for _ in range(3):  # nested wrappers
        text = _WRAPPER.sub(r"\1", text)

    def command(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in _SPACING or name == "\\":
            return " "
        return f" {name} " if match.group(1) else name

    text = _COMMAND.sub(command, text).replace("{", "").replace("}", "")
    text = re.sub(r"\s+([_^)\]])", r"\1", text)
    text = re.sub(r"([_^(\[])\s+", r"\1", text)
    return " ".join(text.split())


def readable_math(text: str) -> str:
    """``text`` with each ``\\(…\\)`` and ``\\[…\\]`` formula as ``readable_tex``."""
    return _INDEXED_MATH.sub(lambda m: readable_tex(m.group(1) or m.group(2) or ""), text)


_PAPER_META = re.compile(r"^(<p>\s*(?:Authors|Venue|Track|Link): (?:(?!</p>|¶).)*?)\s*</p>\s*<p>", re.S)
"""A paper page's first paragraph (authors, venue, link) and the opening of the next (the abstract)."""


def readable_search_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A search index entry with its title and text readable; the same entry when it holds no TeX
    (so applying it twice changes nothing).

    A paper's authors, venue and link are joined to its abstract with " ¶ ": Material shows only the
    paragraphs of a result that hold a match, and a result should name its authors
    (javascripts/reader.js shows them on a line of their own)."""
    shaped = dict(entry)
    text = entry.get("text")
    if isinstance(text, str) and "\\" in text:
        text = shaped["text"] = readable_math(text)
    if isinstance(text, str):
        shaped["text"] = _PAPER_META.sub(r"\1 ¶ ", text, count=1)
    title = entry.get("title")
    if isinstance(title, str) and "\\" in title:
        shaped["title"] = readable_tex(readable_math(title))
    return shaped
