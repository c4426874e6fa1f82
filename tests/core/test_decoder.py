"""attention_core.decoder: the causal mask, the KV cache against the full recomputation, generation, costs,
prompts and bad input, and the shipped weights."""

import numpy as np
import pytest

from attention_core.decoder import (
    UNKNOWN,
    CharVocabulary,
    DecoderConfig,
    KVCache,
    cache_report,
    cache_sizes,
    compare,
    decoder_mask,
    draw_token,
    empty_cache,
    encode_prompt,
    forward,
    generate,
    init_params,
    kv_cache_bytes,
    load_decoder,
    n_parameters,
    next_token,
    parameter_shapes,
    prefill,
    read_text,
    sampling_probs,
    sight,
    step,
    step_cost,
    visible,
    write,
)
from attention_core.grouped import model_kv_cache
from attention_core.published import BERT_BASE, MISTRAL_7B, PUBLISHED_MODELS
from attention_core.windows import sliding_window_mask

SMALL = DecoderConfig(vocab_size=13, context=12, n_layers=2, n_heads=2, d_model=8, d_ff=12)


def trained_like(config: DecoderConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """Weights larger than the initial N(0, 0.02²), so that attention is far from uniform and a mistake in the
    mask or the cache moves the outputs a lot."""
    rng = np.random.default_rng(seed)
    return {name: p + rng.standard_normal(p.shape) * 0.5 for name, p in init_params(config, rng).items()}


@pytest.mark.parametrize(
    "config",
    [SMALL, DecoderConfig(vocab_size=9, context=10, n_layers=1, n_heads=4, d_model=8, positional="sinusoidal")],
)
def test_no_position_sees_the_future(config):
    params = trained_like(config)
    rng = np.random.default_rng(1)
    tokens = rng.integers(0, config.vocab_size, config.context)
    base = forward(params, tokens, config)
    for t in range(config.context - 1):
        changed = tokens.copy()
        changed[t + 1] = (changed[t + 1] + 1) % config.vocab_size
        other = forward(params, changed, config)
        np.testing.assert_array_equal(other.logits[: t + 1], base.logits[: t + 1])
        np.testing.assert_array_equal(other.weights[..., : t + 1, :], base.weights[..., : t + 1, :])
        assert np.abs(other.logits[t + 1 :] - base.logits[t + 1 :]).max() > 1e-3  # the change is seen after
    assert np.all(base.weights[..., ~base.mask] == 0)
    np.testing.assert_allclose(base.weights.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(base.probs.sum(axis=-1), 1.0, atol=1e-12)


def test_the_mask_is_the_causal_triangle_and_the_sliding_window():
    np.testing.assert_array_equal(decoder_mask(5), np.tril(np.ones((5, 5), dtype=bool)))
    window = decoder_mask(6, window=2, n_sink=1)
    for i in range(6):
        for j in range(6):
            assert window[i, j] == (j <= i and (i - 2 < j or j < 1))


def test_the_window_agrees_with_attention_core_windows():
    for T, window, n_sink in ((7, 3, 0), (9, 2, 2), (5, 8, 1), (6, 1, 0), (8, 3, 5)):
        np.testing.assert_array_equal(decoder_mask(T, window, n_sink), sliding_window_mask(T, window, n_sink=n_sink))


@pytest.mark.parametrize(("window", "n_sink"), [(None, 0), (4, 0), (3, 2)])
@pytest.mark.parametrize("tied", [True, False])
def test_the_cached_step_equals_the_full_recomputation(window, n_sink, tied):
    """To 1e-12, not bit for bit: one row times W and T rows times W are summed in different orders by BLAS,
    which leaves differences of a few units in the last place (measured: below 2e-15)."""
    config = DecoderConfig(vocab_size=13, context=12, n_layers=2, n_heads=2, d_model=8, d_ff=12, tied=tied)
    params = trained_like(config)
    tokens = np.random.default_rng(2).integers(0, config.vocab_size, config.context)
    for n_prompt in (1, 5):
        _, cache = prefill(params, tokens[:n_prompt], config, window, n_sink)
        for t in range(n_prompt, config.context):
            read = step(params, cache, int(tokens[t]))
            full = forward(params, tokens[: t + 1], config, window, n_sink)
            np.testing.assert_allclose(read.logits, full.logits[-1], rtol=0, atol=1e-12)
            np.testing.assert_allclose(read.probs, full.probs[-1], rtol=0, atol=1e-12)
            np.testing.assert_allclose(read.weights, full.weights[:, :, -1, read.positions], rtol=0, atol=1e-12)
            np.testing.assert_allclose(read.cache.keys, full.keys[:, :, read.positions], rtol=0, atol=1e-12)
            np.testing.assert_allclose(read.cache.values, full.values[:, :, read.positions], rtol=0, atol=1e-12)
            # the weights outside the kept keys are exactly 0 in the full pass: dropping them loses nothing
            assert np.all(np.delete(full.weights[:, :, -1], read.positions, axis=-1) == 0)
            assert read.position == t and read.cache.length == t + 1
            cache = read.cache


def test_the_cache_grows_with_every_token_and_stops_at_the_window():
    params = trained_like(SMALL)
    cache = empty_cache(SMALL)
    assert cache.n_kept == 0 and cache.n_bytes() == 0
    for t in range(6):
        before = cache
        cache = step(params, cache, t % SMALL.vocab_size).cache
        assert before.length == t  # copy on step: the older cache is untouched
        assert cache.keys.shape == (SMALL.n_layers, SMALL.n_heads, t + 1, SMALL.d_head)
        assert cache.n_bytes() == 2 * SMALL.n_layers * (t + 1) * SMALL.d_model * 8
        assert cache.n_bytes(2) == cache.keys.nbytes // 4 + cache.values.nbytes // 4
    windowed = empty_cache(SMALL, window=3, n_sink=1)
    for t in range(SMALL.context):
        windowed = step(params, windowed, 1).cache
        assert windowed.n_kept == min(t + 1, 4)
    np.testing.assert_array_equal(windowed.positions, [0, 9, 10, 11])
    assert windowed.length == SMALL.context


def test_a_full_context_is_refused_by_step_and_generate_rebuilds_the_cache():
    params = trained_like(SMALL)
    _, cache = prefill(params, np.arange(SMALL.context) % SMALL.vocab_size, SMALL)
    with pytest.raises(ValueError, match="whole context"):
        step(params, cache, 0)
    steps = list(generate(params, SMALL, [1, 2, 3], 30, temperature=0))
    assert len(steps) == 30
    rebuilt = [s.index for s in steps if s.rebuilt]
    assert rebuilt  # 3 + 30 tokens do not fit in 12 positions
    for s in steps:
        assert s.cache.length <= SMALL.context
        assert s.weights.shape == (SMALL.n_layers, SMALL.n_heads, s.cache.n_kept)
        assert s.query_position == s.cache.length - 1
    first = steps[rebuilt[0]]
    assert first.cache.length == SMALL.context // 2
    # after a rebuild the next token is what a fresh prompt of the recent tokens gives
    recent = first.cache.tokens
    np.testing.assert_allclose(first.model_probs, forward(params, recent, SMALL).probs[-1], atol=1e-12)


def test_greedy_generation_is_deterministic_and_follows_the_argmax():
    params = trained_like(SMALL)
    a = [s.token for s in generate(params, SMALL, [4, 5], 20, temperature=0)]
    b = [s.token for s in generate(params, SMALL, [4, 5], 20, temperature=0, rng=np.random.default_rng(9))]
    assert a == b
    tokens = [4, 5]
    for s in generate(params, SMALL, [4, 5], 8, temperature=0):
        assert s.token == int(np.argmax(forward(params, tokens, SMALL).logits[-1]))
        assert s.probs[s.token] == 1.0
        tokens.append(s.token)


def test_sampling_with_a_fixed_rng_is_reproducible():
    params = trained_like(SMALL)

    def draw(seed):
        return [s.token for s in generate(params, SMALL, [3], 40, 1.0, None, np.random.default_rng(seed))]

    assert draw(5) == draw(5)
    assert draw(5) != draw(6)  # 40 draws from non-degenerate distributions: equal only by a fluke


def test_temperature_and_top_k():
    logits = np.array([2.0, 1.0, 1.0, -1.0, 0.5])
    np.testing.assert_allclose(sampling_probs(logits, 1.0, None), np.exp(logits) / np.exp(logits).sum())
    np.testing.assert_array_equal(sampling_probs(logits, 0, None), [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(sampling_probs(logits, 1e-300, None), [1, 0, 0, 0, 0])  # no overflow
    np.testing.assert_allclose(sampling_probs(logits, 1e300, None), 0.2)  # huge: uniform
    two = sampling_probs(logits, 1.0, 2)
    assert np.count_nonzero(two) == 2 and two[0] > two[1] > 0  # a tie at the cut: the lower id is kept
    np.testing.assert_allclose(sampling_probs(logits, 1.0, 10**9), sampling_probs(logits, 1.0, None))  # clamps
    np.testing.assert_array_equal(sampling_probs(logits, 0.7, 1), [1, 0, 0, 0, 0])
    step_ = next(generate(trained_like(SMALL), SMALL, [1], 1, 0.5, 10**6, np.random.default_rng(0)))
    assert step_.top_k == SMALL.vocab_size and step_.temperature == 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"temperature": -1.0}, "0 or more"),
        ({"temperature": float("inf")}, "finite"),
        ({"temperature": float("nan")}, "finite"),
        ({"temperature": "hot"}, "a number"),
        ({"top_k": 0}, "no character"),
        ({"top_k": -3}, "out of range"),
        ({"top_k": 2.5}, "whole number"),
        ({"temperature": 1.0, "rng": None}, "needs rng"),
        ({"n_new": -1}, "out of range"),
        ({"n_new": 10**6}, "out of range"),
        ({"window": 0}, "out of range"),
        ({"n_sink": 2}, "only matters with a window"),
    ],
)
def test_bad_generation_arguments_raise_clear_errors(kwargs, message):
    args = {"n_new": 3, "temperature": 0.0, "top_k": None, "rng": None} | kwargs
    with pytest.raises(ValueError, match=message):
        generate(trained_like(SMALL), SMALL, [1, 2], **args)


