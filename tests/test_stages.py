"""The stages' imports: the analysis never reaches into the cache, and only the pipeline opens it.

Read from the source with ``ast`` (every ``import`` and ``from … import``, at any depth, relative ones
resolved), so a lazy import inside a function counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "generator"


def module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_in(source: str, package: str) -> set[str]:
    """Every module ``source`` imports, by full name (``from a import b`` counts ``a`` and ``a.b``);
    ``package`` is the one the source's relative imports start from."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[: len(parts) - (node.level - 1)])
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def imports_of(path: Path) -> set[str]:
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package)


def reaches(imported: str, target: str) -> bool:
    return imported == target or imported.startswith(target + ".")


def cache_imports(imported: set[str]) -> list[str]:
    return sorted(name for name in imported if reaches(name, "generator.cache"))


def test_no_analysis_module_imports_the_cache() -> None:
    modules = sorted((PACKAGE / "analysis").rglob("*.py"))
    assert len(modules) > 10
    offenders = {module_name(path): cache_imports(imports_of(path)) for path in modules}
    assert {name: found for name, found in offenders.items() if found} == {}


@pytest.mark.parametrize(
    "source",
    [
        "import generator.cache.database",
        "from generator.cache import database",
        "from generator.cache.database import open_cache",
        "from generator import cache",
        "def lazily():\n    from ..cache.database import CacheDatabase\n",
    ],
)
def test_the_check_sees_every_form_of_import(source: str) -> None:
    assert cache_imports(imports_in(source, "generator.analysis"))


def test_the_check_passes_other_imports() -> None:
    source = "from generator.analysis.fit import DigestFit\nfrom . import related\nimport generator.model\n"
    assert cache_imports(imports_in(source, "generator.analysis")) == []


def test_only_the_pipeline_and_the_cache_open_the_cache_database() -> None:
    """``open_cache`` and ``CacheDatabase`` are used by the cache's own modules and by the build
    (``generator.build``), which opens the one connection and hands it to every store."""
    opening = {"generator.cache.database.open_cache", "generator.cache.database.CacheDatabase"}
    users = {
        module_name(path)
        for path in PACKAGE.rglob("*.py")
        if not module_name(path).startswith("generator.cache") and opening & imports_of(path)
    }
    assert users == {"generator.build"}


def cache_folder_parameters(source: str) -> list[str]:
    """The functions of ``source`` that take the cache folder (a parameter named ``cache_dir``): a step
    that does keeps its own files, which is the pipeline's business (``generator.cache``)."""
    return sorted(
        node.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(argument.arg == "cache_dir" for argument in [*node.args.args, *node.args.kwonlyargs])
    )


def test_no_analysis_step_keeps_files_in_the_cache_folder() -> None:
    offenders = {
        module_name(path): cache_folder_parameters(path.read_text(encoding="utf-8"))
        for path in sorted((PACKAGE / "analysis").rglob("*.py"))
    }
    assert {name: found for name, found in offenders.items() if found} == {}
    assert cache_folder_parameters("def keep(vectors, cache_dir):\n    pass\n") == ["keep"]
