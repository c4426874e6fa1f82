"""What one layer costs, self-attention against an RNN and a CNN: operations as Table 1 of Vaswani
et al. (2017), "Attention Is All You Need", counts them, the steps that must run one after
another, and the time both take on the machine that runs this.

n (in the paper) is T here, the sequence length; d is the width of every vector; k the kernel
width of a convolution; r the neighbourhood size of restricted (truncated) self-attention, i.e.
the number of keys each query sees. The counts are the leading terms the table's O(·) keeps,
as multiply-adds:
    self-attention   T² d     every query dotted with every key (and the weights times values
                              cost the same again: a constant the O hides)
    RNN              T d²     each step multiplies the d-long state by W_hh: [d] @ [d, d]
    CNN              k T d²   each output mixes k inputs of width d into d channels
    truncated        r T d    each query dotted with r keys
The projections x @ W (T d² each) are the same for every kind and left out, as in the table.
"""

from __future__ import annotations

import datetime
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from attention_core.attention import _non_negative_int, _positive_int, scaled_dot_product_attention
from attention_core.sequence_models import KINDS, random_rnn_weights, rnn_forward

# The largest sizes a page may ask for; Python ints never overflow, so this only keeps the
# numbers readable.
MAX_T = 1_000_000
MAX_D = 100_000
MAX_TIMED_T = 4096  # the timing runs the layers for real: keep it to a second or two
MAX_TIMED_D = 1024
TIMING_BUDGET_S = 3.0  # a click's measurement, warm-up included, stops before a round would pass this
MIN_ROUNDS = 3  # runs per length before a difference may count as clear: a median of fewer is luck


@dataclass(frozen=True)
class LayerCosts:
    """Multiply-adds per layer (leading terms of Table 1) for a sequence of T vectors of width d."""

    T: int  # sequence length (the paper's n)
    d: int  # width of every vector
    k: int  # kernel width of the convolution
    r: int  # keys each query sees in truncated self-attention (at most T)
    self_attention: int  # T² d
    rnn: int  # T d²
    cnn: int  # k T d²
    truncated: int  # r T d
    crossover_T: int  # d: self-attention is the cheaper of it and the RNN exactly when T < d
    cheaper_than_rnn: bool  # T < d, i.e. T² d < T d²


def layer_costs(T: int, d: int, k: int = 3, r: int = 3) -> LayerCosts:
    """Operations per layer for each kind, and where self-attention stops being cheaper.

    T² d < T d² exactly when T < d: for sentences shorter than the vector width (most of them,
    with d = 512) self-attention costs less than a recurrent layer; for long inputs (speech, 100
    vectors a second) it costs more, which is why the source articles' speech models truncate it.
    r is capped at T, since a query cannot see more keys than there are.
    """
    T, d = _bounded(T, "T", MAX_T), _bounded(d, "d", MAX_D)
    k = _positive_int(k, "k (kernel width)")
    r = min(_positive_int(r, "r (keys per query)"), T)
    return LayerCosts(
        T=T,
        d=d,
        k=k,
        r=r,
        self_attention=T * T * d,
        rnn=T * d * d,
        cnn=k * T * d * d,
        truncated=r * T * d,
        crossover_T=d,
        cheaper_than_rnn=d > T,
    )


@dataclass(frozen=True)
class CostCurves:
    """layer_costs along a range of lengths, for one d, k and r: the curves of a cost chart."""

    T_values: np.ndarray  # sequence lengths                       [n]
    self_attention: np.ndarray  # T² d                              [n]
    rnn: np.ndarray  # T d²                                         [n]
    cnn: np.ndarray  # k T d²                                       [n]
    truncated: np.ndarray  # min(r, T) T d                          [n]
    d: int
    k: int
    r: int
    crossover_T: int  # d: where T² d = T d²


def cost_axis(T: int, d: int, n_points: int = 61) -> np.ndarray:
    """The lengths a chart of layer costs spans: from 1 to ten times the larger of T and d (at most
    MAX_T), log-spaced, with T and d themselves among them so that both can be marked."""
    T, d = _bounded(T, "T", MAX_T), _bounded(d, "d", MAX_D)
    top = min(MAX_T, 10 * max(T, d, 10))
    grid = np.unique(np.round(np.geomspace(1, top, n_points)).astype(np.int64))  # [<= n_points]
    return np.unique(np.concatenate([grid, [T, min(d, MAX_T)]]))  # [n]


def cost_curves(T_values, d: int, k: int = 3, r: int = 3) -> CostCurves:
    """Operations per layer of each kind for every T in T_values (floats: T² d passes 2^63 at
    T = 10^6, d = 10^5)."""
    T_values = np.asarray(T_values)
    if T_values.ndim != 1 or T_values.size == 0 or not np.issubdtype(T_values.dtype, np.integer):
        raise ValueError("T_values must be a non-empty list of whole numbers, e.g. [1, 10, 100].")
    costs = [layer_costs(int(T), d, k, r) for T in T_values]
    column = {
        name: np.array([float(getattr(c, name)) for c in costs])
        for name in ("self_attention", "rnn", "cnn", "truncated")
    }
    return CostCurves(
        T_values=T_values.copy(),
        **column,
        d=costs[0].d,
        k=costs[0].k,
        r=_positive_int(r, "r"),
        crossover_T=costs[0].crossover_T,
    )