def test_bad_tokens_raise_clear_errors():
    params = trained_like(SMALL)
    with pytest.raises(ValueError, match="at least one token"):
        forward(params, [], SMALL)
    with pytest.raises(ValueError, match="at least one token"):
        generate(params, SMALL, [], 3, temperature=0)
    with pytest.raises(ValueError, match="more than the model's context"):
        forward(params, np.zeros(SMALL.context + 1, dtype=int), SMALL)
    with pytest.raises(ValueError, match=r"must lie in 0\.\.12"):
        forward(params, [3, 13], SMALL)
    with pytest.raises(ValueError, match="whole-number ids"):
        forward(params, [0.5], SMALL)
    with pytest.raises(ValueError, match="KVCache"):
        step(params, "cache", 1)


def test_config_checks():
    with pytest.raises(ValueError, match="not divisible by n_heads=3"):
        DecoderConfig(d_model=8, n_heads=3)
    with pytest.raises(ValueError, match="positional"):
        DecoderConfig(positional="rotary")
    with pytest.raises(ValueError, match="n_layers"):
        DecoderConfig(n_layers=0)
    assert n_parameters(SMALL) == sum(int(np.prod(s)) for s in parameter_shapes(SMALL).values())
    untied = DecoderConfig(vocab_size=13, context=12, n_layers=2, n_heads=2, d_model=8, d_ff=12, tied=False)
    assert n_parameters(untied) - n_parameters(SMALL) == 13 * 8


