"""Figures for the page "why divide by √d_k": arrays in, go.Figure out, no Streamlit calls.

Speed: these figures have several panels and, for the animation, 13 frames of 3 traces each.
Building them trace by trace through Plotly's validators costs 50-200 ms per figure, far over
a rerun's budget, so each figure is written as one plain spec (traces and layout as dicts, the
property names checked by tests/figures/test_scaling.py and by looking at the page) and wrapped
once with validation off. The panels sit side by side through axis domains, not make_subplots.

The three scalings keep one colour, dash and marker each on every figure, so a reader who cannot
tell the colours apart still can.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures.common import FONT_FAMILY, LECTURE_TEXT_PX, LECTURE_TITLE_PX, QUALITATIVE

# One look per scaling id (attention_core.saturation.SCALINGS): unscaled, ÷√d_k, ÷d_k.
STYLE = {
    "none": dict(color=QUALITATIVE[5], dash="solid", symbol="circle"),  # vermillion
    "sqrt": dict(color=QUALITATIVE[0], dash="solid", symbol="square"),  # blue
    "d": dict(color=QUALITATIVE[2], dash="dash", symbol="diamond"),  # bluish green
}
# Streamlit 1.67 serves its text font under the family name "Source Sans", not the "Source Sans
# Pro" that common.FONT_FAMILY starts with; without this, Plotly falls back to Noto Sans CJK, whose
# "·" in "q·k" is full-width.
FONT = '"Source Sans", ' + FONT_FAMILY
THEORY_COLOUR = "rgba(90,90,90,0.9)"
MEASURED_COLOUR = QUALITATIVE[4]  # sky blue
# A legend pinned to the bottom of the figure, below the axis titles: placed in plot coordinates
# (y < 0) it would land on the x-axis title once lecture mode enlarges the fonts.
LEGEND = {"orientation": "h", "x": 0, "xanchor": "left", "y": 0, "yref": "container", "yanchor": "bottom"}
LEGEND_MARGIN = 110
PANEL_GAP = 0.07
# The two histograms keep their own y tick labels (different scales) in the gap between them: on a
# phone (a plot area about 300 px wide) 0.07 leaves 21 px, less than "0.05" needs.
HISTOGRAM_GAP = 0.14
# Vertical room in pixels is reserved for the largest text the figure can carry: lecture mode
# (lab_ui.widgets.lecture_styled) sets the title to LECTURE_TITLE_PX and every other text to
# LECTURE_TEXT_PX (lab_ui.figures.common), and a
# Plotly figure cannot wrap or move its parts when text grows. One line of text at size s takes
# about LINE * s.
LINE = 1.3
TITLE_PAD = 8
TITLE_GAP = 14  # px under a title's lines, for its descenders and some air
PANEL_TITLE_SHIFT = 6  # px between a panel's title and its plot
# plotly.js sliders/constants.js: from the current value's row to the tick labels, tickOffset (25)
# + tickLength (7) + labelOffset (8)
SLIDER_RAIL_TO_LABELS = 25 + 7 + 8


def _figure(data: list[dict], layout: dict, frames: list[dict] | None = None) -> go.Figure:
    """The shared look of lab_ui.figures.common.base_layout (CJK-capable font, tight margins),
    with validation off: see the module's docstring."""
    layout = {
        "font": {"family": FONT, "size": 14},  # panel titles and labels inherit it, in lecture mode too
        "template": {"layout": {}},  # Streamlit's theme fills it in the browser; the default only adds bytes
        "hoverlabel": {"font": {"family": FONT}},
        **layout,
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10, **layout.get("margin", {})},
    }
    return go.Figure(data=data, layout=layout, frames=frames, _validate=False)


def _lines(text: str) -> str:
    """Plotly cannot wrap text, so the catalogs break long titles with "\n" (a phone shows about
    40 characters of a title)."""
    return text.replace("\n", "<br>")


def _height(text: str, px: float = LECTURE_TEXT_PX) -> float:
    """The height in pixels of a text of size px, over as many lines as it has."""
    return (text.count("\n") + 1) * LINE * px


def _title_room(text: str) -> float:
    """Pixels from the figure's top edge to the bottom of its title, at lecture mode's size."""
    return TITLE_PAD + _height(text, LECTURE_TITLE_PX)


