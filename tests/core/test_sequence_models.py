"""attention_core.sequence_models and sequence_costs: visibility against its definition, the RNN
and its input gradient (by hand, by finite differences and by PyTorch), self-attention's input
gradient, the long-range curves' shape, timing, and the cost model against Table 1."""

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import local_mask, scaled_dot_product_attention
from attention_core.sequence_costs import (
    MIN_ROUNDS,
    complexity_table,
    cost_curves,
    exact_attention_products,
    layer_costs,
    sequential_steps,
    time_rnn_vs_attention,
)
from attention_core.sequence_models import (
    KINDS,
    attention_influence_of_all,
    attention_input_jacobian,
    compare_visibility,
    keys_per_query,
    long_range_influence,
    random_rnn_weights,
    rnn_first_input_influence,
    rnn_forward,
    rnn_influence_on_last,
    rnn_input_jacobian,
    visibility,
)

# --- visibility ---------------------------------------------------------------------------------


def test_visibility_by_hand_T4():
    rnn = visibility("rnn", 4)
    np.testing.assert_array_equal(rnn.mask, np.tril(np.ones((4, 4), dtype=bool)))
    # b_4 = h_4 sees a_1 through 4 steps (h_1, h_2, h_3, h_4) and a_4 through 1.
    np.testing.assert_array_equal(rnn.steps[3], [4, 3, 2, 1])
    assert rnn.steps[0, 3] == 0  # a_4 never reaches b_1

    bi = visibility("birnn", 4)
    assert bi.mask.all()
    np.testing.assert_array_equal(bi.steps[0], [1, 2, 3, 4])  # a_4 reaches b_1 through the backward chain

    sa = visibility("self_attention", 4)
    assert sa.mask.all() and (sa.steps == 1).all()

    cnn = visibility("cnn", 4, k=3)
    np.testing.assert_array_equal(cnn.mask.astype(int), [[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1], [0, 0, 1, 1]])
    assert cnn.reach == 1
    assert visibility("cnn", 4, k=3, n_layers=2).reach == 2  # the receptive field grows by k - 1 = 2
    assert visibility("cnn", 4, k=3, n_layers=9).mask.all()  # and is capped by the sequence


@given(st.integers(1, 40), st.sampled_from([1, 3, 5, 7]), st.integers(0, 6), st.integers(1, 4))
@settings(max_examples=60, deadline=None)
def test_masks_match_their_definitions(T, k, window, L):
    i, j = np.indices((T, T))
    cnn = visibility("cnn", T, k=k, n_layers=L)
    np.testing.assert_array_equal(cnn.mask, np.abs(i - j) <= L * (k - 1) // 2)
    truncated = visibility("truncated", T, window=window, n_layers=L)
    np.testing.assert_array_equal(truncated.mask, np.abs(i - j) <= L * window)
    if L == 1:  # one truncated layer is exactly the core's local_mask, the same picture as a CNN
        np.testing.assert_array_equal(truncated.mask, local_mask(T, window))
        if window == (k - 1) // 2:
            np.testing.assert_array_equal(truncated.mask, cnn.mask)
    rnn = visibility("rnn", T)
    np.testing.assert_array_equal(rnn.mask, j <= i)
    np.testing.assert_array_equal(rnn.steps, np.where(j <= i, i - j + 1, 0))
    for kind in KINDS:
        v = visibility(kind, T, k=k, window=window, n_layers=L)
        assert v.mask.shape == v.steps.shape == (T, T)
        assert v.mask.diagonal().all()  # every output sees its own input
        assert ((v.steps > 0) == v.mask).all()


def test_compare_visibility_by_hand_T5():
    c = compare_visibility(5, k=3)
    assert c.kinds == KINDS and c.masks.shape == c.steps.shape == (5, 5, 5)
    assert (c.window, c.r) == (1, 3)
    rnn, birnn, cnn, truncated, attention = range(5)
    np.testing.assert_array_equal(c.masks[cnn], c.masks[truncated])  # r = k: the same picture
    assert c.first_seen[rnn].tolist() == [0] * 5 and c.last_seen[rnn].tolist() == [0, 1, 2, 3, 4]
    assert c.seen[cnn].tolist() == [2, 3, 3, 3, 2]
    assert c.first_seen[cnn].tolist() == [0, 0, 1, 2, 3] and c.last_seen[cnn].tolist() == [1, 2, 3, 4, 4]
    assert c.seen[attention].tolist() == c.seen[birnn].tolist() == [5] * 5
    assert c.steps[rnn, 4, 0] == 5 and c.steps[attention, 4, 0] == 1 and c.steps[birnn, 0, 4] == 5
    two = compare_visibility(9, k=3, n_layers=2)
    assert two.seen[cnn, 4] == 5 and two.steps[cnn, 4, 2] == 2
    one = compare_visibility(1, k=15)
    assert one.seen.tolist() == [[1]] * 5
    with pytest.raises(ValueError, match="no centre"):
        compare_visibility(5, k=4)


def test_keys_per_query():
    assert [keys_per_query(w) for w in (0, 1, 2)] == [1, 3, 5]
    assert local_mask(9, 2)[4].sum() == keys_per_query(2)  # away from the ends


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "lstm", "T": 4}, "kind must be one of"),
        ({"kind": "rnn", "T": 0}, "at least 1"),
        ({"kind": "rnn", "T": 5000}, "at most 4096"),
        ({"kind": "cnn", "T": 4, "k": 4}, "k=4 has no centre"),
        ({"kind": "truncated", "T": 4, "window": -1}, "must not be negative"),
        ({"kind": "cnn", "T": 4, "n_layers": 0}, "at least 1"),
    ],
)
def test_visibility_refuses_nonsense(kwargs, message):
    with pytest.raises(ValueError, match=message):
        visibility(**kwargs)


