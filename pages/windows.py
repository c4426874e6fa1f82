"""Sliding windows and attention sinks: a decoder whose queries see only the last w keys (Mistral 7B),
plus the first few tokens kept for ever (StreamingLLM), what that saves, how far information still
travels through stacked layers, the rolling cache, and what the app's own decoder does when its
first tokens fall out of the window.

Steps (sw_step): window, cost, sinks, check. The window w and the sinks s are page-level: every
step reads them. The mask's length and layers are the window step's own, the text's length the
cost step's.
"""

from dataclasses import dataclass

import streamlit as st

from attention_core.decoder import load_decoder
from attention_core.published import MISTRAL_7B
from attention_core.sinks import sink_experiment
from attention_core.windows import (
    SLIDING_WINDOW_FORMULA,
    cache_slots,
    sliding_window_mask,
    stacked_span,
    visible_keys,
    window_cost_curve,
    window_costs,
    window_reach,
)
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import windows as figures
from lab_ui.i18n import current_lang, t

W_MAX, SINKS_MAX = 64, 8  # a window below the decoder's 128-character context, so the sinks step can read it
T_MASK_MAX = 48  # cells a student can still count on the map
T_COST = (128, 512, 2048, 8192, 32768)
SLOT_STEPS = 3  # the rolling cache is followed until this many tokens have been evicted
COST_TEX = (
    r"\text{scores: } \sum_{i} \min(i, w) + \text{sinks} \;\approx\; T\,w \quad\text{instead of}\quad \frac{T(T+1)}{2}"
)


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    w = state.slider("sw_w", "windows.w_label", 1, W_MAX, 8, help="windows.w_help")
    s = state.slider("sw_s", "windows.s_label", 0, SINKS_MAX, 0, help="windows.s_help")
    T = state.slider("sw_T", "windows.T_label", 4, T_MASK_MAX, 24, on="window")
    L = state.slider("sw_L", "windows.L_label", 1, 6, 2, on="window", help="windows.L_help")
    N = state.select_slider("sw_N", "windows.N_label", T_COST, 2048, on="cost")


C = Controls
PAGE = page.Page(
    "windows",
    Controls,
    presets=(
        state.Preset("windows.preset_window", {C.w: 8, C.s: 0, C.T: 24}),
        state.Preset("windows.preset_streaming", {C.w: 8, C.s: 4, C.T: 24}),
        state.Preset("windows.preset_layers", {C.w: 4, C.s: 0, C.T: 32, C.L: 4}),
        state.Preset("windows.preset_long", {C.w: 64, C.s: 4, C.N: 32768}),
    ),
)
(CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    w: int  # recent keys each query sees, itself included
    s: int  # first tokens kept for ever


def settings() -> Settings:
    with page.section_controls():
        return Settings(C.w.draw(), C.s.draw())


@PAGE.step("window")
def window_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("windows.window_body"))
    with p.controls, page.section_controls():
        T, L = C.T.draw(), C.L.draw()
    reach = cached(window_reach, T, s.w, L, s.s)
    visible = cached(visible_keys, T, s.w, s.s)
    with p.figure:
        widgets.show_figure(cached(figures.mask_map, reach, lang), key="sw_mask", alt=figures.mask_alt(reach, lang))
    with p.reading:
        st.markdown(t("windows.window_reading", T=T, seen=int(visible[-1]), w=s.w, s=s.s, full=T))
        st.markdown(
            t(
                "windows.reach_reading",
                L=L,
                T=T,
                span=int(reach.span[-1]),
                furthest=int(reach.furthest[-1]),
                theory=reach.theoretical_span,
            )
        )
        mistral = stacked_span(MISTRAL_7B.window, MISTRAL_7B.layers)
        st.caption(
            t(
                "windows.mistral_reach",
                layers=MISTRAL_7B.layers,
                w=f"{MISTRAL_7B.window:,}",
                span=f"{mistral:,}",
                source=MISTRAL_7B.source,
            )
        )
        st.page_link("pages/heatmap.py", label=t("windows.speech_link"), icon=":material/graphic_eq:")
    p.table(
        t("windows.reach_table"),
        figures.reach_table,
        reach,
        visible,
        lang,
        key="sw_reach_table",
        filename="sliding_window_reach.csv",
    )
    p.formula(SLIDING_WINDOW_FORMULA, sliding_window_mask, window_reach)


