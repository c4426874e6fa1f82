"""Ways of looking at a trained model's attention maps: how much goes to [CLS] and [SEP], the maps
with those two hidden (each row re-normalised over the words), and which simple job a head does.

A BERT-like model puts [CLS] before a text and [SEP] after it. Many of its heads send most of
their attention there: a head with nothing useful to add for a word can "park" its weight on a
token that is always present, and the value it fetches changes the word very little (a common
"no-op"). Hiding those two tokens shows what the rest of the weight does.

Maps are attention weights alpha: [..., T, T] (rows = queries, columns = keys, each row a
probability distribution), with the leading dims e.g. [n_layers, n_heads].

The second half computes what the real-model page shows, once per text: ModelMaps (a text's 72
maps, shipped or from the full model), build_view (everything about them as a frozen ModelView),
head_numbers (one head's drawn map), find_link and default_link (which head links two words),
check_answers (the page's checks) and find_anchors (the heads the presets point at).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SPECIAL_TOKENS = ("[CLS]", "[SEP]")  # the tokens BERT adds around every text
# A piece missing from the vocabulary: two [UNK]s may stand for two different characters (猫 and 狗
# both read [UNK]), so an [UNK] is never "the same word piece" as another.
UNKNOWN = "[UNK]"
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
    self = i, same = every other position holding the same known word piece ([UNK] never counts:
    two may be different characters). The share is the weight on the targets, averaged over the
    word queries that have a target ([CLS] and [SEP] are neither queries nor targets here, so a
    head that parks on them scores low). NaN when no
    query has a target: one word has no previous word, a text without repeats has no "same".
    """
    alpha = _square(weights)  # [..., T, T]
    shares = []
    for target in job_targets(tokens, alpha.shape[-1]):  # [T, T] each: the keys that do the job
        queries = target.any(axis=-1)  # [T]
        if not queries.any():
            shares.append(np.full(alpha.shape[:-2], np.nan))  # [...]
            continue
        on_target = (alpha * target).sum(axis=-1)  # [..., T]
        shares.append(on_target[..., queries].mean(axis=-1))  # [...]
    return np.stack(shares, axis=-1)  # [..., 4]


def job_targets(tokens: Sequence[str], T: int) -> tuple[np.ndarray, ...]:
    """For each job in PATTERNS, which keys are word query i's targets.  -> 4 x bool [T, T]"""
    if len(tokens) != T:
        raise ValueError(f"got {len(tokens)} tokens for maps over {T} positions; they must match.")
    word = ~special_positions(tokens)  # [T]
    pos = np.arange(T)  # [T]
    text = np.array(tokens, dtype=object)  # [T]
    known = text != UNKNOWN  # [T]
    both = word[:, None] & word[None, :]  # [T, T]  a word query and a word key
    same = both & known[:, None] & (text[None, :] == text[:, None]) & (pos[None, :] != pos[:, None])  # [T, T]
    return (
        both & (pos[None, :] == pos[:, None] - 1),  # [T, T]  previous
        both & (pos[None, :] == pos[:, None] + 1),  # [T, T]  next
        both & (pos[None, :] == pos[:, None]),  # [T, T]  self
        same,  # [T, T]  the same known word piece elsewhere
    )


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


# --- what the real-model page shows, computed once per sentence ----------------------------------


@dataclass(frozen=True)
class ModelMaps:
    """The 72 maps of one text as the model made them."""

    tokens: tuple[str, ...]  # word pieces, [CLS] and [SEP] included          T
    maps: np.ndarray  # every layer's and head's weights, float32           [L, H, T, T]
    truncated: bool  # the text had more word pieces than the model reads


def example_maps(example_id: str) -> ModelMaps:
    """A shipped example's maps (attention_core.shipped), as the model made them and stored to
    about three significant digits."""
    from attention_core.shipped import load_examples

    by_id = {e.id: e for e in load_examples()}
    if example_id not in by_id:
        raise ValueError(f"no shipped example {example_id!r}; there are {', '.join(by_id)}.")
    e = by_id[example_id]
    return ModelMaps(tokens=e.tokens, maps=e.attentions, truncated=False)


