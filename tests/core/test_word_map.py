"""Words as vectors with the shipped vocabulary: one-hot against learned vectors, and the claim of
article 001 that the words of a group gather, measured in all dimensions (worked by hand on small
tables) and drawn on the plane of the group centres, which must not invent clusters."""

import numpy as np
import pytest

from attention_core import cosine_similarity
from attention_core.shipped import load_vocabulary
from attention_core.word_map import centre_plane, group_cosines, group_map, groups_of, word_vectors

voc = load_vocabulary()


def test_word_vectors_both_ways():
    view = word_vectors(("cat", "dog", "apple"))
    assert view.indices.tolist() == [voc.index(w) for w in ("cat", "dog", "apple")]
    assert view.one_hot.shape == (3, len(voc.words)) and view.one_hot.sum() == 3
    np.testing.assert_array_equal(view.one_hot_similarity, np.eye(3))  # different words: exactly 0
    np.testing.assert_allclose(view.learned_similarity, cosine_similarity(voc.vectors[view.indices]))
    assert view.closest == (0, 1)  # cat and dog, article 001's point
    assert view.lookup_difference == 0.0  # one-hot times the table is the table's row
    # every pair once (each word with itself too), most alike first
    assert len(view.pairs) == 6
    sims = view.learned_similarity[view.pairs[:, 0], view.pairs[:, 1]]
    assert np.all(np.diff(sims) <= 0)
    assert view.least in {(1, 2), (0, 2)} and view.least != view.closest


def test_word_vectors_need_two_shipped_words():
    with pytest.raises(ValueError, match="at least two"):
        word_vectors(("cat",))
    with pytest.raises(ValueError, match="not in the shipped vocabulary"):
        word_vectors(("cat", "xylophone"))


def test_group_cosines_by_hand():
    # Two groups of two unit vectors in 2-D: a = (1, 0), b = (0.8, 0.6); c = (0, 1), d = (0.6, 0.8).
    # Within: cos(a, b) = 0.8, cos(c, d) = 0.8 -> 0.8. Between: cos(a, c) = 0, cos(a, d) = 0.6,
    # cos(b, c) = 0.6, cos(b, d) = 0.48 + 0.48 = 0.96 -> (0 + 0.6 + 0.6 + 0.96) / 4 = 0.54.
    x = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.6, 0.8]])
    labels = np.array(["g", "g", "h", "h"])
    within, between = group_cosines(x, labels)
    assert within == pytest.approx(0.8) and between == pytest.approx(0.54)
    within, between = group_cosines(x, np.array(["g"] * 4))
    assert np.isnan(between)


def test_centre_plane_of_three_groups_holds_their_centres_exactly():
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((3, 50)) * 3
    x = np.repeat(centres, 10, axis=0) + rng.standard_normal((30, 50)) * 0.1  # [30, 50]
    labels = np.repeat(["a", "b", "c"], 10)
    axes, share = centre_plane(x, labels)
    assert axes.shape == (2, 50)
    np.testing.assert_allclose(axes @ axes.T, np.eye(2), atol=1e-12)  # two orthonormal directions
    assert share == pytest.approx(1.0)  # three centres always lie in one plane
    assert np.all(axes[np.arange(2), np.argmax(np.abs(axes), axis=1)] > 0)  # signs fixed: no flipping maps


@pytest.mark.parametrize("k", [1, 2])
def test_fewer_than_three_groups_take_the_missing_axes_from_the_words_spread(k):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((20, 8)) * np.array([5, 3, 1, 1, 1, 1, 1, 1])  # most spread along 0, then 1
    labels = np.repeat(["a", "b"], 10) if k == 2 else np.array(["a"] * 20)
    axes, share = centre_plane(x, labels)
    np.testing.assert_allclose(axes @ axes.T, np.eye(2), atol=1e-12)
    assert share == pytest.approx(1.0)
    if k == 1:  # the plain principal axes
        assert abs(axes[0, 0]) > 0.9 and abs(axes[1, 1]) > 0.8
    else:  # first the line through the two centres
        diff = x[:10].mean(axis=0) - x[10:].mean(axis=0)
        assert abs(axes[0] @ diff) == pytest.approx(np.linalg.norm(diff))


