"""The figures and tables of "self-attention, RNN and CNN": the arrays they are given are the arrays
they draw, log axes get no zeros, a timing is labelled with its machine and moment."""

from dataclasses import replace

import numpy as np
import pytest

from attention_core.patches import patch_count, picture_view
from attention_core.sequence_costs import MIN_ROUNDS, Timing, complexity_table, cost_axis, cost_curves
from attention_core.sequence_models import compare_visibility, long_range_influence
from lab_ui.figures import rnn_cnn as figs
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_FIGURE_MAX_PX, LECTURE_TEXT_PX, PLOT_PAD, X_TITLE_STANDOFF, text_px


@pytest.fixture(scope="module")
def comp():
    return compare_visibility(6, k=3, n_layers=1)


@pytest.mark.parametrize("per_row", [3, 5])
def test_visibility_draws_steps_where_visible_and_nothing_elsewhere(comp, per_row):
    fig = figs.visibility_figure(comp, "en", per_row)
    assert len(fig.data) == 5
    for m, trace in enumerate(fig.data):
        z = np.array(trace.z, dtype=float)
        np.testing.assert_array_equal(~np.isnan(z), comp.masks[m])
        np.testing.assert_array_equal(np.nan_to_num(z), comp.steps[m])
        assert list(trace.x) == [1, 2, 3, 4, 5, 6]  # counted from 1, as the articles count
    rows = {tuple(fig.layout[f"yaxis{'' if m == 0 else m + 1}"].domain) for m in range(5)}
    assert len(rows) == (1 if per_row == 5 else 2)
    titles = [a.text.replace("\u00a0", " ").replace("<br>", " ") for a in fig.layout.annotations]
    assert "<b>CNN, k = 3</b>" in titles and "<b>Truncated, r = 3</b>" in titles


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("T", "k", "layers"), [(8, 3, 1), (64, 15, 8), (1, 1, 1)])
def test_the_pictures_titles_fit_side_by_side_on_a_phone(lang, T, k, layers):
    """Issue 26 #5: on a 390 px phone the grid's titles ran into each other ("Bidirectional
    RNNSelf-attention"). Every line of every title fits the step from one picture's middle to the
    next there (and on a projector's row of five), and the top margin holds the top row's lines."""
    comp = compare_visibility(T, k, layers)
    for per_row in (3, 5):
        titles = figs.visibility_titles(comp, lang, per_row)
        room, size = figs.SEE_TITLE_ROOM_PX[per_row == 5], figs.SEE_TITLE_PX[per_row == 5]
        assert all(text_px(line, size) <= room for title in titles for line in title.split("<br>")), titles
        fig = figs.visibility_figure(comp, lang, per_row)
        assert [a.text for a in fig.layout.annotations] == [f"<b>{title}</b>" for title in titles]
        lines = max(title.count("<br>") + 1 for title in titles)
        assert fig.layout.margin.t >= figs.TOOLBAR_PX + lines * 1.3 * size
    assert figs.visibility_titles(compare_visibility(8, 3, 1), "en")[1] == "Bidirectional<br>RNN"


def test_wrapped_breaks_at_spaces_and_hyphens_never_inside_a_value():
    assert figs.wrapped("Self-attention", 60, 12) == "Self-<br>attention"
    assert figs.wrapped("Truncated, r = 15", 80, 12) == "Truncated,<br>r\u00a0=\u00a015"
    assert figs.wrapped("RNN", 10, 12) == "RNN"  # too wide, but one word: whole


def test_visibility_table_names_what_each_output_sees(comp):
    table = figs.visibility_table(comp, "en")
    assert table.index.name == t("rnn_cnn.output_axis", "en") and list(table.index)[:2] == ["b1", "b2"]
    assert table.loc["b3", "RNN: sees"] == "a1…a3" and table.loc["b3", "Self-attention: sees"] == "a1…a6"
    steps = table["CNN, k = 3: steps from a1"]
    assert steps["b2"] == 1 and np.isnan(steps["b4"])  # a1 is out of the CNN's sight from b4


