"""What the attention-heatmaps page shows, computed in one call per setting: the T x T weights of
random projections or of one real head, after a mask, a temperature and a choice of softmax or
ReLU; one query's row and the output it makes; and the answers of the page's check.

Three sources of weights:

    random   seeded random token vectors and random W_q, W_k, W_v: no training, so the pattern
             means nothing; it shows how the arithmetic works (random_view)
    model    one head of all-MiniLM-L6-v2 run on the text by the optional full model: its own
             q, k, v, so ReLU and the output b_i work too (model_heads, model_view)
    shipped  one head's stored softmax weights of a shipped example: masks and temperature are
             exact from the weights alone (normalisation.reweight), ReLU is not (shipped_view)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attention_core.attention import causal_mask, local_mask
from attention_core.embedding import token_vectors
from attention_core.normalisation import attend, random_qkv, reweight, strongest_head

MASKS = ("none", "causal", "local")
SOURCES = ("random", "model")  # what the page offers; "shipped" is the model without its package


@dataclass(frozen=True)
class HeatmapView:
    """One heatmap: the weights as drawn, and what made them."""

    tokens: tuple[str, ...]  # as drawn                                          T
    weights: np.ndarray  # rows = queries, columns = keys                        [T, T]
    allowed: np.ndarray | None  # True = query i may look at key j; None = no mask [T, T] bool
    values: np.ndarray | None  # the value vectors; None for stored weights      [T, d_v]
    row_sums: np.ndarray  # each row's total: 1 with softmax, anything with ReLU  [T]
    live: np.ndarray  # rows with at least one key to look at                     [T] bool
    source: str  # "random", "model" or "shipped"
    normalisation: str  # what was applied: "softmax" or "relu"
    mask: str  # "none", "causal" or "local"
    window: int  # the local mask's neighbours on each side (used when mask == "local")
    temperature: float  # τ
    d: int | None  # random: the vector size; else None
    seed: int | None  # random: the seed; else None
    layer: int | None  # model / shipped: the layer, 1-based; else None
    head: int | None  # model / shipped: the head, 1-based; else None
    total_tokens: int  # tokens of the whole text (more than T when it was cut to fit)


def attention_mask(kind: str, T: int, window: int = 2) -> np.ndarray | None:
    """The mask of a name: None (every key), causal (j <= i) or local (|i - j| <= window).  -> [T, T] bool"""
    if kind not in MASKS:
        raise ValueError(f"mask must be one of {', '.join(MASKS)}; got {kind!r}.")
    if kind == "causal":
        return causal_mask(T)  # [T, T]
    if kind == "local":
        return local_mask(T, window)  # [T, T]
    return None


def random_view(
    tokens: Sequence[str],
    d: int,
    seed: int,
    mask: str = "none",
    window: int = 2,
    temperature: float = 1.0,
    normalisation: str = "softmax",
    max_tokens: int | None = None,
) -> HeatmapView:
    """Random projections of seeded random token vectors: weights with no meaning, computed exactly,
    for the first max_tokens tokens (all when None)."""
    total = len(tokens)
    tokens = tuple(tokens)[:max_tokens]
    x = token_vectors(list(tokens), d, seed)  # [T, d]
    q, k, v = random_qkv(x, d, seed)  # [T, d] each
    allowed = attention_mask(mask, len(tokens), window)  # [T, T] or None
    result = attend(q, k, v, mask=allowed, temperature=temperature, normalisation=normalisation)
    settings = dict(mask=mask, window=window, temperature=temperature, d=d, seed=seed, layer=None, head=None)
    return _view(tokens, result.weights, allowed, v, "random", normalisation, settings, total)


@dataclass(frozen=True)
class ModelHeads:
    """Every head's queries, keys and values for one text, from the full model."""

    tokens: tuple[str, ...]  # word pieces, [CLS] and [SEP] included          T
    q: np.ndarray  # per layer and head                                        [L, H, T, d_head]
    k: np.ndarray  #                                                           [L, H, T, d_head]
    v: np.ndarray  #                                                           [L, H, T, d_head]
    total_tokens: int  # word pieces of the whole text (> T when it was cut)


def model_heads(text: str, max_tokens: int = 64) -> ModelHeads:
    """Run the full model (the optional package) on the first max_tokens word pieces of `text`.
    MiniLMNotInstalled without the package; ValueError for text the tokenizer cannot read."""
    from attention_core.pretrained import load_minilm  # the package is optional

    result = load_minilm().encode(text, max_tokens=max_tokens)
    q, k, v = (np.stack([getattr(a, name) for a in result.layers]) for name in ("q_heads", "k_heads", "v_heads"))
    for a in (q, k, v):
        a.setflags(write=False)  # cached and shared
    return ModelHeads(tokens=result.tokens, q=q, k=k, v=v, total_tokens=result.total_tokens)


