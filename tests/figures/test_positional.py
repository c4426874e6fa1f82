"""The positional page's figures carry the numbers of the core result they are given, thinned only
when large, on colour scales symmetric about zero, with user text escaped and labels in the
language asked for."""

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_core.positional import (
    learned_vs_sinusoidal,
    shift_rotation,
    shuffle_experiment,
    sinusoid_similarity,
    sinusoid_table,
)
from lab_ui.figures import positional as figs
from lab_ui.figures.common import LECTURE_TITLE_PX
from lab_ui.i18n import t


@pytest.mark.parametrize(("n", "step"), [(1, 1), (200, 1), (201, 2), (400, 2), (512, 3)])
def test_thinning_step(n, step):
    assert figs.thinning_step(n) == step
    assert len(range(0, n, step)) <= figs.MAX_DRAWN


def test_format_error():
    assert figs.format_error(0.0) == "0"
    assert figs.format_error(1.1e-16) == "1.1e-16"
    assert figs.format_error(0.83123) == "0.8312"


def test_sinusoid_heatmap_keeps_small_tables_whole():
    view = sinusoid_table(3, 4)
    fig = figs.sinusoid_heatmap(view, "en")
    trace = fig.data[0]
    np.testing.assert_allclose(trace.z, view.pe, atol=1e-7)
    assert trace.z.dtype == np.float32  # sent to the browser as 4-byte floats
    assert (trace.x0, trace.dx, trace.y0, trace.dy) == (0, 1, 0, 1)  # indices from 0, one apart: no index arrays
    assert trace.zmin == -1 and trace.zmax == 1 and trace.zmid == 0  # white is zero
    assert trace.texttemplate  # 12 cells: small enough to print the numbers
    assert fig.layout.yaxis.autorange == "reversed"  # position 0 on top, as in the table
    assert fig.layout.title.text == t("positional.heatmap_title", lang="en", n=3, d=4)
    assert figs.sinusoid_heatmap(view, "zh").layout.title.text == t("positional.heatmap_title", lang="zh", n=3, d=4)


def test_sinusoid_heatmap_thins_a_big_table_but_keeps_true_indices():
    view = sinusoid_table(512, 300)
    trace = figs.sinusoid_heatmap(view, "en").data[0]
    assert trace.z.shape == (171, 150)  # every 3rd position, every 2nd dimension
    assert (trace.dy, trace.dx) == (3, 2)  # drawn row r is position 3r: the axis reads true indices
    assert trace.y0 + trace.dy * (trace.z.shape[0] - 1) == 510 and trace.x0 + trace.dx * (trace.z.shape[1] - 1) == 298
    np.testing.assert_array_equal(trace.z, view.pe[::3, ::2].astype(np.float32))
    assert trace.texttemplate is None
    caption = figs.sinusoid_heatmap_caption(view, "en")
    assert t("positional.thinned", lang="en", rows=3, cols=2) in caption
    assert "odd" not in caption
    assert t("positional.odd_note", lang="en", d=7, last=6) in figs.sinusoid_heatmap_caption(sinusoid_table(8, 7), "en")


def test_learned_cosines_share_one_scale():
    view = learned_vs_sinusoidal(6, table=np.random.default_rng(0).standard_normal((10, 4)))
    fig = figs.learned_cosines(view, "en")
    assert len(fig.data) == 2
    assert {(tr.zmin, tr.zmax) for tr in fig.data} == {(-1.0, 1.0)}
    assert [tr.showscale for tr in fig.data] == [False, True]  # one colour bar for both
    assert [tr.xaxis for tr in fig.data] == ["x", "x2"]
    names = [t("positional.learned_short", lang="en"), t("positional.sinusoidal_384", lang="en", d=4)]
    assert [a.text for a in fig.layout.annotations] == [f"<b>{name}</b>" for name in names]
    np.testing.assert_allclose(fig.data[0].z, view.learned.matrix, atol=1e-6)


def test_learned_table_colours_stop_at_the_limit():
    view = learned_vs_sinusoidal(8, table=np.arange(32.0).reshape(8, 4) - 10)
    trace = figs.learned_table(view, "en").data[0]
    assert trace.zmax == pytest.approx(view.colour_limit) and trace.zmin == pytest.approx(-view.colour_limit)


def test_shuffle_figure_keeps_repeated_tokens_apart_escapes_them_and_says_the_weights_are_random():
    view = shuffle_experiment(["I", "saw", "<b>a</b>", "saw"], "swap", 0, 2, d_model=2, seed=3)
    fig = figs.shuffle_experiment(view, "en")
    moved, shuffled, moved_pe, shuffled_pe = fig.data
    assert moved_pe.xaxis == "x3"
    np.testing.assert_allclose(moved.z, view.plain.reordered_output, atol=1e-6)
    np.testing.assert_allclose(shuffled.z, view.plain.shuffled_output, atol=1e-6)
    np.testing.assert_allclose(shuffled_pe.z, view.with_pe.shuffled_output, atol=1e-6)
    assert moved.y0 == 1 and list(fig.layout.yaxis.tickvals) == [1, 2, 3, 4]  # numbered rows: two "saw"s, two rows
    assert list(fig.layout.yaxis.ticktext) == ["&lt;b&gt;a&lt;/b&gt;", "saw", "I", "saw"]
    assert len({(tr.zmin, tr.zmax) for tr in fig.data}) == 1  # one colour scale for the four panels
    assert [tr.showscale for tr in fig.data] == [True, False, False, False]
    assert fig.layout.title.text == t("positional.shuffle_title", lang="en", seed=3)
    assert moved.texttemplate  # 4 words x 2 dimensions: the numbers are printed
    headings = [a.text for a in fig.layout.annotations]
    assert any(t("positional.row_plain", lang="en") in h for h in headings)
    assert any(t("positional.row_pe", lang="en") in h for h in headings)


