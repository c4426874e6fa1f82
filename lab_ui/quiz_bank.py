"""What a quiz question is, and the tasks of the pages' questions. Each page's manifest
(lab_ui/registry.py) lists its questions: the catalog key of its words, the step that teaches it
and the task, which draws its numbers from the attempt's random generator and has the core
compute the answer, so a final-quiz attempt asks numbers nobody could memorise. Its words (with
{placeholders}) are `<ns>.quiz_<n>` in the page's catalog, its options `<ns>.quiz_<n>_<option>`,
its explanation `<ns>.quiz_<n>_why`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from attention_core import (
    causal_mask,
    decoder,
    flash,
    grouped,
    local_mask,
    one_hot,
    rotary,
    sinusoidal_positional_encoding,
    softmax,
    windows,
)
from attention_core.head_stats import head_size, multi_head_cost
from attention_core.positional import pair_frequencies
from attention_core.saturation import scale_factor
from attention_core.sequence_costs import layer_costs, sequential_steps
from attention_core.sequences import frame_count
from attention_core.train import Config, init_params, saw_task
from attention_core.train_views import per_word_ceiling


@dataclass(frozen=True)
class Task:
    """One question as asked: the values its words show, and its answer."""

    values: dict = field(default_factory=dict)  # {placeholder: text} for the question's words
    answer: float | str = 0.0  # a number, or the id of the right option
    tolerance: float = 0.0  # absolute: |typed - answer| <= tolerance is right ...
    relative: float = 0.0  # ... or <= relative * |answer|, whichever allows more
    options: tuple[str, ...] = ()  # option ids, in the order shown (choice questions)


@dataclass(frozen=True)
class Question:
    text: str  # catalog key of its words, "<ns>.quiz_<n>": the page ns asks it as question n
    section: str | None  # the step that teaches it, on that page (or on `taught_on`)
    make: Callable[[np.random.Generator], Task]  # the task for an attempt's random numbers
    taught_on: str | None = None  # the page that teaches it, when it is not the one that asks it

    @property
    def ns(self) -> str:
        """The page whose quiz asks it."""
        return self.text.split(".", 1)[0]

    @property
    def number(self) -> int:
        return int(self.text.rsplit("_", 1)[1])

    @property
    def id(self) -> str:
        """Its progress item, "quiz:<ns>:<n>" (lab_ui.registry.LEDGER)."""
        return f"quiz:{self.ns}:{self.number}"

    @property
    def why(self) -> str:
        return self.text + "_why"

    def option(self, option: str) -> str:
        """The catalog key of an option's words."""
        return f"{self.text}_{option}"

    @property
    def teacher(self) -> str:
        """The page whose step teaches the question."""
        return self.taught_on or self.ns

    def catalog_keys(self) -> tuple[str, ...]:
        """Every catalog key it uses (tests/app/test_catalogs.py reads them)."""
        options = self.make(np.random.default_rng(0)).options
        return (self.text, self.why, *(self.option(o) for o in options))


def choice(answer: str, *others: str) -> Callable[[np.random.Generator], Task]:
    """A multiple-choice task: the options in an order the question's generator shuffles, so the
    right one has no favourite place (sorted ids put it last in half the questions). A page's own
    quiz has a fixed generator, so its order stays put between visits; each final-quiz attempt
    shuffles afresh."""
    ids = (answer, *others)

    def make(rng: np.random.Generator) -> Task:
        return Task(answer=answer, options=tuple(ids[i] for i in rng.permutation(len(ids))))

    return make


def _vector(rng: np.random.Generator, n: int) -> np.ndarray:
    """Small numbers a student can multiply by hand: one decimal, between -2 and 2."""
    return np.round(rng.uniform(-2, 2, n), 1)  # [n]


def _text(v: np.ndarray) -> str:
    return "[" + ", ".join(f"{x:g}" for x in v) + "]"


# --- one_hot ---------------------------------------------------------------------------------------


def one_hot_zeros(rng: np.random.Generator) -> Task:
    """The zeros of one word's one-hot vector: V - 1 (the page's check asks two words' similarity)."""
    V = int(rng.choice([10, 200, 1_000, 5_000, 30_522]))
    e = one_hot([int(rng.integers(V))], V)  # [1, V]
    return Task({"V": f"{V:,}"}, float((e == 0).sum()))


def embedding_table_size(rng: np.random.Generator) -> Task:
    V, d = int(rng.choice([5000, 10000, 30000, 50000])), int(rng.choice([64, 128, 256, 384]))
    return Task({"V": f"{V:,}", "d": d}, float(V * d))


