"""A decoder that writes: a tiny character-level GPT, its KV cache, and generation, in pure NumPy.

Each block is pre-LayerNorm, as GPT-2 (Radford et al., 2019):

    x = x + MultiHead(LN₁(x))        causal: position t sees positions 0..t, never the future
    x = x + W₂ GELU(W₁ LN₂(x))       the feed-forward network, d_model -> d_ff -> d_model

then a final LayerNorm and logits = LN_f(x) W_out, with W_out = Eᵀ when the output projection is
tied to the token embedding E (Press & Wolf, 2017). The input is E[token] plus a position's row.

forward() runs a whole sequence at once; prefill() and step() run it with a KV cache: the keys and
values of every past token, per layer and head, kept so that a new token costs one row of work
instead of the whole sequence again. generate() streams one GenerationStep per new token. A window
and sinks (the mask of attention_core.windows: key j visible to query i when i - window < j <= i, or
j < n_sink) make both drop what falls out of the window. The training engine is attention_core.lm;
docs/decoder.md gives the shipped model, its losses and speed.
"""

from __future__ import annotations

import functools
import json
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from attention_core import grouped
from attention_core.attention import (
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from attention_core.layers import gelu, layer_norm
from attention_core.positional import sinusoidal_positional_encoding
from attention_core.published import GPT2_SMALL, GPT3_175B, LLAMA2_7B, LLAMA2_70B, MISTRAL_7B, PALM_540B

DATA_DIR = Path(__file__).resolve().parent / "data"
WEIGHTS_FILE = DATA_DIR / "decoder.safetensors"  # every parameter, float32
VOCAB_FILE = DATA_DIR / "decoder_vocab.json"  # the alphabet, the config and the build's report

POSITIONALS = ("learned", "sinusoidal")
UNKNOWN = "\ufffd"  # "�", the visible stand-in for a character outside the alphabet
PARAGRAPH = "\n"  # paragraphs of the corpus end with it, so an empty prompt starts from it
MAX_NEW_TOKENS = 2000  # generate() refuses more: a page streams about 100
# The parts of a block, in the order a page lists them; each name is also a key of params after "block{l}.".
BLOCK_PARTS = (
    "ln1.gamma",
    "ln1.beta",
    "w_q",
    "b_q",
    "w_k",
    "b_k",
    "w_v",
    "b_v",
    "w_o",
    "b_o",
    "ln2.gamma",
    "ln2.beta",
    "w_ff1",
    "b_ff1",
    "w_ff2",
    "b_ff2",
)


@dataclass(frozen=True)
class DecoderConfig:
    """How big the decoder is. Checked when made: a bad value raises a ValueError saying what to choose."""

    vocab_size: int = 64  # V: characters of the alphabet, the unknown symbol included
    context: int = 128  # T_max: the longest sequence it reads; positions 0..context-1 exist
    n_layers: int = 3  # L: decoder blocks stacked one on another
    n_heads: int = 4  # h: each head gets d_head = d_model / h columns
    d_model: int = 96  # width of every token's vector
    d_ff: int = 384  # the feed-forward network's hidden width; 4 · d_model as in GPT-2
    positional: str = "learned"  # "learned" (a trained row per position, GPT-2) or "sinusoidal" (Vaswani 2017)
    tied: bool = True  # output projection W_out = Eᵀ: saves V · d_model weights, a small model's largest matrix
    eps: float = 1e-5  # layer-norm ε, GPT-2's; it only guards against a constant row

    def __post_init__(self):
        for name in ("vocab_size", "context", "n_layers", "n_heads", "d_model", "d_ff"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a whole number, 1 or more; got {value!r}.")
        if self.vocab_size < 2:
            raise ValueError(f"vocab_size={self.vocab_size}: the alphabet needs the unknown symbol and one character.")
        if self.d_model % self.n_heads:
            divisors = [h for h in range(1, self.d_model + 1) if self.d_model % h == 0]
            raise ValueError(
                f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}: each head takes an equal "
                f"share of the columns. Choose n_heads from {divisors}."
            )
        if self.positional not in POSITIONALS:
            raise ValueError(f"positional must be one of {', '.join(map(repr, POSITIONALS))}; got {self.positional!r}.")
        if not isinstance(self.tied, bool):
            raise ValueError(f"tied must be True or False; got {self.tied!r}.")
        if not (isinstance(self.eps, (int, float)) and 0 < self.eps < 1):
            raise ValueError(f"eps must be a small positive number such as 1e-5; got {self.eps!r}.")

    @property
    def d_head(self) -> int:
        """Columns per head, d_model / h."""
        return self.d_model // self.n_heads


def parameter_shapes(config: DecoderConfig) -> dict[str, tuple[int, ...]]:
    """Every parameter's name and shape, in a fixed order (the order the weights file keeps)."""
    V, d, d_ff = config.vocab_size, config.d_model, config.d_ff
    shapes: dict[str, tuple[int, ...]] = {"token_embedding": (V, d)}
    if config.positional == "learned":
        shapes["position_embedding"] = (config.context, d)
    for layer in range(config.n_layers):
        part_shapes = {"w_ff1": (d, d_ff), "b_ff1": (d_ff,), "w_ff2": (d_ff, d)}
        for part in BLOCK_PARTS:
            default = (d, d) if part.startswith("w_") else (d,)
            shapes[f"block{layer}.{part}"] = part_shapes.get(part, default)
    shapes["ln_f.gamma"], shapes["ln_f.beta"] = (d,), (d,)
    if not config.tied:
        shapes["w_out"] = (d, V)
    return shapes


def n_parameters(config: DecoderConfig) -> int:
    """How many numbers the model has (a tied output projection counts once)."""
    return sum(int(np.prod(shape)) for shape in parameter_shapes(config).values())


def init_params(config: DecoderConfig, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Fresh weights, GPT-2's initialisation: matrices and embeddings ~ N(0, 0.02²), the two matrices
    that write into the residual stream (w_o, w_ff2) ~ N(0, (0.02/√(2L))²) so the stream's variance
    does not grow with depth, biases 0, layer-norm γ = 1 and β = 0."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a np.random.Generator, e.g. np.random.default_rng(0).")
    residual_std = 0.02 / np.sqrt(2 * config.n_layers)
    params = {}
    for name, shape in parameter_shapes(config).items():
        part = name.rsplit(".", 1)[-1]
        if name.endswith(".gamma"):
            params[name] = np.ones(shape)  # [d_model]
        elif part.startswith("b_") or name.endswith(".beta"):
            params[name] = np.zeros(shape)  # [n]
        else:
            std = residual_std if part in ("w_o", "w_ff2") else 0.02
            params[name] = rng.standard_normal(shape) * std  # [n_in, n_out] or [V, d_model]
    return params


def output_matrix(params: dict[str, np.ndarray], config: DecoderConfig) -> np.ndarray:
    """W_out, what turns the last hidden state into one score per character.  -> [d_model, V]"""
    return params["token_embedding"].T if config.tied else params["w_out"]  # [d_model, V]


def positions(params: dict[str, np.ndarray], config: DecoderConfig, first: int, n: int) -> np.ndarray:
    """The position rows added to tokens first .. first+n-1.  -> [n, d_model]"""
    if config.positional == "learned":
        return params["position_embedding"][first : first + n]  # [n, d_model]
    return _sinusoids(config.context, config.d_model)[first : first + n]  # [n, d_model]


@functools.lru_cache(maxsize=8)
def _sinusoids(n_positions: int, d_model: int) -> np.ndarray:
    table = sinusoidal_positional_encoding(n_positions, d_model)  # [n_positions, d_model]
    table.flags.writeable = False
    return table  # [n_positions, d_model]


# --- the mask: causal, optionally a window with sinks ---------------------------------------------


def visible(query_positions, key_positions, window: int | None = None, n_sink: int = 0) -> np.ndarray:
    """True where the query at position i may read the key at position j: j <= i (causal), and with a
    window also i - window < j or j < n_sink (the first n_sink keys are always kept, the "attention sinks"
    of Xiao et al., 2023).  [T_q], [T_k] -> bool [T_q, T_k]"""
    i = np.asarray(query_positions)[:, None]  # [T_q, 1]
    j = np.asarray(key_positions)[None, :]  # [1, T_k]
    allowed = j <= i  # [T_q, T_k]
    if window is not None:
        allowed &= (j > i - window) | (j < n_sink)  # [T_q, T_k]
    return allowed  # [T_q, T_k]


def decoder_mask(T: int, window: int | None = None, n_sink: int = 0) -> np.ndarray:
    """The mask every head of forward() uses.  -> bool [T, T]"""
    window, n_sink = _window_args(window, n_sink)
    return visible(np.arange(T), np.arange(T), window, n_sink)  # [T, T]


# --- the whole sequence at once ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DecoderResult:
    """One sequence through the decoder, with what a page draws."""

    tokens: np.ndarray  # the ids read                                                [T]
    mask: np.ndarray  # True where query i may read key j: the causal triangle (and window)  [T, T]
    weights: np.ndarray  # every layer's and head's attention, rows sum to 1          [L, h, T, T]
    keys: np.ndarray  # K of every token, per layer and head: what a cache would hold   [L, h, T, d_head]
    values: np.ndarray  # V of every token                                            [L, h, T, d_head]
    hidden: np.ndarray  # the residual stream: the input, then after each block        [L + 1, T, d_model]
    logits: np.ndarray  # row t scores the character after token t                   [T, V]
    probs: np.ndarray  # softmax of each row: the next-character probabilities          [T, V]
    window: int | None  # None: full causal attention
    n_sink: int


def forward(
    params: dict[str, np.ndarray],
    tokens,
    config: DecoderConfig,
    window: int | None = None,
    n_sink: int = 0,
) -> DecoderResult:
    """Run one sequence of 1..context token ids through every block.  [T] -> DecoderResult

    Row t of every output depends on tokens 0..t only (with a window, on the window and the sinks)."""
    tokens = _tokens(tokens, config)
    window, n_sink = _window_args(window, n_sink)
    T = len(tokens)
    mask = decoder_mask(T, window, n_sink)  # [T, T]
    x = params["token_embedding"][tokens] + positions(params, config, 0, T)  # [T, d_model]
    hidden, weights, keys, values = [x], [], [], []
    for layer in range(config.n_layers):
        p = _block(params, layer)
        a = layer_norm(x, p["ln1.gamma"], p["ln1.beta"], config.eps)  # [T, d_model]
        mha = multi_head_attention(
            a, p["w_q"], p["w_k"], p["w_v"], p["w_o"], config.n_heads, mask, p["b_q"], p["b_k"], p["b_v"], p["b_o"]
        )
        x = x + mha.output  # [T, d_model]
        x = x + _ffn(x, p, config)  # [T, d_model]
        hidden.append(x)
        weights.append(mha.weights)  # [h, T, T]
        keys.append(mha.k_heads)  # [h, T, d_head]
        values.append(mha.v_heads)  # [h, T, d_head]
    logits = _logits(x, params, config)  # [T, V]
    return DecoderResult(
        tokens=tokens,
        mask=mask,
        weights=np.stack(weights),
        keys=np.stack(keys),
        values=np.stack(values),
        hidden=np.stack(hidden),
        logits=logits,
        probs=softmax(logits),
        window=window,
        n_sink=n_sink,
    )


def _block(params, layer: int) -> dict[str, np.ndarray]:
    return {part: params[f"block{layer}.{part}"] for part in BLOCK_PARTS}


def _ffn(x: np.ndarray, p: dict[str, np.ndarray], config: DecoderConfig) -> np.ndarray:
    """W₂ GELU(W₁ LN₂(x) + b₁) + b₂.  [T, d_model] -> [T, d_model]"""
    f = layer_norm(x, p["ln2.gamma"], p["ln2.beta"], config.eps)  # [T, d_model]
    return gelu(f @ p["w_ff1"] + p["b_ff1"]) @ p["w_ff2"] + p["b_ff2"]  # [T, d_model]


def _logits(x: np.ndarray, params, config: DecoderConfig) -> np.ndarray:
    """LN_f(x) W_out.  [T, d_model] -> [T, V]"""
    y = layer_norm(x, params["ln_f.gamma"], params["ln_f.beta"], config.eps)  # [T, d_model]
    return y @ output_matrix(params, config)  # [T, V]


# --- the KV cache ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class KVCache:
    """The keys and values of the tokens a new token may still read, per layer and head.

    Never changed in place: step() returns a new cache, so an earlier one stays valid (a page can keep
    every step's). Without a window it holds every past token; with one, the first n_sink tokens and the
    last `window` ones, so it stops growing at n_sink + window tokens."""

    config: DecoderConfig
    keys: np.ndarray  # K of the kept tokens                                        [L, h, T_kept, d_head]
    values: np.ndarray  # V of the kept tokens                                      [L, h, T_kept, d_head]
    positions: np.ndarray  # the position of each kept token, increasing             [T_kept]
    tokens: np.ndarray  # every token read so far, kept or dropped                    [T_seen]
    window: int | None
    n_sink: int

    @property
    def length(self) -> int:
        """Tokens read so far: the position the next token will take."""
        return len(self.tokens)

    @property
    def n_kept(self) -> int:
        return len(self.positions)

    def n_bytes(self, bytes_per_number: int = 8) -> int:
        """What the cache holds: 2 (K and V) x layers x kept tokens x d_model numbers, times their size
        (8 in this float64 core; 2 for the float16 of most served models)."""
        return kv_cache_bytes(self.config.n_layers, self.n_kept, self.config.d_model, bytes_per_number)


def empty_cache(config: DecoderConfig, window: int | None = None, n_sink: int = 0) -> KVCache:
    """A cache that has read nothing yet."""
    window, n_sink = _window_args(window, n_sink)
    shape = (config.n_layers, config.n_heads, 0, config.d_head)
    return KVCache(
        config=config,
        keys=np.zeros(shape),  # [L, h, 0, d_head]
        values=np.zeros(shape),  # [L, h, 0, d_head]
        positions=np.zeros(0, dtype=np.int64),  # [0]
        tokens=np.zeros(0, dtype=np.int64),  # [0]
        window=window,
        n_sink=n_sink,
    )


def prefill(
    params: dict[str, np.ndarray],
    tokens,
    config: DecoderConfig,
    window: int | None = None,
    n_sink: int = 0,
) -> tuple[DecoderResult, KVCache]:
    """Read a whole prompt at once, as a server does, and keep what its last token may read.
    [T] -> (DecoderResult, KVCache)"""
    result = forward(params, tokens, config, window, n_sink)
    T = len(result.tokens)
    kept = visible([T - 1], np.arange(T), result.window, result.n_sink)[0]  # [T]
    cache = KVCache(
        config=config,
        keys=result.keys[:, :, kept],  # [L, h, T_kept, d_head]
        values=result.values[:, :, kept],  # [L, h, T_kept, d_head]
        positions=np.flatnonzero(kept),  # [T_kept]
        tokens=result.tokens.copy(),  # [T]
        window=result.window,
        n_sink=result.n_sink,
    )
    return result, cache


@dataclass(frozen=True, eq=False)
class StepResult:
    """One new token read with the cache."""

    token: int  # the id read
    position: int  # its position in the sequence
    logits: np.ndarray  # scores of the character after it                         [V]
    probs: np.ndarray  # softmax(logits)                                            [V]
    weights: np.ndarray  # its attention over the kept tokens, per layer and head   [L, h, T_kept]
    positions: np.ndarray  # the positions those weights fall on                     [T_kept]
    cache: KVCache  # the cache with this token added (and the window's oldest dropped)


def step(params: dict[str, np.ndarray], cache: KVCache, token: int) -> StepResult:
    """Read one more token with the cache: its query meets the stored keys, its own key and value are
    added. One row of work per layer instead of the whole sequence. Equals forward()'s last row on the
    whole sequence (tests/core/test_decoder.py), to rounding: a product of one row and of T rows may sum
    in a different order in BLAS."""
    if not isinstance(cache, KVCache):
        raise ValueError("cache must be a KVCache, from empty_cache() or prefill().")
    config = cache.config
    (token,) = _tokens([token], config)
    t = cache.length
    if t >= config.context:
        raise ValueError(
            f"the cache already holds {t} tokens, the model's whole context ({config.context} positions): "
            "a new token has no position. Start again from the recent tokens (generate() does this by itself)."
        )
    kept_before = visible([t], cache.positions, cache.window, cache.n_sink)[0]  # [T_kept]
    key_positions = np.append(cache.positions[kept_before], t)  # [T_kept']
    x = params["token_embedding"][[token]] + positions(params, config, t, 1)  # [1, d_model]
    new_keys, new_values, weights = [], [], []
    for layer in range(config.n_layers):
        p = _block(params, layer)
        a = layer_norm(x, p["ln1.gamma"], p["ln1.beta"], config.eps)  # [1, d_model]
        q = split_heads(a @ p["w_q"] + p["b_q"], config.n_heads)  # [h, 1, d_head]
        k = split_heads(a @ p["w_k"] + p["b_k"], config.n_heads)  # [h, 1, d_head]
        v = split_heads(a @ p["w_v"] + p["b_v"], config.n_heads)  # [h, 1, d_head]
        keys = np.concatenate([cache.keys[layer][:, kept_before], k], axis=1)  # [h, T_kept', d_head]
        values = np.concatenate([cache.values[layer][:, kept_before], v], axis=1)  # [h, T_kept', d_head]
        att = scaled_dot_product_attention(q, keys, values)  # every kept key is visible: no mask
        x = x + merge_heads(att.output) @ p["w_o"] + p["b_o"]  # [1, d_model]
        x = x + _ffn(x, p, config)  # [1, d_model]
        new_keys.append(keys)
        new_values.append(values)
        weights.append(att.weights[:, 0])  # [h, T_kept']
    logits = _logits(x, params, config)[0]  # [V]
    grown = KVCache(
        config=config,
        keys=np.stack(new_keys),  # [L, h, T_kept', d_head]
        values=np.stack(new_values),  # [L, h, T_kept', d_head]
        positions=key_positions,  # [T_kept']
        tokens=np.append(cache.tokens, token),  # [T_seen + 1]
        window=cache.window,
        n_sink=cache.n_sink,
    )
    return StepResult(
        token=token,
        position=t,
        logits=logits,
        probs=softmax(logits),
        weights=np.stack(weights),
        positions=key_positions,
        cache=grown,
    )


# --- generation ------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GenerationStep:
    """One written token: where it came from and what the model saw when it chose it."""

    index: int  # 0 for the first new token
    token: int  # the id chosen
    query_position: int  # the position of the token whose row chose it (the last one read)
    model_probs: np.ndarray  # the model's next-character probabilities, temperature 1  [V]
    probs: np.ndarray  # what it was drawn from: after temperature and top-k             [V]
    weights: np.ndarray  # that row's attention over the kept tokens, per layer and head [L, h, T_kept]
    key_positions: np.ndarray  # the positions those weights fall on                    [T_kept]
    cache: KVCache  # the cache after reading every token before the new one
    rebuilt: bool  # the context was full: the cache was rebuilt from the recent half (see generate)
    seconds: float  # measured: the forward pass that gave these probabilities
    temperature: float  # as used
    top_k: int  # as used: clamped to 1..V


def generate(
    params: dict[str, np.ndarray],
    config: DecoderConfig,
    prompt_ids,
    n_new: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    rng: np.random.Generator | None = None,
    window: int | None = None,
    n_sink: int = 0,
) -> Iterator[GenerationStep]:
    """Write n_new tokens after the prompt, one GenerationStep at a time (a page shows each as it comes).

    temperature 0 picks the most probable character every time (greedy; ties go to the lower id) and
    needs no rng; any other finite temperature >= 0 divides the logits by it (above 1 flatter, below 1
    sharper) and draws with rng. top_k keeps the k most probable characters (None: all of them; more
    than V is clamped to V). The prompt is read with prefill(), each new token with step(). When the
    context is full, the cache is rebuilt from the most recent context // 2 tokens (that step says
    rebuilt=True), so writing can go on past the context at the cost of one full forward pass now and then."""
    prompt = _tokens(prompt_ids, config)
    n_new = _whole(n_new, "n_new", 0, MAX_NEW_TOKENS)
    temperature = _temperature(temperature)
    top_k = _top_k(top_k, config.vocab_size)
    if temperature > 0 and not isinstance(rng, np.random.Generator):
        raise ValueError(
            "sampling at a temperature above 0 needs rng=np.random.default_rng(seed); "
            "temperature 0 (greedy) needs none."
        )
    window, n_sink = _window_args(window, n_sink)
    return _generate(params, config, prompt, n_new, temperature, top_k, rng, window, n_sink)


def _sampled(rng: np.random.Generator | None) -> Callable[[np.ndarray, int], int]:
    """generate()'s draw: the most probable character at temperature 0, else one draw from rng."""

    def draw(probs: np.ndarray, index: int) -> int:
        if rng is None:
            return int(np.argmax(probs))
        return int(rng.choice(len(probs), p=probs))

    return draw


def _generate(params, config, prompt, n_new, temperature, top_k, rng, window, n_sink) -> Iterator[GenerationStep]:
    # A full context keeps its most recent half, so a long run rebuilds only now and then.
    draw = _sampled(rng if temperature > 0 else None)
    return _decode(params, config, prompt, n_new, temperature, top_k, draw, config.context // 2, window, n_sink)


def _decode(
    params, config, tokens, n_new, temperature, top_k, draw, refill, window=None, n_sink=0
) -> Iterator[GenerationStep]:
    """The one writing loop of generate() and write(): draw(probs, index) picks each character; when the
    context is full the cache is rebuilt from the most recent `refill` tokens (that step says rebuilt)."""
    started = time.perf_counter()
    result, cache = prefill(params, tokens, config, window, n_sink)
    logits = result.logits[-1]  # [V]
    weights, rebuilt = result.weights[:, :, -1, cache.positions], False  # [L, h, T_kept]
    seconds = time.perf_counter() - started
    for index in range(n_new):
        probs = sampling_probs(logits, temperature, top_k)  # [V]
        token = draw(probs, index)
        yield GenerationStep(
            index=index,
            token=token,
            query_position=cache.length - 1,
            model_probs=softmax(logits),
            probs=probs,
            weights=weights,
            key_positions=cache.positions,
            cache=cache,
            rebuilt=rebuilt,
            seconds=seconds,
            temperature=temperature,
            top_k=top_k,
        )
        if index == n_new - 1:
            return
        started = time.perf_counter()
        if cache.length < config.context:
            read = step(params, cache, token)
            logits, weights, cache, rebuilt = read.logits, read.weights, read.cache, False
        else:
            recent = np.append(cache.tokens, token)[-refill:]  # [refill]
            result, cache = prefill(params, recent, config, window, n_sink)
            logits = result.logits[-1]  # [V]
            weights, rebuilt = result.weights[:, :, -1, cache.positions], True  # [L, h, T_kept]
        seconds = time.perf_counter() - started


def draw_token(probs: np.ndarray, seed: int, index: int) -> int:
    """The index-th written character, drawn from probs with its own generator, default_rng([seed, index]):
    the same seed, text and settings give the same character whether it is written alone (one click) or
    inside a run of many, and changing the temperature for one character leaves the others' draws alone.
    A distribution with all its weight on one character (temperature 0) gives that character."""
    probs = np.asarray(probs, dtype=np.float64)  # [V]
    best = int(np.argmax(probs))
    if probs[best] == 1.0:
        return best
    return int(
        np.random.default_rng([_whole(seed, "seed", 0, None), _whole(index, "index", 0, None)]).choice(
            len(probs), p=probs
        )
    )


def write(
    params: dict[str, np.ndarray],
    config: DecoderConfig,
    ids,
    n_new: int,
    temperature: float,
    top_k: int | None,
    seed: int,
    first_index: int = 0,
) -> Iterator[GenerationStep]:
    """Write n_new characters after `ids` as a page does: character first_index + i is drawn by
    draw_token(probs, seed, first_index + i). While the sequence fits the context each one costs a step()
    with the cache; once it is full the model reads the last `context` tokens again with forward() (that
    step says rebuilt=True), exactly what next_token() reads for the same text."""
    tokens = _tokens(ids, config)
    n_new = _whole(n_new, "n_new", 0, MAX_NEW_TOKENS)
    temperature = _temperature(temperature)
    top_k = _top_k(top_k, config.vocab_size)
    seed, first_index = _whole(seed, "seed", 0, None), _whole(first_index, "first_index", 0, None)
    return _write(params, config, tokens, n_new, temperature, top_k, seed, first_index)


def _write(params, config, tokens, n_new, temperature, top_k, seed, first_index) -> Iterator[GenerationStep]:
    # A full context is read again whole, exactly as next_token() reads the same text.
    def draw(probs: np.ndarray, index: int) -> int:
        return draw_token(probs, seed, first_index + index)

    return _decode(params, config, tokens, n_new, temperature, top_k, draw, config.context)


def sampling_probs(logits, temperature: float, top_k: int | None) -> np.ndarray:
    """The distribution a token is drawn from: softmax(logits / temperature) over the top_k best, 0 elsewhere.
    Temperature 0 puts all the weight on the best character.  [V] -> [V]"""
    logits = np.asarray(logits, dtype=np.float64)  # [V]
    temperature = _temperature(temperature)
    top_k = _top_k(top_k, len(logits))
    if temperature == 0:
        probs = np.zeros(len(logits))  # [V]
        probs[np.argmax(logits)] = 1.0
        return probs  # [V]
    # Subtract the best score before dividing: every entry is then <= 0, so a tiny temperature sends the
    # others to -inf (probability 0) instead of overflowing.
    scaled = (logits - logits.max()) / temperature  # [V]
    if top_k < len(logits):
        order = np.argsort(-scaled, kind="stable")  # [V]; among equal scores the lower id comes first
        keep = np.zeros(len(logits), dtype=bool)  # [V]
        keep[order[:top_k]] = True
        scaled = np.where(keep, scaled, -np.inf)  # [V]
    return softmax(scaled)  # [V]


# --- costs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MultiplyAdds:
    """Multiply-adds of one forward pass, counted from the shapes of its products (layer norm, softmax and
    GELU are a few operations per number and left out)."""

    projections: int  # Q, K, V and the output projection W_o: 4 · d_model² per row and layer
    attention: int  # Q Kᵀ and A V: 2 · T_keys · d_model per row and layer
    ffn: int  # W₁ and W₂: 2 · d_model · d_ff per row and layer
    logits: int  # W_out: d_model · V per row that gets scores
    total: int


@dataclass(frozen=True)
class StepCost:
    """The work of writing the token at position T - 1: with the cache against recomputing all T rows."""

    T: int  # tokens in the sequence, the new one included
    n_keys: int  # keys the new row reads: T, or fewer with a window
    cached: MultiplyAdds  # one new row; the keys and values of the others come from the cache
    full: MultiplyAdds  # every row again, as forward() computes it (all T x T scores, then masked)

    @property
    def ratio(self) -> float:
        """How many times more work recomputing is."""
        return self.full.total / self.cached.total


def step_cost(config: DecoderConfig, T: int, window: int | None = None, n_sink: int = 0) -> StepCost:
    """Multiply-adds of one step with the cache and of the full recomputation, for a sequence of T tokens."""
    T = _whole(T, "T", 1, config.context)
    window, n_sink = _window_args(window, n_sink)
    n_keys = int(visible([T - 1], np.arange(T), window, n_sink).sum())
    return StepCost(T=T, n_keys=n_keys, cached=_multiply_adds(config, 1, n_keys), full=_multiply_adds(config, T, T))


def _multiply_adds(config: DecoderConfig, rows: int, n_keys: int) -> MultiplyAdds:
    L, d, d_ff, V = config.n_layers, config.d_model, config.d_ff, config.vocab_size
    projections = L * rows * 4 * d * d
    attention = L * rows * 2 * n_keys * d  # summed over heads: h · d_head = d_model
    ffn = L * rows * 2 * d * d_ff
    logits = rows * d * V
    return MultiplyAdds(projections, attention, ffn, logits, projections + attention + ffn + logits)


def kv_cache_bytes(n_layers: int, T: int, d_model: int, bytes_per_number: int) -> int:
    """2 (K and V) x layers x tokens x d_model x bytes per number: what a cache of T tokens holds
    (with grouped-query attention, pass n_kv_heads · d_head for d_model). The count is
    attention_core.grouped's, with one key/value head d_model wide, so the two pages cannot disagree."""
    return grouped.kv_cache_bytes(n_layers, T, 1, d_model, bytes_per_value=bytes_per_number)


@dataclass(frozen=True)
class CacheSize:
    """What one model's KV cache holds for a sequence of T tokens, by the formula and as the model keeps it."""

    name: str  # "this decoder" or the name the paper uses
    source: str  # where the layers, widths and context come from
    layers: int  # L
    d_model: int  # the residual stream's width
    kv_width: int  # numbers per token and layer in K (and in V): n_kv_heads · d_head
    T: int  # tokens in the sequence: the model's whole context
    kept: int  # tokens the cache holds: T, or the sliding window when the model has one
    bytes_per_number: int
    formula_bytes: int  # 2 x layers x T x d_model x bytes: as if every head kept its own keys and values
    bytes: int  # 2 x layers x kept x kv_width x bytes: what the model keeps (grouped heads, window)


# Decoders only: an encoder (BERT) reads its whole input at once and keeps no cache between tokens.
PUBLISHED_DECODERS = (GPT2_SMALL, GPT3_175B, PALM_540B, LLAMA2_7B, LLAMA2_70B, MISTRAL_7B)
THIS_DECODER_SOURCE = "this app: attention_core/data/decoder_vocab.json, trained by scripts/build_decoder.py"


def cache_sizes(
    config: DecoderConfig, bytes_per_number: int = 2, window: int | None = None, n_sink: int = 0
) -> tuple[CacheSize, ...]:
    """The KV cache at full context for this decoder (with a window: n_sink + window tokens at most, as
    KVCache keeps them), then for the published decoders of attention_core.published, each with its source.
    bytes_per_number 2 is the float16/bfloat16 models are usually served in; this core computes in float64 (8)."""
    bytes_per_number = _whole(bytes_per_number, "bytes_per_number", 1, 64)
    window, n_sink = _window_args(window, n_sink)
    ours = config.context if window is None else min(config.context, window + n_sink)
    L, d, T, b = config.n_layers, config.d_model, config.context, bytes_per_number
    rows = [_cache_size("this decoder", THIS_DECODER_SOURCE, L, d, d, T, ours, b)]
    for m in PUBLISHED_DECODERS:
        kept = m.context if m.window is None else min(m.context, m.window)  # Mistral's rolling buffer
        rows.append(_cache_size(m.name, m.source, m.layers, m.d_model, m.kv_heads * m.d_head, m.context, kept, b))
    return tuple(rows)


def _cache_size(name, source, layers, d_model, kv_width, T, kept, bytes_per_number) -> CacheSize:
    return CacheSize(
        name=name,
        source=source,
        layers=layers,
        d_model=d_model,
        kv_width=kv_width,
        T=T,
        kept=kept,
        bytes_per_number=bytes_per_number,
        formula_bytes=kv_cache_bytes(layers, T, d_model, bytes_per_number),
        bytes=kv_cache_bytes(layers, kept, kv_width, bytes_per_number),
    )


# --- characters <-> ids ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CharVocabulary:
    """The alphabet: one id per character, id 0 the visible unknown symbol "�"."""

    chars: tuple[str, ...]  # chars[id]; chars[0] == UNKNOWN

    def __post_init__(self):
        if not self.chars or self.chars[0] != UNKNOWN or len(set(self.chars)) != len(self.chars):
            raise ValueError("chars must start with the unknown symbol and list each character once.")
        if any(len(c) != 1 for c in self.chars):
            raise ValueError("every entry of chars must be a single character.")
        object.__setattr__(self, "_ids", {c: i for i, c in enumerate(self.chars)})

    def __len__(self) -> int:
        return len(self.chars)

    def id(self, char: str) -> int:
        """The id of `char`; 0 (unknown) for a character outside the alphabet."""
        return self._ids.get(char, 0)

    def encode(self, text: str) -> np.ndarray:
        """One id per character; characters outside the alphabet become 0.  -> [len(text)]"""
        return np.array([self._ids.get(c, 0) for c in text], dtype=np.int64)  # [len(text)]

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)


@dataclass(frozen=True, eq=False)
class EncodedPrompt:
    """A typed prompt as the model reads it, and what had to change for that."""

    text: str  # as typed
    read: str  # what the model reads: the last max_chars characters, unknown ones shown as "�"
    ids: np.ndarray  # one id per character of `read`                                      [len(read)]
    n_cut: int  # characters cut from the start to fit the context (0: none)
    unknown: tuple[str, ...]  # the distinct characters outside the alphabet, in order of appearance
    unknown_positions: tuple[int, ...]  # where they stand in `read`
    empty: bool  # nothing was typed: the model starts from a paragraph's start, "\n"


def encode_prompt(text: str, vocab: CharVocabulary, max_chars: int) -> EncodedPrompt:
    """Turn typed text into ids the model can read. Unicode is normalised (NFC, so "é" typed in two parts
    is one character) and Windows line ends become "\\n"; characters outside the alphabet become "�"
    (reported in `unknown`); a text longer than max_chars keeps its last max_chars characters, the ones
    the next character depends on most (reported in `n_cut`); an empty text starts from "\\n", as every
    paragraph of the corpus does."""
    if not isinstance(text, str):
        raise ValueError(f"the prompt must be text; got {type(text).__name__}.")
    max_chars = _whole(max_chars, "max_chars", 1, 10**9)
    normal = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    empty = normal == ""
    if empty:
        normal = PARAGRAPH
    n_cut = max(0, len(normal) - max_chars)
    kept = normal[n_cut:]
    ids = vocab.encode(kept)  # [len(kept)]
    unknown_positions = tuple(int(i) for i in np.flatnonzero(ids == 0))
    unknown = tuple(dict.fromkeys(kept[i] for i in unknown_positions if kept[i] != UNKNOWN))
    return EncodedPrompt(
        text=text,
        read=vocab.decode(ids),
        ids=ids,
        n_cut=n_cut,
        unknown=unknown,
        unknown_positions=unknown_positions,
        empty=empty,
    )


# --- the shipped model -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ShippedDecoder:
    """The decoder that ships with the app, as scripts/build_decoder.py trained it."""

    params: dict[str, np.ndarray]  # float64, read-only
    config: DecoderConfig
    vocab: CharVocabulary
    report: dict  # the build's numbers: seed, steps, losses against the bigram baseline, time


@functools.lru_cache(maxsize=1)
def load_decoder() -> ShippedDecoder:
    """The shipped weights (float32 on disk, float64 here) with their alphabet and config; cached, so every
    caller shares the same read-only arrays."""
    from safetensors.numpy import load_file

    meta = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))
    config = DecoderConfig(**meta["config"])
    stored = load_file(WEIGHTS_FILE)
    expected = parameter_shapes(config)
    if set(stored) != set(expected) or any(stored[n].shape != s for n, s in expected.items()):
        raise ValueError(f"{WEIGHTS_FILE.name} does not match {VOCAB_FILE.name}: run scripts/build_decoder.py again.")
    params = {}
    for name in expected:
        array = stored[name].astype(np.float64)  # same shape as stored
        array.flags.writeable = False
        params[name] = array
    vocab = CharVocabulary(tuple(meta["chars"]))
    return ShippedDecoder(params=params, config=config, vocab=vocab, report=meta["report"])


