"""Figures of the one-hot vs embedding page, and the tables of the numbers behind them: the core's
results and a language in, go.Figure (or pd.DataFrame) out, no Streamlit calls. Each builder looks
up its own labels (t(key, lang)) and builds its figure in one go.Figure(data=..., layout=...) call;
each table names its index, the CSV's first column."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.sequences import HOP_MS, WINDOW_MS, GraphVectors, RepresentationSizes, frame_starts, toy_sound
from attention_core.shipped import load_vocabulary
from attention_core.word_map import GroupMap, WordVectors
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL, bytes_text, heatmap, row_rules, safe_label
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_TEXT_PX, TOOLBAR_PX, layout_dict, text_px
from lab_ui.state import labels

# A binary matrix reads best as dark marks on a pale ground: one Okabe-Ito blue for the 1s.
BINARY_SCALE = [[0.0, "#F2F2F2"], [1.0, "#0072B2"]]
# With ten groups and eight Okabe-Ito colours, a colour comes back: then the marker is hollow, and
# its shape differs anyway, so no two groups look alike, in colour or in grey.
GROUP_SYMBOLS = (
    "circle",
    "square",
    "diamond",
    "triangle-up",
    "cross",
    "triangle-down",
    "star",
    "x",
    "pentagon",
    "hexagon",
    "star-diamond",
    "hourglass",
)
PICKED_COLOUR = "#000000"
SIDE_BY_SIDE_MAX = 10  # words up to which two similarity matrices fit side by side
# The tallest a lecture step's figure may be (big=True): what a 1280x720 screen leaves under the
# lecture frame's title row and step bar (they end at about 302 px; the page puts the figure
# right under them, its controls and words below it), so that the figure is whole on the first screen.
LECTURE_PX = 380
SAMPLE_RATE = 16_000  # Hz, what speech models usually read
SHOWN_MS = 100  # the window figure shows the first 100 ms: longer, and 25 ms windows are slivers
HALO = "0 0 3px #fff, 0 0 3px #fff, 0 0 2px #fff"  # a white glow keeps a label readable over markers


@cache
def word_labels(lang: str) -> dict[str, str]:
    """Each shipped word as the pages show it: the word the model reads, in Chinese with its gloss."""
    voc = load_vocabulary()
    if lang == "zh":
        return {w: f"{w} {g}" for w, g in zip(voc.words, voc.glosses_zh, strict=True)}
    return {w: w for w in voc.words}


def word_label(word: str, lang: str) -> str:
    return word_labels(lang)[word]


GROUPS = labels(
    "one_hot.group_",
    "animals",
    "fruit_plants",
    "vehicles",
    "motion_verbs",
    "colours",
    "feelings",
    "numbers",
    "places",
    "body_parts",
    "weather",
)
ELEMENTS = labels("one_hot.element_", "H", "C", "N", "O")


def group_name(group_id: str, lang: str) -> str:
    return GROUPS.text(group_id, lang)


def group_marker(k: int) -> dict:
    """Colour and shape of the k-th group; hollow in the colour once the palette comes round again."""
    colour = QUALITATIVE[k % len(QUALITATIVE)]
    symbol = GROUP_SYMBOLS[k % len(GROUP_SYMBOLS)]
    if k >= len(QUALITATIVE):
        return dict(color=colour, symbol=f"{symbol}-open", size=9, line=dict(width=2, color=colour))
    return dict(color=colour, symbol=symbol, size=9, opacity=0.85, line=dict(width=0.6, color="rgba(40,40,40,0.8)"))


LABEL_SPOTS = (
    "top center",
    "bottom center",
    "middle right",
    "middle left",
    "top right",
    "bottom left",
    "top left",
    "bottom right",
)


def text_width(text: str) -> int:
    """Width of a label in Latin characters: a Chinese character is about two."""
    return sum(2 if ord(ch) >= 0x2E80 else 1 for ch in text)


def label_positions(xy: np.ndarray, labels: Sequence[str], extent: np.ndarray) -> list[str]:
    """A text position for each labelled point so that labels of nearby points do not sit on each
    other: greedily, each label takes the spot whose box overlaps the fewest boxes placed so far.
    Boxes are estimated in fractions of the plot (`extent` = the data's width and height) for the
    smallest plot the map gets, about 330 px square on a phone, with 14 px labels: spots that are
    apart there are apart on a larger screen too."""
    unit = np.asarray(xy, dtype=np.float64) / np.where(extent > 0, extent, 1.0)  # [n, 2]
    char_w, text_h, dot_w, dot_h = 0.022, 0.05, 0.025, 0.025  # 7 px, 17 px, 8 px, 8 px of 330
    placed = [(x - dot_w, y - dot_h, x + dot_w, y + dot_h) for x, y in unit]  # the rings themselves
    out = []
    for (ux, uy), text in zip(unit, labels, strict=True):
        w = char_w * text_width(text)
        best, best_hits, best_box = LABEL_SPOTS[0], None, placed[0]
        for spot in LABEL_SPOTS:
            vert, horiz = spot.split()
            x0 = {"center": ux - w / 2, "right": ux + dot_w, "left": ux - dot_w - w}[horiz]
            y0 = {"middle": uy - text_h / 2, "top": uy + dot_h, "bottom": uy - dot_h - text_h}[vert]
            box = (x0, y0, x0 + w, y0 + text_h)
            hits = sum(not (box[2] < b[0] or b[2] < box[0] or box[3] < b[1] or b[3] < box[1]) for b in placed)
            if best_hits is None or hits < best_hits:
                best, best_hits, best_box = spot, hits, box
        placed.append(best_box)
        out.append(best)
    return out


def runs(labels: Sequence[str]) -> list[tuple[str, int, int]]:
    """Consecutive stretches of equal labels: (label, first index, last index)."""
    out: list[tuple[str, int, int]] = []
    for i, label in enumerate(labels):
        if out and out[-1][0] == label:
            out[-1] = (label, out[-1][1], i)
        else:
            out.append((label, i, i))
    return out


def one_hot_rows(view: WordVectors, lang: str, big: bool = False) -> go.Figure:
    """The picked words' one-hot vectors [n, V] over the whole vocabulary: one lit cell per row,
    its position written beside it; the x axis names the vocabulary's groups. `big`: taller rows
    and slanted group names for a projector's larger fonts.

    Both axes are categorical (the words themselves), which is safe here because a vocabulary
    and a set of picked words hold no repeats, and lets the hover name the word of every column
    without sending a V x n table of labels. Small arrays go as lists: Plotly's numpy path costs
    about half a millisecond per array on every rerun.
    """
    voc = load_vocabulary()
    labels = word_labels(lang)
    z = np.asarray(view.one_hot)  # [n, V]
    rows = [safe_label(labels[w]) for w in view.words]
    cols = [safe_label(labels[w]) for w in voc.words]
    spans = runs(voc.groups)
    value, position = t("one_hot.value", lang), t("one_hot.position", lang)
    borders = [
        dict(
            type="line",
            xref="x",
            yref="paper",
            x0=first - 0.5,
            x1=first - 0.5,
            y0=0,
            y1=1,
            line=dict(color="rgba(90,90,90,0.7)", width=1, dash="dot"),
        )
        for _, first, _ in spans[1:]
    ]
    heat = go.Heatmap(
        z=z.astype(np.int8),  # one typed array: cheaper to send than V x n numbers in a list
        x=cols,
        y=rows,
        colorscale=BINARY_SCALE,
        zmin=0,
        zmax=1,
        showscale=False,
        hovertemplate=f"%{{y}} · %{{x}}<br>{value}: %{{z}}<extra></extra>",
    )
    marks = [
        dict(
            x=cols[i],
            y=row,
            text=position.format(i=int(i)),
            showarrow=False,
            xanchor="left",
            xshift=5,
            bgcolor="rgba(255,255,255,0.9)",
            font=dict(color="#222222"),
        )
        for i, row in zip(view.indices, rows, strict=True)
    ]
    layout = layout_dict(
        height=min(LECTURE_PX, 150 + 44 * len(rows)) if big else (90 + 26 * len(rows)),
        shapes=[*borders, row_rules(len(rows))],  # a line between words: each row is a word's vector
        annotations=marks,
        xaxis=dict(
            title=dict(text=t("one_hot.vocab_axis", lang, V=len(voc.words))),
            type="category",
            tickmode="array",
            tickfont=dict(size=17 if big else 12),
            **({"tickangle": -30} if big else {}),  # unset: Plotly slants them only if they collide
            tickvals=[cols[(a + b) // 2] for _, a, b in spans],
            ticktext=[safe_label(group_name(g, lang), 18) for g, _, _ in spans],
            showgrid=False,
            zeroline=False,
            side="top",
        ),
        yaxis=dict(type="category", autorange="reversed", showgrid=False, zeroline=False),
    )
    return go.Figure(data=[heat], layout=layout)


def similarity(view: WordVectors, kind: str, lang: str, big: bool = False) -> go.Figure:
    """The cosine similarities of the picked words, kind "one_hot" or "learned". Both matrices
    share one colour scale (down to the lowest number of the two, up to 1), so equal colours mean
    equal numbers. More than SIDE_BY_SIDE_MAX words need the page's full width, and the figure is
    made taller for it. `big` (a projector, half the width and LECTURE_PX high): the cells fill
    the width instead of staying square, and the columns are named by the word alone, so that the
    matrix is not squeezed under a tall row of slanted labels and 18 px numbers fit in its cells."""
    sim = view.one_hot_similarity if kind == "one_hot" else view.learned_similarity  # [n, n]
    zmin = min(0.0, float(view.one_hot_similarity.min()), float(view.learned_similarity.min()))
    n = len(view.words)
    labels = [word_label(w, lang) for w in view.words]
    word = t("one_hot.word", lang)
    title = (
        t("one_hot.sim_onehot_title", lang)
        if kind == "one_hot"
        else t("one_hot.sim_learned_title", lang, d=view.learned.shape[1])
    )
    fig = heatmap(
        sim,
        list(view.words) if big else labels,
        labels,
        x_title=word,
        y_title=word,
        value_name=t("one_hot.cosine", lang),
        colorscale=SEQUENTIAL,
        zmin=zmin,
        zmax=1.0,
        value_format=".2f",
        show_values=n <= (8 if big else 12),
        height=min(LECTURE_PX, 220 + 66 * n)
        if big
        else (190 + 34 * n if n <= SIDE_BY_SIDE_MAX else min(900, 200 + 28 * n)),
    )
    # The title goes above the top axis (its word labels and title), pushing the margin as needed.
    fig.layout.title = dict(
        text=title, x=0, xanchor="left", y=1, yref="container", yanchor="top", automargin=True, pad=dict(t=8)
    )
    if big:
        fig.layout.yaxis.scaleanchor = None
        fig.layout.xaxis.title = None  # the words name the columns; the y axis says "word"
    # The column labels at an angle given: left to Plotly, Chinese labels ("cat 猫", "dog 狗") were
    # slanted too little on a half-width figure and ran together ("cat 猫dog 狗").
    size = LECTURE_TEXT_PX if big else LABEL_PX  # lecture mode sets every text to LECTURE_TEXT_PX
    fig.layout.xaxis.tickangle = column_angle(list(fig.layout.xaxis.ticktext), n, size)
    return fig


# The narrowest a similarity matrix's plot gets (half a 1280 px screen, or a phone), and the room a
# column label needs: its text level, else a line of text between neighbours at the slant.
MATRIX_PLOT_PX = 280
LABEL_PX, LINE_PX = 12, 14  # 12 px labels; a line of them, from baseline to baseline


def column_angle(labels: Sequence[str], n: int, size: float = LABEL_PX) -> int:
    """0 while every column label (text of `size` px) fits its cell level, -60 while neighbours
    slanted that far stay a line apart, else -90."""
    cell = MATRIX_PLOT_PX / max(n, 1)
    if max((text_px(label, size) for label in labels), default=0) + 6 <= cell:
        return 0
    return -60 if cell * np.sin(np.radians(60)) >= LINE_PX * size / LABEL_PX else -90


def vocabulary_map(gmap: GroupMap, words: tuple[str, ...], lang: str, big: bool = False) -> go.Figure:
    """Every word of the map's groups at its place on the plane of the group centres [n, 2],
    coloured and shaped by group; the picked words (those among them) ringed in black and
    labelled. The hover gives each word's mean cosine with its own group and with the others,
    measured in all d dimensions, which is what the map can only suggest."""
    voc = load_vocabulary()
    labels = word_labels(lang)
    xy = np.round(np.asarray(gmap.coords, dtype=np.float64), 5)  # [n, 2]; 5 digits are plenty for a map
    groups = np.asarray(gmap.labels)  # [n]
    names = {g: group_name(g, lang) for g in gmap.group_ids}
    own, other = t("one_hot.map_hover_own", lang), t("one_hot.map_hover_other", lang)
    hover = [
        f"{safe_label(labels[voc.words[r]], 40)} · {safe_label(names[g], 24)}<br>{own}: {o:.3f}"
        + (f"<br>{other}: {x:.3f}" if np.isfinite(x) else "")
        for r, g, o, x in zip(gmap.rows, groups, gmap.own_group, gmap.other_groups, strict=True)
    ]
    traces = []
    for k, gid in enumerate(voc.group_ids):  # colours follow the vocabulary's order on every map
        inside = np.flatnonzero(groups == gid)  # rows of this group
        if not inside.size:
            continue
        traces.append(
            go.Scatter(
                x=xy[inside, 0].tolist(),  # lists, not arrays: see one_hot_rows
                y=xy[inside, 1].tolist(),
                mode="markers",
                name=safe_label(names[gid], 24),
                marker=group_marker(k),
                hovertext=[hover[i] for i in inside],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    picked = [gmap.position(voc.index(w)) for w in words if voc.groups[voc.index(w)] in gmap.group_ids]
    if picked:
        picked_labels = [labels[voc.words[gmap.rows[i]]] for i in picked]
        traces.append(
            go.Scatter(
                x=xy[picked, 0].tolist(),
                y=xy[picked, 1].tolist(),
                mode="markers+text",
                name=t("one_hot.picked", lang),
                text=[f"<b>{safe_label(s)}</b>" for s in picked_labels],
                textposition=label_positions(xy[picked], picked_labels, np.ptp(xy, axis=0)),
                textfont=dict(size=20 if big else 14, color=PICKED_COLOUR, shadow=HALO),  # readable over markers
                marker=dict(size=16, color="rgba(0,0,0,0)", line=dict(width=2.5, color=PICKED_COLOUR)),
                cliponaxis=False,  # a label at the map's edge runs past the axis instead of losing letters
                hovertext=[hover[i] for i in picked],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    # Axes fit the data with a margin for the labels of points at the edge, and keep equal scales
    # (distances mean something) by shrinking the plot, not by stretching one axis's range.
    low, high = xy.min(axis=0), xy.max(axis=0)  # [2], [2]
    pad = 0.08 * np.maximum(high - low, 1e-9)  # [2]
    share = 100 * gmap.axis_share  # [2]
    layout = layout_dict(
        height=LECTURE_PX if big else 560,
        xaxis=dict(
            title=dict(text=t("one_hot.map_axis", lang, k=1, share=share[0])),
            zeroline=False,
            range=[low[0] - pad[0], high[0] + pad[0]],
            constrain="domain",
        ),
        yaxis=dict(
            title=dict(text=t("one_hot.map_axis", lang, k=2, share=share[1])),
            zeroline=False,
            range=[low[1] - pad[1], high[1] + pad[1]],
            constrain="domain",
            scaleanchor="x",
            scaleratio=1,
        ),
        # The legend in rows under the plot (beside it, it took 40% of a phone's width), clear of the
        # axis title at a projector's text size too.
        legend=dict(
            itemsizing="constant", orientation="h", x=0, xanchor="left", y=-0.3 if big else -0.14, yanchor="top"
        ),
    )
    return go.Figure(data=traces, layout=layout)


def group_cosines(gmap: GroupMap, lang: str, big: bool = False) -> go.Figure:
    """The mean cosine of the words of one group with those of another [k, k]; on the diagonal,
    two different words of the same group. On the word matrices' scale (0 to 1)."""
    names = [group_name(g, lang) for g in gmap.group_ids]
    k = len(names)
    group = t("one_hot.group", lang)
    fig = heatmap(
        gmap.block_cosine,
        names,
        names,
        x_title=group,
        y_title=group,
        value_name=t("one_hot.mean_cosine", lang),
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=1.0,
        value_format=".2f",
        show_values=k <= (5 if big else 10),
        height=min(LECTURE_PX if big else 900, 200 + 34 * k if k > 3 else 330),
    )
    # Under the toolbar's strip: in the desktop's narrow right column (about 320 px) the toolbar
    # covered the title's end on hover.
    fig.layout.title = dict(
        text=t("one_hot.blocks_title", lang),
        x=0,
        xanchor="left",
        y=1,
        yref="container",
        yanchor="top",
        automargin=True,
        pad=dict(t=TOOLBAR_PX),
    )
    # The desktop's right column leaves a cell about 60 px: a column's name on two lines stands upright,
    # and where even that does not fit, upright turns to vertical (Plotly's slant at -30° let
    # "动物" and "水果与植物" run into each other).
    fig.layout.xaxis.ticktext = [two_lines(name) for name in fig.layout.xaxis.ticktext]
    fig.layout.xaxis.autotickangles = [0, -90]
    if big:  # as in similarity: cells that fill the width, so a projector's numbers fit in them
        fig.layout.yaxis.scaleanchor = None
        fig.layout.xaxis.title = None
    return fig


def two_lines(name: str) -> str:
    """A label on two lines: English at the space nearest its middle ("fruit &<br>plants"), Chinese of
    four characters or more at its middle ("水果与<br>植物"); a short one ("one word") stays on one line."""
    if not name.isascii():
        i = (len(name) + 1) // 2
        return f"{name[:i]}<br>{name[i:]}" if len(name) >= 4 else name
    spaces = [i for i, ch in enumerate(name) if ch == " "]
    if spaces and len(name) > 10:
        i = min(spaces, key=lambda i: abs(2 * i - len(name)))
        return f"{name[:i]}<br>{name[i + 1 :]}"
    return name


def sizes(s: RepresentationSizes, lang: str, big: bool = False) -> go.Figure:
    """Counts of numbers, one-hot beside embedding, on a log axis (they differ by thousands):
    one word's vector, a sentence of T words, the learned parameters. A log axis cannot draw 0,
    so a zero is written where its bar would stand."""
    categories = [
        t("one_hot.cat_vector", lang),
        t("one_hot.cat_sentence", lang, T=s.T),
        t("one_hot.cat_parameters", lang),
    ]
    bars, notes = [], []
    for name, counts, colour, offset in (
        (t("one_hot.onehot", lang), (s.V, s.one_hot_sentence, s.one_hot_parameters), QUALITATIVE[0], -0.2),
        (t("one_hot.embedding", lang), (s.d, s.embedding_sentence, s.table_parameters), QUALITATIVE[1], 0.2),
    ):  # offset: where plotly puts each of the two grouped bars
        bars.append(
            go.Bar(
                x=[0, 1, 2],
                y=[float(v) if v > 0 else None for v in counts],  # None: no bar (log 0 does not exist)
                name=name,
                marker_color=colour,
                text=[f"{v:,}" for v in counts],
                textposition="outside",
                cliponaxis=False,
                hovertemplate=f"{name}<br>%{{y:,.0f}}<extra></extra>",
            )
        )
        notes += [  # upright in the empty bar's slot: across, it ran into the bar beside it
            dict(
                x=i + offset,
                y=0.02,
                yref="y domain",
                text=t("one_hot.zero_params", lang),
                textangle=-90,
                showarrow=False,
                yanchor="bottom",
                xanchor="center",
            )
            for i, v in enumerate(counts)
            if v == 0
        ]
    top = max(s.V, s.one_hot_sentence, s.table_parameters, s.embedding_sentence, 1)
    layout = layout_dict(
        height=LECTURE_PX if big else 380,
        annotations=notes,
        barmode="group",
        # On two lines, upright: slanted on a phone, "learned parameters" ran past the figure's edge.
        xaxis=dict(tickmode="array", tickvals=[0, 1, 2], ticktext=[two_lines(c) for c in categories], tickangle=0),
        yaxis=dict(
            title=dict(text=t("one_hot.count_axis", lang)),
            type="log",
            range=[-0.3, np.log10(top) + 0.8],
            exponentformat="power",
        ),
        legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0),
        # a number that does not fit over its bar stays 10 px (Plotly would shrink it to ~5)
        uniformtext=dict(minsize=10, mode="show"),
    )
    return go.Figure(data=bars, layout=layout)