def test_multiply_adds_are_counted_from_the_shapes():
    c = DecoderConfig(vocab_size=100, context=64, n_layers=3, n_heads=4, d_model=32, d_ff=128)
    cost = step_cost(c, 64)
    per_row = 3 * (4 * 32 * 32 + 2 * 32 * 128) + 32 * 100
    assert cost.cached.total == per_row + 3 * 2 * 64 * 32
    assert cost.full.total == 64 * per_row + 3 * 2 * 64 * 64 * 32
    assert cost.full.attention == 64 * 64 * cost.cached.attention // 64
    assert cost.ratio > 60
    windowed = step_cost(c, 64, window=8, n_sink=2)
    assert windowed.n_keys == 10 and windowed.cached.attention == 3 * 2 * 10 * 32
    assert step_cost(c, 1).ratio == 1.0  # one token: the cache saves nothing
    with pytest.raises(ValueError, match="out of range"):
        step_cost(c, 65)


def test_kv_cache_bytes():
    assert kv_cache_bytes(n_layers=2, T=10, d_model=8, bytes_per_number=4) == 2 * 2 * 10 * 8 * 4
    with pytest.raises(ValueError, match="whole number"):
        kv_cache_bytes(2, 10.5, 8, 4)


def test_cache_sizes_of_this_decoder_and_the_published_decoders():
    config = DecoderConfig(vocab_size=50, context=128, n_layers=3, n_heads=4, d_model=96)
    rows = cache_sizes(config, bytes_per_number=2)
    ours = rows[0]
    assert ours.name == "this decoder" and ours.kept == ours.T == 128
    assert ours.bytes == ours.formula_bytes == 2 * 3 * 128 * 96 * 2
    assert ours.bytes * 4 == cache_sizes(config, 8)[0].bytes  # float64, as this core holds it
    published = {row.name: row for row in rows[1:]}
    assert set(published) == {m.name for m in PUBLISHED_MODELS if m is not BERT_BASE}  # an encoder keeps no cache
    for model in PUBLISHED_MODELS:
        if model is BERT_BASE:
            continue
        row = published[model.name]
        assert (row.source, row.T) == (model.source, model.context)
        assert row.formula_bytes == 2 * model.layers * model.context * model.d_model * 2
        # attention_core.grouped counts the same cache its own way: heads, grouping, the rolling window
        assert row.bytes == model_kv_cache(model, bytes_per_value=2).cache_bytes, model.name
    assert published["Mistral 7B"].kept == MISTRAL_7B.window < published["Mistral 7B"].T
    assert published["Llama 2 70B"].bytes * 8 == published["Llama 2 70B"].formula_bytes  # 8 KV heads of 64
    windowed = cache_sizes(config, 8, window=16, n_sink=4)[0]
    assert windowed.kept == 20 and windowed.bytes == empty_cache_bytes_after(config, 40, 16, 4)
    with pytest.raises(ValueError, match="bytes_per_number"):
        cache_sizes(config, 0)


