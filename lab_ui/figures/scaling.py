"""Figures for the page "why divide by √d_k", and the tables of the numbers behind them: the core's
results (attention_core.saturation) and a language in, go.Figure (or pd.DataFrame) out, no
Streamlit calls; each builder looks up its own labels, each table names its index.

Speed: these figures have several panels and up to a dozen traces.
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
import pandas as pd
import plotly.graph_objects as go

from attention_core.saturation import SCALINGS, SaturationSweep, VarianceSweep
from lab_ui.figures.common import QUALITATIVE
from lab_ui.i18n import t
from lab_ui.layout import (
    LECTURE_TEXT_PX,
    LECTURE_TITLE_PX,
    TOOLBAR_PX,
    key_labels_hidden_on_phones,
    layout_dict,
)
from lab_ui.state import labels

# One look per scaling id (attention_core.saturation.SCALINGS): unscaled, ÷√d_k, ÷d_k.
STYLE = {
    "none": dict(color=QUALITATIVE[5], dash="solid", symbol="circle"),  # vermillion
    "sqrt": dict(color=QUALITATIVE[0], dash="solid", symbol="square"),  # blue
    "d": dict(color=QUALITATIVE[2], dash="dash", symbol="diamond"),  # bluish green
}
# Each scaling's words (a line's legend entry, a table's rows) and its group title over the bars of weights.
SCALING_NAMES = labels("scaling.scaling_", "none", "sqrt", "d")
GROUP_TITLES = labels("scaling.play_group_", "none", "sqrt", "d")
assert tuple(SCALING_NAMES) == tuple(GROUP_TITLES) == tuple(SCALINGS)
NONE, SQRT, BY_D = (SCALINGS.index(s) for s in ("none", "sqrt", "d"))  # rows of a SaturationSweep's [n_s, ...]
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
# (lab_ui.layout.lecture_styled) sets the title to LECTURE_TITLE_PX and every other text to
# LECTURE_TEXT_PX (lab_ui.figures.common), and a
# Plotly figure cannot wrap or move its parts when text grows. One line of text at size s takes
# about LINE * s.
LINE = 1.3
TITLE_PAD = 8
TITLE_GAP = 14  # px under a title's lines, for its descenders and some air
PANEL_TITLE_SHIFT = 6  # px between a panel's title and its plot
WEIGHTS_PLOT_PX = 260  # the bars' own height on a screen
# The tallest a lecture step's figure may be: what a 1280x720 screen leaves under the
# lecture frame's title row and step bar (they end at about 302 px; the page puts the figure
# right under them, its controls and words below it), so that the figure is whole on the first screen.
LECTURE_PX = 380
# The bars' value labels: Plotly shrinks a label to its bar's width, to about 4 px on a phone (a bar
# is about 9 px wide there); smaller than this, a label is hidden (hover still gives the value).
# A desktop's bars are about 25 px wide and keep their 11-12 px labels, a projector's larger ones.
# SOFTMAX_CSS hides them on a phone's screen, where a bar is about 9 px wide.
BAR_TEXT_MIN_PX = 9
# The bars' plot area (weights_at_d) on a 390 px phone (measured in Chromium: 249 px), and the room a key
# number needs there: about 6.7 px a digit at the 12 px tick font, and air on either side.
PHONE_WEIGHTS_PLOT_PX = 250
DIGIT_PX, KEY_LABEL_AIR_PX = 6.7, 5


def _figure(data: list[dict], layout: dict, frames: list[dict] | None = None) -> go.Figure:
    """The shared look of lab_ui.layout.layout_dict (CJK-capable font, its margins, no template),
    with validation off: see the module's docstring. A figure gives only the top and bottom room
    its titles and legend need at lecture mode's sizes."""
    shared = layout_dict()
    shared["font"]["size"] = 14  # panel titles and labels inherit it, in lecture mode too
    return go.Figure(
        data=data,
        layout={**shared, **layout, "margin": {**shared["margin"], **layout.get("margin", {})}},
        frames=frames,
        _validate=False,
    )


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
    return {
        "text": _lines(text),
        "x": 0,
        "xanchor": "left",
        "y": 1 - middle / height,
        "yref": "container",
        "yanchor": "middle",
    }


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
            {
                "text": f"<b>{_lines(title)}</b>",
                "x": lo + width / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "bottom",
                "yshift": PANEL_TITLE_SHIFT,
                "showarrow": False,
            }
        )
    return axes, annotations


