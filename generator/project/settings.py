"""Digest settings: defaults, then ``[tool.paper-digest]`` of the digest folder's pyproject.toml, if any."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

from generator.analysis.embed import DEFAULT_MODEL, DEVICES, PRECISIONS
from generator.errors import DigestError
from generator.sources.base import PAPER_FIELDS

ENGINES = ("mkdocs", "zensical")
"""The renderers a site can be built with (``generator.engine``); MkDocs + Material is the default."""


@dataclass(frozen=True)
class Settings:
    project_root: Path
    inputs: tuple[Path, ...] = (Path("abstracts"),)
    templates: Path = Path("site_templates")
    """Templates here replace the packaged ones of the same name (like a MkDocs theme's custom_dir)."""
    cache_dir: Path = Path(".cache/paper-digest")
    model: str = DEFAULT_MODEL
    precision: str = "auto"
    device: str = "auto"
    ray_address: str | None = None
    """Embed on this Ray cluster (``--ray``; ``local`` starts one here) instead of in the build's process."""
    keywords_per_paper: int = 5
    related_per_paper: int = 5
    papers_per_list_page: int = 100
    mkdocs_config: Path = Path("mkdocs.yml")
    columns: tuple[tuple[str, str], ...] = ()
    """``(field, column header)`` pairs for CSV/TSV inputs whose headers the reader does not know."""
    meaning_search: bool = True
    """Ship search by meaning (the model, 34 MB, and the runtime, 14 MB, fetched only by readers who
    ask for it); ``false`` leaves the site's search to words."""
    engine: str = "mkdocs"
    """What renders the site's pages: ``mkdocs`` (MkDocs + Material) or ``zensical``."""

    def resolve(self, path: Path) -> Path:
        """A configured path, relative to the project root unless absolute."""
        return path if path.is_absolute() else self.project_root / path


_PATH_FIELDS = {"templates", "cache_dir", "mkdocs_config"}
_INT_FIELDS = {"keywords_per_paper", "related_per_paper", "papers_per_list_page"}


def parse_columns(pairs: Iterable[tuple[str, str]], where: str) -> tuple[tuple[str, str], ...]:
    """``(field, header)`` pairs checked against the fields a paper has."""
    checked = []
    for field, header in pairs:
        if field not in PAPER_FIELDS:
            raise DigestError(f"{where}: unknown field {field!r}; the fields are {', '.join(PAPER_FIELDS)}")
        if not header.strip():
            raise DigestError(f"{where}: no column name given for {field!r}")
        checked.append((field, header.strip()))
    return tuple(checked)


def columns_option(text: str) -> tuple[tuple[str, str], ...]:
    """``--columns abstract=Summary,title=Paper`` as ``(field, header)`` pairs."""
    pairs = []
    for part in text.split(","):
        field, equals, header = part.partition("=")
        if not equals:
            raise DigestError(
                f"--columns {text}: expected FIELD=COLUMN pairs separated by commas, got {part!r}"
            )
        pairs.append((field.strip().lower(), header))
    return parse_columns(pairs, f"--columns {text}")


def load_settings(project_root: Path) -> Settings:
    """Settings from ``project_root/pyproject.toml`` if it has a ``[tool.paper-digest]`` table."""
    pyproject = project_root / "pyproject.toml"
    table: dict[str, object] = {}
    if pyproject.is_file():
        try:
            table = (
                tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("paper-digest", {})
            )
        except tomllib.TOMLDecodeError as error:
            raise DigestError(f"{pyproject}: not valid TOML ({error})") from None
    known = {f.name for f in fields(Settings)} - {"project_root"}
    values: dict[str, object] = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in known:
            raise DigestError(f"{pyproject}: unknown setting {key!r} in [tool.paper-digest]")
        if name == "inputs":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise DigestError(f"{pyproject}: 'inputs' must be a list of paths")
            values[name] = tuple(Path(v) for v in value)
        elif name in _PATH_FIELDS:
            values[name] = Path(str(value))
        elif name in _INT_FIELDS:
            if not isinstance(value, int) or value < 1:
                raise DigestError(f"{pyproject}: {key!r} must be a positive integer")
            values[name] = value
        elif name == "columns":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise DigestError(
                    f"{pyproject}: 'columns' must be a table such as {{ abstract = \"Summary\" }}"
                )
            values[name] = parse_columns(value.items(), f"{pyproject}: 'columns'")
        elif name == "meaning_search":
            if not isinstance(value, bool):
                raise DigestError(f"{pyproject}: {key!r} must be true or false")
            values[name] = value
        elif name in ("precision", "device", "engine"):
            choices = {"precision": PRECISIONS, "device": DEVICES, "engine": ENGINES}[name]
            if value not in choices:
                raise DigestError(f"{pyproject}: {key!r} must be one of {', '.join(choices)}")
            values[name] = value
        else:
            values[name] = str(value)
    return Settings(project_root=project_root, **values)  # type: ignore[arg-type]
