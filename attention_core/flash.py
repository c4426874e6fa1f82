"""FlashAttention's tiles: the same softmax(q kᵀ · scale) v, computed one block of keys at a time
without ever holding the whole T x T matrix (Dao et al. 2022, "FlashAttention").

The trick is the online softmax (Milakov & Gimelshein 2018): keep, for every query row, the
largest score seen so far m, the sum of exponentials so far l = Σ e^(s - m) and the unnormalised
output so far O = Σ e^(s - m) v. When a new block of keys raises the maximum from m to m', the
old sums are simply rescaled by e^(m - m'). After the last block, O / l is the exact softmax
average: no approximation, only a different order of the same additions.

The loops follow the paper's Algorithm 1: the outer loop walks the key/value blocks, the inner
loop the query blocks. O is kept unnormalised and divided by l once at the end, as
FlashAttention-2 does (Dao 2023); Algorithm 1 renormalises at every step, which gives the same
output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_core.attention import (
    _as_float,
    _as_mask,
    _non_negative_int,
    _positive_int,
    causal_mask,
    scaled_dot_product_attention,
)

ONLINE_SOFTMAX_FORMULA = (
    r"\begin{aligned} m' &= \max\big(m,\ \max_j s_j\big)\\ \ell' &= e^{m - m'}\,\ell + \textstyle\sum_j e^{s_j - m'}"
    r"\\ O' &= e^{m - m'}\,O + \textstyle\sum_j e^{s_j - m'}\, v_j\\ \text{output} &= O / \ell\end{aligned}"
)


@dataclass(frozen=True)
class FlashTile:
    """One tile (query block i x key block j) and the running state of its query rows after it."""

    step: int  # position in the order Algorithm 1 visits the tiles
    query_block: int  # i
    key_block: int  # j
    rows: tuple[int, int]  # query rows start, stop
    cols: tuple[int, int]  # key columns start, stop
    scores: np.ndarray  # this tile's scaled, masked scores               [B_r, B_c]
    tile_max: np.ndarray  # the largest score of each row in this tile    [B_r]
    rescale: np.ndarray  # e^(m_before - m): how much the old l and O shrink  [B_r]
    m: np.ndarray  # running maximum after this tile                      [B_r]
    l: np.ndarray  # noqa: E741 (the paper's name) running Σ e^(s - m) after this tile  [B_r]
    o: np.ndarray  # running unnormalised output Σ e^(s - m) v              [B_r, d_v]


@dataclass(frozen=True)
class FlashResult:
    """The tiled computation's output and its whole record, key block by key block.

    The state of query rows r after tile (i, j) is m_after[j, r], l_after[j, r], o_after[j, r]:
    a row's state changes only when a new key block arrives, so one array per key block records
    every tile. tile(step) cuts one tile's view out of it.
    """

    output: np.ndarray  # O / l, equal to scaled_dot_product_attention's   [T_q, d_v]
    m: np.ndarray  # final running maximum = each row's largest score       [T_q]
    l: np.ndarray  # noqa: E741 (the paper's name) final Σ e^(s - m): softmax's denominator, m subtracted  [T_q]
    scaled: np.ndarray  # every tile's scores side by side, for the page (the algorithm holds one)  [T_q, T_k]
    m_after: np.ndarray  # running maximum after each key block             [n_key_blocks, T_q]
    l_after: np.ndarray  # running sum after each key block                 [n_key_blocks, T_q]
    o_after: np.ndarray  # running unnormalised output after each key block  [n_key_blocks, T_q, d_v]
    tile_max: np.ndarray  # each key block's row maxima                       [n_key_blocks, T_q]
    rescale: np.ndarray  # e^(m_before - m_after) at each key block            [n_key_blocks, T_q]
    block_size: int  # B_r = B_c: rows and columns of a tile (the last ones may be smaller)
    n_query_blocks: int  # T_r = ceil(T_q / block_size)
    n_key_blocks: int  # T_c = ceil(T_k / block_size)
    scale: float

    @property
    def n_tiles(self) -> int:
        return self.n_query_blocks * self.n_key_blocks

    def tile(self, step: int) -> FlashTile:
        """The step-th tile Algorithm 1 visits: key block j = step // T_r, query block i = step % T_r."""
        step = _non_negative_int(step, "step")
        if step >= self.n_tiles:
            raise ValueError(
                f"step={step} is past the last tile; there are {self.n_tiles} tiles (0..{self.n_tiles - 1})."
            )
        j, i = divmod(step, self.n_query_blocks)
        r0, r1 = _block(i, self.block_size, self.output.shape[0])
        c0, c1 = _block(j, self.block_size, self.scaled.shape[1])
        return FlashTile(
            step=step,
            query_block=i,
            key_block=j,
            rows=(r0, r1),
            cols=(c0, c1),
            scores=self.scaled[r0:r1, c0:c1],  # [B_r, B_c]
            tile_max=self.tile_max[j, r0:r1],  # [B_r]
            rescale=self.rescale[j, r0:r1],  # [B_r]
            m=self.m_after[j, r0:r1],  # [B_r]
            l=self.l_after[j, r0:r1],  # [B_r]
            o=self.o_after[j, r0:r1],  # [B_r, d_v]
        )


