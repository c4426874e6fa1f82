"""Train a small tagger live: article 001's "I saw a saw" as numbers. Choose the model, press Train,
watch the loss and the accuracies grow, play the attention of "I saw a saw ." sharpening, tag a
sentence of your own, and compare the three taggers, positions against none, and article 003's
1/d_k against 1/sqrt(d_k). Every run is cached by its settings and shared between sessions.

Steps (tr_step): train, frames, tag, compare, order, scale, check. The model and its training
(model, d_model, heads, positions, scaling, window, learning rate, steps, seed) are page-level:
every step shows the model these settings train, or compares with them. The head (tr_head) is the
frames step's own, the sentence (tr_text) the tag step's, the comparison's rate (tr_slr) the scale
step's.

One click's work is bounded (issue 25): beside each run's button its cost (attention_core.train_cost
through lab_ui.live.budget) is said before the click; a run over one click's ceiling cannot be
started (its button is disabled, another offers the steps that fit, and lab_ui.live refuses it
anyway); at most ATTENTION_LAB_TRAININGS runs train at once per worker, and a run waiting for its
turn shows its place in line, with a button that leaves it. A step asks lab_ui.live (through
lab_ui.runs) for a finished run (shared by every session) or this session's stopped one: no
session state, callback or fragment holds a result, and a click's request is a flag in the session,
taken once.
"""

from dataclasses import dataclass

import streamlit as st

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
from lab_ui import live, page, runs, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import train as figures
from lab_ui.figures.train import MODEL_NAMES, POSITION_NAMES, SCALE_NAMES
from lab_ui.i18n import current_lang, literal, t

D_VALUES, HEADS = (4, 8, 16, 32, 64, 128), (1, 2, 4, 8)
RATES = (0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 10, 1000)  # as the link writes them: 1000, not 1000.0
STEPS = (10, 20, 50, 100, 200, 300, 500, 1000, 2000)
SCALING_RATES = (0.001, 0.003, 0.01)
EXAMPLE = "I saw a saw ."
ORDER_FIXES = state.labels("train.q_order_", "positions", "heads", "wider", "longer")  # the check's options


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    model = state.choice("tr_model", "train.model", MODEL_NAMES, "attention")
    d = state.select_slider("tr_d", "train.d_model", D_VALUES, 16, help="train.d_model_help")
    heads = state.choice("tr_heads", "train.heads", HEADS, 2)  # those dividing d_model offered
    positional = state.choice("tr_pos", "train.positional", POSITION_NAMES)
    scale = state.choice("tr_scale", "train.scale", SCALE_NAMES)
    window = state.slider("tr_window", "train.window", 0, 4, 1, help="train.window_help")
    lr = state.select_slider("tr_lr", "train.lr", RATES, 0.01)
    steps = state.select_slider("tr_steps", "train.steps", STEPS, 300)
    seed = state.seed("tr_seed")
    head = state.choice("tr_head", "train.head", (), 1, on="frames")  # the trained model's heads, 1..h
    text = state.text("tr_text", "train.text", EXAMPLE, on="tag")
    scaling_lr = state.select_slider(
        "tr_slr", "train.scaling_lr", SCALING_RATES, SCALING_LEARNING_RATE, on="scale", help="train.scaling_lr_help"
    )