def _normal_density(x: np.ndarray, variance: float) -> np.ndarray:
    return np.exp(-(x**2) / (2 * variance)) / np.sqrt(2 * np.pi * variance)  # [n]


def dot_product_histogram(var: VarianceSweep, d_k: int, lang: str, height: int = 400) -> go.Figure:
    """Histograms of the sampled q·k (left) and q·k/√d_k (right) at d_k, each beside a normal
    density with the variance the derivation predicts, d_k and 1 (the shape itself is normal only
    for large d_k, by the central limit theorem). On a projector the page draws it LECTURE_PX tall
    (lab_ui.layout.lecture_styled)."""
    titles = (t("scaling.hist_raw", lang, d=d_k), t("scaling.hist_scaled", lang, d=d_k))
    x_titles = (t("scaling.hist_x_raw", lang), t("scaling.hist_x_scaled", lang))
    y_title, measured_name = t("scaling.hist_y", lang), t("scaling.hist_measured", lang)
    theory_names = (t("scaling.hist_theory_raw", lang), t("scaling.hist_theory_scaled", lang))
    scores = np.asarray(var.scores[list(var.d_values).index(d_k)], dtype=np.float64)  # [n_samples]
    data = []
    for i, (values, variance) in enumerate(((scores, float(d_k)), (scores / np.sqrt(d_k), 1.0))):
        data.append(
            {
                "type": "histogram",
                "x": values.astype(np.float32),
                "histnorm": "probability density",
                "nbinsx": 40,
                "name": measured_name,
                "marker": {"color": MEASURED_COLOUR},
                "opacity": 0.85,
                "showlegend": i == 0,
                "legendgroup": "measured",
                "hovertemplate": f"{x_titles[i]}: %{{x}}<br>{y_title}: %{{y:.4f}}<extra></extra>",
                **_on(i),
            }
        )
        x = np.linspace(-4.0, 4.0, 121) * np.sqrt(variance)  # [121]: ±4 standard deviations
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": x.astype(np.float32),
                "y": _normal_density(x, variance).astype(np.float32),
                "name": t("scaling.hist_theory", lang),
                # one legend entry for the two panels' curves: drawn alike, two entries looked like one twice
                "showlegend": i == 0,
                "legendgroup": "theory",
                "line": {"color": THEORY_COLOUR, "width": 2.5, "dash": "dash"},
                "hovertemplate": f"{x_titles[i]}: %{{x:.2f}}<br>{y_title}: %{{y:.4f}}<extra>{theory_names[i]}</extra>",
                **_on(i),
            }
        )
    # one y title, at the left: the right panel's would sit in the gap, on the left panel's bars
    axes, annotations = _panels(titles, x_titles, (y_title, ""), gap=HISTOGRAM_GAP)
    top = TOOLBAR_PX + max(_height(title) for title in titles) + PANEL_TITLE_SHIFT + 4  # titles below the toolbar
    layout = {
        **axes,
        "annotations": annotations,
        "height": height,
        "bargap": 0.05,
        "legend": LEGEND,
        "margin": {"t": round(top), "b": LEGEND_MARGIN},
    }
    return _figure(data, layout)


