"""The three taggers of the live-training page, and their gradients, forward and backward by hand.

A batch is N sentences of T word ids (PAD after a sentence ends). Row-vector convention, as in
the rest of the core: x: [N, T, d_model], a projection is x @ W.

"word"       logits_t = x_t W_tag + b_tag: one word at a time, nothing else (no position either).
"window"     logits_t = [x_(t-w); …; x_t; …; x_(t+w)] W_tag + b_tag: the word and its neighbours
             within ±w, side by side in one long vector, as article 001 draws it (a sentence's
             edges are zero vectors). This is a convolution: a neighbour's place in the long
             vector says where it stands, so no positional encoding is needed or used.
"attention"  x⁰ = E[tokens] + P (P: sinusoidal, learned, or none), then `layers` blocks of
             xˡ⁺¹ = xˡ + MultiHead(xˡ) W_o, with MultiHead = h heads of softmax(Q Kᵀ · c) V on
             Q = xˡ W_q, K = xˡ W_k, V = xˡ W_v split into h blocks of d_k = d_model / h columns,
             c = 1/√d_k ("sqrt"), 1/d_k ("d", article 003's slip) or 1 ("none"); padding keys
             are masked. Then logits = x^L W_tag + b_tag.

No biases inside attention, no layer norm, no feed-forward layer: the smallest model that shows
the point. The backward pass mirrors the forward line by line, in reverse; each gradient is
named d<name> for ∂loss/∂<name>.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import merge_heads, softmax, split_heads
from attention_core.positional import sinusoidal_positional_encoding
from attention_core.train_tasks import IGNORE, MAX_LEN, PAD, UNK, Task

MODELS = ("word", "window", "attention")
POSITIONALS = ("sinusoidal", "learned", "none")
SCALES = ("sqrt", "d", "none")
LIMITS = {"d_model": (1, 256), "heads": (1, 64), "layers": (1, 4), "window": (0, 8)}


@dataclass(frozen=True)
class Config:
    """Which tagger, and how big. heads, layers, positional and scale shape the "attention" model
    only; window shapes the "window" model only; the others ignore them (so a page can keep
    every control's value while the model choice changes). Checked when made: a bad value
    raises a ValueError saying what to choose instead."""

    model: str = "attention"  # "word" | "window" | "attention"
    d_model: int = 16  # length of every word vector
    heads: int = 2  # h; each head gets d_k = d_model / h columns
    layers: int = 1  # attention blocks, each with a residual connection
    window: int = 1  # w: the window model sees words t-w .. t+w
    positional: str = "sinusoidal"  # "sinusoidal" | "learned" | "none"
    scale: str = "sqrt"  # scores times 1/√d_k ("sqrt"), 1/d_k ("d") or 1 ("none")

    def __post_init__(self):
        _choice(self.model, MODELS, "model")
        _choice(self.positional, POSITIONALS, "positional")
        _choice(self.scale, SCALES, "scale")
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{name} must be a whole number; got {value!r}.")
            if not low <= value <= high:
                raise ValueError(f"{name}={value} is out of range: choose {name} from {low} to {high}.")
        if self.model == "attention" and self.d_model % self.heads:
            divisors = [h for h in range(1, self.d_model + 1) if self.d_model % h == 0 and h <= LIMITS["heads"][1]]
            raise ValueError(
                f"d_model={self.d_model} is not divisible by heads={self.heads}: each head takes an equal "
                f"share of the columns. Choose heads from {divisors}."
            )

    @property
    def d_k(self) -> int:
        """Columns per head, d_model / h."""
        return self.d_model // self.heads

    @property
    def scale_factor(self) -> float:
        """c, the number the scores Q Kᵀ are multiplied by."""
        return {"sqrt": 1.0 / np.sqrt(self.d_k), "d": 1.0 / self.d_k, "none": 1.0}[self.scale]

    @property
    def reach(self) -> int:
        """How many neighbours on each side a word sees before attention: w for "window", 0 for "word"."""
        return self.window if self.model == "window" else 0


def init_params(config: Config, task: Task, seed: int) -> dict[str, np.ndarray]:
    """Fresh weights for `config` on `task`'s vocabulary and tags, from np.random.default_rng(seed).

    embedding [V, d_model] ~ N(0, 0.1²): small next to the sinusoids (entries up to 1), so that at
    first attention is steered by position. It then learns "look at my neighbour", which
    carries over to sentences it never saw, before it can learn word pairs by heart (on the
    ambiguous test words of saw_task seeds 0-7: 85-97% with N(0, 1), 98-100% with N(0, 0.1²)). The
    rows of <pad> and <unk> are zero and stay zero (no training word is either). Every weight matrix
    W: [n_in, n_out] ~ N(0, 1/n_in), so x @ W starts with entries of about the size of x's.
    "learned" positions: position [max_len, d_model] ~ N(0, 1/2), the sinusoids' variance.
    """
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config(...); got {type(config).__name__}.")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number, 0 or more; got {seed!r}.")
    rng = np.random.default_rng(seed)
    V, C, d = len(task.vocab), len(task.tags), config.d_model
    params = {"embedding": rng.standard_normal((V, d)) * 0.1}  # [V, d_model]
    params["embedding"][[PAD, UNK]] = 0.0
    if config.model == "attention":
        if config.positional == "learned":
            params["position"] = rng.standard_normal((task.max_len, d)) * np.sqrt(0.5)  # [max_len, d_model]
        for layer in range(config.layers):
            for name in ("w_q", "w_k", "w_v", "w_o"):
                params[f"{name}.{layer}"] = rng.standard_normal((d, d)) / np.sqrt(d)  # [d_model, d_model]
    n_in = (2 * config.reach + 1) * d  # the tagger reads one word, or a window of 2w + 1
    params["w_tag"] = rng.standard_normal((n_in, C)) / np.sqrt(n_in)  # [n_in, C]
    params["b_tag"] = np.zeros(C)  # [C]
    return params


def loss_and_grads(
    params: dict[str, np.ndarray], tokens: np.ndarray, tags: np.ndarray, config: Config
) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over the words that have a tag, and ∂loss/∂p for every parameter p.

    tokens: [N, T] word ids (PAD = 0 after a sentence ends); tags: [N, T] tag ids, IGNORE (-1)
    where there is nothing to predict. Returns (loss, grads), grads[name].shape == params[name].shape.
    """
    tokens, tags = _check_batch(params, tokens, tags, config)
    loss, grads, _ = _loss_and_grads(params, tokens, tags, config)
    return loss, grads


def attention_maps(params: dict[str, np.ndarray], tokens: np.ndarray, config: Config) -> np.ndarray:
    """The attention weights A of every layer and head.  [N, T] -> [N, layers, h, T, T]

    Row i of a map is how query word i shares its attention over the key words; each row sums
    to 1 over the sentence's words and is 0 on padding. Models without attention give
    [N, 0, 0, T, T]."""
    tokens, _ = _check_batch(params, tokens, None, config)
    N, T = tokens.shape
    if config.model != "attention":
        return np.zeros((N, 0, 0, T, T))  # [N, 0, 0, T, T]
    cache = _attention_forward(params, tokens, config)
    return np.stack([layer.a for layer in cache.layers], axis=1)  # [N, layers, h, T, T]


def logits(params: dict[str, np.ndarray], tokens: np.ndarray, config: Config) -> np.ndarray:
    """Unnormalised tag scores: softmax over the last axis gives each word's tag probabilities.
    [N, T] -> [N, T, C]"""
    tokens, _ = _check_batch(params, tokens, None, config)
    return _forward(params, tokens, config).logits  # [N, T, C]


# --- forward --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layer:
    """What one attention block's backward pass needs from its forward pass."""

    x: np.ndarray  # the block's input xˡ                 [N, T, d_model]
    q: np.ndarray  # Q = xˡ W_q, split into heads         [N, h, T, d_k]
    k: np.ndarray  # K = xˡ W_k                            [N, h, T, d_k]
    v: np.ndarray  # V = xˡ W_v                            [N, h, T, d_k]
    a: np.ndarray  # A = softmax(Q Kᵀ · c), masked         [N, h, T, T]
    concat: np.ndarray  # heads A V side by side          [N, T, d_model]


@dataclass(frozen=True)
class _Forward:
    logits: np.ndarray  # [N, T, C]
    features: np.ndarray  # what W_tag reads: x^L, or the window of 2w+1 words  [N, T, n_in]
    layers: tuple[_Layer, ...] = ()
    ok: np.ndarray | None = None  # window models: 1 at a word, 0 at padding  [N, T, 1]


def _forward(params, tokens, config) -> _Forward:
    if config.model == "attention":
        return _attention_forward(params, tokens, config)
    return _window_forward(params, tokens, config)


def _window_forward(params, tokens, config) -> _Forward:
    T, w = tokens.shape[1], config.reach
    ok = (tokens != PAD)[..., None]  # [N, T, 1]
    x = params["embedding"][tokens] * ok  # [N, T, d_model]; padding is a zero vector, as beyond the edges
    padded = np.pad(x, ((0, 0), (w, w), (0, 0)))  # [N, T + 2w, d_model]
    window = np.concatenate([padded[:, o : o + T] for o in range(2 * w + 1)], axis=-1)  # [N, T, (2w+1)·d_model]
    out = _mm(window, params["w_tag"]) + params["b_tag"]  # [N, T, C]
    return _Forward(logits=out, features=window, ok=ok)


def _attention_forward(params, tokens, config) -> _Forward:
    T = tokens.shape[1]
    h, c = config.heads, config.scale_factor
    key_visible = (tokens != PAD)[:, None, None, :]  # [N, 1, 1, T]: a query never looks at padding
    x = params["embedding"][tokens] + _positions(params, config, T)  # [N, T, d_model]
    layers = []
    for layer in range(config.layers):
        w_q, w_k, w_v, w_o = (params[f"{name}.{layer}"] for name in ("w_q", "w_k", "w_v", "w_o"))
        q = split_heads(_mm(x, w_q), h)  # [N, h, T, d_k]
        k = split_heads(_mm(x, w_k), h)  # [N, h, T, d_k]
        v = split_heads(_mm(x, w_v), h)  # [N, h, T, d_k]
        scores = np.where(key_visible, q @ k.swapaxes(-1, -2) * c, -np.inf)  # [N, h, T, T]
        a = softmax(scores)  # [N, h, T, T]
        concat = merge_heads(a @ v)  # [N, T, d_model]
        layers.append(_Layer(x=x, q=q, k=k, v=v, a=a, concat=concat))
        x = x + _mm(concat, w_o)  # [N, T, d_model]; the residual keeps the word itself in view
    out = _mm(x, params["w_tag"]) + params["b_tag"]  # [N, T, C]
    return _Forward(logits=out, features=x, layers=tuple(layers))


def _positions(params, config, T) -> np.ndarray:
    if config.positional == "learned":
        return params["position"][:T]  # [T, d_model]
    if config.positional == "sinusoidal":
        return _sinusoids(T, config.d_model)  # [T, d_model]
    return np.zeros((T, config.d_model))  # [T, d_model]


_SINUSOIDS: dict[tuple[int, int], np.ndarray] = {}


def _sinusoids(T: int, d_model: int) -> np.ndarray:
    """sinusoidal_positional_encoding, kept: every training step needs the same table."""
    if (T, d_model) not in _SINUSOIDS:
        table = sinusoidal_positional_encoding(T, d_model)  # [T, d_model]
        table.flags.writeable = False
        _SINUSOIDS[(T, d_model)] = table
    return _SINUSOIDS[(T, d_model)]


# --- loss and backward ---------------------------------------------------------------------------


def _loss_and_grads(params, tokens, tags, config) -> tuple[float, dict[str, np.ndarray], np.ndarray]:
    """(loss, grads, logits [N, T, C]) without checking the arguments: fit() calls this every step."""
    fwd = _forward(params, tokens, config)
    C = fwd.logits.shape[-1]
    counted = ((tags != IGNORE) & (tokens != PAD)).reshape(-1)  # [N·T]
    n = max(int(counted.sum()), 1)
    rows = np.flatnonzero(counted)  # [n]: the words that have a tag
    target = tags.reshape(-1)[rows]  # [n]
    # log softmax, shifted by each row's maximum so that exp() cannot overflow
    z = fwd.logits.reshape(-1, C) - fwd.logits.reshape(-1, C).max(axis=-1, keepdims=True)  # [N·T, C]
    e = np.exp(z)  # [N·T, C]
    total = e.sum(axis=-1, keepdims=True)  # [N·T, 1]
    loss = -float(np.sum(z[rows, target] - np.log(total[rows, 0]))) / n

    # ∂loss/∂logits = (softmax(logits) − one_hot(tag)) / n on the counted words, 0 elsewhere
    dlogits = e / total * (counted[:, None] / n)  # [N·T, C]
    dlogits[rows, target] -= 1.0 / n
    dlogits = dlogits.reshape(fwd.logits.shape)  # [N, T, C]

    grads = {
        "w_tag": _batch_outer(fwd.features, dlogits),  # [n_in, C]
        "b_tag": dlogits.sum(axis=(0, 1)),  # [C]
    }
    dfeatures = _mm(dlogits, params["w_tag"].T)  # [N, T, n_in]
    if config.model == "attention":
        dx0 = _attention_backward(params, fwd, dfeatures, config, grads)  # [N, T, d_model]
    else:
        dx0 = _window_backward(fwd, dfeatures, config)  # [N, T, d_model]
    grads["embedding"] = _rows_by_id(tokens, dx0, len(params["embedding"]))  # [V, d_model]
    if config.model == "attention" and config.positional == "learned":
        dposition = np.zeros_like(params["position"])  # [max_len, d_model]
        dposition[: tokens.shape[1]] = dx0.sum(axis=0)  # [T, d_model]; a position's row collects every sentence
        grads["position"] = dposition
    return loss, grads, fwd.logits


def _window_backward(fwd, dwindow, config) -> np.ndarray:
    """dwindow [N, T, (2w+1)·d_model] -> dx [N, T, d_model]: each word gets the gradient of every
    window it sits in, one slot per neighbour."""
    w, d = config.reach, config.d_model
    N, T, _ = dwindow.shape
    dpadded = np.zeros((N, T + 2 * w, d))  # [N, T + 2w, d_model]
    for o in range(2 * w + 1):
        dpadded[:, o : o + T] += dwindow[..., o * d : (o + 1) * d]  # [N, T, d_model]
    return dpadded[:, w : w + T] * fwd.ok  # [N, T, d_model]; padding was multiplied by 0


def _attention_backward(params, fwd, dx, config, grads) -> np.ndarray:
    """dx = ∂loss/∂x^L [N, T, d_model] -> ∂loss/∂x⁰ [N, T, d_model]; fills grads[w_*.l]."""
    h, c = config.heads, config.scale_factor
    for layer in reversed(range(config.layers)):
        cache = fwd.layers[layer]
        w_q, w_k, w_v, w_o = (params[f"{name}.{layer}"] for name in ("w_q", "w_k", "w_v", "w_o"))
        # xˡ⁺¹ = xˡ + concat W_o: the gradient reaches xˡ directly and through the block
        grads[f"w_o.{layer}"] = _batch_outer(cache.concat, dx)  # [d_model, d_model]
        dheads = split_heads(_mm(dx, w_o.T), h)  # [N, h, T, d_k]; ∂loss/∂(A V)
        # heads = A V
        da = dheads @ cache.v.swapaxes(-1, -2)  # [N, h, T, T]
        dv = cache.a.swapaxes(-1, -2) @ dheads  # [N, h, T, d_k]
        # A = softmax(S) row by row: dS = A ⊙ (dA − Σ_j dA_ij A_ij); masked keys have A = 0, so dS = 0
        dscores = cache.a * (da - np.sum(da * cache.a, axis=-1, keepdims=True))  # [N, h, T, T]
        # S = Q Kᵀ · c
        dq = dscores @ cache.k * c  # [N, h, T, d_k]
        dk = dscores.swapaxes(-1, -2) @ cache.q * c  # [N, h, T, d_k]
        dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)  # [N, T, d_model] each
        grads[f"w_q.{layer}"] = _batch_outer(cache.x, dq)  # [d_model, d_model]
        grads[f"w_k.{layer}"] = _batch_outer(cache.x, dk)  # [d_model, d_model]
        grads[f"w_v.{layer}"] = _batch_outer(cache.x, dv)  # [d_model, d_model]
        dx = dx + _mm(dq, w_q.T) + _mm(dk, w_k.T) + _mm(dv, w_v.T)  # [N, T, d_model]
    return dx  # [N, T, d_model]


