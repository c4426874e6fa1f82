"""Figures of the multi-head page: arrays in, go.Figure out, no Streamlit calls.

Each head keeps one Okabe-Ito colour in every figure (the split of Q, K, V, the maps, the joined
outputs, the bars), so "head 2" is the same orange everywhere. Matrices are drawn as heatmaps on
numeric axes with token tick labels (figures.common), one shared colour scale per figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures.common import (
    DIVERGING,
    FONT_FAMILY,
    QUALITATIVE,
    SEQUENTIAL,
    heatmap,
    safe_label,
)

DIVERGING_WARM = DIVERGING + "_r"  # positive values red, negative blue, zero white
MAX_TEXT_CELLS = 160  # print values in the cells only when a part has at most this many


def head_colour(i: int) -> str:
    """Head i's colour (0-based); after eight heads the colours repeat, the labels do not."""
    return QUALITATIVE[i % len(QUALITATIVE)]


def _ink(colour: str) -> str:
    """Black or white, whichever reads better on `colour` (WCAG relative luminance)."""
    r, g, b = (int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5))
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "#000000" if luminance > 0.179 else "#FFFFFF"


def head_tag(i: int, text: str) -> dict:
    """Annotation style for a head's name: its colour as the background, so yellow stays legible."""
    return dict(text=f"<b>{text}</b>", bgcolor=head_colour(i), font=dict(color=_ink(head_colour(i))),
                borderpad=2, showarrow=False)  # fmt: skip


def robust_max(z: np.ndarray) -> float:
    """The colour scale's end: the 99th percentile of |z|, so one outlier (real models have a few
    huge activations) does not wash every other cell out to white. Hover still shows the exact value."""
    finite = np.abs(z[np.isfinite(z)])
    return float(np.percentile(finite, 99)) if finite.size else 1.0


# --- stacked matrices: one matrix cut into head blocks, or head blocks joined ---------------------


@dataclass(frozen=True)
class _Part:
    """One matrix of a stacked figure on its own pair of axes, drawn as one heatmap per block.
    One trace per head keeps the hover text per trace (which head, which column) instead of one
    string per cell, which would be megabytes at d_model = 512."""

    blocks: list[tuple[np.ndarray, np.ndarray, str]]  # (z [T, n], x of its columns [n], hover line)
    width: int  # cells across this part's x axis, gaps included
    title: str
    coloraxis: str
    boxes: list[tuple[float, float, int]] = field(default_factory=list)  # (x0, x1, head) outlines
    named: bool = False  # write each head's name under its box


def _whole(z: np.ndarray, n_heads: int, title: str, coloraxis: str, column: str, head: str | None) -> _Part:
    """A [T, d_model] matrix; with `head` (e.g. "head {i}") cut into outlined head blocks."""
    z = np.asarray(z, dtype=np.float32)  # [T, d_model]
    d_model = z.shape[1]
    if head is None:
        return _Part([(z, np.arange(d_model), f"{column} %{{x}}")], d_model, title, coloraxis)
    d_head = d_model // n_heads
    cols = [np.arange(i * d_head, (i + 1) * d_head) for i in range(n_heads)]  # h x [d_head]
    blocks = [(z[:, c], c, f"{column} %{{x}} · {head.format(i=i + 1)}") for i, c in enumerate(cols)]
    boxes = [(c[0] - 0.5, c[-1] + 0.5, i) for i, c in enumerate(cols)]
    return _Part(blocks, d_model, title, coloraxis, boxes)