def sound_vectors(rng: np.random.Generator) -> Task:
    seconds = int(rng.integers(2, 10))
    # About: 1 + (L - 25) // 10 whole windows, or 100 a second as article 001 counts (within 2 %)
    return Task({"seconds": seconds}, float(frame_count(seconds * 1000)), relative=0.02)


# --- before_self_attention ------------------------------------------------------------------------


def cross_shape(rng: np.random.Generator) -> Task:
    T_target, T_source = int(rng.integers(2, 9)), int(rng.integers(2, 9))
    # The map has one row per query (a target word) and one column per key (a source word).
    return Task({"T_target": T_target, "T_source": T_source}, float(T_target * T_source))


# --- rnn_cnn ---------------------------------------------------------------------------------------


def rnn_steps(rng: np.random.Generator) -> Task:
    T = int(rng.integers(10, 500))
    return Task({"T": T}, float(sequential_steps(T)["rnn"]))


def attention_products(rng: np.random.Generator) -> Task:
    T, d = int(rng.choice([8, 16, 32, 100])), int(rng.choice([16, 64, 128]))
    return Task({"T": T, "d": d}, float(layer_costs(T, d).self_attention))


# --- qkv -------------------------------------------------------------------------------------------


def dot_score(rng: np.random.Generator) -> Task:
    q, k = _vector(rng, 3), _vector(rng, 3)
    return Task({"q": _text(q), "k": _text(k)}, float(q @ k), tolerance=0.005)  # exact in two places


def two_key_weight(rng: np.random.Generator) -> Task:
    """A query and two keys: the first key's weight, softmax of the two scores q·k (no scaling).
    The page's check asks one score by hand; this goes on from there."""
    q, k1, k2 = _vector(rng, 2), _vector(rng, 2), _vector(rng, 2)
    weight = softmax(np.array([q @ k1, q @ k2]))[0]
    return Task({"q": _text(q), "k1": _text(k1), "k2": _text(k2)}, float(weight), tolerance=0.005)


def softmax_weight(rng: np.random.Generator) -> Task:
    scores = np.round(rng.uniform(-1, 2, 3), 1)  # [3]
    return Task({"scores": _text(scores)}, float(softmax(scores)[0]), tolerance=0.005)  # two places


# --- heatmap ---------------------------------------------------------------------------------------


def row_sum(rng: np.random.Generator) -> Task:
    T = int(rng.integers(3, 12))
    weights = softmax(rng.standard_normal((T, T)))  # [T, T]
    return Task({"T": T}, float(weights.sum(axis=1)[-1]), tolerance=1e-6)


