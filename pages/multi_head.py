"""Multi-head attention: Q, K, V cut into h column blocks, one self-attention per head, the heads
joined and mixed by W_o; how the heads differ, and why h heads cost what one head costs.

Steps (mh_step): split, maps, join, differ, cost, check. Where the weights come from is page-level
(random: the sentence, d_model, n_heads and seed; the real model: the sentence it reads and the
layer); the matrix shown cut (mh_mat) and the head looked at closely (mh_focus) are their steps' own.

It opens on the real model's trained heads (all-MiniLM-L6-v2 run here, or its shipped maps without
the optional package); random weights, one click away, are called random wherever they are drawn.
Links: mh_src=random gives random weights, and so does a link without mh_src that sets one of their
controls (mh_text, mh_d, mh_h, mh_seed): it was made when they were the default.
"""

import streamlit as st

from attention_core import head_views as hv
from attention_core import merge_heads, split_heads
from attention_core.head_stats import head_overlap, mean_entropy, multi_head_cost, score_split
from attention_core.pretrained import minilm_available
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import multi_head as figs
from lab_ui.head_sources import (
    DEFAULT_HEADS,
    DEFAULT_TEXT,
    EXAMPLES,
    LONG_TEXT,
    MODEL,
    N_LAYERS,
    OWN,
    Settings,
    settings,
    view_of,
)
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture
from lab_ui.registry import info as page_info

CLEAREST = hv.clearest_view("animal_tired")  # the layer whose heads differ most, and its most focused head
SOURCES = state.labels("multi_head.source_", "model", "random")
CHOICES = state.labels("multi_head.choice_", "every_token", "same_token", "all_heads")


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    source = state.choice("mh_src", "multi_head.source_label", SOURCES, help="multi_head.source_help")
    text = state.text("mh_text", "multi_head.text_label", DEFAULT_TEXT, help="multi_head.text_help")
    d = state.slider("mh_d", "multi_head.d_label", 2, 512, 8, help="multi_head.d_help")
    heads = state.selectbox(
        "mh_h", "multi_head.heads_label", (), DEFAULT_HEADS, help="multi_head.heads_help"
    )  # d's divisors
    seed = state.seed("mh_seed")
    example = state.selectbox("mh_ex", "multi_head.example_label", (*EXAMPLES, OWN))
    own_text = state.text("mh_mtext", "multi_head.own_text_label", LONG_TEXT)
    layer = state.slider("mh_layer", "multi_head.layer_label", 1, N_LAYERS, 1, help="multi_head.layer_help")
    matrix = state.choice("mh_mat", "multi_head.matrix_label", ("Q", "K", "V"), on="split")
    focus = state.selectbox("mh_focus", "multi_head.focus_label", (), 1, on="maps")  # heads 1..h


C = Controls
PRESETS = (
    state.Preset("multi_head.preset_article", {C.source: "random", C.text: "机器学习", C.d: 4, C.heads: 2, C.seed: 0}),
    state.Preset("multi_head.preset_long", {C.source: "random", C.text: LONG_TEXT, C.d: 64, C.heads: 8, C.seed: 0}),
    state.Preset(
        "multi_head.preset_model",
        {C.source: "model", C.example: "animal_tired", C.layer: CLEAREST.layer, C.focus: CLEAREST.focus},
    ),
)
PAGE = page.Page("multi_head", Controls, presets=PRESETS)
NUMBER_CHECK, CHOICE_CHECK = PAGE.info.checks
SCALING = page_info("scaling")


def numbers_label() -> str:  # the folded box of the numbers behind a figure
    return t("multi_head.numbers")


