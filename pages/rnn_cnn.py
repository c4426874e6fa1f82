"""Self-attention, RNN and CNN side by side: who each output can see, how far the first input still
reaches the last output, steps that must wait for each other (and the clock on this server), the
cost per layer with Table 1 of "Attention Is All You Need", a picture as a sequence of patches,
and what cutting a photo into patches costs.

Steps (rc_step): see, long_range, parallel, cost, images, patches, check. Every control belongs to
one step (the steps compare different things at different sizes), so the page has no page-level
settings; its presets set several steps at once.
"""

import time
from dataclasses import dataclass

import streamlit as st

from attention_core.patches import patch_choices, patch_count, picture_view
from attention_core.sequence_costs import complexity_table, cost_axis, cost_curves, layer_costs, time_rnn_vs_attention
from attention_core.sequence_models import (
    attention_input_jacobian,
    compare_visibility,
    long_range_influence,
    rnn_influence_on_last,
)
from lab_ui import page, state, widgets
from lab_ui.cache import cached, lookup
from lab_ui.figures import rnn_cnn as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

KERNELS = (1, 3, 5, 7, 9, 11, 15)
RADII, LONG_D, LONG_T = (0.5, 0.9, 1.0, 1.5, 3.0), (1, 2, 4, 8, 16, 32), (8, 16, 32, 64, 128, 256, 512)
TIMED_D, TIMED_T = (64, 256), (256, 1024, 2048)
SHARPNESS = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
VIEWS = state.labels("rnn_cnn.lr_view_", "relative", "absolute")
CHECK_KINDS = state.labels("rnn_cnn.kind_", "self_attention", "rnn", "truncated")
ASKED = "_rc_asked"  # set by the measure button's click: (d, longest T)
MEASURED = "_rc_measured"  # {(d, longest T): the measurement's seed}: plain numbers; the cache holds the timing
# The checks' own numbers: speech (10 s at 100 vectors a second) and ViT-Base/16's photo.
SPEECH_T, SPEECH_D, SPEECH_R = 1000, 256, 7
PHOTO, PHOTO_PATCH = 224, 16


class Controls(state.Table):
    """Every control of the page, by step: its link parameter (as before the stepper), default and range."""

    T = state.slider("rc_T", "rnn_cnn.T_label", 1, 64, 8, on="see", help="rnn_cnn.T_help")
    k = state.select_slider("rc_k", "rnn_cnn.k_label", KERNELS, 3, on="see", help="rnn_cnn.k_help")
    layers = state.slider("rc_layers", "rnn_cnn.layers_label", 1, 8, 1, on="see", help="rnn_cnn.layers_help")
    radius = state.select_slider(
        "rc_radius", "rnn_cnn.radius_label", RADII, 0.9, on="long_range", help="rnn_cnn.radius_help"
    )
    lr_d = state.select_slider("rc_lrd", "rnn_cnn.lr_d_label", LONG_D, 16, on="long_range")
    lr_T = state.select_slider("rc_lrT", "rnn_cnn.lr_T_label", LONG_T, 512, on="long_range")
    view = state.choice("rc_lrview", "rnn_cnn.lr_view_label", VIEWS, on="long_range")
    time_d = state.select_slider("rc_td", "rnn_cnn.time_d_label", TIMED_D, 256, on="parallel")
    time_T = state.select_slider("rc_tT", "rnn_cnn.time_T_label", TIMED_T, 1024, on="parallel")
    n = state.number("rc_n", "rnn_cnn.n_label", 1, 1_000_000, 100, step=1, on="cost")
    d = state.number("rc_d", "rnn_cnn.d_label", 1, 100_000, 512, step=1, on="cost")
    ck = state.number("rc_ck", "rnn_cnn.ck_label", 2, 1000, 3, step=1, on="cost")
    r = state.number("rc_r", "rnn_cnn.r_label", 1, 1_000_000, 3, step=1, on="cost", help="rnn_cnn.r_help")
    patch = state.select_slider("rc_patch", "rnn_cnn.patch_label", patch_choices(48, 48), 8, on="images")
    spot = state.selectbox("rc_spot", "rnn_cnn.spot_label", figures.SPOTS, "grass", on="images")
    beta = state.select_slider("rc_beta", "rnn_cnn.beta_label", SHARPNESS, 10.0, on="images", help="rnn_cnn.beta_help")
    ik = state.select_slider("rc_ik", "rnn_cnn.ik_label", KERNELS[1:], 3, on="images")
    il = state.slider("rc_il", "rnn_cnn.il_label", 1, 6, 1, on="images")
    height = state.number("rc_ih", "rnn_cnn.vit_h_label", 16, 4096, PHOTO, step=1, on="patches")
    width = state.number("rc_iw", "rnn_cnn.vit_w_label", 16, 4096, PHOTO, step=1, on="patches")
    side = state.number(
        "rc_ip", "rnn_cnn.vit_p_label", 1, 4096, PHOTO_PATCH, step=1, on="patches", help="rnn_cnn.vit_p_help"
    )


