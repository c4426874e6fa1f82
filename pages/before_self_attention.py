"""From attention to self-attention: an encoder-decoder's cross-attention (each Chinese word of a
translation asks the English sentence) beside self-attention (Target = Source), the fixed-context
bottleneck that attention removed, measured, the shapes of Q from one sequence, K and V from the
other, and article 001's three kinds of output read off the same self-attention outputs.

Steps (ed_step): maps, bottleneck, shapes, outputs, check. The two sentences and the seed are
page-level; the bottleneck's sizes (ed_d, ed_dtok, ed_tmax) are its step's own, Target = Source
(ed_same) the shapes step's.
"""

from dataclasses import dataclass

import streamlit as st

from attention_core.bottleneck import bottleneck_curves, fixed_context, held_out_r2, per_step_contexts
from attention_core.encoder_decoder import (
    EXAMPLE_PAIRS,
    LEXICON,
    cross_attention,
    encoder_decoder_view,
    output_kinds,
    trained_model,
    typed_pair,
)
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import before_self_attention as figures
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture

SOURCE_DEFAULT, TARGET_DEFAULT = EXAMPLE_PAIRS["machine_learning"]
WORDS = ", ".join(f"{'I' if en == 'i' else en} {zh}" for en, zh in LEXICON)
D_CHOICES, D_TOKEN_CHOICES, T_MAX_CHOICES = (1, 2, 4, 8, 16), (1, 2, 4, 8), (4, 8, 16, 24, 32, 48, 64)
CHECK_T = 16  # the check asks about the bottleneck chart as it opens, at this length
EMPTY = state.labels("before_self_attention.empty_", "source", "target")
CUT = state.labels("before_self_attention.cut_", "source", "target")
C_SHAPES = state.labels("before_self_attention.q_shape_", "3x8", "6x8", "3x6", "8x3")  # C = A'V: [T_target, d_v]

TOKEN = dict(on="bottleneck", help="before_self_attention.d_token_help")


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    source = state.text(
        "ed_src", "before_self_attention.source_label", SOURCE_DEFAULT, help="before_self_attention.source_help"
    )
    target = state.text(
        "ed_tgt", "before_self_attention.target_label", TARGET_DEFAULT, help="before_self_attention.target_help"
    )
    seed = state.seed("ed_seed")
    d = state.select_slider(
        "ed_d", "before_self_attention.d_label", D_CHOICES, 8, on="bottleneck", help="before_self_attention.d_help"
    )
    d_token = state.select_slider("ed_dtok", "before_self_attention.d_token_label", D_TOKEN_CHOICES, 2, **TOKEN)
    t_max = state.select_slider("ed_tmax", "before_self_attention.t_max_label", T_MAX_CHOICES, 24, on="bottleneck")
    same = state.toggle(
        "ed_same", "before_self_attention.same_label", False, on="shapes", help="before_self_attention.same_help"
    )


C = Controls
PRESET_OF = {"article": "machine_learning", "reordered": "read_at_home", "reversed": "good_morning"}
PRESET_OF |= {"uneven": "thank_you", "yesterday": "ate_yesterday"}  # the articles' pair first
NAMES = state.labels("before_self_attention.preset_", "article", "reordered", "reversed", "uneven", "yesterday")
PRESETS = tuple(
    state.Preset(NAMES[name], {C.source: EXAMPLE_PAIRS[pair][0], C.target: EXAMPLE_PAIRS[pair][1]})
    for name, pair in PRESET_OF.items()
)
PAGE = page.Page("before_self_attention", Controls, presets=PRESETS)
SHAPE_CHECK, CEILING_CHECK = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives."""

    source: str  # the English sentence as typed
    target: str  # its Chinese translation as typed
    seed: int  # the training run of the layer


def settings() -> Settings:
    with st.container(horizontal=True):
        source, target = C.source.draw(), C.target.draw()
    seed = C.seed.draw()
    pair = cached(typed_pair, source, target)
    for side in pair.replaced:
        st.info(EMPTY.text(side), icon=":material/info:")
    for side, total, shown in (
        ("source", pair.source_total, len(pair.source)),
        ("target", pair.target_total, len(pair.target)),
    ):
        if total > shown:
            st.caption(CUT.text(side, total=total, shown=shown))
    return Settings(source, target, seed)


def show(fig, **kwargs) -> None:
    """widgets.show_figure, in lecture mode no taller than what this page's first screen leaves
    the figure (figures.shorter also thins a map's row labels to what that height holds)."""
    widgets.show_figure(cached(figures.shorter, fig, figures.LECTURE_PX) if is_lecture() else fig, **kwargs)


def numbers(p: page.Parts, file: str, build, *args, box: str = "table", label: str | None = None, **show) -> None:
    """The numbers behind a figure, folded (built only while open), as a table and its CSV `file`.csv."""
    label = t("before_self_attention.numbers") if label is None else label
    p.table(label, build, *args, box=box, key=f"{p.box_key}_{box}_t", filename=f"{file}.csv", **show)


@PAGE.step("maps")
def maps_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("before_self_attention.maps_body"))
    view = cached(encoder_decoder_view, cached(typed_pair, s.source, s.target), s.seed)
    pair = view.pair
    with p.figure:
        cross, self_ = st.columns(2)
        with cross:
            alt = t("before_self_attention.cross_alt", target=" ".join(pair.target), source=" ".join(pair.source))
            show(cached(figures.cross_map, view, lang), key="ed_cross", alt=alt)
        with self_:
            show(
                cached(figures.self_map, view, lang, is_lecture()),
                key="ed_self",
                alt=t("before_self_attention.self_alt"),
            )
    with p.reading:
        st.markdown(figures.maps_reading(view, lang))
        st.caption(t("before_self_attention.split_rule", words=literal(" / ".join(pair.target))))
        if not (pair.known_source.all() and pair.known_target.all()):
            st.warning(t("before_self_attention.unknown_words", words=WORDS), icon=":material/help:")
        widgets.show_table(
            cached(figures.cross_table, view, lang),
            key="ed_cross_table",
            filename="cross_attention.csv",
            caption=t("before_self_attention.cross_table_caption"),
        )
    numbers(p, "self_attention", figures.self_table, view, lang)
    with p.code:
        if box := page.numbers_box("ed_learned", t("before_self_attention.how_learned"), ":material/school:"):
            with box:
                model = cached(trained_model, s.seed)
                st.markdown(figures.how_learned(model, s.seed, lang))
                show(
                    cached(figures.training_curve, model, lang), key="ed_loss", alt=t("before_self_attention.loss_alt")
                )
                widgets.show_table(
                    cached(figures.loss_table, model, lang), key="ed_loss_table", filename="training_loss.csv"
                )


