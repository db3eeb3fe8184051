"""The HTML whitespace minifier: pages get smaller and read exactly the same."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from generator.finish.minify import _MARKUP, _PREFORMATTED, _RAW_TEXT, _WHITESPACE_WITH_BREAK, minify_html

_HTML_WHITESPACE = re.compile(r"[ \t\n\r\f]+")


def _reads_as(html: str) -> str:
    """What a browser shows of ordinary text: every run of whitespace is one space."""
    return _HTML_WHITESPACE.sub(" ", html)


def test_indentation_between_tags_and_in_text_becomes_one_line_break() -> None:
    page = "<div>\n    <p>\n      Some   text\n      \t more\n    </p>\n\n\n  </div>\n"
    assert minify_html(page) == "<div>\n<p>\nSome   text\nmore\n</p>\n</div>\n"


def test_whitespace_without_a_line_break_is_kept() -> None:
    page = "<p>two  spaces\tand a tab <b>bold</b> <i>italic</i></p>"
    assert minify_html(page) == page


def test_preformatted_text_is_kept_byte_for_byte() -> None:
    block = (
        '<pre class="x"><code>def f():\n    return 1\n\n\n        # indented\n\t\r\n'
        "    <span>\n      nested</span>\n</code></pre>"
    )
    page = f"<div>\n   {block}\n   <p>\n  after</p>\n</div>"
    assert minify_html(page) == f"<div>\n{block}\n<p>\nafter</p>\n</div>"


def test_nested_and_uppercase_preformatted_elements() -> None:
    block = "<PRE>a\n   <pre>b\n   </pre>\n   c\n</PRE>"
    assert minify_html(f"<div>\n  {block}\n  </div>") == f"<div>\n{block}\n</div>"


@pytest.mark.parametrize("name", ["code", "kbd", "samp", "listing", "textarea"])
def test_other_elements_that_show_their_whitespace(name: str) -> None:
    element = f"<{name}>x  =\n    1\n\n  y</{name}>"
    assert minify_html(f"<p>\n   {element}\n   </p>") == f"<p>\n{element}\n</p>"


def test_raw_text_is_kept_even_when_it_looks_like_markup() -> None:
    script = "<script>const t = `line\n    indented </pre> <pre>\n  `;\n  if (a <b) {\n  }</script>"
    style = "<style>\n  p::before { content: 'a\\\n    b' }\n</style>"
    textarea = "<textarea>\n  <p>\n    not a tag\n</textarea>"
    page = f"<body>\n  {script}\n  {style}\n  {textarea}\n  <p>\n    text</p>\n</body>"
    assert minify_html(page) == f"<body>\n{script}\n{style}\n{textarea}\n<p>\ntext</p>\n</body>"


def test_tags_comments_and_attribute_values_are_kept() -> None:
    tag = "<a title=\"first line\n      second line\" data-x='a > b\n   c' href=x>"
    comment = "<!--\n    <pre>\n  a comment\n-->"
    page = f"<!DOCTYPE html>\n  {comment}\n  <p>\n    {tag}\n      link</a></p>"
    assert minify_html(page) == f"<!DOCTYPE html>\n{comment}\n<p>\n{tag}\nlink</a></p>"


def test_no_break_spaces_are_not_whitespace() -> None:
    page = "<p>a\u00a0\n\u00a0  b&nbsp;\n   c</p>"
    assert minify_html(page) == "<p>a\u00a0\n\u00a0  b&nbsp;\nc</p>"


def test_unclosed_elements_keep_the_rest_of_the_page() -> None:
    assert minify_html("<p>\n  a</p><pre>\n  b\n   <p>\n  c") == "<p>\na</p><pre>\n  b\n   <p>\n  c"
    assert minify_html("<p>\n  a</p><script>\n  x\n   ") == "<p>\na</p><script>\n  x\n   "
    assert minify_html("<p>\n  a\n  </pre>\n  b") == "<p>\na\n</pre>\nb"  # a stray end tag


# --- properties ------------------------------------------------------------------------------------

_SPACE = st.text(alphabet=" \t\n\r\f\u00a0", min_size=1, max_size=6)
_WORD = st.text(alphabet="ab>&=\"'/ ", min_size=1, max_size=6)  # a "<" would start a tag here
_KEPT = st.builds(
    lambda name, body: f"<{name}>{body}</{name}>",
    st.sampled_from(["pre", "code", "textarea", "script", "style"]),
    st.lists(_SPACE | st.sampled_from(["x", "<b>", "</b>", "`"]), max_size=8).map("".join),
)
_ORDINARY = _SPACE | _WORD | st.sampled_from(["<p>", "</p>", '<a href="u\n  v">', "</a>", "<!-- \n -->"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(_ORDINARY, max_size=6).map("".join), _KEPT), max_size=5))
def test_only_whitespace_changes_and_kept_elements_stay_as_written(
    parts: list[tuple[str, str]],
) -> None:
    page = "".join(f"{ordinary}{kept}" for ordinary, kept in parts) + "\n  end"
    minified = minify_html(page)
    assert _reads_as(minified) == _reads_as(page)
    assert minify_html(minified) == minified
    assert len(minified) <= len(page)
    position = 0
    for _, kept in parts:
        found = minified.find(kept, position)
        assert found >= 0, kept
        position = found + len(kept)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="<>/!-=\"' \n\tpreodscitxa\u00a0", max_size=80))
def test_any_input_reads_the_same(page: str) -> None:
    minified = minify_html(page)
    assert _reads_as(minified) == _reads_as(page)
    assert minify_html(minified) == minified


def _reference_minify(html: str) -> str:
    """The minifier written plainly, one token at a time (its first version): ``minify_html`` skips
    over text and ordinary tags in one step and must give exactly this."""
    pieces: list[str] = []
    position = 0
    preformatted = 0
    while (match := _MARKUP.search(html, position)) is not None:
        text = html[position : match.start()]
        pieces.append(text if preformatted else _WHITESPACE_WITH_BREAK.sub("\n", text))
        pieces.append(match.group())
        position = match.end()
        name = (match.group("name") or "").lower()
        opening = not match.group("end")
        if name == "plaintext" and opening:
            preformatted += 1
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


_TOKENS = st.sampled_from(
    ["<", ">", "/", "!", "-", "=", '"', "'", " ", "\n", "\t", "\r", "\f", "\u00a0", "a", "P", "[", "?",
     "<pre>", "</pre>", "<code", "<CODE>", "<codex>", "<!--", "-->", "<![CDATA[", "]]>", "<!doctype html>",
     "<script>", "</script>", "</SCRIPT >", "<title>", "<plaintext>", '<a href="', "<a\n", "='", '="', "\n  ",
     '<p class="x">', "</p>", "<br />", "<a b=c>", "<a b='c'>", "<x-y>"]
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(_TOKENS, max_size=40).map("".join))
@example('!<codeipc="\'< cR<<a href="?[/<P>[r\n="=" \np]]>p]?')  # a name holding quotes
@example("<p class=\"a\n  b\">\n  x <a title='y\n  z'>\n  </a>")
def test_same_as_the_token_by_token_minifier(page: str) -> None:
    assert minify_html(page) == _reference_minify(page)


def test_same_as_the_token_by_token_minifier_on_a_themed_page() -> None:
    page = _SHOWCASE.replace("<p>", "<p class=\"a\"\n       id='b'>  <!-- \n x -->  <a href=x>\n  y</a>")
    assert minify_html(page) == _reference_minify(page)
    assert minify_html(page) != page


# --- in a browser ----------------------------------------------------------------------------------

_SHOWCASE = """<!doctype html>
<html>
  <head>
    <title>Showcase</title>
    <style>.wrap { white-space: pre-wrap }</style>
  </head>
  <body>
    <h1>
      A   heading
    </h1>
    <p>
      Text with   spaces,
      a <b>bold</b>
      <i>word</i>, a&nbsp;&nbsp;non-breaking space and <code>code  with
        its   lines</code>.
    </p>
    <pre><code>def f():
        return 1

    # the end</code></pre>
    <textarea id="t">
      kept
        as is</textarea>
    <ul>
      <li>one</li>
      <li>
        two
      </li>
    </ul>
    <script>document.body.dataset.t = `a
      b`;</script>
  </body>
</html>
"""


@pytest.mark.browser
def test_a_browser_shows_the_same_text(chromium) -> None:
    page = chromium.new_page()
    try:
        shown = "() => [document.body.innerText, document.getElementById('t').value, document.body.dataset.t]"
        seen = []
        for html in (_SHOWCASE, minify_html(_SHOWCASE)):
            page.set_content(html)
            seen.append(page.evaluate(shown))
        assert seen[0] == seen[1]
        assert len(minify_html(_SHOWCASE)) < len(_SHOWCASE)
    finally:
        page.close()
