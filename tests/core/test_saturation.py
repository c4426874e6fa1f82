"""Softmax saturation: hand-worked numbers, the variance law Var(q·k) = d_k, properties of
softmax's entropy and Jacobian that must always hold, and the two slopes (with respect to the
scores softmax reads, and to the raw scores q·k) checked against finite differences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import softmax
from attention_core.saturation import (
    D_VALUES,
    SCALINGS,
    dot_product_variance,
    jacobian_norm,
    pair_dot_products,
    raw_score_slope,
    sample_scores,
    saturation_sweep,
    scale_factor,
    score_rows,
    softmax_entropy,
    softmax_jacobian,
    sum_of_others,
    variance_standard_error,
    variance_sweep,
)

rows = arrays(np.float64, st.integers(1, 12), elements=st.floats(-30, 30))


def test_scale_factors_by_hand():
    assert scale_factor(64, "none") == 1.0
    assert scale_factor(64, "sqrt") == pytest.approx(1 / 8)  # the check-yourself answer: divide by 8
    assert scale_factor(64, "d") == pytest.approx(1 / 64)  # article 003's multi-head code
    assert scale_factor(1, "sqrt") == scale_factor(1, "d") == 1.0  # at d_k = 1 all three agree
    with pytest.raises(ValueError, match="scaling must be one of"):
        scale_factor(64, "log")
    with pytest.raises(ValueError, match="d_k must be at least 1"):
        scale_factor(0, "sqrt")


def test_entropy_and_jacobian_worked_by_hand():
    # p = (1/2, 1/2): H = -2 · ½ log ½ = log 2.
    # J = diag(½, ½) - ¼ 11ᵀ = [[¼, -¼], [-¼, ¼]], so ‖J‖² = 4 · (1/16) = ¼ and ‖J‖ = ½.
    p = np.array([0.5, 0.5])
    assert softmax_entropy(p) == pytest.approx(np.log(2))
    np.testing.assert_allclose(softmax_jacobian(p), [[0.25, -0.25], [-0.25, 0.25]])
    assert jacobian_norm(p) == pytest.approx(0.5)
    # p = (0.7, 0.2, 0.1): H = -(0.7 ln 0.7 + 0.2 ln 0.2 + 0.1 ln 0.1)
    #   = 0.249676 + 0.321888 + 0.230259 = 0.801819.
    # J row 1 = (0.7·0.3, -0.7·0.2, -0.7·0.1) = (0.21, -0.14, -0.07).
    p = np.array([0.7, 0.2, 0.1])
    assert softmax_entropy(p) == pytest.approx(0.801819, abs=1e-6)
    np.testing.assert_allclose(softmax_jacobian(p)[0], [0.21, -0.14, -0.07])


def test_one_hot_row_has_zero_entropy_and_no_gradient():
    p = np.array([0.0, 1.0, 0.0, 0.0])
    assert softmax_entropy(p) == 0.0  # 0 · log 0 counts as 0, not NaN
    np.testing.assert_array_equal(softmax_jacobian(p), np.zeros((4, 4)))
    assert jacobian_norm(p) == 0.0


@pytest.mark.parametrize("T", [2, 3, 8, 64])
def test_uniform_row_has_entropy_log_T_and_norm_sqrt_T_minus_1_over_T(T):
    p = np.full(T, 1.0 / T)
    assert softmax_entropy(p) == pytest.approx(np.log(T))
    assert jacobian_norm(p) == pytest.approx(np.sqrt(T - 1) / T)


@settings(max_examples=60, deadline=None)
@given(rows)
def test_jacobian_matches_finite_differences_and_its_closed_form_norm(s):
    p = softmax(s)
    J = softmax_jacobian(p)
    eps = 1e-6
    numeric = np.stack([(softmax(s + eps * e) - softmax(s - eps * e)) / (2 * eps) for e in np.eye(s.size)], axis=1)
    np.testing.assert_allclose(J, numeric, atol=1e-6)
    np.testing.assert_allclose(J, J.T)  # symmetric
    np.testing.assert_allclose(J.sum(axis=1), 0.0, atol=1e-12)  # weights always sum to 1
    assert np.all(np.linalg.eigvalsh(J) >= -1e-12)  # positive semi-definite
    # the entry-by-entry norm of J, where J's own entries are accurate (p_i(1 - p_i) written as
    # p_i - p_i² loses everything once 1 - p_i is below rounding error)
    if 1 - p.max() > 1e-6:
        assert jacobian_norm(p) == pytest.approx(np.linalg.norm(J), rel=1e-8)
    # never above 1/2 (step 7 says so): ‖J‖² = s - 2Σp³ + s² with s = Σp², and Σp³ >= s² (Cauchy-Schwarz),
    # so ‖J‖² <= s(1 - s) <= 1/4
    assert jacobian_norm(p) <= 0.5 + 1e-12


def test_nearly_one_hot_row_keeps_its_small_slope():
    # p = softmax(0, -40): p_2 = e^-40 / (1 + e^-40) ≈ 4.25e-18, p_1 = 1 - p_2.
    # J = p_1 p_2 [[1, -1], [-1, 1]], so ‖J‖ = 2 p_1 p_2, about 8.5e-18; 1 - p_1 is 0 in floating point.
    p = softmax(np.array([0.0, -40.0]))
    assert p[0] == 1.0  # rounding has already eaten p_2 here
    expected = 2 * np.exp(-40) / (1 + np.exp(-40)) ** 2
    assert jacobian_norm(p) == pytest.approx(expected, rel=1e-12)


def test_sum_of_others_by_hand_and_without_cancellation():
    np.testing.assert_allclose(sum_of_others(np.array([1.0, 2.0, 4.0])), [6.0, 5.0, 3.0])
    np.testing.assert_allclose(sum_of_others(np.array([[1.0], [3.0]])), [[0.0], [0.0]])  # one key: no others
    tiny = np.array([1 - 2e-17, 1e-17, 1e-17])
    assert sum_of_others(tiny)[0] == 2e-17  # total - p_1 would give 0 or 1.1e-16


@settings(max_examples=60, deadline=None)
@given(rows, st.sampled_from(SCALINGS), st.sampled_from([1, 4, 64, 1024]))
def test_raw_score_slope_is_the_chain_rule_checked_by_finite_differences(s, scaling, d_k):
    """p = softmax(c·s) with s the raw scores q·k: ∂p/∂s = c·J(p), so its norm is c‖J‖. Central
    differences in s with a step h = 1e-6 / c, which is 1e-6 in the scores softmax reads, as
    small for every c."""
    c = scale_factor(d_k, scaling)
    p = softmax(c * s)
    h = 1e-6 / c
    numeric = np.stack(
        [(softmax(c * (s + h * e)) - softmax(c * (s - h * e))) / (2 * h) for e in np.eye(s.size)], axis=1
    )
    np.testing.assert_allclose(c * softmax_jacobian(p), numeric, atol=1e-6 * c + 1e-12)
    if 1 - p.max() > 1e-6:  # where the numeric Jacobian's own entries are accurate
        assert raw_score_slope(p, c) == pytest.approx(np.linalg.norm(numeric), rel=1e-5, abs=1e-9 * c)
    assert raw_score_slope(p, c) == pytest.approx(c * jacobian_norm(p))


def test_raw_score_slope_by_hand():
    # a uniform row of 2 read through ÷ √64: softmax's own slope is ½ (see above), the raw one ½ · ⅛.
    p = np.array([0.5, 0.5])
    assert raw_score_slope(p, scale_factor(64, "sqrt")) == pytest.approx(1 / 16)
    assert raw_score_slope(p, scale_factor(64, "d")) == pytest.approx(1 / 128)


@settings(max_examples=60, deadline=None)
@given(rows)
def test_entropy_lies_between_0_and_log_T(s):
    h = softmax_entropy(softmax(s))
    assert -1e-12 <= h <= np.log(s.size) + 1e-12


def test_scores_are_dot_products_of_the_first_d_entries():
    # Draw the same numbers again by hand from an rng with the same seed and compare.
    scores = sample_scores([1, 3, 4], 2, 2, np.random.default_rng(7))  # [3, 2, 2]
    rng = np.random.default_rng(7)
    q = rng.standard_normal((2, 1, 4))
    k = rng.standard_normal((2, 2, 4))
    for b, d in enumerate([1, 3, 4]):
        np.testing.assert_allclose(scores[b], np.sum(q[:, :, :d] * k[:, :, :d], axis=-1))


def test_pair_dot_products_are_sums_of_products_drawn_in_chunks(monkeypatch):
    import attention_core.saturation as saturation

    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(pair_dot_products(4, 3, np.random.default_rng(5)), np.sum(q * k, axis=1))
    monkeypatch.setattr(saturation, "_CHUNK_NUMBERS", 16)  # 16 // (2 · 4) = 2 pairs per draw: q, k, q, k
    rng = np.random.default_rng(5)
    expected = []
    for n in (2, 1):
        q, k = rng.standard_normal((n, 4)), rng.standard_normal((n, 4))
        expected += list(np.sum(q * k, axis=1))
    np.testing.assert_allclose(pair_dot_products(4, 3, np.random.default_rng(5)), expected)


def test_the_histograms_of_an_earlier_link_are_drawn_again():
    """The variance sweep draws the numbers the page drew before its sections were rewritten
    (sample_scores with one key), so a link's histograms look the same."""
    rng = np.random.default_rng([1, 0])
    before = np.stack([sample_scores([d], 2000, 1, rng)[0, :, 0] for d in D_VALUES])
    np.testing.assert_allclose(variance_sweep(0, 2000).scores, before, rtol=0, atol=1e-12)


