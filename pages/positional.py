"""Positional encoding: self-attention cannot see word order until a position vector is added;
the sinusoids, their similarity and rotation, and the real model's learned table beside them."""

from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from attention_core import sinusoidal_positional_encoding, token_vectors
from attention_core.positional import (
    check_shift_is_rotation,
    pair_frequencies,
    permutation_check,
    position_similarity,
    shift_rotations,
    similarity_by_offset,
)
from attention_core.shipped import load_position_table
from lab_ui import controls, widgets
from lab_ui.figures import positional as figs
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture, stepper

BASES = [2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 1000000]
MAX_POSITIONS = 512  # the real model's table has 512 rows; the slider stops there too
MAX_D_MODEL = 512
MAX_DIMS = 6  # curves drawn at once: more lines than this cannot be told apart
MAX_WORDS = 64  # widgets.sentence_tokens keeps this many; the swap inputs range over them
MAX_K = 512
SEED_TEXT = "I saw a saw"
DOG_TEXT = "the dog bit the man"
LONG_TEXT = (
    "Self-attention reads every word of a sentence at the same time, so on its own it cannot tell "
    "whether a word came first or last; adding a position vector to each word vector fixes that, and "
    "the fixed sinusoids of the original Transformer do it with no training at all, while models "
    "like BERT learn their table of position vectors from data instead"
)
ORDERS = ("swap", "reverse", "random")

widgets.page_header("positional")
lang = current_lang()


# --- controls shared by every section -------------------------------------------------------------

widgets.presets(
    {
        "seeds": {"pe_n": 4, "pe_d": 4, "pe_base": 10000, "pe_text": SEED_TEXT, "pe_order": "swap", "pe_i": 1,
                  "pe_j": 3, "pe_dims": [0, 1, 2, 3], "pe_k": 1, "pe_pair": 0},
        "long": {"pe_n": 512, "pe_d": 512, "pe_base": 10000, "pe_text": LONG_TEXT, "pe_order": "random",
                 "pe_dims": [0, 1, 100, 300, 500], "pe_k": 100, "pe_pair": 40},
        "shuffle": {"pe_text": DOG_TEXT, "pe_order": "swap", "pe_i": 2, "pe_j": 5, "pe_d": 8, "pe_base": 10000,
                    "pe_step": 1},
    },
    key="pe_preset",
    format_func=lambda p: t(f"positional.preset_{p}"),
)  # fmt: skip
with st.expander(t("positional.controls_shared")) if is_lecture() else st.container():
    c1, c2, c3 = st.columns(3)
    with c1:  # first: every section's numbers depend on it, the shuffle test's too
        d_model = controls.slider(t("positional.d_label"), 1, MAX_D_MODEL, 64, key="pe_d", help=t("positional.d_help"))
    with c2:
        n_positions = controls.slider(
            t("positional.n_label"), 2, MAX_POSITIONS, 64, key="pe_n", help=t("positional.n_help")
        )
    with c3:
        base = controls.select_slider(
            t("positional.base_label"), BASES, 10000, key="pe_base", help=t("positional.base_help")
        )
base = float(base)


# --- core calls, cached on their arguments ------------------------------------------------------------


@st.cache_data(max_entries=16, show_spinner=False)
def encoding(n: int, d: int, b: float) -> np.ndarray:
    return sinusoidal_positional_encoding(n, d, b)  # [n, d]


@st.cache_data(max_entries=16, show_spinner=False)
def similarity(n: int, d: int, b: float, cosine: bool):
    s = position_similarity(encoding(n, d, b), cosine=cosine)  # [n, n]
    return s, similarity_by_offset(s)


@st.cache_data(max_entries=4, show_spinner=False)
def learned(n: int):
    table = load_position_table()[:n]  # [n, 384]
    s = position_similarity(table, cosine=True)  # [n, n]
    return table, s, similarity_by_offset(s)


@st.cache_data(max_entries=16, show_spinner=False)
def rotation(n: int, d: int, k: int, b: float):
    return check_shift_is_rotation(n, d, k, b)


