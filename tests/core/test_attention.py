"""The core against a hand-worked example, properties that must always hold, and extremes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import (
    additive_attention_scores,
    causal_mask,
    local_mask,
    merge_heads,
    multi_head_attention,
    one_hot,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)


def test_two_token_example_worked_by_hand():
    # q1 = (1, 0), q2 = (0, 1); k1 = (1, 0), k2 = (1, 1); v1 = (1, 2), v2 = (3, 4); d_k = 2.
    # Scores A = Q Kᵀ:  q1·k1 = 1, q1·k2 = 1;  q2·k1 = 0, q2·k2 = 1.
    # Scaled by 1/√2:  [[0.70711, 0.70711], [0, 0.70711]].
    # Row 1 is two equal scores, so the weights are 1/2 and 1/2.
    # Row 2: e^0 = 1, e^0.70711 = 2.02811, sum 3.02811 -> 1/3.02811 = 0.33024, 0.66976.
    # Output row 1: ½(1, 2) + ½(3, 4) = (2, 3).
    # Output row 2: 0.33024·(1, 2) + 0.66976·(3, 4) = (0.33024 + 2.00929, 0.66048 + 2.67905)
    #             = (2.33952, 3.33952).
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [1.0, 1.0]])
    v = np.array([[1.0, 2.0], [3.0, 4.0]])
    r = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(r.scores, [[1, 1], [0, 1]])
    np.testing.assert_allclose(r.scaled, [[0.70711, 0.70711], [0, 0.70711]], atol=1e-5)
    np.testing.assert_allclose(r.weights, [[0.5, 0.5], [0.33024, 0.66976]], atol=1e-5)
    np.testing.assert_allclose(r.output, [[2, 3], [2.33952, 3.33952]], atol=1e-5)
    assert r.scale == pytest.approx(1 / np.sqrt(2))


def test_causal_and_local_masks_by_hand():
    np.testing.assert_array_equal(causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    np.testing.assert_array_equal(local_mask(4, 1), [[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1], [0, 0, 1, 1]])
    assert local_mask(5, 0).sum() == 5  # each token sees only itself
    assert causal_mask(0).shape == (0, 0)


def test_one_hot_rows():
    np.testing.assert_array_equal(one_hot([2, 0], 3), [[0, 0, 1], [1, 0, 0]])


def test_additive_scores_by_hand():
    # score = w · tanh(q + k); q + k = (0, 0) gives tanh = 0, so score 0;
    # q + k = (1, 0): tanh(1) = 0.76159, times w = (2, 5) -> 1.52319.
    q = np.array([[0.0, 0.0]])
    k = np.array([[0.0, 0.0], [1.0, 0.0]])
    np.testing.assert_allclose(additive_attention_scores(q, k, np.array([2.0, 5.0])), [[0, 1.52319]], atol=1e-5)


# --- properties -----------------------------------------------------------------------------

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@st.composite
def qkv(draw):
    T = draw(st.integers(1, 6))
    d_k = draw(st.integers(1, 5))
    d_v = draw(st.integers(1, 5))
    q = draw(arrays(np.float64, (T, d_k), elements=finite))
    k = draw(arrays(np.float64, (T, d_k), elements=finite))
    v = draw(arrays(np.float64, (T, d_v), elements=finite))
    mask = draw(arrays(np.bool_, (T, T)))
    return q, k, v, mask


@given(qkv())
@settings(max_examples=150, deadline=None)
def test_weights_rows_sum_to_one_and_masked_weights_are_exactly_zero(args):
    q, k, v, mask = args
    r = scaled_dot_product_attention(q, k, v, mask=mask)
    assert np.all(r.weights[~mask] == 0.0)
    sums = r.weights.sum(axis=-1)
    has_key = mask.any(axis=-1)
    np.testing.assert_allclose(sums[has_key], 1.0, rtol=1e-12)
    assert np.all(sums[~has_key] == 0.0)  # a query with no visible key gets nothing, not NaN
    assert np.all(np.isfinite(r.output))


@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 8)), elements=finite), finite)
def test_softmax_unchanged_by_adding_a_constant_to_a_row(x, c):
    np.testing.assert_allclose(softmax(x + c), softmax(x), atol=1e-12)


@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 4), st.data())
def test_split_then_merge_is_the_identity(h, T, d_head, data):
    x = data.draw(arrays(np.float64, (T, h * d_head), elements=finite))
    heads = split_heads(x, h)
    assert heads.shape == (h, T, d_head)
    np.testing.assert_array_equal(merge_heads(heads), x)
    np.testing.assert_array_equal(heads[1 % h], x[:, (1 % h) * d_head : (1 % h + 1) * d_head])


@given(st.integers(2, 6), st.sampled_from([(4, 1), (4, 2), (6, 3), (8, 4)]), st.integers(0, 2**32 - 1))
@settings(deadline=None)
def test_without_positional_encoding_permuting_the_input_permutes_the_output(T, dims, seed):
    d_model, h = dims
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, d_model))
    w = [rng.standard_normal((d_model, d_model)) for _ in range(4)]
    perm = rng.permutation(T)
    out = multi_head_attention(x, *w, n_heads=h).output
    out_perm = multi_head_attention(x[perm], *w, n_heads=h).output
    np.testing.assert_allclose(out_perm, out[perm], atol=1e-10)


# --- extremes -------------------------------------------------------------------------------


def test_softmax_is_finite_for_huge_inputs():
    x = np.array([[1e300, -1e300, 0.0], [-1e300, -1e300, -1e300], [1e300, 1e300, -1e300]])
    p = softmax(x)
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(p, [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0]])


def test_softmax_of_all_minus_infinity_is_zeros_not_nan():
    p = softmax(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]))
    np.testing.assert_array_equal(p, [[0, 0], [1, 0]])


def test_huge_scores_through_attention_stay_finite():
    q = np.array([[1e150, 0.0], [-1e150, 1.0]])
    r = scaled_dot_product_attention(q, q, np.eye(2))
    assert np.all(np.isfinite(r.weights)) and np.all(np.isfinite(r.output))


def test_fully_masked_query_gets_zero_weights_and_zero_output():
    x = np.ones((3, 2))
    mask = np.array([[False, False, False], [True, True, False], [True, True, True]])
    r = scaled_dot_product_attention(x, x, x, mask=mask)
    np.testing.assert_array_equal(r.weights[0], 0.0)
    np.testing.assert_array_equal(r.output[0], 0.0)
    assert not np.isnan(r.weights).any()


def test_leading_dimensions_broadcast():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, 3, 4, 5))
    k = rng.standard_normal((3, 6, 5))
    v = rng.standard_normal((3, 6, 2))
    r = scaled_dot_product_attention(q, k, v, mask=causal_mask(6)[:4])
    assert r.output.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(
        r.output[1, 2], scaled_dot_product_attention(q[1, 2], k[2], v[2], causal_mask(6)[:4]).output
    )


# --- messages a student can act on --------------------------------------------------------


def test_heads_not_dividing_d_model_says_so():
    x = np.zeros((2, 10))
    w = np.zeros((10, 10))
    with pytest.raises(ValueError, match=r"d_model=10 is not divisible by n_heads=4.*\[1, 2, 5, 10\]"):
        multi_head_attention(x, w, w, w, w, n_heads=4)
    with pytest.raises(ValueError, match="not divisible"):
        split_heads(x, 3)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: scaled_dot_product_attention(np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((2, 4))), "same length"),
        (
            lambda: scaled_dot_product_attention(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((3, 4))),
            "same number of rows",
        ),
        (
            lambda: scaled_dot_product_attention(
                np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)), mask=np.ones((3, 3), bool)
            ),
            "one entry per",
        ),
        (
            lambda: scaled_dot_product_attention(
                np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)), mask=np.ones((2, 2), int)
            ),
            "boolean",
        ),
        (lambda: scaled_dot_product_attention(np.zeros(3), np.zeros((2, 3)), np.zeros((2, 3))), "table of vectors"),
        (
            lambda: multi_head_attention(
                np.zeros((2, 4)), np.zeros((4, 3)), np.zeros((4, 4)), np.zeros((4, 4)), np.zeros((4, 4)), 2
            ),
            r"w_q must have shape",
        ),
        (lambda: one_hot([0, 5], 5), "0..4"),
        (lambda: local_mask(4, -1), "must not be negative"),
        (lambda: causal_mask(2.5), "whole number"),
    ],
)
def test_value_errors_explain_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()