def sentence(view: WordVectors, lang: str, big: bool = False) -> go.Figure:
    """The picked words' learned vectors [T, d] as one table, too wide to label every column
    (d = 384): rows named, columns numbered, diverging colours around 0."""
    z = np.asarray(view.learned, dtype=np.float32)  # [T, d]
    limit = float(np.abs(z).max()) or 1.0
    value, dimension = t("one_hot.value", lang), t("one_hot.dimension", lang)
    heat = go.Heatmap(
        z=z,
        y=[safe_label(word_label(w, lang)) for w in view.words],  # categorical: the picked words hold no repeats
        colorscale="RdBu",
        reversescale=True,  # red = positive reads warm, blue = negative
        zmin=-limit,
        zmax=limit,
        hovertemplate=f"%{{y}}, {dimension} %{{x}}<br>{value}: %{{z:.4f}}<extra></extra>",
        colorbar=dict(title=dict(text=value, side="right"), thickness=14),
    )
    layout = layout_dict(
        height=min(LECTURE_PX, 110 + 28 * z.shape[0]) if big else 110 + 28 * z.shape[0],
        shapes=[row_rules(z.shape[0])],  # a line between words: each row is a word's vector
        xaxis=dict(title=dict(text=dimension), showgrid=False, zeroline=False),
        yaxis=dict(
            title=dict(text=t("one_hot.word", lang)),
            type="category",
            autorange="reversed",
            showgrid=False,
            zeroline=False,
        ),
    )
    return go.Figure(data=[heat], layout=layout)


