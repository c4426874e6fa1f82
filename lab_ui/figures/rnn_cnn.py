"""Figures and tables of the page "self-attention, RNN and CNN side by side": core results and a
language in, go.Figure or DataFrame out, no Streamlit calls. Each builder looks up its own labels.

Inputs are a_1..a_T and outputs b_1..b_T, counted from 1 as the source articles count them. The
five kinds of layer keep one colour each on every figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.patches import PictureView
from attention_core.sequence_costs import ComplexityRow, CostCurves, Timing
from attention_core.sequence_models import LongRangeCurves, VisibilityComparison
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_TEXT_PX, TICK_PX, TOOLBAR_PX, layout_dict, text_px, title_below_toolbar

P = "rnn_cnn."
COLOUR = {
    "rnn": QUALITATIVE[5],
    "birnn": QUALITATIVE[3],
    "cnn": QUALITATIVE[2],
    "truncated": QUALITATIVE[1],
    "self_attention": QUALITATIVE[0],
}
DASH = {"rnn": "solid", "birnn": "dot", "cnn": "dash", "truncated": "dashdot", "self_attention": "solid"}
SYMBOL = {"rnn": "circle", "birnn": "circle-open", "cnn": "square", "truncated": "diamond", "self_attention": "x"}
HIDDEN = "rgba(160,160,160,0.28)"  # cells an output cannot see
CELL_TEXT_MAX_T = 10
# Legends at the bottom, below the axis title: at the top one that wraps (a phone, lecture mode's
# larger text) would run into the title. LEGEND_MARGIN leaves it room.
LEGEND = dict(orientation="h", x=0, xanchor="left", y=0, yref="container", yanchor="bottom")
LEGEND_MARGIN = 105
# Tall enough for the plot, short enough that in lecture mode the figure is whole on a 1280 x 720
# projector's first screen, under the title row, the step bar and the folded text.
HEIGHT = 385
# The height a figure gets in lecture mode on a 1280 x 720 projector (pages/rnn_cnn.py caps it there).
LECTURE_PX = 350
# On a projector's width (lecture mode) a legend stands in a column beside the plot: a row under it
# took a third of LECTURE_PX, and the log axis's title ran taller than the plot that was left.
LEGEND_BESIDE = dict(orientation="v", x=1.01, xanchor="left", y=1, yanchor="top")
# The picture's three panels side by side, and the width of their row on a 390 px phone: its 358 px
# figure less the colour bar's column (measured in Chromium). A panel's title must fit the step from
# one panel to the next there, or it runs into its neighbour's (the catalog breaks the titles in lines).
PICTURE_GAP = 0.04
PICTURE_PANEL = (1 - 2 * PICTURE_GAP) / 3
PHONE_PICTURE_ROW_PX = 267


def _kind_name(kind: str, lang: str, comp: VisibilityComparison | None = None) -> str:
    if comp is not None and kind in ("cnn", "truncated"):
        return t(P + f"kind_{kind}_sized", lang, k=comp.k, r=comp.r)
    return t(P + f"kind_{kind}", lang)


def _significant(a: np.ndarray, digits: int = 4) -> np.ndarray:
    """Rounded to `digits` significant digits, so a CSV holds what a %.3e table shows."""
    a = np.asarray(a, dtype=np.float64)
    return np.array([float(f"{x:.{digits - 1}e}") if np.isfinite(x) else x for x in a.ravel()]).reshape(a.shape)


# --- who sees whom ---------------------------------------------------------------------------------


# Where each kind's picture sits in a 3 x 2 grid (row, column): the kinds that see the whole
# sequence on top, the two local ones below, side by side, because their pictures are the same.
# In a row of five (a projector) the two local ones sit in the middle.
GRID = {"rnn": (0, 0), "birnn": (0, 1), "self_attention": (0, 2), "cnn": (1, 0), "truncated": (1, 1)}
ROW = {"rnn": (0, 0), "birnn": (0, 1), "cnn": (0, 2), "truncated": (0, 3), "self_attention": (0, 4)}


def visibility_figure(comp: VisibilityComparison, lang: str, per_row: int = 3) -> go.Figure:
    """Five T x T pictures, in a 3 x 2 grid (per_row=3: a row of five is unreadable on a phone)
    or in one row (per_row=5, a projector): row i is output b_i, column j input a_j; a coloured
    cell is an input the output depends on, its colour (and number) the sequential steps between
    them; a grey cell is an input it cannot see."""
    T = comp.masks.shape[-1]
    place, n_rows = (ROW, 1) if per_row == 5 else (GRID, 2)
    col_gap, row_gap = (0.03, 0.0) if per_row == 5 else (0.06, 0.16)
    bar_room = 0.07 if per_row == 5 else 0.0  # the colour bar's own column in one row
    width, height = (1.0 - bar_room - (per_row - 1) * col_gap) / per_row, (1.0 - row_gap * (n_rows - 1)) / n_rows
    # counted from 1, as the articles count; at most four, which stay level on a phone's 70 px maps
    # (so the figure's margins are fixed, not measured by automargin on every redraw)
    ticks = list(range(1, T + 1, max(1, int(np.ceil(T / 4)))))
    data, axes, annotations = [], {}, []
    steps_name = t(P + "steps", lang)
    x_title, y_title = t(P + "input_axis", lang), t(P + "output_axis", lang)
    for m, kind in enumerate(comp.kinds):
        row, col = place[kind]
        z = np.where(comp.masks[m], comp.steps[m], np.nan).astype(np.float32)  # [T, T]
        suffix = "" if m == 0 else str(m + 1)
        data.append(
            go.Heatmap(
                z=z,
                x=list(range(1, T + 1)),
                y=list(range(1, T + 1)),
                coloraxis="coloraxis",
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                xgap=1 if T <= 32 else 0,
                ygap=1 if T <= 32 else 0,
                texttemplate="%{z}" if T <= CELL_TEXT_MAX_T else None,
                hovertemplate=f"{y_title}: b%{{y}}<br>{x_title}: a%{{x}}<br>{steps_name}: %{{z}}<extra></extra>",
            )
        )
        x0, y1 = col * (width + col_gap), 1.0 - row * (height + row_gap)
        axis = dict(tickmode="array", tickvals=ticks, ticktext=[str(i) for i in ticks], showgrid=False, zeroline=False)
        x_label = x_title if (row, col) == (n_rows - 1, 0) else None
        axes[f"xaxis{suffix}"] = dict(
            axis,
            domain=[x0, x0 + width],
            anchor=f"y{suffix}",
            range=[0.5, T + 0.5],
            constrain="domain",
            title=dict(text=x_label),
        )
        axes[f"yaxis{suffix}"] = dict(
            axis,
            domain=[y1 - height, y1],
            anchor=f"x{suffix}",
            autorange="reversed",
            scaleanchor=f"x{suffix}",
            constrain="domain",
            showticklabels=col == 0,
            title=dict(text=y_title if col == 0 else None),
        )
        annotations.append(
            dict(
                text=f"<b>{_kind_name(kind, lang, comp)}</b>",
                x=x0 + width / 2,
                y=y1,
                xref="paper",
                yref="paper",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=12 if per_row < 5 else 16, color=COLOUR[kind]),
            )
        )
    bar_x = 1.0 - bar_room + 0.01 if per_row == 5 else 2 * (width + col_gap) + 0.02
    layout = layout_dict(
        title=t(P + "see_title", lang, T=T),
        height=520 if per_row < 5 else 360,
        coloraxis=dict(
            colorscale=SEQUENTIAL,
            reversescale=True,
            cmin=1,
            cmax=max(2, T),
            colorbar=dict(
                title=dict(text=steps_name, side="right"),
                thickness=12,
                len=height,
                x=bar_x,
                xanchor="left",
                y=0,
                yanchor="bottom",
            ),
        ),
        plot_bgcolor=HIDDEN,
        annotations=annotations,
        **axes,
    )
    layout["margin"].update(t=80, b=40)
    return go.Figure(data=data, layout=layout)


def visibility_table(comp: VisibilityComparison, lang: str) -> pd.DataFrame:
    """One row per output b_i: the first and last input it sees under each kind (all in between
    too), and the sequential steps from a_1 to it (empty where a_1 is out of sight)."""
    T = comp.masks.shape[-1]
    columns = {}
    for m, kind in enumerate(comp.kinds):
        name = _kind_name(kind, lang, comp)
        columns[t(P + "col_sees", lang, kind=name)] = [
            f"a{f + 1}…a{last + 1}" for f, last in zip(comp.first_seen[m], comp.last_seen[m], strict=True)
        ]
        steps = comp.steps[m, :, 0].astype(float)  # [T]  from a_1 to every b_i
        columns[t(P + "col_steps_from_first", lang, kind=name)] = np.where(steps > 0, steps, np.nan)
    return pd.DataFrame(columns, index=pd.Index([f"b{i + 1}" for i in range(T)], name=t(P + "output_axis", lang)))


# --- long range ------------------------------------------------------------------------------------


def _legend_placed(layout: dict, wide: bool) -> None:
    """wide (a projector, lecture mode): the legend beside the plot and the title at the top left,
    where the toolbar, in the far right corner, cannot reach it. Otherwise (a phone too) the legend
    under the plot and the title under the toolbar's strip."""
    if wide:
        layout["legend"] = LEGEND_BESIDE
    else:
        title_below_toolbar(layout)  # on a phone the title runs the figure's width, into the toolbar's corner
        layout["margin"]["b"] = LEGEND_MARGIN


