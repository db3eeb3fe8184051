"""Whitespace minification of the HTML pages an engine writes (run by ``generator/finish/pages.py``).

MkDocs' templates indent their output deeply, and at a whole conference that indentation is about a
sixth of the site. In text a browser shows any run of spaces, tabs and line breaks as one space (or
nothing, between blocks), so a run that holds a line break becomes a single line break, and the page
reads exactly the same. Left untouched:

- the content of elements whose whitespace shows or means something: ``pre``, ``listing``,
  ``textarea``, and ``code``, ``kbd`` and ``samp`` (Material shows code and keys with ``white-space:
  pre-wrap``), nested ones included;
- raw text: scripts (a JavaScript template literal keeps its line breaks and indentation), styles,
  ``title`` and the other raw-text elements, read up to their end tag as a browser reads them;
- comments, CDATA sections, the doctype, and every tag as written, so attribute values keep their
  whitespace;
- whitespace without a line break, and characters that only look like space (``&nbsp;``, U+00A0).
"""

from __future__ import annotations

import re

_WHITESPACE_WITH_BREAK = re.compile(r"[ \t\r\f]*\n[ \t\n\r\f]*")
"""HTML's whitespace is these five characters only; ``\\s`` would also match a no-break space."""
_BREAK_AND_WHITESPACE = re.compile(r"\n[ \t\n\r\f]*")
"""The same runs from their first line break on: a pattern that starts with a character is searched
for several times faster, and templates rarely leave spaces at the end of a line."""


def _collapse(text: str) -> str:
    """Every run of whitespace in ``text`` that holds a line break as one line break."""
    text = _BREAK_AND_WHITESPACE.sub("\n", text)
    if " \n" in text or "\t\n" in text or "\r\n" in text or "\f\n" in text:
        text = _WHITESPACE_WITH_BREAK.sub("\n", text)  # what is left of a run before its break
    return text


_MARKUP = re.compile(
    r"<!--.*?(?:-->|\Z)"  # a comment
    r"|<!\[CDATA\[.*?(?:\]\]>|\Z)"  # CDATA, in SVG or MathML
    r"|<[!?][^>]*>"  # doctype, processing instruction
    r"|<(?P<end>/?)(?P<name>[A-Za-z][^\t\n\f\r />]*)"  # a tag: its name, then its attributes,
    r"(?:[^>\"'=]|=[ \t\n\r\f]*\"[^\"]*\"|=[ \t\n\r\f]*'[^']*'|[=\"'])*>",  # quoted values may hold >
    re.S,
)

_RAW_TEXT = frozenset({"script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes"})
"""Elements a browser reads as text up to their end tag; all of it is kept as written."""
_RAW_TEXT_END = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.I) for name in _RAW_TEXT}
_PREFORMATTED = frozenset({"pre", "listing", "code", "kbd", "samp"})
"""Elements whose whitespace is shown: the markup inside them is kept as written."""

_SPECIAL_NAMES = "|".join(sorted(_RAW_TEXT | _PREFORMATTED | {"plaintext"}))
_PLAIN = re.compile(
    r"(?:[^<]++"  # text
    rf"|</?(?!(?i:{_SPECIAL_NAMES})[\t\n\f\r />])[A-Za-z][^\t\n\f\r />\"'=<]*(?=[\t\n\f\r />])"
    r"(?:[^>\"'=\n]++|=[ \t\r\f]*+\"[^\"\n]*+\"|=[ \t\r\f]*+'[^'\n]*+')*+>"  # an ordinary tag
    rf"|(?!{_MARKUP.pattern})<)*+",  # a "<" that starts no markup is text
    re.S,
)
"""A stretch of text and ordinary tags, up to the next markup ``minify_html`` looks at one by one.

An ordinary tag is a start or end tag of none of the elements above, on one line, whose name holds
no quote, ``=`` or ``<`` and whose attribute values are quoted, or have no value. ``_MARKUP`` reads such
a tag to the same ``>`` (at each step of its match only one alternative fits), and no run of
whitespace inside it holds a line break, so collapsing the whole stretch at once changes its text
only. Comments, the doctype, the elements above and any other tag end the stretch. Possessive
quantifiers keep a failing match from backtracking."""


def minify_html(html: str) -> str:
    """``html`` with every run of whitespace that holds a line break, outside preformatted content,
    raw text, comments and tags, replaced by one line break."""
    pieces: list[str] = []
    position = 0
    preformatted = 0  # how many preformatted elements are open here
    while True:
        # Text and ordinary tags in one step, so the loop runs for the few tags that need a look.
        plain = _PLAIN.match(html, position)
        text = plain.group()
        pieces.append(text if preformatted else _collapse(text))
        position = plain.end()
        match = _MARKUP.match(html, position)
        if match is None:
            break
        pieces.append(match.group())
        position = match.end()
        name = (match.group("name") or "").lower()
        opening = not match.group("end")
        if name == "plaintext" and opening:
            pieces.append(html[position:])  # nothing ends it: the rest of the document is text
            position = len(html)
            break
        if name in _RAW_TEXT and opening:
            end = _RAW_TEXT_END[name].search(html, position)
            stop = end.start() if end else len(html)
            pieces.append(html[position:stop])
            position = stop
        elif name in _PREFORMATTED:
            preformatted = preformatted + 1 if opening else max(0, preformatted - 1)
    assert position == len(html), "_PLAIN stops only at markup or at the end"
    return "".join(pieces)
