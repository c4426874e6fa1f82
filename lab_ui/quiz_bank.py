"""The quiz questions, QUIZ_SIZE per concept page, on that page's objectives. A numeric question
draws its numbers from the attempt's random generator and has the core compute the answer, so a
final-quiz attempt asks numbers nobody could memorise; its words (with {placeholders}), options
and explanation are in lab_ui/locales/quiz.toml under quiz.<ns>_<n>.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from attention_core import local_mask, one_hot, sinusoidal_positional_encoding, softmax
from attention_core.head_stats import head_size, multi_head_cost
from attention_core.positional import pair_frequencies
from attention_core.saturation import scale_factor
from attention_core.sequence_costs import layer_costs, sequential_steps
from attention_core.sequences import frame_count
from attention_core.train import Config, init_params, saw_task
from attention_core.train_views import per_word_ceiling
from lab_ui.quiz import Question, Task


def _choice(answer: str, *others: str) -> Callable[[np.random.Generator], Task]:
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


def one_hot_dot(rng: np.random.Generator) -> Task:
    V = int(rng.integers(5, 50))
    i, j = rng.choice(V, size=2, replace=False)
    e = one_hot([i, j], V)  # [2, V]
    return Task({"V": V, "i": int(i) + 1, "j": int(j) + 1}, float(e[0] @ e[1]))


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
    return Task({"d_model": d_model}, float(2 * np.pi / pair_frequencies(d_model)[0]), tolerance=0.02)  # 6.28 or 6.3


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


BANK: dict[str, list[Question]] = {
    "one_hot": [
        Question("quiz:one_hot:1", "one_hot", "similarity", one_hot_dot),
        Question("quiz:one_hot:2", "one_hot", "similarity", _choice("meaning", "size", "order")),
        Question("quiz:one_hot:3", "one_hot", "sizes", embedding_table_size),
        Question("quiz:one_hot:4", "one_hot", "sequences", sound_vectors),
    ],
    "before_self_attention": [
        Question("quiz:before_self_attention:1", "before_self_attention", "bottleneck", _choice("one", "each", "none")),
        Question("quiz:before_self_attention:2", "before_self_attention", "shapes", cross_shape),
        Question(
            "quiz:before_self_attention:3", "before_self_attention", "shapes", _choice("target", "source", "both")
        ),
        Question("quiz:before_self_attention:4", "before_self_attention", "maps", _choice("same", "reversed", "none")),
    ],
    "qkv": [
        Question("quiz:qkv:1", "qkv", "scores", dot_score),
        Question("quiz:qkv:2", "qkv", "softmax", softmax_weight),
        Question("quiz:qkv:3", "qkv", "scores", _choice("vector", "number", "matrix")),
        Question("quiz:qkv:4", "qkv", "output", _choice("v", "q", "k")),
    ],
    "heatmap": [
        Question("quiz:heatmap:1", "heatmap", "map", row_sum),
        Question("quiz:heatmap:2", "heatmap", "map", _choice("upto", "all", "self")),
        Question("quiz:heatmap:3", "heatmap", "speech", window_keys),
        Question("quiz:heatmap:4", "heatmap", "map", _choice("flat", "sharp", "same")),
    ],
    "multi_head": [
        Question("quiz:multi_head:1", "multi_head", "split", d_head),
        Question("quiz:multi_head:2", "multi_head", "cost", projection_parameters),
        Question("quiz:multi_head:3", "multi_head", "maps", _choice("own", "shared", "average")),
        Question(
            "quiz:multi_head:4", "multi_head", "softmax", _choice("flatter", "sharper", "same"), taught_on="scaling"
        ),
    ],
    "positional": [
        Question("quiz:positional:1", "positional", "why", _choice("shuffled", "same", "different")),
        Question("quiz:positional:2", "positional", "sinusoids", pe_value),
        Question("quiz:positional:3", "positional", "similarity", _choice("offset", "sum", "both")),
        Question("quiz:positional:4", "positional", "sinusoids", fastest_period),
    ],
    "rnn_cnn": [
        Question("quiz:rnn_cnn:1", "rnn_cnn", "see", _choice("left", "all", "window")),
        Question("quiz:rnn_cnn:2", "rnn_cnn", "parallel", rnn_steps),
        Question("quiz:rnn_cnn:3", "rnn_cnn", "cost", attention_products),
        Question("quiz:rnn_cnn:4", "rnn_cnn", "cost", _choice("shorter", "longer", "never")),
    ],
    "scaling": [
        Question("quiz:scaling:1", "scaling", "spread", score_variance),
        Question("quiz:scaling:2", "scaling", "spread", scale_value),
        Question("quiz:scaling:3", "scaling", "softmax", _choice("peaked", "flat", "unchanged")),
        Question("quiz:scaling:4", "scaling", "softmax", _choice("too_small", "right", "too_large")),
    ],
    "real_model": [
        Question("quiz:real_model:1", "real_model", "grid", model_maps),
        Question("quiz:real_model:2", "real_model", "sink", _choice("park", "meaning", "error")),
        Question(
            "quiz:real_model:3", "real_model", "learned", _choice("learned", "sinusoid", "none"), taught_on="positional"
        ),
        Question("quiz:real_model:4", "real_model", "head", _choice("one", "zero", "varies")),
    ],
    "train": [
        Question("quiz:train:1", "train", "compare", word_model_ceiling),
        Question("quiz:train:2", "train", "order", _choice("same", "swapped", "random")),
        Question("quiz:train:3", "train", "compare", window_inputs),
        Question("quiz:train:4", "train", "scale", _choice("slower", "faster", "never")),
    ],
}
