"""Train a small tagger live: article 001's "I saw a saw" as numbers. Choose the model, press Train,
watch the loss and the accuracies grow, play the attention of "I saw a saw ." sharpening, tag a
sentence of your own, and compare the three taggers, positions against none, and article 003's
1/d_k against 1/sqrt(d_k). Every run is cached by its settings and shared between sessions."""

import contextlib

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attention_core.train import (
    SCALING_LEARNING_RATE,
    Config,
    compare_models,
    compare_positions,
    compare_scaling,
    fit,
    order_task,
    predict,
    saw_task,
)
from attention_core.train_views import word_ceiling
from lab_ui import controls, layout, live, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import train as figures
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture

P = "train."
LECTURE_PX = 350  # the height a figure gets on a 1280 x 720 projector (lecture mode)
MODELS, POSITIONS, SCALES = ("word", "window", "attention"), ("sinusoidal", "learned", "none"), ("sqrt", "d", "none")
D_VALUES, HEADS = (4, 8, 16, 32, 64, 128), (1, 2, 4, 8)
RATES = (0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 10, 1000)  # as the link writes them: 1000, not 1000.0
STEPS = (10, 20, 50, 100, 200, 300, 500, 1000, 2000)
SCALING_RATES = (0.001, 0.003, 0.01)
EXAMPLE = "I saw a saw ."
ARTICLE = {
    "tr_model": "attention",
    "tr_d": 16,
    "tr_heads": 2,
    "tr_pos": "sinusoidal",
    "tr_scale": "sqrt",
    "tr_lr": 0.01,
    "tr_steps": 300,
    "tr_window": 1,
    "tr_seed": 0,
}
PRESETS = {
    "article": ARTICLE,
    "no_position": {**ARTICLE, "tr_pos": "none"},
    "scale_d": {**ARTICLE, "tr_scale": "d", "tr_d": 64, "tr_heads": 1, "tr_lr": 0.001},
}

frame = page.start("train", presets=PRESETS)
lang, big = current_lang(), is_lecture()
with frame.controls(), page.section_controls():  # every section uses the model these settings train
    model = controls.segmented(
        t(P + "model"), MODELS, key="tr_model", default="attention", format_func=lambda m: t(P + f"model_{m}", w="w")
    )
    d_model = controls.select_slider(t(P + "d_model"), D_VALUES, 16, key="tr_d", help=t(P + "d_model_help"))
    heads_offered = [h for h in HEADS if d_model % h == 0]
    page.choice_keep_valid("tr_heads", heads_offered, 2)
    heads = controls.segmented(t(P + "heads"), heads_offered, key="tr_heads", default=2)
    positional = controls.segmented(
        t(P + "positional"), POSITIONS, key="tr_pos", format_func=lambda p: t(P + f"pos_{p}")
    )
    scale = controls.segmented(t(P + "scale"), SCALES, key="tr_scale", format_func=lambda s: t(P + f"scale_{s}"))
    window = controls.slider(t(P + "window"), 0, 4, 1, key="tr_window", help=t(P + "window_help"))
    lr = controls.select_slider(t(P + "lr"), RATES, 0.01, key="tr_lr")
    steps = controls.select_slider(t(P + "steps"), STEPS, 300, key="tr_steps")
    seed = widgets.seed_input(key="tr_seed")
config = Config(model=model, d_model=d_model, heads=heads, window=window, positional=positional, scale=scale)
task = cached(saw_task)
settings = (config, task, steps, float(lr), seed)


def _watch(fn, *args, name: str, label=lambda p: ""):
    """fn(*args) through lab_ui.live: a progress bar (and live curves for a training run) at most
    every 0.2 s; a click meanwhile (Stop) interrupts it, and what it had done is kept for the rerun."""
    area = st.empty()  # one place for the button, the bar and the live chart, cleared in one go at the end
    box = area.container()
    box.button(t(P + "stop"), key=f"tr_stop_{name}", icon=":material/stop_circle:")
    bar, chart = box.progress(0.0, text=t(P + "starting")), box.empty()

    drawn = []

    def draw(p) -> None:
        drawn.append(p)  # each drawing's chart gets a key of its own: two equal ones would clash
        bar.progress(
            min(p.fraction, 1.0),
            text=t(
                P + "progress",
                label=label(p),
                step=p.step,
                steps=p.steps,
                loss=f"{p.loss:.4f}",
                seconds=f"{p.seconds:.1f}",
            ),
        )
        if name == "train":
            with chart:
                st.plotly_chart(
                    layout.lecture_styled(figures.curves(p, p.steps, lang))
                    if big
                    else figures.curves(p, p.steps, lang),
                    config=widgets.plotly_config("train"),
                    key=f"tr_live_{len(drawn)}",
                )

    try:
        result = live.run(fn, *args, draw=draw, owner=_session())
    except live.Interrupted as stop:  # kept by lab_ui.live for this session: shown, marked stopped, on the rerun
        raise stop.cause from None
    area.empty()
    return result


