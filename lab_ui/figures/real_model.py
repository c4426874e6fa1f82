"""Figures of the "inside a real model" page: arrays in, go.Figure out, no Streamlit calls.

The 6 x 12 grid of attention maps is ONE heatmap trace: the 72 maps sit in one matrix with empty
(NaN) gaps between them. Its axes are categorical with one label per row and per column
("layer 3 · query 10: it", "head 7 · key 2: animal"), so hovering any cell names the layer, the
head, the query and the key from 18·(T + gap) short strings, instead of 72·T² per-cell strings;
the whole grid serialises like a single map.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures.common import FONT_FAMILY, QUALITATIVE, SEQUENTIAL, SEQUENTIAL_ALT, safe_label

OUTLINE = QUALITATIVE[5]  # Okabe-Ito vermillion: stands out on every Viridis colour


def _without_template(fig: go.Figure) -> go.Figure:
    """Drop the Plotly template (Streamlit's default one): the browser applies the Streamlit theme
    itself, and the template would be half of the JSON sent on every rerun."""
    fig.layout.template = go.layout.Template()
    return fig


def grid_gap(T: int) -> int:
    """Empty cells between two maps of the grid: about an eighth of a map, at least one."""
    return max(1, round(T / 8))


def model_grid(
    maps: np.ndarray,
    tokens: Sequence[str],
    positions: Sequence[int],
    *,
    selected: tuple[int, int] | None,
    layer_title: str,
    head_title: str,
    layer_names: Sequence[str],
    head_names: Sequence[str],
    query_label: str,
    key_label: str,
    value_name: str,
    height: int = 450,
) -> go.Figure:
    """Every head's map as a small square, layers down, heads across, one colour scale 0..1.
    maps: [n_layers, n_heads, T, T]; tokens and positions: T each, the position shown beside each
    token on hover (its place in the whole text, so hiding tokens does not renumber the others);
    selected: (layer, head), 0-based, outlined, or None.
    layer_title, head_title: the axis titles ("Layer", "Head"); layer_names, head_names: how the
    hover text names each ("layer 3", "第 3 层")."""
    maps = np.asarray(maps, dtype=np.float32)  # [L, H, T, T]; float32 halves the JSON
    L, H, T, _ = maps.shape
    g = grid_gap(T)
    step = T + g
    z = np.full((L * step - g, H * step - g), np.nan, dtype=np.float32)  # [L·(T+g)-g, H·(T+g)-g]
    for layer in range(L):
        for head in range(H):
            z[layer * step : layer * step + T, head * step : head * step + T] = maps[layer, head]
    text = [f"{p}: {safe_label(tok)}" for p, tok in zip(positions, tokens, strict=True)]
    # One label per row and per column, unique (categories): gaps get labels nobody sees.
    y_cats = [f"gap {i}" for i in range(z.shape[0])]
    x_cats = [f"gap {j}" for j in range(z.shape[1])]
    for layer in range(L):
        for i, tok in enumerate(text):  # tok: "10: it"
            y_cats[layer * step + i] = f"{layer_names[layer]} · {query_label} {tok}"
    for head in range(H):
        for j, tok in enumerate(text):
            x_cats[head * step + j] = f"{head_names[head]} · {key_label} {tok}"
    middle = (T - 1) // 2  # each block's tick sits on its middle row / column
    trace = dict(
        type="heatmap", z=z, x=x_cats, y=y_cats, colorscale=SEQUENTIAL, zmin=0.0, zmax=1.0, hoverongaps=False,
        hovertemplate=f"%{{y}}<br>%{{x}}<br>{value_name}: %{{z:.4f}}<extra></extra>",
        # Across the bottom, as wide as the plot: the grid is twice as wide as tall and fills the
        # plot's width on a phone and a desktop alike, where a bar down the side would be up to 3x
        # the grid's height (the figure's height is fixed; the screen's width is not known here).
        colorbar=dict(title=dict(text=value_name, side="right"), orientation="h", lenmode="fraction", len=1.0,
                      thickness=12, y=-0.02, yanchor="top"),
    )  # fmt: skip
    shapes = []
    if selected is not None:
        layer, head = selected
        shapes.append(dict(
            type="rect", x0=head * step - 0.5 - g / 2, x1=head * step + T - 0.5 + g / 2,
            y0=layer * step - 0.5 - g / 2, y1=layer * step + T - 0.5 + g / 2,
            line=dict(color=OUTLINE, width=3), fillcolor="rgba(0,0,0,0)",
        ))  # fmt: skip
    # Categories keep the order in which the trace lists them (Plotly's default, "trace"): no
    # categoryarray, which would send every label a second time.
    axis = dict(type="category", showgrid=False, zeroline=False, tickmode="array", ticks="")
    layout = dict(
        xaxis=dict(axis, side="top", title=dict(text=head_title),
                   tickvals=[x_cats[h * step + middle] for h in range(H)], ticktext=[str(h + 1) for h in range(H)],
                   constrain="domain"),
        yaxis=dict(axis, autorange="reversed",
                   title=dict(text=layer_title), tickvals=[y_cats[lay * step + middle] for lay in range(L)],
                   ticktext=[str(lay + 1) for lay in range(L)], scaleanchor="x", constrain="domain",
                   constraintoward="bottom"),  # the grid sits on its colour bar; spare height goes above
        font=dict(family=FONT_FAMILY), hoverlabel=dict(font=dict(family=FONT_FAMILY)),
        margin=dict(l=10, r=10, t=10, b=10), height=height, shapes=shapes, plot_bgcolor="rgba(0,0,0,0)",
    )  # fmt: skip
    return _without_template(go.Figure(data=[trace], layout=layout))


def grid_block(fig_z: np.ndarray, T: int, layer: int, head: int) -> np.ndarray:
    """The map of (layer, head), 0-based, cut back out of model_grid's matrix.  -> [T, T]"""
    step = T + grid_gap(T)
    return np.asarray(fig_z)[layer * step : layer * step + T, head * step : head * step + T]  # [T, T]


def head_map(
    weights: np.ndarray,
    query_labels: Sequence[str],
    key_labels: Sequence[str],
    *,
    query_title: str,
    key_title: str,
    value_name: str,
) -> go.Figure:
    """One head's map, large, on the shared 0..1 scale. weights: [T_q, T_k] (T_k may be one more
    than T_q: a last column summing the keys that are not drawn).

    Both axes are categorical with unique labels ("10 · it", so a repeated word keeps its own row),
    and hover reads them back (%{y}, %{x}): the exact weight with both tokens and positions for
    2·T strings, where per-cell hover text (figures.common.heatmap's) would be 2·T² strings, 8,000
    at 64 tokens, copied on every rerun. The columns carry the same labels as the rows, slanted so
    they stand side by side; past 40 tokens every second one is labelled.

    The cells fill the plot rather than staying square: the figure is built without knowing the
    screen's width, and a square map on a phone would be a third of the height of its colour bar.
    Filling the plot, the map is exactly as tall as the colour bar, on every screen."""
    z = np.asarray(weights, dtype=np.float32)  # [T_q, T_k]; float32 halves the JSON
    rows, cols = z.shape
    y = [safe_label(s, 24) for s in query_labels]
    x = [safe_label(s, 24) for s in key_labels]
    gap = 1 if max(rows, cols) <= 40 else 0  # white lines between cells while the cells stay visible
    trace = dict(
        type="heatmap", z=z, x=x, y=y, colorscale=SEQUENTIAL, zmin=0.0, zmax=1.0, xgap=gap, ygap=gap,
        texttemplate="%{z:.2f}" if rows * cols <= 100 else None,
        hovertemplate=f"{query_title}: %{{y}}<br>{key_title}: %{{x}}<br>{value_name}: %{{z:.6f}}<extra></extra>",
        colorbar=dict(title=dict(text=value_name, side="right"), thickness=14),
    )  # fmt: skip
    every = int(np.ceil(max(rows, cols) / 40))  # past 40 tokens, label every 2nd: labels would overlap
    x_tick = [*x[: cols - 1 : every], x[-1]] if cols > rows else x[::every]  # the "rest" column always labelled
    # automargin: the slanted labels push the plot down instead of being cut at the figure's edge.
    axis = dict(type="category", tickmode="array", showgrid=False, zeroline=False, automargin=True)
    layout = dict(
        # Slanted while a phone's ~20 px columns leave room for it; upright past 12 columns (10 px each).
        xaxis=dict(axis, tickvals=x_tick, ticktext=x_tick, tickangle=-45 if len(x_tick) <= 12 else -90, side="top",
                   title=dict(text=key_title)),
        yaxis=dict(axis, tickvals=y[::every], ticktext=y[::every], autorange="reversed",
                   title=dict(text=query_title)),
        font=dict(family=FONT_FAMILY), hoverlabel=dict(font=dict(family=FONT_FAMILY)),
        margin=dict(l=10, r=10, t=20, b=10), height=int(np.clip(18 * rows + 220, 420, 800)),
    )  # fmt: skip
    return _without_template(go.Figure(data=[trace], layout=layout))


def share_map(share: np.ndarray, *, layer_title: str, head_title: str, value_name: str) -> go.Figure:
    """Each head's share of attention parked on [CLS] and [SEP], layers down, heads across, the
    number printed in every cell. share: [n_layers, n_heads], each 0..1. The axes are the layer
    and head numbers themselves, so hover needs no per-cell text."""
    z = np.asarray(share, dtype=np.float32)  # [L, H]
    L, H = z.shape
    layers, heads = list(range(1, L + 1)), list(range(1, H + 1))
    trace = dict(
        type="heatmap", z=z, x=heads, y=layers, colorscale=SEQUENTIAL_ALT, zmin=0.0, zmax=1.0, xgap=1, ygap=1,
        texttemplate="%{z:.2f}",
        hovertemplate=f"{layer_title} %{{y}} · {head_title} %{{x}}<br>{value_name}: %{{z:.4f}}<extra></extra>",
        colorbar=dict(title=dict(text=value_name, side="right"), thickness=14),
    )  # fmt: skip
    axis = dict(tickmode="array", showgrid=False, zeroline=False)
    layout = dict(
        xaxis=dict(axis, tickvals=heads, ticktext=[str(h) for h in heads], side="top", title=dict(text=head_title)),
        yaxis=dict(axis, tickvals=layers, ticktext=[str(i) for i in layers], autorange="reversed",
                   title=dict(text=layer_title)),
        font=dict(family=FONT_FAMILY), hoverlabel=dict(font=dict(family=FONT_FAMILY)),
        margin=dict(l=10, r=10, t=20, b=10), height=70 + 42 * L,
    )  # fmt: skip
    return _without_template(go.Figure(data=[trace], layout=layout))
