"""Looking at the heads of multi-head attention: which head counts are possible, random weights to
run it with, how spread out each head's attention is, how alike two heads are, which simple
pattern a head follows, and what h heads cost compared with one.

Weights are attention maps alpha: [h, T_q, T_k], each row a probability distribution over keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import _head_size, _positive_int

# The simple patterns trained heads often follow, in the order head_patterns() reports them.
PATTERNS = ("self", "previous", "next", "first", "last")


def head_choices(d_model: int, max_heads: int | None = None) -> list[int]:
    """Every n_heads that cuts d_model columns into equal whole blocks: the divisors of d_model,
    smallest first, none above max_heads. d_model = 8 -> [1, 2, 4, 8]; a prime d_model allows
    only 1 and itself."""
    d_model = _positive_int(d_model, "d_model")
    top = d_model if max_heads is None else min(d_model, _positive_int(max_heads, "max_heads"))
    return [h for h in range(1, top + 1) if d_model % h == 0]


def head_size(d_model: int, n_heads: int) -> int:
    """d_head = d_model / n_heads, the length of each head's query, key and value vectors.
    ValueError, naming the allowed head counts, when n_heads does not divide d_model."""
    return _head_size(_positive_int(d_model, "d_model"), n_heads)


@dataclass(frozen=True)
class Projections:
    """The four learned matrices of one multi-head attention layer, row convention (x @ W)."""

    w_q: np.ndarray  # queries               [d_model, d_model]
    w_k: np.ndarray  # keys                  [d_model, d_model]
    w_v: np.ndarray  # values                [d_model, d_model]
    w_o: np.ndarray  # mixes the joined heads [d_model, d_model]


def random_projections(d_model: int, rng: np.random.Generator) -> Projections:
    """Untrained weights with N(0, 1/d_model) entries, drawn in the order W_q, W_k, W_v, W_o.

    The 1/d_model variance (Xavier / LeCun) keeps x @ W at the size of x: an input with N(0, 1)
    entries gives queries and keys with N(0, 1) entries, so after the 1/sqrt(d_head) scaling the
    scores have variance about 1 whatever d_model and n_heads are, and the maps are neither flat
    nor one-hot.
    """
    d_model = _positive_int(d_model, "d_model")
    std = 1.0 / np.sqrt(d_model)
    w_q, w_k, w_v, w_o = (rng.standard_normal((d_model, d_model)) * std for _ in range(4))  # 4 x [d_model, d_model]
    return Projections(w_q=w_q, w_k=w_k, w_v=w_v, w_o=w_o)


def row_entropy(weights: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row:  H = -sum_j alpha_j log2 alpha_j.  [..., T_k] -> [...]

    0 bits: the row puts all its weight on one key; log2(T_k) bits: spread evenly over all keys.
    A zero weight adds nothing (the limit of a log a as a -> 0), so masked keys are harmless.
    """
    alpha = _distributions(weights, "weights")  # [..., T_k]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(alpha > 0, alpha * np.log2(np.where(alpha > 0, alpha, 1.0)), 0.0)  # [..., T_k]
    return np.maximum(-terms.sum(axis=-1), 0.0)  # [...]; rounding can leave -1e-16 for a one-hot row


def mean_entropy(weights: np.ndarray) -> np.ndarray:
    """Each head's entropy averaged over its queries, in bits.  [h, T_q, T_k] -> [h]

    A low value: the head's queries each look at one or two keys. A high value: it blurs over many.
    """
    alpha = _maps(weights)  # [h, T_q, T_k]
    return row_entropy(alpha).mean(axis=-1)  # [h]


def mean_peak(weights: np.ndarray) -> np.ndarray:
    """Each head's largest weight per query, averaged over its queries.  [h, T_q, T_k] -> [h]

    1: every query puts all its weight on one key; 1/T_k: every row is uniform.
    """
    alpha = _maps(weights)  # [h, T_q, T_k]
    return alpha.max(axis=-1).mean(axis=-1)  # [h]


def head_overlap(weights: np.ndarray) -> np.ndarray:
    """The share of attention two heads put in the same place: 1 identical, 0 disjoint.  [h, T_q, T_k] -> [h, h]

    1 minus the total variation distance between their rows, averaged over queries.
    """
    alpha = _maps(weights)  # [h, T_q, T_k]
    both = np.minimum(alpha[:, None], alpha[None, :])  # [h, h, T_q, T_k]
    return both.sum(axis=-1).mean(axis=-1)  # [h, h]


def mean_overlap(weights: np.ndarray) -> float:
    """The average overlap over all pairs of different heads: one number for "how alike are this
    layer's heads". 1 with a single head (it is identical to itself).  [h, T_q, T_k] -> float"""
    o = head_overlap(weights)  # [h, h]
    h = o.shape[0]
    if h == 1:
        return 1.0
    return float((o.sum() - np.trace(o)) / (h * (h - 1)))


