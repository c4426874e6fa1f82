"""Figures of the rotary-positions page, the tables behind them and the words that read them: the
core's results (attention_core.rotary) and a language in, go.Figure / pd.DataFrame / text out, no
Streamlit calls. What is drawn; lab_ui.layout says where."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.rotary import PositionComparison, RopeDecay, RopeTurn, ShiftCheck
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL, safe_label
from lab_ui.i18n import literal, t
from lab_ui.layout import layout_dict
from lab_ui.state import labels

BEFORE, AFTER = QUALITATIVE[0], QUALITATIVE[1]  # the pair at position 0 (blue) and at position m (orange)
ROPE, SINUSOID = QUALITATIVE[2], QUALITATIVE[5]  # green, vermillion: the same on every figure of the page
METHODS = labels("rotary.method_", "none", "sinusoidal", "rope", "alibi")  # attention_core.rotary.POSITION_METHODS
# A legend in a row under the x axis's title (lab_ui.layout reserves its room; one placed at y < 0 sat
# on the title once lecture mode enlarged the fonts)
LEGEND = dict(orientation="h", x=0, xanchor="left", y=0, yref="container", yanchor="bottom")
GAP = 0.12  # between the comparison's panels, in paper coordinates


def log_axis(low: float, high: float) -> dict:
    """A log axis with ticks at the powers of ten only (Plotly's own 2s and 5s crowded a phone's axis)."""
    powers = 10.0 ** np.arange(np.floor(np.log10(low)), np.ceil(np.log10(high)) + 1)  # [n]
    return dict(type="log", tickvals=powers.tolist(), ticktext=[f"{p:g}" for p in powers])


# --- rotate: one pair turning -----------------------------------------------------------------------


def turn_plane(r: RopeTurn, pair: int, lang: str) -> go.Figure:
    """Pair i of the query as an arrow at position 0 and at position m, on the circle it cannot leave."""
    before, after = r.q[2 * pair : 2 * pair + 2], r.rotated[2 * pair : 2 * pair + 2]
    radius = float(r.pair_norm[pair])
    room = 1.25 * max(radius, 0.1)
    circle = np.linspace(0.0, 2 * np.pi, 97)  # [97]
    start = np.arctan2(before[1], before[0])
    sweep = start + np.linspace(0.0, float(r.angle[pair]) % (2 * np.pi), 49)  # [49] the turn, at most once round
    arc_r = 0.35 * radius
    names = (t("rotary.plane_before", lang), t("rotary.plane_after", lang, m=f"{r.position:g}"))
    arrows = [
        dict(x=float(v[0]), y=float(v[1]), ax=0, ay=0, xref="x", yref="y", axref="x", ayref="y", text="")
        | dict(showarrow=True, arrowhead=3, arrowsize=1.0, arrowwidth=2.5, arrowcolor=colour)
        for v, colour in ((before, BEFORE), (after, AFTER))
    ]
    traces = [
        go.Scatter(
            x=radius * np.cos(circle),
            y=radius * np.sin(circle),
            mode="lines",
            line=dict(color="rgba(120,120,120,0.5)", dash="dot"),
            hoverinfo="skip",
            showlegend=False,
        ),
        go.Scatter(
            x=arc_r * np.cos(sweep),
            y=arc_r * np.sin(sweep),
            mode="lines",
            line=dict(color=AFTER, width=2),
            name=t("rotary.plane_arc", lang),
            hoverinfo="skip",
        ),
        *(
            go.Scatter(
                x=[float(v[0])],
                y=[float(v[1])],
                mode="markers",
                marker=dict(size=10, color=colour),
                name=name,
                hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
            )
            for v, colour, name in ((before, BEFORE, names[0]), (after, AFTER, names[1]))
        ),
    ]
    axis = dict(range=[-room, room], zeroline=True, showgrid=True)
    layout = layout_dict(
        title=t("rotary.plane_title", lang, i=pair),
        height=400,
        xaxis=dict(axis, title=dict(text=t("rotary.plane_x", lang, c=2 * pair))),
        yaxis=dict(axis, title=dict(text=t("rotary.plane_y", lang, c=2 * pair + 1)), scaleanchor="x"),
        annotations=arrows,
        legend=LEGEND,
    )
    return go.Figure(data=traces, layout=layout)


def angle_bars(r: RopeTurn, pair: int, lang: str) -> go.Figure:
    """The angle m θ_i of every pair: the first pairs spin, the last barely move (a log axis)."""
    i = np.arange(r.angle.size)
    log = r.position > 0  # at m = 0 every angle is 0, which a log axis cannot show
    colours = [AFTER if j == pair else BEFORE for j in i]
    bars = go.Bar(
        x=i,
        y=r.angle.astype(np.float32),
        marker_color=colours,
        hovertemplate=t("rotary.bars_hover", lang) + "<extra></extra>",
        customdata=np.stack([r.theta, r.degrees], axis=1).astype(np.float32),
        showlegend=False,
    )
    layout = layout_dict(
        title=t("rotary.bars_title", lang, m=f"{r.position:g}"),
        height=400,
        xaxis=dict(title=dict(text=t("rotary.bars_x", lang)), tickangle=0, dtick=1 if i.size <= 16 else 4),
        yaxis=dict(log_axis(r.angle.min(), r.angle.max()) if log else {}, title=dict(text=t("rotary.bars_y", lang))),
    )
    return go.Figure(data=[bars], layout=layout)


def turn_table(r: RopeTurn, lang: str) -> pd.DataFrame:
    pairs, turned = r.q.reshape(-1, 2), r.rotated.reshape(-1, 2)  # [d/2, 2] each
    columns = {
        t("rotary.col_theta", lang): r.theta,
        t("rotary.col_angle", lang): r.angle,
        t("rotary.col_degrees", lang): r.degrees,
        t("rotary.col_before", lang, c="2i"): pairs[:, 0],
        t("rotary.col_before", lang, c="2i+1"): pairs[:, 1],
        t("rotary.col_after", lang, c="2i"): turned[:, 0],
        t("rotary.col_after", lang, c="2i+1"): turned[:, 1],
        t("rotary.col_length", lang): r.pair_norm,
    }
    return pd.DataFrame(columns, index=pd.Index(np.arange(r.theta.size), name=t("rotary.col_pair", lang)))


def turn_text(r: RopeTurn, pair: int, token: str, lang: str) -> str:
    d = 2 * r.theta.size
    return t(
        "rotary.rotate_reading",
        lang,
        token=literal(token),
        i=pair,
        m=f"{r.position:g}",
        d=d,
        base=f"{r.base:g}",
        theta=f"{r.theta[pair]:.4g}",
        angle=f"{r.angle[pair]:.4g}",
        degrees=f"{r.degrees[pair]:.1f}",
        length=f"{r.pair_norm[pair]:.3f}",
        fast=f"{r.angle[0]:.4g}",
        slow=f"{r.angle[-1]:.4g}",
        last=r.theta.size - 1,
    )


# --- relative: shift every position ----------------------------------------------------------------


def shift_scatter(c: ShiftCheck, lang: str) -> go.Figure:
    """Every score q_m · k_n before (x) and after (y) moving the sentence by `shift`: on the diagonal
    nothing changed. RoPE's points sit on it; the added sinusoids' leave it."""
    lo = float(min(c.rope_scores.min(), c.sinusoid_scores.min(), c.rope_shifted.min(), c.sinusoid_shifted.min()))
    hi = float(max(c.rope_scores.max(), c.sinusoid_scores.max(), c.rope_shifted.max(), c.sinusoid_shifted.max()))
    pad = 0.05 * max(hi - lo, 1e-9)
    hover = t("rotary.shift_hover", lang) + "<extra>%{fullData.name}</extra>"
    T = c.positions.size
    m, n = np.divmod(np.arange(T * T), T)  # [T²] each: the query's and the key's position
    custom = np.stack([m, n], axis=1)
    traces = [
        go.Scatter(
            x=[lo - pad, hi + pad],
            y=[lo - pad, hi + pad],
            mode="lines",
            line=dict(color="rgba(90,90,90,0.6)", dash="dash"),
            name=t("rotary.shift_unchanged", lang),
            hoverinfo="skip",
        ),
        go.Scatter(
            x=c.sinusoid_scores.ravel().astype(np.float32),
            y=c.sinusoid_shifted.ravel().astype(np.float32),
            mode="markers",
            marker=dict(color=SINUSOID, symbol="x", size=8),
            name=METHODS.text("sinusoidal", lang),
            customdata=custom,
            hovertemplate=hover,
        ),
        go.Scatter(
            x=c.rope_scores.ravel().astype(np.float32),
            y=c.rope_shifted.ravel().astype(np.float32),
            mode="markers",
            marker=dict(color=ROPE, symbol="circle-open", size=9, line=dict(width=2)),
            name=METHODS.text("rope", lang),
            customdata=custom,
            hovertemplate=hover,
        ),
    ]
    axis = dict(range=[lo - pad, hi + pad], zeroline=True)
    layout = layout_dict(
        title=t("rotary.shift_title", lang, shift=c.shift),
        height=420,
        xaxis=dict(axis, title=dict(text=t("rotary.shift_x", lang))),
        yaxis=dict(axis, title=dict(text=t("rotary.shift_y", lang, shift=c.shift)), scaleanchor="x"),
        legend=LEGEND,
    )
    return go.Figure(data=traces, layout=layout)


def shift_table(c: ShiftCheck, tokens: Sequence[str], lang: str) -> pd.DataFrame:
    T = c.positions.size
    m, n = np.divmod(np.arange(T * T), T)  # [T²] each
    columns = {
        t("rotary.col_query", lang): [tokens[i] for i in m],
        t("rotary.col_key", lang): [tokens[j] for j in n],
        t("rotary.col_offset", lang): m - n,
        t("rotary.col_rope", lang): c.rope_scores.ravel(),
        t("rotary.col_rope_moved", lang, shift=c.shift): c.rope_shifted.ravel(),
        t("rotary.col_sin", lang): c.sinusoid_scores.ravel(),
        t("rotary.col_sin_moved", lang, shift=c.shift): c.sinusoid_shifted.ravel(),
    }
    index = pd.Index([f"({i}, {j})" for i, j in zip(m, n, strict=True)], name=t("rotary.col_mn", lang))
    return pd.DataFrame(columns, index=index)


def shift_text(c: ShiftCheck, lang: str) -> str:
    largest = float(np.abs(c.sinusoid_scores).max()) if c.sinusoid_scores.size else 0.0
    return t(
        "rotary.relative_reading",
        lang,
        shift=c.shift,
        rope=f"{c.rope_change:.1e}",
        sin=f"{c.sinusoid_change:.3f}",
        largest=f"{largest:.3f}",
    )


# --- decay ----------------------------------------------------------------------------------------------


def decay_lines(r: RopeDecay, lang: str) -> go.Figure:
    """RoFormer's bound on a score's size and the score of a vector with itself, against distance."""
    bound, same = t("rotary.decay_bound", lang), t("rotary.decay_same", lang)
    traces = [
        go.Scatter(
            x=r.distance,
            y=(r.relative_bound / r.relative_bound[0]).astype(np.float32),
            mode="lines",
            line=dict(color=ROPE, width=2),
            name=bound,
            hovertemplate=t("rotary.decay_hover", lang) + f"<extra>{bound}</extra>",
        ),
        go.Scatter(
            x=r.distance,
            y=r.equal_vector_score.astype(np.float32),
            mode="lines",
            line=dict(color=BEFORE, width=1.5, dash="dot"),
            name=same,
            hovertemplate=t("rotary.decay_hover", lang) + f"<extra>{same}</extra>",
        ),
    ]
    layout = layout_dict(
        title=t("rotary.decay_title", lang, d=r.d, base=f"{r.base:g}"),
        height=400,
        xaxis=dict(
            log_axis(1, r.distance[-1]) if r.distance.size > 64 else {},
            title=dict(text=t("rotary.decay_x", lang)),
            tickangle=0,
        ),
        yaxis=dict(title=dict(text=t("rotary.decay_y", lang)), zeroline=True),
        legend=LEGEND,
    )
    return go.Figure(data=traces, layout=layout)


def decay_table(r: RopeDecay, lang: str) -> pd.DataFrame:
    columns = {
        t("rotary.decay_bound", lang): r.relative_bound,
        t("rotary.col_bound_share", lang): r.relative_bound / r.relative_bound[0],
        t("rotary.decay_same", lang): r.equal_vector_score,
    }
    return pd.DataFrame(columns, index=pd.Index(r.distance.astype(int), name=t("rotary.decay_x", lang)))


def decay_text(r: RopeDecay, lang: str) -> str:
    far = int(r.distance[-1])
    return t(
        "rotary.decay_reading",
        lang,
        far=far,
        share=f"{100 * r.relative_bound[-1] / r.relative_bound[0]:.0f}",
        same=f"{r.equal_vector_score[-1]:.3f}",
        low=f"{r.relative_bound.min() / r.relative_bound[0]:.3f}",
    )


# --- ALiBi and the comparison ------------------------------------------------------------------------


def comparison_maps(c: PositionComparison, head: int, tokens: Sequence[str], lang: str) -> go.Figure:
    """Head `head`'s weights (causal) with each way of telling position, on one colour scale 0 .. 1."""
    T = len(tokens)
    ticks, texts = list(range(T)), [safe_label(s) for s in tokens]
    width = (1 - GAP) / 2
    domains = ((0, width), (1 - width, 1))
    traces, axes, notes = [], {}, []
    for n, method in enumerate(c.methods):
        row, col = divmod(n, 2)
        ax = "" if n == 0 else str(n + 1)
        z = c.weights[n, head].astype(np.float32)  # [T, T]
        traces.append(
            go.Heatmap(
                z=np.where(z > 0, z, np.nan),  # the masked future left blank
                x=ticks,
                y=ticks,
                xaxis=f"x{ax}",
                yaxis=f"y{ax}",
                coloraxis="coloraxis",
                hovertemplate=t("rotary.map_hover", lang) + f"<extra>{METHODS.text(method, lang)}</extra>",
            )
        )
        y_domain = (0.6, 1.0) if row == 0 else (0.0, 0.4)  # the top row's slanted keys need room
        axes[f"xaxis{ax}"] = dict(
            domain=domains[col], anchor=f"y{ax}", tickvals=ticks, ticktext=texts, tickangle=-60, showgrid=False
        )
        axes[f"yaxis{ax}"] = dict(
            domain=y_domain,
            anchor=f"x{ax}",
            tickvals=ticks,
            ticktext=texts if col == 0 else [""] * T,
            autorange="reversed",
            showgrid=False,
        )
        notes.append(
            dict(
                text=METHODS.text(method, lang),
                x=sum(domains[col]) / 2,
                y=y_domain[1],
                xref="paper",
                yref="paper",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
            )
        )
    layout = layout_dict(
        title=t("rotary.maps_title", lang, head=head + 1),
        height=640,
        coloraxis=dict(colorscale=SEQUENTIAL, cmin=0, cmax=1, colorbar=dict(title=dict(text=t("rotary.weight", lang)))),
        annotations=notes,
        **axes,
    )
    return go.Figure(data=traces, layout=layout)


