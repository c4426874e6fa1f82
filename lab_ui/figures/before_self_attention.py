"""Figures and tables of the page "from attention to self-attention": core results and a language
in, go.Figure or DataFrame out, no Streamlit calls. Each builder looks up its own labels.

Positions count from 1 (word 1 is the first), as the page's words do. A word outside the model's
dictionary is drawn in grey on its axis: the model never saw its vector, so its row or column
shows untrained behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.bottleneck import BottleneckCurves
from attention_core.encoder_decoder import EncoderDecoderView, OutputKinds, TranslationModel
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL, row_rules, safe_label
from lab_ui.i18n import literal, t
from lab_ui.layout import layout_dict
from lab_ui.state import labels

KNOWN = {True: "before_self_attention.known_True", False: "before_self_attention.known_False"}  # in the dictionary?
SIDES = labels("before_self_attention.side_", "target", "source", "both")  # where a matrix's rows come from
AGREEMENT = labels("before_self_attention.agreement_", "some", "none")
KINDS = labels("before_self_attention.kind_", "learned")  # where the weights come from

# The formulas beside the core code that computes them (the page folds them).
BN_LATEX = (
    r"\begin{aligned} C &= h_T \\ C_i &= \textstyle\sum_j \alpha_{ij} h_j,\quad"
    r" \alpha_{ii} = \dfrac{e^{g}}{e^{g} + T - 1} \\ R^2 &= 1 - \frac{\sum (y - \hat y)^2}{\sum (y - \bar y)^2}"
    r"\end{aligned}"
)
SHAPES_LATEX = (
    r"\begin{aligned} Q &= X_{\text{target}} W_q \\ K &= X_{\text{source}} W_k,\quad V = X_{\text{source}} W_v \\"
    r" A' &= \operatorname{softmax}\!\Big(\frac{Q K^\top}{\sqrt{d_k}}\Big) \in \mathbb{R}^{T_{\text{target}}"
    r" \times T_{\text{source}}} \\ C &= A' V \end{aligned}"
)
KINDS_LATEX = (
    r"\begin{aligned} O &= \mathrm{SelfAttention}(X) \in \mathbb{R}^{T \times d} \\ y_i &= \operatorname{argmax}"
    r"\, O_i W_{\text{out}} \quad (T\ \text{labels}) \\ \bar o &= \tfrac{1}{T} \textstyle\sum_i O_i,\quad"
    r" y = \operatorname{argmax}\, \bar o\, W_{\text{out}} \quad (1\ \text{label}) \end{aligned}"
)

UNKNOWN_COLOUR = "#9a9a9a"
TARGET_COLOUR = QUALITATIVE[1]  # orange: what comes from the target (Chinese) side
SOURCE_COLOUR = QUALITATIVE[0]  # blue: what comes from the source (English) side
MIXED_COLOUR = QUALITATIVE[3]  # purple: target rows against source columns
ALIGNED_COLOUR = QUALITATIVE[5]  # vermilion: the dictionary's translation, seen on viridis' yellow and purple alike
CELL_TEXT_MAX = 10  # words on a side up to which every cell's weight is written in it
# Legends sit at the bottom of the figure, below the axis title: at the top a legend that wraps
# (a phone, lecture mode's larger text) would run into the title. LEGEND_MARGIN leaves it room.
LEGEND = dict(orientation="h", x=0, xanchor="left", y=0, yref="container", yanchor="bottom")
LEGEND_MARGIN = 105
SHAPES_LEGEND_MARGIN = 60  # the shapes drawing has no axis labels: its legend's row (two on a phone)
# Tall enough for the plot, short enough that in lecture mode the figure is whole on a 1280 x 720
# projector's first screen, under the title row, the step bar and the folded text.
HEIGHT = 385
# What the page's first screen leaves a figure in lecture mode (three popovers in the title row take
# two lines): pages/before_self_attention.py draws every figure no taller there.
LECTURE_PX = 290


def _ticks(words: Sequence[str], known: np.ndarray) -> list[str]:
    """Tick texts: the word, escaped, and in grey when the model never saw it."""
    return [
        safe_label(w) if k else f'<span style="color:{UNKNOWN_COLOUR}">{safe_label(w)}?</span>'
        for w, k in zip(words, known, strict=True)
    ]


def _numbered(words: Sequence[str]) -> np.ndarray:
    return np.array([f"{safe_label(w)} ({i + 1})" for i, w in enumerate(words)], dtype=object)  # [n]


def _weights_map(
    weights: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    known_rows: np.ndarray,
    known_cols: np.ndarray,
    aligned: np.ndarray | None,
    *,
    title: str,
    row_title: str,
    col_title: str,
    lang: str,
    colour_bar: bool = True,
) -> go.Figure:
    """weights [n_rows, n_cols] as a heatmap, rows read as queries; aligned: bool [n_rows, n_cols]
    cells outlined as the dictionary's translation (None: none). colour_bar=False: none of its
    own, where a map beside it shows the same 0 to 1 scale."""
    z = np.asarray(weights, dtype=np.float32)  # [n_rows, n_cols]
    n_rows, n_cols = z.shape
    value = t("before_self_attention.weight", lang)
    hover_rows = np.broadcast_to(_numbered(rows)[:, None], z.shape)  # [n_rows, n_cols]
    hover_cols = np.broadcast_to(_numbered(cols)[None, :], z.shape)  # [n_rows, n_cols]
    data = [
        go.Heatmap(
            z=z,
            x=list(range(n_cols)),
            y=list(range(n_rows)),
            zmin=0.0,
            zmax=1.0,
            colorscale=SEQUENTIAL,
            customdata=np.stack([hover_rows, hover_cols], axis=-1),
            texttemplate="%{z:.2f}" if max(n_rows, n_cols) <= CELL_TEXT_MAX else None,
            hovertemplate=f"{row_title}: %{{customdata[0]}}<br>{col_title}: %{{customdata[1]}}"
            f"<br>{value}: %{{z:.4f}}<extra></extra>",
            colorbar=dict(thickness=10, title=dict(text=value, side="right")),
            showscale=colour_bar,
        )
    ]
    # The dictionary's translations outlined: a frame around the cell leaves its number readable
    # (a ring drawn on the cell crossed out "1.00" and turned "0.85" into ")85").
    outlines = (
        [
            dict(
                type="rect",
                xref="x",
                yref="y",
                x0=c - 0.46,
                x1=c + 0.46,
                y0=r - 0.46,
                y1=r + 0.46,
                line=dict(color=ALIGNED_COLOUR, width=3),
                fillcolor="rgba(0,0,0,0)",
                layer="above",
            )
            for r, c in zip(*np.nonzero(aligned), strict=True)
        ]
        if aligned is not None
        else []
    )
    row_step, col_step = int(np.ceil(n_rows / 20)), int(np.ceil(n_cols / 20))  # past 20 words, every other one
    layout = layout_dict(
        title=title,
        shapes=outlines,
        height=int(np.clip(200 + 40 * n_rows, HEIGHT, 660)),
        xaxis=dict(
            title=col_title,
            tickmode="array",
            tickvals=list(range(0, n_cols, col_step)),
            ticktext=_ticks(cols, known_cols)[::col_step],
            side="bottom",
            showgrid=False,
            zeroline=False,
            tickangle=None,  # Plotly slants the labels itself when they would overlap
            # without a colour bar on the right, slanted ones lean left, over the row labels'
            # margin: leaning right, the last one ran past the figure's edge and was not drawn
            autotickangles=None if colour_bar else [0, -30, -90],
        ),
        yaxis=dict(
            title=row_title,
            tickmode="array",
            tickvals=list(range(0, n_rows, row_step)),
            ticktext=_ticks(rows, known_rows)[::row_step],
            autorange="reversed",
            showgrid=False,
            zeroline=False,
        ),
    )
    return go.Figure(data=data, layout=layout)


def cross_map(view: EncoderDecoderView, lang: str) -> go.Figure:
    """The learned cross-attention: Chinese words (queries, rows) against English words (keys,
    columns), the dictionary's alignment outlined.  weights [T_target, T_source]"""
    pair = view.pair
    return _weights_map(
        view.cross.weights,
        pair.target,
        pair.source,
        pair.known_target,
        pair.known_source,
        pair.alignment,
        title=t("before_self_attention.cross_title", lang),
        row_title=t("before_self_attention.target_axis", lang),
        col_title=t("before_self_attention.source_axis", lang),
        lang=lang,
    )


