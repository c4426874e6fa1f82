"""Figures of the scores-by-hand page: the query and the keys as arrows in their plane, and each
key's score, scaled score and weight as bars. What is drawn; lab_ui.layout says where."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention_core.steps import QueryScores
from lab_ui.figures.common import QUALITATIVE, safe_label
from lab_ui.i18n import t
from lab_ui.layout import layout_dict

LIMIT = 3.0  # the sliders' range: every vector's components lie in [-LIMIT, LIMIT]
QUERY_COLOUR = QUALITATIVE[1]  # orange, as the Q, K, V page marks the followed query
KEY_COLOURS = (QUALITATIVE[0], QUALITATIVE[2], QUALITATIVE[3])


def vectors_plane(s: QueryScores, names: tuple[str, ...], lang: str) -> go.Figure:
    """q and every k_j as arrows from the origin; the angle between two arrows is what cos θ measures."""
    # the arrows' room: the longest arrow and a little air, so that short ones are not lost in a big plane
    room = 1.2 * max(1.0, float(np.abs(np.vstack([s.q[None, :], s.keys])).max()))
    arrows, tips = [], []
    keys = [(name, k, KEY_COLOURS[j % len(KEY_COLOURS)]) for j, (name, k) in enumerate(zip(names, s.keys, strict=True))]
    vectors = [("q", s.q, QUERY_COLOUR), *keys]
    for name, (x, y), colour in vectors:
        arrows.append(
            dict(x=x, y=y, ax=0, ay=0, xref="x", yref="y", axref="x", ayref="y", showarrow=True, arrowhead=3)
            | dict(arrowsize=1.0, arrowwidth=2.5, arrowcolor=colour, text="")
        )
        tips.append((x, y, safe_label(name), colour))
    points = go.Scatter(
        x=[x for x, _, _, _ in tips],
        y=[y for _, y, _, _ in tips],
        mode="markers+text",
        text=[name for _, _, name, _ in tips],
        textposition="top center",
        marker=dict(size=8, color=[c for _, _, _, c in tips]),
        hovertemplate="%{text}: (%{x:.2f}, %{y:.2f})<extra></extra>",
        showlegend=False,
    )
    axis = dict(range=[-room, room], zeroline=True, showgrid=True)
    layout = layout_dict(
        title=t("dot_product.plane_title", lang),
        height=380,
        xaxis=dict(axis, title=dict(text=t("dot_product.component_1", lang))),
        yaxis=dict(axis, title=dict(text=t("dot_product.component_2", lang)), scaleanchor="x"),
        annotations=arrows,
    )
    return go.Figure(data=[points], layout=layout)


def score_bars(s: QueryScores, names: tuple[str, ...], lang: str) -> go.Figure:
    """Per key: its score α, the scaled score and the weight α' (the one that sums to 1 over the keys)."""
    labels = [safe_label(n) for n in names]
    rows = (
        (t("dot_product.bar_score", lang), s.alpha, QUALITATIVE[4]),
        (t("dot_product.bar_scaled", lang), s.scaled, QUALITATIVE[0]),
        (t("dot_product.bar_weight", lang), s.weights, QUALITATIVE[1]),
    )
    bars = [
        go.Bar(
            name=name,
            x=labels,
            y=np.asarray(values, dtype=np.float32),
            marker_color=colour,
            text=[f"{v:.2f}" for v in values],
            textposition="outside",
            cliponaxis=False,
            hovertemplate=f"{name}: %{{y:.4f}}<extra>%{{x}}</extra>",
        )
        for name, values, colour in rows
    ]
    layout = layout_dict(
        title=t("dot_product.bars_title", lang),
        height=380,
        barmode="group",
        xaxis=dict(tickangle=0),  # the keys' names say what the axis is; a title there met the legend
        yaxis=dict(title=dict(text=t("dot_product.value_axis", lang)), zeroline=True),
        legend=dict(orientation="h", y=-0.25, x=0),
    )
    return go.Figure(data=bars, layout=layout)


def sum_text(s: QueryScores, j: int) -> str:
    """α_j written out as a student computes it: 1.00 × 0.80 + 0.50 × 0.90 = 1.25."""
    terms = " + ".join(f"({qc:.2f})({kc:.2f})" for qc, kc in zip(s.q, s.keys[j], strict=True))
    return f"{terms} = {s.alpha[j]:.2f}"
