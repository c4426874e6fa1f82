"""Sliding-window attention and attention sinks: a decoder whose queries see only the last `window`
keys (Mistral 7B, Jiang et al. 2023, window 4096), plus a few first tokens kept for ever (the
"attention sinks" of StreamingLLM, Xiao et al. 2023), what that saves against full attention, how
far information still travels through stacked layers, and which tokens the key/value cache holds.

Masks follow the core's convention: True = may attend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import _non_negative_int, _positive_int

SLIDING_WINDOW_FORMULA = (
    r"\text{visible}(i, j) = \big(i - w < j \le i\big)\ \lor\ \big(j < n_\text{sink} \,\land\, j \le i\big)"
)


def sliding_window_mask(T: int, window: int, n_sink: int = 0) -> np.ndarray:
    """True where query i may attend to key j: i - window < j <= i, or j is one of the first n_sink
    tokens (an attention sink).  -> bool [T, T]

    `window` counts the query's own position, so every row sees at most `window` recent keys plus
    the sinks. The mask stays causal: a sink j < n_sink is visible to query i only once it has been
    read (j <= i), so the first n_sink rows are the plain causal rows. window >= T is causal_mask(T).
    """
    T, window, n_sink = _window_args(T, window, n_sink)
    i = np.arange(T)[:, None]  # [T, 1] query positions
    j = np.arange(T)[None, :]  # [1, T] key positions
    recent = (j > i - window) & (j <= i)  # [T, T]
    sink = (j < n_sink) & (j <= i)  # [T, T]
    return recent | sink  # [T, T]


def visible_keys(T: int, window: int, n_sink: int = 0) -> np.ndarray:
    """How many keys each query sees under sliding_window_mask, counted without building it.  -> int [T]"""
    T, window, n_sink = _window_args(T, window, n_sink)
    i = np.arange(T)  # [T]
    recent = np.minimum(i + 1, window)  # [T] keys i - window + 1 .. i that exist
    old_sinks = np.clip(np.minimum(n_sink, i - window + 1), 0, None)  # [T] sinks already out of the window
    return recent + old_sinks  # [T]


@dataclass(frozen=True)
class WindowCosts:
    """What one head of one layer computes and keeps, a sliding window against full attention.

    Multiply-adds count q·k for every visible pair and the weighted sum of the values over them
    (d_head each); the projections cost the same in both and are left out.
    """

    T: int  # tokens in the sequence
    window: int  # recent keys each query sees, itself included
    n_sink: int  # first tokens every later query keeps seeing
    d_head: int  # width of one head's queries, keys and values
    visible: np.ndarray  # keys seen by each query                     [T]
    window_entries: int  # scores computed with the window, Σ visible
    causal_entries: int  # scores of full causal attention, T (T + 1) / 2
    full_entries: int  # scores of bidirectional attention, T²
    window_madds: int  # 2 · window_entries · d_head
    causal_madds: int  # 2 · causal_entries · d_head
    window_cache_tokens: int  # keys/values the cache holds for the last token (window + sinks at most)
    causal_cache_tokens: int  # keys/values full attention must keep: T
    fraction: float  # window_entries / causal_entries (1.0 while T <= window)


def window_costs(T: int, window: int, d_head: int = 64, n_sink: int = 0) -> WindowCosts:
    """Score entries, multiply-adds and cached tokens of a sliding window against full attention.

    Once T passes the window the window's cost grows like T · window instead of T² / 2, and its
    cache stops growing at window + n_sink tokens: that is why long-context decoders use it.
    """
    T, window, n_sink = _window_args(T, window, n_sink)
    d_head = _positive_int(d_head, "d_head")
    visible = visible_keys(T, window, n_sink)  # [T]
    window_entries = int(visible.sum())
    causal_entries = T * (T + 1) // 2
    return WindowCosts(
        T=T,
        window=window,
        n_sink=n_sink,
        d_head=d_head,
        visible=visible,
        window_entries=window_entries,
        causal_entries=causal_entries,
        full_entries=T * T,
        window_madds=2 * window_entries * d_head,
        causal_madds=2 * causal_entries * d_head,
        window_cache_tokens=int(visible[-1]) if T else 0,
        causal_cache_tokens=T,
        fraction=window_entries / causal_entries if causal_entries else 1.0,
    )


@dataclass(frozen=True)
class WindowCostCurve:
    """window_costs over a range of sequence lengths, as arrays a chart draws directly."""

    T: np.ndarray  # sequence lengths                     [n]
    window_entries: np.ndarray  # Σ visible keys            [n]
    causal_entries: np.ndarray  # T (T + 1) / 2             [n]
    window_cache_tokens: np.ndarray  #                       [n]
    causal_cache_tokens: np.ndarray  # = T                   [n]
    window: int
    n_sink: int


def window_cost_curve(T_max: int, window: int, n_sink: int = 0) -> WindowCostCurve:
    """Score entries and cached tokens for every T = 1 .. T_max: linear after the window, quadratic without."""
    T_max = _positive_int(T_max, "T_max")
    visible = visible_keys(T_max, window, n_sink)  # [T_max]; a prefix of the sequence is a shorter sequence
    T = np.arange(1, T_max + 1)  # [T_max]
    return WindowCostCurve(
        T=T,
        window_entries=np.cumsum(visible),  # [T_max]
        causal_entries=T * (T + 1) // 2,  # [T_max]
        window_cache_tokens=visible,  # [T_max]: the last query of a length-T sequence sees visible[T-1]
        causal_cache_tokens=T,  # [T_max]
        window=int(window),
        n_sink=int(n_sink),
    )


@dataclass(frozen=True)
class WindowReach:
    """Which inputs can still influence each output after a stack of sliding-window layers."""

    reach: np.ndarray  # reach[i, j]: input j can change output i after n_layers layers  bool [T, T]
    span: np.ndarray  # inputs each output can depend on, Σ_j reach[i, j]              [T]
    furthest: np.ndarray  # i - (earliest such j): how far back output i reaches         [T]
    theoretical_span: int  # stacked_span(window, n_layers): n_layers · (window - 1) + 1
    window: int
    n_layers: int
    n_sink: int


def stacked_span(window: int, n_layers: int) -> int:
    """Positions one output can depend on through n_layers sliding-window layers: each layer looks
    window - 1 positions further back, so n_layers · (window - 1) + 1 (the output's own included)."""
    _window_args(0, window, 0)
    return _positive_int(n_layers, "n_layers") * (int(window) - 1) + 1


def window_reach(T: int, window: int, n_layers: int, n_sink: int = 0) -> WindowReach:
    """Stack n_layers sliding-window layers: output i depends on input j when a chain of visible
    pairs links them, i.e. (mask^n_layers)[i, j] > 0.

    Each layer reaches window - 1 positions further back, so information travels
    n_layers · (window - 1) positions: the argument Jiang et al. (2023) make for Mistral 7B (32
    layers x a 4096-token window reach about 131K tokens), counted here on a small T.
    """
    n_layers = _positive_int(n_layers, "n_layers")
    mask = sliding_window_mask(T, window, n_sink).astype(np.int64)  # [T, T]
    reach = mask > 0  # [T, T]
    for _ in range(n_layers - 1):
        reach = (reach.astype(np.int64) @ mask) > 0  # [T, T]; one more layer of visible pairs
    T = mask.shape[0]
    earliest = np.argmax(reach, axis=1) if T else np.zeros(0, dtype=np.int64)  # [T] first True in each row
    return WindowReach(
        reach=reach,
        span=reach.sum(axis=1),  # [T]
        furthest=np.arange(T) - earliest,  # [T]
        theoretical_span=stacked_span(window, n_layers),
        window=int(window),
        n_layers=n_layers,
        n_sink=int(n_sink),
    )


@dataclass(frozen=True)
class CacheSlots:
    """A rolling key/value cache of n_sink + window slots, step by step (StreamingLLM's layout).

    Sinks keep slots 0 .. n_sink - 1 for ever; every later token j goes into slot
    n_sink + (j - n_sink) mod window, overwriting the token that has just left the window (the
    rolling buffer of Mistral 7B, Jiang et al. 2023). After step i the slots hold exactly the keys
    query i may see under sliding_window_mask.
    """

    slots: np.ndarray  # slots[i, s]: token held in slot s after token i arrived, -1 if empty  int [T, n_sink + window]
    written: np.ndarray  # the slot token i was written into                                     int [T]
    evicted: np.ndarray  # the token token i overwrote, -1 if its slot was empty                 int [T]
    window: int
    n_sink: int


def cache_slots(T: int, window: int, n_sink: int = 0) -> CacheSlots:
    """Which token sits in which cache slot after each step of decoding."""
    T, window, n_sink = _window_args(T, window, n_sink)
    j = np.arange(T)  # [T] token positions
    written = np.where(j < n_sink, j, n_sink + (j - n_sink) % window)  # [T]
    slots = np.full((T, n_sink + window), -1, dtype=np.int64)  # [T, n_sink + window]
    evicted = np.full(T, -1, dtype=np.int64)  # [T]
    held = np.full(n_sink + window, -1, dtype=np.int64)  # [n_sink + window] the cache right now
    for i in range(T):  # one step per token, as a decoder fills its cache
        evicted[i] = held[written[i]]
        held[written[i]] = i
        slots[i] = held
    return CacheSlots(slots=slots, written=written, evicted=evicted, window=window, n_sink=n_sink)


def _window_args(T, window, n_sink) -> tuple[int, int, int]:
    T = _non_negative_int(T, "T")
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)):
        raise ValueError(f"window must be a whole number of tokens; got {window!r}.")
    if window < 1:
        raise ValueError(
            f"window={window} would hide every key, even the query's own position; a sliding window "
            "counts the query itself, so it needs at least 1 token."
        )
    n_sink = _non_negative_int(n_sink, "n_sink")
    return T, int(window), n_sink
