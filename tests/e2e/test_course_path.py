"""The self-study path in a real browser: start on the home page, answer a quiz question on the
first page, follow "Next" to the second page and answer one there, reload, and find the progress
kept on the home page; a link copied from a page carries no progress."""

from __future__ import annotations

from browser_helpers import copied_link, exceptions, open_page, wait_until_idle

from lab_ui import course
from lab_ui.i18n import t
from lab_ui.quiz import page_task
from lab_ui.registry import info as page_info


def turn_to_the_last_step(page, ns: str) -> None:
    """The page's quiz follows its last step: open the step bar's contents and pick the last one."""
    info = page_info(ns)
    page.locator(".st-key-step_bar [data-testid=stPopover] button").first.click()
    page.locator(f".st-key-{info.step_key}_go_{len(info.steps)} button").click()
    wait_until_idle(page)


def answer_first_choice_question_right(page, ns: str) -> None:
    """Pick the right option of the page's first multiple-choice quiz question (by its place: an
    option's words may be LaTeX, which the browser shows as rendered maths)."""
    turn_to_the_last_step(page, ns)
    question = next(q for q in page_info(ns).quiz if page_task(q).options)
    task = page_task(question)
    n = question.id.rsplit(":", 1)[1]
    radio = page.locator(f".st-key-qz_{ns}_{n}")
    radio.locator("[data-testid=stRadioOption]").nth(1 + task.options.index(task.answer)).click()  # 0: no answer yet
    wait_until_idle(page)
    radio.locator("xpath=..").get_by_text(t("quiz.right", lang="en", answer="")[:6]).first.wait_for(timeout=20000)


def test_a_student_follows_the_path_reloads_and_keeps_the_progress(context, app_url):
    first, second = course.concept_pages()[:2]
    page = context.new_page()
    open_page(page, f"{app_url}/?lang=en", charts=False)
    page.get_by_text(t("course.start_here", lang="en")).click()
    wait_until_idle(page)
    page.wait_for_url(f"**/{first.url_path}**")
    answer_first_choice_question_right(page, first.ns)
    page.get_by_text(t("course.next", lang="en", page=t(second.text["nav"], lang="en"))).click()
    wait_until_idle(page)
    page.wait_for_url(f"**/{second.url_path}**")
    answer_first_choice_question_right(page, second.ns)
    assert "progress=" in page.url

    page.reload()
    open_page(page, page.url, charts=False)
    page.get_by_text(t("home.nav", lang="en"), exact=True).first.click()  # the navigation's Home
    wait_until_idle(page)
    body = page.locator("[data-testid=stMain]").inner_text()
    for info in (first, second):
        total = len(course.page_items(info.ns))
        assert t("course.status_visited", lang="en", passed=1, total=total) in body, info.ns
    assert exceptions(page) == []

    copied = copied_link(page, "en")
    assert "progress=" not in copied and "lang=en" in copied
