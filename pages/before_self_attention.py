"""From attention to self-attention: an encoder-decoder's cross-attention (each Chinese word of a
translation asks the English sentence) beside self-attention (Target = Source), the fixed-context
bottleneck that attention removed, measured, and the shapes of Q from one sequence, K and V from
the other."""

import streamlit as st

from attention_core.bottleneck import bottleneck_curves, fixed_context, held_out_r2, per_step_contexts
from attention_core.encoder_decoder import (
    EXAMPLE_PAIRS,
    LEXICON,
    cross_attention,
    encoder_decoder_view,
    trained_model,
    typed_pair,
)
from lab_ui import controls, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import before_self_attention as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

NS = "before_self_attention"
P = f"{NS}."
PRESET_OF = {
    "article": "machine_learning",
    "reordered": "read_at_home",
    "reversed": "good_morning",
    "uneven": "thank_you",
    "yesterday": "ate_yesterday",
}
PRESETS = {preset: {"ed_src": EXAMPLE_PAIRS[e][0], "ed_tgt": EXAMPLE_PAIRS[e][1]} for preset, e in PRESET_OF.items()}
SOURCE_DEFAULT, TARGET_DEFAULT = EXAMPLE_PAIRS["machine_learning"]
WORDS = ", ".join(f"{'I' if en == 'i' else en} {zh}" for en, zh in LEXICON)
D_CHOICES, D_TOKEN_CHOICES, T_MAX_CHOICES = (1, 2, 4, 8, 16), (1, 2, 4, 8), (4, 8, 16, 24, 32, 48, 64)
D_DEFAULT, D_TOKEN_DEFAULT, T_MAX_DEFAULT = 8, 2, 24
CHECK_T = 16  # the check asks about the bottleneck chart as it opens, at this length

frame = page.start(NS, presets=PRESETS)
lang = current_lang()
with frame.controls():
    left, right, seed_box = st.columns([5, 5, 2])
    with left:
        source_text = controls.text_input(
            t(P + "source_label"), SOURCE_DEFAULT, key="ed_src", help=t(P + "source_help")
        )
    with right:
        target_text = controls.text_input(
            t(P + "target_label"), TARGET_DEFAULT, key="ed_tgt", help=t(P + "target_help")
        )
    with seed_box:
        seed = widgets.seed_input(key="ed_seed")
    pair = cached(typed_pair, source_text, target_text)
    for side in pair.replaced:
        st.info(t(P + f"empty_{side}"), icon=":material/info:")
    for side, total, shown in (
        ("source", pair.source_total, len(pair.source)),
        ("target", pair.target_total, len(pair.target)),
    ):
        if total > shown:
            st.caption(t(P + f"cut_{side}", total=total, shown=shown))
view = cached(encoder_decoder_view, pair, seed)


def _show(fig, **kwargs) -> None:
    """widgets.show_figure, in lecture mode no taller than what this page's first screen leaves
    the figure (three popovers in its title row take two lines)."""
    widgets.show_figure(cached(figures.shorter, fig, figures.LECTURE_PX) if is_lecture() else fig, **kwargs)


def maps_section(view, seed: int) -> None:
    pair = view.pair
    frame.heading("maps")
    page.prose(t(P + "maps_body"))
    cross, self_ = st.columns(2)
    with cross:
        _show(
            cached(figures.cross_map, view, lang),
            key="ed_cross",
            alt=t(P + "cross_alt", target=" ".join(pair.target), source=" ".join(pair.source)),
        )
    with self_:
        _show(cached(figures.self_map, view, lang, is_lecture()), key="ed_self", alt=t(P + "self_alt"))
    agreement = "some" if view.any_aligned else "none"  # none: no word's translation is in the source
    st.markdown(
        t(
            P + "maps_reading",
            read=" ".join(view.predicted),
            kind=t(P + f"kind_{view.weights_kind}"),
            agreement=t(P + f"agreement_{agreement}", share=f"{100 * view.agreement:.0f} %"),
        )
    )
    if not (pair.known_source.all() and pair.known_target.all()):
        st.warning(t(P + "unknown_words", words=WORDS), icon=":material/help:")
    widgets.show_table(
        cached(figures.cross_table, view, lang),
        key="ed_cross_table",
        filename="cross_attention.csv",
        caption=t(P + "cross_table_caption"),
    )
    if box := page.numbers_box("ed_self_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.self_table, view, lang), key="ed_self_table", filename="self_attention.csv"
            )
    box = st.expander(t(P + "how_learned"), icon=":material/school:", on_change="rerun", key="ed_learned")
    if box.open:
        with box:
            model = cached(trained_model, seed)
            st.markdown(
                t(
                    P + "how_learned_body",
                    first=f"{model.losses[0]:.2f}",
                    last=f"{model.losses[-1]:.4f}",
                    accuracy=f"{100 * model.accuracy:.0f} %",
                    seed=seed,
                )
            )
            _show(cached(figures.training_curve, model, lang), key="ed_loss", alt=t(P + "loss_alt"))
            widgets.show_table(
                cached(figures.loss_table, model, lang), key="ed_loss_table", filename="training_loss.csv"
            )


