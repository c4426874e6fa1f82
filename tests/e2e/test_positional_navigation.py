"""The positional page's navigation with real mouse clicks in Chromium (issue 11, bug 1: after one
tab change the next tab click was ignored). The page is a stepper: a step link opens that step
alone, and every click on Next or Previous moves exactly one step, also right after a control
inside a step moved."""

from __future__ import annotations

import re

from browser_helpers import exceptions, open_page, wait_until_idle

from lab_ui.i18n import t

SECTIONS = ("why", "sinusoids", "similarity", "learned", "check")


def _step_of(page) -> int:
    match = re.search(r"pe_step=(\d)", page.url)
    return int(match.group(1)) if match else 1


def _expect_step(page, step: int) -> None:
    title = t(f"positional.section_{SECTIONS[step - 1]}", lang="en")
    bar = page.locator(".st-key-lecture_step_label")
    bar.get_by_text(t("common.step_of", lang="en", i=step, n=5)).wait_for(timeout=30000)
    bar.get_by_text(title, exact=False).first.wait_for(timeout=30000)
    assert _step_of(page) == step, page.url
    assert exceptions(page) == []


def _click(page, key: str) -> None:
    page.locator(f".st-key-{key} button").click()
    wait_until_idle(page)


def test_every_step_click_counts_forwards_back_and_after_a_section_control(context, app_url):
    page = context.new_page()
    open_page(page, f"{app_url}/positional?lang=en&lecture=1")
    _expect_step(page, 1)
    for step in (2, 3, 4, 5):  # the old bug: the second click was ignored
        _click(page, "pe_step_next")
        _expect_step(page, step)
    for step in (4, 3):
        _click(page, "pe_step_prev")
        _expect_step(page, step)
    slider = page.locator(".st-key-pe_k input[type=range]")  # the rotation's own slider: a fragment rerun
    slider.focus()
    page.keyboard.press("ArrowRight")
    wait_until_idle(page)
    page.wait_for_function("() => location.search.includes('pe_k=6')", timeout=30000)
    _click(page, "pe_step_next")  # the first click after it still moves on
    _expect_step(page, 4)
    _click(page, "pe_step_next")
    _expect_step(page, 5)


def test_a_step_link_opens_that_step_alone(context, app_url):
    page = context.new_page()
    open_page(page, f"{app_url}/positional?lang=en&pe_step=3")
    page.locator("#positional-similarity").wait_for(timeout=30000)
    assert page.locator("#positional-why").count() == 0  # one step on the screen
    page.locator(".st-key-pe_step_next button").click()
    wait_until_idle(page)
    page.locator("#positional-learned").wait_for(timeout=30000)
    assert _step_of(page) == 4 and page.locator("#positional-similarity").count() == 0
    assert exceptions(page) == []
