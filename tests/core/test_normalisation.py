"""Softmax or ReLU at a temperature, and exact masking / tempering of given softmax weights."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import causal_mask, local_mask, scaled_dot_product_attention, softmax
from attention_core.normalisation import attend, random_qkv, relu_weights, reweight, strongest_head

# Same two tokens as tests/core/test_attention.py: q1 = (1, 0), q2 = (0, 1); k1 = (1, 0), k2 = (1, 1).
Q = np.array([[1.0, 0.0], [0.0, 1.0]])
K = np.array([[1.0, 0.0], [1.0, 1.0]])
V = np.array([[1.0, 2.0], [3.0, 4.0]])


def test_relu_by_hand():
    # Scores Q Kᵀ = [[1, 1], [0, 1]], scaled by 1/√2 -> [[0.70711, 0.70711], [0, 0.70711]].
    # ReLU keeps them (none negative): row sums 1.41421 and 0.70711, not 1.
    # Output row 1: 0.70711·(1, 2) + 0.70711·(3, 4) = (2.82843, 4.24264).
    r = attend(Q, K, V, normalisation="relu")
    np.testing.assert_allclose(r.weights, [[0.70711, 0.70711], [0, 0.70711]], atol=1e-5)
    np.testing.assert_allclose(r.weights.sum(axis=-1), [1.41421, 0.70711], atol=1e-5)
    np.testing.assert_allclose(r.output, [[2.82843, 4.24264], [2.12132, 2.82843]], atol=1e-5)


def test_relu_zeroes_negative_and_masked_scores():
    np.testing.assert_array_equal(relu_weights(np.array([[-2.0, 0.5, -np.inf]])), [[0.0, 0.5, 0.0]])


def test_temperature_by_hand():
    # Row 2's scaled scores (0, 0.70711) at τ = 0.5 become (0, 1.41421):
    # e^1.41421 = 4.11325, so the weights are 1/5.11325 = 0.19557 and 0.80443 (sharper than 0.33, 0.67).
    r = attend(Q, K, V, temperature=0.5)
    np.testing.assert_allclose(r.weights[1], [0.19557, 0.80443], atol=1e-5)
    assert r.scale == pytest.approx(2 / np.sqrt(2))


def test_softmax_at_temperature_one_is_scaled_dot_product_attention():
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 5, 4))
    mask = causal_mask(5)
    a, b = attend(q, k, v, mask=mask), scaled_dot_product_attention(q, k, v, mask=mask)
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.output, b.output)


def test_reweight_by_hand():
    # Weights (0.2, 0.3, 0.5); keep keys 1 and 2: 0.2/0.5, 0.3/0.5 = (0.4, 0.6, 0).
    # τ = 0.5 squares them: 0.04, 0.09, 0.25 over 0.38 = (0.10526, 0.23684, 0.65789).
    w = np.array([[0.2, 0.3, 0.5]])
    np.testing.assert_allclose(reweight(w, mask=np.array([[True, True, False]])), [[0.4, 0.6, 0.0]])
    np.testing.assert_allclose(reweight(w, temperature=0.5), [[0.10526, 0.23684, 0.65789]], atol=1e-5)
    np.testing.assert_allclose(reweight(w), w)


@settings(max_examples=60, deadline=None)
@given(
    scores=arrays(np.float64, (6, 6), elements=st.floats(-20, 20)),
    temperature=st.floats(0.05, 20),
    window=st.integers(0, 6),
    causal=st.booleans(),
)
def test_reweight_equals_softmax_of_the_scores(scores, temperature, window, causal):
    """The page's claim: from the weights alone, mask and temperature are exact."""
    mask = causal_mask(6) if causal else local_mask(6, window)
    weights = softmax(scores)
    expected = softmax(np.where(mask, scores / temperature, -np.inf))
    np.testing.assert_allclose(reweight(weights, mask=mask, temperature=temperature), expected, atol=1e-9)


def test_sharp_temperature_does_not_underflow_a_row():
    # 1e-10 ** 100 underflows to 0 in floating point; the log-space computation still finds the max.
    w = np.array([[1e-10, 2e-10, 1.0 - 3e-10]])
    out = reweight(w, mask=np.array([[True, True, False]]), temperature=0.01)
    np.testing.assert_allclose(out, [[0.0, 1.0, 0.0]], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(scores=arrays(np.float64, (5, 5), elements=st.floats(-10, 10)), tau=st.floats(0.05, 0.95))
def test_lower_temperature_never_lowers_a_rows_largest_weight(scores, tau):
    q = np.eye(5)
    a1 = attend(q, scores.T, np.eye(5))  # q kᵀ = scores when q is the identity
    a2 = attend(q, scores.T, np.eye(5), temperature=tau)
    assert np.all(a2.weights.max(axis=-1) >= a1.weights.max(axis=-1) - 1e-12)


def test_fully_masked_row_is_zero_not_nan():
    out = reweight(np.array([[0.5, 0.5]]), mask=np.array([[False, False]]))
    np.testing.assert_array_equal(out, [[0.0, 0.0]])
    r = attend(Q, K, V, mask=np.array([[False, False], [True, True]]), normalisation="relu")
    np.testing.assert_array_equal(r.weights[0], [0.0, 0.0])


def test_random_qkv_is_seeded_and_keeps_unit_variance():
    x = np.random.default_rng(0).standard_normal((400, 64))
    q, k, v = random_qkv(x, 16, seed=7)
    assert q.shape == k.shape == v.shape == (400, 16)
    np.testing.assert_array_equal(q, random_qkv(x, 16, seed=7)[0])
    assert not np.array_equal(q, random_qkv(x, 16, seed=8)[0])
    assert 0.7 < q.var() < 1.3


def test_strongest_head_finds_the_planted_head():
    a = np.full((3, 4, 5, 5), 0.2)
    a[2, 1, 4, 0] = 0.9
    assert strongest_head(a, query=4, key=0) == (2, 1)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: attend(Q, K, V, temperature=0), "positive"),
        (lambda: attend(Q, K, V, temperature=float("nan")), "positive"),
        (lambda: attend(Q, K, V, normalisation="sigmoid"), "softmax, relu"),
        (lambda: reweight(np.array([[-0.1, 1.1]])), "non-negative"),
        (lambda: reweight(np.array([0.5, 0.5])), "table"),
        (lambda: strongest_head(np.ones((2, 2, 3, 3)), 3, 0), "0..2"),
        (lambda: strongest_head(np.ones((2, 3, 3)), 0, 0), "n_layers"),
        (lambda: random_qkv(np.ones((2, 3)), 0), "at least 1"),
    ],
)
def test_bad_arguments_say_what_to_do(call, words):
    with pytest.raises(ValueError, match=words):
        call()
