"""Final quiz: questions of its own, each joining what two pages taught, numbers drawn afresh for
each attempt and computed by the core, graded at once; a score, the best score kept in the progress
code (the home page shows it), and what to reread, page by page."""

import numpy as np
import streamlit as st

from lab_ui import controls, course, registry
from lab_ui.i18n import t
from lab_ui.quiz import ask, where
from lab_ui.shell import require_app_shell

INFO = registry.info("quiz")
ATTEMPT_KEY = "qz_seed"


def new_attempt() -> None:
    st.session_state[ATTEMPT_KEY] = int(st.session_state.get(ATTEMPT_KEY, 1)) + 1


def record_best(right: int) -> None:
    """The best score as a ladder of progress items: "final:best:k" for every k up to this score."""
    for k in range(1, right + 1):
        course.record(f"final:best:{k}", True)


@st.fragment
def questions(attempt: int) -> None:
    """All questions and the score: one answer reruns this part alone."""
    results: dict[str, list[bool]] = {}  # teaching page -> right or wrong, for each answered question
    missed: dict[str, list] = {}  # teaching page -> the questions answered wrong
    for i, question in enumerate(INFO.quiz, start=1):
        task = question.make(np.random.default_rng([attempt, course.ITEMS.index("page:quiz"), question.number]))
        label = t("quiz.question_n", i=i, n=len(INFO.quiz))
        answered = ask(question, task, key=f"final_{attempt}_{question.id}", label=label)
        if answered is not None:
            results.setdefault(question.teacher, []).append(answered)
            if not answered:
                missed.setdefault(question.teacher, []).append(question)
    right = sum(sum(r) for r in results.values())
    answered = sum(len(r) for r in results.values())
    record_best(right)
    st.subheader(t("quiz.score", right=right, total=len(INFO.quiz), answered=answered))
    if answered == right == len(INFO.quiz):
        st.success(t("quiz.all_right"), icon=":material/celebration:")
    st.markdown(f"**{t('quiz.by_topic')}**")
    for info in course.concept_pages():
        asked = [q for q in INFO.quiz if q.teacher == info.ns]
        if not asked:
            continue
        got = results.get(info.ns, [])
        st.markdown(t("quiz.topic_row", page=t(info.text["nav"]), right=sum(got), answered=len(got), total=len(asked)))
        for question in {q.section: q for q in missed.get(info.ns, [])}.values():  # each step to reread once
            label = t("quiz.topic_reread", where=where(question))
            step = info.step_names.index(question.section) + 1
            st.page_link(info.path, label=label, icon=":material/menu_book:", query_params={info.step_key: step})


require_app_shell()
course.visit(INFO.ns)
st.title(t(INFO.text["title"]))
st.markdown(t(INFO.text["intro"]))
left, right = st.columns([1, 2], vertical_alignment="bottom")
with left:
    attempt = controls.number_input(
        t("quiz.attempt"),
        key=ATTEMPT_KEY,
        value=1,
        min_value=1,
        max_value=1_000_000,
        step=1,
        help=t("quiz.attempt_help"),
    )
with right:
    st.button(t("quiz.new_attempt"), on_click=new_attempt, icon=":material/refresh:")
questions(int(attempt))
course.previous_next(INFO.ns)
