"""The figures of the page "why divide by √d_k": what they draw, and that every spec is valid Plotly
(the module builds them with validation off for speed, so these tests do the validating)."""

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_core.saturation import SCALINGS, dot_product_variance, saturation_sweep
from lab_ui.figures import scaling as figs

D_VALUES = [2**i for i in range(13)]
NAMES = {s: f"name-{s}" for s in SCALINGS}


@pytest.fixture(scope="module")
def var():
    return dot_product_variance(D_VALUES, 500, np.random.default_rng(0))


@pytest.fixture(scope="module")
def sat():
    return saturation_sweep(D_VALUES, 8, 64, np.random.default_rng(1))


def valid(fig: go.Figure) -> dict:
    """The spec as the browser gets it, after Plotly's own validation has accepted it."""
    spec = json.loads(fig.to_json())
    go.Figure(spec)  # raises on a misspelled property or a bad value
    return spec


def histogram(var, j):
    return figs.dot_product_histogram(
        var.scores[j], D_VALUES[j], titles=("a", "b"), x_titles=("q·k", "q·k/√d"), y_title="density",
        measured_name="sampled", theory_names=("N(0, d)", "N(0, 1)"),
    )  # fmt: skip


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
    assert max(scaled_theory.y) == pytest.approx(1 / np.sqrt(2 * np.pi), rel=1e-4)
    assert np.trapezoid(scaled_theory.y, scaled_theory.x) == pytest.approx(1, abs=1e-3)
    assert fig.layout.annotations[0].text == "<b>a</b>"


def test_variance_figure_puts_measurements_beside_the_theory(var):
    fig = figs.variance_against_d(
        var.d_values, var.variance, var.standard_error, var.scaled_variance, var.scaled_standard_error, 256,
        title="t", x_title="d", y_title="var", names=("measured", "theory d", "scaled", "theory 1"),
    )  # fmt: skip
    spec = valid(fig)
    theory, measured, theory_1, scaled = fig.data
    np.testing.assert_allclose(theory.y, D_VALUES)
    np.testing.assert_allclose(theory_1.y, 1.0)
    np.testing.assert_allclose(measured.y, var.variance, rtol=1e-6)
    np.testing.assert_allclose(measured.error_y.array, 2 * var.standard_error, rtol=1e-6)
    np.testing.assert_allclose(scaled.y, var.scaled_variance, rtol=1e-6)
    assert spec["layout"]["xaxis"]["type"] == spec["layout"]["yaxis"]["type"] == "log"
    assert spec["layout"]["shapes"][0]["x0"] == 256  # the chosen d_k


def test_curves_have_a_line_per_scaling_and_the_uniform_reference(sat):
    T = 8
    fig = figs.saturation_curves(
        sat.d_values, sat.max_weight, sat.entropy, sat.jacobian_norm, T, 64, scaling_names=NAMES,
        titles=("max", "entropy", "norm"), x_title="d", reference_names=("1/T", "log T", "√(T-1)/T"),
    )  # fmt: skip
    valid(fig)
    assert len(fig.data) == 3 * (len(SCALINGS) + 1)
    for panel, (values, reference) in enumerate(
        zip((sat.max_weight, sat.entropy, sat.jacobian_norm), (1 / T, np.log(T), np.sqrt(T - 1) / T), strict=True)
    ):
        lines = fig.data[panel * 4 : panel * 4 + 4]
        for s, name in enumerate(NAMES.values()):
            assert lines[s].name == name
            np.testing.assert_allclose(lines[s].y, values[s], rtol=1e-6)
        np.testing.assert_allclose(lines[3].y, [reference, reference])
    assert [t.showlegend for t in fig.data[:3]] == [True] * 3  # one legend entry per scaling
    assert not any(t.showlegend for t in fig.data[3:])


def animation(sat, start, T=8):
    return figs.weights_animation(
        sat.d_values, sat.weights[:, :, 0, :], sat.scores[:, 0, :], start, group_titles=NAMES, title="row",
        x_title="key", y_title="weight", score_name="score", slider_prefix="d_k = ", play_label="Play",
        pause_label="Pause",
    )  # fmt: skip