def test_long_range_relative_and_absolute():
    curves = long_range_influence((1, 2, 4, 8), 4, 0, 0.5, n_trials=2)
    rel = figs.long_range_figure(curves, True, "en")
    np.testing.assert_allclose(np.array(rel.data[0].y, dtype=float), curves.rnn_relative)
    assert rel.layout.yaxis.type == "log" and rel.layout.xaxis.type == "log"
    assert list(rel.layout.xaxis.tickvals) == [1, 2, 4, 8]
    absolute = figs.long_range_figure(curves, False, "zh")
    assert len(absolute.data) == 5
    np.testing.assert_allclose(np.array(absolute.data[3].y, dtype=float), curves.attention_weight)
    assert rel.layout.height <= LECTURE_FIGURE_MAX_PX


def test_long_range_leaves_zeros_out_of_a_log_axis():
    curves = long_range_influence((1, 2, 4, 8, 1024), 2, 0, 0.3, n_trials=2)
    assert curves.rnn[-1] == 0.0  # 0.3^1023 underflows
    fig = figs.long_range_figure(curves, False, "en")
    assert np.isnan(np.array(fig.data[0].y, dtype=float)[-1])
    table = figs.long_range_table(curves, "en")
    assert table.index.name == t("rnn_cnn.lr_x", "en")
    shown = table[t("rnn_cnn.lr_att", "en")].to_numpy()
    np.testing.assert_array_equal(shown, [float(f"{x:.3e}") for x in curves.attention])  # as the table shows it