@PAGE.step("split")
def split_step(p: page.Parts, s: Settings) -> None:
    view, lang = view_of(s), current_lang()
    p.prose(t("multi_head.s1_body"))
    if view.layer is None:
        return needs_encoder(p)
    with p.controls:
        name = C.matrix.draw()
    sizes = figs.sizes(view)
    with p.figure:
        fig = cached(figs.split_figure, view, name, lang, is_lecture())
        widgets.show_figure(
            fig, key="mh_split", alt=t("multi_head.split_alt", name=name, **sizes), numbers_on_phones=False
        )
    with p.reading:
        st.markdown(f"`{t('multi_head.shapes_split', name=name, **sizes)}`")
    caption, csv = t("multi_head.split_table", name=name), f"{name}_heads.csv"
    p.table(numbers_label(), figs.split_table, view, name, lang, key="mh_split_numbers", filename=csv, caption=caption)
    p.formula(figs.FORMULAS["split"], split_heads)
    with p.code:
        st.caption(t("multi_head.split_indexing"))


def needs_encoder(p: page.Parts) -> None:
    """The shipped maps have no Q, K or V: what would show them."""
    with p.figure:
        st.info(t("multi_head.need_encoder"), icon=":material/info:")


@PAGE.step("maps")
def maps_step(p: page.Parts, s: Settings) -> None:
    view, lang, lecture = view_of(s), current_lang(), is_lecture()
    p.prose(t("multi_head.s2_body"))
    with p.figure:
        fig, alt = cached(figs.head_maps, view, lang, lecture), t("multi_head.maps_alt", n_heads=view.n_heads, T=view.T)
        widgets.show_figure(fig, key="mh_maps", alt=alt, numbers_on_phones=False)
        st.html(figs.MAPS_ON_PHONES)
        if (every := figs.maps_grid(view.n_heads, view.T, lecture).every) > 1:
            close_up(view, every, lang)
    caption, csv = t("multi_head.maps_table"), "attention_maps.csv"
    p.table(numbers_label(), figs.maps_table, view, lang, key="mh_maps_numbers", filename=csv, caption=caption)
    with p.reading:
        st.markdown(figs.scaling_text(view, cached(hv.scores_gap, view) if view.layer else None, lang))
        if view.layer is None:
            st.info(t("multi_head.need_encoder"), icon=":material/info:")
        elif view.d_head == 1:
            st.caption(t("multi_head.mistake_same"))
        else:
            table = cached(figs.mistake_table, cached(hv.scaling_mistake, view), lang)
            widgets.show_table(table, key="mh_mistake", filename="scaling_mistake.csv")
        st.page_link(SCALING.path, label=t("multi_head.scaling_link"), icon=":material/arrow_forward:")
    p.formula(figs.FORMULAS["maps"], score_split)


def close_up(view: hv.HeadsView, every: int, lang: str) -> None:
    """The small maps label one token in `every`: one head large, every token labelled."""
    st.caption(t("multi_head.maps_labels", every=every))
    head, heads = t("multi_head.head_name", i="{i}"), range(1, view.n_heads + 1)  # "head {i}"
    best = cached(hv.head_differences, view.weights).most_focused + 1
    focus = C.focus.draw(options=heads, default=best, format_func=lambda i: head.format(i=i))
    alt = t("multi_head.focus_alt", head=head.format(i=focus), T=view.T)
    # Below the first screen even on a projector: it may be as tall as the screen, 30 px a row for 20 px labels.
    fig, tallest = cached(figs.head_detail, view, focus, lang), min(30 * view.T + 200, 680)
    widgets.show_figure(fig, key="mh_focus_map", alt=alt, lecture_px=tallest)


@PAGE.step("join")
def join_step(p: page.Parts, s: Settings) -> None:
    view, lang = view_of(s), current_lang()
    p.prose(t("multi_head.s3_body"))
    if view.layer is None:
        return needs_encoder(p)
    sizes = figs.sizes(view)
    with p.figure:
        fig, alt = cached(figs.concat_figure, view, lang, is_lecture()), t("multi_head.concat_alt", **sizes)
        widgets.show_figure(fig, key="mh_concat", alt=alt, numbers_on_phones=False)
    with p.reading:
        st.markdown(f"`{t('multi_head.shapes_concat', **sizes)}`")
        st.caption(t("multi_head.concat_check", gap=figs.gap_text(cached(hv.concat_gap, view))))
        st.page_link("pages/transformer_block.py", label=t("multi_head.block_link"), icon=":material/stacks:")
    caption, csv = t("multi_head.concat_table"), "heads_joined.csv"
    p.table(numbers_label(), figs.joined_table, view, lang, key="mh_concat_numbers", filename=csv, caption=caption)
    p.formula(figs.FORMULAS["join"], merge_heads)


