"""Figures and tables of the page "self-attention, RNN and CNN side by side": core results and a
language in, go.Figure or DataFrame out, no Streamlit calls. Each builder looks up its own labels.

Inputs are a_1..a_T and outputs b_1..b_T, counted from 1 as the source articles count them. The
five kinds of layer keep one colour each on every figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.patches import LANDMARKS, PatchCount, PictureView
from attention_core.sequence_costs import MIN_ROUNDS, ComplexityRow, CostCurves, LayerCosts, Timing
from attention_core.sequence_models import LongRangeCurves, VisibilityComparison
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_TEXT_PX, TICK_PX, TOOLBAR_PX, layout_dict, text_px, title_below_toolbar
from lab_ui.state import labels

# The words of each kind of layer, of each line of the cost chart, of Table 1's rows, of the
# picture's places (attention_core.patches.LANDMARKS), and of a yes or a no in a table.
KIND_NAMES = labels("rnn_cnn.kind_", "rnn", "birnn", "cnn", "truncated", "self_attention")
SIZED = {"cnn": "rnn_cnn.kind_cnn_sized", "truncated": "rnn_cnn.kind_truncated_sized"}  # with k or r
COST_NAMES = labels("rnn_cnn.cost_", "self_attention", "rnn", "cnn", "truncated")
T1_NAMES = labels("rnn_cnn.t1_", "self_attention", "recurrent", "convolutional", "restricted")
SPOTS = labels("rnn_cnn.spot_", "grass", "sky", "cloud", "sun", "roof", "wall", "window", "door", "tree", "trunk")
assert tuple(SPOTS) == tuple(LANDMARKS)
YES = {True: "rnn_cnn.yes_True", False: "rnn_cnn.yes_False"}
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
# The pictures' titles: their type size (grid, row of five) and the room a line of one may take, the
# step from one picture's middle to the next: on a 390 px phone the grid's pictures stand about 80 px
# apart (measured in Chromium: a 358 px figure less the y axis's labels and title); a projector's
# row of five about 210 px.
SEE_TITLE_PX = {False: 12, True: 16}
SEE_TITLE_ROOM_PX = {False: 80, True: 210}
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
        return t(SIZED[kind], lang, k=comp.k, r=comp.r)
    return KIND_NAMES.text(kind, lang)


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
    col_gap, row_gap = (0.03, 0.0) if per_row == 5 else (0.06, 0.2)  # the row gap holds two lines of titles
    bar_room = 0.07 if per_row == 5 else 0.0  # the colour bar's own column in one row
    width, height = (1.0 - bar_room - (per_row - 1) * col_gap) / per_row, (1.0 - row_gap * (n_rows - 1)) / n_rows
    # counted from 1, as the articles count; at most four, which stay level on a phone's 70 px maps
    # (so the figure's margins are fixed, not measured by automargin on every redraw)
    ticks = list(range(1, T + 1, max(1, int(np.ceil(T / 4)))))
    data, axes, annotations = [], {}, []
    titles = visibility_titles(comp, lang, per_row)
    steps_name = t("rnn_cnn.steps", lang)
    x_title, y_title = t("rnn_cnn.input_axis", lang), t("rnn_cnn.output_axis", lang)
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
            domain=[max(0.0, y1 - height), y1],
            anchor=f"x{suffix}",
            autorange="reversed",
            scaleanchor=f"x{suffix}",
            constrain="domain",
            showticklabels=col == 0,
            title=dict(text=y_title if col == 0 else None),
        )
        annotations.append(
            dict(
                text=f"<b>{titles[m]}</b>",
                x=x0 + width / 2,
                y=y1,
                xref="paper",
                yref="paper",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=SEE_TITLE_PX[per_row == 5], color=COLOUR[kind]),
            )
        )
    bar_x = 1.0 - bar_room + 0.01 if per_row == 5 else 2 * (width + col_gap) + 0.02
    layout = layout_dict(
        title=t("rnn_cnn.see_title", lang, T=T),
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
    title_below_toolbar(layout)  # the figure's title, then the top row's titles under it
    top_lines = max(titles[m].count("<br>") + 1 for m, kind in enumerate(comp.kinds) if place[kind][0] == 0)
    layout["margin"].update(t=layout["margin"]["t"] + round(1.3 * SEE_TITLE_PX[per_row == 5] * top_lines), b=40)
    return go.Figure(data=data, layout=layout)


def visibility_titles(comp: VisibilityComparison, lang: str, per_row: int = 3) -> tuple[str, ...]:
    """Each picture's title, in KINDS order, broken into lines (at spaces, or after a hyphen) no
    wider than the step from one picture's middle to the next: on a phone the grid's titles ran
    into each other in one line ("Bidirectional RNNSelf-attention")."""
    room, size = SEE_TITLE_ROOM_PX[per_row == 5], SEE_TITLE_PX[per_row == 5]
    return tuple(wrapped(_kind_name(kind, lang, comp), room, size) for kind in comp.kinds)


def wrapped(text: str, room: float, size: float) -> str:
    """Text in lines of at most `room` px at `size` px type, joined by <br>: broken at spaces,
    then after hyphens, never inside "name = value"; a word wider than the room stays whole on its own line."""
    text = text.replace(" = ", "\u00a0=\u00a0")  # "r = 3" stays on one line
    words = [piece for word in text.split(" ") for piece in _after_hyphens(word)]
    lines: list[str] = []
    for word in words:
        joined = f"{lines[-1]}{'' if lines[-1].endswith('-') else ' '}{word}" if lines else word
        if lines and text_px(joined, size) <= room:
            lines[-1] = joined
        else:
            lines.append(word)
    return "<br>".join(lines)


def _after_hyphens(word: str) -> list[str]:
    parts = word.split("-")
    return [p + "-" for p in parts[:-1]] + [parts[-1]]


def visibility_table(comp: VisibilityComparison, lang: str) -> pd.DataFrame:
    """One row per output b_i: the first and last input it sees under each kind (all in between
    too), and the sequential steps from a_1 to it (empty where a_1 is out of sight)."""
    T = comp.masks.shape[-1]
    columns = {}
    for m, kind in enumerate(comp.kinds):
        name = _kind_name(kind, lang, comp)
        columns[t("rnn_cnn.col_sees", lang, kind=name)] = [
            f"a{f + 1}…a{last + 1}" for f, last in zip(comp.first_seen[m], comp.last_seen[m], strict=True)
        ]
        steps = comp.steps[m, :, 0].astype(float)  # [T]  from a_1 to every b_i
        columns[t("rnn_cnn.col_steps_from_first", lang, kind=name)] = np.where(steps > 0, steps, np.nan)
    return pd.DataFrame(columns, index=pd.Index([f"b{i + 1}" for i in range(T)], name=t("rnn_cnn.output_axis", lang)))


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
            line(curves.rnn_relative, t("rnn_cnn.lr_rnn_relative", lang), "rnn"),
            line(curves.attention_relative, t("rnn_cnn.lr_att_relative", lang), "self_attention"),
        ]
        y_title = t("rnn_cnn.lr_y_relative", lang)
    else:
        data = [
            line(curves.rnn, t("rnn_cnn.lr_rnn", lang), "rnn"),
            line(curves.rnn_bound, t("rnn_cnn.lr_bound", lang, radius=f"{curves.radius:g}"), "bound", "dot", 2),
            line(curves.attention, t("rnn_cnn.lr_att", lang), "self_attention"),
            line(curves.attention_weight, t("rnn_cnn.lr_alpha", lang), "alpha", "dash", 2),
            line(curves.uniform_weight, t("rnn_cnn.lr_uniform", lang), "uniform", "dot", 1),
        ]
        y_title = t("rnn_cnn.lr_y_absolute", lang)
    layout = layout_dict(
        title=t("rnn_cnn.lr_title", lang, d=curves.d, radius=f"{curves.radius:g}"),
        height=HEIGHT,
        xaxis=dict(
            title=t("rnn_cnn.lr_x", lang), type="log", tickmode="array", tickvals=T, ticktext=[f"{x:g}" for x in T]
        ),
        yaxis=dict(title=y_title, type="log", exponentformat="power"),
        legend=LEGEND,
    )
    _legend_placed(layout, wide)
    return go.Figure(data=data, layout=layout)


def long_range_table(curves: LongRangeCurves, lang: str) -> pd.DataFrame:
    columns = {
        t("rnn_cnn.lr_rnn", lang): curves.rnn,
        t("rnn_cnn.lr_bound", lang, radius=f"{curves.radius:g}"): curves.rnn_bound,
        t("rnn_cnn.lr_att", lang): curves.attention,
        t("rnn_cnn.lr_rnn_relative", lang): curves.rnn_relative,
        t("rnn_cnn.lr_att_relative", lang): curves.attention_relative,
        t("rnn_cnn.lr_alpha", lang): curves.attention_weight,
        t("rnn_cnn.lr_uniform", lang): curves.uniform_weight,
    }
    table = pd.DataFrame(
        {k: _significant(v) for k, v in columns.items()}, index=pd.Index(curves.T_values, name=t("rnn_cnn.lr_x", lang))
    )
    return table


def long_range_reading(curves: LongRangeCurves, relative: bool, lang: str) -> str:
    """The chart's last point in words, with the numbers to check it by."""
    return t(
        "rnn_cnn.lr_reading_relative" if relative else "rnn_cnn.lr_reading_absolute",
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
    # the same range on both panels, set here: Plotly's own padding left the measured panel narrower
    # on a phone, and its last two labels ran together ("2561024")
    span = [float(np.log10(T[0])) - 0.12, float(np.log10(T[-1])) + 0.12]
    return dict(tickmode="array", tickvals=shown, ticktext=[f"{x:g}" for x in shown], range=span, tickangle=0)


def parallel_figure(T_values: np.ndarray, timing: Timing | None, lang: str) -> go.Figure:
    """Left: steps that must wait for each other, T for an RNN and 1 for self-attention. Right:
    the clock on this server, once measured, with the cost model's crossover T = d marked."""
    T = np.asarray(T_values, dtype=float)
    rnn_name, att_name = t("rnn_cnn.kind_rnn", lang), t("rnn_cnn.kind_self_attention", lang)
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
                text=f"<b>{t('rnn_cnn.par_steps_title', lang)}</b>",
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
        right_title = t("rnn_cnn.par_time_title_empty", lang)
        annotations.append(
            dict(
                text=t("rnn_cnn.par_press", lang),
                x=0.78,
                y=0.5,
                xref="paper",
                yref="paper",
                showarrow=False,
                font=dict(color="grey"),
            )
        )
    else:
        right_title = t("rnn_cnn.par_time_title", lang, cpus=timing.cpu_count, when=timing.measured_at, d=timing.d)
        Tm = timing.T_values.astype(float)
        data += [
            go.Scatter(
                x=Tm,
                y=1000 * timing.rnn_seconds,
                error_y=_spread_bars(timing.rnn_seconds, timing.rnn_spread, COLOUR["rnn"]),
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
                error_y=_spread_bars(timing.attention_seconds, timing.attention_spread, COLOUR["self_attention"]),
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
                text=t("rnn_cnn.par_crossover", lang, d=timing.d),
                x=np.log10(timing.d),
                xref="x2",
                y=1.0,
                yref="paper",
                yanchor="top",
                xanchor="right" if timing.d > np.sqrt(T[0] * T[-1]) else "left",  # on the side with room
                xshift=-4 if timing.d > np.sqrt(T[0] * T[-1]) else 4,
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
        xaxis=dict(domain=[0, 0.44], type="log", title=t("rnn_cnn.par_x", lang), **_power_ticks(T)),
        yaxis=dict(type="log", title=t("rnn_cnn.par_steps_y", lang), dtick=1),
        xaxis2=dict(domain=[0.56, 1.0], type="log", title=t("rnn_cnn.par_x", lang), anchor="y2", **_power_ticks(T)),
        yaxis2=dict(anchor="x2", type="log", title=t("rnn_cnn.par_time_y", lang), visible=timing is not None, dtick=1),
        shapes=shapes,
        annotations=annotations,
    )
    # Room above the panels for the right one's title, lines of lecture mode's text, under the
    # strip where Plotly's toolbar appears at the top right on hover (it covered the title's end).
    lines = right_title.count("<br>") + 1
    layout["margin"].update(t=TOOLBAR_PX + round(1.3 * LECTURE_TEXT_PX * lines) + 6, b=LEGEND_MARGIN - 30)
    return go.Figure(data=data, layout=layout)


def _spread_bars(median: np.ndarray, spread: np.ndarray, colour: str) -> dict:
    """Error bars from the 25th to the 75th percentile of the runs, in milliseconds."""
    return dict(
        type="data",
        symmetric=False,
        array=1000 * (spread[:, 1] - median),  # [n]
        arrayminus=1000 * (median - spread[:, 0]),  # [n]
        color=colour,
        thickness=1.5,
        width=4,
    )


def parallel_table(T_values: np.ndarray, timing: Timing | None, lang: str) -> pd.DataFrame:
    """Steps at each T and, once measured, the median milliseconds of each layer with the middle
    half of its runs (25th and 75th percentiles) and whether the two middle halves stay apart."""
    T = np.asarray(T_values)
    columns = {t("rnn_cnn.col_steps_rnn", lang): T, t("rnn_cnn.col_steps_att", lang): np.ones_like(T)}
    if timing is not None:
        for median, spread, name, low, high in (
            (timing.rnn_seconds, timing.rnn_spread, "rnn_cnn.col_ms_rnn", "rnn_cnn.col_rnn_q1", "rnn_cnn.col_rnn_q3"),
            (
                timing.attention_seconds,
                timing.attention_spread,
                "rnn_cnn.col_ms_att",
                "rnn_cnn.col_att_q1",
                "rnn_cnn.col_att_q3",
            ),
        ):
            columns[t(name, lang)] = np.round(1000 * median, 4)
            columns[t(low, lang)] = np.round(1000 * spread[:, 0], 4)
            columns[t(high, lang)] = np.round(1000 * spread[:, 1], 4)
        columns[t("rnn_cnn.col_faster", lang)] = [
            t(FASTER[(bool(c), bool(f))], lang) for c, f in zip(timing.clear, timing.attention_faster, strict=True)
        ]
    return pd.DataFrame(columns, index=pd.Index(T, name=t("rnn_cnn.par_x", lang)))


# Which layer was faster at a length: (the middle halves apart, attention's median lower) -> words
FASTER = {
    (True, True): "rnn_cnn.faster_attention",
    (True, False): "rnn_cnn.faster_rnn",
    (False, True): "rnn_cnn.faster_close",
    (False, False): "rnn_cnn.faster_close",
}


def _lengths(T: np.ndarray) -> str:
    return ", ".join(str(int(x)) for x in T)


def timing_callout(timing: Timing | None, d: int, lang: str) -> str:
    """What the clock said, read from the measured numbers (never a sentence fixed in advance):
    at which lengths each layer was clearly faster, where the runs were too close to call, and
    whether that follows the count of multiply-adds (crossover T = d). Before a measurement, the
    count's prediction and what a measurement will show."""
    if timing is None:
        return t("rnn_cnn.verdict_before", lang, d=d)
    head = t("rnn_cnn.verdict_head", lang, cpus=timing.cpu_count, runs=timing.repeats, d=timing.d)
    if timing.repeats < MIN_ROUNDS:  # a busy server: the budget held too few rounds to tell anything apart
        few = t("rnn_cnn.verdict_few", lang, runs=timing.repeats, least=MIN_ROUNDS, seconds=f"{timing.seconds:.1f}")
        return f"{head} {few} {t('rnn_cnn.par_hardware', lang)}"
    T = timing.T_values
    faster, slower = T[timing.clear & timing.attention_faster], T[timing.clear & ~timing.attention_faster]
    close = T[~timing.clear]
    parts = []
    if faster.size:
        parts.append(t("rnn_cnn.verdict_faster", lang, Ts=_lengths(faster)))
    if slower.size:
        parts.append(t("rnn_cnn.verdict_slower", lang, Ts=_lengths(slower)))
    if close.size:
        parts.append(t("rnn_cnn.verdict_close", lang, Ts=_lengths(close)))
    predicted = timing.d > T  # [n] the count: attention does fewer multiply-adds while T < d
    against = T[timing.clear & (timing.attention_faster != predicted)]
    if not (faster.size or slower.size):
        model = t("rnn_cnn.verdict_model_none", lang, d=timing.d)
    elif against.size:
        model = t("rnn_cnn.verdict_model_differs", lang, d=timing.d, Ts=_lengths(against))
    else:
        model = t("rnn_cnn.verdict_model_agrees", lang, d=timing.d)
    return f"{head} {t('rnn_cnn.verdict_join', lang).join(parts)}. {model} {t('rnn_cnn.par_hardware', lang)}"


# --- cost ------------------------------------------------------------------------------------------


def cost_figure(curves: CostCurves, T: int, lang: str, wide: bool = False) -> go.Figure:
    """Multiply-adds per layer against T (log-log), one line per kind, the crossover T = d where
    self-attention and the RNN cost the same, and the student's T marked on every line. wide: a
    projector's width (_legend_placed)."""
    x = curves.T_values.astype(float)
    names = {kind: COST_NAMES.text(kind, lang, k=curves.k, r=curves.r) for kind in COST_NAMES}
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
            name=t("rnn_cnn.cost_your_T", lang, T=f"{T:,}"),
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
            text=t("rnn_cnn.cost_crossover", lang, d=curves.d),
            x=np.log10(curves.d),
            y=1.0,
            yref="paper",
            xanchor="left",
            yanchor="top",
            showarrow=False,
        )
    ]
    layout = layout_dict(
        title=t("rnn_cnn.cost_title", lang, d=curves.d),
        height=HEIGHT,
        legend=LEGEND,
        shapes=shapes,
        annotations=annotations,
        xaxis=dict(title=t("rnn_cnn.cost_x", lang), type="log", dtick=1),
        yaxis=dict(title=t("rnn_cnn.cost_y", lang), type="log", exponentformat="power"),
    )
    _legend_placed(layout, wide)
    return go.Figure(data=data, layout=layout)


