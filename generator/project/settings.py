"""Digest settings: defaults, then ``[tool.paper-digest]`` of the digest folder's pyproject.toml, if any."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from generator.analysis.embed import DEFAULT_MODEL, DEVICES, PRECISIONS
from generator.errors import DigestError


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

    def resolve(self, path: Path) -> Path:
        """A configured path, relative to the project root unless absolute."""
        return path if path.is_absolute() else self.project_root / path


_PATH_FIELDS = {"templates", "cache_dir", "mkdocs_config"}
_INT_FIELDS = {"keywords_per_paper", "related_per_paper", "papers_per_list_page"}


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
        elif name in ("precision", "device"):
            choices = PRECISIONS if name == "precision" else DEVICES
            if value not in choices:
                raise DigestError(f"{pyproject}: {key!r} must be one of {', '.join(choices)}")
            values[name] = value
        else:
            values[name] = str(value)
    return Settings(project_root=project_root, **values)  # type: ignore[arg-type]
