"""Attention sinks, measured on the app's own decoder: read held-out text with full causal attention,
with a sliding window, and with a window plus the first few tokens kept (StreamingLLM, Xiao et al.
2023), and compare how well each predicts the next character; and how much attention the trained
heads park on the first token, the decoder's counterpart of an encoder's [CLS]/[SEP].

Xiao et al. found that a large decoder's loss jumps once the first tokens leave the window, because
its heads park much of their weight there; keeping them repairs it. Whether a small model trained on
128 characters does the same is a question the numbers here answer, not an assumption.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from attention_core.decoder import forward, load_decoder
from attention_core.lm import load_corpus, split_corpus

N_TEXTS = 4  # held-out passages averaged (two in each language): one passage's loss is noisy


@dataclass(frozen=True)
class SinkExperiment:
    """Next-character loss (nats) at each position of held-out passages under three masks."""

    window: int  # recent keys each query sees, itself included
    n_sink: int  # first tokens kept for ever in the third variant
    T: int  # characters per passage: the decoder's context
    passages: tuple[str, ...]  # the held-out text read
    loss_full: np.ndarray  # full causal attention, mean over passages            [T - 1]
    loss_window: np.ndarray  # a sliding window alone                              [T - 1]
    loss_sinks: np.ndarray  # the window plus n_sink sinks                          [T - 1]
    mean_full: float  # mean over the positions where the window hides something (t >= window)
    mean_window: float
    mean_sinks: float
    first_share: np.ndarray  # weight on position 0 from queries t >= window, full attention, per head  [L, h]
    uniform_share: float  # what a head spreading evenly over its keys would give position 0 there

    @property
    def gap_window(self) -> np.ndarray:
        """The window's loss minus full attention's, per position: 0 before the window's edge.  -> [T - 1]"""
        return self.loss_window - self.loss_full  # [T - 1]

    @property
    def gap_sinks(self) -> np.ndarray:
        """The window-with-sinks loss minus full attention's, per position.  -> [T - 1]"""
        return self.loss_sinks - self.loss_full  # [T - 1]

    @property
    def window_penalty(self) -> float:
        """How much worse the window alone predicts than full attention (nats per character)."""
        return self.mean_window - self.mean_full

    @property
    def sinks_repair(self) -> float:
        """How much of that penalty the sinks win back: 1 all of it, 0 none, negative they hurt."""
        penalty = self.window_penalty
        return (self.mean_window - self.mean_sinks) / penalty if penalty > 0 else 0.0


def held_out_passages(T: int, n: int = N_TEXTS) -> tuple[str, ...]:
    """n passages of T characters from the held-out split, each starting at a paragraph's start."""
    text = split_corpus(load_corpus()).held_out
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    passages = [text[s : s + T] for s in starts if len(text) - s >= T]
    step = max(1, len(passages) // n)  # spread over the split: both languages, not one paragraph's neighbours
    return tuple(passages[::step][:n])


def _next_char_loss(ids: np.ndarray, window: int | None, n_sink: int):
    """-log p(true next character) at each position, and every head's weight on position 0."""
    model = load_decoder()
    r = forward(model.params, ids, model.config, window, n_sink)
    T = len(ids)
    loss = -np.log(r.probs[np.arange(T - 1), ids[1:]])  # [T - 1]
    return loss, r.weights[:, :, :, 0]  # [T - 1], [L, h, T]


@functools.lru_cache(maxsize=1)
def _full_attention() -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The passages read with full causal attention once: every window compares against it."""
    model = load_decoder()
    passages = held_out_passages(model.config.context)
    runs = [_next_char_loss(model.vocab.encode(p), None, 0) for p in passages]
    loss = np.mean([r[0] for r in runs], axis=0)  # [T - 1]
    first = np.mean([r[1] for r in runs], axis=0)  # [L, h, T]
    loss.setflags(write=False)
    first.setflags(write=False)
    return passages, loss, first


def sink_experiment(window: int, n_sink: int) -> SinkExperiment:
    """The shipped decoder on held-out passages: full causal, window, window + sinks."""
    model = load_decoder()
    T = model.config.context
    if not 1 <= window < T:
        raise ValueError(f"window={window}: choose 1 to {T - 1}; a window of {T} or more hides nothing here.")
    if not 0 <= n_sink < window:
        raise ValueError(f"n_sink={n_sink}: choose 0 to {window - 1}, fewer sinks than the window holds.")
    passages, loss_full, first = _full_attention()
    ids = [model.vocab.encode(p) for p in passages]
    loss_window = np.mean([_next_char_loss(i, window, 0)[0] for i in ids], axis=0)  # [T - 1]
    loss_sinks = (
        loss_window if n_sink == 0 else np.mean([_next_char_loss(i, window, n_sink)[0] for i in ids], axis=0)
    )  # [T - 1]
    late = slice(window, None)  # predictions made from t >= window, where the window hides keys
    return SinkExperiment(
        window=window,
        n_sink=n_sink,
        T=T,
        passages=passages,
        loss_full=loss_full,
        loss_window=loss_window,
        loss_sinks=loss_sinks,
        mean_full=float(loss_full[late].mean()),
        mean_window=float(loss_window[late].mean()),
        mean_sinks=float(loss_sinks[late].mean()),
        first_share=first[:, :, window:].mean(axis=-1),  # [L, h]
        uniform_share=float(np.mean(1.0 / (np.arange(window, T) + 1))),
    )