def test_visibility_extremes_are_fast():
    start = time.perf_counter()
    for kind in KINDS:
        assert visibility(kind, 1).mask.tolist() == [[True]]
        assert visibility(kind, 512, k=5, window=3, n_layers=2).mask.shape == (512, 512)
    assert time.perf_counter() - start < 1.0


# --- the RNN ------------------------------------------------------------------------------------


def test_rnn_by_hand():
    # d_in = d = 1, W_xh = 1, W_hh = 0.5, b = 0: h_1 = tanh(1), h_2 = tanh(0 + 0.5 tanh(1)).
    r = rnn_forward([[1.0], [0.0]], [[1.0]], [[0.5]])
    np.testing.assert_allclose(r.h[:, 0], [np.tanh(1.0), np.tanh(0.5 * np.tanh(1.0))])
    np.testing.assert_allclose(r.pre[:, 0], [1.0, 0.5 * np.tanh(1.0)])
    # dh_2/da_1 = (1 - h_2²) · 0.5 · (1 - h_1²) · 1
    h1, h2 = r.h[:, 0]
    np.testing.assert_allclose(rnn_input_jacobian(r, [[1.0]], [[0.5]], 1, 0), [[(1 - h2**2) * 0.5 * (1 - h1**2)]])
    assert rnn_input_jacobian(r, [[1.0]], [[0.5]], 0, 1).tolist() == [[0.0]]  # a_2 cannot reach h_1


def test_rnn_batches_and_empty_sequences():
    rng = np.random.default_rng(0)
    w = random_rnn_weights(3, 4, rng)
    x = rng.standard_normal((2, 5, 3))
    batched = rnn_forward(x, w.w_xh, w.w_hh, w.b_h).h
    for n in range(2):
        np.testing.assert_allclose(batched[n], rnn_forward(x[n], w.w_xh, w.w_hh, w.b_h).h)
    assert rnn_forward(np.zeros((0, 3)), w.w_xh, w.w_hh).h.shape == (0, 4)


def test_rnn_and_attention_at_T_512_d_512_are_fast():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((512, 512))
    # Plain Gaussian weights: random_rnn_weights' QR at d = 512 is slow when BLAS threads compete.
    w_xh, w_hh, w_q, w_k, w_v = (rng.standard_normal((512, 512)) / np.sqrt(512) for _ in range(5))
    start = time.perf_counter()
    h = rnn_forward(x, w_xh, 0.9 * w_hh).h
    norms, alpha = attention_influence_of_all(x, w_q, w_k, w_v)
    assert time.perf_counter() - start < 1.0
    assert np.isfinite(h).all() and np.isfinite(norms).all() and alpha.shape == (512,)