def window_keys(rng: np.random.Generator) -> Task:
    T, window = int(rng.integers(20, 60)), int(rng.integers(1, 5))
    return Task({"T": T, "w": window}, float(local_mask(T, window)[T // 2].sum()))


# --- multi_head ------------------------------------------------------------------------------------


def d_head(rng: np.random.Generator) -> Task:
    d_model, h = [(512, 8), (768, 12), (384, 12), (256, 4), (1024, 16)][int(rng.integers(5))]
    return Task({"d_model": d_model, "h": h}, float(head_size(d_model, h)))


def projection_parameters(rng: np.random.Generator) -> Task:
    d_model, h = [(64, 4), (128, 8), (256, 8), (512, 8)][int(rng.integers(4))]
    return Task({"d_model": d_model, "h": h}, float(multi_head_cost(d_model, h, T=1).total))


# --- positional ------------------------------------------------------------------------------------


def pe_value(rng: np.random.Generator) -> Task:
    p = int(rng.integers(1, 10))
    pe = sinusoidal_positional_encoding(p + 1, 4)  # [p + 1, 4]
    return Task({"p": p}, float(pe[p, 0]), tolerance=0.005)


def fastest_period(rng: np.random.Generator) -> Task:
    d_model = int(rng.choice([16, 64, 128, 512]))
    period = float(2 * np.pi / pair_frequencies(d_model)[0])  # 2π: ω_0 = 1 radian per position for every d_model
    # Positions are whole numbers: the first one at which pair 0 has turned a full circle is the first past 2π.
    return Task({"d_model": d_model, "period": f"{period:.4f}"}, float(np.ceil(period)))


# --- scaling ---------------------------------------------------------------------------------------


def score_variance(rng: np.random.Generator) -> Task:
    d_k = int(rng.choice([16, 32, 64, 128, 256]))
    # Var(q·k) = Σ_i Var(q_i k_i) = d_k: d_k independent products of variance 1 (the scaling
    # page measures it with attention_core.saturation.dot_product_variance).
    return Task({"d_k": d_k}, float(d_k))


def scale_value(rng: np.random.Generator) -> Task:
    d_k = int(rng.choice([4, 16, 25, 64, 100]))
    return Task({"d_k": d_k}, float(scale_factor(d_k, "sqrt")), tolerance=0.001)


# --- real_model ------------------------------------------------------------------------------------


def model_maps(rng: np.random.Generator) -> Task:
    layers, heads = [(6, 12), (12, 12), (24, 16)][int(rng.integers(3))]
    return Task({"layers": layers, "heads": heads}, float(layers * heads))


# --- train ---------------------------------------------------------------------------------------


def word_model_ceiling(rng: np.random.Generator) -> Task:
    """Two ambiguous words with their noun and verb counts: a one-word tagger's best accuracy (%)."""
    counts = rng.integers(1, 20, size=(2, 2))  # [words, tags]: noun, verb
    values = {"n1": int(counts[0, 0]), "v1": int(counts[0, 1]), "n2": int(counts[1, 0]), "v2": int(counts[1, 1])}
    return Task(values, 100 * per_word_ceiling(counts), tolerance=0.06)  # one decimal


def window_inputs(rng: np.random.Generator) -> Task:
    """How many numbers the window model's tagging layer reads per word: its weight matrix's rows."""
    w, d = int(rng.integers(0, 5)), int(rng.choice([4, 8, 16, 32]))
    rows = init_params(Config(model="window", d_model=d, window=w), _saw_task(), 0)["w_tag"].shape[0]
    return Task({"w": w, "d": d}, float(rows))


_saw_task = cache(saw_task)  # its vocabulary and tags size the weights; built once


# --- the final quiz's own questions: each joins what two pages taught ------------------------------


def attention_weights_per_layer(rng: np.random.Generator) -> Task:
    """h heads of T x T weights: the count that makes long inputs expensive."""
    T, h = int(rng.choice([8, 16, 32, 64, 128])), int(rng.choice([4, 8, 12]))
    return Task({"T": T, "h": h}, float(h * T * T))


def scaled_score(rng: np.random.Generator) -> Task:
    """q · k / √d_k for d_k = 4, so the division is by 2 and stays exact by hand."""
    q, k = _vector(rng, 4), _vector(rng, 4)
    return Task({"q": _text(q), "k": _text(k)}, float((q @ k) * scale_factor(4, "sqrt")), tolerance=0.005)


def causal_weights(rng: np.random.Generator) -> Task:
    """The weights a causal mask leaves: row i sees i + 1 keys, T(T + 1)/2 in all."""
    T = int(rng.integers(4, 40))
    return Task({"T": T}, float(causal_mask(T).sum()))


def projection_weights(rng: np.random.Generator) -> Task:
    """W_q, W_k, W_v and W_o, each d_model x d_model (no biases): 4 d_model²."""
    d_model = int(rng.choice([64, 128, 256, 384, 512, 768]))
    return Task({"d_model": d_model}, float(multi_head_cost(d_model, 1, T=1).total))


def positional_cosine(rng: np.random.Generator) -> Task:
    """PE[p, 1] = cos(p / 10000^0) = cos p: the fastest pair's second number."""
    p = int(rng.integers(1, 7))
    return Task({"p": p}, float(sinusoidal_positional_encoding(p + 1, 4)[p, 1]), tolerance=0.005)


def window_weights(rng: np.random.Generator) -> Task:
    """A local window of w on each side: the allowed weights of a T x T map, the edges counted."""
    T, w = int(rng.integers(6, 30)), int(rng.integers(1, 4))
    return Task({"T": T, "w": w}, float(local_mask(T, w).sum()))


def temperature_weight(rng: np.random.Generator) -> Task:
    """Two scores divided by τ, then softmax: the first one's weight."""
    scores, tau = np.round(rng.uniform(-1, 2, 2), 1), float(rng.choice([0.5, 2.0]))
    return Task(
        {"s1": f"{scores[0]:g}", "s2": f"{scores[1]:g}", "tau": f"{tau:g}"},
        float(softmax(scores / tau)[0]),
        tolerance=0.005,
    )


# --- the pages on attention since 2017 and the whole block: their numeric questions ---------------


def ffn_width(rng: np.random.Generator) -> Task:
    """The feed-forward network's hidden width in BERT's and GPT's blocks: 4 d_model."""
    d_model = int(rng.choice([256, 384, 512, 768, 1024]))
    return Task({"d_model": d_model}, float(4 * d_model))


def residual_sum(rng: np.random.Generator) -> Task:
    """One component of x + sublayer(x): the residual stream adds, it does not replace."""
    x, update = np.round(rng.uniform(-2, 2, 2), 1)
    return Task({"x": f"{x + 0.0:g}", "u": f"{update + 0.0:g}"}, float(x + update), tolerance=0.005)


def decoder_cache_bytes(rng: np.random.Generator) -> Task:
    """What one more token adds to the cache: 2 (K and V) x layers x d_model x 2 bytes (16-bit numbers).
    The page's check asks the whole cache for the student's text; this asks its growth."""
    layers, d_model = int(rng.choice([2, 4, 12])), int(rng.choice([64, 128, 768]))
    return Task({"L": layers, "d_model": d_model}, float(decoder.kv_cache_bytes(layers, 1, d_model, 2)))


def cached_step_rows(rng: np.random.Generator) -> Task:
    """With the cache a generated token computes one new row of scores per head: T keys."""
    T = int(rng.integers(5, 200))
    return Task({"T": T}, float(T))


def rope_angle(rng: np.random.Generator) -> Task:
    """The angle RoPE turns pair i by per position, θ_i = base^(-2i/d), in radians (the page's check
    asks the angle at one position, m · θ_i)."""
    d, i = int(rng.choice([8, 16, 64])), int(rng.integers(1, 4))
    return Task({"d": d, "i": i}, float(rotary.rope_frequencies(d)[i]), tolerance=0.0005)


def alibi_penalty(rng: np.random.Generator) -> Task:
    """ALiBi's penalty for head k at distance n: m_k · n, with the slopes of Press et al. (2022)."""
    n_heads, head, distance = int(rng.choice([4, 8])), int(rng.integers(1, 4)), int(rng.integers(1, 6))
    m = float(rotary.alibi_slopes(n_heads)[head - 1])
    return Task({"h": n_heads, "k": head, "n": distance}, m * distance, tolerance=0.0005)


def shared_cache_bytes(rng: np.random.Generator) -> Task:
    """What one more token adds to one layer's cache with g shared key/value heads: 2 x g x d_head x
    2 bytes (the page's check asks the whole cache)."""
    g, d_head = int(rng.choice([1, 2, 4, 8])), int(rng.choice([64, 128]))
    return Task({"g": g, "d_head": d_head}, float(grouped.kv_cache_bytes(1, 1, g, d_head, bytes_per_value=2)))


def queries_per_kv_head(rng: np.random.Generator) -> Task:
    """h query heads sharing g key/value heads: h / g queries read each one."""
    h = int(rng.choice([8, 12, 16, 32]))
    g = int(rng.choice([d for d in (1, 2, 4) if h % d == 0]))
    return Task({"h": h, "g": g}, float(h // g))


def flash_tiles(rng: np.random.Generator) -> Task:
    """T queries and keys in blocks of B: ⌈T/B⌉ x ⌈T/B⌉ tiles."""
    T, block = int(rng.integers(8, 64)), int(rng.choice([4, 8, 16]))
    return Task({"T": T, "B": block}, float(-(-T // block)) ** 2)


def score_matrix_bytes(rng: np.random.Generator) -> Task:
    """The full T x T score matrix in float32: what FlashAttention never writes out whole."""
    T = int(rng.choice([1024, 2048, 4096, 8192]))
    return Task({"T": f"{T:,}"}, float(flash.attention_memory(T, 64, 64).score_matrix_bytes))


def window_keys_seen(rng: np.random.Generator) -> Task:
    """Under a sliding window of w with s sinks, how many keys the query at position i (from 1) sees."""
    window, sinks, i = int(rng.choice([3, 4, 8])), int(rng.integers(0, 3)), int(rng.integers(10, 30))
    return Task({"w": window, "s": sinks, "i": i}, float(windows.visible_keys(i, window, sinks)[i - 1]))


def window_step_cost(rng: np.random.Generator) -> Task:
    """A generated token under a window of w scores w keys, however long the text already is."""
    window, T = int(rng.choice([128, 256, 4096])), int(rng.choice([10_000, 100_000]))
    return Task({"w": f"{window:,}", "T": f"{T:,}"}, float(window))
