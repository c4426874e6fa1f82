"""Positions as rotations and as penalties: rotary position embedding (RoPE; Su et al. 2021, the
RoFormer paper) and attention with linear biases (ALiBi; Press et al. 2022).

Added sinusoids (Vaswani et al. 2017) put the position into the vector itself, so a score mixes
content with absolute position. RoPE instead turns each (2i, 2i+1) pair of a query or key by an
angle position · θ_i; a dot product of two turned vectors only feels the difference of their
angles, so q_m · k_n depends on m - n alone. ALiBi adds no position to the vectors at all and
subtracts a fixed penalty m_h · |i - j| from each score.

Row-vector convention: x is [T, d], a row per position.
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
    causal_mask,
    softmax,
    split_heads,
)
from attention_core.positional import _base, sinusoidal_positional_encoding

ROPE_FORMULA = (
    r"\begin{aligned}\theta_i &= \text{base}^{-2i/d}\\ \begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix} &="
    r" \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}"
    r" \begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix}\\ (R_m q)\cdot(R_n k) &= q \cdot R_{n-m}\, k\end{aligned}"
)
ALIBI_FORMULA = r"\text{softmax}\big(q_i K^\top / \sqrt{d_k} - m_h\,\lvert i - j\rvert\big),\quad m_h = 2^{-8h/n}"


# --- RoPE ------------------------------------------------------------------------------------------


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """θ_i = base^(-2i/d), the angle pair i turns per position (radians).  -> [d/2]

    Pair 0 turns one radian per position; the last pairs turn so slowly that across a whole
    context they barely move, which is what lets a long offset still be told apart.
    """
    d = _even_width(d)
    two_i = np.arange(0, d, 2, dtype=np.float64)  # [d/2]
    return _base(base) ** (-two_i / d)  # [d/2]


def rotary_embedding(x: np.ndarray, positions=None, base: float = 10000.0) -> np.ndarray:
    """Rotate each interleaved pair (2i, 2i+1) of row t by the angle positions[t] · θ_i.  [..., T, d] -> [..., T, d]

    positions: [T] (default 0 .. T-1), any real numbers; leading dims of x (heads) share them.
    A rotation keeps every row's length; only the direction of each pair carries the position.
    """
    x = _as_float(x, "x")  # [..., T, d]
    d = _even_width(x.shape[-1])
    positions = _positions(positions, x.shape[-2])  # [T]
    angle = positions[:, None] * rope_frequencies(d, base)[None, :]  # [T, d/2]
    cos, sin = np.cos(angle), np.sin(angle)  # [T, d/2], [T, d/2]
    even, odd = x[..., 0::2], x[..., 1::2]  # [..., T, d/2] each
    out = np.empty_like(x)  # [..., T, d]
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out  # [..., T, d]


@dataclass(frozen=True)
class ShiftCheck:
    """The same queries and keys scored at positions p and at p + shift, with RoPE and with added sinusoids."""

    positions: np.ndarray  # 0 .. T-1                                              [T]
    shift: int  # how far every position moved
    rope_scores: np.ndarray  # (R_m q_m) · (R_n k_n)                              [T, T]
    rope_shifted: np.ndarray  # the same with m + shift, n + shift                [T, T]
    rope_change: float  # max |rope_shifted - rope_scores|: rounding only
    sinusoid_scores: np.ndarray  # (q_m + PE_m) · (k_n + PE_n)                    [T, T]
    sinusoid_shifted: np.ndarray  # the same with PE_{m+shift}, PE_{n+shift}      [T, T]
    sinusoid_change: float  # max |sinusoid_shifted - sinusoid_scores|: content meets absolute position


def rope_shift_check(q: np.ndarray, k: np.ndarray, shift: int, base: float = 10000.0) -> ShiftCheck:
    """Move every position by `shift` and compare the scores (q and k: [T, d], d even).

    With RoPE nothing changes but rounding: each score sees only m - n. With sinusoids added to
    q and k the cross terms q_m · PE_n do depend on where the sentence starts, so the scores move
    (unless q and k are zero: PE_m · PE_n alone is relative too).
    """
    q, k = _pair(q, k)
    shift = _non_negative_int(shift, "shift")
    T, d = q.shape
    p = np.arange(T, dtype=np.float64)  # [T]
    rope = rotary_embedding(q, p, base) @ rotary_embedding(k, p, base).T  # [T, T]
    rope_shifted = rotary_embedding(q, p + shift, base) @ rotary_embedding(k, p + shift, base).T  # [T, T]
    pe = sinusoidal_positional_encoding(T + shift, d, base)  # [T + shift, d]
    sin = (q + pe[:T]) @ (k + pe[:T]).T  # [T, T]
    sin_shifted = (q + pe[shift:]) @ (k + pe[shift:]).T  # [T, T]
    return ShiftCheck(
        positions=p,
        shift=shift,
        rope_scores=rope,
        rope_shifted=rope_shifted,
        rope_change=_max_abs(rope_shifted - rope),
        sinusoid_scores=sin,
        sinusoid_shifted=sin_shifted,
        sinusoid_change=_max_abs(sin_shifted - sin),
    )


@dataclass(frozen=True)
class RelativeScores:
    """One query vector placed at every position m, one key vector at every position n: the score
    table of each method, and how much it varies along each diagonal m - n = const."""

    offsets: np.ndarray  # m - n for each entry                                   [T, T]
    offset_values: np.ndarray  # -(T-1) .. T-1                                     [2T - 1]
    rope: np.ndarray  # (R_m q) · (R_n k)                                        [T, T]
    rope_by_offset: np.ndarray  # the mean score on each diagonal                  [2T - 1]
    rope_spread: np.ndarray  # max - min on each diagonal: 0 up to rounding        [2T - 1]
    sinusoid: np.ndarray  # (q + PE_m) · (k + PE_n)                               [T, T]
    sinusoid_by_offset: np.ndarray  #                                               [2T - 1]
    sinusoid_spread: np.ndarray  # > 0: the same offset scores differently         [2T - 1]


def rope_relative_scores(q: np.ndarray, k: np.ndarray, T: int, base: float = 10000.0) -> RelativeScores:
    """q, k: one vector each [d]. With RoPE the table is constant along every diagonal (a Toeplitz
    matrix): the score is a function of m - n. With added sinusoids it is not."""
    q = np.asarray(q, dtype=np.float64)  # [d]
    k = np.asarray(k, dtype=np.float64)  # [d]
    if q.ndim != 1 or q.shape != k.shape:
        raise ValueError(f"q and k must be single vectors of the same length d; got shapes {q.shape} and {k.shape}.")
    T = _positive_int(T, "T")
    qs, ks = np.tile(q, (T, 1)), np.tile(k, (T, 1))  # [T, d] the same vector at every position
    check = rope_shift_check(qs, ks, 0, base)
    m = np.arange(T)
    offsets = m[:, None] - m[None, :]  # [T, T]
    values = np.arange(-(T - 1), T)  # [2T - 1]
    rope_mean, rope_spread = _diagonals(check.rope_scores, offsets, values)
    sin_mean, sin_spread = _diagonals(check.sinusoid_scores, offsets, values)
    return RelativeScores(
        offsets=offsets,
        offset_values=values,
        rope=check.rope_scores,
        rope_by_offset=rope_mean,
        rope_spread=rope_spread,
        sinusoid=check.sinusoid_scores,
        sinusoid_by_offset=sin_mean,
        sinusoid_spread=sin_spread,
    )


@dataclass(frozen=True)
class RopeDecay:
    """How RoPE's scores fade with the distance m - n (RoFormer, Section 3.4.3 and Figure 2)."""

    distance: np.ndarray  # |m - n| = 0 .. max_distance                               [n]
    relative_bound: np.ndarray  # (1 / (d/2)) Σ_j |S_j|, S_j = Σ_{i<j} e^{i·distance·θ_i}  [n]
    equal_vector_score: np.ndarray  # q · R(distance) q / |q|² averaged over q: mean_i cos(distance θ_i)  [n]
    d: int
    base: float


