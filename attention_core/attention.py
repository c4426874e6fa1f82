"""Self-attention in pure NumPy, one short function per idea.

Row-vector convention throughout, as in PyTorch: a sequence is x: [T, d_model] and a projection
is x @ W. The source articles write the column form (Q = W_q I); that is the transpose of this.

Names follow the formulas:  A = Q Kᵀ,  A' = softmax(A · scale),  O = A' V,  scale = 1/√d_k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along `axis`.  [..., n] -> [..., n]

    Subtracting the slice maximum first keeps exp() from overflowing, so inputs as large as
    ±1e300 stay finite. A slice that is entirely -inf (every key masked) gives all zeros rather
    than 0/0 = NaN. A slice holding +inf shares its weight equally among the +inf entries,
    which is the limit softmax tends to.
    """
    x = np.asarray(x, dtype=np.float64)  # [..., n]
    m = np.max(x, axis=axis, keepdims=True)  # [..., 1]
    with np.errstate(invalid="ignore", over="ignore"):
        if np.isfinite(m).all():  # the usual case: every slice has a finite maximum
            shifted = x - m  # [..., n], every entry <= 0 (a masked -inf stays -inf)
        else:
            shifted = np.where(
                m == np.inf,
                np.where(x == np.inf, 0.0, -np.inf),  # the +inf entries win, equally
                x - np.where(np.isfinite(m), m, 0.0),  # an all -inf slice keeps its -inf
            )  # [..., n], every entry <= 0
        e = np.exp(shifted)  # [..., n]
        total = np.sum(e, axis=axis, keepdims=True)  # [..., 1]
        return e / np.where(total == 0.0, 1.0, total)  # [..., n]; all zeros where total == 0


def one_hot(indices, vocab_size: int) -> np.ndarray:
    """One-hot rows: row r has a single 1 in column indices[r].  [n] -> [n, V]"""
    vocab_size = _positive_int(vocab_size, "vocab_size")
    idx = np.asarray(indices)
    if idx.ndim != 1:
        raise ValueError(f"indices must be a flat list of word numbers; got shape {idx.shape}.")
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise ValueError("indices must be whole numbers (positions in the vocabulary).")
    if idx.size and (idx.min() < 0 or idx.max() >= vocab_size):
        raise ValueError(
            f"every index must lie in 0..{vocab_size - 1} for a vocabulary of {vocab_size} words; "
            f"got {int(idx.min())}..{int(idx.max())}."
        )
    out = np.zeros((idx.size, vocab_size))  # [n, V]
    out[np.arange(idx.size), idx] = 1.0
    return out  # [n, V]


def causal_mask(T: int) -> np.ndarray:
    """True where query i may attend to key j, i.e. j <= i (a decoder cannot look ahead).
    [T, T] bool"""
    T = _non_negative_int(T, "T")
    return np.tril(np.ones((T, T), dtype=bool))  # [T, T]


def local_mask(T: int, window: int) -> np.ndarray:
    """True where |i - j| <= window: each token sees `window` neighbours on each side, so a
    row allows at most 2·window + 1 keys. This is the articles' truncated self-attention for
    speech, where only nearby frames matter.  [T, T] bool"""
    T = _non_negative_int(T, "T")
    window = _non_negative_int(window, "window")
    i = np.arange(T)
    return np.abs(i[:, None] - i[None, :]) <= window  # [T, T]


@dataclass(frozen=True)
class AttentionResult:
    """Every intermediate of scaled dot-product attention, so a page can draw any step."""

    scores: np.ndarray  # A = q kᵀ, raw dot products             [..., T_q, T_k]
    scaled: np.ndarray  # A · scale, masked entries set to -inf  [..., T_q, T_k]
    weights: np.ndarray  # A' = softmax(scaled), rows sum to 1    [..., T_q, T_k]
    output: np.ndarray  # O = A' v                               [..., T_q, d_v]
    scale: float  # the factor applied; 1/√d_k unless given


