"""Figures of the one-hot vs embedding page: arrays in, go.Figure out, no Streamlit calls.
Every text a figure shows arrives translated from the page."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL, base_layout, heatmap, safe_label

# A binary matrix reads best as dark marks on a pale ground: one Okabe-Ito blue for the 1s.
BINARY_SCALE = [[0.0, "#F2F2F2"], [1.0, "#0072B2"]]
# With ten groups and eight Okabe-Ito colours, a colour comes back: then the marker is hollow, and
# its shape differs anyway, so no two groups look alike, in colour or in grey.
GROUP_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "triangle-down", "star", "x", "pentagon",
                 "hexagon", "star-diamond", "hourglass")  # fmt: skip
PICKED_COLOUR = "#000000"
SIDE_BY_SIDE_MAX = 10  # words up to which two similarity matrices fit side by side
HALO = "0 0 3px #fff, 0 0 3px #fff, 0 0 2px #fff"  # a white glow keeps a label readable over markers


def group_marker(k: int) -> dict:
    """Colour and shape of the k-th group; hollow in the colour once the palette comes round again."""
    colour = QUALITATIVE[k % len(QUALITATIVE)]
    symbol = GROUP_SYMBOLS[k % len(GROUP_SYMBOLS)]
    if k >= len(QUALITATIVE):
        return dict(color=colour, symbol=f"{symbol}-open", size=9, line=dict(width=2, color=colour))
    return dict(color=colour, symbol=symbol, size=9, opacity=0.85, line=dict(width=0.6, color="rgba(40,40,40,0.8)"))


LABEL_SPOTS = ("top center", "bottom center", "middle right", "middle left", "top right", "bottom left",
               "top left", "bottom right")  # fmt: skip


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


def one_hot_rows(
    vectors: np.ndarray,
    row_labels: Sequence[str],
    vocab_labels: Sequence[str],
    vocab_groups: Sequence[str],
    group_names: dict[str, str],
    *,
    x_title: str,
    value_name: str,
    position_text: str,
    big: bool = False,
) -> go.Figure:
    """The picked words' one-hot vectors [n, V] over the whole vocabulary: one lit cell per row,
    its position written beside it; the x axis names the vocabulary's groups. `big`: taller rows
    and slanted group names for a projector's larger fonts.

    Both axes are categorical (the words themselves), which is safe here because a vocabulary
    and a set of picked words hold no repeats, and lets the hover name the word of every column
    without sending a V x n table of labels. Small arrays go as lists: Plotly's numpy path costs
    about half a millisecond per array on every rerun.
    """
    z = np.asarray(vectors)  # [n, V]
    n, _V = z.shape
    rows = [safe_label(s) for s in row_labels]
    cols = [safe_label(s) for s in vocab_labels]
    hot = np.argmax(z, axis=1)  # [n] the column of each row's single 1
    spans = runs(vocab_groups)
    borders = [
        dict(type="line", xref="x", yref="paper", x0=first - 0.5, x1=first - 0.5, y0=0, y1=1,
             line=dict(color="rgba(90,90,90,0.7)", width=1, dash="dot"))
        for _, first, _ in spans[1:]
    ]  # fmt: skip
    heat = go.Heatmap(
        z=z.astype(np.int8),  # one typed array: cheaper to send than V x n numbers in a list
        x=cols,
        y=rows,
        colorscale=BINARY_SCALE,
        zmin=0,
        zmax=1,
        showscale=False,
        hovertemplate=f"%{{y}} · %{{x}}<br>{value_name}: %{{z}}<extra></extra>",
        ygap=2,
    )
    marks = [
        dict(x=cols[i], y=row, text=position_text.format(i=int(i)), showarrow=False, xanchor="left", xshift=5,
             bgcolor="rgba(255,255,255,0.9)", font=dict(color="#222222"))
        for i, row in zip(hot, rows, strict=True)
    ]  # fmt: skip
    layout = dict(
        shapes=borders,
        annotations=marks,
        xaxis=dict(title=dict(text=x_title), type="category", tickmode="array", tickfont=dict(size=17 if big else 12),
                   **({"tickangle": -30} if big else {}),  # unset: Plotly slants them only if they collide
                   tickvals=[cols[(a + b) // 2] for _, a, b in spans],
                   ticktext=[safe_label(group_names.get(g, g), 18) for g, _, _ in spans],
                   showgrid=False, zeroline=False, side="top"),
        yaxis=dict(type="category", autorange="reversed", showgrid=False, zeroline=False),
    )  # fmt: skip
    return base_layout(go.Figure(data=[heat], layout=layout), height=(150 + 44 * n) if big else (90 + 26 * n))


def similarity(
    sim: np.ndarray, labels: Sequence[str], *, title: str, axis_title: str, value_name: str, zmin: float,
    big: bool = False,
) -> go.Figure:  # fmt: skip
    """A cosine-similarity matrix; both of the page's matrices share zmin..1 so equal colours
    mean equal numbers. `big`: cells large enough for a projector's 18 px numbers. More than
    SIDE_BY_SIDE_MAX words need the page's full width, and the figure is made taller for it."""
    n = len(labels)
    fig = heatmap(
        sim, labels, labels, x_title=axis_title, y_title=axis_title, value_name=value_name,
        colorscale=SEQUENTIAL, zmin=zmin, zmax=1.0, value_format=".2f", show_values=n <= 12,
        height=min(820, 220 + 66 * n) if big else (190 + 34 * n if n <= SIDE_BY_SIDE_MAX else min(900, 200 + 28 * n)),
    )  # fmt: skip
    # The title goes above the top axis (its word labels and title), pushing the margin as needed.
    fig.update_layout(title=dict(text=title, x=0, xanchor="left", y=1, yref="container", yanchor="top",
                                 automargin=True, pad=dict(t=8)))  # fmt: skip
    return fig


