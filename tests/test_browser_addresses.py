"""Old addresses in headless Chromium: after a rebuild in which one paper moved (its id was changed) and
one was removed, the moved paper's old address lands on its new page, the removed one's says so and
goes home, and My list keeps the moved paper (its star lit on its new page) and shows the removed one
as gone, with nothing refused by the pages' Content-Security-Policy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from generator.build import BuildRequest, build_digest
from generator.progress import Reporter
from generator.project.settings import Settings
from generator.sources.identity import ADDRESS_RECORD
from tests.browser_support import CONTENT, SiteServer, build_site_at, open_tab, settle
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, FakeEmbedder

pytestmark = [pytest.mark.browser]

PAPERS = [
    {"id": f"paper-{i}", "title": f"Paper number {i} on {abstract.split()[2]}", "abstract": abstract}
    for i, abstract in enumerate(SAMPLE_ABSTRACTS)
]


def _build(root: Path, papers: list[dict], served: Path, url: str, engine: str) -> dict[str, str]:
    """Build the digest of ``papers`` into ``served`` for ``url``; each paper's page address by id."""
    source = root / "abstracts" / "papers.jsonl"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    settings = Settings(project_root=root, cache_dir=Path("cache"))
    request = BuildRequest(
        (source,), root / "docs", None, "Moving papers", address_record=root / ADDRESS_RECORD
    )
    result = build_digest(settings, request, Reporter(quiet=True), FakeEmbedder())
    shutil.rmtree(served, ignore_errors=True)
    build_site_at(PROJECT_ROOT / "mkdocs.yml", root / "docs", served, url, engine)
    return {p.entry.paper.id: f"papers/{p.entry.slug}/" for p in result.digest.papers}


def test_old_addresses_lead_to_the_new_page_or_home_and_my_list_follows(
    chromium: Browser, tmp_path: Path, engine: str
) -> None:
    served = tmp_path / "served"
    served.mkdir()
    server = SiteServer(served)
    tab = open_tab(chromium, server.origin)
    page = tab.page
    try:
        url = f"{server.origin}/repo/"
        before = _build(tmp_path, PAPERS, served / "repo", url, engine)
        for paper_id in ("paper-1", "paper-3"):
            page.goto(url + before[paper_id])
            settle(page)
            page.locator(f"{CONTENT} .paper-actions .paper-star").click()

        moved = [
            {**p, "id": "paper-one"} if p["id"] == "paper-1" else p for p in PAPERS if p["id"] != "paper-3"
        ]
        after = _build(tmp_path, moved, served / "repo", url, engine)
        assert after["paper-one"] != before["paper-1"] and "paper-3" not in after
        assert all(after[i] == before[i] for i in after if i in before)
        assert not (served / "repo" / "sitemap.xml").read_text().count(before["paper-1"])

        page.goto(url + before["paper-1"])
        page.wait_for_url(url + after["paper-one"])
        settle(page)
        expect(page.locator(f"{CONTENT} h1")).to_contain_text("Paper number 1")
        expect(page.locator(f"{CONTENT} .paper-actions .paper-star")).to_have_attribute(
            "aria-pressed", "true"
        )

        page.goto(url + before["paper-3"])
        expect(page.locator("h1")).to_have_text("This paper is no longer in the digest")
        page.get_by_role("link", name="Go to the home page").click()  # no timed refresh: the reader goes
        page.wait_for_url(url)
        settle(page)

        page.goto(url + "saved/")
        settle(page)
        expect(page.locator(".paper-saved__list > li > a")).to_contain_text(["Paper number 1"])
        expect(page.locator(".paper-saved__gone-note")).to_have_text(
            "1 saved paper is no longer in this digest:"
        )
        gone = page.locator(".paper-saved__gone > li")
        expect(gone).to_have_count(1)
        expect(gone).to_contain_text("Paper number 3")
        gone.get_by_role("button", name="Remove").click()
        expect(gone).to_have_count(0)
        saved = page.evaluate(
            "Object.keys(localStorage).filter(k => k.startsWith('paper-digest:saved:'))"
            ".map(k => JSON.parse(localStorage.getItem(k)))"
        )
        assert [[item["url"] for item in items] for items in saved] == [[after["paper-one"]]]
        assert tab.monitor.errors == []
    finally:
        page.context.close()
        server.close()