C = Controls
PRESETS = (
    state.Preset("rnn_cnn.preset_article", {C.T: 4, C.k: 3, C.layers: 1}),
    state.Preset("rnn_cnn.preset_speech", {C.T: 32, C.k: 7, C.layers: 1, C.n: 1000, C.d: 256, C.r: 7}),
    state.Preset("rnn_cnn.preset_sentence", {C.n: 50, C.d: 512, C.ck: 3, C.r: 3}),
    state.Preset("rnn_cnn.preset_explode", {C.radius: 3.0, C.view: "absolute"}),
    state.Preset("rnn_cnn.preset_image", {C.patch: 8, C.spot: "sky", C.ik: 3, C.il: 1}),
    state.Preset("rnn_cnn.preset_photo", {C.height: 1024, C.width: 1024, C.side: 16}),
)
PAGE = page.Page("rnn_cnn", Controls, presets=PRESETS)
CHEAPER_CHECK, PRODUCTS_CHECK = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The page-level values: none (every control belongs to its step)."""


def settings() -> Settings:
    st.caption(t("rnn_cnn.no_settings"))
    return Settings()


def show(fig, key: str, alt: str, **more) -> None:
    """A step's figure, placed by lab_ui.layout; on a projector no taller than its first screen."""
    widgets.show_figure(fig, key=key, alt=alt, lecture_px=figures.LECTURE_PX, **more)


def numbers(p: page.Parts, step: str, build, *args, caption: str) -> None:
    """The numbers behind a step's figure, folded (keys, files and formats: figures.TABLES)."""
    p.table(t("rnn_cnn.numbers"), build, *args, caption=caption, **figures.TABLES[step])


def powers_of_two(first: int, last: int) -> tuple[int, ...]:
    return tuple(2**e for e in range(first.bit_length() - 1, last.bit_length()))


@PAGE.step("see")
def see_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rnn_cnn.see_body"))
    with p.controls, page.section_controls():
        T, k, layers = C.T.draw(), C.k.draw(), C.layers.draw()
    comp, lang = cached(compare_visibility, T, k, layers), current_lang()
    per_row = 5 if is_lecture() else 3  # a projector is wide; a phone is not
    with p.figure:
        fig = cached(figures.visibility_figure, comp, lang, per_row)
        show(fig, "rc_see", t("rnn_cnn.see_alt", T=T, k=k, r=comp.r), numbers_on_phones=False)
    with p.reading:
        st.markdown(figures.see_reading(comp, lang))
    numbers(p, "see", figures.visibility_table, comp, lang, caption=t("rnn_cnn.see_table_caption"))


@PAGE.step("long_range")
def long_range_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rnn_cnn.long_body"))
    with p.controls, page.section_controls():
        radius, d, T_max, view = C.radius.draw(), C.lr_d.draw(), C.lr_T.draw(), C.view.draw()
    relative, lang = view == "relative", current_lang()
    with st.spinner(t("rnn_cnn.computing")):
        curves = cached(long_range_influence, powers_of_two(1, T_max), d, 0, radius)
    with p.figure:
        fig = cached(figures.long_range_figure, curves, relative, lang, is_lecture())  # wide on a projector
        show(fig, "rc_long", t("rnn_cnn.lr_alt_relative" if relative else "rnn_cnn.lr_alt_absolute", T=T_max))
    with p.reading:
        st.markdown(figures.long_range_reading(curves, relative, lang))
        st.caption(t("rnn_cnn.lr_layers_note"))
    caption = t("rnn_cnn.lr_table_caption", trials=curves.n_trials)
    numbers(p, "long_range", figures.long_range_table, curves, lang, caption=caption)
    p.formula(figures.LONG_RANGE_TEX, rnn_influence_on_last, attention_input_jacobian)
    with p.code:
        st.caption(t("rnn_cnn.lr_code_caption"))


