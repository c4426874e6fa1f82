"""attention_core.speech: frames of sound, and full against windowed self-attention, counted by hand
and against the local mask itself."""

import numpy as np
import pytest

from attention_core import local_mask
from attention_core.speech import frame_count, speech_cost, window_entries


@pytest.mark.parametrize(("seconds", "frames"), [(0, 0), (0.02, 0), (0.025, 1), (0.035, 2), (1, 98), (10, 998)])
def test_one_frame_per_10_ms_while_a_25_ms_window_fits(seconds, frames):
    assert frame_count(seconds) == frames  # about 100 a second, as the articles say


@pytest.mark.parametrize("seconds", [-1, 3601, float("nan")])
def test_frame_count_refuses_what_is_not_a_length(seconds):
    with pytest.raises(ValueError, match="seconds must be between"):
        frame_count(seconds)


@pytest.mark.parametrize("T", [0, 1, 2, 5, 17, 100])
@pytest.mark.parametrize("w", [0, 1, 3, 8, 200])
def test_window_entries_count_the_local_mask(T, w):
    assert window_entries(T, w) == int(local_mask(T, w).sum())


def test_window_entries_on_an_array():
    np.testing.assert_array_equal(window_entries(np.array([0, 3, 10]), 2), [0, 9, 10 * 5 - 6])


def test_speech_cost_for_ten_seconds():
    cost = speech_cost(10, 8)
    assert (cost.T, cost.full_entries, cost.window_ms) == (998, 998**2, 80)
    assert cost.window_entries == int(local_mask(998, 8).sum()) == 998 * 17 - 8 * 9
    assert (cost.full_bytes, cost.window_bytes) == (4 * 998**2, 4 * cost.window_entries)  # float32
    np.testing.assert_array_equal(cost.mask, local_mask(40, 8))


def test_speech_cost_curves_every_half_second_to_at_least_a_minute():
    cost = speech_cost(10, 4)
    assert cost.curve_seconds[0] == 0 and cost.curve_seconds[-1] == 60 and np.allclose(np.diff(cost.curve_seconds), 0.5)
    np.testing.assert_array_equal(cost.curve_frames, [frame_count(s) for s in cost.curve_seconds])
    np.testing.assert_array_equal(cost.curve_full, cost.curve_frames**2)
    np.testing.assert_array_equal(cost.curve_window, window_entries(cost.curve_frames, 4))
    assert speech_cost(90, 4).curve_seconds[-1] == 90  # longer than a minute: the curve goes on
    # The point: full attention grows as the square, the window as a line.
    assert speech_cost(60, 8).full_entries / speech_cost(30, 8).full_entries == pytest.approx(4, rel=0.01)
    assert speech_cost(60, 8).window_entries / speech_cost(30, 8).window_entries == pytest.approx(2, rel=0.01)


def test_a_short_sound_draws_all_its_frames():
    cost = speech_cost(0.1, 2)
    assert cost.T == 8 and cost.mask.shape == (8, 8)
    assert not cost.mask.flags.writeable and not cost.curve_full.flags.writeable


@pytest.mark.parametrize("w", [10, 20, 50])
def test_a_wide_window_is_drawn_over_enough_frames_to_show_its_edge(w):
    # Over the first 40 frames a window of w >= 39 covered every cell: a full square, no band.
    mask = speech_cost(120, w).mask
    assert mask.shape[0] >= 4 * w + 1
    assert not mask.all() and not mask[0].all()  # the first frame cannot see the far frames
    np.testing.assert_array_equal(mask, local_mask(mask.shape[0], w))