def config_dict(config: DecoderConfig) -> dict:
    """The config as plain JSON values, in field order."""
    return asdict(config)


# --- what the page /decoder shows, one function per step ---------------------------------------------


@dataclass(frozen=True, eq=False)
class Sight:
    """What each position of one attention map can see, and how much weight it puts on positions after it."""

    visible: np.ndarray  # keys each query may read: t + 1 in a decoder, T in an encoder       int [T]
    future: np.ndarray  # each row's weight on keys after the query (j > i)                     [T]
    mean_future: float  # the average over the rows: 0 for a decoder, exactly
    max_future: float


def sight(weights, mask=None) -> Sight:
    """Read one attention map.  [T, T], bool [T, T] or None (every key visible) -> Sight"""
    w = np.asarray(weights, dtype=np.float64)  # [T, T]
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] == 0:
        raise ValueError(f"weights must be one square map [T, T]; got shape {w.shape}.")
    allowed = np.ones(w.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)  # [T, T]
    future = np.triu(w, k=1).sum(axis=1)  # [T]
    return Sight(
        visible=allowed.sum(axis=1),  # [T]
        future=future,
        mean_future=float(future.mean()),
        max_future=float(future.max()),
    )


@dataclass(frozen=True, eq=False)
class TextView:
    """A text through the shipped decoder, as the page shows it."""

    encoded: EncodedPrompt  # the text as read: its last `context` characters, unknown ones as "�"
    chars: tuple[str, ...]  # one per position: what each column of a map is
    result: DecoderResult  # every layer's and head's map, the logits
    sight: Sight  # of the mask: position t sees t + 1 characters
    future_max: np.ndarray  # per layer and head, the most weight any row puts after itself: 0     [L, h]