def _apart(blocks: np.ndarray, title: str, coloraxis: str, head: str) -> _Part:
    """[h, T, d_head] blocks side by side with a gap between heads, each named under its box."""
    h, _, d_head = blocks.shape
    gap = max(1, d_head // 4)
    xs = [i * (d_head + gap) + np.arange(d_head) for i in range(h)]  # h x [d_head]
    parts = [(np.asarray(blocks[i], dtype=np.float32), xs[i], head.format(i=i + 1)) for i in range(h)]
    boxes = [(x[0] - 0.5, x[-1] + 0.5, i) for i, x in enumerate(xs)]
    return _Part(parts, h * d_head + (h - 1) * gap, title, coloraxis, boxes, named=True)


def _stack(parts: list[_Part], tokens: Sequence[str], labels: dict, scales: dict[str, float]) -> go.Figure:
    """Draw the parts one under another, each on its own axes spanning the full width, rows
    labelled with the tokens. Traces, shapes and annotations are collected as plain dicts and
    validated once, when the figure is made: adding them one by one re-runs Plotly's layout
    machinery each time."""
    T = len(tokens)
    n = len(parts)
    cell_h = float(np.clip(300 / max(T, 1), 9, 30))  # px per token row
    part_h, gap_h = T * cell_h, 62.0  # gap: room for the head names and the next part's title
    plot_h = n * part_h + (n - 1) * gap_h
    tick_text = [safe_label(tok) for tok in tokens]
    rows = [f"{p}: {tok}" for p, tok in enumerate(tick_text)]  # unique categories: repeated tokens stay apart
    every = int(np.ceil(15 / cell_h))  # label every row while they fit, else every 2nd, 3rd, ...
    show_text = all(sum(z.size for z, _, _ in p.blocks) <= MAX_TEXT_CELLS for p in parts)
    domains = [(max(0.0, top - part_h / plot_h), top) for top in (1 - k * (part_h + gap_h) / plot_h for k in range(n))]
    traces, shapes, notes = [], [], []
    layout: dict = {
        "font": dict(family=FONT_FAMILY), "hoverlabel": dict(font=dict(family=FONT_FAMILY)),
        "margin": dict(l=10, r=10, t=60, b=34), "height": int(plot_h + 60 + 34),
    }  # fmt: skip
    for k, p in enumerate(parts):
        xa, ya, (bottom, top) = f"x{k + 1}" if k else "x", f"y{k + 1}" if k else "y", domains[k]
        layout[xa.replace("x", "xaxis")] = dict(
            anchor=ya, domain=[0, 1], range=[-0.5, p.width - 0.5], showticklabels=False, ticks="", showgrid=False,
            zeroline=False,
        )  # fmt: skip
        layout[ya.replace("y", "yaxis")] = dict(
            anchor=xa, domain=[bottom, top], type="category", categoryorder="array", categoryarray=rows,
            autorange="reversed", tickmode="array", tickvals=rows[::every], ticktext=tick_text[::every],
            showgrid=False, zeroline=False,
        )  # fmt: skip
        for z, x, hover in p.blocks:
            traces.append(dict(
                type="heatmap", z=z, x=x, y=rows, xaxis=xa, yaxis=ya, coloraxis=p.coloraxis, name=p.title,
                hovertemplate=f"{labels['token']}: %{{y}}<br>{hover}<br>{labels['value']}: %{{z:.4f}}<extra></extra>",
                xgap=1 if p.width <= 120 else 0, ygap=1 if cell_h >= 8 else 0,  # a gap wider than a cell hides it
                texttemplate="%{z:.2f}" if show_text else None,
            ))  # fmt: skip
        notes.append(dict(text=f"<b>{p.title}</b>", x=0, xref="paper", y=top, yref="paper", yshift=4,
                          xanchor="left", yanchor="bottom", showarrow=False))  # fmt: skip
        for x0, x1, i in p.boxes:
            shapes.append(dict(type="rect", x0=x0, x1=x1, y0=-0.5, y1=T - 0.5, xref=xa, yref=ya,
                               line=dict(color=head_colour(i), width=3), fillcolor="rgba(0,0,0,0)"))  # fmt: skip
            if p.named:
                name = labels["head"].format(i=i + 1) if len(p.boxes) <= 8 else str(i + 1)  # many heads: numbers
                notes.append(dict(x=(x0 + x1) / 2, y=T - 0.5, xref=xa, yref=ya, yanchor="top", yshift=-3,
                                  **head_tag(i, name)))  # fmt: skip
    for name in dict.fromkeys(p.coloraxis for p in parts):
        ks = [k for k, p in enumerate(parts) if p.coloraxis == name]
        top, bottom = domains[ks[0]][1], domains[ks[-1]][0]
        m = max(scales[name], 1e-12)
        layout[name] = dict(
            colorscale=DIVERGING_WARM, cmin=-m, cmax=m,
            colorbar=dict(title=dict(text=labels["value"], side="right"), thickness=14,
                          len=top - bottom, y=(top + bottom) / 2, yanchor="middle"),
        )  # fmt: skip
    return go.Figure(data=traces, layout=dict(layout, shapes=shapes, annotations=notes))


def split_figure(
    whole: np.ndarray,
    blocks: np.ndarray,
    tokens: Sequence[str],
    *,
    whole_title: str,
    split_title: str,
    labels: dict,
) -> go.Figure:
    """A matrix [T, d_model] on top, its head blocks [h, T, d_head] pulled apart below, each block
    outlined in its head's colour. Traces: the h blocks of the matrix, then the h blocks apart.
    labels: token, value, column (the word for a column), head ("head {i}")."""
    h = blocks.shape[0]
    parts = [
        _whole(whole, h, whole_title, "coloraxis", labels["column"], labels["head"]),
        _apart(blocks, split_title, "coloraxis", labels["head"]),
    ]
    return _stack(parts, tokens, labels, {"coloraxis": robust_max(whole)})


def concat_figure(
    heads: np.ndarray,
    concat: np.ndarray,
    output: np.ndarray,
    tokens: Sequence[str],
    *,
    heads_title: str,
    concat_title: str,
    output_title: str,
    labels: dict,
) -> go.Figure:
    """The heads' outputs [h, T, d_head] apart, then joined into [T, d_model] (same colours),
    then the result of × W_o [T, d_model] on its own colour scale: W_o mixes every head into
    every column, so the head outlines end there. Traces: h heads, h joined blocks, the output.
    labels: as split_figure, plus out_column."""
    h = heads.shape[0]
    parts = [
        _apart(heads, heads_title, "coloraxis", labels["head"]),
        _whole(concat, h, concat_title, "coloraxis", labels["column"], labels["head"]),
        _whole(output, h, output_title, "coloraxis2", labels["out_column"], None),
    ]
    scales = {"coloraxis": robust_max(concat), "coloraxis2": robust_max(output)}
    return _stack(parts, tokens, labels, scales)


# --- each head's attention map, side by side --------------------------------------------------


def maps_layout(n_heads: int, T: int, cols: int = 4) -> tuple[int, int, int, int, float]:
    """Grid of the small multiples: (cols, rows, gap, gap_y, px per cell at a ~720 px wide plot)."""
    cols = max(1, min(n_heads, cols))
    rows = -(-n_heads // cols)
    gap = max(1, round(T / 5))
    cell = float(np.clip(720 / (cols * T + (cols - 1) * gap), 6, 46))
    gap_y = max(gap, int(np.ceil(30 / cell)))  # room for the head's name above each map
    return cols, rows, gap, gap_y, cell


def maps_have_labels(n_heads: int, T: int) -> bool:
    """Are the cells of head_maps large enough to print the tokens beside them?"""
    return maps_layout(n_heads, T)[-1] >= 14


def head_maps(
    weights: np.ndarray,
    tokens: Sequence[str],
    *,
    head_names: Sequence[str],
    query_title: str,
    key_title: str,
    value_name: str,
) -> go.Figure:
    """Small multiples of weights [h, T, T], one trace per head on one shared colour scale 0..1,
    so the same colour means the same weight in every head. Token labels are printed only when
    the cells are large enough to hold them; hover always names the query and the key."""
    h, T, _ = weights.shape
    cols, rows, gap, gap_y, cell = maps_layout(h, T)
    labelled = maps_have_labels(h, T)
    text = [safe_label(s) for s in tokens]
    token_grid = np.array(text, dtype=object)
    custom = np.stack(np.broadcast_arrays(token_grid[:, None], token_grid[None, :]), axis=-1)  # [T, T, 2]
    show_values = T <= 6 and h <= 4
    gaps = 1 if cell >= 8 else 0  # white lines between cells, while they leave the cells visible
    traces, shapes, notes = [], [], []
    x_vals, x_text, y_vals, y_text = [], [], [], []
    for i in range(h):
        r, c = divmod(i, cols)
        x0, y0 = c * (T + gap), r * (T + gap_y)
        traces.append(dict(
            type="heatmap", z=np.asarray(weights[i], dtype=np.float32), x=x0 + np.arange(T), y=y0 + np.arange(T),
            coloraxis="coloraxis", name=head_names[i], customdata=custom, xgap=gaps, ygap=gaps,
            texttemplate="%{z:.2f}" if show_values else None,
            hovertemplate=(f"{head_names[i]}<br>{query_title}: %{{customdata[0]}}<br>{key_title}: "
                           f"%{{customdata[1]}}<br>{value_name}: %{{z:.4f}}<extra></extra>"),
        ))  # fmt: skip
        shapes.append(dict(type="rect", x0=x0 - 0.5, x1=x0 + T - 0.5, y0=y0 - 0.5, y1=y0 + T - 0.5,
                           line=dict(color=head_colour(i), width=3), fillcolor="rgba(0,0,0,0)"))  # fmt: skip
        notes.append(dict(x=x0 - 0.5, y=y0 - 0.5, xanchor="left", yanchor="bottom", yshift=3,
                          **head_tag(i, head_names[i])))  # fmt: skip
        if r == 0:
            x_vals += list(x0 + np.arange(T))
            x_text += text
        if c == 0:
            y_vals += list(y0 + np.arange(T))
            y_text += text
    height = rows * (T + gap_y) * cell + (110 if labelled else 60)
    layout = dict(
        xaxis=dict(tickmode="array", tickvals=x_vals, ticktext=x_text, showticklabels=labelled, side="bottom",
                   title=dict(text=key_title), showgrid=False, zeroline=False,
                   range=[-0.5, cols * (T + gap) - gap - 0.5]),
        yaxis=dict(tickmode="array", tickvals=y_vals, ticktext=y_text, showticklabels=labelled,
                   title=dict(text=query_title), showgrid=False, zeroline=False,
                   range=[rows * (T + gap_y) - gap_y - 0.5, -0.5 - gap_y]),
        coloraxis=dict(colorscale=SEQUENTIAL, cmin=0, cmax=1,
                       colorbar=dict(title=dict(text=value_name, side="right"), thickness=14)),
        font=dict(family=FONT_FAMILY), hoverlabel=dict(font=dict(family=FONT_FAMILY)),
        margin=dict(l=10, r=10, t=20, b=10), height=int(np.clip(height, 240, 1300)),
        shapes=shapes, annotations=notes,
    )  # fmt: skip
    return go.Figure(data=traces, layout=layout)


def head_detail(weights: np.ndarray, tokens: Sequence[str], i: int, *, head_name: str, query_title: str,
                key_title: str, value_name: str) -> go.Figure:  # fmt: skip
    """One head's map, large, with every token labelled: the close-up of the small multiples."""
    T = len(tokens)
    title = f"<span style='color:{head_colour(i)}'>■</span> {head_name}"  # the head's colour as a swatch
    return heatmap(weights, tokens, tokens, x_title=key_title, y_title=query_title, value_name=value_name,
                   title=title, zmin=0.0, zmax=1.0, height=int(np.clip(24 * T + 170, 300, 1000)))  # fmt: skip


# --- do the heads differ? ---------------------------------------------------------------------


def entropy_bars(
    entropy: np.ndarray, head_names: Sequence[str], *, uniform: float, uniform_label: str, x_title: str, y_title: str
) -> go.Figure:
    """Each head's mean entropy in bits, one bar in each head's colour, and a dashed line at
    log2(T): a head spread evenly over every token would reach it."""
    values = np.asarray(entropy, dtype=np.float32)  # [h]
    ticks = list(range(len(head_names)))
    top = max(uniform, float(np.max(values, initial=0.0))) * 1.15 + 1e-9
    return go.Figure(
        data=[dict(
            type="bar", x=ticks, y=values, marker=dict(color=[head_colour(i) for i in ticks]),
            text=[f"{v:.2f}" for v in values], textposition="auto", customdata=list(head_names),
            hovertemplate=f"{x_title}: %{{customdata}}<br>{y_title}: %{{y:.4f}}<extra></extra>",
        )],
        layout=dict(
            xaxis=dict(title=dict(text=x_title), tickmode="array", tickvals=ticks, ticktext=list(head_names)),
            yaxis=dict(title=dict(text=y_title), range=[0, top]),
            shapes=[dict(type="line", xref="paper", x0=0, x1=1, y0=uniform, y1=uniform,
                         line=dict(dash="dash", color="#555555", width=2))],
            annotations=[dict(text=uniform_label, xref="paper", x=0, y=uniform, xanchor="left", yanchor="bottom",
                              showarrow=False)],
            font=dict(family=FONT_FAMILY), hoverlabel=dict(font=dict(family=FONT_FAMILY)),
            margin=dict(l=10, r=10, t=20, b=10), height=400,
        ),
    )  # fmt: skip


def overlap_heatmap(overlap: np.ndarray, head_names: Sequence[str], *, title: str, value_name: str) -> go.Figure:
    """Pairwise overlap of the heads' maps, 0 (they look at different tokens) to 1 (identical),
    values printed in the cells while there are few enough heads to read them."""
    z = np.asarray(overlap, dtype=np.float32)  # [h, h]
    ticks = list(range(len(head_names)))
    names = np.array(head_names, dtype=object)
    custom = np.stack(np.broadcast_arrays(names[:, None], names[None, :]), axis=-1)  # [h, h, 2]
    axis = dict(title=dict(text=title), tickmode="array", tickvals=ticks, ticktext=list(head_names),
                showgrid=False, zeroline=False)  # fmt: skip
    return go.Figure(
        data=[dict(
            type="heatmap", z=z, x=ticks, y=ticks, zmin=0.0, zmax=1.0, colorscale=SEQUENTIAL, xgap=1, ygap=1,
            customdata=custom, texttemplate="%{z:.2f}" if len(ticks) <= 8 else None,
            hovertemplate=(f"{title} %{{customdata[0]}} · {title} %{{customdata[1]}}<br>{value_name}: "
                           "%{z:.4f}<extra></extra>"),
            colorbar=dict(title=dict(text=value_name, side="right"), thickness=14),
        )],
        layout=dict(
            xaxis=dict(axis, side="top", constrain="domain"), yaxis=dict(axis, autorange="reversed", scaleanchor="x"),
            font=dict(family=FONT_FAMILY), hoverlabel=dict(font=dict(family=FONT_FAMILY)),
            margin=dict(l=10, r=10, t=20, b=10), height=400,
        ),
    )  # fmt: skip
