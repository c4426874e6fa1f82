"""Self-attention, RNN and CNN side by side: who each output can see, how far the first input still
reaches the last output, steps that must wait for each other (and the clock on this server), the
cost per layer with Table 1 of "Attention Is All You Need", and a picture as a sequence of patches."""

import streamlit as st

from attention_core.patches import LANDMARKS, patch_choices, picture_view
from attention_core.sequence_costs import complexity_table, cost_axis, cost_curves, layer_costs, time_rnn_vs_attention
from attention_core.sequence_models import (
    attention_input_jacobian,
    compare_visibility,
    long_range_influence,
    rnn_influence_on_last,
)
from lab_ui import controls, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import rnn_cnn as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

NS = "rnn_cnn"
P = f"{NS}."
LECTURE_PX = figures.LECTURE_PX  # the height a figure gets on a 1280 x 720 projector (lecture mode)
PRESETS = {
    "article": {"rc_T": 4, "rc_k": 3, "rc_layers": 1},
    "speech": {"rc_T": 32, "rc_k": 7, "rc_layers": 1, "rc_n": 1000, "rc_d": 256, "rc_r": 7},
    "sentence": {"rc_n": 50, "rc_d": 512, "rc_k": 3, "rc_r": 3},
    "explode": {"rc_radius": 3.0, "rc_lrview": "absolute"},
    "image": {"rc_patch": 8, "rc_spot": "sky", "rc_ik": 3, "rc_il": 1},
}
KERNELS = (1, 3, 5, 7, 9, 11, 15)
RADII, LONG_D, LONG_T = (0.5, 0.9, 1.0, 1.5, 3.0), (1, 2, 4, 8, 16, 32), (8, 16, 32, 64, 128, 256, 512)
TIMED_D, TIMED_T = (64, 256), (256, 1024, 2048)
SHARPNESS = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)

frame = page.start(NS, presets=PRESETS)
lang = current_lang()


def _powers_of_two(first: int, last: int) -> tuple[int, ...]:
    return tuple(2**e for e in range(first.bit_length() - 1, last.bit_length()))


