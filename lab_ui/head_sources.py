"""Where the multi-head page's weights come from: random weights of the sizes a student sets (the
sentence, d_model, n_heads, the seed), or the real model's layer (a shipped example's stored maps,
or the model run here on an example or the student's own text). The page declares the controls
(pages/multi_head.py); these draw them and return the plain settings every step receives, and the
view of the layer the settings give."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attention_core import head_views as hv
from attention_core.head_stats import head_size
from lab_ui import state, widgets
from lab_ui.cache import cached
from lab_ui.figures import multi_head as figs
from lab_ui.i18n import current_lang, t

MAX_HEADS = 16  # more maps than this no longer fit side by side on a projector
MAX_TOKENS, MAX_PIECES = 40, 48  # tokens drawn (random weights); word pieces read with [CLS], [SEP] (real model)
DEFAULT_TEXT, DEFAULT_HEADS = "machine learning is fun", 2
LONG_TEXT = (
    "The animal didn't cross the street because it was too tired, so it lay down under an old tree "
    "and slept until the sun went down."
)
OWN = "own"  # the model's sentence: "my own sentence"
# all-MiniLM-L6-v2's sizes (6 layers of 12 heads, d_model = 384; Reimers & Gurevych 2019, distilled
# as in MiniLM, Wang et al. 2020), read from its shipped data
N_LAYERS, MODEL_HEADS, MODEL_D = hv.model_shape()
MODEL = dict(d_model=MODEL_D, n_heads=MODEL_HEADS, d_head=head_size(MODEL_D, MODEL_HEADS))  # its sizes, for the text
EXAMPLES = hv.example_texts()


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives (plain values: a step asks the cache for the view)."""

    source: str  # "random" or "model"
    tokens: tuple[str, ...]  # random weights: the sentence's tokens
    d_model: int
    n_heads: int
    seed: int
    example: str  # the real model: a shipped example's id, or OWN
    text: str  # the real model run here: the text it reads (the example's, the student's or the fallback)
    layer: int
    model: bool  # the optional model package is installed: the real model runs here (Q, K, V, free text)


def view_of(s: Settings) -> hv.HeadsView:
    """The layer for the settings, cut into heads: one core call, cached."""
    if s.source == "random":
        return cached(hv.random_view, s.tokens, s.d_model, s.n_heads, s.seed)
    if not s.model:  # the shipped example's stored maps (the sentence picker offers only those)
        return cached(hv.shipped_view, s.example, s.layer)
    return cached(hv.model_view, cached(hv.encode_text, s.text, MAX_PIECES), s.layer)


def settings(C: type[state.Table], model: bool) -> Settings:
    """The page-level controls: where the weights come from, and their sizes or the model's layer."""
    link = st.query_params  # a link from when random weights were the default (the page's docstring)
    random_keys = {C.text.key, C.d.key, C.heads.key, C.seed.key}  # controls of random weights only
    if C.source.key not in st.session_state and C.source.key not in link and random_keys & set(link):
        st.session_state[C.source.key] = "random"
    return random_settings(C, model) if C.source.draw() == "random" else model_settings(C, model)


def random_settings(C: type[state.Table], model: bool) -> Settings:
    label, help_text = t(C.text.label), t(C.text.help)
    tokens = widgets.sentence_tokens(label, C.text.default, key=C.text.key, max_tokens=MAX_TOKENS, help=help_text)
    d_model = C.d.draw()
    n_heads = heads_control(C, d_model)
    seed = C.seed.draw()
    return Settings("random", tuple(tokens), d_model, n_heads, seed, C.example.default, "", C.layer.default, model)


def heads_control(C: type[state.Table], d_model: int) -> int:
    """n_heads offers only divisors of d_model. A value that cannot work (from a link, or left over
    after d_model moved) is replaced by the nearest smaller divisor, and a warning says why."""
    wanted = st.session_state.get(C.heads.key)
    raw = st.query_params.get_all(C.heads.key)[:1] if wanted is None else []
    fit = hv.fit_heads(d_model, raw[0] if raw else wanted, MAX_HEADS, DEFAULT_HEADS)
    note = figs.heads_note(fit, raw[0][:40] if raw else wanted, d_model, MAX_HEADS, current_lang())
    if note:
        st.session_state[C.heads.key] = fit.n_heads
    n_heads = C.heads.draw(options=fit.options, default=fit.n_heads)
    sizes = dict(d_model=d_model, n_heads=n_heads, d_head=d_model // n_heads, max_heads=MAX_HEADS)
    st.caption(t("multi_head.heads_only_one" if fit.options == (1,) else "multi_head.heads_caption", **sizes))
    if note:
        st.warning(note, icon="⚠️")
    return n_heads


def model_settings(C: type[state.Table], model: bool) -> Settings:
    own = t("multi_head.example_own")  # fixed now: a widget may call format_func after the run
    offered = [*EXAMPLES, OWN] if model else list(EXAMPLES)
    example = C.example.draw(options=offered, format_func=lambda e: EXAMPLES.get(e, own))
    typed = C.own_text.draw() if example == OWN else ""
    layer = C.layer.draw()
    st.caption(t("multi_head.model_sizes", layer=layer, **MODEL))
    text = ""
    if not model:
        st.caption(t("multi_head.enable_free_text"))
    else:
        text = EXAMPLES.get(example) or (typed if typed.strip() else LONG_TEXT)
        if example == OWN and not typed.strip():
            st.info(t("common.empty_text", example=LONG_TEXT), icon=":material/info:")
        try:
            encoded = cached(hv.encode_text, text, MAX_PIECES)
        except ValueError as error:  # e.g. a lone surrogate the tokenizer cannot read
            st.info(t("multi_head.model_error", reason=str(error)), icon=":material/info:")
            text, encoded = LONG_TEXT, cached(hv.encode_text, LONG_TEXT, MAX_PIECES)
        if encoded.truncated:
            st.caption(t("multi_head.model_cut", shown=len(encoded.tokens), total=encoded.total_tokens))
    return Settings("model", (), MODEL_D, MODEL_HEADS, 0, example, text, layer, model)