def test_random_rnn_weights_have_the_asked_radius():
    w = random_rnn_weights(5, 6, np.random.default_rng(1), radius=0.7)
    np.testing.assert_allclose(np.linalg.svd(w.w_hh, compute_uv=False), 0.7)  # every singular value
    np.testing.assert_allclose(np.abs(np.linalg.eigvals(w.w_hh)), 0.7)


def _numerical_jacobian(f, x, row, eps=1e-6):
    """∂f(x) / ∂x[row] by central differences."""
    cols = []
    for k in range(x.shape[1]):
        up, down = x.copy(), x.copy()
        up[row, k] += eps
        down[row, k] -= eps
        cols.append((f(up) - f(down)) / (2 * eps))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("seed", range(4))
def test_rnn_jacobian_against_finite_differences(seed):
    rng = np.random.default_rng(seed)
    T, d_in, d = 7, 3, 5
    w = random_rnn_weights(d_in, d, rng, radius=1.3)
    b = rng.standard_normal(d) * 0.3
    x = rng.standard_normal((T, d_in))
    r = rnn_forward(x, w.w_xh, w.w_hh, b)
    for target, source in [(6, 0), (4, 2), (3, 3)]:
        numeric = _numerical_jacobian(lambda a, t=target: rnn_forward(a, w.w_xh, w.w_hh, b).h[t], x, source)
        np.testing.assert_allclose(rnn_input_jacobian(r, w.w_xh, w.w_hh, target, source), numeric, atol=1e-8)
    # The one-pass curves are the same norms.
    forward = rnn_first_input_influence(r, w.w_xh, w.w_hh)
    backward = rnn_influence_on_last(r, w.w_xh, w.w_hh)
    for t in range(T):
        assert forward[t] == pytest.approx(np.linalg.norm(rnn_input_jacobian(r, w.w_xh, w.w_hh, t, 0)), rel=1e-12)
        assert backward[t] == pytest.approx(np.linalg.norm(rnn_input_jacobian(r, w.w_xh, w.w_hh, -1, t)), rel=1e-12)


def _attention_output(x, w_q, w_k, w_v):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v).output


@pytest.mark.parametrize("seed", range(4))
def test_attention_jacobian_against_finite_differences(seed):
    rng = np.random.default_rng(10 + seed)
    T, d_in, d_k, d_v = 6, 4, 3, 5
    x = rng.standard_normal((T, d_in))
    w_q, w_k = rng.standard_normal((d_in, d_k)), rng.standard_normal((d_in, d_k))
    w_v = rng.standard_normal((d_in, d_v))
    for target, source in [(5, 0), (2, 2), (0, 4), (3, 1)]:
        numeric = _numerical_jacobian(lambda a, t=target: _attention_output(a, w_q, w_k, w_v)[t], x, source)
        ours = attention_input_jacobian(x, w_q, w_k, w_v, target, source)
        np.testing.assert_allclose(ours, numeric, atol=1e-8)
    norms, alpha = attention_influence_of_all(x, w_q, w_k, w_v)
    want = [np.linalg.norm(attention_input_jacobian(x, w_q, w_k, w_v, -1, j)) for j in range(T)]
    np.testing.assert_allclose(norms, want, rtol=1e-12)
    np.testing.assert_allclose(alpha.sum(), 1.0)


def test_attention_jacobian_for_one_token_is_w_v():
    # T = 1: b_1 = v_1 = a_1 W_v whatever the query, so the Jacobian is W_vᵀ.
    rng = np.random.default_rng(3)
    w = [rng.standard_normal((4, 4)) for _ in range(3)]
    np.testing.assert_allclose(attention_input_jacobian(rng.standard_normal((1, 4)), *w), w[2].T, atol=1e-14)


