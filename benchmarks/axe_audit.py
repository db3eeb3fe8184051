"""axe-core's violations on one page of every kind of a digest's site (tests/axe_support.py says
which pages and views), counted by kind of page and rule: the numbers behind
benchmarks/notes/accessibility.md. tests/test_browser_a11y.py requires none on the bundled digest;
this runs the same audit on any digest's generated docs folder, built here for the local server's
address (with a removed and a moved paper's page added to a copy of it, as a build leaves them).

Needs axe-core: npm ci --prefix tests/axe

Usage: python benchmarks/axe_audit.py DOCS_DIR [--config mkdocs.yml] [--details]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from tests.axe_support import (  # noqa: E402
    AXE_INSTALL,
    VIEWS,
    audit,
    axe_source,
    axe_version,
    page_kinds,
    with_redirect_pages,
)
from tests.browser_support import SiteServer, build_site_at, launched_chromium  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs", type=Path, help="a digest's generated docs folder")
    parser.add_argument("--config", type=Path, default=PROJECT_ROOT / "mkdocs.yml")
    parser.add_argument("--details", action="store_true", help="list every violation")
    args = parser.parse_args()
    source = axe_source()
    if source is None:
        sys.exit(f"axe-core is not installed: {AXE_INSTALL}")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "site"
        server = SiteServer(root, not_found_page=root / "404.html")
        try:
            docs = with_redirect_pages(args.docs.resolve(), Path(temp) / "docs")
            build_site_at(args.config, docs, root, server.origin + "/")
            kinds = page_kinds(root)
            with launched_chromium() as chromium:
                findings = list(audit(chromium, server.origin + "/", kinds, source))
        finally:
            server.close()
    nodes: dict[tuple[str, str], int] = collections.Counter()
    rules: dict[str, int] = collections.Counter()
    for finding in findings:
        nodes[finding.kind, finding.view] += len(finding.targets)
        rules[finding.rule] += len(finding.targets)
        if args.details:
            print(finding)
    print(f"\naxe-core {axe_version()}: violating nodes by kind of page and view")
    print("| page | " + " | ".join(VIEWS) + " | total |")
    print("|---|" + "---:|" * (len(VIEWS) + 1))
    for kind in kinds:
        row = [nodes[kind, view] for view in VIEWS]
        print(f"| {kind} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    print(f"\n{sum(rules.values())} violating nodes in {len(kinds) * len(VIEWS)} page views; by rule:")
    for rule, count in rules.most_common():
        print(f"  {rule}: {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
