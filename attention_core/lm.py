"""Teaching the decoder to write: the causal language-model task, its backward pass by hand, training.

The task: at every position t of a stretch of text, predict character t + 1 from characters 0..t. The
loss is the mean cross-entropy (in nats) over every position of a batch of N stretches of T characters:

    loss = − mean_{n,t} log softmax(logits[n, t])[target[n, t]],    target[n, t] = text[start_n + t + 1]

loss_and_grads() runs attention_core.decoder's model forward on the batch, keeping what the backward pass
needs, then the backward pass mirrors it line by line in reverse (d<name> is ∂loss/∂<name>). train()
is the project's training engine applied to it: Adam (attention_core.train's update, Kingma & Ba 2015) on
random stretches, with a warm-up and a cosine decay of the learning rate. The corpus, its split and the
bigram baseline the model must beat are here too; scripts/build_decoder.py puts it all together.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_core.attention import merge_heads, scaled_dot_product_attention, split_heads
from attention_core.decoder import (
    BLOCK_PARTS,
    UNKNOWN,
    CharVocabulary,
    DecoderConfig,
    decoder_mask,
    init_params,
    output_matrix,
    parameter_shapes,
    positions,
)
from attention_core.layers import _ERF_A1, _ERF_A2, _ERF_A3, _ERF_A4, _ERF_A5, _ERF_P, gelu
from attention_core.train import _adam
from attention_core.train_model import _keep_freed_memory

CORPUS_FILE = Path(__file__).resolve().parent / "data" / "decoder_corpus.txt"
HELD_OUT_EVERY = 10  # every 10th pair of paragraphs (a text and its translation) is held out for validation


# --- the corpus and its alphabet -----------------------------------------------------------------


@dataclass(frozen=True)
class CorpusSplit:
    """The corpus cut into whole paragraphs for training and for validation (never trained on)."""

    train: str  # pairs 0-8, 10-18, ... of paragraphs, each ending with "\n"
    held_out: str  # pairs 9, 19, 29, ...


def load_corpus(path: Path = CORPUS_FILE) -> str:
    """The frozen corpus text shipped with the core: one paragraph per line, lines 2k and 2k + 1 one text
    in English and in Chinese."""
    return path.read_text(encoding="utf-8")


def split_corpus(text: str, every: int = HELD_OUT_EVERY) -> CorpusSplit:
    """Hold out every `every`-th pair of lines (a text and its translation), so the held-out share has both
    languages in the corpus's proportion and no held-out text is seen in training in the other language."""
    if isinstance(every, bool) or not isinstance(every, int) or every < 2:
        raise ValueError(f"every must be a whole number, 2 or more; got {every!r}.")
    paragraphs = [line for line in text.split("\n") if line]
    held = [p for i, p in enumerate(paragraphs) if (i // 2) % every == every - 1]
    kept = [p for i, p in enumerate(paragraphs) if (i // 2) % every != every - 1]
    if not held or not kept:
        raise ValueError(f"the corpus has {len(paragraphs)} paragraphs: too few to hold one pair in {every} out.")
    return CorpusSplit(train="".join(p + "\n" for p in kept), held_out="".join(p + "\n" for p in held))


def build_vocabulary(text: str, min_count: int) -> CharVocabulary:
    """The characters seen at least min_count times in `text`, in code-point order, after the unknown symbol.
    Rarer ones are read as unknown: the model could learn little about a character it saw once or twice."""
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be a whole number, 1 or more; got {min_count!r}.")
    counts = Counter(text)
    counts.pop(UNKNOWN, None)
    return CharVocabulary((UNKNOWN, *sorted(c for c, n in counts.items() if n >= min_count)))


def random_batch(ids: np.ndarray, batch_size: int, T: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """N stretches of T characters from random places, and the same shifted by one: what each position predicts.
    [len] -> [N, T], [N, T]"""
    if len(ids) < T + 1:
        raise ValueError(f"the text has {len(ids)} characters: too few for stretches of T={T} and a target.")
    starts = rng.integers(0, len(ids) - T, size=batch_size)  # [N]
    rows = starts[:, None] + np.arange(T)  # [N, T]
    return ids[rows], ids[rows + 1]  # [N, T], [N, T]


# --- forward with what the backward pass needs -------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Norm:
    """A layer norm's input normalised, x̂ = (x − mean) / √(var + ε), and 1 / √(var + ε)."""

    x_hat: np.ndarray  # [N, T, d_model]
    inv_std: np.ndarray  # [N, T, 1]


@dataclass(frozen=True, eq=False)
class _Layer:
    ln1: _Norm
    a: np.ndarray  # LN₁(x), what Q, K and V are made from          [N, T, d_model]
    q: np.ndarray  # [N, h, T, d_head]
    k: np.ndarray  # [N, h, T, d_head]
    v: np.ndarray  # [N, h, T, d_head]
    weights: np.ndarray  # A = softmax(Q Kᵀ / √d_head), masked    [N, h, T, T]
    concat: np.ndarray  # the heads A V side by side             [N, T, d_model]
    ln2: _Norm
    f: np.ndarray  # LN₂(x), what the feed-forward network reads  [N, T, d_model]
    u: np.ndarray  # f W₁ + b₁                                    [N, T, d_ff]
    g: np.ndarray  # GELU(u)                                      [N, T, d_ff]


def _norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> tuple[np.ndarray, _Norm]:
    """attention_core.layers.layer_norm, keeping x̂ and 1/σ.  [..., d] -> [..., d]"""
    mean = x.mean(axis=-1, keepdims=True)  # [..., 1]
    centred = x - mean  # [..., d]
    inv_std = 1.0 / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps)  # [..., 1]
    x_hat = centred * inv_std  # [..., d]
    return x_hat * gamma + beta, _Norm(x_hat, inv_std)  # [..., d]


def _linear(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """x W + b over every position of the batch as one product.  [..., i] -> [..., j]"""
    out = x.reshape(-1, x.shape[-1]) @ w  # [N·T, j]
    if b is not None:
        out += b
    return out.reshape(*x.shape[:-1], w.shape[1])  # [..., j]


def _forward(params, inputs, config: DecoderConfig, mask):
    """The decoder on a batch.  [N, T] -> logits [N, T, V], y [N, T, d_model], layers, ln_f"""
    T, h = inputs.shape[1], config.n_heads
    x = params["token_embedding"][inputs] + positions(params, config, 0, T)  # [N, T, d_model]
    layers = []
    for layer in range(config.n_layers):
        p = {part: params[f"block{layer}.{part}"] for part in BLOCK_PARTS}
        a, ln1 = _norm(x, p["ln1.gamma"], p["ln1.beta"], config.eps)  # [N, T, d_model]
        q = split_heads(_linear(a, p["w_q"], p["b_q"]), h)  # [N, h, T, d_head]
        k = split_heads(_linear(a, p["w_k"], p["b_k"]), h)  # [N, h, T, d_head]
        v = split_heads(_linear(a, p["w_v"], p["b_v"]), h)  # [N, h, T, d_head]
        att = scaled_dot_product_attention(q, k, v, mask=mask)
        concat = merge_heads(att.output)  # [N, T, d_model]
        x = x + _linear(concat, p["w_o"], p["b_o"])  # [N, T, d_model]
        f, ln2 = _norm(x, p["ln2.gamma"], p["ln2.beta"], config.eps)  # [N, T, d_model]
        u = _linear(f, p["w_ff1"], p["b_ff1"])  # [N, T, d_ff]
        g = gelu(u)  # [N, T, d_ff]
        x = x + _linear(g, p["w_ff2"], p["b_ff2"])  # [N, T, d_model]
        layers.append(_Layer(ln1, a, q, k, v, att.weights, concat, ln2, f, u, g))
    y, ln_f = _norm(x, params["ln_f.gamma"], params["ln_f.beta"], config.eps)  # [N, T, d_model]
    return _linear(y, output_matrix(params, config)), y, layers, ln_f  # [N, T, V], ...


# --- loss and backward -------------------------------------------------------------------------------


def loss_and_grads(
    params: dict[str, np.ndarray], inputs, targets, config: DecoderConfig
) -> tuple[float, dict[str, np.ndarray]]:
    """Mean next-character cross-entropy of a batch (nats) and ∂loss/∂p for every parameter p.
    inputs, targets: [N, T] ids, targets[n, t] the character after inputs[n, t]."""
    inputs, targets = _check_batch(params, inputs, targets, config)
    return _loss_and_grads(params, inputs, targets, config)


def _loss_and_grads(params, inputs, targets, config: DecoderConfig) -> tuple[float, dict[str, np.ndarray]]:
    N, T = inputs.shape
    h, c = config.n_heads, 1.0 / np.sqrt(config.d_head)
    mask = decoder_mask(T)  # [T, T]
    logits, y, layers, ln_f = _forward(params, inputs, config, mask)
    V = logits.shape[-1]
    flat = logits.reshape(-1, V)  # [N·T, V]
    z = flat - flat.max(axis=-1, keepdims=True)  # [N·T, V]; shifted so exp() cannot overflow
    e = np.exp(z)  # [N·T, V]
    total = e.sum(axis=-1, keepdims=True)  # [N·T, 1]
    rows, target = np.arange(N * T), targets.reshape(-1)  # [N·T], [N·T]
    loss = -float(np.mean(z[rows, target] - np.log(total[:, 0])))

    grads: dict[str, np.ndarray] = {}
    # ∂loss/∂logits = (softmax(logits) − one_hot(target)) / (N·T)
    dlogits = e / total  # [N·T, V]
    dlogits[rows, target] -= 1.0
    dlogits /= N * T
    y_flat = y.reshape(-1, y.shape[-1])  # [N·T, d_model]
    w_out = output_matrix(params, config)  # [d_model, V]
    d_w_out = y_flat.T @ dlogits  # [d_model, V]
    dx = (dlogits @ w_out.T).reshape(y.shape)  # [N, T, d_model]; ∂loss/∂y
    dx = _norm_backward(dx, ln_f, params["ln_f.gamma"], grads, "ln_f")  # [N, T, d_model]

    for layer in reversed(range(config.n_layers)):
        cache, name = layers[layer], f"block{layer}"
        p = {part: params[f"{name}.{part}"] for part in BLOCK_PARTS}
        # x = x + GELU(f W₁ + b₁) W₂ + b₂
        grads[f"{name}.w_ff2"] = _outer(cache.g, dx)  # [d_ff, d_model]
        grads[f"{name}.b_ff2"] = dx.sum(axis=(0, 1))  # [d_model]
        du = _linear(dx, p["w_ff2"].T) * _gelu_grad(cache.u)  # [N, T, d_ff]
        grads[f"{name}.w_ff1"] = _outer(cache.f, du)  # [d_model, d_ff]
        grads[f"{name}.b_ff1"] = du.sum(axis=(0, 1))  # [d_ff]
        dx = dx + _norm_backward(_linear(du, p["w_ff1"].T), cache.ln2, p["ln2.gamma"], grads, f"{name}.ln2")
        # x = x + concat W_o + b_o, concat = the heads A V
        grads[f"{name}.w_o"] = _outer(cache.concat, dx)  # [d_model, d_model]
        grads[f"{name}.b_o"] = dx.sum(axis=(0, 1))  # [d_model]
        dheads = split_heads(_linear(dx, p["w_o"].T), h)  # [N, h, T, d_head]
        dweights = dheads @ cache.v.swapaxes(-1, -2)  # [N, h, T, T]
        dv = cache.weights.swapaxes(-1, -2) @ dheads  # [N, h, T, d_head]
        # A = softmax(S) row by row: dS = A ⊙ (dA − Σ_j dA_ij A_ij); a masked key has A = 0, so dS = 0 there
        dscores = cache.weights * (dweights - np.sum(dweights * cache.weights, axis=-1, keepdims=True))  # [N, h, T, T]
        dq = merge_heads(dscores @ cache.k * c)  # [N, T, d_model]; S = Q Kᵀ · c
        dk = merge_heads(dscores.swapaxes(-1, -2) @ cache.q * c)  # [N, T, d_model]
        dv = merge_heads(dv)  # [N, T, d_model]
        da = np.zeros_like(dx)  # [N, T, d_model]
        for part, d_part in (("q", dq), ("k", dk), ("v", dv)):
            grads[f"{name}.w_{part}"] = _outer(cache.a, d_part)  # [d_model, d_model]
            grads[f"{name}.b_{part}"] = d_part.sum(axis=(0, 1))  # [d_model]
            da += _linear(d_part, p[f"w_{part}"].T)  # [N, T, d_model]
        dx = dx + _norm_backward(da, cache.ln1, p["ln1.gamma"], grads, f"{name}.ln1")  # [N, T, d_model]

    # x⁰ = E[inputs] + P[:T]: a character's row collects every place it stands
    d_embedding = _rows_by_id(inputs, dx, config.vocab_size)  # [V, d_model]
    if config.tied:
        d_embedding += d_w_out.T  # W_out = Eᵀ: E also gets the output projection's gradient
    else:
        grads["w_out"] = d_w_out
    grads["token_embedding"] = d_embedding
    if config.positional == "learned":
        d_position = np.zeros_like(params["position_embedding"])  # [context, d_model]
        d_position[:T] = dx.sum(axis=0)  # [T, d_model]
        grads["position_embedding"] = d_position
    return loss, {name: grads[name] for name in parameter_shapes(config)}


def _norm_backward(dy: np.ndarray, norm: _Norm, gamma: np.ndarray, grads: dict, name: str) -> np.ndarray:
    """y = x̂ γ + β: fills grads[name.gamma], grads[name.beta] and returns ∂loss/∂x.  [N, T, d] -> [N, T, d]"""
    grads[f"{name}.gamma"] = np.sum(dy * norm.x_hat, axis=(0, 1))  # [d]
    grads[f"{name}.beta"] = dy.sum(axis=(0, 1))  # [d]
    dx_hat = dy * gamma  # [N, T, d]
    # x̂ = (x − mean) / σ: the mean and σ depend on every entry of the row, hence the two row means
    return norm.inv_std * (
        dx_hat - dx_hat.mean(axis=-1, keepdims=True) - norm.x_hat * (dx_hat * norm.x_hat).mean(axis=-1, keepdims=True)
    )  # [N, T, d]


def _gelu_grad(u: np.ndarray) -> np.ndarray:
    """d GELU(u) / du for the GELU the core computes, ½ u (1 + erf(u/√2)) with Abramowitz & Stegun's erf
    (attention_core.layers): the derivative of that formula itself, so finite differences agree to
    rounding, and the exact GELU's derivative (PyTorch's) to about 1e-7.  [...] -> [...]"""
    z = u / np.sqrt(2.0)  # [...]
    zc = np.minimum(np.abs(z), 6.0)  # [...]
    t = 1.0 / (1.0 + _ERF_P * zc)  # [...]
    poly = t * (_ERF_A1 + t * (_ERF_A2 + t * (_ERF_A3 + t * (_ERF_A4 + t * _ERF_A5))))  # [...]
    dpoly_dt = _ERF_A1 + t * (2 * _ERF_A2 + t * (3 * _ERF_A3 + t * (4 * _ERF_A4 + t * 5 * _ERF_A5)))  # [...]
    # erf(|z|) ≈ 1 − poly(t) e^(−z²), dt/d|z| = −p t²; beyond |z| = 6 the formula is capped, so flat
    derf = np.exp(-zc * zc) * (2 * zc * poly + _ERF_P * t * t * dpoly_dt) * (np.abs(z) < 6.0)  # [...]
    erf = np.sign(z) * (1.0 - poly * np.exp(-zc * zc))  # [...]
    return 0.5 * (1.0 + erf) + 0.5 * u * derf / np.sqrt(2.0)  # [...]


def _outer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ over every position of a_rᵀ b_r: the gradient of W in b = a W.  [..., i], [..., j] -> [i, j]"""
    return a.reshape(-1, a.shape[-1]).T @ b.reshape(-1, b.shape[-1])  # [i, j]


def _rows_by_id(ids: np.ndarray, rows: np.ndarray, n_ids: int) -> np.ndarray:
    """out[i] = Σ of rows[n, t] where ids[n, t] == i.  [N, T], [N, T, d], n_ids -> [n_ids, d]"""
    d = rows.shape[-1]
    slots = (ids[..., None] * d + np.arange(d)).reshape(-1)  # [N·T·d]
    return np.bincount(slots, weights=rows.reshape(-1), minlength=n_ids * d).reshape(n_ids, d)  # [n_ids, d]


# --- evaluation and the baseline ---------------------------------------------------------------------


def text_loss(params: dict[str, np.ndarray], ids, config: DecoderConfig, batch_size: int = 32) -> float:
    """Mean next-character loss (nats) over a whole text, read in consecutive stretches of `context`
    characters: each character is predicted from the ones before it in its stretch (0 to context − 1)."""
    ids = np.asarray(ids, dtype=np.int64)  # [len]
    T = config.context
    n_full = (len(ids) - 1) // T
    chunks = [(ids[i * T : (i + 1) * T], ids[i * T + 1 : (i + 1) * T + 1]) for i in range(n_full)]
    tail = len(ids) - 1 - n_full * T
    if tail:
        chunks.append((ids[n_full * T : n_full * T + tail], ids[n_full * T + 1 :]))
    if not chunks:
        raise ValueError("the text needs at least two characters: one to read and one to predict.")
    total, count = 0.0, 0
    full = [chunk for chunk in chunks if len(chunk[0]) == T]
    for start in range(0, len(full), batch_size):
        inputs = np.stack([x for x, _ in full[start : start + batch_size]])  # [n, T]
        targets = np.stack([y for _, y in full[start : start + batch_size]])  # [n, T]
        total += _sum_nll(params, inputs, targets, config)
        count += targets.size
    if tail:
        total += _sum_nll(params, chunks[-1][0][None], chunks[-1][1][None], config)
        count += tail
    return total / count


def _sum_nll(params, inputs, targets, config) -> float:
    logits = _forward(params, inputs, config, decoder_mask(inputs.shape[1]))[0]  # [n, T, V]
    z = logits - logits.max(axis=-1, keepdims=True)  # [n, T, V]
    log_probs = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))  # [n, T, V]
    return -float(np.take_along_axis(log_probs, targets[..., None], axis=-1).sum())


@dataclass(frozen=True)
class Bigram:
    """P(next | this) counted from a text, with add-α smoothing so an unseen pair is not impossible."""

    counts: np.ndarray  # counts[a, b]: how often b follows a                    [V, V]
    alpha: float  # added to every count

    @property
    def probs(self) -> np.ndarray:
        """Row a: the distribution of the character after a.  -> [V, V]"""
        smoothed = self.counts + self.alpha  # [V, V]
        return smoothed / smoothed.sum(axis=1, keepdims=True)  # [V, V]

    def loss(self, ids) -> float:
        """Mean next-character loss (nats) of the bigram on a text."""
        ids = np.asarray(ids, dtype=np.int64)  # [len]
        return -float(np.mean(np.log(self.probs[ids[:-1], ids[1:]])))


BIGRAM_ALPHAS = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)


def bigram_baseline(train_ids, held_out_ids, vocab_size: int) -> Bigram:
    """The bigram counted from the training text, with the α of BIGRAM_ALPHAS that gives the LOWEST loss
    on the held-out text: the baseline at its best, so beating it means something."""
    train_ids = np.asarray(train_ids, dtype=np.int64)  # [len]
    counts = np.zeros((vocab_size, vocab_size))  # [V, V]
    np.add.at(counts, (train_ids[:-1], train_ids[1:]), 1.0)
    return min((Bigram(counts, alpha) for alpha in BIGRAM_ALPHAS), key=lambda b: b.loss(held_out_ids))


# --- training -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainProgress:
    """What train() reports after every step, for a progress bar."""

    step: int  # steps done, 1 .. steps
    steps: int
    loss: float  # this step's batch loss
    learning_rate: float  # this step's
    seconds: float  # since train() started


@dataclass(frozen=True, eq=False)
class LMFit:
    """A training run of the decoder."""

    config: DecoderConfig
    params: dict[str, np.ndarray]
    losses: np.ndarray  # each step's batch loss, before its update     [steps]
    steps: int
    batch_size: int
    learning_rate: float  # the peak, after warm-up
    seed: int
    seconds: float


def learning_rate_at(step: int, steps: int, peak: float, warmup: int) -> float:
    """Linear warm-up to `peak` over `warmup` steps, then a cosine down to peak / 10 at the last step: Adam's
    first steps are large, and a falling rate at the end settles the weights (as GPT-2 and nanoGPT train)."""
    if step <= warmup:
        return peak * step / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + np.cos(np.pi * progress)))


def train(
    config: DecoderConfig,
    train_ids,
    steps: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    *,
    warmup: int = 100,
    clip: float = 1.0,
    on_progress: Callable[[TrainProgress], bool | None] | None = None,
) -> LMFit:
    """Train the decoder on random stretches of `context` characters of train_ids with Adam; deterministic
    for a seed (one np.random.default_rng(seed) draws the first weights, then every batch). Gradients whose
    overall length exceeds `clip` are scaled down to it, so one odd batch cannot throw the weights far.
    on_progress returning False stops the run early."""
    train_ids = np.asarray(train_ids, dtype=np.int64)  # [len]
    for name, value, low in (("steps", steps, 1), ("batch_size", batch_size, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be a whole number, {low} or more; got {value!r}.")
    if not (isinstance(learning_rate, (int, float)) and np.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be a positive number such as 3e-3; got {learning_rate!r}.")
    _keep_freed_memory()  # a step's arrays then reuse the memory of the last step's
    rng = np.random.default_rng(seed)
    params = init_params(config, rng)
    m = {name: np.zeros_like(p) for name, p in params.items()}  # Adam's running mean of the gradient
    v = {name: np.zeros_like(p) for name, p in params.items()}  # ... and of its square
    losses = np.zeros(steps)
    started = time.perf_counter()
    done = steps
    for k in range(1, steps + 1):
        inputs, targets = random_batch(train_ids, batch_size, config.context, rng)  # [N, T], [N, T]
        loss, grads = _loss_and_grads(params, inputs, targets, config)
        norm = np.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
        if norm > clip:
            grads = {name: g * (clip / norm) for name, g in grads.items()}
        lr = learning_rate_at(k, steps, learning_rate, warmup)
        params, m, v = _adam(params, grads, m, v, k, lr)
        losses[k - 1] = loss
        report = None if on_progress is None else TrainProgress(k, steps, loss, lr, time.perf_counter() - started)
        if report is not None and on_progress(report) is False:
            done = k
            break
    return LMFit(
        config=config,
        params=params,
        losses=losses[:done],
        steps=done,
        batch_size=batch_size,
        learning_rate=float(learning_rate),
        seed=int(seed),
        seconds=time.perf_counter() - started,
    )


# --- checks ---------------------------------------------------------------------------------------


def _check_batch(params, inputs, targets, config) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(config, DecoderConfig):
        raise ValueError(f"config must be a DecoderConfig(...); got {type(config).__name__}.")
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    for name, ids in (("inputs", inputs), ("targets", targets)):
        if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer) or ids.size == 0:
            raise ValueError(f"{name} must be whole-number ids shaped [N, T]; got shape {ids.shape} of {ids.dtype}.")
        if ids.min() < 0 or ids.max() >= config.vocab_size:
            raise ValueError(f"{name} must lie in 0..{config.vocab_size - 1}; got {ids.min()}..{ids.max()}.")
    if inputs.shape != targets.shape:
        raise ValueError(f"inputs {inputs.shape} and targets {targets.shape} must have the same shape.")
    if inputs.shape[1] > config.context:
        raise ValueError(f"stretches of T={inputs.shape[1]} are longer than the context of {config.context}.")
    for name, shape in parameter_shapes(config).items():
        if name not in params or np.shape(params[name]) != shape:
            raise ValueError(f"params[{name!r}] should have shape {shape}: make params with init_params(config, rng).")
    return inputs.astype(np.int64), targets.astype(np.int64)
