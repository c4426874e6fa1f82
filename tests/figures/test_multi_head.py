"""lab_ui.figures.multi_head: the figures hold the arrays they were given, in the right places."""

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures import multi_head as figs
from lab_ui.figures.common import QUALITATIVE

LABELS = {"token": "token", "value": "value", "column": "column", "out_column": "output column", "head": "head {i}"}
TOKENS = ["a", "<b>", "a", "c"]


def _z(trace) -> np.ndarray:
    return np.asarray(trace.z, dtype=float)


def test_split_figure_puts_each_block_apart_in_its_colour():
    rng = np.random.default_rng(0)
    whole = rng.standard_normal((4, 6))
    blocks = whole.reshape(4, 3, 2).transpose(1, 0, 2)  # [h, T, d_head], as split_heads cuts it
    fig = figs.split_figure(whole, blocks, TOKENS, whole_title="Q", split_title="split", labels=LABELS)
    assert len(fig.data) == 6  # the matrix as three head blocks, then the three blocks apart
    np.testing.assert_allclose(np.hstack([_z(tr) for tr in fig.data[:3]]), whole, atol=1e-6)
    assert [list(tr.x) for tr in fig.data[:3]] == [[0, 1], [2, 3], [4, 5]]
    for i, tr in enumerate(fig.data[3:]):
        np.testing.assert_allclose(_z(tr), blocks[i], atol=1e-6)
        assert list(tr.x) == [3 * i, 3 * i + 1]  # a gap of one cell between heads
        assert tr.xaxis == "x2" and f"head {i + 1}" in tr.hovertemplate
    assert "column %{x} · head 2" in fig.data[1].hovertemplate
    outlines = [s.line.color for s in fig.layout.shapes]
    assert outlines == [QUALITATIVE[i] for i in range(3)] * 2
    names = [a.text for a in fig.layout.annotations if a.bgcolor]
    assert names == ["<b>head 1</b>", "<b>head 2</b>", "<b>head 3</b>"]
    # rows: unique categories (the two "a"s stay apart), shown as the escaped tokens
    assert list(fig.layout.yaxis.categoryarray) == ["0: a", "1: &lt;b&gt;", "2: a", "3: c"]
    assert list(fig.layout.yaxis.ticktext) == ["a", "&lt;b&gt;", "a", "c"]


def test_concat_figure_shares_the_heads_scale_and_gives_the_output_its_own():
    rng = np.random.default_rng(1)
    heads = rng.standard_normal((2, 3, 2))
    concat = np.hstack(list(heads))
    output = 10 * rng.standard_normal((3, 4))
    fig = figs.concat_figure(heads, concat, output, ["x", "y", "z"], heads_title="h", concat_title="c",
                             output_title="o", labels=LABELS)  # fmt: skip
    assert [tr.coloraxis for tr in fig.data] == ["coloraxis"] * 4 + ["coloraxis2"]
    np.testing.assert_allclose(np.hstack([_z(tr) for tr in fig.data[2:4]]), concat, atol=1e-6)
    np.testing.assert_allclose(_z(fig.data[4]), output, atol=1e-5)
    assert "output column" in fig.data[4].hovertemplate
    assert fig.layout.coloraxis2.cmax > fig.layout.coloraxis.cmax  # the output is on its own, wider scale
    assert fig.layout.coloraxis.cmin == -fig.layout.coloraxis.cmax  # symmetric around 0


def test_head_maps_one_trace_per_head_on_one_scale():
    rng = np.random.default_rng(2)
    w = rng.random((6, 5, 5))
    w /= w.sum(-1, keepdims=True)
    fig = figs.head_maps(w, list("abcde"), head_names=[f"h{i}" for i in range(6)], query_title="q", key_title="k",
                         value_name="w")  # fmt: skip
    assert len(fig.data) == 6 and all(tr.coloraxis == "coloraxis" for tr in fig.data)
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
    for i, tr in enumerate(fig.data):
        np.testing.assert_allclose(_z(tr), w[i], atol=1e-6)
    # four per row: head 4 starts a new row, under head 0
    assert fig.data[4].x[0] == fig.data[0].x[0] and fig.data[4].y[0] > fig.data[0].y[-1]
    assert [a.bgcolor for a in fig.layout.annotations] == [QUALITATIVE[i] for i in range(6)]


def test_labels_only_when_cells_are_large_enough():
    assert figs.maps_have_labels(2, 4)
    assert not figs.maps_have_labels(12, 40)


def test_head_names_are_legible_on_every_colour():
    assert figs._ink("#F0E442") == "#000000"  # yellow: black text
    assert figs._ink("#000000") == "#FFFFFF"
    assert figs._ink("#0072B2") == "#FFFFFF"


def test_robust_scale_ignores_a_lone_outlier():
    z = np.ones((10, 100))
    z[0, 0] = 1000.0
    assert figs.robust_max(z) == 1.0
    assert figs.robust_max(np.full((2, 2), np.nan)) == 1.0


def test_entropy_bars_and_overlap_heatmap():
    fig = figs.entropy_bars(np.array([0.5, 2.0]), ["1", "2"], uniform=2.0, uniform_label="uniform", x_title="head",
                            y_title="bits")  # fmt: skip
    assert isinstance(fig, go.Figure)
    np.testing.assert_allclose(np.asarray(fig.data[0].y, dtype=float), [0.5, 2.0])
    assert list(fig.data[0].marker.color) == [QUALITATIVE[0], QUALITATIVE[1]]
    assert fig.layout.shapes[0].y0 == 2.0  # the uniform line
    o = np.array([[1.0, 0.3], [0.3, 1.0]])
    heat = figs.overlap_heatmap(o, ["1", "2"], title="head", value_name="overlap")
    np.testing.assert_allclose(np.asarray(heat.data[0].z, dtype=float), o)
    assert (heat.data[0].zmin, heat.data[0].zmax) == (0, 1)
