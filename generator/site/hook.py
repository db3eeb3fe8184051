"""MkDocs hook (listed under ``hooks:`` in mkdocs.yml): names the site after the digest, unwraps the
lists of links the templates write as HTML, and minifies every page.

The generator records the collection's name in the docs folder's manifest, so a plain
``mkdocs build``, ``mkdocs serve`` or ``mkdocs gh-deploy`` shows the same title as
``paper-digest build``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

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


def on_post_page(output, page, config):
    # Every page without its templates' indentation: the same page, a sixth smaller.
    return minify_html(output)
