"""How scores become attention weights, and what can be done to weights that are already given.

Scores become weights row by row: each query's scores over the keys are normalised. Softmax is
what Transformers use (every row then sums to 1); the articles point out that other functions, such
as ReLU, would also do (then a row need not sum to 1). A temperature τ divides the scaled scores
before that: τ < 1 sharpens a row, τ > 1 flattens it.

A real model's stored attention maps hold only the softmax weights, not the scores. Two exact
facts still let a page mask them and change their temperature:

    softmax over the allowed keys only  =  the weights re-normalised over the allowed keys
    softmax(scores / τ)                 =  weights^(1/τ), re-normalised

because softmax(s)_j = e^(s_j) / Σ e^(s_l): restricting the sum, or raising every e^(s_j) to the
same power, is all either operation does. ReLU has no such shortcut: softmax forgets a constant
per row (s and s + c give the same weights), and ReLU(s) and ReLU(s + c) differ.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_core.attention import (
    AttentionResult,
    _as_float,
    _as_mask,
    _positive_int,
    scaled_dot_product_attention,
    softmax,
)

Normalisation = Literal["softmax", "relu"]
NORMALISATIONS: tuple[str, ...] = ("softmax", "relu")


def random_qkv(x: np.ndarray, d_k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeded random projections W_q, W_k, W_v and the Q, K, V they make.  [T, d_model] -> 3 x [T, d_k]

    The entries of W are N(0, 1/d_model): with N(0, 1) inputs every component of q, k and v then has
    variance about 1, whatever d_model is, so the scaled scores q·k/√d_k do too and the picture
    does not wash out or saturate as the sizes change. Stands in for learned weights.
    """
    x = _as_float(x, "x")  # [T, d_model]
    d_k = _positive_int(d_k, "d_k")
    d_model = x.shape[-1]
    if d_model == 0:
        raise ValueError("x has 0 columns: each token needs a vector of at least one number.")
    rng = np.random.default_rng(seed)
    w_q, w_k, w_v = rng.standard_normal((3, d_model, d_k)) / np.sqrt(d_model)  # 3 x [d_model, d_k]
    return x @ w_q, x @ w_k, x @ w_v  # [T, d_k] each


def relu_weights(scaled: np.ndarray) -> np.ndarray:
    """ReLU in place of softmax: negative scores become 0, the rest stay as they are.  [..., T_k] -> [..., T_k]

    Masked scores (-inf) become 0 too. Nothing divides by a row total, so rows need not sum to 1.
    """
    scaled = np.asarray(scaled, dtype=np.float64)  # [..., T_q, T_k]
    return np.maximum(scaled, 0.0)  # [..., T_q, T_k]


def attend(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None = None,
    temperature: float = 1.0,
    normalisation: Normalisation = "softmax",
) -> AttentionResult:
    """Attention with a choice of normalisation and a temperature.  -> weights [..., T_q, T_k], output [..., T_q, d_v]

    With τ = 1 and softmax this is exactly scaled_dot_product_attention; `scale` is 1 / (√d_k · τ).
    """
    scale = _scale(q, temperature, normalisation)  # 1 / (√d_k · τ), the arguments checked
    result = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)  # softmax(q kᵀ · scale), masked
    if normalisation == "softmax":
        return result
    weights = relu_weights(result.scaled)  # ReLU in place of softmax: rows need not sum to 1  [..., T_q, T_k]
    output = weights @ np.asarray(v, dtype=np.float64)  # [..., T_q, d_v]
    return AttentionResult(
        scores=result.scores, scaled=result.scaled, weights=weights, output=output, scale=result.scale
    )


def _scale(q, temperature: float, normalisation: str) -> float:
    """attend's factor on the raw scores, 1 / (√d_k · τ), after checking τ and the normalisation."""
    temperature = _temperature(temperature)
    if normalisation not in NORMALISATIONS:
        raise ValueError(f"normalisation must be one of {', '.join(NORMALISATIONS)}; got {normalisation!r}.")
    d_k = _as_float(q, "q").shape[-1]  # [..., T_q, d_k]
    return 1.0 / (np.sqrt(max(d_k, 1)) * temperature)  # d_k = 0 is refused by scaled_dot_product_attention


def reweight(weights: np.ndarray, mask: np.ndarray | None = None, temperature: float = 1.0) -> np.ndarray:
    """Softmax weights as they would be with a mask and a temperature, from the weights alone.
    [..., T_q, T_k] -> [..., T_q, T_k]

    Exact (see the module's docstring): weights^(1/τ) kept on the allowed keys, each row divided by
    its new total. Computed as softmax(log(weights) / τ) so that a sharp τ cannot underflow a whole
    row to zero. A row whose every key is masked, or whose allowed keys all had weight 0, gets
    all-zero weights, as scaled_dot_product_attention gives a fully masked row.
    """
    weights, mask, temperature = _reweight_args(weights, mask, temperature)
    with np.errstate(divide="ignore"):
        logits = np.log(weights) / temperature  # [..., T_q, T_k]; log 0 = -inf stays -inf
    if mask is not None:
        logits = np.where(mask, logits, -np.inf)  # [..., T_q, T_k]: masked keys get nothing
    return softmax(logits, axis=-1)  # [..., T_q, T_k]


def _reweight_args(weights, mask, temperature) -> tuple[np.ndarray, np.ndarray | None, float]:
    """reweight's arguments, checked: softmax weights, a boolean mask of their shape, τ > 0."""
    temperature = _temperature(temperature)
    weights = np.asarray(weights, dtype=np.float64)  # [..., T_q, T_k]
    if weights.ndim < 2:
        raise ValueError(f"weights must be a table [T_q, T_k] (one row per query); got shape {weights.shape}.")
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise ValueError("weights must be finite and non-negative, as softmax weights are.")
    if mask is not None:
        mask = _as_mask(mask, weights.shape)
        if mask.dtype != bool:
            raise ValueError("mask must be boolean here (True = may attend).")
    return weights, mask, temperature


def strongest_head(attentions: np.ndarray, query: int, key: int) -> tuple[int, int]:
    """The (layer, head), 0-based, whose weight from `query` to `key` is largest.  [L, H, T, T] -> (l, h)

    Finds a head by what it does, e.g. the head in which "it" looks most at "animal".
    """
    attentions = np.asarray(attentions, dtype=np.float64)  # [L, H, T, T]
    if attentions.ndim != 4:
        raise ValueError(f"attentions must be shaped [n_layers, n_heads, T, T]; got {attentions.shape}.")
    T = attentions.shape[-1]
    for name, i in (("query", query), ("key", key)):
        if not 0 <= i < T:
            raise ValueError(f"{name}={i} is not a token position; the sentence has positions 0..{T - 1}.")
    per_head = attentions[:, :, query, key]  # [L, H]
    layer, head = np.unravel_index(np.argmax(per_head), per_head.shape)
    return int(layer), int(head)


def _temperature(temperature: float) -> float:
    temperature = float(temperature)
    if not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(
            f"temperature must be a positive number (1 leaves the weights as they are); got {temperature}."
        )
    return temperature
