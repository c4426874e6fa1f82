"""The bottleneck that attention removed, measured: how much of a source sentence one fixed context
vector C keeps, against one context C_i per output step.

The encoder is a tanh RNN with a state of d numbers reading source vectors a_1..a_T:
    h_t = tanh(a_t W_xh + h_{t-1} W_hh)
    fixed context       C   = h_T                    the last state, as in the encoder-decoders
                                                     before attention (Cho et al. 2014,
                                                     Sutskever et al. 2014)
    per-step contexts   C_i = Σ_j α_ij h_j           attention over all the states (Bahdanau et
                                                     al. 2015), output step i aligned with a_i
The attention weights are set, not learned: the aligned state's score exceeds every other by
`score_gap`, α_i = softmax(score_gap · [j = i]) over j, which is what a trained attention does
on a one-to-one alignment (see the learned maps of attention_core.encoder_decoder). As T grows
the other T - 1 states share more weight: α_ii = e^gap / (e^gap + T - 1).

The measure: the best linear read-out (least squares with an intercept) of a_j from C (a
separate read-out for each position j, the only way to pick one word out of one vector), or of
a_i from C_i (one read-out shared by all steps, as a decoder has one), fitted on n_fit random
sentences and scored on n_test others as R² (1: recovered exactly, 0: no better than guessing
the average). The shared read-out is a handicap for C_i, so if anything the comparison favours C.
A read-out that is linear in d numbers can recover at most d of the T·d_token numbers of the
source, so the mean R² from C can never pass min(1, d / (T·d_token)): the `ceiling` curve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import _positive_int
from attention_core.sequence_models import random_rnn_weights, rnn_forward

MAX_T = 64  # a page's slider; T_max = 64 takes about half a second


@dataclass(frozen=True)
class BottleneckCurves:
    """How much of the source each kind of context keeps, as the source grows."""

    T_values: np.ndarray  # source lengths 1..T_max                                       [n]
    fixed: np.ndarray  # mean R² of a_j read from the one C = h_T, over positions j        [n]
    per_step: np.ndarray  # mean R² of a_i read from its own C_i, over positions i         [n]
    ceiling: np.ndarray  # min(1, d / (T·d_token)): no linear read-out of C does better     [n]
    aligned_weight: np.ndarray  # α_ii, the attention on the aligned state                [n]
    fixed_by_position: np.ndarray  # R² of a_j from C at T = T_max, j = 1..T_max           [T_max]
    per_step_by_position: np.ndarray  # R² of a_i from C_i at T = T_max                    [T_max]
    d: int  # numbers in C (and in each C_i): the RNN's state size
    d_token: int  # numbers in each source vector a_j
    radius: float  # spectral radius of W_hh
    score_gap: float  # how much higher the aligned state scores than the others
    n_fit: int  # sentences the read-outs are fitted on
    n_test: int  # other sentences they are scored on


def bottleneck_curves(
    T_max: int = 24,
    d: int = 8,
    rng: np.random.Generator | None = None,
    d_token: int = 2,
    radius: float = 0.9,
    score_gap: float = 6.0,
    n_fit: int = 400,
    n_test: int = 400,
) -> BottleneckCurves:
    """Measure R² from C and from C_i for T = 1..T_max (see the module's description).

    At the defaults C has room for d / d_token = 4 source vectors: up to T = 4 the curve from C
    falls only because the RNN forgets (0.92 at T = 2), past it like the ceiling d / (T·d_token);
    with d_token = d (vectors as long as the context) it falls from T = 2 on. One encoder (W_xh
    with N(0, 1/d_token) entries, W_hh = radius · orthogonal) is drawn first, then n_fit + n_test
    sentences of T_max vectors a_j ~ N(0, I); length T uses their first T vectors, so neighbouring
    points of the curves share sentences and the curves are smooth.
    rng defaults to np.random.default_rng(0).
    """
    T_max = _positive_int(T_max, "T_max")
    if T_max > MAX_T:
        raise ValueError(f"T_max={T_max} is more than this experiment runs; choose at most {MAX_T}.")
    d = _positive_int(d, "d (numbers in C)")
    d_token = _positive_int(d_token, "d_token")
    score_gap = float(score_gap)
    if not np.isfinite(score_gap) or score_gap < 0:
        raise ValueError(f"score_gap must be a finite number >= 0; got {score_gap}.")
    n_fit, n_test = _positive_int(n_fit, "n_fit"), _positive_int(n_test, "n_test")
    if n_fit < 2 * (d + 1):
        raise ValueError(
            f"n_fit={n_fit} is too few sentences to fit a read-out of {d + 1} numbers; use at least {2 * (d + 1)}."
        )
    rng = np.random.default_rng(0) if rng is None else rng
    w = random_rnn_weights(d_token, d, rng, radius)
    # One batch of sentences of length T_max serves every T: the encoder reads left to right, so
    # its states on the first T words are exactly its states on a sentence of T words.
    a = rng.standard_normal((n_fit + n_test, T_max, d_token))  # [N, T_max, d_token]
    h = rnn_forward(a, w.w_xh, w.w_hh, w.b_h).h  # [N, T_max, d]
    T_values = np.arange(1, T_max + 1)  # [n]
    fixed, per_step, aligned = (np.zeros(T_max) for _ in range(3))  # [n] each
    fixed_by_position = per_step_by_position = np.zeros(0)
    for T in T_values:
        contexts, p = per_step_contexts(h, int(T), score_gap)  # [N, T, d], α_ii
        r2_fixed = _shared_readout_r2(fixed_context(h, int(T)), a[:, :T, :], n_fit)  # [T]  every a_j from C = h_T
        r2_step = _readout_r2(contexts, a[:, :T, :], n_fit)  # [T]  a_i from C_i
        fixed[T - 1], per_step[T - 1], aligned[T - 1] = r2_fixed.mean(), r2_step.mean(), p
        if T_max == T:
            fixed_by_position, per_step_by_position = r2_fixed, r2_step  # [T_max], [T_max]
    return BottleneckCurves(
        T_values=T_values,
        fixed=fixed,
        per_step=per_step,
        ceiling=np.minimum(1.0, d / (T_values * d_token)),  # [n]
        aligned_weight=aligned,
        fixed_by_position=fixed_by_position,
        per_step_by_position=per_step_by_position,
        d=d,
        d_token=d_token,
        radius=float(radius),
        score_gap=score_gap,
        n_fit=n_fit,
        n_test=n_test,
    )


def fixed_context(h: np.ndarray, T: int) -> np.ndarray:
    """C = h_T, the encoder's last state.  h: [N, T_max, d] -> [N, d]"""
    return h[:, T - 1, :]  # [N, d]


def per_step_contexts(h: np.ndarray, T: int, score_gap: float) -> tuple[np.ndarray, float]:
    """C_i = Σ_j α_ij h_j, α_i = softmax(score_gap · [j = i]): set, not learned.
    h: [N, T_max, d] -> contexts [N, T, d], α_ii"""
    p = 1.0 / (1.0 + (T - 1) * np.exp(-score_gap))  # α_ii
    q = (1.0 - p) / (T - 1) if T > 1 else 0.0  # α_ij, j ≠ i
    total = h[:, :T, :].sum(axis=1, keepdims=True)  # [N, 1, d]  Σ_j h_j
    return q * total + (p - q) * h[:, :T, :], p  # [N, T, d]  q Σ_j h_j + (p - q) h_i


def held_out_r2(x: np.ndarray, y: np.ndarray, n_fit: int) -> np.ndarray:
    """Fit y ≈ [x, 1] @ B on the first n_fit rows, score the others: R² per column of y.
    x: [N, f], y: [N, m] -> [m] (a read-out that learned nothing scores about 0)."""
    coef = _fit(x[:n_fit], y[:n_fit])  # [f + 1, m]
    resid = y[n_fit:] - (x[n_fit:] @ coef[:-1] + coef[-1])  # [n_test, m]  y - ŷ
    spread = y[n_fit:] - y[n_fit:].mean(axis=0)  # [n_test, m]  y - ȳ
    return 1.0 - (resid**2).sum(axis=0) / (spread**2).sum(axis=0)  # [m]


def _shared_readout_r2(features: np.ndarray, targets: np.ndarray, n_fit: int) -> np.ndarray:
    """R² of every position's vector read from one shared feature vector (the fixed C): one
    least-squares read-out per target number, all fitted at once.
    features: [N, d], targets: [N, T, d_token] -> [T]"""
    N, T, d_token = targets.shape
    y = targets.reshape(N, T * d_token)  # [N, T·d_token]
    r2 = held_out_r2(features, y, n_fit)  # [T·d_token]
    return np.maximum(r2.reshape(T, d_token).mean(axis=-1), 0.0)  # [T]


def _readout_r2(features: np.ndarray, targets: np.ndarray, n_fit: int) -> np.ndarray:
    """R² of position i's vector read from position i's own features (C_i), with ONE read-out
    for every position, as a decoder has one: fitted on all positions of the first n_fit
    sentences, scored per position on the others.  features: [N, T, d], targets: [N, T, d_token] -> [T]"""
    _, T, d = features.shape
    d_token = targets.shape[-1]
    coef = _fit(features[:n_fit].reshape(n_fit * T, d), targets[:n_fit].reshape(n_fit * T, d_token))  # [d + 1, d_token]
    pred = features[n_fit:] @ coef[:-1] + coef[-1]  # [n_test, T, d_token]
    y = targets[n_fit:]  # [n_test, T, d_token]
    r2 = 1.0 - ((y - pred) ** 2).sum(axis=0) / ((y - y.mean(axis=0)) ** 2).sum(axis=0)  # [T, d_token]
    return np.maximum(r2.mean(axis=-1), 0.0)  # [T]


def _fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares with an intercept, by the normal equations.  [n, f], [n, m] -> [f + 1, m]"""
    x = np.concatenate([x, np.ones((x.shape[0], 1))], axis=1)  # [n, f + 1]
    gram = x.T @ x  # [f + 1, f + 1]
    # A whisper of ridge keeps the solve defined when a state component never varies (saturated
    # tanh); 1e-10 of the diagonal's size changes no fitted number that matters.
    gram = gram + 1e-10 * np.trace(gram) * np.eye(gram.shape[0])  # [f + 1, f + 1]
    return np.linalg.solve(gram, x.T @ y)  # [f + 1, m]
