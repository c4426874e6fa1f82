"""Where attention sits: one whole block of the real model (all-MiniLM-L6-v2), layer by layer.

Four views of one text, each a frozen result of arrays a page draws, computed by the encoder's own
functions (attention_core.pretrained), never a copy of them:

- layer_view: one block end to end, from the embeddings to the block's output;
- token_paths: every token through all six blocks: how much each sublayer (attention, FFN) changes
  it against the residual stream it is added to, its cosine to its input, its nearest tokens;
- text_rollout: attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in
  Transformers"), the residual folded in as 0.5 I + 0.5 A, beside the raw maps;
- head_ablation: each of the 72 heads switched off in turn, how far the sentence embedding and a
  sentence pair's similarity move, against how peaked the head's map is ("is attention an
  explanation?": Jain & Wallace 2019 say often not, Wiegreffe & Pinter 2019 that it depends on the
  test). What it measures holds for this one model and text.

Every text function accepts any string: empty text gives [CLS] [SEP], a long one is cut to
max_tokens (PieceReport says by how much), pieces the English vocabulary lacks (most Chinese
characters) become [UNK] and are counted. The only errors are documented ValueErrors (a lone
UTF-16 surrogate, arguments out of range) and MiniLMNotInstalled without the model package.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.pretrained import (
    ABLATIONS,
    UNKNOWN,
    BlockRecord,
    EmbeddingRecord,
    EncodeResult,
    MiniLMEncoder,
    l2_normalise,
    load_minilm,
    mean_pool,
    stream_block,
)

DEFAULT_MAX_TOKENS = 64  # what a page reads of a text: the maps stay legible and a result stays small


@dataclass(frozen=True)
class PieceReport:
    """How the tokenizer read a text, in fields a page can word (nothing here is an error)."""

    tokens: tuple[str, ...]  # the word pieces the model read, [CLS] and [SEP] included   T
    n_characters: int  # len(text)
    n_pieces: int  # T
    total_pieces: int  # pieces of the whole text with [CLS] and [SEP] (> T when it was cut)
    n_cut: int  # pieces dropped from the end (total_pieces - T); [SEP] still closes the input
    max_tokens: int  # the limit the text was cut to
    n_unknown: int  # pieces that became [UNK]
    is_unknown: tuple[bool, ...]  # per piece: it is [UNK]                                 T
    empty: bool  # nothing but [CLS] [SEP]: blank text, or only control / zero-width characters

    @property
    def truncated(self) -> bool:
        return self.n_cut > 0


def piece_report(text: str, result: EncodeResult, max_tokens: int) -> PieceReport:
    """The reading of `text` that `result` (its encode) holds."""
    return PieceReport(
        tokens=result.tokens,
        n_characters=len(text),
        n_pieces=len(result.tokens),
        total_pieces=result.total_tokens,
        n_cut=result.total_tokens - len(result.tokens),
        max_tokens=max_tokens,
        n_unknown=result.n_unknown,
        is_unknown=tuple(t == UNKNOWN for t in result.tokens),
        empty=len(result.tokens) == 2,
    )


def same_piece(tokens: tuple[str, ...]) -> np.ndarray:
    """True where two different positions hold the same word piece.  T -> bool [T, T]

    Two [UNK] are not the same piece: they stand for characters the vocabulary lacks, usually
    different ones (我 and 猫 both read [UNK]).
    """
    t = np.array(tokens, dtype=object)  # [T]
    same = (t[:, None] == t[None, :]) & (t != UNKNOWN)[:, None]  # [T, T]
    np.fill_diagonal(same, False)
    return same  # [T, T]


# --- one block end to end ------------------------------------------------------------------------


@dataclass(frozen=True)
class LayerView:
    """One block of the real model with every intermediate, and the embeddings that feed block 1."""

    pieces: PieceReport
    layer_number: int  # 1..n_layers
    embedding: EmbeddingRecord  # word + position + segment, LayerNorm: block 1's input
    block: BlockRecord  # x -> MultiHead -> x + a -> LN -> FFN -> h + f -> LN, every array kept
    n_layers: int  # 6
    n_heads: int  # 12
    d_model: int  # 384
    d_head: int  # d_model / n_heads = 32
    d_ff: int  # 1536 = 4 d_model
    eps: float  # the layer norms' ε (1e-12)


def layer_view(
    text: str, layer_number: int = 1, max_tokens: int = DEFAULT_MAX_TOKENS, encoder: MiniLMEncoder | None = None
) -> LayerView:
    """Block `layer_number` (from 1) of the model reading `text`, in float64: the arrays are those
    encode(keep="all") computes, so they are exactly what produced the model's output."""
    enc = encoder or load_minilm()
    c = enc.config
    if not 1 <= int(layer_number) <= c.n_layers:
        raise ValueError(f"layer_number={layer_number}: the model has layers 1 to {c.n_layers}.")
    result = enc.encode(text, max_tokens=max_tokens, keep="all")
    return LayerView(
        pieces=piece_report(text, result, max_tokens),
        layer_number=int(layer_number),
        embedding=result.embedding,
        block=result.blocks[int(layer_number) - 1],
        n_layers=c.n_layers,
        n_heads=c.n_heads,
        d_model=c.d_model,
        d_head=c.d_model // c.n_heads,
        d_ff=c.d_ff,
        eps=c.eps,
    )


