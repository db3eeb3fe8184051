"""The theme's inline scripts move into shared files (generator/finish/theme_script_files.py)."""

from __future__ import annotations

import re
from pathlib import Path

from generator.finish.csp import inline_scripts, theme_scripts, with_policy
from generator.finish.shared_files import write_shared_file
from generator.finish.theme_script_files import SCRIPTS_FOLDER, share_theme_scripts
from tests.test_csp import MATERIAL_TEMPLATES, SCOPE, page

THEME = theme_scripts([MATERIAL_TEMPLATES])


def test_a_theme_script_becomes_a_file_reference_at_the_same_place() -> None:
    text = page("<p>before</p>")
    shared = share_theme_scripts(text, THEME, "../../assets/javascripts/theme")
    [(name, script)] = shared.files.items()
    assert script == SCOPE.format(base="../..")
    assert re.fullmatch(r"[0-9a-f]{12}\.js", name)
    reference = f'<script src="../../assets/javascripts/theme/{name}"></script>'
    assert shared.html == text.replace(f"<script>{script}</script>", reference)
    assert list(inline_scripts(shared.html)) == []
    # With nothing inline left, the policy allows no hash: only the site's own files run.
    assert "sha256" not in with_policy(shared.html, THEME).policy


def test_pages_at_one_depth_share_a_file_and_other_depths_get_theirs() -> None:
    first = share_theme_scripts(page("<p>one</p>", ".."), THEME, "../assets/javascripts/theme")
    again = share_theme_scripts(page("<p>two</p>", ".."), THEME, "../assets/javascripts/theme")
    deeper = share_theme_scripts(page("<p>one</p>", "../.."), THEME, "../../assets/javascripts/theme")
    assert first.files == again.files
    assert first.files.keys().isdisjoint(deeper.files.keys())


def test_a_script_the_theme_did_not_write_stays_inline_and_is_refused() -> None:
    text = page("<p><script>alert(1)</script></p>")
    shared = share_theme_scripts(text, THEME, "assets/javascripts/theme")
    assert [s.text for s in inline_scripts(shared.html)] == ["alert(1)"]
    assert "alert(1)" not in "".join(shared.files.values())
    assert [s.text for s in with_policy(shared.html, THEME).refused] == ["alert(1)"]


def test_a_page_without_theme_scripts_is_left_as_it_is() -> None:
    text = "<html><head></head><body><p>no scripts</p></body></html>"
    assert share_theme_scripts(text, THEME, "assets/javascripts/theme").html == text


def test_a_shared_file_is_written_once_and_never_rewritten_in_place(tmp_path: Path) -> None:
    relative = f"{SCRIPTS_FOLDER}/abc.js"
    write_shared_file(tmp_path, relative, "first()")
    target = tmp_path / relative
    linked = tmp_path / "last-site-copy.js"
    linked.hardlink_to(target)  # an updated site shares its unchanged files with the last one
    write_shared_file(tmp_path, relative, "first()")
    assert target.samefile(linked)
    assert target.read_text(encoding="utf-8") == "first()"


def test_a_built_sites_pages_run_no_inline_script_and_every_script_file_exists(
    bundled_build: dict[str, Path],
) -> None:
    site = bundled_build["site"]
    pages = [path for path in site.rglob("index.html")]
    assert len(pages) > 50
    theme_files = set()
    for built in pages:
        text = built.read_text(encoding="utf-8")
        assert list(inline_scripts(text)) == [], built
        assert "sha256" not in text, built
        for href in re.findall(r'<script src="([^"]+)"', text):
            target = (built.parent / href).resolve()
            assert target.is_file(), (built, href)
            if target.parent == (site / SCRIPTS_FOLDER).resolve():
                theme_files.add(target.name)
    # The storage scope (one per folder depth), the palette and the content tabs' check.
    assert len(theme_files) >= 3
    assert theme_files == {path.name for path in (site / SCRIPTS_FOLDER).glob("*.js")}
