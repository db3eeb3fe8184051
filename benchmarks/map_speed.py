"""Paper map speed in Chromium: how soon the map is drawn and how smoothly it pans, the shipped canvas
map against the SVG map it replaced, on the same pages and data.

For each size a static folder gets a generated ``assets/paper-map.js`` of N clustered random papers
(the generator's shape: ``[x, y, topic, title, url]``, titles and links as long as real ones) and two
pages that differ only in their map.js: the shipped one and the SVG one from git (``--old-ref``; if
that revision already holds the canvas map, the newest SVG version in the file's history). The folder
is served by http.server in a thread and opened in Debian's Chromium (never ``playwright install``).

Measured, per size and map:

- drawn: from navigation start to the frame after the one that first showed the map (the map sets
  ``data-ready`` when it is built; two animation frames later that frame's style, layout and paint
  are done). It covers loading and parsing the data, building the map and the browser's work to
  show it. In the page (``performance.now()``, from navigation start) and in wall time (from
  ``page.goto`` until Playwright sees it); the median of ``--repeat`` loads, each in a fresh context.
- pan: a drag of ``--moves`` pointer moves across the whole map (every paper on screen, the heaviest
  pan), timing every animation frame while it lasts: median, 95th percentile and worst frame, and
  the frames over 50 ms.

Usage:
  python benchmarks/map_speed.py [--sizes 57,2634,50000] [--moves 60] [--repeat 3] [--dpr 1]
                                 [--old-ref HEAD] [--work DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

MAP_JS = "generator/site/assets/javascripts/map.js"
DATA_PREFIX = "window.paperDigestMap = "
VIEWPORT = {"width": 1280, "height": 800}
SLOW_FRAME_MS = 50
_WORD_TEXT = (
    "learning neural graph attention diffusion model language reinforcement policy robust adversarial "
    "sparse transformer optimal transport kernel bayesian inference causal representation contrastive "
    "federated privacy generative flow score matching convex gradient descent stochastic variance "
    "reduction meta few-shot benchmark scaling laws mixture experts retrieval memory efficient "
    "quantization pruning distillation vision multimodal alignment reward offline planning"
)
WORDS = _WORD_TEXT.split()

# Both maps set data-ready on their element when built. The frame after that shows it; a callback
# two frames on runs once that frame's style, layout and paint are done.
WATCH_READY = """
(() => {
  const watch = new MutationObserver(() => {
    const host = document.querySelector('.paper-map');
    if (!host || host.dataset.ready !== 'true') return;
    watch.disconnect();
    const ready = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => {
      window.__mapTiming = { ready, painted: performance.now() };
      document.documentElement.dataset.mapPainted = 'true';
    }));
  });
  watch.observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
})();
"""
START_FRAMES = """() => {
  window.__frames = [];
  window.__framesOn = true;
  const tick = (t) => { window.__frames.push(t); if (window.__framesOn) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}"""
STOP_FRAMES = """() => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(() => {
  window.__framesOn = false;
  resolve(window.__frames);
})))"""
DRAWN_POINTS = """() => {
  const host = document.querySelector('.paper-map');
  return host.dataset.drawn !== undefined ? Number(host.dataset.drawn)
    : host.querySelectorAll('svg circle').length;
}"""
THEME_CSS = """:root { --md-default-bg-color: #fff; --md-default-fg-color: rgba(0, 0, 0, .87);
  --md-default-fg-color--light: rgba(0, 0, 0, .54); --md-default-fg-color--lighter: rgba(0, 0, 0, .32);
  --md-default-fg-color--lightest: rgba(0, 0, 0, .07); --md-accent-fg-color: #526cfe;
  --md-shadow-z2: 0 .2rem .5rem rgba(0, 0, 0, .1); }