def self_map(view: EncoderDecoderView, lang: str, beside_cross: bool = False) -> go.Figure:
    """The same learned layer with Target = Source: English against English.  [T_source, T_source]
    beside_cross (a projector, where the two maps always stand side by side): no colour bar, the
    cross map's on its left has the same scale; the room it took gives the English key labels,
    at lecture mode's 20 px, the width to stand apart ("machine learning" read as one label)."""
    pair = view.pair
    return _weights_map(
        view.self_source.weights,
        pair.source,
        pair.source,
        pair.known_source,
        pair.known_source,
        None,
        title=t("before_self_attention.self_title", lang),
        row_title=t("before_self_attention.source_query_axis", lang),
        col_title=t("before_self_attention.source_axis", lang),
        lang=lang,
        colour_bar=not beside_cross,
    )


def cross_table(view: EncoderDecoderView, lang: str) -> pd.DataFrame:
    """The cross-attention weights, one row per Chinese word, with the word its C_i reads out."""
    pair = view.pair
    index = pd.Index(
        [f"{i + 1} · {w}" for i, w in enumerate(pair.target)], name=t("before_self_attention.target_axis", lang)
    )
    columns = [f"{j + 1} · {w}" for j, w in enumerate(pair.source)]
    table = pd.DataFrame(view.cross.weights, index=index, columns=columns)
    table[t("before_self_attention.col_read_out", lang)] = view.predicted
    table[t("before_self_attention.col_known", lang)] = [t(KNOWN[bool(k)], lang) for k in pair.known_target]
    return table


