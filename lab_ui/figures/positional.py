"""Figures for the page "positional encoding": arrays in, go.Figure out, no Streamlit calls.

Position and dimension axes are plain numbers (0, 1, 2, ...), so these heatmaps are built here
rather than with common.heatmap, which labels its axes with tokens. A big table (512 x 512 is
262k cells) is thinned to every s-th row and column before it is drawn: a screen shows no more
than that, and the browser gets a fraction of the bytes. Each figure is built in one go (traces
and a layout dict handed to go.Figure): every separate update_* call costs Plotly a validation
pass. Two panels side by side are laid out by hand with axis domains.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures.common import DIVERGING, QUALITATIVE, base_layout, token_ticks

MAX_DRAWN = 200  # rows or columns a heatmap draws at most; more are thinned (see thinning_step)
BAND_ALPHA = 0.2
PANEL_GAP = 0.08
PANEL_TITLE_ROOM = 48  # px above two side-by-side panels for their titles
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
GREY = "rgba(120,120,120,0.5)"
CLEAR = "rgba(0,0,0,0)"  # band edges: invisible even when lecture mode thickens every line
MARKERS_UP_TO = 128  # positions: beyond this the dots merge into the line


def thinning_step(n: int, limit: int = MAX_DRAWN) -> int:
    """Draw every s-th of n rows so that at most `limit` are drawn.  s = ceil(n / limit)"""
    return max(1, -(-n // limit))


def _diverging(zmax: float) -> dict:
    """RdBu reversed: positive red, negative blue, zero white, symmetric about 0."""
    zmax = float(zmax) if np.isfinite(zmax) and zmax > 0 else 1.0
    return dict(colorscale=DIVERGING, reversescale=True, zmin=-zmax, zmax=zmax, zmid=0)


def _colorbar(value_name: str) -> dict:
    return dict(title=dict(text=value_name, side="right"), thickness=14)


def _panels(titles: Sequence[str], *, x_title: str, y_title: str, square: bool) -> tuple[dict, list[dict]]:
    """Axis layout for len(titles) panels in a row, and a bold title annotation above each."""
    n = len(titles)
    width = (1 - PANEL_GAP * (n - 1)) / n
    layout, notes = {}, []
    for i, name in enumerate(titles):
        suffix = "" if i == 0 else str(i + 1)
        start = i * (width + PANEL_GAP)
        layout[f"xaxis{suffix}"] = dict(domain=[start, start + width], title=dict(text=x_title), anchor=f"y{suffix}",
                                        showgrid=False, zeroline=False)  # fmt: skip
        layout[f"yaxis{suffix}"] = dict(title=dict(text=y_title if i == 0 else None), anchor=f"x{suffix}",
                                        autorange="reversed", showgrid=False, zeroline=False,
                                        scaleanchor=f"x{suffix}" if square else None)  # fmt: skip
        notes.append(dict(text=f"<b>{name}</b>", x=start + width / 2, y=1.0, xref="paper", yref="paper",
                          xanchor="center", yanchor="bottom", showarrow=False))  # fmt: skip
    return layout, notes


def _room_for_panel_titles(fig: go.Figure) -> go.Figure:
    """The panel titles sit above the plots: keep room for them at lecture-mode size too."""
    return fig.update_layout(margin_t=PANEL_TITLE_ROOM)


def _index_heatmap(z: np.ndarray, *, x_title: str, y_title: str, value_name: str, zmax: float, **kwargs) -> go.Heatmap:
    """A [rows, cols] table with index axes, thinned to at most MAX_DRAWN a side; the axes keep the
    true indices, so a thinned figure still reads position 300 at 300."""
    rows, cols = z.shape
    row_step, col_step = thinning_step(rows), thinning_step(cols)
    shown = np.asarray(z, dtype=np.float32)[::row_step, ::col_step]  # [rows drawn, cols drawn]
    return go.Heatmap(
        z=shown, x=np.arange(0, cols, col_step), y=np.arange(0, rows, row_step), **_diverging(zmax),
        colorbar=_colorbar(value_name),
        hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{value_name}: %{{z:.6f}}<extra></extra>",
        texttemplate="%{z:.2f}" if shown.size <= 64 else None, **kwargs,
    )  # fmt: skip


def matrix_heatmap(
    z: np.ndarray,
    *,
    x_title: str,
    y_title: str,
    value_name: str,
    zmax: float | None = None,
    title: str | None = None,
    height: int = 420,
) -> go.Figure:
    """A [rows, cols] table indexed by numbers (positions, dimensions), row 0 on top, blue for
    negative and red for positive; colour limits ±zmax (default: the largest |value|)."""
    z = np.asarray(z)  # [rows, cols]
    if zmax is None:
        zmax = float(np.max(np.abs(z))) if z.size else 1.0
    trace = _index_heatmap(z, x_title=x_title, y_title=y_title, value_name=value_name, zmax=zmax)
    layout = dict(
        # the column axis goes on top like a table's header, unless a title needs that place
        xaxis=dict(title=dict(text=x_title), side="bottom" if title else "top", showgrid=False, zeroline=False),
        yaxis=dict(title=dict(text=y_title), autorange="reversed", showgrid=False, zeroline=False),
    )
    return base_layout(go.Figure(trace, layout), title=title, height=height)


def matrix_pair(
    left: np.ndarray,
    right: np.ndarray,
    *,
    titles: tuple[str, str],
    x_title: str,
    y_title: str,
    value_name: str,
    zmax: float,
    height: int = 440,
) -> go.Figure:
    """Two square [n, n] matrices side by side on one colour scale (e.g. learned vs sinusoidal)."""
    traces = [
        _index_heatmap(np.asarray(z), x_title=x_title, y_title=y_title, value_name=value_name, zmax=zmax,
                       xaxis="x" if i == 0 else "x2", yaxis="y" if i == 0 else "y2", showscale=i == 1)
        for i, z in enumerate((left, right))
    ]  # fmt: skip
    layout, notes = _panels(titles, x_title=x_title, y_title=y_title, square=True)
    return _room_for_panel_titles(base_layout(go.Figure(traces, dict(layout, annotations=notes)), height=height))


def token_matrix_pair(
    left: np.ndarray,
    right: np.ndarray,
    row_labels: Sequence[str],
    *,
    titles: tuple[str, str],
    x_title: str,
    y_title: str,
    value_name: str,
    zmax: float,
) -> go.Figure:
    """Two [T, d] tables whose rows are tokens, side by side on one colour scale: the first
    outputs moved with their words beside the outputs of the shuffled sentence. Rows are
    numbered, so the two "saw"s of "I saw a saw" stay two rows."""
    T, d = np.shape(left)
    ticks, text = token_ticks(row_labels)
    col_step = thinning_step(d)
    cols = np.arange(0, d, col_step)  # [cols drawn]
    hover_rows = np.broadcast_to(np.array(text, dtype=object)[:, None], (T, len(cols)))  # [T, cols drawn]
    traces = [
        go.Heatmap(
            z=np.asarray(z, dtype=np.float32)[:, ::col_step], x=cols, y=ticks, **_diverging(zmax),
            xaxis="x" if i == 0 else "x2", yaxis="y" if i == 0 else "y2", showscale=i == 1, customdata=hover_rows,
            colorbar=_colorbar(value_name), ygap=2,
            hovertemplate=f"{y_title}: %{{customdata}} (%{{y}})<br>{x_title}: %{{x}}<br>{value_name}: %{{z:.6f}}"
            "<extra></extra>",
            texttemplate="%{z:.2f}" if T * len(cols) <= 48 else None,
        )
        for i, z in enumerate((left, right))
    ]  # fmt: skip
    layout, notes = _panels(titles, x_title=x_title, y_title=y_title, square=False)
    layout["yaxis"].update(tickmode="array", tickvals=ticks, ticktext=text)
    layout["yaxis2"].update(matches="y", showticklabels=False)  # the same rows: labelled once, on the left
    fig = base_layout(go.Figure(traces, dict(layout, annotations=notes)), height=max(260, 110 + 24 * T))
    return _room_for_panel_titles(fig)


def curves(
    y: np.ndarray,
    names: Sequence[str],
    *,
    x_title: str,
    y_title: str,
    title: str | None = None,
    height: int = 380,
) -> go.Figure:
    """One line per column of y [n, k] against position 0..n-1, with a dot on each position
    while they are few enough to tell apart (PE exists at whole positions only). Each line has
    its own colour and dash, so the lines stay apart without colour."""
    y = np.asarray(y, dtype=np.float32)  # [n, k]
    n = y.shape[0]
    x = np.arange(n)
    traces = [
        go.Scatter(
            x=x, y=y[:, j], name=name, mode="lines+markers" if n <= MARKERS_UP_TO else "lines", marker_size=5,
            line=dict(color=QUALITATIVE[j % len(QUALITATIVE)], dash=DASHES[j % len(DASHES)], width=2),
            hovertemplate=f"{name}<br>{x_title}: %{{x}}<br>{y_title}: %{{y:.6f}}<extra></extra>",
        )
        for j, name in enumerate(names)
    ]  # fmt: skip
    layout = dict(
        xaxis=dict(title=dict(text=x_title), zeroline=False),
        yaxis=dict(title=dict(text=y_title), range=[-1.1, 1.1]),
        legend=dict(orientation="v", x=1.02, y=1, yanchor="top"),
    )
    return base_layout(go.Figure(traces, layout), title=title, height=height)


def offset_profiles(
    profiles: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]],
    *,
    x_title: str,
    y_title: str,
    band_name: str,
    title: str | None = None,
    height: int = 440,
) -> go.Figure:
    """Similarity against the offset Δ = |p - q|: for each (name, mean, low, high), the mean as a
    line and the range from the lowest to the highest pair as a shaded band. A band of zero
    width says: this similarity depends on the offset alone."""
    traces = []
    for j, (name, mean, low, high) in enumerate(profiles):
        colour = QUALITATIVE[j % len(QUALITATIVE)]
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        x = np.arange(len(mean))
        band = np.stack([low, high], axis=-1).astype(np.float32)  # [n, 2]
        traces += [
            go.Scatter(x=x, y=band[:, 1], mode="lines", line=dict(width=0, color=CLEAR), showlegend=False,
                       hoverinfo="skip", legendgroup=name),
            go.Scatter(x=x, y=band[:, 0], mode="lines", line=dict(width=0, color=CLEAR), fill="tonexty",
                       fillcolor=f"rgba({r},{g},{b},{BAND_ALPHA})", name=f"{name}: {band_name}", hoverinfo="skip",
                       legendgroup=name),
            go.Scatter(x=x, y=np.asarray(mean, dtype=np.float32), mode="lines", name=name, legendgroup=name,
                       line=dict(color=colour, width=2, dash=DASHES[j % len(DASHES)]), customdata=band,
                       hovertemplate=f"{name}<br>{x_title}: %{{x}}<br>{y_title}: %{{y:.6f}}"
                       "<br>[%{customdata[0]:.6f}, %{customdata[1]:.6f}]<extra></extra>"),
        ]  # fmt: skip
    layout = dict(
        xaxis=dict(title=dict(text=x_title), zeroline=False),
        yaxis=dict(title=dict(text=y_title)),
        # below everything, in the figure's own coordinates: Plotly then makes room for it
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
    )
    return base_layout(go.Figure(traces, layout), title=title, height=height)


def rotation_circle(
    points: np.ndarray,
    starts: Sequence[int],
    k: int,
    *,
    x_title: str,
    y_title: str,
    all_name: str,
    arrow_text: str,
    height: int = 460,
) -> go.Figure:
    """Pair i of every position as a point (PE[p, 2i], PE[p, 2i+1]) on the unit circle, and an
    arrow from a few positions p to p + k: every arrow turns through the same angle kω_i.

    points: [n, 2] the pair for p = 0 .. n-1 (n must exceed max(starts) + k); arrow_text holds
    {p} and {q}."""
    points = np.asarray(points, dtype=np.float32)  # [n, 2]
    n = points.shape[0]
    theta = np.linspace(0, 2 * np.pi, 121)
    traces = [
        go.Scatter(x=np.sin(theta).astype(np.float32), y=np.cos(theta).astype(np.float32), mode="lines",
                   line=dict(color=GREY, width=1), hoverinfo="skip", showlegend=False),
        go.Scatter(x=points[:, 0], y=points[:, 1], mode="markers", name=all_name, customdata=np.arange(n),
                   marker=dict(size=5, color=np.arange(n), colorscale="Cividis", showscale=False),
                   hovertemplate="p = %{customdata}<br>(%{x:.4f}, %{y:.4f})<extra></extra>"),
    ]  # fmt: skip
    arrows = []
    for j, p in enumerate(starts):
        colour = QUALITATIVE[(j + 1) % len(QUALITATIVE)]
        a, b = points[p], points[p + k]
        traces.append(  # the two radii: the angle between them is kω_i, the same for every p
            go.Scatter(x=[a[0], 0, b[0]], y=[a[1], 0, b[1]], mode="lines", hoverinfo="skip", showlegend=False,
                       line=dict(color=colour, width=1, dash="dot"))
        )  # fmt: skip
        traces.append(
            go.Scatter(
                x=[a[0], b[0]], y=[a[1], b[1]], mode="markers+text", name=arrow_text.format(p=p, q=p + k),
                text=[f"{p}", f"{p + k}"], textposition="top center", textfont=dict(color=colour),
                marker=dict(size=11, color=colour, symbol=["circle", "diamond"]),
                hovertemplate="(%{x:.4f}, %{y:.4f})<extra></extra>",
            )
        )  # fmt: skip
        arrows.append(dict(x=float(b[0]), y=float(b[1]), ax=float(a[0]), ay=float(a[1]), xref="x", yref="y",
                           axref="x", ayref="y", showarrow=True, arrowhead=3, arrowwidth=2, arrowcolor=colour,
                           text=""))  # fmt: skip
    axis = dict(range=[-1.3, 1.3], zeroline=True, zerolinecolor=GREY, dtick=0.5)
    layout = dict(
        xaxis=dict(axis, title=dict(text=x_title), constrain="domain"),
        yaxis=dict(axis, title=dict(text=y_title), scaleanchor="x"),
        legend=dict(orientation="v", x=1.02, y=1),
        annotations=arrows,
    )
    return base_layout(go.Figure(traces, layout), height=height)
