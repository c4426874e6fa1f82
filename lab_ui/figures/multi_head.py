"""Figures of the multi-head page: a HeadsView (attention_core.head_views) and the language in,
go.Figure out, no Streamlit calls; and the tables of the numbers behind them (DataFrames for
lab_ui.widgets.show_table). Each builder looks up its own labels.

Each head keeps one Okabe-Ito colour in every figure (the split of Q, K, V, the maps, the joined
outputs, the bars), so "head 2" is the same orange everywhere. Matrices are drawn as heatmaps on
numeric axes with token tick labels, one shared colour scale per figure. Every figure's title
says where its weights come from, and random weights are called random there, also in a saved PNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.head_stats import PATTERNS
from attention_core.head_views import COST_ROWS, CostComparison, HeadDifferences, HeadsFit, HeadsView, ScalingMistake
from lab_ui.figures.common import DIVERGING_WARM, QUALITATIVE, SEQUENTIAL, heatmap, safe_label
from lab_ui.i18n import literal, t
from lab_ui.layout import FONT_FAMILY, LABEL_GAP_PX, NO_TEMPLATE, TICK_PX, layout_dict, text_px
from lab_ui.state import labels

MAX_TEXT_CELLS = 160  # print values in the cells only when a part has at most this many
# The maps' plot area in the steps' column of a 1280 px screen with the sidebar open: a figure 555 px wide,
# less the rows' labels with the axis title and the colour bar beside it.
PLOT_WIDTH_PX = 360
DETAIL_WIDTH_PX = 340  # the close-up's square map there (its colour bar and both axes' labels beside it)
LECTURE_WIDTH_PX = 1000  # the same in lecture mode: no sidebar
# Lecture mode: the figures are built this tall (at most LECTURE_FIGURE_MAX_PX anyway), so that under the title
# row, the step bar and a wrapped row of popovers a 1280x720 projector still shows each figure whole.
LECTURE_HEIGHT_PX = 390
FIGURE_PX = 400  # the entropy bars and the overlap map, side by side (lecture mode: LECTURE_HEIGHT_PX, at the page)
MIN_LABEL_GAP_PX = 13  # token labels closer than this overlap; thinned to every 2nd, 3rd, ...
LECTURE_LABEL_GAP_PX = 23  # the same for lecture mode's 20 px text
# A colour bar shorter than this cannot hold three tick labels and its title, at 12 px and at lecture
# mode's 20 px text: one along a short part of a stacked figure is drawn this long, centred on the part.
MIN_BAR_PX, LECTURE_MIN_BAR_PX = 80, 130
TITLE_LINE_PX = 16  # the second line of a part's title (12 px bold text)
TAG_ROW_PX = 20  # a second row of head tags (12 px bold numbers and their padding)
# Under a part cut into heads, each head's tag: its name up to NAMED_TAGS heads ("head 1" is about 45 px,
# a phone's part about 180 px wide), else its number; more than MANY_TAGS numbers alternate on two rows.
NAMED_TAGS, MANY_TAGS = 4, 8
RANDOM_COLOUR = "#B34E00"  # dark orange, 5.2:1 on white: the title of random weights stands out
PATTERN_NAMES = labels("multi_head.pattern_", "self", "previous", "next", "first", "last")
HEAD_NOTES = labels("multi_head.heads_", "not_divisor", "too_many", "not_number", "too_few")  # HeadsFit.reason
COST_NAMES = labels("multi_head.cost_", "qkv_per_head", "qkv", "w_o", "total", "score_products", "softmax_rows")
assert tuple(PATTERN_NAMES) == PATTERNS and tuple(COST_NAMES) == COST_ROWS


# The formula of each section, shown beside the core function that computes it (formula_and_code).
FORMULAS = {
    "split": (
        # No words in the formula (it is the same on the Chinese page): head i's block of columns by index.
        r"\begin{aligned} Q &= x\,W_q \\ d_{head} &= d_{model} / h \\"
        r" Q_i &= Q_{[:,\ c]} \\ &\phantom{=}\ (i-1)\,d_{head} < c \le i\,d_{head} \end{aligned}"
    ),
    "maps": (
        r"\begin{aligned} A_i &= Q_i K_i^{\top} \\ Q K^{\top} &= A_1 + \dots + A_h \\"
        r" \alpha_i &= \mathrm{softmax}\!\left(A_i / \sqrt{d_{head}}\right) \end{aligned}"
    ),
    "join": (
        r"\begin{aligned} \mathrm{head}_i &= \mathrm{softmax}\!\left(\frac{Q_i K_i^{\top}}{\sqrt{d_{head}}}\right)"
        r" V_i \\ \mathrm{MultiHead}(x) &= [\mathrm{head}_1, \dots, \mathrm{head}_h]\, W_o \end{aligned}"
    ),
    "differ": (
        r"\begin{aligned} H(\alpha_i) &= -\textstyle\sum_j \alpha_{ij} \log_2 \alpha_{ij} \\ H_h &= \tfrac{1}{T}"
        r" \textstyle\sum_i H(\alpha^{h}_i) \\ \mathrm{overlap}(a, b) &= \tfrac{1}{T} \textstyle\sum_{i,j}"
        r" \min(\alpha^{a}_{ij}, \alpha^{b}_{ij}) \end{aligned}"
    ),
    "cost": (
        r"\begin{aligned} & \underbrace{h \cdot 3\, d_{model}\, d_{head}}_{W_q, W_k, W_v}"
        r" + \underbrace{d_{model}^2}_{W_o} \\ &= 3\, d_{model}^2 + d_{model}^2 = 4\, d_{model}^2 \end{aligned}"
    ),
}


def sizes(view: HeadsView) -> dict[str, int]:
    """The layer's sizes by the names the texts give them: T, d_model, n_heads, d_head."""
    return dict(T=view.T, d_model=view.d_model, n_heads=view.n_heads, d_head=view.d_head)


