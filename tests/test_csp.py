"""The Content-Security-Policy of each page (generator/finish/csp.py): which inline scripts a page has,
their hashes as a browser computes them, and that only the theme's scripts are allowed."""

from __future__ import annotations

import html
import logging
import os
from pathlib import Path

import material
import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.finish.csp import (
    InlineScript,
    allow_inline_script,
    inline_scripts,
    policy_text,
    theme_scripts,
    with_policy,
)
from generator.project.settings import ENGINES

MATERIAL_TEMPLATES = str(Path(material.__file__).parent / "templates")
SCOPE = (
    '__md_scope=new URL("{base}",location),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),'
    '__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),'
    '__md_set=(e,_,t=localStorage,a=__md_scope)=>{{try{{t.setItem(a.pathname+"."+e,JSON.stringify(_))}}'
    "catch(e){{}}}}"
)


def page(body: str, base: str = "../..") -> str:
    """A page as Material writes it: its scope script in the head, ``body`` in the body."""
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>T</title>\n'
        f"<script>{SCOPE.format(base=base)}</script>\n</head>\n<body>\n{body}\n"
        '<script id="__config" type="application/json">{"base": "."}</script>\n'
        '<script src="../../assets/javascripts/bundle.js"></script>\n</body>\n</html>\n'
    )


def test_inline_scripts_are_the_ones_a_browser_runs() -> None:
    text = page(
        "<!-- <script>in a comment</script> -->"
        "<SCRIPT type='module'>upper(case)</SCRIPT >"
        '<script type="text/plain">a data block</script>'
        "<script>last(1)</script  >"
    )
    found = [s.text for s in inline_scripts(text)]
    assert found == [SCOPE.format(base="../.."), "upper(case)", "last(1)"]
    assert [s.text for s in inline_scripts("<p><script>never closed")] == ["never closed"]


def test_hashes_are_those_a_browser_computes() -> None:
    # The empty script's hash, which every CSP reference lists; a browser reads CR LF as LF first.
    assert InlineScript("", 0).source == "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    assert InlineScript("a\r\nb\rc", 0).source == InlineScript("a\nb\nc", 0).source
    assert InlineScript("a\nb", 0).source != InlineScript("ab", 0).source


def test_the_themes_scripts_are_allowed_at_any_depth_and_others_are_refused() -> None:
    theme = theme_scripts([MATERIAL_TEMPLATES])
    for base in (".", "..", "../../..", "/repo/"):
        result = with_policy(page("<p>text</p>", base), theme)
        assert result.refused == ()
        assert InlineScript(SCOPE.format(base=base), 0).source in result.policy
    # A value that leaves its string literal is not what the theme writes.
    forged = SCOPE.format(base='",alert(1),"')
    assert not theme.written_by_theme(InlineScript(forged, 0))
    injected = with_policy(page("<p><script>alert(1)</script></p>"), theme)
    assert [s.text for s in injected.refused] == ["alert(1)"]
    assert InlineScript("alert(1)", 0).source not in injected.policy


def test_only_scripts_of_the_templates_pages_are_rendered_with_count(tmp_path: Path) -> None:
    # Material's redirect.html writes location.replace("{{ … }}"): no page of a digest uses it, and
    # trusting its shape would let an injected script send readers anywhere.
    redirect = 'window.location.replace(["https://evil.example/",window.location.search,window.location.hash].join(""))'
    assert not theme_scripts([MATERIAL_TEMPLATES]).written_by_theme(InlineScript(redirect, 0))
    assert theme_scripts([MATERIAL_TEMPLATES], ["redirect.html"]).written_by_theme(InlineScript(redirect, 0))
    # The owner's custom_dir overrides the theme's templates, and its scripts are the theme's too.
    (tmp_path / "main.html").write_text(
        '{% extends "base.html" %}{% block extrahead %}<script>var owner = 1</script>{% endblock %}'
    )
    with_owner = theme_scripts([str(tmp_path), MATERIAL_TEMPLATES])
    assert with_owner.written_by_theme(InlineScript("var owner = 1", 0))
    assert with_owner.written_by_theme(InlineScript(SCOPE.format(base=".."), 0))
    assert not theme_scripts([MATERIAL_TEMPLATES]).written_by_theme(InlineScript("var owner = 1", 0))