body { margin: 0; font: 16px/1.5 sans-serif; color: var(--md-default-fg-color); }
main { max-width: 960px; margin: 0 auto; padding: 1rem; }
"""


def _git(*arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], cwd=PROJECT_ROOT, check=True, capture_output=True, text=True
    ).stdout


def old_svg_map(ref: str) -> tuple[str, str]:
    """The SVG map.js at ``ref`` or, when that is already the canvas map, the newest SVG one."""
    text = _git("show", f"{ref}:{MAP_JS}")
    if "createElementNS" in text:
        return ref, text
    for commit in _git("log", "--format=%H", ref, "--", MAP_JS).split():
        text = _git("show", f"{commit}:{MAP_JS}")
        if "createElementNS" in text:
            return commit[:12], text
    raise SystemExit(f"no SVG version of {MAP_JS} in the history of {ref}")


def clustered_map(count: int, seed: int) -> dict:
    """``count`` papers in topic clusters of Zipf-like sizes, a few without a topic, as render.py
    writes them."""
    rng = random.Random(seed)
    topic_count = max(3, min(60, round(count**0.4)))
    weights = [1 / (rank + 1) ** 0.8 for rank in range(topic_count)]
    topics, clusters = [], []
    for index in range(topic_count):
        words = rng.sample(WORDS, 3)
        slug = f"{'-'.join(words[:2])}-{index}"
        label = f"{words[0]} {words[1]} · {words[2]}"
        topics.append({"label": label, "slug": slug, "url": f"topics/{slug}/"})
        clusters.append((rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.02, 0.07)))
    papers = []
    for index in range(count):
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12))).capitalize()
        url = f"papers/{'-'.join(title.lower().split()[:6])}-{index}/"
        if rng.random() < 0.04:
            x, y, topic = rng.random(), rng.random(), -1
        else:
            topic = rng.choices(range(topic_count), weights)[0]
            cx, cy, spread = clusters[topic]
            x, y = (min(1.0, max(0.0, rng.gauss(c, spread))) for c in (cx, cy))
        papers.append([round(x, 4), round(y, 4), topic, title, url])
    return {"topics": topics, "papers": papers}


def write_pages(work: Path, sizes: list[int], maps: dict[str, str], seed: int) -> dict[int, float]:
    """One folder per size: its data and a page per map. Returns each data file's size in MB."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "theme.css").write_text(THEME_CSS, encoding="utf-8")
    for name, script in maps.items():
        (work / name).mkdir(parents=True, exist_ok=True)
        (work / name / "map.js").write_text(script, encoding="utf-8")
    megabytes = {}
    for count in sizes:
        folder = work / f"n{count}"
        (folder / "assets").mkdir(parents=True, exist_ok=True)
        data = DATA_PREFIX + json.dumps(clustered_map(count, seed), separators=(",", ":")) + ";\n"
        (folder / "assets" / "paper-map.js").write_text(data, encoding="utf-8")
        megabytes[count] = len(data.encode()) / 1e6
        for name in maps:
            (folder / f"{name}.html").write_text(
                '<!doctype html><html><head><meta charset="utf-8"><title>Paper map</title>'
                '<link rel="stylesheet" href="../theme.css"></head><body><main><h1>Paper map</h1>'
                '<div class="paper-map" data-src="assets/paper-map.js" data-root="../"></div></main>'
                f'<script src="../{name}/map.js"></script></body></html>\n',
                encoding="utf-8",
            )
    return megabytes


def load_once(browser, url: str, dpr: float, timeout_s: float):
    """A fresh context (nothing cached) opening ``url``: (page, in-page ms, wall ms)."""
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=dpr)
    context.add_init_script(WATCH_READY)
    page = context.new_page()
    started = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_selector("html[data-map-painted]", state="attached", timeout=timeout_s * 1000)
    wall = (time.perf_counter() - started) * 1000
    return page, page.evaluate("window.__mapTiming.painted"), wall


