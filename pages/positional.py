"""Positional encoding: self-attention cannot see word order until a position vector is added (the
shuffle test); the sinusoids (and article 003's code read carefully); their similarity and why a
shift is a rotation; a real model's learned table beside them; check yourself.

Steps (pe_step): why, sinusoids, similarity, learned, check. d_model, n and the base are page-level,
drawn only on the steps they change (FEEDS); the sentence and its shuffle are the first step's own,
the dimensions drawn the second's, k and the pair the rotation's (a fragment inside the third step).
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import positional as core
from lab_ui import page, state, widgets
from lab_ui import position_parts as parts
from lab_ui.cache import cached
from lab_ui.figures import positional as figures
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture
from lab_ui.position_parts import figure, numbers

BASES = (2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 1000000)
MAX_POSITIONS = MAX_D_MODEL = MAX_K = 512  # the real model's table has 512 rows; the sliders stop there too
MAX_WORDS = 64  # widgets.sentence_tokens keeps this many; the swap inputs range over them
ARTICLE_TEXT, DOG_TEXT = "I saw a saw", "the dog bit the man"
ORDERS = state.labels("positional.order_", "swap", "reverse", "random")
SWAP_ANSWERS = state.labels("positional.q_swap_", "same", "different", "seed")
OFFSET_ANSWERS = state.labels("positional.q_offset_", "equal", "first", "second")
assert tuple(ORDERS) == core.SHUFFLE_ORDERS


DIMS = dict(on="sinusoids", max_selections=6, help="positional.dims_help")  # more than six lines blur together


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    d = state.slider("pe_d", "positional.d_label", 1, MAX_D_MODEL, 64, help="positional.d_help")
    n = state.slider("pe_n", "positional.n_label", 2, MAX_POSITIONS, 64, help="positional.n_help")
    base = state.select_slider("pe_base", "positional.base_label", BASES, 10000, help="positional.base_help")
    text = state.text("pe_text", "positional.text_label", ARTICLE_TEXT, on="why", help="positional.text_help")
    order = state.choice("pe_order", "positional.order_label", ORDERS, on="why")
    i = state.number("pe_i", "positional.i_label", 1, MAX_WORDS, 1, on="why")  # words counted from 1
    j = state.number("pe_j", "positional.j_label", 1, MAX_WORDS, 3, on="why")
    seed = state.seed("pe_seed", on="why")
    dims = state.multiselect("pe_dims", "positional.dims_label", range(MAX_D_MODEL), (0, 1, 8, 20), **DIMS)
    k = state.slider("pe_k", "positional.k_label", 0, MAX_K, 5, on="similarity", help="positional.k_help")
    pair = state.slider(
        "pe_pair", "positional.pair_label", 0, MAX_D_MODEL // 2 - 1, 0, on="similarity", help="positional.pair_help"
    )


C = Controls
# Which steps each page-level control changes: a step on the screen draws only those it uses.
FEEDS = {C.d: ("why", "sinusoids", "similarity"), C.n: ("sinusoids", "similarity", "learned")}
FEEDS[C.base] = ("why", "sinusoids", "similarity", "learned")


def presets() -> tuple[state.Preset, ...]:
    article = {C.n: 4, C.d: 4, C.base: 10000, C.text: ARTICLE_TEXT, C.order: "swap", C.i: 1, C.j: 3}
    long = {C.n: 512, C.d: 512, C.base: 10000, C.text: t("positional.long_text"), C.order: "random"}
    return (
        state.Preset("positional.preset_article", {**article, C.dims: [0, 1, 2, 3], C.k: 1, C.pair: 0}),
        state.Preset("positional.preset_long", {**long, C.dims: [0, 1, 100, 300, 500], C.k: 100, C.pair: 40}),
        state.Preset("positional.preset_shuffle", {C.text: DOG_TEXT, C.order: "swap", C.i: 2, C.j: 5, C.d: 8}),
    )


PAGE = page.Page("positional", Controls, presets=presets)
SWAP_CHECK, VALUE_CHECK, OFFSET_CHECK = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives."""

    d_model: int  # the width of every position vector
    n: int  # the positions drawn
    base: float  # the base of the sinusoids' frequencies (10000 in the paper)


def settings(shown: tuple[str, ...]) -> Settings:
    """The encoding settings the steps on the screen use; the others keep their values, not drawn."""
    values = {}
    with page.section_controls():
        for control, steps in FEEDS.items():
            values[control] = control.draw() if set(steps) & set(shown) else control.value()
    if not is_lecture():
        st.caption(t("positional.settings_note"))
    return Settings(int(values[C.d]), int(values[C.n]), float(values[C.base]))


@PAGE.step("why")
def why_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("positional.why_body"))
    with p.controls:
        tokens = widgets.sentence_tokens(
            t(C.text.label), ARTICLE_TEXT, key=C.text.key, max_tokens=MAX_WORDS, help=t(C.text.help)
        )
        with page.section_controls():
            order = C.order.draw()
            i, j = (entry.draw(disabled=order != "swap") for entry in (C.i, C.j))
            seed = C.seed.draw()
    view = cached(core.shuffle_experiment, tuple(tokens), order, i - 1, j - 1, s.d_model, s.base, seed)
    lang = current_lang()
    with p.figure:
        figure("shuffle", figures.shuffle_experiment, view, lang, is_lecture(), alt=figures.shuffle_alt(view, lang))
    with p.reading:
        if order == "swap" and view.clamped:
            st.caption(t("positional.swap_clamped", T=len(tokens), i=view.swapped[0] + 1, j=view.swapped[1] + 1))
        before, after = (literal(" ".join(words)) for words in (view.tokens, view.shuffled))
        st.markdown(t("positional.sentences", before=before, after=after))
        if not view.moved:
            st.info(t("positional.nothing_moved"), icon=":material/info:")
        for column, (metric, verdict) in zip(st.columns(2), figures.shuffle_metrics(view, lang), strict=True):
            column.metric(**metric)
            if verdict:
                getattr(column, verdict[0])(verdict[1], icon=verdict[2])
        st.caption(t("positional.panels_caption"))
        if view.repeated:
            st.markdown(figures.same_word_reading(view, lang))
    numbers(p, "shuffle_outputs", figures.outputs_table, view, lang)
    p.formula(core.PERMUTATION_FORMULA, core.permutation_check)
    with p.code:
        st.caption(t("positional.why_formula_note"))