def reorder(T: int, order: str, i: int, j: int, seed: int) -> tuple[int, ...]:
    """The shuffled sentence is tokens[perm]."""
    perm = np.arange(T)  # [T]
    if order == "swap":
        perm[[i, j]] = perm[[j, i]]
    elif order == "reverse":
        perm = perm[::-1]
    elif T > 1:
        rng = np.random.default_rng([2, seed])  # its own stream: the weights use [1, seed]
        while np.array_equal(perm, np.arange(T)):  # a shuffle that changes nothing shows nothing
            perm = rng.permutation(T)
    return tuple(int(p) for p in perm)


@st.cache_data(max_entries=16, show_spinner=False)
def shuffle_checks(tokens: tuple[str, ...], perm: tuple[int, ...], d: int, b: float, seed: int):
    """Self-attention on the sentence and on its shuffle, without and with positional encoding."""
    x = token_vectors(list(tokens), d, seed)  # [T, d]; the same word gets the same vector
    rng = np.random.default_rng([1, seed])
    w_q, w_k, w_v = rng.standard_normal((3, d, d)) / np.sqrt(d)  # 3 x [d, d]; variance 1/d keeps scores O(1)
    pe = sinusoidal_positional_encoding(len(tokens), d, b)  # [T, d]
    return permutation_check(x, perm, w_q, w_k, w_v), permutation_check(x, perm, w_q, w_k, w_v, pe)


@st.cache_resource(max_entries=64, show_spinner=False)
def figure(key: tuple, _build: Callable[[], go.Figure]) -> go.Figure:
    """_build() once per key. `key` names every input of the figure (page language included);
    building costs Plotly milliseconds of validation, so a rerun that changes nothing reuses the
    figure (shared, never mutated). The builder itself is not hashed (leading underscore)."""
    return _build()