def sound(duration_ms: int, lang: str) -> go.Figure:
    """The first SHOWN_MS of a made-up sound with the windows that fit into it drawn underneath
    as numbered bars, staggered on three rows so the overlaps show (a new window every 10 ms
    means up to three cover any instant). The first window and the first hop are measured off."""
    shown = min(duration_ms, SHOWN_MS)
    signal = toy_sound(shown, SAMPLE_RATE)  # [N]
    t_ms = np.arange(signal.size) * 1000.0 / SAMPLE_RATE  # [N]
    starts = frame_starts(shown)  # [n_frames]
    frame_text = t("one_hot.frame_hover", lang)
    wave = go.Scatter(
        x=t_ms.astype(np.float32),
        y=signal.astype(np.float32),
        mode="lines",
        name=t("one_hot.signal", lang),
        line=dict(color="#555555", width=1.5),
        hovertemplate="%{x:.2f} ms: %{y:.3f}<extra></extra>",
    )
    levels = 3
    level_y = [-1.35 - 0.32 * level for level in range(levels)]
    traces = [wave]
    for level in range(levels):
        xs: list[float | None] = []
        ys: list[float | None] = []
        texts: list[str | None] = []
        for k in range(level, len(starts), levels):
            s = float(starts[k])
            label = frame_text.format(k=k + 1, start=f"{s:g}", end=f"{s + WINDOW_MS:g}")
            xs += [s, s + WINDOW_MS, None]
            ys += [level_y[level]] * 2 + [None]
            texts += [label, label, None]
        colour = QUALITATIVE[level + 1]
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines+markers",
                line=dict(color=colour, width=6),
                marker=dict(symbol="line-ns", size=12, line=dict(width=2, color=colour)),
                text=texts,
                hovertemplate="%{text}<extra></extra>",
                showlegend=False,
            )
        )
    traces.append(
        go.Scatter(
            x=[float(s) + WINDOW_MS / 2 for s in starts],
            y=[level_y[k % levels] + 0.06 for k in range(len(starts))],  # just clear of the thick bar
            mode="text",
            text=[str(k + 1) for k in range(len(starts))],
            textposition="top center",
            textfont=dict(size=12, color="#222222"),
            hoverinfo="skip",
            showlegend=False,
        )
    )
    notes = []
    if len(starts) >= 2:
        s0, s1 = float(starts[0]), float(starts[1])
        arrow = dict(
            showarrow=True,
            arrowhead=2,
            arrowside="end+start",
            arrowwidth=1.2,
            arrowcolor="#222222",
            axref="x",
            ayref="y",
            font=dict(color="#222222"),
        )
        notes = [
            dict(x=s0, y=1.3, ax=s0 + WINDOW_MS, ay=1.3, **arrow),
            dict(
                x=s0 + WINDOW_MS / 2,
                y=1.3,
                text=t("one_hot.window_note", lang, window=WINDOW_MS),
                showarrow=False,
                yanchor="bottom",
                font=dict(color="#222222"),
            ),
            dict(x=s0, y=-2.45, ax=s1, ay=-2.45, **arrow),
            dict(
                x=s1,
                y=-2.45,
                text=t("one_hot.hop_note", lang, hop=HOP_MS),
                showarrow=False,
                xanchor="left",
                xshift=4,
                font=dict(color="#222222"),
            ),
        ]
    layout = layout_dict(
        height=320,
        annotations=notes,
        showlegend=False,
        xaxis=dict(title=dict(text=t("one_hot.time_ms", lang)), zeroline=False),
        yaxis=dict(showticklabels=False, showgrid=False, zeroline=False, range=[-2.65, 1.6]),
    )
    return go.Figure(data=traces, layout=layout)