@PAGE.step("sinusoids")
def sinusoids_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    names = cached(figures.dimension_names, lang, MAX_D_MODEL)
    p.prose(t("positional.sinusoids_body"))
    with p.controls:
        dims = C.dims.draw(format_func=names.__getitem__)
    view = cached(core.sinusoid_table, s.n, s.d_model, s.base)
    shown = tuple(dim for dim in dims if dim < s.d_model)
    with p.figure:
        if shown:
            figure("curves", figures.sinusoid_curves, view, shown, lang, alt=figures.curves_alt(view, shown, lang))
        else:
            st.info(t("positional.no_dims"), icon=":material/info:")
    with p.reading:
        if len(shown) < len(dims):
            missing = ", ".join(str(dim) for dim in dims if dim >= s.d_model)
            st.caption(t("positional.dims_missing", dims=missing, d=s.d_model, last=s.d_model - 1))
        if shown:
            st.caption(figures.sinusoid_curves_caption(view, shown, lang))
        st.markdown(figures.range_reading(view, lang))
        figure("heatmap", figures.sinusoid_heatmap, view, lang, alt=t("positional.heatmap_alt", n=s.n, d=s.d_model))
        st.caption(figures.sinusoid_heatmap_caption(view, lang))
        parts.article_code(p, s.d_model, s.base, lang)
    numbers(p, "positional_encoding", figures.pe_table, view, lang)
    p.formula(core.SINUSOID_FORMULA, core.sinusoidal_positional_encoding)


@PAGE.step("similarity")
def similarity_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("positional.similarity_body"))
    view = cached(core.sinusoid_similarity, s.n, s.d_model, s.base)
    with p.figure:
        left, right = st.columns(2)
        with left:
            figure("dot", figures.dot_products, view, lang, alt=figures.dot_alt(view, lang))
        with right:
            figure("offset", figures.dot_by_offset, view, lang, alt=figures.offset_alt(view, lang))
    with p.reading:
        st.markdown(figures.spread_reading(view, s.d_model, lang))
        parts.rotation_part(C.k, C.pair, s.n, s.d_model, s.base)
        # the same rotation, applied to q and k instead of added to the input: how models since 2021 do it
        st.page_link("pages/rotary.py", label=t("positional.rotary_link"), icon=":material/rotate_right:")
    numbers(p, "pe_dot_products", figures.dot_table, view, lang, label=t("positional.dot_table"))
    numbers(p, "pe_dot_by_offset", figures.offset_table, view, lang, box="offset", label=t("positional.offset_table"))


@PAGE.step("learned")
def learned_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("positional.learned_body"))
    view = cached(core.learned_vs_sinusoidal, s.n, s.base)
    with p.figure:
        figure("learned", figures.learned_table, view, lang, alt=figures.learned_alt(view, lang))
    with p.reading:
        st.caption(figures.learned_note(view, lang))
        for column, which in zip(st.columns(2), ("learned", "sinusoidal"), strict=True):
            with column:  # side by side, or one under the other on a phone: each map keeps its size
                key, alt = "learned_cos" if which == "learned" else "sin_cos", figures.cosine_alt(view, which, lang)
                figure(key, figures.learned_cosine, view, which, lang, is_lecture(), alt=alt)
        figure("learned_offset", figures.learned_by_offset, view, lang, alt=t("positional.learned_offset_alt"))
        st.markdown(figures.learned_reading(view, lang))
    numbers(p, "learned_positions", figures.learned_frame, view, lang, caption=figures.learned_alt(view, lang))
    for which in ("learned", "sinusoidal"):
        label = t("positional.cosine_table", name=figures.cosine_name(view, which, lang))
        numbers(p, f"{which}_cosine", figures.cosine_frame, view, which, lang, box=which, label=label)
    p.formula(core.COSINE_FORMULA, core.position_similarity)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    q = figures.check_numbers()
    with p.check:  # not the quiz's questions: the article's sentence, a slower pair, two offsets
        choice(SWAP_CHECK, "same", SWAP_ANSWERS, t("positional.q_swap"), t("positional.q_swap_why"))
        why = t("positional.q_value_why", value=f"{q.value:.4f}")
        widgets.check_number(t("positional.q_value"), q.value, key=VALUE_CHECK, tolerance=0.001, explanation=why)
        why = t("positional.q_offset_why", a=q.near, b=q.far)
        choice(OFFSET_CHECK, "equal", OFFSET_ANSWERS, t("positional.q_offset"), why)


def choice(key: str, right: str, names: state.Labels, question: str, why: str) -> None:
    widgets.check_choice(question, list(names), right, key=key, format_func=names.text, explanation=why)


if __name__ == "__main__":  # Streamlit runs the script as __main__; tests import it for its declaration
    frame = PAGE.start()
    frame.show(settings, tuple(name for name in frame.names if frame.shows(name)))
