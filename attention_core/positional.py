"""Positional encoding: the fixed sinusoids of "Attention Is All You Need", why a shift in position
is a rotation of them, how alike two positions' vectors are, why self-attention needs them (the
shuffle experiment), and a real model's learned position table beside them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import _non_negative_int, _positive_int, scaled_dot_product_attention
from attention_core.embedding import token_vectors

SHUFFLE_ORDERS = ("swap", "reverse", "random")


# Each formula as the page writes it (KaTeX) beside the source of the function that computes it.
SINUSOID_FORMULA = (
    r"\begin{aligned}PE_{(p,\,2i)} &= \sin\!\big(p\,\omega_i\big)\\ PE_{(p,\,2i+1)} &= \cos\!\big(p\,\omega_i\big)"
    r"\\ \omega_i &= \frac{1}{\text{base}^{\,2i/d_{\text{model}}}}\end{aligned}"
)


def sinusoidal_positional_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2i] = sin(p ω_i), PE[p, 2i+1] = cos(p ω_i), ω_i = 1 / base^(2i/d_model).  -> [n, d_model]
    Column pair i turns on a circle, fast for small i, slowly for large i; an odd d_model ends on a lone sine."""
    n_positions, d_model, base = _table_args(n_positions, d_model, base)
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


@dataclass(frozen=True)
class SinusoidTable:
    """The sinusoidal table and the clock of each column pair."""

    pe: np.ndarray  # PE[p, dimension]                                       [n_positions, d_model]
    omega: np.ndarray  # radians per position of each pair                   [ceil(d_model/2)]
    period: np.ndarray  # positions per full turn of each pair, 2π / ω        [ceil(d_model/2)]
    base: float


def sinusoid_table(n_positions: int, d_model: int, base: float = 10000.0) -> SinusoidTable:
    """The table with the frequency and the period of every column pair."""
    omega = pair_frequencies(d_model, base)  # [ceil(d_model/2)]
    pe = sinusoidal_positional_encoding(n_positions, d_model, base)  # [n_positions, d_model]
    return SinusoidTable(pe=pe, omega=omega, period=2 * np.pi / omega, base=float(base))


# --- a shift is a rotation -----------------------------------------------------------------------


ROTATION_FORMULA = (
    r"\begin{aligned} x_p &= \begin{pmatrix} PE_{(p,\,2i)} \\ PE_{(p,\,2i+1)} \end{pmatrix}\\[1ex]"
    r" x_{p+k} &= R_i(k)\, x_p\\[1ex] R_i(k) &= \begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\"
    r" -\sin k\omega_i & \cos k\omega_i \end{pmatrix}\\[1ex]"
    r" PE_p \cdot PE_q &= \textstyle\sum_i \cos\big(\omega_i\,(p-q)\big)\end{aligned}"
)


