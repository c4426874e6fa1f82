"""Self-attention one step at a time, the way the source articles walk through it for b_1.

Row-vector convention, as in the rest of the core: the input is I: [T, d_model] (token j is
row a_j) and a projection is I @ W. The articles write columns, Q = W_q I; that is the transpose.

Each formula of the walkthrough is one short function (project, dot_scores, scaled_softmax,
weighted_sum, matrix_form, additive_scores), so that a page can show the few lines that compute
it beside the formula; the checks of their arguments live in helpers. The single-query path
(query_step) multiplies q_i and k_j component by component and adds the products, as a student
would by hand; the matrix path (matrix_form) computes the same numbers with Q Kᵀ, so the two
agreeing is a check that the walkthrough and the matrix form tell the same story.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attention_core.attention import AttentionResult, _positive_int, scaled_dot_product_attention, softmax
from attention_core.embedding import token_vectors
from attention_core.saturation import scale_factor


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


# --- the formulas, one short function each ----------------------------------------------------------


def project(x: np.ndarray, w: np.ndarray, name: str = "W") -> np.ndarray:
    """Q = I W: every token's row a_j times the weights.  [T, d_model] @ [d_model, d_k] -> [T, d_k]"""
    x, w = _projection_args(x, w, name)  # [T, d_model], [d_model, d_k]
    return x @ w  # [T, d_k]; row j is q_j = a_j W