def read_text(text: str) -> TextView:
    """The shipped decoder on `text` (encode_prompt: cut to the context, unknown characters marked; an empty
    text reads as a paragraph's start)."""
    shipped = load_decoder()
    encoded = encode_prompt(text, shipped.vocab, shipped.config.context)
    result = forward(shipped.params, encoded.ids, shipped.config)
    future_max = np.triu(result.weights, k=1).sum(axis=-1).max(axis=-1)  # [L, h]
    return TextView(
        encoded=encoded,
        chars=tuple(encoded.read),
        result=result,
        sight=sight(result.weights.mean(axis=(0, 1)), result.mask),  # the average head
        future_max=future_max,
    )


@dataclass(frozen=True, eq=False)
class NextToken:
    """The character after a text: the model's probabilities, the ones it is drawn from, the one drawn."""

    view: TextView
    index: int  # the written character's number: draw_token's index
    temperature: float
    top_k: int  # clamped to 1..V
    model_probs: np.ndarray  # softmax of the last row's logits, temperature 1                [V]
    probs: np.ndarray  # after temperature and top-k: what the character is drawn from           [V]
    token: int  # the character drawn
    top: np.ndarray  # the n_top most probable characters of the model, best first           int [n_top]
    weights: np.ndarray  # the last position's attention over every position, per layer and head  [L, h, T]
    kept: int  # characters with probability above 0 after top-k


