"""Scores by hand: one query q against a few keys k_j in a plane, so every number can be checked
with pen and paper: the dot product α_j = q · k_j, the same as |q| |k_j| cos θ, then the scaling
and the softmax that turn the scores into weights (article 003's 1/d_k shown as its mistake).

Steps (dp_step): dot, keys, check. The query is page-level; the keys and the scaling are the steps' own.
"""

from dataclasses import dataclass

import numpy as np
import streamlit as st

from attention_core.steps import query_scores
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import dot_product as figures
from lab_ui.i18n import current_lang, t

LIMIT = figures.LIMIT
SCALINGS = state.labels("dot_product.scaling_", "sqrt", "none", "d")
KEY_NAMES = ("k1", "k2", "k3")  # the keys' names in the figures and the numbers
DOT_TEX = r"\alpha = q \cdot k = \sum_c q_c\,k_c = \lVert q\rVert\,\lVert k\rVert \cos\theta"
SOFTMAX_TEX = r"\alpha'_j = \frac{e^{\alpha_j s}}{\sum_l e^{\alpha_l s}},\quad s = \frac{1}{\sqrt{d_k}}"


def component(key: str, label: str, default: float, on: str | None = None) -> state.Control:
    return state.slider(key, label, -LIMIT, LIMIT, default, step=0.1, on=on)


class Controls(state.Table):
    """The page's controls: the query (page-level), one key for the first step, three for the second."""

    q1 = component("dp_q1", "dot_product.q1", 1.0)
    q2 = component("dp_q2", "dot_product.q2", 0.5)
    k1 = component("dp_k1", "dot_product.k1", 0.8, on="dot")
    k2 = component("dp_k2", "dot_product.k2", 0.9, on="dot")
    a1 = component("dp_a1", "dot_product.a1", 0.9, on="keys")
    a2 = component("dp_a2", "dot_product.a2", 0.7, on="keys")
    b1 = component("dp_b1", "dot_product.b1", -0.6, on="keys")
    b2 = component("dp_b2", "dot_product.b2", 0.9, on="keys")
    c1 = component("dp_c1", "dot_product.c1", 0.2, on="keys")
    c2 = component("dp_c2", "dot_product.c2", -1.0, on="keys")
    scaling = state.radio("dp_scale", "dot_product.scaling", SCALINGS, on="keys", help="dot_product.scaling_help")


C = Controls
PRESETS = (
    # article 001's words as 2-D vectors: "cat" asks, "dog" is close, "apple" far, "run" the other way
    state.Preset(
        "dot_product.preset_article",
        {C.q1: 1.0, C.q2: 0.8, C.a1: 0.9, C.a2: 0.7, C.b1: -0.6, C.b2: 0.9, C.c1: 0.2, C.c2: -1.0},
    ),
    state.Preset("dot_product.preset_equal", {C.a1: 1.0, C.a2: 1.0, C.b1: 1.0, C.b2: 1.0, C.c1: 1.0, C.c2: 1.0}),
    state.Preset("dot_product.preset_opposite", {C.q1: 1.0, C.q2: 0.0, C.k1: -1.0, C.k2: 0.0}),
    state.Preset("dot_product.preset_long", {C.q1: 3.0, C.q2: 3.0, C.a1: 3.0, C.a2: 3.0, C.b1: -3.0, C.b2: -3.0}),
)
PAGE = page.Page("dot_product", Controls, presets=PRESETS)
(CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    q: tuple[float, float]  # the query, page-level: every step scores it


def settings() -> Settings:
    with page.section_controls():
        return Settings((C.q1.draw(), C.q2.draw()))


@PAGE.step("dot")
def dot_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("dot_product.dot_body"))
    with p.controls, page.section_controls():
        k = (C.k1.draw(), C.k2.draw())
    r, lang = cached(query_scores, s.q, (k,)), current_lang()
    with p.figure:
        widgets.show_figure(
            cached(figures.vectors_plane, r, ("k",), lang), key="dp_plane", alt=t("dot_product.plane_alt")
        )
    angle = float(np.degrees(np.arccos(r.cosine[0])))
    with p.reading:
        st.markdown(t("dot_product.dot_sum", terms=figures.sum_text(r, 0)))
        st.markdown(
            t(
                "dot_product.dot_angle",
                q=f"{r.q_norm:.2f}",
                k=f"{r.k_norms[0]:.2f}",
                cos=f"{r.cosine[0]:.2f}",
                angle=f"{angle:.0f}",
                alpha=f"{r.alpha[0]:.2f}",
            )
        )
        sign = "dot_product.sign_positive" if r.alpha[0] > 1e-9 else "dot_product.sign_negative"
        st.caption(t(sign if abs(r.alpha[0]) > 1e-9 else "dot_product.sign_zero"))
    p.formula(DOT_TEX, query_scores)


@PAGE.step("keys")
def keys_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("dot_product.keys_body"))
    with p.controls:
        columns = st.columns(3)
        keys = []
        for column, (first, second) in zip(columns, ((C.a1, C.a2), (C.b1, C.b2), (C.c1, C.c2)), strict=True):
            with column:
                keys.append((first.draw(), second.draw()))
        scaling = C.scaling.draw()
    r, lang = cached(query_scores, s.q, tuple(keys), scaling), current_lang()
    with p.figure:
        left, right = st.columns(2)
        with left:
            plane = cached(figures.vectors_plane, r, KEY_NAMES, lang)
            widgets.show_figure(plane, key="dp_keys_plane", alt=t("dot_product.plane_alt"))
        with right:
            best = KEY_NAMES[int(np.argmax(r.weights))]
            widgets.show_figure(
                cached(figures.score_bars, r, KEY_NAMES, lang), key="dp_bars", alt=t("dot_product.bars_alt", best=best)
            )
    with p.reading:
        weights = ", ".join(f"{name} {w:.2f}" for name, w in zip(KEY_NAMES, r.weights, strict=True))
        st.markdown(t("dot_product.keys_reading", scale=f"{r.scale:.3f}", weights=weights, best=best))
        if scaling == "d":
            st.warning(t("dot_product.article_mistake"), icon=":material/error:")
    p.formula(SOFTMAX_TEX, query_scores)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    keys = ((C.a1.value(), C.a2.value()), (C.b1.value(), C.b2.value()), (C.c1.value(), C.c2.value()))
    r = cached(query_scores, s.q, keys, "sqrt")
    alphas = ", ".join(f"{a:.2f}" for a in r.alpha)
    with p.check:
        widgets.check_number(
            t("dot_product.check_question", alphas=alphas),
            float(r.weights[0]),
            key=CHECK,
            explanation=t(
                "dot_product.check_explanation",
                scaled=", ".join(f"{v:.3f}" for v in r.scaled),
                weight=f"{r.weights[0]:.4f}",
            ),
        )


if __name__ == "__main__":
    PAGE.start().show(settings)
