"""The one complete settings file a build renders with: the digest's ``mkdocs.yml`` with Paper Digest's
settings merged in, and what the docs folder says of itself (the digest's name; no Topics in the
navigation when there are none), written as a plain ``mkdocs.yml`` that MkDocs and Zensical both read.

The digest's file holds what its owner chooses (name, colours, theme features, extra pages, plugins).
What the generated pages need (Markdown extensions, the site's scripts, the page templates,
``not_in_nav``, ``exclude_docs`` …) ships in ``mkdocs_defaults.yml`` beside this module and is
merged in at every build, so upgrading Paper Digest upgrades it. The merge, key by key:

- lists of files (``extra_javascript``, ``extra_css``): ours first, then the owner's; ``hooks`` are
  the owner's alone (MkDocs runs them, Zensical does not);
- ``plugins`` and ``markdown_extensions``: ours, with the owner's options for the same entry laid
  over ours, then the owner's other entries; less MkDocs' and Material's search plugin, whose box
  would stand beside the site's own (search is Pagefind's: ``generator.finish.search_index``);
- ``nav``: ours, then the owner's pages that ours does not list;
- ``not_in_nav`` and ``exclude_docs`` (gitignore-style patterns): ours, then the owner's lines;
- ``validation``: ours, with the owner's values laid over;
- ``use_directory_urls``: always ours (page addresses are computed with it);
- ``site_name``: the owner's, when set; else a placeholder, which ``complete_settings`` replaces by the
  digest's name;
- ``theme.custom_dir``: Paper Digest's page templates (``theme/``), under the owner's ``custom_dir``.
"""

from __future__ import annotations

import hashlib
import html
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.errors import DigestError

DEFAULTS_FILE = Path(__file__).with_name("mkdocs_defaults.yml")
THEME_FOLDER = Path(__file__).with_name("theme")
"""Page templates of Paper Digest's own (``generated-page.html``, ``404.html``), looked up after the
owner's ``custom_dir`` and before the theme."""
TOPICS_INDEX = "topics/index.md"
"""The topics page the navigation lists (``mkdocs_defaults.yml``), left out when there are no topics."""
REPLACED_PLUGINS = frozenset({"search", "material/search"})
"""Left out of every build: the site's search is Pagefind's, with its own box in the header."""


def generator_defaults() -> dict[str, Any]:
    import yaml

    return yaml.safe_load(DEFAULTS_FILE.read_text(encoding="utf-8"))


def read_owner_config(config_file: Path) -> dict[str, Any]:
    """The digest's mkdocs.yml as MkDocs reads it (``!ENV``, ``!relative`` and ``INHERIT`` honoured)."""
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.exceptions import ConfigurationError
    from mkdocs.utils.yaml import get_yaml_loader, yaml_load

    if not config_file.is_file():
        raise DigestError(f"MkDocs configuration {config_file} not found")
    config = MkDocsConfig(config_file_path=str(config_file))
    try:
        with open(config_file, "rb") as handle:
            owner = yaml_load(handle, get_yaml_loader(config=config))
    except ConfigurationError as error:
        raise DigestError(f"{config_file}: {error}") from None
    if not isinstance(owner, dict):
        raise DigestError(f"{config_file}: expected a mapping of MkDocs settings")
    return owner


def configured_site_url(config_file: Path) -> str | None:
    """The digest's ``site_url`` as MkDocs reads it (``SITE_URL`` through ``!ENV``), or ``None``."""
    try:
        url = read_owner_config(config_file).get("site_url")
    except DigestError:
        return None
    return url if isinstance(url, str) and url.strip() else None