def test_animation_has_one_frame_per_d_and_plays_in_the_browser(sat):
    start = D_VALUES.index(1024)
    fig = animation(sat, start)
    spec = valid(fig)
    assert [f["name"] for f in spec["frames"]] == [str(d) for d in D_VALUES]
    for j, frame in enumerate(fig.frames):
        np.testing.assert_allclose(frame.data[0].y, sat.weights[:, j, 0, :].reshape(-1), atol=1e-4)
    np.testing.assert_allclose(fig.data[0].y, sat.weights[:, start, 0, :].reshape(-1), atol=1e-4)
    slider = spec["layout"]["sliders"][0]
    assert slider["active"] == start
    assert [step["args"][0] for step in slider["steps"]] == [[str(d)] for d in D_VALUES]
    play, pause = spec["layout"]["updatemenus"][0]["buttons"]
    assert play["method"] == pause["method"] == "animate"
    assert play["args"][0] is None and play["args"][1]["fromcurrent"]
    assert pause["args"][0] == [None]  # Plotly's way to stop an animation


def test_animation_bars_keep_their_colour_and_key_numbers(sat):
    fig = animation(sat, 0)
    T = 8
    colours = fig.data[0].marker.color
    assert len(set(colours[:T])) == len(set(colours[T : 2 * T])) == 1 and len(set(colours)) == 3
    keys = [row[0] for row in fig.frames[3].data[0].customdata]
    assert keys == list(range(1, T + 1)) * 3
    raw = [row[1] for row in fig.frames[3].data[0].customdata][:T]
    np.testing.assert_allclose(raw, sat.scores[3, 0], atol=1e-3)  # hover shows the raw score q·k


def test_animation_controls_stack_clear_of_the_axis_and_of_each_other(sat):
    """Buttons at the left and the slider's current value at the right share one row under the key
    numbers; the slider's rail runs the full width below them (beside the buttons a phone squeezed
    it to a stub), and the bottom margin holds it all."""
    spec = valid(animation(sat, 0))["layout"]
    buttons, slider = spec["updatemenus"][0], spec["sliders"][0]
    assert (slider["x"], slider["len"]) == (0, 1)
    assert buttons["y"] == slider["y"] < 0 and buttons["yanchor"] == slider["yanchor"] == "top"
    plot_height = spec["height"] - spec["margin"]["t"] - spec["margin"]["b"]
    below_axis = -slider["y"] * plot_height  # px between the plot and the controls
    assert below_axis >= figs.LINE * figs.LECTURE_TEXT_PX  # room for the key numbers at lecture size
    button_height = figs.LINE * figs.LECTURE_TEXT_PX + 10
    text = figs.LINE * figs.LECTURE_TEXT_PX
    assert text + slider["currentvalue"]["offset"] >= button_height  # the rail starts under the buttons
    assert spec["margin"]["b"] >= below_axis + button_height + figs.SLIDER_RAIL_TO_LABELS + text


def test_animation_title_and_group_titles_have_rooms_of_their_own(sat):
    fig = figs.weights_animation(
        sat.d_values, sat.weights[:, :, 0, :], sat.scores[:, 0, :], 0, group_titles={s: "s\n(x)" for s in SCALINGS},
        title="line one\nline two", x_title="key", y_title="weight", score_name="score", slider_prefix="d_k = ",
        play_label="Play", pause_label="Pause",
    )  # fmt: skip
    layout = valid(fig)["layout"]
    title = layout["title"]
    assert title["text"] == "line one<br>line two" and title["yref"] == "container"
    title_bottom = (1 - title["y"]) * layout["height"] + 2 * figs.LINE * figs.LECTURE_TITLE_PX / 2
    heads = 2 * figs.LINE * figs.LECTURE_TEXT_PX + max(a["yshift"] for a in layout["annotations"])
    assert title_bottom + heads <= layout["margin"]["t"]  # the group titles start below the title
    assert all(a["text"] == "<b>s<br>(x)</b>" for a in layout["annotations"])


def test_histograms_leave_the_gap_to_the_right_panels_tick_labels(var):
    layout = valid(histogram(var, 3))["layout"]
    assert layout["yaxis"]["title"]["text"] == "density"
    assert layout["yaxis2"]["title"]["text"] == ""  # would sit on the left panel's bars on a phone
    assert layout["xaxis2"]["domain"][0] - layout["xaxis"]["domain"][1] == pytest.approx(figs.HISTOGRAM_GAP)


def test_variance_axis_labels_decades_only(var):
    fig = figs.variance_against_d(
        var.d_values, var.variance, var.standard_error, var.scaled_variance, var.scaled_standard_error, 256,
        title="t", x_title="d", y_title="var", names=("measured", "theory d", "scaled", "theory 1"),
    )  # fmt: skip
    layout = valid(fig)["layout"]
    assert layout["yaxis"]["dtick"] == 1  # 1, 10, 100, 1000: no 2 and 5 between decades
    assert layout["xaxis"]["dtick"] == pytest.approx(np.log10(4))  # 1, 4, 16, ...: powers of two
