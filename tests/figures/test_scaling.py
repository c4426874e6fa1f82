"""The figures of the page "why divide by √d_k": what they draw, that every spec is valid Plotly
(the module builds them with validation off for speed, so these tests do the validating), that
they label themselves in the language they are given, and that moving T costs a fraction of a
second (the rows are drawn once per seed; a new T is a softmax and three figures)."""

import json
import time

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_core.saturation import D_VALUES, SCALINGS, saturation_sweep, score_rows, variance_sweep
from lab_ui.figures import scaling as figs
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_TEXT_PX, place

NAMES = {s: figs.SCALING_NAMES.text(s, "en") for s in SCALINGS}


@pytest.fixture(scope="module")
def var():
    return variance_sweep(0, 500)


@pytest.fixture(scope="module")
def rows():
    return score_rows(1, n_rows=64)


@pytest.fixture(scope="module")
def sat(rows):
    return saturation_sweep(D_VALUES, rows, 8)


def valid(fig: go.Figure) -> dict:
    """The spec as the browser gets it, after Plotly's own validation has accepted it."""
    spec = json.loads(fig.to_json())
    go.Figure(spec)  # raises on a misspelled property or a bad value
    return spec


def histogram(var, j, lang="en"):
    return figs.dot_product_histogram(var, D_VALUES[j], lang)


def test_histogram_draws_the_samples_and_the_theory_before_and_after_scaling(var):
    j = D_VALUES.index(64)
    fig = histogram(var, j)
    valid(fig)
    raw, raw_theory, scaled, scaled_theory = fig.data
    np.testing.assert_allclose(raw.x, var.scores[j], rtol=1e-6)
    np.testing.assert_allclose(scaled.x, var.scores[j] / 8, rtol=1e-6)
    assert (raw.xaxis, scaled.xaxis) == ("x", "x2")
    # the theory curves are normal densities of variance 64 and 1: peak 1/√(2π·var), area 1
    assert max(raw_theory.y) == pytest.approx(1 / np.sqrt(2 * np.pi * 64), rel=1e-4)
    # one legend entry says what both dashed curves are; hover names each one's variance
    assert (
        raw_theory.showlegend and not scaled_theory.showlegend and raw_theory.legendgroup == scaled_theory.legendgroup
    )
    assert "d_k" in raw_theory.hovertemplate and "variance 1" in scaled_theory.hovertemplate
    assert max(scaled_theory.y) == pytest.approx(1 / np.sqrt(2 * np.pi), rel=1e-4)
    assert np.trapezoid(scaled_theory.y, scaled_theory.x) == pytest.approx(1, abs=1e-3)
    assert fig.layout.annotations[0].text == "<b>" + t("scaling.hist_raw", "en", d=64).replace("\n", "<br>") + "</b>"
    assert fig.layout.height == 400 and histogram(var, j, "zh").layout.xaxis2.title.text == "缩放后 q·k / √d_k"
    # on a projector the page places it no taller than a lecture step's room, its text at lecture size
    placed = place(fig, lecture=True, lecture_px=figs.LECTURE_PX).to_dict()["layout"]
    assert placed["height"] == figs.LECTURE_PX and placed["font"]["size"] == LECTURE_TEXT_PX


def test_variance_figure_puts_measurements_beside_the_theory(var):
    fig = figs.variance_against_d(var, "en")
    spec = valid(fig)
    theory, measured, theory_1, scaled = fig.data
    np.testing.assert_allclose(theory.y, D_VALUES)
    np.testing.assert_allclose(theory_1.y, 1.0)
    np.testing.assert_allclose(measured.y, var.variance, rtol=1e-6)
    np.testing.assert_allclose(measured.error_y.array, 2 * var.standard_error, rtol=1e-6)
    np.testing.assert_allclose(scaled.y, var.scaled_variance, rtol=1e-6)
    assert spec["layout"]["xaxis"]["type"] == spec["layout"]["yaxis"]["type"] == "log"
    assert not spec["layout"].get("shapes")  # the same figure for every d_k: a d_k step leaves it alone