def merged_settings(owner: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings to lay over the owner's file: Paper Digest's, merged with the owner's as the
    module docstring says. Keys the owner alone decides are not in the result."""
    ours = dict(defaults if defaults is not None else generator_defaults())
    merged: dict[str, Any] = {
        "use_directory_urls": ours.get("use_directory_urls", True),
        "hooks": _files([], owner.get("hooks")),
        "extra_javascript": _files(ours.get("extra_javascript"), owner.get("extra_javascript")),
        "extra_css": _files(ours.get("extra_css"), owner.get("extra_css")),
        "plugins": [
            entry
            for entry in _named_entries(ours.get("plugins"), owner.get("plugins"), "plugins")
            if _entry(entry, "plugins")[0] not in REPLACED_PLUGINS
        ],
        "markdown_extensions": _named_entries(
            ours.get("markdown_extensions"), owner.get("markdown_extensions"), "markdown_extensions"
        ),
        "nav": _nav(ours.get("nav"), owner.get("nav")),
        "validation": _laid_over(ours.get("validation") or {}, owner.get("validation") or {}),
    }
    for key in ("not_in_nav", "exclude_docs"):
        lines = [part.strip("\n") for part in (ours.get(key), owner.get(key)) if part]
        merged[key] = "\n".join(lines) + "\n"
    if "theme" not in owner:
        merged["theme"] = {"name": "material", "font": False}
    site_name = owner.get("site_name")
    if not (isinstance(site_name, str) and site_name.strip()):
        from generator.sources import DEFAULT_COLLECTION_NAME

        # MkDocs requires one; ``complete_settings`` names the site after the digest anyway (the
        # inputs name it when the owner does not).
        merged["site_name"] = DEFAULT_COLLECTION_NAME
    return merged


def site_files_may_be_shared(config_file: Path) -> bool:
    """Whether an update of the site may start from hard links to the published site's files: only
    when the build runs no plugin and no hook of the owner's (the engine and the finishing stage write
    a new file instead of rewriting one in place). An owner's plugin or hook might rewrite one, and so
    the published site."""
    owner = read_owner_config(config_file)
    merged = merged_settings(owner)
    return not merged["plugins"] and not merged["hooks"]


def settings_fingerprint() -> str:
    """A hash of Paper Digest's own settings and page templates: a site built with other ones is
    built again."""
    digest = hashlib.sha256(DEFAULTS_FILE.read_bytes())
    for template in sorted(THEME_FOLDER.glob("*.html")):
        digest.update(template.name.encode() + b"\0" + template.read_bytes())
    return digest.hexdigest()


def load_digest_config(config_file: Path, **options: Any):  # -> MkDocsConfig
    """MkDocs' ``load_config`` of the digest's file with Paper Digest's settings merged in (not the
    complete settings: for tests of the merge); ``options`` (``docs_dir``, ``site_dir`` …) win over both."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    overrides = {**merged_settings(read_owner_config(config_file)), **options}
    try:
        return load_config(config_file=str(config_file), **overrides)
    except (Abort, ConfigurationError) as error:
        raise DigestError(f"{config_file}: {error} (see the mkdocs message above)") from None


@dataclass(frozen=True)
class CompleteSettings:
    """The settings file a build renders with, and what the stages after the engine need of it."""

    path: Path
    """Written beside the digest's mkdocs.yml, so the owner's relative paths mean the same."""
    values: dict[str, Any]
    site_name: str
    """The digest's name, as the reader sees it (not HTML-escaped)."""
    template_dirs: tuple[Path, ...]
    """The owner's ``custom_dir`` (if any) and Paper Digest's page templates, in lookup order; the
    engine's theme comes after them."""


