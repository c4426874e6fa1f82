"""attention_core.encoder_decoder and bottleneck: the example pairs and their alignment, cross-
attention's shapes and its Target = Source case, the hand-written training gradient (finite
differences, PyTorch), what the learned weights do, bad input, and the bottleneck curves' shape."""

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import scaled_dot_product_attention
from attention_core.bottleneck import bottleneck_curves, fixed_context, held_out_r2, per_step_contexts
from attention_core.encoder_decoder import (
    EXAMPLE_PAIRS,
    LEXICON,
    SOURCE_WORDS,
    TARGET_WORDS,
    cross_attention,
    encoder_decoder_view,
    example_pair,
    random_batch,
    sentence_pair,
    split_target,
    train_translation_attention,
    trained_model,
    translation_loss,
    typed_pair,
    word_vectors,
)

# --- sentences and alignment -------------------------------------------------------------------


def test_the_source_articles_pair():
    pair = example_pair("machine_learning")
    assert next(iter(EXAMPLE_PAIRS)) == "machine_learning"  # the articles' own example first
    assert pair.source == ("machine", "learning", "is", "fun")
    assert pair.target == ("机器", "学习", "很", "有趣")
    np.testing.assert_array_equal(pair.alignment, np.eye(4, dtype=bool))
    assert pair.known_source.all() and pair.known_target.all()


def test_alignments_by_hand():
    home = example_pair("read_at_home")  # I read books at home / 我 在 家 看 书
    assert [int(np.argmax(row)) for row in home.alignment] == [0, 3, 4, 1, 2]
    morning = example_pair("good_morning")  # good morning teacher / 老师 早上 好: reversed
    assert [int(np.argmax(row)) for row in morning.alignment] == [2, 1, 0]
    thanks = example_pair("thank_you")  # thank you very much / 非常 感谢: 4 words against 2
    assert thanks.alignment.shape == (2, 4)
    np.testing.assert_array_equal(thanks.alignment, [[0, 0, 1, 1], [1, 0, 0, 0]])  # 非常 = very, much
    assert not thanks.alignment[:, 1].any()  # "you" has no word in 非常感谢
    for example_id in EXAMPLE_PAIRS:
        pair = example_pair(example_id)
        assert pair.alignment.any(axis=1).all(), example_id  # every Chinese word of an example is aligned


def test_lexicon_is_a_function_of_the_english_word():
    assert len(set(SOURCE_WORDS)) == len(SOURCE_WORDS) == len(LEXICON)
    assert set(TARGET_WORDS) == {zh for _, zh in LEXICON}
    assert all(all("\u4e00" <= ch <= "\u9fff" for ch in zh) for zh in TARGET_WORDS)


def test_split_target():
    assert split_target("机器学习很有趣") == ["机器", "学习", "很", "有趣"]  # cut by the dictionary
    assert split_target("机器 学习 很 有趣") == ["机器", "学习", "很", "有趣"]
    assert split_target("机 器") == ["机", "器"]  # a space separates words even inside one
    assert split_target("我爱猫!") == ["我", "爱", "猫", "!"]
    assert split_target("你好吗") == ["你", "好", "吗"]  # 吗 is not in the dictionary: on its own
    assert split_target("") == [] and split_target(None) == []


def test_bad_input_gives_messages_or_sensible_results():
    with pytest.raises(ValueError, match="source \\(English\\) sentence has no words"):
        sentence_pair("", "机器")
    with pytest.raises(ValueError, match="target \\(Chinese\\) sentence has no words"):
        sentence_pair("machine", "   ")
    with pytest.raises(ValueError, match="at most 40, so shorten it"):
        sentence_pair("fun " * 1250, "有趣")  # 5,000 characters
    odd = sentence_pair("<b>machine</b> 🤖 learning", "机器 学习 😀")
    assert "🤖" in odd.source and "😀" in odd.target
    assert not odd.known_source[odd.source.index("🤖")] and not odd.known_target[-1]
    view = encoder_decoder_view(odd)  # unknown words still get a map, marked unknown
    assert view.cross.weights.shape == (3, len(odd.source))
    np.testing.assert_allclose(view.cross.weights.sum(axis=1), 1.0)
    one = encoder_decoder_view(sentence_pair("fun", "有趣"))  # T = 1 on both sides
    assert one.cross.weights.tolist() == [[1.0]] and one.predicted == ("有趣",)
    with pytest.raises(ValueError, match="no example"):
        example_pair("nope")