def model_view(
    heads: ModelHeads,
    layer: int,
    head: int,
    mask: str = "none",
    window: int = 2,
    temperature: float = 1.0,
    normalisation: str = "softmax",
) -> HeatmapView:
    """One real head (layer and head 1-based) recomputed from its own q, k, v with the mask,
    temperature and normalisation: at τ = 1, softmax, no mask these are the model's weights."""
    q, k, v = heads.q[layer - 1, head - 1], heads.k[layer - 1, head - 1], heads.v[layer - 1, head - 1]  # [T, d_head]
    allowed = attention_mask(mask, len(heads.tokens), window)  # [T, T] or None
    result = attend(q, k, v, mask=allowed, temperature=temperature, normalisation=normalisation)
    settings = dict(mask=mask, window=window, temperature=temperature, d=None, seed=None, layer=layer, head=head)
    return _view(heads.tokens, result.weights, allowed, v, "model", normalisation, settings, heads.total_tokens)


def shipped_view(
    tokens: Sequence[str],
    attentions: np.ndarray,
    layer: int,
    head: int,
    mask: str = "none",
    window: int = 2,
    temperature: float = 1.0,
) -> HeatmapView:
    """One head of a shipped example (attentions [L, H, T, T], layer and head 1-based), masked
    and tempered exactly from its stored softmax weights. Always softmax: ReLU needs the scores."""
    allowed = attention_mask(mask, len(tokens), window)  # [T, T] or None
    weights = reweight(attentions[layer - 1, head - 1], mask=allowed, temperature=temperature)  # [T, T]
    settings = dict(mask=mask, window=window, temperature=temperature, d=None, seed=None, layer=layer, head=head)
    return _view(tokens, weights, allowed, None, "shipped", "softmax", settings, len(tokens))


def _view(tokens, weights, allowed, values, source, normalisation, settings, total_tokens) -> HeatmapView:
    weights = np.asarray(weights, dtype=np.float64)  # [T, T]
    live = allowed.any(axis=1) if allowed is not None else np.ones(len(weights), dtype=bool)  # [T]
    arrays = [weights, weights.sum(axis=1), live, allowed, values]
    for a in arrays:
        if a is not None:
            a.setflags(write=False)  # cached and shared by every session
    return HeatmapView(
        tokens=tuple(tokens),
        weights=weights,
        allowed=allowed,
        values=values,
        row_sums=arrays[1],
        live=live,
        source=source,
        normalisation=normalisation,
        total_tokens=total_tokens,
        **settings,
    )


@dataclass(frozen=True)
class QueryRow:
    """One query's row of the heatmap and, when the values are known, the output it makes."""

    query: int  # 0-based position of the query
    weights: np.ndarray  # α'_ij over the keys                                  [T]
    allowed: np.ndarray | None  # keys it may look at; None = all                [T] bool
    best: int  # 0-based position of the key with the largest weight
    total: float  # the row's sum
    terms: np.ndarray | None  # α'_ij v_j, one row per key; None without values  [T, d_v]
    output: np.ndarray | None  # b_i = Σ_j α'_ij v_j                             [d_v]


def query_row(view: HeatmapView, query: int) -> QueryRow:
    """Row `query` (0-based) of the view, its largest weight, and b_i as a sum of weighted values."""
    if not 0 <= query < len(view.tokens):
        raise ValueError(f"query={query} is not a token position; the text has positions 0..{len(view.tokens) - 1}.")
    row = view.weights[query]  # [T]
    terms = output = None
    if view.values is not None:
        terms = row[:, None] * view.values  # [T, d_v]: what each key contributes
        output = terms.sum(axis=0)  # [d_v]
    allowed = view.allowed[query] if view.allowed is not None else None  # [T] or None
    return QueryRow(query, row, allowed, int(np.argmax(row)), float(view.row_sums[query]), terms, output)


def strongest_link(
    attentions: np.ndarray, tokens: Sequence[str], query_word: str, key_word: str
) -> tuple[int, int, int]:
    """The head in which the first `query_word` looks most at the first `key_word`, found by an
    argmax over every (layer, head), and the query's position.  [L, H, T, T] -> (layer, head, query),
    layer and head 1-based, query 0-based."""
    tokens = list(tokens)
    query = tokens.index(query_word)
    layer, head = strongest_head(attentions, query, tokens.index(key_word))
    return layer + 1, head + 1, query


@dataclass(frozen=True)
class CausalCheck:
    """The check "with a causal mask, which tokens can token k see?" for a text of T tokens."""

    k: int  # the token asked about, 1-based
    T: int  # tokens the answers count to (more than k, so that the four answers differ)
    seen: tuple[int, ...]  # the keys row k allows, 1-based: 1 ... k
    hypothetical: bool  # the text has k tokens or fewer: the question is about a longer one


def causal_check(T: int, k: int = 3) -> CausalCheck:
    """Row k of a causal mask over T tokens. A text of k tokens or fewer would make two answers
    the same ("tokens k to T" = "only token k"), so the question is then about k + 2 tokens."""
    n = T if k < T else k + 2
    seen = np.flatnonzero(causal_mask(n)[k - 1]) + 1  # [k] 1-based keys
    return CausalCheck(k=k, T=n, seen=tuple(int(j) for j in seen), hypothetical=n != T)