@st.fragment
def see_section() -> None:
    frame.heading("see")
    page.prose(t(P + "see_body"))
    controls_box, figure_box = page.parts(2)
    with controls_box, page.section_controls():
        T = controls.slider(t(P + "T_label"), 1, 64, 8, key="rc_T", help=t(P + "T_help"))
        k = controls.select_slider(t(P + "k_label"), KERNELS, 3, key="rc_k", help=t(P + "k_help"))
        layers = controls.slider(t(P + "layers_label"), 1, 8, 1, key="rc_layers", help=t(P + "layers_help"))
    comp = cached(compare_visibility, T, k, layers)
    with figure_box:
        per_row = 5 if is_lecture() else 3  # a projector is wide; a phone is not
        widgets.show_figure(
            cached(figures.visibility_figure, comp, lang, per_row),
            key="rc_see",
            lecture_px=LECTURE_PX,
            numbers_on_phones=False,
            alt=t(P + "see_alt", T=T, k=k, r=comp.r),
        )
    st.markdown(
        t(
            P + "see_reading",
            T=T,
            k=k,
            r=comp.r,
            window=comp.window,
            layers=layers,
            cnn_seen=int(comp.seen[2, T // 2]),
            rnn_steps=int(comp.steps[0, T - 1, 0]),
        )
    )
    if box := page.numbers_box("rc_see_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.visibility_table, comp, lang),
                key="rc_see_table",
                decimals=0,
                filename="who_sees_whom.csv",
                missing="—",
                caption=t(P + "see_table_caption"),
            )


@st.fragment
def long_range_section() -> None:
    frame.heading("long_range")
    page.prose(t(P + "long_body"))
    controls_box, figure_box = page.parts(2)
    with controls_box, page.section_controls():
        radius = controls.select_slider(t(P + "radius_label"), RADII, 0.9, key="rc_radius", help=t(P + "radius_help"))
        d = controls.select_slider(t(P + "lr_d_label"), LONG_D, 16, key="rc_lrd")
        T_max = controls.select_slider(t(P + "lr_T_label"), LONG_T, 512, key="rc_lrT")
        view = controls.segmented(
            t(P + "lr_view_label"),
            ("relative", "absolute"),
            key="rc_lrview",
            format_func=lambda v: t(P + f"lr_view_{v}"),
        )
    with st.spinner(t(P + "computing")):
        curves = cached(long_range_influence, _powers_of_two(1, T_max), d, 0, radius)
    with figure_box:
        fig = cached(figures.long_range_figure, curves, view == "relative", lang, is_lecture())  # wide on a projector
        widgets.show_figure(fig, key="rc_long", lecture_px=LECTURE_PX, alt=t(P + f"lr_alt_{view}", T=T_max))
    st.markdown(figures.long_range_reading(curves, view == "relative", lang))
    if box := page.numbers_box("rc_long_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.long_range_table, curves, lang),
                key="rc_long_table",
                filename="long_range.csv",
                decimals=None,
                number_format="%.3e",
                caption=t(P + "lr_table_caption", trials=curves.n_trials),
            )
    widgets.formula_and_code(
        r"\begin{aligned} \frac{\partial h_T}{\partial a_1} &= D_T W_{hh}^\top \cdots D_2 W_{hh}^\top \\"
        r" &\quad \cdot D_1 W_{xh}^\top \\"
        r" D_t &= \mathrm{diag}(1 - h_t^2) \\[6pt]"
        r" \frac{\partial b_T}{\partial a_1} &= \alpha_{T1} \big(W_v^\top \\"
        r" &\quad + c\,(v_1 - b_T)(q_T W_k^\top)^\top\big) \end{aligned}",
        rnn_influence_on_last,
        attention_input_jacobian,
    )
    st.caption(t(P + "lr_code_caption"))


@st.fragment
def parallel_section() -> None:
    frame.heading("parallel")
    page.prose(t(P + "parallel_body"))
    button_box = st.container() if is_lecture() else None  # a projector: the button above the figure it fills
    controls_box, figure_box = page.parts(2)
    with controls_box, page.section_controls():
        d = controls.select_slider(t(P + "time_d_label"), TIMED_D, 256, key="rc_td")
        T_max = controls.select_slider(t(P + "time_T_label"), TIMED_T, 1024, key="rc_tT")
    T_values = _powers_of_two(16, T_max)
    measured = st.session_state.setdefault("_rc_timings", {})  # this session's measurements, by settings
    with button_box or controls_box:
        st.button(
            t(P + "measure"),
            key="rc_measure",
            icon=":material/timer:",
            type="primary",
            on_click=st.session_state.__setitem__,
            args=("_rc_asked", (d, T_max)),
        )
    if st.session_state.pop("_rc_asked", None) == (d, T_max):  # pressed: the clock runs now, never on a rerun
        with st.spinner(t(P + "measuring")):
            measured[(d, T_max)] = cached(time_rnn_vs_attention, T_values, d, 5)
    timing = measured.get((d, T_max))
    with figure_box:
        widgets.show_figure(
            cached(figures.parallel_figure, T_values, timing, lang),
            key="rc_parallel",
            lecture_px=LECTURE_PX,
            alt=t(P + "par_alt", T=T_max),
        )
    if timing is not None:
        st.markdown(
            t(
                P + "par_reading",
                cpus=timing.cpu_count,
                when=timing.measured_at,
                d=d,
                rnn=f"{1000 * timing.rnn_seconds[-1]:.1f}",
                att=f"{1000 * timing.attention_seconds[-1]:.1f}",
                T=T_max,
            )
        )
    st.info(t(P + "par_hardware"), icon=":material/memory:")
    if box := page.numbers_box("rc_parallel_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.parallel_table, T_values, timing, lang),
                key="rc_parallel_table",
                filename="steps_and_time.csv",
                caption=t(P + "par_table_caption"),
                decimals=None,
                number_format="%g",
            )


@st.fragment
def cost_section() -> None:
    frame.heading("cost")
    page.prose(t(P + "cost_body"))
    controls_box, figure_box = page.parts(2)
    with controls_box, page.section_controls():
        T = controls.number_input(t(P + "n_label"), key="rc_n", value=100, min_value=1, max_value=1_000_000, step=1)
        d = controls.number_input(t(P + "d_label"), key="rc_d", value=512, min_value=1, max_value=100_000, step=1)
        k = controls.number_input(t(P + "ck_label"), key="rc_ck", value=3, min_value=2, max_value=1000, step=1)
        r = controls.number_input(
            t(P + "r_label"), key="rc_r", value=3, min_value=1, max_value=1_000_000, step=1, help=t(P + "r_help")
        )
    costs = cached(layer_costs, T, d, k, r)
    curves = cached(cost_curves, cached(cost_axis, T, d), d, k, r)
    with figure_box:
        widgets.show_figure(
            cached(figures.cost_figure, curves, T, lang, is_lecture()),
            key="rc_cost",
            lecture_px=LECTURE_PX,
            alt=t(P + "cost_alt", d=d, T=T),
        )
    cheaper = "attention" if costs.cheaper_than_rnn else ("equal" if d == T else "rnn")
    st.markdown(
        t(P + f"cost_reading_{cheaper}", T=f"{T:,}", d=f"{d:,}", att=f"{costs.self_attention:,}", rnn=f"{costs.rnn:,}")
    )
    if box := page.numbers_box("rc_cost_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.cost_table, curves, lang),
                key="rc_cost_table",
                filename="cost.csv",
                decimals=None,
                number_format="%.4g",
                caption=t(P + "cost_table_caption", d=f"{d:,}"),
            )
    st.markdown(t(P + "t1_intro"))
    widgets.show_table(
        cached(figures.complexity_frame, cached(complexity_table, T, d, k, r), lang),
        key="rc_table1",
        filename="table_1.csv",
        decimals=None,
        number_format="localized",
        caption=t(P + "t1_caption", T=f"{T:,}", d=f"{d:,}", k=k, r=costs.r),
    )
    names = tuple(t(P + f"kind_{kind}") for kind in ("self_attention", "rnn", "cnn", "truncated"))
    latex = r"\begin{aligned} \text{%s} &: T^2 d \\ \text{%s} &: T d^2 \\ \text{%s} &: k\,T d^2 \\ \text{%s} &: r\,T d"
    widgets.formula_and_code(latex % names + r" \end{aligned}", layer_costs)


@st.fragment
def images_section() -> None:
    frame.heading("images")
    page.prose(t(P + "images_body"))
    controls_box, figure_box = page.parts(2)
    with controls_box, page.section_controls():
        patch = controls.select_slider(t(P + "patch_label"), patch_choices(48, 48), 8, key="rc_patch")
        spot = controls.selectbox(
            t(P + "spot_label"),
            list(LANDMARKS),
            key="rc_spot",
            default="grass",
            format_func=lambda s: t(P + f"spot_{s}"),
        )
        beta = controls.select_slider(t(P + "beta_label"), SHARPNESS, 10.0, key="rc_beta", help=t(P + "beta_help"))
        k = controls.select_slider(t(P + "ik_label"), KERNELS[1:], 3, key="rc_ik")
        layers = controls.slider(t(P + "il_label"), 1, 6, 1, key="rc_il")
    view = cached(picture_view, patch, spot, beta, k, layers, True)
    with figure_box:
        widgets.show_figure(
            cached(figures.picture_figure, view, lang),
            key="rc_picture",
            lecture_px=LECTURE_PX,
            alt=t(P + "img_alt", spot=t(P + f"spot_{spot}"), outside=f"{view.weight_outside_field:.2f}"),
        )
    st.markdown(figures.picture_reading(view, spot, lang))
    if box := page.numbers_box("rc_picture_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.picture_table, view, lang),
                key="rc_picture_table",
                filename="patch_attention.csv",
                caption=t(P + "img_table_caption"),
            )


@st.fragment
def check_section() -> None:
    frame.heading("check")
    widgets.check_choice(
        t(P + "q_cheaper"),
        ["self_attention", "rnn"],
        "rnn",
        key="rc_check_cheaper",
        format_func=lambda o: t(P + f"kind_{o}"),
        explanation=t(P + "q_cheaper_why"),
    )
    widgets.check_number(t(P + "q_products"), 5_120_000, key="rc_check_products", explanation=t(P + "q_products_why"))


for name, section in (
    ("see", see_section),
    ("long_range", long_range_section),
    ("parallel", parallel_section),
    ("cost", cost_section),
    ("images", images_section),
    ("check", check_section),
):
    if frame.shows(name):
        section()

frame.end()
