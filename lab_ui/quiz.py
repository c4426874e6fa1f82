"""Quiz questions: how one is asked, how a typed answer is read and graded, and the quiz at the end
of every concept page. The questions themselves are in lab_ui.quiz_bank, their words in
lab_ui/locales/quiz.toml.

A question is graded the moment it is answered, with an explanation and a link to the page and
section that teach it. A typed number is read leniently (full-width digits, a thousands comma,
a fraction such as 1/4) and anything else (empty, words, another script, a number too large to
mean anything) is graded wrong with a hint, never an error.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from lab_ui import course
from lab_ui.i18n import t
from lab_ui.registry import PAGES

MAX_ABS = 1e15  # a typed number beyond this is not an answer to any question here


@dataclass(frozen=True)
class Task:
    """One question as asked: the values its words show, and its answer."""

    values: dict = field(default_factory=dict)  # {placeholder: text} for the question's words
    answer: float | str = 0.0  # a number, or the id of the right option
    tolerance: float = 0.0  # absolute, or relative to the answer, whichever is larger
    options: tuple[str, ...] = ()  # option ids, in the order shown (choice questions)


@dataclass(frozen=True)
class Question:
    id: str  # "quiz:<ns>:<n>", a progress item (lab_ui.course.ITEMS)
    ns: str  # the page that teaches it
    section: str | None  # the section of that page, or None for the page as a whole
    make: Callable[[np.random.Generator], Task]  # the task for an attempt's random numbers

    @property
    def text_key(self) -> str:
        _, ns, n = self.id.split(":")
        return f"quiz.{ns}_{n}"

    def is_choice(self, task: Task) -> bool:
        return bool(task.options)


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
    return abs(reading.value - answer) <= max(task.tolerance, task.tolerance * abs(answer))


def shown(x: float) -> str:
    """An answer as the explanation writes it: whole numbers without decimals, others with 4 places."""
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:.4f}"


def ask(question: Question, task: Task, *, key: str, label: str = "") -> bool | None:
    """Ask one question; grade it when answered. Returns True / False once answered, else None.
    label: what stands before the question in bold (e.g. "Question 3 of 14")."""
    text = t(question.text_key, **task.values)
    with st.container(border=True):
        st.markdown(f"**{label}** · {text}" if label else text)
        if question.is_choice(task):
            picked = st.radio(t("quiz.your_answer"), ["", *task.options], key=key,
                              format_func=lambda o: t(f"{question.text_key}_{o}") if o else "—")  # fmt: skip
            if not picked:
                return None
            right = picked == task.answer
            verdict = t(f"{question.text_key}_{task.answer}")
        else:
            typed = st.text_input(t("quiz.your_answer"), key=key, placeholder=t("quiz.type_number"))
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
        st.info(t(f"{question.text_key}_why", **task.values, answer=verdict))
        reread(question)
    return right


def reread(question: Question) -> None:
    """A link to the page (and the section) that teaches the question."""
    info = next((p for p in PAGES if p.ns == question.ns), None)
    if info is None:
        return
    where = t(f"{info.ns}.nav")
    if question.section and question.section in info.sections:
        number = info.sections.index(question.section) + 1
        where = f"{where} · {number} {t(f'{info.ns}.section_{question.section}')}"
    st.page_link(info.path, label=t("quiz.reread", where=where), icon=":material/menu_book:")


def page_quiz(ns: str, questions: list[Question]) -> None:
    """The questions at the end of a concept page; a right answer counts toward progress."""
    rng_seed = 0  # a page's own quiz asks the same numbers every time; the final quiz varies them
    st.subheader(t("quiz.page_title"))
    st.caption(t("quiz.page_caption", n=len(questions)))
    for i, question in enumerate(questions, start=1):
        task = question.make(np.random.default_rng([rng_seed, _number(question)]))
        label = t("quiz.question_n", i=i, n=len(questions))
        answered = ask(question, task, key=f"qz_{ns}_{_number(question)}", label=label)
        if answered is not None:
            course.record(question.id, answered)


def _number(question: Question) -> int:
    return int(question.id.rsplit(":", 1)[1])
