"""Ways of looking at a trained model's attention maps: how much goes to [CLS] and [SEP], the maps
with those two hidden (each row re-normalised over the words), and which simple job a head does.

A BERT-like model puts [CLS] before a text and [SEP] after it. Many of its heads send most of
their attention there: a head with nothing useful to add for a word can "park" its weight on a
token that is always present, and the value it fetches changes the word very little (a common
"no-op"). Hiding those two tokens shows what the rest of the weight does.

Maps are attention weights alpha: [..., T, T] (rows = queries, columns = keys, each row a
probability distribution), with the leading dims e.g. [n_layers, n_heads].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SPECIAL_TOKENS = ("[CLS]", "[SEP]")  # the tokens BERT adds around every text
# The simple jobs pattern_shares() measures, in its order: the word just before, the word just
# after, the word itself, and other copies of the same word piece.
PATTERNS = ("previous", "next", "self", "same")


def special_positions(tokens: Sequence[str]) -> np.ndarray:
    """Which positions hold [CLS] or [SEP].  T tokens -> bool [T]

    Wherever they stand: the tokenizer also turns a typed "[SEP]" into the special token.
    """
    return np.array([tok in SPECIAL_TOKENS for tok in tokens], dtype=bool)  # [T]


def special_share(weights: np.ndarray, special: np.ndarray) -> np.ndarray:
    """The share of each row that goes to the special keys.  [..., T_q, T_k], bool [T_k] -> [..., T_q]

    share_i = sum over special keys j of alpha_ij; 1 - share_i is what the words get.
    """
    alpha = _maps(weights)  # [..., T_q, T_k]
    special = _flags(special, alpha.shape[-1], "special")  # [T_k]
    return alpha[..., special].sum(axis=-1)  # [..., T_q]


def head_special_share(weights: np.ndarray, special: np.ndarray) -> np.ndarray:
    """Each head's special share averaged over the word queries.  [..., T, T], bool [T] -> [...]

    [CLS] and [SEP] as queries are left out of the average: the question is how much of a
    *word's* attention is parked on them. ValueError when the text has no word at all.
    """
    alpha = _square(weights)  # [..., T, T]
    special = _flags(special, alpha.shape[-1], "special")  # [T]
    if special.all():
        raise ValueError("the text has no word pieces besides [CLS] and [SEP]; type at least one word.")
    return special_share(alpha, special)[..., ~special].mean(axis=-1)  # [...]


def hide_tokens(weights: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Drop the hidden tokens as queries and as keys, and re-normalise each remaining row over the
    remaining keys, so it is a distribution again.  [..., T, T], bool [T] -> [..., T', T']

        alpha'_ij = alpha_ij / sum over kept l of alpha_il      (i, j kept)

    The order of the kept weights within a row never changes, only their scale: hiding shows
    how a head divides what it does *not* park on the hidden tokens. A row that gave all its
    weight to hidden keys (possible after rounding) has nothing to re-normalise and stays 0.
    """
    alpha = _square(weights)  # [..., T, T]
    kept = ~_flags(hidden, alpha.shape[-1], "hidden")  # [T]
    if not kept.any():
        raise ValueError("every token would be hidden; keep at least one token to show.")
    sub = alpha[..., kept, :][..., kept]  # [..., T', T']
    total = sub.sum(axis=-1, keepdims=True)  # [..., T', 1]
    return np.divide(sub, total, out=np.zeros_like(sub), where=total > 0)  # [..., T', T']