def empty_cache_bytes_after(config, n_tokens, window, n_sink) -> int:
    """The bytes a real windowed KVCache holds after n_tokens (cut to the context) steps."""
    params = init_params(config, np.random.default_rng(0))
    cache = empty_cache(config, window, n_sink)
    for t in range(min(n_tokens, config.context)):
        cache = step(params, cache, t % config.vocab_size).cache
    assert cache.keys.nbytes + cache.values.nbytes == cache.n_bytes(8)
    return cache.n_bytes(8)


# --- prompts ------------------------------------------------------------------------------------------

VOCAB = CharVocabulary((UNKNOWN, "\n", " ", "a", "b", "注", "意"))


def test_a_prompt_maps_to_ids_and_reports_unknown_characters():
    encoded = encode_prompt("ab 注意力!", VOCAB, 100)
    assert encoded.read == "ab 注意��"
    np.testing.assert_array_equal(encoded.ids, [3, 4, 2, 5, 6, 0, 0])
    assert encoded.unknown == ("力", "!") and encoded.unknown_positions == (5, 6)
    assert encoded.n_cut == 0 and not encoded.empty
    assert VOCAB.decode(encoded.ids) == encoded.read


def test_an_empty_prompt_starts_a_paragraph():
    encoded = encode_prompt("", VOCAB, 100)
    assert encoded.empty and encoded.read == "\n"
    np.testing.assert_array_equal(encoded.ids, [1])


