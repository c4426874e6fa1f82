"""Precomputed outputs of all-MiniLM-L6-v2 that ship with the app (attention_core/data/, about 1 MB).

They let every page show a real model without the optional 83 MB package: word vectors for an
embedding map, the learned position table, and the attention maps of a few example sentences.
scripts/build_model_data.py computes them with our own encoder (attention_core.pretrained) and
stores them as float16; the loaders here return float64, read-only and cached, and need only
NumPy and the safetensors library.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data"
VOCABULARY_JSON = DATA_DIR / "minilm_vocabulary.json"  # words, glosses, groups
VOCABULARY_TENSORS = DATA_DIR / "minilm_vocabulary.safetensors"  # "vectors" [V, d_model]
POSITIONS_TENSORS = DATA_DIR / "minilm_positions.safetensors"  # "position_embeddings" [n_positions, d_model]
EXAMPLES_JSON = DATA_DIR / "minilm_examples.json"  # ids, texts, word pieces
EXAMPLES_TENSORS = DATA_DIR / "minilm_examples.safetensors"  # one [n_layers, n_heads, T, T] per example id


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """A curated set of English words in clear groups, with the model's vector for each."""

    words: tuple[str, ...]  # English words, lower case                                  V
    glosses_zh: tuple[str, ...]  # a natural Simplified Chinese translation of each word   V
    groups: tuple[str, ...]  # each word's group id, ASCII, e.g. "animals"                V
    group_ids: tuple[str, ...]  # the distinct group ids, in display order
    vectors: np.ndarray  # sentence embedding of each word encoded alone, unit rows    [V, d_model]

    def index(self, word: str) -> int:
        """Row of `word` (case and surrounding spaces ignored); ValueError if it is not shipped."""
        key = word.strip().lower()
        try:
            return self.words.index(key)
        except ValueError:
            raise ValueError(
                f"{word!r} is not in the shipped vocabulary of {len(self.words)} words; "
                f"pick one of them, e.g. {', '.join(self.words[:5])}."
            ) from None


@dataclass(frozen=True, eq=False)
class ExampleEncoding:
    """One example sentence as the model saw it."""

    id: str  # stable ASCII id, e.g. "animal_tired"; pages and links use it
    text: str  # the sentence
    tokens: tuple[str, ...]  # word pieces incl. [CLS] and [SEP]          T
    attentions: np.ndarray  # every block's attention, rows sum to 1    [n_layers, n_heads, T, T]


@functools.lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    """The shipped word vectors with their glosses and groups."""
    meta = json.loads(VOCABULARY_JSON.read_text(encoding="utf-8"))
    entries = meta["entries"]
    vectors = _read(VOCABULARY_TENSORS, "vectors")  # [V, d_model]
    # float16 storage leaves |v| = 1 ± 1e-3; rescale so that a dot product is exactly a cosine.
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)  # [V, d_model]
    return Vocabulary(
        words=tuple(e["word"] for e in entries),
        glosses_zh=tuple(e["gloss_zh"] for e in entries),
        groups=tuple(e["group"] for e in entries),
        group_ids=tuple(meta["group_ids"]),
        vectors=_read_only(vectors),
    )


@functools.lru_cache(maxsize=1)
def load_position_table() -> np.ndarray:
    """The model's learned position embeddings, row p added to the token at position p.  -> [512, 384]"""
    return _read_only(_read(POSITIONS_TENSORS, "position_embeddings"))  # [n_positions, d_model]


@functools.lru_cache(maxsize=1)
def load_examples() -> tuple[ExampleEncoding, ...]:
    """The example sentences, in display order, with all 6 x 12 attention maps each."""
    from safetensors.numpy import load_file

    meta = json.loads(EXAMPLES_JSON.read_text(encoding="utf-8"))
    maps = load_file(EXAMPLES_TENSORS)  # id -> float16 [n_layers, n_heads, T, T]
    examples = []
    for e in meta["examples"]:
        a = maps[e["id"]].astype(np.float64)  # [n_layers, n_heads, T, T]
        # float16 rounding leaves row sums of 1 ± 1e-3; rescale so each row is a distribution again.
        a = a / a.sum(axis=-1, keepdims=True)  # [n_layers, n_heads, T, T]
        examples.append(
            ExampleEncoding(id=e["id"], text=e["text"], tokens=tuple(e["tokens"]), attentions=_read_only(a))
        )
    return tuple(examples)


def group_cohesion(vectors: np.ndarray, groups, group_ids) -> tuple[np.ndarray, np.ndarray]:
    """How tightly each group clusters: mean cosine between two different words of the group,
    and mean cosine between a word of the group and a word outside it.  -> [G], [G]

    vectors: [V, d] unit rows; groups: the group id of each row; group_ids: the G groups to report.
    A group clusters when its first number is clearly above its second.
    """
    cos = vectors @ vectors.T  # [V, V]
    labels = np.asarray(groups)  # [V]
    within, between = [], []
    for gid in group_ids:
        inside = labels == gid  # [V]
        n = int(inside.sum())
        if n < 2:
            raise ValueError(f"group {gid!r} has {n} word(s); cohesion needs at least two.")
        block = cos[np.ix_(inside, inside)]  # [n, n]
        within.append((block.sum() - np.trace(block)) / (n * (n - 1)))  # pairs of different words
        between.append(cos[np.ix_(inside, ~inside)].mean())
    return np.array(within), np.array(between)  # [G], [G]


def _read(path: Path, name: str) -> np.ndarray:
    from safetensors.numpy import load_file

    return load_file(path)[name].astype(np.float64)  # [...], float16 on disk


def _read_only(a: np.ndarray) -> np.ndarray:
    """The loaders are cached, so every caller gets the same array: forbid writing into it."""
    a.setflags(write=False)
    return a
