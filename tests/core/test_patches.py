"""attention_core.patches and the shipped picture: round trips, hand-worked layouts, attention rows,
receptive fields, and messages a student can act on."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core.patches import (
    PICTURE_FILE,
    load_picture,
    patch_attention,
    patch_choices,
    patch_count,
    patchify,
    picture_view,
    receptive_field,
    receptive_field_mask,
    unpatchify,
)
from scripts.build_picture import draw_picture


def test_shipped_picture_is_what_the_script_draws():
    stored = np.load(PICTURE_FILE, allow_pickle=False)
    assert stored.dtype == np.uint8 and stored.shape == (48, 48, 3)
    np.testing.assert_array_equal(stored, draw_picture())
    assert PICTURE_FILE.stat().st_size < 10_000
    assert len(np.unique(stored.reshape(-1, 3), axis=0)) >= 8  # distinct regions, not one colour


def test_loaded_picture_is_cached_read_only_floats():
    img = load_picture()
    assert img is load_picture() and img.dtype == np.float64 and img.min() >= 0 and img.max() <= 1
    with pytest.raises(ValueError):
        img[0, 0, 0] = 0.5


def test_patchify_by_hand():
    # A 4 x 4 one-channel picture numbered 0..15, cut into 2 x 2 patches, row by row.
    img = np.arange(16.0).reshape(4, 4)
    p = patchify(img, 2)
    assert p.grid == (2, 2) and p.channels == 1 and p.patch == 2
    np.testing.assert_array_equal(p.vectors, [[0, 1, 4, 5], [2, 3, 6, 7], [8, 9, 12, 13], [10, 11, 14, 15]])
    # Channels stay together within a pixel: pixel (0, 0) of an RGB patch is its first three numbers.
    rgb = np.random.default_rng(0).random((4, 6, 3))
    q = patchify(rgb, 2)
    assert q.grid == (2, 3) and q.vectors.shape == (6, 12)
    np.testing.assert_array_equal(q.vectors[4, :3], rgb[2, 2])  # patch 4 = grid row 1, column 1


@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 4), st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_round_trip(rows, cols, patch, channels):
    img = np.random.default_rng(rows * 100 + cols * 10 + patch).random((rows * patch, cols * patch, channels))
    p = patchify(img, patch)
    assert p.vectors.shape == (rows * cols, patch * patch * channels)
    np.testing.assert_array_equal(unpatchify(p.vectors, p.grid, p.patch, p.channels), img)


def test_sizes_that_do_not_divide():
    assert patch_choices(48, 48) == [4, 6, 8, 12, 16, 24]
    with pytest.raises(ValueError, match="patch=5 does not divide the 48-pixel side; try 4, 6, 8, 12, 16, 24"):
        patchify(load_picture(), 5)
    with pytest.raises(ValueError, match="at least 1"):
        patchify(load_picture(), 0)
    with pytest.raises(ValueError, match=r"\[height, width, channels\]"):
        patchify(np.zeros(5), 1)
    with pytest.raises(ValueError, match=r"shape \[rows·cols"):
        unpatchify(np.zeros((3, 4)), (2, 2), 1, 1)
    patchify(load_picture(), 48)  # one patch for the whole picture is legal
    patchify(load_picture(), 1)  # and so is one pixel per patch


def test_patch_attention_rows_and_colours():
    p = patchify(load_picture(), 8)
    att = patch_attention(p)
    n = 36
    assert att.weights.shape == att.scores.shape == (n, n)
    np.testing.assert_allclose(att.weights.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.diag(att.scores), 1.0)  # a patch matches itself exactly
    np.testing.assert_allclose(att.scores, att.scores.T)
    assert att.weights_on_grid(0).shape == (6, 6)
    # Sky looks like sky: patch 3 (top row, sky only) gives nearly all its weight to other sky
    # patches near the top, none to the grass; grass patch 32 (bottom row) looks at grass.
    others = patch_attention(p, exclude_self=True)
    assert np.diag(others.weights).max() == 0.0
    sky = others.weights_on_grid(3)
    assert sky[:2].sum() > 0.9 and sky[4:].sum() < 0.01
    grass = others.weights_on_grid(32)
    assert grass[4:].sum() > 0.9 and grass[:3].sum() < 0.01


def test_patch_attention_limits():
    p = patchify(load_picture(), 8)
    flat = patch_attention(p, sharpness=0.0)
    np.testing.assert_allclose(flat.weights, 1 / 36)  # β = 0: every patch equally
    one = patchify(load_picture(), 48)
    assert patch_attention(one).weights.tolist() == [[1.0]]
    assert patch_attention(one, exclude_self=True).weights.tolist() == [[0.0]]  # nothing else to see
    same = patchify(np.ones((4, 4, 3)), 2)  # four equal patches: no direction, cosines 0, flat rows
    np.testing.assert_allclose(patch_attention(same).weights, 0.25)
    with pytest.raises(ValueError, match="sharpness"):
        patch_attention(p, sharpness=-1)
    with pytest.raises(ValueError, match=r"patches 0\.\.35"):
        patch_attention(p).weights_on_grid(36)


def test_receptive_field_by_hand():
    # 5 x 5 grid, query in the middle (12): a 3 x 3 kernel sees the 3 x 3 block, two layers 5 x 5.
    one = receptive_field((5, 5), 12, k=3)
    assert one.sum() == 9 and one[1:4, 1:4].all()
    assert receptive_field((5, 5), 12, k=3, n_layers=2).all()
    corner = receptive_field((5, 5), 0, k=3)
    assert corner.sum() == 4 and corner[:2, :2].all()
    assert receptive_field((5, 5), 7, k=1).sum() == 1
    mask = receptive_field_mask((3, 4), k=3)
    assert mask.shape == (12, 12) and (mask == mask.T).all() and mask.diagonal().all()
    np.testing.assert_array_equal(mask[5].reshape(3, 4), receptive_field((3, 4), 5, k=3))
    with pytest.raises(ValueError, match="no centre"):
        receptive_field((5, 5), 0, k=2)
    with pytest.raises(ValueError, match=r"patches 0\.\.24"):
        receptive_field((5, 5), 25)


def test_picture_view_of_a_grass_patch():
    v = picture_view(8, 30, exclude_self=True)
    assert v.patches.grid == (6, 6) and v.query_cell == (5, 0)
    assert v.weights.shape == (6, 6) and v.weights.sum() == pytest.approx(1.0)
    assert v.weights[5, 0] == 0.0  # its own cell is masked
    assert v.weights[5, 1:].sum() > 0.7  # grass attends to grass, along the bottom row
    assert v.field.sum() == 4 and v.field[4:, :2].all()  # a 3 x 3 kernel at a corner sees 2 x 2 patches
    assert v.weight_outside_field == pytest.approx(v.weights[~v.field].sum())
    assert v.weight_outside_field > 0.5  # most of it where a one-layer CNN cannot look
    wide = picture_view(8, 30, k=3, n_layers=5)
    assert wide.field.all() and wide.weight_outside_field == 0.0
    with pytest.raises(ValueError, match="not a patch"):
        picture_view(24, 4)
    with pytest.raises(ValueError, match="does not divide"):
        picture_view(5, 0)


def test_patch_count_of_vit_base_16_by_hand():
    """Issue 26 #13: a 224 x 224 photo in 16 x 16 patches is 14 x 14 = 196 vectors of 16·16·3 = 768
    numbers; self-attention over them computes 196² = 38,416 scores of 768 multiply-adds each."""
    c = patch_count(224, 224, 16)
    assert (c.rows, c.cols, c.n_patches, c.vector_length) == (14, 14, 196, 768)
    assert (c.pairs, c.score_products) == (38_416, 38_416 * 768)
    assert c.fits and c.left_over == (0, 0) and (c.below, c.above) == (14, 28)
    assert c.sizes.tolist() == [1, 2, 4, 7, 8, 14, 16, 28, 32, 56, 112, 224]
    assert c.sizes_T.tolist() == [(224 // p) ** 2 for p in c.sizes.tolist()]
    half = patch_count(224, 224, 8)
    assert half.n_patches == 4 * c.n_patches and half.pairs == 16 * c.pairs  # T² grows as 1/p⁴


def test_patch_count_of_sizes_that_do_not_divide():
    c = patch_count(224, 224, 15)
    assert not c.fits and c.left_over == (14, 14) and (c.rows, c.cols) == (14, 14)
    assert (c.below, c.above) == (14, 16) and c.vector_length == 15 * 15 * 3
    wide = patch_count(230, 224, 16)
    assert not wide.fits and wide.left_over == (6, 0) and (wide.below, wide.above) == (2, None)
    one = patch_count(17, 17, 17)
    assert one.n_patches == 1 and one.pairs == 1 and one.fits and one.above is None
    big = patch_count(4096, 4096, 1)
    assert big.pairs == (4096 * 4096) ** 2  # Python ints: exact beyond 2^53
    with pytest.raises(ValueError, match="larger than the 100 x 60 picture; choose at most 60"):
        patch_count(100, 60, 80)
    with pytest.raises(ValueError, match="at least 1"):
        patch_count(224, 224, 0)
