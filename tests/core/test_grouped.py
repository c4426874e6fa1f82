"""Grouped-query attention: g = h is multi-head attention, g = 1 shares one K/V, PyTorch's
enable_gqa agrees, and the cache and parameter counts match arrays actually built."""

import numpy as np
import pytest

from attention_core import causal_mask, grouped_query_attention, multi_head_attention
from attention_core.grouped import (
    attention_parameters,
    grouped_costs,
    kv_cache_bytes,
    kv_head_of,
    model_kv_cache,
)
from attention_core.published import LLAMA2_70B, MISTRAL_7B, PUBLISHED_MODELS


def _weights(rng, d_model, n_heads, n_kv_heads):
    d_kv = n_kv_heads * (d_model // n_heads)
    scale = 1 / np.sqrt(d_model)
    return (
        rng.standard_normal((d_model, d_model)) * scale,
        rng.standard_normal((d_model, d_kv)) * scale,
        rng.standard_normal((d_model, d_kv)) * scale,
        rng.standard_normal((d_model, d_model)) * scale,
    )


@pytest.mark.parametrize("seed", range(6))
def test_as_many_kv_heads_as_query_heads_is_multi_head_attention(seed):
    rng = np.random.default_rng(seed)
    h = int(rng.choice([1, 2, 4]))
    d_model, T = h * int(rng.integers(1, 5)), int(rng.integers(1, 8))
    x = rng.standard_normal((T, d_model))
    w = _weights(rng, d_model, h, h)
    mask = causal_mask(T) if seed % 2 else None
    g = grouped_query_attention(x, *w, n_heads=h, n_kv_heads=h, mask=mask)
    m = multi_head_attention(x, *w, n_heads=h, mask=mask)
    for name in ("q_heads", "k_heads", "v_heads", "scores", "weights", "heads", "concat", "output"):
        np.testing.assert_allclose(getattr(g, name), getattr(m, name), rtol=0, atol=1e-14, err_msg=name)
    np.testing.assert_array_equal(g.kv_head_of, np.arange(h))


def test_one_kv_head_is_multi_query_attention():
    rng = np.random.default_rng(7)
    T, d_model, h = 5, 12, 4
    x = rng.standard_normal((T, d_model))
    w = _weights(rng, d_model, h, 1)
    r = grouped_query_attention(x, *w, n_heads=h, n_kv_heads=1)
    assert r.k_heads.shape == (1, T, 3) and r.k.shape == (T, 3)
    np.testing.assert_array_equal(r.kv_head_of, [0, 0, 0, 0])
    for i in range(h):  # every query head meets the very same keys and values
        np.testing.assert_array_equal(r.k_shared[i], r.k_heads[0])
        np.testing.assert_array_equal(r.v_shared[i], r.v_heads[0])
    # each head is softmax(q_i Kᵀ/√d_head) V with the one K and V
    for i in range(h):
        s = r.q_heads[i] @ r.k_heads[0].T / np.sqrt(3)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        np.testing.assert_allclose(r.weights[i], e / e.sum(axis=1, keepdims=True), atol=1e-14)


def test_query_heads_of_one_group_with_equal_queries_draw_equal_maps():
    rng = np.random.default_rng(8)
    T, d_model, h, g = 6, 16, 8, 2  # head width 2; groups {0..3} and {4..7}
    x = rng.standard_normal((T, d_model))
    w_q, w_k, w_v, w_o = _weights(rng, d_model, h, g)
    w_q[:, 2:4] = w_q[:, 0:2]  # query head 1 = query head 0 (both in group 0)
    w_q[:, 12:14] = w_q[:, 0:2]  # query head 6 = query head 0, but it reads group 1's keys
    r = grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads=h, n_kv_heads=g)
    np.testing.assert_array_equal(r.kv_head_of, [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_allclose(r.weights[1], r.weights[0], atol=1e-15)
    np.testing.assert_allclose(r.heads[1], r.heads[0], atol=1e-15)
    assert np.abs(r.weights[6] - r.weights[0]).max() > 1e-3  # same queries, other keys
    assert np.abs(r.weights[2] - r.weights[0]).max() > 1e-3  # same keys, other queries


@pytest.mark.parametrize("seed", range(12))
def test_matches_torch_enable_gqa(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(50 + seed)
    h = int(rng.choice([2, 4, 6, 8]))
    g = int(rng.choice([n for n in range(1, h + 1) if h % n == 0]))
    d_head, T = int(rng.integers(1, 5)), int(rng.integers(1, 9))
    d_model = h * d_head
    x = rng.standard_normal((T, d_model))
    w = _weights(rng, d_model, h, g)
    mask = rng.random((T, T)) < 0.7
    mask[:, 0] = True  # torch gives NaN for a row with nothing visible
    ours = grouped_query_attention(x, *w, n_heads=h, n_kv_heads=g, mask=mask)
    q, k, v = (torch.from_numpy(a)[None] for a in (ours.q_heads, ours.k_heads, ours.v_heads))
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=torch.from_numpy(mask), enable_gqa=True)
    np.testing.assert_allclose(ours.heads, ref[0].numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.output, ours.concat @ w[3], atol=1e-14)


def test_kv_head_of_groups_consecutive_heads():
    np.testing.assert_array_equal(kv_head_of(8, 4), [0, 0, 1, 1, 2, 2, 3, 3])
    np.testing.assert_array_equal(kv_head_of(6, 1), [0] * 6)
    np.testing.assert_array_equal(kv_head_of(3, 3), [0, 1, 2])


def test_cache_bytes_are_the_bytes_of_the_arrays_a_decoder_keeps():
    rng = np.random.default_rng(9)
    layers, T, d_model, h = 3, 7, 16, 4
    for g in (1, 2, 4):
        cache = []
        for _ in range(layers):  # each layer keeps its own K and V for every token so far
            r = grouped_query_attention(rng.standard_normal((T, d_model)), *_weights(rng, d_model, h, g), h, g)
            cache += [r.k.astype(np.float16), r.v.astype(np.float16)]
        assert kv_cache_bytes(layers, T, g, d_model // h, bytes_per_value=2) == sum(a.nbytes for a in cache)
        assert kv_cache_bytes(layers, T, g, d_model // h, bytes_per_value=8) == 4 * sum(a.nbytes for a in cache)
    assert kv_cache_bytes(2, 0, 1, 4) == 0
    assert kv_cache_bytes(2, 5, 1, 4, batch=3) == 3 * kv_cache_bytes(2, 5, 1, 4)


def test_parameter_count_is_the_weight_shapes():
    rng = np.random.default_rng(10)
    d_model, h = 24, 6
    for g in (1, 2, 3, 6):
        w = _weights(rng, d_model, h, g)
        assert attention_parameters(d_model, h, g) == sum(a.size for a in w)
        assert attention_parameters(d_model, h, g, bias=True) == sum(a.size for a in w) + sum(a.shape[1] for a in w)
    # multi-head attention's 4 d_model² when g = h
    assert attention_parameters(d_model, h, h) == 4 * d_model * d_model
    assert attention_parameters(8, 2, 1, d_head=16) == 8 * 32 + 2 * 8 * 16 + 32 * 8


def test_costs_as_g_moves():
    c = grouped_costs(d_model=64, n_heads=8, layers=4, T=100, bytes_per_value=2)
    np.testing.assert_array_equal(c.n_kv_heads, [1, 2, 4, 8])
    np.testing.assert_allclose(c.cache_fraction, c.n_kv_heads / 8)
    assert (np.diff(c.attention_params) > 0).all() and (np.diff(c.cache_bytes) > 0).all()
    assert c.attention_params[-1] == attention_parameters(64, 8, 8)
    np.testing.assert_array_equal(c.attention_params - c.kv_params, 2 * 64 * 64)  # W_q and W_o never shrink
    assert c.cache_bytes[0] == kv_cache_bytes(4, 100, 1, 8)


def test_published_caches():
    llama = model_kv_cache(LLAMA2_70B)
    assert (llama.T, llama.cached_tokens) == (LLAMA2_70B.context, LLAMA2_70B.context)
    assert llama.multi_head_bytes == llama.cache_bytes * LLAMA2_70B.heads // LLAMA2_70B.kv_heads
    assert llama.per_token_bytes * llama.T == llama.cache_bytes
    # Mistral's rolling buffer: a 32K-token generation keeps only the window's keys and values
    mistral = model_kv_cache(MISTRAL_7B, T=32768)
    assert mistral.cached_tokens == MISTRAL_7B.window
    assert mistral.full_context_bytes == mistral.cache_bytes * 32768 // MISTRAL_7B.window
    assert model_kv_cache(MISTRAL_7B, T=100).cache_bytes == 100 * mistral.per_token_bytes
    for model in PUBLISHED_MODELS:
        c = model_kv_cache(model)
        assert c.multi_query_bytes <= c.cache_bytes <= c.multi_head_bytes


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: kv_head_of(8, 3), r"n_kv_heads=3 does not divide n_heads=8.*\[1, 2, 4, 8\]"),
        (lambda: kv_head_of(4, 0), "n_kv_heads must be at least 1"),
        (lambda: kv_head_of(2, 4), "n_kv_heads=4 does not divide n_heads=2"),
        (
            lambda: grouped_query_attention(
                np.ones((2, 8)), np.eye(8), np.ones((8, 8)), np.ones((8, 4)), np.eye(8), 4, 2
            ),
            r"w_k must have shape \[d_model, n_kv_heads · d_head\] = \[8, 4\]",
        ),
        (
            lambda: grouped_query_attention(
                np.ones((2, 8)), np.eye(8), np.ones((8, 4)), np.ones((8, 2)), np.eye(8), 4, 2
            ),
            r"w_v must have shape",
        ),
        (
            lambda: grouped_query_attention(
                np.ones((2, 8)), np.ones((8, 4)), np.ones((8, 4)), np.ones((8, 4)), np.eye(8), 4, 2
            ),
            r"w_q must have shape \[d_model, d_model\]",
        ),
        (
            lambda: grouped_query_attention(np.ones((2, 6)), np.eye(6), np.eye(6), np.eye(6), np.eye(6), 4, 2),
            "d_model=6 is not divisible by n_heads=4",
        ),
        (
            lambda: grouped_query_attention(np.ones(6), np.eye(6), np.eye(6), np.eye(6), np.eye(6), 2, 2),
            "x must be a table of vectors",
        ),
        (lambda: kv_cache_bytes(0, 5, 1, 4), "layers must be at least 1"),
        (lambda: kv_cache_bytes(1, -5, 1, 4), "T must not be negative"),
        (lambda: kv_cache_bytes(1, 5, 1, 4, bytes_per_value=0), "bytes_per_value must be at least 1"),
        (lambda: attention_parameters(10, 4, 2), "d_model=10 is not divisible by n_heads=4"),
        (lambda: grouped_costs(64, 8, layers=0, T=10), "layers must be at least 1"),
        (lambda: model_kv_cache(LLAMA2_70B, T=2.5), "T must be a whole number"),
    ],
)
def test_every_bad_argument_says_what_to_do(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- the page's calls ----------------------------------------------------------------------------------


def test_kv_head_choices_are_the_divisors():
    from attention_core.grouped import kv_head_choices

    assert kv_head_choices(12) == (1, 2, 3, 4, 6, 12)
    assert kv_head_choices(1) == (1,)


def test_mean_pooling_averages_the_heads_of_a_group():
    from attention_core.grouped import mean_pool_kv

    w = np.arange(2 * 8, dtype=float).reshape(2, 8)  # d_model 2, h = 4 heads of width 2
    pooled = mean_pool_kv(w, 4, 2)  # groups {0, 1}, {2, 3}
    np.testing.assert_allclose(pooled, [[1.0, 2.0, 5.0, 6.0], [9.0, 10.0, 13.0, 14.0]])
    np.testing.assert_array_equal(mean_pool_kv(w, 4, 4), w)  # g = h: nothing pooled


def test_shared_maps_equal_keys_in_a_group_and_equal_maps_only_with_equal_queries():
    from attention_core.grouped import shared_maps

    tokens = ("the", "cat", "sat", "on", "the", "mat")
    s = shared_maps(tokens, 4, 8, 2, seed=1)
    assert s.key_gap_within == 0.0 < s.key_gap_between
    assert s.map_gap_within > 1e-3  # each query head still asks its own question
    assert s.moved_from_multi_head > 1e-3
    same = shared_maps(tokens, 4, 8, 2, seed=1, same_queries=True)
    assert same.map_gap_within < 1e-12 < 1e-3 < same.map_gap_between
    whole = shared_maps(tokens, 4, 8, 8, seed=1)  # g = h: the multi-head layer itself
    assert whole.moved_from_multi_head == 0.0
    np.testing.assert_array_equal(whole.result.weights, whole.multi_head_weights)
    one = shared_maps(tokens, 4, 8, 1, seed=1)
    assert np.isnan(one.key_gap_between) and one.key_gap_within == 0.0
    with pytest.raises(ValueError, match="does not divide"):
        shared_maps(tokens, 4, 8, 3)


def test_sharing_costs_cover_the_app_and_every_published_model():
    from attention_core.grouped import sharing_costs

    c = sharing_costs(4, 8, 2, 100)
    np.testing.assert_array_equal(c.app.n_kv_heads, [1, 2, 4, 8])
    np.testing.assert_array_equal(c.app.cache_bytes, 2 * 2 * 100 * np.array([1, 2, 4, 8]) * 4 * 2)
    assert [m.model for m in c.models] == list(PUBLISHED_MODELS)
    llama = next(m for m in c.models if m.model is LLAMA2_70B)
    assert llama.cache_bytes == 2 * 80 * 4096 * 8 * 128 * 2  # 8 KV heads of 128, 80 layers, 4096 tokens