def long_range_figure(curves: LongRangeCurves, relative: bool, lang: str, wide: bool = False) -> go.Figure:
    """How strongly a_1 still reaches b_T, log-log against T. relative: a_1 against the average
    input (the clean "one decays, one does not"); absolute: the gradients' sizes, with the RNN's
    bound and the weight b_T's query gives a_1 beside 1/T. wide: a projector's width (_legend_placed)."""
    T = curves.T_values.astype(float)

    def line(y, name, kind, dash=None, width=3):
        y = np.asarray(y, dtype=np.float64)
        y = np.where(y > 0, y, np.nan)  # below 1e-308 a float is 0, which a log axis cannot show
        return go.Scatter(
            x=T,
            y=y,
            mode="lines+markers",
            name=name,
            line=dict(color=COLOUR.get(kind, "grey"), dash=dash or DASH.get(kind, "solid"), width=width),
            marker=dict(symbol=SYMBOL.get(kind, "circle"), size=7),
        )

    if relative:
        data = [
            line(curves.rnn_relative, t(P + "lr_rnn_relative", lang), "rnn"),
            line(curves.attention_relative, t(P + "lr_att_relative", lang), "self_attention"),
        ]
        y_title = t(P + "lr_y_relative", lang)
    else:
        data = [
            line(curves.rnn, t(P + "lr_rnn", lang), "rnn"),
            line(curves.rnn_bound, t(P + "lr_bound", lang, radius=f"{curves.radius:g}"), "bound", "dot", 2),
            line(curves.attention, t(P + "lr_att", lang), "self_attention"),
            line(curves.attention_weight, t(P + "lr_alpha", lang), "alpha", "dash", 2),
            line(curves.uniform_weight, t(P + "lr_uniform", lang), "uniform", "dot", 1),
        ]
        y_title = t(P + "lr_y_absolute", lang)
    layout = layout_dict(
        title=t(P + "lr_title", lang, d=curves.d, radius=f"{curves.radius:g}"),
        height=HEIGHT,
        xaxis=dict(title=t(P + "lr_x", lang), type="log", tickmode="array", tickvals=T, ticktext=[f"{x:g}" for x in T]),
        yaxis=dict(title=y_title, type="log", exponentformat="power"),
        legend=LEGEND,
    )
    _legend_placed(layout, wide)
    return go.Figure(data=data, layout=layout)


