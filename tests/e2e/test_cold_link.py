"""An instructor's link opened on a freshly started server: the very first request goes straight
to a concept page (lab_ui/shell.py explains why that is special). The page must come up whole:
its title in the link's language, the sidebar's language switch, no "Page not found"."""

import subprocess

from browser_helpers import exceptions, open_page
from conftest import free_port, start_app

from lab_ui.i18n import t
from lab_ui.registry import PAGES


def test_first_request_to_a_fresh_server_is_a_deep_link(browser):
    info = next(p for p in PAGES if p.ns != "home") if PAGES else None
    assert info is not None
    port = free_port()
    proc = start_app(port)
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        open_page(page, f"http://127.0.0.1:{port}/{info.url_path}?lang=zh")
        assert exceptions(page) == []
        assert t(f"{info.ns}.title", lang="zh") in page.locator("h1").first.inner_text()
        assert page.get_by_text(t("common.language", lang="zh")).count() == 1
        assert "does not seem to exist" not in page.locator("body").inner_text()
        context.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
