"""What the multi-head page shows, computed once: one attention layer cut into heads (random
weights, the real model run here, or the real model's shipped maps), and for each idea of the page
the numbers it reports: the heads' scores adding up to one big head's, the article's 1/d_head
scaling next to the right 1/√d_head, the joined heads, how the heads differ, and what they cost.

Every function returns a frozen dataclass (or a number) and never modifies its input; heads are
numbered from 0 here, as NumPy counts, and the page adds 1 when it names them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import MultiHeadResult, merge_heads, multi_head_attention, scaled_dot_product_attention
from attention_core.embedding import token_vectors
from attention_core.head_stats import (
    PATTERNS,
    MultiHeadCost,
    head_choices,
    head_overlap,
    head_patterns,
    mean_entropy,
    mean_overlap,
    mean_peak,
    multi_head_cost,
    random_projections,
    score_split,
)
from attention_core.pretrained import EncodeResult, load_minilm
from attention_core.shipped import load_examples, load_position_table

SOURCES = ("random", "model", "shipped")  # untrained seeded weights; the real model run here; its stored maps
JOB_SHARE = 0.5  # a head "has a job" when at least this share of its weight follows one pattern


# --- one layer, cut into heads ------------------------------------------------------------------


@dataclass(frozen=True)
class HeadsView:
    """One multi-head attention layer as the page draws it, T tokens, h heads."""

    source: str  # one of SOURCES
    tokens: tuple[str, ...]  # the tokens (random) or word pieces with [CLS] and [SEP] (model)  T
    weights: np.ndarray  # each head's attention map, rows sum to 1                            [h, T, T]
    layer: MultiHeadResult | None  # Q, K, V, their heads, the heads' outputs, concat, output; None: shipped maps only
    d_model: int  # width of every token's vector
    seed: int | None = None  # random weights: the seed that drew them
    layer_number: int | None = None  # the real model: which of its layers, from 1
    truncated: bool = False  # the text had more word pieces than were read
    total_tokens: int = 0  # word pieces of the whole text (model), else T

    @property
    def n_heads(self) -> int:
        return self.weights.shape[0]

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @property
    def T(self) -> int:
        return len(self.tokens)


def random_view(tokens: tuple[str, ...], d_model: int, n_heads: int, seed: int) -> HeadsView:
    """Made-up word vectors and untrained W_q, W_k, W_v, W_o, all drawn from `seed`: any size,
    and heads that differ only because their random columns differ."""
    x = token_vectors(list(tokens), d_model, seed)  # [T, d_model]
    w = random_projections(d_model, np.random.default_rng(seed))
    layer = multi_head_attention(x, w.w_q, w.w_k, w.w_v, w.w_o, n_heads)
    return HeadsView("random", tuple(tokens), layer.weights, layer, d_model, seed=seed, total_tokens=len(tokens))


def encode_text(text: str, max_tokens: int) -> EncodeResult:
    """all-MiniLM-L6-v2 reads `text`, cut to its first max_tokens word pieces ([CLS] and [SEP]
    included). MiniLMNotInstalled without the optional model, ValueError for unreadable text."""
    return load_minilm().encode(text, max_tokens=max_tokens)


def model_view(encoded: EncodeResult, layer_number: int) -> HeadsView:
    """Layer `layer_number` (from 1) of the real model's run over a text: its trained heads, with
    every intermediate (the layer's input is the previous layer's output, not the raw words)."""
    layer = encoded.layers[_layer_index(layer_number, len(encoded.layers))]
    d_model = layer.q.shape[1]
    return HeadsView(
        "model",
        encoded.tokens,
        layer.weights,
        layer,
        d_model,
        layer_number=layer_number,
        truncated=encoded.truncated,
        total_tokens=encoded.total_tokens,
    )


def shipped_view(example_id: str, layer_number: int) -> HeadsView:
    """The real model's stored maps of an example sentence (attention_core.shipped): the maps
    only, no Q, K or V, so it needs nothing but the app itself."""
    example = next((e for e in load_examples() if e.id == example_id), None)
    if example is None:
        raise ValueError(f"no shipped example {example_id!r}; the ids are {[e.id for e in load_examples()]}.")
    maps = example.attentions[_layer_index(layer_number, example.attentions.shape[0])]  # [h, T, T]
    return HeadsView(
        "shipped",
        example.tokens,
        maps,
        None,
        model_width(),
        layer_number=layer_number,
        total_tokens=len(example.tokens),
    )


def example_texts() -> dict[str, str]:
    """The shipped example sentences by id, in display order."""
    return {e.id: e.text for e in load_examples()}


def model_width() -> int:
    """d_model of the real model (384), read from its shipped position table."""
    return load_position_table().shape[1]


def model_shape() -> tuple[int, int, int]:
    """(layers, heads per layer, d_model) of the real model, from its shipped data: (6, 12, 384)."""
    n_layers, n_heads = load_examples()[0].attentions.shape[:2]
    return int(n_layers), int(n_heads), model_width()


@dataclass(frozen=True)
class Clearest:
    """Where a sentence's heads differ most: the page's key effect at its clearest."""

    layer: int  # the layer (from 1) whose heads overlap least on average
    focus: int  # in it, the most focused head (from 1): lowest mean entropy


def clearest_view(example_id: str) -> Clearest:
    """The layer of a shipped example whose heads overlap least, and its most focused head."""
    maps = next(e for e in load_examples() if e.id == example_id).attentions  # [n_layers, h, T, T]
    layer = int(np.argmin([mean_overlap(m) for m in maps]))
    return Clearest(layer=layer + 1, focus=1 + int(np.argmin(mean_entropy(maps[layer]))))


# --- how many heads a link may ask for -----------------------------------------------------------


@dataclass(frozen=True)
class HeadsFit:
    """The head count to draw for a wanted one, and why it differs when it does."""

    n_heads: int  # the head count to use: a divisor of d_model, at most max_heads
    options: tuple[int, ...]  # every head count that works (head_choices)
    reason: str  # "ok", "not_number" (not a whole number), "too_few" (below 1), "too_many" (divides, above
    # max_heads), "not_divisor"
    ratio: float | None = None  # not_divisor: d_model / wanted, the block width that is not whole


def fit_heads(d_model: int, wanted: int | str | None, max_heads: int, default: int) -> HeadsFit:
    """Use `wanted` (a head count, the text a link gave for one, or None: nothing asked) if it cuts
    d_model into equal whole blocks, else the nearest smaller head count that does, or `default`
    (the largest option when default does not divide) when none is smaller or wanted is no number."""
    options = tuple(head_choices(d_model, max_heads))
    fallback = default if default in options else options[-1]
    try:
        wanted = fallback if wanted is None else int(wanted)
    except ValueError:
        return HeadsFit(fallback, options, "not_number")
    if wanted in options:
        return HeadsFit(wanted, options, "ok")
    nearest = max((o for o in options if o <= wanted), default=fallback)
    if wanted < 1:
        return HeadsFit(nearest, options, "too_few")
    if d_model % wanted == 0:
        return HeadsFit(nearest, options, "too_many")
    return HeadsFit(nearest, options, "not_divisor", d_model / wanted)


# --- each head on its own -----------------------------------------------------------------------


@dataclass(frozen=True)
class ScalingMistake:
    """Article 003's code divides the scores by d_head; the Transformer divides by √d_head."""

    d_head: int
    factors: tuple[float, float]  # (1/√d_head: right, 1/d_head: the mistake)
    weights: tuple[np.ndarray, np.ndarray]  # the maps with each factor   2 x [h, T, T]
    entropy: tuple[float, float]  # mean entropy in bits, over heads and queries
    peak: tuple[float, float]  # mean largest weight of a row