def variance_against_d(var: VarianceSweep, lang: str, height: int = 420) -> go.Figure:
    """Measured variance against d_k on log-log axes, with ±2 standard errors, beside the theory:
    the line Var = d_k unscaled and the flat line Var = 1 after dividing by √d_k. No mark at the
    page's d_k (the histograms beside it show that one): the same figure for every d_k, so a d_k
    step does not draw it again."""
    title, x_title, y_title = t("scaling.var_title", lang), t("scaling.var_x", lang), t("scaling.var_y", lang)
    names = [
        t(key, lang)
        for key in (
            "scaling.var_measured",
            "scaling.var_theory",
            "scaling.var_scaled_measured",
            "scaling.var_scaled_theory",
        )
    ]
    variance, standard_error = var.variance, var.standard_error
    scaled_variance, scaled_standard_error = var.scaled_variance, var.scaled_standard_error
    d = np.asarray(var.d_values, dtype=np.float64)  # [n_d]
    data = []
    for measured, error, theory, style, (measured_name, theory_name) in (
        (variance, standard_error, d, STYLE["none"], names[:2]),
        (scaled_variance, scaled_standard_error, np.ones_like(d), STYLE["sqrt"], names[2:]),
    ):
        two_se = 2 * np.asarray(error, dtype=np.float64)  # [n_d]
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": d,
                "y": theory.astype(np.float32),
                "name": theory_name,
                "line": {"color": style["color"], "width": 2, "dash": "dot"},
                "hoverinfo": "skip",
            }
        )
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": d,
                "y": np.asarray(measured, dtype=np.float32),
                "name": measured_name,
                "marker": {"color": style["color"], "symbol": style["symbol"], "size": 9},
                "error_y": {"type": "data", "array": two_se.astype(np.float32), "thickness": 1.5, "width": 4},
                "customdata": np.stack([theory, two_se], axis=-1).astype(np.float32),
                "hovertemplate": f"{x_title}: %{{x}}<br>{measured_name}: %{{y:.4f}} ± %{{customdata[1]:.4f}}"
                f"<br>{theory_name}: %{{customdata[0]:.4g}}<extra></extra>",
            }
        )
    layout = {
        "title": _title(title, height),
        "height": height,
        "xaxis": {"title": {"text": x_title}, "type": "log", "dtick": np.log10(4), "tickformat": "d"},
        # decades only (1, 10, 100, 1000): Plotly's default adds 2 and 5 between them, a clutter of labels
        "yaxis": {"title": {"text": y_title}, "type": "log", "dtick": 1, "tickformat": "~g"},
        "legend": LEGEND,
        "margin": {"t": round(_title_room(title) + TITLE_GAP), "b": LEGEND_MARGIN},
    }
    return _figure(data, layout)


def _scaling_lines(
    sat: SaturationSweep,
    measures: Sequence[np.ndarray],
    titles: Sequence[str],
    references: Sequence[tuple],
    lang: str,
    height: int,
    log_y: Sequence[bool],
    shared_y: bool = False,
) -> go.Figure:
    """Panels side by side against d_k (log axis), one line per scaling in each: measures [n_s, n_d]
    in the order of sat.scalings; references: (value, name) of a dotted grey line, or None. On a log
    y axis a 0 cannot be drawn and leaves a gap. shared_y: the panels share the first one's y range
    and its tick labels (the others draw the grid only).

    No mark at the page's d_k: the curves are the same for every d_k, so a d_k step leaves them as
    they are and Streamlit does not draw them again (with a dashed line at d_k they were two new
    figures a step: scaling's softmax step 561 -> 289 ms, bench.browser_latency scaling@2). The bars
    above them and the reading under them give the d_k on the screen."""
    d = np.asarray(sat.d_values, dtype=np.float64)  # [n_d]
    x_title = t("scaling.curves_x", lang)
    names = {s: SCALING_NAMES.text(s, lang) for s in sat.scalings}
    axes, annotations = _panels(titles, (x_title,) * len(titles), ("",) * len(titles))
    data = []
    for i, (values, reference) in enumerate(zip(measures, references, strict=True)):
        on = _on(i)
        for s, scaling in enumerate(sat.scalings):
            style, name = STYLE[scaling], names[scaling]
            y = np.asarray(values[s], dtype=np.float64)  # [n_d]
            y = [float(v) if v > 0 or not log_y[i] else None for v in y]  # lists: a gap where log 0 would be
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "x": d,
                    "y": y,
                    "name": name,
                    "legendgroup": scaling,
                    "showlegend": i == 0,
                    "line": {"color": style["color"], "dash": style["dash"], "width": 2.5},
                    "marker": {"symbol": style["symbol"], "size": 7},
                    "hovertemplate": f"{x_title}: %{{x}}<br>{_flat(titles[i])}: %{{y:.4g}}<extra>{name}</extra>",
                    **on,
                }
            )
        if reference is not None:
            value, ref_name = reference
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "x": [d[0], d[-1]],
                    "y": [value, value],
                    "name": ref_name,
                    "showlegend": False,
                    "line": {"color": THEORY_COLOUR, "width": 1.5, "dash": "dot"},
                    "hovertemplate": f"{ref_name}: {value:.4f}<extra></extra>",
                    **on,
                }
            )
        suffix = "" if i == 0 else str(i + 1)
        axes[f"xaxis{suffix}"].update({"type": "log", "dtick": np.log10(4), "tickformat": "d"})
        axes[f"yaxis{suffix}"].update(
            {"type": "log", "exponentformat": "power"} if log_y[i] else {"rangemode": "tozero"}
        )
        if shared_y and i > 0:
            axes[f"yaxis{suffix}"].update({"matches": "y", "showticklabels": False})
    top = TOOLBAR_PX + max(_height(title) for title in titles) + PANEL_TITLE_SHIFT + 4  # titles below the toolbar
    layout = {
        **axes,
        "annotations": annotations,
        "height": height,
        "legend": LEGEND,
        "margin": {"t": round(top), "b": LEGEND_MARGIN},
    }
    return _figure(data, layout)