def cost_table(curves: CostCurves, lang: str) -> pd.DataFrame:
    """The four lines of the cost chart, one row per length: multiply-adds per layer."""
    kinds = ("self_attention", "rnn", "cnn", "truncated")
    columns = {COST_NAMES.text(kind, lang, k=curves.k, r=curves.r): getattr(curves, kind) for kind in kinds}
    return pd.DataFrame(
        {k: _significant(v) for k, v in columns.items()},
        index=pd.Index(curves.T_values, name=t("rnn_cnn.cost_x", lang)),
    )


def complexity_frame(rows: tuple[ComplexityRow, ...], lang: str) -> pd.DataFrame:
    """Table 1 of "Attention Is All You Need" as printed, each entry beside its value here."""
    return pd.DataFrame(
        {
            t("rnn_cnn.t1_complexity", lang): [r.complexity for r in rows],
            t("rnn_cnn.t1_complexity_value", lang): [r.complexity_value for r in rows],
            t("rnn_cnn.t1_sequential", lang): [r.sequential for r in rows],
            t("rnn_cnn.t1_sequential_value", lang): [r.sequential_value for r in rows],
            t("rnn_cnn.t1_path", lang): [r.path for r in rows],
            t("rnn_cnn.t1_path_value", lang): [round(r.path_value, 2) for r in rows],
        },
        index=pd.Index([T1_NAMES.text(r.layer, lang) for r in rows], name=t("rnn_cnn.t1_layer", lang)),
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
    weight_name = t("rnn_cnn.img_weight", lang)
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
            hovertemplate=f"{t('rnn_cnn.img_patch', lang)} %{{customdata}}<br>{weight_name}: %{{z:.4f}}<extra></extra>",
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
        t("rnn_cnn.img_patches", lang, n=rows * cols, dim=size * size * 3),
        t("rnn_cnn.img_field", lang, k=view.k, L=view.n_layers),
        t("rnn_cnn.img_attention", lang, q=view.query),
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
        "rnn_cnn.img_reading",
        lang,
        spot=SPOTS.text(spot, lang),
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
            t("rnn_cnn.col_place", lang): [f"({i // cols + 1}, {i % cols + 1})" for i in range(n)],
            t("rnn_cnn.img_weight", lang): view.weights.ravel(),
            t("rnn_cnn.col_in_field", lang): [t(YES[bool(f)], lang) for f in view.field.ravel()],
        },
        index=pd.Index(np.arange(n), name=t("rnn_cnn.img_patch", lang)),
    )


