"""Positional encoding, read top to bottom: self-attention cannot see word order until a position
vector is added (the shuffle test); the sinusoids; their similarity and why a shift is a rotation;
a real model's learned table beside them; check yourself. Each section is a lecture step (pe_step)."""

import contextlib
from collections.abc import Callable

import pandas as pd
import streamlit as st

from attention_core import positional as core
from lab_ui import controls, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import positional as figures
from lab_ui.figures.positional import format_error
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture

BASES = [2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 1000000]
MAX_POSITIONS = MAX_D_MODEL = MAX_K = 512  # the real model's table has 512 rows; the sliders stop there too
MAX_DIMS = 6  # curves drawn at once: more lines than this cannot be told apart
MAX_WORDS = 64  # widgets.sentence_tokens keeps this many; the swap inputs range over them
ARTICLE_TEXT, DOG_TEXT = "I saw a saw", "the dog bit the man"
PRESETS = {
    "article": {
        "pe_n": 4,
        "pe_d": 4,
        "pe_base": 10000,
        "pe_text": ARTICLE_TEXT,
        "pe_order": "swap",
        "pe_i": 1,
        "pe_j": 3,
        "pe_dims": [0, 1, 2, 3],
        "pe_k": 1,
        "pe_pair": 0,
    },
    "long": {
        "pe_n": 512,
        "pe_d": 512,
        "pe_base": 10000,
        "pe_text": t("positional.long_text"),
        "pe_order": "random",
        "pe_dims": [0, 1, 100, 300, 500],
        "pe_k": 100,
        "pe_pair": 40,
    },
    "shuffle": {
        "pe_text": DOG_TEXT,
        "pe_order": "swap",
        "pe_i": 2,
        "pe_j": 5,
        "pe_d": 8,
        "pe_base": 10000,
        "pe_step": 1,
    },
}
FEEDS = {
    "pe_d": ("why", "sinusoids", "similarity"),
    "pe_n": ("sinusoids", "similarity", "learned"),
    "pe_base": ("why", "sinusoids", "similarity", "learned"),
}

# A link to a step (pe_step=3, the third tab when the sections were tabs) opens the page at that section; the
# charts above it grow as they draw, so the heading is followed for two seconds unless the reader scrolls.
SCROLL_TO = """<script>(() => { let n = 0; const stop = () => { n = 99; };
  ["wheel", "touchstart", "keydown"].forEach((e) => window.addEventListener(e, stop, {once: true}));
  const go = () => { document.getElementById("positional-NAME")?.scrollIntoView(); if (++n < 8) setTimeout(go, 250); };
  go(); })();</script>"""

frame = page.start("positional", presets=PRESETS)
lang = current_lang()

# Page-level: each feeds several sections; a lecture step shows only those it uses (none that does nothing).
used = {key for key, sections in FEEDS.items() if any(map(frame.shows, sections))}
d_model = n = base = None
if used:
    with frame.controls(), page.section_controls():
        if "pe_d" in used:
            d_model = controls.slider(
                t("positional.d_label"), 1, MAX_D_MODEL, 64, key="pe_d", help=t("positional.d_help")
            )
        if "pe_n" in used:
            n = controls.slider(t("positional.n_label"), 2, MAX_POSITIONS, 64, key="pe_n", help=t("positional.n_help"))
        if "pe_base" in used:
            base = float(
                controls.select_slider(
                    t("positional.base_label"), BASES, 10000, key="pe_base", help=t("positional.base_help")
                )
            )
    if not is_lecture():
        st.caption(t("positional.settings_note"))


def section_start(name: str, controls_label: str | None = None):
    """Heading, words, a box for the section's own controls; returns (box, the first figure's place).
    In lecture mode the figure comes first, under the step bar, then one row: the folded words and a
    popover holding the controls, so that the figure keeps the projector's first screen."""
    frame.heading(name)
    if not is_lecture():
        page.prose(t(f"positional.{name}_body"))
        return st.container(), contextlib.nullcontext()
    first = st.container()
    with st.container(horizontal=True, vertical_alignment="center"):
        page.prose(t(f"positional.{name}_body"))
        return (st.popover(t(controls_label), icon=":material/tune:") if controls_label else None), first


def figure(key: str, builder, view, alt: str, *args, **kwargs) -> None:
    widgets.show_figure(cached(builder, view, *args, lang, **kwargs), key=f"positional_{key}", alt=alt)