def text_maps(text: str) -> ModelMaps:
    """The full model (the optional package) on free text, keeping only the maps. The lean float32
    path (keep="stream": the maps and the residual stream, 29 MB at 256 pieces, where keep="all"
    holds every intermediate in float64, 199 MB) computes them; the maps are an array of their own,
    so the ModelMaps keeps them alone (19 MB at 256 pieces). ValueError for unreadable text."""
    from attention_core.pretrained import load_minilm  # the package is optional

    result = load_minilm().encode(text, dtype=np.float32, keep="stream")
    maps = result.attentions  # [L, H, T, T] float32
    maps.setflags(write=False)
    return ModelMaps(tokens=result.tokens, maps=maps, truncated=result.truncated)


@dataclass(frozen=True)
class TextReading:
    """The model's maps of a typed text, or of the fallback text when the typed one cannot be read."""

    maps: ModelMaps
    problem: str | None  # None, or why the fallback is shown: "empty", "no_words" or "unreadable"


def read_text(text: str, fallback: str) -> TextReading:
    """text_maps(text), or text_maps(fallback) with the reason: the text is blank, holds no word
    piece besides [CLS] and [SEP] (only zero-width or control characters), or cannot be read at
    all (a lone surrogate)."""
    if not text.strip():
        return TextReading(text_maps(fallback), "empty")
    try:
        maps = text_maps(text)
    except ValueError:
        return TextReading(text_maps(fallback), "unreadable")
    if special_positions(maps.tokens).all():
        return TextReading(text_maps(fallback), "no_words")
    return TextReading(maps, None)


@dataclass(frozen=True)
class Job:
    """The head that does one simple job most on this text."""

    pattern: str  # one of PATTERNS
    layer: int  # 0-based
    head: int  # 0-based
    share: float  # its score: the average weight a word gives to the job's target


@dataclass(frozen=True)
class Apart:
    """Two copies of one word piece, and the head in which their rows differ most."""

    first: int  # position of the first copy
    second: int  # position of the second copy
    layer: int  # 0-based
    head: int  # 0-based
    distance: float  # rows_apart there, 0 = the same row, 1 = no key in common


@dataclass(frozen=True)
class ModelView:
    """Everything the real-model page shows for one text, [CLS]/[SEP] shown or hidden."""

    tokens: tuple[str, ...]  # the whole text's word pieces                          T
    raw: np.ndarray  # the maps as the model made them                               [L, H, T, T]
    special: np.ndarray  # [CLS] / [SEP] positions                                  [T] bool
    kept: np.ndarray  # the positions drawn (all, or the words when hidden)          [T'] int
    shown_tokens: tuple[str, ...]  # tokens[kept]                                    T'
    maps: np.ndarray  # the maps as drawn, float32                                   [L, H, T', T']
    share: np.ndarray  # each head's share of a word's attention on [CLS]/[SEP]       [L, H]
    patterns: np.ndarray  # each head's score per job of PATTERNS, on the maps drawn  [L, H, 4]
    top_park: tuple[int, int]  # the head that parks most (0-based layer, head)
    jobs: tuple[Job, ...]  # the best head per job that occurs in the text
    previous: Job | None  # the previous-token head on the raw maps ([CLS]/[SEP] included)
    empty_rows: int  # drawn rows left all zero after hiding (every weight was on [CLS]/[SEP])
    apart: Apart | None  # the first repeated word piece and the head telling its copies apart
    truncated: bool  # the text was cut to the model's 256 word pieces
    hidden: bool  # [CLS] and [SEP] are hidden


