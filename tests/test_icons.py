"""The theme's inline icons move into one shared symbol file (generator/finish/icons.py)."""

from __future__ import annotations

import re
from pathlib import Path

from generator.finish.icons import ICONS_FOLDER, share_icons, write_icon_file

MATERIAL_ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="{}"/></svg>'
SEARCH = MATERIAL_ICON.format("M9.5 3A6.5 6.5 0 0 1 16 9.5")
LOGO = MATERIAL_ICON.format("M12 8a3 3 0 0 0 3-3")
OTHER = '<svg viewBox="0 0 10 10" role="img"><circle r="4"/></svg>'


def _page(*parts: str) -> str:
    return "<html><body><header>" + "".join(parts) + "</header></body></html>"


def test_each_inline_icon_becomes_a_reference_into_one_file() -> None:
    shared = share_icons(_page(LOGO, SEARCH, SEARCH), "../../assets/icons")
    assert "<path" not in shared.html
    reference = r'<svg viewBox="0 0 24 24"><use xlink:href="([^"#]+)#([^"]+)"/></svg>'
    references = re.findall(reference, shared.html)
    assert len(references) == 3
    assert {href for href, _ in references} == {f"../../assets/icons/{shared.file_name}"}
    assert references[1][1] == references[2][1] != references[0][1], "one symbol per distinct icon"
    symbols = dict(
        re.findall(
            r'<symbol id="([^"]+)" viewBox="0 0 24 24"><path d="([^"]+)"/></symbol>', shared.file_content
        )
    )
    assert symbols == {
        references[0][1]: "M12 8a3 3 0 0 0 3-3",
        references[1][1]: "M9.5 3A6.5 6.5 0 0 1 16 9.5",
    }


def test_pages_with_the_same_icons_share_a_file_and_other_icons_get_another() -> None:
    first = share_icons(_page(LOGO, SEARCH), "assets/icons")
    again = share_icons(_page(SEARCH, "<p>other words</p>", LOGO), "../assets/icons")
    fewer = share_icons(_page(SEARCH), "assets/icons")
    assert first.file_name == again.file_name
    assert first.file_content == again.file_content
    assert fewer.file_name != first.file_name


def test_other_svg_and_a_page_without_icons_are_left_as_they_are() -> None:
    page = _page(
        OTHER, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" class="x"><path d="M1 1"/></svg>'
    )
    shared = share_icons(page, "assets/icons")
    assert shared.html == page
    assert shared.file_name is None


def test_the_icon_file_is_written_once_and_never_rewritten_in_place(tmp_path: Path) -> None:
    shared = share_icons(_page(LOGO), "assets/icons")
    write_icon_file(tmp_path, shared)
    target = tmp_path / ICONS_FOLDER / str(shared.file_name)
    assert target.read_text(encoding="utf-8") == shared.file_content
    linked = tmp_path / "last-site-copy.svg"
    linked.hardlink_to(target)  # an updated site shares its unchanged files with the last one
    write_icon_file(tmp_path, shared)
    assert target.samefile(linked)


def test_a_built_site_has_no_inline_theme_icon_and_every_reference_resolves(
    bundled_build: dict[str, Path],
) -> None:
    site = bundled_build["site"]
    icon_files = {path.name: path.read_text(encoding="utf-8") for path in (site / ICONS_FOLDER).glob("*.svg")}
    assert icon_files
    pages = [path for path in site.rglob("index.html")]
    assert len(pages) > 50
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert 'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path' not in text, page
        for href, symbol in re.findall(r'<use xlink:href="([^"#]+)#([^"]+)"', text):
            target = (page.parent / href).resolve()
            assert target.parent == (site / ICONS_FOLDER).resolve(), (page, href)
            assert f'<symbol id="{symbol}"' in icon_files[target.name], (page, symbol)