def scaling_mistake(view: HeadsView) -> ScalingMistake:
    """The same heads' maps, scaled right and scaled as article 003's code does (a view with Q, K, V).

    The functions here take the view, not its arrays: the page's cache keys a view it made for nothing,
    where hashing a layer's dozen arrays again on every rerun would cost milliseconds."""
    layer, d_head = view.layer, view.d_head
    wrong = scaled_dot_product_attention(layer.q_heads, layer.k_heads, layer.v_heads, scale=1.0 / d_head).weights
    pair = (layer.weights, wrong)  # 2 x [h, T, T]
    return ScalingMistake(
        d_head=d_head,
        factors=(1.0 / float(np.sqrt(d_head)), 1.0 / d_head),
        weights=pair,
        entropy=tuple(float(mean_entropy(w).mean()) for w in pair),
        peak=tuple(float(mean_peak(w).mean()) for w in pair),
    )


def scores_gap(view: HeadsView) -> float:
    """Largest difference between the heads' raw scores added up and one big head's Q Kᵀ
    (rounding only: a dot product is a sum over columns)."""
    split = score_split(view.layer.q, view.layer.k, view.n_heads)
    return float(np.max(np.abs(split.summed - split.full)))


def concat_gap(view: HeadsView) -> float:
    """Largest difference between the heads' outputs placed side by side and the layer's joined
    matrix: 0, the join only moves numbers."""
    return float(np.max(np.abs(merge_heads(view.layer.heads) - view.layer.concat)))