def self_table(view: EncoderDecoderView, lang: str) -> pd.DataFrame:
    """The self-attention weights of the English sentence, one row per word (each sums to 1)."""
    words = [f"{j + 1} · {w}" for j, w in enumerate(view.pair.source)]
    index = pd.Index(words, name=t("before_self_attention.source_query_axis", lang))
    return pd.DataFrame(view.self_source.weights, index=index, columns=words)


def loss_table(model: TranslationModel, lang: str) -> pd.DataFrame:
    steps = pd.Index(np.arange(1, model.losses.size + 1), name=t("before_self_attention.loss_x", lang))
    return pd.DataFrame({t("before_self_attention.loss", lang): model.losses}, index=steps)


def training_curve(model: TranslationModel, lang: str) -> go.Figure:
    """The loss of the training run that learned the weights, with log 24 (guessing) for scale."""
    steps = np.arange(1, model.losses.size + 1)
    guess = float(np.log(24))
    data = [
        go.Scatter(
            x=steps,
            y=np.asarray(model.losses, dtype=np.float32),
            mode="lines",
            name=t("before_self_attention.loss", lang),
            line=dict(color=SOURCE_COLOUR, width=2),
        ),
        go.Scatter(
            x=[1, steps[-1]],
            y=[guess, guess],
            mode="lines",
            name=t("before_self_attention.loss_guess", lang),
            line=dict(color="rgba(90,90,90,0.8)", dash="dash", width=1),
        ),
    ]
    layout = layout_dict(
        title=t("before_self_attention.loss_title", lang),
        height=340,
        xaxis=dict(title=t("before_self_attention.loss_x", lang)),
        yaxis=dict(title=t("before_self_attention.loss_y", lang), type="log"),
        legend=LEGEND,
    )
    layout["margin"]["b"] = LEGEND_MARGIN
    return go.Figure(data=data, layout=layout)


# --- the bottleneck -------------------------------------------------------------------------------