@PAGE.step("bottleneck")
def bottleneck_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("before_self_attention.bottleneck_body"))
    with p.controls, page.section_controls():
        d, d_token, t_max = C.d.draw(), C.d_token.draw(), C.t_max.draw()
    curves = cached(bottleneck_curves, t_max, d, None, d_token)
    sentence_length = len(cached(typed_pair, s.source, s.target).source)
    with p.figure:
        alt = figures.bottleneck_alt(curves, lang)
        show(cached(figures.bottleneck_figure, curves, sentence_length, lang), key="ed_bottleneck", alt=alt)
    with p.reading:
        st.markdown(figures.bottleneck_reading(curves, sentence_length, d, d_token, lang))
        st.info(t("before_self_attention.bn_set_not_learned", gap=f"{curves.score_gap:g}"), icon=":material/tune:")
        show(
            cached(figures.by_position_figure, curves, lang),
            key="ed_positions",
            alt=t("before_self_attention.pos_alt", T=t_max),
        )
    caption = t("before_self_attention.bn_table_caption", n_fit=curves.n_fit, n_test=curves.n_test)
    numbers(p, "bottleneck", figures.bottleneck_table, curves, lang, caption=caption)
    label = t("before_self_attention.pos_numbers")
    numbers(p, "bottleneck_by_position", figures.by_position_table, curves, lang, box="positions", label=label)
    p.formula(figures.BN_LATEX, fixed_context, per_step_contexts, held_out_r2)


@PAGE.step("shapes")
def shapes_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("before_self_attention.shapes_body"))
    with p.controls:
        same = C.same.draw()
    view = cached(encoder_decoder_view, cached(typed_pair, s.source, s.target), s.seed)
    pair = view.pair
    with p.figure:
        rows = len(pair.source) if same else len(pair.target)
        show(
            cached(figures.shapes_figure, view, same, lang),
            key="ed_shapes",
            alt=t("before_self_attention.shapes_alt", rows=rows, cols=len(pair.source)),
        )
    with p.reading:
        widgets.show_table(
            cached(figures.shapes_table, view, same, lang), key="ed_shapes_table", filename="shapes.csv", decimals=None
        )
    p.formula(figures.SHAPES_LATEX, cross_attention)


@PAGE.step("outputs")
def outputs_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("before_self_attention.outputs_body"))
    kinds = cached(output_kinds, cached(typed_pair, s.source, s.target), s.seed)
    with p.figure:
        show(
            cached(figures.output_kinds_figure, kinds, lang), key="ed_kinds", alt=figures.output_kinds_alt(kinds, lang)
        )
    with p.reading:
        st.markdown(figures.output_kinds_reading(kinds, lang))
    numbers(p, "output_kinds", figures.output_kinds_table, kinds, lang)
    p.formula(figures.KINDS_LATEX, output_kinds)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    curves, at = cached(bottleneck_curves, C.t_max.default, C.d.default, None, C.d_token.default), CHECK_T - 1
    numbers = dict(d=C.d.default, d_token=C.d_token.default, T=CHECK_T)
    with p.check:
        widgets.check_choice(
            t("before_self_attention.q_shape"),
            list(C_SHAPES),
            "3x8",
            key=SHAPE_CHECK,
            format_func=C_SHAPES.text,
            explanation=t("before_self_attention.q_shape_why"),
        )
        why = t(
            "before_self_attention.q_ceiling_why",
            **numbers,
            ceiling=f"{curves.ceiling[at]:g}",
            measured=f"{curves.fixed[at]:.2f}",
        )
        widgets.check_number(
            t("before_self_attention.q_ceiling", **numbers),
            float(curves.ceiling[at]),
            key=CEILING_CHECK,
            explanation=why,
        )


if __name__ == "__main__":  # Streamlit runs the script as __main__; tests import it for its declaration
    PAGE.start().show(settings)