def penalty_lines(c: PositionComparison, lang: str) -> go.Figure:
    """Each head's ALiBi penalty against distance: the last query's ALiBi score minus its plain one."""
    T = c.positions.size
    distance = np.arange(T)[::-1]  # [T] the last query's distance to key j
    bias = c.scaled[3, :, -1, :] - c.scaled[0, :, -1, :]  # [h, T] ALiBi's -m_h · distance, from the core
    traces = [
        go.Scatter(
            x=distance,
            y=bias[h].astype(np.float32),
            mode="lines+markers",
            line=dict(color=QUALITATIVE[h % len(QUALITATIVE)]),
            name=t("rotary.penalty_head", lang, head=h + 1, slope=f"{c.slopes[h]:.4g}"),
            hovertemplate=t("rotary.penalty_hover", lang) + "<extra>%{fullData.name}</extra>",
        )
        for h in range(c.slopes.size)
    ]
    layout = layout_dict(
        title=t("rotary.penalty_title", lang),
        height=400,
        xaxis=dict(title=dict(text=t("rotary.penalty_x", lang)), tickangle=0),
        yaxis=dict(title=dict(text=t("rotary.penalty_y", lang)), zeroline=True),
        legend=LEGEND,
    )
    return go.Figure(data=traces, layout=layout)


