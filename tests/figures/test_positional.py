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
from lab_ui.i18n import t
from lab_ui.layout import (
    AXIS_TITLE_PX,
    LECTURE_FIGURE_MAX_PX,
    LECTURE_TEXT_PX,
    LECTURE_TITLE_PX,
    PLOT_PAD,
    TICK_PX,
    X_TITLE_STANDOFF,
    Y_TITLE_STANDOFF,
    fixed_margins,
    text_px,
)


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


def test_learned_cosines_are_two_square_maps_on_one_scale():
    """Each map is a figure of its own (the page sets them in columns, which a phone stacks: side by
    side in one figure they were ~90 px squares on a phone, over 250 px of empty figure), its colour
    bar across the top, so that on a phone the square has the figure's width."""
    view = learned_vs_sinusoidal(6, table=np.random.default_rng(0).standard_normal((10, 4)))
    names = {
        "learned": t("positional.learned_short", lang="en"),
        "sinusoidal": t("positional.sinusoidal_384", lang="en", d=4),
    }
    for which, matrix in (("learned", view.learned.matrix), ("sinusoidal", view.sinusoidal.matrix)):
        fig = figs.learned_cosine(view, which, "en")
        (trace,) = fig.data
        assert (trace.zmin, trace.zmax) == (-1.0, 1.0) and fig.layout.title.text == names[which]
        np.testing.assert_allclose(trace.z, matrix, atol=1e-6)
        assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.constraintoward == "top"  # square, on top
        bar = trace.colorbar
        assert bar.orientation == "h" and bar.yref == "container"  # across, under the title: no width taken
        bar_top = (1 - bar.y) * fig.layout.height
        assert fig.layout.title.pad.t + 1.3 * LECTURE_TITLE_PX <= bar_top < fig.layout.margin.t - 30  # room for it
        lecture = figs.learned_cosine(view, which, "en", lecture=True)  # a projector's column is wide: beside
        assert lecture.data[0].colorbar.orientation is None and lecture.layout.margin.t < fig.layout.margin.t


def test_cosine_maps_are_square_at_a_phone_s_width_and_in_a_desktop_column():
    """The room left for the square (the figure's height less its title, colour bar and x axis, its
    width less the y axis) is about square both across a phone (~350 px) and in a desktop's column
    (~400 px): the square fills the figure, nothing is left empty below it."""
    fig = figs.learned_cosine(learned_vs_sinusoidal(64), "learned", "zh")
    axis_px = PLOT_PAD + 1.45 * TICK_PX + X_TITLE_STANDOFF + 1.4 * AXIS_TITLE_PX  # under the plot
    tall = fig.layout.height - fig.layout.margin.t - axis_px
    y_axis_px = PLOT_PAD + text_px("60", TICK_PX) + Y_TITLE_STANDOFF + 1.4 * AXIS_TITLE_PX + 10  # beside it
    phone, column = 350 - y_axis_px, 400 - y_axis_px
    assert abs(tall - phone) < 0.12 * phone  # a phone: the width limits the square, about as much as the height
    assert tall <= column and tall > 270  # a desktop column: the height limits it, as large as before (~290 px)


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


@pytest.mark.parametrize("words", [2, 4, 5, 8, 16, 64])
def test_shuffle_figure_s_word_labels_never_touch_on_a_projector(words):
    """Lecture mode draws 20 px labels in a figure at most LECTURE_FIGURE_MAX_PX tall: as the page
    shows it there (lecture_styled, then the margins show_figure reserves), the rows keep the room
    of a label each (the sentence "I saw a saw" had 13 px rows under 20 px labels), or every other
    word is labelled."""
    from lab_ui.layout import lecture_styled  # a pure function of the figure

    view = shuffle_experiment([f"w{i}" for i in range(words)], d_model=8)
    fig = figs.shuffle_experiment(view, "en", lecture=True)
    spec = fixed_margins(lecture_styled(fig).to_dict())
    layout = spec["layout"]
    assert layout["height"] <= LECTURE_FIGURE_MAX_PX
    assert (layout["margin"]["t"], layout["margin"]["b"]) == (fig.layout.margin.t, fig.layout.margin.b)  # no growth
    plots = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    y0, y1 = layout["yaxis"]["domain"]
    row = (y1 - y0) * plots / words  # px
    ticks = layout["yaxis"]["tickvals"]
    spacing = row * (ticks[1] - ticks[0]) if len(ticks) > 1 else row
    assert spacing >= figs.LABEL_ROOM * LECTURE_TEXT_PX  # 23 px apart, or more
    if words <= 4:
        assert len(ticks) == words and row >= 22  # the articles' sentence: every word, in rows as tall as a label
    desktop = figs.shuffle_experiment(view, "en")
    assert len(desktop.layout.yaxis.tickvals) == words or words > 24  # a desktop's 20 px rows: every word's label


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
    for fig in (
        figs.sinusoid_curves(table, (0, 1), "zh"),
        figs.sinusoid_heatmap(table, "zh"),
        figs.dot_products(similarity, "zh"),
        figs.dot_by_offset(similarity, "zh"),
        figs.learned_table(learned, "zh"),
        figs.learned_by_offset(learned, "zh"),
    ):
        assert fig.layout.title.yref == "container" and fig.layout.title.pad.t >= figs.TOOLBAR_PX
        assert fig.layout.margin.t >= figs.TOOLBAR_PX + 1.3 * LECTURE_TITLE_PX
