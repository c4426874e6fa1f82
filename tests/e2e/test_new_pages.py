"""The two sequence pages in a real browser, in English and in Chinese: a step opens with no exception,
every chart on it is drawn, a keyboard step on the step's slider redraws its chart (a fragment rerun),
a lecture step link opens that step, and the timing runs only when its button is pressed."""

from __future__ import annotations

import json

import pytest
from browser_helpers import chart_data, exceptions, open_page, wait_for_change, wait_until_idle

from lab_ui.i18n import t
from lab_ui.registry import info as page_info

# page -> (the slider a student moves first, the chart it redraws, the step both are on)
PAGES = {
    "before_self_attention": ("ed_d", "ed_bottleneck", "bottleneck"),
    "rnn_cnn": ("rc_T", "rc_see", "see"),
}
CASES = [(name, lang) for name in PAGES for lang in ("en", "zh")]


def chart(page, key: str) -> str | None:
    """One chart's data as the browser holds it; None while the chart is being mounted afresh
    (Streamlit does that whenever a figure changes, and for a moment there is no plot to read)."""
    return page.evaluate(
        "key => { const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);"
        " return gd ? JSON.stringify(gd.data) : null; }",
        key,
    )


@pytest.mark.parametrize(("name", "lang"), CASES, ids=[f"{n}-{lang}" for n, lang in CASES])
def test_page_opens_and_a_slider_step_redraws_its_section(context, app_url, name, lang):
    slider_key, chart_key, step = PAGES[name]
    info = page_info(name)
    page = context.new_page()
    open_page(page, f"{app_url}/{name}?lang={lang}&{info.step_key}={info.step_names.index(step) + 1}")
    assert exceptions(page) == []
    assert t(f"{name}.title", lang=lang) in page.locator("h1").first.inner_text()
    charts = page.locator("[data-testid=labChart]")
    n_charts = charts.count()
    assert n_charts >= 1 and page.locator(f".st-key-{chart_key} .js-plotly-plot").count() == 1
    for i in range(n_charts):
        assert charts.nth(i).locator(".main-svg").count() > 0, f"chart {i} was not drawn"

    before = chart(page, chart_key)
    page.locator(f".st-key-{slider_key} input[type=range]").first.focus()
    page.keyboard.press("ArrowRight")
    tries = 240  # 60 s: a cold server computes the new curves first, and a busy machine is slow
    now = chart(page, chart_key)
    while now in (before, None) and tries:
        page.wait_for_timeout(250)
        tries -= 1
        now = chart(page, chart_key)
    assert now not in (before, None), f"moving {slider_key} did not redraw {chart_key}"
    wait_until_idle(page)
    assert exceptions(page) == []
    assert f"{slider_key}=" in page.url  # the new value is in the link


def test_a_lecture_step_link_opens_that_step(context, app_url):
    page = context.new_page()
    images = page_info("rnn_cnn").step_names.index("images") + 1
    open_page(page, f"{app_url}/rnn_cnn?lang=zh&lecture=1&rc_step={images}")
    assert exceptions(page) == []
    assert page.locator("[data-testid=labChart]").count() == 1
    assert page.locator(".st-key-rc_picture .js-plotly-plot").count() == 1
    box = page.locator(".st-key-rc_picture").bounding_box()
    assert box["y"] + box["height"] <= 720 + 1, "the step's figure is not whole on the projector's first screen"


def test_the_clock_runs_only_when_asked(context, app_url):
    page = context.new_page()
    parallel = page_info("rnn_cnn").step_names.index("parallel") + 1
    open_page(page, f"{app_url}/rnn_cnn?lang=en&rc_td=64&rc_tT=256&rc_step={parallel}")
    assert len(json.loads(chart(page, "rc_parallel"))) == 2  # the steps only
    before = chart_data(page)
    page.locator(".st-key-rc_measure button").click()
    after = wait_for_change(page, before, timeout_s=60)
    assert after != before
    assert len(json.loads(chart(page, "rc_parallel"))) == 4
    label = page.locator(".st-key-rc_parallel").inner_text()
    assert "Measured on this server" in label and "CPUs" in label
    assert exceptions(page) == []