def frame_times(page, gesture) -> dict:
    """The times between animation frames while ``gesture`` (a function of the page) runs."""
    page.wait_for_timeout(300)  # let the first frames and any late work settle
    page.evaluate(START_FRAMES)
    started = time.perf_counter()
    gesture(page)
    frames = page.evaluate(STOP_FRAMES)
    seconds = time.perf_counter() - started
    deltas = sorted(b - a for a, b in itertools.pairwise(frames))
    return {
        "frames": len(deltas),
        "median_ms": statistics.median(deltas),
        "p95_ms": deltas[min(len(deltas) - 1, math.ceil(0.95 * len(deltas)) - 1)],
        "worst_ms": deltas[-1],
        "slow_frames": sum(d > SLOW_FRAME_MS for d in deltas),
        "seconds": seconds,
    }


def map_box(page) -> dict:
    frame = page.locator(".paper-map__view, .paper-map svg").first
    frame.scroll_into_view_if_needed()
    return frame.bounding_box()


def drag(moves: int):
    """A drag across the whole map at full view: every paper on screen, the heaviest pan."""

    def gesture(page) -> None:
        box = map_box(page)
        x0, y = box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.5
        distance = box["width"] * 0.4
        page.mouse.move(x0, y)
        page.mouse.down()
        for step in range(1, moves + 1):
            page.mouse.move(x0 + distance * step / moves, y + 30 * math.sin(step / moves * 2 * math.pi))
        page.mouse.up()

    return gesture


def wheel(steps: int):
    """Scrolling in at the map's centre, one wheel step at a time (each step redraws every dot)."""

    def gesture(page) -> None:
        box = map_box(page)
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        for _ in range(steps):
            page.mouse.wheel(0, -60)

    return gesture


def measure(work: Path, sizes: list[int], names: list[str], args: argparse.Namespace) -> list[dict]:
    from tests.browser_support import SiteServer, launched_chromium

    rows = []
    server = SiteServer(work)
    try:
        with launched_chromium() as browser:
            for count in sizes:
                for name in names:
                    url = f"{server.origin}/n{count}/{name}.html"
                    page_ms, wall_ms = [], []
                    for attempt in range(args.repeat):
                        page, in_page, wall = load_once(browser, url, args.dpr, args.timeout)
                        page_ms.append(in_page)
                        wall_ms.append(wall)
                        if attempt < args.repeat - 1:
                            page.context.close()
                    drawn = page.evaluate(DRAWN_POINTS)
                    nodes = page.evaluate("document.getElementsByTagName('*').length")
                    panned = frame_times(page, drag(args.moves))
                    zoomed = frame_times(page, wheel(args.wheel))
                    page.context.close()
                    rows.append(
                        {
                            "points": count,
                            "map": name,
                            "drawn_points": drawn,
                            "dom_nodes": nodes,
                            "drawn_page_ms": statistics.median(page_ms),
                            "drawn_wall_ms": statistics.median(wall_ms),
                            **panned,
                            "zoom_p95_ms": zoomed["p95_ms"],
                            "zoom_worst_ms": zoomed["worst_ms"],
                            "zoom_slow_frames": zoomed["slow_frames"],
                        }
                    )
                    print(f"  measured {name} at {count:,} points", file=sys.stderr, flush=True)
    finally:
        server.close()
    return rows