def dot_scores(q_i: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """α_ij = q_i · k_j for every key j, and the products that add up to it.  [d_k], [T, d_k]"""
    products = q_i[None, :] * K  # [T, d_k]; row j: q_i[c] · k_j[c] for c = 1..d_k
    return products, products.sum(axis=1)  # [T, d_k], [T]


def scaled_softmax(alpha: np.ndarray, d_k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """α'_ij = softmax_j(α_ij / √d_k): the scaled scores, e^(scaled − largest), the weights.  [T]"""
    alpha_scaled = alpha * (1.0 / np.sqrt(d_k))  # [T]
    exp_shifted = np.exp(alpha_scaled - alpha_scaled.max())  # [T]; the largest is e^0 = 1: no overflow
    return alpha_scaled, exp_shifted, exp_shifted / exp_shifted.sum()  # [T] each; the weights sum to 1


def weighted_sum(alpha_prime: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """b_i = Σ_j α'_ij v_j: each value times its weight, then their sum.  [T], [T, d_v]"""
    contributions = alpha_prime[:, None] * V  # [T, d_v]; row j: α'_ij v_j
    return contributions, contributions.sum(axis=0)  # [T, d_v], [d_v]


def matrix_form(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> AttentionResult:
    """Every query at once: A = Q Kᵀ, A' = softmax(A / √d_k) row by row, O = A' V."""
    scale = 1.0 / np.sqrt(Q.shape[1])
    A = Q @ K.T  # [T, T]; A[i, j] = q_i · k_j
    A_prime = softmax(A * scale, axis=-1)  # [T, T]; each row sums to 1
    return AttentionResult(scores=A, scaled=A * scale, weights=A_prime, output=A_prime @ V, scale=scale)


def additive_scores(Q: np.ndarray, K: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The articles' additive model, every pair at once: α_ij = w · tanh(q_i + k_j).  [T, T]"""
    return np.tanh(Q[:, None, :] + K[None, :, :]) @ w  # [T, T, d_k] @ [d_k] -> [T, T]


def _projection_args(x, w, name: str) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)  # [T, d_model]
    w = np.asarray(w, dtype=np.float64)  # [d_model, d_k]
    if x.ndim != 2 or w.ndim != 2:
        raise ValueError(f"I and {name} must both be matrices; got shapes {x.shape} and {w.shape}.")
    if x.shape[1] != w.shape[0]:
        raise ValueError(
            f"I has d_model={x.shape[1]} columns but {name} has {w.shape[0]} rows; in I @ {name} each "
            f"row of I meets each column of {name}, so {name} needs d_model={x.shape[1]} rows."
        )
    return x, w


# --- one query, term by term ------------------------------------------------------------------------


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
    best: int  # the key with the largest weight, 0-based
    stands_out: bool  # its weight is at least 1.5 / T: b_i leans towards v_best, not the plain average


def query_step(Q: np.ndarray, K: np.ndarray, V: np.ndarray, i: int) -> QueryStep:
    """The articles' walkthrough for one output b_i, term by term. Q, K: [T, d_k], V: [T, d_v],
    i: which query (0-based)."""
    Q, K, V = _query_args(Q, K, V, i)
    products, alpha = dot_scores(Q[i], K)  # [T, d_k], [T]
    alpha_scaled, exp_shifted, alpha_prime = scaled_softmax(alpha, Q.shape[1])  # [T] each
    contributions, b_i = weighted_sum(alpha_prime, V)  # [T, d_v], [d_v]
    best = int(np.argmax(alpha_prime))
    return QueryStep(
        i=int(i),
        q_i=Q[i],
        products=products,
        alpha=alpha,
        scale=1.0 / np.sqrt(Q.shape[1]),
        alpha_scaled=alpha_scaled,
        exp_shifted=exp_shifted,
        alpha_prime=alpha_prime,
        contributions=contributions,
        b_i=b_i,
        best=best,
        stands_out=bool(alpha_prime[best] >= 1.5 / len(alpha)),
    )


def _query_args(Q, K, V, i) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    T, d_k = Q.shape
    if K.shape != (T, d_k) or V.shape[0] != T:
        raise ValueError(
            f"Q {Q.shape}, K {K.shape} and V {V.shape} must have one row per token, and Q and K the "
            "same number of columns d_k."
        )
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < T:
        raise ValueError(f"the query must be one of the {T} tokens (0..{T - 1}); got {i!r}.")
    return Q, K, V


# --- the check-yourself ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreCheck:
    """The check-yourself: the score α_{1,j} of query 1 and key j (j = 2; 1 for a one-token sentence),
    from q_1 and k_j as the page prints them (two places)."""

    j: int  # the key, 0-based
    q: np.ndarray  # q_1   [d_k]
    k: np.ndarray  # k_j   [d_k]
    answer: float  # α_{1,j} = q_1 · k_j, from the unrounded numbers
    tolerance: float  # what redoing it from the two-place numbers can be off by

    def accepts(self, typed: float | None) -> bool:
        """Is a typed answer right: within the tolerance, absolute or relative, whichever is larger
        (as lab_ui.widgets.check_number grades it)?"""
        if typed is None or not np.isfinite(typed):
            return False
        return abs(typed - self.answer) <= max(self.tolerance, self.tolerance * abs(self.answer))


def score_check(Q: np.ndarray, K: np.ndarray) -> ScoreCheck:
    j = min(1, len(K) - 1)
    q, k = Q[0], K[j]  # [d_k] each
    # Each shown number is off by at most 0.005, so each product q[c] k[c] by at most about
    # 0.005 (|q[c]| + |k[c]|); 0.006 more covers the student's own rounding of the answer.
    tolerance = 0.006 + 0.005 * float(np.abs(q).sum() + np.abs(k).sum())
    return ScoreCheck(j=j, q=q, k=k, answer=float(q @ k), tolerance=tolerance)


def gives_away(values, answer: float) -> np.ndarray:
    """Which of these numbers equal the check's answer (so a page hides them until it is answered)."""
    return np.isclose(np.asarray(values, dtype=np.float64), answer, rtol=1e-9, atol=1e-12)


# --- the whole walkthrough ------------------------------------------------------------------------


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
    agrees: bool  # row i of the matrix form holds the step-by-step α' and b_i
    check: ScoreCheck  # the exercise: α_{1,j} by hand
    tokens: tuple[str, ...] = ()  # the sentence, when the walkthrough was made from one
    repeated: tuple[int, int] | None = None  # the first two identical tokens (0-based), if any
    repeats: tuple[tuple[int, ...], ...] = ()  # every token that occurs more than once: its positions (0-based)
    random_weights: bool = True  # W_q, W_k, W_v drawn from the seed (False: typed by hand)


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
    w_additive = np.asarray(w_additive, dtype=np.float64)  # [d_k]
    if K.shape[1] != Q.shape[1] or w_additive.shape != (Q.shape[1],):
        raise ValueError(
            f"W_q gives queries of length {Q.shape[1]}, W_k keys of length {K.shape[1]} and w has shape "
            f"{w_additive.shape}; a query and a key must have the same length d_k to take their dot product "
            "(and w that length too)."
        )
    step, matrix = query_step(Q, K, V, i), matrix_form(Q, K, V)
    agrees = bool(np.allclose(matrix.weights[i], step.alpha_prime) and np.allclose(matrix.output[i], step.b_i))
    additive = additive_scores(Q, K, w_additive)  # [T, T]
    return QKVWalkthrough(
        x=x,
        w_q=np.asarray(w_q, dtype=np.float64),
        w_k=np.asarray(w_k, dtype=np.float64),
        w_v=np.asarray(w_v, dtype=np.float64),
        Q=Q,
        K=K,
        V=V,
        query=step,
        matrix=matrix,
        w_additive=w_additive,
        additive_scores=additive,
        additive_weights=softmax(additive, axis=-1),
        agrees=agrees,
        check=score_check(Q, K),
    )


def first_repeat(tokens) -> tuple[int, int] | None:
    """The first pair of identical tokens (0-based, in reading order), or None."""
    return min(((a, b) for b, token in enumerate(tokens) for a in range(b) if tokens[a] == token), default=None)


def repeat_groups(tokens) -> tuple[tuple[int, ...], ...]:
    """Every token that occurs more than once, as the positions it occurs at (0-based), in the
    order of first occurrence: "the cat saw the dog the end" -> ((0, 3, 5),). A sentence may repeat
    a word three times, or two words twice: a page names every repeat, not only the first pair."""
    at: dict[str, list[int]] = {}
    for j, token in enumerate(tokens):
        at.setdefault(token, []).append(j)
    return tuple(tuple(js) for js in at.values() if len(js) > 1)


def sentence_walkthrough(
    tokens: tuple[str, ...], d_model: int, d_k: int, seed: int, i: int, typed: tuple | None = None
) -> QKVWalkthrough:
    """The Q, K, V page's walkthrough of a sentence: token vectors and weights from `seed`, or the
    three weight matrices `typed` by hand (W_q, W_k, W_v as nested tuples, [d_model, d_k] each)."""
    w_q, w_k, w_v, w_additive = walkthrough_weights(d_model, d_k, seed)  # [d_model, d_k] x 3, [d_k]
    if typed is not None:
        w_q, w_k, w_v = (np.array(m, dtype=np.float64) for m in typed)  # [d_model, d_k] each
    r = qkv_walkthrough(sentence_matrix(list(tokens), d_model, seed), w_q, w_k, w_v, i, w_additive)
    return replace(
        r,
        tokens=tuple(tokens),
        repeated=first_repeat(tokens),
        repeats=repeat_groups(tokens),
        random_weights=typed is None,
    )


@dataclass(frozen=True)
class QueryScores:
    """One query against a few keys, every number a student writes when scoring them by hand."""

    q: np.ndarray  # the query                                              [d_k]
    keys: np.ndarray  # one key k_j per row                                 [n, d_k]
    products: np.ndarray  # q_c · k_jc, component by component               [n, d_k]
    alpha: np.ndarray  # α_j = q · k_j = Σ_c q_c k_jc                       [n]
    q_norm: float  # |q|
    k_norms: np.ndarray  # |k_j|                                            [n]
    cosine: np.ndarray  # cos θ_j = α_j / (|q| |k_j|): 0 for a zero vector   [n]
    scaling: str  # "none", "sqrt" (1/√d_k, the paper's) or "d" (1/d_k, article 003's mistake)
    scale: float  # the factor the scores are multiplied by
    scaled: np.ndarray  # α_j · scale                                      [n]
    weights: np.ndarray  # α'_j = softmax(scaled)_j                         [n]


def query_scores(q, keys, scaling: str = "sqrt") -> QueryScores:
    """Score one query against each key: the dot product, the same as |q| |k| cos θ, scaled, then
    softmax.  [d_k], [n, d_k] -> QueryScores"""
    q = np.asarray(q, dtype=np.float64)  # [d_k]
    keys = np.atleast_2d(np.asarray(keys, dtype=np.float64))  # [n, d_k]
    if q.ndim != 1 or keys.shape[1] != q.shape[0]:
        raise ValueError(f"the query has {q.size} components and each key {keys.shape[1]}: they must match.")
    result = scaled_dot_product_attention(q[None, :], keys, keys, scale=scale_factor(q.shape[0], scaling))
    q_norm, k_norms = float(np.linalg.norm(q)), np.linalg.norm(keys, axis=1)  # [n]
    lengths = q_norm * k_norms  # [n]
    alpha = result.scores[0]  # [n]
    cosine = np.divide(alpha, lengths, out=np.zeros_like(alpha), where=lengths > 0)  # [n]
    return QueryScores(
        q=q,
        keys=keys,
        products=q[None, :] * keys,  # [n, d_k]
        alpha=alpha,
        q_norm=q_norm,
        k_norms=k_norms,
        cosine=np.clip(cosine, -1.0, 1.0),  # [n]
        scaling=scaling,
        scale=result.scale,
        scaled=result.scaled[0],  # [n]
        weights=result.weights[0],  # [n]
    )
