"""The fragment path of bench/lecture_hall.py, before the real pages have fragments: one slider
of the page, whose move reruns everything, and one slider inside an st.fragment, whose move reruns
that section only, as the browser asks for it (BackMsg.rerun_script with the fragment's id).

    .venv/bin/python -m bench.lecture_hall --page bench/fragment_app.py --slider section   # fragment reruns
    .venv/bin/python -m bench.lecture_hall --page bench/fragment_app.py --slider page      # full reruns

Each part does some work of its own (about 10 ms on the machine of docs/performance.md), so that
the server CPU per rerun tells the two kinds of run apart.
"""

import streamlit as st


def work(value: int) -> int:
    """Something for the CPU to do, like a page's own computation."""
    return sum(i * i % (value + 7) for i in range(150_000))


page_value = st.slider("page", 0, 20, 10, key="page_x")
st.write("page:", page_value, work(page_value))


@st.fragment
def section() -> None:
    value = st.slider("section", 0, 20, 5, key="section_x")
    st.write("section:", value, work(value), "(page:", page_value, ")")


section()
