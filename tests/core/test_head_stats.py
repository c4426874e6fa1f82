"""attention_core.head_stats: hand-worked examples, properties, and messages a student can act on."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import multi_head_attention, softmax
from attention_core.head_stats import (
    PATTERNS,
    head_choices,
    head_overlap,
    head_patterns,
    head_size,
    mean_entropy,
    mean_overlap,
    mean_peak,
    multi_head_cost,
    random_projections,
    row_entropy,
    score_split,
)

# --- hand-worked examples -----------------------------------------------------------------------


def test_head_choices_are_the_divisors():
    assert head_choices(8) == [1, 2, 4, 8]
    assert head_choices(12) == [1, 2, 3, 4, 6, 12]
    assert head_choices(384, max_heads=16) == [1, 2, 3, 4, 6, 8, 12, 16]
    assert head_choices(13) == [1, 13]  # a prime allows one head or one column per head
    assert head_choices(17, max_heads=16) == [1]
    assert head_size(384, 12) == 32


def test_row_entropy_by_hand():
    # one-hot: 0 bits; two keys at 1/2: 1 bit; four keys at 1/4: 2 bits;
    # (1/2, 1/4, 1/4): 1/2·1 + 2·(1/4·2) = 1.5 bits.
    rows = np.array([[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0.25] * 4, [0.5, 0.25, 0.25, 0]])
    np.testing.assert_allclose(row_entropy(rows), [0, 1, 2, 1.5], atol=1e-12)
    # head 0 has rows of 0 and 2 bits, head 1 of 1 and 1.5 bits: means 1 and 1.25.
    np.testing.assert_allclose(mean_entropy(np.stack([rows[[0, 2]], rows[[1, 3]]])), [1.0, 1.25], atol=1e-12)


def test_mean_peak_by_hand():
    # head 0: rows (1, 0) and (.5, .5): peaks 1 and .5, mean .75; head 1: uniform rows, peak 1/2.
    alpha = np.array([[[1.0, 0.0], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]]])
    np.testing.assert_allclose(mean_peak(alpha), [0.75, 0.5])


def test_overlap_by_hand():
    # Head a looks at key 0 from both queries; head b splits query 0 evenly and looks at key 1
    # from query 1. Query 0: min(1, .5) + min(0, .5) = .5; query 1: min(1, 0) + min(0, 1) = 0.
    # Mean over the two queries: 0.25.
    a = np.array([[1.0, 0.0], [1.0, 0.0]])
    b = np.array([[0.5, 0.5], [0.0, 1.0]])
    np.testing.assert_allclose(head_overlap(np.stack([a, b])), [[1, 0.25], [0.25, 1]], atol=1e-12)
    assert mean_overlap(np.stack([a, b])) == pytest.approx(0.25)  # the one pair of different heads
    assert mean_overlap(a[None]) == 1.0


def test_patterns_by_hand():
    # T = 3. Head 0 is the identity (each query looks at itself); head 1 looks one step back, the
    # first query (which has no previous token) at itself: "previous" is averaged over queries 1 and 2.
    eye = np.eye(3)
    back = np.array([[1.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    p = head_patterns(np.stack([eye, back]))
    assert PATTERNS == ("self", "previous", "next", "first", "last")
    np.testing.assert_allclose(p[0], [1, 0, 0, 1 / 3, 1 / 3])
    np.testing.assert_allclose(p[1], [1 / 3, 1, 0, 2 / 3, 0])


def test_cost_by_hand():
    # d_model 8, 2 heads: d_head 4; one head's W_q, W_k, W_v are 8 x 4 each = 96; both heads 192
    # = 3 · 64; W_o 64; total 256 = 4 · 64. T = 4: 2 · 4 · 4 · 4 = 128 = 16 · 8 products.
    c = multi_head_cost(8, 2, T=4)
    assert (c.d_head, c.qkv_per_head, c.qkv, c.w_o, c.total) == (4, 96, 192, 64, 256)
    assert (c.score_products, c.softmax_rows) == (128, 8)
    one = multi_head_cost(8, 1, T=4)
    assert (one.qkv, one.total, one.score_products, one.softmax_rows) == (192, 256, 128, 4)


def test_score_split_by_hand():
    # q = (1, 2 | 3, 4), k = (1, 0 | 0, 1), two heads of two columns:
    # head 0: 1·1 + 2·0 = 1; head 1: 3·0 + 4·1 = 4; together 5 = q · k.
    s = score_split(np.array([[1.0, 2, 3, 4]]), np.array([[1.0, 0, 0, 1]]), 2)
    np.testing.assert_array_equal(s.per_head[:, 0, 0], [1, 4])
    np.testing.assert_array_equal(s.full, [[5]])
    np.testing.assert_array_equal(s.summed, [[5]])


# --- properties ---------------------------------------------------------------------------------


@st.composite
def maps(draw):
    h, T = draw(st.integers(1, 5)), draw(st.integers(1, 7))
    seed = draw(st.integers(0, 2**32 - 1))
    spread = draw(st.floats(0.01, 20))
    rng = np.random.default_rng(seed)
    return softmax(rng.standard_normal((h, T, T)) * spread)  # [h, T, T]


@given(maps())
@settings(max_examples=80, deadline=None)
def test_entropy_between_zero_and_log2_T(alpha):
    bits = mean_entropy(alpha)
    T = alpha.shape[-1]
    assert bits.shape == (alpha.shape[0],)
    assert np.all(bits >= 0) and np.all(bits <= np.log2(T) + 1e-12)


@given(maps())
@settings(max_examples=80, deadline=None)
def test_overlap_is_symmetric_one_on_the_diagonal_and_between_zero_and_one(alpha):
    o = head_overlap(alpha)
    np.testing.assert_allclose(o, o.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(o), 1.0, atol=1e-12)
    assert np.all(o >= -1e-12) and np.all(o <= 1 + 1e-12)
    # equal to 1 minus the total variation distance, averaged over queries
    tv = 0.5 * np.abs(alpha[:, None] - alpha[None, :]).sum(-1).mean(-1)
    np.testing.assert_allclose(o, 1 - tv, atol=1e-12)


@given(maps())
@settings(max_examples=60, deadline=None)
def test_patterns_are_shares_and_match_the_map(alpha):
    p = head_patterns(alpha)
    T = alpha.shape[-1]
    assert p.shape == (alpha.shape[0], len(PATTERNS))
    assert np.all(p >= 0) and np.all(p <= 1 + 1e-12)
    i = np.arange(T)
    np.testing.assert_allclose(p[:, 0], alpha[:, i, i].mean(-1))
    np.testing.assert_allclose(p[:, 1], alpha[:, i[1:], i[1:] - 1].sum(-1) / max(T - 1, 1))
    np.testing.assert_allclose(p[:, 2], alpha[:, i[:-1], i[:-1] + 1].sum(-1) / max(T - 1, 1))


@given(st.sampled_from([(4, 1), (4, 2), (8, 4), (12, 3), (12, 6)]), st.integers(1, 5), st.integers(0, 2**32 - 1))
@settings(deadline=None)
def test_heads_scores_add_up_to_one_big_heads_and_match_the_core(dims, T, seed):
    d_model, h = dims
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, d_model))
    w = random_projections(d_model, rng)
    r = multi_head_attention(x, w.w_q, w.w_k, w.w_v, w.w_o, n_heads=h)
    s = score_split(r.q, r.k, h)
    np.testing.assert_allclose(s.per_head, r.scores, atol=1e-12)
    np.testing.assert_allclose(s.summed, s.full, atol=1e-10)


@given(st.integers(1, 64), st.integers(1, 16), st.integers(1, 50))
def test_h_heads_cost_what_one_head_costs(d_model, max_heads, T):
    one = multi_head_cost(d_model, 1, T)
    for h in head_choices(d_model, max_heads):
        c = multi_head_cost(d_model, h, T)
        assert c.d_head * h == d_model
        assert c.qkv == one.qkv == 3 * d_model**2
        assert c.total == one.total == 4 * d_model**2
        assert c.score_products == one.score_products == T * T * d_model
        assert c.softmax_rows == h * one.softmax_rows


def test_random_projections_keep_the_input_size():
    rng = np.random.default_rng(0)
    w = random_projections(256, rng)
    x = rng.standard_normal((200, 256))
    assert w.w_q.shape == w.w_o.shape == (256, 256)
    assert 0.9 < np.var(x @ w.w_q) < 1.1  # N(0, 1/d_model) weights: variance stays about 1
    a, b = random_projections(8, np.random.default_rng(3)), random_projections(8, np.random.default_rng(3))
    np.testing.assert_array_equal(a.w_v, b.w_v)  # same seed, same weights


# --- messages -----------------------------------------------------------------------------------


def test_messages_a_student_can_act_on():
    with pytest.raises(ValueError, match=r"d_model=10 is not divisible by n_heads=4.*\[1, 2, 5, 10\]"):
        head_size(10, 4)
    with pytest.raises(ValueError, match="not divisible"):
        multi_head_cost(10, 3, T=2)
    with pytest.raises(ValueError, match="at least 1"):
        head_choices(0)
    with pytest.raises(ValueError, match=r"\[h, T_q, T_k\]"):
        mean_entropy(np.ones((2, 2)))
    with pytest.raises(ValueError, match="never negative"):
        head_overlap(-np.ones((1, 2, 2)))
    with pytest.raises(ValueError, match="square"):
        head_patterns(np.ones((1, 2, 3)) / 3)
    with pytest.raises(ValueError, match="same shape"):
        score_split(np.ones((2, 4)), np.ones((3, 4)), 2)


@pytest.mark.parametrize("T", [2, 5, 16])
def test_a_head_that_always_looks_one_step_back_or_ahead_scores_1_at_any_length(T):
    # Counting the first row (which has no previous token) as 0 gave such a head 15/16 = 94% on the
    # real model's 16 word pieces, where the real-model page said 1.00 for the same head.
    back = np.eye(T, k=-1)
    back[0, 0] = 1.0  # the first query has no previous token: it looks at itself
    ahead = np.eye(T, k=1)
    ahead[-1, -1] = 1.0
    p = head_patterns(np.stack([back, ahead]))
    assert p[0, PATTERNS.index("previous")] == pytest.approx(1.0)
    assert p[1, PATTERNS.index("next")] == pytest.approx(1.0)
    assert head_patterns(np.ones((1, 1, 1)))[0, 1] == 0.0  # one token: no previous, no next
