"""Q, K, V step by step (查询、键、值): the source articles' walkthrough of self-attention for one
output b_i, with the real numbers and the shape of every matrix, then the same in matrix form,
then the additive (tanh) scoring beside the dot product. Nine sections, the lecture's steps."""

import contextlib
import itertools

import numpy as np
import pandas as pd
import streamlit as st

from attention_core import steps
from lab_ui import controls, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import qkv as fq
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture

DEFAULT_TEXT = "I saw a saw"  # article 001's own example: two "saw"s, one word, two meanings
DEFAULT_SEED = 3  # with this seed, token 1 of the default sentence attends clearly to one key
MAX_TOKENS, D_MAX = 16, 8
SQUARE_MAX = 8  # up to 8 tokens a T × T matrix is printed; beyond, A' is drawn as a heatmap
W_NAMES = ("wq", "wk", "wv")
ARTICLE = {"qkv_text": DEFAULT_TEXT, "qkv_dm": 3, "qkv_dk": 2, "qkv_seed": DEFAULT_SEED, "qkv_w": "random", "qkv_q": 1}
PRESETS = {
    "article": ARTICLE,
    "long": ARTICLE
    | {
        "qkv_text": "the animal did not cross the street because it was too tired to walk any further",
        "qkv_dm": 8,
        "qkv_dk": 4,
        "qkv_q": 9,
    },
    # W_q = W_k = 2·identity: a score is twice the similarity of two inputs, so "saw" finds both "saw"s.
    "match": ARTICLE
    | {
        "qkv_dm": 4,
        "qkv_dk": 4,
        "qkv_seed": 0,
        "qkv_w": "typed",
        "qkv_q": 2,
        "qkv_wq": fq.eye_matrix(4, 2.0),
        "qkv_wk": fq.eye_matrix(4, 2.0),
        "qkv_wv": fq.eye_matrix(4),
    },
    "chars": ARTICLE | {"qkv_text": "机器学习", "qkv_dm": 4},
}
HINTS = itertools.count(1)  # numbers the phone-only notes "wider than the screen" of this run


def typed_weights(source: str, d_model: int, d_k: int, seed: int) -> tuple | None:
    """The grids for typing W_q, W_k, W_v (kept in the link): the typed matrices, or None (random ones)."""
    if source == "random":
        for name in W_NAMES:  # typed numbers stay in the session for a return to "typed"
            st.query_params.pop(f"qkv_{name}", None)
        return None
    if d_model > fq.TYPED_MAX or d_k > fq.TYPED_MAX:
        st.info(t("qkv.typed_too_big", max=fq.TYPED_MAX), icon=":material/info:")
        return None
    st.caption(t("qkv.typed_help"))
    random = cached(steps.walkthrough_weights, d_model, d_k, seed)[:3]
    defaults = {name: fq.link_matrix(w) for name, w in zip(W_NAMES, random, strict=True)}
    typed, limit = [], fq.TYPED_LIMIT
    number = st.column_config.NumberColumn(min_value=-limit, max_value=limit, step=0.01, format="%.2f")
    for col, name in zip(st.columns(3), W_NAMES, strict=True):
        key = f"qkv_{name}"
        controls.restore_from_url(key, None, fq.parse_matrix)
        m = fq.fit_shape(st.session_state[key], defaults[name])
        if st.session_state.get(f"_{key}_seen") != m:  # set from outside (link, preset, resize): a fresh grid
            st.session_state[f"_{key}_ver"] = st.session_state.get(f"_{key}_ver", 0) + 1
        grid = pd.DataFrame(m, index=[str(r + 1) for r in range(d_model)], columns=[str(c + 1) for c in range(d_k)])
        with col:
            st.markdown(f"$W_{name[1]}$ · [{d_model} × {d_k}]")
            edited = st.data_editor(
                grid,
                key=f"{key}_ed{st.session_state[f'_{key}_ver']}",
                num_rows="fixed",
                column_config=dict.fromkeys(grid.columns, number),
            )
        m = fq.link_matrix(np.nan_to_num(edited.to_numpy(dtype=np.float64), nan=0.0))  # an emptied cell counts as 0
        st.session_state[key] = st.session_state[f"_{key}_seen"] = m
        controls.publish_to_url(key, m, defaults[name], serialize=fq.matrix_to_text)
        typed.append(m)
    st.button(
        t("qkv.reset_typed"),
        key="qkv_wreset",
        on_click=st.session_state.update,
        icon=":material/restart_alt:",
        args=({f"qkv_{name}": m for name, m in defaults.items()},),
    )
    return tuple(typed)