@st.fragment
def bottleneck_section(sentence_length: int) -> None:
    frame.heading("bottleneck")
    page.prose(t(P + "bottleneck_body"))
    controls_box, figure_box = page.parts(2)
    with controls_box, page.section_controls():
        d = controls.select_slider(t(P + "d_label"), D_CHOICES, D_DEFAULT, key="ed_d", help=t(P + "d_help"))
        d_token = controls.select_slider(
            t(P + "d_token_label"), D_TOKEN_CHOICES, D_TOKEN_DEFAULT, key="ed_dtok", help=t(P + "d_token_help")
        )
        t_max = controls.select_slider(t(P + "t_max_label"), T_MAX_CHOICES, T_MAX_DEFAULT, key="ed_tmax")
    curves = cached(bottleneck_curves, t_max, d, None, d_token)
    with figure_box:
        _show(
            cached(figures.bottleneck_figure, curves, sentence_length, lang),
            key="ed_bottleneck",
            alt=t(P + "bn_alt", T=t_max, fixed=f"{curves.fixed[-1]:.2f}", per_step=f"{curves.per_step[-1]:.2f}"),
        )
    at = min(sentence_length, t_max) - 1
    # While C has room for every source number (ceiling 1), a ceiling of "1.00" would say nothing.
    reading = "bn_reading" if curves.ceiling[at] < 1 else "bn_reading_room"
    st.markdown(
        t(
            P + reading,
            T=at + 1,
            fixed=f"{curves.fixed[at]:.2f}",
            per_step=f"{curves.per_step[at]:.2f}",
            ceiling=f"{curves.ceiling[at]:.2f}",
            aligned=f"{curves.aligned_weight[at]:.3f}",
            d=d,
            d_token=d_token,
            total=(at + 1) * d_token,
            room=d // d_token,
        )
    )
    st.info(t(P + "bn_set_not_learned", gap=f"{curves.score_gap:g}"), icon=":material/tune:")
    _show(cached(figures.by_position_figure, curves, lang), key="ed_positions", alt=t(P + "pos_alt", T=t_max))
    if box := page.numbers_box("ed_bn_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.bottleneck_table, curves, lang),
                key="ed_bn_table",
                filename="bottleneck.csv",
                caption=t(P + "bn_table_caption", n_fit=curves.n_fit, n_test=curves.n_test),
            )
            widgets.show_table(
                cached(figures.by_position_table, curves, lang),
                key="ed_pos_table",
                filename="bottleneck_by_position.csv",
                caption=t(P + "pos_title", T=t_max),
            )
    widgets.formula_and_code(
        r"\begin{aligned} C &= h_T \\ C_i &= \textstyle\sum_j \alpha_{ij} h_j,\quad"
        r" \alpha_{ii} = \dfrac{e^{g}}{e^{g} + T - 1} \\ R^2 &= 1 - \frac{\sum (y - \hat y)^2}{\sum (y - \bar y)^2}"
        r"\end{aligned}",
        fixed_context,
        per_step_contexts,
        held_out_r2,
    )


@st.fragment
def shapes_section(view) -> None:
    pair = view.pair
    frame.heading("shapes")
    page.prose(t(P + "shapes_body"))
    controls_box, figure_box = page.parts(2)
    with controls_box:
        same = controls.toggle(t(P + "same_label"), False, key="ed_same", help=t(P + "same_help"))
    with figure_box:
        rows = len(pair.source) if same else len(pair.target)
        _show(
            cached(figures.shapes_figure, view, same, lang),
            key="ed_shapes",
            alt=t(P + "shapes_alt", rows=rows, cols=len(pair.source)),
        )
    widgets.show_table(
        cached(figures.shapes_table, view, same, lang), key="ed_shapes_table", filename="shapes.csv", decimals=None
    )
    widgets.formula_and_code(
        r"\begin{aligned} Q &= X_{\text{target}} W_q \\ K &= X_{\text{source}} W_k,\quad V = X_{\text{source}} W_v \\"
        r" A' &= \operatorname{softmax}\!\Big(\frac{Q K^\top}{\sqrt{d_k}}\Big) \in \mathbb{R}^{T_{\text{target}}"
        r" \times T_{\text{source}}} \\ C &= A' V \end{aligned}",
        cross_attention,
    )


@st.fragment
def check_section() -> None:
    frame.heading("check")
    widgets.check_choice(
        t(P + "q_shape"),
        ["3x6", "6x3", "6x6", "3x3"],
        "3x6",
        key="ed_check_shape",
        format_func=_shape,
        explanation=t(P + "q_shape_why"),
    )
    curves, at = cached(bottleneck_curves, T_MAX_DEFAULT, D_DEFAULT, None, D_TOKEN_DEFAULT), CHECK_T - 1
    numbers = dict(d=D_DEFAULT, d_token=D_TOKEN_DEFAULT, T=CHECK_T)
    widgets.check_number(
        t(P + "q_ceiling", **numbers),
        float(curves.ceiling[at]),
        key="ed_check_ceiling",
        explanation=t(
            P + "q_ceiling_why", **numbers, ceiling=f"{curves.ceiling[at]:g}", measured=f"{curves.fixed[at]:.2f}"
        ),
    )


def _shape(option: str) -> str:
    return "[" + option.replace("x", ", ") + "]"


if frame.shows("maps"):
    maps_section(view, seed)
if frame.shows("bottleneck"):
    bottleneck_section(len(pair.source))
if frame.shows("shapes"):
    shapes_section(view)
if frame.shows("check"):
    check_section()

frame.end()
