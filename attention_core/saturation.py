"""Why scaled dot-product attention divides by √d_k: softmax saturation as d_k grows.

If q and k have independent entries with mean 0 and variance 1, their dot product q·k has mean 0
and variance d_k. Fed to softmax unscaled, scores that spread by √d_k push the weights towards a
one-hot row, where softmax's gradient (its Jacobian diag(p) - p pᵀ) vanishes. Dividing by √d_k
brings the variance back to 1 at every d_k; dividing by d_k (a common slip, made in article 003's
multi-head code) shrinks it to 1/d_k and flattens every row towards uniform.

All randomness comes in as `rng: np.random.Generator`, so a seed reproduces every number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import _positive_int, softmax

# The three ways to scale a row of scores before softmax, by id:
#   "none": s          (no scaling: variance d_k)
#   "sqrt": s / √d_k   (the Transformer's choice: variance 1)
#   "d":    s / d_k    (article 003's multi-head code: variance 1/d_k)
SCALINGS = ("none", "sqrt", "d")

# Draw at most this many normal numbers at once, so d_k = 4,096 with many samples stays within
# a few tens of megabytes.
_CHUNK_NUMBERS = 2**22


def scale_factor(d_k: int, scaling: str) -> float:
    """The number the scores are multiplied by: 1, 1/√d_k or 1/d_k."""
    d_k = _positive_int(d_k, "d_k")
    if scaling == "none":
        return 1.0
    if scaling == "sqrt":
        return 1.0 / np.sqrt(d_k)
    if scaling == "d":
        return 1.0 / d_k
    raise ValueError(f"scaling must be one of {', '.join(SCALINGS)}; got {scaling!r}.")


def _check_d_values(d_values) -> np.ndarray:
    d = np.asarray(d_values)
    if d.ndim != 1 or d.size == 0 or not np.issubdtype(d.dtype, np.integer):
        raise ValueError(f"d_values must be a non-empty list of whole numbers; got {d_values!r}.")
    if d[0] < 1 or np.any(np.diff(d) <= 0):
        raise ValueError(f"d_values must be at least 1 and strictly increasing, e.g. 1, 2, 4, 8; got {d.tolist()}.")
    return d.astype(np.int64)  # [n_d]


def sample_scores(d_values, n_queries: int, n_keys: int, rng: np.random.Generator) -> np.ndarray:
    """Scores s_ij = q_i · k_ij for random q_i, k_ij with independent N(0, 1) entries, at every
    dimension d in d_values.  -> [n_d, n_queries, n_keys]

    The dimensions are nested: the d-dimensional q is the first d entries of one long q (and the
    same for k), so one draw serves every d, and moving d up adds components to the same vectors
    rather than drawing new ones. For each d on its own the entries are still independent N(0, 1),
    which is all the derivation needs.
    """
    d = _check_d_values(d_values)  # [n_d]
    n_queries = _positive_int(n_queries, "n_queries")
    n_keys = _positive_int(n_keys, "n_keys")
    d_max = int(d[-1])
    starts = np.concatenate([[0], d[:-1]])  # [n_d]: block b holds components starts[b] .. d[b] - 1
    out = np.empty((d.size, n_queries, n_keys))  # [n_d, n_queries, n_keys]
    rows_per_chunk = max(1, _CHUNK_NUMBERS // (d_max * (n_keys + 1)))
    for lo in range(0, n_queries, rows_per_chunk):
        hi = min(lo + rows_per_chunk, n_queries)
        q = rng.standard_normal((hi - lo, 1, d_max))  # [rows, 1, d_max]
        k = rng.standard_normal((hi - lo, n_keys, d_max))  # [rows, n_keys, d_max]
        # q·k over the first d components = the running sum of q_c k_c; summing block by block
        # and then accumulating the blocks gives every d at once.
        blocks = np.add.reduceat(q * k, starts, axis=-1)  # [rows, n_keys, n_d]
        out[:, lo:hi, :] = np.moveaxis(np.cumsum(blocks, axis=-1), -1, 0)  # [n_d, rows, n_keys]
    return out  # [n_d, n_queries, n_keys]


def variance_standard_error(d_k, n_samples: int) -> np.ndarray:
    """Standard error of the measured variance of n_samples dot products of dimension d_k.

    q·k is a sum of d_k independent terms X·Y with E[(XY)²] = 1 and E[(XY)⁴] = E[X⁴]E[Y⁴] = 9,
    so E[(q·k)⁴] = 9 d_k + 3 d_k (d_k - 1) = 3 d_k² + 6 d_k, and the sample variance of n draws
    varies by Var = (E[(q·k)⁴] - d_k²) / n = (2 d_k² + 6 d_k) / n. Divide by d_k for q·k/√d_k.
    """
    d_k = np.asarray(d_k, dtype=np.float64)  # [...]
    n_samples = _positive_int(n_samples, "n_samples")
    return np.sqrt((2.0 * d_k**2 + 6.0 * d_k) / n_samples)  # [...]


@dataclass(frozen=True)
class VarianceSweep:
    """q·k for many random pairs at each d, and how its spread compares with the theory."""

    d_values: np.ndarray  # the dimensions d_k                                   [n_d]
    scores: np.ndarray  # q·k, one column per sample pair                        [n_d, n_samples]
    variance: np.ndarray  # measured variance of q·k (theory: d_k)               [n_d]
    scaled_variance: np.ndarray  # measured variance of q·k / √d_k (theory: 1)   [n_d]
    standard_error: np.ndarray  # sampling error of `variance`                   [n_d]
    scaled_standard_error: np.ndarray  # sampling error of `scaled_variance`     [n_d]


def dot_product_variance(d_values, n_samples: int, rng: np.random.Generator) -> VarianceSweep:
    """Sample n_samples pairs q, k at every d and measure the variance of q·k, before and after
    dividing by √d_k. Needs at least 2 samples."""
    d = _check_d_values(d_values).astype(np.float64)  # [n_d]
    if _positive_int(n_samples, "n_samples") < 2:
        raise ValueError(f"a variance needs at least 2 samples; got n_samples={n_samples}.")
    # Fresh pairs at every d (not nested prefixes), so the measurements' errors are independent
    # and the points scatter around the theory instead of drifting together.
    scores = np.stack([sample_scores([int(dk)], n_samples, 1, rng)[0, :, 0] for dk in d])  # [n_d, n_samples]
    variance = np.var(scores, axis=1, ddof=1)  # [n_d]
    standard_error = variance_standard_error(d, n_samples)  # [n_d]
    return VarianceSweep(
        d_values=d.astype(np.int64),  # [n_d]
        scores=scores,  # [n_d, n_samples]
        variance=variance,  # [n_d]
        scaled_variance=variance / d,  # [n_d]; Var(s/√d) = Var(s)/d
        standard_error=standard_error,  # [n_d]
        scaled_standard_error=standard_error / d,  # [n_d]
    )


def softmax_entropy(p: np.ndarray, axis: int = -1) -> np.ndarray:
    """H(p) = -Σ p_i log p_i in nats: 0 for a one-hot row, log T for a uniform row of T.
    [..., T] -> [...]"""
    p = np.asarray(p, dtype=np.float64)  # [..., T]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(p), 0.0)  # [..., T]; 0·log 0 = 0, its limit
    return np.sum(terms, axis=axis)  # [...]


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    """J = ∂softmax(s)/∂s = diag(p) - p pᵀ, written with the weights p = softmax(s).
    [..., T] -> [..., T, T]

    J_ij = p_i (δ_ij - p_j): a small change in score j moves weight i by that much. When one p_i
    is 1 and the rest 0, every entry is 0: the row no longer responds to its scores.
    """
    p = np.asarray(p, dtype=np.float64)  # [..., T]
    diag = p[..., :, None] * np.eye(p.shape[-1])  # [..., T, T]
    return diag - p[..., :, None] * p[..., None, :]  # [..., T, T]


def jacobian_norm(p: np.ndarray) -> np.ndarray:
    """The Frobenius norm ‖diag(p) - p pᵀ‖ (root of the sum of squared entries) of softmax's
    Jacobian: how strongly the weights react to the scores. 0 for a one-hot row; √(T-1)/T for
    a uniform row of T.  [..., T] -> [...]

    Summed entry by entry on purpose: the expanded form Σp² - 2Σp³ + (Σp²)² subtracts numbers
    near 1 from each other and loses the small norms of nearly one-hot rows, the very rows this
    measure is about.
    """
    J = softmax_jacobian(p)  # [..., T, T]
    return np.sqrt(np.sum(J**2, axis=(-2, -1)))  # [...]


@dataclass(frozen=True)
class SaturationSweep:
    """Rows of T scores at every d, pushed through softmax under each scaling in SCALINGS."""

    d_values: np.ndarray  # the dimensions d_k                                         [n_d]
    scalings: tuple[str, ...]  # SCALINGS, the order of the first axis below
    scores: np.ndarray  # raw scores q·k_j of each row                                 [n_d, n_rows, T]
    weights: np.ndarray  # softmax(scores · scale_factor(d_k, scaling))                [n_s, n_d, n_rows, T]
    max_weight: np.ndarray  # largest weight of a row, averaged over rows (1 = one-hot) [n_s, n_d]
    entropy: np.ndarray  # entropy of a row in nats, averaged (log T = uniform)        [n_s, n_d]
    jacobian_norm: np.ndarray  # ‖diag(p) - p pᵀ‖ of a row, averaged (0 = no gradient) [n_s, n_d]


def saturation_sweep(d_values, T: int, n_rows: int, rng: np.random.Generator) -> SaturationSweep:
    """For n_rows queries, each meeting T keys, at every d: the softmax weights under each
    scaling and three measures of how peaked the row is."""
    T = _positive_int(T, "T")
    d = _check_d_values(d_values)  # [n_d]
    scores = sample_scores(d, n_rows, T, rng)  # [n_d, n_rows, T]
    factors = np.array([[scale_factor(int(dk), s) for dk in d] for s in SCALINGS])  # [n_s, n_d]
    weights = softmax(scores[None] * factors[:, :, None, None], axis=-1)  # [n_s, n_d, n_rows, T]
    # one scaling at a time keeps the Jacobians, [n_d, n_rows, T, T], within a few tens of megabytes
    norms = np.stack([np.mean(jacobian_norm(w), axis=-1) for w in weights])  # [n_s, n_d]
    return SaturationSweep(
        d_values=d,  # [n_d]
        scalings=SCALINGS,
        scores=scores,  # [n_d, n_rows, T]
        weights=weights,  # [n_s, n_d, n_rows, T]
        max_weight=np.mean(np.max(weights, axis=-1), axis=-1),  # [n_s, n_d]
        entropy=np.mean(softmax_entropy(weights), axis=-1),  # [n_s, n_d]
        jacobian_norm=norms,  # [n_s, n_d]
    )