def slopes_table(c: PositionComparison, lang: str) -> pd.DataFrame:
    T = c.positions.size
    bias = c.scaled[3, :, -1, :] - c.scaled[0, :, -1, :]  # [h, T]
    n = c.slopes.size
    columns = {
        t("rotary.col_slope", lang): c.slopes,
        t("rotary.col_power", lang): [f"2^(-{8 * (h + 1)}/{n})" for h in range(n)],
        t("rotary.col_penalty", lang, k=1): bias[:, -2] if T > 1 else np.zeros(n),
        t("rotary.col_penalty", lang, k=T - 1): bias[:, 0],
    }
    return pd.DataFrame(columns, index=pd.Index(np.arange(1, n + 1), name=t("rotary.col_head", lang)))


def alibi_text(c: PositionComparison, head: int, tokens: Sequence[str], lang: str) -> str:
    """The head's slope and what it costs a key, and where the last token looks with each method."""
    T, n = len(tokens), c.slopes.size  # T - 1: the first token's distance from the last
    last = {m: c.weights[k, head, -1] for k, m in enumerate(c.methods)}  # [T] each
    first = {m: f"{w[0]:.3f}" for m, w in last.items()}
    return t(
        "rotary.alibi_reading",
        lang,
        head=head + 1,
        n=n,
        power=8 * (head + 1),
        slope=f"{c.slopes[head]:.4g}",
        far=T - 1,
        penalty=f"{c.scaled[0, head, -1, 0] - c.scaled[3, head, -1, 0]:.4g}",  # ALiBi's bias, from the core
        last=literal(tokens[-1]),
        first=literal(tokens[0]),
        w_none=first["none"],
        w_sin=first["sinusoidal"],
        w_rope=first["rope"],
        w_alibi=first["alibi"],
    )
