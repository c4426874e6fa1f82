"""The course: the pages in teaching order (lab_ui.registry), what each should leave a student able
to do, how long it takes, what counts as progress, the end of every concept page (its quiz and
the way on), and the lecture plan an instructor copies into slides.

Progress items (lab_ui.progress keeps them in the address as a code): a page visited, a
check-yourself answered right (the check's widget key), a quiz question answered right. ITEMS is
their order in the code: append only, never reorder or remove, or saved codes would mean
something else (tests/app/test_course.py checks that every item the pages use is listed).
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from lab_ui import progress
from lab_ui.i18n import t
from lab_ui.registry import HOME, PAGES, PageInfo

# The check-yourself boxes of each page, by widget key (lab_ui.widgets.check_number/check_choice).
# The checks of the first saved codes, frozen: ITEMS below is built from them in this order.
_CHECKS_V1: dict[str, tuple[str, ...]] = {
    "one_hot": ("oh_q_cos", "oh_q_frames"),
    "before_self_attention": ("ed_check_shape", "ed_check_ceiling"),
    "qkv": ("qkv_check",),
    "heatmap": ("hm_check",),
    "multi_head": ("mh_check", "mh_choice"),
    "positional": ("pe_q_swap", "pe_q_value", "pe_q_offset"),
    "rnn_cnn": ("rc_check_cheaper", "rc_check_products"),
    "scaling": ("sc_check",),
    "real_model": ("rm_check", "rm_num"),
}
CHECKS: dict[str, tuple[str, ...]] = {**_CHECKS_V1, "train": ("tr_check_ceiling", "tr_check_order")}
QUIZ_SIZE = 4  # questions at the end of each concept page (lab_ui.quiz_bank has them)

# Append only (see the module's docstring): a saved code's n-th bit is the n-th item here.
# A page added later appends its own items at the end (the frozen _CHECKS_V1 keeps the order of
# the first part): "page:<ns>", its checks, then its quiz questions.
ITEMS: tuple[str, ...] = (
    "page:one_hot",
    "page:before_self_attention",
    "page:qkv",
    "page:heatmap",
    "page:multi_head",
    "page:positional",
    "page:rnn_cnn",
    "page:scaling",
    "page:real_model",
    "page:quiz",
    *(key for keys in _CHECKS_V1.values() for key in keys),
    *(f"quiz:{ns}:{i}" for ns in _CHECKS_V1 for i in range(1, QUIZ_SIZE + 1)),
    # the live-training page (issue 14)
    "page:train",
    *CHECKS["train"],
    *(f"quiz:train:{i}" for i in range(1, QUIZ_SIZE + 1)),
)


def course_pages() -> tuple[PageInfo, ...]:
    """Every page of the course in teaching order, the final quiz last."""
    return (*concept_pages(), *(p for p in PAGES if p.ns == "quiz"))


def concept_pages() -> tuple[PageInfo, ...]:
    """The pages that teach, in teaching order (all but the final quiz)."""
    return tuple(p for p in PAGES if p.ns != "quiz")


def page_items(ns: str) -> tuple[str, ...]:
    """What a page's progress is made of: its checks and its quiz questions that ITEMS lists."""
    candidates = (*CHECKS.get(ns, ()), *(f"quiz:{ns}:{i}" for i in range(1, QUIZ_SIZE + 1)))
    return tuple(item for item in candidates if item in ITEMS)


def status(ns: str) -> tuple[str, int, int]:
    """("new" | "visited" | "done", items passed, items in all) for one page, for this student."""
    done = progress.passed()
    items = page_items(ns)
    passed = sum(item in done for item in items)
    if items and passed == len(items):
        return "done", passed, len(items)
    return ("visited" if f"page:{ns}" in done else "new"), passed, len(items)


def status_text(ns: str) -> str:
    """A page's status in words: "not started", "visited · 2 of 6 questions right", "done: ...".
    A page with nothing to answer (the final quiz keeps its score to itself) is only visited."""
    state, passed, total = status(ns)
    if state == "visited" and not total:
        return t("course.status_seen")
    return t(f"course.status_{state}", passed=passed, total=total)


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
        label = t("course.previous", page=t(f"{before.ns}.nav"))
        left.page_link(before.path, label=label, icon=":material/arrow_back:")
    else:
        left.page_link(HOME.path, label=t("course.to_start"), icon=":material/home:")
    if after is not None:
        label = t("course.next", page=t(f"{after.ns}.nav"))
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
    for info in concept_pages():
        for i, name in enumerate(info.sections, start=1):
            query = urlencode({"lang": lang, "lecture": 1, info.step_key: i})
            link = f"{base_url}/{info.url_path}?{query}"
            rows.append((t(f"{info.ns}.title"), i, t(f"{info.ns}.section_{name}"), link))
    return rows