# --- cross-attention ----------------------------------------------------------------------------


def test_cross_attention_shapes_and_target_equals_source():
    rng = np.random.default_rng(0)
    T_target, T_source, d_model, d_k, d_v = 3, 5, 6, 4, 2
    xt, xs = rng.standard_normal((T_target, d_model)), rng.standard_normal((T_source, d_model))
    w_q, w_k, w_v = (
        rng.standard_normal((d_model, d_k)),
        rng.standard_normal((d_model, d_k)),
        rng.standard_normal((d_model, d_v)),
    )
    r = cross_attention(xt, xs, w_q, w_k, w_v)
    assert r.q.shape == (T_target, d_k) and r.k.shape == (T_source, d_k) and r.v.shape == (T_source, d_v)
    assert r.scores.shape == r.weights.shape == (T_target, T_source) and r.output.shape == (T_target, d_v)
    ref = scaled_dot_product_attention(xt @ w_q, xs @ w_k, xs @ w_v)
    np.testing.assert_allclose(r.weights, ref.weights)
    np.testing.assert_allclose(r.output, ref.output)
    # Target = Source is self-attention: a square map.
    assert cross_attention(xs, xs, w_q, w_k, w_v).weights.shape == (T_source, T_source)


def test_cross_attention_by_hand():
    # Two source words, one target word; W = identity (d = d_k = 2). q = (1, 0); keys (1, 0), (0, 1):
    # scores (1, 0), scaled by 1/√2; weight on word 1 = 1 / (1 + e^(-1/√2)).
    eye = np.eye(2)
    r = cross_attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], eye, eye, eye)
    p = 1 / (1 + np.exp(-1 / np.sqrt(2)))
    np.testing.assert_allclose(r.weights, [[p, 1 - p]])
    np.testing.assert_allclose(r.output, [[p, 1 - p]])


def test_cross_attention_refuses_nonsense():
    eye = np.eye(3)
    with pytest.raises(ValueError, match="same d_model"):
        cross_attention(np.ones((2, 3)), np.ones((2, 4)), eye, eye, eye)
    with pytest.raises(ValueError, match="no rows"):
        cross_attention(np.ones((0, 3)), np.ones((2, 3)), eye, eye, eye)
    with pytest.raises(ValueError, match="must match"):
        cross_attention(np.ones((2, 3)), np.ones((2, 3)), eye, np.ones((3, 2)), eye)


# --- the training gradient ------------------------------------------------------------------------


def _small_problem(seed=0):
    rng = np.random.default_rng(seed)
    d_model, d_k = 5, 3
    params = {
        "w_q": rng.standard_normal((d_model, d_k)),
        "w_k": rng.standard_normal((d_model, d_k)),
        "w_v": rng.standard_normal((d_model, d_model)),
        "w_out": rng.standard_normal((d_model, len(TARGET_WORDS))),
    }
    x_query, x_source, y = random_batch(rng, 3, 4, d_model)
    return params, x_query, x_source, y


def test_training_gradient_against_finite_differences():
    params, x_query, x_source, y = _small_problem()
    _, grads = translation_loss(**params, x_query=x_query, x_source=x_source, y=y)
    eps = 1e-6
    rng = np.random.default_rng(1)
    for name, w in params.items():
        for _ in range(6):  # a few random entries of each matrix
            idx = tuple(int(rng.integers(n)) for n in w.shape)
            up, down = {**params, name: w.copy()}, {**params, name: w.copy()}
            up[name][idx] += eps
            down[name][idx] -= eps
            numeric = (
                translation_loss(**up, x_query=x_query, x_source=x_source, y=y)[0]
                - translation_loss(**down, x_query=x_query, x_source=x_source, y=y)[0]
            ) / (2 * eps)
            assert grads[name][idx] == pytest.approx(numeric, abs=1e-7), (name, idx)


