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

import shutil
import statistics
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from build_cost import build_with, comparison  # noqa: E402
from scale import write_jsonl  # noqa: E402


def build(code_tree: Path, input_path: Path, work: Path) -> dict:
    wall, stages = build_with(code_tree, input_path, work)
    # "mkdocs build (pages of 3 changed files)" and the like: one stage, whatever it changed.
    return {"wall": wall, "stages": {name.split(" (")[0]: seconds for name, seconds in stages.items()}}


def _stages(seconds_by_stage: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.1f}" for name, seconds in seconds_by_stage.items() if seconds >= 0.5)


def main() -> None:
    arguments, work, input_path, papers, trees = comparison(__doc__, 3, "paper-digest-edit-")
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
