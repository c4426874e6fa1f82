"""Vectors for words: one-hot vs embedding, similarity, and a 2-D map of an embedding table."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from attention_core.attention import _positive_int


def token_vectors(tokens: list[str], d_model: int, seed: int = 0) -> np.ndarray:
    """A made-up embedding: each distinct token gets its own N(0, 1) vector.  -> [T, d_model]

    The vector depends only on (seed, token), never on the token's position or neighbours, so
    the two "saw"s of "I saw a saw" get the very same vector, as a real embedding table would
    give them before positional encoding. CRC-32 gives a hash that is the same on every run
    (Python's hash() is salted per process).
    """
    d_model = _positive_int(d_model, "d_model")
    rows = [
        np.random.default_rng([seed, zlib.crc32(token.encode("utf-8"))]).standard_normal(d_model) for token in tokens
    ]  # T x [d_model]
    return np.array(rows).reshape(len(tokens), d_model)  # [T, d_model]


def cosine_similarity(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """cos(a_i, b_j) = a_i · b_j / (|a_i| |b_j|).  [n, d], [m, d] -> [n, m]; b defaults to a.
    A zero vector has no direction; its similarities are reported as 0."""
    a, b = _two_tables(a, b)  # [n, d], [m, d]
    na = np.linalg.norm(a, axis=1)  # [n]
    nb = np.linalg.norm(b, axis=1)  # [m]
    unit_a = a / np.where(na == 0, 1.0, na)[:, None]  # [n, d]
    unit_b = b / np.where(nb == 0, 1.0, nb)[:, None]  # [m, d]
    return np.clip(unit_a @ unit_b.T, -1.0, 1.0)  # [n, m]


def _two_tables(a, b) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)  # [n, d]
    b = a if b is None else np.asarray(b, dtype=np.float64)  # [m, d]
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"cosine similarity needs two tables [n, d] and [m, d]; got {a.shape} and {b.shape}.")
    return a, b


@dataclass(frozen=True)
class PCAResult:
    coords: np.ndarray  # each row projected on the first principal axes  [n, n_components]
    explained_variance_ratio: np.ndarray  # share of total variance per axis   [n_components]
    components: np.ndarray  # the axes themselves, unit rows                   [n_components, d]
    mean: np.ndarray  # the centre that was subtracted                       [d]


def pca(x: np.ndarray, n_components: int = 2) -> PCAResult:
    """Principal component analysis by SVD of the centred data.  [n, d] -> coords [n, n_components]

    The signs of the axes are fixed (largest loading positive) so the map does not flip
    between runs or machines.
    """
    x, n_components = _pca_input(x, n_components)  # [n, d]
    mean = x.mean(axis=0)  # [d]
    centred = x - mean  # [n, d]
    _, s, vt = np.linalg.svd(centred, full_matrices=False)  # s: [r], vt: [r, d]
    components = fixed_signs(vt[:n_components])  # [n_components, d]
    variance = s**2  # [r]
    ratio = variance[:n_components] / variance.sum() if variance.sum() > 0 else np.zeros(n_components)
    return PCAResult(coords=centred @ components.T, explained_variance_ratio=ratio, components=components, mean=mean)


def fixed_signs(axes: np.ndarray) -> np.ndarray:
    """Each axis (a row) turned so that its largest entry is positive: an SVD may return either
    sign, and a map must not flip between runs or machines.  [k, d] -> [k, d]"""
    axes = np.asarray(axes, dtype=np.float64)  # [k, d]
    signs = np.sign(axes[np.arange(len(axes)), np.argmax(np.abs(axes), axis=1)])  # [k]
    return axes * np.where(signs == 0, 1.0, signs)[:, None]  # [k, d]


def _pca_input(x, n_components) -> tuple[np.ndarray, int]:
    x = np.asarray(x, dtype=np.float64)  # [n, d]
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"PCA needs at least two vectors in a table [n, d]; got shape {x.shape}.")
    n_components = _positive_int(n_components, "n_components")
    if n_components > min(x.shape):
        raise ValueError(f"n_components={n_components} is more than min(n, d) = {min(x.shape)}.")
    return x, n_components