def _result(fn, *args, name: str, asked: bool, label=lambda p: ""):
    """The finished result of fn(*args) if any session computed it, else the one trained now if
    asked, else this session's stopped one, else None."""
    hit, value = live.finished(fn, *args)
    if hit:
        return value
    if asked:
        return _watch(fn, *args, name=name, label=label)
    return live.stopped(_session(), fn, *args)


def _session() -> str:
    """This browser session's id: whose stopped run is whose."""
    return get_script_run_ctx().session_id


def _button(name: str, label: str, **kwargs) -> bool:
    """A run's button. The press is noted by its callback and taken here once: the app shell may
    rerun the script before the page is reached, which would lose a plain button's True."""
    key = "tr_train" if name == "train" else f"tr_run_{name}"
    st.button(label, key=key, on_click=st.session_state.__setitem__, args=(f"_tr_asked_{name}", True), **kwargs)
    return st.session_state.pop(f"_tr_asked_{name}", False)


def _explain(result) -> None:
    """A stopped or diverged run, said in the user's language, with what the numbers show."""
    if result.diverged:
        smaller = max((r for r in RATES if r <= result.learning_rate / 10), default=RATES[0])  # one the slider has
        st.error(
            t(
                P + f"diverged_{result.divergence}",
                at=result.diverged_at,
                lr=f"{result.learning_rate:g}",
                shown=result.steps_run,
                smaller=f"{smaller:g}",
            ),
            icon=":material/warning:",
        )
    elif result.stopped:
        st.warning(t(P + "stopped", k=result.steps_run, n=result.steps), icon=":material/stop_circle:")


def train_section(auto: bool):
    frame.heading("train")
    page.prose(t(P + "train_body"))
    hit, _ = live.finished(fit, *settings)
    asked = _button("train", t(P + "train"), type="primary", icon=":material/model_training:")
    result = _result(fit, *settings, name="train", asked=asked or auto)
    if result is None:  # a message, not empty axes, as sections 4-6 do before their runs
        st.info(t(P + "press_train", steps=steps), icon=":material/play_arrow:")
        return None
    if hit and asked:
        st.caption(t(P + "from_cache"))
    _explain(result)
    widgets.show_figure(
        cached(figures.curves, result, steps, lang),
        key="tr_curves",
        lecture_px=LECTURE_PX,
        alt=t(
            P + "curves_alt",
            amb=f"{100 * result.ambiguous_accuracy:.1f}",
            steps=result.steps_run,
            test=f"{100 * result.test_accuracy:.1f}",
            loss=f"{result.final_loss:.4f}",
        ),
    )
    st.markdown(
        t(
            P + "train_reading",
            amb=f"{100 * result.ambiguous_accuracy:.1f}",
            steps=result.steps_run,
            test=f"{100 * result.test_accuracy:.1f}",
            loss=f"{result.final_loss:.4f}",
            seconds=f"{result.seconds:.1f}",
        )
    )
    if box := page.numbers_box("tr_curves_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.curves_table, result, lang),
                key="tr_curves_table",  # rounded there
                filename="learning_curves.csv",
                decimals=None,
            )
    return result


@st.fragment
def frames_section(result) -> None:
    frame.heading("frames")
    page.prose(t(P + "frames_body"))
    if result is None or result.attention_frames.shape[2] == 0:
        st.info(t(P + ("frames_none" if result is None else "frames_no_attention")), icon=":material/info:")
        return
    n_heads = result.attention_frames.shape[2]
    controls_box, figure_box = page.parts(2)
    page.choice_keep_valid("tr_head", list(range(1, n_heads + 1)), 1)
    with controls_box:
        head = controls.segmented(t(P + "head"), list(range(1, n_heads + 1)), key="tr_head", default=1) - 1
    with figure_box:
        widgets.show_figure(
            cached(figures.frames, result, head, lang, big),
            key="tr_frames",
            lecture_px=LECTURE_PX,
            alt=t(P + "frames_alt", head=head + 1, steps=result.steps_run),
        )
    if len(result.frame_steps) > 1:  # a single snapshot has nothing to play
        st.caption(t(P + "frames_hint"))
    if box := page.numbers_box("tr_frames_numbers", t(P + "numbers")):
        with box:
            widgets.show_table(
                cached(figures.frames_table, result, head, lang), key="tr_frames_table", filename="attention_frames.csv"
            )


@st.fragment
def tag_section(result) -> None:
    frame.heading("tag")
    page.prose(t(P + "tag_body"))
    controls_box, figure_box = page.parts(2)
    with controls_box:
        st.markdown(cached(figures.tag_legend, task, lang))  # what PRON, DET, ... mean, before they are shown
        words = widgets.sentence_tokens(t(P + "text"), EXAMPLE, key="tr_text", max_tokens=task.max_len)
        with st.expander(t(P + "vocabulary_box"), icon=":material/menu_book:"):
            st.markdown(literal(" · ".join(task.vocab[2:])))
    if result is None:
        st.info(t(P + "frames_none"), icon=":material/info:")
        return
    pred = cached(predict, result.params, result.config, task, tuple(words))
    with controls_box:
        if pred.unknown:
            once = ", ".join(dict.fromkeys(pred.unknown))  # each word once, in the order typed
            st.warning(t(P + "unknown_words", words=literal(once)), icon="⚠️")
        if len(words) > 7:
            st.caption(t(P + "long_sentence", n=len(words)))
    with figure_box:
        widgets.show_figure(
            cached(figures.tags, pred, lang), key="tr_tags", lecture_px=LECTURE_PX, alt=t(P + "tags_alt", n=len(words))
        )
    widgets.show_table(
        cached(figures.tags_table, pred, lang), key="tr_tags_table", filename="tags.csv", decimals=1, missing="—"
    )