def _timing(rnn_ms=((1.0, 0.9, 1.1), (2.0, 1.9, 2.1)), att_ms=((0.5, 0.4, 0.6), (3.0, 2.9, 3.1)), d=64) -> Timing:
    """A made-up measurement: per length (median, 25th, 75th percentile) in ms, as
    time_rnn_vs_attention would report it."""
    rnn, att = np.array(rnn_ms) / 1000, np.array(att_ms) / 1000  # [n, 3]
    T = np.array([16, 32, 64, 128][: len(rnn)])
    return Timing(
        T_values=T,
        rnn_runs=rnn,
        attention_runs=att,
        rnn_seconds=rnn[:, 0],
        attention_seconds=att[:, 0],
        rnn_spread=rnn[:, 1:],
        attention_spread=att[:, 1:],
        attention_faster=att[:, 0] < rnn[:, 0],
        clear=(att[:, 2] < rnn[:, 1]) | (rnn[:, 2] < att[:, 1]),
        rnn_steps=T,
        attention_steps=np.ones_like(T),
        d=d,
        repeats=3,
        warmups=1,
        cpu_count=2,
        seconds=1.5,
        measured_at="2030-01-02 03:04 UTC",
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_callout_reads_the_measurement_it_stands_under(lang):
    """Issue 26 #2: the callout said "the attention layer is faster while T is below about d"
    whatever the clock measured. It now reads the numbers: here the RNN loop is clearly faster at
    T = 16 (below d = 64, against the count), attention at T = 32, and T = 64 too close to call."""
    timing = _timing(
        rnn_ms=((1.0, 0.9, 1.1), (9.0, 8.0, 10.0), (5.0, 4.0, 6.0)),
        att_ms=((4.0, 3.0, 5.0), (2.0, 1.5, 2.5), (5.5, 4.5, 6.5)),
    )
    callout = figs.timing_callout(timing, 64, lang)
    assert t("rnn_cnn.verdict_slower", lang, Ts="16") in callout
    assert t("rnn_cnn.verdict_faster", lang, Ts="32") in callout
    assert t("rnn_cnn.verdict_close", lang, Ts="64") in callout
    assert t("rnn_cnn.verdict_model_differs", lang, d=64, Ts="16") in callout  # against T < d
    agreeing = _timing(rnn_ms=((9.0, 8.0, 10.0),), att_ms=((1.0, 0.9, 1.1),))
    assert t("rnn_cnn.verdict_model_agrees", lang, d=64) in figs.timing_callout(agreeing, 64, lang)
    noise = _timing(rnn_ms=((1.0, 0.5, 3.0),), att_ms=((1.1, 0.6, 3.1),))
    said = figs.timing_callout(noise, 64, lang)
    assert t("rnn_cnn.verdict_model_none", lang, d=64) in said and t("rnn_cnn.verdict_close", lang, Ts="16") in said
    assert figs.timing_callout(None, 256, lang) == t("rnn_cnn.verdict_before", lang, d=256)
    busy = replace(_timing(), repeats=1)  # one round fitted the budget: no verdict at all
    said = figs.timing_callout(busy, 64, lang)
    assert t("rnn_cnn.verdict_few", lang, runs=1, least=MIN_ROUNDS, seconds="1.5") in said
    assert t("rnn_cnn.verdict_faster", lang, Ts="16") not in said


def test_parallel_figure_before_and_after_measuring():
    T = np.array([16, 32])
    before = figs.parallel_figure(T, None, "en")
    assert len(before.data) == 2
    np.testing.assert_array_equal(np.array(before.data[0].y), [16, 32])
    assert any(a.text == t("rnn_cnn.par_press", "en") for a in before.layout.annotations)
    after = figs.parallel_figure(T, _timing(), "zh")
    assert len(after.data) == 4
    np.testing.assert_allclose(np.array(after.data[2].y), [1.0, 2.0])  # milliseconds
    np.testing.assert_allclose(np.array(after.data[2].error_y.array), [0.1, 0.1], atol=1e-12)  # to the 75th
    np.testing.assert_allclose(np.array(after.data[3].error_y.arrayminus), [0.1, 0.1], atol=1e-12)  # from the 25th
    labels = " ".join(a.text for a in after.layout.annotations)
    assert "2030-01-02 03:04 UTC" in labels and "2 个 CPU" in labels
    assert after.layout.shapes[0].x0 == 64  # T = d
    table = figs.parallel_table(T, _timing(), "en")
    assert list(table[t("rnn_cnn.col_ms_att", "en")]) == [0.5, 3.0]
    assert list(table[t("rnn_cnn.col_att_q3", "en")]) == [0.6, 3.1]
    assert list(table[t("rnn_cnn.col_faster", "en")]) == [
        t("rnn_cnn.faster_attention", "en"),
        t("rnn_cnn.faster_rnn", "en"),
    ]


def test_the_measured_panels_title_stays_below_the_toolbar_in_lecture_mode():
    """Its two lines at lecture mode's 20 px, drawn upwards from the plot's top, must end below the
    strip where Plotly's toolbar appears on hover (it covered the end of "(2 CPUs)")."""
    fig = figs.parallel_figure(np.array([16, 32]), _timing(), "en")
    title = next(a.text for a in fig.layout.annotations if "2030" in a.text)
    lines = title.count("<br>") + 1
    assert fig.layout.margin.t - lines * 1.3 * LECTURE_TEXT_PX >= figs.TOOLBAR_PX


def test_cost_figure_marks_the_students_T_and_the_crossover():
    curves = cost_curves(cost_axis(100, 512), 512, 3, 5)
    fig = figs.cost_figure(curves, 100, "en")
    assert len(fig.data) == 5
    marks = fig.data[-1]
    assert list(marks.x) == [100.0] * 4 and marks.y[0] == 100 * 100 * 512
    assert fig.layout.shapes[0].x0 == 512
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_table_1_as_printed_with_numbers():
    table = figs.complexity_frame(complexity_table(10, 4, 3, 3), "zh")
    assert table.index.name == t("rnn_cnn.t1_layer", "zh") and len(table) == 4
    assert list(table[t("rnn_cnn.t1_complexity_value", "zh")]) == [400, 160, 480, 120]
    assert list(table[t("rnn_cnn.t1_path", "zh")]) == ["O(1)", "O(n)", "O(log_k(n))", "O(n/r)"]


def test_picture_figure_and_table():
    view = picture_view(12, "sky", 10.0, 3, 1, True)
    fig = figs.picture_figure(view, "en")
    assert [tr.type for tr in fig.data] == ["image", "image", "image", "heatmap", "heatmap"]
    np.testing.assert_allclose(np.array(fig.data[3].z, dtype=float), view.weights, atol=1e-6)
    np.testing.assert_array_equal(np.isnan(np.array(fig.data[4].z, dtype=float)), view.field)
    assert np.array(fig.data[0].z).shape == (48, 48, 3)
    table = figs.picture_table(view, "en")
    assert len(table) == 16 and table.index.name == t("rnn_cnn.img_patch", "en")
    assert (
        table.iloc[view.query][t("rnn_cnn.col_place", "en")] == f"({view.query_cell[0] + 1}, {view.query_cell[1] + 1})"
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("patch", [4, 12, 24])
def test_the_picture_panels_titles_fit_side_by_side_on_a_phone(lang, patch):
    """On a phone the three titles ran into each other in one line ("CNN's view: k = 3, L = 1" is
    wider than a panel there): each line of each title fits the step from one panel to the next,
    the longest numbers too, and the lines sit above the picture, with room for them at lecture size."""
    for spot, k, layers in (("grass", 3, 1), ("trunk", 15, 6)):
        view = picture_view(patch, spot, 10.0, k, layers, True)
        fig = figs.picture_figure(view, lang)
        titles = figs.picture_titles(view, lang)
        assert all(figs.title_line_px(title) <= figs.picture_title_room() for title in titles), titles
        assert [a.yref for a in fig.layout.annotations] == ["y domain", "y2 domain", "y3 domain"]
        lines = max(title.count("<br>") + 1 for title in titles)
        assert fig.layout.margin.t >= lines * 1.3 * LECTURE_TEXT_PX


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_projector_the_cost_and_long_range_plots_are_taller_than_their_axis_titles(lang):
    """Lecture step 4 squashed the cost plot to about 150 px under a legend's row, and its y axis's
    title ran up into the chart's title: on a projector's width the legend stands beside the plot,
    and the y title at lecture size is no taller than the plot LECTURE_PX leaves (less the x axis's
    labels and title, at lecture size too)."""
    cost = cost_curves(cost_axis(100, 512), 512, 3, 5)
    curves = long_range_influence((1, 2, 4), 2, 0, 0.5, n_trials=2)
    wide = (
        figs.cost_figure(cost, 100, lang, True),
        figs.long_range_figure(curves, True, lang, True),
        figs.long_range_figure(curves, False, lang, True),
    )
    for fig in wide:
        assert fig.layout.legend.orientation == "v" and fig.layout.legend.x >= 1  # beside the plot
        assert fig.layout.margin.b < figs.LEGEND_MARGIN  # no legend's row under it
        x_axis = PLOT_PAD + X_TITLE_STANDOFF + 3 * LECTURE_TEXT_PX  # a row of tick labels and the title
        plot = figs.LECTURE_PX - fig.layout.margin.t - x_axis
        assert text_px(fig.layout.yaxis.title.text, LECTURE_TEXT_PX) <= plot, fig.layout.yaxis.title.text


def test_cost_table_is_the_charts_lines():
    curves = cost_curves(np.array([1, 10, 100]), 8, 3, 5)
    table = figs.cost_table(curves, "en")
    assert table.index.name == t("rnn_cnn.cost_x", "en") and list(table.index) == [1, 10, 100]
    assert list(table.iloc[:, 0]) == [8.0, 800.0, 80000.0]  # T² d
    assert list(table.iloc[:, 1]) == [64.0, 640.0, 6400.0]  # T d²


def test_the_long_range_and_cost_titles_sit_below_the_toolbar_strip():
    """On a phone these titles run the figure's width, into the corner where Plotly's toolbar
    appears on a tap."""
    curves = long_range_influence((1, 2, 4), 2, 0, 0.5, n_trials=2)
    cost = cost_curves(cost_axis(100, 512), 512, 3, 5)
    for fig in (figs.long_range_figure(curves, True, "zh"), figs.cost_figure(cost, 100, "zh")):
        assert fig.layout.title.yref == "container" and fig.layout.title.pad.t >= figs.TOOLBAR_PX


def test_the_patch_count_figure_and_table():
    count = patch_count(224, 224, 16)
    fig = figs.patch_count_figure(count, "en")
    np.testing.assert_array_equal(np.array(fig.data[0].x), count.sizes)
    np.testing.assert_array_equal(np.array(fig.data[0].y), count.sizes_T.astype(float) ** 2)
    assert list(fig.data[1].x) == [16] and list(fig.data[1].y) == [38416]
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis.tickangle == 0
    table = figs.patch_count_table(count, "zh")
    assert table.index.name == t("rnn_cnn.vit_x", "zh") and table.loc[16, t("rnn_cnn.vit_d", "zh")] == 768
    assert figs.patch_fit_notice(count, "en") is None
    notice = figs.patch_fit_notice(patch_count(230, 224, 16), "en")
    assert "6 pixel rows and 0 columns" in notice and "2" in notice
    assert "196 patches" in figs.patch_count_reading(count, "en").replace("*", "")