def vocabulary_map(
    coords: np.ndarray,
    hover: Sequence[str],
    groups: Sequence[str],
    group_ids: Sequence[str],
    group_names: dict[str, str],
    picked: Sequence[int],
    picked_labels: Sequence[str],
    *,
    x_title: str,
    y_title: str,
    picked_name: str,
    height: int = 560,
    big: bool = False,
) -> go.Figure:
    """Every word at its first two principal coordinates [n, 2], coloured and shaped by group;
    the picked words ringed in black and labelled."""
    xy = np.round(np.asarray(coords, dtype=np.float64), 5)  # [n, 2]; 5 digits are plenty for a map
    labels = np.asarray(groups)  # [n]
    hover = [safe_label(h, 40) for h in hover]
    traces = []
    for k, gid in enumerate(group_ids):
        inside = np.flatnonzero(labels == gid)  # rows of this group
        if not inside.size:
            continue
        traces.append(
            go.Scatter(
                x=xy[inside, 0].tolist(),  # lists, not arrays: see one_hot_rows
                y=xy[inside, 1].tolist(),
                mode="markers",
                name=safe_label(group_names.get(gid, gid), 24),
                marker=group_marker(k),
                hovertext=[hover[i] for i in inside],
                hovertemplate="%{hovertext}<br>(%{x:.3f}, %{y:.3f})<extra>%{fullData.name}</extra>",
            )
        )  # fmt: skip
    picked = list(picked)
    if picked:
        traces.append(
            go.Scatter(
                x=xy[picked, 0].tolist(),
                y=xy[picked, 1].tolist(),
                mode="markers+text",
                name=picked_name,
                text=[f"<b>{safe_label(s)}</b>" for s in picked_labels],
                textposition=label_positions(xy[picked], picked_labels, np.ptp(xy, axis=0)),
                # a white halo keeps the label readable over a crowd of markers
                textfont=dict(
                    size=20 if big else 14, color=PICKED_COLOUR, shadow="0 0 3px #fff, 0 0 3px #fff, 0 0 2px #fff"
                ),
                marker=dict(size=16, color="rgba(0,0,0,0)", line=dict(width=2.5, color=PICKED_COLOUR)),
                cliponaxis=False,  # a label at the map's edge runs past the axis instead of losing letters
                hovertext=[hover[i] for i in picked],
                hovertemplate="%{hovertext}<br>(%{x:.3f}, %{y:.3f})<extra></extra>",
            )
        )
    # Axes fit the data with a margin for the labels of points at the edge, and keep equal scales
    # (distances mean something) by shrinking the plot, not by stretching one axis's range.
    low, high = xy.min(axis=0), xy.max(axis=0)  # [2], [2]
    pad = 0.08 * np.maximum(high - low, 1e-9)  # [2]
    fig = go.Figure(data=traces)
    fig.update_xaxes(title=x_title, zeroline=False, range=[low[0] - pad[0], high[0] + pad[0]], constrain="domain")
    fig.update_yaxes(title=y_title, zeroline=False, range=[low[1] - pad[1], high[1] + pad[1]], constrain="domain",
                     scaleanchor="x", scaleratio=1)  # fmt: skip
    # The legend in rows under the plot: beside it, it took 40% of a phone's width.
    fig.update_layout(legend=dict(itemsizing="constant", orientation="h", x=0, xanchor="left", y=-0.14,
                                  yanchor="top"))  # fmt: skip
    return base_layout(fig, height=height)


