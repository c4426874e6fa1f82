"""Quiz questions: how one is asked, how a typed answer is read and graded, and the quiz at the end
of every concept page. The questions are in each page's manifest (lab_ui/registry.py), their
tasks in lab_ui.quiz_bank, their words in the page's catalog (<ns>.quiz_<n>).

A question is graded the moment it is answered, with an explanation and a link to the step that
teaches it (on the page itself, a button that turns to that step). Answers are kept
for the session, so a student who follows a link to reread and comes back finds them as left.
A typed number is read leniently (full-width digits, a thousands comma, a fraction such as 1/4)
and anything else (empty, words, another script, a number too large to mean anything) is graded
wrong with a hint, never an error.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import streamlit as st

from lab_ui import course
from lab_ui.i18n import t
from lab_ui.quiz_bank import Question, Task
from lab_ui.registry import PAGES

MAX_ABS = 1e15  # a typed number beyond this is not an answer to any question here


@dataclass(frozen=True)
class Reading:
    """A typed answer as read: the number, or why it could not be read (a catalog key)."""

    value: float | None
    hint: str | None = None


_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")
_FRACTION = re.compile(r"([+-]?\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)")


def read_number(text: str) -> Reading:
    """Read a typed answer. Full-width digits (１２) are digits; "1,000" is a thousand; "1/4" is
    0.25; "0,25" asks for a point; words, Chinese numerals or emoji ask for digits."""
    text = unicodedata.normalize("NFKC", text or "").strip().replace(" ", "").replace("−", "-")
    if not text:
        return Reading(None, "quiz.hint_empty")
    if _THOUSANDS.fullmatch(text):
        text = text.replace(",", "")
    elif _DECIMAL_COMMA.fullmatch(text):
        return Reading(None, "quiz.hint_comma")
    fraction = _FRACTION.fullmatch(text)
    try:
        if fraction:
            denominator = float(fraction.group(2))
            if denominator == 0:
                return Reading(None, "quiz.hint_digits")
            value = float(fraction.group(1)) / denominator
        else:
            value = float(text)
    except ValueError:
        return Reading(None, "quiz.hint_digits")
    if not math.isfinite(value) or abs(value) > MAX_ABS:
        return Reading(None, "quiz.hint_huge")
    return Reading(value)


def is_right(reading: Reading, task: Task) -> bool:
    if reading.value is None:
        return False
    answer = float(task.answer)
    return abs(reading.value - answer) <= max(task.tolerance, task.relative * abs(answer))


def shown(x: float) -> str:
    """An answer as the explanation writes it: whole numbers without decimals, others with at most
    4 places and no trailing zeros (-0.44, not -0.4400)."""
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{x:,.0f}"
    return f"{x:.4f}".rstrip("0").rstrip(".")


def words(key: str, **values) -> str:
    """A quiz text, always filled in (with no values too), so every quiz string writes a LaTeX
    brace the same way, as {{ or }} (t() leaves a string it has no values for as it is)."""
    return t(key).format(**values)


def ask(question: Question, task: Task, *, key: str, label: str = "", here: str | None = None) -> bool | None:
    """Ask one question; grade it when answered. Returns True / False once answered, else None.
    label: what stands before the question in bold (e.g. "Question 3 of 14"); here: the page
    this is drawn on (its own sections are linked by their anchors). The answer is kept for the
    session (persist_state), so leaving the page to reread and coming back keeps it."""
    text = words(question.text, **task.values)
    with st.container(border=True):
        st.markdown(f"**{label}** · {text}" if label else text)
        if task.options:
            picked = st.radio(
                t("quiz.your_answer"),
                ["", *task.options],
                key=key,
                persist_state="session",
                format_func=lambda o: words(question.option(o)) if o else "—",
            )
            if not picked:
                return None
            right = picked == task.answer
            verdict = words(question.option(task.answer))
        else:
            typed = st.text_input(
                t("quiz.your_answer"), key=key, placeholder=t("quiz.type_number"), persist_state="session"
            )
            if not typed:
                return None
            reading = read_number(typed)
            right = is_right(reading, task)
            verdict = shown(float(task.answer))
            if reading.hint:
                st.warning(t(reading.hint), icon=":material/edit:")
        if right:
            st.success(t("quiz.right", answer=verdict))
        else:
            st.error(t("quiz.wrong", answer=verdict))
        st.info(t(question.why, **task.values, answer=verdict))
        reread(question, here=here)
    return right


def where(question: Question) -> str:
    """The page and step that teach a question, as a link's words: "Attention heatmaps · 3 Speech"."""
    info = next((p for p in PAGES if p.ns == question.teacher), None)
    if info is None:
        return ""
    if question.section not in info.steps:
        return t(info.text["nav"])
    number = info.step_names.index(question.section) + 1
    return f"{t(info.text['nav'])} · {number} {t(info.steps[question.section])}"


def reread(question: Question, *, here: str | None = None) -> None:
    """A link to the step that teaches the question, in the same tab and session (progress and the
    answers given so far are kept): on the page itself a button that turns to that step, from
    another page a link that opens it there."""
    info = next((p for p in PAGES if p.ns == question.teacher), None)
    if info is None:
        return
    label = t("quiz.reread", where=where(question))
    step = info.step_names.index(question.section) + 1 if question.section in info.steps else 1
    if here == info.ns:
        # a callback: it runs before the script, whatever reruns come first (lab_ui/shell.py)
        st.button(
            label,
            key=f"reread_{question.id}",
            icon=":material/menu_book:",
            type="tertiary",
            on_click=_turn_to,
            args=(info.step_key, step),
        )
    else:
        st.page_link(info.path, label=label, icon=":material/menu_book:", query_params={info.step_key: step})


_TURNED = "_quiz_turned_the_page"


def _turn_to(step_key: str, step: int) -> None:
    st.session_state[step_key] = step
    st.session_state[_TURNED] = True


def page_quiz(ns: str, questions: list[Question]) -> None:
    """The questions at the end of a concept page; a right answer counts toward progress. A
    "reread" button turns the page to another step: the whole page must follow, not this
    fragment alone."""
    if st.session_state.pop(_TURNED, False):
        st.rerun()
    st.subheader(t("quiz.page_title"))
    st.caption(t("quiz.page_caption", n=len(questions)))
    for i, question in enumerate(questions, start=1):
        task = page_task(question)
        label = t("quiz.question_n", i=i, n=len(questions))
        answered = ask(question, task, key=f"qz_{ns}_{question.number}", label=label, here=ns)
        if answered is not None:
            course.record(question.id, answered)


def page_task(question: Question) -> Task:
    """The question as a page's own quiz asks it: the same numbers (and order of options) on every
    visit, from a generator of its own (one per question, so that no two pages' question n put
    the right option in the same place); the final quiz draws new ones for each attempt."""
    return question.make(np.random.default_rng([0, course.ITEMS.index(question.id)]))
