"""What a change costs the rebuild after one edited abstract: this checkout against an earlier revision.

    python benchmarks/edit_cost.py BASELINE_REV [CORPUS.jsonl] [--rounds 3] [--work DIR]

(default corpus: ../shared/corpora/icml2024.jsonl, keywords and labels stripped). One cold build
with this checkout fills an embedding cache; each code tree then gets its own copy of it and builds
its own docs and site once (not timed). Each round then edits one more abstract (a different paper
each round, the same edits for both trees, so every edit has a new text to embed, as a real one
does) and rebuilds with each tree, in alternating order, so a machine that slows down or speeds up
weighs on both alike. Printed: each rebuild's wall time and stage times, and the medians.

This machine's speed varies by a fifth between runs, so only the ratios of one run mean anything.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from build_cost import export_revision  # noqa: E402
from scale import DEFAULT_CORPUS, STAGE_LINE, _env, load_stripped, write_jsonl  # noqa: E402


def build(code_tree: Path, input_path: Path, work: Path) -> dict:
    """One ``paper-digest build`` of ``input_path`` into ``work``, run by the package of ``code_tree``."""
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
    # "mkdocs build (pages of 3 changed files)" and the like: one stage, whatever it changed.
    stages = {name.split(" (")[0]: float(s) for name, s in STAGE_LINE.findall(result.stderr)}
    return {"wall": wall, "stages": stages}


def _stages(seconds_by_stage: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.1f}" for name, seconds in seconds_by_stage.items() if seconds >= 0.5)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("baseline", help="a git revision of this repository, e.g. a commit before the change")
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, help="working folder (default: a temporary one)")
    arguments = parser.parse_args()
    if not arguments.corpus.is_file():
        sys.exit(f"{arguments.corpus}: no such corpus")

    work = arguments.work or Path(tempfile.mkdtemp(prefix="paper-digest-edit-"))
    work.mkdir(parents=True, exist_ok=True)
    papers = load_stripped([arguments.corpus])
    input_path = work / "input.jsonl"
    write_jsonl(papers, input_path)
    trees = {"baseline": export_revision(arguments.baseline, work), "this checkout": PROJECT_ROOT}
    print(f"corpus {arguments.corpus.name} ({len(papers):,} papers); baseline {arguments.baseline}",
          flush=True)  # fmt: skip

    filled = work / "filled"
    if (filled / "site").is_dir():  # a cache a run of this script on the same --work filled
        print("embedding cache: the one in --work", flush=True)
    else:
        cold = build(PROJECT_ROOT, input_path, filled)
        print(f"cold build filling the embedding cache: {cold['wall']:.1f}s", flush=True)
    folders = {label: work / f"build-{label.replace(' ', '-')}" for label in trees}
    for label, folder in folders.items():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        shutil.copytree(filled / "cache", folder / "cache")
        first = build(trees[label], input_path, folder)
        print(f"{label}: own docs and site built from the cache in {first['wall']:.1f}s", flush=True)

    runs: dict[str, list[dict]] = {label: [] for label in trees}
    edited = [dict(paper) for paper in papers]
    for round_number in range(arguments.rounds):
        # Papers spread over the digest, each edited once: a new text to embed every round.
        paper = edited[(round_number * 7919 + len(papers) // 2) % len(papers)]
        paper["abstract"] = f"{paper['abstract']} We release our code (revision {round_number + 1})."
        write_jsonl(edited, input_path)
        order = list(trees) if round_number % 2 == 0 else list(reversed(trees))
        for label in order:
            run = build(trees[label], input_path, folders[label])
            runs[label].append(run)
            line = f"round {round_number + 1}, {label}: {run['wall']:.1f}s ({_stages(run['stages'])})"
            print(line, flush=True)

    medians = {label: statistics.median(run["wall"] for run in results) for label, results in runs.items()}
    print()
    for label, results in runs.items():
        stage_names = dict.fromkeys(name for run in results for name in run["stages"])
        stage_medians = {
            name: statistics.median(run["stages"].get(name, 0.0) for run in results) for name in stage_names
        }
        print(f"{label:<14} edit rebuild {medians[label]:6.1f}s   stages: {_stages(stage_medians)}")
    ratio = medians["this checkout"] / medians["baseline"]
    print(f"\nthis checkout / baseline: edit rebuild {ratio:.3f} (medians of {arguments.rounds} rounds)")


if __name__ == "__main__":
    main()
