"""Why divide by √d_k: q·k spreads out as d_k grows, and softmax saturates unless it is scaled.

Steps (sc_step): spread, softmax, derivation. d_k and the seed are page-level: both experiments
read d_k and draw from the seed. The number of sampled pairs (sc_n) is the spread step's own, the
keys per row (sc_T) the softmax step's. The derivation reads neither d_k nor the seed, so on its
own it draws no settings that would change nothing (they keep their values for the other steps).
"""

from dataclasses import dataclass

import streamlit as st

from attention_core.saturation import (
    D_VALUES,
    dot_product_variance,
    jacobian_norm,
    pair_dot_products,
    raw_score_slope,
    saturation_sweep,
    scale_factor,
    score_rows,
    softmax_entropy,
    variance_sweep,
)
from lab_ui import page, registry, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import scaling as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

N_SAMPLES = (500, 1000, 2000, 5000)
T_MAX = 64
TRAIN_SCALE_STEP = registry.info("train").step_names.index("scale") + 1  # the train page's article-003 step


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    d = state.select_slider("sc_d", "scaling.d_label", D_VALUES, 64, help="scaling.d_help")
    seed = state.seed("sc_seed")
    n = state.select_slider("sc_n", "scaling.n_label", N_SAMPLES, 2000, on="spread", help="scaling.n_help")
    T = state.slider("sc_T", "scaling.T_label", 2, T_MAX, 8, on="softmax", help="scaling.T_help")


C = Controls
PAGE = page.Page(
    "scaling",
    Controls,
    presets=(
        state.Preset("scaling.preset_article", {C.d: 8, C.T: 4}),
        state.Preset("scaling.preset_heads", {C.d: 64, C.T: 8}),
        state.Preset("scaling.preset_long", {C.d: 4096, C.T: T_MAX}),
        state.Preset("scaling.preset_saturation", {C.d: 1024, C.T: 8}),
    ),
)
(CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives."""

    d_k: int  # the dimension of q and k the figures mark
    seed: int  # the seed of every sampled q, k and row of scores


def settings(drawn: bool) -> Settings:
    """d_k and the seed; drawn=False (the derivation alone on the screen): their values, not drawn."""
    if not drawn:
        st.caption(t("scaling.no_settings"))
        return Settings(C.d.value(), C.seed.value())
    with page.section_controls():
        return Settings(C.d.draw(), C.seed.draw())


@PAGE.step("spread")
def spread_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("scaling.s1_body"))
    with p.controls:
        n = C.n.draw()
    with st.spinner(t("scaling.sampling")):
        var = cached(variance_sweep, s.seed, n)
    with p.figure:
        widgets.show_figure(
            cached(figures.dot_product_histogram, var, s.d_k, lang),
            key="scaling_hist",
            alt=figures.hist_alt(var, s.d_k, n, lang),
            lecture_px=figures.LECTURE_PX,
        )
    with p.reading:
        for column, metric in zip(st.columns(2), figures.variance_metrics(var, s.d_k, lang), strict=True):
            column.metric(**metric)
        st.caption(t("scaling.hist_caption"))
        widgets.show_figure(
            cached(figures.variance_against_d, var, lang),
            key="scaling_variance",
            alt=t("scaling.var_alt"),
        )
    p.table(
        t("scaling.var_table"),
        figures.variance_table,
        var,
        lang,
        key="scaling_variance_table",
        filename="dot_product_variance.csv",
        caption=t("scaling.var_table_caption"),
    )
    p.formula(figures.LATEX["spread"], dot_product_variance, pair_dot_products)


@PAGE.step("softmax")
def softmax_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("scaling.s2_body"))
    with p.controls:
        T = C.T.draw()
    with st.spinner(t("scaling.sampling")):
        rows = cached(score_rows, s.seed)  # every row's T_MAX keys, drawn once per seed: a new T draws nothing
    sat = cached(saturation_sweep, D_VALUES, rows, T)
    with p.figure:
        widgets.show_figure(
            cached(figures.weights_at_d, sat, s.d_k, lang, is_lecture()),
            key=figures.WEIGHTS_KEY,
            alt=figures.weights_alt(sat, s.d_k, lang),
            lecture_px=figures.LECTURE_PX,
        )
        st.caption(t("scaling.weights_hint"))
        if css := figures.phone_key_ticks_css(figures.WEIGHTS_KEY, T):
            st.html(css)  # on a phone, fewer key numbers under the bars: all of them ran together
    with p.reading:
        st.html(figures.SOFTMAX_CSS)  # the link below wraps; on a phone no bar labels, the code's text smaller
        with st.container(border=True, key=figures.MISTAKE_KEY):
            st.markdown(f"**{t('scaling.mistake_title')}**\n\n{t('scaling.mistake_body')}")
            st.code(t("scaling.mistake_code"), language="python", wrap_lines=True)  # a phone: wrapped, not cut
        with st.container(key=figures.TRAIN_LINK_KEY):
            st.page_link(
                "pages/train.py",
                label=t("scaling.train_link"),
                icon=":material/model_training:",
                query_params={registry.info("train").step_key: TRAIN_SCALE_STEP},
            )
        widgets.show_figure(
            cached(figures.saturation_curves, sat, lang), key="scaling_curves", alt=figures.curves_alt(sat, lang)
        )
        st.caption(t("scaling.curves_caption", rows=sat.n_rows, T=T, d=s.d_k))
        st.markdown(figures.curves_reading(sat, s.d_k, lang))
        widgets.show_figure(
            cached(figures.slope_curves, sat, lang), key="scaling_slopes", alt=figures.slopes_alt(sat, lang)
        )
        st.markdown(figures.slopes_reading(sat, s.d_k, lang))
    p.table(
        t("scaling.sat_table"),
        figures.saturation_table,
        sat,
        lang,
        key="scaling_saturation_table",
        filename="softmax_saturation.csv",
        full_precision=True,
        caption=t("scaling.sat_table_caption", rows=sat.n_rows),
        number_format="%.4g",
    )
    p.formula(figures.LATEX["softmax"], scale_factor, softmax_entropy, jacobian_norm, raw_score_slope)


@PAGE.step("derivation")
def derivation_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("scaling.s3_body"))
    with p.reading:
        for key, latex in figures.DERIVATION:
            st.markdown(t(key))
            if latex:
                st.latex(latex)
            if key == figures.GARBLED_AFTER:
                st.info(t("scaling.garbled"), icon=":material/edit_note:")
    with p.check:
        widgets.check_number(t("scaling.check_question"), 8.0, key=CHECK, explanation=t("scaling.check_explanation"))


if __name__ == "__main__":
    frame = PAGE.start()
    frame.show(settings, frame.shows("spread") or frame.shows("softmax"))