def build_view(source: ModelMaps, hide: bool) -> ModelView:
    """Every number the page shows for a text's maps, [CLS] and [SEP] hidden or not, computed once."""
    tokens = tuple(source.tokens)
    raw = np.asarray(source.maps)  # [L, H, T, T]
    special = special_positions(tokens)  # [T]
    kept = np.flatnonzero(~special) if hide else np.arange(len(tokens))  # [T']
    shown = hide_tokens(raw, special) if hide else np.asarray(raw, dtype=np.float64)  # [L, H, T', T']
    shown_tokens = tuple(tokens[i] for i in kept)
    share = head_special_share(raw, special)  # [L, H] from the maps as the model made them
    patterns = pattern_shares(shown, shown_tokens)  # [L, H, 4] on the maps as drawn
    jobs = tuple(
        Job(p, *strongest(patterns[..., j]), float(np.nanmax(patterns[..., j])))
        for j, p in enumerate(PATTERNS)
        if not np.isnan(patterns[..., j]).all()
    )
    raw_previous = pattern_shares(raw, tokens)[..., 0]  # [L, H]
    previous = None
    if not np.isnan(raw_previous).all():
        previous = Job("previous", *strongest(raw_previous), float(np.nanmax(raw_previous)))
    out = dict(
        tokens=tokens,
        raw=raw,
        special=special,
        kept=kept,
        shown_tokens=shown_tokens,
        maps=shown.astype(np.float32),
        share=share,
        patterns=patterns,
        top_park=strongest(share),
        jobs=jobs,
        previous=previous,
        empty_rows=int((shown.sum(axis=-1) == 0).sum()),
        apart=_apart(raw, tokens, special),
        truncated=bool(source.truncated),
        hidden=bool(hide),
    )
    for value in out.values():
        if isinstance(value, np.ndarray) and value.flags.writeable:
            value.setflags(write=False)  # cached and shared by every session
    return ModelView(**out)


def _apart(raw: np.ndarray, tokens: tuple[str, ...], special: np.ndarray) -> Apart | None:
    """Two copies of one word piece ("I saw a saw"): the head whose rows for them differ most."""
    repeats = [i for i in range(len(tokens)) if not special[i] and tokens[i] != UNKNOWN and tokens.index(tokens[i]) < i]
    if not repeats:
        return None
    second = repeats[0]
    first = tokens.index(tokens[second])
    apart = rows_apart(raw, first, second)  # [L, H]
    return Apart(first, second, *strongest(apart), float(apart.max()))


@dataclass(frozen=True)
class HeadNumbers:
    """The drawn part of one head's map: its first `limit` queries and keys, and when more keys
    exist one last column holding the rest of each row, so every drawn row still sums to 1."""

    weights: np.ndarray  # [n, n] or [n, n + 1] with the rest column
    positions: np.ndarray  # the drawn tokens' positions in the whole text      [n] int
    rest: int  # keys not drawn (summed in the last column); 0 = no rest column
    row_sums: np.ndarray  # [n]


def head_numbers(view: ModelView, layer: int, head: int, limit: int = 64) -> HeadNumbers:
    """One head's map (layer, head 0-based) cut to its first `limit` tokens, as drawn and tabled."""
    m = view.maps[layer, head]  # [T', T']
    n = min(len(view.kept), limit)
    z = m[:n, :n]  # [n, n]
    rest = len(view.kept) - n
    if rest:
        z = np.hstack([z, m[:n, n:].sum(axis=1, keepdims=True)])  # [n, n + 1]
    return HeadNumbers(weights=z, positions=view.kept[:n], rest=rest, row_sums=z.sum(axis=1))


@dataclass(frozen=True)
class Link:
    """Which head links a query word to a key word most strongly."""

    query: int  # position in the whole text
    key: int  # position in the whole text
    layer: int  # 0-based
    head: int  # 0-based
    weight: float  # that head's weight from the query to the key
    top: int  # position of the key the query looks at most in that head
    top_weight: float


def word_positions(view: ModelView) -> tuple[int, ...]:
    """The positions of the word pieces (not [CLS] / [SEP]): what a "find a head" picker offers."""
    return tuple(int(p) for p in np.flatnonzero(~view.special))


def default_link(view: ModelView) -> tuple[int, int]:
    """The query and key the "find a head" pickers start at: "it" (or the last word) and the word
    at least two places away that it links to most strongly in any head (neighbours would win
    trivially: a previous-token head gives them about 1)."""
    words = word_positions(view)
    query = view.tokens.index("it") if "it" in view.tokens else words[-1]
    row = {int(p): i for i, p in enumerate(view.kept)}  # full position -> row of the drawn maps
    links = view.maps[:, :, row[query]].max(axis=(0, 1))  # [T'] strongest link from the query, any head
    far = [p for p in words if abs(p - query) > 1] or list(words)
    return query, max(far, key=lambda p: links[row[p]])


