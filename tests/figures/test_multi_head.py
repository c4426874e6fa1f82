"""lab_ui.figures.multi_head: the figures hold the arrays they were given, in the right places, say
where their weights come from, and fit a projector in lecture mode."""

import dataclasses

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_core import head_views as hv
from attention_core.head_views import HeadsView
from lab_ui import layout
from lab_ui.figures import multi_head as figs
from lab_ui.figures.common import QUALITATIVE
from lab_ui.i18n import t

TOKENS = ("a", "<b>", "a", "c")


def _z(trace) -> np.ndarray:
    return np.asarray(trace.z, dtype=float)


@pytest.fixture(scope="module")
def small() -> HeadsView:
    return hv.random_view(TOKENS, 6, 3, 0)  # d_head = 2


@pytest.fixture(scope="module")
def shipped() -> HeadsView:
    return hv.shipped_view("bank_river", 2)  # 12 heads, 15 word pieces, maps only


def test_split_figure_puts_each_block_apart_in_its_colour(small):
    fig = figs.split_figure(small, "Q", "en")
    whole, blocks = small.layer.q, small.layer.q_heads
    assert len(fig.data) == 2  # the matrix, then its three head blocks apart: one trace each
    np.testing.assert_allclose(_z(fig.data[0]), whole, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(fig.data[0].customdata)[0], [1, 1, 2, 2, 3, 3])  # each column's head
    assert "column %{x} · head %{customdata}" in fig.data[0].hovertemplate
    apart = _z(fig.data[1])
    assert apart.shape == (4, 8) and np.isnan(apart[:, [2, 5]]).all()  # a gap of one empty cell between heads
    for i in range(3):
        np.testing.assert_allclose(apart[:, 3 * i : 3 * i + 2], blocks[i], atol=1e-6)
    custom = np.asarray(fig.data[1].customdata)
    assert custom[0, 3].tolist() == [2, 2] and custom[0, 7].tolist() == [5, 3]  # (column of Q, head)
    assert fig.data[1].xaxis == "x2" and fig.data[1].hoverongaps is False
    outlines = [s.line.color for s in fig.layout.shapes]
    assert outlines == [QUALITATIVE[i] for i in range(3)] * 2
    names = [a.text for a in fig.layout.annotations if a.bgcolor]
    assert names == ["<b>head 1</b>", "<b>head 2</b>", "<b>head 3</b>"]
    # rows: unique categories (the two "a"s stay apart), shown as the escaped tokens
    assert list(fig.layout.yaxis.categoryarray) == ["1: a", "2: &lt;b&gt;", "3: a", "4: c"]
    assert list(fig.layout.yaxis.ticktext) == ["a", "&lt;b&gt;", "a", "c"]
    np.testing.assert_allclose(_z(figs.split_figure(small, "V", "en").data[0]), small.layer.v, atol=1e-6)


def test_concat_figure_shares_the_heads_scale_and_gives_the_output_its_own(small):
    fig = figs.concat_figure(small, "en")
    assert [tr.coloraxis for tr in fig.data] == ["coloraxis", "coloraxis", "coloraxis2"]
    heads = _z(fig.data[0])
    np.testing.assert_allclose(heads[:, ~np.isnan(heads).all(axis=0)], small.layer.concat, atol=1e-6)
    np.testing.assert_allclose(_z(fig.data[1]), small.layer.concat, atol=1e-6)
    np.testing.assert_allclose(_z(fig.data[2]), small.layer.output, atol=1e-5)
    assert "output column" in fig.data[2].hovertemplate
    assert fig.layout.coloraxis.cmin == -fig.layout.coloraxis.cmax  # symmetric around 0
    assert fig.layout.coloraxis2.cmax == pytest.approx(figs.robust_max(small.layer.output))  # the output's own scale
    assert fig.layout.coloraxis.cmax == pytest.approx(figs.robust_max(small.layer.concat))


def _corner(heads: np.ndarray, head: int) -> tuple[int, int]:
    rows, cols = np.nonzero(heads == head)
    return int(rows.min()), int(cols.min())


