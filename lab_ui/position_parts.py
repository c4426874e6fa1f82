"""Parts of the positional-encoding page that are more than a figure: the figure and numbers-box
helpers its steps share, article 003's code read carefully (two slips, and a table sequence-first
in a batch-first model), and why a shift is a rotation (a fragment of its own inside the similarity
step). The page declares the controls (pages/positional.py) and hands in the ones a part draws."""

from __future__ import annotations

import streamlit as st

from attention_core import positional as core
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import positional as figures
from lab_ui.i18n import current_lang, t


def figure(key: str, build, *args, alt: str) -> None:
    """A figure built once per arguments (the cache), placed by lab_ui.layout; its key "positional_<key>"."""
    widgets.show_figure(cached(build, *args), key=f"positional_{key}", alt=alt)


def numbers(p: page.Parts, file: str, build, *args, box: str = "table", label: str | None = None, **show) -> None:
    """The numbers behind a figure, folded (built only while open), as a table and its CSV `file`.csv."""
    label = t("positional.numbers") if label is None else label
    p.table(label, build, *args, box=box, key=f"{p.box_key}_{box}_t", filename=f"{file}.csv", **show)


def article_code(p: page.Parts, d_model: int, base: float, lang: str) -> None:
    """Article 003's code read carefully: two slips, and a table sequence-first in a batch-first model."""
    mixup = cached(core.batch_first_mixup, figures.ARTICLE_BATCH, figures.ARTICLE_SEQ_LEN, d_model, base)
    with st.container(border=True):
        st.markdown(t("positional.article_code_title"))
        st.code(t("positional.article_code").strip(), language="python", wrap_lines=True)
        st.markdown(t("positional.article_code_body"))
        st.markdown(t("positional.mixup_title"))
        st.code(t("positional.mixup_code").strip(), language="python", wrap_lines=True)
        st.markdown(figures.mixup_reading(mixup, lang))
    numbers(p, "article_003_rows", figures.mixup_table, mixup, lang, box="mixup", label=t("positional.mixup_table"))


@st.fragment
def rotation_part(k_control: state.Control, pair_control: state.Control, n: int, d: int, base: float) -> None:
    """Why a shift is a rotation, for the offset k and the frequency pair the two controls set: a
    fragment of its own inside the similarity step, so moving k or the pair reruns it alone."""
    st.markdown(f"#### {t('positional.rotation_title')}")  # a part of the step, not a step of its own
    page.prose(t("positional.rotation_body"))
    if d < 2:
        st.info(t("positional.no_pairs"), icon=":material/info:")
        return
    with page.section_controls():
        k, wanted = k_control.draw(), pair_control.draw()
    view, lang = cached(core.shift_rotation, n, d, k, wanted, base), current_lang()
    if view.pair < wanted:
        st.caption(t("positional.pair_clamped", d=d, last=view.pair))
    st.latex(figures.rotation_block(view))
    (metric, (kind, words, icon)), (left, right) = figures.rotation_metrics(view, n, d, lang), st.columns([1, 2])
    left.metric(**metric)
    getattr(right, kind)(words, icon=icon)
    figure("rotation", figures.shift_rotation, view, lang, alt=figures.rotation_alt(view, lang))
    box = "pe_similarity_rotation"  # the step's boxes are "pe_similarity_<box>"
    page.folded_table(
        t("positional.rotation_table"),
        box,
        figures.rotation_table,
        view,
        key=f"{box}_t",
        filename="pe_rotation_check.csv",
        decimals=9,
    )
    if box := page.numbers_box("pe_similarity_rotation_formula", t("common.formula_and_code"), ":material/function:"):
        with box:
            widgets.formula_and_code(core.ROTATION_FORMULA, core.shift_rotations, core.position_similarity)