def next_token(text: str, temperature: float, top_k: int | None, seed: int, index: int, n_top: int = 10) -> NextToken:
    """What the shipped decoder writes after `text` as its index-th character (draw_token)."""
    view = read_text(text)
    logits = view.result.logits[-1]  # [V]
    probs = sampling_probs(logits, temperature, top_k)  # [V]
    model_probs = view.result.probs[-1]  # [V]
    n_top = _whole(n_top, "n_top", 1, len(logits))
    return NextToken(
        view=view,
        index=_whole(index, "index", 0, None),
        temperature=_temperature(temperature),
        top_k=_top_k(top_k, len(logits)),
        model_probs=model_probs,
        probs=probs,
        token=draw_token(probs, seed, index),
        top=np.argsort(-model_probs, kind="stable")[:n_top],  # [n_top]
        weights=view.result.weights[:, :, -1],  # [L, h, T]
        kept=int(np.count_nonzero(probs)),
    )


@dataclass(frozen=True, eq=False)
class CacheReport:
    """The KV cache of the shipped decoder after a text: what it holds, how it grows, what it saves."""

    T: int  # tokens read
    n_layers: int
    n_heads: int
    d_head: int
    d_model: int
    bytes_per_number: int
    lengths: np.ndarray  # 1 .. context                                                     int [context]
    growth: np.ndarray  # the cache's bytes after each length: 2 L t d_model b                  int [context]
    bytes_now: int  # after T tokens
    sizes: tuple[CacheSize, ...]  # at full context: this decoder, then the published decoders
    cost: StepCost  # multiply-adds of the next step, with the cache and recomputing
    measured_step: float  # seconds, measured on this machine: step() with the cache (median)
    measured_full: float  # seconds, measured: forward() on all T tokens again (median)
    repeats: int