def matrices(*rows: list[fq.Part]) -> None:
    """Rows of typeset pieces, side by side, each its own element, so that a narrow screen puts them
    one under another; one wider than a phone scrolls sideways, and says so there."""
    for parts in rows:
        with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
            for tex, _ in parts:
                st.latex(tex, width="content")
        if max(px for _, px in parts) > fq.PHONE_PX:
            with st.container(key=f"qkv_hint_{next(HINTS)}"):
                st.caption(t("qkv.scroll_hint"))


def numbers(key: str, build, *args, always: bool = False) -> None:
    """A section's numbers as a table with its CSV, when the tables are on; a hidden number reads "?"."""
    if tables or always:
        table, filename, caption = cached(build, r, lang, *args)
        widgets.show_table(table, key=key, filename=filename, caption=caption, missing="?")


def intro(name: str, text: str):
    """A section's heading and words, and the container for its main block (figure or matrices). In
    lecture mode the words fold into one line under that block, so the block has the first screen."""
    frame.heading(name)
    main = st.container() if is_lecture() else contextlib.nullcontext()  # on a page, the block follows the words
    page.prose(text)
    return main


# --- page-level controls: every section depends on them ---------------------------------------------

frame = page.start("qkv", presets=PRESETS)
for old in ("qkv_check", "qkv_check_show"):  # older links carried the check's answer: it never unlocks anything
    st.query_params.pop(old, None)
with frame.controls(), st.container(border=not is_lecture()):  # a box of its own on the page
    tokens = tuple(
        widgets.sentence_tokens(
            t("qkv.sentence"), DEFAULT_TEXT, key="qkv_text", max_tokens=MAX_TOKENS, help=t("qkv.sentence_help")
        )
    )
    with page.section_controls():  # one row, wrapped on a phone
        d_model = controls.slider(t("qkv.d_model"), 1, D_MAX, 3, key="qkv_dm", help=t("qkv.d_model_help"))
        d_k = controls.slider(t("qkv.d_k"), 1, D_MAX, 2, key="qkv_dk", help=t("qkv.d_k_help"))
        seed = widgets.seed_input(key="qkv_seed", value=DEFAULT_SEED)
    with st.container(horizontal=True, vertical_alignment="bottom", gap="large"):
        source = controls.segmented(
            t("qkv.w_source"),
            ["random", "typed"],
            key="qkv_w",
            format_func=lambda w: t(f"qkv.w_{w}"),
            help=t("qkv.w_source_help", max=fq.TYPED_MAX),
        )
        tables = controls.toggle(t("qkv.show_tables"), key="qkv_tables", help=t("qkv.show_tables_help"))
    typed = typed_weights(source, d_model, d_k, seed)
    T = len(tokens)
    page.choice_keep_valid("qkv_q", range(1, T + 1), T)  # a shorter sentence: keep the last token
    i = -1 + controls.segmented(
        t("qkv.query"),
        list(range(1, T + 1)),
        key="qkv_q",
        default=1,
        help=t("qkv.query_help"),
        format_func=lambda j: f"{j} · {literal(fq.short(tokens[j - 1]))}",
    )

try:
    r = cached(steps.sentence_walkthrough, tokens, d_model, d_k, seed, i, typed)
except ValueError as error:
    widgets.friendly_error(error)
    st.stop()
lang, s, c = current_lang(), r.query, r.check
st.html(fq.PAGE_CSS)


# --- the sections -----------------------------------------------------------------------------------


def tokens_section() -> None:
    with intro("tokens", t("qkv.tokens_body", T=T, d_model=d_model)):
        st.markdown("\u2003".join(f"$a_{{{j + 1}}}$ = **{fq.token_md(tokens, j)}**" for j in range(T)))
        matrices(*cached(fq.tokens_rows, r))
    if r.repeated:
        st.info(fq.repeated_md(r, lang), icon=":material/content_copy:")


def weights_section() -> None:
    with intro("weights", t("qkv.weights_body", d_model=d_model, d_k=d_k)):
        matrices(*cached(fq.weights_rows, r))
    st.caption(t("qkv.weights_random", seed=seed) if r.random_weights else t("qkv.weights_typed"))


def qkv_section() -> None:
    product, three = cached(fq.qkv_rows, r)
    with intro("qkv", t("qkv.qkv_body", T=T, d_model=d_model, d_k=d_k)):
        matrices(product)
    st.markdown(cached(fq.entry_md, r, lang))
    matrices(three)
    if r.random_weights:
        st.caption(t("qkv.qkv_random"))
    st.info(t("qkv.rows_vs_columns"), icon=":material/swap_horiz:")
    numbers("qkv_qkv", fq.qkv_table)
    widgets.formula_and_code(fq.FORMULAS["qkv"], steps.project)


