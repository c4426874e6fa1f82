"""Positional encoding: the fixed sinusoids of "Attention Is All You Need", why a shift in position
is a rotation of them, how alike two positions' vectors are, and why self-attention needs them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import _non_negative_int, _positive_int, scaled_dot_product_attention


def sinusoidal_positional_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2i] = sin(p / base^(2i/d_model)),  PE[p, 2i+1] = cos(p / base^(2i/d_model)).

    Each pair of columns (2i, 2i+1) is a point turning on a circle at its own frequency, fast
    for small i and slow for large i, so every position gets a distinct pattern. An odd d_model
    ends on a lone sine column.  -> [n_positions, d_model]
    """
    n_positions = _non_negative_int(n_positions, "n_positions")
    d_model = _positive_int(d_model, "d_model")
    base = _base(base)
    p = np.arange(n_positions, dtype=np.float64)[:, None]  # [n_positions, 1]
    two_i = np.arange(0, d_model, 2, dtype=np.float64)  # [ceil(d_model/2)]
    angle = p / base ** (two_i / d_model)  # [n_positions, ceil(d_model/2)]
    pe = np.zeros((n_positions, d_model))  # [n_positions, d_model]
    pe[:, 0::2] = np.sin(angle)  # even columns
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])  # odd columns; one fewer when d_model is odd
    return pe  # [n_positions, d_model]


def pair_frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """omega_i = 1 / base^(2i/d_model): the angle (radians) that column pair i turns per position.
    -> [ceil(d_model/2)]; the last entry of an odd d_model belongs to the lone sine column."""
    d_model = _positive_int(d_model, "d_model")
    two_i = np.arange(0, d_model, 2, dtype=np.float64)  # [ceil(d_model/2)]
    return 1.0 / _base(base) ** (two_i / d_model)  # [ceil(d_model/2)]


