"""Words as vectors, with the shipped vocabulary (attention_core.shipped): the picked words as
one-hot vectors against their learned vectors, and whether the words of a group gather, as
article 001's picture says (the animals in one cluster, the plants in another, the verbs in a
third). That claim is measured where the vectors live, in all d dimensions: the mean cosine of two
words of the same group against two words of different groups. A flat map can only illustrate
it; the plane chosen here is the one along which the group centres spread most, and the map
reports how much of the words' variance it keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import one_hot
from attention_core.embedding import cosine_similarity, fixed_signs
from attention_core.sequences import embedding_lookup
from attention_core.shipped import load_vocabulary


@dataclass(frozen=True)
class WordVectors:
    """The picked words both ways, and how alike each pair is both ways."""

    words: tuple[str, ...]  # the picked words                                          n
    indices: np.ndarray  # row of each word in the vocabulary: its one-hot position      [n]
    one_hot: np.ndarray  # one-hot vectors, as long as the vocabulary                    [n, V]
    one_hot_similarity: np.ndarray  # their cosines: 1 on the diagonal, 0 elsewhere      [n, n]
    learned: np.ndarray  # the learned vectors                                           [n, d]
    learned_similarity: np.ndarray  # their cosines                                      [n, n]
    lookup_difference: float  # largest |one-hot · E - E[row]|: looking up is multiplying
    pairs: np.ndarray  # every pair (i <= j), most alike (learned) first                 [n(n+1)/2, 2]
    closest: tuple[int, int]  # the most alike pair of different words (learned)
    least: tuple[int, int]  # the least alike pair of different words (learned)


def word_vectors(words: tuple[str, ...]) -> WordVectors:
    """One-hot and learned vectors of at least two shipped words, with their cosine similarities."""
    voc = load_vocabulary()
    if len(words) < 2:
        raise ValueError(f"comparing words needs at least two; got {list(words)}.")
    idx = np.array([voc.index(w) for w in words], dtype=int)  # [n]
    onehots = one_hot(idx, len(voc.words))  # [n, V]
    learned = voc.vectors[idx]  # [n, d]
    sim = cosine_similarity(learned)  # [n, n]
    i, j = np.triu_indices(len(words))  # [P], [P]: every pair, each word with itself included
    order = np.argsort(-sim[i, j], kind="stable")  # [P]
    distinct = [(int(a), int(b)) for a, b in zip(i[order], j[order], strict=True) if a != b]
    return WordVectors(
        words=tuple(words),
        indices=idx,  # [n]
        one_hot=onehots,  # [n, V]
        one_hot_similarity=cosine_similarity(onehots),  # [n, n]
        learned=learned,  # [n, d]
        learned_similarity=sim,  # [n, n]
        lookup_difference=float(np.abs(embedding_lookup(idx, voc.vectors) - learned).max()),
        pairs=np.stack([i[order], j[order]], axis=1),  # [P, 2]
        closest=distinct[0],
        least=distinct[-1],
    )


def groups_of(words: tuple[str, ...]) -> tuple[str, ...]:
    """The groups the words belong to, in the vocabulary's order."""
    voc = load_vocabulary()
    picked = {voc.groups[voc.index(w)] for w in words}
    return tuple(g for g in voc.group_ids if g in picked)


@dataclass(frozen=True)
class GroupMap:
    """The words of some groups of the vocabulary: how alike words of one group are, against
    words of different groups (in all d dimensions), and their places on a 2-D plane."""

    group_ids: tuple[str, ...]  # the groups shown, in the vocabulary's order             k
    rows: np.ndarray  # vocabulary row of each word shown                                 [n]
    labels: tuple[str, ...]  # the group of each word shown                               n
    coords: np.ndarray  # each word on the plane of the group centres                     [n, 2]
    axis_share: np.ndarray  # share of the words' total variance along each axis          [2]
    centre_share: float  # share of the group centres' spread the plane shows (1 for <= 3 groups)
    block_cosine: np.ndarray  # mean cosine, words of group a with words of group b       [k, k]
    within: float  # mean cosine of two different words of the same group
    between: float  # mean cosine of two words of different groups (nan for one group)
    n_within: int  # pairs behind `within`
    n_between: int  # pairs behind `between`
    own_group: np.ndarray  # mean cosine of each word with the other words of its group   [n]
    other_groups: np.ndarray  # mean cosine of each word with the words of other groups   [n] (nan: one group)

    @property
    def kept(self) -> float:
        """The share of the words' total variance the two axes keep together."""
        return float(self.axis_share.sum())

    def position(self, row: int) -> int:
        """Where vocabulary row `row` is among the words shown."""
        return int(np.flatnonzero(self.rows == row)[0])