def complete_settings(
    config_file: Path, docs_dir: Path, site_dir: Path, site_url: str | None = None
) -> dict[str, Any]:
    """The digest's settings merged with Paper Digest's, for building ``docs_dir`` into ``site_dir``:
    named after the digest (its docs folder's manifest records the name), without Topics in the
    navigation when the digest has no topic pages, and Paper Digest's page templates in the theme."""
    import json

    from generator.site.output import MANIFEST_NAME

    owner = read_owner_config(config_file)
    values = {**owner, **merged_settings(owner)}
    values["docs_dir"], values["site_dir"] = str(docs_dir.absolute()), str(site_dir.absolute())
    if site_url:
        values["site_url"] = site_url
    try:
        recorded = json.loads((docs_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
        name, files = recorded.get("name"), recorded.get("files")
    except (OSError, ValueError, AttributeError):
        name, files = None, None
    if isinstance(name, str) and name.strip():
        # Themes print site_name as HTML, unescaped; the name comes from an input file.
        values["site_name"] = html.escape(name.strip(), quote=False)
    if isinstance(files, list) and values.get("nav") and not has_topic_pages(files):
        # A digest whose papers fall into no topics: its topics page only says so, so the
        # navigation leaves it out (the page stays, for links made when there were topics).
        values["nav"] = nav_without(values["nav"], TOPICS_INDEX)
    theme = values.get("theme")
    values["theme"] = dict(theme) if isinstance(theme, Mapping) else {"name": theme or "material"}
    return values


def theme_folders(config_file: Path, values: Mapping[str, Any]) -> tuple[Path, ...]:
    """The owner's ``custom_dir`` (relative to mkdocs.yml) and Paper Digest's templates, in lookup order."""
    custom = values["theme"].get("custom_dir")
    owner = [config_file.absolute().parent / custom] if isinstance(custom, str) and custom else []
    return (*owner, THEME_FOLDER)


@contextmanager
def written_settings(
    values: dict[str, Any], config_file: Path, folder: Path | None = None
) -> Iterator[CompleteSettings]:
    """``values`` written as one settings file in ``folder`` (by default beside ``config_file``, so the
    owner's relative paths mean the same), removed afterwards, with a ``custom_dir`` that holds the
    owner's templates over Paper Digest's (one folder: both engines take one). The docs and site
    folders are written relative to ``folder`` (Zensical reads no other)."""
    import yaml

    base = (folder or config_file.parent).absolute()
    folders = theme_folders(config_file, values)
    made: list[Path] = []
    try:
        values = {**values, "theme": dict(values["theme"])}
        for key in ("docs_dir", "site_dir"):
            values[key] = os.path.relpath(values[key], base)
        if len(folders) == 1:
            values["theme"]["custom_dir"] = str(THEME_FOLDER)
        else:
            merged = Path(tempfile.mkdtemp(prefix=".paper-digest-theme-", dir=base))
            made.append(merged)
            for theme_folder in reversed(folders):  # the owner's files last, over ours
                shutil.copytree(theme_folder, merged, dirs_exist_ok=True)
            values["theme"]["custom_dir"] = str(merged)
        handle, name = tempfile.mkstemp(prefix=".paper-digest-settings-", suffix=".yml", dir=base)
        path = Path(name)
        made.append(path)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write("# Written by paper-digest for one build, and removed after it.\n")
            # yaml.Dumper keeps what the owner's file names by tag (``!!python/name:`` for an emoji
            # extension's functions) as the tag: both engines read it back.
            yaml.dump(values, file, Dumper=yaml.Dumper, sort_keys=False, allow_unicode=True)
        site_name = html.unescape(str(values.get("site_name") or ""))
        yield CompleteSettings(path, values, site_name, folders)
    finally:
        for item in made:
            if item.is_dir():
                shutil.rmtree(item, ignore_errors=True)
            else:
                item.unlink(missing_ok=True)


def _files(ours: list | None, theirs: list | None) -> list:
    combined: list = []
    for entry in [*(ours or []), *(theirs or [])]:
        if entry not in combined:
            combined.append(entry)
    return combined


def _entry(entry: Any, key: str) -> tuple[str, dict]:
    """A plugin or extension as (name, options), from ``name`` or ``{name: options}``."""
    if isinstance(entry, str):
        return entry, {}
    if isinstance(entry, dict) and len(entry) == 1:
        name, options = next(iter(entry.items()))
        return str(name), dict(options or {})
    raise DigestError(f"mkdocs.yml: each of '{key}' must be a name or a name with its options, not {entry!r}")


def _named_entries(ours: Any, theirs: Any, key: str) -> list:
    def as_list(value: Any) -> list:
        if value is None:
            return []
        if isinstance(value, dict):  # MkDocs also accepts {name: options, …}
            return [{name: options} for name, options in value.items()]
        if isinstance(value, list):
            return value
        raise DigestError(f"mkdocs.yml: '{key}' must be a list")

    entries: dict[str, dict] = {}
    for entry in as_list(ours):
        name, options = _entry(entry, key)
        entries[name] = options
    for entry in as_list(theirs):
        name, options = _entry(entry, key)
        entries[name] = _laid_over(entries.get(name, {}), options)
    return [{name: options} if options else name for name, options in entries.items()]


def _laid_over(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    result = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = _laid_over(result[key], value)
        else:
            result[key] = value
    return result


def _nav_pages(nav: Any) -> set[str]:
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, list):
        return set().union(*(_nav_pages(item) for item in nav)) if nav else set()
    if isinstance(nav, dict):
        return set().union(*(_nav_pages(value) for value in nav.values())) if nav else set()
    return set()


def _nav(ours: list | None, theirs: list | None) -> list:
    nav = list(ours or [])
    listed = _nav_pages(nav)
    for item in theirs or []:
        if not _nav_pages(item) <= listed:
            nav.append(item)
            listed |= _nav_pages(item)
    return nav


def has_topic_pages(docs_files: list[str]) -> bool:
    """Whether a digest's generated files (its docs manifest's list) hold a page for some topic."""
    folder = TOPICS_INDEX.rsplit("/", 1)[0] + "/"
    return any(isinstance(f, str) and f.startswith(folder) and f != TOPICS_INDEX for f in docs_files)


def nav_without(nav: list, page: str) -> list:
    """``nav`` less its entries that open ``page`` (``{"Topics": "topics/index.md"}`` or the bare path)."""
    return [item for item in nav if _nav_pages(item) != {page}]