# --- every token through all the blocks -----------------------------------------------------------


@dataclass(frozen=True)
class TokenPaths:
    """Every token's vector through the blocks; a page picks a token t and reads column t.

    Index l of a [L, T] array is block l + 1; index s of an [L + 1, ...] array is hidden state s
    (0: the embeddings, l: block l's output). Post-LN: block l adds a = MultiHead(x) to its input x
    and normalises, h = LN(x + a), then adds f = FFN(h) and normalises again.
    """

    pieces: PieceReport
    stream_norms: np.ndarray  # |x| of every hidden state                                  [L + 1, T]
    attention_update_norms: np.ndarray  # |a|, the attention sublayer's update               [L, T]
    attention_ratio: np.ndarray  # |a| / |x|: the update against the stream it is added to    [L, T]
    ffn_stream_norms: np.ndarray  # |h|, the stream the FFN's update is added to              [L, T]
    ffn_update_norms: np.ndarray  # |f|                                                       [L, T]
    ffn_ratio: np.ndarray  # |f| / |h|                                                         [L, T]
    cosine_after_attention: np.ndarray  # cos(h, x): how far the attention step turned it      [L, T]
    cosine_after_ffn: np.ndarray  # cos(out, h): how far the FFN step turned it                 [L, T]
    cosine_to_input: np.ndarray  # cos(out, x): the whole block                                 [L, T]
    token_cosines: np.ndarray  # cosine of every pair of tokens at each hidden state           [L + 1, T, T]
    neighbours: np.ndarray  # the k other tokens nearest (by cosine), nearest first              [L + 1, T, k]
    neighbour_cosines: np.ndarray  # their cosines                                              [L + 1, T, k]
    neighbour_same_piece: np.ndarray  # the neighbour is the same word piece (never for [UNK])   [L + 1, T, k]


def token_paths(
    text: str,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    k: int = 3,
    dtype: np.dtype = np.float32,
    encoder: MiniLMEncoder | None = None,
) -> TokenPaths:
    """Every token of `text` through every block; k nearest other tokens (fewer if the text has
    fewer than k + 1 pieces)."""
    if int(k) < 1:
        raise ValueError(f"k={k}: ask for at least one nearest token.")
    enc = encoder or load_minilm()
    r = enc.encode(text, max_tokens=max_tokens, dtype=dtype, keep="stream")
    x, h, out = r.hidden_states[:-1], r.mid_states, r.hidden_states[1:]  # [L, T, d_model] each
    stream = np.linalg.norm(r.hidden_states, axis=-1)  # [L + 1, T]
    a_norm = np.linalg.norm(r.attention_updates, axis=-1)  # [L, T]
    h_norm = np.linalg.norm(h, axis=-1)  # [L, T]
    f_norm = np.linalg.norm(r.ffn_updates, axis=-1)  # [L, T]
    cosines = pairwise_cosines(r.hidden_states)  # [L + 1, T, T]
    near, near_cos = nearest_others(cosines, min(int(k), len(r.tokens) - 1))  # [L + 1, T, k] x2
    same = same_piece(r.tokens)  # [T, T]
    return TokenPaths(
        pieces=piece_report(text, r, max_tokens),
        stream_norms=stream,
        attention_update_norms=a_norm,
        attention_ratio=a_norm / np.maximum(stream[:-1], 1e-12),
        ffn_stream_norms=h_norm,
        ffn_update_norms=f_norm,
        ffn_ratio=f_norm / np.maximum(h_norm, 1e-12),
        cosine_after_attention=row_cosines(h, x),
        cosine_after_ffn=row_cosines(out, h),
        cosine_to_input=row_cosines(out, x),
        token_cosines=cosines,
        neighbours=near,
        neighbour_cosines=near_cos,
        neighbour_same_piece=np.take_along_axis(same[None], near, axis=-1),  # [L + 1, T, k]
    )


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine of each row of a with the same row of b.  [..., d], [..., d] -> [...]"""
    dot = np.einsum("...d,...d->...", a, b)  # [...]
    return dot / np.maximum(np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1), 1e-12)  # [...]


def pairwise_cosines(x: np.ndarray) -> np.ndarray:
    """Cosine of every pair of rows.  [..., T, d] -> [..., T, T]"""
    unit = l2_normalise(x)  # [..., T, d]
    return unit @ np.swapaxes(unit, -1, -2)  # [..., T, T]


def nearest_others(cosines: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the k other columns of highest cosine, highest first (ties: lower index first).
    [..., T, T] -> ([..., T, k] int, [..., T, k])"""
    T = cosines.shape[-1]
    if not 1 <= k <= T - 1:
        raise ValueError(f"k={k}: a token has {T - 1} other tokens to be near.")
    masked = np.where(np.eye(T, dtype=bool), -np.inf, cosines)  # [..., T, T]; a token is not its own neighbour
    order = np.argsort(-masked, axis=-1, kind="stable")[..., :k]  # [..., T, k]
    return order, np.take_along_axis(cosines, order, axis=-1)  # [..., T, k] x2