def heads_note(fit: HeadsFit, wanted: object, d_model: int, max_heads: int, lang: str) -> str | None:
    """Why the head count drawn is not the one asked for (`wanted`: a number, or a link's text), or None."""
    if fit.reason == "ok":
        return None
    return HEAD_NOTES.text(
        fit.reason,
        lang,
        value=literal(str(wanted)),
        wanted=wanted,
        d_model=d_model,
        fallback=fit.n_heads,
        choices=", ".join(map(str, fit.options)),
        max_heads=max_heads,
        ratio=f"{fit.ratio:.2f}" if fit.ratio is not None else "",
    )


def scaling_text(view: HeadsView, gap: float | None, lang: str) -> str:
    """Under the maps: the heads' scores add up to one big head's (`gap`: the largest difference, None
    without Q and K), then article 003's mistake, whose numbers follow (mistake_table)."""
    title, body = t("multi_head.mistake_title", lang), t("multi_head.mistake_body", lang, d_head=view.d_head)
    mistake = f"**{title}**\n\n{body}"
    if gap is None:
        return mistake
    return f"{t('multi_head.sum_check', lang, n_heads=view.n_heads, gap=gap_text(gap))}\n\n{mistake}"


def gap_text(gap: float) -> str:
    """A difference that should be nothing, as a student reads it: 0 when it is exactly 0 (not
    "0.0e+00"), else its size in e-notation (8.5e-14: rounding, not a real difference)."""
    return "0" if gap == 0 else f"{gap:.1e}"


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
    return dict(
        text=f"<b>{text}</b>",
        bgcolor=head_colour(i),
        font=dict(color=_ink(head_colour(i))),
        borderpad=2,
        showarrow=False,
    )


def robust_max(z: np.ndarray) -> float:
    """The colour scale's end: the 99th percentile of |z|, so one outlier (real models have a few
    huge activations) does not wash every other cell out to white. Hover still shows the exact value."""
    finite = np.abs(z[np.isfinite(z)])
    return float(np.percentile(finite, 99)) if finite.size else 1.0


def source_title(view: HeadsView, lang: str) -> str:
    """Where the weights come from, as a figure's title: random weights are called random."""
    if view.source == "random":
        text = t("multi_head.fig_random", lang, seed=view.seed)
        return f"<span style='color:{RANDOM_COLOUR}'><b>{text}</b></span>"
    return t("multi_head.fig_model", lang, layer=view.layer_number)


def _head_name(lang: str) -> str:
    return t("multi_head.head_name", lang, i="{i}")  # "head {i}", filled per head below


def _title_break(lecture: bool) -> str:
    """Between a part's name and its shape: a projector's full width holds both on one line; a phone's
    180 px do not (the Chinese split title ran into the colour bar), so elsewhere they take two."""
    return "   " if lecture else "<br>"


def _label_step(cell_px: float, lecture: bool = False) -> int:
    """Label every token while the rows are far enough apart, else every 2nd, 3rd, ..."""
    return max(1, int(np.ceil((LECTURE_LABEL_GAP_PX if lecture else MIN_LABEL_GAP_PX) / max(cell_px, 1e-9))))


# --- stacked matrices: one matrix cut into head blocks, or head blocks joined ---------------------


@dataclass(frozen=True)
class _Part:
    """One matrix of a stacked figure on its own pair of axes, drawn as ONE heatmap: a trace per head
    would cost Plotly a few milliseconds each to serialise on every rerun (12 heads, 3 parts: 37 traces).
    Which head and which column a cell is comes from `custom`, small integers sent as binary."""

    z: np.ndarray  # the values, NaN in the gaps between heads                     [T, width]
    custom: np.ndarray | None  # head (from 1), or (column of the whole matrix, head)  [T, width(, 2)] or None
    hover: str  # the hover line naming the cell's column (and head)
    width: int  # cells across this part's x axis, gaps included
    title: str
    coloraxis: str
    boxes: list[tuple[float, float, int]] = field(default_factory=list)  # (x0, x1, head) outlines
    named: bool = False  # write each head's name under its box


