"""Attention maps on a page (the heatmaps page's): the sentence they are of (an example, or the
student's own text where the model can read it), the map of every query's weights, one query's
weights beside the weighted sum they make, and a speech model's cost beside its window. The page
keeps its controls and steps; these are its parts."""

from __future__ import annotations

import streamlit as st

from attention_core import heatmap_views as hv
from attention_core import split_tokens
from attention_core.pretrained import INSTALL_COMMAND
from attention_core.speech import SpeechCost
from lab_ui import state, widgets
from lab_ui.cache import cached
from lab_ui.figures import heatmap as figures
from lab_ui.figures.heatmap import position_label
from lab_ui.i18n import literal, t
from lab_ui.lecture import is_lecture


def old_link(prefix: str, source: state.Control, sentence: state.Control, text: state.Control, own: str) -> None:
    """What an old link meant (the page's docstring): one with the page's parameters (`prefix`_...,
    its step aside) and no source had random weights, the default then; one with a text and no
    sentence meant that text (`own`). Call before the controls are drawn."""
    link = st.query_params
    if source.key not in link and any(k.startswith(f"{prefix}_") and k != f"{prefix}_step" for k in link):
        st.session_state.setdefault(source.key, "random")
    if text.key in link and sentence.key not in link:
        st.session_state.setdefault(sentence.key, own)


def readable(text: str, max_tokens: int) -> bool:
    """Can the model's tokenizer read the text? A lone surrogate is the only text it refuses."""
    try:
        cached(hv.model_heads, text, max_tokens)  # the map step asks for the same, from the cache
    except ValueError:
        return False
    return True


def sentence_text(
    typed: str, chosen: str | None, source: str, model: bool, *, examples: int, fallback: str, max_tokens: int
) -> str:
    """The sentence the weights are of, with a notice where it is not the one asked for: the
    student's typed text (chosen None) or the chosen example's. Without the model package the
    real model has only its `examples` shipped sentences (a typed text waits in the box); a text
    without a token falls back to the page's default text, one the model's tokenizer refuses to
    the `fallback` example."""
    default = t("heatmap.default_text")  # in the page's language: Chinese on the Chinese page
    text = typed if chosen is None else chosen
    if source == "model" and not model:
        note = "heatmap.text_needs_model" if typed != default else "heatmap.shipped_only"
        st.caption(t(note, n=examples, command=INSTALL_COMMAND))
    if chosen is None and not split_tokens(typed):
        st.info(
            t("common.no_tokens" if typed.strip() else "common.empty_text", example=default), icon=":material/info:"
        )
        text = default
    if source == "model" and model and not readable(text, max_tokens):
        st.info(t("heatmap.unreadable", example=fallback), icon=":material/info:")
        text = fallback
    return text


def weights_map(view: hv.HeatmapView, lang: str, relu_asked: bool) -> None:
    """The map of every query's weights, its key labels thinned on a phone, and a word under
    random weights; first a notice where ReLU was asked for and the weights could not have it."""
    if relu_asked and view.normalisation != "relu":
        st.info(t("heatmap.relu_unavailable"), icon=":material/info:")
    widgets.show_figure(
        cached(figures.weights_heatmap, view, lang, is_lecture()),
        key="heatmap_weights",
        alt=t("heatmap.heatmap_alt", n=len(view.tokens)),
        numbers_on_phones=len(view.tokens) <= figures.CELL_TEXT_PHONE_MAX,
        lecture_px=figures.LECTURE_MAP_MAX_PX,
    )
    if css := figures.phone_ticks_css("heatmap_weights", len(view.tokens)):
        st.html(css)  # on a phone, fewer key labels: slanted, they touched
    if view.source == "random":
        st.caption(t("heatmap.random_caption"))


def map_reading(view: hv.HeatmapView, lang: str) -> None:
    """The map read in words: each row's sum, the notes on what made it, and under a causal mask
    the way to the decoder page (here the mask is laid on an encoder's weights; a decoder is
    trained with it)."""
    st.markdown(figures.row_sums_text(view, lang))
    st.caption("\n\n".join(figures.notes(view, lang)))
    if view.mask == "causal":
        st.page_link("pages/decoder.py", label=t("heatmap.decoder_link"), icon=":material/edit_note:")


def query_row(view: hv.HeatmapView, row: hv.QueryRow, i: int, lang: str) -> None:
    """Query i's weights (1-based) as bars, said in words, beside the weighted sum of the values
    they make (or why there are no values to sum)."""
    left, right = st.columns(2)
    with left:
        name = position_label(i, view.tokens[i - 1])
        fig = cached(figures.row_bars, view, row, lang, is_lecture())
        widgets.show_figure(fig, key="heatmap_row", alt=t("heatmap.row_alt", query=name))
        best = literal(position_label(row.best + 1, view.tokens[row.best]))
        weight, total = f"{row.weights[row.best]:.3f}", f"{row.total:.3f}"
        st.markdown(t("heatmap.row_summary", weight=weight, best=best, total=total, tau=view.temperature))
    with right:
        if row.terms is None:
            st.info(t("heatmap.no_values", command=INSTALL_COMMAND), icon=":material/info:")
        else:
            widgets.show_figure(
                cached(figures.weighted_sum, view, row, lang, is_lecture()),
                key="heatmap_output",
                alt=t("heatmap.sum_alt", i=i, d=row.terms.shape[1]),
                lecture_px=figures.LECTURE_MAP_MAX_PX,
            )
            st.caption(t("heatmap.sum_caption", i=i))


def speech_pair(c: SpeechCost, seconds: int, w: int, lang: str) -> None:
    """A speech model's cost, full against windowed, beside the window's mask (w frames each side)."""
    left, right = st.columns(2)
    with left:
        full, windowed = f"{c.full_entries:,}", f"{c.window_entries:,}"
        alt = t("heatmap.speech_cost_alt", w=w, seconds=seconds, full=full, windowed=windowed)
        widgets.show_figure(cached(figures.speech_cost, c, lang, is_lecture()), key="heatmap_speech_cost", alt=alt)
    with right:
        alt = t("heatmap.speech_mask_alt", n=c.mask.shape[0], keys=2 * w + 1)
        widgets.show_figure(cached(figures.speech_mask, c, lang, is_lecture()), key="heatmap_speech_mask", alt=alt)