def saturation_curves(sat: SaturationSweep, lang: str, height: int = 400) -> go.Figure:
    """How peaked the typical row is, against d_k: its largest weight and its entropy, one line per
    scaling. Dotted lines mark a uniform row of T (weight 1/T, entropy log T)."""
    T = sat.T
    fig = _scaling_lines(
        sat,
        (sat.max_weight, sat.entropy),
        (t("scaling.curves_max", lang), t("scaling.curves_entropy", lang)),
        ((1.0 / T, t("scaling.ref_max", lang)), (np.log(T), t("scaling.ref_entropy", lang))),
        lang,
        height,
        log_y=(False, False),
    )
    fig.layout.yaxis.range = [0, 1.05]
    return fig


def slope_curves(sat: SaturationSweep, lang: str, height: int = 420) -> go.Figure:
    """How strongly the typical row still responds, against d_k, on log axes: left, softmax's own
    slope ‖∂p/∂z‖ with respect to the scores it reads (z = c·s); right, the slope with respect to
    the raw scores s = q·k, c times that (the chain rule). A dotted line marks a uniform row's
    own slope, √(T-1)/T.

    One y axis for both (the right panel is the left one times c ≤ 1, so it fits the same decades):
    the two read against each other, and the right panel has no tick labels of its own. Its
    "10⁻¹²" labels sat in the gap between the panels, and on a phone (panels about 130 px wide)
    they ran onto the left panel's lines."""
    T = sat.T
    return _scaling_lines(
        sat,
        (sat.slope_scaled, sat.slope_raw),
        (t("scaling.slope_scaled", lang), t("scaling.slope_raw", lang)),
        ((np.sqrt(T - 1) / T, t("scaling.ref_jacobian", lang)), None),
        lang,
        height,
        log_y=(True, True),
        shared_y=True,
    )


def _flat(title: str) -> str:
    """A panel title on one line, for a hover label."""
    return title.replace("\n", " ")


