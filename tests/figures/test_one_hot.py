"""The one-hot page's figures carry the numbers they were given, keep groups apart by colour and
shape, place labels so they do not collide, escape every label, and send small arrays as lists."""

import numpy as np
import pytest

from attention_core import one_hot
from attention_core.sequences import NETWORK_FRIENDSHIPS, NETWORK_PEOPLE, adjacency_vectors, frame_starts
from lab_ui.figures import one_hot as figs
from lab_ui.figures.common import QUALITATIVE

GROUPS = ["a"] * 3 + ["b"] * 2 + ["c"] * 4
VOCAB = [f"w{i}" for i in range(len(GROUPS))]
NAMES = {"a": "alpha", "b": "<b>beta</b>", "c": "gamma"}


def test_runs_finds_consecutive_groups():
    assert figs.runs(GROUPS) == [("a", 0, 2), ("b", 3, 4), ("c", 5, 8)]
    assert figs.runs([]) == []
    assert figs.runs(["x", "y", "x"]) == [("x", 0, 0), ("y", 1, 1), ("x", 2, 2)]


def test_one_hot_rows_mark_each_word_and_name_the_groups():
    z = one_hot(np.array([4, 0]), len(VOCAB))
    fig = figs.one_hot_rows(z, ["w4", "<i>w0</i>"], VOCAB, GROUPS, NAMES, x_title="pos", value_name="v",
                            position_text="at {i}")  # fmt: skip
    heat = fig.data[0]
    assert np.asarray(heat.z).tolist() == z.astype(int).tolist()
    assert list(heat.x) == VOCAB and list(heat.y) == ["w4", "&lt;i&gt;w0&lt;/i&gt;"]  # labels escaped
    assert [a.text for a in fig.layout.annotations] == ["at 4", "at 0"]
    assert [a.x for a in fig.layout.annotations] == ["w4", "w0"]
    assert list(fig.layout.xaxis.ticktext) == ["alpha", "&lt;b&gt;beta&lt;/b&gt;", "gamma"]
    assert [s.x0 for s in fig.layout.shapes] == [2.5, 4.5]  # a border before each new group
    big = figs.one_hot_rows(z, ["w4", "w0"], VOCAB, GROUPS, NAMES, x_title="p", value_name="v", position_text="{i}",
                            big=True)  # fmt: skip
    assert big.layout.height > fig.layout.height


def test_similarity_uses_the_given_scale_and_prints_small_matrices():
    sim = np.array([[1.0, 0.25], [0.25, 1.0]])
    fig = figs.similarity(sim, ["cat", "dog"], title="T", axis_title="word", value_name="cos", zmin=-0.5)
    trace = fig.data[0]
    np.testing.assert_allclose(trace.z, sim)
    assert (trace.zmin, trace.zmax) == (-0.5, 1.0)
    assert trace.texttemplate and fig.layout.title.text == "T"
    big = figs.similarity(np.eye(13), [str(i) for i in range(13)], title="T", axis_title="w", value_name="c", zmin=0,
                          big=True)  # fmt: skip
    assert big.data[0].texttemplate is None  # 13 x 13: too many cells to print
    assert big.layout.height <= 820


def test_group_markers_are_all_different():
    markers = [figs.group_marker(k) for k in range(10)]
    assert len({(m["color"], m["symbol"]) for m in markers}) == 10
    assert markers[8]["color"] == QUALITATIVE[0] and markers[8]["symbol"].endswith("-open")  # colour back: hollow


def test_vocabulary_map_one_trace_per_group_plus_the_picked_words():
    rng = np.random.default_rng(0)
    coords = rng.standard_normal((len(VOCAB), 2))
    fig = figs.vocabulary_map(coords, VOCAB, GROUPS, ["a", "b", "c", "d"], NAMES, [1, 7], ["w1", "w7"],
                              x_title="PC 1", y_title="PC 2", picked_name="picked")  # fmt: skip
    assert [tr.name for tr in fig.data] == ["alpha", "&lt;b&gt;beta&lt;/b&gt;", "gamma", "picked"]  # "d" is empty
    assert list(fig.data[1].x) == pytest.approx(np.round(coords[3:5, 0], 5).tolist())
    assert isinstance(fig.data[0].x, tuple | list)  # small arrays go as lists, not typed arrays
    assert [s.replace("<b>", "").replace("</b>", "") for s in fig.data[-1].text] == ["w1", "w7"]
    assert fig.layout.yaxis.scaleanchor == "x"  # equal scales: distances on the map mean something
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0  # in rows under the map
    for axis, k in ((fig.layout.xaxis, 0), (fig.layout.yaxis, 1)):  # the data's extent and a little more
        low, high = coords[:, k].min(), coords[:, k].max()
        assert axis.range[0] < low and axis.range[1] > high
        assert axis.range[1] - axis.range[0] < 1.2 * (high - low)
        assert axis.constrain == "domain"  # equal scales by shrinking the plot, not padding one range
    assert fig.data[-1].cliponaxis is False  # a label at the edge keeps all its letters


