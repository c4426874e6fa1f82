"""The page registry: every page script is reachable, addresses are stable, a missing script is left
out of the navigation instead of breaking it, and the running app's navigation follows the list."""

from pathlib import Path

from app_harness import open_page

from lab_ui.i18n import catalog, t
from lab_ui.registry import _ALL, HOME, PAGES, ROOT, available


def test_every_page_script_in_the_tree_is_registered_and_every_entry_has_its_script():
    registered = {p.path for p in (HOME, *_ALL)}
    on_disk = {str(path.relative_to(ROOT)) for path in (ROOT / "pages").glob("*.py")}
    assert on_disk - registered == set(), "a page script nobody can reach: add it to lab_ui/registry.py"
    assert registered - on_disk == set(), "a registered page without its script"


def test_a_page_whose_script_or_catalog_is_missing_is_left_out(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "lab_ui" / "locales").mkdir(parents=True)
    kept = _ALL[1::2]
    for page in _ALL[::2]:
        (tmp_path / page.path).write_text("")  # a script alone: its words are still being written
    for page in kept:
        (tmp_path / page.path).write_text("")
        (tmp_path / "lab_ui" / "locales" / f"{page.ns}.toml").write_text("")
    assert available(_ALL, tmp_path) == kept


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


def test_the_home_page_lists_every_page_in_registry_order():
    at = open_page(HOME.path, "en")
    names = {t(f"{p.ns}.nav", lang="en") for p in PAGES}
    links = [element.proto.label for element in at.get("page_link") if element.proto.label in names]
    assert links == [t(f"{p.ns}.nav", lang="en") for p in PAGES]
