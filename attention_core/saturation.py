"""Why scaled dot-product attention divides by √d_k: softmax saturation as d_k grows.

If q and k have independent entries with mean 0 and variance 1, their dot product q·k has mean 0
and variance d_k. Fed to softmax unscaled, scores that spread by √d_k push the weights towards a
one-hot row, where softmax's gradient (its Jacobian diag(p) - p pᵀ) vanishes. Dividing by √d_k
brings the variance back to 1 at every d_k; dividing by d_k (a common slip, made in article 003's
multi-head code) shrinks it to 1/d_k and flattens every row towards uniform.

All randomness comes in as `rng: np.random.Generator`, so a seed reproduces every number; the
page's two experiments draw from a seed through `variance_sweep` and `score_rows`.

Two gradients are told apart here. Softmax reads the scaled scores z = c·s (c = 1, 1/√d_k or
1/d_k): ∂p/∂z = diag(p) - p pᵀ is softmax's own slope. What reaches q and k goes through the raw
scores s = q·k, and by the chain rule ∂p/∂s = c · ∂p/∂z: dividing by d_k shrinks it d_k-fold
even when softmax's own slope looks healthy.
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

D_VALUES = tuple(2**i for i in range(13))  # 1, 2, 4, ..., 4096: the page's sweep of d_k
T_MAX = 64  # the most keys a row of the page's experiment has
N_ROWS = 256  # rows of scores per d_k in that experiment: smooth medians, a quick first draw

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
    dividing by √d_k. Fresh pairs at every d (not nested prefixes), so the measurements' errors are
    independent and the points scatter around the theory instead of drifting together."""
    d = _variance_input(d_values, n_samples)  # [n_d]
    scores = np.stack([pair_dot_products(int(dk), n_samples, rng) for dk in d])  # [n_d, n_samples]
    variance = np.var(scores, axis=1, ddof=1)  # [n_d]
    standard_error = variance_standard_error(d, n_samples)  # [n_d]
    return VarianceSweep(
        d_values=d.astype(np.int64),
        scores=scores,
        variance=variance,
        scaled_variance=variance / d,  # Var(s/√d) = Var(s)/d
        standard_error=standard_error,
        scaled_standard_error=standard_error / d,
    )


