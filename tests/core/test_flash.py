"""FlashAttention's tiles: the same output as the full computation for every block size and mask,
a record whose last state is the row maximum and the softmax denominator, and the memory counts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import causal_mask, flash_attention, scaled_dot_product_attention, sliding_window_mask
from attention_core.flash import attention_memory, attention_memory_sweep, paper_block_sizes

finite = st.floats(-20, 20, allow_nan=False, allow_infinity=False)


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@st.composite
def tiled_case(draw):
    T_q, T_k = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    d_k, d_v = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    q = draw(arrays(np.float64, (T_q, d_k), elements=finite))
    k = draw(arrays(np.float64, (T_k, d_k), elements=finite))
    v = draw(arrays(np.float64, (T_k, d_v), elements=finite))
    kind = draw(st.sampled_from(["none", "bool", "float"]))
    if kind == "bool":
        mask = draw(arrays(np.bool_, (T_q, T_k)))  # rows with nothing visible included
    elif kind == "float":
        mask = draw(arrays(np.float64, (T_q, T_k), elements=st.sampled_from([-np.inf, -3.0, 0.0, 1.5])))
    else:
        mask = None
    block = draw(st.integers(1, 15))
    scale = draw(st.one_of(st.none(), st.floats(-2, 2, allow_nan=False)))
    return q, k, v, mask, block, scale


@given(tiled_case())
@settings(max_examples=200, deadline=None)
def test_tiles_give_the_full_computation_for_any_block_size_and_mask(case):
    q, k, v, mask, block, scale = case
    full = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    tiled = flash_attention(q, k, v, block, mask=mask, scale=scale)
    assert not np.isnan(tiled.output).any()
    _close(tiled.output, full.output)
    _close(tiled.scaled, full.scaled)  # the tiles' scores are the full matrix, cut up (BLAS may round a last bit apart)
    # the record's last state: m is each row's largest score, l the softmax denominator after subtracting it
    _close(tiled.m, full.scaled.max(axis=1))
    visible = np.isfinite(tiled.m)
    denom = np.exp(full.scaled[visible] - tiled.m[visible, None]).sum(axis=1)
    _close(tiled.l[visible], denom)
    assert (tiled.l[~visible] == 0).all()
    _close(tiled.m_after[-1], tiled.m)
    _close(tiled.o_after[-1] / np.where(tiled.l > 0, tiled.l, 1)[:, None], tiled.output)


def test_block_sizes_one_and_larger_than_T():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((7, 4)), rng.standard_normal((7, 4)), rng.standard_normal((7, 3))
    full = scaled_dot_product_attention(q, k, v, mask=causal_mask(7)).output
    one = flash_attention(q, k, v, 1, mask=causal_mask(7))
    assert (one.n_query_blocks, one.n_key_blocks, one.n_tiles) == (7, 7, 49)
    _close(one.output, full)
    big = flash_attention(q, k, v, 50, mask=causal_mask(7))
    assert (big.n_query_blocks, big.n_key_blocks, big.n_tiles) == (1, 1, 1)
    _close(big.output, full)
    ragged = flash_attention(q, k, v, 3, mask=causal_mask(7))  # blocks of 3, 3 and 1
    assert ragged.tile(8).rows == (6, 7) and ragged.tile(8).cols == (6, 7)
    _close(ragged.output, full)


def test_fully_masked_rows_give_zeros_not_nan():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((4, 2)), rng.standard_normal((5, 2)), rng.standard_normal((5, 3))
    mask = np.ones((4, 5), dtype=bool)
    mask[1] = False  # query 1 sees nothing
    mask[2, :3] = False  # query 2 sees nothing in the first block of 3
    r = flash_attention(q, k, v, 3, mask=mask)
    np.testing.assert_array_equal(r.output[1], 0.0)
    assert r.m[1] == -np.inf and r.l[1] == 0
    assert r.m_after[0, 2] == -np.inf and np.isfinite(r.m_after[1, 2])
    assert not np.isnan(r.o_after).any() and not np.isnan(r.rescale).any()
    _close(r.output, scaled_dot_product_attention(q, k, v, mask=mask).output)
    everything_masked = flash_attention(q, k, v, 2, mask=np.zeros((4, 5), dtype=bool))
    np.testing.assert_array_equal(everything_masked.output, 0.0)


def test_a_sliding_window_tiles_too():
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((16, 4)) for _ in range(3))
    mask = sliding_window_mask(16, 4, n_sink=1)
    _close(flash_attention(q, k, v, 5, mask=mask).output, scaled_dot_product_attention(q, k, v, mask=mask).output)


def test_the_running_state_tile_by_tile():
    # one query, keys in blocks of 2: scores (1, 3 | 2, 5)
    q = np.array([[1.0]])
    k = np.array([[1.0], [3.0], [2.0], [5.0]])
    v = np.array([[1.0], [2.0], [3.0], [4.0]])
    r = flash_attention(q, k, v, 2, scale=1.0)
    first, second = r.tile(0), r.tile(1)
    assert (first.key_block, second.key_block) == (0, 1)
    assert first.m[0] == 3 and second.m[0] == 5
    assert first.l[0] == pytest.approx(np.exp(1 - 3) + 1)
    assert second.rescale[0] == pytest.approx(np.exp(3 - 5))  # the old sums shrink by e^(m - m')
    assert second.l[0] == pytest.approx((np.exp(-2) + 1) * np.exp(-2) + np.exp(-3) + 1)
    np.testing.assert_allclose(first.o, [[np.exp(-2) * 1 + 2]])
    e = np.exp([1.0, 3.0, 2.0, 5.0] - np.float64(5))
    assert r.output[0, 0] == pytest.approx(e @ [1, 2, 3, 4] / e.sum())


def test_tiles_are_visited_as_algorithm_1_does():
    rng = np.random.default_rng(3)
    r = flash_attention(rng.standard_normal((5, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 2)), 2)
    order = [(r.tile(s).query_block, r.tile(s).key_block) for s in range(r.n_tiles)]
    assert order == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]  # outer loop over key blocks
    t = r.tile(4)
    np.testing.assert_array_equal(t.scores, r.scaled[2:4, 2:4])
    np.testing.assert_array_equal(t.m, r.m_after[1, 2:4])


def test_memory_counts_line_by_line():
    T, d, b = 1024, 64, 128
    mem = attention_memory(T, d, b, bytes_per_value=4)
    assert mem.score_matrix_bytes == np.zeros((T, T), dtype=np.float32).nbytes
    q_i = k_j = v_j = o_i = np.zeros((b, d), dtype=np.float32)
    lm = np.zeros(2 * b, dtype=np.float32)
    s = np.zeros((b, b), dtype=np.float32)
    assert mem.tile_bytes == sum(a.nbytes for a in (q_i, k_j, v_j, o_i, lm, s))
    assert mem.outer_passes == 8
    # standard: Q and K read, S written; S read, P written; P and V read, O written
    assert mem.standard_traffic == (2 * T * d + T * T) + (T * T + T * T) + (T * T + T * d + T * d)
    # tiled: O, l, m initialised; K and V read once; every pass reads Q, O, l, m and writes O, l, m
    assert mem.flash_traffic == (T * d + 2 * T) + 2 * T * d + 8 * (2 * T * d + 2 * T + T * d + 2 * T)
    assert mem.flash_traffic < mem.standard_traffic


def test_theorem_2_the_tiled_traffic_scales_as_T2_d2_over_M():
    d, sram = 64, 100_000 // 4  # 100 KB of float32 on chip
    b_r, b_c = paper_block_sizes(sram, d)
    assert (b_r, b_c) == (64, 98)
    ratios = []
    for T in (2048, 4096, 8192, 16384):
        mem = attention_memory(T, d, b_c, block_rows=b_r)
        assert mem.tile_bytes <= 4 * sram * 1.6  # a tile is about the SRAM, whatever T
        ratios.append(mem.flash_traffic / (T * T * d * d / sram))
        assert mem.flash_traffic < mem.standard_traffic
    assert max(ratios) / min(ratios) < 1.05  # the same constant at every T
    # both grow like T², so their ratio settles: about 4 T² against 3 T² d / B_c
    assert mem.standard_traffic / mem.flash_traffic == pytest.approx(4 * b_c / (3 * d), rel=0.03)


def test_sweep_matches_single_counts():
    sweep = attention_memory_sweep([64, 512, 4096], 32, [1, 16, 256])
    assert sweep.flash_traffic.shape == (3, 3)
    for a, T in enumerate((64, 512, 4096)):
        for b, block in enumerate((1, 16, 256)):
            assert sweep.flash_traffic[a, b] == attention_memory(T, 32, block).flash_traffic
        assert sweep.standard_traffic[a] == attention_memory(T, 32, 1).standard_traffic
    assert (np.diff(sweep.flash_traffic, axis=1) < 0).all()  # bigger tiles, fewer passes
    assert (np.diff(sweep.tile_bytes) > 0).all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 0),
            "block_size must be at least 1",
        ),
        (lambda: flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 1.5), "block_size must be a whole"),
        (lambda: flash_attention(np.ones((2, 2, 2)), np.ones((2, 2)), np.ones((2, 2)), 1), "works on one head"),
        (lambda: flash_attention(np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 2)), 1), "q has d_k=3 columns"),
        (lambda: flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((3, 2)), 1), "k has 2 rows but v has 3"),
        (lambda: flash_attention(np.ones((2, 0)), np.ones((2, 0)), np.ones((2, 2)), 1), "d_k is 0"),
        (lambda: flash_attention(np.full((2, 2), np.inf), np.ones((2, 2)), np.ones((2, 2)), 1), "q holds an infinite"),
        (lambda: flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 1, scale=np.nan), "scale must be"),
        (
            lambda: flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 1, mask=np.full((2, 2), np.inf)),
            r"not \+inf or NaN",
        ),
        (
            lambda: flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 1, mask=np.ones((3, 3), bool)),
            "mask has shape",
        ),
        (
            lambda: flash_attention(
                np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 1, mask=np.ones((2, 2, 2), bool)
            ),
            "one .T_q, T_k. table for one head",
        ),
        (lambda: flash_attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), 1).tile(4), "step=4 is past"),
        (lambda: attention_memory(10, 0, 2), "d must be at least 1"),
        (lambda: attention_memory(10, 4, 2, block_rows=0), "block_rows must be at least 1"),
        (lambda: paper_block_sizes(0, 4), "sram must be at least 1"),
        (lambda: attention_memory_sweep([], 4, [2]), "T_values must list at least one"),
        (lambda: attention_memory_sweep([8], 4, [0]), "every entry of block_sizes"),
    ],
)
def test_every_bad_argument_says_what_to_do(call, message):
    with pytest.raises(ValueError, match=message):
        call()