def feature_names(graph: GraphVectors, kind: str, lang: str) -> list[str]:
    """The columns of a graph's vectors as shown: element names for a molecule, people for a network."""
    if kind == "molecule":
        return [ELEMENTS.text(e, lang) for e in graph.features]
    return list(graph.features)


def graph_rows(graph: GraphVectors, kind: str, lang: str, big: bool = False) -> go.Figure:
    """A graph's nodes as 0/1 rows, kind "molecule" (atoms over elements) or "network" (people
    over people), every cell printed."""
    x_title, y_title = (
        ("one_hot.element", "one_hot.atom") if kind == "molecule" else ("one_hot.friend_of", "one_hot.person")
    )
    fig = heatmap(
        graph.vectors,
        feature_names(graph, kind, lang),
        graph.nodes,
        x_title=t(x_title, lang),
        y_title=t(y_title, lang),
        value_name=t("one_hot.value", lang),
        colorscale=BINARY_SCALE,
        zmin=0,
        zmax=1,
        value_format=".0f",
        show_values=True,
        height=min(LECTURE_PX if big else 520, 120 + 34 * len(graph.nodes)),
    )
    fig.data[0].showscale = False
    fig.layout.yaxis.scaleanchor = None
    return fig


def spring_layout(adjacency: np.ndarray, iterations: int = 300) -> np.ndarray:
    """Positions for drawing a small graph: linked nodes pull together, all nodes push apart
    (Fruchterman-Reingold), starting from a circle, so the same graph is always drawn the same way.
    -> [n, 2] in [-1, 1]"""
    A = np.asarray(adjacency, dtype=np.float64)  # [n, n]
    n = len(A)
    angle = np.pi / 2 - 2 * np.pi * np.arange(n) / n  # [n]
    pos = np.stack([np.cos(angle), np.sin(angle)], axis=1)  # [n, 2]
    k = 1.0 / np.sqrt(max(n, 1))  # the distance the forces balance at
    for step in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]  # [n, n, 2]
        dist = np.maximum(np.linalg.norm(delta, axis=-1), 1e-3)  # [n, n]
        force = k**2 / dist - A * dist**2 / k  # [n, n] push minus pull, along delta
        np.fill_diagonal(force, 0.0)
        move = (delta / dist[..., None] * force[..., None]).sum(axis=1)  # [n, 2]
        length = np.maximum(np.linalg.norm(move, axis=1, keepdims=True), 1e-9)  # [n, 1]
        temperature = 0.1 * (1 - step / iterations)  # cooling: big steps first, then settle
        pos += move / length * np.minimum(length, temperature)
    pos -= pos.mean(axis=0)
    return pos / max(np.abs(pos).max(), 1e-9)  # [n, 2]