def test_a_long_prompt_keeps_its_last_characters_and_reports_the_cut():
    encoded = encode_prompt("a" * 9_990 + "b" * 10, VOCAB, 128)
    assert encoded.n_cut == 10_000 - 128 and len(encoded.ids) == 128
    assert encoded.read.endswith("b" * 10)


def test_line_ends_and_unicode_are_normalised():
    assert encode_prompt("a\r\nb", VOCAB, 10).read == "a\nb"
    composed = CharVocabulary((UNKNOWN, "é"))
    assert encode_prompt("e\u0301", composed, 10).ids.tolist() == [1]  # typed as e + combining accent
    with pytest.raises(ValueError, match="must be text"):
        encode_prompt(None, VOCAB, 10)
    with pytest.raises(ValueError, match="unknown symbol"):
        CharVocabulary(("a", "b"))


# --- the shipped model -------------------------------------------------------------------------------


def test_the_shipped_decoder_loads_and_writes_in_both_languages():
    shipped = load_decoder()
    assert shipped is load_decoder()  # cached
    config, vocab = shipped.config, shipped.vocab
    assert config.vocab_size == len(vocab)
    assert all(not p.flags.writeable and p.dtype == np.float64 for p in shipped.params.values())
    for prompt in ("Attention ", "注意力"):
        ids = encode_prompt(prompt, vocab, config.context).ids
        text = vocab.decode(s.token for s in generate(shipped.params, config, ids, 20, temperature=0))
        assert len(text) == 20
    assert isinstance(prefill(shipped.params, ids, config)[1], KVCache)


def test_the_shipped_decoder_reads_bad_prompts():
    shipped = load_decoder()
    config, vocab = shipped.config, shipped.vocab
    text = ("注意力 attention " * 1000)[:10_000]
    long = encode_prompt(text, vocab, config.context)
    assert long.read == text[-config.context :]
    assert long.n_cut == 10_000 - config.context and len(long.ids) == config.context
    odd = encode_prompt("attention 🐍 ∮ 注意力", vocab, config.context)
    assert odd.unknown == ("🐍", "∮") and odd.read == "attention � � 注意力"
    empty = encode_prompt("", vocab, config.context)
    for prompt in (long, odd, empty):
        steps = list(generate(shipped.params, config, prompt.ids, 3, temperature=0))
        assert len(steps) == 3 and all(0 <= s.token < config.vocab_size for s in steps)
    assert vocab.id(UNKNOWN) == 0 and vocab.id("\n") != 0  # an empty prompt starts from a known character


def test_the_shipped_decoder_beats_the_bigram_baseline_on_held_out_text():
    """A fast check on the first 600 held-out characters; docs/decoder.md has the whole held-out text."""
    from attention_core import lm

    shipped = load_decoder()
    split = lm.split_corpus(lm.load_corpus())
    train_ids = shipped.vocab.encode(split.train)
    held = shipped.vocab.encode(split.held_out)[:600]
    bigram = lm.bigram_baseline(train_ids, held, len(shipped.vocab))
    model = lm.text_loss(shipped.params, held, shipped.config)
    assert model < bigram.loss(held) - 0.3, (model, bigram.loss(held))
    assert shipped.report["held_out_loss"] < shipped.report["bigram_held_out_loss"]


def test_visible_is_what_the_cache_keeps():
    np.testing.assert_array_equal(visible([5], np.arange(6), 2, 1)[0], [True, False, False, False, True, True])


# --- what the page shows --------------------------------------------------------------------------------


def test_draw_token_is_a_function_of_seed_and_index():
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    draws = [draw_token(probs, 7, i) for i in range(200)]
    assert draws == [draw_token(probs, 7, i) for i in range(200)]
    assert draws != [draw_token(probs, 8, i) for i in range(200)]
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / 200, probs, atol=0.1)
    assert draw_token(np.array([0.0, 1.0, 0.0]), 3, 5) == 1  # temperature 0: no draw at all
    with pytest.raises(ValueError, match="seed"):
        draw_token(probs, -1, 0)