@PAGE.step("differ")
def differ_step(p: page.Parts, s: Settings) -> None:
    view, lang = view_of(s), current_lang()
    diff = cached(hv.head_differences, view.weights)
    body = t("multi_head.s4_random") if view.source == "random" else t("multi_head.s4_model")
    p.prose(f"{body}\n\n{t('multi_head.measures')}")
    with p.figure:
        left, right = st.columns(2)
    with left:  # on a projector no taller than the maps, which leave room for the step bar
        alt = t("multi_head.entropy_alt", n_heads=view.n_heads, bits=f"{diff.uniform_bits:.2f}")
        fig = cached(figs.entropy_bars, view, diff, lang)
        widgets.show_figure(fig, key="mh_entropy", alt=alt, lecture_px=figs.LECTURE_HEIGHT_PX)
    with right:
        fig, alt = cached(figs.overlap_heatmap, view, diff, lang), t("multi_head.overlap_alt", n_heads=view.n_heads)
        widgets.show_figure(fig, key="mh_overlap", alt=alt, lecture_px=figs.LECTURE_HEIGHT_PX)
    with p.reading:
        st.markdown(cached(figs.differences_text, diff, lang, view.source != "random"))
    with p.numbers:  # the tables behind both figures in one box, built only while it is open
        if box := page.numbers_box(f"{p.box_key}_table", numbers_label()):
            with box:
                caption, table = t("multi_head.stats_table"), figs.stats_table(diff, lang)
                widgets.show_table(table, key="mh_stats", filename="head_stats.csv", caption=caption)
                caption, table = t("multi_head.overlap_table"), figs.overlap_table(diff, lang)
                widgets.show_table(table, key="mh_overlap_table", filename="head_overlap.csv", caption=caption)
    p.formula(figs.FORMULAS["differ"], mean_entropy, head_overlap)


@PAGE.step("cost")
def cost_step(p: page.Parts, s: Settings) -> None:
    view, lang = view_of(s), current_lang()
    cost = cached(hv.cost_comparison, view.d_model, view.n_heads, view.T)
    p.prose(t("multi_head.s5_body"))
    with p.figure:
        caption, table = t("multi_head.cost_table", **figs.sizes(view)), cached(figs.cost_table, cost, lang)
        # whole numbers with thousands separators, 589,824, as the text below writes them
        widgets.show_table(
            table,
            key="mh_cost",
            filename="multi_head_cost.csv",
            decimals=None,
            number_format="localized",
            caption=caption,
        )
    with p.reading:
        if view.n_heads == 1:
            st.caption(t("multi_head.cost_single"))
        elif cost.same_parameters:
            total = f"{cost.many.total:,}"
            st.success(t("multi_head.cost_equal", total=total, d_model=view.d_model, n_heads=view.n_heads))
        st.caption(t("multi_head.cost_bias"))
        st.page_link("pages/kv_heads.py", label=t("multi_head.kv_heads_link"), icon=":material/call_split:")
    p.formula(figs.FORMULAS["cost"], multi_head_cost)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    with p.check:
        question, explanation = t("multi_head.check_q", **MODEL), t("multi_head.check_expl", **MODEL)
        widgets.check_number(question, MODEL["d_head"], key=NUMBER_CHECK, tolerance=0, explanation=explanation)
        question, explanation = t("multi_head.choice_q"), t("multi_head.choice_expl")
        answers, right = list(CHOICES), "every_token"
        widgets.check_choice(
            question, answers, right, key=CHOICE_CHECK, format_func=CHOICES.text, explanation=explanation
        )


if __name__ == "__main__":
    PAGE.start().show(settings, Controls, minilm_available())