def shift_rotations(k: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """R_i(k): the 2x2 turn that takes pair i of ANY position p to position p + k (it holds no p).
    One per complete sin/cos pair.  -> [d_model//2, 2, 2]"""
    k, d_model = _shift_args(k, d_model)
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
    return ShiftCheck(
        k=int(k),
        rotations=rotations,
        predicted=predicted.reshape(n_positions, 2 * m),  # [n_positions, 2m]
        actual=later.reshape(n_positions, 2 * m),  # [n_positions, 2m]
        max_error=float(np.max(np.abs(predicted - later))),
    )


@dataclass(frozen=True)
class ShiftRotation:
    """The rotation check, and what it looks like for one pair on the unit circle."""

    check: ShiftCheck  # every complete pair at every position
    pair: int  # the pair drawn: the one asked for, or the last one d_model has
    angle: float  # k ω_pair, the angle every position of that pair turns by (radians)
    points: np.ndarray  # (PE[p, 2·pair], PE[p, 2·pair+1]) for p = 0 .. n+k-1   [n_positions + k, 2]
    starts: tuple[int, ...]  # the positions the drawn arrows start from


def shift_rotation(n_positions: int, d_model: int, k: int, pair: int, base: float = 10000.0) -> ShiftRotation:
    """check_shift_is_rotation, and pair `pair` (clamped to the pairs there are) of every position
    0 .. n+k-1 as points on the circle, with arrows from three positions p to p + k."""
    check = check_shift_is_rotation(n_positions, d_model, k, base)
    pair = min(_non_negative_int(pair, "pair"), d_model // 2 - 1)
    pe = _pairs(n_positions + k, d_model, base)  # [n_positions + k, d_model//2, 2]
    return ShiftRotation(
        check=check,
        pair=pair,
        angle=float(k * pair_frequencies(d_model, base)[pair]),
        points=pe[:, pair],  # [n_positions + k, 2]
        starts=tuple(sorted({0, n_positions // 3, (2 * n_positions) // 3})),
    )


# --- similarity ------------------------------------------------------------------------------------


COSINE_FORMULA = r"\cos(e_p, e_q) = \frac{e_p \cdot e_q}{\lVert e_p\rVert\,\lVert e_q\rVert}"


def position_similarity(table: np.ndarray, cosine: bool = False) -> np.ndarray:
    """S[p, q] = PE_p · PE_q, or its cosine PE_p · PE_q / (|PE_p| |PE_q|).  [n, d] -> [n, n]
    For the sinusoids with an even d_model it is Σ_i cos(ω_i (p - q)): a function of p - q alone."""
    table = _table(table)  # [n, d]
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
class Similarity:
    """Every pair of positions of one table, and the same numbers read by offset."""

    matrix: np.ndarray  # S[p, q], dot products or cosines                [n, n]
    profile: OffsetProfile  # S by offset Δ = |p - q|: mean, lowest, highest   [n] each
    spread: float  # max over Δ of (highest - lowest): 0 when S depends on the offset alone
    cosine: bool


def similarity(table: np.ndarray, cosine: bool = False) -> Similarity:
    """position_similarity and similarity_by_offset of one position table [n, d]."""
    matrix = position_similarity(table, cosine)  # [n, n]
    profile = similarity_by_offset(matrix)
    spread = float(np.max(profile.high - profile.low)) if len(profile.offset) else 0.0
    return Similarity(matrix=matrix, profile=profile, spread=spread, cosine=cosine)


def sinusoid_similarity(n_positions: int, d_model: int, base: float = 10000.0, cosine: bool = False) -> Similarity:
    """The similarity of the sinusoidal table's positions."""
    return similarity(sinusoidal_positional_encoding(n_positions, d_model, base), cosine)


@dataclass(frozen=True)
class LearnedVsSinusoidal:
    """A learned position table beside sinusoids of the same size, compared by cosine similarity
    (cosine, because the two tables' vectors have very different lengths)."""

    table: np.ndarray  # the learned position vectors, rows 0 .. n-1          [n, d]
    learned: Similarity  # cosines of the learned rows
    sinusoidal: Similarity  # cosines of sinusoids with the same n and d
    row_norms: np.ndarray  # |e_p| of each learned row                       [n]
    median_norm: float  # the median |e_p| of the rows after row 0
    colour_limit: float  # |value| that 99% of the rows after row 0 stay within


def learned_vs_sinusoidal(
    n_positions: int, base: float = 10000.0, table: np.ndarray | None = None
) -> LearnedVsSinusoidal:
    """The first n rows of a learned table (default: the shipped all-MiniLM-L6-v2 table, [512, 384])
    against sinusoidal vectors of the same length."""
    if table is None:
        from attention_core.shipped import load_position_table

        table = load_position_table()
    n_positions = _positive_int(n_positions, "n_positions")
    table = _table(table)[:n_positions]  # [n, d]
    n, d = table.shape
    rest = np.abs(table[1:]) if n > 1 else np.abs(table)  # [n-1, d]; row 0 is far larger in the real model
    norms = np.linalg.norm(table, axis=1)  # [n]
    return LearnedVsSinusoidal(
        table=table,
        learned=similarity(table, cosine=True),
        sinusoidal=sinusoid_similarity(n, d, base, cosine=True),
        row_norms=norms,
        median_norm=float(np.median(norms[1:] if n > 1 else norms)),
        colour_limit=float(np.quantile(rest, 0.99)) if rest.size else 1.0,
    )


# --- why self-attention needs positions: the shuffle experiment ----------------------------------


@dataclass(frozen=True)
class PermutationCheck:
    """Self-attention on a sentence and on the same sentence shuffled by `perm`."""

    perm: np.ndarray  # shuffled sentence = tokens[perm]                     [T]
    inputs: np.ndarray  # what attention sees: x (+ PE)                       [T, d_model]
    output: np.ndarray  # attention output, sentence in its own order         [T, d_model]
    shuffled_output: np.ndarray  # attention output of the shuffled sentence  [T, d_model]
    reordered_output: np.ndarray  # output[perm]: the first outputs, moved with their words  [T, d_model]
    max_error: float  # max |shuffled_output - output[perm]|; 0 = order made no difference


PERMUTATION_FORMULA = (
    r"\begin{aligned}Q, K, V &= XW_q,\ XW_k,\ XW_v\\ \mathrm{Attn}(X) &= \mathrm{softmax}(QK^\top/\sqrt{d})\,V"
    r"\\ \mathrm{Attn}(PX) &= P\,\mathrm{Attn}(X)\\ \mathrm{Attn}(PX + E) &\neq P\,\mathrm{Attn}(X + E)\end{aligned}"
)


def permutation_check(x, perm, w_q, w_k, w_v, pe=None) -> PermutationCheck:
    """Shuffle the words x [T, d] into x[perm], keep the positions pe [T, d] (None: no positions):
    does self-attention notice? max_error 0 means it only moved each output along with its word."""
    x, perm, pe = _permutation_args(x, perm, pe)  # [T, d], [T], [T, d]

    def attend(inputs):  # [T, d] -> [T, d]
        return scaled_dot_product_attention(inputs @ w_q, inputs @ w_k, inputs @ w_v).output

    inputs = x + pe  # [T, d]; the position vector e_p is added to the word vector a_p
    output = attend(inputs)  # [T, d]
    shuffled_output = attend(x[perm] + pe)  # [T, d]; the words move, the positions stay
    reordered = output[perm]  # [T, d]; the first outputs, each moved along with its word
    error = float(np.max(np.abs(shuffled_output - reordered))) if len(perm) else 0.0
    return PermutationCheck(perm, inputs, output, shuffled_output, reordered, error)


def shuffle_order(T: int, order: str, i: int = 0, j: int = 1, seed: int = 0) -> tuple[int, ...]:
    """The new order of a T-word sentence: the shuffled sentence is tokens[perm].

    order "swap" exchanges words i and j (0-based), "reverse" reverses the sentence, "random" draws
    a permutation from the seed that moves at least one word (when T > 1).
    """
    if order not in SHUFFLE_ORDERS:
        raise ValueError(f"order must be one of {', '.join(SHUFFLE_ORDERS)}; got {order!r}.")
    perm = np.arange(_non_negative_int(T, "T"))  # [T]
    if order == "swap":
        perm[[i, j]] = perm[[j, i]]
    elif order == "reverse":
        perm = perm[::-1]
    elif T > 1:
        rng = np.random.default_rng([2, seed])  # its own stream: the weights use [1, seed]
        while np.array_equal(perm, np.arange(T)):  # a shuffle that changes nothing shows nothing
            perm = rng.permutation(T)
    return tuple(int(p) for p in perm)


@dataclass(frozen=True)
class ShuffleExperiment:
    """A sentence and its shuffle through self-attention with random word vectors and random
    weights, without and with the sinusoids added by position."""

    tokens: tuple[str, ...]  # the sentence                                        T
    perm: tuple[int, ...]  # the shuffled sentence is tokens[perm]               T
    swapped: tuple[int, int]  # the two words a swap exchanges, 0-based, within the sentence
    clamped: bool  # a swap asked for a word beyond the sentence and got the last one
    plain: PermutationCheck  # without positional encoding
    with_pe: PermutationCheck  # with the sinusoids added by position
    repeated: tuple[int, int] | None  # the first word that appears twice (0-based), if any
    repeated_gap: tuple[float, float]  # max |out_p - out_q| of those two: (plain, with_pe); nan if none
    seed: int  # of the random word vectors and weights

    @property
    def shuffled(self) -> tuple[str, ...]:
        return tuple(self.tokens[p] for p in self.perm)

    @property
    def moved(self) -> bool:
        return self.perm != tuple(range(len(self.perm)))


def shuffle_experiment(
    tokens, order: str = "swap", i: int = 0, j: int = 2, d_model: int = 64, base: float = 10000.0, seed: int = 0
) -> ShuffleExperiment:
    """Shuffle a sentence (shuffle_order) and run permutation_check twice: on random word vectors
    (token_vectors: the same word, the same vector) and on the same vectors plus the sinusoids.
    W_q, W_k, W_v are random N(0, 1/d_model) matrices drawn from the seed."""
    tokens = tuple(str(w) for w in tokens)
    T, d_model = len(tokens), _positive_int(d_model, "d_model")
    if T == 0:
        raise ValueError("the sentence has no words; give it at least one.")
    a, b = min(_non_negative_int(i, "i"), T - 1), min(_non_negative_int(j, "j"), T - 1)
    perm = shuffle_order(T, order, a, b, seed)
    x = token_vectors(list(tokens), d_model, seed)  # [T, d_model]
    w_q, w_k, w_v = np.random.default_rng([1, seed]).standard_normal((3, d_model, d_model)) / np.sqrt(d_model)
    plain = permutation_check(x, perm, w_q, w_k, w_v)
    with_pe = permutation_check(x, perm, w_q, w_k, w_v, sinusoidal_positional_encoding(T, d_model, base))
    repeated = next(((p, q) for p in range(T) for q in range(p + 1, T) if tokens[p] == tokens[q]), None)
    gap = (np.nan, np.nan)
    if repeated:
        gap = tuple(float(np.max(np.abs(c.output[repeated[0]] - c.output[repeated[1]]))) for c in (plain, with_pe))
    return ShuffleExperiment(
        tokens=tokens,
        perm=perm,
        swapped=(a, b),
        clamped=(a, b) != (i, j),
        plain=plain,
        with_pe=with_pe,
        repeated=repeated,
        repeated_gap=gap,
        seed=seed,
    )


# --- article 003's layouts: a sequence-first table added to a batch-first batch ---------------------


@dataclass(frozen=True)
class BatchFirstMixup:
    """What article 003's `x + self.pe[:x.size(0), :]` adds when x is batch-first, as its attention is.

    Its table is sequence-first: `pe.unsqueeze(0).transpose(0, 1)` is [max_len, 1, d_model], for an x of
    [seq_len, batch, d_model]. Its MultiHeadAttention reads `batch_size = q.size(0)`: batch-first,
    [batch, seq_len, d_model]. Given that x, `x.size(0)` is the batch size, so the slice takes one row per
    sentence and broadcasts it over the sentence's words: every word of sentence b gets PE_b."""

    batch: int
    seq_len: int
    article_rows: np.ndarray  # the position whose vector each word gets from the article's line  [batch, seq_len]
    right_rows: np.ndarray  # the position it should get: its own place t in the sentence         [batch, seq_len]
    article_added: (
        np.ndarray
    )  # what the article's line adds                                   [batch, seq_len, d_model]
    right_added: np.ndarray  # PE_t added to word t of every sentence                          [batch, seq_len, d_model]
    wrong_words: int  # words that get another position's vector
    max_error: float  # max |article_added - right_added|


def batch_first_mixup(batch: int, seq_len: int, d_model: int, base: float = 10000.0) -> BatchFirstMixup:
    """Article 003's positional line applied to a batch-first x, against the right rows."""
    batch, seq_len = _positive_int(batch, "batch"), _positive_int(seq_len, "seq_len")
    table = sinusoidal_positional_encoding(max(batch, seq_len), d_model, base)  # [max_len, d_model]
    pe = table[:, None, :]  # the article's buffer, sequence-first  [max_len, 1, d_model]
    article = np.broadcast_to(pe[:batch], (batch, seq_len, d_model))  # x.size(0) = batch  [batch, seq_len, d_model]
    right = np.broadcast_to(table[None, :seq_len], (batch, seq_len, d_model))  # [batch, seq_len, d_model]
    article_rows = np.broadcast_to(np.arange(batch)[:, None], (batch, seq_len))  # [batch, seq_len]
    right_rows = np.broadcast_to(np.arange(seq_len)[None, :], (batch, seq_len))  # [batch, seq_len]
    return BatchFirstMixup(
        batch=batch,
        seq_len=seq_len,
        article_rows=article_rows.copy(),  # [batch, seq_len]
        right_rows=right_rows.copy(),  # [batch, seq_len]
        article_added=article.copy(),  # [batch, seq_len, d_model]
        right_added=right.copy(),  # [batch, seq_len, d_model]
        wrong_words=int(np.sum(article_rows != right_rows)),
        max_error=float(np.max(np.abs(article - right))),
    )


# --- argument checks --------------------------------------------------------------------------------


def _table_args(n_positions, d_model, base) -> tuple[int, int, float]:
    return _non_negative_int(n_positions, "n_positions"), _positive_int(d_model, "d_model"), _base(base)


def _shift_args(k, d_model) -> tuple[int, int]:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"the offset k must be a whole number of positions; got {k!r}.")
    return int(k), _positive_int(d_model, "d_model")


def _permutation_args(x, perm, pe) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)  # [T, d_model]
    if x.ndim != 2:
        raise ValueError(f"x must be one sentence, shape [T, d_model]; got shape {x.shape}.")
    T = x.shape[0]
    perm = np.asarray(perm)  # [T]
    if perm.shape != (T,) or not np.array_equal(np.sort(perm), np.arange(T)):
        raise ValueError(f"perm must list each of the positions 0..{T - 1} exactly once; got {perm.tolist()}.")
    pe = np.zeros_like(x) if pe is None else np.asarray(pe, dtype=np.float64)  # [T, d_model]
    if pe.shape != x.shape:
        raise ValueError(f"pe must have one row per word, shape {x.shape}; got {pe.shape}.")
    return x, perm, pe


def _table(table) -> np.ndarray:
    table = np.asarray(table, dtype=np.float64)  # [n, d]
    if table.ndim != 2:
        raise ValueError(f"a position table has one row per position, shape [n, d]; got shape {table.shape}.")
    return table


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