@st.cache_resource(max_entries=4, show_spinner=False)
def dim_names(lang: str) -> tuple[str, ...]:
    """The multiselect's 512 option labels, formatted once per language instead of on every rerun."""
    return tuple(
        t("positional.dim_option", lang, dim=dim, kind="sin" if dim % 2 == 0 else "cos", pair=dim // 2)
        for dim in range(MAX_D_MODEL)
    )


def numbers(key: str):
    """An expander holding the numbers behind a figure. It runs only when open (on_change="rerun"),
    so a 512 x 512 table and its CSV cost nothing until a reader asks for them."""
    return st.expander(t("positional.numbers"), key=key, on_change="rerun", icon=":material/table:")


def fmt_error(e: float) -> str:
    """A difference as a reader compares it: 0 exactly, 1.1e-16 for rounding, 0.8312 for a real change."""
    return "0" if e == 0 else f"{e:.1e}" if e < 1e-3 else f"{e:.4f}"


dim_label = dim_names(lang)
omega = pair_frequencies(d_model, base)  # [ceil(d_model/2)] radians per position of each pair
pos_word, dim_word = t("positional.position"), t("positional.dimension")


def section_header(section: str) -> None:
    """The section's title numbered as its tab is ("2 · The sinusoidal encoding"); the titles
    themselves carry no number, since the lecture stepper writes "Step 2 of 5 · title"."""
    st.header(t("positional.section_heading", n=SECTIONS.index(section) + 1, title=t(f"positional.{section}_title")))


# --- 1: why: self-attention does not see order ----------------------------------------------------------


def section_why() -> None:
    section_header("s1")
    st.markdown(t("positional.s1_body"))
    with st.expander(t("positional.controls_shuffle")) if is_lecture() else st.container():
        tokens = widgets.sentence_tokens(
            t("positional.text_label"), SEED_TEXT, key="pe_text", max_tokens=MAX_WORDS, help=t("positional.text_help")
        )
        left, mid, right, last = st.columns([5, 2, 2, 2])
        with left:
            order = controls.segmented(
                t("positional.order_label"), ORDERS, key="pe_order", format_func=lambda o: t(f"positional.order_{o}")
            )
        with mid:
            first = controls.number_input(t("positional.i_label"), key="pe_i", value=1, min_value=1,
                                          max_value=MAX_WORDS, step=1, disabled=order != "swap")  # fmt: skip
        with right:
            second = controls.number_input(t("positional.j_label"), key="pe_j", value=3, min_value=1,
                                           max_value=MAX_WORDS, step=1, disabled=order != "swap")  # fmt: skip
        with last:
            seed = widgets.seed_input(key="pe_seed")
    T = len(tokens)
    i, j = min(first, T) - 1, min(second, T) - 1
    if order == "swap" and max(first, second) > T:
        st.caption(t("positional.swap_clamped", T=T, i=i + 1, j=j + 1))
    perm = reorder(T, order, i, j, seed)
    plain, with_pe = shuffle_checks(tuple(tokens), perm, d_model, base, seed)
    shuffled = [tokens[p] for p in perm]
    before, after = (widgets.escape_markdown(" ".join(words)) for words in (tokens, shuffled))
    st.markdown(t("positional.sentences", before=before, after=after))
    if perm == tuple(range(T)):
        st.info(t("positional.nothing_moved"), icon=":material/info:")
    m1, m2 = st.columns(2)
    m1.metric(t("positional.metric_plain"), fmt_error(plain.max_error), help=t("positional.metric_help"))
    m2.metric(t("positional.metric_pe"), fmt_error(with_pe.max_error), help=t("positional.metric_help"))
    if plain.max_error < 1e-9:
        m1.success(t("positional.verdict_plain"), icon=":material/check:")
    if with_pe.max_error > 1e-9:
        m2.warning(t("positional.verdict_pe"), icon=":material/swap_vert:")
    repeated = next(((p, q) for p in range(T) for q in range(p + 1, T) if tokens[p] == tokens[q]), None)
    if repeated:
        p, q = repeated
        gap_plain = float(np.max(np.abs(plain.output[p] - plain.output[q])))
        gap_pe = float(np.max(np.abs(with_pe.output[p] - with_pe.output[q])))
        st.markdown(t("positional.same_word", word=widgets.escape_markdown(tokens[p]), p=p + 1, q=q + 1,
                      plain=fmt_error(gap_plain), pe=fmt_error(gap_pe)))  # fmt: skip
    for name, check in (("plain", plain), ("pe", with_pe)):
        st.subheader(t(f"positional.outputs_{name}"))
        widgets.show_figure(
            figure(
                ("outputs", name, lang, tuple(tokens), perm, d_model, base, seed),
                lambda check=check: figs.token_matrix_pair(
                    check.reordered_output, check.shuffled_output, shuffled,
                    titles=(t("positional.panel_moved"), t("positional.panel_shuffled")), x_title=dim_word,
                    y_title=t("positional.word"), value_name=t("positional.output_value"),
                    zmax=float(np.max(np.abs([check.reordered_output, check.shuffled_output]))),
                ),
            ),
            key=f"positional_outputs_{name}",
            alt=t(f"positional.outputs_{name}_alt", error=fmt_error(check.max_error)),
        )  # fmt: skip
    st.caption(t("positional.panels_caption"))
    box = numbers("pe_x_outputs")
    if box.open:
        with box:
            labels = [f"{r + 1} {w}" for r, w in enumerate(shuffled)]
            for name, check in (("plain", plain), ("pe", with_pe)):
                for what, z in (("moved", check.reordered_output), ("shuffled", check.shuffled_output)):
                    widgets.show_table(
                        pd.DataFrame(z, index=labels).round(6), key=f"positional_t_{name}_{what}",
                        filename=f"outputs_{name}_{what}.csv",
                        caption=f"{t(f'positional.outputs_{name}')} · {t(f'positional.panel_{what}')}",
                    )  # fmt: skip
    widgets.formula_and_code(
        r"\begin{aligned}Q, K, V &= XW_q,\ XW_k,\ XW_v\\ \mathrm{Attn}(X) &= \mathrm{softmax}(QK^\top/\sqrt{d})\,V"
        r"\\ \mathrm{Attn}(PX) &= P\,\mathrm{Attn}(X)\\ \mathrm{Attn}(PX + E) &\neq P\,\mathrm{Attn}(X + E)"
        r"\end{aligned}",
        permutation_check,
    )
    st.caption(t("positional.formula1_note"))


# --- 2: the sinusoids ---------------------------------------------------------------------------------


def section_sinusoids() -> None:
    section_header("s2")
    st.markdown(t("positional.s2_body"))
    pe = encoding(n_positions, d_model, base)  # [n, d]
    periods = 2 * np.pi / omega  # [ceil(d_model/2)] positions per full turn of each pair
    st.markdown(t("positional.range_now", fastest=f"{periods[0]:.3g}", last=len(omega) - 1,
                  slowest=f"{periods[-1]:,.0f}"))  # fmt: skip
    dims = controls.multiselect(
        t("positional.dims_label"), list(range(MAX_D_MODEL)), key="pe_dims", default=[0, 1, 8, 20],
        format_func=dim_label.__getitem__, max_selections=MAX_DIMS, help=t("positional.dims_help"),
    )  # fmt: skip
    shown = [dim for dim in dims if dim < d_model]
    if len(shown) < len(dims):
        missing = ", ".join(str(dim) for dim in dims if dim >= d_model)
        st.caption(t("positional.dims_missing", dims=missing, d=d_model, last=d_model - 1))
    if shown:
        shown_periods = [periods[dim // 2] for dim in shown]
        widgets.show_figure(
            figure(
                ("curves", lang, n_positions, d_model, base, tuple(shown)),
                lambda: figs.curves(pe[:, shown], [dim_label[dim] for dim in shown], x_title=pos_word,
                                    y_title=t("positional.pe_value"), title=t("positional.curves_title")),
            ),
            key="positional_curves",
            alt=t("positional.curves_alt", dims=", ".join(map(str, shown)), n=n_positions - 1,
                  periods=", ".join(f"{period:.1f}" for period in shown_periods)),
        )  # fmt: skip
        each = [t("positional.period", dim=dim, omega=f"{omega[dim // 2]:.4g}", period=f"{period:.4g}")
                for dim, period in zip(shown, shown_periods, strict=True)]  # fmt: skip
        st.caption(f"{t('positional.curves_note')} {' · '.join(each)}")
        box = numbers("pe_x_curves")
        if box.open:
            with box:
                widgets.show_table(
                    pd.DataFrame(pe[:, shown], columns=[dim_label[dim] for dim in shown]).rename_axis("p").round(6),
                    key="positional_t_curves", filename="pe_curves.csv",
                )  # fmt: skip
    else:
        st.info(t("positional.no_dims"), icon=":material/info:")

    widgets.show_figure(
        figure(
            ("heatmap", lang, n_positions, d_model, base),
            lambda: figs.matrix_heatmap(pe, x_title=dim_word, y_title=pos_word, value_name=t("positional.pe_value"),
                                        zmax=1.0, title=t("positional.heatmap_title", n=n_positions, d=d_model)),
        ),
        key="positional_heatmap",
        alt=t("positional.heatmap_alt", n=n_positions, d=d_model),
    )  # fmt: skip
    notes = [t("positional.heatmap_note")]
    row_step, col_step = figs.thinning_step(n_positions), figs.thinning_step(d_model)
    if row_step > 1 or col_step > 1:
        notes.append(t("positional.thinned", rows=row_step, cols=col_step))
    if d_model % 2:
        notes.append(t("positional.odd_note", d=d_model, last=d_model - 1))
    st.caption(" ".join(notes))
    box = numbers("pe_x_heatmap")
    if box.open:
        with box:
            widgets.show_table(pd.DataFrame(pe).rename_axis("p").round(6), key="positional_t_heatmap",
                               filename="positional_encoding.csv")  # fmt: skip
    widgets.formula_and_code(
        r"\begin{aligned}PE_{(p,\,2i)} &= \sin\!\big(p\,\omega_i\big)\\ PE_{(p,\,2i+1)} &= \cos\!\big(p\,\omega_i\big)"
        r"\\ \omega_i &= \frac{1}{\text{base}^{\,2i/d_{\text{model}}}}\end{aligned}",
        sinusoidal_positional_encoding,
    )
    with st.container(border=True):
        st.markdown(t("positional.seed_code_title"))
        st.markdown(t("positional.seed_code_body"))


# --- 3: similarity, and a shift is a rotation ------------------------------------------------------------


def section_similarity() -> None:
    section_header("s3")
    st.markdown(t("positional.s3_body"))
    dot, profile = similarity(n_positions, d_model, base, False)
    spread = float(np.max(profile.high - profile.low))
    left, right = st.columns(2)
    with left:
        widgets.show_figure(
            figure(
                ("dot", lang, n_positions, d_model, base),
                lambda: figs.matrix_heatmap(
                    dot, x_title=t("positional.position_q"), y_title=t("positional.position_p"),
                    value_name=t("positional.dot"), title=t("positional.dot_title"), height=440,
                ),
            ),
            key="positional_dot",
            alt=t("positional.dot_alt", n=n_positions, diag=f"{dot[0, 0]:.4g}"),
        )  # fmt: skip
    with right:
        widgets.show_figure(
            figure(
                ("offset", lang, n_positions, d_model, base),
                lambda: figs.offset_profiles(
                    [(t("positional.sinusoidal"), profile.mean, profile.low, profile.high)],
                    x_title=t("positional.offset"), y_title=t("positional.dot"), band_name=t("positional.band"),
                    title=t("positional.offset_title"),
                ),
            ),
            key="positional_offset",
            alt=t("positional.offset_alt", spread=fmt_error(spread)),
        )  # fmt: skip
    st.markdown(t("positional.spread_even" if d_model % 2 == 0 else "positional.spread_odd", spread=fmt_error(spread),
                  diag=f"{dot[0, 0]:.6g}"))  # fmt: skip
    box = numbers("pe_x_dot")
    if box.open:
        with box:
            widgets.show_table(pd.DataFrame(dot).rename_axis("p").round(6), key="positional_t_dot",
                               filename="pe_dot_products.csv")  # fmt: skip
            widgets.show_table(
                pd.DataFrame({t("positional.offset"): profile.offset, t("positional.col_mean"): profile.mean,
                              t("positional.col_low"): profile.low, t("positional.col_high"): profile.high}).round(6),
                key="positional_t_offset", filename="pe_dot_by_offset.csv",
            )  # fmt: skip

    st.subheader(t("positional.rotation_title"))
    st.markdown(t("positional.rotation_body"))
    if d_model < 2:
        st.info(t("positional.no_pairs"), icon=":material/info:")
    else:
        r1, r2 = st.columns(2)
        with r1:
            k = controls.slider(t("positional.k_label"), 0, MAX_K, 5, key="pe_k", help=t("positional.k_help"))
        with r2:
            wanted = controls.slider(t("positional.pair_label"), 0, MAX_D_MODEL // 2 - 1, 0, key="pe_pair",
                                     help=t("positional.pair_help"))  # fmt: skip
        pair = min(wanted, d_model // 2 - 1)
        if pair < wanted:
            st.caption(t("positional.pair_clamped", d=d_model, last=pair))
        check = rotation(n_positions, d_model, k, base)
        R = check.rotations[pair]  # [2, 2]
        angle = k * omega[pair]
        kw = rf"{k}\,\omega_{{{pair}}}"
        st.latex(
            rf"R_{{{pair}}}({k}) = \begin{{pmatrix}} \cos {kw} & \sin {kw} \\ -\sin {kw} & \cos {kw} \end{{pmatrix}}"
            rf" = \begin{{pmatrix}} {R[0, 0]:.4f} & {R[0, 1]:.4f} \\ {R[1, 0]:.4f} & {R[1, 1]:.4f} \end{{pmatrix}},"
            rf"\qquad {kw} = {angle:.4f}\ \text{{rad}}"
        )
        ok = check.max_error < 1e-9
        m1, m2 = st.columns([1, 2])
        m1.metric(
            t("positional.rotation_metric"), fmt_error(check.max_error), help=t("positional.rotation_metric_help")
        )
        with m2:
            message = t(
                "positional.rotation_ok" if ok else "positional.rotation_bad",
                n=n_positions, pairs=d_model // 2, k=k, error=fmt_error(check.max_error),
            )  # fmt: skip
            (st.success if ok else st.error)(message, icon=":material/check:" if ok else ":material/error:")
        starts = sorted({0, n_positions // 3, (2 * n_positions) // 3})
        widgets.show_figure(
            figure(
                ("rotation", lang, n_positions, d_model, base, k, pair),
                lambda: figs.rotation_circle(
                    encoding(n_positions + k, d_model, base)[:, 2 * pair : 2 * pair + 2], starts, k,
                    x_title=t("positional.circle_x", a=2 * pair), y_title=t("positional.circle_y", b=2 * pair + 1),
                    all_name=t("positional.circle_all", last=n_positions + k - 1),
                    arrow_text=t("positional.circle_arrow"),
                ),
            ),
            key="positional_rotation",
            alt=t("positional.rotation_alt", pair=pair, k=k, angle=f"{angle:.4f}"),
        )  # fmt: skip
        box = numbers("pe_x_rotation")
        if box.open:
            with box:
                a, b = 2 * pair, 2 * pair + 1
                widgets.show_table(
                    pd.DataFrame(
                        np.hstack([check.actual[:, a : b + 1], check.predicted[:, a : b + 1]]),
                        columns=[f"PE[p+{k}, {a}]", f"PE[p+{k}, {b}]", f"R·PE[p, {a}]", f"R·PE[p, {b}]"],
                    ).rename_axis("p").round(9),
                    key="positional_t_rotation", filename="pe_rotation_check.csv",
                )  # fmt: skip
        widgets.formula_and_code(
            r"\begin{aligned} x_p &= \begin{pmatrix} PE_{(p,\,2i)} \\ PE_{(p,\,2i+1)} \end{pmatrix}"
            r"\\[1ex]"
            r" x_{p+k} &= R_i(k)\, x_p\\[1ex]"
            r" R_i(k) &= \begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\"
            r" -\sin k\omega_i & \cos k\omega_i \end{pmatrix}"
            r"\\[1ex] PE_p \cdot PE_q &= \textstyle\sum_i \cos\big(\omega_i\,(p-q)\big)\end{aligned}",
            shift_rotations,
            position_similarity,
        )


# --- 4: learned vs fixed ---------------------------------------------------------------------------------


def section_learned() -> None:
    section_header("s4")
    st.markdown(t("positional.s4_body"))
    table, learned_cos, learned_profile = learned(n_positions)
    d_real = table.shape[1]
    sin_cos, sin_profile = similarity(n_positions, d_real, base, True)
    norms = np.linalg.norm(table, axis=1)  # [n]
    limit = float(np.quantile(np.abs(table[1:]), 0.99))  # row 0 is far larger; see the caption
    widgets.show_figure(
        figure(
            ("learned", lang, n_positions),
            lambda: figs.matrix_heatmap(table, x_title=dim_word, y_title=pos_word,
                                        value_name=t("positional.learned_value"), zmax=limit,
                                        title=t("positional.learned_title", n=n_positions, d=d_real)),
        ),
        key="positional_learned",
        alt=t("positional.learned_alt", n=n_positions, d=d_real),
    )  # fmt: skip
    st.caption(t("positional.learned_note", limit=f"{limit:.3f}", norm0=f"{norms[0]:.2f}",
                 median=f"{np.median(norms[1:]):.2f}"))  # fmt: skip
    fixed_name = t("positional.sinusoidal_384", d=d_real)
    widgets.show_figure(
        figure(
            ("learned_cos", lang, n_positions, base),
            lambda: figs.matrix_pair(
                learned_cos, sin_cos, titles=(t("positional.learned_short"), fixed_name),
                x_title=t("positional.position_q"), y_title=t("positional.position_p"),
                value_name=t("positional.cosine"), zmax=1.0,
            ),
        ),
        key="positional_learned_cos",
        alt=t("positional.learned_cos_alt", n=n_positions, learned=f"{learned_profile.mean[1]:.3f}",
              fixed=f"{sin_profile.mean[1]:.3f}"),
    )  # fmt: skip
    widgets.show_figure(
        figure(
            ("learned_offset", lang, n_positions, base),
            lambda: figs.offset_profiles(
                [(t("positional.learned_short"), learned_profile.mean, learned_profile.low, learned_profile.high),
                 (fixed_name, sin_profile.mean, sin_profile.low, sin_profile.high)],
                x_title=t("positional.offset"), y_title=t("positional.cosine"), band_name=t("positional.band"),
                title=t("positional.learned_offset_title"), height=400,
            ),
        ),
        key="positional_learned_offset",
        alt=t("positional.learned_offset_alt"),
    )  # fmt: skip
    st.markdown(
        t("positional.learned_reading", learned=f"{learned_profile.mean[1]:.3f}", fixed=f"{sin_profile.mean[1]:.3f}",
          spread=f"{np.max(learned_profile.high - learned_profile.low):.3f}",
          fixed_spread=fmt_error(float(np.max(sin_profile.high - sin_profile.low))))
    )  # fmt: skip
    box = numbers("pe_x_learned")
    if box.open:
        with box:
            for z, key, filename, caption in (
                (table, "learned", "learned_positions.csv", t("positional.learned_title", n=n_positions, d=d_real)),
                (learned_cos, "learned_cos", "learned_cosine.csv", t("positional.learned_short")),
                (sin_cos, "sin_cos", "sinusoidal_cosine.csv", fixed_name),
            ):
                widgets.show_table(pd.DataFrame(z).rename_axis("p").round(6), key=f"positional_t_{key}",
                                   filename=filename, caption=caption)  # fmt: skip
    widgets.formula_and_code(
        r"\cos(e_p, e_q) = \frac{e_p \cdot e_q}{\lVert e_p\rVert\,\lVert e_q\rVert}", position_similarity
    )


# --- 5: check yourself ----------------------------------------------------------------------------------


def section_check() -> None:
    st.header(t("positional.check_title"))
    widgets.check_choice(
        t("positional.q_swap"), ["swap", "change", "same"], "swap", key="pe_q_swap",
        format_func=lambda o: t(f"positional.q_swap_{o}"), explanation=t("positional.q_swap_why"),
    )  # fmt: skip
    pe_1_0 = float(encoding(2, d_model, base)[1, 0])
    widgets.check_number(
        t("positional.q_value"), pe_1_0, key="pe_q_value", tolerance=0.001,
        explanation=t("positional.q_value_why", value=f"{pe_1_0:.4f}"),
    )  # fmt: skip
    widgets.check_choice(
        t("positional.q_offset"), ["offset", "sum", "both"], "offset", key="pe_q_offset",
        format_func=lambda o: t(f"positional.q_offset_{o}"), explanation=t("positional.q_offset_why"),
    )  # fmt: skip


# --- one section at a time: tabs (lecture mode: steps), so a rerun draws only what is seen --------------

SECTIONS = ("s1", "s2", "s3", "s4", "check")
DRAW = (section_why, section_sinusoids, section_similarity, section_learned, section_check)
titles = [t(f"positional.{s}_title") for s in SECTIONS]  # unnumbered: the stepper writes "Step i of n · title"
visible = stepper("pe_step", titles)  # lecture mode: one step, previous / next buttons, the step in the link
if is_lecture():
    step = next(i for i in range(1, len(SECTIONS) + 1) if visible(i))
    area = st.container()
else:
    # Lazy tabs (on_change="rerun"): only the open tab's section runs. The open tab is the step
    # in the link (pe_step), so a slide can still point at a section.
    tab_names = [t(f"positional.{s}_tab") for s in SECTIONS]
    tabs = st.tabs(tab_names, key="pe_tab", default=tab_names[st.session_state["pe_step"] - 1], on_change="rerun")
    step = next(i for i, tab in enumerate(tabs, 1) if tab.open)
    st.session_state["pe_step"] = step
    controls.publish_to_url("pe_step", step, 1)
    area = tabs[step - 1]


def go_to(section: int) -> None:
    st.session_state["pe_step"] = section


with area:
    DRAW[step - 1]()
    if not is_lecture() and step < len(SECTIONS):
        st.button(t("positional.next_section", title=titles[step]), key="pe_next", on_click=go_to, args=(step + 1,),
                  icon=":material/arrow_forward:", type="primary")  # fmt: skip