def network(graph: GraphVectors, lang: str) -> go.Figure:
    """People as dots, a line for each friendship; the hover counts each one's friends."""
    A = graph.vectors  # [n, n]
    pos = np.round(spring_layout(A), 6)  # [n, 2]
    x, y = pos[:, 0].tolist(), pos[:, 1].tolist()
    ex: list[float | None] = []
    ey: list[float | None] = []
    for i, j in zip(*np.nonzero(np.triu(A)), strict=True):
        ex += [x[i], x[j], None]
        ey += [y[i], y[j], None]
    edges = go.Scatter(x=ex, y=ey, mode="lines", line=dict(color="#777777", width=2), hoverinfo="skip")
    people = go.Scatter(
        x=x,
        y=y,
        mode="markers+text",
        text=[safe_label(s) for s in graph.nodes],
        textposition="top center",  # beside the dot, not inside: lecture mode shrinks dots to 10 px
        textfont=dict(size=16, shadow=HALO),
        marker=dict(size=22, color=QUALITATIVE[0]),
        customdata=A.sum(axis=1).astype(int).tolist(),
        hovertemplate=f"%{{text}} · {t('one_hot.friends', lang)}: %{{customdata}}<extra></extra>",
    )
    layout = layout_dict(
        height=340,
        showlegend=False,
        xaxis=dict(visible=False, range=[-1.35, 1.35]),
        yaxis=dict(visible=False, range=[-1.35, 1.35], scaleanchor="x"),
    )
    return go.Figure(data=[edges, people], layout=layout)


