"""What the search index reads of a page (``generator.finish.search_index``), and readable formulas.

Formulas in a page are TeX in arithmatex's delimiters (``\\(3.1\\times\\)``), which a search result
would show raw. Here they become plain text that keeps TeX's command names as words (``3.1 times``),
so a query matches the same words (``delta`` finds ``\\delta``). Titles are treated the same way.
"""

from __future__ import annotations

import re

_INDEXED_MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
TEX_WRAPPERS = "text[a-z]*|math[a-z]*|operatorname|bm|boldsymbol|emph|mbox|hbox"
"""TeX commands that only style their argument: ``\\texttt{MoE}`` reads "MoE"."""
_WRAPPER = re.compile(rf"\\(?:{TEX_WRAPPERS})\*?\{{([^{{}}]*)\}}")
TEX_COMMAND = re.compile(r"\\([A-Za-z]+)\*?|\\(.)", re.S)
"""A TeX command (its name in group 1) or an escaped character (group 2)."""
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
_ARITHMATEX_SIGNS = {"lt": "<", "gt": ">"}
"""arithmatex writes a formula's ``<`` and ``>`` as ``\\lt`` and ``\\gt`` (they would be markup in
HTML); a reader typed the signs, and the search shows them."""


def readable_tex(formula: str) -> str:
    """A formula as plain text: wrappers unwrapped, commands as their names, braces dropped."""
    text = formula
    for _ in range(3):  # nested wrappers
        text = _WRAPPER.sub(r"\1", text)

    def command(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in _SPACING or name == "\\":
            return " "
        if name in _ARITHMATEX_SIGNS:
            return f" {_ARITHMATEX_SIGNS[name]} "
        return f" {name} " if match.group(1) else name

    text = TEX_COMMAND.sub(command, text).replace("{", "").replace("}", "")
    text = re.sub(r"\s+([_^)\]])", r"\1", text)
    text = re.sub(r"([_^(\[])\s+", r"\1", text)
    return " ".join(text.split())


def readable_math(html: str) -> str:
    """``html`` with each ``\\(…\\)`` and ``\\[…\\]`` formula as ``readable_tex``, still HTML."""

    def formula(match: re.Match[str]) -> str:
        plain = readable_tex(match.group(1) or match.group(2) or "")
        return plain.replace("<", "&lt;").replace(">", "&gt;")

    return _INDEXED_MATH.sub(formula, html)


SEARCHED = "data-pagefind-body"
"""Marks the article of a page that search finds (``generator.finish.pages`` writes it on every page
whose Markdown does not say ``<!--paper-digest-not-searched-->``); Pagefind's own name for it, so
Pagefind run by hand on the site indexes the same pages."""

_SEARCHED_ARTICLE = re.compile(rf"<article\b[^>]*\b{SEARCHED}\b[^>]*>")
_LANGUAGE = re.compile(r"<html\b[^>]*\blang=\"?([A-Za-z-]+)")
_HEADING = re.compile(r"<h([1-6])\b([^>]*)>")
_PERMALINK = re.compile(r"<a class=\"headerlink\"[^>]*>[^<]*</a>")
_AUTHORS = re.compile(r"(<strong>Authors:</strong>\s*)(.*?)(?=<br\s*/?>|</p>)", re.S)
_PAPER_META = re.compile(r'<p class="paper-meta"[^>]*>.*?</p>\s*', re.S)
_DERIVED_TITLE_NOTE = "<p><em>The title was written by Paper Digest"


def searchable_page(html: str) -> str | None:
    """What Pagefind indexes of a built page: its article, as a page of its own, with formulas as
    ``readable_math`` (the excerpts a search shows are read from this text), without ``¶``
    permalinks and without what the page keeps out of search (``data-search-exclude``, as Material's
    search read it, or ``data-pagefind-ignore``, which Zensical leaves in the page: an element, or a
    heading's whole section). A paper's authors, venue and link
    move after its abstract, with the authors as the result's ``authors``: a result shows them on a
    line of their own, and its excerpt is the text after the title (``javascripts/search.js``), so it
    starts with the abstract. The note on a title Paper Digest wrote is not searched. ``None`` when
    the page is not searched."""
    opening = _SEARCHED_ARTICLE.search(html)
    end = html.rfind("</article>")
    if opening is None or end < opening.end():
        return None
    article = _without_excluded_sections(html[opening.start() : end + len("</article>")])
    article = readable_math(_PERMALINK.sub("", article))
    article = article.replace("data-search-exclude", "data-pagefind-ignore")
    article = article.replace(
        _DERIVED_TITLE_NOTE, _DERIVED_TITLE_NOTE.replace("<p>", "<p data-pagefind-ignore>")
    )
    meta = _PAPER_META.search(article)
    if meta is not None:
        moved = _AUTHORS.sub(r'\1<span data-pagefind-meta="authors">\2</span>', meta.group(), count=1)
        article = article[: meta.start()] + article[meta.end() :]
        article = article[: article.rfind("</article>")] + moved + "</article>"
    language = _LANGUAGE.search(html[: opening.start()])
    lang = language.group(1) if language else "en"
    head = '<head><meta charset="utf-8"></head>'
    return f'<!DOCTYPE html><html lang="{lang}">{head}<body>{article}</body></html>'


_EXCLUDED = ("data-search-exclude", "data-pagefind-ignore")


def _without_excluded_sections(article: str) -> str:
    """``article`` less each heading marked ``data-search-exclude`` or ``data-pagefind-ignore`` and
    what follows it up to the next heading of its level or above."""
    position = 0
    while (heading := _HEADING.search(article, position)) is not None:
        if not any(mark in heading.group(2) for mark in _EXCLUDED):
            position = heading.end()
            continue
        level = int(heading.group(1))
        stop = next(
            (h.start() for h in _HEADING.finditer(article, heading.end()) if int(h.group(1)) <= level),
            article.rfind("</article>"),
        )
        article = article[: heading.start()] + article[stop:]
        position = heading.start()
    return article
