"""Building blocks every page's figures share: arrays in, go.Figure out, no Streamlit calls.

Conventions: every axis labelled with tokens or indices, hover shows the exact value,
colour-blind-safe scales (Viridis / Cividis sequential, RdBu diverging), a font family that
renders Chinese. graph_objects only: plotly.express costs ~50 ms per figure on a rerun.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab_ui.layout import layout_dict

SEQUENTIAL = "Viridis"
SEQUENTIAL_ALT = "Cividis"
DIVERGING = "RdBu"  # Plotly's RdBu runs red (low) to blue (high); add "_r" for positive = red
# Every page's signed numbers (vectors, outputs) in one convention: positive red, negative blue, zero white.
DIVERGING_WARM = DIVERGING + "_r"
# Okabe-Ito: eight colours told apart by every common kind of colour blindness.
QUALITATIVE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
MASKED_COLOUR = "rgba(128,128,128,0.35)"
MAX_LABEL_CHARS = 14
RULE_COLOUR = "white"  # the lines row_rules draws between a heatmap's rows


def row_rules(n_rows: int, *, first: float = 0, xref: str = "x", yref: str = "y", width: float = 2) -> dict:
    """One path shape: a line between each two of a heatmap's n_rows rows (rows centred on first,
    first + 1, ...), across the whole plot, where each row is a vector of its own (a word's, a
    position's). Heatmaps here draw no gaps between cells (xgap/ygap): with a gap Plotly paints
    every cell into a canvas the plot's size and encodes it as a PNG; without, it draws one pixel a
    cell and lets the browser scale the image (multi_head's split figure drawn alone in Chromium:
    103 -> 61 ms; its Layer step 374 -> 297 ms, bench.browser_latency --against the gaps). One path
    is one SVG element, whatever the number of rows."""
    path = " ".join(f"M0,{first + i + 0.5} L1,{first + i + 0.5}" for i in range(n_rows - 1))
    line = dict(color=RULE_COLOUR, width=width)
    return dict(
        type="path", path=path or "M0,0", visible=n_rows > 1, xref=f"{xref} domain", yref=yref, line=line, layer="above"
    )


def safe_label(text: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """A token as Plotly may show it: HTML escaped (Plotly renders <b>, <br>, <a> in text, and a
    student's "<b>" must read as text), shortened with … when long, blanks made visible."""
    text = str(text)
    if not text.strip():
        text = "␣"
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return html.escape(text, quote=False)


def token_ticks(labels: Sequence[str]) -> tuple[list[int], list[str]]:
    """Tick positions and texts for tokens on a numeric axis. A categorical axis would merge the
    two "saw"s of "I saw a saw" into one column; numbers keep every position."""
    return list(range(len(labels))), [safe_label(s) for s in labels]


def bytes_text(n_bytes: int) -> str:
    """A memory size in decimal units, as every page writes one: 46.9 MB (10^6 bytes), 732.5 kB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,} B"


def heatmap(
    z: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    x_title: str,
    y_title: str,
    value_name: str,
    title: str | None = None,
    colorscale: str = SEQUENTIAL,
    zmin: float | None = None,
    zmax: float | None = None,
    zmid: float | None = None,
    mask: np.ndarray | None = None,
    show_values: bool | None = None,
    value_format: str = ".3f",
    height: int | None = None,
) -> go.Figure:
    """A matrix with token labels on both axes and the exact value on hover.

    mask: bool [rows, cols], True = allowed; disallowed cells are drawn grey with a ×, not as a
    plain zero, so "masked" and "tiny weight" look different.
    show_values: print each value in its cell (default: when the matrix is small enough to read).
    """
    z = np.asarray(z, dtype=np.float32)  # [rows, cols]; float32 halves the JSON sent to the browser
    rows, cols = z.shape
    x_ticks, x_text = token_ticks(x_labels)
    y_ticks, y_text = token_ticks(y_labels)
    if show_values is None:
        show_values = rows * cols <= 144
    # Hover names each cell by token and 1-based position, as the pages count (token 1, 2, ...).
    hover_x = np.broadcast_to(np.array([f"{s} ({j + 1})" for j, s in enumerate(x_text)], dtype=object), (rows, cols))
    hover_y = np.broadcast_to(
        np.array([f"{s} ({i + 1})" for i, s in enumerate(y_text)], dtype=object)[:, None], (rows, cols)
    )
    # No gaps between cells (row_rules says why): the colours tell the cells apart, the numbers in them when small.
    shown = z if mask is None else np.where(mask, z, np.nan)  # masked cells left empty here, grey below
    data = [
        go.Heatmap(
            z=shown,
            x=x_ticks,
            y=y_ticks,
            customdata=np.stack([hover_y, hover_x], axis=-1),
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            zmid=zmid,
            texttemplate=f"%{{z:{value_format}}}" if show_values else None,
            hovertemplate=(
                f"{y_title}: %{{customdata[0]}}<br>{x_title}: %{{customdata[1]}}"
                f"<br>{value_name}: %{{z:.6f}}<extra></extra>"
            ),
            colorbar=dict(title=dict(text=value_name, side="right"), thickness=14),
        )
    ]
    if mask is not None and not np.all(mask):
        # Masked cells: a grey layer of their own with a × in each, so "not allowed" never reads
        # as "a tiny weight"; past 32 rows or columns the crosses would be noise, grey alone marks them.
        blocked = ~np.asarray(mask, dtype=bool)  # [rows, cols]
        grey = np.where(blocked, 1.0, np.nan)  # [rows, cols]
        data.append(
            go.Heatmap(
                z=grey,
                x=x_ticks,
                y=y_ticks,
                colorscale=[[0, MASKED_COLOUR], [1, MASKED_COLOUR]],
                showscale=False,
                hoverinfo="skip",
            )
        )
        if max(rows, cols) <= 32:
            r, c = np.nonzero(blocked)
            marker = dict(
                symbol="x-thin",
                size=max(6, min(18, 240 // max(rows, cols))),
                line=dict(width=2, color="rgba(110,110,110,0.9)"),
            )
            data.append(go.Scatter(x=c, y=r, mode="markers", marker=marker, hoverinfo="skip", showlegend=False))
    layout = layout_dict(
        title=title,
        height=height,
        # Keys along the top, as a matrix is read; along the bottom when a title takes the top.
        xaxis=dict(
            title=x_title,
            tickmode="array",
            tickvals=x_ticks,
            ticktext=x_text,
            side="bottom" if title else "top",
            showgrid=False,
            zeroline=False,
            constrain="domain",
        ),
        # A square map whose width limits it (a phone) shrinks its y domain toward the top, so the
        # key labels stay at the map, not at the bottom of a plot of empty rows under it.
        yaxis=dict(
            title=y_title,
            tickmode="array",
            tickvals=y_ticks,
            ticktext=y_text,
            autorange="reversed",
            showgrid=False,
            zeroline=False,
            scaleanchor="x" if rows == cols else None,
            constrain="domain" if rows == cols else None,
            constraintoward="top" if rows == cols else None,
        ),
    )
    return go.Figure(data=data, layout=layout)


def bars(
    values: np.ndarray,
    labels: Sequence[str],
    *,
    x_title: str,
    y_title: str,
    title: str | None = None,
    value_format: str = ".3f",
    colour: str = QUALITATIVE[0],
    height: int | None = 320,
) -> go.Figure:
    """One bar per token, the exact value printed on the bar and on hover."""
    values = np.asarray(values, dtype=np.float32)  # [n]
    ticks, text = token_ticks(labels)
    bar = go.Bar(
        x=ticks,
        y=values,
        marker_color=colour,
        text=[format(v, value_format) for v in values],
        textposition="auto",
        customdata=text,
        hovertemplate=f"{x_title}: %{{customdata}}<br>{y_title}: %{{y:.6f}}<extra></extra>",
    )
    layout = layout_dict(
        title=title,
        height=height,
        xaxis=dict(title=x_title, tickmode="array", tickvals=ticks, ticktext=text),
        yaxis=dict(title=y_title),
    )
    return go.Figure(data=[bar], layout=layout)
