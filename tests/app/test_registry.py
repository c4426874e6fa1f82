from pathlib import Path

from lab_ui.i18n import catalog
from lab_ui.registry import _ALL, HOME, PAGES, ROOT


def test_every_listed_page_exists_and_only_those_are_shown():
    assert [p for p in _ALL if (ROOT / p.path).is_file()] == list(PAGES)
    assert (ROOT / HOME.path).is_file()


def test_addresses_are_ascii_unique_and_equal_the_file_stem():
    # Streamlit's older multipage mode answers a fresh server's first request by file name
    # (lab_ui/shell.py); an address that differs from the stem would show "Page not found".
    paths = [p.url_path for p in _ALL]
    assert len(set(paths)) == len(paths)
    for page in _ALL:
        assert page.url_path == Path(page.path).stem
        assert page.url_path.isascii()


def test_every_page_has_its_catalog_entries():
    for page in (HOME, *PAGES):
        for key in ("nav", "title", "intro") + (("summary",) if page is not HOME else ()):
            assert f"{page.ns}.{key}" in catalog(), f"{page.ns}.{key} missing"