def test_sampling_in_chunks_fills_every_row_with_its_own_dot_products(monkeypatch):
    import attention_core.saturation as saturation

    monkeypatch.setattr(saturation, "_CHUNK_NUMBERS", 64)  # 64 // (8 · (3 + 1)) = 2 rows per chunk
    scores = sample_scores([2, 8], 5, 3, np.random.default_rng(1))  # chunks of rows 0-1, 2-3, 4
    rng = np.random.default_rng(1)
    for lo, hi in ((0, 2), (2, 4), (4, 5)):
        q = rng.standard_normal((hi - lo, 1, 8))
        k = rng.standard_normal((hi - lo, 3, 8))
        np.testing.assert_allclose(scores[0, lo:hi], np.sum(q[..., :2] * k[..., :2], axis=-1))
        np.testing.assert_allclose(scores[1, lo:hi], np.sum(q * k, axis=-1))


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = dot_product_variance([1, 16], 200, np.random.default_rng(3))
    b = dot_product_variance([1, 16], 200, np.random.default_rng(3))
    c = dot_product_variance([1, 16], 200, np.random.default_rng(4))
    np.testing.assert_array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)


def test_measured_variance_tracks_d_within_sampling_error():
    sweep = dot_product_variance(D_VALUES, 2000, np.random.default_rng(0))
    z = (sweep.variance - sweep.d_values) / sweep.standard_error  # [n_d]
    assert np.all(np.abs(z) < 4), z
    z_scaled = (sweep.scaled_variance - 1.0) / sweep.scaled_standard_error
    assert np.all(np.abs(z_scaled) < 4), z_scaled
    np.testing.assert_allclose(sweep.scaled_variance, sweep.variance / sweep.d_values)
    assert sweep.scores.shape == (13, 2000)


