"""The course: the pages in teaching order (lab_ui.registry, whose manifests say what each leaves a
student able to do, how long it takes and what counts as its progress), a page's status, the way on
at the end of every concept page, and the lecture plan an instructor copies into slides.

Progress items (lab_ui.progress keeps them in the address as a code): a page visited, a
check-yourself answered right (the check's widget key), a quiz question answered right, in the
order of lab_ui.registry.LEDGER (append only).
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from lab_ui import progress
from lab_ui.i18n import t
from lab_ui.registry import HOME, LEDGER, PAGES, PageInfo, info
from lab_ui.state import labels

STATUS = labels("course.status_", "new", "visited", "done")
ITEMS: tuple[str, ...] = LEDGER  # the progress code's items, in the order of its bits


def course_pages() -> tuple[PageInfo, ...]:
    """Every page of the course in teaching order, the final quiz last."""
    return (*concept_pages(), *(p for p in PAGES if p.ns == "quiz"))


def concept_pages() -> tuple[PageInfo, ...]:
    """The pages that teach, in teaching order (all but the final quiz)."""
    return tuple(p for p in PAGES if p.ns != "quiz")


def page_items(ns: str) -> tuple[str, ...]:
    """What a page's progress is made of: its checks and its quiz questions."""
    return info(ns).items[1:]


def status(ns: str) -> tuple[str, int, int]:
    """("new" | "visited" | "done", items passed, items in all) for one page, for this student."""
    done = progress.passed()
    items = page_items(ns)
    passed = sum(item in done for item in items)
    if items and passed == len(items):
        return "done", passed, len(items)
    return ("visited" if f"page:{ns}" in done else "new"), passed, len(items)


def status_text(ns: str) -> str:
    """A page's status in words: "not started", "visited · 2 of 6 questions right", "done: ...";
    the final quiz's is its best score ("best score 9 of 12"). The ladder of a best score counts
    its passed items: the best score is how many."""
    state, passed, total = status(ns)
    if info(ns).scored and passed:
        return t("course.status_best", best=passed, total=total)
    if state == "visited" and (not total or info(ns).scored):
        return t("course.status_seen")
    return STATUS.text(state, passed=passed, total=total)


def visit(ns: str) -> None:
    progress.mark(f"page:{ns}", ITEMS)


def record(item: str, solved: bool) -> None:
    """A check or a quiz question answered: right answers count (a wrong one takes nothing away)."""
    if solved:
        progress.mark(item, ITEMS)


def neighbours(ns: str) -> tuple[PageInfo | None, PageInfo | None]:
    pages = course_pages()
    names = [p.ns for p in pages]
    if ns not in names:
        return None, None
    i = names.index(ns)
    return (pages[i - 1] if i > 0 else None), (pages[i + 1] if i + 1 < len(pages) else None)


def previous_next(ns: str) -> None:
    """The way on at the bottom of a page: the previous and the next page of the course (the start
    page before the first and after the last)."""
    before, after = neighbours(ns)
    left, right = st.columns(2)
    if before is not None:
        label = t("course.previous", page=t(before.text["nav"]))
        left.page_link(before.path, label=label, icon=":material/arrow_back:")
    else:
        left.page_link(HOME.path, label=t("course.to_start"), icon=":material/home:")
    if after is not None:
        label = t("course.next", page=t(after.text["nav"]))
        right.page_link(after.path, label=label, icon=":material/arrow_forward:")
    else:  # the end of the course (the final quiz): back to the start page and its progress
        right.page_link(HOME.path, label=t("course.to_start"), icon=":material/home:")


def lecture_plan(base_url: str, lang: str) -> str:
    """The lecture plan as one text to copy into slides: each page's title once, then its steps,
    each step's title with its link below it."""
    blocks: dict[str, list[str]] = {}
    for title, i, step, link in lecture_links(base_url, lang):
        blocks.setdefault(title, []).append(f"  {t('course.lecture_plan_row', i=i, step=step)}\n     {link}")
    return "\n\n".join(title + "\n" + "\n".join(rows) for title, rows in blocks.items())


def lecture_links(base_url: str, lang: str) -> list[tuple[str, int, str, str]]:
    """(page title, step number, step title, link) for every lecture step of every page, in course
    order."""
    rows = []
    for page in concept_pages():
        for i, title in enumerate(page.steps.values(), start=1):
            query = urlencode({"lang": lang, "lecture": 1, page.step_key: i})
            rows.append((t(page.text["title"]), i, t(title), f"{base_url}/{page.url_path}?{query}"))
    return rows
