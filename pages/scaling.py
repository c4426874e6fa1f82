"""Why divide by √d_k: q·k spreads out as d_k grows, and softmax saturates unless it is scaled."""

import numpy as np
import streamlit as st

from attention_core.saturation import (
    D_VALUES,
    SCALINGS,
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
from lab_ui import controls, page, registry, widgets
from lab_ui.cache import cached
from lab_ui.figures import scaling as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

N_SAMPLES = [500, 1000, 2000, 5000]
T_MAX = 64
PRESETS = {
    "article": {"sc_d": 8, "sc_T": 4},
    "heads": {"sc_d": 64, "sc_T": 8},
    "long": {"sc_d": 4096, "sc_T": T_MAX},
    "saturation": {"sc_d": 1024, "sc_T": 8},
}
TRAIN_SCALE_STEP = registry.info("train").sections.index("scale") + 1  # the train page's article-003 section
NONE, SQRT, BY_D = (SCALINGS.index(s) for s in ("none", "sqrt", "d"))

frame = page.start("scaling", presets=PRESETS)
lang, big = current_lang(), is_lecture()
d_k = seed = None
if frame.shows("spread") or frame.shows("softmax"):  # the derivation alone (a lecture step) uses neither
    with frame.controls(), page.section_controls():  # both experiments read d_k and draw from the seed
        d_k = controls.select_slider(t("scaling.d_label"), list(D_VALUES), 64, key="sc_d", help=t("scaling.d_help"))
        seed = widgets.seed_input(key="sc_seed")


@st.fragment
def spread_section(d_k: int, seed: int) -> None:
    frame.heading("spread")
    j = D_VALUES.index(d_k)
    control_box, figure_box = page.opening(t("scaling.s1_body"))
    with control_box:
        n = controls.select_slider(t("scaling.n_label"), N_SAMPLES, 2000, key="sc_n", help=t("scaling.n_help"))
    with st.spinner(t("scaling.sampling")):
        var = cached(variance_sweep, seed, n)
    with figure_box:
        widgets.show_figure(
            cached(figures.dot_product_histogram, var, d_k, lang, big),
            key="scaling_hist",
            alt=t(
                "scaling.hist_alt",
                n=n,
                d=d_k,
                spread=f"{3 * np.sqrt(d_k):.0f}",
                var=f"{var.variance[j]:.2f}",
                scaled=f"{var.scaled_variance[j]:.3f}",
            ),
        )
    m1, m2 = st.columns(2)
    m1.metric(
        t("scaling.metric_var", d=d_k),
        f"{var.variance[j]:.2f}",
        help=t("scaling.metric_help"),
        delta=t("scaling.metric_var_delta", theory=d_k, se=f"{var.standard_error[j]:.2f}"),
        delta_color="off",
        delta_arrow="off",
    )
    m2.metric(
        t("scaling.metric_scaled"),
        f"{var.scaled_variance[j]:.3f}",
        help=t("scaling.metric_help"),
        delta=t("scaling.metric_scaled_delta", se=f"{var.scaled_standard_error[j]:.3f}"),
        delta_color="off",
        delta_arrow="off",
    )
    st.caption(t("scaling.hist_caption"))
    widgets.show_figure(
        cached(figures.variance_against_d, var, d_k, lang), key="scaling_variance", alt=t("scaling.var_alt", d=d_k)
    )
    page.folded_table(
        t("scaling.var_table"),
        "sc_x_variance",
        figures.variance_table,
        var,
        lang,
        key="scaling_variance_table",
        filename="dot_product_variance.csv",
        caption=t("scaling.var_table_caption"),
    )
    widgets.formula_and_code(
        r"\begin{aligned} s &= q \cdot k = \textstyle\sum_{i=1}^{d_k} q_i k_i \\ q_i, k_i &\sim N(0, 1) \\"
        r" \operatorname{Var}(s) &= d_k \\ \operatorname{Var}\big(s / \sqrt{d_k}\big) &= 1 \end{aligned}",
        dot_product_variance,
        pair_dot_products,
    )


@st.fragment
def softmax_section(d_k: int, seed: int) -> None:
    frame.heading("softmax")
    j = D_VALUES.index(d_k)
    control_box, figure_box = page.opening(t("scaling.s2_body"))
    with control_box:
        T = controls.slider(t("scaling.T_label"), 2, T_MAX, 8, key="sc_T", help=t("scaling.T_help"))
    with st.spinner(t("scaling.sampling")):
        rows = cached(score_rows, seed)  # every row's T_MAX keys, drawn once per seed: a new T draws nothing
    sat = cached(saturation_sweep, D_VALUES, rows, T)
    play = cached(figures.weights_animation, sat, d_k, lang, big)
    curves, slopes = cached(figures.saturation_curves, sat, d_k, lang), cached(figures.slope_curves, sat, d_k, lang)
    first = sat.first_weights[:, j]  # [n_s, T]
    with figure_box:
        widgets.show_figure(
            play,
            key=figures.PLAY_KEY,
            alt=t(
                "scaling.play_alt",
                T=T,
                d=d_k,
                none=f"{first[NONE].max():.3f}",
                sqrt=f"{first[SQRT].max():.3f}",
                dk=f"{first[BY_D].max():.3f}",
                uniform=f"{1 / T:.3f}",
            ),
        )
        st.caption(t("scaling.play_hint"))
        if css := figures.phone_key_ticks_css(figures.PLAY_KEY, T):
            st.html(css)  # on a phone, fewer key numbers under the bars: all of them ran together
    st.html(figures.SOFTMAX_CSS)  # the link below wraps; on a phone no bar labels, the code's text a little smaller
    with st.container(border=True, key=figures.MISTAKE_KEY):
        st.markdown(f"**{t('scaling.mistake_title')}**\n\n{t('scaling.mistake_body')}")
        st.code(t("scaling.mistake_code"), language="python", wrap_lines=True)  # a narrower phone: wrapped, not cut
    with st.container(key=figures.TRAIN_LINK_KEY):
        st.page_link(
            "pages/train.py",
            label=t("scaling.train_link"),
            icon=":material/model_training:",
            query_params={"tr_step": TRAIN_SCALE_STEP},
        )  # lecture mode opens that step; else the page
    top = sat.max_weight  # [n_s, n_d]
    widgets.show_figure(
        curves,
        key="scaling_curves",
        alt=t(
            "scaling.curves_alt",
            none_first=f"{top[NONE, 0]:.2f}",
            none_last=f"{top[NONE, -1]:.2f}",
            sqrt_last=f"{top[SQRT, -1]:.2f}",
            dk_last=f"{top[BY_D, -1]:.3f}",
            logT=f"{np.log(T):.3f}",
        ),
    )
    st.caption(t("scaling.curves_caption", rows=sat.n_rows, T=T, d=d_k))
    st.markdown(
        t(
            "scaling.reading",
            d=d_k,
            T=T,
            none_max=f"{sat.max_weight[NONE, j]:.3f}",
            sqrt_max=f"{sat.max_weight[SQRT, j]:.3f}",
            first_max=f"{sat.max_weight[SQRT, 0]:.3f}",
            dk_max=f"{sat.max_weight[BY_D, j]:.3f}",
            uniform=f"{1 / T:.3f}",
        )
    )
    own, raw = sat.slope_scaled, sat.slope_raw  # [n_s, n_d]
    widgets.show_figure(
        slopes,
        key="scaling_slopes",
        alt=t(
            "scaling.slopes_alt",
            none=f"{own[NONE, -1]:.2g}",
            dk=f"{own[BY_D, -1]:.3f}",
            dk_raw=f"{raw[BY_D, -1]:.2g}",
            sqrt_raw=f"{raw[SQRT, -1]:.2g}",
        ),
    )
    st.markdown(
        t(
            "scaling.slopes_reading",
            d=d_k,
            none=f"{own[NONE, j]:.2g}",
            none_first=f"{own[NONE, 0]:.2f}",
            sqrt=f"{own[SQRT, j]:.3f}",
            sqrt_raw=f"{raw[SQRT, j]:.2g}",
            dk=f"{own[BY_D, j]:.3f}",
            dk_raw=f"{raw[BY_D, j]:.2g}",
            root=f"{np.sqrt(d_k):g}",
        )
    )
    page.folded_table(
        t("scaling.sat_table"),
        "sc_x_saturation",
        figures.saturation_table,
        sat,
        lang,
        key="scaling_saturation_table",
        filename="softmax_saturation.csv",
        full_precision=True,
        caption=t("scaling.sat_table_caption", rows=sat.n_rows),
        number_format="%.4g",
    )
    widgets.formula_and_code(
        r"\begin{aligned} p &= \operatorname{softmax}(z),\ z = c\,s \\ c &\in \{1,\ 1/\sqrt{d_k},\ 1/d_k\} \\"
        r" H(p) &= -\textstyle\sum_i p_i \log p_i \\"
        r" \frac{\partial p}{\partial z} &= \operatorname{diag}(p) - p\,p^\top \\"
        r" \Big\lVert \frac{\partial p}{\partial z} \Big\rVert^2 &="
        r" \textstyle\sum_i p_i^2 \big((1 - p_i)^2 + \sum_{j \ne i} p_j^2\big) \\"
        r" \frac{\partial p}{\partial s} &= c\, \frac{\partial p}{\partial z} \end{aligned}",
        scale_factor,
        softmax_entropy,
        jacobian_norm,
        raw_score_slope,
    )


@st.fragment
def derivation_section() -> None:
    frame.heading("derivation")
    page.prose(t("scaling.s3_body"))
    # One equality per line (aligned): a chain on one line runs off a phone's screen, and off a
    # 1280 px window once lecture mode enlarges the text. [6pt]: air between stacked sums and fractions.
    for step, latex in DERIVATION:
        st.markdown(t(f"scaling.{step}"))
        if latex:
            st.latex(latex)
        if step == "step3":
            st.info(t("scaling.garbled"), icon=":material/edit_note:")
    widgets.check_number(t("scaling.check_question"), 8.0, key="sc_check", explanation=t("scaling.check_explanation"))


DERIVATION = (
    (
        "step1",
        r"\begin{aligned} E[q_i^2] &= \operatorname{Var}(q_i) + \big(E[q_i]\big)^2 \\ &= 1 + 0 = 1, \\"
        r" E[k_i^2] &= 1 \end{aligned}",
    ),
    ("step2", r"\begin{aligned} E[q_i k_i] &= E[q_i]\,E[k_i] \\ &= 0 \cdot 0 = 0 \end{aligned}"),
    (
        "step3",
        r"\begin{aligned} \operatorname{Var}(q_i k_i) &= E[q_i^2 k_i^2] - \big(E[q_i k_i]\big)^2 \\"
        r" &= E[q_i^2]\,E[k_i^2] - \big(E[q_i]\,E[k_i]\big)^2 \\ &= 1 \cdot 1 - 0 = 1 \end{aligned}",
    ),
    (
        "step4",
        r"\begin{aligned} E[q \cdot k] &= \sum_{i=1}^{d_k} E[q_i k_i] = 0, \\[6pt]"
        r" \operatorname{Var}(q \cdot k) &= \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k \end{aligned}",
    ),
    (
        "step5",
        r"\begin{aligned} \operatorname{Var}\!\Big(\frac{q \cdot k}{\sqrt{d_k}}\Big) &= \frac{d_k}{d_k} = 1,"
        r" \\[6pt]"
        r" \operatorname{Var}\!\Big(\frac{q \cdot k}{d_k}\Big) &= \frac{d_k}{d_k^2}"
        r" = \frac{1}{d_k} \end{aligned}",
    ),
    (
        "step6",
        r"\begin{aligned} J = \frac{\partial p}{\partial z} &= \operatorname{diag}(p) - p\,p^\top, \\[6pt]"
        r" J_{ij} &= p_i(\delta_{ij} - p_j) \end{aligned}",
    ),
    ("step6_after", None),
    (
        "step7",
        r"\begin{aligned} \frac{\partial p}{\partial s} &= \frac{\partial p}{\partial z}\,"
        r"\frac{\partial z}{\partial s} = c\,J, \\[6pt]"
        r" \frac{\partial s}{\partial q} &= k,\quad \lVert k \rVert \approx \sqrt{d_k} \end{aligned}",
    ),
    ("step7_after", None),
)

if frame.shows("spread"):
    spread_section(d_k, seed)
if frame.shows("softmax"):
    softmax_section(d_k, seed)
if frame.shows("derivation"):
    derivation_section()

frame.end()
