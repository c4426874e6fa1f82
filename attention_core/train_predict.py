"""Tagging a typed sentence with a trained model: what the page shows under "try your own".

A word outside the vocabulary is flagged and gets no tag: the model never saw it, so whatever
it said would be a guess presented as knowledge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attention_core.attention import softmax
from attention_core.train_model import Config, attention_maps, logits
from attention_core.train_tasks import UNK, Task


@dataclass(frozen=True)
class Prediction:
    """The trained model's tags for a typed sentence. A word outside the vocabulary is flagged,
    and gets no tag (None) and no probabilities (a row of zeros): the model never saw it, so
    anything it said would be a guess. It still takes its place in the sentence, as <unk>."""

    words: tuple[str, ...]  # the words tagged (at most max_words)
    known: np.ndarray  # True where the word is in the vocabulary                  [n]
    unknown: tuple[str, ...]  # the words not in the vocabulary, in order
    tags: tuple[str | None, ...]  # the most probable tag, None for an unknown word
    confidence: np.ndarray  # that tag's probability; 0 for an unknown word         [n]
    probabilities: np.ndarray  # every tag's probability; zeros for an unknown word [n, C]
    tag_names: tuple[str, ...]  # the columns of probabilities
    attention: np.ndarray  # attention maps ([0, 0, n, n] without attention)        [layers, h, n, n]
    truncated: bool  # the sentence had more than max_words words; the rest was cut
    n_words_given: int  # how many words were given
    max_words: int  # the longest sentence the model tags


def predict(params: dict[str, np.ndarray], config: Config, task: Task, words: Sequence[str]) -> Prediction:
    """Tag a sentence given as a list of words (split a text with attention_core.text.split_tokens).

    Matching ignores case. An empty list gives an empty Prediction (no words, no tags), not an
    error, so a cleared text box needs no special case. Sentences longer than task.max_len words
    are cut there, and the result says so.
    """
    if not isinstance(task, Task):
        raise ValueError(f"task must be a Task, e.g. saw_task(); got {type(task).__name__}.")
    given = _words(words)
    kept = given[: task.max_len]
    n, C = len(kept), len(task.tags)
    if n == 0:
        layers, h = (config.layers, config.heads) if config.model == "attention" else (0, 0)
        empty = np.zeros((layers, h, 0, 0))  # [layers, h, 0, 0]
        return Prediction(
            words=(),
            known=np.zeros(0, dtype=bool),
            unknown=(),
            tags=(),
            confidence=np.zeros(0),
            probabilities=np.zeros((0, C)),
            tag_names=task.tags,
            attention=empty,
            truncated=False,
            n_words_given=0,
            max_words=task.max_len,
        )
    tokens = task.encode(kept)[None]  # [1, n]
    known = tokens[0] != UNK  # [n]
    probabilities = softmax(logits(params, tokens, config)[0]) * known[:, None]  # [n, C]; unknown rows zeroed
    best = probabilities.argmax(axis=-1)  # [n]
    return Prediction(
        words=tuple(kept),
        known=known,
        unknown=tuple(w for w, ok in zip(kept, known, strict=True) if not ok),
        tags=tuple(task.tags[b] if ok else None for b, ok in zip(best, known, strict=True)),
        confidence=probabilities.max(axis=-1),
        probabilities=probabilities,
        tag_names=task.tags,
        attention=_maps(params, tokens, config)[0],
        truncated=len(given) > n,
        n_words_given=len(given),
        max_words=task.max_len,
    )


# --- helpers shared with train.py -------------------------------------------------------------------


def _maps(params, tokens, config) -> np.ndarray:
    """attention_maps without re-checking: [N, T] -> [N, layers, h, T, T]."""
    if config.model != "attention":
        return np.zeros((tokens.shape[0], 0, 0, tokens.shape[1], tokens.shape[1]))
    return attention_maps(params, tokens, config)


def _words(words) -> list[str]:
    if isinstance(words, str) or not isinstance(words, (list, tuple)):
        raise ValueError(
            "words must be a list of words, e.g. ['I', 'saw', 'a', 'saw']; split a text with "
            "attention_core.text.split_tokens(text)."
        )
    for i, w in enumerate(words):
        if not isinstance(w, str) or not w.strip():
            raise ValueError(f"word {i + 1} is {w!r}; every word must be a non-blank string.")
    return [w.strip() for w in words]
