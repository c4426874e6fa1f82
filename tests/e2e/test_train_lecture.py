"""The training page's comparison steps in lecture mode, after their button is pressed: the figure
a run draws is whole on a 1280 x 720 projector's first screen, its legend included (the e2e
lecture test measures each step as it opens, before any run, when there is no figure yet)."""

from __future__ import annotations

import pytest
from browser_helpers import exceptions, open_page, settled, wait_until_idle

from lab_ui.i18n import t

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