def cache_report(text: str, bytes_per_number: int = 2, repeats: int = 7) -> CacheReport:
    """The cache after `text` (read_text), its growth over the context, the published decoders' caches, and
    the last token's cost both ways: counted from the shapes and timed here (the median of `repeats`)."""
    shipped = load_decoder()
    config, params = shipped.config, shipped.params
    ids = read_text(text).encoded.ids  # [T]
    T = len(ids)
    b = _whole(bytes_per_number, "bytes_per_number", 1, 64)
    repeats = _whole(repeats, "repeats", 1, 100)
    lengths = np.arange(1, config.context + 1)  # [context]
    cache = prefill(params, ids[:-1], config)[1] if T > 1 else empty_cache(config)
    cached_s, full_s = [], []
    step(params, cache, int(ids[-1]))  # warm: the first call pays for allocations the others reuse
    for _ in range(repeats):  # alternating, so a change of load falls on both
        started = time.perf_counter()
        step(params, cache, int(ids[-1]))
        cached_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        forward(params, ids, config)
        full_s.append(time.perf_counter() - started)
    return CacheReport(
        T=T,
        n_layers=config.n_layers,
        n_heads=config.n_heads,
        d_head=config.d_head,
        d_model=config.d_model,
        bytes_per_number=b,
        lengths=lengths,
        growth=2 * config.n_layers * lengths * config.d_model * b,  # [context]
        bytes_now=kv_cache_bytes(config.n_layers, T, config.d_model, b),
        sizes=cache_sizes(config, b),
        cost=step_cost(config, T),
        measured_step=float(np.median(cached_s)),
        measured_full=float(np.median(full_s)),
        repeats=repeats,
    )