def weights_at_d(sat: SaturationSweep, chosen_d: int, lang: str, big: bool = False) -> go.Figure:
    """The first row's T weights at chosen_d under each scaling, side by side in three groups. The
    page's d_k slider is the one control of d_k: moving it redraws the bars (an animation inside
    the figure, with its own d_k slider, once drew beside it; two sliders of one d_k could say two
    different values, and its 13 frames and controls cost about 100 ms a step in Chromium).
    The group titles have "\n" between their lines (a group is under 100 px wide on a phone). The
    bars get WEIGHTS_PLOT_PX, the titles their own room above; `big` (a projector): LECTURE_PX in
    all and no title (the lecture's step bar names the step).

    All bars are one trace (groups placed along one axis, a gap between them), so the figure
    builds quickly."""
    j = list(sat.d_values).index(chosen_d)
    group_titles = {s: GROUP_TITLES.text(s, lang) for s in sat.scalings}
    title, x_title, y_title = (
        t("scaling.weights_title", lang, T=sat.T, d=chosen_d),
        t("scaling.play_x", lang),
        t("scaling.play_y", lang),
    )
    score_name = t("scaling.play_score", lang)
    weights = np.asarray(sat.first_weights[:, j, :], dtype=np.float32)  # [n_s, T]
    scores = np.asarray(sat.first_scores[j], dtype=np.float32)  # [T]
    n_scalings, T = weights.shape
    gap = max(1, T // 4)
    key = np.tile(np.arange(1, T + 1), n_scalings)  # [n_s * T]; keys numbered from 1, as k_1 ... k_T
    group = np.repeat(np.arange(n_scalings), T)  # [n_s * T]
    x = group * (T + gap) + key  # [n_s * T]: the groups side by side, `gap` empty slots apart
    # Plain rounded lists: Plotly checks a list far faster than an array (see the module's
    # docstring), and 4 decimals are more than a bar or a hover can show.
    heights = np.round(weights.reshape(-1), 4)  # [n_s * T]
    raw = np.round(np.tile(scores, n_scalings), 3)  # [n_s * T]
    trace = {
        "type": "bar",
        "x": x,
        "y": heights.tolist(),
        "customdata": np.stack([key, raw], axis=-1).tolist(),
        "marker": {"color": [STYLE[s]["color"] for s in group_titles for _ in range(T)]},
        "texttemplate": "%{y:.2f}" if T <= 12 else None,
        "textposition": "outside",
        "cliponaxis": False,
        "showlegend": False,
        "hovertemplate": f"{x_title} %{{customdata[0]}}<br>{score_name}: %{{customdata[1]:.3f}}"
        f"<br>{y_title}: %{{y:.4f}}<extra></extra>",
    }
    step = 1 if T <= 16 else T // 8
    ticks = [i for i in range(n_scalings * T) if (key[i] - 1) % step == 0]

    # Top, from the edge down: the title, then the group titles, then the bars; below them the key numbers.
    head_shift = 4  # px between a group's title and the top of the plot
    heads = max(_height(name) for name in group_titles.values()) + head_shift + 4
    top = heads + 8 if big else _title_room(title) + TITLE_GAP + heads
    bottom = LINE * LECTURE_TEXT_PX + 8  # the key numbers at their largest
    plot_height = LECTURE_PX - top - bottom if big else WEIGHTS_PLOT_PX
    annotations = [
        {
            "text": f"<b>{_lines(name)}</b>",
            "x": s * (T + gap) + (T + 1) / 2,
            "y": 1.0,
            "xref": "x",
            "yref": "paper",
            "xanchor": "center",
            "yanchor": "bottom",
            "yshift": head_shift,
            "showarrow": False,
            "font": {"color": STYLE[s_id]["color"]},
        }
        for s, (s_id, name) in enumerate(group_titles.items())
    ]
    layout = {
        "title": None if big else _title(title, round(plot_height + top + bottom)),
        "height": round(plot_height + top + bottom),
        "bargap": 0.15,
        "uniformtext": {"minsize": BAR_TEXT_MIN_PX, "mode": "hide"},  # no 4 px labels on a phone
        "annotations": annotations,
        "margin": {"t": round(top), "b": round(bottom)},
        "xaxis": {
            "tickmode": "array",
            "tickvals": x[ticks],
            "ticktext": [str(k) for k in key[ticks]],
            "range": [0.3, n_scalings * (T + gap) - gap + 0.7],
            "showgrid": False,
            "zeroline": False,
        },
        "yaxis": {"title": {"text": y_title}, "range": [0, 1.15], "tickformat": ".1f"},
    }
    return _figure([trace], layout)


def phone_key_ticks_css(key: str, T: int) -> str | None:
    """CSS that leaves every k-th key number of each group under the bars of weights (the figure
    `key`, weights_at_d's) on a phone's screen, where 3 x T numbers in about 250 px ran
    together ("12345678"); None when they have room. weights_at_d labels every `step`-th key
    of each group, the groups side by side; Plotly draws one g.xtick per label, in that order."""
    gap, step = max(1, T // 4), 1 if T <= 16 else T // 8  # as weights_at_d places and labels them
    slot = PHONE_WEIGHTS_PLOT_PX / (3 * T + 2 * gap)  # px per key on the phone
    need = DIGIT_PX * len(str(T)) + KEY_LABEL_AIR_PX
    every = int(np.ceil(need / (slot * step)))
    if every <= 1:
        return None
    per_group = len(range(0, T, step))
    hidden = [g * per_group + m + 1 for g in range(3) for m in range(per_group) if m % every]
    return key_labels_hidden_on_phones(key, *(f":nth-of-type({n})" for n in hidden))


# The bars of weights (the page's key for weights_at_d), the box on article 003's slip and the
# link to the train page under it (pages/scaling.py puts them in containers with these keys). On a
# phone the bars' value labels are hidden (BAR_TEXT_MIN_PX says why). The link's label is one
# unbroken line that Streamlit cut at the screen's edge, with no ellipsis: it wraps instead. On a
# phone the code box's text is about 294 px wide (wrapped lines leave 16 px at either side), 35
# characters at its 14 px: the catalog keeps its lines to 38, and 12 px (7.2 px a character) fits
# 40, on a 375 px phone 38.
WEIGHTS_KEY, MISTAKE_KEY, TRAIN_LINK_KEY = "scaling_weights", "sc_mistake", "sc_train_link"
SOFTMAX_CSS = (
    f"<style>.st-key-{TRAIN_LINK_KEY} [data-testid='stPageLink'] span,"
    f" .st-key-{TRAIN_LINK_KEY} [data-testid='stPageLink'] p {{ white-space: normal; }}"
    f" @media (max-width: 640px) {{ .st-key-{WEIGHTS_KEY} .bartext {{ display: none; }}"
    f" .st-key-{MISTAKE_KEY} [data-testid='stCode'] code {{ font-size: 12px; }} }}"
    "</style>"
)
MISTAKE_CODE_CHARS = 38  # the longest line of scaling.mistake_code (a CJK character counts twice)


# --- the words beside the figures: alt texts and readings, their numbers read from the sweeps ---------


def hist_alt(var: VarianceSweep, d_k: int, n: int, lang: str) -> str:
    j = list(var.d_values).index(d_k)
    return t(
        "scaling.hist_alt",
        lang,
        n=n,
        d=d_k,
        spread=f"{3 * np.sqrt(d_k):.0f}",
        var=f"{var.variance[j]:.2f}",
        scaled=f"{var.scaled_variance[j]:.3f}",
    )


def variance_metrics(var: VarianceSweep, d_k: int, lang: str) -> list[dict]:
    """st.metric's arguments for the measured variance at d_k, unscaled and scaled, each with its
    standard error (the theory, d_k and 1, beside it)."""
    j = list(var.d_values).index(d_k)
    common = {"help": t("scaling.metric_help", lang), "delta_color": "off", "delta_arrow": "off"}
    return [
        {
            "label": t("scaling.metric_var", lang, d=d_k),
            "value": f"{var.variance[j]:.2f}",
            "delta": t("scaling.metric_var_delta", lang, theory=d_k, se=f"{var.standard_error[j]:.2f}"),
            **common,
        },
        {
            "label": t("scaling.metric_scaled", lang),
            "value": f"{var.scaled_variance[j]:.3f}",
            "delta": t("scaling.metric_scaled_delta", lang, se=f"{var.scaled_standard_error[j]:.3f}"),
            **common,
        },
    ]


def weights_alt(sat: SaturationSweep, d_k: int, lang: str) -> str:
    first = sat.first_weights[:, list(sat.d_values).index(d_k)]  # [n_s, T]
    return t(
        "scaling.weights_alt",
        lang,
        T=sat.T,
        d=d_k,
        none=f"{first[NONE].max():.3f}",
        sqrt=f"{first[SQRT].max():.3f}",
        dk=f"{first[BY_D].max():.3f}",
        uniform=f"{1 / sat.T:.3f}",
    )


def curves_alt(sat: SaturationSweep, lang: str) -> str:
    top = sat.max_weight  # [n_s, n_d]
    return t(
        "scaling.curves_alt",
        lang,
        none_first=f"{top[NONE, 0]:.2f}",
        none_last=f"{top[NONE, -1]:.2f}",
        sqrt_last=f"{top[SQRT, -1]:.2f}",
        dk_last=f"{top[BY_D, -1]:.3f}",
        logT=f"{np.log(sat.T):.3f}",
    )


def curves_reading(sat: SaturationSweep, d_k: int, lang: str) -> str:
    j, top = list(sat.d_values).index(d_k), sat.max_weight  # [n_s, n_d]
    return t(
        "scaling.reading",
        lang,
        d=d_k,
        T=sat.T,
        none_max=f"{top[NONE, j]:.3f}",
        sqrt_max=f"{top[SQRT, j]:.3f}",
        first_max=f"{top[SQRT, 0]:.3f}",
        dk_max=f"{top[BY_D, j]:.3f}",
        uniform=f"{1 / sat.T:.3f}",
    )


def slopes_alt(sat: SaturationSweep, lang: str) -> str:
    own, raw = sat.slope_scaled, sat.slope_raw  # [n_s, n_d]
    return t(
        "scaling.slopes_alt",
        lang,
        none=f"{own[NONE, -1]:.2g}",
        dk=f"{own[BY_D, -1]:.3f}",
        dk_raw=f"{raw[BY_D, -1]:.2g}",
        sqrt_raw=f"{raw[SQRT, -1]:.2g}",
    )


def slopes_reading(sat: SaturationSweep, d_k: int, lang: str) -> str:
    j, own, raw = list(sat.d_values).index(d_k), sat.slope_scaled, sat.slope_raw  # [n_s, n_d]
    return t(
        "scaling.slopes_reading",
        lang,
        d=d_k,
        none=f"{own[NONE, j]:.2g}",
        none_first=f"{own[NONE, 0]:.2f}",
        sqrt=f"{own[SQRT, j]:.3f}",
        sqrt_raw=f"{raw[SQRT, j]:.2g}",
        dk=f"{own[BY_D, j]:.3f}",
        dk_raw=f"{raw[BY_D, j]:.2g}",
        root=f"{np.sqrt(d_k):g}",
    )


# --- formulas: each experiment's, and the derivation's steps ------------------------------------------

LATEX = {
    "spread": r"\begin{aligned} s &= q \cdot k = \textstyle\sum_{i=1}^{d_k} q_i k_i \\ q_i, k_i &\sim N(0, 1) \\"
    r" \operatorname{Var}(s) &= d_k \\ \operatorname{Var}\big(s / \sqrt{d_k}\big) &= 1 \end{aligned}",
    "softmax": r"\begin{aligned} p &= \operatorname{softmax}(z),\ z = c\,s \\ c &\in \{1,\ 1/\sqrt{d_k},\ 1/d_k\} \\"
    r" H(p) &= -\textstyle\sum_i p_i \log p_i \\"
    r" \frac{\partial p}{\partial z} &= \operatorname{diag}(p) - p\,p^\top \\"
    r" \Big\lVert \frac{\partial p}{\partial z} \Big\rVert^2 &="
    r" \textstyle\sum_i p_i^2 \big((1 - p_i)^2 + \sum_{j \ne i} p_j^2\big) \\"
    r" \frac{\partial p}{\partial s} &= c\, \frac{\partial p}{\partial z} \end{aligned}",
}
# The derivation: each step's words (a catalog key) and its formula (None: words only). One equality
# per line (aligned): a chain on one line runs off a phone's screen, and off a 1280 px window once
# lecture mode enlarges the text. [6pt]: air between stacked sums and fractions.
GARBLED_AFTER = "scaling.step3"  # article 003's garbled identity is corrected under this step
DERIVATION = (
    (
        "scaling.step1",
        r"\begin{aligned} E[q_i^2] &= \operatorname{Var}(q_i) + \big(E[q_i]\big)^2 \\ &= 1 + 0 = 1, \\"
        r" E[k_i^2] &= 1 \end{aligned}",
    ),
    ("scaling.step2", r"\begin{aligned} E[q_i k_i] &= E[q_i]\,E[k_i] \\ &= 0 \cdot 0 = 0 \end{aligned}"),
    (
        "scaling.step3",
        r"\begin{aligned} \operatorname{Var}(q_i k_i) &= E[q_i^2 k_i^2] - \big(E[q_i k_i]\big)^2 \\"
        r" &= E[q_i^2]\,E[k_i^2] - \big(E[q_i]\,E[k_i]\big)^2 \\ &= 1 \cdot 1 - 0 = 1 \end{aligned}",
    ),
    (
        "scaling.step4",
        r"\begin{aligned} E[q \cdot k] &= \sum_{i=1}^{d_k} E[q_i k_i] = 0, \\[6pt]"
        r" \operatorname{Var}(q \cdot k) &= \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k \end{aligned}",
    ),
    (
        "scaling.step5",
        r"\begin{aligned} \operatorname{Var}\!\Big(\frac{q \cdot k}{\sqrt{d_k}}\Big) &= \frac{d_k}{d_k} = 1,"
        r" \\[6pt]"
        r" \operatorname{Var}\!\Big(\frac{q \cdot k}{d_k}\Big) &= \frac{d_k}{d_k^2}"
        r" = \frac{1}{d_k} \end{aligned}",
    ),
    (
        "scaling.step6",
        r"\begin{aligned} J = \frac{\partial p}{\partial z} &= \operatorname{diag}(p) - p\,p^\top, \\[6pt]"
        r" J_{ij} &= p_i(\delta_{ij} - p_j) \end{aligned}",
    ),
    ("scaling.step6_after", None),
    (
        "scaling.step7",
        r"\begin{aligned} \frac{\partial p}{\partial s} &= \frac{\partial p}{\partial z}\,"
        r"\frac{\partial z}{\partial s} = c\,J, \\[6pt]"
        r" \frac{\partial s}{\partial q} &= k,\quad \lVert k \rVert \approx \sqrt{d_k} \end{aligned}",
    ),
    ("scaling.step7_after", None),
)


# --- the numbers behind the figures ------------------------------------------------------------------


def variance_table(var: VarianceSweep, lang: str) -> pd.DataFrame:
    """One row per d_k: the measured variances, the theory, their standard errors and z."""
    columns = {
        t("scaling.col_var", lang): var.variance,
        t("scaling.col_theory", lang): var.d_values,
        t("scaling.col_se", lang): var.standard_error,
        t("scaling.col_z", lang): (var.variance - var.d_values) / var.standard_error,
        t("scaling.col_scaled", lang): var.scaled_variance,
        t("scaling.col_scaled_se", lang): var.scaled_standard_error,
    }
    return pd.DataFrame(columns, index=pd.Index(var.d_values, name=t("scaling.col_d", lang)))


def saturation_table(sat: SaturationSweep, lang: str) -> pd.DataFrame:
    """One row per scaling and d_k: the typical row's largest weight, entropy and both slopes."""
    names = [SCALING_NAMES.text(s, lang) for s in SCALINGS]
    columns = {
        t("scaling.col_scaling", lang): np.repeat(names, len(sat.d_values)),
        t("scaling.col_max", lang): sat.max_weight.ravel(),
        t("scaling.col_entropy", lang): sat.entropy.ravel(),
        t("scaling.col_slope_scaled", lang): sat.slope_scaled.ravel(),
        t("scaling.col_slope_raw", lang): sat.slope_raw.ravel(),
    }
    return pd.DataFrame(columns, index=pd.Index(np.tile(sat.d_values, len(SCALINGS)), name=t("scaling.col_d", lang)))