def bottleneck_figure(curves: BottleneckCurves, sentence_length: int, lang: str) -> go.Figure:
    """R² of the source read back from one fixed C and from each C_i, against the source's length,
    with the ceiling no linear read-out of C can pass, and the student's sentence length marked."""
    T = curves.T_values
    data = [
        go.Scatter(
            x=T,
            y=curves.per_step.astype(np.float32),
            mode="lines+markers",
            name=t("before_self_attention.bn_per_step", lang),
            line=dict(color=TARGET_COLOUR, width=3),
            marker=dict(symbol="square", size=6),
        ),
        go.Scatter(
            x=T,
            y=curves.fixed.astype(np.float32),
            mode="lines+markers",
            name=t("before_self_attention.bn_fixed", lang),
            line=dict(color=SOURCE_COLOUR, width=3),
            marker=dict(symbol="circle", size=6),
        ),
        go.Scatter(
            x=T,
            y=curves.ceiling.astype(np.float32),
            mode="lines",
            name=t("before_self_attention.bn_ceiling", lang),
            line=dict(color="rgba(90,90,90,0.8)", dash="dash", width=2),
        ),
    ]
    shapes, annotations = [], []
    if 1 <= sentence_length <= T[-1]:
        shapes.append(
            dict(
                type="line",
                x0=sentence_length,
                x1=sentence_length,
                y0=0,
                y1=1,
                yref="paper",
                line=dict(color="rgba(120,120,120,0.7)", dash="dot", width=2),
            )
        )
        annotations.append(
            dict(
                x=sentence_length,
                y=0,
                yref="paper",
                yanchor="bottom",
                xanchor="left",
                showarrow=False,
                text=t("before_self_attention.bn_your_sentence", lang, T=sentence_length),
            )
        )
    layout = layout_dict(
        title=t("before_self_attention.bn_title", lang),
        height=HEIGHT,
        xaxis=dict(title=t("before_self_attention.bn_x", lang), range=[0.5, T[-1] + 0.5]),
        yaxis=dict(title=t("before_self_attention.bn_y", lang), range=[0, 1.05]),
        legend=LEGEND,
        shapes=shapes,
        annotations=annotations,
    )
    layout["margin"]["b"] = LEGEND_MARGIN
    return go.Figure(data=data, layout=layout)


def by_position_figure(curves: BottleneckCurves, lang: str) -> go.Figure:
    """At the longest length: how well each source word is read back, from C and from its C_i."""
    T = curves.T_values
    data = [
        go.Bar(
            x=T,
            y=curves.per_step_by_position.astype(np.float32),
            name=t("before_self_attention.bn_per_step", lang),
            marker_color=TARGET_COLOUR,
        ),
        go.Bar(
            x=T,
            y=curves.fixed_by_position.astype(np.float32),
            name=t("before_self_attention.bn_fixed", lang),
            marker_color=SOURCE_COLOUR,
        ),
    ]
    layout = layout_dict(
        title=t("before_self_attention.pos_title", lang, T=int(T[-1])),
        height=HEIGHT - 20,
        barmode="group",
        xaxis=dict(title=t("before_self_attention.pos_x", lang)),
        yaxis=dict(title=t("before_self_attention.bn_y", lang), range=[0, 1.05]),
        legend=LEGEND,
    )
    layout["margin"]["b"] = LEGEND_MARGIN
    return go.Figure(data=data, layout=layout)


def bottleneck_table(curves: BottleneckCurves, lang: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            t("before_self_attention.bn_fixed", lang): curves.fixed,
            t("before_self_attention.bn_per_step", lang): curves.per_step,
            t("before_self_attention.bn_ceiling", lang): curves.ceiling,
            t("before_self_attention.col_aligned_weight", lang): curves.aligned_weight,
        },
        index=pd.Index(curves.T_values, name=t("before_self_attention.bn_x", lang)),
    )


def by_position_table(curves: BottleneckCurves, lang: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            t("before_self_attention.bn_fixed", lang): curves.fixed_by_position,
            t("before_self_attention.bn_per_step", lang): curves.per_step_by_position,
        },
        index=pd.Index(curves.T_values, name=t("before_self_attention.pos_x", lang)),
    )


# --- shapes ---------------------------------------------------------------------------------------


def shapes(view: EncoderDecoderView, target_is_source: bool) -> tuple[tuple[str, int, int, str], ...]:
    """(name, rows, columns, side) of every matrix of one cross-attention (or, with Target =
    Source, self-attention) layer; side says where its rows come from: target, source or both."""
    result = view.self_source if target_is_source else view.cross
    rows = "source" if target_is_source else "target"
    x_rows = view.source_x if target_is_source else view.target_x
    return (
        ("X_query", *x_rows.shape, rows),
        ("X_source", *view.source_x.shape, "source"),
        ("Q", *result.q.shape, rows),
        ("K", *result.k.shape, "source"),
        ("V", *result.v.shape, "source"),
        ("A'", *result.weights.shape, "both" if not target_is_source else "source"),
        ("C", *result.output.shape, rows),
    )


_FORMULA = {
    "X_query": "X_query",
    "X_source": "X_source",
    "Q": "X_query W_q",
    "K": "X_source W_k",
    "V": "X_source W_v",
    "A'": "softmax(Q Kᵀ / √d_k)",
    "C": "A' V",
}


