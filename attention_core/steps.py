"""Self-attention one step at a time, the way the seed articles walk through it for b_1.

Row-vector convention, as in the rest of the core: the input is I: [T, d_model] (token j is
row a_j) and a projection is I @ W. The articles write columns, Q = W_q I; that is the transpose.

The single-query path (query_step) works element by element on purpose: it multiplies q_i and
k_j component by component and adds the products, exactly as a student would by hand. The matrix
path (scaled_dot_product_attention) computes the same numbers with Q Kᵀ, so the two agreeing is
a check that the walkthrough and the matrix form tell the same story.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import (
    AttentionResult,
    _positive_int,
    additive_attention_scores,
    scaled_dot_product_attention,
    softmax,
)
from attention_core.embedding import token_vectors


def sentence_matrix(tokens: list[str], d_model: int, seed: int = 0, decimals: int = 2) -> np.ndarray:
    """I: one row a_j per token, from token_vectors (the same token always gets the same row),
    rounded to `decimals` places so that the numbers on screen are the ones computed with.
    [T, d_model]"""
    if not tokens:
        raise ValueError("the sentence has no tokens; type at least one word.")
    return np.round(token_vectors(tokens, d_model, seed), decimals) + 0.0  # [T, d_model]


def random_weights(d_model: int, d_k: int, rng: np.random.Generator, decimals: int = 2) -> np.ndarray:
    """A projection matrix W: [d_model, d_k] drawn from N(0, 1/d_model).

    The 1/d_model variance keeps each component of x @ W near variance 1 when x's components
    are, so the scores start in the same range whatever d_model is. Rounding to `decimals`
    places makes the numbers a student sees the numbers the computation uses.
    """
    d_model = _positive_int(d_model, "d_model")
    d_k = _positive_int(d_k, "d_k")
    w = rng.standard_normal((d_model, d_k)) / np.sqrt(d_model)  # [d_model, d_k]
    return np.round(w, decimals) + 0.0  # [d_model, d_k]; + 0.0 turns -0.0 into 0.0


def walkthrough_weights(d_model: int, d_k: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """W_q, W_k, W_v ([d_model, d_k] each, from random_weights) and the additive model's vector w
    ([d_k], N(0, 1), rounded to 2 places), all drawn from one generator seeded with `seed`, in that
    order, so a seed in a link always gives the same four."""
    rng = np.random.default_rng(seed)
    w_q, w_k, w_v = (random_weights(d_model, d_k, rng) for _ in range(3))  # [d_model, d_k] each
    w_additive = np.round(rng.standard_normal(d_k), 2) + 0.0  # [d_k]
    return w_q, w_k, w_v, w_additive


def project(x: np.ndarray, w: np.ndarray, name: str = "W") -> np.ndarray:
    """One projection in the row convention: x @ W.  [T, d_model] @ [d_model, d_k] -> [T, d_k]"""
    x = np.asarray(x, dtype=np.float64)  # [T, d_model]
    w = np.asarray(w, dtype=np.float64)  # [d_model, d_k]
    if x.ndim != 2 or w.ndim != 2:
        raise ValueError(f"I and {name} must both be matrices; got shapes {x.shape} and {w.shape}.")
    if x.shape[1] != w.shape[0]:
        raise ValueError(
            f"I has d_model={x.shape[1]} columns but {name} has {w.shape[0]} rows; in I @ {name} each "
            f"row of I meets each column of {name}, so {name} needs d_model={x.shape[1]} rows."
        )
    return x @ w  # [T, d_k]


@dataclass(frozen=True)
class QueryStep:
    """Everything that makes b_i, the output for one query token i, written out in full."""

    i: int  # the query's position, 0-based
    q_i: np.ndarray  # the query vector, row i of Q                  [d_k]
    products: np.ndarray  # q_i[c] * k_j[c]: row j holds the terms of α_ij  [T, d_k]
    alpha: np.ndarray  # α_ij = q_i · k_j, the sum of row j of products  [T]
    scale: float  # 1/√d_k
    alpha_scaled: np.ndarray  # α_ij / √d_k                                 [T]
    exp_shifted: np.ndarray  # e^(α_ij/√d_k − max_j): softmax's numerators  [T]
    alpha_prime: np.ndarray  # α'_ij = softmax over j, sums to 1            [T]
    contributions: np.ndarray  # α'_ij v_j, one weighted value per row      [T, d_v]
    b_i: np.ndarray  # b_i = Σ_j α'_ij v_j, the sum of the contributions [d_v]


def query_step(Q: np.ndarray, K: np.ndarray, V: np.ndarray, i: int) -> QueryStep:
    """The articles' walkthrough for one output b_i, term by term.

    Q, K: [T, d_k], V: [T, d_v], i: which query (0-based). Subtracting the largest scaled score
    before exp() changes no weight (it cancels in the fraction) but keeps exp() from overflowing.
    """
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    T, d_k = Q.shape
    if K.shape != (T, d_k) or V.shape[0] != T:
        raise ValueError(
            f"Q {Q.shape}, K {K.shape} and V {V.shape} must have one row per token, and Q and K the "
            "same number of columns d_k."
        )
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < T:
        raise ValueError(f"the query must be one of the {T} tokens (0..{T - 1}); got {i!r}.")
    q_i = Q[i]  # [d_k]
    products = q_i[None, :] * K  # [T, d_k]; row j: q_i[c] k_j[c] for c = 1..d_k
    alpha = products.sum(axis=1)  # [T]
    scale = 1.0 / np.sqrt(d_k)
    alpha_scaled = alpha * scale  # [T]
    exp_shifted = np.exp(alpha_scaled - alpha_scaled.max())  # [T], largest term is exactly 1
    alpha_prime = exp_shifted / exp_shifted.sum()  # [T]
    contributions = alpha_prime[:, None] * V  # [T, d_v]
    b_i = contributions.sum(axis=0)  # [d_v]
    return QueryStep(
        i=int(i), q_i=q_i, products=products, alpha=alpha, scale=scale, alpha_scaled=alpha_scaled,
        exp_shifted=exp_shifted, alpha_prime=alpha_prime, contributions=contributions, b_i=b_i,
    )  # fmt: skip


@dataclass(frozen=True)
class QKVWalkthrough:
    """Self-attention of one sentence with every intermediate, for a page to show."""

    x: np.ndarray  # I, one row a_j per token           [T, d_model]
    w_q: np.ndarray  # query projection                  [d_model, d_k]
    w_k: np.ndarray  # key projection                    [d_model, d_k]
    w_v: np.ndarray  # value projection (d_v = d_k here) [d_model, d_k]
    Q: np.ndarray  # Q = I W_q                          [T, d_k]
    K: np.ndarray  # K = I W_k                          [T, d_k]
    V: np.ndarray  # V = I W_v                          [T, d_k]
    query: QueryStep  # b_i for the chosen query, term by term
    matrix: AttentionResult  # A = Q Kᵀ, A' = softmax(A/√d_k), O = A' V, all queries at once
    w_additive: np.ndarray  # the additive model's vector w  [d_k]
    additive_scores: np.ndarray  # w · tanh(q_i + k_j)      [T, T]
    additive_weights: np.ndarray  # softmax of those, by row [T, T]


def qkv_walkthrough(
    x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray, i: int, w_additive: np.ndarray
) -> QKVWalkthrough:
    """Project I into Q, K, V; walk query i through scores, scaling, softmax and the weighted sum;
    compute the same for every query in matrix form; and score the pairs the additive way too.

    x: [T, d_model]; w_q, w_k, w_v: [d_model, d_k]; i: 0-based query; w_additive: [d_k].
    """
    x = np.asarray(x, dtype=np.float64)  # [T, d_model]
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"I must hold at least one token vector, shape [T, d_model]; got {x.shape}.")
    Q = project(x, w_q, "W_q")  # [T, d_k]
    K = project(x, w_k, "W_k")  # [T, d_k]
    V = project(x, w_v, "W_v")  # [T, d_k]
    if K.shape[1] != Q.shape[1]:
        raise ValueError(
            f"W_q gives queries of length {Q.shape[1]} but W_k gives keys of length {K.shape[1]}; a query "
            "and a key must have the same length d_k to take their dot product."
        )
    additive = additive_attention_scores(Q, K, w_additive)  # [T, T]
    return QKVWalkthrough(
        x=x, w_q=np.asarray(w_q, dtype=np.float64), w_k=np.asarray(w_k, dtype=np.float64),
        w_v=np.asarray(w_v, dtype=np.float64), Q=Q, K=K, V=V, query=query_step(Q, K, V, i),
        matrix=scaled_dot_product_attention(Q, K, V), w_additive=np.asarray(w_additive, dtype=np.float64),
        additive_scores=additive, additive_weights=softmax(additive, axis=-1),
    )  # fmt: skip
