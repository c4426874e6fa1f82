"""Why divide by √d_k: q·k spreads out as d_k grows, and softmax saturates unless it is scaled."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from attention_core.saturation import (
    SCALINGS,
    dot_product_variance,
    jacobian_norm,
    sample_scores,
    saturation_sweep,
    scale_factor,
    softmax_entropy,
    softmax_jacobian,
)
from lab_ui import controls, widgets
from lab_ui.figures import scaling as figs
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

D_VALUES = [2**i for i in range(13)]  # 1, 2, 4, ..., 4096: the slider's stops and the animation's frames
N_SAMPLES = [500, 1000, 2000, 5000]
T_MAX = 64
ROW_NUMBERS = 2048  # rows x keys per d_k in section 2 (at least 64 rows): smooth averages, a quick first load

widgets.page_header("scaling")


# --- controls --------------------------------------------------------------------------------------

with st.expander(t("scaling.controls")) if is_lecture() else st.container():  # tucked away on a projector
    widgets.presets(
        {
            "seeds": {"sc_d": 8, "sc_T": 4},
            "heads": {"sc_d": 64, "sc_T": 8},
            "long": {"sc_d": 4096, "sc_T": T_MAX},
            "saturation": {"sc_d": 1024, "sc_T": 8},
        },
        key="sc_preset",
        format_func=lambda p: t(f"scaling.preset_{p}"),
    )
    left, right = st.columns(2)
    with left:
        d_k = controls.select_slider(t("scaling.d_label"), D_VALUES, 64, key="sc_d", help=t("scaling.d_help"))
        T = controls.slider(t("scaling.T_label"), 2, T_MAX, 8, key="sc_T", help=t("scaling.T_help"))
    with right:
        n = controls.select_slider(t("scaling.n_label"), N_SAMPLES, 2000, key="sc_n", help=t("scaling.n_help"))
        seed = widgets.seed_input(key="sc_seed")


# --- core calls (cached: the sampling runs once per seed and size) ----------------------------------


def _rng(seed: int, stream: int) -> np.random.Generator:
    """Independent streams for the two sections from one seed, so a link reproduces both."""
    return np.random.default_rng([stream, seed])


@st.cache_data(max_entries=8, show_spinner=t("scaling.sampling"))
def variance_sweep(seed: int, n: int):
    return dot_product_variance(D_VALUES, n, _rng(seed, 1))


@st.cache_data(max_entries=8, show_spinner=t("scaling.sampling"))
def softmax_sweep(seed: int, T: int):
    return saturation_sweep(D_VALUES, T, max(64, ROW_NUMBERS // T), _rng(seed, 2))


@st.cache_resource(max_entries=4, show_spinner=False)
def build_figures(seed: int, n: int, T: int, d_k: int, lang: str) -> dict[str, go.Figure]:
    """The page's four figures, kept as built objects: building them is most of a rerun's cost,
    and a rerun that changes none of these arguments (typing an answer, the reveal switch) need
    not pay it again. Nothing mutates a cached figure: show_figure copies it before restyling it
    for lecture mode, and st.plotly_chart serialises a copy."""
    var, sat = variance_sweep(seed, n), softmax_sweep(seed, T)
    j = D_VALUES.index(d_k)
    names = {s: t(f"scaling.scaling_{s}", lang) for s in SCALINGS}
    return {
        "hist": figs.dot_product_histogram(
            var.scores[j], d_k, titles=(t("scaling.hist_raw", lang, d=d_k), t("scaling.hist_scaled", lang, d=d_k)),
            x_titles=(t("scaling.hist_x_raw", lang), t("scaling.hist_x_scaled", lang)),
            y_title=t("scaling.hist_y", lang), measured_name=t("scaling.hist_measured", lang),
            theory_names=(t("scaling.hist_theory_raw", lang), t("scaling.hist_theory_scaled", lang)),
        ),
        "variance": figs.variance_against_d(
            var.d_values, var.variance, var.standard_error, var.scaled_variance, var.scaled_standard_error, d_k,
            title=t("scaling.var_title", lang), x_title=t("scaling.var_x", lang), y_title=t("scaling.var_y", lang),
            names=(t("scaling.var_measured", lang), t("scaling.var_theory", lang),
                   t("scaling.var_scaled_measured", lang), t("scaling.var_scaled_theory", lang)),
        ),
        "play": figs.weights_animation(
            sat.d_values, sat.weights[:, :, 0, :], sat.scores[:, 0, :], j,
            group_titles={s: t(f"scaling.play_group_{s}", lang) for s in SCALINGS},
            title=t("scaling.play_title", lang, T=T), x_title=t("scaling.play_x", lang),
            y_title=t("scaling.play_y", lang), score_name=t("scaling.play_score", lang),
            slider_prefix=t("scaling.play_slider", lang), play_label=t("scaling.play", lang),
            pause_label=t("scaling.pause", lang),
        ),
        "curves": figs.saturation_curves(
            sat.d_values, sat.max_weight, sat.entropy, sat.jacobian_norm, T, d_k, scaling_names=names,
            titles=(t("scaling.curves_max", lang), t("scaling.curves_entropy", lang),
                    t("scaling.curves_jacobian", lang)),
            x_title=t("scaling.curves_x", lang),
            reference_names=(t("scaling.ref_max", lang), t("scaling.ref_entropy", lang),
                             t("scaling.ref_jacobian", lang)),
        ),
    }  # fmt: skip


var = variance_sweep(seed, n)
sat = softmax_sweep(seed, T)
fig = build_figures(seed, n, T, d_k, current_lang())
j = D_VALUES.index(d_k)
names = {s: t(f"scaling.scaling_{s}") for s in SCALINGS}
none, sqrt, by_d = (SCALINGS.index(s) for s in ("none", "sqrt", "d"))


# --- 1: the dot product spreads out ------------------------------------------------------------------

st.header(t("scaling.s1_title"))
st.markdown(t("scaling.s1_body"))
# The two measured variances, then the histogram; on a projector the histogram comes first, so
# that the first screen holds a figure.
first, second = st.container(), st.container()
numbers_box, hist_box = (second, first) if is_lecture() else (first, second)
m1, m2 = numbers_box.columns(2)
m1.metric(
    t("scaling.metric_var", d=d_k), f"{var.variance[j]:.2f}", help=t("scaling.metric_help"),
    delta=t("scaling.metric_var_delta", theory=d_k, se=f"{var.standard_error[j]:.2f}"),
    delta_color="off", delta_arrow="off",
)  # fmt: skip
m2.metric(
    t("scaling.metric_scaled"), f"{var.scaled_variance[j]:.3f}", help=t("scaling.metric_help"),
    delta=t("scaling.metric_scaled_delta", se=f"{var.scaled_standard_error[j]:.3f}"),
    delta_color="off", delta_arrow="off",
)  # fmt: skip
with hist_box:
    widgets.show_figure(
        fig["hist"],
        key="scaling_hist",
        alt=t("scaling.hist_alt", n=n, d=d_k, spread=f"{3 * np.sqrt(d_k):.0f}", var=f"{var.variance[j]:.2f}",
              scaled=f"{var.scaled_variance[j]:.3f}"),
    )  # fmt: skip
st.caption(t("scaling.hist_caption"))
widgets.show_figure(
    fig["variance"],
    key="scaling_variance",
    alt=t("scaling.var_alt", d=d_k),
)  # fmt: skip
widgets.show_table(
    pd.DataFrame(
        {
            t("scaling.col_d"): var.d_values,
            t("scaling.col_var"): var.variance,
            t("scaling.col_theory"): var.d_values,
            t("scaling.col_se"): var.standard_error,
            t("scaling.col_z"): (var.variance - var.d_values) / var.standard_error,
            t("scaling.col_scaled"): var.scaled_variance,
            t("scaling.col_scaled_se"): var.scaled_standard_error,
        }
    )
    .set_index(t("scaling.col_d"))
    .round(4),
    key="scaling_variance_table",
    filename="dot_product_variance.csv",
    caption=t("scaling.var_table_caption"),
)


# --- 2: what softmax does with them ---------------------------------------------------------------------

st.header(t("scaling.s2_title"))
st.markdown(t("scaling.s2_body"))
with st.container(border=True):
    st.markdown(f"**{t('scaling.mistake_title')}**")
    st.markdown(t("scaling.mistake_body"))
    st.code(t("scaling.mistake_code"), language="python")

st.caption(t("scaling.play_hint"))
widgets.show_figure(
    fig["play"],
    key="scaling_play",
    alt=t("scaling.play_alt", T=T, d=d_k, none=f"{sat.weights[none, j, 0].max():.3f}",
          sqrt=f"{sat.weights[sqrt, j, 0].max():.3f}", dk=f"{sat.weights[by_d, j, 0].max():.3f}",
          uniform=f"{1 / T:.3f}"),
)  # fmt: skip

widgets.show_figure(
    fig["curves"],
    key="scaling_curves",
    alt=t("scaling.curves_alt", none_first=f"{sat.max_weight[none, 0]:.2f}",
          none_last=f"{sat.max_weight[none, -1]:.2f}", sqrt_last=f"{sat.max_weight[sqrt, -1]:.2f}",
          dk_last=f"{sat.max_weight[by_d, -1]:.3f}", logT=f"{np.log(T):.3f}",
          jac_last=f"{sat.jacobian_norm[none, -1]:.3f}"),
)  # fmt: skip
st.caption(t("scaling.curves_caption", rows=sat.scores.shape[1], T=T, d=d_k))
st.markdown(
    t("scaling.reading", d=d_k, T=T, none_max=f"{sat.max_weight[none, j]:.3f}",
      none_jac=f"{sat.jacobian_norm[none, j]:.3f}", sqrt_max=f"{sat.max_weight[sqrt, j]:.3f}",
      sqrt_jac=f"{sat.jacobian_norm[sqrt, j]:.3f}", first_max=f"{sat.max_weight[sqrt, 0]:.3f}",
      first_jac=f"{sat.jacobian_norm[sqrt, 0]:.3f}", dk_max=f"{sat.max_weight[by_d, j]:.3f}", uniform=f"{1 / T:.3f}")
)  # fmt: skip
widgets.show_table(
    pd.DataFrame(
        {
            t("scaling.col_d"): np.tile(sat.d_values, len(SCALINGS)),
            t("scaling.col_scaling"): np.repeat([names[s] for s in SCALINGS], len(D_VALUES)),
            t("scaling.col_max"): sat.max_weight.ravel(),
            t("scaling.col_entropy"): sat.entropy.ravel(),
            t("scaling.col_jacobian"): sat.jacobian_norm.ravel(),
        }
    )
    .set_index(t("scaling.col_d"))
    .round(4),
    key="scaling_saturation_table",
    filename="softmax_saturation.csv",
    caption=t("scaling.sat_table_caption"),
)


# --- 3: the derivation ------------------------------------------------------------------------------------

st.header(t("scaling.s3_title"))
st.markdown(t("scaling.s3_body"))
# One equality per line (aligned): a chain on one line runs off a phone's screen, and off a
# 1280 px window once lecture mode enlarges the text. [6pt]: air between stacked sums and fractions.
st.markdown(t("scaling.step1"))
st.latex(
    r"\begin{aligned} E[q_i^2] &= \operatorname{Var}(q_i) + \big(E[q_i]\big)^2 \\ &= 1 + 0 = 1, \\"
    r" E[k_i^2] &= 1 \end{aligned}"
)
st.markdown(t("scaling.step2"))
st.latex(r"\begin{aligned} E[q_i k_i] &= E[q_i]\,E[k_i] \\ &= 0 \cdot 0 = 0 \end{aligned}")
st.markdown(t("scaling.step3"))
st.latex(
    r"\begin{aligned} \operatorname{Var}(q_i k_i) &= E[q_i^2 k_i^2] - \big(E[q_i k_i]\big)^2 \\"
    r" &= E[q_i^2]\,E[k_i^2] - \big(E[q_i]\,E[k_i]\big)^2 \\ &= 1 \cdot 1 - 0 = 1 \end{aligned}"
)
st.info(t("scaling.garbled"), icon=":material/edit_note:")
st.markdown(t("scaling.step4"))
st.latex(
    r"\begin{aligned} E[q \cdot k] &= \sum_{i=1}^{d_k} E[q_i k_i] = 0, \\[6pt]"
    r" \operatorname{Var}(q \cdot k) &= \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k \end{aligned}"
)
st.markdown(t("scaling.step5"))
st.latex(
    r"\begin{aligned} \operatorname{Var}\!\Big(\frac{q \cdot k}{\sqrt{d_k}}\Big) &= \frac{d_k}{d_k} = 1, \\[6pt]"
    r" \operatorname{Var}\!\Big(\frac{q \cdot k}{d_k}\Big) &= \frac{d_k}{d_k^2} = \frac{1}{d_k} \end{aligned}"
)
st.markdown(t("scaling.step6"))
st.latex(
    r"\begin{aligned} J = \frac{\partial p}{\partial s} &= \operatorname{diag}(p) - p\,p^\top, \\[6pt]"
    r" J_{ij} &= p_i(\delta_{ij} - p_j) \end{aligned}"
)
st.markdown(t("scaling.step6_after"))


# --- formula beside code, check yourself ------------------------------------------------------------------

st.header(t("scaling.s4_title"))
st.markdown(t("scaling.s4_body"))
widgets.formula_and_code(
    r"\begin{aligned} s &= q \cdot k = \textstyle\sum_{i=1}^{d_k} q_i k_i \\ q_i, k_i &\sim N(0, 1) \\"
    r" \operatorname{Var}(s) &= d_k \\ \operatorname{Var}\big(s / \sqrt{d_k}\big) &= 1 \end{aligned}",
    dot_product_variance,
    sample_scores,
)
widgets.formula_and_code(
    r"\begin{aligned} p &= \operatorname{softmax}(c\,s) \\ c &\in \{1,\ 1/\sqrt{d_k},\ 1/d_k\} \\"
    r" H(p) &= -\textstyle\sum_i p_i \log p_i \\ J &= \operatorname{diag}(p) - p\,p^\top \\"
    r" \|J\|_F &= \textstyle\sqrt{\sum_{i,j} J_{ij}^2} \end{aligned}",
    scale_factor,
    softmax_entropy,
    softmax_jacobian,
    jacobian_norm,
)


@st.fragment  # typing an answer reruns this box only, not the figures above
def check_yourself() -> None:
    widgets.check_number(t("scaling.check_question"), 8.0, key="sc_check", explanation=t("scaling.check_explanation"))


check_yourself()
