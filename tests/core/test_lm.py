"""attention_core.lm: the language-model loss and its hand-written backward pass against finite differences
and PyTorch autograd, the loss against decoder.forward, the corpus split, the alphabet, the bigram baseline,
the schedule and training (deterministic, falling loss), and the shipped files against the build script."""

import importlib.util
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from attention_core import lm
from attention_core.decoder import BLOCK_PARTS, UNKNOWN, DecoderConfig, forward, init_params, load_decoder, n_parameters
from attention_core.layers import _ERF_A1, _ERF_A2, _ERF_A3, _ERF_A4, _ERF_A5, _ERF_P, gelu

ROOT = Path(__file__).resolve().parents[2]
SMALL = DecoderConfig(vocab_size=11, context=6, n_layers=2, n_heads=2, d_model=8, d_ff=12)
CONFIGS = [
    SMALL,
    DecoderConfig(vocab_size=7, context=5, n_layers=1, n_heads=4, d_model=8, d_ff=6, tied=False),
    DecoderConfig(vocab_size=9, context=6, n_layers=2, n_heads=1, d_model=6, d_ff=10, positional="sinusoidal"),
]


def trained_like(config: DecoderConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """Weights well away from the initial N(0, 0.02²) (which makes attention almost uniform and every
    gradient tiny), so that a wrong term in the backward pass shows."""
    rng = np.random.default_rng(seed)
    return {name: p + rng.standard_normal(p.shape) * 0.4 for name, p in init_params(config, rng).items()}


def batch(config: DecoderConfig, N: int = 3, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, config.vocab_size, (N, config.context + 1))  # [N, T + 1]
    return ids[:, :-1], ids[:, 1:]  # [N, T], [N, T]


def reference_loss(params, inputs, targets, config) -> float:
    """The mean cross-entropy from decoder.forward (multi_head_attention, one sequence at a time): a forward
    pass that shares no code with lm's batched one."""
    nll = []
    for x, y in zip(inputs, targets, strict=True):
        probs = forward(params, x, config).probs  # [T, V]
        nll.extend(-np.log(probs[np.arange(len(y)), y]))
    return float(np.mean(nll))


@pytest.mark.parametrize("config", CONFIGS, ids=["tied", "untied", "sinusoidal"])
def test_the_loss_is_decoder_forwards_cross_entropy(config):
    params = trained_like(config)
    inputs, targets = batch(config)
    loss, _ = lm.loss_and_grads(params, inputs, targets, config)
    assert loss == pytest.approx(reference_loss(params, inputs, targets, config), abs=1e-12)
    # shorter stretches than the context are allowed too (positions 0..T-1 only)
    loss, _ = lm.loss_and_grads(params, inputs[:, :3], targets[:, :3], config)
    assert loss == pytest.approx(reference_loss(params, inputs[:, :3], targets[:, :3], config), abs=1e-12)


@pytest.mark.parametrize("config", CONFIGS, ids=["tied", "untied", "sinusoidal"])
def test_gradients_against_finite_differences(config):
    """Central differences on four entries of every parameter: their error is O(h²) ≈ 1e-10 here, so
    1e-7 leaves room for rounding and still catches a missing term (which is usually off by 1e-2 or more)."""
    params = trained_like(config)
    inputs, targets = batch(config)
    _, grads = lm.loss_and_grads(params, inputs, targets, config)
    assert set(grads) == set(params)
    rng = np.random.default_rng(3)
    h = 1e-5
    for name, p in params.items():
        assert grads[name].shape == p.shape
        for flat in rng.choice(p.size, size=min(4, p.size), replace=False):
            index = np.unravel_index(flat, p.shape)
            shifted = {}
            for sign in (1, -1):
                moved = p.copy()
                moved[index] += sign * h
                shifted[sign] = lm.loss_and_grads({**params, name: moved}, inputs, targets, config)[0]
            numeric = (shifted[1] - shifted[-1]) / (2 * h)
            assert grads[name][index] == pytest.approx(numeric, rel=1e-5, abs=1e-7), (name, index)


def test_an_unused_position_and_an_unseen_character_get_no_gradient():
    params = trained_like(SMALL)
    inputs, targets = batch(SMALL)
    inputs = np.where(inputs == 4, 5, inputs)[:, :4]  # character 4 never read; positions 4, 5 never used
    targets = targets[:, :4]
    _, grads = lm.loss_and_grads({**params}, inputs, targets, SMALL)
    np.testing.assert_array_equal(grads["position_embedding"][4:], 0.0)
    untied = replace(SMALL, tied=False)
    _, grads = lm.loss_and_grads(trained_like(untied), inputs, targets, untied)
    np.testing.assert_array_equal(grads["token_embedding"][4], 0.0)


def torch_erf_as_the_core(torch, z):
    """attention_core.layers.erf (Abramowitz & Stegun 7.1.26) in torch ops, so autograd differentiates the
    very function the core computes."""
    a = torch.abs(z)
    t = 1.0 / (1.0 + _ERF_P * a)
    poly = t * (_ERF_A1 + t * (_ERF_A2 + t * (_ERF_A3 + t * (_ERF_A4 + t * _ERF_A5))))
    return torch.sign(z) * (1.0 - poly * torch.exp(-a * a))


def torch_loss_and_grads(torch, params, inputs, targets, config, gelu_fn):
    """The same decoder written in torch's own parts (layer_norm, scaled_dot_product_attention with
    is_causal, cross_entropy, sinusoids from the formula), float64, differentiated by autograd."""
    F = torch.nn.functional
    p = {name: torch.tensor(a, dtype=torch.float64, requires_grad=True) for name, a in params.items()}
    N, T = inputs.shape
    d, h = config.d_model, config.n_heads
    x = p["token_embedding"][torch.from_numpy(inputs)]  # [N, T, d]
    if config.positional == "learned":
        x = x + p["position_embedding"][:T]
    else:
        pos = torch.arange(T, dtype=torch.float64)[:, None]
        freq = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float64) / d)
        pe = torch.zeros(T, d, dtype=torch.float64)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq[: d // 2])
        x = x + pe
    for layer in range(config.n_layers):
        b = {part: p[f"block{layer}.{part}"] for part in BLOCK_PARTS}
        a = F.layer_norm(x, (d,), b["ln1.gamma"], b["ln1.beta"], config.eps)
        q, k, v = ((a @ b[f"w_{n}"] + b[f"b_{n}"]).view(N, T, h, d // h).transpose(1, 2) for n in ("q", "k", "v"))
        heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # [N, h, T, d_head]
        x = x + heads.transpose(1, 2).reshape(N, T, d) @ b["w_o"] + b["b_o"]
        f = F.layer_norm(x, (d,), b["ln2.gamma"], b["ln2.beta"], config.eps)
        x = x + gelu_fn(f @ b["w_ff1"] + b["b_ff1"]) @ b["w_ff2"] + b["b_ff2"]
    y = F.layer_norm(x, (d,), p["ln_f.gamma"], p["ln_f.beta"], config.eps)
    w_out = p["token_embedding"].T if config.tied else p["w_out"]
    loss = F.cross_entropy((y @ w_out).reshape(N * T, -1), torch.from_numpy(targets).reshape(-1))
    loss.backward()
    return loss.item(), {name: t.grad.numpy() for name, t in p.items()}


@pytest.mark.parametrize("config", CONFIGS, ids=["tied", "untied", "sinusoidal"])
def test_gradients_against_torch_autograd(config):
    """With the core's own GELU written in torch, loss and every gradient agree to rounding (1e-10); with
    torch's exact GELU, to about 1e-6, the size of the core's erf approximation (below 1.5e-7) carried
    through the network."""
    torch = pytest.importorskip("torch")
    params = trained_like(config)
    inputs, targets = batch(config, N=4)
    loss, grads = lm.loss_and_grads(params, inputs, targets, config)

    def core_gelu(u):
        return 0.5 * u * (1.0 + torch_erf_as_the_core(torch, u / math.sqrt(2.0)))

    for gelu_fn, tolerance in ((core_gelu, 1e-10), (torch.nn.functional.gelu, 1e-6)):
        reference, expected = torch_loss_and_grads(torch, params, inputs, targets, config, gelu_fn)
        assert loss == pytest.approx(reference, abs=tolerance)
        for name in params:
            np.testing.assert_allclose(grads[name], expected[name], rtol=0, atol=tolerance, err_msg=name)


def test_the_gelu_gradient_is_the_derivative_of_the_cores_gelu():
    u = np.linspace(-10, 10, 2001)
    h = 1e-6
    numeric = (gelu(u + h) - gelu(u - h)) / (2 * h)
    np.testing.assert_allclose(lm._gelu_grad(u), numeric, atol=1e-8)


def test_bad_batches_raise_clear_errors():
    params = trained_like(SMALL)
    inputs, targets = batch(SMALL)
    with pytest.raises(ValueError, match="same shape"):
        lm.loss_and_grads(params, inputs, targets[:, :3], SMALL)
    with pytest.raises(ValueError, match="longer than the context"):
        lm.loss_and_grads(params, np.zeros((1, 7), int), np.zeros((1, 7), int), SMALL)
    with pytest.raises(ValueError, match=r"must lie in 0\.\.10"):
        lm.loss_and_grads(params, inputs + 11, targets, SMALL)
    with pytest.raises(ValueError, match=r"shaped \[N, T\]"):
        lm.loss_and_grads(params, inputs[0], targets[0], SMALL)
    with pytest.raises(ValueError, match="init_params"):
        lm.loss_and_grads({**params, "ln_f.gamma": np.ones(3)}, inputs, targets, SMALL)


# --- evaluation ---------------------------------------------------------------------------------------


def test_text_loss_reads_consecutive_stretches_and_the_tail():
    params = trained_like(SMALL)
    ids = np.random.default_rng(4).integers(0, SMALL.vocab_size, 2 * SMALL.context + 4)  # two stretches and a tail
    T = SMALL.context
    nll = []
    for start in range(0, len(ids) - 1, T):
        x, y = ids[start : start + T], ids[start + 1 : start + T + 1]
        x = x[: len(y)]
        nll.extend(-np.log(forward(params, x, SMALL).probs[np.arange(len(y)), y]))
    assert len(nll) == len(ids) - 1  # every character but the first is predicted once
    assert lm.text_loss(params, ids, SMALL, batch_size=1) == pytest.approx(np.mean(nll), abs=1e-12)
    assert lm.text_loss(params, ids, SMALL) == pytest.approx(np.mean(nll), abs=1e-12)
    with pytest.raises(ValueError, match="at least two characters"):
        lm.text_loss(params, ids[:1], SMALL)


def test_the_bigram_is_counted_and_smoothed_at_its_best():
    train = np.array([1, 2, 1, 2, 1, 3, 1, 2])
    held = np.array([1, 2, 1, 3])
    bigram = lm.bigram_baseline(train, held, 4)
    assert bigram.counts[1, 2] == 3 and bigram.counts[1, 3] == 1 and bigram.counts[2, 1] == 2
    assert bigram.counts.sum() == len(train) - 1
    np.testing.assert_allclose(bigram.probs.sum(axis=1), 1.0)
    assert all(bigram.loss(held) <= lm.Bigram(bigram.counts, alpha).loss(held) for alpha in lm.BIGRAM_ALPHAS)
    expected = -np.mean(np.log(bigram.probs[[1, 2, 1], [2, 1, 3]]))
    assert bigram.loss(held) == pytest.approx(expected)


# --- the corpus ---------------------------------------------------------------------------------------


def test_the_split_holds_out_whole_pairs_of_a_text_and_its_translation():
    lines = [f"{lang}{i}" for i in range(40) for lang in ("en", "zh")]
    split = lm.split_corpus("".join(line + "\n" for line in lines))
    held, kept = split.held_out.splitlines(), split.train.splitlines()
    assert held == ["en9", "zh9", "en19", "zh19", "en29", "zh29", "en39", "zh39"]
    assert sorted(held + kept) == sorted(lines)
    with pytest.raises(ValueError, match="too few"):
        lm.split_corpus("a\nb\n")
    with pytest.raises(ValueError, match="2 or more"):
        lm.split_corpus("a\n", every=1)


def test_the_shipped_corpus_alternates_english_and_chinese():
    split = lm.split_corpus(lm.load_corpus())
    for text in (split.train, split.held_out):
        lines = text.splitlines()
        assert len(lines) % 2 == 0
        han = [sum("\u4e00" <= c <= "\u9fff" for c in line) for line in lines]
        assert sum(han[1::2]) > 20 * sum(han[0::2])  # the odd lines are the Chinese ones
    assert len(split.held_out) < len(split.train) / 5


def test_the_alphabet_keeps_characters_seen_often_enough():
    vocab = lm.build_vocabulary("aaabbc" + UNKNOWN * 5, 2)
    assert vocab.chars == (UNKNOWN, "a", "b")
    assert vocab.encode("abc").tolist() == [1, 2, 0]
    with pytest.raises(ValueError, match="1 or more"):
        lm.build_vocabulary("abc", 0)


def test_random_batches_are_stretches_and_their_next_characters():
    ids = np.arange(100)
    inputs, targets = lm.random_batch(ids, 5, 8, np.random.default_rng(0))
    assert inputs.shape == targets.shape == (5, 8)
    np.testing.assert_array_equal(targets, inputs + 1)
    np.testing.assert_array_equal(np.diff(inputs, axis=1), 1)
    again = lm.random_batch(ids, 5, 8, np.random.default_rng(0))[0]
    np.testing.assert_array_equal(again, inputs)
    with pytest.raises(ValueError, match="too few"):
        lm.random_batch(ids[:8], 1, 8, np.random.default_rng(0))


# --- training -----------------------------------------------------------------------------------------


def test_the_learning_rate_warms_up_then_falls_to_a_tenth():
    rates = [lm.learning_rate_at(k, 100, 1.0, 10) for k in range(1, 101)]
    np.testing.assert_allclose(rates[:10], np.arange(1, 11) / 10)
    assert np.all(np.diff(rates[9:]) <= 0)
    assert rates[-1] == pytest.approx(0.1)


TINY = DecoderConfig(vocab_size=5, context=8, n_layers=1, n_heads=2, d_model=8, d_ff=16)
PATTERN = np.tile([1, 2, 3, 4, 2, 1], 30)  # after "1 2" comes 3 or, after "2 1", 2 again: needs two characters back


def test_training_is_deterministic_for_a_seed():
    a = lm.train(TINY, PATTERN, 20, 4, 1e-2, seed=7, warmup=5)
    b = lm.train(TINY, PATTERN, 20, 4, 1e-2, seed=7, warmup=5)
    c = lm.train(TINY, PATTERN, 20, 4, 1e-2, seed=8, warmup=5)
    for name in a.params:
        np.testing.assert_array_equal(a.params[name], b.params[name])  # bit for bit
    np.testing.assert_array_equal(a.losses, b.losses)
    assert not np.array_equal(a.losses, c.losses)


def test_training_learns_what_a_bigram_cannot():
    """In PATTERN, "2" is followed by 3 or by 1 depending on the character before it: a bigram is stuck at
    about log 2 there, the decoder reads two characters back and goes well below its loss."""
    fit = lm.train(TINY, PATTERN, 150, 8, 1e-2, seed=0, warmup=10)
    bigram = lm.bigram_baseline(PATTERN, PATTERN, TINY.vocab_size)
    loss = lm.text_loss(fit.params, PATTERN, TINY)
    assert fit.losses[-10:].mean() < fit.losses[:10].mean() / 3
    assert loss < bigram.loss(PATTERN) / 2, (loss, bigram.loss(PATTERN))
    assert fit.steps == 150 and fit.seconds > 0


def test_on_progress_reports_every_step_and_can_stop():
    seen = []
    fit = lm.train(TINY, PATTERN, 50, 2, 1e-2, seed=0, on_progress=lambda p: seen.append(p) or p.step < 6)
    assert [p.step for p in seen] == list(range(1, 7))
    assert fit.steps == 6 and len(fit.losses) == 6
    assert seen[-1].loss == fit.losses[-1] and seen[0].steps == 50


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"steps": 0}, "steps"), ({"batch_size": 1.5}, "batch_size"), ({"seed": -1}, "seed")]
    + [({"learning_rate": bad}, "learning_rate") for bad in (0, -1e-3, float("nan"))],
)
def test_bad_training_arguments_raise_clear_errors(kwargs, message):
    args = {"steps": 2, "batch_size": 2, "learning_rate": 1e-2, "seed": 0} | kwargs
    with pytest.raises(ValueError, match=message):
        lm.train(TINY, PATTERN, **args)


# --- the shipped files come from the build script --------------------------------------------------


def build_script():
    spec = importlib.util.spec_from_file_location("build_decoder", ROOT / "scripts" / "build_decoder.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_alphabet_and_config_are_what_the_build_script_makes_of_the_frozen_corpus():
    script, shipped = build_script(), load_decoder()
    split = lm.split_corpus(lm.load_corpus())
    vocab = lm.build_vocabulary(split.train, script.MIN_COUNT)
    assert shipped.vocab.chars == vocab.chars
    assert shipped.config == DecoderConfig(vocab_size=len(vocab), **script.SIZES)
    report = shipped.report
    assert report["seed"] == script.SEED and report["steps"] == script.STEPS
    assert report["train_characters"] == len(split.train)
    assert report["held_out_characters"] == len(split.held_out)
    assert report["n_parameters"] == n_parameters(shipped.config)
    assert report["held_out_loss"] < report["bigram_held_out_loss"] - 0.5  # what docs/decoder.md reports