# --- the numbers behind the figures ------------------------------------------------------------------


def vectors_table(view: WordVectors, lang: str) -> pd.DataFrame:
    """Each one-hot vector in four numbers: its V - 1 zeros would help no screen reader."""
    V = view.one_hot.shape[1]
    columns = {
        t("one_hot.col_position", lang): view.indices,
        t("one_hot.col_length", lang): V,
        t("one_hot.col_ones", lang): view.one_hot.sum(axis=1).astype(int),
        t("one_hot.col_zeros", lang): (view.one_hot == 0).sum(axis=1),
    }
    return pd.DataFrame(columns, index=_word_index(view.words, lang))


def pairs_table(view: WordVectors, lang: str) -> pd.DataFrame:
    """Every pair of picked words (each with itself too), most alike first: both cosines."""
    labels = [word_label(w, lang) for w in view.words]
    i, j = view.pairs[:, 0], view.pairs[:, 1]
    return pd.DataFrame(
        {
            t("one_hot.col_word_1", lang): [labels[k] for k in i],
            t("one_hot.col_word_2", lang): [labels[k] for k in j],
            t("one_hot.col_onehot", lang): view.one_hot_similarity[i, j],
            t("one_hot.col_learned", lang): view.learned_similarity[i, j],
        }
    )


