"""An image is a set of vectors too: cut a picture into square patches, and each patch, its pixels
laid out in a row, is one vector of a sequence. Self-attention then relates every patch to every
other (what Vision Transformers do); a convolution only sees a neighbourhood that grows by k - 1
patches a layer.

Patches are numbered row by row, left to right, as in ViT: patch n sits at grid row n // cols,
column n % cols. A patch vector lists its pixels row by row, each pixel's channels together.

The attention here has no learned weights on purpose: each patch vector minus the average patch,
scaled to length 1, serves as its own query and key, so the score of two patches is the cosine of
their colours. A patch then attends to the patches that look like it (sky to sky, roof to roof),
which a student can check by eye; learned W_q, W_k would mix in relations nobody can see.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attention_core.attention import _non_negative_int, _positive_int, softmax

PICTURE_FILE = Path(__file__).resolve().parent / "data" / "picture_house.npy"  # [48, 48, 3] uint8
SMALLEST_PATCH = 4  # smaller patches are legal but make a grid too dense to draw
# Places in the shipped picture a page can ask from, as (row, column) of one pixel inside them:
# the asking patch is the patch holding that pixel, whatever the patch size.
LANDMARKS: dict[str, tuple[int, int]] = {
    "grass": (44, 4),
    "sky": (3, 30),
    "cloud": (6, 9),
    "sun": (7, 40),
    "roof": (15, 18),
    "wall": (35, 12),
    "window": (29, 13),
    "door": (36, 18),
    "tree": (25, 39),
    "trunk": (38, 39),
}


@functools.lru_cache(maxsize=1)
def load_picture() -> np.ndarray:
    """The shipped picture (scripts/build_picture.py draws it), values in 0..1, read-only.
    -> [48, 48, 3]"""
    img = np.load(PICTURE_FILE, allow_pickle=False).astype(np.float64) / 255.0  # [H, W, 3]
    img.setflags(write=False)  # cached: every caller gets the same array
    return img


def patch_choices(height: int, width: int, smallest: int = SMALLEST_PATCH) -> list[int]:
    """Patch sizes that cut a height x width picture into whole squares, at least smallest and
    leaving at least a 2 x 2 grid: the common divisors. 48 x 48 -> [4, 6, 8, 12, 16, 24]."""
    height, width = _positive_int(height, "height"), _positive_int(width, "width")
    top = min(height, width) // 2
    return [p for p in range(max(1, smallest), top + 1) if height % p == 0 and width % p == 0]


@dataclass(frozen=True)
class Patches:
    """A picture as a sequence of patch vectors."""

    vectors: np.ndarray  # one row per patch, its pixels in a row  [n_patches, patch·patch·C]
    grid: tuple[int, int]  # (rows, cols) of patches; n_patches = rows · cols
    patch: int  # side of a square patch, in pixels
    channels: int  # C: 3 for RGB


def patchify(image, patch: int) -> Patches:
    """Cut [H, W, C] into (H/patch)·(W/patch) squares, each flattened to one vector.
    [H, W, C] -> vectors [n_patches, patch·patch·C]

    ValueError, with the sizes that work, when patch does not divide both sides.
    """
    img = np.asarray(image, dtype=np.float64)  # [H, W, C]
    if img.ndim == 2:
        img = img[..., None]  # [H, W, 1]: a grey picture has one channel
    if img.ndim != 3 or img.size == 0:
        raise ValueError(f"image must be a picture shaped [height, width, channels]; got shape {np.shape(image)}.")
    H, W, C = img.shape
    patch = _positive_int(patch, "patch")
    if H % patch or W % patch:
        side = f"the {H}-pixel side" if H == W else f"the {H} x {W}-pixel picture"
        choices = patch_choices(H, W) or patch_choices(H, W, smallest=1)
        hint = f"; try {', '.join(map(str, choices))}" if choices else ""
        raise ValueError(f"patch={patch} does not divide {side}{hint}.")
    rows, cols = H // patch, W // patch
    blocks = img.reshape(rows, patch, cols, patch, C).transpose(0, 2, 1, 3, 4)  # [rows, cols, patch, patch, C]
    vectors = blocks.reshape(rows * cols, patch * patch * C)  # [n_patches, patch·patch·C]
    return Patches(vectors=vectors, grid=(rows, cols), patch=patch, channels=C)


def unpatchify(vectors, grid: tuple[int, int], patch: int, channels: int = 3) -> np.ndarray:
    """Put the patches back in their places: the inverse of patchify.
    [n_patches, patch·patch·C] -> [rows·patch, cols·patch, C]"""
    v = np.asarray(vectors, dtype=np.float64)  # [n_patches, patch·patch·C]
    rows, cols = (_positive_int(g, "grid") for g in grid)
    patch, channels = _positive_int(patch, "patch"), _positive_int(channels, "channels")
    if v.shape != (rows * cols, patch * patch * channels):
        raise ValueError(
            f"vectors must have shape [rows·cols, patch·patch·channels] = [{rows * cols}, "
            f"{patch * patch * channels}]; got {v.shape}."
        )
    blocks = v.reshape(rows, cols, patch, patch, channels).transpose(0, 2, 1, 3, 4)  # [rows, patch, cols, patch, C]
    return blocks.reshape(rows * patch, cols * patch, channels)  # [H, W, C]


@dataclass(frozen=True)
class PatchAttention:
    """Self-attention among patches with the patches themselves as queries and keys."""

    unit: np.ndarray  # each patch minus the average patch, length 1  [n_patches, D]
    scores: np.ndarray  # cosines of the colours, in -1..1            [n_patches, n_patches]
    weights: np.ndarray  # softmax(sharpness · scores) per row          [n_patches, n_patches]
    grid: tuple[int, int]  # (rows, cols), to lay a row of weights out as the picture
    sharpness: float  # β: multiplies the cosines before the softmax

    def weights_on_grid(self, query: int) -> np.ndarray:
        """Where patch `query` looks, laid out like the picture.  -> [rows, cols]"""
        query = _patch_index(query, self.weights.shape[0])
        return self.weights[query].reshape(self.grid)  # [rows, cols]


def patch_attention(patches: Patches, sharpness: float = 10.0, exclude_self: bool = False) -> PatchAttention:
    """α_ij = softmax_j(β · cos(p_i - p̄, p_j - p̄)), p̄ the average patch.

    Subtracting the average first matters: raw colours are all positive, so every pair of patches
    would have a cosine near 1 and every row would be flat. β = 10 makes a cosine of 1 against 0.7
    a weight e^3 = 20 times larger. exclude_self masks the diagonal (a patch always matches itself
    best), to show which OTHER patches it resembles; with a single patch that leaves a zero row.
    A patch equal to the average has no direction: its cosines are 0.
    """
    v = np.asarray(patches.vectors, dtype=np.float64)  # [n, D]
    beta = float(sharpness)
    if not np.isfinite(beta) or beta < 0:
        raise ValueError(f"sharpness must be a finite number >= 0; got {sharpness!r}.")
    centred = v - v.mean(axis=0)  # [n, D]
    norms = np.linalg.norm(centred, axis=1, keepdims=True)  # [n, 1]
    unit = centred / np.where(norms > 1e-12, norms, np.inf)  # [n, D]; a zero row stays 0
    scores = np.clip(unit @ unit.T, -1.0, 1.0)  # [n, n]
    scaled = beta * scores  # [n, n]
    if exclude_self:
        scaled = np.where(np.eye(len(v), dtype=bool), -np.inf, scaled)  # [n, n]
    return PatchAttention(unit=unit, scores=scores, weights=softmax(scaled), grid=patches.grid, sharpness=beta)


def receptive_field(grid: tuple[int, int], query: int, k: int = 3, n_layers: int = 1) -> np.ndarray:
    """The patches a CNN's output at patch `query` depends on, after n_layers layers of k x k
    kernels: every patch within L·(k - 1)/2 rows and columns of it.  -> [rows, cols] bool

    A convolution over the patch grid is attention with a fixed local mask: compare
    patch_attention's weights, which may reach across the whole picture in one layer.
    """
    rows, cols = (_positive_int(g, "grid") for g in grid)
    query = _patch_index(query, rows * cols)
    k = _positive_int(k, "k (kernel width)")
    if k % 2 == 0:
        raise ValueError(f"k={k} has no centre patch; use an odd kernel such as {k - 1} or {k + 1}.")
    reach = _positive_int(n_layers, "n_layers") * (k - 1) // 2
    r, c = np.mgrid[0:rows, 0:cols]  # [rows, cols]
    return (np.abs(r - query // cols) <= reach) & (np.abs(c - query % cols) <= reach)  # [rows, cols]


def receptive_field_mask(grid: tuple[int, int], k: int = 3, n_layers: int = 1) -> np.ndarray:
    """receptive_field for every patch at once, as an attention mask: True where patch i's output
    may depend on patch j.  -> [n_patches, n_patches] bool"""
    rows, cols = (_positive_int(g, "grid") for g in grid)
    return np.stack([receptive_field((rows, cols), i, k, n_layers).ravel() for i in range(rows * cols)])  # [n, n]


def _patch_index(query, n: int) -> int:
    query = _non_negative_int(query, "query (patch number)")
    if query >= n:
        raise ValueError(f"query={query} is not a patch: the picture has patches 0..{n - 1}.")
    return query


@dataclass(frozen=True)
class PictureView:
    """One patch of the shipped picture: where its attention goes, and where a CNN's would."""

    picture: np.ndarray  # the picture, values 0..1                        [H, W, 3]
    patches: Patches  # the picture cut into patch vectors                 vectors [n, patch·patch·3]
    attention: PatchAttention  # every patch over every other              weights [n, n]
    query: int  # the patch that asks, numbered row by row from 0
    query_cell: tuple[int, int]  # its (row, column) in the grid
    weights: np.ndarray  # the query's weights laid out as the picture     [rows, cols]
    field: np.ndarray  # the CNN's receptive field of the query            [rows, cols] bool
    weight_outside_field: float  # attention the query sends where the CNN cannot look
    k: int  # the CNN's kernel, in patches
    n_layers: int  # stacked CNN layers