def rope_decay(max_distance: int, d: int, base: float = 10000.0) -> RopeDecay:
    """The RoFormer paper's bound on |q_m · k_n| and the score of equal vectors, against distance.

    Summing by parts (Abel), |Σ_i h_i e^{i(m-n)θ_i}| <= max_i |h_{i+1} - h_i| · Σ_j |S_j|, and the
    mean of |S_j| shrinks as m - n grows: the paper's "long-term decay". For a random q scored
    against itself, E[q · R(δ) q] = Σ_i 2 cos(δ θ_i), so the normalised mean is mean_i cos(δ θ_i):
    1 at distance 0, falling (with ripples) as more pairs turn out of phase.
    """
    max_distance = _non_negative_int(max_distance, "max_distance")
    theta = rope_frequencies(d, base)  # [d/2]
    distance = np.arange(max_distance + 1, dtype=np.float64)  # [n]
    phase = distance[:, None] * theta[None, :]  # [n, d/2]
    cos, sin = np.cos(phase), np.sin(phase)  # [n, d/2] each: e^{i·phase} in two real halves
    partial = np.hypot(np.cumsum(cos, axis=1), np.cumsum(sin, axis=1))  # [n, d/2]: |S_1| .. |S_{d/2}|
    return RopeDecay(
        distance=distance,
        relative_bound=partial.mean(axis=1),  # [n]
        equal_vector_score=cos.mean(axis=1),  # [n]
        d=int(theta.size * 2),
        base=_base(base),
    )


