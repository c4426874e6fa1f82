"""Figures of the attention-heatmaps page: arrays in, go.Figure out, no Streamlit calls.

Positions are shown counting from 1 (token 1 is the first, like the articles' a1 ... a4), in the
hover text as well as in the page's words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures.common import DIVERGING, MASKED_COLOUR, bars, heatmap, safe_label

# Numbers in cells: a desktop's figure column leaves about 24 px per cell for 12 tokens, enough for
# "0.80" at 10 px, and a projector (lecture mode: the full width, 20 px text) about 70. A 390 px
# phone leaves 24 px only up to 8 tokens: past that the page hides the numbers there
# (lab_ui.widgets.hide_cell_numbers_on_phones), and hover and the numbers table give them.
CELL_TEXT_MAX_TOKENS = 12
CELL_TEXT_PHONE_MAX_TOKENS = 8
# The output chart shares a row with the bars (half the width on a desktop, all of it on a phone):
# "-1.29" at 10 px needs about 30 px, which 6 components leave.
CELL_TEXT_MAX_COMPONENTS = 6
CELL_TEXT_MAX_ROWS = 24  # rows below ~25 px: the text would touch the next row's


def cell_font_size(n: int) -> int:
    """Cell text size for n cells across: larger while the cells are wide."""
    return 12 if n <= 5 else 10


def _height(rows: int) -> int:
    """Tall enough for readable rows, short enough to fit a 720 px projector screen."""
    return int(np.clip(200 + 30 * rows, 360, 700))


def _without_template(fig: go.Figure) -> go.Figure:
    """Drop the Plotly template (Streamlit's, set as the default): the browser applies the
    Streamlit theme itself, so the picture is the same, while the template is half of the JSON
    and half of the cost of every rerun's serialisation."""
    fig.layout.template = go.layout.Template()
    return fig


def _drop_crosses_when_crowded(fig: go.Figure, rows: int, cols: int, limit: int = 32) -> None:
    """Past `limit` rows or columns a × in every masked cell turns the grey into noise; grey alone
    then marks them."""
    if max(rows, cols) > limit:
        fig.data = tuple(tr for tr in fig.data if not (tr.type == "scatter" and tr.mode == "markers"))


def _title(fig: go.Figure, subtitle: str | None) -> None:
    """Title and subtitle at the top, with room reserved for both."""
    if fig.layout.title.text:
        fig.update_layout(title=dict(subtitle=dict(text=subtitle), yref="container", y=0.99, yanchor="top",
                                     automargin=True))  # fmt: skip


def _positions(labels: Sequence[str]) -> np.ndarray:
    """'saw (2)': the token with its 1-based position, so repeated tokens stay apart on hover."""
    return np.array([f"{safe_label(s)} ({i + 1})" for i, s in enumerate(labels)], dtype=object)  # [n]


def _one_based_hover(fig: go.Figure, y_text, x_text, y_title: str, x_title: str, value_name: str) -> None:
    """Replace the shared heatmap's hover, which numbers cells from 0, with the given texts."""
    rows, cols = len(y_text), len(x_text)
    hover_y = np.broadcast_to(np.asarray(y_text, dtype=object)[:, None], (rows, cols))  # [rows, cols]
    hover_x = np.broadcast_to(np.asarray(x_text, dtype=object)[None, :], (rows, cols))  # [rows, cols]
    fig.update_traces(
        selector=dict(type="heatmap"),
        customdata=np.stack([hover_y, hover_x], axis=-1),
        hovertemplate=f"{y_title}: %{{customdata[0]}}<br>{x_title}: %{{customdata[1]}}"
        f"<br>{value_name}: %{{z:.6f}}<extra></extra>",
    )


def weights_heatmap(
    weights: np.ndarray,
    tokens: Sequence[str],
    *,
    mask: np.ndarray | None,
    query_title: str,
    key_title: str,
    value_name: str,
    sum_label: str,
    zmax: float | None = 1.0,
    title: str | None = None,
    subtitle: str | None = None,
) -> go.Figure:
    """The T x T weights, queries as rows and keys as columns, masked cells grey with a ×, and
    each row's sum printed in a column of its own on the right (Σ), so "rows sum to 1" (or, with
    ReLU, do not) can be read off the picture.  weights: [T, T], mask: bool [T, T] or None."""
    weights = np.asarray(weights, dtype=np.float32)  # [T, T]
    T = weights.shape[0]
    fig = heatmap(
        weights, tokens, tokens, x_title=key_title, y_title=query_title, value_name=value_name, title=title,
        zmin=0.0, zmax=zmax, mask=mask, value_format=".2f", show_values=T <= CELL_TEXT_MAX_TOKENS, height=_height(T),
    )  # fmt: skip
    _one_based_hover(fig, _positions(tokens), _positions(tokens), query_title, key_title, value_name)
    _drop_crosses_when_crowded(fig, T, T)
    sums = weights.sum(axis=1)  # [T]
    fig.add_trace(
        go.Scatter(
            x=np.full(T, T + 0.5),
            y=np.arange(T),
            mode="text",
            text=[f"{s:.2f}" for s in sums],
            textfont=dict(size=max(8, 300 // T)) if T > 24 else None,  # else the figure's font, larger in lecture mode
            customdata=_positions(tokens),
            hovertemplate=f"{query_title}: %{{customdata}}<br>{sum_label}: %{{text}}<extra></extra>",
            showlegend=False,
            cliponaxis=False,
            name=sum_label,
        )
    )
    step = int(np.ceil(T / 32))  # past 32 tokens label every other one, or the labels overlap
    shown = list(range(0, T, step))
    labels = fig.layout.xaxis.ticktext
    fig.update_xaxes(tickvals=[*shown, T + 0.5], ticktext=[*(labels[j] for j in shown), "Σ"], range=[-0.5, T + 1.2],
                     tickangle=-60 if T > 8 else 0, automargin=True)  # fmt: skip
    fig.update_yaxes(tickvals=shown, ticktext=[labels[j] for j in shown], automargin=True)
    # Keys along the bottom (the title sits on top), no axis titles (the title names rows and
    # columns), a thin colour bar: the width goes to the cells, which may be oblong.
    fig.update_xaxes(side="bottom", title=None)
    fig.update_yaxes(title=None)
    fig.layout.yaxis.scaleanchor = None
    fig.update_traces(selector=dict(type="heatmap"), textfont=dict(size=cell_font_size(T)), colorbar=dict(thickness=10))
    _title(fig, subtitle)
    fig.add_vline(x=T - 0.5, line_width=1, line_color="rgba(120,120,120,0.8)")
    return _without_template(fig)


def row_bars(
    row: np.ndarray,
    tokens: Sequence[str],
    *,
    allowed: np.ndarray | None,
    x_title: str,
    y_title: str,
    masked_text: str,
    title: str | None = None,
) -> go.Figure:
    """One query's weights over the keys as bars; behind a masked key stands a grey band marked
    ×, so "masked" and "weight 0" look different. Values are printed on the bars up to 24 keys.
    row: [T], allowed: bool [T] or None."""
    row = np.asarray(row, dtype=np.float32)  # [T]
    T = len(tokens)
    allowed = np.ones(T, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)  # [T]
    top = max(1.0, float(row.max()) * 1.15)
    fig = bars(row, tokens, x_title=x_title, y_title=y_title, title=title, value_format=".2f", height=360)
    on_bars = [f"{w:.2f}" if a else "" for w, a in zip(row, allowed, strict=True)] if T <= 24 else None
    fig.update_traces(customdata=_positions(tokens), text=on_bars, textposition="outside", cliponaxis=False,
                      name=y_title, showlegend=False)  # fmt: skip
    masked = np.flatnonzero(~allowed)  # [n_masked]
    if masked.size:
        band = go.Bar(
            x=masked, y=np.full(masked.size, top), marker_color=MASKED_COLOUR, text=[masked_text] * masked.size,
            textposition="inside", insidetextanchor="start", textfont=dict(size=14, color="rgb(90,90,90)"),
            hoverinfo="skip", showlegend=False, name=masked_text,
        )  # fmt: skip
        fig.add_trace(band)
        fig.data = (fig.data[1], fig.data[0])  # the band behind the bars
        fig.update_layout(barmode="overlay")
    fig.update_yaxes(rangemode="tozero", range=[0, top])
    fig.update_xaxes(tickangle=-60 if T > 10 else 0)
    return _without_template(fig)


def weighted_sum(
    row: np.ndarray,
    values: np.ndarray,
    tokens: Sequence[str],
    *,
    allowed: np.ndarray | None,
    output_label: str,
    component_title: str,
    term_title: str,
    value_name: str,
    title: str | None = None,
    show_values: bool | None = None,
) -> go.Figure:
    """The output of one query as the sum of its weighted value vectors: one row per key j holding
    alpha'_ij · v_j, then the sum b_i below a line. row: [T], values: [T, d_v], allowed: bool [T]."""
    row = np.asarray(row, dtype=np.float64)  # [T]
    values = np.asarray(values, dtype=np.float64)  # [T, d_v]
    terms = row[:, None] * values  # [T, d_v]: what each key contributes
    z = np.vstack([terms, terms.sum(axis=0)])  # [T + 1, d_v]; last row is the output b_i
    T, d_v = values.shape
    labels = [*tokens, output_label]
    mask = None
    if allowed is not None and not np.all(allowed):
        mask = np.broadcast_to(np.append(allowed, True)[:, None], z.shape)  # [T + 1, d_v]
    limit = float(np.abs(z).max()) or 1.0
    if show_values is None:
        show_values = d_v <= CELL_TEXT_MAX_COMPONENTS and T + 1 <= CELL_TEXT_MAX_ROWS
    fig = heatmap(
        z, [str(c + 1) for c in range(d_v)], labels, x_title=component_title, y_title=term_title,
        value_name=value_name, title=title, colorscale=DIVERGING, zmin=-limit, zmax=limit, zmid=0.0, mask=mask,
        show_values=show_values, value_format=".2f", height=_height(T + 1),
    )  # fmt: skip
    # A fixed size: left unset, Plotly shrinks the text to fit the cell, down to an unreadable 4 px.
    fig.update_traces(selector=dict(type="heatmap"), textfont=dict(size=cell_font_size(d_v)))
    y_text = [*_positions(tokens), safe_label(output_label)]
    _one_based_hover(fig, y_text, [str(c + 1) for c in range(d_v)], term_title, component_title, value_name)
    _drop_crosses_when_crowded(fig, T + 1, d_v, limit=16)
    fig.layout.yaxis.scaleanchor = None
    step = int(np.ceil(d_v / 16))  # at most 16 component numbers, or they run into each other
    fig.update_xaxes(
        side="bottom",
        tickvals=list(range(0, d_v, step)),
        ticktext=[str(c + 1) for c in range(0, d_v, step)],
        automargin=True,
    )
    fig.update_yaxes(automargin=True)
    fig.add_hline(y=T - 0.5, line_width=3, line_color="black")
    return _without_template(fig)