def landmark_patch(landmark: str, patch: int, width: int = 48) -> int:
    """The number of the patch that holds a LANDMARKS place, patches numbered row by row."""
    if landmark not in LANDMARKS:
        raise ValueError(f"no place {landmark!r} in the picture; choose one of {', '.join(LANDMARKS)}.")
    row, col = LANDMARKS[landmark]
    patch = _positive_int(patch, "patch")
    return (row // patch) * (width // patch) + col // patch


def picture_view(
    patch: int, query: int | str, sharpness: float = 10.0, k: int = 3, n_layers: int = 1, exclude_self: bool = False
) -> PictureView:
    """The shipped picture cut into patch x patch squares; patch `query`'s attention over all
    patches (patch_attention) beside the receptive field of a CNN with k x k kernels over the
    same grid after n_layers layers (receptive_field). query: a patch number, or a LANDMARKS place."""
    picture = load_picture()  # [H, W, 3]
    patches = patchify(picture, patch)
    if isinstance(query, str):
        query = landmark_patch(query, patch, picture.shape[1])
    attention = patch_attention(patches, sharpness, exclude_self)
    query = _patch_index(query, patches.vectors.shape[0])
    weights = attention.weights_on_grid(query)  # [rows, cols]
    field = receptive_field(patches.grid, query, k, n_layers)  # [rows, cols]
    return PictureView(
        picture=picture,
        patches=patches,
        attention=attention,
        query=query,
        query_cell=divmod(query, patches.grid[1]),
        weights=weights,
        field=field,
        weight_outside_field=float(weights[~field].sum()),
        k=int(k),
        n_layers=int(n_layers),
    )


@dataclass(frozen=True)
class PatchCount:
    """What cutting a height x width picture into patch x patch squares makes of it: how many
    vectors, how long each, and what one self-attention layer over them costs. ViT-Base/16 cuts a
    224 x 224 photo into 16 x 16 patches: 196 vectors of 16·16·3 = 768 numbers.

    A patch size that does not divide both sides leaves a strip over; a Vision Transformer crops
    (or pads) the picture first, so the counts are those of the whole patches that fit."""

    height: int  # the picture's size, in pixels
    width: int
    patch: int  # side of a square patch, in pixels
    channels: int  # C: 3 for RGB
    rows: int  # whole patches down the picture: height // patch
    cols: int  # and across it: width // patch
    n_patches: int  # T = rows · cols: the length of the sequence
    vector_length: int  # d = patch · patch · C numbers per patch vector
    pairs: int  # T²: the query-key scores of one self-attention layer
    score_products: int  # T² · d multiply-adds for those scores, with the patch vectors as they are
    left_over: tuple[int, int]  # pixel rows and columns no whole patch covers: (height % patch, width % patch)
    fits: bool  # the patch divides both sides: nothing left over
    below: int | None  # the nearest patch sizes below and above `patch` that divide both sides
    above: int | None
    sizes: np.ndarray  # every patch size that divides both sides                [m]
    sizes_T: np.ndarray  # the sequence length T each of them gives              [m]


def patch_count(height: int, width: int, patch: int, channels: int = 3) -> PatchCount:
    """Count the patches of a height x width x C picture and the cost of attention over them.

    T = (height // patch) · (width // patch), d = patch² · C, T² scores of d multiply-adds each.
    Halving the patch quadruples T and multiplies the scores by 16 (T²): why ViT uses 16 x 16.
    """
    height, width = _positive_int(height, "height"), _positive_int(width, "width")
    patch, channels = _positive_int(patch, "patch"), _positive_int(channels, "channels")
    if patch > min(height, width):
        raise ValueError(
            f"patch={patch} is larger than the {height} x {width} picture; choose at most {min(height, width)}."
        )
    rows, cols = height // patch, width // patch
    T, d = rows * cols, patch * patch * channels
    sizes = np.array([p for p in range(1, min(height, width) + 1) if height % p == 0 and width % p == 0])  # [m]
    below = max((p for p in sizes if p < patch), default=None)
    above = min((p for p in sizes if p > patch), default=None)
    return PatchCount(
        height=height,
        width=width,
        patch=patch,
        channels=channels,
        rows=rows,
        cols=cols,
        n_patches=T,
        vector_length=d,
        pairs=T * T,
        score_products=T * T * d,
        left_over=(height % patch, width % patch),
        fits=height % patch == 0 and width % patch == 0,
        below=None if below is None else int(below),
        above=None if above is None else int(above),
        sizes=sizes,  # [m]
        sizes_T=(height // sizes) * (width // sizes),  # [m]
    )