def head_patterns(weights: np.ndarray) -> np.ndarray:
    """For each head, the average weight a query gives to itself, the previous token, the next
    token, the first token and the last token (PATTERNS order).  [h, T, T] -> [h, 5]

    Trained heads often follow one of these (in BERT-like models the first and last tokens are
    [CLS] and [SEP], and every row counts here, theirs too); a share near 1 names the head's job.
    The first query has no previous token and the last no next one: "previous" and "next" are
    averaged over the T - 1 queries that have one, so a head that always looks one step back
    scores 1 at any T (counting the first row as 0 gave 15/16 = 94% to such a head on 16 tokens);
    a single token has neither, 0. The shares of one head can add up to more than 1 (for query 0,
    "self" and "first" are the same key).
    """
    alpha = _maps(weights)  # [h, T, T]
    T = alpha.shape[-1]
    if alpha.shape[-2] != T:
        raise ValueError(f"head patterns need self-attention maps, square [h, T, T]; got {alpha.shape}.")
    neighbours = max(T - 1, 1)  # the queries that have a previous (or a next) token
    shares = [
        np.trace(alpha, offset=0, axis1=1, axis2=2) / T,  # [h]  alpha[i, i]
        np.trace(alpha, offset=-1, axis1=1, axis2=2) / neighbours,  # [h]  alpha[i, i-1], i >= 1
        np.trace(alpha, offset=1, axis1=1, axis2=2) / neighbours,  # [h]  alpha[i, i+1], i <= T-2
        alpha[:, :, 0].mean(axis=-1),  # [h]  alpha[i, 0]
        alpha[:, :, -1].mean(axis=-1),  # [h]  alpha[i, T-1]
    ]
    return np.stack(shares, axis=-1)  # [h, 5]


@dataclass(frozen=True)
class ScoreSplit:
    """One head over all d_model columns against h heads over d_head columns each."""

    full: np.ndarray  # Q Kᵀ over all columns: what a single head would score   [T, T]
    per_head: np.ndarray  # Q_i K_iᵀ, head i's own columns only                    [h, T, T]
    summed: np.ndarray  # sum_i Q_i K_iᵀ, equal to `full`                           [T, T]


def score_split(q: np.ndarray, k: np.ndarray, n_heads: int) -> ScoreSplit:
    """Split the raw dot products by head: Q Kᵀ = sum_i Q_i K_iᵀ, a dot product is a sum over columns.
    [T, d_model], [T, d_model] -> ScoreSplit. One big head blends the h tables before one softmax."""
    q, k, d_head = _score_operands(q, k, n_heads)  # [T, d_model], [T, d_model], d_model / h
    q_heads = q.reshape(q.shape[0], n_heads, d_head).transpose(1, 0, 2)  # [h, T, d_head]
    k_heads = k.reshape(k.shape[0], n_heads, d_head).transpose(1, 0, 2)  # [h, T, d_head]
    per_head = q_heads @ k_heads.transpose(0, 2, 1)  # [h, T, T]
    return ScoreSplit(full=q @ k.T, per_head=per_head, summed=per_head.sum(axis=0))  # [T, T], [h, T, T], [T, T]


@dataclass(frozen=True)
class MultiHeadCost:
    """What a multi-head attention layer costs, weights without biases."""

    d_model: int  # width of every token's vector
    n_heads: int  # h
    d_head: int  # d_model / h, the length of each head's q, k and v
    qkv_per_head: int  # W_q^i, W_k^i, W_v^i of one head: 3 · d_model · d_head
    qkv: int  # all heads together: h · 3 · d_model · d_head = 3 · d_model²
    w_o: int  # the output matrix: d_model · d_model
    total: int  # qkv + w_o = 4 · d_model², whatever h is
    score_products: int  # multiplications for the scores: h · T · T · d_head = T² · d_model
    softmax_rows: int  # separate attention distributions: h · T (one per head and query)


def multi_head_cost(d_model: int, n_heads: int, T: int) -> MultiHeadCost:
    """Parameters and work of h heads of size d_model / h, for a sentence of T tokens.

    Head i owns d_head columns of W_q, W_k and W_v ([d_model, d_head] each), so h heads own
    exactly the d_model columns that one big head would: the same 3 · d_model² numbers, cut
    differently. What changes is the number of attention maps, h of them instead of one.
    """
    d_model = _positive_int(d_model, "d_model")
    d_head = _head_size(d_model, n_heads)
    T = _positive_int(T, "T")
    qkv_per_head = 3 * d_model * d_head
    return MultiHeadCost(
        d_model=d_model,
        n_heads=n_heads,
        d_head=d_head,
        qkv_per_head=qkv_per_head,
        qkv=n_heads * qkv_per_head,
        w_o=d_model * d_model,
        total=n_heads * qkv_per_head + d_model * d_model,
        score_products=n_heads * T * T * d_head,
        softmax_rows=n_heads * T,
    )


# --- argument checks ----------------------------------------------------------------------------


def _distributions(weights, name: str) -> np.ndarray:
    alpha = np.asarray(weights, dtype=np.float64)
    if alpha.ndim < 1 or alpha.shape[-1] == 0:
        raise ValueError(f"{name} must hold at least one weight per row; got shape {alpha.shape}.")
    if not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
        raise ValueError(f"{name} must be attention weights: finite and never negative (softmax output).")
    return alpha


def _score_operands(q, k, n_heads: int) -> tuple[np.ndarray, np.ndarray, int]:
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.ndim != 2 or q.shape != k.shape:
        raise ValueError(f"q and k must both be [T, d_model] of the same shape; got {q.shape} and {k.shape}.")
    return q, k, _head_size(q.shape[1], n_heads)


def _maps(weights) -> np.ndarray:
    alpha = _distributions(weights, "weights")
    if alpha.ndim != 3:
        raise ValueError(f"weights must be one map per head, shape [h, T_q, T_k]; got shape {alpha.shape}.")
    return alpha
