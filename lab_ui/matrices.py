"""Matrices on a page (the Q, K, V walkthrough's): typeset rows of them side by side, the sentence's
tokens above I, the T × T matrices of all queries at once (typeset while they fit, a heatmap
beyond), and the grids in which a student types W_q, W_k and W_v by hand. The page keeps its steps;
these are its parts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from attention_core import steps
from lab_ui import controls, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import qkv as fq
from lab_ui.i18n import t
from lab_ui.lecture import is_lecture

SQUARE_MAX = 8  # up to 8 tokens a T × T matrix is printed; beyond, A' is drawn as a heatmap


def rows(key: str, *parts_rows: list[fq.Part]) -> None:
    """Rows of typeset pieces, side by side, each its own element, so that a narrow screen puts them
    one under another; one wider than a phone scrolls sideways, and says so there (the hint is a
    container keyed qkv_hint_<key>_<n>, shown on a phone only by fq.PAGE_CSS)."""
    for n, parts in enumerate(parts_rows):
        with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
            for tex, _ in parts:
                st.latex(tex, width="content")
        if max(px for _, px in parts) > fq.PHONE_PX:
            with st.container(key=f"qkv_hint_{key}_{n}"):
                st.caption(t("qkv.scroll_hint"))


def tokens(r: steps.QKVWalkthrough) -> None:
    """The sentence as the articles write it (a_1 = I, a_2 = saw, ...), then I, one row a_j per token."""
    st.markdown(fq.tokens_md(r.tokens))
    rows("tokens", *cached(fq.tokens_rows, r))


def all_queries(r: steps.QKVWalkthrough, hide_answer: bool, lang: str) -> None:
    """A = Q Kᵀ, A' and O for every query at once: typeset up to SQUARE_MAX tokens (hide_answer: the
    entries that equal the check's answer as "?"), A' drawn as a heatmap beyond."""
    T = len(r.tokens)
    if T <= SQUARE_MAX:  # in lecture mode's larger type, A without its factors: the three fit one screen
        rows("matrix", *cached(fq.matrix_rows, r, hide_answer, compact=is_lecture()))
    else:  # too many tokens to print a T × T matrix: draw A' instead (on a projector, under two title rows)
        widgets.show_figure(
            cached(fq.weights_map, r, lang),
            key="qkv_weights",
            alt=t("qkv.alt_weights", T=T, i=r.query.i + 1),
            lecture_px=380,
        )
        st.markdown(t("qkv.too_wide", T=T))


def typed_weights(
    grids: Sequence[tuple[str, state.Control]], source: str, d_model: int, d_k: int, seed: int
) -> tuple | None:
    """The grids for typing W_q, W_k, W_v (kept in the link, one control each in `grids`, with the
    matrix's name): the typed matrices, or None (the seed's random ones)."""
    if source == "random":
        for _, entry in grids:  # typed numbers stay in the session for a return to "typed"
            st.query_params.pop(entry.key, None)
        return None
    if d_model > fq.TYPED_MAX or d_k > fq.TYPED_MAX:
        st.info(t("qkv.typed_too_big", max=fq.TYPED_MAX), icon=":material/info:")
        return None
    st.caption(t("qkv.typed_help"))
    random = cached(steps.walkthrough_weights, d_model, d_k, seed)[:3]
    typed = tuple(_grid(name, entry, w, d_model, d_k) for (name, entry), w in zip(grids, random, strict=True))
    defaults = {entry.key: fq.link_matrix(w) for (_, entry), w in zip(grids, random, strict=True)}
    reset = dict(on_click=st.session_state.update, args=(defaults,), icon=":material/restart_alt:")
    st.button(t("qkv.reset_typed"), key="qkv_wreset", **reset)
    return typed


def _grid(name: str, entry: state.Control, w: np.ndarray, d_model: int, d_k: int) -> tuple:
    """One typed matrix's grid: the link's or the session's numbers, fitted to [d_model, d_k]; a
    matrix set from outside (a link, a preset, a resize) gets a fresh grid widget."""
    key, default = entry.key, fq.link_matrix(w)
    controls.restore_from_url(key, None, fq.parse_matrix)
    m = fq.fit_shape(fq.held_matrix(st.session_state[key]), default)
    if st.session_state.get(f"_{key}_seen") != m:
        st.session_state[f"_{key}_ver"] = st.session_state.get(f"_{key}_ver", 0) + 1
    grid = fq.grid_frame(m)
    limit = fq.TYPED_LIMIT
    number = st.column_config.NumberColumn(min_value=-limit, max_value=limit, step=0.01, format="%.2f")
    st.markdown(f"${name}$ · [{d_model} × {d_k}]")
    edited = st.data_editor(
        grid,
        key=f"{key}_ed{st.session_state[f'_{key}_ver']}",
        num_rows="fixed",
        column_config=dict.fromkeys(grid.columns, number),
    )
    m = fq.link_matrix(np.nan_to_num(edited.to_numpy(dtype=np.float64), nan=0.0))  # an emptied cell: 0
    st.session_state[key] = st.session_state[f"_{key}_seen"] = m
    controls.publish_to_url(key, m, default, serialize=fq.matrix_to_text)
    return m
