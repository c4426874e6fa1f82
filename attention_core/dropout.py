"""Dropout on attention weights, as article 003's MultiHeadAttention applies it after softmax
(`attn = self.dropout(attn)`), and as nn.Dropout does it: while training, each weight is zeroed
with probability p and the ones kept are multiplied by 1/(1-p), so that a weight's expected value
is the weight itself; in evaluation (model.eval()) the row passes unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

N_DRAWS = 2000  # masks averaged to show that the expected row is the row itself


@dataclass(frozen=True)
class DropoutRow:
    """One row of attention weights before and after dropout, with what made the difference."""

    weights: np.ndarray  # α', the row after softmax (sums to 1)                   [T]
    p: float  # the probability of zeroing each weight
    training: bool  # dropout is on only while training; off, `dropped` is `weights`
    keep: np.ndarray  # bool: the weights kept by this draw (all True when not training)   [T]
    scale: float  # 1/(1-p) while training, else 1
    dropped: np.ndarray  # keep · α' · scale: the row attention uses             [T]
    row_sum: float  # the dropped row's sum: no longer 1 while training
    mean_row: np.ndarray  # the average of N_DRAWS such rows: close to α'         [T]
    output: np.ndarray | None  # dropped @ V, when V was given                    [d_v]
    plain_output: np.ndarray | None  # α' @ V, the output without dropout          [d_v]


def attention_dropout(weights, p: float, seed: int, training: bool = True, V=None) -> DropoutRow:
    """Dropout of one row of attention weights α' ([T]) with probability p, its mask drawn from
    `seed`; V ([T, d_v]) optional, to show the output with and without it."""
    if not 0.0 <= p < 1.0:
        raise ValueError(
            f"the dropout probability p must be at least 0 and below 1 (p = 1 would zero every weight); got {p}."
        )
    w = np.asarray(weights, dtype=np.float64)  # [T]
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"dropout here takes one row of weights, shape [T]; got {w.shape}.")
    rng = np.random.default_rng(seed)
    scale = 1.0 / (1.0 - p) if training else 1.0
    keep = rng.random(w.shape) >= p if training else np.ones(w.shape, dtype=bool)  # [T]
    dropped = np.where(keep, w * scale, 0.0)  # [T]
    if training:
        masks = rng.random((N_DRAWS, w.size)) >= p  # [N_DRAWS, T]
        mean_row = (masks * w * scale).mean(axis=0)  # [T]
    else:
        mean_row = w.copy()  # [T]
    output = plain = None
    if V is not None:
        V = np.asarray(V, dtype=np.float64)  # [T, d_v]
        if V.ndim != 2 or V.shape[0] != w.size:
            raise ValueError(f"V must have one row per weight, shape [{w.size}, d_v]; got {V.shape}.")
        output, plain = dropped @ V, w @ V  # [d_v] each
    return DropoutRow(w, float(p), bool(training), keep, scale, dropped, float(dropped.sum()), mean_row, output, plain)
