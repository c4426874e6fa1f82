"""RoPE and ALiBi: hand-worked values, the relative property against added sinusoids, norms, the
long-term decay, the paper's ALiBi slopes, and every ValueError."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import alibi_bias, rotary_embedding
from attention_core.rotary import (
    alibi_slopes,
    compare_positions,
    rope_decay,
    rope_frequencies,
    rope_relative_scores,
    rope_shift_check,
)

unit = st.floats(-1, 1, allow_nan=False, allow_infinity=False)


def test_one_pair_turns_by_position_times_theta():
    # d = 2: θ_0 = base^0 = 1, so position 3 turns (1, 0) by 3 radians and (0, 2) likewise.
    out = rotary_embedding(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]]), positions=[0, 1, 3])
    np.testing.assert_allclose(out, [[1, 0], [np.cos(1), np.sin(1)], [-2 * np.sin(3), 2 * np.cos(3)]], atol=1e-15)
    # d = 4, base 100: θ = (1, 100^(-1/2)) = (1, 0.1); position 2 turns pair 1 by 0.2 radians.
    np.testing.assert_allclose(rope_frequencies(4, base=100.0), [1.0, 0.1])
    out = rotary_embedding(np.array([[0.0, 0.0, 1.0, 0.0]]), positions=[2], base=100.0)
    np.testing.assert_allclose(out, [[0, 0, np.cos(0.2), np.sin(0.2)]], atol=1e-15)


def test_matches_the_papers_complex_form():
    # RoFormer writes each pair as a complex number x_2i + i x_2i+1 multiplied by e^{i m θ_i}.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 10))
    p = rng.uniform(-50, 50, size=7)
    z = (x[:, 0::2] + 1j * x[:, 1::2]) * np.exp(1j * p[:, None] * rope_frequencies(10)[None, :])
    ours = rotary_embedding(x, positions=p)
    np.testing.assert_allclose(ours[:, 0::2], z.real, atol=1e-13)
    np.testing.assert_allclose(ours[:, 1::2], z.imag, atol=1e-13)


def test_default_positions_heads_and_the_inverse_rotation():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 5, 8))  # three heads share the positions
    out = rotary_embedding(x)
    np.testing.assert_allclose(out, rotary_embedding(x, positions=np.arange(5)))
    np.testing.assert_allclose(out[1], rotary_embedding(x[1]))
    np.testing.assert_allclose(out[:, 0], x[:, 0])  # position 0 is no turn at all
    np.testing.assert_allclose(rotary_embedding(out, positions=-np.arange(5)), x, atol=1e-14)


@st.composite
def rope_case(draw):
    T = draw(st.integers(1, 10))
    d = 2 * draw(st.integers(1, 8))
    q = draw(arrays(np.float64, (T, d), elements=unit))
    k = draw(arrays(np.float64, (T, d), elements=unit))
    return q, k, draw(st.integers(0, 64))


@given(rope_case())
@settings(max_examples=150, deadline=None)
def test_shifting_every_position_leaves_every_rope_score_unchanged(case):
    q, k, shift = case
    check = rope_shift_check(q, k, shift)
    assert check.rope_change <= 1e-12
    np.testing.assert_allclose(check.rope_shifted, check.rope_scores, rtol=0, atol=1e-12)
    # and the scores are really the rotated dot products
    np.testing.assert_allclose(check.rope_scores, rotary_embedding(q) @ rotary_embedding(k).T, atol=1e-15)


@given(arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 8).map(lambda n: 2 * n)), elements=unit))
@settings(max_examples=100, deadline=None)
def test_the_rotation_keeps_every_norm(x):
    p = np.arange(x.shape[0]) * 37.0
    np.testing.assert_allclose(
        np.linalg.norm(rotary_embedding(x, positions=p), axis=-1), np.linalg.norm(x, axis=-1), atol=1e-14
    )


def test_added_sinusoids_change_with_the_shift():
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((6, 8)), rng.standard_normal((6, 8))
    for shift in (1, 3, 20):
        check = rope_shift_check(q, k, shift)
        assert check.rope_change < 1e-12
        assert check.sinusoid_change > 0.05, shift
    assert rope_shift_check(q, k, 0).sinusoid_change == 0.0
    # Without content only PE_m · PE_n is left, and that is a function of m - n as well.
    zeros = np.zeros((6, 8))
    assert rope_shift_check(zeros, zeros, 5).sinusoid_change < 1e-12


def test_scores_of_one_query_and_one_key_depend_on_the_offset_only():
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    r = rope_relative_scores(q, k, T=12)
    assert r.rope.shape == (12, 12) and r.offset_values.tolist() == list(range(-11, 12))
    assert r.rope_spread.max() < 1e-12
    assert r.sinusoid_spread.max() > 0.1
    # the diagonal values are q · R(n - m) k, worked out with one rotation
    for offset in (-5, 0, 7):
        turned = rotary_embedding(k[None, :], positions=[-offset])[0]
        assert r.rope_by_offset[offset + 11] == pytest.approx(q @ turned, abs=1e-12)


def test_the_long_term_decay():
    d = 128
    decay = rope_decay(1000, d)
    # at distance 0 every S_j = j, so the mean |S_j| is (d/2 + 1) / 2; the equal-vector score is 1
    assert decay.relative_bound[0] == pytest.approx((d / 2 + 1) / 2)
    assert decay.equal_vector_score[0] == pytest.approx(1.0)
    # the decay is slow (the frequencies are spread geometrically) but steady, decade by decade
    for curve in (decay.relative_bound, decay.equal_vector_score):
        decades = [curve[1:10].mean(), curve[10:100].mean(), curve[100:1000].mean()]
        assert decades[0] > decades[1] > decades[2] and decades[2] < curve[0] / 2
    # an all-ones q scored against itself, rotated by RoPE, gives the same curve
    ones = np.ones((1, d))
    for distance in (1, 10, 100):
        turned = rotary_embedding(ones, positions=[distance])
        assert (turned @ ones.T)[0, 0] / d == pytest.approx(decay.equal_vector_score[distance], abs=1e-12)


def test_alibi_slopes_follow_the_paper():
    np.testing.assert_allclose(alibi_slopes(8), [1 / 2**n for n in range(1, 9)])
    np.testing.assert_allclose(alibi_slopes(1), [2.0**-8])
    # 6 heads: the 4-head slopes 2^-2 .. 2^-8, then every other 8-head slope, 2^-1 and 2^-3
    np.testing.assert_allclose(alibi_slopes(6), [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3])
    s12 = alibi_slopes(12)
    np.testing.assert_allclose(s12[:8], alibi_slopes(8))
    np.testing.assert_allclose(s12[8:], [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5])
    for n in (2, 4, 16):
        s = alibi_slopes(n)
        np.testing.assert_allclose(s[1:] / s[:-1], s[0])  # geometric, ratio = start = 2^(-8/n)
        assert s[0] == pytest.approx(2 ** (-8 / n))


def test_alibi_bias_is_the_papers_penalty_on_the_causal_part():
    bias = alibi_bias(5, 4)
    slopes = alibi_slopes(4)
    assert bias.shape == (4, 5, 5)
    i, j = np.tril_indices(5)
    np.testing.assert_allclose(bias[:, i, j], slopes[:, None] * (j - i)[None, :])
    np.testing.assert_allclose(bias, np.swapaxes(bias, 1, 2))
    assert (np.diagonal(bias, axis1=1, axis2=2) == 0).all()
    assert alibi_bias(0, 3).shape == (3, 0, 0)


def test_compare_positions_only_the_sinusoids_feel_where_the_sentence_starts():
    rng = np.random.default_rng(4)
    T, d_model, h = 6, 8, 2
    x = rng.standard_normal((T, d_model))
    w_q, w_k = rng.standard_normal((d_model, d_model)), rng.standard_normal((d_model, d_model))
    a = compare_positions(x, w_q, w_k, h)
    b = compare_positions(x, w_q, w_k, h, offset=9)
    assert a.weights.shape == (4, h, T, T)
    np.testing.assert_allclose(a.weights.sum(axis=-1), 1.0)
    assert not np.triu(a.weights[:, :, :, :], 1).any()  # causal by default
    for method in ("none", "rope", "alibi"):
        np.testing.assert_allclose(a.weights_of(method), b.weights_of(method), atol=1e-12)
    assert np.abs(a.weights_of("sinusoidal") - b.weights_of("sinusoidal")).max() > 1e-3
    full = compare_positions(x, w_q, w_k, h, causal=False)
    assert (full.weights[..., np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] > 0).all()
    # rope's map is each head's rotated q·k, scaled by 1/√d_head = 1/2; alibi's is the plain map plus the bias
    q = rotary_embedding((x @ w_q).reshape(T, h, 4).transpose(1, 0, 2))
    k = rotary_embedding((x @ w_k).reshape(T, h, 4).transpose(1, 0, 2))
    np.testing.assert_allclose(full.scaled[2], q @ k.transpose(0, 2, 1) / 2, atol=1e-12)
    np.testing.assert_allclose(full.scaled[3] - full.scaled[0], alibi_bias(T, h), atol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rotary_embedding(np.ones((3, 5))), r"d=5 is odd: RoPE turns the columns in pairs"),
        (lambda: rotary_embedding(np.ones(4)), r"x must be a table of vectors"),
        (lambda: rotary_embedding(np.ones((3, 4)), positions=[0, 1]), r"one number per row of x, shape \[3\]"),
        (lambda: rotary_embedding(np.ones((2, 4)), positions=[0, np.inf]), "positions must be finite"),
        (lambda: rotary_embedding(np.ones((2, 4)), base=0), "base must be a positive number"),
        (lambda: rope_frequencies(0), "d must be at least 1"),
        (lambda: rope_shift_check(np.ones((3, 4)), np.ones((2, 4)), 1), "same shape"),
        (lambda: rope_shift_check(np.ones((3, 4)), np.ones((3, 4)), -1), "shift must not be negative"),
        (lambda: rope_relative_scores(np.ones(4), np.ones(6), 3), "single vectors of the same length"),
        (lambda: rope_decay(10, 7), "d=7 is odd"),
        (lambda: alibi_slopes(0), "n_heads must be at least 1"),
        (lambda: alibi_bias(-1, 2), "T must not be negative"),
        (lambda: compare_positions(np.ones((3, 6)), np.eye(6), np.eye(6), 2), "d_head=3 is odd"),
        (lambda: compare_positions(np.ones((3, 6)), np.eye(6), np.eye(6), 4), "not divisible by n_heads=4"),
        (lambda: compare_positions(np.ones((3, 4)), np.eye(4), np.eye(4), 1).weights_of("abs"), "method must be"),
    ],
)
def test_every_bad_argument_says_what_to_do(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- the page's calls: one sentence's queries and keys -------------------------------------------


def test_rope_turn_turns_each_pair_by_position_times_theta_and_keeps_its_length():
    from attention_core.rotary import rope_turn

    q = np.array([1.0, 0.0, 0.0, 2.0])  # pair 0 on the x axis, pair 1 on the y axis
    r = rope_turn(q, 3, base=100.0)  # θ = 1, 100^(-1/2) = 0.1
    np.testing.assert_allclose(r.theta, [1.0, 0.1])
    np.testing.assert_allclose(r.angle, [3.0, 0.3])
    np.testing.assert_allclose(r.rotated, [np.cos(3), np.sin(3), -2 * np.sin(0.3), 2 * np.cos(0.3)], atol=1e-15)
    np.testing.assert_allclose(r.pair_norm, [1.0, 2.0])
    np.testing.assert_allclose(r.degrees, [np.degrees(3.0), np.degrees(0.3)])
    np.testing.assert_allclose(np.hypot(r.rotated[0::2], r.rotated[1::2]), r.pair_norm)


def test_the_sentence_helpers_give_the_same_token_the_same_vector_and_keep_the_relative_property():
    from attention_core.rotary import sentence_positions, sentence_qk, sentence_shift, sentence_turn

    tokens = ("the", "cat", "saw", "the", "dog")
    s = sentence_qk(tokens, 8, seed=3)
    np.testing.assert_array_equal(s.q[0], s.q[3])  # no position in the vectors themselves
    np.testing.assert_allclose(s.q, s.x @ s.w_q)
    turn = sentence_turn(tokens, 8, 3, 1, 5.0)
    np.testing.assert_allclose(turn.rotated, rotary_embedding(s.q[1:2], [5.0])[0])
    shift = sentence_shift(tokens, 8, 3, 40)
    assert shift.rope_change < 1e-12 < 1e-3 < shift.sinusoid_change
    a, b = sentence_positions(tokens, 4, 2, 3, offset=0), sentence_positions(tokens, 4, 2, 3, offset=30)
    moved = np.abs(a.weights - b.weights).reshape(4, -1).max(axis=1)  # [4] per method
    assert moved[0] == moved[3] == 0.0 and moved[2] < 1e-12 < 1e-3 < moved[1]  # only the sinusoids feel the start
    with pytest.raises(ValueError, match="no tokens"):
        sentence_qk((), 8)
    with pytest.raises(ValueError, match="past the sentence"):
        sentence_turn(tokens, 8, 3, 5, 1.0)