@dataclass(frozen=True, eq=False)
class Comparison:
    """One text through an encoder's map and the decoder's: what each position can see."""

    encoder_tokens: tuple[str, ...]
    encoder_map: np.ndarray  # one head of the encoder                                [T_e, T_e]
    encoder: Sight  # every key visible: T_e each
    decoder: TextView
    decoder_map: np.ndarray  # one head of the decoder                                [T_d, T_d]
    decoder_sight: Sight  # key j visible to query i when j <= i


def compare(encoder_tokens, encoder_map, text: str, layer: int, head: int) -> Comparison:
    """An encoder's map of a text (attention_core.attention_views gives one) beside the decoder's map of
    the same text at layer `layer`, head `head` (0-based)."""
    e = np.asarray(encoder_map, dtype=np.float64)  # [T_e, T_e]
    if e.ndim != 2 or e.shape[0] != len(encoder_tokens):
        raise ValueError(f"the encoder's map must be [T, T] with one token per row; got {e.shape}.")
    view = read_text(text)
    config = load_decoder().config
    layer, head = _whole(layer, "layer", 0, config.n_layers - 1), _whole(head, "head", 0, config.n_heads - 1)
    d = view.result.weights[layer, head]  # [T_d, T_d]
    return Comparison(
        encoder_tokens=tuple(encoder_tokens),
        encoder_map=e,
        encoder=sight(e),
        decoder=view,
        decoder_map=d,
        decoder_sight=sight(d, view.result.mask),
    )