def _rows_by_id(ids: np.ndarray, rows: np.ndarray, n_ids: int) -> np.ndarray:
    """out[i] = Σ of rows[n, t] over every place where ids[n, t] == i: the gradient of a table
    looked up by id, as each word's row collects every place the word stands.
    [N, T], [N, T, d], n_ids -> [n_ids, d]

    One bincount over (id, column) pairs: the same as np.add.at(out, ids, rows), several times faster."""
    d = rows.shape[-1]
    slots = (ids[..., None] * d + np.arange(d)).reshape(-1)  # [N·T·d]: row id·d + column
    return np.bincount(slots, weights=rows.reshape(-1), minlength=n_ids * d).reshape(n_ids, d)  # [n_ids, d]


def _keep_freed_memory() -> None:
    """Let glibc keep the memory of freed arrays for the next ones (elsewhere: does nothing).

    glibc gives an allocation over 128 KB fresh pages from the operating system and hands them
    back when it is freed, so a training step, whose arrays are a few hundred KB each, would
    have the kernel zero-fill about 5 MB of new pages every step: a third of its time. Freeing
    one such block of 16 MB raises that threshold to 16 MB (glibc's dynamic threshold, see
    mallopt(3)), and from then on arrays up to that size reuse memory the process already has.
    np.empty touches none of its pages, so this costs microseconds; a process that has already
    freed a large array (most that use NumPy for long) is in that state anyway."""
    np.empty(2**21)  # 16 MB, freed at once


