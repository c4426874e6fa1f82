"""Sliding windows and sinks: the mask by its definition, its costs counted two ways, the reach
of stacked layers and the rolling cache."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import causal_mask, local_mask, sliding_window_mask
from attention_core.published import MISTRAL_7B
from attention_core.windows import (
    cache_slots,
    stacked_span,
    visible_keys,
    window_cost_curve,
    window_costs,
    window_reach,
)


def test_a_window_of_two_with_one_sink_by_hand():
    # Query 3 sees itself, key 2 (window 2) and the sink 0; key 1 has left the window.
    expected = [
        [1, 0, 0, 0, 0],
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
        [1, 0, 1, 1, 0],
        [1, 0, 0, 1, 1],
    ]
    np.testing.assert_array_equal(sliding_window_mask(5, 2, n_sink=1), expected)


@given(st.integers(0, 12), st.integers(1, 14), st.integers(0, 14))
@settings(max_examples=120, deadline=None)
def test_mask_is_its_definition(T, window, n_sink):
    mask = sliding_window_mask(T, window, n_sink)
    assert mask.shape == (T, T) and mask.dtype == bool
    for i in range(T):
        for j in range(T):
            assert mask[i, j] == ((i - window < j <= i) or (j < n_sink and j <= i)), (i, j)
    assert not np.triu(mask, 1).any(), "a sliding window is causal"
    np.testing.assert_array_equal(visible_keys(T, window, n_sink), mask.sum(axis=1))


@given(st.integers(0, 12), st.integers(1, 14))
@settings(max_examples=60, deadline=None)
def test_window_without_sinks_is_causal_and_local(T, window):
    np.testing.assert_array_equal(sliding_window_mask(T, window), causal_mask(T) & local_mask(T, window - 1))


@pytest.mark.parametrize("T", [0, 1, 5, 9])
def test_a_window_as_long_as_the_sequence_is_causal(T):
    for window in (T, T + 1, 100):
        if window >= 1:
            np.testing.assert_array_equal(sliding_window_mask(T, window), causal_mask(T))
            np.testing.assert_array_equal(sliding_window_mask(T, window, n_sink=3), causal_mask(T))


def test_sinks_stay_visible_to_every_later_query():
    mask = sliding_window_mask(20, 3, n_sink=2)
    assert mask[2:, :2].all()
    assert mask[10].sum() == 3 + 2
    assert not mask[10, 2:7].any()


def test_costs_counted_from_the_mask():
    for T, window, n_sink in [(1, 1, 0), (10, 3, 0), (10, 3, 2), (7, 20, 1), (33, 4, 4)]:
        mask = sliding_window_mask(T, window, n_sink)
        c = window_costs(T, window, d_head=8, n_sink=n_sink)
        assert c.window_entries == mask.sum()
        assert c.causal_entries == causal_mask(T).sum()
        assert c.full_entries == np.ones((T, T)).sum()
        assert c.window_madds == 2 * 8 * mask.sum() and c.causal_madds == 2 * 8 * causal_mask(T).sum()
        assert c.window_cache_tokens == mask[-1].sum() <= window + n_sink
        assert c.causal_cache_tokens == T
    assert window_costs(5, 9).fraction == 1.0
    # Past the window each new query adds exactly w entries: T·w minus the triangle the first w queries miss.
    for T in (64, 4000, 8000):
        assert window_costs(T, 64).window_entries == T * 64 - 64 * 63 // 2


def test_cost_curve_matches_one_sequence_at_a_time():
    curve = window_cost_curve(30, 5, n_sink=2)
    for T in (1, 4, 5, 6, 30):
        c = window_costs(T, 5, n_sink=2)
        assert curve.window_entries[T - 1] == c.window_entries
        assert curve.causal_entries[T - 1] == c.causal_entries
        assert curve.window_cache_tokens[T - 1] == c.window_cache_tokens


@pytest.mark.parametrize(("window", "n_layers"), [(1, 3), (2, 1), (3, 4), (5, 2)])
def test_stacked_layers_reach_layers_times_window(window, n_layers):
    T = 24
    r = window_reach(T, window, n_layers)
    assert r.theoretical_span == n_layers * (window - 1) + 1
    np.testing.assert_array_equal(r.span, np.minimum(np.arange(T) + 1, r.theoretical_span))
    np.testing.assert_array_equal(r.furthest, np.minimum(np.arange(T), r.theoretical_span - 1))
    # the chain of masks is the brute-force matrix power
    power = np.linalg.matrix_power(sliding_window_mask(T, window).astype(np.int64), n_layers) > 0
    np.testing.assert_array_equal(r.reach, power)


def test_mistral_reach_from_its_published_shape():
    # Jiang et al. (2023) quote "approximately 131K tokens" for 32 layers of a 4096-token window.
    assert stacked_span(MISTRAL_7B.window, MISTRAL_7B.layers) == pytest.approx(131_000, rel=0.01)


@pytest.mark.parametrize(("T", "window", "n_sink"), [(12, 3, 0), (12, 3, 2), (4, 6, 1), (9, 1, 1)])
def test_rolling_cache_holds_what_the_mask_lets_a_query_see(T, window, n_sink):
    c = cache_slots(T, window, n_sink)
    mask = sliding_window_mask(T, window, n_sink)
    assert c.slots.shape == (T, n_sink + window)
    for i in range(T):
        held = set(c.slots[i][c.slots[i] >= 0].tolist())
        assert held == set(np.flatnonzero(mask[i]).tolist()), i
        if c.evicted[i] >= 0:
            assert not mask[i, c.evicted[i]], "an evicted token has left the window"
    assert (c.written[:n_sink] == np.arange(min(n_sink, T))).all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sliding_window_mask(5, 0), "window=0 would hide every key"),
        (lambda: sliding_window_mask(5, -2), "window=-2 would hide every key"),
        (lambda: sliding_window_mask(5, 2.5), "window must be a whole number of tokens"),
        (lambda: sliding_window_mask(5, True), "window must be a whole number of tokens"),
        (lambda: sliding_window_mask(-1, 2), "T must not be negative"),
        (lambda: sliding_window_mask(5, 2, n_sink=-1), "n_sink must not be negative"),
        (lambda: sliding_window_mask(5.0, 2), "T must be a whole number"),
        (lambda: window_costs(5, 2, d_head=0), "d_head must be at least 1"),
        (lambda: window_cost_curve(0, 2), "T_max must be at least 1"),
        (lambda: window_reach(5, 2, 0), "n_layers must be at least 1"),
    ],
)
def test_every_bad_argument_says_what_to_do(call, message):
    with pytest.raises(ValueError, match=message):
        call()
