"""Lighthouse (mobile: its emulated phone, slow 4G and 4x CPU slowdown) on one page of every kind of a
digest's site, side by side with a plain Material for MkDocs site with MathJax built from the same
abstracts, both measured in this run: the accessibility score (the goal is 100 on every page) and the
performance score, total blocking time and largest contentful paint (the goal: no lower than the
plain site's). Runs alternate between the two sites, so both see the machine in the same state; the
medians of ``--runs`` are reported. benchmarks/notes/accessibility.md has the results.

The plain site is what Material's documentation sets up for math: its own theme with the digest's
palette and no web fonts, its search plugin, ``pymdownx.arithmatex`` and MathJax on every page (the
same MathJax files and settings script the digest ships, served locally). Its pages are the digest's
home list of papers and one Markdown page per paper: the title the digest gave it and its abstract.

Lighthouse is not a dependency of the project: install the pinned version in a folder outside the
repository and point ``--lighthouse`` at it (it drives the Chromium given by CHROME_PATH):

    mkdir /tmp/lighthouse-12.2.3 && cd /tmp/lighthouse-12.2.3 && npm init -y && npm i -E lighthouse@12.2.3

Usage: python benchmarks/lighthouse_audit.py [--project .] [--lighthouse /tmp/lighthouse-12.2.3] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator.sources import read_collection  # noqa: E402

REMOVED = "removed-paper-a11y000"
"""The removed paper's address ``tests.axe_support.with_redirect_pages`` gives it."""
PLAIN_MKDOCS = """site_name: {name}
site_url: {url}
theme:
  name: material
  font: false
  palette:
    - media: "(prefers-color-scheme: light)"
      scheme: default
      primary: indigo
      accent: indigo
      toggle: {{icon: material/brightness-7, name: Switch to dark mode}}
    - media: "(prefers-color-scheme: dark)"
      scheme: slate
      primary: indigo
      accent: indigo
      toggle: {{icon: material/brightness-4, name: Switch to light mode}}
markdown_extensions:
  - pymdownx.arithmatex:
      generic: true
extra_javascript:
  - javascripts/mathjax.js
  - assets/mathjax/tex-mml-chtml.js
"""


@dataclass
class Measure:
    accessibility: float
    performance: float
    blocking_ms: float
    contentful_paint_ms: float
    failed: list[str]
    """The accessibility audits the page fails."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def build_digest(project: Path, code: Path, work: Path, url: str) -> Path:
    """The digest built as a user builds it, for the address it is served at, with a removed
    paper's page added as a build leaves one (the bundled digest has none; ``REMOVED``)."""
    site = work / "digest"
    env = {**os.environ, "SITE_URL": url, "PYTHONPATH": str(code), "HF_HUB_OFFLINE": "1"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "generator",
            "build",
            "--quiet",
            "--project",
            str(project),
            "--docs-dir",
            str(work / "digest-docs"),
            "--site-dir",
            str(site),
        ],
        check=True,
        env=env,
        cwd=code,  # `python -m` puts the working folder first on the path, before PYTHONPATH
    )
    # The removed (and a moved) paper's pages added to a copy of its docs by the same checkout's code
    # as the rest of the site, and the site built again from it.
    again = (
        "import sys; from pathlib import Path; from tests.axe_support import with_redirect_pages; "
        "from generator.site_build import build_site; "
        "docs = with_redirect_pages(Path(sys.argv[1]), Path(sys.argv[2])); "
        "build_site(Path(sys.argv[3]), docs, Path(sys.argv[4]), site_url=sys.argv[5])"
    )
    arguments = [work / "digest-docs", work / "digest-docs-redirects", project / "mkdocs.yml", site, url]
    subprocess.run([sys.executable, "-c", again, *map(str, arguments)], check=True, env=env, cwd=code)
    return site