# --- ALiBi -----------------------------------------------------------------------------------------


def alibi_slopes(n_heads: int) -> np.ndarray:
    """m_h for h = 1 .. n_heads (Press et al. 2022, Section 3).  -> [n_heads]

    For n a power of two: the geometric sequence 2^(-8/n), 2^(-16/n), ..., 2^(-8) (ratio and start
    2^(-8/n)). Otherwise the paper's rule: the slopes of the nearest power of two below n, then
    every other slope of twice that power, until there are n.
    """
    n_heads = _positive_int(n_heads, "n_heads")
    if n_heads & (n_heads - 1) == 0:  # a power of two
        return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)  # [n_heads]
    below = 1 << (n_heads.bit_length() - 1)  # the closest power of two under n_heads
    extra = alibi_slopes(2 * below)[0::2][: n_heads - below]  # [n_heads - below]
    return np.concatenate([alibi_slopes(below), extra])  # [n_heads]


def alibi_bias(T: int, n_heads: int) -> np.ndarray:
    """The ALiBi penalty added to head h's scaled scores: -m_h · |i - j|.  -> [h, T, T]

    On the causal part (j <= i), -m_h · |i - j| is the paper's m · (j - i); the paper only uses
    that part (a decoder masks j > i). Using |i - j| keeps the penalty symmetric, so an encoder
    that sees both sides is penalised for distance the same way in both directions.
    """
    T = _non_negative_int(T, "T")
    i = np.arange(T)
    distance = np.abs(i[:, None] - i[None, :]).astype(np.float64)  # [T, T]
    return -alibi_slopes(n_heads)[:, None, None] * distance[None, :, :]  # [h, T, T]


# --- one sentence, four ways of telling position ----------------------------------------------------

POSITION_METHODS = ("none", "sinusoidal", "rope", "alibi")


@dataclass(frozen=True)
class PositionComparison:
    """The attention of the same x through the same W_q, W_k, with each way of telling position.

    scaled[method] and weights[method] are [h, T, T]; scale 1/√d_head for every method.
    """

    positions: np.ndarray  # offset .. offset + T - 1                     [T]
    methods: tuple[str, ...]  # POSITION_METHODS, the order of the arrays
    scaled: np.ndarray  # scores · 1/√d_head (+ ALiBi's bias), masked  [4, h, T, T]
    weights: np.ndarray  # softmax of scaled                             [4, h, T, T]
    slopes: np.ndarray  # ALiBi's m_h                                    [h]
    causal: bool

    def weights_of(self, method: str) -> np.ndarray:  # -> [h, T, T]
        return self.weights[_method_index(method)]


