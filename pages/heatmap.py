"""Attention heatmaps: every query's weights over every key as one picture; a real model's heads or
random weights, masks, softmax or ReLU, temperature, and why speech models look only at a window.

Steps (hm_step): map, query, speech, check. What makes the weights (source, sentence, d and seed or
layer and head, τ, mask, window, normalisation) is page-level; the query picker (hm_q) and the
speech step's seconds and window (hm_sec, hm_sw) are their steps' own.

Links. The page opens on the real model: random weights, the old default, invite reading meaning
into noise. Old links left hm_src out (it was the default), so a link with hm_ parameters and no
hm_src still opens with random weights; the page always writes hm_src. A link's hm_text without
hm_ex means that text, for either source.
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import heatmap_views as hv
from attention_core import split_tokens
from attention_core.normalisation import attend, relu_weights, reweight
from attention_core.pretrained import minilm_available
from attention_core.shipped import load_examples
from attention_core.speech import frame_count, speech_cost, window_entries
from lab_ui import attention_maps as maps
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import heatmap as figures
from lab_ui.figures.heatmap import position_label
from lab_ui.i18n import current_lang, literal, t

MAX_TOKENS = 64  # the most tokens drawn: a 64 x 64 heatmap is still readable on a projector
TAUS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10)  # whole numbers as ints: the link reads tau=10
OWN = "own"  # the sentence choice "my own text"
EXAMPLES = {e.id: e for e in load_examples()}
ANIMAL = "animal_tired"
N_LAYERS, N_HEADS = EXAMPLES[ANIMAL].attentions.shape[:2]
A_LAYER, A_HEAD, A_IT = hv.strongest_link(EXAMPLES[ANIMAL].attentions, EXAMPLES[ANIMAL].tokens, "it", "animal")
SOURCES = state.labels("heatmap.source_", "model", "random")
SENTENCES = state.labels(
    "heatmap.ex_",
    "own",
    "animal_tired",
    "animal_wide",
    "saw_saw",
    "cat_mat",
    "bank_river",
    "keys_cabinet",
    "cat_river_zh",
    "attention_need",
)
MASKS = state.labels("heatmap.mask_", "none", "causal", "local")
NORMS = state.labels("heatmap.norm_", "softmax", "relu")
ANSWERS = state.labels("heatmap.check_", "only_self", "up_to", "from_on", "all")
assert set(SENTENCES) == {OWN, *EXAMPLES} and set(SOURCES) == set(hv.SOURCES) and tuple(MASKS) == hv.MASKS


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    source = state.choice("hm_src", "heatmap.source", SOURCES, help="heatmap.source_help")
    sentence = state.selectbox("hm_ex", "heatmap.sentence", SENTENCES, default=ANIMAL)
    text = state.text("hm_text", "heatmap.text", "heatmap.default_text", default_text=True, help="heatmap.text_help")
    d = state.slider("hm_d", "heatmap.d", 1, 64, 8, help="heatmap.d_help")
    seed = state.seed("hm_seed")
    layer = state.slider("hm_layer", "heatmap.layer", 1, N_LAYERS, A_LAYER, help="heatmap.layer_help")
    head = state.slider("hm_head", "heatmap.head", 1, N_HEADS, A_HEAD, help="heatmap.head_help")
    tau = state.select_slider("hm_tau", "heatmap.tau", TAUS, 1, help="heatmap.tau_help")
    mask = state.choice("hm_mask", "heatmap.mask", MASKS, help="heatmap.mask_help")
    window = state.slider("hm_win", "heatmap.window", 0, 32, 2, help="heatmap.window_help")
    norm = state.choice("hm_norm", "heatmap.norm", NORMS, help="heatmap.norm_help")
    query = state.selectbox("hm_q", "heatmap.pick_query", (), 3, on="query")  # the sentence's positions, 1..T
    seconds = state.slider("hm_sec", "heatmap.speech_seconds_control", 1, 120, 10, on="speech")
    speech_window = state.slider(
        "hm_sw", "heatmap.speech_window_control", 1, 50, 8, on="speech", help="heatmap.speech_window_help"
    )


C = Controls
PLAIN = {C.mask: "none", C.norm: "softmax", C.tau: 1}
MODEL = {**PLAIN, C.source: "model", C.layer: A_LAYER, C.head: A_HEAD}


def presets() -> list[state.Preset]:
    article = {**PLAIN, C.source: "random", C.sentence: OWN, C.text: "I saw a saw", C.d: 4, C.query: 2}
    return [
        state.Preset("heatmap.preset_article", article),
        state.Preset(
            "heatmap.preset_long",
            {**PLAIN, C.source: "random", C.sentence: OWN, C.text: t("heatmap.long_text"), C.query: 3},
        ),
        state.Preset("heatmap.preset_causal", {**MODEL, C.sentence: ANIMAL, C.mask: "causal", C.query: 3}),
        state.Preset(
            "heatmap.preset_local", {**MODEL, C.sentence: "bank_river", C.mask: "local", C.window: 2, C.query: 6}
        ),
        state.Preset("heatmap.preset_animal", {**MODEL, C.sentence: ANIMAL, C.query: A_IT + 1}),
    ]


PAGE = page.Page("heatmap", Controls, presets=presets)
(CAUSAL_CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives (plain values: a step asks the cache for the view)."""

    source: str
    sentence: str
    text: str  # the sentence the weights are of (the example's text, or the student's, or the fallback)
    d: int
    seed: int
    layer: int
    head: int
    tau: float
    mask: str
    window: int
    norm: str
    model: bool  # the optional model package is installed

    @property
    def rows(self) -> tuple:
        return self.mask, self.window, self.tau