# --- how the heads differ -----------------------------------------------------------------------


@dataclass(frozen=True)
class HeadPair:
    a: int  # head, from 0
    b: int  # another head, from 0
    overlap: float  # share of attention the two put in the same place, 0..1


@dataclass(frozen=True)
class HeadJob:
    head: int  # from 0
    pattern: str  # one of head_stats.PATTERNS
    share: float  # the head's average weight on that pattern, >= JOB_SHARE


@dataclass(frozen=True)
class HeadDifferences:
    """How spread out each head is, how alike two heads are, and which heads have a clear job."""

    entropy: np.ndarray  # each head's mean entropy in bits                       [h]
    overlap: np.ndarray  # pairwise overlap, 1 on the diagonal                    [h, h]
    patterns: np.ndarray  # weight on self, previous, next, first, last token     [h, 5]
    uniform_bits: float  # log2 T: the entropy of a head spread evenly
    most_alike: HeadPair | None  # the pair with the largest overlap; None with one head
    least_alike: HeadPair | None  # the pair with the smallest overlap
    jobs: tuple[HeadJob, ...]  # (head, pattern) with at least JOB_SHARE of the weight, by head
    most_focused: int  # the head (from 0) with the lowest mean entropy


def head_differences(weights: np.ndarray) -> HeadDifferences:
    """The measures of head_stats for one layer's maps, and what they single out.  [h, T, T]"""
    entropy, overlap, patterns = mean_entropy(weights), head_overlap(weights), head_patterns(weights)
    h, T = overlap.shape[0], weights.shape[-1]
    pairs = [HeadPair(a, b, float(overlap[a, b])) for a in range(h) for b in range(a + 1, h)]
    jobs = tuple(
        HeadJob(i, PATTERNS[j], float(patterns[i, j]))
        for i in range(h)
        for j in range(len(PATTERNS))
        if patterns[i, j] >= JOB_SHARE
    )
    return HeadDifferences(
        entropy=entropy,
        overlap=overlap,
        patterns=patterns,
        uniform_bits=float(np.log2(T)),
        most_alike=max(pairs, key=lambda p: p.overlap, default=None),
        least_alike=min(pairs, key=lambda p: p.overlap, default=None),
        jobs=jobs,
        most_focused=int(np.argmin(entropy)),
    )


# --- what the heads cost ------------------------------------------------------------------------

COST_ROWS = ("qkv_per_head", "qkv", "w_o", "total", "score_products", "softmax_rows")  # MultiHeadCost fields


@dataclass(frozen=True)
class CostComparison:
    """h heads of d_model / h columns against one head of all d_model columns."""

    many: MultiHeadCost  # h heads
    one: MultiHeadCost  # one wide head
    rows: tuple[str, ...]  # the compared quantities, MultiHeadCost field names (COST_ROWS)
    same_parameters: bool  # always True: the same 4 · d_model² numbers, cut differently


def cost_comparison(d_model: int, n_heads: int, T: int) -> CostComparison:
    many, one = multi_head_cost(d_model, n_heads, T), multi_head_cost(d_model, 1, T)
    return CostComparison(many, one, COST_ROWS, many.total == one.total)


# --- argument checks ----------------------------------------------------------------------------


def _layer_index(layer_number: int, n_layers: int) -> int:
    if not isinstance(layer_number, int | np.integer) or not 1 <= layer_number <= n_layers:
        raise ValueError(f"layer must be a whole number from 1 to {n_layers}; got {layer_number!r}.")
    return int(layer_number) - 1