def scaled_dot_product_attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None = None,
    scale: float | None = None,
) -> AttentionResult:
    """softmax(q kᵀ · scale + mask) v, as torch.nn.functional.scaled_dot_product_attention.

    q: [..., T_q, d_k], k: [..., T_k, d_k], v: [..., T_k, d_v]; leading dims broadcast.
    mask: bool, True = may attend (PyTorch's convention), or float, added to the scaled scores;
          broadcastable to [..., T_q, T_k].
    scale: None means 1/√d_k, which keeps the scores' variance near 1 whatever d_k is.
    A query whose every key is masked gets all-zero weights and a zero output, never NaN.
    """
    q, k, v = _as_float(q, "q"), _as_float(k, "k"), _as_float(v, "v")
    d_k = q.shape[-1]
    if k.shape[-1] != d_k:
        raise ValueError(
            f"q has d_k={d_k} columns but k has {k.shape[-1]}; a query and a key must have the "
            "same length to take their dot product."
        )
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"k has {k.shape[-2]} rows but v has {v.shape[-2]}; every key needs exactly one "
            "value, so k and v must have the same number of rows."
        )
    if d_k == 0:
        raise ValueError("d_k is 0: the query and key vectors need at least one component.")
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    scale = float(scale)
    if not np.isfinite(scale):
        raise ValueError(f"scale must be a finite number; got {scale}.")

    scores = q @ np.swapaxes(k, -1, -2)  # [..., T_q, T_k]
    scaled = scores * scale  # [..., T_q, T_k]
    if mask is not None:
        mask = _as_mask(mask, scaled.shape)
        if mask.dtype == bool:
            scaled = np.where(mask, scaled, -np.inf)  # [..., T_q, T_k]
        else:
            scaled = scaled + mask  # [..., T_q, T_k]
    weights = softmax(scaled, axis=-1)  # [..., T_q, T_k]
    output = weights @ v  # [..., T_q, d_v]
    return AttentionResult(scores=scores, scaled=scaled, weights=weights, output=output, scale=scale)