# OpenBLAS multiplies on one thread when m·n·k <= 2^18 and starts threads above that. On a busy
# two-core machine those threads wait for each other, and a product of 0.1 ms can take 10 to
# 100 ms (docs/training.md, "Speed"). The products over all N·T words are therefore done in
# blocks of rows under that size: the same arithmetic, on one thread, however busy the machine.
_ONE_THREAD_MNK = 2**18


def _mm(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """a @ w for every word of the batch, in row blocks.  [..., i] @ [i, j] -> [..., j]"""
    rows = a.reshape(-1, a.shape[-1])  # [N·T, i]
    out = np.empty((rows.shape[0], w.shape[1]))  # [N·T, j]
    block = max(1, _ONE_THREAD_MNK // max(1, w.size))
    for start in range(0, rows.shape[0], block):
        np.matmul(rows[start : start + block], w, out=out[start : start + block])
    return out.reshape(*a.shape[:-1], w.shape[1])  # [..., j]


def _batch_outer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ over every word r of the batch of a_rᵀ b_r: the gradient of W in b = a @ W, summed
    over the words, in row blocks as _mm.  [..., i], [..., j] -> [i, j]"""
    a2, b2 = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])  # [N·T, i], [N·T, j]
    total = np.zeros((a2.shape[1], b2.shape[1]))  # [i, j]
    block = max(1, _ONE_THREAD_MNK // max(1, total.size))
    for start in range(0, a2.shape[0], block):
        total += a2[start : start + block].T @ b2[start : start + block]  # [i, j]
    return total  # [i, j]


# --- checks ---------------------------------------------------------------------------------------


def _check_batch(params, tokens, tags, config):
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config(...); got {type(config).__name__}.")
    tokens = np.asarray(tokens)
    if tokens.ndim != 2 or not (tokens.size == 0 or np.issubdtype(tokens.dtype, np.integer)):
        raise ValueError(
            f"tokens must be whole-number word ids shaped [N, T] (use tokens[None] for one sentence); "
            f"got shape {tokens.shape} of {tokens.dtype}."
        )
    missing = sorted(set(_expected_shapes(params, config)) - set(params))
    if missing:
        raise ValueError(f"params lack {', '.join(missing)}: make them with init_params(config, task, seed).")
    for name, shape in _expected_shapes(params, config).items():
        if np.shape(params[name]) != shape:
            raise ValueError(f"params[{name!r}] has shape {np.shape(params[name])}, but this config needs {shape}.")
    V = len(params["embedding"])
    if tokens.size and (tokens.min() < 0 or tokens.max() >= V):
        raise ValueError(f"word ids must lie in 0..{V - 1}; got {tokens.min()}..{tokens.max()}.")
    learned = config.model == "attention" and config.positional == "learned"
    if learned and tokens.shape[1] > len(params["position"]):
        raise ValueError(
            f"sentences of {tokens.shape[1]} words are longer than the {len(params['position'])} "
            "learned positions; cut them, or use sinusoidal positions."
        )
    if tags is not None:
        tags = np.asarray(tags)
        C = len(params["b_tag"])
        if tags.shape != tokens.shape or not (tags.size == 0 or np.issubdtype(tags.dtype, np.integer)):
            raise ValueError(f"tags must be whole numbers shaped like tokens {tokens.shape}; got {tags.shape}.")
        if tags.size and (tags.min() < IGNORE or tags.max() >= C):
            raise ValueError(f"tag ids must lie in 0..{C - 1}, or be {IGNORE} for no tag.")
    return tokens, tags


def _expected_shapes(params, config) -> dict[str, tuple[int, ...]]:
    d = config.d_model
    V = len(params["embedding"]) if "embedding" in params else 0
    C = len(params["b_tag"]) if "b_tag" in params else 0
    shapes = {"embedding": (V, d), "w_tag": ((2 * config.reach + 1) * d, C), "b_tag": (C,)}
    if config.model == "attention":
        if config.positional == "learned":
            shapes["position"] = (len(params["position"]) if "position" in params else MAX_LEN, d)
        for layer in range(config.layers):
            shapes.update({f"{name}.{layer}": (d, d) for name in ("w_q", "w_k", "w_v", "w_o")})
    return shapes


def _choice(value, options: tuple[str, ...], name: str) -> None:
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(repr(o) for o in options)}; got {value!r}.")