def _whole(z: np.ndarray, n_heads: int, title: str, coloraxis: str, column: str, head: str | None) -> _Part:
    """A [T, d_model] matrix; with `head` (e.g. "head {i}") cut into outlined head blocks."""
    z = np.asarray(z, dtype=np.float32)  # [T, d_model]
    T, d_model = z.shape
    if head is None:
        return _Part(z, None, f"{column} %{{x}}", d_model, title, coloraxis)
    d_head = d_model // n_heads
    custom = np.repeat(np.arange(1, n_heads + 1, dtype=np.uint8), d_head)  # each column's head  [d_model]
    custom = np.ascontiguousarray(np.broadcast_to(custom, (T, d_model)))  # [T, d_model]
    boxes = [(i * d_head - 0.5, (i + 1) * d_head - 0.5, i) for i in range(n_heads)]
    hover = f"{column} %{{x}} · {head.format(i='%{customdata}')}"
    return _Part(z, custom, hover, d_model, title, coloraxis, boxes)


def _apart(blocks: np.ndarray, title: str, coloraxis: str, head: str, column: str) -> _Part:
    """[h, T, d_head] blocks side by side with a gap of empty (NaN) cells between heads, each
    outlined and named under its box; hover names the column of the whole matrix."""
    h, T, d_head = blocks.shape
    gap = max(1, d_head // 4)
    width = h * d_head + (h - 1) * gap
    z = np.full((T, width), np.nan, dtype=np.float32)  # [T, width]
    custom = np.zeros((T, width, 2), dtype=np.int16)  # [T, width, 2]
    for i in range(h):
        x0 = i * (d_head + gap)
        z[:, x0 : x0 + d_head] = blocks[i]  # [T, d_head]
        custom[:, x0 : x0 + d_head] = np.stack(np.broadcast_arrays(np.arange(i * d_head, (i + 1) * d_head), i + 1), -1)
    boxes = [(i * (d_head + gap) - 0.5, i * (d_head + gap) + d_head - 0.5, i) for i in range(h)]
    hover = f"{head.format(i='%{customdata[1]}')} · {column} %{{customdata[0]}}"
    return _Part(z, custom, hover, width, title, coloraxis, boxes, named=True)


def _stack(parts: list[_Part], view: HeadsView, lang: str, scales: dict[str, float], lecture: bool) -> go.Figure:
    """Draw the parts one under another, each on its own axes spanning the full width, rows
    labelled with the tokens, the weights' source as the title. Traces, shapes and annotations
    are collected as plain dicts and validated once, when the figure is made. In lecture mode the
    whole figure is LECTURE_HEIGHT_PX tall, its rows as high as that leaves.

    The figure does not know the screen's width, and a phone leaves the parts about 180 px: off a
    projector each part's title takes two lines (its name, then its shape), and more than MANY_TAGS
    head tags stand alternately on two rows, so neither runs into the colour bar or the next tag."""
    T, n = view.T, len(parts)
    token, value, head = t("multi_head.label_token", lang), t("multi_head.label_value", lang), _head_name(lang)
    stagger = not lecture and any(p.named and len(p.boxes) > MANY_TAGS for p in parts)
    # gap: the head names under a part, then the next part's title (a projector's 32 px tags need 66)
    if lecture:
        top_m, bottom_m, gap_h = 64, 30, 66.0
    else:
        tags = TAG_ROW_PX if stagger else 0
        top_m, gap_h = 66 + TITLE_LINE_PX, 62.0 + TITLE_LINE_PX + tags
        bottom_m = 34 + (tags if parts[-1].named else 0)
    if lecture:
        cell_h = (LECTURE_HEIGHT_PX - top_m - bottom_m - (n - 1) * gap_h) / (n * max(T, 1))
    else:
        cell_h = float(np.clip(300 / max(T, 1), 9, 30))  # px per token row
    part_h = T * cell_h
    plot_h = n * part_h + (n - 1) * gap_h
    tick_text = [safe_label(tok) for tok in view.tokens]
    rows = token_labels(tick_text)  # unique categories: repeated tokens stay apart; hover names them
    every = _label_step(cell_h, lecture)
    # Numbers in the cells while they fit: a projector's 18 px numbers need rows of 24 px at least
    show_text = (not lecture or cell_h >= 24) and all(np.count_nonzero(~np.isnan(p.z)) <= MAX_TEXT_CELLS for p in parts)
    domains = [(max(0.0, top - part_h / plot_h), top) for top in (1 - k * (part_h + gap_h) / plot_h for k in range(n))]
    traces, shapes, notes = [], [], []
    layout: dict = {
        "font": dict(family=FONT_FAMILY),
        "hoverlabel": dict(font=dict(family=FONT_FAMILY)),
        "template": NO_TEMPLATE,
        "title": dict(
            text=source_title(view, lang), x=0, xanchor="left", y=1, yanchor="top", yref="container", pad=dict(t=8)
        ),
        "margin": dict(l=10, r=10, t=top_m, b=bottom_m),
        "height": round(plot_h + top_m + bottom_m),
    }
    for k, p in enumerate(parts):
        xa, ya, (bottom, top) = f"x{k + 1}" if k else "x", f"y{k + 1}" if k else "y", domains[k]
        layout[xa.replace("x", "xaxis")] = dict(
            anchor=ya,
            domain=[0, 1],
            range=[-0.5, p.width - 0.5],
            showticklabels=False,
            ticks="",
            showgrid=False,
            zeroline=False,
        )
        layout[ya.replace("y", "yaxis")] = dict(
            # A fixed range, first token at the top: autorange would also make room for the head tags
            # under the part, which squeezed a projector's 60 px part into 23 px of rows.
            anchor=xa,
            domain=[bottom, top],
            type="category",
            categoryorder="array",
            categoryarray=rows,
            range=[T - 0.5, -0.5],
            autorange=False,
            tickmode="array",
            tickvals=rows[::every],
            ticktext=tick_text[::every],
            showgrid=False,
            zeroline=False,
        )
        traces.append(
            dict(
                type="heatmap",
                z=p.z,
                x=np.arange(p.width),
                y=rows,
                xaxis=xa,
                yaxis=ya,
                coloraxis=p.coloraxis,
                name=p.title,
                customdata=p.custom,
                hoverongaps=False,
                hovertemplate=f"{token}: %{{y}}<br>{p.hover}<br>{value}: %{{z:.4f}}<extra></extra>",
                texttemplate="%{z:.2f}" if show_text else None,
            )
        )
        notes.append(
            dict(
                text=f"<b>{p.title}</b>",
                x=0,
                xref="paper",
                y=top,
                yref="paper",
                yshift=4,
                xanchor="left",
                yanchor="bottom",
                align="left",
                showarrow=False,
            )
        )
        for x0, x1, i in p.boxes:
            shapes.append(
                dict(
                    type="rect",
                    x0=x0,
                    x1=x1,
                    y0=-0.5,
                    y1=T - 0.5,
                    xref=xa,
                    yref=ya,
                    line=dict(color=head_colour(i), width=3),
                    fillcolor="rgba(0,0,0,0)",
                )
            )
            if p.named:
                name = head.format(i=i + 1) if len(p.boxes) <= NAMED_TAGS else str(i + 1)
                down = TAG_ROW_PX if stagger and len(p.boxes) > MANY_TAGS and i % 2 else 0  # heads 2, 4, ...: row 2
                notes.append(
                    dict(
                        x=(x0 + x1) / 2,
                        y=T - 0.5,
                        xref=xa,
                        yref=ya,
                        yanchor="top",
                        yshift=-3 - down,
                        **head_tag(i, name),
                    )
                )
    for name in dict.fromkeys(p.coloraxis for p in parts):
        ks = [k for k, p in enumerate(parts) if p.coloraxis == name]
        top, bottom = domains[ks[0]][1], domains[ks[-1]][0]
        m = max(scales[name], 1e-12)
        layout[name] = dict(
            colorscale=DIVERGING_WARM, cmin=-m, cmax=m, colorbar=_bar(value, top, bottom, plot_h, bottom_m, lecture)
        )
    return go.Figure(data=traces, layout=dict(layout, shapes=shapes, annotations=notes))


def _bar(title: str, top: float, bottom: float, plot_h: float, bottom_m: float, lecture: bool) -> dict:
    """A colour bar beside the parts it serves (top, bottom: their extent in the plot, 0..1), at least
    MIN_BAR_PX long (a projector: LECTURE_MIN_BAR_PX): a projector's output part is 55 px tall, and a bar
    that short put its tick labels on one another under a title taller than the bar. A longer bar stays
    centred on its parts, and above the figure's bottom edge."""
    length = max((top - bottom) * plot_h, LECTURE_MIN_BAR_PX if lecture else MIN_BAR_PX)  # px
    low = max((top + bottom) / 2 * plot_h - length / 2, 4 - bottom_m)  # px above the plot's bottom
    return dict(
        title=dict(text=title, side="right"),
        thickness=14,
        len=length / plot_h,
        lenmode="fraction",
        y=low / plot_h,
        yanchor="bottom",
    )


def split_figure(view: HeadsView, matrix: str, lang: str, lecture: bool = False) -> go.Figure:
    """Q, K or V [T, d_model] on top, its head blocks [h, T, d_head] pulled apart below, each block
    outlined in its head's colour. Traces: the matrix, then its blocks apart (NaN between them)."""
    r = view.layer
    whole, blocks = {"Q": (r.q, r.q_heads), "K": (r.k, r.k_heads), "V": (r.v, r.v_heads)}[matrix]
    sizes = dict(
        name=matrix, T=view.T, d_model=view.d_model, n_heads=view.n_heads, d_head=view.d_head, sep=_title_break(lecture)
    )
    head, column = _head_name(lang), t("multi_head.label_column", lang)
    parts = [
        _whole(whole, view.n_heads, t("multi_head.whole_title", lang, **sizes), "coloraxis", column, head),
        _apart(blocks, t("multi_head.split_title", lang, **sizes), "coloraxis", head, column),
    ]
    return _stack(parts, view, lang, {"coloraxis": robust_max(whole)}, lecture)


def concat_figure(view: HeadsView, lang: str, lecture: bool = False) -> go.Figure:
    """The heads' outputs [h, T, d_head] apart, then joined into [T, d_model] (same colours),
    then the result of × W_o [T, d_model] on its own colour scale: W_o mixes every head into
    every column, so the head outlines end there. Traces: the heads apart, joined, the output."""
    r = view.layer
    sizes = dict(T=view.T, d_model=view.d_model, n_heads=view.n_heads, d_head=view.d_head, sep=_title_break(lecture))
    head, column = _head_name(lang), t("multi_head.label_column", lang)
    parts = [
        _apart(r.heads, t("multi_head.heads_title", lang, **sizes), "coloraxis", head, column),
        _whole(r.concat, view.n_heads, t("multi_head.concat_title", lang, **sizes), "coloraxis", column, head),
        _whole(
            r.output,
            view.n_heads,
            t("multi_head.output_title", lang, **sizes),
            "coloraxis2",
            t("multi_head.label_out_column", lang),
            None,
        ),
    ]
    scales = {"coloraxis": robust_max(r.concat), "coloraxis2": robust_max(r.output)}
    return _stack(parts, view, lang, scales, lecture)


# --- each head's attention map, side by side --------------------------------------------------


@dataclass(frozen=True)
class MapsGrid:
    """Where the small multiples go: cols x rows maps of T x T cells, `gap` cells between maps
    across and `gap_y` down (room for the head's name), `cell` px per cell at the plot's width."""

    cols: int
    rows: int
    gap: int
    gap_y: int
    cell: float
    every: int  # a token label on every `every`-th row and column (1: all of them)


# On a phone the small maps are a few pixels a cell: the keys' labels under them would overlap (the close-up has
# them, and every cell names its tokens on hover). The figure is built without knowing the screen; CSS does know it.
MAPS_ON_PHONES = (
    "<style>@media (max-width: 640px) { .st-key-mh_maps .xaxislayer-above text { display: none; } }</style>"
)
LECTURE_MAPS_PX = LECTURE_HEIGHT_PX - 100  # the maps' plot area in lecture mode: title above, axis title below
LECTURE_TAG_PX = 32  # a head's name at lecture mode's 20 px text


def maps_grid(n_heads: int, T: int, lecture: bool = False) -> MapsGrid:
    """Four maps to a row on a screen; six on a projector, where the figure must also fit in
    LECTURE_HEIGHT_PX, so two rows of six are larger than three rows of four there."""
    rows = -(-n_heads // (6 if lecture else 4))
    cols = -(-n_heads // rows)  # rows as full as they can be: 8 heads are two rows of four
    gap = max(1, round(T / 5))
    width = LECTURE_WIDTH_PX if lecture else PLOT_WIDTH_PX
    cell = float(np.clip(width / (cols * T + (cols - 1) * gap), 4, 46))
    gap_y = max(gap, int(np.ceil(30 / cell)))  # room for the head's name above each map
    if lecture:  # the rows share what LECTURE_MAPS_PX leaves after a head name above each
        cell = min(cell, (LECTURE_MAPS_PX - rows * LECTURE_TAG_PX) / (rows * T))
        gap_y = max(gap, int(np.ceil(LECTURE_TAG_PX / cell)))
    return MapsGrid(cols, rows, gap, gap_y, cell, _label_step(cell, lecture))


def maps_have_labels(n_heads: int, T: int, lecture: bool = False) -> bool:
    """Does head_maps label every token? If not, the page adds a close-up of one head."""
    return maps_grid(n_heads, T, lecture).every == 1


def head_maps(view: HeadsView, lang: str, lecture: bool = False) -> go.Figure:
    """Small multiples of the weights [h, T, T] on one shared colour scale 0..1, so the same colour
    means the same weight in every head, each map outlined in its head's colour and named above it.
    Tokens label the first column's rows and the lowest maps' columns, all of them while they fit,
    else the first and every 2nd, 3rd, ...; in lecture mode only the rows (the close-up has the rest).

    All the maps are ONE heatmap on one pair of axes, empty (NaN) cells between them: twelve maps on
    axes of their own took plotly.js about 2.5 times as long to draw, on every step of the layer
    slider. Each cell's head comes from `customdata` (small integers, sent as binary); its query
    and key from the axes' categories, "token (position)", made unique per row and column of maps
    with trailing spaces, which the hover shows as nothing."""
    weights, h, T = view.weights, view.n_heads, view.T
    g = maps_grid(h, T, lecture)
    query, key, weight = t("multi_head.query", lang), t("multi_head.key", lang), t("multi_head.weight", lang)
    text = [safe_label(s) for s in view.tokens]
    names = [f"{s} ({p + 1})" for p, s in enumerate(text)]  # what hover says of a query or a key
    step_x, step_y = T + g.gap, T + g.gap_y  # a map and the gap after it (across) or above it (down)
    width, height_cells = g.cols * step_x - g.gap, g.rows * step_y  # the grid in cells
    z = np.full((height_cells, width), np.nan, dtype=np.float32)  # [rows of cells, columns of cells]
    heads = np.zeros((height_cells, width), dtype=np.uint8)  # each cell's head, from 1; 0 in the gaps
    corners = [(c * step_x, r * step_y + g.gap_y) for r, c in (divmod(i, g.cols) for i in range(h))]  # top left
    for i, (x0, y0) in enumerate(corners):
        z[y0 : y0 + T, x0 : x0 + T] = weights[i]  # [T, T]
        heads[y0 : y0 + T, x0 : x0 + T] = i + 1
    xs = [" " * (k + 1) for k in range(width)]  # the gaps' categories: blanks of different lengths
    ys = [" " * (k + 1) for k in range(height_cells)]
    for c in range(g.cols):
        xs[c * step_x : c * step_x + T] = [n + " " * c for n in names]
    for r in range(g.rows):
        ys[r * step_y + g.gap_y : (r + 1) * step_y] = [n + " " * r for n in names]
    shown = range(0, T, g.every)  # the labelled positions of each map
    last_row = h - (g.rows - 1) * g.cols  # maps in the lowest row: the columns whose keys are labelled
    font = dict(size=int(np.clip(g.cell * 0.9 * g.every, 9, 12)))
    axis = dict(type="category", categoryorder="array", tickmode="array", tickfont=font, ticks="", showgrid=False)
    head = _head_name(lang)
    trace = dict(
        type="heatmap",
        z=z,
        x=xs,
        y=ys,
        customdata=heads,
        coloraxis="coloraxis",
        hoverongaps=False,
        texttemplate="%{z:.2f}" if T <= 6 and h <= 4 else None,
        hovertemplate=f"{head.format(i='%{customdata}')}<br>{query}: %{{y}}<br>{key}: %{{x}}<br>{weight}: %{{z:.4f}}"
        "<extra></extra>",
    )
    shapes, notes = [], []
    for i, (x0, y0) in enumerate(corners):
        box = dict(x0=x0 - 0.5, x1=x0 + T - 0.5, y0=y0 - 0.5, y1=y0 + T - 0.5, xref="x", yref="y")
        shapes.append(dict(type="rect", **box, line=dict(color=head_colour(i), width=3), fillcolor="rgba(0,0,0,0)"))
        tag = head.format(i=i + 1) if h <= NAMED_TAGS else str(i + 1)  # many heads: numbers fit a phone's narrow maps
        notes.append(dict(x=box["x0"], y=box["y0"], xref="x", yref="y", xanchor="left", yanchor="bottom", yshift=3))
        notes[-1].update(head_tag(i, tag))
    label_room = 7 * max(map(len, text), default=0)  # rotated key labels under the maps
    height = height_cells * g.cell + 50 + 40 + min(label_room, 110)
    height = LECTURE_HEIGHT_PX if lecture else int(np.clip(height, 260, 1300))  # lecture: keys on the close-up
    xaxis = dict(
        axis,
        categoryarray=xs,
        tickvals=[xs[c * step_x + j] for c in range(last_row) for j in shown],
        ticktext=[text[j] for _ in range(last_row) for j in shown],
        showticklabels=not lecture,
        tickangle=-90 if T > 4 else 0,
        title=dict(text=key),
    )
    yaxis = dict(
        axis,
        categoryarray=ys,
        autorange="reversed",
        tickvals=[ys[r * step_y + g.gap_y + j] for r in range(g.rows) for j in shown],
        ticktext=[text[j] for _ in range(g.rows) for j in shown],
        title=dict(text=query),
    )
    bar = dict(title=dict(text=weight, side="right"), thickness=14)
    layout = layout_dict(
        title=source_title(view, lang), height=height, xaxis=xaxis, yaxis=yaxis, shapes=shapes, annotations=notes
    )
    return go.Figure(
        data=[trace], layout=dict(layout, coloraxis=dict(colorscale=SEQUENTIAL, cmin=0, cmax=1, colorbar=bar))
    )


def head_detail(view: HeadsView, head: int, lang: str) -> go.Figure:
    """One head's map (head from 1), large, with every token labelled: the close-up of the small
    multiples."""
    i = head - 1
    name = t("multi_head.head_name", lang, i=head)
    title = f"<span style='color:{head_colour(i)}'>■</span> {name} · {source_title(view, lang)}"
    fig = heatmap(
        view.weights[i],
        view.tokens,
        view.tokens,
        x_title=t("multi_head.key", lang),
        y_title=t("multi_head.query", lang),
        value_name=t("multi_head.weight", lang),
        title=title,
        zmin=0.0,
        zmax=1.0,
        height=int(np.clip(24 * view.T + 170, 300, 1000)),
    )
    # Level keys while they fit their columns, else upright: an angle left to Plotly costs a measuring pass
    widest = max(text_px(safe_label(s), TICK_PX) for s in view.tokens) + LABEL_GAP_PX
    fig.layout.xaxis.tickangle = 0 if widest * view.T <= DETAIL_WIDTH_PX else -90
    return fig


# --- do the heads differ? ---------------------------------------------------------------------


def _numbers(n: int) -> list[str]:
    return [str(i + 1) for i in range(n)]  # short tick labels where the axis says "head"


def entropy_bars(view: HeadsView, diff: HeadDifferences, lang: str) -> go.Figure:
    """Each head's mean entropy in bits, one bar in each head's colour, and a dashed line at
    log2(T): a head spread evenly over every token would reach it."""
    values = np.asarray(diff.entropy, dtype=np.float32)  # [h]
    ticks = list(range(len(values)))
    names = [t("multi_head.head_name", lang, i=i + 1) for i in ticks]
    x_title, y_title = t("multi_head.col_head", lang), t("multi_head.entropy_y", lang)
    uniform = diff.uniform_bits
    label = t("multi_head.uniform_label", lang, T=view.T, bits=f"{uniform:.2f}")
    top = max(uniform, float(np.max(values, initial=0.0))) * 1.15 + 1e-9
    return go.Figure(
        data=[
            dict(
                type="bar",
                x=ticks,
                y=values,
                marker=dict(color=[head_colour(i) for i in ticks]),
                text=[f"{v:.2f}" for v in values],
                textposition="auto",
                customdata=names,
                hovertemplate=f"%{{customdata}}<br>{y_title}: %{{y:.4f}}<extra></extra>",
            )
        ],
        layout=layout_dict(
            title=source_title(view, lang),
            height=FIGURE_PX,
            xaxis=dict(title=dict(text=x_title), tickmode="array", tickvals=ticks, ticktext=_numbers(len(ticks))),
            yaxis=dict(title=dict(text=y_title), range=[0, top]),
            shapes=[
                dict(
                    type="line",
                    xref="paper",
                    x0=0,
                    x1=1,
                    y0=uniform,
                    y1=uniform,
                    line=dict(dash="dash", color="#555555", width=2),
                )
            ],
            annotations=[
                dict(text=label, xref="paper", x=0, y=uniform, xanchor="left", yanchor="bottom", showarrow=False)
            ],
        ),
    )


def overlap_heatmap(view: HeadsView, diff: HeadDifferences, lang: str) -> go.Figure:
    """Pairwise overlap of the heads' maps, 0 (they look at different tokens) to 1 (identical),
    values printed in the cells while there are few enough heads to read them."""
    z = np.asarray(diff.overlap, dtype=np.float32)  # [h, h]
    ticks = list(range(z.shape[0]))
    title, value = t("multi_head.col_head", lang), t("multi_head.overlap_value", lang)
    names = np.array([t("multi_head.head_name", lang, i=i + 1) for i in ticks], dtype=object)
    custom = np.stack(np.broadcast_arrays(names[:, None], names[None, :]), axis=-1)  # [h, h, 2]
    axis = dict(
        title=dict(text=title),
        tickmode="array",
        tickvals=ticks,
        ticktext=_numbers(len(ticks)),
        showgrid=False,
        zeroline=False,
    )
    return go.Figure(
        data=[
            dict(
                type="heatmap",
                z=z,
                x=ticks,
                y=ticks,
                zmin=0.0,
                zmax=1.0,
                colorscale=SEQUENTIAL,
                customdata=custom,
                texttemplate="%{z:.2f}" if len(ticks) <= 8 else None,
                hovertemplate=f"%{{customdata[0]}} · %{{customdata[1]}}<br>{value}: %{{z:.4f}}<extra></extra>",
                colorbar=dict(title=dict(text=value, side="right"), thickness=14),
            )
        ],
        layout=layout_dict(
            title=source_title(view, lang),
            height=FIGURE_PX,
            xaxis=dict(axis, side="bottom", constrain="domain"),
            yaxis=dict(axis, autorange="reversed", scaleanchor="x"),
        ),
    )


def token_labels(tokens: Sequence[str]) -> list[str]:
    """Row names for the numbers tables and the stacked figures' hover: position and token, unique even
    when a token repeats. Positions count from 1, as the source articles (a_1 ... a_T) and the other pages do."""
    return [f"{p}: {tok}" for p, tok in enumerate(tokens, start=1)]


# --- the numbers behind the figures, as tables (pandas; shown and downloaded by show_table) ----


def _heads_index(n: int, lang: str) -> pd.Index:
    return pd.Index([t("multi_head.head_name", lang, i=i + 1) for i in range(n)], name=t("multi_head.col_head", lang))


def _rows(view: HeadsView, lang: str) -> pd.Index:
    return pd.Index(token_labels(view.tokens), name=t("multi_head.label_token", lang))


def _head_columns(view: HeadsView) -> list[str]:
    return [f"h{i + 1}:c{c}" for i in range(view.n_heads) for c in range(view.d_head)]  # "h2:c1": head 2's column 1


def split_table(view: HeadsView, matrix: str, lang: str) -> pd.DataFrame:
    """Q, K or V, one row per token, columns named by head and column."""
    whole = {"Q": view.layer.q, "K": view.layer.k, "V": view.layer.v}[matrix]  # [T, d_model]
    return pd.DataFrame(whole, index=_rows(view, lang), columns=_head_columns(view))


def maps_table(view: HeadsView, lang: str) -> pd.DataFrame:
    """Every weight: one row per (head, query), one column per key."""
    h, T = view.n_heads, view.T
    keys = token_labels(view.tokens)
    table = pd.DataFrame(view.weights.reshape(h * T, T), columns=keys)  # [h·T, T]
    table.insert(0, t("multi_head.query", lang), keys * h)
    table.insert(0, t("multi_head.col_head", lang), np.repeat(list(_heads_index(h, lang)), T))
    return table


def joined_table(view: HeadsView, lang: str) -> pd.DataFrame:
    """The joined heads and the output after W_o, one row per token."""
    columns = _head_columns(view) + [f"out:c{c}" for c in range(view.d_model)]
    return pd.DataFrame(np.hstack([view.layer.concat, view.layer.output]), index=_rows(view, lang), columns=columns)


def stats_table(diff: HeadDifferences, lang: str) -> pd.DataFrame:
    """Per head: mean entropy and the share of each simple pattern."""
    table = pd.DataFrame(
        diff.patterns,
        index=_heads_index(len(diff.entropy), lang),
        columns=[PATTERN_NAMES.text(p, lang) for p in PATTERNS],
    )
    table.insert(0, t("multi_head.entropy_col", lang), diff.entropy)
    return table


def overlap_table(diff: HeadDifferences, lang: str) -> pd.DataFrame:
    heads = _heads_index(len(diff.entropy), lang)
    return pd.DataFrame(diff.overlap, index=heads, columns=list(heads))


def mistake_table(m: ScalingMistake, lang: str) -> pd.DataFrame:
    """The right scaling against article 003's: factor, mean entropy, mean largest weight."""
    index = pd.Index(
        [t("multi_head.scale_right", lang), t("multi_head.scale_wrong", lang)], name=t("multi_head.scale_col", lang)
    )
    return pd.DataFrame(
        {
            t("multi_head.factor_col", lang): m.factors,
            t("multi_head.entropy_col", lang): m.entropy,
            t("multi_head.max_col", lang): m.peak,
        },
        index=index,
    )


def cost_table(cost: CostComparison, lang: str) -> pd.DataFrame:
    """h heads against one wide head, one row per quantity (short names: the caption explains)."""
    index = pd.Index([COST_NAMES.text(r, lang) for r in cost.rows], name=t("multi_head.cost_quantity", lang))
    many, one = t("multi_head.cost_many", lang, n_heads=cost.many.n_heads), t("multi_head.cost_one", lang)
    values = {many: [getattr(cost.many, r) for r in cost.rows], one: [getattr(cost.one, r) for r in cost.rows]}
    return pd.DataFrame(values, index=index)


def differences_text(diff: HeadDifferences, lang: str, model: bool = False) -> str:
    """The pairs that stand out, and the heads with a clear job, as markdown, with what a job's share
    measures. model: the real model's heads, whose rows include [CLS] and [SEP], which the real-model
    page leaves out of its own scores: said, so a student comparing the two pages knows why they differ."""
    name = [t("multi_head.head_name", lang, i=i + 1) for i in range(len(diff.entropy))]
    lines = [t("multi_head.one_head_only", lang)] if diff.most_alike is None else []
    if (high := diff.most_alike) is not None and len(name) == 2:
        lines.append(t("multi_head.one_pair", lang, a=name[high.a], b=name[high.b], overlap=f"{high.overlap:.2f}"))
    elif high is not None:
        low = diff.least_alike
        pair = dict(a=name[high.a], b=name[high.b], high=f"{high.overlap:.2f}", c=name[low.a], d=name[low.b])
        lines.append(t("multi_head.most_alike", lang, **pair, low=f"{low.overlap:.2f}"))
    jobs = [
        t(
            "multi_head.job",
            lang,
            head=name[j.head],
            pattern=PATTERN_NAMES.text(j.pattern, lang),
            share=f"{j.share:.0%}",
        )
        for j in diff.jobs
    ]
    lines.append(
        t("multi_head.jobs", lang) + "\n" + "".join(f"\n- {j}" for j in jobs) if jobs else t("multi_head.no_jobs", lang)
    )
    if jobs and model:
        lines.append(t("multi_head.jobs_model", lang, page=t("real_model.nav", lang)))
    return "\n\n".join(lines)
