"""What the e2e tests do to a page: open it, wait until Streamlit has finished, read the charts."""

from __future__ import annotations

import json
import time

APP_SELECTOR = "[data-testid=stApp]"

# Every chart element (lab_ui.chart) holds a drawn plot: on a first visit the element is there
# before plotly.js has loaded and drawn into it.
ALL_DRAWN_JS = "() => [...document.querySelectorAll('[data-testid=labChart]')].every(c => c.querySelector('.main-svg'))"


def wait_until_idle(page, timeout_ms: int = 60000) -> None:
    """Until the script run has finished: Streamlit marks the app element with
    data-test-script-state = initial -> running -> notRunning."""
    page.wait_for_selector(APP_SELECTOR, timeout=timeout_ms)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stApp]')?.dataset.testScriptState === 'notRunning'",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(200)  # a rerun the finished run asked for (st.rerun) starts within this
    page.wait_for_function(
        "() => document.querySelector('[data-testid=stApp]')?.dataset.testScriptState === 'notRunning'",
        timeout=timeout_ms,
    )


def open_page(page, url: str, *, charts: bool = True) -> None:
    """Open a page and wait until its run has finished and, on a page with charts, until Plotly
    has drawn every one of them (charts appear after the run ends, later on a busy machine)."""
    page.goto(url, timeout=60000)
    wait_until_idle(page)
    page.wait_for_selector("h1", timeout=60000)
    if charts:
        page.wait_for_selector("[data-testid=labChart] .main-svg", timeout=60000)
    page.wait_for_function(ALL_DRAWN_JS, timeout=60000)


def chart_data(page) -> list[str]:
    """What every Plotly chart draws as the browser holds it: its traces (gd.data) and its shapes (a
    highlighted head that moves with a slider is a shape), one JSON string each."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')]"
        ".map(gd => JSON.stringify([gd.data, (gd.layout && gd.layout.shapes) || []]))"
    )


def wait_for_change(page, before: list[str], timeout_s: float = 20, *, url: str | None = None) -> list[str]:
    """The charts' data once it differs from `before`, read only while every chart is drawn (a
    chart being mounted afresh would drop out of the list and shift the others' places). With
    `url`, also once the page's address differs from it: a preset whose settings show on another
    step changes the link, not the charts on the screen, and would otherwise wait out the timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        wait_until_idle(page)
        if not page.evaluate(ALL_DRAWN_JS):
            page.wait_for_timeout(100)
            continue
        now = chart_data(page)
        if now != before or (url is not None and page.url != url):
            return now
        page.wait_for_timeout(200)
    return chart_data(page)


def exceptions(page) -> list[str]:
    return page.locator("[data-testid=stException]").all_inner_texts()


def as_json(text: str):
    return json.loads(text)


def copied_link(page, lang: str) -> str:
    """Open the page's copy-link popover (its button, not a mention of it in the text) and read
    the address it offers."""
    from lab_ui.i18n import t

    page.locator("[data-testid=stPopoverButton]", has_text=t("common.copy_link", lang=lang)).first.click()
    return page.locator("[data-testid=stPopoverBody] code, [data-testid=stPopover] code").first.inner_text()


def settled(page, script: str, timeout_s: float = 30) -> dict:
    """What `script` measures once the page has stopped moving: its charts drawn and two readings
    half a second apart equal. On a busy machine Plotly draws after the run has ended, and the
    elements of a step a run left behind leave the page a moment later."""
    page.wait_for_function(ALL_DRAWN_JS, timeout=timeout_s * 1000)
    deadline = time.monotonic() + timeout_s
    before = page.evaluate(script)
    while time.monotonic() < deadline:
        page.wait_for_timeout(500)
        now = page.evaluate(script)
        if now == before:
            return now
        before = now
    return before
