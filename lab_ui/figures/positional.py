"""Figures for the page "positional encoding": a core result and the language in, go.Figure out,
no Streamlit calls. Each builder looks up its own labels (t(key, lang)).

Position and dimension axes are plain numbers (0, 1, 2, ...), so these heatmaps are built here
rather than with common.heatmap, which labels its axes with tokens. A big table (512 x 512 is
262k cells) is thinned to every s-th row and column before it is drawn: a screen shows no more
than that, and the browser gets a fraction of the bytes. Each figure is built in one go (traces
and a layout dict handed to go.Figure). Panels side by side are laid out by hand with axis domains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.positional import (
    BatchFirstMixup,
    LearnedVsSinusoidal,
    OffsetProfile,
    ShiftRotation,
    ShuffleExperiment,
    Similarity,
    SinusoidTable,
    sinusoidal_positional_encoding,
)
from lab_ui.figures.common import DIVERGING, QUALITATIVE, row_rules, token_ticks
from lab_ui.i18n import literal, t
from lab_ui.layout import (
    LECTURE_FIGURE_MAX_PX,
    LECTURE_TEXT_PX,
    TICK_PX,
    TITLE_ROOM_PX,
    TOOLBAR_PX,
    layout_dict,
    title_below_toolbar,
)
from lab_ui.state import labels

PANELS = labels("positional.panel_", "moved", "shuffled")  # out[perm], out(shuffled)
# Article 003's own example sizes (its SelfAttention demo): a batch of 10 sentences of 5 words.
ARTICLE_BATCH, ARTICLE_SEQ_LEN = 10, 5
MAX_DRAWN = 200  # rows or columns a heatmap draws at most; more are thinned (see thinning_step)
BAND_ALPHA = 0.2
PANEL_GAP = 0.08
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
GREY = "rgba(120,120,120,0.5)"
CLEAR = "rgba(0,0,0,0)"  # band edges: invisible even when lecture mode thickens every line
MARKERS_UP_TO = 128  # positions: beyond this the dots merge into the line
NUMBERS_UP_TO = 64  # cells: a heatmap this small prints its numbers in the cells
# A cosine map (section 4) is square: 480 px hold its title, its colour bar under the title
# (COSINE_BAR_PX), its axes and a ~290 px square, which a desktop's column (half the page) gives it in
# height and a phone's 350 px in width: neither leaves the figure empty.
COSINE_PX, COSINE_BAR_PX = 480, 44
# The shuffle figure's rows. A word's label needs 1.15 times its font of height, or labels touch: a
# desktop's 12 px labels fit its 20 px rows, but lecture mode's 20 px labels do not, and its figure is
# capped (LECTURE_FIGURE_MAX_PX) while its 20 px text takes more room around the panels (the x axis:
# LECTURE_BOTTOM_PX, what lab_ui.layout.fixed_margins reserves for 20 px labels and title).
# So in lecture mode the panels take all the height the cap leaves, without the strip kept for the
# toolbar above the title (on a projector's width the title, at the left, never reaches the toolbar);
# a sentence whose rows are still too short for its labels has every other word labelled (or every third ...).
LABEL_ROOM = 1.15
LECTURE_ROW_PX = 24
LECTURE_TOP_PX, LECTURE_GAP_PX, LECTURE_BOTTOM_PX = 96, 40, 104


def thinning_step(n: int, limit: int = MAX_DRAWN) -> int:
    """Draw every s-th of n rows so that at most `limit` are drawn.  s = ceil(n / limit)"""
    return max(1, -(-n // limit))


def dimension_names(lang: str, d_model: int) -> tuple[str, ...]:
    """ "0 · sin, pair 0", "1 · cos, pair 0", ...: the label of each dimension."""
    return tuple(
        t("positional.dim_option", lang, dim=dim, kind="sin" if dim % 2 == 0 else "cos", pair=dim // 2)
        for dim in range(d_model)
    )


def format_error(e: float) -> str:
    """A difference as a reader compares it: 0 exactly, 1.1e-16 for rounding, 0.8312 for a real change."""
    return "0" if e == 0 else f"{e:.1e}" if e < 1e-3 else f"{e:.4f}"


# --- section 1: the shuffle experiment ------------------------------------------------------------


def shuffle_experiment(view: ShuffleExperiment, lang: str, lecture: bool = False) -> go.Figure:
    """Four panels, one row per check: without positions, then with them. Left, out[perm]: the
    first sentence's outputs moved along with their words; right, out(shuffled): the outputs of
    the shuffled sentence. One row per word of the shuffled sentence, one colour scale for all.
    lecture: laid out for lecture mode's 20 px text within its height (LECTURE_ROW_PX says how)."""
    checks = (view.plain, view.with_pe)
    T, d = view.plain.output.shape
    col_step = thinning_step(d)
    cols = len(range(0, d, col_step))  # drawn
    zmax = max((float(np.max(np.abs(c.output))) for c in checks), default=1.0) if T else 1.0
    word, dim, value = t("positional.word", lang), t("positional.dimension", lang), t("positional.output_value", lang)
    hover = f"{word}: %{{y}}<br>{dim}: %{{x}}<br>{value}: %{{z:.6f}}<extra></extra>"
    if lecture:  # px: the title, the column titles and the first row's heading; the second row's heading; the x axis
        top, gap, bottom = LECTURE_TOP_PX, LECTURE_GAP_PX, LECTURE_BOTTOM_PX
        panel = min(max(LECTURE_ROW_PX * T, 80), (LECTURE_FIGURE_MAX_PX - top - gap - bottom) // 2)
    else:  # the same under the toolbar's strip
        top, gap, bottom = TOOLBAR_PX + 92, 44, 48
        panel = min(max(20 * T, 80), 480)
    # rows counted from 1, as the numbers table counts the words; as many labels as the rows have room for
    every = max(1, int(np.ceil(LABEL_ROOM * (LECTURE_TEXT_PX if lecture else TICK_PX) * T / panel)))
    ticks = list(range(1, T + 1, every))
    text = token_ticks(view.shuffled)[1][::every]
    plots = 2 * panel + gap
    domains = ([(panel + gap) / plots, 1.0], [0.0, panel / plots])  # paper y of each row
    width = (1 - PANEL_GAP) / 2
    traces, layout, notes = [], {}, []
    for r, check in enumerate(checks):
        y_domain = domains[r]
        for c, z in enumerate((check.reordered_output, check.shuffled_output)):
            n = 2 * r + c + 1
            suffix = "" if n == 1 else str(n)
            traces.append(
                go.Heatmap(
                    z=np.asarray(z, dtype=np.float32)[:, ::col_step],
                    x0=0,
                    dx=col_step,
                    y0=1,
                    xaxis=f"x{suffix}",
                    yaxis=f"y{suffix}",
                    showscale=n == 1,
                    **_diverging(zmax),
                    colorbar=_colorbar(value),
                    hovertemplate=hover,
                    texttemplate="%{z:.2f}" if T * cols <= NUMBERS_UP_TO else None,
                )
            )
            x0 = c * (width + PANEL_GAP)
            layout[f"xaxis{suffix}"] = dict(
                domain=[x0, x0 + width],
                anchor=f"y{suffix}",
                showgrid=False,
                zeroline=False,
                title=dict(text=dim) if r == 1 else None,
                showticklabels=r == 1,
                matches="x" if n > 1 else None,
            )
            layout[f"yaxis{suffix}"] = dict(
                domain=y_domain,
                anchor=f"x{suffix}",
                autorange="reversed",
                showgrid=False,
                zeroline=False,
                tickmode="array",
                tickvals=ticks,
                ticktext=text,
                showticklabels=c == 0,
            )
        heading = t(("positional.row_plain", "positional.row_pe")[r], lang)
        error = t("positional.row_error", lang, error=format_error(check.max_error))
        notes.append(_note(f"<b>{heading}</b> · {error}", 0, y_domain[1], "left"))
    for c, name in enumerate(PANELS):  # the column titles, above the first row's heading
        column = _note(f"<b>{PANELS.text(name, lang)}</b>", c * (width + PANEL_GAP) + width / 2, 1, "center")
        notes.append(dict(column, yshift=30))
    title = t("positional.shuffle_title", lang, seed=view.seed)
    # a line between words (rows 1..T): each row is a word's output vector
    rules = [row_rules(T, first=1, xref=f"x{s}", yref=f"y{s}") for s in ("", "2", "3", "4")]
    layout = layout_dict(title=title, height=top + plots + bottom, annotations=notes, shapes=rules, **layout)
    layout["margin"] = dict(l=10, r=10, t=top, b=bottom)
    pad = 4 if lecture else TOOLBAR_PX  # under the toolbar, where a phone's title could run into it
    layout["title"].update(yref="container", y=1, yanchor="top", pad=dict(t=pad))
    return go.Figure(traces, layout)


def _note(text: str, x: float, y: float, align: str) -> dict:
    return dict(text=text, x=x, y=y, xref="paper", yref="paper", xanchor=align, yanchor="bottom", showarrow=False)


# --- section 2: the sinusoids ----------------------------------------------------------------------


def sinusoid_curves(view: SinusoidTable, dims: Sequence[int], lang: str) -> go.Figure:
    """One line per chosen dimension against position 0..n-1, with a dot on each position while
    they are few enough to tell apart (PE exists at whole positions only). Each line has its own
    colour and dash, so the lines stay apart without colour."""
    y = np.asarray(view.pe[:, list(dims)], dtype=np.float32)  # [n, len(dims)]
    n = y.shape[0]
    names = dimension_names(lang, max(dims, default=-1) + 1)
    pos, pe = t("positional.position", lang), t("positional.pe_value", lang)
    traces = [
        go.Scatter(
            x0=0,
            dx=1,
            y=y[:, j],
            name=names[dim],
            marker_size=5,
            mode="lines+markers" if n <= MARKERS_UP_TO else "lines",
            line=dict(color=QUALITATIVE[j % len(QUALITATIVE)], dash=DASHES[j % len(DASHES)], width=2),
            hovertemplate=f"{names[dim]}<br>{pos}: %{{x}}<br>{pe}: %{{y:.6f}}<extra></extra>",
        )
        for j, dim in enumerate(dims)
    ]
    layout = layout_dict(
        title=t("positional.curves_title", lang),
        height=380,
        xaxis=dict(title=dict(text=pos), zeroline=False),
        yaxis=dict(title=dict(text=pe), range=[-1.1, 1.1]),
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
    )
    title_below_toolbar(layout)
    return go.Figure(traces, layout)


def sinusoid_curves_caption(view: SinusoidTable, dims: Sequence[int], lang: str) -> str:
    """What the dots mean, and each drawn dimension's frequency and period."""
    each = [
        t(
            "positional.period",
            lang,
            dim=dim,
            omega=f"{view.omega[dim // 2]:.4g}",
            period=f"{view.period[dim // 2]:.4g}",
        )
        for dim in dims
    ]
    return f"{t('positional.curves_note', lang)} {' · '.join(each)}"


def sinusoid_heatmap(view: SinusoidTable, lang: str) -> go.Figure:
    """The whole table, one row per position: fast columns on the left, slow ones on the right."""
    n, d = view.pe.shape
    return _matrix_heatmap(
        view.pe,
        x_title=t("positional.dimension", lang),
        y_title=t("positional.position", lang),
        value_name=t("positional.pe_value", lang),
        zmax=1.0,
        title=t("positional.heatmap_title", lang, n=n, d=d),
    )


def sinusoid_heatmap_caption(view: SinusoidTable, lang: str) -> str:
    """How to read the table, and what the figure leaves out (thinning, an odd d_model's lone sine)."""
    n, d = view.pe.shape
    notes = [t("positional.heatmap_note", lang)]
    if max(n, d) > MAX_DRAWN:
        notes.append(t("positional.thinned", lang, rows=thinning_step(n), cols=thinning_step(d)))
    if d % 2:
        notes.append(t("positional.odd_note", lang, d=d, last=d - 1))
    return " ".join(notes)


# --- section 3: similarity, and a shift is a rotation ------------------------------------------------


def dot_products(view: Similarity, lang: str) -> go.Figure:
    """PE_p · PE_q for every pair of positions: the same along each diagonal."""
    return _matrix_heatmap(
        view.matrix,
        x_title=t("positional.position_q", lang),
        y_title=t("positional.position_p", lang),
        value_name=t("positional.dot", lang),
        title=t("positional.dot_title", lang),
        height=380,
    )


def dot_by_offset(view: Similarity, lang: str) -> go.Figure:
    """The same dot products read by offset: the mean line and the range band."""
    return _offset_profiles(
        [(t("positional.sinusoidal", lang), view.profile)],
        lang,
        y_title=t("positional.dot", lang),
        title=t("positional.offset_title", lang),
        height=380,
    )


def rotation_block(view: ShiftRotation) -> str:
    """R_i(k) of the drawn pair as LaTeX: the symbols, then the numbers."""
    k, pair, R = view.check.k, view.pair, view.check.rotations[view.pair]  # R: [2, 2]
    kw = rf"{k}\,\omega_{{{pair}}}"
    return (  # three lines, so that a phone's width holds it
        rf"\begin{{aligned}} R_{{{pair}}}({k}) &= \begin{{pmatrix}} \cos {kw} & \sin {kw} \\ -\sin {kw} & \cos {kw}"
        rf" \end{{pmatrix}} \\ &= \begin{{pmatrix}} {R[0, 0]:.4f} & {R[0, 1]:.4f} \\ {R[1, 0]:.4f} & {R[1, 1]:.4f}"
        rf" \end{{pmatrix}} \\ {kw} &= {view.angle:.4f}\ \text{{rad}} \end{{aligned}}"
    )


def circle_legend(view: ShiftRotation, lang: str) -> str:
    """What the dots are: the n positions of the table and, when k > 0, the k more that p + k reaches."""
    k = view.check.k
    n = view.points.shape[0] - k
    if k == 0:
        return t("positional.circle_all", lang, last=n - 1)
    return t("positional.circle_all_shifted", lang, last=n - 1, k=k, first=n, top=n + k - 1)


def shift_rotation(view: ShiftRotation, lang: str) -> go.Figure:
    """The pair's point for every position on the unit circle, and an arrow from a few positions
    p to p + k: every arrow turns through the same angle kω_i."""
    points = np.asarray(view.points, dtype=np.float32)  # [n + k, 2]
    k, pair = view.check.k, view.pair
    n = points.shape[0]  # the table's positions and, past them, the k that p + k reaches
    theta = np.linspace(0, 2 * np.pi, 121)
    traces = [
        go.Scatter(
            x=np.sin(theta).astype(np.float32),
            y=np.cos(theta).astype(np.float32),
            mode="lines",
            line=dict(color=GREY, width=1),
            hoverinfo="skip",
            showlegend=False,
        ),
        go.Scatter(
            x=points[:, 0],
            y=points[:, 1],
            mode="markers",
            name=circle_legend(view, lang),
            marker=dict(size=5, color=np.arange(n), colorscale="Cividis"),
            hovertemplate="p = %{pointNumber}<br>(%{x:.4f}, %{y:.4f})<extra></extra>",
        ),
    ]
    arrows = []
    for j, p in enumerate(view.starts):
        colour = QUALITATIVE[(j + 1) % len(QUALITATIVE)]
        a, b = points[p].tolist(), points[p + k].tolist()  # plain floats: two points need no typed arrays
        traces += [  # the two radii: the angle between them is kω_i, the same for every p
            go.Scatter(
                x=[a[0], 0, b[0]],
                y=[a[1], 0, b[1]],
                mode="lines",
                hoverinfo="skip",
                showlegend=False,
                line=dict(color=colour, width=1, dash="dot"),
            ),
            go.Scatter(
                x=[a[0], b[0]],
                y=[a[1], b[1]],
                mode="markers+text",
                text=[f"{p}", f"{p + k}"],
                name=t("positional.circle_arrow", lang, p=p, q=p + k),
                textposition="top center",
                textfont=dict(color=colour),
                marker=dict(size=11, color=colour, symbol=["circle", "diamond"]),
                hovertemplate="(%{x:.4f}, %{y:.4f})<extra></extra>",
            ),
        ]
        arrows.append(
            dict(
                x=float(b[0]),
                y=float(b[1]),
                ax=float(a[0]),
                ay=float(a[1]),
                xref="x",
                yref="y",
                axref="x",
                ayref="y",
                showarrow=True,
                arrowhead=3,
                arrowwidth=2,
                arrowcolor=colour,
                text="",
            )
        )
    axis = dict(range=[-1.3, 1.3], zeroline=True, zerolinecolor=GREY, dtick=0.5)
    layout = layout_dict(
        height=460,
        annotations=arrows,
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
        xaxis=dict(axis, title=dict(text=t("positional.circle_x", lang, a=2 * pair)), constrain="domain"),
        yaxis=dict(
            axis, title=dict(text=t("positional.circle_y", lang, b=2 * pair + 1)), scaleanchor="x", constrain="domain"
        ),
    )
    return go.Figure(traces, layout)


# --- section 4: learned vs fixed ------------------------------------------------------------------


def learned_table(view: LearnedVsSinusoidal, lang: str) -> go.Figure:
    """The model's learned position vectors, colours cut at the limit row 0 would blow out."""
    n, d = view.table.shape
    return _matrix_heatmap(
        view.table,
        x_title=t("positional.dimension", lang),
        y_title=t("positional.position", lang),
        value_name=t("positional.learned_value", lang),
        zmax=view.colour_limit,
        title=t("positional.learned_title", lang, n=n, d=d),
    )


def learned_cosine(view: LearnedVsSinusoidal, which: str, lang: str, lecture: bool = False) -> go.Figure:
    """One of the two square [n, n] cosine matrices, which = "learned" or "sinusoidal", on the scale
    -1 to 1. The page sets the two side by side in columns, which a phone stacks: both maps in one
    figure left each a phone's ~90 px square, with the figure's height empty below them. The colour
    bar lies above the map, so that on a phone the map has the figure's width; on a projector's wide
    column (lecture) it stands beside it, where it leaves the map the height."""
    similarity, name = (
        (view.learned, t("positional.learned_short", lang))
        if which == "learned"
        else (view.sinusoidal, t("positional.sinusoidal_384", lang, d=view.table.shape[1]))
    )
    x_title, y_title = t("positional.position_q", lang), t("positional.position_p", lang)
    value = t("positional.cosine", lang)
    colorbar, title_px = _colorbar(value), TITLE_ROOM_PX
    if not lecture:  # under the title, in room kept for it; placed in the figure's pixels (yref container): a
        # bar placed against the plot (yref paper) moved the x axis's title onto its numbers
        colorbar.update(
            orientation="h",
            title=dict(text=value, side="right"),
            yref="container",
            yanchor="top",
            y=1 - title_px / COSINE_PX,
            ypad=0,
            len=0.7,
            thickness=12,
        )
    trace = _index_heatmap(
        similarity.matrix, x_title=x_title, y_title=y_title, value_name=value, zmax=1.0, colorbar=colorbar
    )
    layout = layout_dict(
        title=name,
        height=COSINE_PX,
        xaxis=dict(title=dict(text=x_title), showgrid=False, zeroline=False, constrain="domain"),
        yaxis=dict(
            title=dict(text=y_title),
            autorange="reversed",
            showgrid=False,
            zeroline=False,
            scaleanchor="x",
            constrain="domain",
            constraintoward="top",
        ),
    )
    title_below_toolbar(layout)
    if lecture:  # a projector's half-page column: the title, at the left, stays clear of the toolbar's strip
        layout["title"]["pad"] = dict(t=4)
        layout["margin"]["t"] = TITLE_ROOM_PX - TOOLBAR_PX + 4
    else:
        layout["margin"]["t"] = title_px + COSINE_BAR_PX
    return go.Figure(trace, layout)


def learned_by_offset(view: LearnedVsSinusoidal, lang: str) -> go.Figure:
    """Cosine by offset for both tables: the sinusoids' band has zero width, the learned one not."""
    profiles = [
        (t("positional.learned_short", lang), view.learned.profile),
        (t("positional.sinusoidal_384", lang, d=view.table.shape[1]), view.sinusoidal.profile),
    ]
    return _offset_profiles(
        profiles,
        lang,
        y_title=t("positional.cosine", lang),
        title=t("positional.learned_offset_title", lang),
        height=400,
    )


# --- building blocks ---------------------------------------------------------------------------------


def _diverging(zmax: float) -> dict:
    """RdBu reversed: positive red, negative blue, zero white, symmetric about 0."""
    zmax = float(zmax) if np.isfinite(zmax) and zmax > 0 else 1.0
    return dict(colorscale=DIVERGING, reversescale=True, zmin=-zmax, zmax=zmax, zmid=0)


def _colorbar(value_name: str) -> dict:
    return dict(title=dict(text=value_name, side="right"), thickness=14)


def _index_heatmap(z: np.ndarray, *, x_title: str, y_title: str, value_name: str, zmax: float, **kwargs) -> go.Heatmap:
    """A [rows, cols] table with index axes, thinned to at most MAX_DRAWN a side; the axes keep the
    true indices, so a thinned figure still reads position 300 at 300."""
    rows, cols = z.shape
    row_step, col_step = thinning_step(rows), thinning_step(cols)
    shown = np.asarray(z, dtype=np.float32)[::row_step, ::col_step]  # [rows drawn, cols drawn]
    kwargs.setdefault("colorbar", _colorbar(value_name))
    return go.Heatmap(
        z=shown,
        x0=0,
        dx=col_step,
        y0=0,
        dy=row_step,
        **_diverging(zmax),  # true indices, no index arrays
        hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{value_name}: %{{z:.6f}}<extra></extra>",
        texttemplate="%{z:.2f}" if shown.size <= NUMBERS_UP_TO else None,
        **kwargs,
    )


def _matrix_heatmap(
    z: np.ndarray,
    *,
    x_title: str,
    y_title: str,
    value_name: str,
    zmax: float | None = None,
    title: str,
    height: int = 380,
) -> go.Figure:
    """A [rows, cols] table indexed by numbers (positions, dimensions), row 0 on top, blue for
    negative and red for positive; colour limits ±zmax (default: the largest |value|)."""
    z = np.asarray(z)  # [rows, cols]
    if zmax is None:
        zmax = float(np.max(np.abs(z))) if z.size else 1.0
    trace = _index_heatmap(z, x_title=x_title, y_title=y_title, value_name=value_name, zmax=zmax)
    layout = layout_dict(
        title=title,
        height=height,
        xaxis=dict(title=dict(text=x_title), showgrid=False, zeroline=False),
        yaxis=dict(title=dict(text=y_title), autorange="reversed", showgrid=False, zeroline=False),
    )
    title_below_toolbar(layout)
    return go.Figure(trace, layout)


def _offset_profiles(
    profiles: Sequence[tuple[str, OffsetProfile]], lang: str, *, y_title: str, title: str, height: int
) -> go.Figure:
    """Similarity against the offset Δ = |p - q|: for each (name, profile), the mean as a line
    and the range from the lowest to the highest pair as a shaded band. A band of zero width
    says: this similarity depends on the offset alone."""
    x_title, band_name = t("positional.offset", lang), t("positional.band", lang)
    traces = []
    for j, (name, profile) in enumerate(profiles):
        colour = QUALITATIVE[j % len(QUALITATIVE)]
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        x = np.asarray(profile.offset)
        band = np.stack([profile.low, profile.high], axis=-1).astype(np.float32)  # [n, 2]
        traces += [  # the band: one closed outline, along the highest values and back along the lowest
            go.Scatter(
                x=np.concatenate([x, x[::-1]]),
                y=np.concatenate([band[:, 1], band[::-1, 0]]),
                mode="lines",
                line=dict(width=0, color=CLEAR),
                fill="toself",
                fillcolor=f"rgba({r},{g},{b},{BAND_ALPHA})",
                name=f"{name}: {band_name}",
                hoverinfo="skip",
                legendgroup=name,
            ),
            go.Scatter(
                x0=0,
                dx=1,
                y=np.asarray(profile.mean, dtype=np.float32),
                mode="lines",
                name=name,
                legendgroup=name,
                line=dict(color=colour, width=2, dash=DASHES[j % len(DASHES)]),
                customdata=band,
                hovertemplate=f"{name}<br>{x_title}: %{{x}}<br>{y_title}: %{{y:.6f}}"
                "<br>[%{customdata[0]:.6f}, %{customdata[1]:.6f}]<extra></extra>",
            ),
        ]
    layout = layout_dict(
        title=title,
        height=height,
        xaxis=dict(title=dict(text=x_title), zeroline=False),
        yaxis=dict(title=dict(text=y_title)),
        # below everything, in the figure's own coordinates: Plotly then makes room for it
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
    )
    title_below_toolbar(layout)
    return go.Figure(traces, layout)


# --- the words and numbers beside the figures (text assembly, no Streamlit) ---------------------------


def shuffle_alt(view: ShuffleExperiment, lang: str) -> str:
    plain, pe = format_error(view.plain.max_error), format_error(view.with_pe.max_error)
    return t("positional.shuffle_alt", lang, plain=plain, pe=pe)


def shuffle_metrics(view: ShuffleExperiment, lang: str) -> list[tuple[dict, tuple[str, str, str] | None]]:
    """The two differences as metrics, each with its verdict (notice kind, words, icon) or None."""
    plain, pe = view.plain.max_error, view.with_pe.max_error
    help_text = t("positional.metric_help", lang)
    verdict_plain = ("success", t("positional.verdict_plain", lang), ":material/check:") if plain < 1e-9 else None
    verdict_pe = ("warning", t("positional.verdict_pe", lang), ":material/swap_vert:") if pe > 1e-9 else None
    return [
        (dict(label=t("positional.metric_plain", lang), value=format_error(plain), help=help_text), verdict_plain),
        (dict(label=t("positional.metric_pe", lang), value=format_error(pe), help=help_text), verdict_pe),
    ]


def same_word_reading(view: ShuffleExperiment, lang: str) -> str:
    """The first repeated word: the same output without positions, two outputs with them."""
    (p, q), (gap_plain, gap_pe) = view.repeated, view.repeated_gap
    word = literal(view.tokens[p])
    return t(
        "positional.same_word",
        lang,
        word=word,
        p=p + 1,
        q=q + 1,
        plain=format_error(gap_plain),
        pe=format_error(gap_pe),
    )


def outputs_table(view: ShuffleExperiment, lang: str) -> pd.DataFrame:
    """The four panels' outputs as one table: which check, which panel, the word, then the dimensions."""
    rows = [f"{r + 1} {w}" for r, w in enumerate(view.shuffled)]
    parts = []
    for name, check in (("positional.row_plain", view.plain), ("positional.row_pe", view.with_pe)):
        for panel, z in zip(PANELS, (check.reordered_output, check.shuffled_output), strict=True):
            df = pd.DataFrame(z, index=pd.Index(rows, name=t("positional.word", lang)))  # [T, d_model]
            df.insert(0, t("positional.col_panel", lang), PANELS.text(panel, lang))
            df.insert(0, t("positional.col_check", lang), t(name, lang))
            parts.append(df)
    return pd.concat(parts)


def curves_alt(view: SinusoidTable, dims: Sequence[int], lang: str) -> str:
    periods = ", ".join(f"{view.period[dim // 2]:.1f}" for dim in dims)
    return t("positional.curves_alt", lang, dims=", ".join(map(str, dims)), n=view.pe.shape[0] - 1, periods=periods)


def range_reading(view: SinusoidTable, lang: str) -> str:
    fastest, slowest = f"{view.period[0]:.3g}", f"{view.period[-1]:,.0f}"
    return t("positional.range_now", lang, fastest=fastest, last=len(view.omega) - 1, slowest=slowest)


def pe_table(view: SinusoidTable, lang: str) -> pd.DataFrame:
    """The whole table, one row per position p, its columns named as the curves' are."""
    names = dimension_names(lang, view.pe.shape[1])
    return pd.DataFrame(view.pe, columns=list(names)).rename_axis("p")  # [n, d_model]


def mixup_reading(view: BatchFirstMixup, lang: str) -> str:
    """Article 003's table, sequence-first, added to a batch-first x: which rows each sentence gets."""
    return t(
        "positional.mixup_reading",
        lang,
        B=view.batch,
        T=view.seq_len,
        last_b=view.batch - 1,
        last_t=view.seq_len - 1,
        wrong=view.wrong_words,
        words=view.batch * view.seq_len,
        error=f"{view.max_error:.4f}",
    )


def mixup_table(view: BatchFirstMixup, lang: str) -> pd.DataFrame:
    """One row per sentence b, one column per word t: the PE row article 003 adds, and the right one."""
    cells = [
        [
            f"PE{a} ({t('positional.mixup_should', lang, right=r)})" if a != r else f"PE{a}"
            for a, r in zip(ra, rr, strict=True)
        ]
        for ra, rr in zip(view.article_rows.tolist(), view.right_rows.tolist(), strict=True)
    ]
    columns = [t("positional.mixup_word", lang, t=i) for i in range(view.seq_len)]
    return pd.DataFrame(cells, columns=columns).rename_axis(t("positional.mixup_sentence", lang))


def dot_alt(view: Similarity, lang: str) -> str:
    return t("positional.dot_alt", lang, n=view.matrix.shape[0], diag=f"{view.matrix[0, 0]:.4g}")


def offset_alt(view: Similarity, lang: str) -> str:
    return t("positional.offset_alt", lang, spread=format_error(view.spread))


def spread_reading(view: Similarity, d_model: int, lang: str) -> str:
    spread, diag = format_error(view.spread), f"{view.matrix[0, 0]:.6g}"
    if d_model % 2 == 0:
        return t("positional.spread_even", lang, spread=spread, diag=diag)
    return t("positional.spread_odd", lang, spread=spread, diag=diag)


def dot_table(view: Similarity, lang: str) -> pd.DataFrame:
    return pd.DataFrame(view.matrix).rename_axis("p")  # [n, n]


def offset_table(view: Similarity, lang: str) -> pd.DataFrame:
    profile = view.profile
    columns = {
        t("positional.col_mean", lang): profile.mean,
        t("positional.col_low", lang): profile.low,
        t("positional.col_high", lang): profile.high,
    }
    return pd.DataFrame(columns, index=pd.Index(profile.offset, name="|p − q|"))


def rotation_alt(view: ShiftRotation, lang: str) -> str:
    return t("positional.rotation_alt", lang, pair=view.pair, k=view.check.k, angle=f"{view.angle:.4f}")


def rotation_metrics(view: ShiftRotation, n: int, d: int, lang: str) -> tuple[dict, tuple[str, str, str]]:
    """The rotation check's largest error as a metric, and its verdict (notice kind, words, icon)."""
    check, error = view.check, format_error(view.check.max_error)
    ok = check.max_error < 1e-9
    words = t(
        "positional.rotation_ok" if ok else "positional.rotation_bad", lang, n=n, pairs=d // 2, k=check.k, error=error
    )
    metric = dict(
        label=t("positional.rotation_metric", lang), value=error, help=t("positional.rotation_metric_help", lang)
    )
    return metric, ("success", words, ":material/check:") if ok else ("error", words, ":material/error:")


def rotation_table(view: ShiftRotation) -> pd.DataFrame:
    check, k, a, b = view.check, view.check.k, 2 * view.pair, 2 * view.pair + 1
    columns = {
        f"PE[p+{k}, {a}]": check.actual[:, a],
        f"PE[p+{k}, {b}]": check.actual[:, b],
        f"R·PE[p, {a}]": check.predicted[:, a],
        f"R·PE[p, {b}]": check.predicted[:, b],
    }
    return pd.DataFrame(columns).rename_axis("p")


def learned_alt(view: LearnedVsSinusoidal, lang: str) -> str:
    return t("positional.learned_alt", lang, n=view.table.shape[0], d=view.table.shape[1])


def learned_note(view: LearnedVsSinusoidal, lang: str) -> str:
    limit, norm0, median = f"{view.colour_limit:.3f}", f"{view.row_norms[0]:.2f}", f"{view.median_norm:.2f}"
    return t("positional.learned_note", lang, limit=limit, norm0=norm0, median=median)


def cosine_alt(view: LearnedVsSinusoidal, which: str, lang: str) -> str:
    n, d = view.table.shape
    if which == "learned":
        return t("positional.learned_cos_alt", lang, n=n, learned=f"{view.learned.profile.mean[1]:.3f}")
    return t("positional.sin_cos_alt", lang, n=n, d=d, fixed=f"{view.sinusoidal.profile.mean[1]:.3f}")


def learned_reading(view: LearnedVsSinusoidal, lang: str) -> str:
    return t(
        "positional.learned_reading",
        lang,
        learned=f"{view.learned.profile.mean[1]:.3f}",
        fixed=f"{view.sinusoidal.profile.mean[1]:.3f}",
        spread=f"{view.learned.spread:.3f}",
        fixed_spread=format_error(view.sinusoidal.spread),
    )


def learned_frame(view: LearnedVsSinusoidal, lang: str) -> pd.DataFrame:
    return pd.DataFrame(view.table).rename_axis("p")  # [n, 384]


def cosine_name(view: LearnedVsSinusoidal, which: str, lang: str) -> str:
    if which == "learned":
        return t("positional.learned_short", lang)
    return t("positional.sinusoidal_384", lang, d=view.table.shape[1])


def cosine_frame(view: LearnedVsSinusoidal, which: str, lang: str) -> pd.DataFrame:
    similarity = view.learned if which == "learned" else view.sinusoidal
    return pd.DataFrame(similarity.matrix).rename_axis("p")  # [n, n]


@dataclass(frozen=True)
class CheckNumbers:
    """The check-yourself answers, computed by the core (none typed by hand)."""

    value: float  # PE[100, 2] with d_model = 4: sin(100 · ω_1), ω_1 = 1/100
    near: str  # PE_3 · PE_7 with d_model = 64, as shown
    far: str  # PE_10 · PE_14: the same offset, 4


def check_numbers() -> CheckNumbers:
    pe = sinusoidal_positional_encoding(101, 4)  # [101, 4]
    table = sinusoidal_positional_encoding(15, 64)  # [15, 64]
    near, far = float(table[3] @ table[7]), float(table[10] @ table[14])
    return CheckNumbers(value=float(pe[100, 2]), near=f"{near:.6f}", far=f"{far:.6f}")