def find_link(view: ModelView, query: int, key: int) -> Link:
    """The head (on the maps as drawn) with the largest weight from `query` to `key` (positions
    in the whole text), and what the query looks at most there."""
    row = {int(p): i for i, p in enumerate(view.kept)}
    if query not in row or key not in row:
        raise ValueError(f"positions {query} and {key} must both be drawn tokens; drawn: {sorted(row)}.")
    link = view.maps[:, :, row[query], row[key]]  # [L, H]
    layer, head = np.unravel_index(int(np.argmax(link)), link.shape)
    weights = view.maps[layer, head, row[query]]  # [T']
    top = int(np.argmax(weights))
    return Link(query, key, int(layer), int(head), float(link[layer, head]), int(view.kept[top]), float(weights[top]))


@dataclass(frozen=True)
class CheckAnswers:
    """The page's two checks, answered by computation."""

    ask: int  # the word asked about: one from the middle of the text (position)
    previous: Job | None  # the previous-token head; None when the text has no two words
    options: tuple[int, ...]  # the positions offered as "looks at most" answers
    best: int | None  # the right one: where `ask` looks most in the previous-token head
    best_weight: float | None
    parked: float  # in the selected head, the share of `ask`'s attention on [CLS] + [SEP]


def check_answers(view: ModelView, layer: int, head: int) -> CheckAnswers:
    """Answers for "which token does word w look at most in the previous-token head?" and "what
    share of w's attention goes to [CLS] and [SEP] in the selected head (layer, head 0-based)?"."""
    words = word_positions(view)
    T = len(view.tokens)
    ask = words[len(words) // 2]  # a word from the middle of the text
    parked = float(special_share(view.raw[layer, head], view.special)[ask])
    if len(words) < 2 or view.previous is None:
        return CheckAnswers(ask, None, (), None, None, parked)
    row = view.raw[view.previous.layer, view.previous.head, ask]  # [T]
    best = int(np.argmax(row))
    options = tuple(sorted({ask - 1, ask, min(ask + 1, T - 1), 0, T - 1, best}))
    return CheckAnswers(ask, view.previous, options, best, float(row[best]), parked)


@dataclass(frozen=True)
class Anchors:
    """The heads the presets point at, found by computation on the shipped examples."""

    animal: tuple[int, int, int, int]  # (layer, head, "it", "animal"): the head where "it" looks most at "animal"
    saw: tuple[int, int, int, int]  # (layer, head, second "saw", first "saw"): the head telling them apart
    previous: tuple[int, int]  # the previous-token head on the animal sentence
    longest: str  # the longest example's id
    longest_link: tuple[int, int] | None  # ("it", "street") in it, when both occur


ANIMAL_EXAMPLE = "animal_tired"  # "The animal didn't cross the street because it was too tired."
ARTICLE_EXAMPLE = "saw_saw"  # the articles' "I saw a saw": one word, two meanings


def find_anchors(examples: Sequence | None = None) -> Anchors:
    """Anchors on the shipped examples (default: attention_core.shipped.load_examples()): each head
    found by an argmax, never typed in. Layer and head 0-based."""
    if examples is None:
        from attention_core.shipped import load_examples

        examples = load_examples()
    by_id = {e.id: e for e in examples}
    animal, saw = by_id[ANIMAL_EXAMPLE], by_id[ARTICLE_EXAMPLE]
    it, noun = animal.tokens.index("it"), animal.tokens.index("animal")
    first, second = [i for i, tok in enumerate(saw.tokens) if tok == "saw"][:2]
    longest = max(examples, key=lambda e: (len(e.tokens), e.id != ANIMAL_EXAMPLE))
    # In the longest example ("...too wide.") "it" is the street: the long preset asks which head says so.
    words = longest.tokens
    link = (words.index("it"), words.index("street")) if {"it", "street"} <= set(words) else None
    return Anchors(
        animal=(*strongest(animal.attentions[:, :, it, noun]), it, noun),
        saw=(*strongest(rows_apart(saw.attentions, first, second)), second, first),
        previous=strongest(pattern_shares(animal.attentions, animal.tokens)[..., 0]),
        longest=longest.id,
        longest_link=link,
    )
