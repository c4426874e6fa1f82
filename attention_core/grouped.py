"""Grouped-query and multi-query attention: h query heads sharing g key/value heads.

Multi-head attention (Vaswani et al. 2017) gives every query head its own keys and values
(g = h). Multi-query attention (Shazeer 2019) keeps one key/value head for all of them (g = 1);
grouped-query attention (Ainslie et al. 2023) sits between: query head i reads key/value head
i // (h / g), so consecutive query heads form a group. Fewer key/value heads mean fewer
parameters and, above all, a smaller key/value cache when a decoder generates token by token:
2 x layers x T x g x d_head numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import (
    _as_float,
    _head_size,
    _non_negative_int,
    _positive_int,
    _weight,
    merge_heads,
    scaled_dot_product_attention,
    split_heads,
)
from attention_core.published import ModelConfig

KV_CACHE_FORMULA = (
    r"\text{KV cache} = 2 \times \text{layers} \times T \times g \times d_\text{head} \times \text{bytes}"
)


@dataclass(frozen=True)
class GroupedQueryResult:
    """Every intermediate of grouped-query self-attention."""

    q: np.ndarray  # Q = x W_q                                           [T, d_model]
    k: np.ndarray  # K = x W_k: only g heads' worth of columns           [T, g·d_head]
    v: np.ndarray  # V = x W_v                                           [T, g·d_head]
    q_heads: np.ndarray  # Q cut into h blocks                           [h, T, d_head]
    k_heads: np.ndarray  # K cut into g blocks: the key/value heads      [g, T, d_head]
    v_heads: np.ndarray  #                                               [g, T, d_head]
    kv_head_of: np.ndarray  # the key/value head each query head reads, i // (h/g)  int [h]
    k_shared: np.ndarray  # k_heads[kv_head_of]: the keys each query head meets  [h, T, d_head]
    v_shared: np.ndarray  # v_heads[kv_head_of]                          [h, T, d_head]
    scores: np.ndarray  # per query head q kᵀ                            [h, T, T]
    scaled: np.ndarray  # scores / √d_head, masked                       [h, T, T]
    weights: np.ndarray  # per query head softmax                        [h, T, T]
    heads: np.ndarray  # per query head weights · v                      [h, T, d_head]
    concat: np.ndarray  # heads side by side                             [T, d_model]
    output: np.ndarray  # concat W_o                                     [T, d_model]
    n_heads: int  # h
    n_kv_heads: int  # g
    group_size: int  # h / g query heads per key/value head
    d_head: int  # d_model / h


def kv_head_of(n_heads: int, n_kv_heads: int) -> np.ndarray:
    """Which key/value head each query head reads: i // (h/g), as Llama's repeat_kv and PyTorch's
    enable_gqa arrange them (consecutive query heads share).  -> int [h]"""
    n_heads, n_kv_heads = _grouping(n_heads, n_kv_heads)
    return np.arange(n_heads) // (n_heads // n_kv_heads)  # [h]


def grouped_query_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    n_heads: int,
    n_kv_heads: int,
    mask: np.ndarray | None = None,
) -> GroupedQueryResult:
    """h query heads attending over g shared key/value heads.

    x: [T, d_model]; w_q, w_o: [d_model, d_model]; w_k, w_v: [d_model, n_kv_heads · d_head] with
    d_head = d_model / n_heads. mask as in scaled_dot_product_attention ([T, T] or [h, T, T]).
    n_kv_heads = n_heads is multi_head_attention exactly; n_kv_heads = 1 is multi-query attention.
    """
    x = _as_float(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must be one sequence shaped [T, d_model]; got shape {x.shape}.")
    d_model = x.shape[1]
    d_head = _head_size(d_model, n_heads)
    kv_of = kv_head_of(n_heads, n_kv_heads)  # [h]
    w_q, w_o = _weight(w_q, "w_q", d_model), _weight(w_o, "w_o", d_model)
    w_k, w_v = _kv_weight(w_k, "w_k", d_model, n_kv_heads, d_head), _kv_weight(w_v, "w_v", d_model, n_kv_heads, d_head)

    q = x @ w_q  # [T, d_model]
    k = x @ w_k  # [T, g·d_head]
    v = x @ w_v  # [T, g·d_head]
    q_heads = split_heads(q, n_heads)  # [h, T, d_head]
    k_heads = split_heads(k, n_kv_heads)  # [g, T, d_head]
    v_heads = split_heads(v, n_kv_heads)  # [g, T, d_head]
    k_shared, v_shared = k_heads[kv_of], v_heads[kv_of]  # [h, T, d_head] each; copies only for the record
    att = scaled_dot_product_attention(q_heads, k_shared, v_shared, mask=mask)
    concat = merge_heads(att.output)  # [T, d_model]
    return GroupedQueryResult(
        q=q,
        k=k,
        v=v,
        q_heads=q_heads,
        k_heads=k_heads,
        v_heads=v_heads,
        kv_head_of=kv_of,
        k_shared=k_shared,
        v_shared=v_shared,
        scores=att.scores,
        scaled=att.scaled,
        weights=att.weights,
        heads=att.output,
        concat=concat,
        output=concat @ w_o,  # [T, d_model]
        n_heads=int(n_heads),
        n_kv_heads=int(n_kv_heads),
        group_size=int(n_heads) // int(n_kv_heads),
        d_head=d_head,
    )


# --- what sharing saves ------------------------------------------------------------------------------


def attention_parameters(
    d_model: int, n_heads: int, n_kv_heads: int, d_head: int | None = None, bias: bool = False
) -> int:
    """Weights of one attention layer: W_q [d_model, h·d_head], W_k and W_v [d_model, g·d_head],
    W_o [h·d_head, d_model], plus their biases if `bias`.

    d_head defaults to d_model / h; give it where a model's heads are wider or narrower (PaLM).
    """
    d_model = _positive_int(d_model, "d_model")
    n_heads, n_kv_heads = _grouping(n_heads, n_kv_heads)
    d_head = _head_size(d_model, n_heads) if d_head is None else _positive_int(d_head, "d_head")
    q_width, kv_width = n_heads * d_head, n_kv_heads * d_head
    weights = d_model * q_width + 2 * d_model * kv_width + q_width * d_model
    biases = q_width + 2 * kv_width + d_model if bias else 0
    return weights + biases


def kv_cache_bytes(layers: int, T: int, n_kv_heads: int, d_head: int, bytes_per_value: int = 2, batch: int = 1) -> int:
    """2 (K and V) x layers x T x n_kv_heads x d_head x bytes_per_value x batch.

    bytes_per_value 2 is 16-bit floats (fp16/bf16), what models are usually served in; 4 is
    float32, and this app's own arrays (float64) take 8.
    """
    layers, n_kv_heads = _positive_int(layers, "layers"), _positive_int(n_kv_heads, "n_kv_heads")
    d_head, bytes_per_value = _positive_int(d_head, "d_head"), _positive_int(bytes_per_value, "bytes_per_value")
    T, batch = _non_negative_int(T, "T"), _positive_int(batch, "batch")
    return 2 * layers * T * n_kv_heads * d_head * bytes_per_value * batch


@dataclass(frozen=True)
class GroupedCosts:
    """Parameters and cache as g runs over every divisor of h (the choices that group evenly)."""

    n_kv_heads: np.ndarray  # g = 1 .. h, divisors of h only               int [n]
    attention_params: np.ndarray  # one layer's W_q, W_k, W_v, W_o          int [n]
    kv_params: np.ndarray  # W_k and W_v alone: 2 d_model g d_head           int [n]
    cache_bytes: np.ndarray  # kv_cache_bytes at T tokens                    int [n]
    cache_fraction: np.ndarray  # cache_bytes / (the g = h cache) = g / h       [n]
    d_model: int
    n_heads: int
    d_head: int
    layers: int
    T: int
    bytes_per_value: int


def grouped_costs(
    d_model: int, n_heads: int, layers: int, T: int, bytes_per_value: int = 2, d_head: int | None = None
) -> GroupedCosts:
    """How one layer's parameters and the whole model's cache shrink as fewer key/value heads are kept.

    The cache falls in proportion to g; the parameters less, since W_q and W_o do not change.
    """
    d_model = _positive_int(d_model, "d_model")
    n_heads = _positive_int(n_heads, "n_heads")
    d_head = _head_size(d_model, n_heads) if d_head is None else _positive_int(d_head, "d_head")
    g = np.array([n for n in range(1, n_heads + 1) if n_heads % n == 0])  # [n]
    params = np.array([attention_parameters(d_model, n_heads, int(n), d_head) for n in g])  # [n]
    cache = np.array([kv_cache_bytes(layers, T, int(n), d_head, bytes_per_value) for n in g])  # [n]
    return GroupedCosts(
        n_kv_heads=g,
        attention_params=params,
        kv_params=2 * d_model * g * d_head,  # [n]
        cache_bytes=cache,
        cache_fraction=cache / cache[-1],  # [n]; the last divisor is h itself
        d_model=d_model,
        n_heads=n_heads,
        d_head=d_head,
        layers=_positive_int(layers, "layers"),
        T=_non_negative_int(T, "T"),
        bytes_per_value=_positive_int(bytes_per_value, "bytes_per_value"),
    )


@dataclass(frozen=True)
class ModelCache:
    """A published model's key/value cache for one sequence, as built and as the alternatives."""

    model: ModelConfig
    T: int  # tokens generated (the model's context unless given)
    cached_tokens: int  # T, or the window for a sliding-window model (its rolling buffer)
    bytes_per_value: int
    per_token_bytes: int  # one token's keys and values in every layer
    cache_bytes: int  # with the model's own kv_heads (and window)
    multi_head_bytes: int  # had every query head kept its own keys and values (g = h)
    multi_query_bytes: int  # had all query heads shared one (g = 1)
    full_context_bytes: int  # without the window: all T tokens kept, the model's own g


