"""Speech as a sequence of vectors, and why its self-attention is truncated.

A sound is cut into frames: a 25 ms window describes what is inside it with one vector, then
moves 10 ms on and does it again, so one second of speech is about 100 vectors. Full
self-attention compares every frame with every frame, T x T weights per head; a few seconds are
already millions. Truncated self-attention lets frame i look only at its w neighbours on each
side (the local mask |i - j| <= w): at most 2w + 1 weights per frame, so the cost grows with T,
not T².
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import _non_negative_int, local_mask

WINDOW_MS = 25  # each frame describes 25 ms of sound
HOP_MS = 10  # the next frame starts 10 ms later
BYTES_PER_WEIGHT = 4  # one float32 weight
MAX_SECONDS = 3600  # an hour: enough for any lecture, small enough to keep the numbers readable


def frame_count(seconds: float, window_ms: int = WINDOW_MS, hop_ms: int = HOP_MS) -> int:
    """Frames in `seconds` of sound: one per hop while a whole window still fits (98 for 1 s)."""
    if not 0 <= float(seconds) <= MAX_SECONDS:  # NaN fails too
        raise ValueError(f"seconds must be between 0 and {MAX_SECONDS}; got {seconds}.")
    ms = round(float(seconds) * 1000)
    return 0 if ms < window_ms else (ms - window_ms) // hop_ms + 1


def window_entries(T: int, window: int) -> np.ndarray | int:
    """Weights a local mask allows over T frames, |i - j| <= window: each row's 2w + 1, minus
    what falls off the two ends (w(w + 1) in all), T² once the window covers everything.
    Works on arrays of T too."""
    T = np.asarray(T, dtype=np.int64)  # [...]
    w = np.minimum(window, np.maximum(T - 1, 0))  # [...]: a window wider than the text is the whole text
    entries = T * (2 * w + 1) - w * (w + 1)  # [...]
    return int(entries) if entries.ndim == 0 else entries


@dataclass(frozen=True)
class SpeechCost:
    """Full against windowed self-attention for `seconds` of speech, one head of one layer."""

    seconds: float
    window: int  # neighbours on each side, in frames
    window_ms: int  # how far that reaches, in ms (window x 10)
    T: int  # frames
    full_entries: int  # T²: every frame with every frame
    window_entries: int  # the local mask's allowed entries, about T (2w + 1)
    full_bytes: int  # one float32 T x T map
    window_bytes: int  # the windowed weights only
    curve_seconds: np.ndarray  # seconds of audio on the cost figure's axis   [n]
    curve_frames: np.ndarray  # T at each                                       [n]
    curve_full: np.ndarray  # T² at each                                        [n]
    curve_window: np.ndarray  # the windowed count at each                      [n]
    mask: np.ndarray  # the local mask over the first frames, as drawn          [n_drawn, n_drawn] bool


def speech_cost(seconds: float, window: int, curve_to: float = 60.0, drawn_frames: int = 40) -> SpeechCost:
    """The numbers and the curves of the speech section: T, entries and memory of one T x T map
    against the windowed one, how both grow from 0 to `curve_to` seconds (or `seconds`, if longer)
    every half second, and the local mask over the first `drawn_frames` frames, or 4w + 1 when the
    window is wider, so the drawing always shows frames outside the window (a band, not a full square)."""
    window = _non_negative_int(window, "window")
    T = frame_count(seconds)
    full, windowed = T * T, window_entries(T, window)
    curve_seconds = np.arange(0.0, max(float(curve_to), np.ceil(seconds)) + 0.25, 0.5)  # [n], every half second
    frames = np.array([frame_count(s) for s in curve_seconds], dtype=np.int64)  # [n]
    mask = local_mask(min(T, max(drawn_frames, 4 * window + 1)), window)  # [n_drawn, n_drawn]
    for a in (curve_seconds, frames, mask):
        a.setflags(write=False)
    curve_window = window_entries(frames, window)  # [n]
    curve_window.setflags(write=False)
    curve_full = frames * frames  # [n]
    curve_full.setflags(write=False)
    return SpeechCost(
        seconds=float(seconds),
        window=window,
        window_ms=window * HOP_MS,
        T=T,
        full_entries=full,
        window_entries=windowed,
        full_bytes=full * BYTES_PER_WEIGHT,
        window_bytes=windowed * BYTES_PER_WEIGHT,
        curve_seconds=curve_seconds,
        curve_frames=frames,
        curve_full=curve_full,
        curve_window=curve_window,
        mask=mask,
    )