# --- attention rollout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rollout:
    """Attention rollout (Abnar & Zuidema 2020): how much of each input token reaches each token,
    following the attention of every block and the residual connection around it."""

    raw: np.ndarray  # each block's attention, heads averaged              [L, T, T]
    mixed: np.ndarray  # residual · I + (1 - residual) · raw, rows sum to 1  [L, T, T]
    rollout: np.ndarray  # mixed[l] @ ... @ mixed[0]: inputs reaching block l+1's output  [L, T, T]
    residual: float  # the weight of the residual path (0.5 in the paper)


def attention_rollout(attentions: np.ndarray, residual: float = 0.5) -> Rollout:
    """Roll the maps out over the blocks.  [L, H, T, T] -> Rollout

    Ã_l = residual · I + (1 - residual) · mean_h A_l, each row rescaled to sum to 1, and
    R_l = Ã_l R_(l-1) with R_0 = Ã_0: row i of R_l says how much of each input token token i
    carries after block l + 1, if attention alone moved information between tokens.
    """
    attentions = np.asarray(attentions)
    if attentions.ndim != 4 or attentions.shape[-1] != attentions.shape[-2]:
        raise ValueError(f"attentions must be shaped [layers, heads, T, T]; got {attentions.shape}.")
    residual = float(residual)
    if not 0.0 <= residual <= 1.0:
        raise ValueError(f"residual={residual}: the residual's share must lie between 0 and 1.")
    L, _, T, _ = attentions.shape
    raw = attentions.mean(axis=1)  # [L, T, T]
    mixed = residual * np.eye(T, dtype=raw.dtype) + (1.0 - residual) * raw  # [L, T, T]
    mixed = mixed / np.maximum(mixed.sum(axis=-1, keepdims=True), np.finfo(raw.dtype).tiny)  # [L, T, T]
    rolled = np.empty_like(mixed)  # [L, T, T]
    rolled[0] = mixed[0]
    for layer in range(1, L):
        rolled[layer] = mixed[layer] @ rolled[layer - 1]  # [T, T]
    return Rollout(raw=raw, mixed=mixed, rollout=rolled, residual=residual)


@dataclass(frozen=True)
class RolloutView:
    pieces: PieceReport
    rollout: Rollout


def text_rollout(
    text: str,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    residual: float = 0.5,
    dtype: np.dtype = np.float32,
    encoder: MiniLMEncoder | None = None,
) -> RolloutView:
    """attention_rollout of the model's maps for `text`; a page shows row t of raw and of rollout."""
    enc = encoder or load_minilm()
    r = enc.encode(text, max_tokens=max_tokens, dtype=dtype, keep="stream")
    return RolloutView(pieces=piece_report(text, r, max_tokens), rollout=attention_rollout(r.attentions, residual))


# --- head ablation: is attention an explanation? -------------------------------------------------


