"""Figures of the sliding-window page: which keys each query sees (the window and the sinks), how far
information reaches through stacked layers, the cost and cache against full attention as the text
grows, and the decoder's next-character loss under the three masks. What is drawn; lab_ui.layout
says where."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.sinks import SinkExperiment
from attention_core.windows import CacheSlots, WindowCostCurve, WindowReach
from lab_ui.figures.common import QUALITATIVE, token_ticks
from lab_ui.i18n import t
from lab_ui.layout import layout_dict

HIDDEN, SINK, RECENT = 0, 1, 2  # the mask's cells: hidden, kept because it is a sink, in the window
CELL_COLOURS = [[0.0, "#f0f0f0"], [0.33, "#f0f0f0"], [0.34, QUALITATIVE[1]], [0.66, QUALITATIVE[1]]]
CELL_COLOURS += [[0.67, QUALITATIVE[0]], [1.0, QUALITATIVE[0]]]
MAX_POINTS = 256  # points per cost curve: the shape, not 32,768 markers for plotly.js to draw


def window_cells(T: int, window: int, n_sink: int) -> np.ndarray:
    """Each (query, key) cell as HIDDEN, SINK or RECENT.  -> int [T, T]"""
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]  # [T, 1], [1, T]
    recent = (j <= i) & (j > i - window)  # [T, T]
    sink = (j <= i) & (j < n_sink) & ~recent  # [T, T]
    return np.where(recent, RECENT, np.where(sink, SINK, HIDDEN))  # [T, T]


def mask_map(reach: WindowReach, lang: str) -> go.Figure:
    """The sliding-window mask: blue the window (the query itself included), orange the sinks kept
    beyond it, grey what the query cannot see."""
    T = reach.reach.shape[0]
    cells = window_cells(T, reach.window, reach.n_sink)  # [T, T]
    ticks, text = token_ticks([str(k + 1) for k in range(T)])
    words = {HIDDEN: t("windows.cell_hidden", lang), SINK: t("windows.cell_sink", lang)}
    words[RECENT] = t("windows.cell_recent", lang)
    hover = np.vectorize(words.get)(cells)  # [T, T]
    data = [
        go.Heatmap(
            z=cells,
            x=ticks,
            y=ticks,
            zmin=0,
            zmax=2,
            colorscale=CELL_COLOURS,
            showscale=False,
            customdata=hover,
            hovertemplate=(
                f"{t('windows.query', lang)} %{{y}} · {t('windows.key', lang)} %{{x}}: %{{customdata}}<extra></extra>"
            ),
        )
    ]
    # the legend, as three empty traces: a heatmap of categories has no colour bar to read
    for value, colour in ((RECENT, QUALITATIVE[0]), (SINK, QUALITATIVE[1]), (HIDDEN, "#d0d0d0")):
        data.append(
            go.Scatter(x=[None], y=[None], mode="markers", name=words[value], marker=dict(color=colour, size=12))
        )
    step = -(-T // 12)  # at most 12 numbers along an axis: side by side, 10 11 12 ... ran together
    axis = dict(tickmode="array", tickvals=ticks[::step], ticktext=text[::step], showgrid=False, zeroline=False)
    layout = layout_dict(
        title=t("windows.mask_title", lang, w=reach.window, s=reach.n_sink),
        height=440,
        xaxis=dict(axis, title=dict(text=t("windows.key", lang)), tickangle=0, constrain="domain"),
        yaxis=dict(
            axis, title=dict(text=t("windows.query", lang)), autorange="reversed", scaleanchor="x", constrain="domain"
        ),
        legend=dict(orientation="h", y=-0.2, x=0),
    )
    return go.Figure(data=data, layout=layout)


def mask_alt(reach: WindowReach, lang: str) -> str:
    return t("windows.mask_alt", lang, T=reach.reach.shape[0], w=reach.window, s=reach.n_sink)


def reach_table(reach: WindowReach, visible: np.ndarray, lang: str) -> pd.DataFrame:
    T = reach.reach.shape[0]
    return pd.DataFrame(
        {
            t("windows.col_visible", lang): visible,
            t("windows.col_span", lang, L=reach.n_layers): reach.span,
            t("windows.col_furthest", lang, L=reach.n_layers): reach.furthest,
        },
        index=pd.Index(range(1, T + 1), name=t("windows.query", lang)),
    )


def cost_curves(curve: WindowCostCurve, lang: str) -> go.Figure:
    """Scores computed (left axis) for the whole text, full causal attention against the window, and
    the keys the cache holds for the newest token (right axis)."""
    every = max(1, len(curve.T) // MAX_POINTS)
    T = curve.T[::every]
    lines = (
        (t("windows.cost_causal", lang), curve.causal_entries[::every], QUALITATIVE[5], "y", "solid"),
        (t("windows.cost_window", lang), curve.window_entries[::every], QUALITATIVE[0], "y", "solid"),
        (t("windows.cache_causal", lang), curve.causal_cache_tokens[::every], QUALITATIVE[5], "y2", "dot"),
        (t("windows.cache_window", lang), curve.window_cache_tokens[::every], QUALITATIVE[0], "y2", "dot"),
    )
    data = [
        go.Scatter(
            x=T,
            y=values,
            name=name,
            yaxis=axis,
            mode="lines",
            line=dict(color=colour, width=2.5, dash=dash),
            hovertemplate=f"{name}: %{{y:,}}<extra>T = %{{x:,}}</extra>",
        )
        for name, values, colour, axis, dash in lines
    ]
    layout = layout_dict(
        title=t("windows.cost_title", lang, w=curve.window, s=curve.n_sink),
        height=400,
        xaxis=dict(title=dict(text=t("windows.T_axis", lang)), tickangle=0),
        yaxis=dict(title=dict(text=t("windows.entries_axis", lang)), exponentformat="SI"),
        yaxis2=dict(title=dict(text=t("windows.cache_axis", lang)), overlaying="y", side="right", showgrid=False),
        legend=dict(orientation="h", y=-0.25, x=0),
    )
    return go.Figure(data=data, layout=layout)


def slots_table(slots: CacheSlots, lang: str) -> pd.DataFrame:
    """The rolling cache after each token: which token (1-based) sits in each slot; "–" empty."""
    names = [t("windows.slot_sink", lang, n=k + 1) for k in range(slots.n_sink)]
    names += [t("windows.slot", lang, n=k + 1) for k in range(slots.window)]
    held = np.where(slots.slots >= 0, slots.slots + 1, -1)  # [T, slots], 1-based tokens
    table = pd.DataFrame(
        [[str(v) if v > 0 else "–" for v in row] for row in held],
        columns=names,
        index=pd.Index(range(1, len(held) + 1), name=t("windows.after_token", lang)),
    )
    table.insert(0, t("windows.col_evicted", lang), [str(e + 1) if e >= 0 else "–" for e in slots.evicted])
    return table


def loss_curves(ex: SinkExperiment, lang: str) -> go.Figure:
    """How much worse than full attention each mask predicts the next character, position by position
    (the same passages, so the difference is not the passages' noise); zero before the window's edge,
    where the masks are the same, and zero everywhere a mask costs nothing."""
    t_axis = np.arange(1, ex.T)  # predicting character t + 1 from the first t
    lines = [(t("windows.loss_window", lang, w=ex.window), ex.gap_window, QUALITATIVE[5], "solid")]
    if ex.n_sink:
        lines.append((t("windows.loss_sinks", lang, w=ex.window, s=ex.n_sink), ex.gap_sinks, QUALITATIVE[0], "dot"))
    data = [
        go.Scatter(
            x=t_axis,
            y=np.asarray(values, dtype=np.float32),
            name=name,
            mode="lines",
            line=dict(color=colour, width=2, dash=dash),
            hovertemplate=f"{name}: %{{y:+.3f}}<extra>t = %{{x}}</extra>",
        )
        for name, values, colour, dash in lines
    ]
    edge = dict(type="line", x0=ex.window, x1=ex.window, y0=0, y1=1, yref="paper")
    layout = layout_dict(
        title=t("windows.loss_title", lang),
        height=400,
        xaxis=dict(title=dict(text=t("windows.position_axis", lang)), tickangle=0),
        yaxis=dict(title=dict(text=t("windows.loss_axis", lang)), zeroline=True, zerolinewidth=2),
        legend=dict(orientation="h", y=-0.25, x=0),
        shapes=[edge | dict(line=dict(color="rgba(0,0,0,0.4)", dash="dash", width=1))],
    )
    return go.Figure(data=data, layout=layout)


def loss_table(ex: SinkExperiment, lang: str) -> pd.DataFrame:
    columns = {
        t("windows.loss_full", lang): ex.loss_full,
        t("windows.loss_window", lang, w=ex.window): ex.loss_window,
    }
    if ex.n_sink:
        columns[t("windows.loss_sinks", lang, w=ex.window, s=ex.n_sink)] = ex.loss_sinks
    return pd.DataFrame(columns, index=pd.Index(range(1, ex.T), name=t("windows.position_axis", lang)))