def long_range_table(curves: LongRangeCurves, lang: str) -> pd.DataFrame:
    columns = {
        t(P + "lr_rnn", lang): curves.rnn,
        t(P + "lr_bound", lang, radius=f"{curves.radius:g}"): curves.rnn_bound,
        t(P + "lr_att", lang): curves.attention,
        t(P + "lr_rnn_relative", lang): curves.rnn_relative,
        t(P + "lr_att_relative", lang): curves.attention_relative,
        t(P + "lr_alpha", lang): curves.attention_weight,
        t(P + "lr_uniform", lang): curves.uniform_weight,
    }
    table = pd.DataFrame(
        {k: _significant(v) for k, v in columns.items()}, index=pd.Index(curves.T_values, name=t(P + "lr_x", lang))
    )
    return table


def long_range_reading(curves: LongRangeCurves, relative: bool, lang: str) -> str:
    """The chart's last point in words, with the numbers to check it by."""
    return t(
        P + f"lr_reading_{'relative' if relative else 'absolute'}",
        lang,
        T=int(curves.T_values[-1]),
        rnn=f"{curves.rnn[-1]:.2e}",
        att=f"{curves.attention[-1]:.3f}",
        rnn_rel=f"{curves.rnn_relative[-1]:.2e}",
        att_rel=f"{curves.attention_relative[-1]:.2f}",
        alpha=f"{curves.attention_weight[-1]:.4f}",
        uniform=f"{curves.uniform_weight[-1]:.4f}",
        radius=f"{curves.radius:g}",
    )