@dataclass(frozen=True)
class AblationResult:
    """Every head switched off in turn, against how peaked its map is. [L, H] arrays: block, head."""

    pieces: PieceReport
    pair_pieces: PieceReport | None  # the second sentence, when a pair similarity was asked for
    mode: str  # "zero" (the head's output set to 0) or "uniform" (its weights set to 1/T)
    embedding_shift: np.ndarray  # 1 - cos(sentence embedding, the same with the head off)      [L, H]
    similarity: float | None  # cos of the two sentences' embeddings, every head on
    ablated_similarity: np.ndarray | None  # the same with the head off in both encodes          [L, H]
    similarity_shift: np.ndarray | None  # ablated_similarity - similarity                        [L, H]
    mean_max_weight: np.ndarray  # the head's largest weight per query row, averaged: 1/T flat, 1 one-hot  [L, H]
    mean_entropy: np.ndarray  # entropy of the head's rows in nats, averaged: 0 one-hot, ln T flat   [L, H]
    effect_rank: np.ndarray  # 1 = the head whose removal moves the embedding most                [L, H]
    peak_rank: np.ndarray  # 1 = the head with the highest mean max weight                         [L, H]
    spearman_max_weight: float | None  # rank correlation of embedding_shift with mean_max_weight
    spearman_entropy: float | None  # of embedding_shift with mean_entropy (negative: peaked heads matter more)
    similarity_spearman_max_weight: float | None  # of |similarity_shift| with mean_max_weight


def head_ablation(
    text: str,
    pair_text: str | None = None,
    mode: str = "zero",
    max_tokens: int = DEFAULT_MAX_TOKENS,
    dtype: np.dtype = np.float32,
    encoder: MiniLMEncoder | None = None,
) -> AblationResult:
    """All 72 ablations of `text` (and of `pair_text`, if given) in one call, for a page to cache.

    A head of block l changes only blocks l and above, so each ablation starts from the unchanged
    input of its block, and the ablations that have started run the blocks above together, one
    batch per block (ablated_embeddings).
    """
    if mode not in ABLATIONS:
        raise ValueError(f"mode={mode!r} is not one of {', '.join(ABLATIONS)}.")
    enc = encoder or load_minilm()
    base = enc.encode(text, max_tokens=max_tokens, dtype=dtype, keep="stream")
    ablated = ablated_embeddings(enc, base, mode)  # [L, H, d_model]
    shift = 1.0 - ablated @ base.sentence_embedding  # [L, H]
    max_weight, entropy = head_peakedness(base.attentions)  # [L, H] x2
    pair_pieces = similarity = ablated_similarity = similarity_shift = rho_similarity = None
    if pair_text is not None:
        pair = enc.encode(pair_text, max_tokens=max_tokens, dtype=dtype, keep="stream")
        pair_pieces = piece_report(pair_text, pair, max_tokens)
        similarity = float(base.sentence_embedding @ pair.sentence_embedding)
        ablated_similarity = np.einsum("lhd,lhd->lh", ablated, ablated_embeddings(enc, pair, mode))  # [L, H]
        similarity_shift = ablated_similarity - similarity  # [L, H]
        rho_similarity = spearman(np.abs(similarity_shift), max_weight)
    return AblationResult(
        pieces=piece_report(text, base, max_tokens),
        pair_pieces=pair_pieces,
        mode=mode,
        embedding_shift=shift,
        similarity=similarity,
        ablated_similarity=ablated_similarity,
        similarity_shift=similarity_shift,
        mean_max_weight=max_weight,
        mean_entropy=entropy,
        effect_rank=descending_rank(shift),
        peak_rank=descending_rank(max_weight),
        spearman_max_weight=spearman(shift, max_weight),
        spearman_entropy=spearman(shift, entropy),
        similarity_spearman_max_weight=rho_similarity,
    )


def ablated_embeddings(encoder: MiniLMEncoder, base: EncodeResult, mode: str = "zero") -> np.ndarray:
    """The sentence embedding with each head switched off in turn.  -> [L, H, d_model], unit rows

    `base` is encode(keep="stream") of the text: its hidden_states[l] is block l's input, which no
    head of block l or above can change. Entering block l, the H new variants (head h of block l
    off) join the variants already running, so block l runs once, on a batch of H · (l + 1).
    """
    c = encoder.config
    L, H = c.n_layers, c.n_heads
    blocks = encoder.lean_blocks(base.hidden_states.dtype)
    running = np.empty((0, *base.hidden_states.shape[1:]), dtype=base.hidden_states.dtype)  # [0, T, d_model]
    for layer, block in enumerate(blocks):
        fresh = np.broadcast_to(base.hidden_states[layer], (H, *running.shape[1:]))  # [H, T, d_model]
        x = np.concatenate([running, fresh])  # [H (layer + 1), T, d_model]
        off = np.concatenate([np.full(len(running), -1), np.arange(H)])  # only the fresh ones lose a head here
        running = stream_block(x, block, c.n_heads, c.eps, off, mode).output  # [H (layer + 1), T, d_model]
    # running holds block 0's variants first, then block 1's, ...: exactly [L, H] in order
    return l2_normalise(mean_pool(running)).reshape(L, H, -1)  # [L, H, d_model]


