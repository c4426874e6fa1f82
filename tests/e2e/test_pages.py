"""Every page, in English and in Chinese, in a real browser: it opens with no exception, every
chart is drawn (every concept page has one; the home page and the final quiz have none), and
moving the first slider with the keyboard changes what a chart shows. The
browser asks no host but the app's own."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from browser_helpers import chart_data, exceptions, open_page, wait_for_change

from lab_ui.course import concept_pages
from lab_ui.i18n import t
from lab_ui.registry import HOME, PAGES

CASES = [(info, lang) for info in (HOME, *PAGES) for lang in ("en", "zh")]


@pytest.mark.parametrize(("info", "lang"), CASES, ids=[f"{i.ns}-{lang}" for i, lang in CASES])
def test_page_opens_draws_and_reacts(context, app_url, info, lang):
    page = context.new_page()
    foreign = []
    # blob: URLs are the page's own (the chart element's script is handed to the browser as one)
    page.on(
        "request",
        lambda r: foreign.append(r.url) if urlparse(r.url.removeprefix("blob:")).hostname != "127.0.0.1" else None,
    )

    teaches = info in concept_pages()
    open_page(page, f"{app_url}/{info.url_path}?lang={lang}", charts=teaches)
    assert exceptions(page) == []
    assert t(f"{info.ns}.title", lang=lang) in page.locator("h1").first.inner_text()
    charts = page.locator("[data-testid=labChart]")
    for i in range(charts.count()):
        assert charts.nth(i).locator(".main-svg").count() > 0, f"chart {i} was not drawn"

    sliders = page.locator("[data-testid=stMain] [data-testid=stSlider] input[type=range]")
    if teaches:
        assert charts.count() > 0, "a concept page without a chart"
    if sliders.count() and charts.count():
        before = chart_data(page)
        sliders.first.focus()
        page.keyboard.press("ArrowRight")
        after = wait_for_change(page, before)
        assert after != before, "moving the first slider changed no chart"
        assert exceptions(page) == []
    assert foreign == [], f"requests to other hosts: {foreign[:5]}"