def numbers(key: str, *tables: Callable[[], None]) -> None:
    """The numbers behind a figure, drawn only when their expander is open (it reruns the section)."""
    if box := page.numbers_box(key, t("positional.numbers")):
        with box:
            for draw in tables:
                draw()


def table(z, key: str, filename: str, caption: str | None = None, decimals: int = 6) -> None:
    """Numbers as shown, six decimals on screen and in the CSV; an array's rows are positions p."""
    df = z if isinstance(z, pd.DataFrame) else pd.DataFrame(z).rename_axis("p")
    widgets.show_table(df, key=f"positional_t_{key}", filename=filename, caption=caption, decimals=decimals)


@st.fragment
def why_section(d_model: int, base: float) -> None:
    box, first = section_start("why", "positional.controls_shuffle")
    with box:
        tokens = widgets.sentence_tokens(
            t("positional.text_label"),
            ARTICLE_TEXT,
            key="pe_text",
            max_tokens=MAX_WORDS,
            help=t("positional.text_help"),
        )
        with page.section_controls():
            order = controls.segmented(
                t("positional.order_label"),
                core.SHUFFLE_ORDERS,
                key="pe_order",
                format_func=lambda o: t(f"positional.order_{o}"),
            )
            swap = dict(min_value=1, max_value=MAX_WORDS, step=1, disabled=order != "swap")  # words 1..64
            word_i = controls.number_input(t("positional.i_label"), key="pe_i", value=1, **swap)
            word_j = controls.number_input(t("positional.j_label"), key="pe_j", value=3, **swap)
            seed = widgets.seed_input(key="pe_seed")
    view = cached(core.shuffle_experiment, tuple(tokens), order, word_i - 1, word_j - 1, d_model, base, seed)
    if order == "swap" and view.clamped:
        st.caption(t("positional.swap_clamped", T=len(tokens), i=view.swapped[0] + 1, j=view.swapped[1] + 1))
    before, after = (literal(" ".join(words)) for words in (view.tokens, view.shuffled))
    st.markdown(t("positional.sentences", before=before, after=after))
    if not view.moved:
        st.info(t("positional.nothing_moved"), icon=":material/info:")
    plain, with_pe = format_error(view.plain.max_error), format_error(view.with_pe.max_error)
    with first:
        figure(
            "shuffle",
            figures.shuffle_experiment,
            view,
            t("positional.shuffle_alt", plain=plain, pe=with_pe),
            lecture=is_lecture(),
        )
    m1, m2 = st.columns(2)
    m1.metric(t("positional.metric_plain"), plain, help=t("positional.metric_help"))
    m2.metric(t("positional.metric_pe"), with_pe, help=t("positional.metric_help"))
    if view.plain.max_error < 1e-9:
        m1.success(t("positional.verdict_plain"), icon=":material/check:")
    if view.with_pe.max_error > 1e-9:
        m2.warning(t("positional.verdict_pe"), icon=":material/swap_vert:")
    st.caption(t("positional.panels_caption"))
    if view.repeated:
        (p, q), (gap_plain, gap_pe) = view.repeated, view.repeated_gap
        st.markdown(
            t(
                "positional.same_word",
                word=literal(view.tokens[p]),
                p=p + 1,
                q=q + 1,
                plain=format_error(gap_plain),
                pe=format_error(gap_pe),
            )
        )

    def outputs() -> None:
        rows = pd.Index([f"{r + 1} {w}" for r, w in enumerate(view.shuffled)], name=t("positional.word"))
        for name, check in (("plain", view.plain), ("pe", view.with_pe)):
            for what, z in (("moved", check.reordered_output), ("shuffled", check.shuffled_output)):
                caption = f"{t(f'positional.row_{name}')} · {t(f'positional.panel_{what}')}"
                table(pd.DataFrame(z, index=rows), f"{name}_{what}", f"outputs_{name}_{what}.csv", caption)

    numbers("pe_x_outputs", outputs)
    widgets.formula_and_code(core.PERMUTATION_FORMULA, core.permutation_check)
    st.caption(t("positional.why_formula_note"))