def pair_dot_products(d_k: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """s = q·k = Σ_i q_i k_i for n_samples pairs of vectors with d_k independent N(0, 1) entries,
    drawn a few thousand pairs at a time so that d_k = 4,096 needs little memory.  -> [n_samples]"""
    rows = max(1, _CHUNK_NUMBERS // (2 * d_k))  # pairs per draw
    s = []
    for lo in range(0, n_samples, rows):
        q = rng.standard_normal((min(rows, n_samples - lo), d_k))  # [rows, d_k]
        k = rng.standard_normal((min(rows, n_samples - lo), d_k))  # [rows, d_k]
        s.append(np.sum(q * k, axis=1))  # [rows]
    return np.concatenate(s)  # [n_samples]


def _variance_input(d_values, n_samples) -> np.ndarray:
    d = _check_d_values(d_values).astype(np.float64)  # [n_d]
    if _positive_int(n_samples, "n_samples") < 2:
        raise ValueError(f"a variance needs at least 2 samples; got n_samples={n_samples}.")
    return d


def variance_sweep(seed: int, n_samples: int, d_values=D_VALUES) -> VarianceSweep:
    """dot_product_variance drawn from the seed's own stream (stream 1), so a link with the same
    seed and sample count shows the same histograms."""
    return dot_product_variance(d_values, n_samples, np.random.default_rng([1, seed]))


def score_rows(seed: int, d_values=D_VALUES, n_rows: int = N_ROWS, n_keys: int = T_MAX) -> np.ndarray:
    """Rows of raw scores q·k_j for the softmax experiment: each row is one query q and n_keys
    keys k_j with independent N(0, 1) entries, nested in d as in sample_scores, drawn once per
    seed (stream 2) with the most keys a row can have. A row of T keys is its first T, so moving
    T draws nothing and keeps the same query and the same first keys.  -> [n_d, n_rows, n_keys]

    Drawn the short way, exactly: given q, the part of q·k_j from a block of components a..b-1 is
    a sum of q_c k_jc over independent k_jc ~ N(0, 1), which is N(0, Σ q_c²). One normal number
    per key and block replaces b - a of them: d = 4,096 would need 68 million numbers, this
    needs about a million.
    """
    d = _check_d_values(d_values)  # [n_d]
    n_rows, n_keys = _positive_int(n_rows, "n_rows"), _positive_int(n_keys, "n_keys")
    rng = np.random.default_rng([2, seed])
    starts = np.concatenate([[0], d[:-1]])  # [n_d]: block b holds components starts[b] .. d[b] - 1
    q = rng.standard_normal((n_rows, int(d[-1])))  # [n_rows, d_max]
    q_block = np.sqrt(np.add.reduceat(q**2, starts, axis=-1))  # [n_rows, n_d]: ‖q‖ over each block
    parts = rng.standard_normal((n_rows, n_keys, d.size)) * q_block[:, None, :]  # [n_rows, n_keys, n_d]
    return np.moveaxis(np.cumsum(parts, axis=-1), -1, 0)  # [n_d, n_rows, n_keys]


def softmax_entropy(p: np.ndarray, axis: int = -1) -> np.ndarray:
    """H(p) = -Σ p_i log p_i in nats: 0 for a one-hot row, log T for a uniform row of T.
    [..., T] -> [...]"""
    p = np.asarray(p, dtype=np.float64)  # [..., T]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(p), 0.0)  # [..., T]; 0·log 0 = 0, its limit
    return np.sum(terms, axis=axis)  # [...]


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    """J = ∂p/∂z = diag(p) - p pᵀ, the slope of p = softmax(z), written with the weights p.
    [..., T] -> [..., T, T]

    J_ij = p_i (δ_ij - p_j): a small change in score j moves weight i by that much. When one p_i
    is 1 and the rest 0, every entry is 0: the row no longer responds to its scores.
    """
    p = np.asarray(p, dtype=np.float64)  # [..., T]
    diag = p[..., :, None] * np.eye(p.shape[-1])  # [..., T, T]
    return diag - p[..., :, None] * p[..., None, :]  # [..., T, T]


def jacobian_norm(p: np.ndarray) -> np.ndarray:
    """‖J‖ = ‖diag(p) - p pᵀ‖, the root of the sum of J's squared entries: how strongly the
    weights react to the scores softmax reads. 0 for a one-hot row, √(T-1)/T for a uniform one.
    [..., T] -> [...]"""
    p = np.asarray(p, dtype=np.float64)  # [..., T]
    others = sum_of_others(p)  # [..., T]  Σ_{j≠i} p_j = 1 - p_i
    others_sq = sum_of_others(p**2)  # [..., T]  Σ_{j≠i} p_j²
    return np.sqrt(np.sum(p**2 * (others**2 + others_sq), axis=-1))  # [...]


def raw_score_slope(p: np.ndarray, c: float) -> np.ndarray:
    """‖∂p/∂s‖ for p = softmax(c·s): the chain rule puts the scale factor c in front of softmax's
    own slope, ∂p/∂s = c·J.  [..., T] -> [...]"""
    return c * jacobian_norm(p)  # [...]


def sum_of_others(x: np.ndarray) -> np.ndarray:
    """Σ_{j≠i} x_j for every i, summed from the others (the sums before i and after i), never as
    total - x_i: next to a weight of 1 - 1e-12 that subtraction would leave only rounding error,
    and the slopes of nearly one-hot rows are the very numbers this page is about.  [..., T] -> [..., T]"""
    x = np.asarray(x, dtype=np.float64)  # [..., T]
    zero = np.zeros_like(x[..., :1])  # [..., 1]
    before = np.concatenate([zero, np.cumsum(x, axis=-1)[..., :-1]], axis=-1)  # [..., T]
    after = np.concatenate([np.cumsum(x[..., ::-1], axis=-1)[..., :-1][..., ::-1], zero], axis=-1)  # [..., T]
    return before + after  # [..., T]


@dataclass(frozen=True)
class SaturationSweep:
    """Rows of T raw scores at every d, pushed through softmax under each scaling in SCALINGS;
    every measure is the median over the rows, the typical row (a few rows with two nearly equal
    top scores keep large slopes while most rows have none, and a mean would hide that)."""

    d_values: np.ndarray  # the dimensions d_k                                              [n_d]
    scalings: tuple[str, ...]  # SCALINGS, the order of the first axis below
    T: int  # keys per row
    n_rows: int  # rows per d_k
    first_scores: np.ndarray  # raw scores q·k_j of the first row                          [n_d, T]
    first_weights: np.ndarray  # its weights under each scaling                            [n_s, n_d, T]
    max_weight: np.ndarray  # largest weight of a row (1 = one-hot, 1/T = uniform)         [n_s, n_d]
    entropy: np.ndarray  # entropy of a row in nats (log T = uniform)                      [n_s, n_d]
    slope_scaled: np.ndarray  # ‖∂p/∂z‖, z = c·s the scores softmax reads (0 = saturated)  [n_s, n_d]
    slope_raw: np.ndarray  # ‖∂p/∂s‖ = c‖∂p/∂z‖, s = q·k the raw scores                   [n_s, n_d]


def saturation_sweep(d_values, scores: np.ndarray, T: int) -> SaturationSweep:
    """The first T keys of every row of raw scores [n_d, n_rows, ≥T] (score_rows), at every d in
    d_values, through softmax under each scaling: the weights of the first row, and the median
    over rows of how peaked a row is and how strongly it still responds."""
    d = _check_d_values(d_values)  # [n_d]
    scores = np.asarray(scores, dtype=np.float64)  # [n_d, n_rows, n_keys]
    T = _positive_int(T, "T")
    if scores.ndim != 3 or scores.shape[0] != d.size or scores.shape[2] < T:
        raise ValueError(f"scores must be [n_d={d.size}, n_rows, at least T={T} keys]; got shape {scores.shape}.")
    s = scores[:, :, :T]  # [n_d, n_rows, T]
    factors = np.array([[scale_factor(int(dk), name) for dk in d] for name in SCALINGS])  # [n_s, n_d]
    weights = softmax(s[None] * factors[:, :, None, None], axis=-1)  # [n_s, n_d, n_rows, T]
    slope = jacobian_norm(weights)  # [n_s, n_d, n_rows]
    slope_scaled = np.median(slope, axis=-1)  # [n_s, n_d]
    return SaturationSweep(
        d_values=d,  # [n_d]
        scalings=SCALINGS,
        T=T,
        n_rows=s.shape[1],
        first_scores=s[:, 0, :].copy(),  # [n_d, T]
        first_weights=weights[:, :, 0, :].copy(),  # [n_s, n_d, T]
        max_weight=np.median(np.max(weights, axis=-1), axis=-1),  # [n_s, n_d]
        entropy=np.median(softmax_entropy(weights), axis=-1),  # [n_s, n_d]
        slope_scaled=slope_scaled,  # [n_s, n_d]
        slope_raw=factors * slope_scaled,  # [n_s, n_d]: c > 0 is the same for every row, so it commutes with the median
    )