@PAGE.step("parallel")
def parallel_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rnn_cnn.parallel_body"))
    with p.controls, page.section_controls():
        d, T_max = C.time_d.draw(), C.time_T.draw()
    T_values, lang = powers_of_two(16, T_max), current_lang()
    with p.figure if is_lecture() else p.controls:  # a projector: the button above the figure it fills
        ask = dict(on_click=st.session_state.__setitem__, args=(ASKED, (d, T_max)))  # plain: the click's settings
        st.button(t("rnn_cnn.measure"), key="rc_measure", icon=":material/timer:", type="primary", **ask)
    measured = st.session_state.get(MEASURED, {})
    if st.session_state.pop(ASKED, None) == (d, T_max):  # the clock runs now, never on a rerun; a new seed, a new run
        measured = st.session_state[MEASURED] = {**measured, (d, T_max): time.time_ns() // 1_000_000 % state.SEED_MAX}
        with st.spinner(t("rnn_cnn.measuring")):
            timing = cached(time_rnn_vs_attention, T_values, d, seed=measured[(d, T_max)])
    elif (d, T_max) in measured:
        timing = lookup(time_rnn_vs_attention, T_values, d, seed=measured[(d, T_max)])[1]  # None if evicted
    else:
        timing = None
    with p.figure:
        show(cached(figures.parallel_figure, T_values, timing, lang), "rc_parallel", t("rnn_cnn.par_alt", T=T_max))
    with p.reading:
        if timing is not None:
            st.markdown(figures.timing_reading(timing, lang))
        st.info(figures.timing_callout(timing, d, lang), icon=":material/memory:")
        with st.container(border=True):
            st.markdown(f"**{t('rnn_cnn.mistake_title')}**\n\n{t('rnn_cnn.mistake_layers')}")
    caption = t("rnn_cnn.par_table_caption")
    numbers(p, "parallel", figures.parallel_table, T_values, timing, lang, caption=caption)


@PAGE.step("cost")
def cost_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rnn_cnn.cost_body"))
    with p.controls, page.section_controls():
        T, d, k, r = C.n.draw(), C.d.draw(), C.ck.draw(), C.r.draw()
    costs, lang = cached(layer_costs, T, d, k, r), current_lang()
    curves = cached(cost_curves, cached(cost_axis, T, d), d, k, r)
    with p.figure:
        show(cached(figures.cost_figure, curves, T, lang, is_lecture()), "rc_cost", t("rnn_cnn.cost_alt", d=d, T=T))
    with p.reading:
        st.markdown(figures.cost_reading(costs, lang))
        st.markdown(t("rnn_cnn.t1_intro"))
        widgets.show_table(
            cached(figures.complexity_frame, cached(complexity_table, T, d, k, r), lang),
            key="rc_table1",
            filename="table_1.csv",
            decimals=None,
            number_format="localized",
            caption=t("rnn_cnn.t1_caption", T=f"{T:,}", d=f"{d:,}", k=k, r=costs.r),
        )
    numbers(p, "cost", figures.cost_table, curves, lang, caption=t("rnn_cnn.cost_table_caption", d=f"{d:,}"))
    p.formula(figures.cost_tex(lang), layer_costs)


@PAGE.step("images")
def images_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rnn_cnn.images_body"))
    with p.controls, page.section_controls():
        patch, spot, beta, k, layers = C.patch.draw(), C.spot.draw(), C.beta.draw(), C.ik.draw(), C.il.draw()
    view, lang = cached(picture_view, patch, spot, beta, k, layers, True), current_lang()
    with p.figure:
        alt = t("rnn_cnn.img_alt", spot=figures.SPOTS.text(spot), outside=f"{view.weight_outside_field:.2f}")
        show(cached(figures.picture_figure, view, lang), "rc_picture", alt)
    with p.reading:
        st.markdown(figures.picture_reading(view, spot, lang))
    numbers(p, "images", figures.picture_table, view, lang, caption=t("rnn_cnn.img_table_caption"))


@PAGE.step("patches")
def patches_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rnn_cnn.vit_body"))
    with p.controls, page.section_controls():
        H, W, side = C.height.draw(), C.width.draw(), C.side.draw()
    lang = current_lang()
    if side > min(H, W):
        with p.reading:
            st.warning(t("rnn_cnn.vit_too_big", p=side, H=H, W=W, most=min(H, W)), icon=":material/crop:")
        return
    count = cached(patch_count, H, W, side)
    with p.figure:
        alt = t("rnn_cnn.vit_alt", H=H, W=W, p=side, pairs=f"{count.pairs:,}")
        show(cached(figures.patch_count_figure, count, lang), "rc_patches", alt)
    with p.reading:
        if notice := figures.patch_fit_notice(count, lang):
            st.warning(notice, icon=":material/crop:")
        for column, metric in zip(st.columns(3), figures.patch_count_metrics(count, lang), strict=True):
            column.metric(**metric)
        st.markdown(figures.patch_count_reading(count, lang))
    numbers(p, "patches", figures.patch_count_table, count, lang, caption=t("rnn_cnn.vit_table_caption", H=H, W=W))
    p.formula(figures.PATCH_TEX, patch_count)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    speech = cached(layer_costs, SPEECH_T, SPEECH_D, 3, SPEECH_R)
    photo = cached(patch_count, PHOTO, PHOTO, PHOTO_PATCH)
    with p.check:
        widgets.check_choice(
            t("rnn_cnn.q_cheaper", T=f"{SPEECH_T:,}", d=SPEECH_D, r=SPEECH_R),
            list(CHECK_KINDS),
            "truncated",
            key=CHEAPER_CHECK,
            format_func=CHECK_KINDS.text,
            explanation=figures.cheaper_check_words(speech),
        )
        widgets.check_number(
            t("rnn_cnn.q_products", H=PHOTO, p=PHOTO_PATCH),
            float(photo.pairs),
            key=PRODUCTS_CHECK,
            explanation=figures.products_check_words(photo),
        )


if __name__ == "__main__":
    PAGE.start().show(settings)