def test_standard_error_formula_matches_the_spread_of_repeated_measurements():
    # Var(sample variance) = (2 d² + 6 d) / n: measure 400 variances of n = 100 pairs at d = 4.
    rng = np.random.default_rng(11)
    variances = [dot_product_variance([4], 100, rng).variance[0] for _ in range(400)]
    assert np.std(variances) == pytest.approx(variance_standard_error(4, 100), rel=0.15)


def test_saturation_sweep_shows_the_three_behaviours():
    scores = score_rows(0, n_rows=256, n_keys=16)
    sweep = saturation_sweep(D_VALUES, scores, 8)
    none, sqrt, by_d = (SCALINGS.index(s) for s in ("none", "sqrt", "d"))
    assert sweep.first_weights.shape == (3, 13, 8) and sweep.first_scores.shape == (13, 8)
    assert (sweep.T, sweep.n_rows) == (8, 256)
    np.testing.assert_allclose(sweep.first_weights.sum(axis=-1), 1.0)
    np.testing.assert_array_equal(sweep.first_scores, scores[:, 0, :8])  # the first T keys of the row
    # at d_k = 1 the three scalings are the same numbers
    np.testing.assert_allclose(sweep.first_weights[none, 0], sweep.first_weights[by_d, 0])
    np.testing.assert_allclose(sweep.first_weights[none, 0], sweep.first_weights[sqrt, 0])
    # unscaled: nearly one-hot, entropy and softmax's own slope gone
    assert sweep.max_weight[none, -1] > 0.95
    assert sweep.entropy[none, -1] < 0.1
    assert sweep.slope_scaled[none, -1] < 0.01 * sweep.slope_scaled[none, 0]
    # ÷ d_k: uniform, entropy log T; softmax's own slope looks healthy (√(T-1)/T) ...
    assert sweep.entropy[by_d, -1] == pytest.approx(np.log(8), rel=1e-3)
    assert sweep.max_weight[by_d, -1] == pytest.approx(1 / 8, rel=0.05)
    assert sweep.slope_scaled[by_d, -1] == pytest.approx(np.sqrt(7) / 8, rel=1e-3)
    # ... but the slope with respect to q·k is that times 1/d_k: 4,096 times smaller
    np.testing.assert_allclose(sweep.slope_raw[by_d], sweep.slope_scaled[by_d] / sweep.d_values)
    np.testing.assert_allclose(sweep.slope_raw[sqrt], sweep.slope_scaled[sqrt] / np.sqrt(sweep.d_values))
    np.testing.assert_array_equal(sweep.slope_raw[none], sweep.slope_scaled[none])
    assert sweep.slope_raw[by_d, -1] < 1e-4
    # ÷ √d_k: roughly steady at every d (at d_k = 1 a product of two normals is not yet normal),
    # while the unscaled row changes many times over
    for measure in (sweep.max_weight, sweep.entropy, sweep.slope_scaled):
        assert measure[sqrt].max() / measure[sqrt].min() < 1.4
        assert measure[sqrt, 4:].max() / measure[sqrt, 4:].min() < 1.15  # from d_k = 16 on
    assert sweep.max_weight[none].max() / sweep.max_weight[none].min() > 2.5
    # the medians are the medians of the rows
    weights = softmax(scores[:, :, :8] / np.sqrt(sweep.d_values)[:, None, None], axis=-1)  # [n_d, rows, 8]
    np.testing.assert_allclose(sweep.slope_scaled[sqrt], np.median(jacobian_norm(weights), axis=-1))
    np.testing.assert_allclose(sweep.max_weight[sqrt], np.median(weights.max(axis=-1), axis=-1))