def head_peakedness(attentions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How peaked each head's map is, averaged over its query rows.  [L, H, T, T] -> ([L, H], [L, H])

    The mean of each row's largest weight (1/T for a flat row, 1 for a one-hot one) and the mean
    row entropy in nats (ln T flat, 0 one-hot).
    """
    a = np.asarray(attentions, dtype=np.float64)  # [L, H, T, T]
    max_weight = a.max(axis=-1).mean(axis=-1)  # [L, H]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(a > 0, a * np.log(a), 0.0)  # [L, H, T, T]; 0 log 0 = 0
    return max_weight, -plogp.sum(axis=-1).mean(axis=-1)  # [L, H] x2


def descending_rank(values: np.ndarray) -> np.ndarray:
    """1 for the largest value, 2 for the next, ... (ties keep the flat order).  [...] -> [...] int"""
    flat = np.asarray(values).ravel()  # [n]
    ranks = np.empty(flat.size, dtype=np.intp)  # [n]
    ranks[np.argsort(-flat, kind="stable")] = np.arange(1, flat.size + 1)
    return ranks.reshape(np.shape(values))  # [...]


def spearman(a: np.ndarray, b: np.ndarray) -> float | None:
    """Spearman's rank correlation (Pearson's r of the ranks, ties given their average rank).
    [...], [...] -> float; None when either side is constant (no order to compare)."""
    ra, rb = _average_ranks(np.ravel(a)), _average_ranks(np.ravel(b))  # [n] x2
    if ra.size != rb.size:
        raise ValueError(f"spearman needs two equally long lists; got {ra.size} and {rb.size}.")
    da, db = ra - ra.mean(), rb - rb.mean()  # [n] x2
    denominator = np.sqrt((da @ da) * (db @ db))
    return None if denominator == 0 else float(da @ db / denominator)


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, tied values sharing the mean of their ranks.  [n] -> [n]"""
    order = np.argsort(x, kind="stable")  # [n]
    ranks = np.empty(x.size)  # [n]
    ranks[order] = np.arange(1, x.size + 1)
    _, first, counts = np.unique(x[order], return_index=True, return_counts=True)
    for start, count in zip(first, counts, strict=True):
        if count > 1:
            ranks[order[start : start + count]] = start + (count + 1) / 2
    return ranks  # [n]


# --- the arrays of one block, named and shaped, for a page to walk through -----------------------

# Every array of LayerView in the order the model computes it: the input layer, then the block.
STAGES = (
    "word",  # the piece's row of the vocabulary table                 [T, d_model]
    "position",  # learned position rows                                [T, d_model]
    "segment",  # sentence A's row, the same for every piece            [d_model]
    "embedding_sum",  # word + position + segment                       [T, d_model]
    "embedding",  # LayerNorm of the sum: block 1's input               [T, d_model]
    "input",  # x, this block's input (the previous block's output)     [T, d_model]
    "q",  # Q = x W_q + b_q, cut into heads                             [h, T, d_head]
    "k",  # K                                                           [h, T, d_head]
    "v",  # V                                                           [h, T, d_head]
    "weights",  # softmax(Q Kᵀ / √d_head) per head                       [h, T, T]
    "heads",  # each head's weights · V                                 [h, T, d_head]
    "concat",  # the heads side by side                                 [T, d_model]
    "attention",  # a = concat W_o + b_o                                [T, d_model]
    "residual_1",  # x + a                                              [T, d_model]
    "norm_1",  # h = LayerNorm(x + a)                                   [T, d_model]
    "ff_hidden",  # h W₁ + b₁                                           [T, d_ff]
    "ff_activation",  # GELU(h W₁ + b₁)                                 [T, d_ff]
    "ff_output",  # f = GELU(h W₁ + b₁) W₂ + b₂                         [T, d_model]
    "residual_2",  # h + f                                              [T, d_model]
    "output",  # LayerNorm(h + f): the next block's input               [T, d_model]
)


