"""MkDocs hook (listed under ``hooks:`` in mkdocs.yml): names the site after the digest, unwraps the
lists of links the templates write as HTML, minifies every page and writes its Content-Security-Policy
(``generator.site.csp``).

The generator records the collection's name in the docs folder's manifest, so a plain
``mkdocs build``, ``mkdocs serve`` or ``mkdocs gh-deploy`` shows the same title as
``paper-digest build``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from mkdocs.plugins import get_plugin_logger

from generator.site.csp import theme_scripts, with_policy
from generator.site.minify import minify_html
from generator.site.output import MANIFEST_NAME


def on_config(config):
    manifest = Path(config["docs_dir"]) / MANIFEST_NAME
    try:
        name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        return config
    if isinstance(name, str) and name.strip():
        # Themes print site_name as HTML, unescaped; the name comes from an input file.
        config["site_name"] = html.escape(name.strip(), quote=False)
    return config


HTML_MARK = "<!--paper-digest-html\n"
"""Opens a comment holding HTML that belongs in the page (``site_templates/paper.md.j2`` says why)."""
_WRAPPED_HTML = re.compile(re.escape(HTML_MARK) + r"(.*?)\n-->", re.S)


def on_page_content(content, page, config, files):
    # The templates' lists of links, which Markdown passed over as comments, become part of the page.
    return _WRAPPED_HTML.sub(r"\1", content) if HTML_MARK in content else content


log = get_plugin_logger("paper-digest")

LIVE_RELOAD = "paper_digest_live_reload"
"""Set under ``extra`` by ``paper-digest serve``: its pages get the live-reload script MkDocs writes
into each page it serves, which the published policy would refuse (``generator.site.csp``)."""


def on_post_page(output, page, config):
    return _finished_page(output, page.file.src_uri, page.meta.get("template", "main.html"), config)


def on_post_template(output, template_name, config):
    # The theme's own pages (404.html) get the same treatment; sitemap.xml is no page.
    if not template_name.endswith(".html"):
        return output
    return _finished_page(output, template_name, template_name, config)


def _finished_page(output: str, name: str, template: str, config) -> str:
    # Without its templates' indentation: the same page, a sixth smaller. Then the policy, hashing
    # the inline scripts as they are written (minifying leaves scripts as they are).
    live_reload = (config.get("extra") or {}).get(LIVE_RELOAD) is True
    theme = theme_scripts(config["theme"].dirs, (template,))
    page = with_policy(minify_html(output), theme, live_reload=live_reload)
    for script in page.refused:
        log.warning(
            f"{name}: an inline script that is not the theme's is left out of the page's "
            f"Content-Security-Policy, so browsers will not run it (put scripts in a file listed "
            f"under extra_javascript): {script.text[:80]!r}"
        )
    return page.html