def test_curves_have_a_line_per_scaling_and_the_uniform_reference(sat):
    T = 8
    fig = figs.saturation_curves(sat, "en")
    valid(fig)
    assert len(fig.data) == 2 * (len(SCALINGS) + 1)
    for panel, (values, reference) in enumerate(zip((sat.max_weight, sat.entropy), (1 / T, np.log(T)), strict=True)):
        lines = fig.data[panel * 4 : panel * 4 + 4]
        for s, name in enumerate(NAMES.values()):
            assert lines[s].name == name
            np.testing.assert_allclose(lines[s].y, values[s], rtol=1e-6)
        np.testing.assert_allclose(lines[3].y, [reference, reference])
    assert [t.showlegend for t in fig.data[:3]] == [True] * 3  # one legend entry per scaling
    assert not any(t.showlegend for t in fig.data[3:])
    assert fig.layout.yaxis.range == (0, 1.05)


def test_slopes_show_both_gradients_labelled_on_log_axes(sat):
    """Issue 11 #7: softmax's own slope (with respect to the scaled scores it reads) and the slope
    with respect to the raw scores q·k, which carries the scale factor: each panel says which."""
    fig = figs.slope_curves(sat, "en")
    spec = valid(fig)
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert titles == [
        f"<b>{t(k, 'en').replace(chr(10), '<br>')}</b>" for k in ("scaling.slope_scaled", "scaling.slope_raw")
    ]
    assert spec["layout"]["yaxis"]["type"] == spec["layout"]["yaxis2"]["type"] == "log"
    own, raw = fig.data[0:3], fig.data[4:7]  # 3 scalings and a reference in the first panel; 3 in the second
    for s, name in enumerate(NAMES.values()):
        assert own[s].name == raw[s].name == name
        np.testing.assert_allclose(own[s].y, sat.slope_scaled[s], rtol=1e-6)
        np.testing.assert_allclose(raw[s].y, sat.slope_raw[s], rtol=1e-6)
    np.testing.assert_allclose(fig.data[3].y, [np.sqrt(7) / 8] * 2)  # a uniform row of 8
    assert len(fig.data) == 7
    assert not spec["layout"].get("shapes")  # no mark at the page's d_k: the curves hold for every d_k


def test_a_slope_of_zero_leaves_a_gap_on_a_log_axis(sat):
    import dataclasses

    zero = dataclasses.replace(sat, slope_scaled=np.where(np.arange(13) == 12, 0.0, sat.slope_scaled))
    fig = figs.slope_curves(zero, "en")
    assert fig.data[0].y[-1] is None and fig.data[0].y[0] is not None


def test_a_new_T_is_light(rows):
    """The stopwatch of issue 11 found 3 s a step for T: the rows were drawn again for every T.
    Now they are drawn once per seed; a new T is a softmax over them and three figures."""
    full = score_rows(0)
    saturation_sweep(D_VALUES, full, 3)  # imports and first calls out of the way
    spent = []
    for T in (64, 63):  # the largest rows: the most work
        start = time.perf_counter()
        sat = saturation_sweep(D_VALUES, full, T)
        figs.weights_at_d(sat, 64, "en"), figs.saturation_curves(sat, "en"), figs.slope_curves(sat, "en")
        spent.append(time.perf_counter() - start)
    assert min(spent) < 1.0, spent  # about 0.1 s on an idle laptop; the budget allows a busy test machine


def bars(sat, j, big=False):
    return figs.weights_at_d(sat, D_VALUES[j], "en", big)


def test_bars_draw_the_first_row_at_the_chosen_d_with_no_animation_of_their_own(sat):
    """One d_k control on the step, the page's: the figure has no frames, buttons or slider."""
    for j in (0, D_VALUES.index(1024), len(D_VALUES) - 1):
        fig = bars(sat, j)
        spec = valid(fig)
        np.testing.assert_allclose(fig.data[0].y, sat.first_weights[:, j, :].reshape(-1), atol=1e-4)
        assert not spec.get("frames") and not spec["layout"].get("sliders") and not spec["layout"].get("updatemenus")
        assert f"d_k = {D_VALUES[j]}" in spec["layout"]["title"]["text"]