def shapes_table(view: EncoderDecoderView, target_is_source: bool, lang: str) -> pd.DataFrame:
    """One row per matrix: how it is computed, its shape in symbols and in numbers."""
    t_rows = "T_source" if target_is_source else "T_target"
    symbolic = {
        "X_query": f"[{t_rows}, d_model]",
        "X_source": "[T_source, d_model]",
        "Q": f"[{t_rows}, d_k]",
        "K": "[T_source, d_k]",
        "V": "[T_source, d_v]",
        "A'": f"[{t_rows}, T_source]",
        "C": f"[{t_rows}, d_v]",
    }
    rows = shapes(view, target_is_source)
    return pd.DataFrame(
        {
            t("before_self_attention.col_formula", lang): [_FORMULA[name] for name, *_ in rows],
            t("before_self_attention.col_shape", lang): [symbolic[name] for name, *_ in rows],
            t("before_self_attention.col_numbers", lang): [f"[{r}, {c}]" for _, r, c, _ in rows],
            t("before_self_attention.col_side", lang): [SIDES.text(side, lang) for *_, side in rows],
        },
        index=pd.Index([name for name, *_ in rows], name=t("before_self_attention.col_matrix", lang)),
    )


def shapes_figure(view: EncoderDecoderView, target_is_source: bool, lang: str) -> go.Figure:
    """Q · Kᵀ = A', A' · V = C as blocks drawn to scale (one square per number), coloured by the
    side their rows come from: the shapes can be read off the picture."""
    rows = {name: (r, c, side) for name, r, c, side in shapes(view, target_is_source)}
    colour = {"target": TARGET_COLOUR, "source": SOURCE_COLOUR, "both": MIXED_COLOUR}
    t_q, d_k = rows["Q"][:2]
    t_s, d_v = rows["V"][:2]
    blocks = [
        ("Q", t_q, d_k, rows["Q"][2]),
        ("Kᵀ", d_k, t_s, "source"),
        ("A'", t_q, t_s, rows["A'"][2]),
        ("V", t_s, d_v, "source"),
        ("C", t_q, d_v, rows["C"][2]),
    ]
    operators = ["·", "=", "·", "="]
    gap = max(3.0, 0.12 * sum(c for _, _, c, _ in blocks))
    x, fills, labels, shapes_text = 0.0, {}, [], []
    for n, (name, r, c, side) in enumerate(blocks):
        xs, ys = fills.setdefault(side, ([], []))
        xs += [x, x + c, x + c, x, x, None]
        ys += [0, 0, -r, -r, 0, None]
        labels.append((x + c / 2, 0.0, f"<b>{name}</b>"))
        shapes_text.append((x + c / 2, -r, f"{r} × {c}"))
        x += c
        if n < len(operators):
            labels.append((x + gap / 2, -min(r, t_q) / 2 - 1.2, f"<b>{operators[n]}</b>"))
            x += gap
    data = [
        go.Scatter(
            x=xs,
            y=ys,
            fill="toself",
            mode="lines",
            line=dict(color=colour[side], width=1),
            fillcolor=colour[side],
            opacity=0.55,
            hoverinfo="skip",
            name=SIDES.text(side, lang),
        )
        for side, (xs, ys) in fills.items()
    ]
    data.append(
        go.Scatter(
            x=[a for a, _, _ in labels],
            y=[b for _, b, _ in labels],
            mode="text",
            text=[s for _, _, s in labels],
            textposition="top center",
            hoverinfo="skip",
            showlegend=False,
            textfont=dict(size=18),
        )
    )
    data.append(
        go.Scatter(
            x=[a for a, _, _ in shapes_text],
            y=[b for _, b, _ in shapes_text],
            mode="text",
            text=[s for _, _, s in shapes_text],
            textposition="bottom center",
            hoverinfo="skip",
            showlegend=False,
        )
    )
    tallest = max(r for _, r, _, _ in blocks)
    # About 11 px a number, so the blocks are read off a projector too: the drawing (tallest + 8 units
    # high, with its labels) under the title, a legend row below; the axes are hidden, so the legend
    # needs only its own row, not the LEGEND_MARGIN kept for axis labels in the other figures.
    layout = layout_dict(
        title=t("before_self_attention.shapes_title", lang),
        height=int(np.clip(11 * (tallest + 8) + 50 + SHAPES_LEGEND_MARGIN, 240, HEIGHT)),
        xaxis=dict(visible=False, range=[-1, x + 1]),
        yaxis=dict(visible=False, range=[-tallest - 4, 4], scaleanchor="x", scaleratio=1),
        legend=LEGEND,
    )
    layout["margin"]["b"] = SHAPES_LEGEND_MARGIN
    return go.Figure(data=data, layout=layout)