def additive_attention_scores(q: np.ndarray, k: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The articles' additive (tanh) model: score(q_i, k_j) = w · tanh(q_i + k_j).

    q: [T_q, d], k: [T_k, d], w: [d] -> [T_q, T_k]. Compare dot-product scoring, q_i · k_j.
    """
    q, k, w = _as_float(q, "q"), _as_float(k, "k"), np.asarray(w, dtype=np.float64)
    if q.ndim != 2 or k.ndim != 2:
        raise ValueError("q and k must be tables of vectors, shape [T, d].")
    if q.shape[-1] != k.shape[-1] or w.shape != (q.shape[-1],):
        raise ValueError(
            f"q has {q.shape[-1]} columns, k has {k.shape[-1]} and w has shape {w.shape}; "
            "additive scoring adds q_i to k_j and dots the result with w, so all three need the "
            "same length d."
        )
    hidden = np.tanh(q[:, None, :] + k[None, :, :])  # [T_q, T_k, d]
    return hidden @ w  # [T_q, T_k]


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """Cut the columns into n_heads equal blocks, one per head.  [..., T, d_model] -> [..., h, T, d_head]

    Head i gets columns i·d_head .. (i+1)·d_head - 1, the same cut PyTorch's MultiheadAttention
    makes, so head i's queries only ever meet head i's keys.
    """
    x = _as_float(x, "x")
    d_head = _head_size(x.shape[-1], n_heads)
    blocks = x.reshape(*x.shape[:-1], n_heads, d_head)  # [..., T, h, d_head]
    return np.swapaxes(blocks, -3, -2)  # [..., h, T, d_head]


def merge_heads(x: np.ndarray) -> np.ndarray:
    """Concatenate the heads side by side again: the inverse of split_heads.
    [..., h, T, d_head] -> [..., T, h·d_head]"""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 3:
        raise ValueError(f"merge_heads needs an array shaped [h, T, d_head]; got shape {x.shape}.")
    h, T, d_head = x.shape[-3:]
    rows = np.swapaxes(x, -3, -2)  # [..., T, h, d_head]
    return rows.reshape(*x.shape[:-3], T, h * d_head)  # [..., T, d_model]


@dataclass(frozen=True)
class MultiHeadResult:
    """Every intermediate of multi-head self-attention."""

    q: np.ndarray  # Q = x W_q + b_q                [T, d_model]
    k: np.ndarray  # K = x W_k + b_k                [T, d_model]
    v: np.ndarray  # V = x W_v + b_v                [T, d_model]
    q_heads: np.ndarray  # Q cut into h blocks      [h, T, d_head]
    k_heads: np.ndarray  #                          [h, T, d_head]
    v_heads: np.ndarray  #                          [h, T, d_head]
    scores: np.ndarray  # per head q kᵀ             [h, T, T]
    scaled: np.ndarray  # scores / √d_head, masked  [h, T, T]
    weights: np.ndarray  # per head softmax         [h, T, T]
    heads: np.ndarray  # per head weights · v       [h, T, d_head]
    concat: np.ndarray  # heads side by side        [T, d_model]
    output: np.ndarray  # concat W_o + b_o          [T, d_model]


def multi_head_attention(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    n_heads: int,
    mask: np.ndarray | None = None,
    b_q: np.ndarray | None = None,
    b_k: np.ndarray | None = None,
    b_v: np.ndarray | None = None,
    b_o: np.ndarray | None = None,
) -> MultiHeadResult:
    """Multi-head self-attention: project, split into heads, attend per head, concat, project.

    x: [T, d_model]; w_*: [d_model, d_model] in the row convention (out = x @ w + b);
    b_*: optional biases [d_model]; mask as in scaled_dot_product_attention, [T, T] shared by
    all heads or [h, T, T] per head. Each head attends with scale 1/√d_head.
    """
    x = _as_float(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must be one sequence shaped [T, d_model]; got shape {x.shape}.")
    d_model = x.shape[1]
    _head_size(d_model, n_heads)
    w_q, w_k, w_v, w_o = (
        _weight(w, name, d_model) for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"), (w_o, "w_o"))
    )
    b_q, b_k, b_v, b_o = (
        _bias(b, name, d_model) for b, name in ((b_q, "b_q"), (b_k, "b_k"), (b_v, "b_v"), (b_o, "b_o"))
    )

    q = x @ w_q + b_q  # [T, d_model]
    k = x @ w_k + b_k  # [T, d_model]
    v = x @ w_v + b_v  # [T, d_model]
    q_heads = split_heads(q, n_heads)  # [h, T, d_head]
    k_heads = split_heads(k, n_heads)  # [h, T, d_head]
    v_heads = split_heads(v, n_heads)  # [h, T, d_head]
    att = scaled_dot_product_attention(q_heads, k_heads, v_heads, mask=mask)  # heads run independently
    concat = merge_heads(att.output)  # [T, d_model]
    output = concat @ w_o + b_o  # [T, d_model]
    return MultiHeadResult(
        q=q,
        k=k,
        v=v,
        q_heads=q_heads,
        k_heads=k_heads,
        v_heads=v_heads,
        scores=att.scores,
        scaled=att.scaled,
        weights=att.weights,
        heads=att.output,
        concat=concat,
        output=output,
    )


# --- argument checks: each raises a ValueError a student can act on -------------------------


def _as_float(a, name: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim < 2:
        raise ValueError(f"{name} must be a table of vectors, shape [T, d]; got shape {a.shape}.")
    return a


def _as_mask(mask, scores_shape: tuple) -> np.ndarray:
    mask = np.asarray(mask)
    if mask.dtype != bool and not np.issubdtype(mask.dtype, np.floating):
        raise ValueError(
            f"mask must be boolean (True = may attend) or float (added to the scores); got "
            f"{mask.dtype}. Write mask.astype(bool) if 1 means 'may attend'."
        )
    try:
        np.broadcast_shapes(mask.shape, scores_shape)
    except ValueError:
        raise ValueError(
            f"mask has shape {mask.shape} but the scores have shape {scores_shape}; the mask "
            "needs one entry per (query, key) pair."
        ) from None
    return mask


def _head_size(d_model: int, n_heads: int) -> int:
    n_heads = _positive_int(n_heads, "n_heads")
    if d_model % n_heads:
        divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
        raise ValueError(
            f"d_model={d_model} is not divisible by n_heads={n_heads}: each head takes an equal "
            f"share of the columns. Choose n_heads from {divisors}."
        )
    return d_model // n_heads


def _weight(w, name: str, d_model: int) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (d_model, d_model):
        raise ValueError(
            f"{name} must have shape [d_model, d_model] = [{d_model}, {d_model}] so that x @ {name} "
            f"keeps d_model columns; got {w.shape}."
        )
    return w


def _bias(b, name: str, d_model: int) -> np.ndarray:
    if b is None:
        return np.zeros(d_model)  # [d_model]
    b = np.asarray(b, dtype=np.float64)
    if b.shape != (d_model,):
        raise ValueError(f"{name} must have shape [{d_model}] (one number per column); got {b.shape}.")
    return b


def _positive_int(n, name: str) -> int:
    n = _non_negative_int(n, name)
    if n == 0:
        raise ValueError(f"{name} must be at least 1; got 0.")
    return n


def _non_negative_int(n, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number; got {n!r}.")
    if n < 0:
        raise ValueError(f"{name} must not be negative; got {n}.")
    return int(n)