def test_the_shipped_groups_gather_and_shuffled_groups_do_not():
    """The page's claim, and a check that the map's plane does not invent it: with the labels
    shuffled at random, within and between are the same, and the words of a 'group' spread over
    the plane as much as the centres do."""
    gmap = group_map(("animals", "fruit_plants", "motion_verbs"))
    assert gmap.within > gmap.between + 0.1
    assert np.all(np.diag(gmap.block_cosine) > gmap.block_cosine.max(axis=1, where=~np.eye(3, dtype=bool), initial=0))
    labels = np.asarray(gmap.labels)

    def separation(coords, labels):
        centres = np.stack([coords[labels == g].mean(axis=0) for g in np.unique(labels)])
        spread = np.mean(
            [
                np.sum((coords[labels == g] - c) ** 2, axis=1).mean()
                for g, c in zip(np.unique(labels), centres, strict=True)
            ]
        )
        return np.sum((centres - centres.mean(axis=0)) ** 2, axis=1).mean() / spread

    assert separation(gmap.coords, labels) > 5
    x = voc.vectors[gmap.rows]
    shuffled = np.random.default_rng(0).permutation(labels)
    within, between = group_cosines(x, shuffled)
    assert abs(within - between) < 0.03
    axes, _ = centre_plane(x, shuffled)
    assert separation((x - x.mean(axis=0)) @ axes.T, shuffled) < 2


def test_group_map_numbers_agree_with_each_other():
    gmap = group_map(("animals", "fruit_plants", "motion_verbs"))
    assert gmap.group_ids == ("animals", "fruit_plants", "motion_verbs") and len(gmap.rows) == 60
    assert (gmap.n_within, gmap.n_between) == (3 * 20 * 19 // 2, 3 * 20 * 20)
    # the overall means are the pair-weighted means of the blocks (equal groups: plain means)
    k = np.eye(3, dtype=bool)
    assert gmap.within == pytest.approx(gmap.block_cosine[k].mean())
    assert gmap.between == pytest.approx(gmap.block_cosine[~k].mean())
    cat = gmap.position(voc.index("cat"))
    sims = cosine_similarity(voc.vectors[gmap.rows])[cat]
    same = np.asarray(gmap.labels) == "animals"
    assert gmap.own_group[cat] == pytest.approx((sims[same].sum() - 1) / 19)
    assert gmap.other_groups[cat] == pytest.approx(sims[~same].mean())
    # the axes' shares of the variance, as a plain projection gives them
    x = voc.vectors[gmap.rows] - voc.vectors[gmap.rows].mean(axis=0)
    np.testing.assert_allclose(gmap.axis_share, np.sum(gmap.coords**2, axis=0) / np.sum(x**2))
    assert 0 < gmap.kept < 1


def test_all_ten_groups_need_more_than_a_plane():
    gmap = group_map(voc.group_ids)
    assert len(gmap.rows) == len(voc.words)
    assert 0.2 < gmap.centre_share < 0.7  # ten centres span nine dimensions
    assert gmap.kept < 0.15


def test_one_group_has_no_between():
    gmap = group_map(("animals",))
    assert np.isnan(gmap.between) and gmap.n_between == 0 and np.all(np.isnan(gmap.other_groups))
    assert gmap.coords.shape == (20, 2)


def test_groups_of_and_bad_groups():
    assert groups_of(("walk", "cat", "dog")) == ("animals", "motion_verbs")  # the vocabulary's order
    with pytest.raises(ValueError, match="pick groups"):
        group_map(("dinosaurs",))
    with pytest.raises(ValueError, match="pick groups"):
        group_map(())
