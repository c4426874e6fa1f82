"""Positional encoding beyond the table itself: frequencies, the shift-is-a-rotation fact, similarity
by offset, and the shuffle test that shows why self-attention needs positions at all."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import sinusoidal_positional_encoding
from attention_core.positional import (
    check_shift_is_rotation,
    pair_frequencies,
    permutation_check,
    position_similarity,
    shift_rotations,
    similarity_by_offset,
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
    from attention_core import token_vectors

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