def test_labels_of_nearby_points_move_apart():
    xy = np.array([[0.0, 0.0], [0.0, 0.01], [5.0, 5.0]])
    spots = figs.label_positions(xy, ["apple", "apples", "far"], extent=np.array([5.0, 5.0]))
    assert spots[0] != spots[1]  # two points on top of each other: their labels go different ways
    assert spots[2] == figs.LABEL_SPOTS[0]  # a lone point keeps the default spot


def test_sizes_draw_zero_as_a_note_not_a_bar():
    fig = figs.sizes(["one", "many", "params"], [30_522, 183_132, 0], [384, 2_304, 11_720_448], one_hot_name="1h",
                     embedding_name="emb", y_title="n", zero_text="0: none")  # fmt: skip
    one_hot_bars, embedding_bars = fig.data
    assert list(one_hot_bars.y) == [30_522.0, 183_132.0, None]
    assert list(embedding_bars.text) == ["384", "2,304", "11,720,448"]
    assert fig.layout.yaxis.type == "log"
    assert [a.text for a in fig.layout.annotations] == ["0: none"]
    (note,) = fig.layout.annotations
    assert note.textangle == -90 and note.xanchor == "center"  # upright in the empty slot, clear of the bar beside
    assert note.x == pytest.approx(2 - 0.2)  # the one-hot bar's slot of the third category


def test_wide_heatmap_is_symmetric_about_zero():
    z = np.array([[0.5, -2.0, 1.0], [0.0, 0.1, -0.1]])
    fig = figs.wide_heatmap(z, ["a", "<b>"], x_title="dim", y_title="word", value_name="v")
    trace = fig.data[0]
    assert trace.zmin == -2 and trace.zmax == 2
    assert list(trace.y) == ["a", "&lt;b&gt;"]
    np.testing.assert_allclose(trace.z, z.astype(np.float32))


def test_audio_windows_numbered_and_staggered():
    starts = frame_starts(100)
    t_ms = np.arange(1600) / 16.0
    fig = figs.audio_windows(t_ms, np.sin(t_ms), starts, 25, x_title="ms", signal_name="s", frame_text="{k}:{start}",
                             window_text="25 ms", hop_text="10 ms")  # fmt: skip
    numbers = fig.data[4]
    assert list(numbers.text) == [str(k) for k in range(1, 9)]
    bars = fig.data[1:4]  # three rows of bars: windows 1, 4, 7 / 2, 5, 8 / 3, 6
    assert [b.x[0] for b in bars] == [0.0, 10.0, 20.0]
    assert [x for x in bars[0].x if x is not None] == [0.0, 25.0, 30.0, 55.0, 60.0, 85.0]
    assert {a.text for a in fig.layout.annotations} >= {"25 ms", "10 ms"}


def test_network_layout_keeps_the_two_circles_apart():
    A = adjacency_vectors(NETWORK_PEOPLE, NETWORK_FRIENDSHIPS)
    pos = figs.spring_layout(A)
    assert pos.shape == (6, 2) and np.abs(pos).max() == pytest.approx(1)
    np.testing.assert_array_equal(pos, figs.spring_layout(A))  # the same drawing every time

    def dist(a, b):
        return np.linalg.norm(pos[NETWORK_PEOPLE.index(a)] - pos[NETWORK_PEOPLE.index(b)])

    assert dist("A", "B") < dist("A", "E") and dist("E", "F") < dist("B", "F")
    fig = figs.network(NETWORK_PEOPLE, A, friends_name="friends")
    assert list(fig.data[1].customdata) == A.sum(axis=1).astype(int).tolist()
    assert fig.data[0].x.count(None) == len(NETWORK_FRIENDSHIPS)


def test_binary_rows_print_every_cell():
    fig = figs.binary_rows(np.eye(3), ["O", "H1", "H2"], ["H", "C", "N"], x_title="el", y_title="atom",
                           value_name="v")  # fmt: skip
    trace = fig.data[0]
    assert trace.texttemplate and trace.showscale is False and (trace.zmin, trace.zmax) == (0, 1)
