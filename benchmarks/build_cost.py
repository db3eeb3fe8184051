"""What a change costs the build and the site: this checkout against an earlier revision, side by side.

    python benchmarks/build_cost.py BASELINE_REV [CORPUS.jsonl] [--rounds 2] [--work DIR]

(default corpus: ../shared/corpora/icml2024.jsonl, keywords and labels stripped). The baseline is
exported from git into a temporary folder (``git archive``, the checkout is left alone). Each round
runs one cold build (empty cache) with each code tree, in alternating order, so a machine that slows
down or speeds up during the run weighs on both alike; the median of the rounds is compared. Also
printed: the build without its embedding stage (what page changes cost is hidden in the embedding's
noise otherwise), and each site's size, page count and largest page.

This machine's speed varies by a fifth between runs, so only the ratios of one run mean anything.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from scale import DEFAULT_CORPUS, STAGE_LINE, _env, load_stripped, site_facts, write_jsonl  # noqa: E402


def export_revision(revision: str, into: Path) -> Path:
    """The files of ``revision`` (the repository's, not the working tree's) in ``into``."""
    archive = into / "baseline.tar"
    subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "archive", "--format=tar", "-o", str(archive), revision], check=True
    )
    tree = into / "baseline"
    with tarfile.open(archive) as handle:
        handle.extractall(tree, filter="data")
    archive.unlink()
    return tree


def build_with(code_tree: Path, input_path: Path, work: Path) -> tuple[float, dict[str, float]]:
    """One ``paper-digest build`` into ``work`` by the ``generator`` package of ``code_tree``: its wall
    time and its stages' seconds."""
    command = [
        sys.executable, "-m", "generator", "build", str(input_path), "--name", "Benchmark digest",
        "--project", str(code_tree),
        "--docs-dir", str(work / "docs"), "--site-dir", str(work / "site"),
        "--cache-dir", str(work / "cache"),
    ]  # fmt: skip
    start = time.perf_counter()
    result = subprocess.run(
        command, capture_output=True, text=True, cwd=code_tree, env={**_env(), "PYTHONPATH": str(code_tree)}
    )
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"build with {code_tree} failed:\n{result.stderr[-3000:]}")
    return wall, {name: float(seconds) for name, seconds in STAGE_LINE.findall(result.stderr)}


def cold_build(code_tree: Path, input_path: Path, work: Path) -> dict:
    """One build with an empty cache, run by the ``generator`` package of ``code_tree``."""
    for folder in ("docs", "site", "cache"):
        subprocess.run(["rm", "-rf", str(work / folder)], check=True)
    wall, stages = build_with(code_tree, input_path, work)
    embedding = sum(seconds for name, seconds in stages.items() if name.startswith("embed"))
    return {
        "wall": wall,
        "without_embedding": wall - embedding,
        "stages": stages,
        "site": site_facts(work / "site"),
    }


def comparison(
    description: str, rounds: int, prefix: str
) -> tuple[argparse.Namespace, Path, Path, list[dict], dict[str, Path]]:
    """The command line of a side-by-side benchmark, its working folder, the stripped corpus written
    there and the two code trees (the baseline exported from git, this checkout)."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("baseline", help="a git revision of this repository, e.g. a commit before the change")
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--work", type=Path, help="working folder (default: a temporary one)")
    arguments = parser.parse_args()
    if not arguments.corpus.is_file():
        sys.exit(f"{arguments.corpus}: no such corpus")
    work = arguments.work or Path(tempfile.mkdtemp(prefix=prefix))
    work.mkdir(parents=True, exist_ok=True)
    papers = load_stripped([arguments.corpus])
    input_path = work / "input.jsonl"
    write_jsonl(papers, input_path)
    trees = {"baseline": export_revision(arguments.baseline, work), "this checkout": PROJECT_ROOT}
    print(f"corpus {arguments.corpus.name} ({len(papers):,} papers); baseline {arguments.baseline}",
          flush=True)  # fmt: skip
    return arguments, work, input_path, papers, trees


def main() -> None:
    arguments, work, input_path, _, trees = comparison(__doc__, 2, "paper-digest-cost-")
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    for round_number in range(arguments.rounds):
        order = list(trees) if round_number % 2 == 0 else list(reversed(trees))
        for label in order:
            run = cold_build(trees[label], input_path, work / label.replace(" ", "-"))
            runs[label].append(run)
            print(f"round {round_number + 1}, {label}: {run['wall']:.1f}s "
                  f"({run['without_embedding']:.1f}s without embedding)", flush=True)  # fmt: skip
            # which stage a change costs: the build's own stage lines ("keywords: 12.3s")
            print("  " + ", ".join(f"{name} {seconds:.1f}s" for name, seconds in run["stages"].items()))

    medians = {
        label: (
            statistics.median(run["wall"] for run in results),
            statistics.median(run["without_embedding"] for run in results),
        )
        for label, results in runs.items()
    }
    base_wall, base_rest = medians["baseline"]
    print()
    print(f"{'':<14} {'cold s':>8} {'w/o embed s':>12} {'site MB':>8} {'pages':>6} "
          f"{'largest KB':>11}")  # fmt: skip
    for label, results in runs.items():
        wall, rest = medians[label]
        site = results[-1]["site"]
        print(f"{label:<14} {wall:>8.1f} {rest:>12.1f} {site['site_mb']:>8.1f} {site['pages']:>6} "
              f"{site['largest_page_kb']:>11.1f}  ({site['largest_page']})")  # fmt: skip
    wall, rest = medians["this checkout"]
    print(f"\nthis checkout / baseline: cold build {wall / base_wall:.3f}, "
          f"without the embedding {rest / base_rest:.3f} (medians of {arguments.rounds} rounds)")  # fmt: skip


if __name__ == "__main__":
    main()
