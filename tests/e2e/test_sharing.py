"""Sharing and exporting in a real browser: a preset's view, copied as a link into a fresh
browser, shows the same charts in the same language; the copy-link box holds exactly that
address; tables download as spreadsheet-safe CSV and figures as PNG or SVG."""

from __future__ import annotations

import contextlib
import csv
import io
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from browser_helpers import chart_data, copied_link, exceptions, open_page, settled, wait_for_change, wait_until_idle
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from lab_ui.course import concept_pages
from lab_ui.i18n import t


def _query(url: str) -> dict:
    return {k: sorted(v) for k, v in parse_qs(urlparse(url).query, keep_blank_values=True).items()}


@pytest.mark.parametrize("info", concept_pages(), ids=[p.ns for p in concept_pages()])
def test_a_copied_link_reproduces_the_view_in_a_fresh_browser(browser, app_url, info):
    first = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = first.new_page()
    open_page(page, f"{app_url}/{info.url_path}?lang=zh")
    before = chart_data(page)
    # A stepper keeps its presets in a popover beside its settings; open it first.
    opener = page.locator("[data-testid=stPopover] button", has_text=t("common.presets_button", lang="zh"))
    if opener.count():
        opener.first.click()
    presets = page.locator(f"[class*='st-key-{info.url_path}'][class*='_preset_'] button, [class*='_preset_'] button")
    assert presets.count() > 0, "no preset buttons found"
    link_before = page.url
    presets.last.click()
    wait_for_change(page, before, url=link_before)
    wait_until_idle(page)
    url, shown = page.url, chart_data(page)
    assert "lang=zh" in url
    # A view with no chart yet (the train page's settings before Train is pressed says so in words):
    # then its words are the view to reproduce.
    words = [] if shown else settled(page, MAIN_TEXTS)

    copied = copied_link(page, "zh")
    # The view, not the student's progress: a copied link carries no progress code.
    assert _query(copied) == {k: v for k, v in _query(url).items() if k != "progress"}, (copied, url)
    first.close()

    second = browser.new_context(viewport={"width": 1280, "height": 1600})
    fresh = second.new_page()
    open_page(fresh, copied.strip(), charts=bool(shown))
    assert exceptions(fresh) == []
    assert t(f"{info.ns}.title", lang="zh") in fresh.locator("h1").first.inner_text()
    assert chart_data(fresh) == shown
    if words:
        with contextlib.suppress(PlaywrightTimeout):  # as in the quiz's test below: the widgets' labels come last
            fresh.wait_for_function(f"() => ({MAIN_TEXTS})().length >= {len(words)}", timeout=30000)
        assert settled(fresh, MAIN_TEXTS) == words
    second.close()


# Every text of a page's main area, its widgets' labels included; read once the page has stopped
# changing, because on a busy machine the widgets arrive a moment after the text.
MAIN_TEXTS = (
    "() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stMarkdownContainer]')]"
    ".map(e => e.innerText)"
)
QUIZ_TEXTS = MAIN_TEXTS


def test_a_copied_quiz_link_asks_the_same_questions(browser, app_url):
    """The final quiz has no chart: its attempt number rides in the link, and with it the
    questions and their numbers."""
    first = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = first.new_page()
    open_page(page, f"{app_url}/quiz?lang=zh", charts=False)
    page.get_by_text(t("quiz.new_attempt", lang="zh")).click()
    page.wait_for_function("() => location.search.includes('qz_seed=2')", timeout=30000)
    wait_until_idle(page)
    page.wait_for_selector("[data-testid=stMain] [data-testid=stPageLink]", timeout=30000)  # the page's last element
    asked = settled(page, QUIZ_TEXTS)
    copied = copied_link(page, "zh")
    assert "qz_seed=2" in copied, copied
    first.close()

    second = browser.new_context(viewport={"width": 1280, "height": 1600})
    fresh = second.new_page()
    open_page(fresh, copied.strip(), charts=False)
    assert exceptions(fresh) == []
    # In a fresh browser the widgets' code loads after the questions' text: on a busy machine their
    # labels arrived after two equal readings half a second apart (CI, 2 December). Wait until the
    # page holds as many texts as the first one did, then let it settle.
    with contextlib.suppress(PlaywrightTimeout):
        fresh.wait_for_function(f"() => ({QUIZ_TEXTS})().length >= {len(asked)}", timeout=30000)
    assert settled(fresh, QUIZ_TEXTS) == asked
    second.close()


def test_a_table_downloads_as_csv(context, app_url):
    page = context.new_page()
    open_page(page, f"{app_url}/heatmap?lang=zh&hm_src=random&hm_text=I+saw+a+saw")
    page.get_by_text(t("heatmap.table_box", lang="zh")).first.click()  # the numbers, built when opened
    page.get_by_text(t("common.download_csv", lang="zh")).first.wait_for(timeout=20000)
    with page.expect_download() as download:
        page.get_by_text(t("common.download_csv", lang="zh")).first.click()
    data = Path(download.value.path()).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf"), "no BOM: Excel would garble Chinese labels"
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert len(rows) == 1 + 4  # a header and one row per token of "I saw a saw"
    assert all(len(row) == len(rows[0]) for row in rows)
    # (cells that a spreadsheet would run as formulas are escaped: tests/app/test_widgets.py)


@pytest.mark.parametrize("image_format", ["png", "svg"])
def test_a_figure_downloads_as_png_or_svg(context, app_url, image_format):
    page = context.new_page()
    open_page(page, f"{app_url}/heatmap?lang=en&img={image_format}")
    chart = page.locator("[data-testid=labChart]").first
    chart.hover()
    button = chart.locator(".modebar-btn[data-title*='Download plot']")
    with page.expect_download() as download:
        button.click()
    assert download.value.suggested_filename.endswith(f".{image_format}")
    head = Path(download.value.path()).read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if image_format == "png" else b"<svg" in head


def test_a_figure_s_buttons_are_download_zoom_reset_and_full_screen_in_the_page_s_language(context, app_url):
    page = context.new_page()
    open_page(page, f"{app_url}/heatmap?lang=zh")
    chart = page.locator("[data-testid=labChart]").first
    chart.hover()
    titles = chart.locator(".modebar-btn").evaluate_all("bs => bs.map(b => b.getAttribute('data-title'))")
    assert titles == [
        t(f"common.{k}", lang="zh") for k in ("plotly_download_png", "plotly_zoom", "plotly_reset_axes")
    ] + ["全屏"]
    before = chart.bounding_box()["height"]
    chart.locator(".modebar-btn[data-title='全屏']").click()
    page.wait_for_function("() => document.fullscreenElement?.dataset.testid === 'labChart'")
    page.wait_for_function("h => document.fullscreenElement.getBoundingClientRect().height > h", arg=before)
    page.wait_for_function("() => document.fullscreenElement.querySelector('.modebar-btn[data-title=\"退出全屏\"]')")
    page.evaluate("() => document.exitFullscreen()")
    page.wait_for_function(
        "h => !document.fullscreenElement && document.querySelector('[data-testid=labChart]')"
        ".getBoundingClientRect().height === h",
        arg=before,
    )
