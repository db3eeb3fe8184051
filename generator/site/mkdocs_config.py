"""The MkDocs configuration of a build: the digest's ``mkdocs.yml`` with Paper Digest's settings merged in.

The digest's file holds what its owner chooses (name, colours, theme features, extra pages, plugins).
What the generated pages need (the hook, Markdown extensions, the site's
scripts, ``not_in_nav``, ``exclude_docs`` …) ships in ``mkdocs_defaults.yml`` beside this module and is
merged in at every build, so upgrading Paper Digest upgrades it. The merge, key by key:

- lists of files (``hooks``, ``extra_javascript``, ``extra_css``): ours first, then the owner's;
- ``plugins`` and ``markdown_extensions``: ours, with the owner's options for the same entry laid
  over ours, then the owner's other entries; less MkDocs' and Material's search plugin, whose box
  would stand beside the site's own (search is Pagefind's: ``generator.site.search_index``);
- ``nav``: ours, then the owner's pages that ours does not list;
- ``not_in_nav`` and ``exclude_docs`` (gitignore-style patterns): ours, then the owner's lines;
- ``validation``: ours, with the owner's values laid over;
- ``use_directory_urls``: always ours (page addresses are computed with it);
- ``site_name``: the owner's, when set; else a placeholder, as the hook names the site after the digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from generator.errors import DigestError

DEFAULTS_FILE = Path(__file__).with_name("mkdocs_defaults.yml")
HOOK_FILE = Path(__file__).with_name("hook.py")
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
        "hooks": _files([str(HOOK_FILE)], owner.get("hooks")),
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

        # MkDocs requires one; the hook names the site after the digest anyway (the inputs name it
        # when the owner does not).
        merged["site_name"] = DEFAULT_COLLECTION_NAME
    return merged


def site_files_may_be_shared(config_file: Path) -> bool:
    """Whether an update of the site may start from hard links to the published site's files: only
    when the build runs Paper Digest's own hooks and no plugin, which all write a new file instead of
    rewriting one in place. An owner's plugin or hook might rewrite one, and so the published site."""
    owner = read_owner_config(config_file)
    merged = merged_settings(owner)
    return not merged["plugins"] and merged["hooks"] == [str(HOOK_FILE)]


def settings_fingerprint() -> str:
    """A hash of Paper Digest's own MkDocs settings: a site built with other ones is built again."""
    return hashlib.sha256(DEFAULTS_FILE.read_bytes()).hexdigest()


def load_digest_config(config_file: Path, **options: Any):  # -> MkDocsConfig
    """MkDocs' ``load_config`` of the digest's file with Paper Digest's settings merged in;
    ``options`` (``docs_dir``, ``site_dir`` …) win over both."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    overrides = {**merged_settings(read_owner_config(config_file)), **options}
    try:
        return load_config(config_file=str(config_file), **overrides)
    except (Abort, ConfigurationError) as error:
        raise DigestError(f"{config_file}: {error} (see the mkdocs message above)") from None


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
