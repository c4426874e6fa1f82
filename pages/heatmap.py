"""Attention heatmaps: every query's weights over every key as one picture; masks, softmax or ReLU,
temperature, and a real model's heads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from attention_core import causal_mask, local_mask, split_tokens, token_vectors
from attention_core.normalisation import attend, random_qkv, relu_weights, reweight, strongest_head
from attention_core.pretrained import INSTALL_COMMAND, load_minilm, minilm_available
from attention_core.shipped import load_examples
from lab_ui import controls, widgets
from lab_ui.figures import heatmap as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

MAX_TOKENS = 64  # the most tokens drawn: a 64 x 64 heatmap is still readable on a projector
DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
SEEDS_TEXT = "I saw a saw"  # the seeds' four tokens: two "saw"s that only context can tell apart
TAUS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10)  # whole numbers as ints: the link reads tau=10
MASKS = ("none", "causal", "local")
NORMS = ("softmax", "relu")
OWN = "own"  # the sentence choice "my own text"
EXAMPLES = {e.id: e for e in load_examples()}
ANIMAL = "animal_tired"
# The formulas, aligned on "=" so they fit beside the code; M(i) is the set of keys query i may look at.
_SCORE = r"s_{ij} &= \frac{q_i \cdot k_j}{\sqrt{d_k}\,\tau} \\ "
_ZERO_AND_OUTPUT = r" \\ \alpha'_{ij} &= 0 \quad (j \notin \mathcal{M}(i)) \\ b_i &= \sum_j \alpha'_{ij}\, v_j"
LATEX_SOFTMAX = (
    r"\begin{aligned} " + _SCORE + r"\alpha'_{ij} &= \frac{e^{s_{ij}}}{\sum_{l \in \mathcal{M}(i)} e^{s_{il}}}"
    r" \quad (j \in \mathcal{M}(i))" + _ZERO_AND_OUTPUT + r" \end{aligned}"
)
LATEX_RELU = (
    r"\begin{aligned} "
    + _SCORE
    + r"\alpha'_{ij} &= \max(0,\ s_{ij}) \quad (j \in \mathcal{M}(i))"
    + _ZERO_AND_OUTPUT
    + r" \end{aligned}"
)
LATEX_REWEIGHT = (
    r"\begin{aligned} \tilde\alpha_{ij} &= \frac{(\alpha'_{ij})^{1/\tau}}"
    r"{\sum_{l \in \mathcal{M}(i)} (\alpha'_{il})^{1/\tau}}"
    r" \quad (j \in \mathcal{M}(i)) \\ \tilde\alpha_{ij} &= 0 \quad (j \notin \mathcal{M}(i)) \end{aligned}"
)


@dataclass(frozen=True)
class View:
    """Everything the page draws, computed once per setting. (The cached functions return plain
    dicts of these fields: st.cache_data pickles, and a class defined in a page script cannot be.)"""

    tokens: tuple[str, ...]  # T, as drawn
    weights: np.ndarray  # [T, T], rows = queries
    allowed: np.ndarray | None  # bool [T, T], None when nothing is masked
    values: np.ndarray | None  # [T, d_v], None when the source does not have them
    normalisation: str  # what was applied: "softmax" or "relu"


def _fields(tokens, weights, allowed, values, normalisation) -> dict:
    return dict(tokens=tuple(tokens), weights=weights, allowed=allowed, values=values, normalisation=normalisation)


def make_mask(kind: str, T: int, window: int) -> np.ndarray | None:
    if kind == "causal":
        return causal_mask(T)  # [T, T]
    if kind == "local":
        return local_mask(T, window)  # [T, T]
    return None


@st.cache_data(max_entries=64)
def random_view(tokens: tuple[str, ...], d: int, seed: int, mask: str, window: int, tau: float, norm: str) -> dict:
    x = token_vectors(list(tokens), d, seed)  # [T, d]
    q, k, v = random_qkv(x, d, seed)  # [T, d] each
    allowed = make_mask(mask, len(tokens), window)
    result = attend(q, k, v, mask=allowed, temperature=tau, normalisation=norm)
    return _fields(tokens, result.weights, allowed, v, norm)


@st.cache_resource(max_entries=8)
def encode(text: str, limit: int = MAX_TOKENS):
    """The full model's pass over the longest start of `text` that it splits into at most `limit`
    word pieces ([CLS] and [SEP] included), and how many pieces the whole text has. Kept as an
    object, not copied on every rerun: its arrays are large."""
    encoder = load_minilm()
    encoding = encoder.tokenizer.encode(text)
    total = len(encoding.tokens)
    if total > limit:
        end = encoding.offsets[limit - 2][1]  # piece limit-2 is the last word piece before [SEP]
        while end > 0 and len(encoder.tokenizer.encode(text[:end]).tokens) > limit:
            end -= 1  # a cut inside a word can re-split it into more pieces
        text = text[:end]
    return encoder.encode(text), total


@st.cache_data(max_entries=64)
def model_view(
    example_id: str, text: str, layer: int, head: int, mask: str, window: int, tau: float, norm: str, full_model: bool
) -> dict:
    """A shipped example (example_id), or free text (example_id == OWN, needs the full model).
    With the full model the head's own q, k, v are used, so ReLU and the output work; without it,
    the shipped weights are re-normalised exactly (attention_core.normalisation.reweight).
    `full_model` is an argument so that the cache tells the two cases apart."""
    example = EXAMPLES.get(example_id)
    if full_model:
        result, _ = encode(example.text if example else text)
        att = result.layers[layer]
        allowed = make_mask(mask, len(result.tokens), window)
        q, k, v = att.q_heads[head], att.k_heads[head], att.v_heads[head]  # [T, d_head] each
        out = attend(q, k, v, mask=allowed, temperature=tau, normalisation=norm)
        return _fields(result.tokens, out.weights, allowed, v, norm)
    allowed = make_mask(mask, len(example.tokens), window)
    weights = reweight(example.attentions[layer, head], mask=allowed, temperature=tau)  # [T, T]
    return _fields(example.tokens, weights, allowed, None, "softmax")


def animal_head() -> tuple[int, int, int]:
    """The head in which "it" looks most at "animal" in the shipped sentence, found by computing
    (an argmax over 72 numbers), and the 0-based position of "it"."""
    example = EXAMPLES[ANIMAL]
    it, animal = example.tokens.index("it"), example.tokens.index("animal")
    layer, head = strongest_head(example.attentions, it, animal)
    return layer, head, it


@st.cache_resource(max_entries=48)
def figure(name: str, key: tuple, _args: tuple, _kwargs: dict):
    """A figure from lab_ui/figures/heatmap.py, built once per `key`: the settings it shows (view,
    language, query). Building a Plotly figure costs more than the attention itself, and hashing
    the arrays (_args, _kwargs: not hashed) would cost about as much. Shared between sessions and
    never modified: show_figure copies a figure before restyling it for lecture mode."""
    return getattr(figures, name)(*_args, **_kwargs)


def keep_valid(key: str, options, default) -> None:
    """A control whose options just changed (a shorter sentence, the model switched off) must not
    hold a value that is no longer offered."""
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default


def label(i: int, tokens) -> str:
    return f"{i} · {tokens[i - 1]}"


# --- text ---------------------------------------------------------------------------------------

widgets.page_header("heatmap")
has_model = minilm_available()
n_layers, n_heads = EXAMPLES[ANIMAL].attentions.shape[:2]

a_layer, a_head, a_it = animal_head()
base = {"hm_ex": OWN, "hm_text": DEFAULT_TEXT, "hm_src": "random", "hm_mask": "none", "hm_norm": "softmax",
        "hm_tau": 1}  # fmt: skip
widgets.presets(
    {
        "seeds": {**base, "hm_text": SEEDS_TEXT, "hm_d": 4, "hm_q": 2},
        "long": {**base, "hm_text": t("heatmap.long_text"), "hm_q": 3},
        "causal": {**base, "hm_mask": "causal", "hm_q": 3},
        "local": {**base, "hm_text": t("heatmap.long_text"), "hm_mask": "local", "hm_win": 2, "hm_q": 20},
        "animal": {**base, "hm_src": "model", "hm_ex": ANIMAL, "hm_layer": a_layer + 1, "hm_head": a_head + 1,
                   "hm_q": a_it + 1},
    },
    key="hm_preset",
    format_func=lambda p: t(f"heatmap.preset_{p}"),
)  # fmt: skip

# --- controls -----------------------------------------------------------------------------------

# Controls beside the heatmap, so both fit one screen; in lecture mode they fold away and the
# heatmap takes the whole width.
if is_lecture():
    box, figure_area = st.expander(t("heatmap.controls"), expanded=False), st.container()
else:
    box, figure_area = st.columns([2, 3], gap="medium")
with box:
    source = controls.segmented(
        t("heatmap.source"), ["random", "model"], key="hm_src", format_func=lambda s: t(f"heatmap.source_{s}"),
        help=t("heatmap.source_help"),
    )  # fmt: skip
    sentences = [OWN, *EXAMPLES] if source == "random" or has_model else list(EXAMPLES)
    default_sentence = OWN if OWN in sentences else ANIMAL
    keep_valid("hm_ex", sentences, default_sentence)
    choice = controls.selectbox(
        t("heatmap.sentence"), sentences, key="hm_ex", default=default_sentence,
        format_func=lambda s: t("heatmap.own_text") if s == OWN else EXAMPLES[s].text,
    )  # fmt: skip
    if source == "model" and not has_model:
        st.caption(t("heatmap.free_text_off", command=INSTALL_COMMAND))
    text = DEFAULT_TEXT
    if choice == OWN and source == "random":
        tokens = widgets.sentence_tokens(
            t("heatmap.text"), DEFAULT_TEXT, key="hm_text", max_tokens=MAX_TOKENS, help=t("heatmap.text_help")
        )  # fmt: skip
    elif choice == OWN:  # the model's own word pieces: the simple split's notes would count the wrong things
        text = controls.text_input(t("heatmap.text"), DEFAULT_TEXT, key="hm_text", help=t("heatmap.text_help"))
        if not text.strip():
            st.info(t("common.empty_text", example=DEFAULT_TEXT), icon=":material/info:")
            text = DEFAULT_TEXT
        elif not split_tokens(text):
            st.info(t("common.no_tokens", example=DEFAULT_TEXT), icon=":material/info:")
            text = DEFAULT_TEXT
    elif source == "random":
        tokens = split_tokens(EXAMPLES[choice].text)

    c1, c2 = st.columns(2)
    if source == "random":
        with c1:
            d = controls.slider(t("heatmap.d"), 1, 64, 8, key="hm_d", help=t("heatmap.d_help"))
        with c2:
            seed = widgets.seed_input(key="hm_seed")
    else:
        with c1:
            layer = controls.slider(t("heatmap.layer"), 1, n_layers, 1, key="hm_layer", help=t("heatmap.layer_help"))
        with c2:
            head = controls.slider(t("heatmap.head"), 1, n_heads, 1, key="hm_head", help=t("heatmap.head_help"))
    tau = controls.select_slider(t("heatmap.tau"), TAUS, 1, key="hm_tau", help=t("heatmap.tau_help"))
    mask = controls.segmented(
        t("heatmap.mask"), MASKS, key="hm_mask", format_func=lambda m: t(f"heatmap.mask_{m}"),
        help=t("heatmap.mask_help"),
    )  # fmt: skip
    window = 2
    if mask == "local":
        window = controls.slider(t("heatmap.window"), 0, 32, 2, key="hm_win", help=t("heatmap.window_help"))
    norm = controls.segmented(
        t("heatmap.norm"), NORMS, key="hm_norm", format_func=lambda n: t(f"heatmap.norm_{n}"),
        help=t("heatmap.norm_help"), disabled=not (source == "random" or has_model),
    )  # fmt: skip

# --- core call ------------------------------------------------------------------------------------

model_cut = None
try:
    if source == "random":
        settings = (tuple(tokens), d, seed, mask, window, tau, norm)
        view = View(**random_view(*settings))
    else:
        if choice == OWN:
            total = encode(text)[1]
            model_cut = total if total > MAX_TOKENS else None
        settings = (choice, text, layer - 1, head - 1, mask, window, tau, norm, has_model)
        view = View(**model_view(*settings))
except ValueError as error:
    with figure_area:
        widgets.friendly_error(error)
    st.stop()
tokens, T = view.tokens, len(view.tokens)
drawn = (source, *settings, current_lang())  # what the figures depend on, for their cache

# --- figures ------------------------------------------------------------------------------------

relu = view.normalisation == "relu"
sums = view.weights.sum(axis=1)  # [T]
live = view.allowed.any(axis=1) if view.allowed is not None else np.ones(T, dtype=bool)  # rows with a key to see
weight_name = t("heatmap.weight")
with figure_area:
    if norm == "relu" and not relu:
        st.info(t("heatmap.relu_unavailable"), icon=":material/info:")
    fig = figure("weights_heatmap", drawn, (view.weights, tokens), dict(
        mask=view.allowed, query_title=t("heatmap.query"), key_title=t("heatmap.key"),
        value_name=weight_name, sum_label=t("heatmap.row_sum"), zmax=None if relu else 1.0,
        title=t("heatmap.heatmap_title", source=t(f"heatmap.source_{source}"), mask=t(f"heatmap.mask_{mask}")),
        subtitle=t("heatmap.heatmap_subtitle"),
    ))  # fmt: skip
    widgets.show_figure(fig, key="heatmap_weights", alt=t("heatmap.heatmap_alt", n=T),
                        numbers_on_phones=T <= figures.CELL_TEXT_PHONE_MAX_TOKENS)  # fmt: skip
    lo, hi = float(sums[live].min()), float(sums[live].max())
    if relu:
        st.markdown(t("heatmap.sums_relu", lo=f"{lo:.3f}", hi=f"{hi:.3f}"))
    elif f"{lo:.4f}" == f"{hi:.4f}":  # "from 1.0000 to 1.0000" would read as a range
        st.markdown(t("heatmap.sums_softmax_equal", total=f"{lo:.4f}"))
    else:
        st.markdown(t("heatmap.sums_softmax", lo=f"{lo:.4f}", hi=f"{hi:.4f}"))
    if view.allowed is not None and not view.allowed.all():
        st.caption(t("heatmap.masked_note"))
    if source == "random" and len(set(tokens)) < T:
        st.caption(t("heatmap.same_vectors"))
    if source == "model":
        st.caption(t("heatmap.model_tokens"))
        if "[UNK]" in tokens:
            st.caption(t("heatmap.model_unk"))
        if model_cut:
            st.caption(t("common.tokens_cut", total=model_cut, shown=MAX_TOKENS))
st.caption(t("heatmap.rows_not_columns"))

# --- numbers --------------------------------------------------------------------------------------

names = [label(i, tokens) for i in range(1, T + 1)]
# On screen every number with 4 decimals, so the columns line up (0.0560 over 0.0068), and a masked
# cell shows the word; the CSV keeps the full float32 values, and the word.
shown = pd.DataFrame(np.where(view.allowed, view.weights, np.nan) if view.allowed is not None else view.weights,
                     index=names, columns=names)  # fmt: skip
shown.insert(0, t("heatmap.row_sum"), sums)
widgets.show_table(shown, key="heatmap_table", filename="attention_weights.csv", caption=t("heatmap.table_caption"),
                   number_format="%.4f", missing=t("heatmap.masked_cell"))  # fmt: skip

# --- one query ------------------------------------------------------------------------------------

st.subheader(t("heatmap.one_query"))
queries = list(range(1, T + 1))
keep_valid("hm_q", queries, min(3, T))
i = controls.selectbox(
    t("heatmap.pick_query"), queries, key="hm_q", default=min(3, T), format_func=lambda j: label(j, tokens)
)
row = view.weights[i - 1]  # [T]
best = int(np.argmax(row))
left, right = st.columns(2)
with left:
    fig = figure("row_bars", (*drawn, i), (row, tokens), dict(
        allowed=view.allowed[i - 1] if view.allowed is not None else None, x_title=t("heatmap.key"),
        y_title=weight_name, masked_text="×", title=t("heatmap.row_title", query=label(i, tokens)),
    ))  # fmt: skip
    widgets.show_figure(fig, key="heatmap_row", alt=t("heatmap.row_alt", query=label(i, tokens)))
    st.markdown(
        t("heatmap.row_summary", weight=f"{row[best]:.3f}", best=widgets.escape_markdown(label(best + 1, tokens)),
          total=f"{sums[i - 1]:.3f}", tau=tau)
    )  # fmt: skip
with right:
    if view.values is None:
        st.info(t("heatmap.no_values", command=INSTALL_COMMAND), icon=":material/info:")
    else:
        fig = figure("weighted_sum", (*drawn, i, is_lecture()), (row, view.values, tokens), dict(
            allowed=view.allowed[i - 1] if view.allowed is not None else None,
            output_label=t("heatmap.output_label", i=i), component_title=t("heatmap.component"),
            term_title=t("heatmap.term"), value_name=t("heatmap.contribution"),
            title=t("heatmap.sum_title", i=i), show_values=False if is_lecture() else None,
        ))  # fmt: skip
        widgets.show_figure(fig, key="heatmap_output", alt=t("heatmap.sum_alt", i=i, d=view.values.shape[1]))
        st.caption(t("heatmap.sum_caption", i=i))

# --- formula and code --------------------------------------------------------------------------------

st.subheader(t("heatmap.formula"))
st.caption(t("heatmap.formula_caption"))
if source == "model":
    st.markdown(t("heatmap.fact"))
    if not has_model:
        widgets.formula_and_code(LATEX_REWEIGHT, reweight)
if source == "random" or has_model:
    if relu:
        widgets.formula_and_code(LATEX_RELU, attend, relu_weights)
    else:
        widgets.formula_and_code(LATEX_SOFTMAX, attend)

# --- check yourself --------------------------------------------------------------------------------

# A sentence of three tokens or fewer would make two of the answers the same: ask about five then.
n = T if T >= 4 else 5
seen = [label(j + 1, tokens) for j in np.flatnonzero(causal_mask(T)[2])] if T >= 4 else ["1", "2", "3"]
widgets.check_choice(
    t("heatmap.check_question", k=3),
    ["only_self", "up_to", "from_on", "all"],
    "up_to",
    key="hm_check",
    format_func=lambda o: t(f"heatmap.check_{o}", k=3, T=n),
    explanation=t("heatmap.check_explanation", k=3, seen=widgets.escape_markdown(", ".join(seen))),
)