def exact_attention_products(mask_sum: int, d: int) -> int:
    """Multiply-adds of the scores for a given mask: one d-long dot product per visible
    (query, key) pair. With every pair visible that is T² d; with a ±window band it is a little
    under r T d, because the first and last queries have fewer neighbours."""
    return _non_negative_int(mask_sum, "mask_sum") * _positive_int(d, "d")


@dataclass(frozen=True)
class ComplexityRow:
    """One row of Table 1 of "Attention Is All You Need", symbolic and with numbers put in."""

    layer: str  # ASCII id: self_attention, recurrent, convolutional, restricted
    name: str  # the row's name in the paper
    complexity: str  # complexity per layer, as printed, e.g. "O(n²·d)"
    complexity_value: int  # the expression inside O(·) with n = T and d put in
    sequential: str  # sequential operations, as printed
    sequential_value: int
    path: str  # maximum path length between two positions, as printed
    path_value: float  # log_k(n) and n/r need not be whole numbers


def complexity_table(T: int, d: int, k: int = 3, r: int = 3) -> tuple[ComplexityRow, ...]:
    """Table 1 of Vaswani et al. (2017), filled in with n = T and the given d, k and r.

    Maximum path length: self-attention links every pair in 1 step; an RNN needs n steps; the
    paper's convolution row assumes dilated convolutions, whose stack reaches every position in
    log_k(n) layers (contiguous kernels would need n/k); restricted self-attention needs n/r
    layers. A kernel of width k = 1 never widens its view, so log_1(n) is refused.
    """
    c = layer_costs(T, d, k, r)
    if c.k < 2:
        raise ValueError("k=1 never widens a layer's view, so no stack of them links two positions; choose k >= 2.")
    n = c.T
    return (
        ComplexityRow("self_attention", "Self-Attention", "O(n²·d)", c.self_attention, "O(1)", 1, "O(1)", 1.0),
        ComplexityRow("recurrent", "Recurrent", "O(n·d²)", c.rnn, "O(n)", n, "O(n)", float(n)),
        ComplexityRow(
            "convolutional", "Convolutional", "O(k·n·d²)", c.cnn, "O(1)", 1, "O(log_k(n))", math.log(n) / math.log(c.k)
        ),
        ComplexityRow(
            "restricted", "Self-Attention (restricted)", "O(r·n·d)", c.truncated, "O(1)", 1, "O(n/r)", n / c.r
        ),
    )


# --- parallel against sequential --------------------------------------------------------------------


def sequential_steps(T: int) -> dict[str, int]:
    """Steps that must run one after another to compute one layer's outputs: an RNN needs T
    (h_t waits for h_{t-1}); a CNN and self-attention need 1 (every output at once)."""
    T = _bounded(T, "T", MAX_T)
    return {kind: T if kind in ("rnn", "birnn") else 1 for kind in KINDS}


@dataclass(frozen=True)
class Timing:
    """Measured on the machine that ran it: seconds for one layer over T inputs, each length timed
    in several rounds (the RNN and the attention layer in turn, so that a burst of other work on
    the machine falls on both), the median kept and the spread of the runs beside it."""

    T_values: np.ndarray  # sequence lengths                                           [n]
    rnn_runs: np.ndarray  # every timed run of the RNN loop over T steps, seconds       [n, rounds]
    attention_runs: np.ndarray  # every timed run of Q, K, V and softmax(Q Kᵀ/√d) V      [n, rounds]
    rnn_seconds: np.ndarray  # median of rnn_runs                                       [n]
    attention_seconds: np.ndarray  # median of attention_runs                           [n]
    rnn_spread: np.ndarray  # the middle half of rnn_runs: 25th and 75th percentiles    [n, 2]
    attention_spread: np.ndarray  # the same for attention_runs                         [n, 2]
    attention_faster: np.ndarray  # attention's median below the RNN's                  [n] bool
    clear: np.ndarray  # the middle halves apart, in MIN_ROUNDS rounds or more: not noise  [n] bool
    rnn_steps: np.ndarray  # steps that wait for each other: T                         [n]
    attention_steps: np.ndarray  # 1 at every T                                         [n]
    d: int  # width of inputs and states
    repeats: int  # timed rounds (every length once per round); the median is kept
    warmups: int  # untimed calls of each layer first: caches and the BLAS threads woken up
    cpu_count: int  # logical CPUs this process may use
    seconds: float  # how long the whole measurement took, warm-up included
    measured_at: str  # when, in UTC, e.g. "2025-06-01 14:03 UTC": a timing is true of its moment