def model_kv_cache(model: ModelConfig, T: int | None = None, bytes_per_value: int = 2) -> ModelCache:
    """The cache `model` keeps while generating T tokens (default: its whole context).

    A sliding-window model needs only the last `window` tokens' keys and values (Mistral 7B's
    rolling buffer, Jiang et al. 2023), so its cache stops growing at the window.
    """
    T = model.context if T is None else _non_negative_int(T, "T")
    cached = T if model.window is None else min(T, model.window)

    def cache(tokens: int, g: int) -> int:
        return kv_cache_bytes(model.layers, tokens, g, model.d_head, bytes_per_value)

    return ModelCache(
        model=model,
        T=T,
        cached_tokens=cached,
        bytes_per_value=bytes_per_value,
        per_token_bytes=cache(1, model.kv_heads),
        cache_bytes=cache(cached, model.kv_heads),
        multi_head_bytes=cache(cached, model.heads),
        multi_query_bytes=cache(cached, 1),
        full_context_bytes=cache(T, model.kv_heads),
    )


# --- argument checks ---------------------------------------------------------------------------------


def _grouping(n_heads, n_kv_heads) -> tuple[int, int]:
    n_heads, n_kv_heads = _positive_int(n_heads, "n_heads"), _positive_int(n_kv_heads, "n_kv_heads")
    if n_heads % n_kv_heads:
        choices = [g for g in range(1, n_heads + 1) if n_heads % g == 0]
        raise ValueError(
            f"n_kv_heads={n_kv_heads} does not divide n_heads={n_heads}: every key/value head serves an "
            f"equal group of query heads. Choose n_kv_heads from {choices}."
        )
    return n_heads, n_kv_heads