def test_gradients_against_torch_autograd():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(42)
    T, d_in, d = 8, 3, 5
    w = random_rnn_weights(d_in, d, rng, radius=1.1)
    b = rng.standard_normal(d) * 0.2
    x = rng.standard_normal((T, d_in))

    rnn = torch.nn.RNN(d_in, d, nonlinearity="tanh", batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch's column form: h W_ihᵀ, so our row-form W_xh is its weight transposed
        rnn.weight_ih_l0.copy_(torch.from_numpy(w.w_xh.T))
        rnn.weight_hh_l0.copy_(torch.from_numpy(w.w_hh.T))
        rnn.bias_ih_l0.copy_(torch.from_numpy(b))
        rnn.bias_hh_l0.zero_()
    jac = torch.autograd.functional.jacobian(lambda a: rnn(a[None])[0][0, -1], torch.from_numpy(x)).numpy()
    r = rnn_forward(x, w.w_xh, w.w_hh, b)
    np.testing.assert_allclose(r.h[-1], rnn(torch.from_numpy(x)[None])[0][0, -1].detach().numpy(), atol=1e-12)
    for source in (0, 3, 7):
        np.testing.assert_allclose(rnn_input_jacobian(r, w.w_xh, w.w_hh, -1, source), jac[:, source], atol=1e-12)

    w_q, w_k, w_v = (rng.standard_normal((d_in, 4)) for _ in range(3))
    tq, tk, tv = (torch.from_numpy(m) for m in (w_q, w_k, w_v))
    F = torch.nn.functional
    jac = torch.autograd.functional.jacobian(
        lambda a: F.scaled_dot_product_attention(a @ tq, a @ tk, a @ tv)[-1], torch.from_numpy(x)
    ).numpy()  # [d_v, T, d_in]
    for source in (0, 4, 7):
        np.testing.assert_allclose(attention_input_jacobian(x, w_q, w_k, w_v, -1, source), jac[:, source], atol=1e-12)


def test_jacobians_refuse_bad_positions():
    r = rnn_forward(np.zeros((3, 2)), np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="outside a sequence of 3"):
        rnn_input_jacobian(r, np.zeros((2, 2)), np.zeros((2, 2)), target=3)
    with pytest.raises(ValueError, match="shape \\[d_in, d\\]"):
        rnn_forward(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="one sequence"):
        attention_input_jacobian(np.zeros(3), np.eye(3), np.eye(3), np.eye(3))


# --- long range -----------------------------------------------------------------------------------


def test_long_range_shape():
    T_values = [1, 2, 4, 8, 16, 32, 64]
    c = long_range_influence(T_values, d=16, rng=np.random.default_rng(0), radius=0.9, n_trials=4)
    # The RNN: below its bound radius^(T-1)·‖W_xh‖ and at least a million times weaker at T = 64.
    assert np.all(c.rnn <= c.rnn_bound * (1 + 1e-9))
    assert c.rnn[-1] < 1e-6 * c.rnn[0]
    assert np.all(np.diff(np.log(c.rnn[2:])) < 0)
    # Self-attention: a_1 counts about as much as a typical input at every T (no distance effect),
    # while for the RNN its share collapses.
    assert np.all(c.attention_relative > 0.2)
    assert c.rnn_relative[-1] < 1e-6
    # Its size follows the attention weight α_T1, which shares out like 1/T, not like radius^T.
    assert c.attention[-1] > 1e3 * c.rnn[-1]
    np.testing.assert_allclose(c.uniform_weight, 1 / np.array(T_values))
    assert c.attention_weight[0] == 1.0


def test_long_range_with_a_large_radius_explodes():
    c = long_range_influence([1, 8, 32], d=16, rng=np.random.default_rng(0), radius=3.0, n_trials=3)
    assert c.rnn[-1] > 100 * c.rnn[0]  # it grows instead of vanishing


def test_long_range_is_fast_at_T_512_and_refuses_nonsense():
    start = time.perf_counter()
    c = long_range_influence([1, 512], d=16, rng=np.random.default_rng(1), n_trials=2)
    assert time.perf_counter() - start < 1.0
    assert np.all(np.isfinite(c.attention)) and np.all(c.rnn >= 0)
    long_range_influence([1, 2], d=1, rng=np.random.default_rng(1), n_trials=1)  # d = 1 works
    with pytest.raises(ValueError, match="at most 32"):
        long_range_influence([2], d=512, rng=np.random.default_rng(0))
    for bad, message in [([], "non-empty"), ([0, 4], "at least 1"), ([1.5], "whole numbers")]:
        with pytest.raises(ValueError, match=message):
            long_range_influence(bad, d=4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="radius"):
        long_range_influence([2], d=4, rng=np.random.default_rng(0), radius=0)


# --- parallel against sequential ------------------------------------------------------------------


def test_sequential_steps():
    s = sequential_steps(100)
    assert s["rnn"] == s["birnn"] == 100
    assert s["self_attention"] == s["cnn"] == s["truncated"] == 1
    assert set(s) == set(KINDS)


def test_timing_returns_positive_numbers():
    t = time_rnn_vs_attention([1, 8], d=4, repeats=2)
    assert t.rnn_seconds.shape == t.attention_seconds.shape == (2,)
    assert t.rnn_runs.shape == t.attention_runs.shape == (2, 2)
    assert np.all(np.isfinite(t.rnn_seconds)) and np.all(t.rnn_seconds > 0)
    assert np.all(np.isfinite(t.attention_seconds)) and np.all(t.attention_seconds > 0)
    assert t.cpu_count >= 1 and t.repeats == 2 and t.d == 4
    assert t.rnn_steps.tolist() == [1, 8] and t.attention_steps.tolist() == [1, 1]
    assert t.measured_at.endswith("UTC") and t.measured_at[:2] == "20"
    with pytest.raises(ValueError, match="non-empty"):
        time_rnn_vs_attention([])


def test_timing_is_the_median_of_several_runs_after_a_warm_up_with_their_spread():
    """Issue 26 #2: one run per point was noise. Every length is timed in every round, a warm-up
    first; the median and the middle half of the runs are kept, and `clear` says where the two
    middle halves stay apart. A round that would pass the budget is not started (the first always
    runs), and fewer than MIN_ROUNDS rounds make no difference clear."""
    t = time_rnn_vs_attention([2, 4, 8], d=4, repeats=7, budget_s=60)
    assert t.repeats == 7 and t.warmups == 1 and t.rnn_runs.shape == (3, 7)
    np.testing.assert_array_equal(t.rnn_seconds, np.median(t.rnn_runs, axis=1))
    np.testing.assert_array_equal(t.attention_spread, np.percentile(t.attention_runs, [25, 75], axis=1).T)
    assert np.all(t.rnn_spread[:, 0] <= t.rnn_seconds) and np.all(t.rnn_seconds <= t.rnn_spread[:, 1])
    apart = (t.attention_spread[:, 1] < t.rnn_spread[:, 0]) | (t.rnn_spread[:, 1] < t.attention_spread[:, 0])
    np.testing.assert_array_equal(t.clear, apart)
    np.testing.assert_array_equal(t.attention_faster, t.attention_seconds < t.rnn_seconds)
    assert t.seconds > 0
    quick = time_rnn_vs_attention([2, 4], d=4, repeats=50, budget_s=1e-9)  # the budget is spent at once
    assert quick.repeats == 1 and quick.rnn_runs.shape == (2, 1)
    assert not quick.clear.any() and MIN_ROUNDS >= 3  # one run each: nothing is clear
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="budget_s"):
            time_rnn_vs_attention([2], d=4, budget_s=bad)