def build_plain(project: Path, digest: Path, work: Path, url: str) -> Path:
    """A plain Material site with MathJax: the digest's home list and one Markdown page per paper."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    collection = read_collection([project / "abstracts"])
    titles = {p["id"]: (p["title"], p["slug"]) for p in json.loads((digest / "papers.json").read_text())}
    docs = work / "plain-docs"
    (docs / "papers").mkdir(parents=True)
    lines = [f"# {collection.name}", "", f"{len(collection.papers)} papers.", ""]
    for paper in collection.papers:
        title, slug = titles[paper.id]
        (docs / "papers" / f"{slug}.md").write_text(f"# {title}\n\n{paper.abstract}\n", encoding="utf-8")
        lines.append(f"- [{title}](papers/{slug}.md)")
    (docs / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copytree(digest / "assets" / "mathjax", docs / "assets" / "mathjax")
    (docs / "javascripts").mkdir()
    shutil.copy(digest / "javascripts" / "mathjax.js", docs / "javascripts" / "mathjax.js")
    config_file = work / "plain-mkdocs.yml"
    config_file.write_text(PLAIN_MKDOCS.format(name=json.dumps(collection.name), url=url), encoding="utf-8")
    site = work / "plain"
    build(load_config(str(config_file), docs_dir=str(docs), site_dir=str(site)))
    return site


def digest_pages(site: Path) -> dict[str, str]:
    """One page of each kind, as addresses under the site's root (the 404 page by its file: served
    with status 404, Lighthouse would not score it)."""
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    math = next(p["url"] for p in papers if '"arithmatex"' in (site / p["url"] / "index.html").read_text())
    plain = next(
        p["url"] for p in papers if '"arithmatex"' not in (site / p["url"] / "index.html").read_text()
    )
    pages = {"home": "", "paper": plain, "paper with math": math}
    for folder, kind in (("keywords", "keyword"), ("topics", "topic")):
        pages[f"{kind} index"] = f"{folder}/"
        inner = sorted(p.name for p in (site / folder).glob("*/") if (p / "index.html").is_file())
        if inner:
            pages[kind] = f"{folder}/{inner[0]}/"
    pages |= {"Explore": "explore/", "map": "map/", "My list": "saved/", "About": "about/"}
    pages |= {"404": "404.html", "removed paper": f"papers/{REMOVED}/"}
    return pages


def lighthouse(binary: Path, url: str, out: Path) -> Measure:
    flags = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"
    subprocess.run(
        [
            str(binary),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            "--only-categories=accessibility,performance",
            f"--chrome-flags={flags}",
        ],
        check=True,
        timeout=300,
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    categories, audits = report["categories"], report["audits"]
    failed = [
        ref["id"]
        for ref in categories["accessibility"]["auditRefs"]
        if ref["weight"] and audits[ref["id"]]["score"] is not None and audits[ref["id"]]["score"] < 1
    ]
    return Measure(
        accessibility=100 * categories["accessibility"]["score"],
        performance=100 * (categories["performance"]["score"] or 0),
        blocking_ms=audits["total-blocking-time"]["numericValue"],
        contentful_paint_ms=audits["largest-contentful-paint"]["numericValue"],
        failed=failed,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=PROJECT_ROOT, help="a digest folder")
    parser.add_argument("--lighthouse", type=Path, default=Path("/tmp/lighthouse-12.2.3"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--code",
        type=Path,
        default=PROJECT_ROOT,
        help="the checkout whose generator builds the digest (an older one: before)",
    )
    args = parser.parse_args()
    binary = args.lighthouse / "node_modules" / ".bin" / "lighthouse"
    if not binary.is_file():
        sys.exit(f"Lighthouse not found at {binary}: see this script's docstring")
    os.environ.setdefault("CHROME_PATH", "/usr/bin/chromium")
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()

    with tempfile.TemporaryDirectory(prefix="lighthouse-audit-") as temp:
        work = Path(temp)
        ports = {"digest": free_port(), "plain": free_port()}
        urls = {name: f"http://127.0.0.1:{port}/" for name, port in ports.items()}
        roots = {"digest": build_digest(args.project.resolve(), args.code.resolve(), work, urls["digest"])}
        roots["plain"] = build_plain(args.project.resolve(), roots["digest"], work, urls["plain"])
        plain_papers = sorted((roots["plain"] / "papers").iterdir())
        plain_math = next(p for p in plain_papers if "arithmatex" in (p / "index.html").read_text())
        plain_text = next(p for p in plain_papers if "arithmatex" not in (p / "index.html").read_text())
        pages = {
            "digest": digest_pages(roots["digest"]),
            "plain": {
                "home": "",
                "paper": f"papers/{plain_text.name}/",
                "paper with math": f"papers/{plain_math.name}/",
            },
        }
        servers = [
            subprocess.Popen(
                [sys.executable, "-m", "http.server", str(ports[name]), "--bind", "127.0.0.1"],
                cwd=roots[name],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for name in ("digest", "plain")
        ]
        try:
            time.sleep(1)
            results: dict[tuple[str, str], list[Measure]] = {}
            for run in range(args.runs):
                # Each plain page before and after the digest's pages of its kind, so the two sites
                # see the machine in the same state.
                for kind in pages["digest"]:
                    for name in ("plain", "digest") if kind in pages["plain"] else ("digest",):
                        where = pages[name][kind]
                        measure = lighthouse(binary, urls[name] + where, work / "report.json")
                        results.setdefault((name, kind), []).append(measure)
                        print(f"run {run + 1} {name:6} {kind:16} {measure}", file=sys.stderr, flush=True)
        finally:
            for server in servers:
                server.terminate()
                server.wait()

    print(f"\nLighthouse {version}, mobile, median of {args.runs} runs; the plain Material site beside")
    print("| page | accessibility | performance | total blocking time (ms) | largest contentful paint (s) |")
    print("|---|---:|---:|---:|---:|")

    def row(name: str, kind: str) -> str:
        measures = results[name, kind]
        med = {
            field: statistics.median(getattr(m, field) for m in measures)
            for field in ("accessibility", "performance", "blocking_ms", "contentful_paint_ms")
        }
        label = kind if name == "digest" else f"plain Material: {kind}"
        failed = sorted({f for m in measures for f in m.failed})
        note = f" (fails: {', '.join(failed)})" if failed else ""
        return (
            f"| {label} | {med['accessibility']:.0f}{note} | {med['performance']:.0f} | "
            f"{med['blocking_ms']:.0f} | {med['contentful_paint_ms'] / 1000:.1f} |"
        )

    for kind in pages["digest"]:
        print(row("digest", kind))
    for kind in pages["plain"]:
        print(row("plain", kind))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