def test_score_rows_are_dot_products_of_random_vectors_in_distribution():
    """Drawn the short way (a normal per key and block of components, given q), the scores must
    have the distribution of literal dot products: variance d, covariance min(d, d') between two
    dimensions of the same pair (nested prefixes), independent keys, and at d = 1 the heavy tails
    of a product of two normals (E[s⁴] = 9)."""
    s = score_rows(3, d_values=[1, 4, 16, 64], n_rows=4000, n_keys=5)  # [4, 4000, 5]
    flat = s.reshape(4, -1)  # [4, 20000]
    np.testing.assert_allclose(flat.var(axis=1), [1, 4, 16, 64], rtol=0.06)
    np.testing.assert_allclose(np.cov(flat)[1, 2], 4, rtol=0.1)  # Cov(s_4, s_16) = 4
    assert abs(np.corrcoef(s[2, :, 0], s[2, :, 1])[0, 1]) < 0.1  # two keys: no linear link
    assert np.mean(flat[0] ** 4) == pytest.approx(9, rel=0.2)
    literal = sample_scores([1, 4, 16, 64], 4000, 5, np.random.default_rng(5)).reshape(4, -1)
    for a, b in zip(flat, literal, strict=True):  # the same quantiles as literal dot products
        np.testing.assert_allclose(
            np.quantile(a, [0.1, 0.5, 0.9]), np.quantile(b, [0.1, 0.5, 0.9]), atol=0.06 * np.sqrt(b.var())
        )
    np.testing.assert_array_equal(score_rows(3, d_values=[1, 4], n_rows=5, n_keys=2), score_rows(3, [1, 4], 5, 2))
    assert score_rows(0).shape == (13, 256, 64)


def test_the_page_experiments_follow_the_seed():
    np.testing.assert_array_equal(variance_sweep(7, 100).scores, variance_sweep(7, 100).scores)
    np.testing.assert_array_equal(  # the stream a link of an earlier version drew from, unchanged
        variance_sweep(7, 100).scores, dot_product_variance(D_VALUES, 100, np.random.default_rng([1, 7])).scores
    )
    assert not np.array_equal(score_rows(1), score_rows(2))


def test_bad_arguments_say_what_to_change():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="strictly increasing"):
        sample_scores([4, 2], 10, 1, rng)
    with pytest.raises(ValueError, match="at least 1"):
        sample_scores([0, 2], 10, 1, rng)
    with pytest.raises(ValueError, match="whole numbers"):
        sample_scores([1.5], 10, 1, rng)
    with pytest.raises(ValueError, match="n_keys must be at least 1"):
        sample_scores([1], 10, 0, rng)
    with pytest.raises(ValueError, match="at least 2 samples"):
        dot_product_variance([1], 1, rng)
    with pytest.raises(ValueError, match="T must be at least 1"):
        saturation_sweep([1], np.zeros((1, 10, 4)), 0)
    with pytest.raises(ValueError, match="at least T=8 keys"):
        saturation_sweep([1, 2], np.zeros((2, 10, 4)), 8)
