"""What each renderer costs: a cold site build and a one-abstract edit with MkDocs + Material and with
Zensical, side by side in one run, the renderer's own time apart from the rest.

    python benchmarks/engine_cost.py [CORPUS.jsonl] [--work DIR] [--engines mkdocs zensical]

(default corpus: ../shared/corpora/icml2024.jsonl). A first build without a site fills the embedding
and analysis caches (timed once, engine-free). Then, for each engine in turn: a cold build (new docs
and site folders, the analysis reused from the cache) and, after one abstract is edited and the edit
analysed once by a site-less build, the rebuild of that engine's site. Each row: the build's wall
time, the engine's own time (``render``), the finishing stage's (``finish``: minify, CSP, shared files,
Pagefind) and the rest (Markdown, staging, publishing), and the site's size. MkDocs updates a copy of
the last site (only changed pages rendered); Zensical renders every page each build, with its own
cache (``.cache/`` beside mkdocs.yml, removed before its cold build).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator import build as build_module  # noqa: E402
from generator.build import BuildRequest, build_digest  # noqa: E402
from generator.progress import Reporter  # noqa: E402
from generator.project.settings import ENGINES, Settings  # noqa: E402

DEFAULT_CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "icml2024.jsonl"


def folder_size(folder: Path) -> tuple[int, int]:
    files = [path for path in folder.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def timed_build(settings: Settings, request: BuildRequest) -> dict[str, float]:
    reports = []
    real = build_module.build_site

    def recording(*arguments, **options):
        report = real(*arguments, **options)
        reports.append(report)
        return report

    build_module.build_site = recording
    try:
        started = time.perf_counter()
        build_digest(settings, request, Reporter(quiet=True))
        wall = time.perf_counter() - started
    finally:
        build_module.build_site = real
    render = sum(report.render_seconds for report in reports)
    finish = sum(report.finish_seconds for report in reports)
    return {"wall": wall, "render": render, "finish": finish, "rest": wall - render - finish}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path, nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=ENGINES)
    arguments = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    work = arguments.work or Path(tempfile.mkdtemp(prefix="paper-digest-engines-"))
    work.mkdir(parents=True, exist_ok=True)
    # The digest folder: mkdocs.yml beside the docs and sites (Zensical builds only inside it).
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", work / "mkdocs.yml")
    papers = [json.loads(line) for line in arguments.corpus.read_text(encoding="utf-8").splitlines() if line]
    source = work / "abstracts" / "papers.jsonl"
    source.parent.mkdir(parents=True, exist_ok=True)

    def write(records: list[dict]) -> None:
        source.write_text(
            "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in records), encoding="utf-8"
        )

    write(papers)
    base = Settings(project_root=work, cache_dir=Path("cache"), mkdocs_config=work / "mkdocs.yml")
    warm = BuildRequest((source,), work / "analysis-docs", None)
    started = time.perf_counter()
    build_digest(base, warm, Reporter(quiet=True))
    print(
        f"{arguments.corpus.name}: {len(papers)} papers; analysis and Markdown, no site: "
        f"{time.perf_counter() - started:.1f}s",
        flush=True,
    )

    rows: list[tuple[str, str, dict[str, float], tuple[int, int]]] = []
    for engine in arguments.engines:
        folder = work / engine
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(work / ".cache", ignore_errors=True)  # Zensical's own cache: a cold build has none
        request = BuildRequest((source,), folder / "docs", folder / "site")
        times = timed_build(replace(base, engine=engine), request)
        rows.append((engine, "cold", times, folder_size(folder / "site")))
        print(f"  {engine} cold: {times}", flush=True)
    edited = [dict(paper) for paper in papers]
    edited[len(edited) // 2]["abstract"] += " We release our code."
    write(edited)
    build_digest(base, warm, Reporter(quiet=True))  # the edit analysed once, for every engine
    for engine in arguments.engines:
        folder = work / engine
        request = BuildRequest((source,), folder / "docs", folder / "site")
        times = timed_build(replace(base, engine=engine), request)
        rows.append((engine, "edit", times, folder_size(folder / "site")))
        print(f"  {engine} edit: {times}", flush=True)

    print("\n| engine | build | wall s | render s | finish s | rest s | site files | site MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for engine, kind, times, (files, size) in rows:
        print(
            f"| {engine} | {kind} | {times['wall']:.1f} | {times['render']:.1f} | {times['finish']:.1f} "
            f"| {times['rest']:.1f} | {files:,} | {size / 1e6:.1f} |"
        )


if __name__ == "__main__":
    main()