@pytest.mark.parametrize("prompt", ["Attention ", "注意力" * 40])  # the second runs past the context
def test_writing_n_at_once_is_clicking_next_n_times(prompt):
    """The page's "write N" (the cache) and N clicks of "next token" (the whole text again) write the same."""
    shipped = load_decoder()
    ids = encode_prompt(prompt, shipped.vocab, shipped.config.context).ids
    steps = list(write(shipped.params, shipped.config, ids, 12, 0.9, 20, 4))
    text = prompt
    for i, s in enumerate(steps):
        nxt = next_token(text, 0.9, 20, 4, i)
        np.testing.assert_allclose(s.model_probs, nxt.model_probs, atol=1e-12)
        np.testing.assert_allclose(s.weights, nxt.weights, atol=1e-12)
        assert s.token == nxt.token
        text += shipped.vocab.chars[nxt.token]
    assert any(s.rebuilt for s in steps) == (len(ids) + len(steps) - 1 > shipped.config.context)
    later = list(write(shipped.params, shipped.config, ids, 3, 0.9, 20, 4, first_index=5))
    assert later[0].token == draw_token(later[0].probs, 4, 5)


def test_next_token_probabilities_and_top_k():
    nxt = next_token("The query ", 1.0, 5, 0, 0)
    assert nxt.kept == 5 and nxt.probs[nxt.token] > 0
    assert set(np.flatnonzero(nxt.probs)) == set(nxt.top[:5])
    assert np.all(np.diff(nxt.model_probs[nxt.top]) <= 0)
    np.testing.assert_allclose(nxt.probs.sum(), 1.0)
    np.testing.assert_allclose(nxt.weights.sum(axis=-1), 1.0)
    greedy = next_token("The query ", 0, None, 0, 0)
    assert greedy.token == int(np.argmax(greedy.model_probs)) == int(greedy.top[0])


def test_sight_of_a_map_worked_by_hand():
    w = np.array([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])
    s = sight(w)
    np.testing.assert_allclose(s.future, [0.5, 0.0, 0.0])
    np.testing.assert_array_equal(s.visible, [3, 3, 3])
    assert s.mean_future == pytest.approx(0.5 / 3) and s.max_future == 0.5
    np.testing.assert_array_equal(sight(w, decoder_mask(3)).visible, [1, 2, 3])


def test_the_decoder_puts_no_weight_after_any_position_and_the_encoder_does():
    view = read_text("Attention is all you need.")
    assert view.chars == tuple("Attention is all you need.")
    assert np.all(view.future_max == 0)
    np.testing.assert_array_equal(view.sight.visible, np.arange(1, 27))
    tokens = ("a", "b", "c")
    uniform = np.full((3, 3), 1 / 3)
    c = compare(tokens, uniform, "abc", 1, 2)
    assert c.encoder.mean_future == pytest.approx((2 / 3 + 1 / 3) / 3)
    assert c.decoder_sight.max_future == 0
    np.testing.assert_array_equal(c.decoder_map, read_text("abc").result.weights[1, 2])
    with pytest.raises(ValueError, match="layer"):
        compare(tokens, uniform, "abc", 5, 0)


def test_the_cache_report_counts_and_measures():
    shipped = load_decoder()
    config = shipped.config
    r = cache_report("Attention ", bytes_per_number=2, repeats=2)
    assert r.T == 10 and r.bytes_now == 2 * config.n_layers * 10 * config.d_model * 2
    assert r.growth[9] == r.bytes_now and len(r.growth) == config.context
    assert r.sizes[0].bytes == r.growth[-1]
    assert r.cost.cached.total < r.cost.full.total
    assert r.measured_step > 0 and r.measured_full > 0
    assert cache_report("a", 8, 1).T == 1  # one token: the step reads an empty cache