@dataclass(frozen=True)
class Stage:
    """One array of the block as the model computed it, with what a page writes beside it."""

    name: str  # one of STAGES
    array: np.ndarray  # the array itself (a view of LayerView's): [T, d], [h, T, d_head], [h, T, T] or [d_model]
    token_axis: int | None  # the axis that runs over the pieces; None for the segment row, shared by all
    token_norms: np.ndarray  # |the piece's numbers| over every other axis (12 heads' rows together)  [T]
    mean: float  # of every number in the array
    std: float


def layer_stages(view: LayerView) -> tuple[Stage, ...]:
    """view's arrays in STAGES order, each with its per-piece norm, mean and spread."""
    e, b = view.embedding, view.block
    a = b.attention
    arrays = (
        (e.word, 0),
        (e.position, 0),
        (e.segment, None),
        (e.total, 0),
        (e.output, 0),
        (b.input, 0),
        (a.q_heads, 1),
        (a.k_heads, 1),
        (a.v_heads, 1),
        (a.weights, 1),
        (a.heads, 1),
        (a.concat, 0),
        (a.output, 0),
        (b.attention_residual, 0),
        (b.attention_norm, 0),
        (b.ff_hidden, 0),
        (b.ff_activation, 0),
        (b.ff_output, 0),
        (b.ff_residual, 0),
        (b.output, 0),
    )
    T = len(view.pieces.tokens)
    stages = []
    for name, (array, axis) in zip(STAGES, arrays, strict=True):
        if axis is None:
            norms = np.full(T, np.linalg.norm(array))  # [T]: the one row every piece gets
        else:
            rows = np.moveaxis(array, axis, 0).reshape(T, -1)  # [T, everything else]
            norms = np.linalg.norm(rows, axis=-1)  # [T]
        stages.append(Stage(name, array, axis, norms, float(array.mean()), float(array.std())))
    return tuple(stages)


# --- do the two rankings of the heads agree? -----------------------------------------------------


@dataclass(frozen=True)
class RankingAgreement:
    """The heads that matter most to the sentence embedding against the most peaked ones.
    Heads are (layer, head) pairs from 0; a page shows them + 1."""

    k: int  # how many heads at the top of each ranking are compared
    top_effect: tuple[tuple[int, int], ...]  # the k heads whose removal moves the embedding most, most first
    top_peaked: tuple[tuple[int, int], ...]  # the k heads of highest mean max weight, most peaked first
    shared: tuple[tuple[int, int], ...]  # heads in both, in top_effect's order
    effect_rank_of_peaked: tuple[int, ...]  # where each of top_peaked stands in the effect ranking (1..72)
    spearman: float | None  # rank correlation of the effect with the mean max weight, all heads
    verdict: str  # "agree" (spearman >= STRONG), "opposite" (<= -STRONG), "unrelated" (between), "none"


STRONG = 0.4  # |Spearman| from which the two rankings are said to (dis)agree rather than to be unrelated


def ranking_agreement(result: AblationResult, k: int = 5) -> RankingAgreement:
    """Compare head_ablation's effect ranking with its peakedness ranking: top k of each, their
    overlap, and the correlation over all heads, turned into one of four verdicts."""
    L, H = result.embedding_shift.shape
    if not 1 <= int(k) <= L * H:
        raise ValueError(f"k={k}: compare between 1 and {L * H} heads.")
    k = int(k)

    def top(ranks: np.ndarray) -> tuple[tuple[int, int], ...]:
        order = np.argsort(ranks.ravel(), kind="stable")[:k]  # [k], flat indices, rank 1 first
        return tuple((int(i) // H, int(i) % H) for i in order)

    by_effect, by_peak = top(result.effect_rank), top(result.peak_rank)
    rho = result.spearman_max_weight
    if rho is None:
        verdict = "none"
    else:
        verdict = "agree" if rho >= STRONG else "opposite" if rho <= -STRONG else "unrelated"
    return RankingAgreement(
        k=k,
        top_effect=by_effect,
        top_peaked=by_peak,
        shared=tuple(h for h in by_effect if h in by_peak),
        effect_rank_of_peaked=tuple(int(result.effect_rank[layer, head]) for layer, head in by_peak),
        spearman=rho,
        verdict=verdict,
    )