def flash_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    block_size: int,
    mask: np.ndarray | None = None,
    scale: float | None = None,
) -> FlashResult:
    """softmax(q kᵀ · scale + mask) v, tile by tile with the online softmax.

    q: [T_q, d_k], k: [T_k, d_k], v: [T_k, d_v]; mask bool (True = may attend) or float (added),
    broadcastable to [T_q, T_k]; scale None means 1/√d_k. Any block_size >= 1, including one that
    does not divide T or exceeds it (then there is one block). A query whose every key is masked
    gets a zero output (l stays 0), never NaN.

    The query blocks of one key block are independent rows, so they are updated in one NumPy call;
    each tile's own values are in the record (FlashResult.tile).
    """
    q, k, v = _flash_inputs(q, k, v)
    block_size = _positive_int(block_size, "block_size")
    T_q, d_k = q.shape
    T_k, d_v = v.shape
    scale = 1.0 / math.sqrt(d_k) if scale is None else float(scale)
    if not math.isfinite(scale):
        raise ValueError(f"scale must be a finite number; got {scale}.")
    mask = None if mask is None else np.broadcast_to(_flash_mask(mask, (T_q, T_k)), (T_q, T_k))  # [T_q, T_k]

    n_q, n_k = -(-T_q // block_size), -(-T_k // block_size)
    scaled = np.empty((T_q, T_k))  # [T_q, T_k], filled one key block at a time
    m_after, l_after = np.empty((n_k, T_q)), np.empty((n_k, T_q))  # [T_c, T_q] each
    o_after = np.empty((n_k, T_q, d_v))  # [T_c, T_q, d_v]
    tile_max, rescale = np.empty((n_k, T_q)), np.empty((n_k, T_q))  # [T_c, T_q] each
    m = np.full(T_q, -np.inf)  # [T_q] nothing seen yet
    ell = np.zeros(T_q)  # [T_q] the paper's l
    o = np.zeros((T_q, d_v))  # [T_q, d_v]
    for j in range(n_k):  # Algorithm 1's outer loop: load K_j, V_j once
        c0, c1 = _block(j, block_size, T_k)
        s = q @ k[c0:c1].T * scale  # [T_q, B_c]: every query block against this key block
        if mask is not None:
            s = np.where(mask[:, c0:c1], s, -np.inf) if mask.dtype == bool else s + mask[:, c0:c1]
        block_max = s.max(axis=1)  # [T_q], -inf where the whole block is masked
        m_new = np.maximum(m, block_max)  # [T_q]
        shift = np.where(np.isneginf(m_new), 0.0, m_new)  # [T_q]; a row with nothing visible yet stays at 0
        p = np.exp(s - shift[:, None])  # [T_q, B_c], masked entries exp(-inf) = 0
        alpha = np.exp(m - shift)  # [T_q], e^(m - m'); 0 while m = -inf
        ell = alpha * ell + p.sum(axis=1)  # [T_q]
        o = alpha[:, None] * o + p @ v[c0:c1]  # [T_q, d_v]
        m = m_new
        scaled[:, c0:c1] = s
        m_after[j], l_after[j], o_after[j], tile_max[j], rescale[j] = m, ell, o, block_max, alpha
    output = o / np.where(ell > 0, ell, 1.0)[:, None]  # [T_q, d_v]; a fully masked row has o = 0 and stays 0
    return FlashResult(
        output=output,
        m=m,
        l=ell,
        scaled=scaled,
        m_after=m_after,
        l_after=l_after,
        o_after=o_after,
        tile_max=tile_max,
        rescale=rescale,
        block_size=block_size,
        n_query_blocks=n_q,
        n_key_blocks=n_k,
        scale=scale,
    )


@dataclass(frozen=True)
class FlashExample:
    """One head's attention computed twice on the same q, k, v: tile by tile (FlashResult) and whole
    (the T x T weights at once), and how far apart the two outputs are: rounding, nothing more."""

    q: np.ndarray  # [T, d]
    k: np.ndarray  # [T, d]
    v: np.ndarray  # [T, d]
    result: FlashResult  # the tiled computation and its record
    weights: np.ndarray  # softmax of the whole score matrix, which the tiles never hold  [T, T]
    reference: np.ndarray  # weights @ v, the ordinary computation  [T, d]
    row_max: np.ndarray  # each row's largest score, read off the whole matrix  [T]
    denominator: np.ndarray  # Σ_j e^(s_j - row_max): softmax's denominator, whole  [T]
    max_error: float  # max |tiled - whole| over the output
    causal: bool
    first_raise: tuple[int, int] | None  # (row, key block) where a later block first raised a row's maximum

    def raised(self, row: int, block: int) -> bool:
        """Did key block `block` raise row `row`'s running maximum (so l and O shrank by e^(m - m'))?"""
        return block > 0 and bool(self.result.rescale[block, row] < 1.0)


def flash_example(T: int, d: int, block_size: int, seed: int, causal: bool = False) -> FlashExample:
    """q, k, v drawn from the seed (standard normal, [T, d] each), attended tile by tile and whole."""
    T, d = _positive_int(T, "T"), _positive_int(d, "d")
    rng = np.random.default_rng(seed)
    q, k, v = rng.standard_normal((3, T, d))  # [T, d] each
    mask = causal_mask(T) if causal else None  # [T, T] or None
    result = flash_attention(q, k, v, block_size, mask=mask)
    whole = scaled_dot_product_attention(q, k, v, mask=mask)
    row_max = whole.scaled.max(axis=-1)  # [T]; the diagonal is always visible, so finite
    denominator = np.exp(whole.scaled - row_max[:, None]).sum(axis=-1)  # [T]
    later = result.rescale[1:] < 1.0  # [T_c - 1, T]: blocks after the first that raised a row's maximum
    blocks, rows = np.nonzero(later)
    first = None if blocks.size == 0 else (int(rows[np.argmin(blocks * T + rows)]), int(blocks.min()) + 1)
    for a in (q, k, v):
        a.setflags(write=False)  # cached and shared by every session
    return FlashExample(
        q=q,
        k=k,
        v=v,
        result=result,
        weights=whole.weights,  # [T, T]
        reference=whole.output,  # [T, d]
        row_max=row_max,  # [T]
        denominator=denominator,  # [T]
        max_error=float(np.abs(result.output - whole.output).max()),
        causal=bool(causal),
        first_raise=first,
    )


# --- memory held and memory traffic -----------------------------------------------------------------


def paper_block_sizes(sram: int, d: int) -> tuple[int, int]:
    """(B_r, B_c) = (min(ceil(M / 4d), d), ceil(M / 4d)): Algorithm 1's choice for an SRAM of M numbers,
    so that Q_i, K_j, V_j and O_i fit on chip together."""
    sram, d = _positive_int(sram, "sram"), _positive_int(d, "d")
    b_c = -(-sram // (4 * d))
    return min(b_c, d), b_c


@dataclass(frozen=True)
class AttentionMemory:
    """What one head's attention holds and moves, standard (the paper's Algorithm 0) against tiled
    (Algorithm 1). Traffic counts numbers read from and written to high-bandwidth memory (HBM)."""

    T: int  # sequence length (the paper's N)
    d: int  # head width
    block_rows: int  # B_r, query rows per tile
    block_cols: int  # B_c, keys per tile
    bytes_per_value: int
    score_matrix_bytes: int  # one T x T matrix (S; standard attention stores P as well)
    tile_bytes: int  # on-chip working set of one tile: Q_i, K_j, V_j, O_i, l_i, m_i and S_ij
    outer_passes: int  # T_c = ceil(T / B_c): how often the tiled loop reads all of Q and O
    standard_reads: int  # 3 T d + 2 T²
    standard_writes: int  # T d + 2 T²
    flash_reads: int  # 2 T d + T_c (2 T d + 2 T)
    flash_writes: int  # T d + 2 T + T_c (T d + 2 T)

    @property
    def standard_traffic(self) -> int:
        return self.standard_reads + self.standard_writes

    @property
    def flash_traffic(self) -> int:
        return self.flash_reads + self.flash_writes


def attention_memory(
    T: int, d: int, block_size: int, bytes_per_value: int = 4, block_rows: int | None = None
) -> AttentionMemory:
    """Memory held and HBM traffic of both algorithms, counted line by line (block_rows defaults to block_size).

    Standard attention (Algorithm 0): read Q, K (2Td), write S (T²); read S, write P = softmax(S)
    (T² each); read P and V (T² + Td), write O (Td). That is Theta(Td + T²) whatever the chip.
    Tiled (Algorithm 1): write the initial O, l, m (Td + 2T); for each of the T_c key blocks, read
    K_j, V_j (2 B_c d, so 2Td over the whole loop) and, for every query block, read Q_i, O_i, l_i,
    m_i and write O_i, l_i, m_i back (2Td + 2T read and Td + 2T written per key block). With
    B_c = Theta(M/d) that is Theta(T² d² / M) (the paper's Theorem 2): fewer accesses than standard
    attention as soon as d² is small against M.
    Assumptions: one head, no dropout; a mask computed on chip (causal) costs no traffic; each tile
    (tile_bytes) fits in SRAM; every number moved counts once, and bytes_per_value (4 = float32)
    only converts counts to bytes.
    """
    T, d = _non_negative_int(T, "T"), _positive_int(d, "d")
    b_c = _positive_int(block_size, "block_size")
    b_r = b_c if block_rows is None else _positive_int(block_rows, "block_rows")
    bytes_per_value = _positive_int(bytes_per_value, "bytes_per_value")
    passes = -(-T // b_c)
    tile = b_r * d + 2 * b_c * d + b_r * d + 2 * b_r + b_r * b_c
    return AttentionMemory(
        T=T,
        d=d,
        block_rows=b_r,
        block_cols=b_c,
        bytes_per_value=bytes_per_value,
        score_matrix_bytes=T * T * bytes_per_value,
        tile_bytes=tile * bytes_per_value,
        outer_passes=passes,
        standard_reads=3 * T * d + 2 * T * T,
        standard_writes=T * d + 2 * T * T,
        flash_reads=2 * T * d + passes * (2 * T * d + 2 * T),
        flash_writes=T * d + 2 * T + passes * (T * d + 2 * T),
    )


@dataclass(frozen=True)
class MemorySweep:
    """attention_memory over sequence lengths (rows) and block sizes (columns), for a chart."""

    T: np.ndarray  # sequence lengths                                   [n_T]
    block_sizes: np.ndarray  # B_c (= B_r)                              [n_B]
    score_matrix_bytes: np.ndarray  # T² · bytes                        [n_T]
    tile_bytes: np.ndarray  # one tile's working set                    [n_B]
    standard_traffic: np.ndarray  # numbers moved, Algorithm 0           [n_T]
    flash_traffic: np.ndarray  # numbers moved, Algorithm 1              [n_T, n_B]
    d: int
    bytes_per_value: int


def attention_memory_sweep(T_values, d: int, block_sizes, bytes_per_value: int = 4) -> MemorySweep:
    """Bytes held and numbers moved as T and the block size grow: the standard traffic grows like T²
    whatever the block, the tiled one like T² / B_c, and the tile's size does not grow with T at all."""
    T_values = _int_list(T_values, "T_values", minimum=0)
    block_sizes = _int_list(block_sizes, "block_sizes", minimum=1)
    grid = [[attention_memory(T, d, b, bytes_per_value) for b in block_sizes] for T in T_values]
    return MemorySweep(
        T=np.array(T_values),
        block_sizes=np.array(block_sizes),
        score_matrix_bytes=np.array([row[0].score_matrix_bytes for row in grid]),  # [n_T]
        tile_bytes=np.array([cell.tile_bytes for cell in grid[0]]),  # [n_B]
        standard_traffic=np.array([row[0].standard_traffic for row in grid]),  # [n_T]
        flash_traffic=np.array([[cell.flash_traffic for cell in row] for row in grid]),  # [n_T, n_B]
        d=int(d),
        bytes_per_value=int(bytes_per_value),
    )


# --- helpers and argument checks ---------------------------------------------------------------------


def _block(index: int, block_size: int, total: int) -> tuple[int, int]:
    start = index * block_size
    return start, min(start + block_size, total)


def _flash_inputs(q, k, v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q, k, v = _as_float(q, "q"), _as_float(k, "k"), _as_float(v, "v")
    if q.ndim != 2 or k.ndim != 2 or v.ndim != 2:
        raise ValueError(
            f"flash_attention works on one head: q, k and v must be tables [T, d]; got shapes {q.shape}, "
            f"{k.shape} and {v.shape}. Call it once per head."
        )
    if k.shape[1] != q.shape[1]:
        raise ValueError(
            f"q has d_k={q.shape[1]} columns but k has {k.shape[1]}; a query and a key must have the same "
            "length to take their dot product."
        )
    if v.shape[0] != k.shape[0]:
        raise ValueError(f"k has {k.shape[0]} rows but v has {v.shape[0]}; every key needs exactly one value.")
    if q.shape[1] == 0:
        raise ValueError("d_k is 0: the query and key vectors need at least one component.")
    for name, a in (("q", q), ("k", k), ("v", v)):
        if not np.isfinite(a).all():
            raise ValueError(f"{name} holds an infinite or NaN entry; the running maximum needs finite scores.")
    return q, k, v


def _flash_mask(mask, shape: tuple[int, int]) -> np.ndarray:
    mask = _as_mask(mask, shape)
    if mask.ndim > 2:
        raise ValueError(f"mask must be one [T_q, T_k] table for one head; got shape {mask.shape}.")
    if mask.dtype != bool and (np.isnan(mask).any() or (mask == np.inf).any()):
        raise ValueError("a float mask may hold -inf (masked) and finite numbers, not +inf or NaN.")
    return mask


def _int_list(values, name: str, minimum: int) -> list[int]:
    values = list(np.atleast_1d(values))
    if not values:
        raise ValueError(f"{name} must list at least one number.")
    out = []
    for n in values:
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < minimum:
            raise ValueError(f"every entry of {name} must be a whole number of at least {minimum}; got {n!r}.")
        out.append(int(n))
    return out
