"""Fixed (sinusoidal) positional encoding, as in "Attention Is All You Need"."""

from __future__ import annotations

import numpy as np

from attention_core.attention import _non_negative_int, _positive_int


def sinusoidal_positional_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2i] = sin(p / base^(2i/d_model)),  PE[p, 2i+1] = cos(p / base^(2i/d_model)).

    Each pair of columns (2i, 2i+1) is a point turning on a circle at its own frequency, fast
    for small i and slow for large i, so every position gets a distinct pattern. An odd d_model
    ends on a lone sine column.  -> [n_positions, d_model]
    """
    n_positions = _non_negative_int(n_positions, "n_positions")
    d_model = _positive_int(d_model, "d_model")
    base = float(base)
    if not np.isfinite(base) or base <= 0:
        raise ValueError(f"base must be a positive number (the paper uses 10000); got {base}.")
    p = np.arange(n_positions, dtype=np.float64)[:, None]  # [n_positions, 1]
    two_i = np.arange(0, d_model, 2, dtype=np.float64)  # [ceil(d_model/2)]
    angle = p / base ** (two_i / d_model)  # [n_positions, ceil(d_model/2)]
    pe = np.zeros((n_positions, d_model))  # [n_positions, d_model]
    pe[:, 0::2] = np.sin(angle)  # even columns
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])  # odd columns; one fewer when d_model is odd
    return pe  # [n_positions, d_model]