def view_of(s: Settings) -> hv.HeatmapView:
    """The weights for the settings: one core call, cached."""
    if s.source == "random":
        return cached(hv.random_view, tuple(split_tokens(s.text)), s.d, s.seed, *s.rows, s.norm, MAX_TOKENS)
    if not s.model:  # the shipped example's stored weights (the sentence picker offers only those)
        e = EXAMPLES[s.sentence]
        return cached(hv.shipped_view, e.tokens, e.attentions, s.layer, s.head, *s.rows)
    return cached(hv.model_view, cached(hv.model_heads, s.text, MAX_TOKENS), s.layer, s.head, *s.rows, s.norm)


def settings(model: bool) -> Settings:
    """The page-level controls, and what they make: where the weights come from, how each row is normalised."""
    maps.old_link(C.prefix, C.source, C.sentence, C.text, OWN)  # the module's docstring
    with page.section_controls():
        source = C.source.draw()
        st.query_params[C.source.key] = source  # always in the link: a link without it is an old one
        offered = [OWN, *EXAMPLES] if source == "random" or model else list(EXAMPLES)
        choice = C.sentence.draw(options=offered, default=OWN if source == "random" else ANIMAL)
    # Drawn even while an example is chosen, so that a link keeps the text and a preset can fill it.
    typed = C.text.draw(disabled=choice != OWN)
    chosen = None if choice == OWN else EXAMPLES[choice].text
    text = maps.sentence_text(
        typed, chosen, source, model, examples=len(EXAMPLES), fallback=EXAMPLES[ANIMAL].text, max_tokens=MAX_TOKENS
    )
    with page.section_controls():
        d = C.d.draw() if source == "random" else 8
        seed = C.seed.draw() if source == "random" else 0
        layer = C.layer.draw() if source != "random" else A_LAYER
        head = C.head.draw() if source != "random" else A_HEAD
        tau = C.tau.draw()
    with page.section_controls():
        mask = C.mask.draw()
        window = C.window.draw() if mask == "local" else 2
        norm = C.norm.draw(disabled=not (model or source == "random"))
    return Settings(source, choice, text, d, seed, layer, head, tau, mask, window, norm, model)


@PAGE.step("map")
def map_step(p: page.Parts, s: Settings) -> None:
    view, lang = view_of(s), current_lang()
    p.prose(t("heatmap.map_body"))
    with p.figure:
        maps.weights_map(view, lang, relu_asked=s.norm == "relu")
    with p.reading:
        maps.map_reading(view, lang)
    p.table(
        t("heatmap.table_box"),
        figures.weights_table,
        view,
        lang,
        key="heatmap_table",
        filename="attention_weights.csv",
        caption=t("heatmap.table_caption"),
        missing=t("heatmap.masked_cell"),
    )
    with p.code:
        st.caption(t("heatmap.formula_caption"))
        if view.source != "random":
            st.markdown(t("heatmap.fact"))
    if view.source == "shipped":
        p.formula(figures.LATEX["shipped"], reweight)
    else:
        relu = view.normalisation == "relu"
        p.formula(figures.LATEX[view.normalisation], attend, *([relu_weights] if relu else []))


@PAGE.step("query")
def query_step(p: page.Parts, s: Settings) -> None:
    view, lang = view_of(s), current_lang()
    T = len(view.tokens)
    animal = (s.source, s.sentence) == ("model", ANIMAL)
    p.prose(t("heatmap.query_body"))
    with p.controls:  # "it", which looks most at "animal" in the page's key example
        i = C.query.draw(
            options=range(1, T + 1),
            default=A_IT + 1 if animal else min(3, T),
            format_func=lambda j: position_label(j, view.tokens[j - 1]),
        )
    row = cached(hv.query_row, view, i - 1)
    with p.figure:
        maps.query_row(view, row, i, lang)


@PAGE.step("speech")
def speech_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("heatmap.speech_body"))
    with p.controls, page.section_controls():
        seconds = C.seconds.draw()
        w = C.speech_window.draw()
    c = cached(speech_cost, seconds, w)
    with p.figure:
        maps.speech_pair(c, seconds, w, lang)
    with p.reading:
        st.markdown(figures.speech_text(c, lang))
    p.table(
        t("heatmap.speech_numbers_box"),
        figures.speech_table,
        c,
        lang,
        key="heatmap_speech_table",
        filename="speech_cost.csv",
        caption=t("heatmap.speech_table"),
        decimals=1,
    )
    p.formula(figures.LATEX["speech"], frame_count, window_entries)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    tokens = view_of(s).tokens
    c = hv.causal_check(len(tokens), 3)
    with p.check:
        widgets.check_choice(
            t("heatmap.check_question", k=c.k),
            list(ANSWERS),
            "up_to",
            key=CAUSAL_CHECK,
            format_func=lambda o: ANSWERS.text(o, k=c.k, T=c.T),
            explanation=t("heatmap.check_explanation", k=c.k, seen=literal(figures.seen_keys(c, tokens))),
        )


if __name__ == "__main__":
    PAGE.start().show(settings, minilm_available())
