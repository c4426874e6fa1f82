"""The step-by-step walkthrough: hand-worked numbers, agreement with the matrix form, and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core.attention import additive_attention_scores, scaled_dot_product_attention
from attention_core.steps import (
    additive_scores,
    dot_scores,
    first_repeat,
    gives_away,
    matrix_form,
    project,
    qkv_walkthrough,
    query_step,
    random_weights,
    scaled_softmax,
    score_check,
    sentence_matrix,
    sentence_walkthrough,
    walkthrough_weights,
    weighted_sum,
)


def test_query_step_worked_by_hand():
    # q_2 = (0, 1); k_1 = (1, 0), k_2 = (1, 1); v_1 = (1, 2), v_2 = (3, 4); d_k = 2.
    # Products q_2[c] k_j[c]: j=1: (0·1, 1·0) = (0, 0); j=2: (0·1, 1·1) = (0, 1).
    # α = (0, 1); scaled by 1/√2: (0, 0.70711).
    # Shifted by the max 0.70711: e^-0.70711 = 0.49307, e^0 = 1; sum 1.49307 -> (0.33024, 0.66976).
    # b_2 = 0.33024·(1, 2) + 0.66976·(3, 4) = (2.33952, 3.33952).
    Q = np.array([[1.0, 0.0], [0.0, 1.0]])
    K = np.array([[1.0, 0.0], [1.0, 1.0]])
    V = np.array([[1.0, 2.0], [3.0, 4.0]])
    s = query_step(Q, K, V, 1)
    np.testing.assert_array_equal(s.q_i, [0, 1])
    np.testing.assert_array_equal(s.products, [[0, 0], [0, 1]])
    np.testing.assert_array_equal(s.alpha, [0, 1])
    assert s.scale == pytest.approx(1 / np.sqrt(2))
    np.testing.assert_allclose(s.alpha_scaled, [0, 0.70711], atol=1e-5)
    np.testing.assert_allclose(s.exp_shifted, [0.49307, 1.0], atol=1e-5)
    np.testing.assert_allclose(s.alpha_prime, [0.33024, 0.66976], atol=1e-5)
    np.testing.assert_allclose(s.contributions, [[0.33024, 0.66048], [2.00929, 2.67905]], atol=1e-5)
    np.testing.assert_allclose(s.b_i, [2.33952, 3.33952], atol=1e-5)
    assert s.best == 1 and s.stands_out is False  # 0.67 < 1.5 / 2 = 0.75: close to the plain average


def test_the_formula_functions_by_hand():
    # q = (1, 2), K = [(3, 0), (1, -1)]: products (3, 0) and (1, -2); scores 3 and -1.
    products, alpha = dot_scores(np.array([1.0, 2.0]), np.array([[3.0, 0.0], [1.0, -1.0]]))
    np.testing.assert_array_equal(products, [[3, 0], [1, -2]])
    np.testing.assert_array_equal(alpha, [3, -1])
    # d_k = 4: scaled (1.5, -0.5); e^(x - 1.5) = (1, e^-2 = 0.135335); weights (0.880797, 0.119203).
    scaled, exp_shifted, weights = scaled_softmax(alpha, 4)
    np.testing.assert_allclose(scaled, [1.5, -0.5])
    np.testing.assert_allclose(exp_shifted, [1.0, 0.135335], atol=1e-6)
    np.testing.assert_allclose(weights, [0.880797, 0.119203], atol=1e-6)
    # b = 0.25 (4, 0) + 0.75 (0, 8) = (1, 6).
    contributions, b = weighted_sum(np.array([0.25, 0.75]), np.array([[4.0, 0.0], [0.0, 8.0]]))
    np.testing.assert_array_equal(contributions, [[1, 0], [0, 6]])
    np.testing.assert_array_equal(b, [1, 6])
    # Additive, w = (1, 0): w · tanh(q_i + k_j) = tanh(q_i[0] + k_j[0]).
    Q, K = np.array([[0.5, 9.0]]), np.array([[0.5, -9.0], [-0.5, 0.0]])
    np.testing.assert_allclose(additive_scores(Q, K, np.array([1.0, 0.0])), [[np.tanh(1.0), 0.0]])


@given(st.integers(1, 6), st.integers(1, 5), st.data())
@settings(max_examples=60, deadline=None)
def test_the_short_formulas_agree_with_the_library_functions(T, d, data):
    Q, K, V = (data.draw(arrays(np.float64, (T, d), elements=finite)) for _ in range(3))
    w = data.draw(arrays(np.float64, (d,), elements=finite))
    ours, theirs = matrix_form(Q, K, V), scaled_dot_product_attention(Q, K, V)
    for name in ("scores", "scaled", "weights", "output"):
        np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=1e-12, atol=1e-12)
    assert ours.scale == theirs.scale
    np.testing.assert_allclose(additive_scores(Q, K, w), additive_attention_scores(Q, K, w), rtol=1e-12, atol=1e-12)


def test_project_is_rows_times_weights_by_hand():
    # a_1 = (1, 2), a_2 = (0, -1); W = [[1, 0, 2], [3, 1, 0]].
    # a_1 W = (1·1 + 2·3, 1·0 + 2·1, 1·2 + 2·0) = (7, 2, 2); a_2 W = (-3, -1, 0).
    x = np.array([[1.0, 2.0], [0.0, -1.0]])
    w = np.array([[1.0, 0.0, 2.0], [3.0, 1.0, 0.0]])
    np.testing.assert_array_equal(project(x, w), [[7, 2, 2], [-3, -1, 0]])
    # The articles' column form: W_seed = Wᵀ and I_seed = xᵀ give the transpose, Q_seed = W_seed I_seed.
    np.testing.assert_array_equal(w.T @ x.T, project(x, w).T)


def test_random_weights_are_rounded_and_reproducible():
    w = random_weights(3, 2, np.random.default_rng(7))
    assert w.shape == (3, 2)
    np.testing.assert_array_equal(w, np.round(w, 2))
    np.testing.assert_array_equal(w, random_weights(3, 2, np.random.default_rng(7)))
    assert not np.any(np.signbit(w) & (w == 0))  # no "-0.00" on screen
    big = random_weights(64, 64, np.random.default_rng(0), decimals=6)
    assert big.var() * 64 == pytest.approx(1.0, rel=0.1)  # variance 1/d_model


finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


def test_walkthrough_shapes_and_additive_by_hand():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # T = 3, d_model = 2
    eye = np.eye(2)
    r = qkv_walkthrough(x, eye, eye, 2 * eye, 0, np.array([1.0, 0.0]))
    assert r.Q.shape == r.K.shape == r.V.shape == (3, 2)
    np.testing.assert_array_equal(r.V, 2 * x)
    # Additive score of query 1 and key 3 with w = (1, 0): tanh(q_1 + k_3) = tanh((2, 1)) -> tanh(2) = 0.96403.
    assert r.additive_scores[0, 2] == pytest.approx(np.tanh(2.0))
    np.testing.assert_allclose(r.additive_weights.sum(axis=1), 1.0)
    assert r.agrees


@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 5), st.data())
@settings(max_examples=80, deadline=None)
def test_the_walkthrough_and_the_matrix_form_agree(T, d_model, d_k, data):
    x = data.draw(arrays(np.float64, (T, d_model), elements=finite))
    w_q, w_k, w_v = (data.draw(arrays(np.float64, (d_model, d_k), elements=finite)) for _ in range(3))
    i = data.draw(st.integers(0, T - 1))
    r = qkv_walkthrough(x, w_q, w_k, w_v, i, np.ones(d_k))
    s = r.query
    np.testing.assert_allclose(s.alpha, r.matrix.scores[i], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(s.products.sum(axis=1), s.alpha)
    np.testing.assert_allclose(s.alpha_prime, r.matrix.weights[i], atol=1e-12)
    assert s.alpha_prime.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(s.b_i, r.matrix.output[i], rtol=1e-9, atol=1e-9)
    assert s.exp_shifted.max() == 1.0  # the largest term is e^0


def test_identical_tokens_give_identical_rows_everywhere():
    # "I saw a saw": rows 2 and 4 are the same vector, so without positions their q, k, v,
    # attention rows and outputs are the same too.
    rng = np.random.default_rng(0)
    a, saw, i_ = rng.standard_normal((3, 4))
    x = np.array([i_, saw, a, saw])
    w = [random_weights(4, 3, rng) for _ in range(3)]
    r = qkv_walkthrough(x, *w, 1, np.ones(3))
    np.testing.assert_array_equal(r.matrix.weights[1], r.matrix.weights[3])
    np.testing.assert_array_equal(r.matrix.output[1], r.matrix.output[3])
    assert r.query.alpha[1] == r.query.alpha[3]  # saw looks at both saws equally


def test_huge_scores_stay_finite():
    Q = np.array([[1e3, 0.0], [0.0, 1.0]])
    s = query_step(Q, Q, np.eye(2), 0)
    assert np.all(np.isfinite(s.alpha_prime)) and s.alpha_prime[0] == 1.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: project(np.zeros((2, 3)), np.zeros((4, 2)), "W_q"), r"W_q needs d_model=3 rows"),
        (lambda: project(np.zeros(3), np.zeros((3, 2))), "must both be matrices"),
        (lambda: query_step(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2)), 2), r"one of the 2 tokens"),
        (lambda: query_step(np.zeros((2, 2)), np.zeros((3, 2)), np.zeros((2, 2)), 0), "one row per token"),
        (lambda: qkv_walkthrough(np.zeros((0, 2)), *[np.zeros((2, 2))] * 3, 0, np.zeros(2)), "at least one"),
        (
            lambda: qkv_walkthrough(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 3)), np.zeros((2, 2)), 0, [0, 0]),
            "same length d_k",
        ),
        (lambda: qkv_walkthrough(np.zeros((2, 2)), *[np.zeros((2, 2))] * 3, 0, np.zeros(3)), "and w that length"),
        (lambda: random_weights(0, 2, np.random.default_rng(0)), "d_model must be at least 1"),
    ],
)
def test_errors_say_what_to_change(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_sentence_matrix_repeats_rows_for_repeated_tokens():
    x = sentence_matrix(["I", "saw", "a", "saw"], 3, seed=0)
    assert x.shape == (4, 3)
    np.testing.assert_array_equal(x[1], x[3])
    np.testing.assert_array_equal(x, np.round(x, 2))
    assert not np.array_equal(x[0], x[1])
    with pytest.raises(ValueError, match="at least one word"):
        sentence_matrix([], 3)


def test_walkthrough_weights_come_from_one_seed_in_order():
    w_q, w_k, w_v, w = walkthrough_weights(3, 2, seed=5)
    rng = np.random.default_rng(5)
    for got in (w_q, w_k, w_v):
        np.testing.assert_array_equal(got, random_weights(3, 2, rng))
    np.testing.assert_array_equal(w, np.round(rng.standard_normal(2), 2))
    assert not np.array_equal(w_q, w_k)
    np.testing.assert_array_equal(walkthrough_weights(3, 2, seed=5)[3], w)


def test_the_check_asks_for_alpha_12_with_a_tolerance_for_the_rounding():
    Q = np.array([[0.5154, -0.7365], [1.0, 1.0]])
    K = np.array([[1.0, 1.0], [-1.6007, 2.2034]])
    c = score_check(Q, K)
    assert c.j == 1 and c.answer == pytest.approx(0.5154 * -1.6007 + -0.7365 * 2.2034)
    # Redone from the shown numbers (0.52)(-1.60) + (-0.74)(2.20) = -2.46: within the tolerance.
    assert abs(-2.46 - c.answer) <= c.tolerance < 0.05
    assert score_check(Q[:1], K[:1]).j == 0  # one token: α_11
    assert gives_away([c.answer, 1.0, c.answer * (1 + 1e-12)], c.answer).tolist() == [True, False, True]


def test_repeated_tokens_are_found_in_reading_order():
    assert first_repeat(["I", "saw", "a", "saw"]) == (1, 3)
    assert first_repeat(["a", "b", "b", "a"]) == (0, 3)
    assert first_repeat(["x", "y"]) is None


def test_the_sentence_walkthrough_uses_typed_weights_when_given():
    tokens = ("I", "saw", "a", "saw")
    r = sentence_walkthrough(tokens, 3, 2, seed=3, i=0)
    x = sentence_matrix(list(tokens), 3, 3)
    w_q, w_k, w_v, w = walkthrough_weights(3, 2, 3)
    for got, weights in ((r.Q, w_q), (r.K, w_k), (r.V, w_v)):
        np.testing.assert_array_equal(got, x @ weights)
    np.testing.assert_array_equal(r.w_additive, w)
    assert r.tokens == tokens and r.repeated == (1, 3) and r.random_weights
    typed = (((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)),) * 3
    r = sentence_walkthrough(tokens, 3, 2, seed=3, i=1, typed=typed)
    np.testing.assert_array_equal(r.Q, x @ np.array(typed[0]))
    assert not r.random_weights and r.query.i == 1
    np.testing.assert_array_equal(r.w_additive, w)  # the additive vector stays the one drawn from the random seed