def sizes(
    categories: Sequence[str],
    one_hot_counts: Sequence[int],
    embedding_counts: Sequence[int],
    *,
    one_hot_name: str,
    embedding_name: str,
    y_title: str,
    zero_text: str,
) -> go.Figure:
    """Counts of numbers, one-hot beside embedding, on a log axis (they differ by thousands).
    A log axis cannot draw 0, so a zero is written where its bar would stand."""
    fig = go.Figure()
    for name, counts, colour, offset in (
        (one_hot_name, one_hot_counts, QUALITATIVE[0], -0.2),
        (embedding_name, embedding_counts, QUALITATIVE[1], 0.2),
    ):  # offset: where plotly puts each of the two grouped bars
        values = np.asarray(counts, dtype=np.float64)  # [n_categories]; float: a log axis wants floats
        fig.add_trace(
            go.Bar(
                x=list(range(len(categories))),
                y=[float(v) if v > 0 else None for v in values],  # None: no bar (log 0 does not exist)
                name=name,
                marker_color=colour,
                text=[f"{int(v):,}" for v in values],
                textposition="outside",
                cliponaxis=False,
                hovertemplate=f"{name}<br>%{{y:,.0f}}<extra></extra>",
            )
        )
        for i, v in enumerate(values):
            if v == 0:
                fig.add_annotation(  # upright in the empty bar's slot: across, it ran into the bar beside it
                    x=i + offset,
                    y=0.02,
                    yref="y domain",
                    text=zero_text,
                    textangle=-90,
                    showarrow=False,
                    yanchor="bottom",
                    xanchor="center",
                )
    top = max(max(one_hot_counts), max(embedding_counts), 1)
    fig.update_xaxes(tickmode="array", tickvals=list(range(len(categories))), ticktext=list(categories))
    fig.update_yaxes(title=y_title, type="log", range=[-0.3, np.log10(top) + 0.8], exponentformat="power")
    # uniformtext: a number that does not fit over its bar stays 10 px (Plotly would shrink it to ~5).
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0),
                      uniformtext=dict(minsize=10, mode="show"))  # fmt: skip
    return base_layout(fig, height=380)


def wide_heatmap(
    z: np.ndarray, row_labels: Sequence[str], *, x_title: str, y_title: str, value_name: str, height: int | None = None
) -> go.Figure:
    """A table [T, d] too wide to label every column (d = 384): rows named, columns numbered,
    diverging colours around 0."""
    z = np.asarray(z, dtype=np.float32)  # [T, d]
    limit = float(np.abs(z).max()) or 1.0
    heat = go.Heatmap(
        z=z,
        y=[safe_label(s) for s in row_labels],  # categorical: the picked words hold no repeats
        colorscale="RdBu",
        reversescale=True,  # red = positive reads warm, blue = negative
        zmin=-limit,
        zmax=limit,
        hovertemplate=f"%{{y}}, {x_title} %{{x}}<br>{value_name}: %{{z:.4f}}<extra></extra>",
        colorbar=dict(title=dict(text=value_name, side="right"), thickness=14),
        ygap=2,
    )
    layout = dict(
        xaxis=dict(title=dict(text=x_title), showgrid=False, zeroline=False),
        yaxis=dict(title=dict(text=y_title), type="category", autorange="reversed", showgrid=False, zeroline=False),
    )
    return base_layout(go.Figure(data=[heat], layout=layout), height=height or 110 + 28 * z.shape[0])