def _title(text: str, height: float) -> dict:
    """Centred in its own room at the top edge of a figure `height` px tall, so what sits between it
    and the plot (panel titles) has the rest of the top margin to itself; Plotly's default centres
    it in the whole top margin. Middle, not top: Plotly centres a title of several lines on the
    anchor of a one-line title, so with "top" the first line goes over the edge."""
    middle = TITLE_PAD + (_title_room(text) - TITLE_PAD) / 2
    return {"text": _lines(text), "x": 0, "xanchor": "left", "y": 1 - middle / height, "yref": "container",
            "yanchor": "middle"}  # fmt: skip


def _on(i: int) -> dict:
    suffix = "" if i == 0 else str(i + 1)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def _panels(
    titles: Sequence[str], x_titles: Sequence[str], y_titles: Sequence[str], gap: float = PANEL_GAP
) -> tuple[dict, list[dict]]:
    """Axes for len(titles) panels in a row, each an equal share of the width, and the panel
    titles as annotations above them (so they grow with the font in lecture mode)."""
    n = len(titles)
    width = (1.0 - gap * (n - 1)) / n
    axes, annotations = {}, []
    for i, title in enumerate(titles):
        suffix = "" if i == 0 else str(i + 1)
        lo = i * (width + gap)
        axes[f"xaxis{suffix}"] = {"domain": [lo, lo + width], "anchor": f"y{suffix}", "title": {"text": x_titles[i]}}
        axes[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", "title": {"text": y_titles[i], "standoff": 4}}
        annotations.append(
            {"text": f"<b>{_lines(title)}</b>", "x": lo + width / 2, "y": 1.0, "xref": "paper", "yref": "paper",
             "xanchor": "center", "yanchor": "bottom", "yshift": PANEL_TITLE_SHIFT, "showarrow": False}
        )  # fmt: skip
    return axes, annotations


def _normal_density(x: np.ndarray, variance: float) -> np.ndarray:
    return np.exp(-(x**2) / (2 * variance)) / np.sqrt(2 * np.pi * variance)  # [n]


def dot_product_histogram(
    scores: np.ndarray,
    d_k: int,
    *,
    titles: tuple[str, str],
    x_titles: tuple[str, str],
    y_title: str,
    measured_name: str,
    theory_names: tuple[str, str],
    height: int = 400,
) -> go.Figure:
    """Histograms of q·k (left) and q·k/√d_k (right) over the samples, each beside a normal
    density with the variance the derivation predicts, d_k and 1 (the shape itself is normal only
    for large d_k, by the central limit theorem).  scores: [n_samples]"""
    scores = np.asarray(scores, dtype=np.float64)  # [n_samples]
    data = []
    for i, (values, variance) in enumerate(((scores, float(d_k)), (scores / np.sqrt(d_k), 1.0))):
        data.append(
            {"type": "histogram", "x": values.astype(np.float32), "histnorm": "probability density", "nbinsx": 40,
             "name": measured_name, "marker": {"color": MEASURED_COLOUR}, "opacity": 0.85, "showlegend": i == 0,
             "legendgroup": "measured",
             "hovertemplate": f"{x_titles[i]}: %{{x}}<br>{y_title}: %{{y:.4f}}<extra></extra>", **_on(i)}
        )  # fmt: skip
        x = np.linspace(-4.0, 4.0, 121) * np.sqrt(variance)  # [121]: ±4 standard deviations
        data.append(
            {"type": "scatter", "mode": "lines", "x": x.astype(np.float32),
             "y": _normal_density(x, variance).astype(np.float32), "name": theory_names[i],
             "line": {"color": THEORY_COLOUR, "width": 2.5, "dash": "dash"},
             "hovertemplate": f"{x_titles[i]}: %{{x:.2f}}<br>{y_title}: %{{y:.4f}}<extra>{theory_names[i]}</extra>",
             **_on(i)}
        )  # fmt: skip
    # one y title, at the left: the right panel's would sit in the gap, on the left panel's bars
    axes, annotations = _panels(titles, x_titles, (y_title, ""), gap=HISTOGRAM_GAP)
    top = max(_height(title) for title in titles) + PANEL_TITLE_SHIFT + 4
    layout = {**axes, "annotations": annotations, "height": height, "bargap": 0.05, "legend": LEGEND,
              "margin": {"t": round(top), "b": LEGEND_MARGIN}}  # fmt: skip
    return _figure(data, layout)


def variance_against_d(
    d_values: np.ndarray,
    variance: np.ndarray,
    standard_error: np.ndarray,
    scaled_variance: np.ndarray,
    scaled_standard_error: np.ndarray,
    chosen_d: int,
    *,
    title: str,
    x_title: str,
    y_title: str,
    names: tuple[str, str, str, str],
    height: int = 420,
) -> go.Figure:
    """Measured variance against d_k on log-log axes, with ±2 standard errors, beside the theory:
    the line Var = d_k unscaled and the flat line Var = 1 after dividing by √d_k.
    names: measured unscaled, theory unscaled, measured scaled, theory scaled.  arrays: [n_d]"""
    d = np.asarray(d_values, dtype=np.float64)  # [n_d]
    data = []
    for measured, error, theory, style, (measured_name, theory_name) in (
        (variance, standard_error, d, STYLE["none"], names[:2]),
        (scaled_variance, scaled_standard_error, np.ones_like(d), STYLE["sqrt"], names[2:]),
    ):
        two_se = 2 * np.asarray(error, dtype=np.float64)  # [n_d]
        data.append(
            {"type": "scatter", "mode": "lines", "x": d, "y": theory.astype(np.float32), "name": theory_name,
             "line": {"color": style["color"], "width": 2, "dash": "dot"}, "hoverinfo": "skip"}
        )  # fmt: skip
        data.append(
            {"type": "scatter", "mode": "markers", "x": d, "y": np.asarray(measured, dtype=np.float32),
             "name": measured_name, "marker": {"color": style["color"], "symbol": style["symbol"], "size": 9},
             "error_y": {"type": "data", "array": two_se.astype(np.float32), "thickness": 1.5, "width": 4},
             "customdata": np.stack([theory, two_se], axis=-1).astype(np.float32),
             "hovertemplate": f"{x_title}: %{{x}}<br>{measured_name}: %{{y:.4f}} ± %{{customdata[1]:.4f}}"
                              f"<br>{theory_name}: %{{customdata[0]:.4g}}<extra></extra>"}
        )  # fmt: skip
    layout = {
        "title": _title(title, height), "height": height,
        "xaxis": {"title": {"text": x_title}, "type": "log", "dtick": np.log10(4), "tickformat": "d"},
        # decades only (1, 10, 100, 1000): Plotly's default adds 2 and 5 between them, a clutter of labels
        "yaxis": {"title": {"text": y_title}, "type": "log", "dtick": 1, "tickformat": "~g"},
        "shapes": [{"type": "line", "x0": chosen_d, "x1": chosen_d, "y0": 0, "y1": 1, "xref": "x", "yref": "paper",
                    "line": {"color": THEORY_COLOUR, "width": 1, "dash": "dash"}}],
        "legend": LEGEND, "margin": {"t": round(_title_room(title) + TITLE_GAP), "b": LEGEND_MARGIN},
    }  # fmt: skip
    return _figure(data, layout)


def saturation_curves(
    d_values: np.ndarray,
    max_weight: np.ndarray,
    entropy: np.ndarray,
    jacobian_norm: np.ndarray,
    T: int,
    chosen_d: int,
    *,
    scaling_names: dict[str, str],
    titles: tuple[str, str, str],
    x_title: str,
    reference_names: tuple[str, str, str],
    height: int = 420,
) -> go.Figure:
    """Three panels against d_k (log axis), one line per scaling: the largest weight of a row,
    its entropy and the size of softmax's Jacobian, each averaged over rows. Dotted lines mark a
    uniform row of T (weight 1/T, entropy log T, norm √(T-1)/T); a dashed line marks chosen_d.
    max_weight, entropy, jacobian_norm: [n_s, n_d] in the order of scaling_names."""
    d = np.asarray(d_values, dtype=np.float64)  # [n_d]
    uniform = (1.0 / T, np.log(T), np.sqrt(T - 1) / T)
    axes, annotations = _panels(titles, (x_title,) * 3, ("", "", ""))
    data, shapes = [], []
    for i, (values, reference) in enumerate(zip((max_weight, entropy, jacobian_norm), uniform, strict=True)):
        on = _on(i)
        for s, (scaling, name) in enumerate(scaling_names.items()):
            style = STYLE[scaling]
            data.append(
                {"type": "scatter", "mode": "lines+markers", "x": d, "y": np.asarray(values[s], dtype=np.float32),
                 "name": name, "legendgroup": scaling, "showlegend": i == 0,
                 "line": {"color": style["color"], "dash": style["dash"], "width": 2.5},
                 "marker": {"symbol": style["symbol"], "size": 7},
                 "hovertemplate": f"{x_title}: %{{x}}<br>{titles[i]}: %{{y:.4f}}<extra>{name}</extra>", **on}
            )  # fmt: skip
        data.append(
            {"type": "scatter", "mode": "lines", "x": [d[0], d[-1]], "y": [reference, reference],
             "name": reference_names[i], "showlegend": False,
             "line": {"color": THEORY_COLOUR, "width": 1.5, "dash": "dot"},
             "hovertemplate": f"{reference_names[i]}: {reference:.4f}<extra></extra>", **on}
        )  # fmt: skip
        shapes.append(
            {"type": "line", "x0": chosen_d, "x1": chosen_d, "y0": 0, "y1": 1, "xref": on["xaxis"],
             "yref": f"{on['yaxis']} domain", "line": {"color": THEORY_COLOUR, "width": 1, "dash": "dash"}}
        )  # fmt: skip
        x_key = "xaxis" if i == 0 else f"xaxis{i + 1}"
        axes[x_key].update({"type": "log", "dtick": np.log10(4), "tickformat": "d"})
    axes["yaxis"]["range"] = [0, 1.05]
    axes["yaxis2"]["rangemode"] = "tozero"
    axes["yaxis3"]["rangemode"] = "tozero"
    top = max(_height(title) for title in titles) + PANEL_TITLE_SHIFT + 4
    layout = {**axes, "annotations": annotations, "shapes": shapes, "height": height, "legend": LEGEND,
              "margin": {"t": round(top), "b": LEGEND_MARGIN}}  # fmt: skip
    return _figure(data, layout)


def weights_animation(
    d_values: np.ndarray,
    weights: np.ndarray,
    scores: np.ndarray,
    start: int,
    *,
    group_titles: dict[str, str],
    title: str,
    x_title: str,
    y_title: str,
    score_name: str,
    slider_prefix: str,
    play_label: str,
    pause_label: str,
    plot_height: int = 260,
) -> go.Figure:
    """One row of T weights under each scaling, side by side in three groups, as d_k sweeps: one
    Plotly frame per d_k, a play / pause button and a slider, animated in the browser without a
    rerun. weights: [n_s, n_d, T] in the order of group_titles (scaling id -> the group's title,
    "\n" between its lines: a group is under 100 px wide on a phone); scores: [n_d, T] raw q·k_j
    of the row; start: the index into d_values shown first; plot_height: of the bars alone, the
    title and controls get their own room above and below.

    All bars are one trace (groups placed along one axis, a gap between them), so each frame
    carries one small update (heights, labels, hover data) and the figure builds quickly."""
    weights = np.asarray(weights, dtype=np.float32)  # [n_s, n_d, T]
    scores = np.asarray(scores, dtype=np.float32)  # [n_d, T]
    n_scalings, _, T = weights.shape
    gap = max(1, T // 4)
    key = np.tile(np.arange(1, T + 1), n_scalings)  # [n_s * T]; keys numbered from 1, as k_1 ... k_T
    group = np.repeat(np.arange(n_scalings), T)  # [n_s * T]
    x = group * (T + gap) + key  # [n_s * T]: the groups side by side, `gap` empty slots apart
    colours = [STYLE[s]["color"] for s in group_titles for _ in range(T)]

    def heights(j: int) -> dict:
        # Plain rounded lists: Plotly checks a list far faster than an array (see the module's
        # docstring), and 4 decimals are more than a bar or a hover can show.
        w = np.round(weights[:, j, :].reshape(-1), 4)  # [n_s * T]
        s = np.round(np.tile(scores[j], n_scalings), 3)  # [n_s * T]
        return {"type": "bar", "y": w.tolist(), "customdata": np.stack([key, s], axis=-1).tolist()}

    trace = {
        "x": x, "marker": {"color": colours}, "texttemplate": "%{y:.2f}" if T <= 12 else None,
        "textposition": "outside", "cliponaxis": False, "showlegend": False,
        "hovertemplate": f"{x_title} %{{customdata[0]}}<br>{score_name}: %{{customdata[1]:.3f}}"
                         f"<br>{y_title}: %{{y:.4f}}<extra></extra>",
        **heights(start),
    }  # fmt: skip
    frames = [{"name": str(int(d)), "data": [heights(j)], "traces": [0]} for j, d in enumerate(d_values)]
    step = 1 if T <= 16 else T // 8
    ticks = [i for i in range(n_scalings * T) if (key[i] - 1) % step == 0]

    # Top, from the edge down: the title, then the group titles, then the bars.
    text = LINE * LECTURE_TEXT_PX  # px: one line of text at its largest
    head_shift = 4  # px between a group's title and the top of the plot
    top = _title_room(title) + TITLE_GAP + max(_height(name) for name in group_titles.values()) + head_shift + 4
    # Bottom, from the plot down: the key numbers, then one row with the buttons at the left and the
    # slider's "d_k = …" at the right, then the slider's rail across the whole width (beside the
    # buttons it would be squeezed to a stub on a phone), its tick labels under it.
    button_h = text + 10  # a button's text and its padding and border
    controls_top = text + 16  # below the key numbers
    slider_h = button_h + 6 + SLIDER_RAIL_TO_LABELS + text  # the buttons' row, the rail, its ticks and labels
    bottom = controls_top + slider_h + 8

    def below(px: float) -> float:
        """A distance below the plot area in Plotly's paper units (the plot's height is 1)."""
        return -px / plot_height

    annotations = [
        {"text": f"<b>{_lines(name)}</b>", "x": s * (T + gap) + (T + 1) / 2, "y": 1.0,
         "xref": "x", "yref": "paper", "xanchor": "center", "yanchor": "bottom", "yshift": head_shift,
         "showarrow": False, "font": {"color": STYLE[s_id]["color"]}}
        for s, (s_id, name) in enumerate(group_titles.items())
    ]  # fmt: skip
    # Frames change only trace data, so Plotly can tween the bars without a full redraw.
    still = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}
    playing = {"frame": {"duration": 900, "redraw": False}, "fromcurrent": True, "transition": {"duration": 400}}
    layout = {
        "title": _title(title, round(plot_height + top + bottom)), "height": round(plot_height + top + bottom),
        "bargap": 0.15,
        "annotations": annotations, "margin": {"t": round(top), "b": round(bottom)},
        "xaxis": {"tickmode": "array", "tickvals": x[ticks],  # no title: it would sit on the controls
                  "ticktext": [str(k) for k in key[ticks]], "range": [0.3, n_scalings * (T + gap) - gap + 0.7],
                  "showgrid": False, "zeroline": False},
        "yaxis": {"title": {"text": y_title}, "range": [0, 1.15], "tickformat": ".1f"},
        "updatemenus": [
            {"type": "buttons", "direction": "left", "x": 0, "y": below(controls_top), "xanchor": "left",
             "yanchor": "top", "showactive": False, "pad": {"t": 0, "r": 0, "b": 0, "l": 0},
             "buttons": [
                 {"label": "▶ " + play_label, "method": "animate", "args": [None, playing]},
                 {"label": "❚❚ " + pause_label, "method": "animate", "args": [[None], still]},
             ]}
        ],
        "sliders": [
            {"active": start, "x": 0, "len": 1, "y": below(controls_top), "xanchor": "left", "yanchor": "top",
             "pad": {"t": 0, "r": 0, "b": 0, "l": 0},
             # the current value shares the buttons' row; its offset drops the rail below them
             "currentvalue": {"prefix": slider_prefix, "xanchor": "right", "offset": round(button_h - text + 6)},
             "steps": [{"label": str(int(d)), "method": "animate", "args": [[str(int(d))], still]} for d in d_values]}
        ],
    }  # fmt: skip
    return _figure([trace], layout, frames)
