"""The Q, K, V walkthrough on a page, beside its typeset matrices (lab_ui.matrices): the lock that
hides the numbers equal to the check's answer until it is answered, the steps' numbers boxes, and
their figures with the words a screen reader says for them. The page keeps its controls and steps;
these are its parts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention_core import steps
from attention_core.dropout import DropoutRow
from attention_core.steps import QKVWalkthrough, ScoreCheck
from lab_ui import page, widgets
from lab_ui.cache import cached
from lab_ui.figures import qkv as fq
from lab_ui.i18n import t
from lab_ui.lecture import is_lecture, is_whole_page


@dataclass(frozen=True)
class Lock:
    """Until the check is answered, the later steps write the numbers that equal its answer as "?"."""

    check: str  # the check's key: the student's typed answer, kept by its widget for the session
    step_key: str  # the page's step in the link (<prefix>_step)
    check_step: int  # the check's step, 1-based

    def locked(self, c: ScoreCheck) -> bool:
        """Are the numbers that equal the check's answer still hidden? Until it is typed right (the
        student's input, kept by the check's widget for the session) or its answer shown; never in
        lecture mode, where the hall sees one step at a time."""
        answered = c.accepts(st.session_state.get(self.check)) or st.session_state.get(f"{self.check}_show")
        return not is_lecture() and not answered

    def hides(self, c: ScoreCheck, values: np.ndarray) -> bool:
        """Do these numbers give the check's answer away while it is locked?"""
        return self.locked(c) and bool(steps.gives_away(values, c.answer).any())

    def under_check(self, c: ScoreCheck) -> None:
        """Under the check, whether it hides its answer's numbers. Typing reruns the check's step
        alone; on the whole page, where the steps that hide them stand below, a change of what they
        must hide reruns the page."""
        seen = f"_{self.step_key.removesuffix('_step')}_locked"  # what the last run hid: _qkv_locked
        hide = self.locked(c)
        before, st.session_state[seen] = st.session_state.get(seen, hide), hide
        if is_whole_page() and before != hide:
            st.rerun()  # the steps below must show (or hide) the answer's numbers
        if hide:
            st.info(t("qkv.check_locks", j=c.j + 1), icon=":material/lock:")

    def notice(self, p: page.Parts, c: ScoreCheck, hiding: bool) -> None:
        """Under a step that hides the check's answer (hiding): why, and the way to the check."""
        if not hiding:
            return
        step = self.check_step
        st.info(t("qkv.check_hides", j=c.j + 1, step=step), icon=":material/lock:")
        st.button(
            t("qkv.to_check", step=step),
            key=f"{p.box_key}_to_check",
            on_click=page.go_to_step,
            args=(self.step_key, step),
        )


def numbers(p: page.Parts, build: Callable, *args) -> None:
    """A step's numbers as a table with its CSV, in a folded box built only while it is open; a
    hidden number reads "?". build(*args) -> (table, file name, caption) (lab_ui.figures.qkv)."""
    with p.numbers:
        if box := page.numbers_box(f"{p.box_key}_table", t("qkv.numbers_box")):
            with box:
                table, filename, caption = cached(build, *args)
                widgets.show_table(table, key=f"{p.box_key}_table", filename=filename, caption=caption, missing="?")


def scores(r: QKVWalkthrough, lang: str, hidden: bool) -> None:
    """The followed query's scores turning into weights (hidden: the bars that equal the answer)."""
    widgets.show_figure(
        cached(fq.scores_figure, r, lang, hidden),
        key="qkv_scores",
        alt=t("qkv.alt_scores", i=r.query.i + 1, best=fq.key_labels(r.tokens)[r.query.best]),
    )


def dot_vs_additive(r: QKVWalkthrough, lang: str) -> None:
    """The followed query's weights, scored by the dot product and the additive (tanh) way."""
    alt = t("qkv.alt_dot_vs_add", i=r.query.i + 1)
    widgets.show_figure(cached(fq.compare_figure, r, lang), key="qkv_dot_vs_add", alt=alt)


def dropout(d: DropoutRow, tokens: tuple[str, ...], i: int, lang: str) -> None:
    """Query i's weights (0-based) before and after dropout, the dropped keys marked."""
    widgets.show_figure(
        cached(fq.dropout_figure, d, tokens, lang),
        key="qkv_dropout",
        alt=t("qkv.alt_dropout", i=i + 1, n=int((~d.keep).sum()), T=len(tokens)),
    )