def shift_rotations(k: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The 2x2 block that moves pair i of any position p forward by k positions.  -> [d_model//2, 2, 2]

        (PE[p+k, 2i], PE[p+k, 2i+1])ᵀ = R_i(k) (PE[p, 2i], PE[p, 2i+1])ᵀ,
        R_i(k) = [[cos kω_i, sin kω_i], [-sin kω_i, cos kω_i]]

    from sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b with
    a = pω_i, b = kω_i. R_i(k) holds no p: the same turn takes every position k steps on, which is
    why a fixed linear map can read off relative position. Only complete sin/cos pairs have one;
    the lone sine column of an odd d_model has no cosine partner to turn with.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"the offset k must be a whole number of positions; got {k!r}.")
    d_model = _positive_int(d_model, "d_model")
    kw = k * pair_frequencies(d_model, base)[: d_model // 2]  # [d_model//2] angle of each pair's turn
    c, s = np.cos(kw), np.sin(kw)  # [d_model//2], [d_model//2]
    return np.stack([np.stack([c, s], axis=-1), np.stack([-s, c], axis=-1)], axis=-2)  # [d_model//2, 2, 2]


@dataclass(frozen=True)
class ShiftCheck:
    """PE_{p+k} computed by the formula against R(k) applied to PE_p, for p = 0 .. n_positions-1."""

    k: int  # the offset
    rotations: np.ndarray  # R_i(k), one block per complete pair           [d_model//2, 2, 2]
    predicted: np.ndarray  # R_i(k) applied to each pair of PE_p            [n_positions, 2·(d_model//2)]
    actual: np.ndarray  # PE_{p+k} on the same columns                      [n_positions, 2·(d_model//2)]
    max_error: float  # max |predicted - actual| over every p and pair; 0 up to rounding


def check_shift_is_rotation(n_positions: int, d_model: int, k: int, base: float = 10000.0) -> ShiftCheck:
    """Verify numerically that moving k positions on turns every sin/cos pair by kω_i.

    Rows p + k beyond n_positions come from the formula itself, so any k can be checked. An odd
    d_model's lone sine column is left out (see shift_rotations); d_model = 1 has no pair at all.
    """
    rotations = shift_rotations(k, d_model, base)  # [m, 2, 2], m = d_model//2
    n_positions = _positive_int(n_positions, "n_positions")
    m = d_model // 2
    if m == 0:
        raise ValueError("d_model = 1 has no sin/cos pair to rotate; choose d_model of at least 2.")
    if k < 0:
        raise ValueError(f"the offset k must not be negative here; got {k}. Use k >= 0 (PE_p from PE_(p+k) is R(-k)).")
    pe = _pairs(n_positions + k, d_model, base)  # [n_positions + k, m, 2]
    now = pe[:n_positions]  # [n_positions, m, 2]
    later = pe[k:]  # [n_positions, m, 2]
    predicted = np.einsum("mab,nmb->nma", rotations, now)  # [n_positions, m, 2]; R_i(k) @ pair
    error = float(np.max(np.abs(predicted - later))) if n_positions else 0.0
    return ShiftCheck(
        k=int(k),
        rotations=rotations,
        predicted=predicted.reshape(n_positions, 2 * m),  # [n_positions, 2m]
        actual=later.reshape(n_positions, 2 * m),  # [n_positions, 2m]
        max_error=error,
    )


def position_similarity(table: np.ndarray, cosine: bool = False) -> np.ndarray:
    """S[p, q] = PE_p · PE_q, or the cosine PE_p · PE_q / (|PE_p| |PE_q|).  [n, d] -> [n, n]

    For the sinusoids with an even d_model, PE_p · PE_q = Σ_i cos(ω_i (p - q)): it depends on the
    offset p - q alone, and every row has |PE_p|² = d_model / 2.
    """
    table = np.asarray(table, dtype=np.float64)  # [n, d]
    if table.ndim != 2:
        raise ValueError(f"a position table has one row per position, shape [n, d]; got shape {table.shape}.")
    if cosine:
        norms = np.linalg.norm(table, axis=1)  # [n]
        table = table / np.where(norms == 0, 1.0, norms)[:, None]  # [n, d]; a zero row stays zero
    return table @ table.T  # [n, n]


@dataclass(frozen=True)
class OffsetProfile:
    """A similarity matrix summarised by offset Δ = |p - q|: what is typical, and how much it varies."""

    offset: np.ndarray  # Δ = 0 .. n-1                                  [n]
    mean: np.ndarray  # mean of S[p, p+Δ] over every p                  [n]
    low: np.ndarray  # smallest S[p, p+Δ]                               [n]
    high: np.ndarray  # largest S[p, p+Δ]; high == low means "depends on Δ only"  [n]


def similarity_by_offset(similarity: np.ndarray) -> OffsetProfile:
    """Read S along its diagonals: diagonal Δ holds every pair of positions Δ apart.  [n, n] -> [n] each"""
    s = np.asarray(similarity, dtype=np.float64)  # [n, n]
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"a similarity matrix is square, [n, n]; got shape {s.shape}.")
    n = s.shape[0]
    diagonals = [np.diagonal(s, offset) for offset in range(n)]  # n x [n - Δ]
    return OffsetProfile(
        offset=np.arange(n),  # [n]
        mean=np.array([d.mean() for d in diagonals]),  # [n]
        low=np.array([d.min() for d in diagonals]),  # [n]
        high=np.array([d.max() for d in diagonals]),  # [n]
    )


@dataclass(frozen=True)
class PermutationCheck:
    """Self-attention on a sentence and on the same sentence shuffled by `perm`."""

    perm: np.ndarray  # shuffled sentence = tokens[perm]                     [T]
    inputs: np.ndarray  # what attention sees: x (+ PE)                       [T, d_model]
    output: np.ndarray  # attention output, sentence in its own order         [T, d_model]
    shuffled_output: np.ndarray  # attention output of the shuffled sentence  [T, d_model]
    reordered_output: np.ndarray  # output[perm]: the first outputs, moved with their words  [T, d_model]
    max_error: float  # max |shuffled_output - output[perm]|; 0 = order made no difference


def permutation_check(
    x: np.ndarray,
    perm,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    pe: np.ndarray | None = None,
) -> PermutationCheck:
    """Shuffle the words, keep the positions: does self-attention notice?

    x: [T, d_model] one vector per word, in sentence order; perm: the new order, a permutation
    of 0..T-1; w_*: [d_model, d_model]; pe: [T, d_model] added by position, or None for none.
    Without pe, softmax(Q Kᵀ/√d) V treats its rows as a set: shuffling the words only shuffles
    the output rows the same way, so max_error is 0 up to rounding. With pe, a word at a new
    position gets a new vector, so its output changes.
    """
    x = np.asarray(x, dtype=np.float64)  # [T, d_model]
    if x.ndim != 2:
        raise ValueError(f"x must be one sentence, shape [T, d_model]; got shape {x.shape}.")
    T, d_model = x.shape
    perm = np.asarray(perm)
    if perm.shape != (T,) or not np.array_equal(np.sort(perm), np.arange(T)):
        raise ValueError(f"perm must list each of the positions 0..{T - 1} exactly once; got {perm.tolist()}.")
    if pe is None:
        pe = np.zeros((T, d_model))  # [T, d_model]
    pe = np.asarray(pe, dtype=np.float64)
    if pe.shape != x.shape:
        raise ValueError(f"pe must have one row per word, shape {x.shape}; got {pe.shape}.")

    def attend(inputs: np.ndarray) -> np.ndarray:  # [T, d_model] -> [T, d_model]
        return scaled_dot_product_attention(inputs @ w_q, inputs @ w_k, inputs @ w_v).output

    inputs = x + pe  # [T, d_model]; the position vector e_p is added to the word vector a_p
    output = attend(inputs)  # [T, d_model]
    shuffled_output = attend(x[perm] + pe)  # [T, d_model]; the words move, the positions stay
    reordered = output[perm]  # [T, d_model]
    error = float(np.max(np.abs(shuffled_output - reordered))) if T else 0.0
    return PermutationCheck(
        perm=perm, inputs=inputs, output=output, shuffled_output=shuffled_output, reordered_output=reordered,
        max_error=error,
    )  # fmt: skip


def _pairs(n_positions: int, d_model: int, base: float) -> np.ndarray:
    """The complete sin/cos pairs of the d_model table.  -> [n_positions, d_model//2, 2]"""
    m = d_model // 2
    pe = sinusoidal_positional_encoding(n_positions, d_model, base)  # [n_positions, d_model]
    return pe[:, : 2 * m].reshape(n_positions, m, 2)  # [n_positions, m, 2]


def _base(base) -> float:
    base = float(base)
    if not np.isfinite(base) or base <= 0:
        raise ValueError(f"base must be a positive number (the paper uses 10000); got {base}.")
    return base