def audio_windows(
    t_ms: np.ndarray,
    signal: np.ndarray,
    starts_ms: np.ndarray,
    window_ms: float,
    *,
    x_title: str,
    signal_name: str,
    frame_text: str,
    window_text: str,
    hop_text: str,
) -> go.Figure:
    """A stretch of sound with its windows drawn underneath as numbered bars, staggered on three
    rows so the overlaps show (a new window every 10 ms means up to three cover any instant).
    The first window and the first hop are measured off with labels."""
    wave = go.Scatter(
        x=np.asarray(t_ms, dtype=np.float32),
        y=np.asarray(signal, dtype=np.float32),
        mode="lines",
        name=signal_name,
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
        for k in range(level, len(starts_ms), levels):
            s = float(starts_ms[k])
            label = frame_text.format(k=k + 1, start=f"{s:g}", end=f"{s + window_ms:g}")
            xs += [s, s + window_ms, None]
            ys += [level_y[level]] * 2 + [None]
            texts += [label, label, None]
        colour = QUALITATIVE[level + 1]
        traces.append(
            go.Scatter(
                x=xs, y=ys, mode="lines+markers", line=dict(color=colour, width=6),
                marker=dict(symbol="line-ns", size=12, line=dict(width=2, color=colour)),
                text=texts, hovertemplate="%{text}<extra></extra>", showlegend=False,
            )
        )  # fmt: skip
    traces.append(
        go.Scatter(
            x=[float(s) + window_ms / 2 for s in starts_ms],
            y=[level_y[k % levels] + 0.06 for k in range(len(starts_ms))],  # just clear of the thick bar
            mode="text",
            text=[str(k + 1) for k in range(len(starts_ms))],
            textposition="top center",
            textfont=dict(size=12, color="#222222"),
            hoverinfo="skip",
            showlegend=False,
        )
    )
    notes = []
    if len(starts_ms) >= 2:
        s0, s1 = float(starts_ms[0]), float(starts_ms[1])
        arrow = dict(showarrow=True, arrowhead=2, arrowside="end+start", arrowwidth=1.2, arrowcolor="#222222",
                     axref="x", ayref="y", font=dict(color="#222222"))  # fmt: skip
        notes = [
            dict(x=s0, y=1.3, ax=s0 + window_ms, ay=1.3, **arrow),
            dict(x=s0 + window_ms / 2, y=1.3, text=window_text, showarrow=False, yanchor="bottom",
                 font=dict(color="#222222")),
            dict(x=s0, y=-2.45, ax=s1, ay=-2.45, **arrow),
            dict(x=s1, y=-2.45, text=hop_text, showarrow=False, xanchor="left", xshift=4,
                 font=dict(color="#222222")),
        ]  # fmt: skip
    layout = dict(
        annotations=notes,
        showlegend=False,
        xaxis=dict(title=dict(text=x_title), zeroline=False),
        yaxis=dict(showticklabels=False, showgrid=False, zeroline=False, range=[-2.65, 1.6]),
    )
    return base_layout(go.Figure(data=traces, layout=layout), height=320)


def binary_rows(
    z: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], *, x_title: str, y_title: str,
    value_name: str, title: str | None = None,
) -> go.Figure:  # fmt: skip
    """Small 0/1 tables (atoms over elements, people over people), each row one vector."""
    rows = np.asarray(z).shape[0]
    fig = heatmap(
        z, col_labels, row_labels, x_title=x_title, y_title=y_title, value_name=value_name, title=title,
        colorscale=BINARY_SCALE, zmin=0, zmax=1, value_format=".0f", show_values=True,
        height=min(520, 120 + 34 * rows),
    )  # fmt: skip
    fig.update_traces(selector=dict(type="heatmap"), showscale=False)
    fig.update_yaxes(scaleanchor=None)
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


def network(nodes: Sequence[str], adjacency: np.ndarray, *, friends_name: str) -> go.Figure:
    """People as dots, a line for each friendship; the hover counts each one's friends."""
    A = np.asarray(adjacency)  # [n, n]
    pos = np.round(spring_layout(A), 6)  # [n, 2]
    x, y = pos[:, 0].tolist(), pos[:, 1].tolist()
    ex: list[float | None] = []
    ey: list[float | None] = []
    for i, j in zip(*np.nonzero(np.triu(A)), strict=True):
        ex += [x[i], x[j], None]
        ey += [y[i], y[j], None]
    fig = go.Figure(go.Scatter(x=ex, y=ey, mode="lines", line=dict(color="#777777", width=2), hoverinfo="skip"))
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="markers+text",
            text=[safe_label(s) for s in nodes],
            textposition="top center",  # beside the dot, not inside: lecture mode shrinks dots to 10 px
            textfont=dict(size=16, shadow=HALO),
            marker=dict(size=22, color=QUALITATIVE[0]),
            customdata=A.sum(axis=1).astype(int).tolist(),
            hovertemplate=f"%{{text}} · {friends_name}: %{{customdata}}<extra></extra>",
        )
    )
    fig.update_xaxes(visible=False, range=[-1.35, 1.35])
    fig.update_yaxes(visible=False, range=[-1.35, 1.35], scaleanchor="x")
    fig.update_layout(showlegend=False)
    return base_layout(fig, height=340)