@PAGE.step("cost")
def cost_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("windows.cost_body"))
    with p.controls:
        N = C.N.draw()
    curve = cached(window_cost_curve, N, s.w, s.s)
    cost = cached(window_costs, N, s.w, 64, s.s)
    with p.figure:
        widgets.show_figure(
            cached(figures.cost_curves, curve, lang), key="sw_cost", alt=t("windows.cost_alt", w=s.w, N=f"{N:,}")
        )
    with p.reading:
        st.markdown(
            t(
                "windows.cost_reading",
                N=f"{N:,}",
                w=s.w,
                window=f"{cost.window_entries:,}",
                causal=f"{cost.causal_entries:,}",
                percent=f"{100 * cost.fraction:.1f}",
                kept=f"{cost.window_cache_tokens:,}",
            )
        )
        mistral = cached(window_costs, MISTRAL_7B.context, MISTRAL_7B.window, MISTRAL_7B.d_head)
        st.caption(
            t(
                "windows.mistral_cost",
                T=f"{MISTRAL_7B.context:,}",
                w=f"{MISTRAL_7B.window:,}",
                percent=f"{100 * mistral.fraction:.0f}",
                kept=f"{mistral.window_cache_tokens:,}",
                source=MISTRAL_7B.source,
            )
        )
    slots = cached(cache_slots, s.s + s.w + SLOT_STEPS, s.w, s.s)
    p.table(
        t("windows.slots_table"),
        figures.slots_table,
        slots,
        lang,
        key="sw_slots_table",
        filename="rolling_cache.csv",
        caption=t("windows.slots_caption"),
    )
    p.formula(COST_TEX, window_costs, cache_slots)


@PAGE.step("sinks")
def sinks_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("windows.sinks_body"))
    context = load_decoder().config.context
    n_sink = min(s.s, s.w - 1)  # a sink beyond the window's own size would be the window
    if n_sink != s.s:
        st.info(t("windows.sinks_clamped", s=s.s, w=s.w, n=n_sink), icon=":material/info:")
    with st.spinner(t("windows.reading_passages")):
        ex = cached(sink_experiment, s.w, n_sink)
    with p.figure:
        widgets.show_figure(cached(figures.loss_curves, ex, lang), key="sw_loss", alt=t("windows.loss_alt", w=s.w))
    with p.reading:
        st.markdown(
            t(
                "windows.sinks_reading",
                n=len(ex.passages),
                T=context,
                w=s.w,
                full=f"{ex.mean_full:.3f}",
                window=f"{ex.mean_window:.3f}",
                penalty=f"{ex.window_penalty:+.3f}",
            )
        )
        if n_sink and ex.mean_sinks < ex.mean_window:
            repair = f"{ex.sinks_repair:.0%}"
            st.markdown(t("windows.sinks_repair", s=n_sink, sinks=f"{ex.mean_sinks:.3f}", repair=repair))
        elif n_sink:
            st.markdown(t("windows.sinks_no_help", s=n_sink, sinks=f"{ex.mean_sinks:.3f}"))
        else:
            st.caption(t("windows.sinks_none"))
        share, uniform = float(ex.first_share.max()), ex.uniform_share
        parks = share > 3 * uniform  # a head that parks: several times what spreading evenly gives
        st.markdown(
            t(
                "windows.first_parks" if parks else "windows.first_spreads",
                share=f"{share:.1%}",
                uniform=f"{uniform:.1%}",
            )
        )
        verdict = parks and n_sink and ex.sinks_repair > 0.5
        st.info(t("windows.verdict_shows" if verdict else "windows.verdict_not"), icon=":material/science:")
        st.page_link("pages/real_model.py", label=t("windows.real_model_link"), icon=":material/hub:")
    p.table(
        t("windows.loss_table"),
        figures.loss_table,
        ex,
        lang,
        key="sw_loss_table",
        filename="window_sink_loss.csv",
        caption=t("windows.loss_table_caption", n=len(ex.passages)),
    )
    p.formula(SLIDING_WINDOW_FORMULA, sink_experiment)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    i = s.s + s.w + 1  # 0-based: the second token to overwrite a slot
    slots = cached(cache_slots, i + 1, s.w, s.s)
    evicted = int(slots.evicted[i]) + 1
    with p.check:
        widgets.check_number(
            t("windows.check_question", w=s.w, s=s.s, i=i + 1),
            float(evicted),
            key=CHECK,
            tolerance=0.0,
            explanation=t("windows.check_explanation", i=i + 1, evicted=evicted, w=s.w, s=s.s),
        )


if __name__ == "__main__":
    PAGE.start().show(settings)
