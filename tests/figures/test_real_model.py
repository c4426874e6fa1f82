"""lab_ui.figures.real_model: the figures hold the arrays they were given, in the right places."""

import numpy as np

from attention_core import softmax
from lab_ui.figures import real_model as figs
from lab_ui.figures.common import SEQUENTIAL

TOKENS = ["[CLS]", "a", "<b>", "a", "[SEP]"]
NAMES = dict(layer_title="Layer", head_title="Head", query_label="query", key_label="key", value_name="weight")


def maps(L=2, H=3, T=5, seed=0) -> np.ndarray:
    return softmax(np.random.default_rng(seed).normal(size=(L, H, T, T)) * 2)


def grid(m, tokens=TOKENS, positions=None, selected=(1, 2)):
    L, H = m.shape[:2]
    return figs.model_grid(
        m, tokens, list(range(len(tokens))) if positions is None else positions, selected=selected,
        layer_names=[f"layer {i + 1}" for i in range(L)], head_names=[f"head {h + 1}" for h in range(H)], **NAMES,
    )  # fmt: skip


def test_grid_is_one_trace_holding_every_map_apart():
    m = maps()
    fig = grid(m)
    assert len(fig.data) == 1
    z = np.asarray(fig.data[0].z, dtype=float)
    g = figs.grid_gap(5)
    assert z.shape == (2 * 5 + g, 3 * 5 + 2 * g)
    for layer in range(2):
        for head in range(3):
            np.testing.assert_allclose(figs.grid_block(z, 5, layer, head), m[layer, head], atol=1e-6)
    assert np.isnan(z[5:6]).all() and np.isnan(z[:, 5:6]).all()  # the gaps are empty, not zero
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0, 1)  # one colour scale for all maps
    assert fig.data[0].hoverongaps is False
    bar = fig.data[0].colorbar  # across the bottom, as wide as the grid, on a phone as on a desktop
    assert (bar.orientation, bar.lenmode, bar.len) == ("h", "fraction", 1)


def test_grid_hover_labels_name_layer_head_query_and_key():
    fig = grid(maps(), positions=[0, 1, 2, 3, 4])
    y, x = list(fig.data[0].y), list(fig.data[0].x)
    assert len(set(y)) == len(y) and len(set(x)) == len(x)  # categories: the two "a"s stay apart
    assert y[1] == "layer 1 · query 1: a" and y[3] == "layer 1 · query 3: a"
    assert x[2] == "head 1 · key 2: &lt;b&gt;"  # a token's HTML is shown as text
    step = 5 + figs.grid_gap(5)
    assert x[2 * step + 4] == "head 3 · key 4: [SEP]"
    assert "%{y}<br>%{x}" in fig.data[0].hovertemplate
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "3"] and list(fig.layout.yaxis.ticktext) == ["1", "2"]


def test_grid_keeps_positions_of_the_whole_text_when_tokens_are_hidden():
    fig = grid(maps(T=3), tokens=["a", "<b>", "a"], positions=[1, 2, 3])
    assert list(fig.data[0].y)[:3] == ["layer 1 · query 1: a", "layer 1 · query 2: &lt;b&gt;", "layer 1 · query 3: a"]


def test_grid_outlines_the_selected_head():
    fig = grid(maps(), selected=(1, 2))
    (shape,) = fig.layout.shapes
    step = 5 + figs.grid_gap(5)
    assert shape.x0 < 2 * step - 0.5 and shape.x1 > 2 * step + 4.5  # around head 3's columns
    assert shape.y0 < step - 0.5 and shape.y1 > step + 4.5  # around layer 2's rows
    assert shape.x1 - shape.x0 < step + 1  # and no further than the next map
    assert grid(maps(), selected=None).layout.shapes == ()


def test_head_map_rows_and_columns():
    m = maps()[0, 0]
    labels = [f"{i} · {tok}" for i, tok in enumerate(TOKENS)]
    fig = figs.head_map(m, labels, labels, query_title="Query", key_title="Key", value_name="weight")
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), m, atol=1e-6)
    assert list(fig.data[0].y) == ["0 · [CLS]", "1 · a", "2 · &lt;b&gt;", "3 · a", "4 · [SEP]"]
    assert list(fig.layout.xaxis.ticktext) == list(fig.data[0].y)  # keys indexed like the queries
    assert fig.layout.xaxis.tickangle == -45  # slanted, not stacked upright
    assert fig.layout.yaxis.scaleanchor is None  # the map fills the plot, so it is as tall as its colour bar
    assert fig.data[0].colorscale[0][1] == "#440154" and SEQUENTIAL == "Viridis"
    assert fig.data[0].texttemplate  # 25 cells: the values are printed
    assert "Query: %{y}<br>Key: %{x}" in fig.data[0].hovertemplate
    assert fig.data[0].customdata is None  # no per-cell hover strings


def test_head_map_with_a_rest_column():
    m = maps(T=8)[0, 0]
    z = np.hstack([m[:6, :6], m[:6, 6:].sum(axis=1, keepdims=True)])
    rows = [f"{i} · w" for i in range(6)]
    fig = figs.head_map(z, rows, [*rows, "… +2 more"], query_title="Q", key_title="K", value_name="weight")
    shown = np.asarray(fig.data[0].z, dtype=float)
    assert shown.shape == (6, 7)
    np.testing.assert_allclose(shown.sum(axis=1), 1.0, atol=1e-5)
    assert list(fig.data[0].x)[-1] == "… +2 more"
    eleven = [f"{i} · w" for i in range(11)]
    big = figs.head_map(maps(T=11)[0, 0], eleven, eleven, query_title="Q", key_title="K", value_name="weight")
    assert big.data[0].texttemplate is None  # 121 cells: too many to print
    many = [f"{i} · w" for i in range(64)]
    crowded = figs.head_map(np.full((64, 65), 1 / 65), many, [*many, "… +9 more"], query_title="Q", key_title="K",
                            value_name="weight")  # fmt: skip
    assert list(crowded.layout.yaxis.tickvals) == many[::2]  # every second row labelled, all 64 drawn
    assert list(crowded.layout.xaxis.tickvals)[-1] == "… +9 more" and len(crowded.data[0].x) == 65
    assert crowded.layout.xaxis.tickangle == -90  # 33 labels: upright, side by side


def test_share_map_prints_every_number():
    share = np.linspace(0, 1, 72).reshape(6, 12)
    fig = figs.share_map(share, layer_title="Layer", head_title="Head", value_name="share")
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), share, atol=1e-6)
    assert fig.data[0].texttemplate == "%{z:.2f}"
    assert list(fig.layout.xaxis.ticktext) == [str(h) for h in range(1, 13)]
    assert list(fig.layout.yaxis.ticktext) == [str(i) for i in range(1, 7)]
    assert list(fig.data[0].x) == list(range(1, 13)) and list(fig.data[0].y) == list(range(1, 7))
    assert "Layer %{y} · Head %{x}" in fig.data[0].hovertemplate  # the axes are the numbers hover names
    assert fig.data[0].colorscale[0][1] == "#00224e"  # Cividis: apart from the attention maps' Viridis
