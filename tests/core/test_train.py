"""attention_core.train: the tasks, gradients against finite differences, the issue's accuracy
claims, positions and permutation, divergence, stopping, tagging typed sentences, properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core.text import split_tokens
from attention_core.train import (
    IGNORE,
    PAD,
    UNK,
    Config,
    attention_maps,
    compare_models,
    compare_positions,
    compare_scaling,
    fit,
    init_params,
    loss_and_grads,
    order_task,
    predict,
    saw_task,
)
from attention_core.train_model import logits
from attention_core.train_tasks import AMBIGUOUS_WORDS

ALL_CONFIGS = [
    *(
        Config(d_model=4, heads=2, layers=2, positional=positional, scale=scale)
        for positional in ("sinusoidal", "learned", "none")
        for scale in ("sqrt", "d", "none")
    ),
    Config(model="window", d_model=4, window=2),
    Config(model="window", d_model=3, window=0),
    Config(model="word", d_model=4),
]


def _id(config: Config) -> str:
    if config.model == "attention":
        return f"attention-{config.positional}-{config.scale}"
    return f"{config.model}-w{config.reach}"


@pytest.fixture(scope="module")
def saw():
    return saw_task()


@pytest.fixture(scope="module")
def small():
    return saw_task(seed=1, n_train=6, n_test=2)


def small_batch(task, config, seed=0):
    """Four sentences plus one padding column, and weights moved off their initial values (so
    that no gradient is zero by the accident of a zero bias)."""
    rng = np.random.default_rng(seed)
    tokens = np.pad(task.train_tokens[:4], ((0, 0), (0, 1)))  # [4, T + 1], PAD = 0
    tags = np.pad(task.train_tags[:4], ((0, 0), (0, 1)), constant_values=IGNORE)  # [4, T + 1]
    params = {name: p + 0.3 * rng.standard_normal(p.shape) for name, p in init_params(config, task, seed).items()}
    return params, tokens, tags


# --- the tasks ----------------------------------------------------------------------------------


def test_saw_task_has_the_contract_fields_and_is_read_only(saw):
    assert saw.vocab[PAD] == "<pad>" and saw.vocab[UNK] == "<unk>"
    N, T = saw.train_tokens.shape
    assert saw.train_tags.shape == (N, T) and saw.test_tags.shape == saw.test_tokens.shape == saw.ambiguous.shape
    for a in (saw.train_tokens, saw.train_tags, saw.test_tokens, saw.test_tags):
        assert np.issubdtype(a.dtype, np.integer) and not a.flags.writeable
    assert saw.ambiguous.dtype == bool
    # tag -1 exactly where there is no word
    np.testing.assert_array_equal(saw.train_tags == IGNORE, saw.train_tokens == PAD)
    np.testing.assert_array_equal(saw.test_tags == IGNORE, saw.test_tokens == PAD)
    assert saw.example == ("I", "saw", "a", "saw", ".")
    with pytest.raises(ValueError):
        saw.train_tokens[0, 0] = 5


def test_saw_task_is_balanced_so_one_word_at_a_time_gets_half_the_ambiguous_words(saw):
    for tokens, tags in ((saw.train_tokens, saw.train_tags), (saw.test_tokens, saw.test_tags)):
        for word in AMBIGUOUS_WORDS:
            here = tokens == saw.vocab.index(word)
            nouns = int(np.sum(tags[here] == saw.tags.index("NOUN")))
            verbs = int(np.sum(tags[here] == saw.tags.index("VERB")))
            assert nouns + verbs == here.sum() and abs(nouns - verbs) <= 1, word
    ambiguous_ids = [saw.vocab.index(w) for w in AMBIGUOUS_WORDS]
    np.testing.assert_array_equal(saw.ambiguous, np.isin(saw.test_tokens, ambiguous_ids))
    assert saw.ambiguous.sum() >= 300  # enough for a percentage that means something


def test_saw_task_tests_on_sentences_never_seen_in_training_and_follows_its_seed(saw):
    train = {tuple(row) for row in saw.train_tokens.tolist()}
    assert not train & {tuple(row) for row in saw.test_tokens.tolist()}
    again = saw_task(0)
    np.testing.assert_array_equal(again.train_tokens, saw.train_tokens)
    assert not np.array_equal(saw_task(1).train_tokens, saw.train_tokens)
    sentences = {" ".join(saw.decode(row)) for row in saw.train_tokens}
    assert any(s.startswith("I ") for s in sentences) and any(" and " in s for s in sentences)
    assert "I saw a saw ." not in sentences  # the sentence fit() watches is one it never trained on
    order = order_task()
    assert " ".join(order.example) not in {" ".join(order.decode(row)) for row in order.train_tokens}


def test_order_task_pairs_every_sentence_with_its_twin():
    task = order_task()
    subj, obj = task.tags.index("SUBJ"), task.tags.index("OBJ")
    for tokens, tags in ((task.train_tokens, task.train_tags), (task.test_tokens, task.test_tags)):
        for first in range(0, len(tokens), 2):
            a, b = tokens[first], tokens[first + 1]
            assert sorted(a.tolist()) == sorted(b.tolist())  # the same words...
            s, o = np.flatnonzero(tags[first] == subj)[0], np.flatnonzero(tags[first] == obj)[0]
            assert a[s] == b[o] and a[o] == b[s]  # ...the two nouns swapped
    np.testing.assert_array_equal(task.ambiguous, np.isin(task.test_tags, [subj, obj]))


# --- gradients ------------------------------------------------------------------------------------


def cross_entropy(params, tokens, tags, config) -> float:
    """The loss computed afresh from the logits: mean -log p(tag) over the words with a tag."""
    z = logits(params, tokens, config)  # [N, T, C]
    log_p = z - z.max(axis=-1, keepdims=True)
    log_p = log_p - np.log(np.exp(log_p).sum(axis=-1, keepdims=True))
    counted = tags != IGNORE
    return -float(np.mean(np.take_along_axis(log_p, np.where(counted, tags, 0)[..., None], -1)[..., 0][counted]))


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=_id)
def test_gradients_match_central_finite_differences(small, config):
    params, tokens, tags = small_batch(small, config)
    loss, grads = loss_and_grads(params, tokens, tags, config)
    assert loss == pytest.approx(cross_entropy(params, tokens, tags, config), rel=1e-12)
    assert set(grads) == set(params)
    h = 1e-6
    unused = {"embedding": set(range(len(small.vocab))) - set(np.unique(tokens).tolist())}
    unused["position"] = set(range(tokens.shape[1], small.max_len))
    for name, p in params.items():
        assert grads[name].shape == p.shape
        for index in np.ndindex(p.shape):
            if index[0] in unused.get(name, ()):
                assert grads[name][index] == 0.0  # a word or a position not in the batch gets nothing
                continue
            shifted = {k: v.copy() for k, v in params.items()}
            shifted[name][index] += h
            up = cross_entropy(shifted, tokens, tags, config)
            shifted[name][index] -= 2 * h
            down = cross_entropy(shifted, tokens, tags, config)
            numeric = (up - down) / (2 * h)
            assert grads[name][index] == pytest.approx(numeric, rel=1e-6, abs=1e-8), (name, index)


def test_padding_rows_of_the_embedding_never_move(small):
    for config in (Config(d_model=4), Config(model="window", d_model=4)):
        params, tokens, tags = small_batch(small, config)
        _, grads = loss_and_grads(params, tokens, tags, config)
        assert np.all(grads["embedding"][PAD] == 0) and np.all(grads["embedding"][UNK] == 0)


# --- the claims -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def models(saw):
    return compare_models(saw, steps=300, learning_rate=0.01, seed=0)


def test_attention_tags_the_ambiguous_words_and_one_word_at_a_time_cannot(models):
    attention, word = models.row("attention"), models.row("word")
    assert attention.config == Config()  # exactly fit(Config(), saw_task(), 300, 0.01, 0)
    assert word.config == Config(model="word")
    assert attention.ambiguous_accuracy >= 0.95
    assert word.ambiguous_accuracy <= 0.6
    assert [row.label for row in models.rows] == ["word", "window ±1", "attention"]
    # the window sees "saw" after "a"; it is blind to "I like the dog and book" (the clue is two words back)
    assert word.ambiguous_accuracy < models.row("window ±1").ambiguous_accuracy < attention.ambiguous_accuracy


def test_fit_result_holds_the_curves_and_the_frames(models, saw):
    result = models.row("attention").fit
    assert result.losses.shape == (300,) and result.steps_run == 300
    assert not result.stopped and not result.diverged and result.diverged_at is None and result.message == ""
    assert result.losses[-1] < result.losses[0] / 10
    assert result.eval_steps[0] == 0 and result.eval_steps[-1] == 300
    for curve in (result.train_accuracy_curve, result.test_accuracy_curve, result.ambiguous_accuracy_curve):
        assert curve.shape == result.eval_steps.shape and np.all((curve >= 0) & (curve <= 1))
    assert result.ambiguous_accuracy == result.ambiguous_accuracy_curve[-1]
    assert result.frame_words == saw.example
    assert result.attention_frames.shape == (len(result.frame_steps), 1, 2, 5, 5)
    np.testing.assert_allclose(result.attention_frames.sum(axis=-1), 1.0)

    # the rows of the two "saw"s sharpen: from nearly uniform (entropy near log 5) to peaked
    def entropy(rows):
        return float(-np.sum(rows * np.log(rows + 1e-300), axis=-1).mean())

    saws = [1, 3]
    assert entropy(result.attention_frames[0][..., saws, :]) > 0.9 * np.log(5)
    assert entropy(result.attention_frames[-1][..., saws, :]) < 0.5 * np.log(5)
    assert models.row("word").fit.attention_frames.shape == (len(result.frame_steps), 0, 0, 5, 5)


def test_fit_is_deterministic_for_a_seed(saw):
    a, b = (fit(Config(), saw, steps=15, learning_rate=0.01, seed=3) for _ in range(2))
    np.testing.assert_array_equal(a.losses, b.losses)
    np.testing.assert_array_equal(a.attention_frames, b.attention_frames)
    for name in a.params:
        np.testing.assert_array_equal(a.params[name], b.params[name])
    c = fit(Config(), saw, steps=15, learning_rate=0.01, seed=4)
    assert not np.array_equal(a.losses, c.losses)


# --- order needs positions ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def positions():
    return compare_positions(order_task(), steps=300, learning_rate=0.01, seed=0)


def test_without_positions_attention_cannot_tell_who_did_it_and_with_them_it_learns(positions):
    assert positions.row("none").ambiguous_accuracy <= 0.5  # at most half: see the next test
    assert positions.row("sinusoidal").ambiguous_accuracy >= 0.95
    assert positions.row("learned").ambiguous_accuracy >= 0.95


def test_without_positions_the_two_twins_give_a_noun_the_same_tag(positions):
    # Permutation equivariance: with no positional encoding, a word's output depends on the word
    # and on the set of words around it, not on their order. Twins are the same set of words, so
    # "dog" gets the same logits in both, though its tag is SUBJ in one and OBJ in the other.
    task, row = order_task(), positions.row("none")
    out = logits(row.fit.params, task.test_tokens, row.config)  # [N, T, C]
    for first in range(0, len(task.test_tokens), 2):
        a, b = task.test_tokens[first], task.test_tokens[first + 1]
        for t in np.flatnonzero(task.ambiguous[first]):
            twin_t = int(np.flatnonzero(b == a[t])[0])
            np.testing.assert_allclose(out[first, t], out[first + 1, twin_t], atol=1e-9)


# --- divergence and stopping ----------------------------------------------------------------------


def _all_finite(result) -> bool:
    numbers = [result.final_loss, result.train_accuracy, result.test_accuracy, result.ambiguous_accuracy]
    arrays = [result.losses, result.train_accuracy_curve, result.test_accuracy_curve]
    arrays += [result.ambiguous_accuracy_curve, result.attention_frames, *result.params.values()]
    return bool(np.all(np.isfinite(numbers)) and all(np.all(np.isfinite(a)) for a in arrays))


def test_an_absurd_learning_rate_is_caught_and_explained(saw):
    result = fit(Config(), saw, steps=300, learning_rate=1000.0, seed=0)
    assert result.diverged and result.divergence == "loss_exploded"
    assert 1 <= result.diverged_at <= 10
    assert result.steps_run < result.diverged_at and len(result.losses) == result.steps_run
    assert _all_finite(result)
    assert "learning rate 1000" in result.message and "smaller" in result.message
    huge = fit(Config(), saw, steps=50, learning_rate=1e30, seed=0)
    assert huge.diverged and huge.divergence == "weights_exploded" and huge.diverged_at == 1
    assert huge.steps_run == 0 and huge.losses.shape == (0,) and huge.eval_steps.tolist() == [0]
    assert _all_finite(huge)


def test_sizes_at_their_extremes_train_and_report_finite_numbers():
    task = saw_task(n_train=20, n_test=10)
    for config in (
        Config(d_model=1, heads=1),
        Config(d_model=256, heads=64, layers=4, positional="learned"),
        Config(d_model=256, heads=1, scale="none"),
        Config(model="window", d_model=1, window=8),  # a window wider than any sentence
    ):
        result = fit(config, task, steps=3, learning_rate=0.01, seed=0)
        assert result.steps_run == 3 and _all_finite(result), config


def test_a_large_but_sane_learning_rate_is_not_called_diverged(saw):
    result = fit(Config(), saw, steps=60, learning_rate=0.1, seed=0)
    assert not result.diverged and result.final_loss < result.losses[0]


def test_on_progress_reports_every_step_and_can_stop_the_run(saw):
    seen = []

    def on_progress(p):
        seen.append((p.step, p.loss, len(p.losses), p.fraction))
        assert not p.losses.flags.writeable
        kept.append(p.params)
        return p.step < 17

    kept = []

    result = fit(Config(), saw, steps=100, learning_rate=0.01, seed=0, on_progress=on_progress)
    assert [s[0] for s in seen] == list(range(1, 18))
    assert all(n == step for step, _, n, _ in seen)
    assert seen[-1][3] == pytest.approx(0.17)
    assert result.stopped and not result.diverged and result.steps_run == 17
    assert len(result.losses) == 17 and result.eval_steps[-1] == 17 and result.frame_steps[-1] == 17
    assert "Stopped after 17 of 100 steps" in result.message
    assert kept[-1] is result.params and kept[-2] is not kept[-1]  # each step's weights are its own


def test_fit_records_the_attention_of_any_sentence_it_is_given(saw):
    result = fit(Config(), saw, steps=4, learning_rate=0.01, seed=0, n_frames=3, frame_words=["we", "watch", "锯子"])
    assert result.frame_words == ("we", "watch", "锯子") and result.frame_steps.tolist() == [0, 2, 4]
    assert result.attention_frames.shape == (3, 1, 2, 3, 3)
    with pytest.raises(ValueError, match="at least one word"):
        fit(Config(), saw, steps=4, learning_rate=0.01, seed=0, frame_words=[])


def test_a_comparison_passes_progress_on_with_its_run_and_stops_with_it(saw):
    runs = []
    result = compare_models(saw, steps=5, on_progress=lambda p: runs.append((p.run, p.label)) or p.run < 1)
    assert runs[0] == (0, "word") and runs[-1] == (1, "window ±1")
    assert len(result.rows) == 2  # stopped in the second run: the third was not started


# --- tagging a typed sentence -------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained(models):
    return models.row("attention").fit


def test_predict_tags_a_typed_sentence(trained, saw):
    p = predict(trained.params, trained.config, saw, ["i", "SAW", "a", "saw", "."])
    assert p.tags == ("PRON", "VERB", "DET", "NOUN", "PUNCT")
    assert p.known.all() and p.unknown == () and not p.truncated
    np.testing.assert_allclose(p.probabilities.sum(axis=-1), 1.0)
    assert np.all(p.confidence > 0.5)
    assert p.attention.shape == (1, 2, 5, 5)
    np.testing.assert_allclose(p.attention.sum(axis=-1), 1.0)


def test_predict_flags_unknown_words_instead_of_guessing(trained, saw):
    words = ["they", "saw", "锯子", "the", "🪚", "xyzzy", "saw"]
    p = predict(trained.params, trained.config, saw, words)
    np.testing.assert_array_equal(p.known, [True, True, False, True, False, False, True])
    assert p.unknown == ("锯子", "🪚", "xyzzy")
    assert p.tags[2] is None and p.tags[4] is None and p.tags[5] is None
    assert np.all(p.probabilities[~p.known] == 0) and np.all(p.confidence[~p.known] == 0)
    assert p.tags[0] == "PRON" and p.tags[1] == "VERB"


def test_predict_empty_and_very_long_input(trained, saw):
    empty = predict(trained.params, trained.config, saw, [])
    assert empty.words == () and empty.tags == () and empty.probabilities.shape == (0, len(saw.tags))
    assert empty.attention.shape == (1, 2, 0, 0) and not empty.truncated
    text = ("they saw the old saw and I saw a saw . " * 200)[:5000]  # a 5,000-character text
    long_words = split_tokens(text)
    p = predict(trained.params, trained.config, saw, long_words)
    assert len(text) == 5000 and p.n_words_given == len(long_words) > 1000
    assert p.truncated and len(p.words) == p.max_words == saw.max_len
    assert p.attention.shape == (1, 2, saw.max_len, saw.max_len)
    one_word = predict(trained.params, trained.config, saw, ["x" * 5000])
    assert one_word.unknown == ("x" * 5000,) and one_word.tags == (None,)
    for model in ("word", "window"):  # the models without attention maps say so with empty maps
        config = Config(model=model)
        q = predict(init_params(config, saw, 0), config, saw, ["I", "saw"])
        assert q.attention.shape == (0, 0, 2, 2) and len(q.tags) == 2


@pytest.mark.parametrize(
    ("words", "message"),
    [("I saw a saw", "list of words"), (["I", " "], "non-blank"), (["I", 3], "non-blank"), (None, "list of words")],
)
def test_predict_rejects_what_is_not_a_list_of_words(trained, saw, words, message):
    with pytest.raises(ValueError, match=message):
        predict(trained.params, trained.config, saw, words)


# --- comparisons ----------------------------------------------------------------------------------


def test_scaling_comparison_trains_one_head_of_d_k_64_three_ways(saw):
    result = compare_scaling(saw, steps=1)
    assert [row.label for row in result.rows] == ["1/√d_k", "1/d_k", "none"]
    assert [row.config.scale for row in result.rows] == ["sqrt", "d", "none"]
    assert all(row.config.d_k == 64 and row.config.heads == 1 for row in result.rows)

    # Article 003's argument, at step 0: unscaled scores spread by √64 = 8 times more, so the
    # untrained model's attention is already far from uniform (saturated); 1/d_k squeezes the
    # scores 8 times, so its attention is flatter than 1/√d_k's. (The learning curves this
    # leads to are measured in docs/training.md.)
    def entropy(row):  # mean entropy of the rows of "I saw a saw ."'s maps; uniform is log 5
        frames = row.fit.attention_frames[0]
        return float(-np.sum(frames * np.log(frames + 1e-300), axis=-1).mean())

    sqrt, d, none = (entropy(result.row(label)) for label in ("1/√d_k", "1/d_k", "none"))
    assert none < 0.8 * sqrt < sqrt < d <= np.log(5)
    with pytest.raises(ValueError, match="no row"):
        result.row("1/d")


# --- messages a student can act on ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Config(d_model=10, heads=4), r"d_model=10 is not divisible by heads=4.*\[1, 2, 5, 10\]"),
        (lambda: Config(model="rnn"), "model must be one of 'word', 'window', 'attention'"),
        (lambda: Config(positional="rotary"), "positional must be one of"),
        (lambda: Config(scale="sqrt(d)"), "scale must be one of"),
        (lambda: Config(d_model=0), "d_model=0 is out of range: choose d_model from 1 to 256"),
        (lambda: Config(d_model=1000), "from 1 to 256"),
        (lambda: Config(heads=2.0), "heads must be a whole number"),
        (lambda: Config(window=9, model="window"), "window=9 is out of range"),
        (lambda: Config(layers=0), "layers=0 is out of range"),
    ],
)
def test_bad_configs_say_what_to_choose(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_sizes_that_only_attention_uses_do_not_stop_the_other_models():
    assert Config(model="word", d_model=10, heads=4).reach == 0  # heads is the attention model's
    assert Config(model="window", d_model=10, heads=4, window=3).reach == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"learning_rate": 0.0}, "learning_rate must be positive"),
        ({"learning_rate": -0.01}, "learning_rate must be positive"),
        ({"learning_rate": float("nan")}, "finite"),
        ({"learning_rate": float("inf")}, "finite"),
        ({"learning_rate": "0.01"}, "must be a number"),
        ({"steps": 0}, "steps=0 is out of range: choose steps from 1 to 10000"),
        ({"steps": 1_000_000}, "out of range"),
        ({"steps": 2.5}, "steps must be a whole number"),
        ({"seed": -1}, "seed must be a whole number, 0 or more"),
    ],
)
def test_bad_fit_arguments_say_what_is_wrong(saw, kwargs, message):
    args = {"steps": 10, "learning_rate": 0.01, "seed": 0} | kwargs
    with pytest.raises(ValueError, match=message):
        fit(Config(), saw, **args)


def test_bad_batches_say_what_is_wrong(small):
    config = Config(d_model=4)
    params, tokens, tags = small_batch(small, config)
    with pytest.raises(ValueError, match=r"\[N, T\]"):
        loss_and_grads(params, tokens[0], tags[0], config)
    with pytest.raises(ValueError, match="word ids must lie in"):
        loss_and_grads(params, tokens + 1000, tags, config)
    with pytest.raises(ValueError, match=r"params lack w_q\.0"):
        loss_and_grads({k: v for k, v in params.items() if k != "w_q.0"}, tokens, tags, config)
    with pytest.raises(ValueError, match="needs"):
        loss_and_grads(params, tokens, tags, Config(d_model=8))
    learned = Config(d_model=4, positional="learned")
    lp, _, _ = small_batch(small, learned)
    with pytest.raises(ValueError, match="longer than the 24 learned positions"):
        loss_and_grads(lp, np.ones((1, 30), dtype=int), np.zeros((1, 30), dtype=int), learned)


# --- properties -----------------------------------------------------------------------------------


@st.composite
def batches(draw):
    """Random sentences of ids 2..V-1 with random lengths, padded; random configs."""
    N, T = draw(st.integers(1, 4)), draw(st.integers(1, 7))
    lengths = draw(st.lists(st.integers(1, T), min_size=N, max_size=N))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    tokens = rng.integers(2, 20, size=(N, T))
    tokens[np.arange(T)[None, :] >= np.array(lengths)[:, None]] = PAD
    tags = np.where(tokens == PAD, IGNORE, rng.integers(0, 9, size=(N, T)))
    config = Config(
        d_model=draw(st.sampled_from([4, 8])),
        heads=draw(st.sampled_from([1, 2, 4])),
        layers=draw(st.integers(1, 2)),
        positional=draw(st.sampled_from(["sinusoidal", "learned", "none"])),
        scale=draw(st.sampled_from(["sqrt", "d", "none"])),
    )
    return tokens, tags, config, seed


@given(batches())
@settings(max_examples=40, deadline=None)
def test_attention_rows_sum_to_one_over_the_words_and_never_touch_padding(small, batch):
    tokens, _, config, seed = batch
    maps = attention_maps(init_params(config, small, seed), tokens, config)  # [N, layers, h, T, T]
    assert maps.shape == (*tokens.shape[:1], config.layers, config.heads, tokens.shape[1], tokens.shape[1])
    is_pad = (tokens == PAD)[:, None, None, None, :]  # [N, 1, 1, 1, T] over the keys
    assert np.all(np.where(is_pad, maps, 0.0) == 0.0)
    np.testing.assert_allclose(maps.sum(axis=-1), 1.0, rtol=1e-12)


@given(batches(), st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_padding_never_changes_the_loss_or_the_gradients(small, batch, extra):
    tokens, tags, config, seed = batch
    params = init_params(config, small, seed)
    loss, grads = loss_and_grads(params, tokens, tags, config)
    # more padding at the end of every sentence, and one more sentence that is all padding
    longer = np.pad(tokens, ((0, 1), (0, extra)))
    longer_tags = np.pad(tags, ((0, 1), (0, extra)), constant_values=IGNORE)
    loss2, grads2 = loss_and_grads(params, longer, longer_tags, config)
    assert loss2 == pytest.approx(loss, rel=1e-12)
    for name in grads:
        np.testing.assert_allclose(grads2[name], grads[name], rtol=1e-9, atol=1e-15)