# --- a photo as patches (ViT) -------------------------------------------------------------------------


def patch_count_figure(count: PatchCount, lang: str) -> go.Figure:
    """T² against the patch size, for every patch size that cuts this picture into whole squares
    (log y: halving the patch multiplies T² by 16), the student's patch size marked."""
    sizes = count.sizes.astype(float)  # [m]
    pairs = count.sizes_T.astype(float) ** 2  # [m]
    data = [
        go.Scatter(
            x=sizes,
            y=pairs,
            customdata=count.sizes_T,
            mode="lines+markers",
            name=t("rnn_cnn.vit_line", lang),
            line=dict(color=COLOUR["self_attention"], width=3),
            marker=dict(symbol=SYMBOL["self_attention"], size=8),
            hovertemplate="p = %{x}<br>T = %{customdata}<br>T² = %{y:,}<extra></extra>",
        ),
        go.Scatter(
            x=[float(count.patch)],
            y=[float(count.pairs)],
            mode="markers",
            name=t("rnn_cnn.vit_yours", lang, p=count.patch, T=f"{count.n_patches:,}"),
            marker=dict(color=COLOUR["rnn"], size=14, symbol="circle", line=dict(color="white", width=1)),
            hovertemplate="p = %{x}<br>T² = %{y:,}<extra></extra>",
        ),
    ]
    shown = sizes if sizes.size <= 8 else sizes[:: int(np.ceil(sizes.size / 8))]
    layout = layout_dict(
        title=t("rnn_cnn.vit_title", lang, H=count.height, W=count.width),
        height=HEIGHT,
        legend=LEGEND,
        xaxis=dict(
            title=t("rnn_cnn.vit_x", lang),
            type="log",
            tickmode="array",
            tickvals=shown,
            ticktext=[f"{x:g}" for x in shown],
            tickangle=0,
        ),
        yaxis=dict(title=t("rnn_cnn.vit_y", lang), type="log", exponentformat="power"),
    )
    title_below_toolbar(layout)
    layout["margin"]["b"] = LEGEND_MARGIN
    return go.Figure(data=data, layout=layout)


