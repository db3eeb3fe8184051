"""Whitespace minification of the HTML pages MkDocs writes (registered in ``generator/mkdocs_hook.py``).

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
_PREFORMATTED = frozenset({"pre", "listing", "code", "kbd", "samp"})
"""Elements whose whitespace is shown: the markup inside them is kept as written."""


def minify_html(html: str) -> str:
    """``html`` with every run of whitespace that holds a line break, outside preformatted content,
    raw text, comments and tags, replaced by one line break."""
    pieces: list[str] = []
    position = 0
    preformatted = 0  # how many preformatted elements are open here
    while (match := _MARKUP.search(html, position)) is not None:
        text = html[position : match.start()]
        pieces.append(text if preformatted else _WHITESPACE_WITH_BREAK.sub("\n", text))
        pieces.append(match.group())
        position = match.end()
        name = (match.group("name") or "").lower()
        opening = not match.group("end")
        if name == "plaintext" and opening:
            preformatted += 1  # nothing ends it: the rest of the document is text
            break
        if name in _RAW_TEXT and opening:
            end = re.compile(rf"</{name}[\t\n\f\r />]", re.I).search(html, position)
            stop = end.start() if end else len(html)
            pieces.append(html[position:stop])
            position = stop
        elif name in _PREFORMATTED:
            preformatted = preformatted + 1 if opening else max(0, preformatted - 1)
    rest = html[position:]
    pieces.append(rest if preformatted else _WHITESPACE_WITH_BREAK.sub("\n", rest))
    return "".join(pieces)
