"""What search by meaning costs a reader, in Chromium, on a built site (the real one, or the page
sites ``search_relevance.py`` writes): the model's load time (fetch, compile, first run, with an empty
cache), the time from a query to its nearest papers once loaded, and the bytes fetched: the model and
runtime once, then per query (the vectors, or past a size the probed codes, reranked rows and result
files).

    PYTHONPATH=. python benchmarks/meaning_search.py SITE_DIR [--queries 40] [--runs 3] [--model quick]
    PYTHONPATH=. python benchmarks/meaning_search.py SITE_DIR --scale VECTORS.npy CORPUS.jsonl OUT_DIR

``--model``: ``full`` (the digest's model, the "Full model" switch) or ``quick`` (the box's default
encoder; the papers' vectors and result files are the same). On a real site (one with the header's
search box), ``box_ms`` is the search box itself: the question put in the box as typed, to the fused
list drawn by that encoder (its wait for more keys included).

With ``--scale``, a copy of the built site in ``OUT_DIR`` gets the meaning files of another corpus (its
papers and their build vectors, one row each, e.g. ``scale_50k.jsonl``), written by the build's own
``meaning_files``: the browser's cost at a size without building a site of that size.
Queries: the paper titles' first words and some questions.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.local_server import serving
from generator.analysis.onnx_export import OnnxModel
from generator.site.meaning_index import MeaningPaper, meaning_files, read_encoder_files, snippet

QUESTIONS = [
    "making transformers cheaper at inference",
    "why does Adam generalise worse than SGD",
    "robots learning from watching people",
    "privacy of training data in language models",
    "faster sampling for diffusion models",
    "graphs with millions of nodes",
    "uncertainty of a model's predictions",
    "learning without labels",
]

LOAD = """
async (model) => {
  const started = performance.now();
  if (model === 'full') await window.paperMeaning.ready();
  await window.paperMeaning.search('warm up', 10, model);
  const ms = performance.now() - started;
  const bytes = performance.getEntriesByType('resource')
    .filter(e => /\\/meaning\\/|onnxruntime-web/.test(e.name))
    .reduce((sum, e) => sum + (e.encodedBodySize || e.transferSize || 0), 0);
  return { ms, bytes, fetched: window.paperMeaning.fetched.bytes };
}
"""

QUERY = """
async ([query, model]) => {
  const before = window.paperMeaning.fetched.bytes;
  const started = performance.now();
  const results = await window.paperMeaning.search(query, 10, model);
  return { ms: performance.now() - started, bytes: window.paperMeaning.fetched.bytes - before,
           results: results.length };
}
"""


BOX = """
async ([query, model]) => {
  const input = document.querySelector('.paper-search input.md-search__input');
  const meta = document.querySelector('.paper-search .md-search-result__meta');
  const list = document.querySelector('.paper-search .md-search-result__list');
  if (!input) return null;
  input.focus();
  meta.textContent = '';
  delete meta.dataset.mode;
  const started = performance.now();
  input.value = query;
  input.dispatchEvent(new Event('input'));
  await new Promise((resolve) => {
    const done = () =>
      meta.dataset.mode === model && meta.dataset.query === query && list.children.length > 0
      && /nearest in meaning/.test(meta.textContent);
    const observer = new MutationObserver(() => {
      if (done()) { observer.disconnect(); resolve(); }
    });
    observer.observe(document.querySelector('.paper-search'),
      { subtree: true, childList: true, attributes: true, characterData: true });
  });
  return performance.now() - started;
}
"""


def measure(site: Path, queries: list[str], runs: int, model: str = "full") -> dict:
    from playwright.sync_api import sync_playwright

    loads, per_query, box = [], [], []
    with serving(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        for _ in range(runs):
            context = browser.new_context()  # an empty cache each run
            if model == "full":  # the reader's choice, as the switch stores it
                context.add_init_script("localStorage.setItem('paper-digest-meaning-model', 'full')")
            tab = context.new_page()
            tab.goto(url)
            loads.append(tab.evaluate(LOAD, model))
            per_query += [tab.evaluate(QUERY, [query, model]) for query in queries]
            box += [tab.evaluate(BOX, [query, model]) for query in queries]
            context.close()
        browser.close()
    index = json.loads((site / "meaning" / "index.json").read_text(encoding="utf-8"))
    first_of_run = [per_query[i] for i in range(0, len(per_query), len(queries))]
    box_ms = [ms for ms in box if ms is not None]
    return {
        "model": model,
        "papers": index["papers"],
        "clusters": len(index["clusters"]),
        "probe": index["probe"],
        "load_ms": [round(load["ms"]) for load in loads],
        "load_bytes": loads[0]["bytes"],
        "query_ms_median": round(statistics.median(q["ms"] for q in per_query)),
        "query_ms_max": round(max(q["ms"] for q in per_query)),
        "query_bytes_max": max(q["bytes"] for q in per_query),
        "first_query_bytes": [q["bytes"] for q in first_of_run],
        "box_ms_median": round(statistics.median(box_ms)) if box_ms else None,
        "box_ms_max": round(max(box_ms)) if box_ms else None,
    }


def scaled_site(site: Path, vectors_path: Path, corpus: Path, out: Path) -> Path:
    """A copy of ``site`` whose meaning files hold ``corpus``'s papers and vectors."""
    meaning = site / "meaning"
    index = json.loads((meaning / "index.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    vectors = np.load(vectors_path).astype(np.float32)
    papers = [
        MeaningPaper(
            row["id"],
            f"papers/{row['id'].replace(':', '-')}/",
            row.get("title") or "",
            ", ".join(row.get("authors") or []),
            snippet(row["abstract"]),
        )
        for row in rows
    ]
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(site, out, ignore=shutil.ignore_patterns("*.bin", "papers-*.json", "ids.json"))
    index["full_model_bytes"] = index.get("full_model_bytes", 0) - (meaning / "model.onnx").stat().st_size
    with tempfile.TemporaryDirectory() as folder:
        exported = OnnxModel(Path(folder), **index["tokenizer"])
        shutil.copy(meaning / "model.onnx", exported.model_file)
        shutil.copy(meaning / "vocab.txt", exported.vocabulary_file)
        files = meaning_files(
            papers,
            vectors,
            exported,
            read_encoder_files(site_files(meaning)),
            index.get("full_model_bytes", 0),
        )
    for name, data in files.items():
        (out / name).write_bytes(data)
    return out


def site_files(meaning: Path) -> dict[str, bytes]:
    return {f"meaning/{path.name}": path.read_bytes() for path in meaning.iterdir() if path.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--queries", type=int, default=24)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scale", nargs=3, type=Path, metavar=("VECTORS", "CORPUS", "OUT"))
    parser.add_argument("--model", choices=("full", "quick"), default="full")
    args = parser.parse_args()
    site = scaled_site(args.site, *args.scale) if args.scale else args.site
    queries = list(QUESTIONS)
    names = sorted((site / "meaning").glob("papers-*.json"), key=lambda name: int(name.stem.split("-")[1]))
    papers = [row for name in names for row in json.loads(name.read_text(encoding="utf-8"))]
    step = max(1, len(papers) // max(1, args.queries - len(queries)))
    queries += [" ".join(row[2].split()[:6]) for row in papers[::step]][: max(0, args.queries - len(queries))]
    print(json.dumps(measure(site, queries, args.runs, args.model), indent=1))


if __name__ == "__main__":
    main()