# Lecture mode's labels are 20 px: a map's row labels need this much height each, and the title and
# the key labels below (slanted, on a sentence of six words or more) take about LABELS_MARGIN of the
# figure's height (140 left 17 px rows for six words, and their labels ran into each other).
LECTURE_LABEL_PX, LABELS_MARGIN = 24, 190
# Plotly slants an axis's labels only once two of them overlap: in lecture mode "machine" and
# "learning" stood 6 px apart on the self-attention map and read as one label. A no-break space
# either side of a key label (about 5 px at 20 px; a plain space would be trimmed) makes labels that
# close count as overlapping, so Plotly slants them instead.
LABEL_AIR = "\u00a0"


def shorter(fig: go.Figure, height: int) -> go.Figure:
    """A copy no taller than `height` pixels (the original may sit in a cache). A weights map keeps
    only as many row labels as fit the shorter plot (every other word, every third ...), so that
    lecture mode's 20 px labels never pile up on each other, and its key labels keep air between
    them (LABEL_AIR)."""
    out = go.Figure(fig).update_layout(height=min(fig.layout.height or height, height))
    # The row title on two lines ("query:" / "English word"): on one line, at 20 px, it was taller
    # than a short map and ran into the figure's title.
    if fig.layout.yaxis.title.text:
        out.update_layout(yaxis_title_text=re.sub(r"([:：])\s*", r"\1<br>", fig.layout.yaxis.title.text, count=1))
    ticks = fig.layout.yaxis.tickvals
    if fig.data and fig.data[0].type == "heatmap" and fig.data[0].texttemplate:
        # Every cell holds its number: the colour bar says nothing more, and on a projector the width it
        # took slanted the cross map's English key labels, which left its plot a 70 px strip.
        out.update_traces(selector=dict(type="heatmap"), showscale=False)
    if fig.data and fig.data[0].type == "heatmap" and fig.layout.xaxis.ticktext:
        out.update_layout(xaxis_ticktext=[f"{LABEL_AIR}{s}{LABEL_AIR}" for s in fig.layout.xaxis.ticktext])
    if fig.data and fig.data[0].type == "heatmap" and ticks and len(ticks) > 1:
        fit = max(1, (out.layout.height - LABELS_MARGIN) // LECTURE_LABEL_PX)  # labels the plot has room for
        keep = int(np.ceil(len(ticks) / fit))  # every keep-th of the labels the map was built with
        if keep > 1:
            out.update_layout(
                yaxis=dict(tickvals=list(ticks[::keep]), ticktext=list(fig.layout.yaxis.ticktext[::keep]))
            )
    return out


# --- article 001's three kinds of output -------------------------------------------------------------


def output_kinds_figure(kinds: OutputKinds, lang: str) -> go.Figure:
    """The self-attention outputs O, one row per English word with its label (one label per vector),
    and under them their mean with its one label (one label per sequence).  z [T_source + 1, d_model]"""
    z = np.vstack([kinds.outputs, kinds.pooled[None, :]]).astype(np.float32)  # [T_source + 1, d_model]
    rows = [f"{safe_label(w)} → {safe_label(label)}" for w, label in zip(kinds.source, kinds.per_vector, strict=True)]
    rows.append(f"<b>{t('before_self_attention.kinds_mean', lang)} → {safe_label(kinds.per_sequence)}</b>")
    limit = float(np.max(np.abs(z))) or 1.0
    value = t("before_self_attention.kinds_value", lang)
    data = [
        go.Heatmap(
            z=z,
            y=list(range(len(rows))),
            colorscale="RdBu",
            reversescale=True,
            zmin=-limit,
            zmax=limit,
            colorbar=dict(title=dict(text=value, side="right"), thickness=14),
            hovertemplate=f"%{{y}}<br>{t('before_self_attention.kinds_dim', lang)}: %{{x}}<br>{value}: %{{z:.3f}}"
            "<extra></extra>",
        )
    ]
    layout = layout_dict(
        title=t("before_self_attention.kinds_title", lang),
        height=HEIGHT,
        xaxis=dict(title=t("before_self_attention.kinds_dim", lang), showgrid=False, zeroline=False, tickangle=0),
        yaxis=dict(
            tickvals=list(range(len(rows))),
            ticktext=rows,
            autorange="reversed",
            showgrid=False,
            zeroline=False,
        ),
        shapes=[
            row_rules(len(rows), width=1),  # a line between rows: each is a vector of its own
            dict(  # a darker line between the words' outputs and their mean
                type="line",
                xref="paper",
                x0=0,
                x1=1,
                yref="y",
                y0=len(rows) - 1.5,
                y1=len(rows) - 1.5,
                line=dict(color="#333", width=2),
            ),
        ],
    )
    return go.Figure(data=data, layout=layout)


def output_kinds_alt(kinds: OutputKinds, lang: str) -> str:
    labels_ = ", ".join(f"{w} → {label}" for w, label in zip(kinds.source, kinds.per_vector, strict=True))
    return t("before_self_attention.kinds_alt", lang, T=len(kinds.source), labels=labels_, label=kinds.per_sequence)


def output_kinds_table(kinds: OutputKinds, lang: str) -> pd.DataFrame:
    """One row per output vector and one for their mean: its label and the head's probability of it."""
    words = [*(f"{i + 1} · {w}" for i, w in enumerate(kinds.source)), t("before_self_attention.kinds_mean", lang)]
    return pd.DataFrame(
        {
            t("before_self_attention.kinds_col_label", lang): [*kinds.per_vector, kinds.per_sequence],
            t("before_self_attention.kinds_col_p", lang): [*kinds.per_vector_p.tolist(), kinds.per_sequence_p],
        },
        index=pd.Index(words, name=t("before_self_attention.source_axis", lang)),
    )


def output_kinds_reading(kinds: OutputKinds, lang: str) -> str:
    """The three kinds, each with the numbers of this sentence and article 001's examples."""
    tags = " · ".join(
        f"{literal(w)} → {literal(label)}" for w, label in zip(kinds.source, kinds.per_vector, strict=True)
    )
    return t(
        "before_self_attention.kinds_reading",
        lang,
        T=len(kinds.source),
        tags=tags,
        label=literal(kinds.per_sequence),
        p=f"{kinds.per_sequence_p:.2f}",
        n=len(kinds.sequence),
        words=literal(" ".join(kinds.sequence)),
    )


def bottleneck_reading(curves: BottleneckCurves, sentence_length: int, d: int, d_token: int, lang: str) -> str:
    """The chart read at the student's sentence length (or the longest drawn)."""
    at = min(sentence_length, len(curves.T_values)) - 1
    values = dict(
        T=at + 1,
        fixed=f"{curves.fixed[at]:.2f}",
        per_step=f"{curves.per_step[at]:.2f}",
        ceiling=f"{curves.ceiling[at]:.2f}",
        aligned=f"{curves.aligned_weight[at]:.3f}",
        d=d,
        d_token=d_token,
        total=(at + 1) * d_token,
        room=d // d_token,
    )
    if curves.ceiling[at] < 1:
        return t("before_self_attention.bn_reading", lang, **values)
    # While C has room for every source number (ceiling 1), a ceiling of "1.00" would say nothing.
    return t("before_self_attention.bn_reading_room", lang, **values)


def maps_reading(view: EncoderDecoderView, lang: str) -> str:
    """What the maps say: the words read off, where the weights come from, how well they align."""
    agreement = "some" if view.any_aligned else "none"  # none: no word's translation is in the source
    return t(
        "before_self_attention.maps_reading",
        lang,
        read=literal(" ".join(view.predicted)),
        kind=KINDS.text(view.weights_kind, lang),
        agreement=AGREEMENT.text(agreement, lang, share=f"{100 * view.agreement:.0f} %"),
    )


def how_learned(model: TranslationModel, seed: int, lang: str) -> str:
    return t(
        "before_self_attention.how_learned_body",
        lang,
        first=f"{model.losses[0]:.2f}",
        last=f"{model.losses[-1]:.4f}",
        accuracy=f"{100 * model.accuracy:.0f} %",
        seed=seed,
    )


def bottleneck_alt(curves: BottleneckCurves, lang: str) -> str:
    fixed, per_step = f"{curves.fixed[-1]:.2f}", f"{curves.per_step[-1]:.2f}"
    return t("before_self_attention.bn_alt", lang, T=len(curves.T_values), fixed=fixed, per_step=per_step)