# --- argument checks ---------------------------------------------------------------------------------


def _tokens(tokens, config: DecoderConfig) -> np.ndarray:
    if not isinstance(config, DecoderConfig):
        raise ValueError(f"config must be a DecoderConfig(...); got {type(config).__name__}.")
    ids = np.asarray(tokens)
    if ids.ndim != 1 or not (ids.size == 0 or np.issubdtype(ids.dtype, np.integer)):
        raise ValueError(f"tokens must be a flat list of whole-number ids; got shape {ids.shape} of {ids.dtype}.")
    if ids.size == 0:
        raise ValueError(
            'the decoder needs at least one token to read; encode_prompt("") starts from a paragraph\'s start.'
        )
    if len(ids) > config.context:
        raise ValueError(
            f"{len(ids)} tokens are more than the model's context of {config.context}; "
            "encode_prompt() keeps the last ones."
        )
    if ids.min() < 0 or ids.max() >= config.vocab_size:
        raise ValueError(f"token ids must lie in 0..{config.vocab_size - 1}; got {ids.min()}..{ids.max()}.")
    return ids.astype(np.int64)  # [T]


def _window_args(window, n_sink) -> tuple[int | None, int]:
    if window is not None:
        window = _whole(window, "window", 1, 10**9)
    n_sink = _whole(n_sink, "n_sink", 0, 10**9)
    if window is None and n_sink:
        raise ValueError("n_sink only matters with a window: with full attention every token is kept anyway.")
    return window, n_sink