def time_rnn_vs_attention(
    T_values, d: int = 256, repeats: int = 7, seed: int = 0, budget_s: float = TIMING_BUDGET_S, warmups: int = 1
) -> Timing:
    """Wall-clock time of an RNN layer (a Python loop of T steps) against a self-attention layer
    (a few matrix products for all T at once), for each T, on this machine.

    One run is noisy (another process, a page fault, the first call's caches: a single run once
    put the RNN at 90 ms for T = 16 and 0.4 ms for T = 32), so: `warmups` untimed calls of
    each layer first (on the shortest input: they wake the BLAS threads and fill the caches), then
    up to `repeats` timed rounds, each timing every length once, the RNN and the attention layer
    in turn (which goes first alternates). A new round starts only if it would end within
    `budget_s` (judged by the round before; the first always runs): a click stays within a few
    seconds even on a busy server, which then gets fewer rounds. The median is kept with the
    middle half of the runs; a length is `clear` when the two middle halves do not overlap and
    there were at least MIN_ROUNDS rounds.

    Both layers include their input projections. The numbers depend on the machine and on what
    else runs on it: a page must label them as measured here, and tests only check their shapes.
    """
    T_values = np.asarray(T_values)
    if T_values.ndim != 1 or T_values.size == 0 or not np.issubdtype(T_values.dtype, np.integer):
        raise ValueError("T_values must be a non-empty list of whole numbers, e.g. [16, 64, 256].")
    for T in T_values:
        _bounded(int(T), "every T", MAX_TIMED_T)
    d = _bounded(d, "d", MAX_TIMED_D)
    repeats, warmups = _positive_int(repeats, "repeats"), _non_negative_int(warmups, "warmups")
    if not np.isfinite(budget_s) or budget_s <= 0:
        raise ValueError(f"budget_s must be a positive number of seconds; got {budget_s!r}.")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    w = random_rnn_weights(d, d, rng)
    w_q, w_k, w_v = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))  # 3 x [d, d]
    inputs = [rng.standard_normal((int(T), d)) for T in T_values]  # n x [T, d]

    def run_rnn(a):
        return rnn_forward(a, w.w_xh, w.w_hh, w.b_h).h  # [T, d]

    def run_attention(a):
        return scaled_dot_product_attention(a @ w_q, a @ w_k, a @ w_v).output  # [T, d]

    for _ in range(warmups):
        run_rnn(inputs[0]), run_attention(inputs[0])
    rnn_runs, att_runs = [], []  # rounds x [n]
    last_round = 0.0
    for r in range(repeats):
        round_start = time.perf_counter()
        if r >= 1 and round_start - started + last_round > budget_s:
            break
        rnn_round, att_round = [], []
        for a in inputs:
            first, second = (run_rnn, run_attention) if r % 2 == 0 else (run_attention, run_rnn)
            seconds = {first: _seconds(first, a), second: _seconds(second, a)}
            rnn_round.append(seconds[run_rnn])
            att_round.append(seconds[run_attention])
        rnn_runs.append(rnn_round)
        att_runs.append(att_round)
        last_round = time.perf_counter() - round_start
    rnn = np.array(rnn_runs).T  # [n, rounds]
    att = np.array(att_runs).T  # [n, rounds]
    rnn_spread = np.percentile(rnn, [25, 75], axis=1).T  # [n, 2]
    att_spread = np.percentile(att, [25, 75], axis=1).T  # [n, 2]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return Timing(
        T_values=T_values.copy(),  # [n]
        rnn_runs=rnn,  # [n, rounds]
        attention_runs=att,  # [n, rounds]
        rnn_seconds=np.median(rnn, axis=1),  # [n]
        attention_seconds=np.median(att, axis=1),  # [n]
        rnn_spread=rnn_spread,  # [n, 2]
        attention_spread=att_spread,  # [n, 2]
        attention_faster=np.median(att, axis=1) < np.median(rnn, axis=1),  # [n]
        clear=((att_spread[:, 1] < rnn_spread[:, 0]) | (rnn_spread[:, 1] < att_spread[:, 0]))
        & (rnn.shape[1] >= MIN_ROUNDS),  # [n]
        rnn_steps=T_values.copy(),  # [n]
        attention_steps=np.ones_like(T_values),  # [n]
        d=d,
        repeats=rnn.shape[1],
        warmups=warmups,
        cpu_count=cpus,
        seconds=time.perf_counter() - started,
        measured_at=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )


def _seconds(fn, a) -> float:
    start = time.perf_counter()
    fn(a)
    return max(time.perf_counter() - start, 1e-9)  # a timer tick can read 0 for tiny T


def _bounded(n, name: str, largest: int) -> int:
    n = _positive_int(n, name)
    if n > largest:
        raise ValueError(f"{name}={n} is more than this lab counts; choose at most {largest:,}.")
    return n