# --- parallel --------------------------------------------------------------------------------------


def _power_ticks(T: np.ndarray) -> dict:
    """Ticks at every other power of two of T: 16, 64, 256, 1024 (all of them crowd a phone)."""
    shown = T[:: 2 if T.size > 5 else 1]
    return dict(tickmode="array", tickvals=shown, ticktext=[f"{x:g}" for x in shown])


def parallel_figure(T_values: np.ndarray, timing: Timing | None, lang: str) -> go.Figure:
    """Left: steps that must wait for each other, T for an RNN and 1 for self-attention. Right:
    the clock on this server, once measured, with the cost model's crossover T = d marked."""
    T = np.asarray(T_values, dtype=float)
    rnn_name, att_name = t(P + "kind_rnn", lang), t(P + "kind_self_attention", lang)
    data = [
        go.Scatter(
            x=T,
            y=T,
            mode="lines+markers",
            name=rnn_name,
            legendgroup="rnn",
            line=dict(color=COLOUR["rnn"], width=3),
            marker=dict(symbol=SYMBOL["rnn"], size=7),
        ),
        go.Scatter(
            x=T,
            y=np.ones_like(T),
            mode="lines+markers",
            name=att_name,
            legendgroup="att",
            line=dict(color=COLOUR["self_attention"], width=3),
            marker=dict(symbol=SYMBOL["self_attention"], size=7),
        ),
    ]
    shapes, annotations = (
        [],
        [
            dict(
                text=f"<b>{t(P + 'par_steps_title', lang)}</b>",
                x=0.22,
                y=1.0,
                xref="paper",
                yref="paper",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
            ),
        ],
    )
    if timing is None:
        right_title = t(P + "par_time_title_empty", lang)
        annotations.append(
            dict(
                text=t(P + "par_press", lang),
                x=0.78,
                y=0.5,
                xref="paper",
                yref="paper",
                showarrow=False,
                font=dict(color="grey"),
            )
        )
    else:
        right_title = t(P + "par_time_title", lang, cpus=timing.cpu_count, when=timing.measured_at, d=timing.d)
        Tm = timing.T_values.astype(float)
        data += [
            go.Scatter(
                x=Tm,
                y=1000 * timing.rnn_seconds,
                mode="lines+markers",
                name=rnn_name,
                legendgroup="rnn",
                showlegend=False,
                xaxis="x2",
                yaxis="y2",
                line=dict(color=COLOUR["rnn"], width=3),
                marker=dict(symbol=SYMBOL["rnn"], size=7),
            ),
            go.Scatter(
                x=Tm,
                y=1000 * timing.attention_seconds,
                mode="lines+markers",
                name=att_name,
                legendgroup="att",
                showlegend=False,
                xaxis="x2",
                yaxis="y2",
                line=dict(color=COLOUR["self_attention"], width=3),
                marker=dict(symbol=SYMBOL["self_attention"], size=7),
            ),
        ]
        shapes.append(
            dict(
                type="line",
                xref="x2",
                yref="paper",
                x0=timing.d,
                x1=timing.d,
                y0=0,
                y1=1,
                line=dict(color="rgba(110,110,110,0.8)", dash="dot", width=2),
            )
        )
        annotations.append(
            dict(
                text=t(P + "par_crossover", lang, d=timing.d),
                x=np.log10(timing.d),
                xref="x2",
                y=1.0,
                yref="paper",
                yanchor="top",
                xanchor="left",
                showarrow=False,
            )
        )
    annotations.append(
        dict(
            text=f"<b>{right_title}</b>",
            x=0.78,
            y=1.0,
            xref="paper",
            yref="paper",
            xanchor="center",
            yanchor="bottom",
            showarrow=False,
        )
    )
    layout = layout_dict(
        height=HEIGHT,
        legend=LEGEND,
        xaxis=dict(domain=[0, 0.44], type="log", title=t(P + "par_x", lang), **_power_ticks(T)),
        yaxis=dict(type="log", title=t(P + "par_steps_y", lang), dtick=1),
        xaxis2=dict(domain=[0.56, 1.0], type="log", title=t(P + "par_x", lang), anchor="y2", **_power_ticks(T)),
        yaxis2=dict(anchor="x2", type="log", title=t(P + "par_time_y", lang), visible=timing is not None, dtick=1),
        shapes=shapes,
        annotations=annotations,
    )
    # Room above the panels for the right one's title, lines of lecture mode's text, under the
    # strip where Plotly's toolbar appears at the top right on hover (it covered the title's end).
    lines = right_title.count("<br>") + 1
    layout["margin"].update(t=TOOLBAR_PX + round(1.3 * LECTURE_TEXT_PX * lines) + 6, b=LEGEND_MARGIN - 30)
    return go.Figure(data=data, layout=layout)