# --- cost model and Table 1 -----------------------------------------------------------------------


def test_cost_curves_follow_layer_costs():
    T = np.array([1, 10, 512, 10**6])
    c = cost_curves(T, 512, k=3, r=5)
    for n, t in enumerate(T):
        one = layer_costs(int(t), 512, 3, 5)
        assert (c.self_attention[n], c.rnn[n], c.cnn[n], c.truncated[n]) == (
            one.self_attention,
            one.rnn,
            one.cnn,
            one.truncated,
        )
    assert c.crossover_T == 512 and c.self_attention[2] == c.rnn[2]  # equal at T = d
    assert c.truncated[0] == 512  # r = 5 keys but T = 1: only one to see
    assert cost_curves([1], 1).rnn.tolist() == [1.0]
    with pytest.raises(ValueError, match="non-empty"):
        cost_curves([], 4)


def test_costs_by_hand():
    c = layer_costs(T=10, d=4, k=3, r=5)
    assert (c.self_attention, c.rnn, c.cnn, c.truncated) == (400, 160, 480, 200)
    assert c.crossover_T == 4 and not c.cheaper_than_rnn
    short = layer_costs(T=3, d=4)
    assert short.cheaper_than_rnn and short.self_attention < short.rnn
    at = layer_costs(T=4, d=4)
    assert at.self_attention == at.rnn  # T = d: the two costs meet
    assert layer_costs(T=2, d=4, r=9).r == 2  # r is capped at T