C = Controls
ARTICLE = {C.model: "attention", C.d: 16, C.heads: 2, C.positional: "sinusoidal", C.scale: "sqrt", C.lr: 0.01}
ARTICLE |= {C.steps: 300, C.window: 1, C.seed: 0}
PAGE = page.Page(
    "train",
    Controls,
    presets=(
        state.Preset("train.preset_article", ARTICLE),
        state.Preset("train.preset_no_position", {**ARTICLE, C.positional: "none"}),
        state.Preset("train.preset_scale_d", {**ARTICLE, C.scale: "d", C.d: 64, C.heads: 1, C.lr: 0.001}),
    ),
)
RUNS = runs.Runs(C.steps, STEPS, RATES)  # how its runs are asked for and shown (lab_ui.runs)
CEILING_CHECK, ORDER_CHECK = PAGE.info.checks
CONFIG_FIELDS = ("model", "d_model", "heads", "window", "positional", "scale")  # the Settings that make the Config


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives: the model and how it is trained (plain values)."""

    model: str
    d_model: int
    heads: int
    positional: str
    scale: str
    window: int
    learning_rate: float
    steps: int
    seed: int

    @property
    def config(self) -> Config:
        return Config(**{name: getattr(self, name) for name in CONFIG_FIELDS})

    def fit_args(self) -> tuple:
        return self.config, cached(saw_task), self.steps, self.learning_rate, self.seed

    @property
    def auto(self) -> bool:
        """The article's example, trained unasked (about 1 s once per server, then shared) so that a
        fresh visitor's every step has a model; other settings train only when asked: a hall must not
        start 200 runs by opening a link."""
        return (
            self.fit_args() == (Config(), cached(saw_task), 300, 0.01, 0)
            and not live.finished(fit, *self.fit_args())[0]
        )


def settings() -> Settings:
    lang = current_lang()
    with page.section_controls():
        model = C.model.draw(format_func=lambda m: MODEL_NAMES.text(m, lang, w="w"))
        d_model = C.d.draw()
        heads = C.heads.draw(options=[h for h in HEADS if d_model % h == 0])
        positional, scale, window = C.positional.draw(), C.scale.draw(), C.window.draw()
        lr, steps, seed = C.lr.draw(), C.steps.draw(), C.seed.draw()
    return Settings(model, d_model, heads, positional, scale, window, float(lr), steps, seed)


# --- the steps -------------------------------------------------------------------------------------


@PAGE.step("train")
def train_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("train.train_body"))
    with p.controls:
        hit = live.finished(fit, *s.fit_args())[0]
        icon = ":material/model_training:"
        asked = RUNS.ask("tr_train", t("train.train"), fit, s.fit_args(), type="primary", icon=icon)
        result = RUNS.trained(fit, s.fit_args(), asked or s.auto)
    if result is None:
        RUNS.invite(p, fit, s.fit_args(), t("train.press_train", steps=s.steps))
        return
    values = figures.run_values(result)
    with p.figure:
        RUNS.curves(result, s.steps, lang, from_cache=hit and asked, alt=t("train.curves_alt", **values))
    with p.reading:
        st.markdown(t("train.train_reading", **values))
    shown = dict(key="tr_curves_table", filename="learning_curves.csv", decimals=None)
    p.table(t("train.numbers"), figures.curves_table, result, lang, **shown)


@PAGE.step("frames")
def frames_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("train.frames_body"))
    result = RUNS.trained(fit, s.fit_args(), s.auto)
    if result is None or result.attention_frames.shape[2] == 0:
        with p.figure:
            st.info(
                t("train.frames_none") if result is None else t("train.frames_no_attention"), icon=":material/info:"
            )
        return
    with p.controls:
        head = C.head.draw(options=list(range(1, result.attention_frames.shape[2] + 1))) - 1
    with p.figure:
        RUNS.frames(result, head, lang)
    shown = dict(key="tr_frames_table", filename="attention_frames.csv")
    p.table(t("train.numbers"), figures.frames_table, result, head, lang, **shown)


@PAGE.step("tag")
def tag_step(p: page.Parts, s: Settings) -> None:
    lang, task = current_lang(), cached(saw_task)
    p.prose(t("train.tag_body"))
    with p.controls:
        st.markdown(cached(figures.tag_legend, task, lang))  # what PRON, DET, ... mean, before they are shown
        words = widgets.sentence_tokens(t("train.text"), C.text.default, key=C.text.key, max_tokens=task.max_len)
        with st.expander(t("train.vocabulary_box"), icon=":material/menu_book:"):
            st.markdown(literal(" · ".join(task.vocab[2:])))
    result = RUNS.trained(fit, s.fit_args(), s.auto)
    if result is None:
        with p.figure:
            st.info(t("train.frames_none"), icon=":material/info:")
        return
    pred = cached(predict, result.params, result.config, task, tuple(words))
    with p.controls:
        if pred.unknown:
            once = ", ".join(dict.fromkeys(pred.unknown))  # each word once, in the order typed
            st.warning(t("train.unknown_words", words=literal(once)), icon="⚠️")
        if len(words) > 7:
            st.caption(t("train.long_sentence", n=len(words)))
    with p.figure:
        RUNS.tags(pred, len(words), lang)
    with p.reading:
        widgets.show_table(
            cached(figures.tags_table, pred, lang), key="tr_tags_table", filename="tags.csv", decimals=1, missing="—"
        )


@PAGE.step("compare")
def compare_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("train.compare_body"))
    task, words = cached(saw_task), ("train.run_compare", "train.compare_alt", "train.compare_reading")
    args = (task, s.steps, s.learning_rate, s.seed, s.config)
    RUNS.comparison(p, "compare", compare_models, args, "models", words, cached(word_ceiling, task))


@PAGE.step("order")
def order_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("train.order_body"))
    task, words = cached(order_task), ("train.run_order", "train.order_alt", "train.order_reading")
    args = (task, s.steps, s.learning_rate, s.seed, s.config)
    RUNS.comparison(p, "order", compare_positions, args, "positions", words, cached(word_ceiling, task))


@PAGE.step("scale")
def scale_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("train.scale_body"))
    with p.controls, page.section_controls():
        rate = C.scaling_lr.draw()
    words = ("train.run_scale", "train.scale_alt", "train.scale_reading")
    RUNS.comparison(p, "scale", compare_scaling, (cached(saw_task), s.steps, float(rate), s.seed, 64), "scaling", words)
    p.formula(figures.scale_formula(current_lang()), Config.scale_factor.fget)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    lang, ceiling = current_lang(), cached(word_ceiling, cached(saw_task))
    with p.check:
        why = t("train.q_ceiling_why", p=f"{100 * ceiling:.0f}")
        widgets.check_number(t("train.q_ceiling"), 100 * ceiling, key=CEILING_CHECK, tolerance=0.5, explanation=why)
        widgets.check_choice(
            t("train.q_order"),
            list(ORDER_FIXES),
            "positions",
            key=ORDER_CHECK,
            format_func=lambda o: ORDER_FIXES.text(o, lang),
            explanation=t("train.q_order_why"),
        )


if __name__ == "__main__":  # Streamlit runs the script as __main__; tests import it for its declaration
    PAGE.start().show(settings)