def parallel_table(T_values: np.ndarray, timing: Timing | None, lang: str) -> pd.DataFrame:
    T = np.asarray(T_values)
    columns = {t(P + "col_steps_rnn", lang): T, t(P + "col_steps_att", lang): np.ones_like(T)}
    if timing is not None:
        columns[t(P + "col_ms_rnn", lang)] = np.round(1000 * timing.rnn_seconds, 4)
        columns[t(P + "col_ms_att", lang)] = np.round(1000 * timing.attention_seconds, 4)
    return pd.DataFrame(columns, index=pd.Index(T, name=t(P + "par_x", lang)))


# --- cost ------------------------------------------------------------------------------------------


def cost_figure(curves: CostCurves, T: int, lang: str, wide: bool = False) -> go.Figure:
    """Multiply-adds per layer against T (log-log), one line per kind, the crossover T = d where
    self-attention and the RNN cost the same, and the student's T marked on every line. wide: a
    projector's width (_legend_placed)."""
    x = curves.T_values.astype(float)
    names = {
        kind: t(P + f"cost_{kind}", lang, k=curves.k, r=curves.r)
        for kind in ("self_attention", "rnn", "cnn", "truncated")
    }
    data = [
        go.Scatter(
            x=x,
            y=getattr(curves, kind),
            mode="lines",
            name=names[kind],
            line=dict(color=COLOUR[kind], dash=DASH[kind], width=3),
        )
        for kind in names
    ]
    at = int(np.argmin(np.abs(curves.T_values - T)))
    data.append(
        go.Scatter(
            x=[float(T)] * 4,
            y=[float(getattr(curves, kind)[at]) for kind in names],
            mode="markers",
            marker=dict(color=[COLOUR[k] for k in names], size=12, symbol="circle", line=dict(color="white", width=1)),
            name=t(P + "cost_your_T", lang, T=f"{T:,}"),
            hovertemplate="T = %{x}<br>%{y:.4g}<extra></extra>",
        )
    )
    shapes = [
        dict(
            type="line",
            x0=curves.d,
            x1=curves.d,
            y0=0,
            y1=1,
            yref="paper",
            line=dict(color="rgba(110,110,110,0.8)", dash="dot", width=2),
        )
    ]
    annotations = [
        dict(
            text=t(P + "cost_crossover", lang, d=curves.d),
            x=np.log10(curves.d),
            y=1.0,
            yref="paper",
            xanchor="left",
            yanchor="top",
            showarrow=False,
        )
    ]
    layout = layout_dict(
        title=t(P + "cost_title", lang, d=curves.d),
        height=HEIGHT,
        legend=LEGEND,
        shapes=shapes,
        annotations=annotations,
        xaxis=dict(title=t(P + "cost_x", lang), type="log", dtick=1),
        yaxis=dict(title=t(P + "cost_y", lang), type="log", exponentformat="power"),
    )
    _legend_placed(layout, wide)
    return go.Figure(data=data, layout=layout)