def test_the_policy_comes_first_in_head_after_the_charset() -> None:
    result = with_policy(page("<p>x</p>"), theme_scripts([MATERIAL_TEMPLATES]))
    head = result.html.split("<head>", 1)[1]
    assert head.startswith(
        f'\n<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="{result.policy}">'
    )
    # WebAssembly (Pagefind's search) may compile; text may not run as script ('unsafe-eval').
    assert "script-src 'self' 'wasm-unsafe-eval' 'sha256-" in result.policy
    for directive in ("object-src 'none'", "base-uri 'self'", "form-action 'none'", "default-src 'self'"):
        assert directive in result.policy
    assert "'unsafe-eval'" not in result.policy
    assert policy_text([]).count("'unsafe-inline'") == 1  # styles only
    assert with_policy("<p>no head</p>", theme_scripts([])).html == "<p>no head</p>"


def test_the_preview_server_lets_only_its_own_live_reload_script_run() -> None:
    # `paper-digest serve` (MkDocs' live reload) writes a script into each page as it serves it.
    built = with_policy(page("<p>x</p>"), theme_scripts([MATERIAL_TEMPLATES]))
    served = allow_inline_script(built.html, "livereload(1, 2);")
    allowed = InlineScript("livereload(1, 2);", 0).source
    script_sources = served.split("script-src ", 1)[1].split(";", 1)[0]
    assert script_sources == built.policy.split("script-src ", 1)[1].split(";", 1)[0] + f" {allowed}"
    assert "'unsafe-inline'" not in script_sources
    assert served.replace(f" {allowed}", "") == built.html
    assert allow_inline_script("<p>no policy</p>", "x") == "<p>no policy</p>"


@given(st.text(max_size=200).filter(lambda t: "</script" not in t.lower()))
def test_a_script_from_the_input_is_never_allowed(text: str) -> None:
    theme = theme_scripts([MATERIAL_TEMPLATES])
    escaped = with_policy(page(f"<p>{html.escape(text)}</p>"), theme)
    assert escaped.refused == ()
    assert escaped.policy == with_policy(page("<p></p>"), theme).policy  # the text changes no hash
    slipped = with_policy(page(f"<p><script>{text}</script></p>"), theme)
    script = InlineScript(text, 0)
    if not theme.written_by_theme(script):
        assert script.source not in slipped.policy
        assert text in [s.text for s in slipped.refused]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_build_reports_an_inline_script_that_is_not_the_themes(tmp_path: Path, caplog, engine: str) -> None:
    """Through the engine and the finishing stage: a page whose Markdown let a script through is
    built with a policy that leaves it out, and the build says so (with ``strict: true`` it stops)."""
    from generator.errors import DigestError
    from generator.site_build import build_site

    (tmp_path / "mkdocs.yml").write_text("site_name: T\nstrict: false\nnav: [index.md]\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n<script>window.slipped = 1</script>\n")
    with caplog.at_level(logging.WARNING):
        build_site(tmp_path / "mkdocs.yml", docs, tmp_path / "site", engine=engine)
    built = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<script>window.slipped = 1</script>" in built
    assert InlineScript("window.slipped = 1", 0).source not in built
    assert any(
        "window.slipped" in r.getMessage() and "not the theme's" in r.getMessage() for r in caplog.records
    )
    not_found = (tmp_path / "site" / "404.html").read_text(encoding="utf-8")
    assert 'http-equiv="Content-Security-Policy"' in not_found
    assert os.path.getsize(tmp_path / "site" / "sitemap.xml") > 0

    (tmp_path / "mkdocs.yml").write_text("site_name: T\nstrict: true\nnav: [index.md]\n")
    with pytest.raises(DigestError, match="strict"):
        build_site(tmp_path / "mkdocs.yml", docs, tmp_path / "strict", engine=engine)