@given(st.integers(1, 2000), st.integers(1, 2000), st.integers(1, 9), st.integers(1, 50))
def test_costs_follow_the_formulas(T, d, k, r):
    c = layer_costs(T, d, k, r)
    r_eff = min(r, T)
    assert (c.self_attention, c.rnn, c.cnn, c.truncated) == (T * T * d, T * d * d, k * T * d * d, r_eff * T * d)
    assert c.cheaper_than_rnn == (c.self_attention < c.rnn) == (d > T)


def test_exact_products_from_the_masks():
    T, d, window = 20, 8, 2
    assert (
        exact_attention_products(int(visibility("self_attention", T).mask.sum()), d) == layer_costs(T, d).self_attention
    )
    band = int(local_mask(T, window).sum())
    r = keys_per_query(window)
    assert exact_attention_products(band, d) < layer_costs(T, d, r=r).truncated  # the ends see fewer keys
    assert band == r * T - window * (window + 1)  # each end loses 1 + 2 + ... + window keys


def test_table_1_filled_in():
    rows = complexity_table(T=100, d=512, k=3, r=10)
    assert [r.layer for r in rows] == ["self_attention", "recurrent", "convolutional", "restricted"]
    by = {r.layer: r for r in rows}
    sa, rec, conv, res = by["self_attention"], by["recurrent"], by["convolutional"], by["restricted"]
    assert (sa.complexity, sa.sequential, sa.path) == ("O(n²·d)", "O(1)", "O(1)")
    assert (rec.complexity, rec.sequential, rec.path) == ("O(n·d²)", "O(n)", "O(n)")
    assert (conv.complexity, conv.sequential, conv.path) == ("O(k·n·d²)", "O(1)", "O(log_k(n))")
    assert (res.complexity, res.sequential, res.path) == ("O(r·n·d)", "O(1)", "O(n/r)")
    assert sa.complexity_value == 100 * 100 * 512 and rec.complexity_value == 100 * 512 * 512
    assert conv.complexity_value == 3 * 100 * 512 * 512 and res.complexity_value == 10 * 100 * 512
    assert (sa.sequential_value, rec.sequential_value, conv.sequential_value, res.sequential_value) == (1, 100, 1, 1)
    assert sa.path_value == 1 and rec.path_value == 100 and res.path_value == 10
    assert conv.path_value == pytest.approx(math.log(100, 3))
    assert res.name == "Self-Attention (restricted)"


@pytest.mark.parametrize(
    ("args", "message"),
    [((0, 4), "T must be at least 1"), ((4, 0), "d must be at least 1"), ((4, 4, 0), "k"), ((4, 4, 3, 0), "r")],
)
def test_costs_refuse_nonsense(args, message):
    with pytest.raises(ValueError, match=message):
        layer_costs(*args)


def test_table_extremes():
    assert complexity_table(1, 1)[1].path_value == 1.0  # T = 1, d = 1: a sensible table
    assert complexity_table(512, 1)[0].complexity_value == 512 * 512
    with pytest.raises(ValueError, match="k=1 never widens"):
        complexity_table(8, 8, k=1)