def cost_table(curves: CostCurves, lang: str) -> pd.DataFrame:
    """The four lines of the cost chart, one row per length: multiply-adds per layer."""
    kinds = ("self_attention", "rnn", "cnn", "truncated")
    columns = {t(P + f"cost_{kind}", lang, k=curves.k, r=curves.r): getattr(curves, kind) for kind in kinds}
    return pd.DataFrame(
        {k: _significant(v) for k, v in columns.items()}, index=pd.Index(curves.T_values, name=t(P + "cost_x", lang))
    )


def complexity_frame(rows: tuple[ComplexityRow, ...], lang: str) -> pd.DataFrame:
    """Table 1 of "Attention Is All You Need" as printed, each entry beside its value here."""
    return pd.DataFrame(
        {
            t(P + "t1_complexity", lang): [r.complexity for r in rows],
            t(P + "t1_complexity_value", lang): [r.complexity_value for r in rows],
            t(P + "t1_sequential", lang): [r.sequential for r in rows],
            t(P + "t1_sequential_value", lang): [r.sequential_value for r in rows],
            t(P + "t1_path", lang): [r.path for r in rows],
            t(P + "t1_path_value", lang): [round(r.path_value, 2) for r in rows],
        },
        index=pd.Index([t(P + f"t1_{r.layer}", lang) for r in rows], name=t(P + "t1_layer", lang)),
    )


# --- images ------------------------------------------------------------------------------------------


def picture_figure(view: PictureView, lang: str) -> go.Figure:
    """Three views of the shipped picture: cut into patches (the asking patch outlined), the
    receptive field of a CNN at that patch (the rest darkened: a local mask), and the asking
    patch's self-attention over every patch."""
    img = np.round(255 * np.asarray(view.picture)).astype(np.uint8)  # [H, W, 3]
    H, W, _ = img.shape
    size = view.patches.patch
    rows, cols = view.patches.grid
    centres_x = np.arange(cols) * size + (size - 1) / 2  # [cols]
    centres_y = np.arange(rows) * size + (size - 1) / 2  # [rows]
    weight_name = t(P + "img_weight", lang)
    numbers = np.arange(rows * cols).reshape(rows, cols)  # [rows, cols]
    data = [go.Image(z=img, xaxis=f"x{s}", yaxis=f"y{s}", hoverinfo="skip") for s in ("", "2", "3")]
    data.append(
        go.Heatmap(
            z=view.weights.astype(np.float32),
            x=centres_x,
            y=centres_y,
            xaxis="x3",
            yaxis="y3",
            opacity=0.82,
            colorscale=SEQUENTIAL,
            zmin=0,
            customdata=numbers,
            colorbar=dict(thickness=10, len=0.8, x=1.0, title=dict(text=weight_name, side="right")),
            hovertemplate=f"{t(P + 'img_patch', lang)} %{{customdata}}<br>{weight_name}: %{{z:.4f}}<extra></extra>",
        )
    )
    data.append(
        go.Heatmap(
            z=np.where(view.field, np.nan, 1.0).astype(np.float32),
            x=centres_x,
            y=centres_y,
            xaxis="x2",
            yaxis="y2",
            colorscale=[[0, "rgba(20,20,20,0.78)"], [1, "rgba(20,20,20,0.78)"]],
            showscale=False,
            hoverinfo="skip",
        )
    )
    r, c = view.query_cell
    box = dict(
        type="rect",
        x0=c * size - 0.5,
        x1=(c + 1) * size - 0.5,
        y0=r * size - 0.5,
        y1=(r + 1) * size - 0.5,
        line=dict(color="#D55E00", width=3),
    )
    grid_lines = [
        dict(
            type="line",
            xref="x",
            yref="y",
            x0=k * size - 0.5,
            x1=k * size - 0.5,
            y0=-0.5,
            y1=H - 0.5,
            line=dict(color="rgba(255,255,255,0.8)", width=1),
        )
        for k in range(1, cols)
    ]
    grid_lines += [
        dict(
            type="line",
            xref="x",
            yref="y",
            y0=k * size - 0.5,
            y1=k * size - 0.5,
            x0=-0.5,
            x1=W - 0.5,
            line=dict(color="rgba(255,255,255,0.8)", width=1),
        )
        for k in range(1, rows)
    ]
    shapes = grid_lines + [dict(box, xref=f"x{s}", yref=f"y{s}") for s in ("", "2", "3")]
    titles = picture_titles(view, lang)
    axes, annotations = {}, []
    for m, s in enumerate(("", "2", "3")):
        x0 = m * (PICTURE_PANEL + PICTURE_GAP)
        axes[f"xaxis{s}"] = dict(
            domain=[x0, x0 + PICTURE_PANEL], visible=False, range=[-0.5, W - 0.5], constrain="domain"
        )
        axes[f"yaxis{s}"] = dict(anchor=f"x{s}", visible=False, range=[H - 0.5, -0.5], scaleanchor=f"x{s}")
        # On the picture's top edge ("y domain": where the square picture is drawn), not the plot's:
        # on a phone the pictures stand in the middle of a tall plot, far under its top.
        annotations.append(
            dict(
                text=f"<b>{titles[m]}</b>",
                x=x0 + PICTURE_PANEL / 2,
                y=1.0,
                xref="paper",
                yref=f"y{s} domain",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
            )
        )
    lines = max(title.count("<br>") + 1 for title in titles)
    layout = layout_dict(height=340, shapes=shapes, annotations=annotations, **axes)
    layout["margin"].update(t=round(1.3 * LECTURE_TEXT_PX * lines) + 8, b=10)  # the titles' lines at lecture size
    return go.Figure(data=data, layout=layout)