def test_training_gradient_against_torch():
    torch = pytest.importorskip("torch")
    params, x_query, x_source, y = _small_problem(3)
    loss, grads = translation_loss(**params, x_query=x_query, x_source=x_source, y=y)
    t = {name: torch.tensor(w, requires_grad=True) for name, w in params.items()}
    xq, xs = torch.from_numpy(x_query), torch.from_numpy(x_source)
    att = torch.softmax((xq @ t["w_q"]) @ (xs @ t["w_k"]).transpose(1, 2) / np.sqrt(params["w_q"].shape[1]), dim=-1)
    logits = (att @ (xs @ t["w_v"])) @ t["w_out"]
    ref = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), torch.from_numpy(y).reshape(-1))
    ref.backward()
    assert loss == pytest.approx(ref.item(), rel=1e-12)
    for name in params:
        np.testing.assert_allclose(grads[name], t[name].grad.numpy(), rtol=1e-9, atol=1e-12)


# --- what training learns -------------------------------------------------------------------------


def test_training_is_deterministic_and_learns():
    model = trained_model(0)
    assert model is trained_model(0)  # cached per process
    again = train_translation_attention(0)
    np.testing.assert_array_equal(model.w_q, again.w_q)
    np.testing.assert_array_equal(model.losses, again.losses)
    assert model.weights_kind == "learned"
    assert model.losses[0] > 2.5  # about log(24): a guess among 24 Chinese words
    assert model.losses[-20:].mean() < 0.1 and model.accuracy > 0.95
    with pytest.raises(ValueError):
        model.w_q[0, 0] = 1.0  # shared by every page: read-only


def test_learned_maps_follow_the_alignment():
    for example_id in EXAMPLE_PAIRS:
        view = encoder_decoder_view(example_pair(example_id))
        pair = view.pair
        assert view.weights_kind == "learned"
        assert view.cross.weights.shape == (len(pair.target), len(pair.source))
        assert view.self_source.weights.shape == (len(pair.source), len(pair.source))
        assert view.agreement == 1.0, example_id  # every Chinese word looks hardest at its English word
        assert view.predicted == pair.target, example_id  # and C_i reads out the right word
        # Target = Source: each English word finds itself, the alignment of a sentence with itself.
        assert (np.argmax(view.self_source.weights, axis=1) == np.arange(len(pair.source))).all(), example_id


def test_typed_pair_never_fails():
    article_source, article_target = EXAMPLE_PAIRS["machine_learning"]
    empty = typed_pair("", "  ")
    assert empty.source == tuple(article_source.split()) and empty.target == tuple(article_target.split())
    assert empty.replaced == ("source", "target")
    one_side = typed_pair("thank you", "")
    assert one_side.source == ("thank", "you") and one_side.replaced == ("target",)
    long = typed_pair("fun " * 1250, "有趣 " * 50)  # 5,000 characters
    assert len(long.source) == len(long.target) == 40
    assert (long.source_total, long.target_total) == (1250, 50)
    assert long.alignment.shape == (40, 40) and long.alignment.all()
    uneven = typed_pair("thank you very much", "非常 感谢")
    assert uneven.alignment.shape == (2, 4) and uneven.replaced == ()
    assert (uneven.source_total, uneven.target_total) == (4, 2)
    odd = typed_pair("🤖 <b>", "😀")
    assert not odd.known_source.any() and not odd.known_target.any() and not odd.alignment.any()
    with pytest.raises(ValueError, match="at most 40"):
        sentence_pair("fun " * 41, "有趣")  # without cut=True a long side is still refused
    assert sentence_pair("fun " * 41, "有趣", cut=True).source_total == 41


def test_word_vectors_ignore_case():
    np.testing.assert_array_equal(word_vectors(["I"], 4), word_vectors(["i"], 4))
    assert word_vectors(["机器", "machine"], 4).shape == (2, 4)


# --- the bottleneck -------------------------------------------------------------------------------