def map_table(gmap: GroupMap, lang: str) -> pd.DataFrame:
    """Every word of the map: its group, its place, its mean cosine with its group and the others."""
    voc = load_vocabulary()
    columns = {
        t("one_hot.group", lang): [group_name(g, lang) for g in gmap.labels],
        t("one_hot.col_axis", lang, k=1): gmap.coords[:, 0],
        t("one_hot.col_axis", lang, k=2): gmap.coords[:, 1],
        t("one_hot.col_own", lang): gmap.own_group,
        t("one_hot.col_other", lang): gmap.other_groups,
    }
    return pd.DataFrame(columns, index=_word_index([voc.words[r] for r in gmap.rows], lang))


def memory(s: RepresentationSizes) -> dict[str, str]:
    """The memory of the T words both ways and of the embedding table, as the page writes them."""
    return {
        "one_hot": bytes_text(s.bytes(s.one_hot_sentence)),
        "embedding": bytes_text(s.bytes(s.embedding_sentence)),
        "table": bytes_text(s.bytes(s.table_parameters)),
    }


def sizes_table(s: RepresentationSizes, lang: str) -> pd.DataFrame:
    """All the counts and sizes, one-hot beside embedding, as the page writes them (1,000,000)."""
    T = s.T
    rows = [
        ("one_hot.row_length", s.V, s.d, {}),
        ("one_hot.row_sentence", s.one_hot_sentence, s.embedding_sentence, {"T": T}),
        ("one_hot.row_nonzero", s.one_hot_nonzero, s.embedding_sentence, {"T": T}),
    ]
    out = [(t(key, lang, **values), f"{a:,}", f"{b:,}") for key, a, b, values in rows]
    out.append(
        (
            t("one_hot.row_sentence_mem", lang, T=T),
            bytes_text(s.bytes(s.one_hot_sentence)),
            bytes_text(s.bytes(s.embedding_sentence)),
        )
    )
    out.append((t("one_hot.row_parameters", lang), f"{s.one_hot_parameters:,}", f"{s.table_parameters:,}"))
    out.append(
        (
            t("one_hot.row_parameters_mem", lang),
            bytes_text(s.bytes(s.one_hot_parameters)),
            bytes_text(s.bytes(s.table_parameters)),
        )
    )
    names = [t("one_hot.col_quantity", lang), t("one_hot.onehot", lang), t("one_hot.embedding", lang)]
    return pd.DataFrame(out, columns=names).set_index(names[0])