def compare_positions(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    n_heads: int,
    causal: bool = True,
    offset: int = 0,
    base: float = 10000.0,
) -> PositionComparison:
    """x: [T, d_model], w_q, w_k: [d_model, d_model]. Tokens sit at positions offset .. offset+T-1.

    none: content only (order is invisible); sinusoidal: PE added to x before the projections;
    rope: each head's q and k rotated (d_head must be even); alibi: -m_h · |i - j| added to the
    scaled scores. Moving `offset` changes only the sinusoidal maps.
    """
    x = _as_float(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must be one sequence shaped [T, d_model]; got shape {x.shape}.")
    T, d_model = x.shape
    d_head = _head_size(d_model, n_heads)
    _even_width(d_head, "d_head")
    w_q, w_k = _weight(w_q, "w_q", d_model), _weight(w_k, "w_k", d_model)
    offset = _non_negative_int(offset, "offset")
    positions = np.arange(offset, offset + T, dtype=np.float64)  # [T]
    scale = 1.0 / np.sqrt(d_head)

    q_heads = split_heads(x @ w_q, n_heads)  # [h, T, d_head]
    k_heads = split_heads(x @ w_k, n_heads)  # [h, T, d_head]
    plain = q_heads @ np.swapaxes(k_heads, -1, -2) * scale  # [h, T, T]
    x_pe = x + sinusoidal_positional_encoding(offset + T, d_model, base)[offset:]  # [T, d_model]
    sin = split_heads(x_pe @ w_q, n_heads) @ np.swapaxes(split_heads(x_pe @ w_k, n_heads), -1, -2) * scale  # [h, T, T]
    q_rot = rotary_embedding(q_heads, positions, base)  # [h, T, d_head]
    k_rot = rotary_embedding(k_heads, positions, base)  # [h, T, d_head]
    rope = q_rot @ np.swapaxes(k_rot, -1, -2) * scale  # [h, T, T]
    alibi = plain + alibi_bias(T, n_heads)  # [h, T, T]

    scaled = np.stack([plain, sin, rope, alibi])  # [4, h, T, T]
    if causal:
        scaled = np.where(causal_mask(T), scaled, -np.inf)  # [4, h, T, T]
    return PositionComparison(
        positions=positions,
        methods=POSITION_METHODS,
        scaled=scaled,
        weights=softmax(scaled, axis=-1),  # [4, h, T, T]
        slopes=alibi_slopes(n_heads),
        causal=bool(causal),
    )


# --- helpers and argument checks --------------------------------------------------------------------


def _diagonals(table: np.ndarray, offsets: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and max - min of table over each diagonal offsets == value.  [T, T] -> [2T-1], [2T-1]"""
    index = (offsets - values[0]).ravel()  # [T²] diagonal number 0 .. 2T-2
    order = np.argsort(index, kind="stable")  # [T²] entries grouped diagonal by diagonal
    flat = table.ravel()[order]  # [T²]
    starts = np.searchsorted(index[order], np.arange(values.size))  # [2T - 1] where each diagonal begins
    counts = np.bincount(index, minlength=values.size)  # [2T - 1]
    mean = np.add.reduceat(flat, starts) / counts  # [2T - 1]
    spread = np.maximum.reduceat(flat, starts) - np.minimum.reduceat(flat, starts)  # [2T - 1]
    return mean, spread


def _max_abs(a: np.ndarray) -> float:
    return float(np.max(np.abs(a))) if a.size else 0.0


def _even_width(d, name: str = "d") -> int:
    d = _positive_int(d, name)
    if d % 2:
        raise ValueError(
            f"{name}={d} is odd: RoPE turns the columns in pairs (2i, 2i+1), so the width must be even. "
            f"Use {name}={d - 1} or {name}={d + 1}."
        )
    return d


def _positions(positions, T: int) -> np.ndarray:
    if positions is None:
        return np.arange(T, dtype=np.float64)  # [T]
    positions = np.asarray(positions, dtype=np.float64)  # [T]
    if positions.shape != (T,):
        raise ValueError(f"positions must hold one number per row of x, shape [{T}]; got shape {positions.shape}.")
    if not np.isfinite(positions).all():
        raise ValueError("positions must be finite numbers; a rotation by an infinite angle is undefined.")
    return positions


def _pair(q, k) -> tuple[np.ndarray, np.ndarray]:
    q, k = _as_float(q, "q"), _as_float(k, "k")
    if q.ndim != 2 or q.shape != k.shape:
        raise ValueError(
            f"q and k must be tables of the same shape [T, d] (one query and one key per position); "
            f"got {q.shape} and {k.shape}."
        )
    _even_width(q.shape[1])
    return q, k


def _method_index(method: str) -> int:
    if method not in POSITION_METHODS:
        raise ValueError(f"method must be one of {', '.join(POSITION_METHODS)}; got {method!r}.")
    return POSITION_METHODS.index(method)


# --- one sentence's queries and keys, for a page that shows the above on words ----------------------


@dataclass(frozen=True)
class SentenceQK:
    """Seeded stand-ins for a sentence's queries and keys: made-up token vectors through seeded
    random W_q, W_k (no learned meaning; the same token gets the same vector wherever it stands)."""

    tokens: tuple[str, ...]  # the sentence, one token per position                T
    x: np.ndarray  # token vectors, no position in them                          [T, d_model]
    w_q: np.ndarray  # N(0, 1/d_model) entries                                    [d_model, d_model]
    w_k: np.ndarray  #                                                            [d_model, d_model]
    q: np.ndarray  # x W_q                                                        [T, d_model]
    k: np.ndarray  # x W_k                                                        [T, d_model]


def sentence_qk(tokens, d_model: int, seed: int = 0) -> SentenceQK:
    """The tokens' seeded vectors and their queries and keys (d_model = n_heads · d_head)."""
    from attention_core.embedding import token_vectors  # embedding imports nothing of this module

    tokens = tuple(str(token) for token in tokens)
    if not tokens:
        raise ValueError("the sentence has no tokens: give at least one word.")
    d_model = _positive_int(d_model, "d_model")
    x = token_vectors(list(tokens), d_model, seed)  # [T, d_model]
    rng = np.random.default_rng([_non_negative_int(seed, "seed"), 2021])  # 2021: RoFormer; not the heatmap's W
    w_q, w_k = rng.standard_normal((2, d_model, d_model)) / np.sqrt(d_model)  # [d_model, d_model] each
    return SentenceQK(tokens=tokens, x=x, w_q=w_q, w_k=w_k, q=x @ w_q, k=x @ w_k)


@dataclass(frozen=True)
class RopeTurn:
    """One query vector rotated to position m: each pair's angle, before and after."""

    q: np.ndarray  # the vector as projected, no position in it                  [d]
    position: float  # m
    theta: np.ndarray  # θ_i = base^(-2i/d), radians per position                 [d/2]
    angle: np.ndarray  # m θ_i, radians                                           [d/2]
    degrees: np.ndarray  # the same angle in degrees, folded into [0, 360)         [d/2]
    rotated: np.ndarray  # R_m q                                                  [d]
    pair_norm: np.ndarray  # |(q_2i, q_2i+1)|: the same before and after          [d/2]
    base: float


def rope_turn(q, position: float, base: float = 10000.0) -> RopeTurn:
    """q: one vector [d] (d even), turned by RoPE as if it stood at `position`."""
    q = np.asarray(q, dtype=np.float64)  # [d]
    if q.ndim != 1 or not np.isfinite(q).all():
        raise ValueError(f"q must be one vector [d] of finite numbers; got shape {q.shape}.")
    d = _even_width(q.shape[0])
    p = _positions([position], 1)  # [1]
    theta = rope_frequencies(d, base)  # [d/2]
    angle = p[0] * theta  # [d/2]
    pairs = q.reshape(d // 2, 2)  # [d/2, 2]
    return RopeTurn(
        q=q,
        position=float(p[0]),
        theta=theta,
        angle=angle,
        degrees=np.degrees(angle) % 360.0,  # [d/2]
        rotated=rotary_embedding(q[None, :], p, base)[0],  # [d]
        pair_norm=np.hypot(pairs[:, 0], pairs[:, 1]),  # [d/2]
        base=_base(base),
    )


def sentence_turn(tokens, d: int, seed: int, index: int, position: float, base: float = 10000.0) -> RopeTurn:
    """The query of token `index` (0-based) of the sentence, turned to `position`."""
    s = sentence_qk(tokens, d, seed)
    index = _non_negative_int(index, "index")
    if index >= len(s.tokens):
        raise ValueError(f"index={index} is past the sentence's {len(s.tokens)} tokens (0 .. {len(s.tokens) - 1}).")
    return rope_turn(s.q[index], position, base)


def sentence_shift(tokens, d: int, seed: int, shift: int, base: float = 10000.0) -> ShiftCheck:
    """rope_shift_check on the sentence's queries and keys (width d, even)."""
    s = sentence_qk(tokens, d, seed)
    return rope_shift_check(s.q, s.k, shift, base)


def sentence_positions(tokens, d_head: int, n_heads: int, seed: int, offset: int = 0) -> PositionComparison:
    """compare_positions on the sentence, causal, with n_heads heads of width d_head each."""
    s = sentence_qk(tokens, _positive_int(d_head, "d_head") * _positive_int(n_heads, "n_heads"), seed)
    return compare_positions(s.x, s.w_q, s.w_k, n_heads, causal=True, offset=offset)