def patch_count_metrics(count: PatchCount, lang: str) -> list[dict]:
    """The step's three numbers, as st.metric arguments: T, d and T² (T²·d, too long for a metric, is in the words)."""
    return [
        dict(label=t("rnn_cnn.vit_T", lang), value=f"{count.n_patches:,}"),
        dict(label=t("rnn_cnn.vit_d", lang), value=f"{count.vector_length:,}"),
        dict(label=t("rnn_cnn.vit_pairs", lang), value=f"{count.pairs:,}"),
    ]


def patch_count_reading(count: PatchCount, lang: str) -> str:
    """The count in words, with the next patch size down for comparison (T² grows as 1/p⁴)."""
    text = t(
        "rnn_cnn.vit_reading",
        lang,
        H=count.height,
        W=count.width,
        p=count.patch,
        rows=count.rows,
        cols=count.cols,
        T=f"{count.n_patches:,}",
        d=f"{count.vector_length:,}",
        pairs=f"{count.pairs:,}",
        products=f"{count.score_products:,}",
    )
    if count.below is not None:
        smaller_T = (count.height // count.below) * (count.width // count.below)
        text += " " + t(
            "rnn_cnn.vit_smaller",
            lang,
            p=count.below,
            T=f"{smaller_T:,}",
            pairs=f"{smaller_T**2:,}",
            times=f"{smaller_T**2 / max(count.pairs, 1):.1f}",
        )
    return text


def patch_fit_notice(count: PatchCount, lang: str) -> str | None:
    """None when the patch divides both sides; else what is left over and the sizes nearby that fit."""
    if count.fits:
        return None
    nearby = " / ".join(str(p) for p in (count.below, count.above) if p is not None)
    return t(
        "rnn_cnn.vit_not_whole",
        lang,
        p=count.patch,
        H=count.height,
        W=count.width,
        rows=count.left_over[0],
        cols=count.left_over[1],
        used_h=count.rows * count.patch,
        used_w=count.cols * count.patch,
        nearby=nearby,
    )


def patch_count_table(count: PatchCount, lang: str) -> pd.DataFrame:
    """Every patch size that divides both sides: the grid, T, d, T² and T²·d (Python ints: T² d passes 2^63)."""
    sizes = count.sizes
    return pd.DataFrame(
        {
            t("rnn_cnn.vit_col_grid", lang): [f"{count.height // p} × {count.width // p}" for p in sizes],
            t("rnn_cnn.vit_T", lang): count.sizes_T,
            t("rnn_cnn.vit_d", lang): sizes * sizes * count.channels,
            t("rnn_cnn.vit_pairs", lang): [int(T) ** 2 for T in count.sizes_T],
            t("rnn_cnn.vit_products", lang): [
                int(T) ** 2 * int(p) ** 2 * count.channels for T, p in zip(count.sizes_T, sizes, strict=True)
            ],
        },
        index=pd.Index(sizes, name=t("rnn_cnn.vit_x", lang)),
    )


# --- words of the steps ----------------------------------------------------------------------------


def see_reading(comp: VisibilityComparison, lang: str) -> str:
    T = comp.masks.shape[-1]
    return t(
        "rnn_cnn.see_reading",
        lang,
        T=T,
        k=comp.k,
        r=comp.r,
        window=comp.window,
        layers=comp.n_layers,
        cnn_seen=int(comp.seen[2, T // 2]),
        rnn_steps=int(comp.steps[0, T - 1, 0]),
    )


def timing_reading(timing: Timing, lang: str) -> str:
    """The longest length's medians, with the middle half of the runs beside them."""
    return t(
        "rnn_cnn.par_reading",
        lang,
        cpus=timing.cpu_count,
        when=timing.measured_at,
        d=timing.d,
        runs=timing.repeats,
        T=int(timing.T_values[-1]),
        rnn=f"{1000 * timing.rnn_seconds[-1]:.1f}",
        att=f"{1000 * timing.attention_seconds[-1]:.1f}",
        rnn_q=f"{1000 * timing.rnn_spread[-1, 0]:.1f}–{1000 * timing.rnn_spread[-1, 1]:.1f}",
        att_q=f"{1000 * timing.attention_spread[-1, 0]:.1f}–{1000 * timing.attention_spread[-1, 1]:.1f}",
        seconds=f"{timing.seconds:.1f}",
    )


def cost_reading(costs: LayerCosts, lang: str) -> str:
    """Which of self-attention and the RNN does less work at the student's T and d."""
    values = dict(T=f"{costs.T:,}", d=f"{costs.d:,}", att=f"{costs.self_attention:,}", rnn=f"{costs.rnn:,}")
    if costs.cheaper_than_rnn:
        return t("rnn_cnn.cost_reading_attention", lang, **values)
    if costs.d == costs.T:
        return t("rnn_cnn.cost_reading_equal", lang, **values)
    return t("rnn_cnn.cost_reading_rnn", lang, **values)


def cost_tex(lang: str) -> str:
    """Table 1's leading terms, each named in the page's language."""
    names = tuple(KIND_NAMES.text(kind, lang) for kind in ("self_attention", "rnn", "cnn", "truncated"))
    latex = r"\begin{aligned} \text{%s} &: T^2 d \\ \text{%s} &: T d^2 \\ \text{%s} &: k\,T d^2 \\ \text{%s} &: r\,T d"
    return latex % names + r" \end{aligned}"


LONG_RANGE_TEX = (
    r"\begin{aligned} \frac{\partial h_T}{\partial a_1} &= D_T W_{hh}^\top \cdots D_2 W_{hh}^\top \\"
    r" &\quad \cdot D_1 W_{xh}^\top \\"
    r" D_t &= \mathrm{diag}(1 - h_t^2) \\[6pt]"
    r" \frac{\partial b_T}{\partial a_1} &= \alpha_{T1} \big(W_v^\top \\"
    r" &\quad + c\,(v_1 - b_T)(q_T W_k^\top)^\top\big) \end{aligned}"
)
PATCH_TEX = (
    r"T = \left\lfloor \tfrac{H}{p} \right\rfloor \cdot \left\lfloor \tfrac{W}{p} \right\rfloor,"
    r"\quad d = p^2 C,\quad \text{scores} = T^2,\quad \text{multiply-adds} = T^2 d"
)


def cheaper_check_words(speech: LayerCosts) -> str:
    """The speech check's explanation, with the three layers' multiply-adds computed by the core."""
    return t(
        "rnn_cnn.q_cheaper_why",
        T=f"{speech.T:,}",
        d=speech.d,
        r=speech.r,
        att=f"{speech.self_attention:,}",
        rnn=f"{speech.rnn:,}",
        truncated=f"{speech.truncated:,}",
    )


def products_check_words(photo: PatchCount) -> str:
    """The photo check's explanation: its patches, their scores and the multiply-adds behind them."""
    return t(
        "rnn_cnn.q_products_why",
        H=photo.height,
        p=photo.patch,
        side=photo.rows,
        T=photo.n_patches,
        pairs=f"{photo.pairs:,}",
        d=photo.vector_length,
        products=f"{photo.score_products:,}",
    )


# The folded tables of the steps: their widget keys, files and number formats (lab_ui.widgets.show_table).
TABLES = {
    "see": dict(key="rc_see_table", filename="who_sees_whom.csv", decimals=0, missing="—"),
    "long_range": dict(key="rc_long_table", filename="long_range.csv", decimals=None, number_format="%.3e"),
    "parallel": dict(key="rc_parallel_table", filename="steps_and_time.csv", decimals=None, number_format="%g"),
    "cost": dict(key="rc_cost_table", filename="cost.csv", decimals=None, number_format="%.4g"),
    "images": dict(key="rc_picture_table", filename="patch_attention.csv"),
    "patches": dict(key="rc_patches_table", filename="patch_sizes.csv", decimals=None, number_format="localized"),
}