def group_map(group_ids: tuple[str, ...]) -> GroupMap:
    """Every shipped word of the given groups: cosines within and between groups, and the map."""
    voc = load_vocabulary()
    unknown = sorted(set(group_ids) - set(voc.group_ids))
    if not group_ids or unknown:
        raise ValueError(f"pick groups of the vocabulary, {list(voc.group_ids)}; got {list(group_ids)}.")
    shown = tuple(g for g in voc.group_ids if g in group_ids)  # [k] in the vocabulary's order
    rows = np.array([i for i, g in enumerate(voc.groups) if g in shown], dtype=int)  # [n]
    x = voc.vectors[rows]  # [n, d]
    labels = np.array([voc.groups[r] for r in rows])  # [n]
    within, between = group_cosines(x, labels)
    axes, centre_share = centre_plane(x, labels)  # [2, d]
    centred = x - x.mean(axis=0)  # [n, d]
    coords = centred @ axes.T  # [n, 2]
    own, other, block = _cosines_by_group(x, labels, shown)
    same = labels[:, None] == labels[None, :]  # [n, n]
    return GroupMap(
        group_ids=shown,
        rows=rows,  # [n]
        labels=tuple(labels),
        coords=coords,  # [n, 2]
        axis_share=np.sum(coords**2, axis=0) / np.sum(centred**2),  # [2]
        centre_share=centre_share,
        block_cosine=block,  # [k, k]
        within=within,
        between=between,
        n_within=int((same.sum() - len(rows)) // 2),
        n_between=int((~same).sum() // 2),
        own_group=own,  # [n]
        other_groups=other,  # [n]
    )


def group_cosines(x: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Mean cosine over pairs of different words of the same group, and over pairs of words of
    different groups (nan when there is only one group).  [n, d], [n] -> (within, between)"""
    cos = cosine_similarity(x)  # [n, n]
    same = labels[:, None] == labels[None, :]  # [n, n]
    different_words = ~np.eye(len(x), dtype=bool)  # [n, n]
    within = cos[same & different_words].mean()
    between = cos[~same].mean() if (~same).any() else np.nan
    return float(within), float(between)


def centre_plane(x: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    """The two directions along which the group centres spread most (each centre weighted by its
    group's size), and the share of that spread they show. Fewer than three groups do not span a
    plane: the words' own spread (PCA) gives the missing axes.  [n, d], [n] -> [2, d], share"""
    centred = x - x.mean(axis=0)  # [n, d]
    groups = list(dict.fromkeys(labels))
    sizes = np.array([np.sum(labels == g) for g in groups])  # [k]
    centres = np.stack([centred[labels == g].mean(axis=0) for g in groups])  # [k, d]
    _, s, vt = np.linalg.svd(np.sqrt(sizes)[:, None] * centres, full_matrices=False)  # s: [k], vt: [k, d]
    spread = s**2  # [k]: the centres' spread along each direction
    axes = vt[:2][spread[:2] > 1e-9 * np.sum(centred**2)]  # [<= 2, d]: one group has no spread at all
    share = float(spread[: len(axes)].sum() / spread.sum()) if len(axes) else 1.0
    return fixed_signs(_complete_axes(centred, axes)), share


def _complete_axes(centred: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Add the words' own directions of largest spread, outside the given axes, up to two axes."""
    if len(axes) == 2:
        return axes  # [2, d]
    residual = centred - centred @ axes.T @ axes  # [n, d]: what the given axes do not show
    _, _, vt = np.linalg.svd(residual, full_matrices=False)  # vt: [r, d]
    return np.concatenate([axes, vt[: 2 - len(axes)]])  # [2, d]


def _cosines_by_group(x: np.ndarray, labels: np.ndarray, group_ids) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each word's mean cosine with the other words of its group and with the words of the other
    groups [n], [n]; and the mean cosine of each pair of groups [k, k] (diagonal: different words)."""
    cos = cosine_similarity(x)  # [n, n]
    same = labels[:, None] == labels[None, :]  # [n, n]
    off = ~np.eye(len(x), dtype=bool)  # [n, n]
    own = np.sum(cos * (same & off), axis=1) / np.maximum(np.sum(same & off, axis=1), 1)  # [n]
    with np.errstate(invalid="ignore"):
        other = np.sum(cos * ~same, axis=1) / np.sum(~same, axis=1)  # [n]; nan with one group
    member = np.array([labels == g for g in group_ids], dtype=np.float64)  # [k, n]
    pairs = member @ (cos * off) @ member.T  # [k, k]: sums over pairs of different words
    counts = member @ off.astype(np.float64) @ member.T  # [k, k]
    return own, other, pairs / counts  # [n], [n], [k, k]