def sentence_table(view: WordVectors, lang: str) -> pd.DataFrame:
    """The sentence's vectors, a column per word: 384 rows read better than 384 columns."""
    return pd.DataFrame(
        view.learned.T,
        columns=[word_label(w, lang) for w in view.words],
        index=pd.RangeIndex(view.learned.shape[1], name=t("one_hot.dimension", lang)),
    )


def graph_table(graph: GraphVectors, kind: str, lang: str) -> pd.DataFrame:
    """Every node's vector, 0 or 1 in each column."""
    name = t("one_hot.atom" if kind == "molecule" else "one_hot.person", lang)
    return pd.DataFrame(
        graph.vectors.astype(int), columns=feature_names(graph, kind, lang), index=pd.Index(graph.nodes, name=name)
    )


def _word_index(words, lang: str) -> pd.Index:
    return pd.Index([word_label(w, lang) for w in words], name=t("one_hot.word", lang))


# --- the words and formulas of the steps ------------------------------------------------------------

LATEX = {
    "similarity": r"\begin{aligned}\cos(\mathbf{x}, \mathbf{y}) &= "
    r"\frac{\mathbf{x}\cdot\mathbf{y}}{\lVert\mathbf{x}\rVert\,\lVert\mathbf{y}\rVert}\\[4pt]"
    r"\mathbf{e}_i\cdot\mathbf{e}_j &= 0 \quad (i \neq j)\end{aligned}",
    "map": r"\begin{aligned}\text{within} &= "
    r"\operatorname*{mean}_{i \neq j,\ g_i = g_j} \cos(\mathbf{x}_i, \mathbf{x}_j)"
    r"\\ \text{between} &= \operatorname*{mean}_{g_i \neq g_j} \cos(\mathbf{x}_i, \mathbf{x}_j)\\[6pt]"
    r"\mathbf{m}_g &= \sqrt{n_g}\,\big(\bar{\mathbf{x}}_g - \bar{\mathbf{x}}\big)\\"
    r"M = [\mathbf{m}_g]_g &= U S A^\top\\"
    r"\mathbf{y}_i &= (\mathbf{x}_i - \bar{\mathbf{x}})\, A_{:,1:2}\end{aligned}",
    "sizes": r"\begin{aligned}\mathbf{x}_i &= \mathbf{e}_i^\top E = E_{i,:}\\"
    r" E &\in \mathbb{R}^{V \times d}\end{aligned}",
    "frames": r"\begin{gathered}n = \begin{cases} 1 + \left\lfloor \dfrac{L - 25}{10} \right\rfloor & L \ge 25 \\[4pt]"
    r" 0 & L < 25\end{cases}\qquad \text{starts: } 0, 10, \dots, 10(n-1)\\[6pt] [L] = \text{ms}\end{gathered}",
}


def similarity_reading(view: WordVectors, lang: str) -> str:
    """The two matrices read in words: the closest and the least alike pair of the learned vectors."""
    labels, sim = [word_label(w, lang) for w in view.words], view.learned_similarity
    if len(labels) == 2:  # one pair: no "closest" and "least alike" to tell apart
        return t("one_hot.sim_reading_two", lang, a=labels[0], b=labels[1], learned=sim[0, 1])
    (a, b), (c, e) = view.closest, view.least
    pairs = len(labels) * (len(labels) - 1) // 2
    return t(
        "one_hot.sim_reading",
        lang,
        pairs=pairs,
        a=labels[a],
        b=labels[b],
        best=sim[a, b],
        c=labels[c],
        e=labels[e],
        worst=sim[c, e],
    )


def cos_answer(view: WordVectors, lang: str) -> str:
    """The check's explanation: where the two words' single 1s stand, and what the learned vectors give."""
    a, b = (word_label(w, lang) for w in view.words[:2])
    i, j = (int(k) for k in view.indices[:2])
    return t("one_hot.quiz_cos_answer", lang, a=a, b=b, i=i, j=j, learned=view.learned_similarity[0, 1])


def map_reading(gmap: GroupMap, d: int, lang: str) -> str:
    """What the map's numbers say: within against between, and the variance its plane keeps."""
    values = dict(d=d, within=gmap.within, kept=100 * gmap.kept)
    if len(gmap.group_ids) == 1:
        return t("one_hot.map_reading_one", lang, **values)
    return t(
        "one_hot.map_reading",
        lang,
        **values,
        groups=len(gmap.group_ids),
        between=gmap.between,
        centres=100 * gmap.centre_share,
    )


def ratio_label(s: RepresentationSizes, lang: str) -> str:
    """The metric's name: how many times longer the longer vector is (a tiny vocabulary: the embedding)."""
    return t("one_hot.metric_ratio_one_hot" if s.longer == "one_hot" else "one_hot.metric_ratio_embedding", lang)
