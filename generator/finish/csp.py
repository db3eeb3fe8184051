"""The Content-Security-Policy written into every page (``<meta http-equiv>``: GitHub Pages sets no
headers), the second wall behind escaping.

A digest is published from text strangers wrote, so the policy lets a page run only the site's own
script files and the theme's own inline scripts, each allowed by the SHA-256 of its exact text.
Which inline scripts are the theme's is decided by the theme's templates, not by the page (hashing
every inline script of the finished page would allow a slipped one too): an inline script counts
only if its text is one a ``<script>`` in the templates the page is rendered with (the theme's, or
the owner's ``custom_dir``) renders to, where each ``{{ … }}`` stands for a value that cannot leave
a string literal. A script that reached the page any other way (an escaping slip that let a
``<script>`` through from an abstract, a title, an author name) gets no hash, so browsers refuse to
run it, and the build reports it.

The policy, and why each source is there:

- ``default-src 'self'``: nothing from another origin, for any kind of request not named below;
- ``script-src 'self'`` plus the hashes: the site's files (Material, MathJax, the map, the digest's
  own scripts, Pagefind's search) and the theme's inline scripts; no ``'unsafe-inline'``, no
  ``'unsafe-eval'`` (MathJax 3 and Material need neither), so inline event handlers and
  ``javascript:`` links never run either;
- ``'wasm-unsafe-eval'`` in ``script-src``: search (``javascripts/search.js``) runs Pagefind's
  WebAssembly, and search by meaning (``javascripts/meaning.js``) onnxruntime-web's, both fetched
  from the site itself. It lets a page compile WebAssembly only, not run text as JavaScript
  (``eval`` and ``new Function`` stay refused);
- ``style-src 'self' 'unsafe-inline'``: MathJax's CHTML output writes a ``<style>`` element and
  ``style`` attributes as it typesets, and the map colours its legend with ``style`` attributes. CSS
  cannot run script, and with images, fonts and connections held to the site below, injected CSS
  cannot send anything to another origin either;
- ``img-src 'self' data:``: Material's icons are SVG ``data:`` URLs in its stylesheet (CSS masks);
- ``font-src 'self'``: MathJax's fonts, served from the site;
- ``connect-src 'self'``: the search index's files, the sitemap and the pages instant navigation
  fetches;
- ``worker-src 'self'``: Pagefind's search worker;
- ``object-src 'none'``: no plugins; ``base-uri 'self'``: no ``<base>`` pointing relative links
  elsewhere; ``form-action 'none'``: no form submits anywhere (Material's search and palette forms
  are handled by script and never submitted).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

POLICY_BEFORE_SCRIPTS = (
    ("default-src", "'self'"),
    ("script-src", "'self' 'wasm-unsafe-eval'"),
)
POLICY_AFTER_SCRIPTS = (
    ("style-src", "'self' 'unsafe-inline'"),
    ("img-src", "'self' data:"),
    ("font-src", "'self'"),
    ("connect-src", "'self'"),
    ("worker-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'none'"),
)

_SCRIPT = "[sS][cC][rR][iI][pP][tT]"
"""``script`` in any case."""
_RAW_SCRIPT_START = re.compile(
    r"<!--.*?(?:-->|\Z)"  # a comment: a <script> written inside one is no script
    rf"|<{_SCRIPT}(?=[\t\n\f\r />])(?P<attributes>(?:[^>\"']|\"[^\"]*\"|'[^']*')*)>",
    re.S,
)
_SCRIPT_END = re.compile(rf"</{_SCRIPT}[\t\n\f\r />]")
_OPENINGS = ("<script", "<SCRIPT", "<!--")
_ATTRIBUTE = re.compile(
    r"""(?:^|[\t\n\f\r /"'])(?P<name>[^\t\n\f\r />"'=]+)"""
    r"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:"(?P<double>[^"]*)"|'(?P<single>[^']*)'|(?P<bare>[^\t\n\f\r >]*)))?"""
)
_JAVASCRIPT_TYPES = frozenset(
    {"", "module", "importmap", "text/javascript", "application/javascript", "text/ecmascript"}
    | {"application/ecmascript", "application/x-javascript", "text/x-javascript", "text/jscript"}
    | {f"text/javascript1.{minor}" for minor in range(6)}
    | {"text/livescript", "application/x-ecmascript", "text/x-ecmascript"}
)
"""``type`` values a browser runs (the HTML standard's JavaScript MIME types, ``module`` and
``importmap``, which CSP governs too); any other type is a data block, never run."""

_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_TEMPLATE_VALUE = r"[^\"'`<>\\\n\r]*"
"""What a ``{{ … }}`` in a theme's inline script may render to: a value that stays inside the string
literal it is written in (Material writes ``base_url`` into ``new URL("…", location)``)."""


@dataclass(frozen=True)
class InlineScript:
    text: str
    start: int
    """Where its ``<script`` tag starts in the page."""

    @property
    def source(self) -> str:
        """The CSP source that allows this script: ``'sha256-…'`` of its text, as a browser hashes it
        (the HTML parser reads CR LF and CR as LF first)."""
        text = self.text.replace("\r\n", "\n").replace("\r", "\n")
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def inline_scripts(html: str) -> Iterator[InlineScript]:
    """The page's inline scripts a browser would run: ``<script>`` elements without ``src`` whose
    type is JavaScript (or empty), each with the text up to its end tag, as a browser reads it.

    Tags are looked for as ``<script`` or ``<SCRIPT`` (a plain search, far faster than a regular
    expression over the page): a script spelled in mixed case is not found, which costs nothing but
    a warning, since a script that is not found gets no hash and browsers refuse it."""
    position = 0
    # Where each opening is next found: searched again only once passed, so one that the page does
    # not hold costs one search, not one per script.
    ahead = {opening: html.find(opening) for opening in _OPENINGS}
    while (start := _next_start(html, position, ahead)) >= 0:
        match = _RAW_SCRIPT_START.match(html, start)
        if match is None:
            position = start + 1
            continue
        position = match.end()
        attributes = match.group("attributes")
        if attributes is None:  # a comment
            continue
        end = _SCRIPT_END.search(html, position)
        stop = end.start() if end else len(html)
        text = html[position:stop]
        position = stop
        values = _attributes(attributes)
        if "src" in values or values.get("type", "").strip().lower() not in _JAVASCRIPT_TYPES:
            continue
        yield InlineScript(text, match.start())


def _next_start(html: str, position: int, ahead: dict[str, int]) -> int:
    """Where the next script tag or comment starts at or after ``position``; -1 if none does."""
    for opening, at in ahead.items():
        if 0 <= at < position:
            ahead[opening] = html.find(opening, position)
    return min((at for at in ahead.values() if at >= 0), default=-1)


def _attributes(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        value = match.group("double") or match.group("single") or match.group("bare") or ""
        values.setdefault(match.group("name").lower(), value)
    return values


@dataclass(frozen=True)
class ThemeScripts:
    """The inline scripts a theme's templates write, as patterns a page's scripts are matched against."""

    patterns: tuple[re.Pattern[str], ...]

    def written_by_theme(self, script: InlineScript) -> bool:
        return any(pattern.fullmatch(script.text) for pattern in self.patterns)


ENTRY_TEMPLATES = ("main.html", "404.html")
"""The templates MkDocs renders pages with: a page's (Material's ``main.html`` unless the page names
another) and the theme's own pages."""


def theme_scripts(
    template_dirs: Sequence[str], entry_templates: Sequence[str] = ENTRY_TEMPLATES
) -> ThemeScripts:
    """The inline scripts of ``entry_templates`` and every template they extend, include or import
    by name, looked up in ``template_dirs`` (a MkDocs theme's ``dirs``: the owner's ``custom_dir``, the
    theme, MkDocs' own templates), as a theme's Jinja2 environment finds them.

    Templates no page is rendered with are left out (Material's ``redirect.html`` writes
    ``location.replace("{{ … }}")``: allowing every script of that shape would allow a redirect to
    anywhere), and so are templates included by a computed name, which could be any file."""
    return _theme_scripts(tuple(str(folder) for folder in template_dirs), tuple(entry_templates))


@functools.lru_cache(maxsize=8)
def _theme_scripts(template_dirs: tuple[str, ...], entry_templates: tuple[str, ...]) -> ThemeScripts:
    import jinja2
    import jinja2.meta

    loader = jinja2.FileSystemLoader(template_dirs)
    environment = jinja2.Environment(loader=loader, extensions=["jinja2.ext.i18n"])
    patterns: dict[str, re.Pattern[str]] = {}
    seen: set[str] = set()
    waiting = list(entry_templates)
    while waiting:
        name = waiting.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            source = environment.loader.get_source(environment, name)[0]  # type: ignore[union-attr]
            referenced = jinja2.meta.find_referenced_templates(environment.parse(source))
        except (jinja2.TemplateError, OSError, UnicodeDecodeError):
            continue
        waiting += [reference for reference in referenced if reference is not None]
        for script in inline_scripts(source):
            pattern = _script_pattern(script.text)
            if pattern is not None:
                patterns.setdefault(pattern.pattern, pattern)
    return ThemeScripts(tuple(patterns.values()))


def _script_pattern(template_text: str) -> re.Pattern[str] | None:
    """A pattern for what a template's script renders to; ``None`` when its text is built by
    template logic (``{% … %}``), which could write any script."""
    if not template_text.strip():
        return None
    pieces, last = [], 0
    for match in _JINJA.finditer(template_text):
        if not match.group().startswith("{{"):
            return None
        pieces += [re.escape(template_text[last : match.start()]), _TEMPLATE_VALUE]
        last = match.end()
    pieces.append(re.escape(template_text[last:]))
    return re.compile("".join(pieces))


@dataclass(frozen=True)
class PagePolicy:
    html: str
    """The page with its policy in ``<head>``."""
    policy: str
    refused: tuple[InlineScript, ...]
    """Inline scripts the theme did not write, which the policy leaves out: browsers will not run them."""


def with_policy(html: str, theme: ThemeScripts) -> PagePolicy:
    """``html`` with a ``<meta http-equiv="Content-Security-Policy">`` that allows the theme's
    inline scripts found in it, placed first in ``<head>`` after the character encoding
    declaration (which must stay in the page's first 1,024 bytes), before anything that loads or
    runs. A page without ``<head>`` is returned as it is, with an empty policy."""
    allowed: list[str] = []
    refused: list[InlineScript] = []
    for script in inline_scripts(html):
        if theme.written_by_theme(script):
            if script.source not in allowed:
                allowed.append(script.source)
        else:
            refused.append(script)
    policy = policy_text(allowed)
    head = _HEAD.search(html)
    if head is None:
        return PagePolicy(html, "", tuple(refused))
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    at = head.end()
    return PagePolicy(html[:at] + meta + html[at:], policy, tuple(refused))


_POLICY_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="(?P<policy>[^"]*)">')


def allow_inline_script(html: str, script_text: str) -> str:
    """A built page with one more inline script allowed, by the hash of its exact text: for the
    preview server, which writes its live-reload script (different on every request) into each
    page as it serves it. The built site never holds it."""
    meta = _POLICY_META.search(html)
    if meta is None:
        return html
    source = InlineScript(script_text, 0).source
    directives = [
        f"{directive} {source}" if directive.startswith("script-src ") else directive
        for directive in meta["policy"].split("; ")
    ]
    start, end = meta.span("policy")
    return html[:start] + "; ".join(directives) + html[end:]


_HEAD = re.compile(r"<head(?:[\t\n\f\r ][^>]*)?>(?:\s*<meta[\t\n\f\r ]+charset=[^>]*>)?", re.I)


def policy_text(script_sources: Sequence[str]) -> str:
    """The policy with ``script_sources`` (``'sha256-…'`` hashes) allowed as scripts besides the site's."""
    directives = [f"{name} {sources}" for name, sources in POLICY_BEFORE_SCRIPTS]
    directives[-1] = " ".join([directives[-1], *script_sources])
    directives += [f"{name} {sources}" for name, sources in POLICY_AFTER_SCRIPTS]
    return "; ".join(directives)