def test_bottleneck_curves_shape():
    c = bottleneck_curves(T_max=24, d=8, rng=np.random.default_rng(0))
    assert c.T_values.tolist() == list(range(1, 25))
    assert c.fixed.shape == c.per_step.shape == c.ceiling.shape == (24,)
    assert c.fixed_by_position.shape == c.per_step_by_position.shape == (24,)
    assert c.fixed[0] == pytest.approx(c.per_step[0])  # T = 1: C = h_1 = C_1
    assert c.fixed[0] > 0.95  # one word of 2 numbers fits easily into 8
    # C can never beat the linear ceiling d / (T·d_token) (a little slack for a finite test set)...
    assert np.all(c.fixed <= c.ceiling + 0.03)
    # ...and it keeps falling: under half of the source at T = 8, under 15 % at T = 24.
    assert c.fixed[7] < 0.5 and c.fixed[23] < 0.15
    assert np.all(np.diff(c.fixed) < 0.02)
    # C_i does not fall with T: about 0.88 from T = 4 to T = 24.
    assert np.all(c.per_step > 0.8) and abs(c.per_step[23] - c.per_step[3]) < 0.06
    # At T = 24 the fixed C keeps the last words and has forgotten the first.
    assert c.fixed_by_position[-1] > 0.7 and c.fixed_by_position[:8].max() < 0.05


def test_bottleneck_with_words_as_long_as_C():
    c = bottleneck_curves(T_max=8, d=8, d_token=8, rng=np.random.default_rng(1))
    T = c.T_values
    np.testing.assert_allclose(c.ceiling, 1 / T)
    assert np.all(c.fixed <= 1 / T + 0.03)  # falls from T = 2 on
    assert np.all(c.per_step[1:] > c.fixed[1:] + 0.1) and c.per_step[-1] > 4 * c.fixed[-1]


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 3))
@settings(max_examples=15, deadline=None)
def test_bottleneck_numbers_are_r2(T_max, d, d_token):
    c = bottleneck_curves(T_max=T_max, d=d, d_token=d_token, rng=np.random.default_rng(T_max), n_fit=60, n_test=60)
    for curve in (c.fixed, c.per_step, c.aligned_weight, c.fixed_by_position, c.per_step_by_position):
        assert np.all(np.isfinite(curve)) and np.all((curve >= 0) & (curve <= 1))
    np.testing.assert_allclose(c.ceiling, np.minimum(1, d / (c.T_values * d_token)))


def test_the_two_contexts_by_hand():
    h = np.arange(3 * 2, dtype=float).reshape(1, 3, 2) + np.array([[[0.0, 0.0], [0.0, 0.0], [10.0, 0.0]]])
    np.testing.assert_array_equal(fixed_context(h, 2), h[:, 1, :])  # C = h_T
    gap = 2.0
    contexts, aligned = per_step_contexts(h, 3, gap)
    alpha = np.exp(gap * np.eye(3)) / np.exp(gap * np.eye(3)).sum(axis=1, keepdims=True)  # softmax per row
    np.testing.assert_allclose(contexts[0], alpha @ h[0])  # C_i = Σ_j α_ij h_j
    assert aligned == pytest.approx(alpha[0, 0]) == pytest.approx(np.exp(2) / (np.exp(2) + 2))
    single, one = per_step_contexts(h, 1, gap)
    np.testing.assert_array_equal(single[0, 0], h[0, 0])
    assert one == 1.0


def test_held_out_r2_by_hand():
    x = np.arange(8.0)[:, None]  # [8, 1]
    perfect = held_out_r2(x, 3 * x - 1, n_fit=4)
    np.testing.assert_allclose(perfect, [1.0])
    noise = np.array([[1.0], [-1.0], [1.0], [-1.0], [2.0], [-2.0], [2.0], [-2.0]])  # no line through x fits it
    assert held_out_r2(x, noise, n_fit=4)[0] < 0.05


def test_bottleneck_extremes_and_speed():
    start = time.perf_counter()
    bottleneck_curves()  # the defaults, as a page first shows them
    assert time.perf_counter() - start < 1.0
    assert bottleneck_curves(T_max=1, d=1, d_token=1).fixed.shape == (1,)
    for kwargs, message in [
        ({"T_max": 0}, "at least 1"),
        ({"T_max": 512}, "at most 64"),
        ({"d": 0}, "at least 1"),
        ({"score_gap": -1}, "score_gap"),
        ({"n_fit": 5}, "too few sentences"),
    ]:
        with pytest.raises(ValueError, match=message):
            bottleneck_curves(**kwargs)


def test_a_pair_with_no_translated_word_says_so_instead_of_a_share():
    view = encoder_decoder_view(typed_pair("zebra quokka", "你好 世界"))  # neither side in the dictionary
    assert not view.any_aligned and np.isnan(view.agreement)
    assert encoder_decoder_view(example_pair("machine_learning")).any_aligned
