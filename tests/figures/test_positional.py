"""The positional page's figures carry the numbers they were given, thinned only when large, on
colour scales that are symmetric about zero, with user text escaped."""

import numpy as np
import plotly.graph_objects as go
import pytest

from lab_ui.figures import positional as figs


@pytest.mark.parametrize(("n", "step"), [(1, 1), (200, 1), (201, 2), (400, 2), (512, 3)])
def test_thinning_step(n, step):
    assert figs.thinning_step(n) == step
    assert len(range(0, n, step)) <= figs.MAX_DRAWN


def test_matrix_heatmap_keeps_small_tables_whole():
    z = np.arange(12, dtype=float).reshape(3, 4) - 5  # [3, 4]
    fig = figs.matrix_heatmap(z, x_title="dim", y_title="p", value_name="PE", title="T")
    trace = fig.data[0]
    np.testing.assert_array_equal(trace.z, z)
    assert trace.z.dtype == np.float32  # sent to the browser as 4-byte floats
    assert list(trace.x) == [0, 1, 2, 3] and list(trace.y) == [0, 1, 2]
    assert trace.zmin == -6 and trace.zmax == 6 and trace.zmid == 0  # ±max|z|: white is zero
    assert trace.texttemplate  # 12 cells: small enough to print the numbers
    assert fig.layout.yaxis.autorange == "reversed"  # position 0 on top, as in the table


def test_matrix_heatmap_thins_a_big_table_but_keeps_true_indices():
    z = np.random.default_rng(0).standard_normal((512, 300))
    trace = figs.matrix_heatmap(z, x_title="dim", y_title="p", value_name="PE", zmax=1.0).data[0]
    assert trace.z.shape == (171, 150)  # every 3rd position, every 2nd dimension
    assert trace.y[-1] == 510 and trace.x[-1] == 298
    np.testing.assert_array_equal(trace.z, z[::3, ::2].astype(np.float32))
    assert trace.texttemplate is None


def test_matrix_pair_shares_one_scale():
    a, b = np.eye(3), -np.eye(3)
    fig = figs.matrix_pair(a, b, titles=("learned", "fixed"), x_title="q", y_title="p", value_name="cos", zmax=1.0)
    assert len(fig.data) == 2
    assert {(t.zmin, t.zmax) for t in fig.data} == {(-1.0, 1.0)}
    assert [t.showscale for t in fig.data] == [False, True]  # one colour bar for both
    assert [t.xaxis for t in fig.data] == ["x", "x2"]
    assert [a.text for a in fig.layout.annotations] == ["<b>learned</b>", "<b>fixed</b>"]


def test_token_matrix_pair_keeps_repeated_tokens_apart_and_escapes_them():
    out = np.arange(8.0).reshape(4, 2)
    fig = figs.token_matrix_pair(
        out, -out, ["I", "saw", "<b>a</b>", "saw"], titles=("moved", "shuffled"), x_title="dim", y_title="word",
        value_name="output", zmax=7.0,
    )  # fmt: skip
    left, right = fig.data
    np.testing.assert_array_equal(left.z, out)
    np.testing.assert_array_equal(right.z, -out)
    assert list(left.y) == [0, 1, 2, 3]  # numeric rows: the two "saw"s stay two rows
    assert list(fig.layout.yaxis.ticktext) == ["I", "saw", "&lt;b&gt;a&lt;/b&gt;", "saw"]


def test_curves_one_line_per_dimension():
    y = np.stack([np.sin(np.arange(50)), np.cos(np.arange(50))], axis=1)
    fig = figs.curves(y, ["0 · sin", "1 · cos"], x_title="p", y_title="PE")
    assert [t.name for t in fig.data] == ["0 · sin", "1 · cos"]
    np.testing.assert_allclose(fig.data[1].y, np.cos(np.arange(50)), atol=1e-6)
    assert fig.data[0].line.dash != fig.data[1].line.dash  # told apart without colour
    assert fig.data[0].mode == "lines+markers"  # 50 positions: a dot on each
    many = np.zeros((figs.MARKERS_UP_TO + 1, 1))
    assert figs.curves(many, ["a"], x_title="p", y_title="PE").data[0].mode == "lines"


def test_offset_profiles_band_and_mean():
    mean, low, high = np.array([2.0, 1.0]), np.array([2.0, 0.5]), np.array([2.0, 1.5])
    fig = figs.offset_profiles([("sin", mean, low, high)], x_title="Δ", y_title="dot", band_name="range")
    upper, lower, line = fig.data
    np.testing.assert_array_equal(upper.y, high)
    np.testing.assert_array_equal(lower.y, low)
    assert lower.fill == "tonexty"
    np.testing.assert_array_equal(line.y, mean)
    np.testing.assert_array_equal(line.customdata, np.stack([low, high], axis=-1))


def test_rotation_circle_draws_each_arrow_from_p_to_p_plus_k():
    theta = np.arange(12) * 0.5
    points = np.stack([np.sin(theta), np.cos(theta)], axis=1)  # pair 0 of a table with ω = 0.5
    fig = figs.rotation_circle(points, [0, 4], 3, x_title="sin", y_title="cos", all_name="all",
                               arrow_text="p = {p} → {q}")  # fmt: skip
    assert isinstance(fig, go.Figure)
    arrows = fig.layout.annotations
    assert len(arrows) == 2
    assert (arrows[1].ax, arrows[1].ay) == pytest.approx(tuple(points[4]), abs=1e-6)
    assert (arrows[1].x, arrows[1].y) == pytest.approx(tuple(points[7]), abs=1e-6)
    assert [t.name for t in fig.data[2:] if t.showlegend is not False] == ["p = 0 → 3", "p = 4 → 7"]
    np.testing.assert_allclose(np.hypot(fig.data[1].x, fig.data[1].y), 1.0, atol=1e-6)  # on the unit circle
