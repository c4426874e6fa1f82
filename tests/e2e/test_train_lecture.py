"""The training page in a browser: the comparison steps in lecture mode, after their button is
pressed, draw a figure whole on a 1280 x 720 projector's first screen, its legend included (the e2e
lecture test measures each step as it opens, before any run, when there is no figure yet); and the
issue's heavy link is refused before anything trains, in words, with the steps that fit."""

from __future__ import annotations

import pytest
from browser_helpers import exceptions, open_page, settled, wait_until_idle

from attention_core.train import Config, fit, saw_task
from lab_ui import live
from lab_ui.i18n import t
from pages.train import STEPS as STEP_OPTIONS

STEPS = {4: "compare", 5: "order", 6: "scale"}  # lecture step -> the comparison it runs


@pytest.mark.parametrize("step", sorted(STEPS))
def test_a_comparisons_figure_is_whole_on_the_first_screen_after_its_run(browser, app_url, step):
    name = STEPS[step]
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    open_page(page, f"{app_url}/train?lang=zh&lecture=1&tr_step={step}&tr_steps=10", charts=False)
    page.get_by_role("button", name=t(f"train.run_{name}", lang="zh")).click()
    page.wait_for_selector(f".st-key-tr_{name}_figure .main-svg", timeout=120000)
    wait_until_idle(page, 120000)
    script = (
        "key => { const e = document.querySelector(`.st-key-${key}`); const r = e.getBoundingClientRect();"
        " const legend = e.querySelector('.legend'); const l = legend ? legend.getBoundingClientRect() : r;"
        " return {top: r.top, bottom: r.bottom, legend: l.bottom}; }"
    )
    box = settled(page, f"() => ({script})('tr_{name}_figure')")
    assert exceptions(page) == []
    context.close()
    assert box["top"] >= 0 and box["bottom"] <= 720 and box["legend"] <= 720, box


def test_the_issues_heavy_link_says_it_is_over_one_clicks_ceiling_and_cannot_be_started(browser, app_url):
    """/train?tr_d=128&tr_heads=8&tr_steps=2000&tr_window=4&tr_seed=77 (79 s of CPU per click before):
    the page says before any click what it would cost and how many steps fit; Train is disabled, and
    "Use 300 steps" turns the steps down to what fits."""
    cost = live.budget(fit, Config(d_model=128, heads=8, window=4), saw_task(), 2000, 0.01, 77)
    fitting = live.fitting_steps(cost, STEP_OPTIONS)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    link = "tr_d=128&tr_heads=8&tr_steps=2000&tr_window=4&tr_seed=77"
    open_page(page, f"{app_url}/train?lang=zh&{link}", charts=False)
    warning = page.locator("[data-testid=stAlertContentWarning]").first.inner_text()
    assert (
        t(
            "train.over_budget",
            lang="zh",
            seconds=f"{cost.seconds:.0f}",
            limit=f"{cost.limit_s:g}",
            most=cost.max_steps,
            fit=fitting,
        ).replace("**", "")
        in warning
    )
    assert page.locator(".st-key-tr_train button").is_disabled()
    page.locator(".st-key-tr_train_fit button").click()
    page.wait_for_function("() => !document.querySelector('.st-key-tr_train button').disabled", timeout=60000)
    assert "tr_steps" not in page.url  # 300, the default, is left out of the link
    assert exceptions(page) == []
    context.close()