@st.fragment
def sinusoids_section(n: int, d: int, base: float) -> None:
    view = cached(core.sinusoid_table, n, d, base)
    names = cached(figures.dimension_names, lang, MAX_D_MODEL)
    box, first = section_start("sinusoids", "positional.dims_label")
    with box:
        dims = controls.multiselect(
            t("positional.dims_label"),
            list(range(MAX_D_MODEL)),
            key="pe_dims",
            default=[0, 1, 8, 20],
            format_func=names.__getitem__,
            max_selections=MAX_DIMS,
            help=t("positional.dims_help"),
        )
    shown = tuple(dim for dim in dims if dim < d)
    if len(shown) < len(dims):
        missing = ", ".join(str(dim) for dim in dims if dim >= d)
        st.caption(t("positional.dims_missing", dims=missing, d=d, last=d - 1))
    if shown:
        periods = ", ".join(f"{view.period[dim // 2]:.1f}" for dim in shown)
        alt = t("positional.curves_alt", dims=", ".join(map(str, shown)), n=n - 1, periods=periods)
        with first:
            figure("curves", figures.sinusoid_curves, view, alt, shown)
        st.caption(figures.sinusoid_curves_caption(view, shown, lang))
        curves = pd.DataFrame(view.pe[:, list(shown)], columns=[names[dim] for dim in shown]).rename_axis("p")
        numbers("pe_x_curves", lambda: table(curves, "curves", "pe_curves.csv"))
    else:
        st.info(t("positional.no_dims"), icon=":material/info:")
    st.markdown(
        t(
            "positional.range_now",
            fastest=f"{view.period[0]:.3g}",
            last=len(view.omega) - 1,
            slowest=f"{view.period[-1]:,.0f}",
        )
    )
    figure("heatmap", figures.sinusoid_heatmap, view, t("positional.heatmap_alt", n=n, d=d))
    st.caption(figures.sinusoid_heatmap_caption(view, lang))
    numbers("pe_x_heatmap", lambda: table(view.pe, "heatmap", "positional_encoding.csv"))
    widgets.formula_and_code(core.SINUSOID_FORMULA, core.sinusoidal_positional_encoding)
    with st.container(border=True):
        st.markdown(t("positional.article_code_title"))
        st.code(t("positional.article_code").strip(), language="python", wrap_lines=True)
        st.markdown(t("positional.article_code_body"))


@st.fragment
def similarity_section(n: int, d: int, base: float) -> None:
    _, first = section_start("similarity")
    view = cached(core.sinusoid_similarity, n, d, base)
    diagonal, spread = view.matrix[0, 0], format_error(view.spread)
    with first:
        left, right = st.columns(2)
    with left:
        figure("dot", figures.dot_products, view, t("positional.dot_alt", n=n, diag=f"{diagonal:.4g}"))
    with right:
        figure("offset", figures.dot_by_offset, view, t("positional.offset_alt", spread=spread))
    reading = "positional.spread_even" if d % 2 == 0 else "positional.spread_odd"
    st.markdown(t(reading, spread=spread, diag=f"{diagonal:.6g}"))
    profile = view.profile
    by_offset = pd.DataFrame(
        {
            t("positional.col_mean"): profile.mean,
            t("positional.col_low"): profile.low,
            t("positional.col_high"): profile.high,
        },
        index=profile.offset,
    )
    numbers(
        "pe_x_dot",
        lambda: table(view.matrix, "dot", "pe_dot_products.csv"),
        lambda: table(by_offset.rename_axis("|p − q|"), "offset", "pe_dot_by_offset.csv"),
    )
    rotation_part(n, d, base)


