"""Numbers the live-training page shows beside its runs: the best a one-word-at-a-time tagger can
do on a task's ambiguous words, when a run first reached an accuracy, and how peaked its attention
was at the start and at the end. Pure NumPy; the runs themselves are in attention_core.train."""

from __future__ import annotations

import numpy as np

from attention_core.train_tasks import IGNORE, Task


def tag_counts(task: Task) -> np.ndarray:
    """How often each word stands at an ambiguous test position with each tag.  -> [V, C]"""
    words = task.test_tokens[task.ambiguous]  # [n]
    tags = task.test_tags[task.ambiguous]  # [n]
    counts = np.zeros((len(task.vocab), len(task.tags)), dtype=np.int64)  # [V, C]
    np.add.at(counts, (words, tags), 1)
    return counts  # [V, C]


def per_word_ceiling(counts) -> float:
    """The best accuracy of a tagger that sees one word at a time: each word always gets one tag,
    at best its most frequent one, so it is right max_c counts[w, c] times out of sum_c counts[w, c]."""
    counts = np.asarray(counts, dtype=np.float64)  # [words, C]
    if counts.ndim != 2 or counts.sum() <= 0 or (counts < 0).any():
        raise ValueError("counts must be a [words, tags] table of counts, not all zero.")
    return float(counts.max(axis=1).sum() / counts.sum())


def word_ceiling(task: Task) -> float:
    """A per-word tagger's best on the task's ambiguous test words (0.5 on saw_task: every
    ambiguous word is a noun exactly as often as a verb)."""
    return per_word_ceiling(tag_counts(task))


def first_step_at(eval_steps, curve, level: float) -> int | None:
    """The first evaluated step whose accuracy is at least `level`, or None if none is."""
    reached = np.flatnonzero(np.asarray(curve) >= level)  # [k]
    return int(np.asarray(eval_steps)[reached[0]]) if reached.size else None


def attention_entropy(frames) -> np.ndarray:
    """Mean entropy of the attention rows of each frame (ln T for uniform rows, 0 for one-hot).
    frames [n_frames, layers, h, T, T] -> [n_frames]; NaN-free, empty frames give zeros."""
    frames = np.asarray(frames, dtype=np.float64)  # [n_frames, layers, h, T, T]
    if frames.shape[1] == 0 or frames.shape[2] == 0:
        return np.zeros(frames.shape[0])  # [n_frames]
    logs = np.log(np.where(frames > 0, frames, 1.0))  # [n_frames, layers, h, T, T]
    rows = -(frames * logs).sum(axis=-1)  # [n_frames, layers, h, T]
    return rows.reshape(frames.shape[0], -1).mean(axis=1)  # [n_frames]


def tag_examples(task: Task, k: int = 2) -> tuple[tuple[str, ...], ...]:
    """For each of the task's tags (in task.tags' order), the first k words of the vocabulary that
    carry it in the training sentences: examples a legend of the tags can give, taken from the
    corpus rather than typed beside it. The ambiguous words stand last in the vocabulary, so a
    noun's or a verb's examples are words that are always nouns or always verbs."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a whole number, 1 or more; got {k!r}.")
    words = task.train_tags != IGNORE  # [N_train, T]
    carries = np.zeros((len(task.tags), len(task.vocab)), dtype=bool)  # [C, V]
    carries[task.train_tags[words], task.train_tokens[words]] = True
    return tuple(tuple(task.vocab[i] for i in np.flatnonzero(row)[:k]) for row in carries)  # C tuples of <= k words