def test_shuffle_figure_grows_with_the_sentence_but_not_without_bound():
    short = figs.shuffle_experiment(shuffle_experiment(["a", "b"], d_model=4), "en")
    long = figs.shuffle_experiment(shuffle_experiment([f"w{i}" for i in range(64)], d_model=4), "en")
    assert short.layout.height < long.layout.height <= 1200


def test_curves_one_line_per_dimension_in_the_language_asked():
    view = sinusoid_table(50, 4)
    fig = figs.sinusoid_curves(view, (0, 1), "en")
    assert [tr.name for tr in fig.data] == list(figs.dimension_names("en", 2))
    np.testing.assert_allclose(fig.data[1].y, np.cos(np.arange(50)), atol=1e-6)
    assert fig.data[0].line.dash != fig.data[1].line.dash  # told apart without colour
    assert fig.data[0].mode == "lines+markers"  # 50 positions: a dot on each
    many = sinusoid_table(figs.MARKERS_UP_TO + 1, 2)
    assert figs.sinusoid_curves(many, (0,), "en").data[0].mode == "lines"
    zh = figs.sinusoid_curves(view, (0,), "zh")
    assert zh.data[0].name == figs.dimension_names("zh", 1)[0] and "第" in zh.data[0].name
    caption = figs.sinusoid_curves_caption(view, (0, 3), "en")
    assert "dim 3: ω = 0.01" in caption


def test_dot_products_and_their_offset_profile():
    view = sinusoid_similarity(5, 4)
    heat = figs.dot_products(view, "en")
    np.testing.assert_allclose(heat.data[0].z, view.matrix, atol=1e-5)
    band, line = figs.dot_by_offset(view, "en").data  # the band is one closed outline: high, then low backwards
    np.testing.assert_allclose(band.y, np.concatenate([view.profile.high, view.profile.low[::-1]]), atol=1e-6)
    np.testing.assert_array_equal(band.x, [0, 1, 2, 3, 4, 4, 3, 2, 1, 0])
    assert band.fill == "toself"
    np.testing.assert_allclose(line.y, view.profile.mean, atol=1e-6)
    np.testing.assert_allclose(line.customdata, np.stack([view.profile.low, view.profile.high], axis=-1), atol=1e-6)


def test_learned_by_offset_draws_both_tables():
    view = learned_vs_sinusoidal(6, table=np.random.default_rng(1).standard_normal((6, 4)))
    fig = figs.learned_by_offset(view, "en")
    assert len(fig.data) == 4  # a band and a line for each table
    assert [tr.name for tr in fig.data if tr.fill is None] == [
        t("positional.learned_short", lang="en"),
        t("positional.sinusoidal_384", lang="en", d=4),
    ]


def test_rotation_circle_draws_each_arrow_from_p_to_p_plus_k():
    view = shift_rotation(12, 2, 3, 0)  # pair 0 turns 1 radian per position
    fig = figs.shift_rotation(view, "en")
    assert isinstance(fig, go.Figure)
    arrows = fig.layout.annotations
    assert len(arrows) == len(view.starts) == 3  # from p = 0, 4, 8
    assert (arrows[1].ax, arrows[1].ay) == pytest.approx((np.sin(4), np.cos(4)), abs=1e-6)
    assert (arrows[1].x, arrows[1].y) == pytest.approx((np.sin(7), np.cos(7)), abs=1e-6)
    named = [tr.name for tr in fig.data[2:] if tr.showlegend is not False]
    assert named == [t("positional.circle_arrow", lang="en", p=p, q=p + 3) for p in (0, 4, 8)]
    np.testing.assert_allclose(np.hypot(fig.data[1].x, fig.data[1].y), 1.0, atol=1e-6)  # on the unit circle
    block = figs.rotation_block(view)
    assert f"{np.cos(3):.4f} & {np.sin(3):.4f}" in block and "R_{0}(3)" in block


def test_titles_sit_below_the_strip_where_the_toolbar_appears():
    """On a phone a title runs the figure's width, into the corner where Plotly's toolbar appears
    on a tap (issue 11 #15); every titled figure starts its title below that strip."""
    from attention_core import positional as core

    table, similarity = core.sinusoid_table(16, 8, 10000.0), core.sinusoid_similarity(16, 8, 10000.0)
    learned = core.learned_vs_sinusoidal(16, 10000.0)
    for fig in (figs.sinusoid_curves(table, (0, 1), "zh"), figs.sinusoid_heatmap(table, "zh"),
                figs.dot_products(similarity, "zh"), figs.dot_by_offset(similarity, "zh"),
                figs.learned_table(learned, "zh"), figs.learned_by_offset(learned, "zh")):  # fmt: skip
        assert fig.layout.title.yref == "container" and fig.layout.title.pad.t >= figs.TOOLBAR_PX
        assert fig.layout.margin.t >= figs.TOOLBAR_PX + 1.3 * LECTURE_TITLE_PX