COLUMNS = (
    # title, width, the cell of one measurement, what old over new is a ratio of
    ("points", 7, lambda r, mb: f"{r['points']:,}", None),
    ("map", 7, lambda r, mb: {"old": "old svg", "new": "new cnv"}[r["map"]], None),
    ("data MB", 7, lambda r, mb: f"{mb[r['points']]:.2f}", None),
    ("drawn", 7, lambda r, mb: f"{r['drawn_points']:,}", None),
    ("DOM", 7, lambda r, mb: f"{r['dom_nodes']:,}", "dom_nodes"),
    ("open ms", 8, lambda r, mb: f"{r['drawn_page_ms']:.0f}", "drawn_page_ms"),
    ("wall ms", 8, lambda r, mb: f"{r['drawn_wall_ms']:.0f}", "drawn_wall_ms"),
    ("│", 1, lambda r, mb: "│", "│"),
    ("frames", 6, lambda r, mb: f"{r['frames']}", None),
    ("median", 7, lambda r, mb: f"{r['median_ms']:.1f}", "median_ms"),
    ("p95", 7, lambda r, mb: f"{r['p95_ms']:.1f}", "p95_ms"),
    ("worst", 7, lambda r, mb: f"{r['worst_ms']:.0f}", "worst_ms"),
    (">50ms", 5, lambda r, mb: f"{r['slow_frames']}", None),
    ("drag s", 6, lambda r, mb: f"{r['seconds']:.1f}", "seconds"),
    ("│", 1, lambda r, mb: "│", "│"),
    ("zoom p95", 8, lambda r, mb: f"{r['zoom_p95_ms']:.1f}", "zoom_p95_ms"),
    ("worst", 7, lambda r, mb: f"{r['zoom_worst_ms']:.0f}", "zoom_worst_ms"),
    (">50ms", 5, lambda r, mb: f"{r['zoom_slow_frames']}", None),
)


def print_table(
    rows: list[dict], megabytes: dict[int, float], old_label: str, args: argparse.Namespace
) -> None:
    print(
        f"old = SVG map.js from {old_label}; new = canvas map.js in the work tree;"
        f" device pixel ratio {args.dpr:g}"
    )
    print(
        "open, wall: ms from navigation to the map drawn (median of"
        f" {args.repeat}); frames, median, p95, worst, >50ms: ms between frames"
        f" during a drag of {args.moves} moves; zoom: the same during {args.wheel} wheel steps"
    )
    header = " ".join(f"{title:>{width}}" for title, width, _, _ in COLUMNS)
    print(header)
    print("─" * len(header))
    by_key = {(r["points"], r["map"]): r for r in rows}
    for count in sorted({r["points"] for r in rows}):
        for name in ("old", "new"):
            if (count, name) in by_key:
                cells = (cell(by_key[count, name], megabytes) for _, _, cell, _ in COLUMNS)
                print(
                    " ".join(
                        f"{text:>{width}}" for text, (_, width, _, _) in zip(cells, COLUMNS, strict=True)
                    )
                )
        old, new = by_key.get((count, "old")), by_key.get((count, "new"))
        if old and new:
            ratios = []
            for title, width, _, key in COLUMNS:
                text = "old/new" if title == "map" else key if key == "│" else ""
                if key and key != "│":
                    text = f"{old[key] / new[key]:.1f}×"
                ratios.append(f"{text:>{width}}")
            print(" ".join(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="57,2634,50000", help="papers per map, comma-separated")
    parser.add_argument("--moves", type=int, default=60, help="pointer moves in the drag")
    parser.add_argument("--wheel", type=int, default=20, help="wheel steps in the zoom")
    parser.add_argument("--repeat", type=int, default=3, help="loads per map and size (median reported)")
    parser.add_argument("--dpr", type=float, default=1.0, help="device pixel ratio of the page")
    parser.add_argument("--old-ref", default="HEAD", help="git revision of the SVG map.js")
    parser.add_argument("--only", choices=("old", "new"), help="measure one map only")
    parser.add_argument("--timeout", type=float, default=300, help="seconds a load may take")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, help="keep the pages in this folder (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    old_label, old_script = old_svg_map(args.old_ref)
    maps = {"old": old_script, "new": (PROJECT_ROOT / MAP_JS).read_text(encoding="utf-8")}
    names = [args.only] if args.only else ["old", "new"]
    with tempfile.TemporaryDirectory(prefix="map-speed-") as temporary:
        work = args.work or Path(temporary)
        megabytes = write_pages(work, sizes, maps, args.seed)
        rows = measure(work, sizes, names, args)
    print_table(rows, megabytes, old_label, args)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