@st.fragment
def check_section() -> bool:
    """α_{1,j} by hand. Until it is answered (or its answer shown), the numbers further down that equal
    it read "?". Typing reruns this section alone, unless that locks or unlocks them: then the page."""
    frame.heading("check")
    j = c.j + 1
    solved = widgets.check_number(
        t("qkv.check_question", j=j, q1=fq.inline_vector_tex(c.q), kj=fq.inline_vector_tex(c.k)),
        c.answer,
        key="qkv_check",
        tolerance=c.tolerance,
        explanation=fq.check_md(c, lang),
    )
    # In lecture mode each section has a screen of its own: nothing further down is in view.
    locked = not is_lecture() and not solved and not st.session_state.get("qkv_check_show")
    if not st.session_state["_qkv_page_run"] and locked != st.session_state["_qkv_locked"]:
        st.rerun()  # a rerun of this section alone changed what the page must hide
    if locked:
        st.info(t("qkv.check_hides", j=j), icon=":material/lock:")
    return locked


def scores_section() -> None:
    with intro("scores", t("qkv.scores_body", i=i + 1, token=fq.token_md(tokens, i))):
        matrices(*cached(fq.scores_rows, r))
    st.markdown(cached(fq.dot_md, r, locked, lang))
    with st.container(border=True):
        st.markdown(t("qkv.seed_mistake", d_k=d_k, k2=fq.inline_vector_tex(r.K[c.j]), j=c.j + 1))
    numbers("qkv_products", fq.products_table, hide)
    widgets.formula_and_code(fq.FORMULAS["scores"], steps.dot_scores)


def softmax_section() -> None:
    with intro("softmax", t("qkv.softmax_body", d_k=d_k)):
        widgets.show_figure(
            cached(fq.scores_figure, r, lang, bool(hide.any())),
            key="qkv_scores",
            alt=t("qkv.alt_scores", i=i + 1, best=fq.key_labels(tokens)[s.best]),
        )
    st.markdown(cached(fq.softmax_md, r, lang))
    numbers("qkv_softmax", fq.softmax_table, hide)
    widgets.formula_and_code(fq.FORMULAS["softmax"], steps.scaled_softmax)


def output_section() -> None:
    with intro("output", t("qkv.output_body", i=i + 1)):
        widgets.show_figure(cached(fq.sum_figure, r, lang), key="qkv_sum", alt=t("qkv.alt_sum", i=i + 1))
    st.markdown(cached(fq.sum_md, r, lang))
    numbers("qkv_parts", fq.sum_table)
    widgets.formula_and_code(fq.FORMULAS["output"], steps.weighted_sum)


def matrix_section() -> None:
    with intro("matrix", t("qkv.matrix_body", T=T, d_k=d_k)):
        if T <= SQUARE_MAX:  # in lecture mode's larger type, A without its factors: the three fit one screen
            matrices(*cached(fq.matrix_rows, r, locked, compact=is_lecture()))
        else:  # too many tokens to print a T × T matrix: draw A' instead (on a projector, under two title rows)
            widgets.show_figure(
                cached(fq.weights_map, r, lang, 380 if is_lecture() else 620),
                key="qkv_weights",
                alt=t("qkv.alt_weights", T=T, i=i + 1),
            )
            st.markdown(t("qkv.too_wide", T=T))
    agree = "qkv.same_as_steps" if r.agrees else "qkv.not_same"
    st.markdown(t(agree, i=i + 1, softmax=frame.number("softmax"), output=frame.number("output")))
    numbers("qkv_weights", fq.weights_table, always=T > SQUARE_MAX)  # the heatmap's numbers, tables or not
    if r.repeated:
        st.info(fq.repeated_md(r, lang, output=True), icon=":material/content_copy:")
    widgets.formula_and_code(fq.FORMULAS["matrix"], steps.matrix_form)


def additive_section() -> None:
    with intro("additive", t("qkv.additive_body")):
        widgets.show_figure(
            cached(fq.compare_figure, r, lang), key="qkv_dot_vs_add", alt=t("qkv.alt_dot_vs_add", i=i + 1)
        )
    st.markdown(cached(fq.compare_md, r, lang, bool(hide[c.j])))
    numbers("qkv_both", fq.both_table)
    widgets.formula_and_code(fq.FORMULAS["additive"], steps.additive_scores)


# The sections read the page-level values above (r, s, c, i, T, tables, lang) and what the check hides.
for name, section in (("tokens", tokens_section), ("weights", weights_section), ("qkv", qkv_section)):
    if frame.shows(name):
        section()
st.session_state["_qkv_page_run"] = True  # check_section is also rerun alone, with this False
locked = check_section() if frame.shows("check") else False
st.session_state.update(_qkv_page_run=False, _qkv_locked=locked)
hide = steps.gives_away(s.alpha, c.answer) & locked  # [T]: the followed query's scores that equal the answer
for name, section in (
    ("scores", scores_section),
    ("softmax", softmax_section),
    ("output", output_section),
    ("matrix", matrix_section),
    ("additive", additive_section),
):
    if frame.shows(name):
        section()

frame.end()
