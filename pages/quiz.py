"""Final quiz: questions from every page of the course, numbers drawn afresh for each attempt and
computed by the core, graded at once; a score, and what to reread page by page."""

import numpy as np
import streamlit as st

from lab_ui import controls, course, page, registry
from lab_ui.i18n import t
from lab_ui.quiz import Question, ask, where

PER_PAGE = 2  # questions drawn from each page's bank: 10 pages give 20, new pages add theirs

frame = page.start("quiz")


def new_attempt() -> None:
    st.session_state["qz_seed"] = int(st.session_state.get("qz_seed", 1)) + 1


def draw(attempt: int) -> list[Question]:
    """PER_PAGE questions of every page, in course order; which ones depends on the attempt."""
    rng = np.random.default_rng([7, attempt])
    chosen = []
    for info in course.concept_pages():
        bank = list(info.quiz)
        picks = sorted(rng.choice(len(bank), size=min(PER_PAGE, len(bank)), replace=False)) if bank else []
        chosen += [bank[i] for i in picks]
    return chosen


left, right = st.columns([1, 2], vertical_alignment="bottom")
with left:
    attempt = controls.number_input(
        t("quiz.attempt"), key="qz_seed", value=1, min_value=1, max_value=1_000_000, step=1, help=t("quiz.attempt_help")
    )
with right:
    st.button(t("quiz.new_attempt"), on_click=new_attempt, icon=":material/refresh:")


@st.fragment
def questions(attempt: int) -> None:
    """All questions and the score: one answer reruns this part alone."""
    drawn = draw(attempt)
    results: dict[str, list[bool]] = {}  # page -> right or wrong, for each answered question
    missed: dict[str, list[Question]] = {}  # page -> the questions answered wrong
    for i, question in enumerate(drawn, start=1):
        task = question.make(np.random.default_rng([attempt, course.ITEMS.index(question.id), question.number]))
        answered = ask(
            question, task, key=f"final_{attempt}_{question.id}", label=t("quiz.question_n", i=i, n=len(drawn))
        )
        if answered is not None:
            results.setdefault(question.ns, []).append(answered)
            if not answered:
                missed.setdefault(question.ns, []).append(question)
    right = sum(sum(r) for r in results.values())
    answered = sum(len(r) for r in results.values())
    st.subheader(t("quiz.score", right=right, total=len(drawn), answered=answered))
    if answered == len(drawn) and right == len(drawn):
        st.success(t("quiz.all_right"), icon=":material/celebration:")
    st.markdown(f"**{t('quiz.by_topic')}**")
    for info in course.concept_pages():
        asked = [q for q in drawn if q.ns == info.ns]
        if not asked:
            continue
        got = results.get(info.ns, [])
        st.markdown(t("quiz.topic_row", page=t(info.text["nav"]), right=sum(got), answered=len(got), total=len(asked)))
        # what to reread: the section that teaches each answer that was wrong, each section once
        sections: dict[tuple, Question] = {}
        for question in missed.get(info.ns, []):
            sections.setdefault((question.teacher, question.section), question)
        for question in sections.values():
            label = t("quiz.topic_reread", where=where(question))
            st.page_link(registry.info(question.teacher).path, label=label, icon=":material/menu_book:")


questions(int(attempt))
course.previous_next(frame.ns)