def _kv_weight(w, name: str, d_model: int, n_kv_heads: int, d_head: int) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (d_model, n_kv_heads * d_head):
        raise ValueError(
            f"{name} must have shape [d_model, n_kv_heads · d_head] = [{d_model}, {n_kv_heads * d_head}] "
            f"({n_kv_heads} key/value heads of {d_head} columns); got {w.shape}."
        )
    return w


# --- for a page: the choices of g, one sentence through the same layer as g moves, the costs ----------


def kv_head_choices(n_heads: int) -> tuple[int, ...]:
    """Every g that groups h query heads evenly: the divisors of h, 1 (multi-query) .. h (multi-head)."""
    n_heads = _positive_int(n_heads, "n_heads")
    return tuple(g for g in range(1, n_heads + 1) if n_heads % g == 0)


def mean_pool_kv(w: np.ndarray, n_heads: int, n_kv_heads: int) -> np.ndarray:
    """A multi-head W_k (or W_v) turned into g key/value heads by averaging the columns of the heads
    in each group, as Ainslie et al. (2023, Section 2.1) convert a multi-head checkpoint.
    [d_model, h·d_head] -> [d_model, g·d_head]"""
    w = np.asarray(w, dtype=np.float64)  # [d_model, h·d_head]
    n_heads, n_kv_heads = _grouping(n_heads, n_kv_heads)
    if w.ndim != 2 or w.shape[1] % n_heads:
        raise ValueError(f"w must be [d_model, n_heads · d_head] with n_heads={n_heads}; got shape {w.shape}.")
    d_model, d_head = w.shape[0], w.shape[1] // n_heads
    heads = w.reshape(d_model, n_kv_heads, n_heads // n_kv_heads, d_head)  # [d_model, g, h/g, d_head]
    return heads.mean(axis=2).reshape(d_model, n_kv_heads * d_head)  # [d_model, g·d_head]


@dataclass(frozen=True)
class SharedMaps:
    """One sentence through one seeded layer with g key/value heads (mean-pooled from its h), and
    how alike the query heads' keys and maps are inside a group and across groups."""

    tokens: tuple[str, ...]  #                                                        T
    result: GroupedQueryResult  # every intermediate; weights [h, T, T]
    multi_head_weights: np.ndarray  # the same layer with g = h (nothing shared)     [h, T, T]
    same_queries: bool  # the heads of a group were given one W_q too
    key_gap_within: float  # max |K_i - K_j| for query heads i, j of one group: 0, they read one K
    key_gap_between: float  # the same across groups (nan with one group)
    map_gap_within: float  # max |A_i - A_j| inside a group: > 0 unless the queries are the same
    map_gap_between: float  # across groups (nan with one group)
    moved_from_multi_head: float  # max |A - A(g = h)|: what sharing changed


def shared_maps(
    tokens, d_head: int, n_heads: int, n_kv_heads: int, seed: int = 0, same_queries: bool = False
) -> SharedMaps:
    """Seeded token vectors and a seeded multi-head layer (d_model = h · d_head, causal off); its
    W_k and W_v mean-pooled to g heads. same_queries: every head of a group uses its first head's
    W_q columns, the one case in which sharing keys makes the maps equal."""
    from attention_core.embedding import token_vectors  # embedding imports nothing of this module

    tokens = tuple(str(token) for token in tokens)
    if not tokens:
        raise ValueError("the sentence has no tokens: give at least one word.")
    n_heads, n_kv_heads = _grouping(n_heads, n_kv_heads)
    d_head = _positive_int(d_head, "d_head")
    d_model = n_heads * d_head
    x = token_vectors(list(tokens), d_model, seed)  # [T, d_model]
    rng = np.random.default_rng([_non_negative_int(seed, "seed"), 2023])  # 2023: Ainslie et al.
    w_q, w_k, w_v, w_o = rng.standard_normal((4, d_model, d_model)) / np.sqrt(d_model)  # [d_model, d_model] each
    kv_of = kv_head_of(n_heads, n_kv_heads)  # [h]
    if same_queries:
        first = np.arange(n_heads) // (n_heads // n_kv_heads) * (n_heads // n_kv_heads)  # [h] each group's first head
        columns = (first[:, None] * d_head + np.arange(d_head)[None, :]).ravel()  # [h·d_head]
        w_q = w_q[:, columns]  # [d_model, d_model]
    full = grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads, n_heads)
    r = grouped_query_attention(
        x, w_q, mean_pool_kv(w_k, n_heads, n_kv_heads), mean_pool_kv(w_v, n_heads, n_kv_heads), w_o, n_heads, n_kv_heads
    )
    same = kv_of[:, None] == kv_of[None, :]  # [h, h] query heads of one group
    other = ~same  # [h, h]
    key_gap = np.abs(r.k_shared[:, None] - r.k_shared[None, :]).max(axis=(2, 3))  # [h, h]
    map_gap = np.abs(r.weights[:, None] - r.weights[None, :]).max(axis=(2, 3))  # [h, h]
    return SharedMaps(
        tokens=tokens,
        result=r,
        multi_head_weights=full.weights,
        same_queries=bool(same_queries),
        key_gap_within=float(key_gap[same].max()),
        key_gap_between=float(key_gap[other].max()) if other.any() else float("nan"),
        map_gap_within=float(map_gap[same].max()),
        map_gap_between=float(map_gap[other].max()) if other.any() else float("nan"),
        moved_from_multi_head=float(np.abs(r.weights - full.weights).max()),
    )


@dataclass(frozen=True)
class SharingCosts:
    """What g saves: this app's layer as g runs over the divisors of h, and published models' caches."""

    app: GroupedCosts  # d_model = h · d_head, `layers` layers, T tokens
    models: tuple[ModelCache, ...]  # each published model at its own context


def sharing_costs(
    d_head: int, n_heads: int, layers: int, T: int, bytes_per_value: int = 2, models: tuple[ModelConfig, ...] = ()
) -> SharingCosts:
    """grouped_costs for the app's sizes and model_kv_cache for each model (default: every published one)."""
    from attention_core.published import PUBLISHED_MODELS

    d_head, n_heads = _positive_int(d_head, "d_head"), _positive_int(n_heads, "n_heads")
    app = grouped_costs(n_heads * d_head, n_heads, layers, T, bytes_per_value)
    chosen = models or PUBLISHED_MODELS
    return SharingCosts(app=app, models=tuple(model_kv_cache(m, None, bytes_per_value) for m in chosen))