def picture_titles(view: PictureView, lang: str) -> tuple[str, str, str]:
    """The three panels' titles, in lines that fit side by side on a phone (picture_title_room)."""
    rows, cols = view.patches.grid
    size = view.patches.patch
    return (
        t(P + "img_patches", lang, n=rows * cols, dim=size * size * 3),
        t(P + "img_field", lang, k=view.k, L=view.n_layers),
        t(P + "img_attention", lang, q=view.query),
    )


def picture_title_room() -> float:
    """The widest a line of a panel's title may be, in px: the step from one panel's middle to the
    next on a phone, so that two neighbouring titles never overlap (title_line_px's estimate is
    about a sixth wider than the bold lines Chromium draws: that is the air between them)."""
    return (PICTURE_PANEL + PICTURE_GAP) * PHONE_PICTURE_ROW_PX


def title_line_px(title: str) -> float:
    """The widest line of a title, estimated at the 12 px a phone draws it with."""
    return max(text_px(line, TICK_PX) for line in title.split("<br>"))


def picture_reading(view: PictureView, spot: str, lang: str) -> str:
    """Where the asking patch's attention goes, against where the CNN can look, in words."""
    return t(
        P + "img_reading",
        lang,
        spot=t(P + f"spot_{spot}", lang),
        q=view.query,
        outside=f"{view.weight_outside_field:.2f}",
        n=view.patches.vectors.shape[0],
        dim=view.patches.vectors.shape[1],
        k=view.k,
        layers=view.n_layers,
    )


def picture_table(view: PictureView, lang: str) -> pd.DataFrame:
    """One row per patch: where it sits, the asking patch's weight on it, and whether the CNN sees it."""
    rows, cols = view.patches.grid
    n = rows * cols
    return pd.DataFrame(
        {
            t(P + "col_place", lang): [f"({i // cols + 1}, {i % cols + 1})" for i in range(n)],
            t(P + "img_weight", lang): view.weights.ravel(),
            t(P + "col_in_field", lang): [t(P + f"yes_{bool(f)}", lang) for f in view.field.ravel()],
        },
        index=pd.Index(np.arange(n), name=t(P + "img_patch", lang)),
    )
