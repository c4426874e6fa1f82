"""Positional encoding beyond the table itself: frequencies, the shift-is-a-rotation fact, similarity
by offset, the learned table beside the sinusoids, and the shuffle test that shows why
self-attention needs positions at all."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import sinusoidal_positional_encoding, token_vectors
from attention_core.positional import (
    check_shift_is_rotation,
    learned_vs_sinusoidal,
    pair_frequencies,
    permutation_check,
    position_similarity,
    shift_rotation,
    shift_rotations,
    shuffle_experiment,
    shuffle_order,
    similarity,
    similarity_by_offset,
    sinusoid_similarity,
    sinusoid_table,
)

# --- frequencies and rotations ------------------------------------------------------------------


def test_pair_frequencies_by_hand():
    # d_model = 4, base = 10000: ω_0 = 1/10000^0 = 1, ω_1 = 1/10000^(2/4) = 1/100.
    np.testing.assert_allclose(pair_frequencies(4), [1.0, 0.01])
    # Odd d_model = 5 keeps a third frequency for the lone sine column: 1/10000^(4/5) = 10^-3.2.
    np.testing.assert_allclose(pair_frequencies(5), [1.0, 10 ** (-1.6), 10 ** (-3.2)])


def test_rotation_block_by_hand():
    # Pair 0 turns 1 radian per position, so two positions on it has turned 2 radians:
    # R_0(2) = [[cos 2, sin 2], [-sin 2, cos 2]] = [[-0.41615, 0.90930], [-0.90930, -0.41615]].
    r = shift_rotations(2, 2)
    assert r.shape == (1, 2, 2)
    np.testing.assert_allclose(r[0], [[-0.41615, 0.90930], [-0.90930, -0.41615]], atol=1e-5)
    # Applied to PE_1 = (sin 1, cos 1) it gives PE_3 = (sin 3, cos 3) = (0.14112, -0.98999).
    np.testing.assert_allclose(r[0] @ [np.sin(1), np.cos(1)], [0.14112, -0.98999], atol=1e-5)
    np.testing.assert_array_equal(shift_rotations(0, 6), np.broadcast_to(np.eye(2), (3, 2, 2)))
    assert shift_rotations(3, 7).shape == (3, 2, 2)  # the lone sine column of d_model = 7 has no block


@settings(max_examples=60, deadline=None)
@given(k=st.integers(-600, 600), d_model=st.integers(2, 64), base=st.floats(1.5, 1e6))
def test_rotation_blocks_are_rotations(k, d_model, base):
    r = shift_rotations(k, d_model, base)  # [m, 2, 2]
    np.testing.assert_allclose(r @ np.swapaxes(r, 1, 2), np.broadcast_to(np.eye(2), r.shape), atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(r), 1.0, atol=1e-12)
    # Going k on and then k back is no move at all.
    np.testing.assert_allclose(shift_rotations(-k, d_model, base) @ r, np.broadcast_to(np.eye(2), r.shape), atol=1e-9)


def test_shift_check_small_case_by_hand():
    # n = 2, d_model = 2, k = 1: predicted rows are R_0(1) applied to PE_0 = (0, 1) and PE_1.
    c = check_shift_is_rotation(2, 2, 1)
    r = shift_rotations(1, 2)[0]
    np.testing.assert_allclose(c.predicted[0], r @ [0.0, 1.0])
    np.testing.assert_allclose(c.predicted[0], [np.sin(1), np.cos(1)])
    np.testing.assert_allclose(c.actual, sinusoidal_positional_encoding(3, 2)[1:])
    assert c.max_error < 1e-15 and c.k == 1


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 80), d_model=st.integers(2, 80), k=st.integers(0, 600), base=st.floats(2.0, 1e6))
def test_shift_is_a_rotation_everywhere(n, d_model, k, base):
    c = check_shift_is_rotation(n, d_model, k, base)
    m = d_model // 2
    assert c.rotations.shape == (m, 2, 2)
    assert c.predicted.shape == c.actual.shape == (n, 2 * m)
    # actual really is the table k rows on, so a wrong rotation could not hide
    np.testing.assert_array_equal(c.actual, sinusoidal_positional_encoding(n + k, d_model, base)[k:, : 2 * m])
    assert c.max_error < 1e-9


def test_turning_the_wrong_way_is_far_off():
    # The direction matters: Rᵀ (a turn backwards) applied to PE_p does not give PE_(p+3).
    c = check_shift_is_rotation(16, 8, 3)
    now = sinusoidal_positional_encoding(16, 8).reshape(16, 4, 2)
    backwards = np.einsum("mba,nmb->nma", c.rotations, now).reshape(16, 8)
    assert np.max(np.abs(backwards - c.actual)) > 0.1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((4, 1, 1), "no sin/cos pair"),
        ((4, 4, -1), "must not be negative"),
        ((4, 4, 1.5), "whole number of positions"),
        ((0, 4, 1), "at least 1"),
        ((4, 4, 1, 0.0), "base must be a positive number"),
    ],
)
def test_shift_check_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        check_shift_is_rotation(*args)


# --- similarity -------------------------------------------------------------------------------


def test_dot_product_depends_on_offset_by_hand():
    # d_model = 4: PE_p · PE_q = cos(p - q) + cos((p - q)/100). For p = 3, q = 1: cos 2 + cos 0.02.
    s = position_similarity(sinusoidal_positional_encoding(5, 4))
    assert s[3, 1] == pytest.approx(np.cos(2) + np.cos(0.02))
    np.testing.assert_allclose(np.diag(s), 2.0)  # |PE_p|² = d_model / 2
    np.testing.assert_allclose(s, s.T)


def test_cosine_similarity_and_zero_rows():
    table = np.array([[3.0, 4.0], [0.0, 0.0], [6.0, 8.0]])
    s = position_similarity(table, cosine=True)
    np.testing.assert_allclose(s, [[1, 0, 1], [0, 0, 0], [1, 0, 1]])
    np.testing.assert_allclose(position_similarity(table), [[25, 0, 50], [0, 0, 0], [50, 0, 100]])
    with pytest.raises(ValueError, match="one row per position"):
        position_similarity(np.zeros(3))


def test_offset_profile_by_hand():
    s = np.array([[1.0, 2.0, 3.0], [2.0, 5.0, 4.0], [3.0, 4.0, 9.0]])
    p = similarity_by_offset(s)
    np.testing.assert_array_equal(p.offset, [0, 1, 2])
    np.testing.assert_allclose(p.mean, [5.0, 3.0, 3.0])  # diagonals (1, 5, 9), (2, 4), (3)
    np.testing.assert_allclose(p.low, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(p.high, [9.0, 4.0, 3.0])
    with pytest.raises(ValueError, match="square"):
        similarity_by_offset(np.zeros((2, 3)))


@pytest.mark.parametrize("base", [10.0, 10000.0])
def test_sinusoids_depend_on_offset_alone_unless_d_model_is_odd(base):
    even = similarity_by_offset(position_similarity(sinusoidal_positional_encoding(60, 16, base)))
    assert np.max(even.high - even.low) < 1e-12
    # The lone sine column of an odd d_model adds sin(pω)sin(qω), which depends on p + q too.
    odd = similarity_by_offset(position_similarity(sinusoidal_positional_encoding(60, 3, base)))
    assert np.max(odd.high - odd.low) > 1e-3


# --- the shuffle test ---------------------------------------------------------------------------


def _weights(d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((3, d, d)) / np.sqrt(d)


def test_permutation_check_by_hand():
    # Two one-number words a = 0 and b = 1, W = 1: scores q·k / √1 = [[0, 0], [0, 1]].
    # Word a attends equally: output ½·0 + ½·1 = 0.5; word b: weights (1, e)/(1 + e), output e/(1 + e).
    x = np.array([[0.0], [1.0]])
    one = np.ones((1, 1))
    c = permutation_check(x, [1, 0], one, one, one)
    e = np.e / (1 + np.e)
    np.testing.assert_allclose(c.output, [[0.5], [e]])
    np.testing.assert_allclose(c.shuffled_output, [[e], [0.5]])  # "b a": the same two rows, swapped
    assert c.max_error == 0.0
    # Add positions e = (0, 1). "a b" becomes (0, 2): scores [[0, 0], [0, 4]], outputs 1 and
    # 2e⁴/(1 + e⁴) = 1.96403. "b a" becomes (1 + 0, 0 + 1) = (1, 1): two equal rows, outputs 1 and 1.
    # Moving the first outputs gives (1.96403, 1), not (1, 1): the order now shows.
    pe = np.array([[0.0], [1.0]])
    c = permutation_check(x, [1, 0], one, one, one, pe)
    np.testing.assert_allclose(c.inputs, [[0.0], [2.0]])
    np.testing.assert_allclose(c.output, [[1.0], [1.96403]], atol=1e-5)
    np.testing.assert_allclose(c.shuffled_output, [[1.0], [1.0]])
    assert c.max_error == pytest.approx(0.96403, abs=1e-5)


@settings(max_examples=40, deadline=None)
@given(T=st.integers(2, 12), d=st.integers(1, 16), seed=st.integers(0, 10_000))
def test_without_positions_a_shuffle_only_moves_the_outputs(T, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, d))
    perm = rng.permutation(T)
    c = permutation_check(x, perm, *_weights(d, seed))
    assert c.max_error < 1e-9
    np.testing.assert_allclose(c.reordered_output, c.output[perm])


@settings(max_examples=40, deadline=None)
@given(T=st.integers(2, 12), d=st.integers(2, 16), seed=st.integers(0, 10_000))
def test_with_positions_a_shuffle_changes_the_outputs(T, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, d))
    perm = np.roll(np.arange(T), 1)  # every word moves
    pe = sinusoidal_positional_encoding(T, d)
    assert permutation_check(x, perm, *_weights(d, seed), pe=pe).max_error > 1e-6


def test_a_repeated_word_gets_one_output_without_positions_and_two_with():
    x = token_vectors(["I", "saw", "a", "saw"], 8, seed=1)
    w = _weights(8, 1)
    plain = permutation_check(x, [0, 1, 2, 3], *w)
    np.testing.assert_array_equal(plain.output[1], plain.output[3])
    with_pe = permutation_check(x, [0, 1, 2, 3], *w, pe=sinusoidal_positional_encoding(4, 8))
    assert np.max(np.abs(with_pe.output[1] - with_pe.output[3])) > 1e-3


@pytest.mark.parametrize(
    ("perm", "pe", "message"),
    [
        ([0, 0, 1], None, "exactly once"),
        ([0, 1], None, "exactly once"),
        ([2, 1, 0], np.zeros((2, 4)), "one row per word"),
    ],
)
def test_permutation_check_bad_arguments(perm, pe, message):
    with pytest.raises(ValueError, match=message):
        permutation_check(np.zeros((3, 4)), perm, *_weights(4), pe=pe)


# --- the page's results, one call each -----------------------------------------------------------


def test_sinusoid_table_by_hand():
    view = sinusoid_table(3, 4)
    np.testing.assert_allclose(view.pe, sinusoidal_positional_encoding(3, 4))
    np.testing.assert_allclose(view.omega, [1.0, 0.01])
    np.testing.assert_allclose(view.period, [2 * np.pi, 200 * np.pi])  # one turn every 2π / ω positions
    assert view.base == 10000.0


def test_similarity_results_by_hand():
    s = similarity(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]]))
    np.testing.assert_allclose(s.matrix, [[1, 0, 1], [0, 4, 0], [1, 0, 1]])
    assert s.spread == 3.0  # diagonal 0 holds 1, 4, 1
    assert not s.cosine
    even = sinusoid_similarity(40, 8)
    assert even.spread < 1e-12 and even.matrix[0, 0] == pytest.approx(4.0)
    assert sinusoid_similarity(40, 3).spread > 1e-3
    assert sinusoid_similarity(5, 4, cosine=True).matrix[2, 2] == pytest.approx(1.0)


def test_shift_rotation_draws_the_pair_asked_for_or_the_last_there_is():
    view = shift_rotation(9, 6, 2, 1)
    assert view.pair == 1 and view.starts == (0, 3, 6)
    assert view.angle == pytest.approx(2 * 10000 ** (-2 / 6))
    np.testing.assert_allclose(view.points, sinusoidal_positional_encoding(11, 6)[:, 2:4])  # positions 0 .. n + k - 1
    assert view.check.max_error < 1e-12
    assert shift_rotation(9, 7, 2, 99).pair == 2  # d_model = 7 has pairs 0, 1, 2
    assert shift_rotation(2, 2, 0, 0).starts == (0, 1)  # n // 3 = 0, 2n // 3 = 1
    with pytest.raises(ValueError, match="no sin/cos pair"):
        shift_rotation(4, 1, 1, 0)


def test_learned_vs_sinusoidal_on_a_small_table():
    table = np.array([[10.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    view = learned_vs_sinusoidal(3, table=table)
    np.testing.assert_array_equal(view.table, table[:3])
    np.testing.assert_allclose(view.row_norms, [10, 1, 1])
    assert view.median_norm == 1.0  # of the rows after row 0
    np.testing.assert_allclose(view.learned.matrix, [[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(view.sinusoidal.matrix, sinusoid_similarity(3, 2, cosine=True).matrix)
    assert view.colour_limit == pytest.approx(np.quantile([1, 0, 0, 1], 0.99))


def test_learned_vs_sinusoidal_uses_the_shipped_model_table():
    view = learned_vs_sinusoidal(512)
    assert view.table.shape == (512, 384)
    assert view.row_norms[0] > 3 * view.median_norm  # the [CLS] position stands out
    assert view.learned.spread > 0.1 > 1e-9 > view.sinusoidal.spread
    np.testing.assert_allclose(np.diag(view.learned.matrix), 1.0, atol=1e-9)


@pytest.mark.parametrize(
    ("order", "i", "j", "perm"),
    [("swap", 0, 2, (2, 1, 0, 3)), ("swap", 1, 1, (0, 1, 2, 3)), ("reverse", 0, 0, (3, 2, 1, 0))],
)
def test_shuffle_order_by_hand(order, i, j, perm):
    assert shuffle_order(4, order, i, j) == perm


@settings(max_examples=30, deadline=None)
@given(T=st.integers(2, 20), seed=st.integers(0, 10_000))
def test_a_random_shuffle_is_a_permutation_that_moves_something(T, seed):
    perm = shuffle_order(T, "random", seed=seed)
    assert sorted(perm) == list(range(T)) and perm != tuple(range(T))
    assert shuffle_order(T, "random", seed=seed) == perm  # the same seed, the same shuffle


def test_shuffle_order_bad_order():
    with pytest.raises(ValueError, match="order must be one of"):
        shuffle_order(3, "sideways")


def test_shuffle_experiment_the_articles_example():
    view = shuffle_experiment(["I", "saw", "a", "saw"], "swap", 0, 2, d_model=8, seed=1)
    assert view.shuffled == ("a", "saw", "I", "saw") and view.moved and not view.clamped
    assert view.plain.max_error < 1e-12 < 1e-3 < view.with_pe.max_error
    assert view.repeated == (1, 3)
    assert view.repeated_gap[0] == 0.0 and view.repeated_gap[1] > 1e-3  # one output for both saws, then two
    assert view.seed == 1
    # The same vectors and weights as the experiment draws them, checked by hand with permutation_check.
    x = token_vectors(["I", "saw", "a", "saw"], 8, 1)
    w = np.random.default_rng([1, 1]).standard_normal((3, 8, 8)) / np.sqrt(8)
    np.testing.assert_allclose(
        view.with_pe.output, permutation_check(x, view.perm, *w, sinusoidal_positional_encoding(4, 8)).output
    )


def test_shuffle_experiment_clamps_the_swap_and_handles_one_word():
    view = shuffle_experiment(["a", "b", "c"], "swap", 0, 39)
    assert view.swapped == (0, 2) and view.clamped and view.shuffled == ("c", "b", "a")
    alone = shuffle_experiment(["hello"], "random")
    assert not alone.moved and alone.plain.max_error == 0.0 and alone.repeated is None
    assert np.isnan(alone.repeated_gap).all()
    with pytest.raises(ValueError, match="no words"):
        shuffle_experiment([])