def test_bars_keep_their_colour_and_key_numbers(sat):
    fig = bars(sat, 3)
    T = 8
    colours = fig.data[0].marker.color
    assert len(set(colours[:T])) == len(set(colours[T : 2 * T])) == 1 and len(set(colours)) == 3
    keys = [row[0] for row in fig.data[0].customdata]
    assert keys == list(range(1, T + 1)) * 3
    raw = [row[1] for row in fig.data[0].customdata][:T]
    np.testing.assert_allclose(raw, sat.first_scores[3], atol=1e-3)  # hover shows the raw score q·k


def test_bars_leave_room_for_the_key_numbers_at_lecture_size(sat):
    layout = valid(bars(sat, 0))["layout"]
    assert layout["margin"]["b"] >= figs.LINE * figs.LECTURE_TEXT_PX  # the key numbers at their largest
    assert layout["height"] - layout["margin"]["t"] - layout["margin"]["b"] == figs.WEIGHTS_PLOT_PX


def test_bars_title_and_group_titles_have_rooms_of_their_own(sat):
    layout = valid(bars(sat, 0))["layout"]
    title = layout["title"]
    assert title["text"] == t("scaling.weights_title", "en", T=8, d=1).replace("\n", "<br>")
    assert title["yref"] == "container"
    title_bottom = (1 - title["y"]) * layout["height"] + 2 * figs.LINE * figs.LECTURE_TITLE_PX / 2
    heads = 2 * figs.LINE * figs.LECTURE_TEXT_PX + max(a["yshift"] for a in layout["annotations"])
    assert title_bottom + heads <= layout["margin"]["t"]  # the group titles start below the title
    groups = [figs.GROUP_TITLES.text(s, "en").replace("\n", "<br>") for s in SCALINGS]
    assert [a["text"] for a in layout["annotations"]] == [f"<b>{g}</b>" for g in groups]


def test_bars_on_a_projector_fit_a_lecture_step(sat):
    """No title (the step bar names the step), LECTURE_PX in all."""
    spec = valid(bars(sat, 6, big=True))["layout"]
    assert spec["height"] == figs.LECTURE_PX and spec.get("title", {}).get("text") is None
    plot_height = spec["height"] - spec["margin"]["t"] - spec["margin"]["b"]
    assert plot_height >= 120  # the bars keep a readable height


def test_histograms_leave_the_gap_to_the_right_panels_tick_labels(var):
    layout = valid(histogram(var, 3))["layout"]
    assert layout["yaxis"]["title"]["text"] == "density"
    assert layout["yaxis2"]["title"]["text"] == ""  # would sit on the left panel's bars on a phone
    assert layout["xaxis2"]["domain"][0] - layout["xaxis"]["domain"][1] == pytest.approx(figs.HISTOGRAM_GAP)


def test_variance_axis_labels_decades_only(var):
    fig = figs.variance_against_d(var, "en")
    layout = valid(fig)["layout"]
    assert layout["yaxis"]["dtick"] == 1  # 1, 10, 100, 1000: no 2 and 5 between decades
    assert layout["xaxis"]["dtick"] == pytest.approx(np.log10(4))  # 1, 4, 16, ...: powers of two


def test_panel_titles_sit_below_the_toolbar_strip():
    """A right panel's title at the figure's top went under Plotly's toolbar on a phone."""
    sat = saturation_sweep(D_VALUES, score_rows(0), 8)
    for fig in (figs.saturation_curves(sat, "zh"), figs.slope_curves(sat, "zh")):
        assert fig.layout.margin.t >= figs.TOOLBAR_PX + 1.3 * LECTURE_TEXT_PX