def _temperature(temperature) -> float:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.integer, np.floating)):
        raise ValueError(f"temperature must be a number; got {temperature!r}.")
    temperature = float(temperature)
    if not np.isfinite(temperature) or temperature < 0:
        raise ValueError(
            "temperature must be a finite number, 0 or more (0 = always the most probable character); "
            f"got {temperature}."
        )
    return temperature


def _top_k(top_k, V: int) -> int:
    if top_k is None:
        return V
    top_k = _whole(top_k, "top_k", 0, None)
    if top_k == 0:
        raise ValueError("top_k=0 would leave no character to choose: use 1 (always the best) or more, or None (all).")
    return min(top_k, V)


def _whole(n, name: str, low: int, high: int | None) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number; got {n!r}.")
    if n < low or (high is not None and n > high):
        upper = f" to {high}" if high is not None else " or more"
        raise ValueError(f"{name}={n} is out of range: choose {name} from {low}{upper}.")
    return int(n)


__all__ = [
    "MAX_NEW_TOKENS",
    "PARAGRAPH",
    "PUBLISHED_DECODERS",
    "UNKNOWN",
    "CacheReport",
    "CacheSize",
    "CharVocabulary",
    "Comparison",
    "DecoderConfig",
    "DecoderResult",
    "EncodedPrompt",
    "GenerationStep",
    "KVCache",
    "MultiplyAdds",
    "NextToken",
    "ShippedDecoder",
    "Sight",
    "StepCost",
    "StepResult",
    "TextView",
    "cache_report",
    "cache_sizes",
    "compare",
    "decoder_mask",
    "draw_token",
    "empty_cache",
    "encode_prompt",
    "forward",
    "generate",
    "init_params",
    "kv_cache_bytes",
    "load_decoder",
    "n_parameters",
    "next_token",
    "parameter_shapes",
    "prefill",
    "read_text",
    "sampling_probs",
    "sight",
    "step",
    "step_cost",
    "visible",
    "write",
]