def pattern_shares(weights: np.ndarray, tokens: Sequence[str]) -> np.ndarray:
    """How strongly each head does each job in PATTERNS.  [..., T, T], T tokens -> [..., 4]

    For a job, the target keys of word query i are: previous = word i-1, next = word i+1,
    self = i, same = every other position holding the same word piece. The share is the
    weight on the targets, averaged over the word queries that have a target ([CLS] and [SEP]
    are neither queries nor targets here, so a head that parks on them scores low). NaN when no
    query has a target: one word has no previous word, a text without repeats has no "same".
    """
    alpha = _square(weights)  # [..., T, T]
    T = alpha.shape[-1]
    if len(tokens) != T:
        raise ValueError(f"got {len(tokens)} tokens for maps over {T} positions; they must match.")
    word = ~special_positions(tokens)  # [T]
    pos = np.arange(T)  # [T]
    text = np.array(tokens, dtype=object)  # [T]
    both = word[:, None] & word[None, :]  # [T, T]  a word query and a word key
    targets = (
        both & (pos[None, :] == pos[:, None] - 1),  # [T, T]  previous
        both & (pos[None, :] == pos[:, None] + 1),  # [T, T]  next
        both & (pos[None, :] == pos[:, None]),  # [T, T]  self
        both & (text[None, :] == text[:, None]) & (pos[None, :] != pos[:, None]),  # [T, T]  same word piece
    )
    shares = []
    for target in targets:
        queries = target.any(axis=-1)  # [T]
        if not queries.any():
            shares.append(np.full(alpha.shape[:-2], np.nan))  # [...]
            continue
        on_target = (alpha * target).sum(axis=-1)  # [..., T]
        shares.append(on_target[..., queries].mean(axis=-1))  # [...]
    return np.stack(shares, axis=-1)  # [..., 4]


def strongest(scores: np.ndarray) -> tuple[int, int]:
    """The (layer, head), 0-based, with the largest score, NaN ignored.  [L, H] -> (l, h)"""
    scores = np.asarray(scores, dtype=np.float64)  # [L, H]
    if scores.ndim != 2:
        raise ValueError(f"scores must be one number per layer and head, [L, H]; got shape {scores.shape}.")
    if np.all(np.isnan(scores)):
        raise ValueError("no head has a score here (all NaN): the pattern does not occur in this text.")
    layer, head = np.unravel_index(np.nanargmax(scores), scores.shape)
    return int(layer), int(head)


def rows_apart(weights: np.ndarray, i: int, j: int) -> np.ndarray:
    """How differently queries i and j attend: half the summed absolute difference of their rows
    (total variation), 0 = identical rows, 1 = no key in common.  [..., T, T] -> [...]

    Two copies of one word ("I saw a saw") enter the model as the same vector plus different
    positions; a head where their rows are far apart tells them apart by context.
    """
    alpha = _square(weights)  # [..., T, T]
    T = alpha.shape[-1]
    for name, k in (("i", i), ("j", j)):
        if not 0 <= k < T:
            raise ValueError(f"{name}={k} is not a token position; the text has positions 0..{T - 1}.")
    return 0.5 * np.abs(alpha[..., i, :] - alpha[..., j, :]).sum(axis=-1)  # [...]


# --- argument checks ----------------------------------------------------------------------------


def _maps(weights) -> np.ndarray:
    alpha = np.asarray(weights, dtype=np.float64)  # [..., T_q, T_k]
    if alpha.ndim < 2 or 0 in alpha.shape[-2:]:
        raise ValueError(f"weights must be attention maps [..., T_q, T_k] with T >= 1; got shape {alpha.shape}.")
    if not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
        raise ValueError("weights must be attention weights: finite and never negative (softmax output).")
    return alpha


def _square(weights) -> np.ndarray:
    alpha = _maps(weights)  # [..., T, T]
    if alpha.shape[-1] != alpha.shape[-2]:
        raise ValueError(f"self-attention maps are square, [..., T, T]; got shape {alpha.shape}.")
    return alpha


def _flags(flags, T: int, name: str) -> np.ndarray:
    flags = np.asarray(flags)  # [T]
    if flags.dtype != bool or flags.shape != (T,):
        raise ValueError(f"{name} must be one True/False per token, {T} of them; got {flags.dtype} {flags.shape}.")
    return flags