def test_head_maps_are_one_heatmap_of_every_head_on_one_scale(shipped):
    fig = figs.head_maps(shipped, "en")
    (trace,) = fig.data  # one heatmap on one pair of axes: twelve of them cost 2.5 times as much to draw
    assert trace.coloraxis == "coloraxis" and (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (0, 1)
    z, heads, T = _z(trace), np.asarray(trace.customdata), shipped.T
    assert np.isnan(z[heads == 0]).all() and trace.hoverongaps is False  # empty cells between the maps
    for i in range(12):
        np.testing.assert_allclose(z[heads == i + 1].reshape(T, T), shipped.weights[i], atol=1e-6)
    # four per row: head 5 starts a new row, under head 1; head 2 beside head 1
    (r1, c1), (r2, c2), (r5, c5) = (_corner(heads, i) for i in (1, 2, 5))
    assert r2 == r1 and c2 > c1 + T and c5 == c1 and r5 > r1 + T
    outlines = [(s.x0 + 0.5, s.y0 + 0.5, s.line.color) for s in fig.layout.shapes]
    assert outlines == [(*_corner(heads, i + 1)[::-1], QUALITATIVE[i % 8]) for i in range(12)]
    assert [a.bgcolor for a in fig.layout.annotations] == [QUALITATIVE[i % 8] for i in range(12)]
    assert [a.text for a in fig.layout.annotations[:2]] == ["<b>1</b>", "<b>2</b>"]  # many heads: numbers
    # hover names the head, the query and the key with no per-cell strings: categories "token (position)",
    # unique in each row and column of maps, however often a token repeats
    assert list(trace.x[c1 : c1 + 2]) == ["[CLS] (1)", "she (2)"] and trace.x[c2 + 1].strip() == "she (2)"
    assert len(set(trace.x)) == len(trace.x) and len(set(trace.y)) == len(trace.y)
    assert "head %{customdata}" in trace.hovertemplate and "query: %{y}" in trace.hovertemplate


def test_small_maps_label_the_first_token_and_every_few(shipped):
    grid = figs.maps_grid(12, shipped.T)
    assert grid.every > 1 and not figs.maps_have_labels(12, shipped.T)
    fig = figs.head_maps(shipped, "en")
    shown = list(shipped.tokens[:: grid.every])
    assert list(fig.layout.yaxis.ticktext) == shown * 3  # beside each row of maps
    assert list(fig.layout.xaxis.ticktext) == shown * 4  # under each of the lowest maps
    y, x = list(fig.data[0].y), list(fig.data[0].x)
    first = [y.index(v) for v in fig.layout.yaxis.tickvals[: len(shown)]]
    assert first == [_corner(np.asarray(fig.data[0].customdata), 1)[0] + k * grid.every for k in range(len(shown))]
    lowest = [x.index(v) for v in fig.layout.xaxis.tickvals[:: len(shown)]]
    assert lowest == [_corner(np.asarray(fig.data[0].customdata), head)[1] for head in (9, 10, 11, 12)]
    five = figs.head_maps(dataclasses.replace(shipped, weights=shipped.weights[:5]), "en")  # rows of 3 and 2
    shown = list(shipped.tokens[:: figs.maps_grid(5, shipped.T).every])
    assert list(five.layout.xaxis.ticktext) == shown * 2  # the keys under the two lowest maps only
    assert figs.maps_have_labels(2, 4)
    assert figs.maps_grid(12, 40).every >= 3


def test_the_close_up_labels_every_token(shipped):
    fig = figs.head_detail(shipped, 3, "en")
    np.testing.assert_allclose(_z(fig.data[0]), shipped.weights[2], atol=1e-6)
    assert list(fig.layout.xaxis.ticktext) == list(shipped.tokens)
    assert "head 3" in fig.layout.title.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_figure_says_where_its_weights_come_from(small, shipped, lang):
    diff = hv.head_differences(small.weights)
    random_title = t("multi_head.fig_random", lang, seed=0)
    for fig in (
        figs.split_figure(small, "K", lang),
        figs.concat_figure(small, lang),
        figs.head_maps(small, lang),
        figs.head_detail(small, 1, lang),
        figs.entropy_bars(small, diff, lang),
        figs.overlap_heatmap(small, diff, lang),
    ):
        assert random_title in fig.layout.title.text
    model_title = t("multi_head.fig_model", lang, layer=2)
    assert model_title in figs.head_maps(shipped, lang).layout.title.text
    assert "random" not in figs.head_maps(shipped, "en").layout.title.text.lower()


def test_lecture_figures_fit_under_the_projectors_title_and_step_bar(small, shipped):
    diff = hv.head_differences(shipped.weights)
    words = ("the", "cat", "sat", "on", "the", "mat", "and", "looked", "at", "the", "dog", "who", "sat", "there")
    long = hv.random_view(words, 24, 6, 1)
    for fig in (
        figs.split_figure(long, "Q", "en", lecture=True),
        figs.concat_figure(long, "en", lecture=True),
        figs.head_maps(shipped, "en", lecture=True),
        # built the same for every screen; the page has lab_ui.layout make them this short on a projector
        layout.lecture_styled(figs.entropy_bars(shipped, diff, "en"), figs.LECTURE_HEIGHT_PX),
        layout.lecture_styled(figs.overlap_heatmap(shipped, diff, "en"), figs.LECTURE_HEIGHT_PX),
    ):
        assert fig.layout.height <= figs.LECTURE_HEIGHT_PX
    lecture = figs.maps_grid(12, shipped.T, lecture=True)
    assert lecture.cols == 6 and lecture.rows == 2  # two rows of six: larger maps on a wide, low screen
    fig = figs.split_figure(long, "Q", "en", lecture=True)
    step = int(fig.layout.yaxis.tickvals[1].split(":")[0]) - 1  # the second label's row, counted from 0
    assert step >= 2  # 20 px labels on short rows: thinned
    maps = figs.head_maps(shipped, "en", lecture=True)
    assert maps.layout.xaxis.showticklabels is False  # on a projector the keys are labelled on the close-up


def test_head_names_are_legible_on_every_colour():
    assert figs._ink("#F0E442") == "#000000"  # yellow: black text
    assert figs._ink("#000000") == "#FFFFFF"
    assert figs._ink("#0072B2") == "#FFFFFF"


def test_robust_scale_ignores_a_lone_outlier():
    z = np.ones((10, 100))
    z[0, 0] = 1000.0
    assert figs.robust_max(z) == 1.0
    assert figs.robust_max(np.full((2, 2), np.nan)) == 1.0


def test_entropy_bars_and_overlap_heatmap(small):
    diff = hv.head_differences(small.weights)
    fig = figs.entropy_bars(small, diff, "en")
    assert isinstance(fig, go.Figure)
    np.testing.assert_allclose(np.asarray(fig.data[0].y, dtype=float), diff.entropy, atol=1e-6)
    assert list(fig.data[0].marker.color) == [QUALITATIVE[i] for i in range(3)]
    assert fig.layout.shapes[0].y0 == pytest.approx(2.0)  # the uniform line: log2 of 4 tokens
    heat = figs.overlap_heatmap(small, diff, "en")
    np.testing.assert_allclose(np.asarray(heat.data[0].z, dtype=float), diff.overlap, atol=1e-6)
    assert (heat.data[0].zmin, heat.data[0].zmax) == (0, 1)


def test_tables_name_their_rows_and_hold_the_numbers(small):
    q = figs.split_table(small, "Q", "en")
    np.testing.assert_array_equal(q.to_numpy(), small.layer.q)
    assert q.index.name == "token" and list(q.columns[:3]) == ["h1:c0", "h1:c1", "h2:c0"]
    maps = figs.maps_table(small, "en")
    np.testing.assert_array_equal(maps.iloc[:, 2:].to_numpy(float), small.weights.reshape(12, 4))
    diff = hv.head_differences(small.weights)
    assert figs.stats_table(diff, "zh").index.name == t("multi_head.col_head", "zh")
    cost = figs.cost_table(hv.cost_comparison(6, 3, 4), "en")
    assert cost.index.name == "quantity" and cost.loc["parameters in total"].tolist() == [144, 144]
    mistake = figs.mistake_table(hv.scaling_mistake(small), "en")
    assert mistake.index.name == "scaling" and mistake.iloc[1, 0] == pytest.approx(0.5)  # 1/d_head, d_head = 2


def test_differences_text_names_the_pairs_and_the_jobs(shipped):
    diff = hv.head_differences(shipped.weights)
    text = figs.differences_text(diff, "en")
    assert f"head {diff.most_alike.a + 1} and head {diff.most_alike.b + 1}" in text
    assert all(f"head {j.head + 1}: " in text for j in diff.jobs)
    one = hv.head_differences(shipped.weights[:1])
    assert t("multi_head.one_head_only", "en") in figs.differences_text(one, "en")
    # What a job's share measures is said; with the real model's heads, also why the real-model page's
    # number for the same head can differ ([CLS] and [SEP] are left out there).
    assert t("multi_head.jobs", "en") in text and "[CLS]" not in text
    for lang in ("en", "zh"):
        model = figs.differences_text(diff, lang, model=True)
        assert t("multi_head.jobs_model", lang, page=t("real_model.nav", lang)) in model


def test_a_difference_that_should_be_nothing_reads_as_0_or_as_rounding():
    assert figs.gap_text(0.0) == "0"  # not "0.0e+00"
    assert figs.gap_text(8.5e-14) == "8.5e-14"


def test_stacked_parts_keep_their_rows_and_a_projector_drops_numbers_that_would_overlap(small):
    for lecture in (False, True):
        fig = figs.concat_figure(small, "en", lecture=lecture)
        for axis in ("yaxis", "yaxis2", "yaxis3"):  # fixed: the head tags under a part must not squeeze its rows
            assert tuple(fig.layout[axis].range) == (3.5, -0.5) and fig.layout[axis].autorange is False
    assert fig.data[0].texttemplate is None  # 3 parts of 4 rows in a 390 px figure: rows too low for 18 px numbers
    assert figs.concat_figure(small, "en").data[0].texttemplate == "%{z:.2f}"
    assert figs.split_figure(small, "Q", "en", lecture=True).data[0].texttemplate == "%{z:.2f}"  # 2 parts: room


def test_the_formulas_have_no_words_the_chinese_page_would_show_in_english():
    # KaTeX writes \text{...} as it is: "columns c of Q" stood in the split formula on the Chinese page.
    for name, tex in figs.FORMULAS.items():
        assert "\\text{" not in tex, name


def test_the_close_up_keeps_its_key_labels_at_the_map_on_a_narrow_screen(shipped):
    # A square map in a figure of fixed height: on a phone the width limits it. The y axis kept its
    # domain, so the rows shrank to the middle of the plot and the keys stayed 120 px under them.
    fig = figs.head_detail(shipped, 3, "en")
    assert fig.layout.yaxis.scaleanchor == "x"  # still square
    assert fig.layout.xaxis.constrain == "domain" and fig.layout.yaxis.constrain == "domain"
    assert fig.layout.yaxis.constraintoward == "top"  # under its title; spare height goes below


def _plot_px(fig: go.Figure) -> float:
    return fig.layout.height - fig.layout.margin.t - fig.layout.margin.b


@pytest.mark.parametrize("lecture", [False, True])
def test_every_colour_bar_of_a_stacked_figure_is_long_enough_to_read(lecture):
    # A projector's output part is about 55 px tall: its own bar was that short, tick labels on one
    # another under a title taller than the bar.
    view = hv.random_view(("the", "cat", "sat", "on", "the", "mat"), 24, 12, 0)
    fig = figs.concat_figure(view, "en", lecture=lecture)
    plot, least = _plot_px(fig), figs.LECTURE_MIN_BAR_PX if lecture else figs.MIN_BAR_PX
    bars = []
    for name in ("coloraxis", "coloraxis2"):
        bar = fig.layout[name].colorbar
        assert bar.yanchor == "bottom" and bar.len * plot >= least - 1e-6
        bars.append((bar.y * plot, (bar.y + bar.len) * plot))  # px above the plot's bottom
        assert bars[-1][0] >= -fig.layout.margin.b  # inside the figure
    assert bars[1][1] < bars[0][0]  # the output's bar stays under the joined heads' bar
    part = fig.layout.yaxis3.domain  # the output part: its bar runs beside the whole of it
    assert bars[1][0] <= part[0] * plot + 1e-6 and bars[1][1] >= part[1] * plot - 1e-6


def test_part_titles_and_head_tags_fit_a_phone_and_stay_on_one_line_on_a_projector():
    view = hv.random_view(("the", "cat", "sat", "on", "the", "mat"), 24, 12, 0)
    phone, projector = figs.split_figure(view, "Q", "zh"), figs.split_figure(view, "Q", "zh", lecture=True)
    titles = [a.text for a in phone.layout.annotations if a.xref == "paper"]
    assert len(titles) == 2 and all("<br>" in s for s in titles)  # name, then shape: ~180 px on a phone
    assert all(a.align == "left" for a in phone.layout.annotations if a.xref == "paper")
    assert not any("<br>" in a.text for a in projector.layout.annotations if a.xref == "paper")
    tags = [a for a in phone.layout.annotations if a.xref != "paper"]
    assert [a.text for a in tags] == [f"<b>{i}</b>" for i in range(1, 13)]  # 12 heads: numbers
    rows = [a.yshift for a in tags]
    assert rows[0::2] != rows[1::2] and len(set(rows)) == 2  # neighbours alternate between two rows
    assert phone.layout.margin.b >= 34 + figs.TAG_ROW_PX  # and the lower row has its room
    assert len({a.yshift for a in projector.layout.annotations if a.xref != "paper"}) == 1  # 1000 px: one row
    eight = figs.split_figure(hv.random_view(view.tokens, 24, 8, 0), "Q", "en")
    assert [a.text for a in eight.layout.annotations if a.xref != "paper"][:2] == ["<b>1</b>", "<b>2</b>"]
    assert len({a.yshift for a in eight.layout.annotations if a.xref != "paper"}) == 1  # 1-digit numbers fit
