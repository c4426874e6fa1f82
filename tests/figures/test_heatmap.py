"""The attention-heatmaps page's figures: the arrays they are given are the arrays they draw."""

import numpy as np
import plotly.graph_objects as go

from attention_core import causal_mask
from lab_ui.figures.heatmap import CELL_TEXT_MAX_TOKENS, row_bars, weighted_sum, weights_heatmap

TOKENS = ["I", "saw", "a", "<b>saw</b>"]
W = np.array(
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [0.2, 0.3, 0.5, 0.0],
        [0.1, 0.2, 0.3, 0.4],
    ]
)


def _heatmap(weights=W, mask=None, **kw) -> go.Figure:
    return weights_heatmap(
        weights, TOKENS, mask=mask, query_title="query", key_title="key", value_name="weight", sum_label="Σ",
        title="Weights", subtitle="rows: queries", **kw,
    )  # fmt: skip


def _trace(fig: go.Figure, **selector):
    return next(iter(fig.select_traces(selector=selector)))


def test_cells_are_the_weights_and_masked_cells_are_empty_and_crossed():
    fig = _heatmap(mask=causal_mask(4))
    z = np.array(_trace(fig, type="heatmap").z, dtype=float)
    upper = ~causal_mask(4)
    assert np.all(np.isnan(z[upper]))
    np.testing.assert_allclose(z[~upper], W[~upper])
    crosses = _trace(fig, mode="markers")
    assert sorted(zip(crosses.y, crosses.x, strict=True)) == sorted(zip(*np.nonzero(upper), strict=True))


def test_row_sums_are_printed_beside_each_row():
    relu_like = W * np.array([[1.0], [2.0], [0.5], [3.0]])
    fig = _heatmap(relu_like, zmax=None)
    assert list(_trace(fig, mode="text").text) == ["1.00", "2.00", "0.50", "3.00"]
    assert fig.layout.xaxis.ticktext[-1] == "Σ"
    assert _trace(fig, type="heatmap").zmax is None  # the colour scale follows the data when rows are not shares


def test_labels_are_escaped_and_hover_counts_from_one():
    fig = _heatmap()
    assert fig.layout.xaxis.ticktext[3] == "&lt;b&gt;saw&lt;/b&gt;"
    assert fig.layout.yaxis.ticktext[3] == "&lt;b&gt;saw&lt;/b&gt;"
    custom = np.array(_trace(fig, type="heatmap").customdata)
    assert custom[1, 3].tolist() == ["saw (2)", "&lt;b&gt;saw&lt;/b&gt; (4)"]  # [query, key] of row 2, column 4
    assert fig.layout.title.text == "Weights" and fig.layout.title.subtitle.text == "rows: queries"


def test_row_bars_grey_out_masked_keys():
    fig = row_bars(W[1], TOKENS, allowed=causal_mask(4)[1], x_title="key", y_title="weight", masked_text="×")
    bar, band = _trace(fig, name="weight"), _trace(fig, name="×")
    np.testing.assert_allclose(bar.y, W[1])
    assert list(band.x) == [2, 3] and list(band.text) == ["×", "×"]  # a grey band behind each masked key
    assert fig.data[0] is band  # drawn behind the bars


def test_crowded_masks_are_grey_without_crosses():
    T = 40
    fig = weights_heatmap(
        np.full((T, T), 1 / T), [f"w{i}" for i in range(T)], mask=causal_mask(T), query_title="query",
        key_title="key", value_name="weight", sum_label="Σ",
    )  # fmt: skip
    assert not list(fig.select_traces(selector=dict(mode="markers")))
    grey = np.array(list(fig.select_traces(selector=dict(type="heatmap")))[1].z, dtype=float)
    np.testing.assert_array_equal(~np.isnan(grey), ~causal_mask(T))  # the masked cells, painted grey


def test_weighted_sum_rows_are_the_terms_and_the_last_row_is_their_sum():
    v = np.array([[1.0, -2.0], [3.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    row = W[2]
    fig = weighted_sum(
        row, v, TOKENS, allowed=causal_mask(4)[2], output_label="b3", component_title="component",
        term_title="term", value_name="value",
    )  # fmt: skip
    heat = _trace(fig, type="heatmap")
    z = np.array(heat.z, dtype=float)
    np.testing.assert_allclose(z[:3], row[:3, None] * v[:3])
    assert np.all(np.isnan(z[3]))  # key 4 is masked for query 3
    np.testing.assert_allclose(z[4], row @ v)  # b3 = 0.2·(1, -2) + 0.3·(3, 0) + 0.5·(0, 1) = (1.1, 0.1)
    np.testing.assert_allclose(z[4], [1.1, 0.1])
    assert heat.zmid == 0 and heat.zmin == -heat.zmax  # diverging scale centred on 0
    assert list(fig.layout.yaxis.ticktext)[-1] == "b3"


def test_cells_carry_numbers_only_while_they_are_wide_enough():
    small = _trace(_heatmap(), type="heatmap")  # 4 tokens
    assert small.texttemplate == "%{z:.2f}" and small.textfont.size == 12
    assert small.hovertemplate.endswith("%{z:.6f}<extra></extra>")  # hover keeps the exact value
    T = CELL_TEXT_MAX_TOKENS + 1  # past the desktop's limit: no numbers at all (a phone hides them sooner)
    crowded = weights_heatmap(
        np.full((T, T), 1 / T), [f"w{i}" for i in range(T)], mask=None, query_title="query", key_title="key",
        value_name="weight", sum_label="Σ",
    )  # fmt: skip
    assert _trace(crowded, type="heatmap").texttemplate is None
    assert crowded.layout.xaxis.automargin and crowded.layout.yaxis.automargin  # slanted labels are not cut


def test_weighted_sum_numbers_have_a_fixed_size_and_stop_when_crowded():
    row = np.full(4, 0.25)
    narrow = weighted_sum(row, np.ones((4, 4)), TOKENS, allowed=None, output_label="b1", component_title="c",
                          term_title="t", value_name="v")  # fmt: skip
    heat = _trace(narrow, type="heatmap")
    assert heat.texttemplate == "%{z:.2f}" and heat.textfont.size == 12  # fixed: Plotly would shrink it to 4 px
    wide = weighted_sum(row, np.ones((4, 8)), TOKENS, allowed=None, output_label="b1", component_title="c",
                        term_title="t", value_name="v")  # fmt: skip
    assert _trace(wide, type="heatmap").texttemplate is None  # 8 components: ~22 px cells on a phone