def _comparison(name: str, fn, args: tuple, ceiling: float, kind: str, at=None) -> None:
    """A comparison's Run button (in `at` if given), progress, figure, table and reading (its
    heading drawn already)."""
    with at or contextlib.nullcontext():
        asked = _button(name, t(P + f"run_{name}"), icon=":material/play_arrow:")
    comp = _result(fn, *args, name=name, asked=asked, label=lambda p: f"{p.run + 1}/{p.runs} · ")
    if comp is None:
        st.info(t(P + "press_run", steps=steps), icon=":material/play_arrow:")
        return
    for row in comp.rows:
        if row.fit.stopped or row.diverged:
            st.caption(figures.row_name(row, kind, lang))
            _explain(row.fit)
    fig = (
        cached(figures.scaling, comp, lang)
        if kind == "scaling"
        else cached(figures.comparison, comp, kind, ceiling, lang)
    )
    widgets.show_figure(fig, key=f"tr_{name}_figure", lecture_px=LECTURE_PX, alt=t(P + f"{name}_alt"))
    table = figures.scaling_table if kind == "scaling" else figures.comparison_table
    widgets.show_table(
        cached(table, comp, lang) if kind == "scaling" else cached(table, comp, kind, lang),
        key=f"tr_{name}_table",
        filename=f"{name}.csv",
        missing="—",
        decimals=None,
    )
    st.markdown(t(P + f"{name}_reading"))


@st.fragment
def comparison_section(name: str, fn, args: tuple, ceiling: float, kind: str) -> None:
    frame.heading(name)
    page.prose(t(P + f"{name}_body"))
    _comparison(name, fn, args, ceiling, kind)


@st.fragment
def scale_section() -> None:
    frame.heading("scale")
    page.prose(t(P + "scale_body"))
    button = box = None
    if big:  # the rate in a popover beside the button: the figure below keeps the projector's first screen
        with st.container(horizontal=True, vertical_alignment="center"):
            button, box = st.container(width="content"), st.popover(t(P + "scaling_lr"), icon=":material/tune:")
    with box if big else page.section_controls():
        rate = controls.select_slider(
            t(P + "scaling_lr"), SCALING_RATES, SCALING_LEARNING_RATE, key="tr_slr", help=t(P + "scaling_lr_help")
        )
    _comparison("scale", compare_scaling, (task, steps, float(rate), seed, 64), 0.5, "scaling", at=button)
    widgets.formula_and_code(
        rf"\begin{{aligned}} A &= \mathrm{{softmax}}(c\,Q K^\top) \\ c &= 1/\sqrt{{d_k}}"
        rf" \ \text{{{t(P + 'or')}}}\ 1/d_k \ \text{{{t(P + 'or')}}}\ 1 \end{{aligned}}",
        Config.scale_factor.fget,
    )


@st.fragment
def check_section() -> None:
    frame.heading("check")
    ceiling = cached(word_ceiling, task)
    widgets.check_number(
        t(P + "q_ceiling"),
        100 * ceiling,
        key="tr_check_ceiling",
        tolerance=0.5,
        explanation=t(P + "q_ceiling_why", p=f"{100 * ceiling:.0f}"),
    )
    widgets.check_choice(
        t(P + "q_order"),
        ["same", "different"],
        "same",
        key="tr_check_order",
        format_func=lambda o: t(P + f"q_order_{o}"),
        explanation=t(P + "q_order_why"),
    )


# A fresh visitor gets the article's example trained (about 2 s once per server, then shared by
# every session and every reload), so every section has a model to show; any other settings train
# only when asked: a large model costs minutes, and a hall must not start 200 of them by opening a link.
auto = settings == (Config(), task, 300, 0.01, 0) and not live.finished(fit, *settings)[0]
trained = train_section(auto) if frame.shows("train") else _result(fit, *settings, name="train", asked=auto)
if frame.shows("frames"):
    frames_section(trained)
if frame.shows("tag"):
    tag_section(trained)
if frame.shows("compare"):
    comparison_section(
        "compare", compare_models, (task, steps, float(lr), seed, config), cached(word_ceiling, task), "models"
    )
if frame.shows("order"):
    order = cached(order_task)
    comparison_section(
        "order", compare_positions, (order, steps, float(lr), seed, config), cached(word_ceiling, order), "positions"
    )
if frame.shows("scale"):
    scale_section()
if frame.shows("check"):
    check_section()

frame.end()