@st.fragment
def rotation_part(n: int, d: int, base: float) -> None:
    """A fragment of its own inside section 3: moving k or the pair reruns the rotation alone."""
    st.markdown(f"#### {t('positional.rotation_title')}")  # a part of section 3, not a section of its own
    page.prose(t("positional.rotation_body"))
    if d < 2:
        st.info(t("positional.no_pairs"), icon=":material/info:")
        return
    with page.section_controls():
        k = controls.slider(t("positional.k_label"), 0, MAX_K, 5, key="pe_k", help=t("positional.k_help"))
        wanted = controls.slider(
            t("positional.pair_label"), 0, MAX_D_MODEL // 2 - 1, 0, key="pe_pair", help=t("positional.pair_help")
        )
    view = cached(core.shift_rotation, n, d, k, wanted, base)
    pair, check, error = view.pair, view.check, format_error(view.check.max_error)
    if pair < wanted:
        st.caption(t("positional.pair_clamped", d=d, last=pair))
    st.latex(figures.rotation_block(view))
    ok = check.max_error < 1e-9
    m1, m2 = st.columns([1, 2])
    m1.metric(t("positional.rotation_metric"), error, help=t("positional.rotation_metric_help"))
    message = t("positional.rotation_ok" if ok else "positional.rotation_bad", n=n, pairs=d // 2, k=k, error=error)
    (m2.success if ok else m2.error)(message, icon=":material/check:" if ok else ":material/error:")
    figure(
        "rotation",
        figures.shift_rotation,
        view,
        t("positional.rotation_alt", pair=pair, k=k, angle=f"{view.angle:.4f}"),
    )
    a, b = 2 * pair, 2 * pair + 1
    columns = {
        f"PE[p+{k}, {a}]": check.actual[:, a],
        f"PE[p+{k}, {b}]": check.actual[:, b],
        f"R·PE[p, {a}]": check.predicted[:, a],
        f"R·PE[p, {b}]": check.predicted[:, b],
    }
    rotation = pd.DataFrame(columns).rename_axis("p")
    numbers("pe_x_rotation", lambda: table(rotation, "rotation", "pe_rotation_check.csv", decimals=9))
    widgets.formula_and_code(core.ROTATION_FORMULA, core.shift_rotations, core.position_similarity)


@st.fragment
def learned_section(n: int, base: float) -> None:
    _, first = section_start("learned")
    view = cached(core.learned_vs_sinusoidal, n, base)
    d_real = view.table.shape[1]
    learned, fixed = f"{view.learned.profile.mean[1]:.3f}", f"{view.sinusoidal.profile.mean[1]:.3f}"
    fixed_name = t("positional.sinusoidal_384", d=d_real)
    with first:
        figure("learned", figures.learned_table, view, t("positional.learned_alt", n=n, d=d_real))
    st.caption(
        t(
            "positional.learned_note",
            limit=f"{view.colour_limit:.3f}",
            norm0=f"{view.row_norms[0]:.2f}",
            median=f"{view.median_norm:.2f}",
        )
    )
    left, right = st.columns(2)  # side by side, or one under the other on a phone: each map keeps its size
    with left:
        figure(
            "learned_cos",
            figures.learned_cosine,
            view,
            t("positional.learned_cos_alt", n=n, learned=learned),
            "learned",
            lecture=is_lecture(),
        )
    with right:
        figure(
            "sin_cos",
            figures.learned_cosine,
            view,
            t("positional.sin_cos_alt", n=n, d=d_real, fixed=fixed),
            "sinusoidal",
            lecture=is_lecture(),
        )
    figure("learned_offset", figures.learned_by_offset, view, t("positional.learned_offset_alt"))
    st.markdown(
        t(
            "positional.learned_reading",
            learned=learned,
            fixed=fixed,
            spread=f"{view.learned.spread:.3f}",
            fixed_spread=format_error(view.sinusoidal.spread),
        )
    )
    numbers(
        "pe_x_learned",
        lambda: table(view.table, "learned", "learned_positions.csv", t("positional.learned_title", n=n, d=d_real)),
        lambda: table(view.learned.matrix, "learned_cos", "learned_cosine.csv", t("positional.learned_short")),
        lambda: table(view.sinusoidal.matrix, "sin_cos", "sinusoidal_cosine.csv", fixed_name),
    )
    widgets.formula_and_code(core.COSINE_FORMULA, core.position_similarity)


def choice(question: str, options: list[str]) -> None:
    """A predict-then-reveal question whose right answer is listed first."""
    widgets.check_choice(
        t(f"positional.q_{question}"),
        options,
        options[0],
        key=f"pe_q_{question}",
        format_func=lambda o: t(f"positional.q_{question}_{o}"),
        explanation=t(f"positional.q_{question}_why"),
    )


@st.fragment
def check_section() -> None:
    frame.heading("check")
    choice("swap", ["swap", "change", "same"])
    pe_1_0 = float(core.sinusoidal_positional_encoding(2, 2)[1, 0])  # sin(1 · ω_0): ω_0 = 1 whatever d and base
    widgets.check_number(
        t("positional.q_value"),
        pe_1_0,
        key="pe_q_value",
        tolerance=0.001,
        explanation=t("positional.q_value_why", value=f"{pe_1_0:.4f}"),
    )
    choice("offset", ["offset", "sum", "both"])


if frame.shows("why"):
    why_section(d_model, base)
if frame.shows("sinusoids"):
    sinusoids_section(n, d_model, base)
if frame.shows("similarity"):
    similarity_section(n, d_model, base)
if frame.shows("learned"):
    learned_section(n, base)
if frame.shows("check"):
    check_section()
if not is_lecture() and frame.step != st.session_state.get("pe_scrolled_to", 1):
    st.session_state["pe_scrolled_to"] = frame.step
    st.html(SCROLL_TO.replace("NAME", frame.sections[frame.step - 1]), unsafe_allow_javascript=True)

frame.end()
