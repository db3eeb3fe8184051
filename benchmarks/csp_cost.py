"""What the Content-Security-Policy costs a build: the hook's policy step over every page of a built
site, beside the minifying the hook already does, and (with --docs) MkDocs builds of the same docs
with and without the policy, run alternately so both see the machine in the same state.

The pages are taken from a built site with their policy removed, which is the page as the hook
hands it to ``with_policy``. Times are per whole site; compare the ratios, not seconds across runs.

Usage: python benchmarks/csp_cost.py SITE_DIR [--docs DOCS_DIR] [--repeats 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator.finish import csp  # noqa: E402
from generator.finish.minify import minify_html  # noqa: E402

_POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">')


def _theme_dirs() -> list[str]:
    import material
    import mkdocs

    return [
        str(Path(material.__file__).parent / "templates"),
        str(Path(mkdocs.__file__).parent / "templates"),
    ]


def hook_steps(pages: list[str], repeats: int) -> dict[str, float]:
    """Seconds (median of ``repeats``) for minifying and for the policy, over all ``pages``."""
    dirs = _theme_dirs()
    csp._theme_scripts.cache_clear()
    start = time.perf_counter()
    theme = csp.theme_scripts(dirs)
    scan = time.perf_counter() - start
    minify, policy = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        for page in pages:
            minify_html(page)
        minify.append(time.perf_counter() - start)
        start = time.perf_counter()
        for page in pages:
            csp.with_policy(page, theme)
        policy.append(time.perf_counter() - start)
    return {"theme scan": scan, "minify": statistics.median(minify), "policy": statistics.median(policy)}


def mkdocs_builds(docs: Path, repeats: int) -> dict[str, list[float]]:
    """Seconds of ``mkdocs build`` of ``docs`` (the bundled digest's mkdocs.yml) with the policy and
    with ``with_policy`` made a no-op, alternately; and, inside the builds with the policy, the
    seconds spent in ``with_policy`` itself (the build's own noise does not blur that one)."""
    from tests.browser_support import build_site_at

    real = csp.with_policy
    inside: list[float] = []

    def timed_policy(html: str, theme: csp.ThemeScripts) -> csp.PagePolicy:
        start = time.perf_counter()
        try:
            return real(html, theme)
        finally:
            inside[-1] += time.perf_counter() - start

    def no_policy(html: str, theme: csp.ThemeScripts) -> csp.PagePolicy:
        return csp.PagePolicy(html, "", ())

    times: dict[str, list[float]] = {"with policy": [], "without policy": [], "inside with_policy": inside}
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(repeats):
            for label, stand_in in (("with policy", timed_policy), ("without policy", no_policy)):
                site = Path(scratch) / f"{run}-{label.replace(' ', '-')}"
                if stand_in is timed_policy:
                    inside.append(0.0)
                with mock.patch.object(csp, "with_policy", stand_in):
                    start = time.perf_counter()
                    build_site_at(PROJECT_ROOT / "mkdocs.yml", docs, site, "https://example.org/repo/")
                    times[label].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("site", type=Path, help="a built site")
    parser.add_argument(
        "--docs", type=Path, help="its docs folder: also time MkDocs with and without the policy"
    )
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()

    files = sorted(arguments.site.rglob("*.html"))
    pages = [_POLICY.sub("", path.read_text(encoding="utf-8")) for path in files]
    size = sum(len(page) for page in pages)
    print(f"{len(pages):,} pages, {size / 1e6:.1f} MB of HTML")
    steps = hook_steps(pages, arguments.repeats)
    print(f"theme templates scanned once: {steps['theme scan'] * 1000:.0f} ms")
    print(f"minify (the hook's existing step): {steps['minify']:.2f} s")
    per_page = steps["policy"] / len(pages) * 1e6
    print(
        f"policy (find, match and hash inline scripts, write the meta): {steps['policy']:.2f} s "
        f"= {per_page:.0f} µs a page, {steps['policy'] / steps['minify']:.2f} × minify"
    )
    if arguments.docs:
        times = mkdocs_builds(arguments.docs, arguments.repeats)
        with_policy = statistics.median(times["with policy"])
        without = statistics.median(times["without policy"])
        print(f"mkdocs build with the policy: {', '.join(f'{t:.1f}' for t in times['with policy'])} s")
        print(f"mkdocs build without it:      {', '.join(f'{t:.1f}' for t in times['without policy'])} s")
        print(f"median difference: {with_policy - without:+.2f} s ({with_policy / without:.3f} ×)")
        spent = ", ".join(f"{t:.2f}" for t in times["inside with_policy"])
        print(f"inside with_policy during the builds with it: {spent} s")


if __name__ == "__main__":
    main()
