"""Figures of the attention-heatmaps page: a core dataclass and the language in, go.Figure out, no
Streamlit calls. Each figure is built in one go.Figure(data=..., layout=...) call.

Positions count from 1 (token 1 is the first, like the articles' a1 ... a4). The token axes are
categorical with one unique label per token ("2 · saw"), so hover reads the query and the key
back from the axes (2·T strings) instead of carrying a string per cell (2·T²), and the two
"saw"s of "I saw a saw" keep a column each; the tick texts are the tokens alone.

Random weights say so in every title: a student must not read meaning into noise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.heatmap_views import CausalCheck, HeatmapView, QueryRow
from attention_core.speech import SpeechCost
from lab_ui.figures.common import DIVERGING_WARM, MASKED_COLOUR, QUALITATIVE, SEQUENTIAL, bytes_text, safe_label
from lab_ui.i18n import t
from lab_ui.layout import (
    FONT_FAMILY,
    LABEL_GAP_PX,
    LECTURE_TEXT_PX,
    NO_TEMPLATE,
    TICK_PX,
    key_labels_hidden_on_phones,
    text_px,
)

# Numbers in cells: a desktop's figure column leaves about 24 px per cell for 12 tokens, enough for
# "0.80" at 10 px, and a projector (lecture mode: the full width, 20 px text) about 70. A 390 px
# phone leaves 24 px only up to 8 tokens: past that the page hides the numbers there
# (show_figure's numbers_on_phones), and hover and the numbers table give them.
CELL_TEXT_MAX_TOKENS = 12
CELL_TEXT_PHONE_MAX = 8
# The output chart shares a row with the bars (half the width on a desktop, all of it on a phone):
# "-1.29" at 10 px needs about 30 px, which 6 components leave.
CELL_TEXT_MAX_COMPONENTS = 6
CELL_TEXT_MAX_ROWS = 24  # rows below ~25 px: the text would touch the next row's
LEVEL_LABELS_PX = 380  # the key labels' room under a map in the steps' column of a 1280 px screen
CROSSES_MAX = 32  # past 32 rows or columns a × in every masked cell is noise; grey alone marks them
LABEL_EVERY_MAX = 32  # past 32 tokens every other one is labelled, or the labels overlap
# A projector's rows: a 20 px label needs about 22 px of row. The lecture figure (LECTURE_HEIGHT)
# leaves a map about 255 px under its title and slanted key labels, room for 12 such rows, and it
# grows by a row's 22 px for each row past 12 up to LECTURE_MAP_MAX_PX, which still ends on a
# 1280 x 720 projector's first screen under a step bar of two lines: so a map of up to 17 rows (the
# default sentence's 16 tokens, and its output's 16 terms and their sum) has every row named on the
# projector, and a longer one every other row. The row sums (Σ) are 20 px numbers too (smaller ones,
# shrunk to the rows, were 14 px on a projector): they stand on the labelled rows, and hover gives
# every row's.
LECTURE_ROW_PX = 22
LECTURE_LABEL_ROWS = 17
# The bars of one query in lecture mode: half a projector's width leaves their plot about 450 px. A
# number on a bar is written at 20 px, however narrow the bar (Plotly shrank "0.68" to the bar's
# width, 12 px); where bars are narrower than their numbers, the largest weights keep theirs and a
# bar's neighbours within a number's width are left without (hover gives them).
LECTURE_BARS_PX = 440
# A phone's map: in a 390 px phone's figure the keys and Σ get about 210 px (measured in Chromium with
# the default sentence's row labels), about 12 px a column past 16 keys; a 12 px label slanted at
# -60 degrees touches its neighbour unless they are 1.2 x 12 / sin 60 = 17 px apart. The figure does
# not know the screen's width: the page asks the browser to hide labels on a phone (phone_ticks_css).
PHONE_MAP_PX = 200
SLANTED_LABEL_GAP_PX = 1.2 * TICK_PX / np.sin(np.radians(60))
# Plotly's toolbar keeps zoom, reset and download: three buttons at the top right, which leave a
# phone's 350 px figure room for a title that starts at the left.
MODEBAR = dict(remove=["zoomin", "zoomout", "autoscale", "pan", "select", "lasso"])
# Lecture mode: what a 1280 x 720 projector leaves a figure under the title row (its popovers take
# two rows in English) and the step bar, so that a step's figure is whole on the first screen; the
# words of the step go under it. The subtitle folds into the title there.
LECTURE_HEIGHT = 400
LECTURE_MAP_MAX_PX = LECTURE_HEIGHT + LECTURE_ROW_PX * (LECTURE_LABEL_ROWS - 12)


def lecture_map_height(rows: int) -> int:
    """A map's height on a projector: LECTURE_HEIGHT, and a row's room more for each row past 12."""
    return min(LECTURE_HEIGHT + LECTURE_ROW_PX * max(0, rows - 12), LECTURE_MAP_MAX_PX)


# The page's formulas, aligned on "=" so they fit beside the code; M(i) is the set of keys query i may look at.
_SCORE = r"\begin{aligned} s_{ij} &= \frac{q_i \cdot k_j}{\sqrt{d_k}\,\tau} \\ "
_OUTPUT = r" \\ \alpha'_{ij} &= 0 \quad (j \notin \mathcal{M}(i)) \\ b_i &= \sum_j \alpha'_{ij}\, v_j \end{aligned}"
LATEX = {
    "softmax": _SCORE
    + r"\alpha'_{ij} &= \frac{e^{s_{ij}}}{\sum_{l \in \mathcal{M}(i)} e^{s_{il}}} \quad (j \in \mathcal{M}(i))"
    + _OUTPUT,
    "relu": _SCORE + r"\alpha'_{ij} &= \max(0,\ s_{ij}) \quad (j \in \mathcal{M}(i))" + _OUTPUT,
    "shipped": r"\begin{aligned} \tilde\alpha_{ij} &= \frac{(\alpha'_{ij})^{1/\tau}}"
    r"{\sum_{l \in \mathcal{M}(i)} (\alpha'_{il})^{1/\tau}} \quad (j \in \mathcal{M}(i)) \\"
    r" \tilde\alpha_{ij} &= 0 \quad (j \notin \mathcal{M}(i)) \end{aligned}",
    "speech": r"\begin{aligned} T &= \left\lfloor \frac{t_{\mathrm{ms}} - 25}{10} \right\rfloor + 1 \\"
    r" N_{\mathrm{full}} &= T^2 \\ N_{w} &= \sum_{i} \bigl|\{ j : |i - j| \le w \}\bigr| \\"
    r" &= T(2w + 1) - w(w + 1) \end{aligned}",  # two lines: a phone's width
}


def position_label(i: int, token: str) -> str:
    """'2 · saw': a token with its 1-based position, unique even when a word repeats (plain
    text: escape it where Plotly or Markdown would read it)."""
    return f"{i} · {token}"


def seen_keys(check: CausalCheck, tokens: Sequence[str]) -> str:
    """The keys the causal check's query may look at, for its explanation: "1 · I, 2 · saw, 3 · a";
    numbers alone when the sentence is too short and the question is about a longer one (plain text:
    escape it where Markdown would read it)."""
    return ", ".join(str(j) if check.hypothetical else position_label(j, tokens[j - 1]) for j in check.seen)


def row_sums_text(view: HeatmapView, lang: str) -> str:
    """What the Σ column says, in words: every row sums to 1 (softmax), or the range (ReLU)."""
    lo, hi = float(view.row_sums[view.live].min()), float(view.row_sums[view.live].max())
    if view.normalisation == "relu":
        return t("heatmap.sums_relu", lang, lo=f"{lo:.3f}", hi=f"{hi:.3f}")
    if f"{lo:.4f}" == f"{hi:.4f}":  # "from 1.0000 to 1.0000" would read as a range
        return t("heatmap.sums_softmax_equal", lang, total=f"{lo:.4f}")
    return t("heatmap.sums_softmax", lang, lo=f"{lo:.4f}", hi=f"{hi:.4f}")


def notes(view: HeatmapView, lang: str) -> list[str]:
    """The notes under the heatmap that apply to this view: masked cells, repeated tokens with
    random weights (identical rows), the model's word pieces and [UNK], a text cut to fit; and
    always last, that rows are queries (the articles draw the transpose)."""
    keys = [
        view.allowed is not None and not view.allowed.all() and "heatmap.masked_note",
        view.source == "random" and len(set(view.tokens)) < len(view.tokens) and "heatmap.same_vectors",
        view.source != "random" and "heatmap.model_tokens",
        view.source != "random" and lang == "zh" and "heatmap.model_english",
    ]
    out = [t(key, lang) for key in keys if key]
    if n_unknown := view.tokens.count("[UNK]"):
        out.append(t("heatmap.model_unk", lang, n=n_unknown, T=len(view.tokens)))
    if view.total_tokens > len(view.tokens):
        out.append(t("common.tokens_cut", lang, total=view.total_tokens, shown=len(view.tokens)))
    return [*out, t("heatmap.rows_not_columns", lang)]


def weights_table(view: HeatmapView, lang: str) -> pd.DataFrame:
    """The weights as a table: a row per query named "i · token", the row sum first, then a column
    per key; a masked cell is empty (NaN), which the table shows as a word."""
    names = [position_label(i + 1, tok) for i, tok in enumerate(view.tokens)]
    cells = view.weights if view.allowed is None else np.where(view.allowed, view.weights, np.nan)  # [T, T]
    table = pd.DataFrame(cells, index=pd.Index(names, name=t("heatmap.query", lang)), columns=names)
    table.insert(0, t("heatmap.row_sum", lang), view.row_sums)
    return table


def speech_table(cost: SpeechCost, lang: str) -> pd.DataFrame:
    """The speech curves' numbers every 5 seconds (every 10th point of a half-second grid)."""
    columns = {
        "heatmap.speech_frames": cost.curve_frames,
        "heatmap.speech_full": cost.curve_full,
        "heatmap.speech_windowed": cost.curve_window,
    }
    index = pd.Index(cost.curve_seconds[::10], name=t("heatmap.speech_seconds", lang))
    return pd.DataFrame({t(k, lang, w=cost.window): v[::10] for k, v in columns.items()}, index=index)


def speech_text(cost: SpeechCost, lang: str) -> str:
    """The speech section's numbers in words: frames, full and windowed weights and their memory."""
    return t(
        "heatmap.speech_numbers",
        lang,
        seconds=f"{cost.seconds:g}",
        T=f"{cost.T:,}",
        full=f"{cost.full_entries:,}",
        full_memory=bytes_text(cost.full_bytes),
        w=cost.window,
        ms=cost.window_ms,
        keys=2 * cost.window + 1,
        windowed=f"{cost.window_entries:,}",
        windowed_memory=bytes_text(cost.window_bytes),
        ratio=f"{cost.full_entries / cost.window_entries:,.0f}",
    )


def _axis_labels(tokens: Sequence[str], *more: str) -> list[str]:
    """The categories of a token axis. Text goes into a figure as lists: a NumPy array of strings
    builds faster but is sent two to three times slower, on every rerun (the figure is cached)."""
    return [*(safe_label(position_label(i + 1, s), 24) for i, s in enumerate(tokens)), *more]


def _height(rows: int) -> int:
    """Tall enough for readable rows, short enough to fit a 720 px projector screen."""
    return int(np.clip(200 + 30 * rows, 360, 700))


def cell_font_size(n: int) -> int:
    """Cell text size for n cells across: larger while the cells are wide."""
    return 12 if n <= 5 else 10


def _layout(
    title: str, subtitle: str | None, height: int, lecture: bool, lecture_height: int = LECTURE_HEIGHT, **more
) -> dict:
    """Title and subtitle at the top left (the toolbar sits at the top right), the shared font,
    no template (the browser themes the chart; the template would be half the JSON).
    lecture_height: the most the figure may be tall on a projector."""
    if lecture:
        subtitle, height = None, min(height, lecture_height)
    return dict(
        title=dict(
            text=title,
            subtitle=dict(text=subtitle),
            x=0,
            xanchor="left",
            y=0.99,
            yref="container",
            yanchor="top",
            automargin=True,
            font=dict(size=15),
        ),
        font=dict(family=FONT_FAMILY),
        hoverlabel=dict(font=dict(family=FONT_FAMILY)),
        template=NO_TEMPLATE,
        margin=dict(l=10, r=10, t=70 if subtitle else 45, b=10),
        height=height,
        modebar=MODEBAR,
        **more,
    )


def _source_title(view: HeatmapView, lang: str) -> str:
    if view.source == "random":
        return t("heatmap.fig_random", lang, d=view.d, seed=view.seed)
    return t("heatmap.fig_model", lang, layer=view.layer, head=view.head)


def _settings(view: HeatmapView, lang: str) -> str:
    """The choices that change the weights, when they are not the standard ones."""
    parts = []
    if view.mask == "local":
        parts.append(t("heatmap.fig_mask_local", lang, w=view.window))
    elif view.mask == "causal":
        parts.append(t("heatmap.fig_mask_causal", lang))
    if view.temperature != 1:
        parts.append(f"τ = {view.temperature:g}")
    if view.normalisation == "relu":
        parts.append("ReLU")
    return " · ".join(parts)


def _ticks(labels: list[str], tokens: Sequence[str], *more: str, most: int = LABEL_EVERY_MAX) -> tuple[list, list]:
    """Tick values and texts: every token, or every other one (every third ...) past `most`; then `more`.
    A thinned token's label keeps the same room from the labels of `more` (Σ, b_i) as from its
    neighbours: "word39" sat on top of "b3 = Σ" one row below it."""
    step = int(np.ceil(len(tokens) / most))
    kept = [i for i in range(0, len(tokens), step) if not more or len(tokens) - i >= step]
    return [*(labels[i] for i in kept), *more], [*(safe_label(tokens[i]) for i in kept), *more]


def phone_ticks_css(key: str, T: int) -> str | None:
    """CSS that leaves only every k-th key label of the figure `key` (and Σ) on a phone's screen,
    where T keys' labels slanted at -60 degrees would touch; None when they fit (the desktop figure's
    own labelling, and up to 8 keys' level labels, stay as they are)."""
    if T <= 8:
        return None
    step = int(np.ceil(T / LABEL_EVERY_MAX))  # as _ticks labels the keys
    every = int(np.ceil(SLANTED_LABEL_GAP_PX * (T + 2) / (PHONE_MAP_PX * step)))  # T + 2 columns: the keys, Σ, its room
    if every <= 1:
        return None
    return key_labels_hidden_on_phones(key, f":not(:nth-of-type({every}n+1)):not(:last-of-type)")


def weights_heatmap(view: HeatmapView, lang: str, lecture: bool = False) -> go.Figure:
    """The T x T weights, queries as rows and keys as columns, masked cells grey (with a × while
    there is room), and each row's sum in a column of its own on the right (Σ), so "rows sum to 1"
    (or, with ReLU, do not) can be read off the picture."""
    T = len(view.tokens)
    labels = _axis_labels(view.tokens)
    z = view.weights if view.allowed is None else np.where(view.allowed, view.weights, np.nan)  # [T, T]
    query, key, weight, row_sum = (
        t(k, lang) for k in ("heatmap.query", "heatmap.key", "heatmap.weight", "heatmap.row_sum")
    )
    cells = go.Heatmap(
        z=z.astype(np.float32),
        x=labels,
        y=labels,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=None if view.normalisation == "relu" else 1.0,
        hoverongaps=False,
        texttemplate="%{z:.2f}" if T <= CELL_TEXT_MAX_TOKENS else None,
        textfont=dict(size=cell_font_size(T)),
        hovertemplate=f"{query}: %{{y}}<br>{key}: %{{x}}<br>{weight}: %{{z:.6f}}<extra></extra>",
        colorbar=dict(title=dict(text=weight, side="right"), thickness=10),
    )
    data = [cells]
    if view.allowed is not None and not view.allowed.all():
        blocked = ~view.allowed  # [T, T]
        data.append(
            go.Heatmap(
                z=np.where(blocked, 1.0, np.nan).astype(np.float32),
                x=labels,
                y=labels,
                colorscale=[[0, MASKED_COLOUR], [1, MASKED_COLOUR]],
                showscale=False,
                hoverinfo="skip",
            )
        )
        if T <= CROSSES_MAX:
            r, c = np.nonzero(blocked)
            data.append(
                go.Scatter(
                    x=[labels[j] for j in c],
                    y=[labels[i] for i in r],
                    mode="markers",
                    hoverinfo="skip",
                    showlegend=False,
                    marker=dict(
                        symbol="x-thin",
                        size=max(6, min(18, 240 // T)),
                        line=dict(width=2, color="rgba(110,110,110,0.9)"),
                    ),
                )
            )
    most = LECTURE_LABEL_ROWS if lecture else LABEL_EVERY_MAX
    sums = [f"{s:.2f}" for s in view.row_sums]
    every = int(np.ceil(T / most))  # on a projector, the sums stand on the labelled rows (LECTURE_LABEL_ROWS)
    data.append(
        go.Scatter(
            # Written from the middle of the Σ column rightwards, into room kept for it: on a phone the
            # column is narrower than "1.00" and centred text would run into the last key's cells.
            x=["Σ"] * T,
            y=labels,
            mode="text",
            name=row_sum,
            textposition="middle right",
            customdata=sums,
            text=[s if not lecture or i % every == 0 else "" for i, s in enumerate(sums)],
            # else the figure's font, larger in lecture mode
            textfont=dict(size=LECTURE_TEXT_PX) if lecture else dict(size=max(8, 300 // T)) if T > 24 else None,
            hovertemplate=f"{query}: %{{y}}<br>{row_sum}: %{{customdata}}<extra></extra>",
            showlegend=False,
            cliponaxis=False,
        )
    )
    tickvals, ticktext = _ticks(labels, view.tokens, most=most)
    x_vals, x_text = _ticks(labels, view.tokens, "Σ")
    axis = dict(type="category", showgrid=False, zeroline=False, automargin=True, tickmode="array")
    settings = _settings(view, lang)
    subtitle = t("heatmap.fig_subtitle", lang) + (f"<br>{settings}" if settings else "")
    title = _source_title(view, lang) + (f" · {settings}" if lecture and settings else "")
    layout = _layout(
        title,
        subtitle,
        _height(T),
        lecture,
        lecture_map_height(T),
        xaxis=dict(
            axis,
            tickvals=x_vals,
            ticktext=x_text,
            categoryorder="array",
            categoryarray=_axis_labels(view.tokens, "Σ"),
            range=[-0.5, T + 1.5],
            tickangle=0 if _level(view.tokens) else -30 if lecture else -60,
        ),
        yaxis=dict(axis, tickvals=tickvals, ticktext=ticktext, autorange="reversed"),
        shapes=[
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=T - 0.5,
                x1=T - 0.5,
                y0=0,
                y1=1,
                line=dict(width=1, color="rgba(120,120,120,0.8)"),
            )
        ],
    )
    if settings and not lecture:
        layout["margin"]["t"] = 90
    return go.Figure(data=data, layout=layout)


def _level(tokens: tuple[str, ...]) -> bool:
    """Do the key labels fit level under the map? Up to 8 of them, while they fit LEVEL_LABELS_PX
    (the map's width in the page's steps column, keys and Σ; a phone's slants them itself)."""
    return len(tokens) <= 8 and sum(text_px(safe_label(s), TICK_PX) + LABEL_GAP_PX for s in tokens) <= LEVEL_LABELS_PX


def row_bars(view: HeatmapView, row: QueryRow, lang: str, lecture: bool = False) -> go.Figure:
    """One query's weights over the keys as bars; behind a masked key stands a grey band marked
    ×, so "masked" and "weight 0" look different. Values are printed on the bars up to 24 keys."""
    T = len(view.tokens)
    labels = _axis_labels(view.tokens)
    allowed = np.ones(T, dtype=bool) if row.allowed is None else row.allowed  # [T]
    key, weight = t("heatmap.key", lang), t("heatmap.weight", lang)
    top = max(1.0, float(row.weights.max()) * 1.15)
    data = []
    masked = np.flatnonzero(~allowed)  # [n_masked]
    if masked.size:  # first, so it stands behind the bars
        data.append(
            go.Bar(
                x=[labels[j] for j in masked],
                y=np.full(masked.size, top),
                marker_color=MASKED_COLOUR,
                name="×",
                text=["×"] * masked.size,
                textposition="inside",
                insidetextanchor="start",
                textfont=dict(size=LECTURE_TEXT_PX if lecture else 14, color="rgb(90,90,90)"),
                hoverinfo="skip",
                showlegend=False,
                constraintext="none" if lecture else None,
            )
        )
    text = [f"{w:.2f}" if a else "" for w, a in zip(row.weights, allowed, strict=True)] if T <= 24 else None
    data.append(
        go.Bar(
            x=labels,
            y=row.weights.astype(np.float32),
            marker_color=QUALITATIVE[0],
            name=weight,
            showlegend=False,
            text=bar_numbers(text, row.weights) if lecture and text else text,
            textposition="outside",
            cliponaxis=False,
            constraintext="none" if lecture else None,  # the font's 20 px, never shrunk to the bar's width
            hovertemplate=f"{key}: %{{x}}<br>{weight}: %{{y:.6f}}<extra></extra>",
        )
    )
    tickvals, ticktext = _ticks(labels, view.tokens)
    title = t("heatmap.row_title", lang, query=safe_label(position_label(row.query + 1, view.tokens[row.query]), 24))
    layout = _layout(
        title,
        t("heatmap.fig_random_short", lang) if view.source == "random" else None,
        360,
        lecture,
        barmode="overlay",
        xaxis=dict(
            type="category",
            categoryorder="array",
            categoryarray=labels,
            tickmode="array",
            tickvals=tickvals,
            ticktext=ticktext,
            tickangle=-60 if T > 10 else 0,
            automargin=True,
            title=dict(text=key),
        ),
        yaxis=dict(range=[0, top], title=dict(text=weight), automargin=True),
    )
    return go.Figure(data=data, layout=layout)


def bar_numbers(text: list[str], weights: np.ndarray) -> list[str]:
    """The numbers a projector's bars carry (LECTURE_BARS_PX): all of them while the bars are wider than
    a 20 px number; else the largest weights' first, each keeping the bars within a number's width of
    it free, and no "0.00" (the bar says as much)."""
    wide = max(text_px(s, LECTURE_TEXT_PX) for s in text)  # px; text_px's overestimate is the air between two
    apart = int(np.ceil(wide / (LECTURE_BARS_PX / len(text))))  # bars from one number to the next
    if apart <= 1:
        return text
    kept: list[int] = []
    for j in np.argsort(-np.asarray(weights), kind="stable"):
        if text[j] not in ("", "0.00") and all(abs(j - k) >= apart for k in kept):
            kept.append(int(j))
    return [s if j in kept else "" for j, s in enumerate(text)]


def weighted_sum(view: HeatmapView, row: QueryRow, lang: str, lecture: bool = False) -> go.Figure:
    """The output of one query as the sum of its weighted value vectors: one row per key j holding
    α'_ij · v_j, then the sum b_i below a line. Needs the values (row.terms). Numbers in the cells
    while they fit, never on a projector (its 20 px text would not)."""
    if row.terms is None:
        raise ValueError("this view has no value vectors (stored weights only): nothing to sum.")
    T, d_v = row.terms.shape
    i = row.query + 1
    z = np.vstack([row.terms, row.output]).astype(np.float32)  # [T + 1, d_v]; last row is b_i
    if row.allowed is not None and not row.allowed.all():
        z[:T][~row.allowed] = np.nan  # a masked key contributes nothing: grey, not a white 0
    labels = _axis_labels(view.tokens, safe_label(t("heatmap.output_label", lang, i=i)))
    components = [str(c + 1) for c in range(d_v)]
    limit = float(np.nanmax(np.abs(z))) or 1.0
    show_values = not lecture and d_v <= CELL_TEXT_MAX_COMPONENTS and T + 1 <= CELL_TEXT_MAX_ROWS
    component, term, value = (t(k, lang) for k in ("heatmap.component", "heatmap.term", "heatmap.contribution"))
    trace = go.Heatmap(
        z=z,
        x=components,
        y=labels,
        colorscale=DIVERGING_WARM,
        zmin=-limit,
        zmax=limit,
        zmid=0.0,
        hoverongaps=False,
        # A fixed size: left unset, Plotly shrinks the text to fit the cell, down to an unreadable 4 px.
        texttemplate="%{z:.2f}" if show_values else None,
        textfont=dict(size=cell_font_size(d_v)),
        hovertemplate=f"{term}: %{{y}}<br>{component}: %{{x}}<br>{value}: %{{z:.6f}}<extra></extra>",
        colorbar=dict(title=dict(text=value, side="right"), thickness=10),
    )
    step = int(np.ceil(d_v / (8 if lecture else 16)))  # at most 16 component numbers (8 at 20 px), or they touch
    most = LECTURE_LABEL_ROWS - 1 if lecture else LABEL_EVERY_MAX  # the keys' rows, then the sum's
    tickvals, ticktext = _ticks(labels, view.tokens, labels[-1], most=most)
    layout = _layout(
        t("heatmap.sum_title", lang, i=i),
        t("heatmap.fig_random_short", lang) if view.source == "random" else None,
        _height(T + 1),
        lecture,
        lecture_map_height(T + 1),
        xaxis=dict(
            type="category",
            tickmode="array",
            tickvals=components[::step],
            ticktext=components[::step],
            title=dict(text=component),
            showgrid=False,
            automargin=True,
        ),
        yaxis=dict(
            type="category",
            tickmode="array",
            tickvals=tickvals,
            ticktext=ticktext,
            autorange="reversed",
            showgrid=False,
            automargin=True,
        ),
        shapes=[
            dict(
                type="line",
                xref="paper",
                yref="y",
                x0=0,
                x1=1,
                y0=T - 0.5,
                y1=T - 0.5,
                line=dict(width=3, color="black"),
            )
        ],
    )
    data = [trace]
    if np.isnan(z).any():
        grey = np.where(np.isnan(z), 1.0, np.nan).astype(np.float32)  # [T + 1, d_v]
        data.append(
            go.Heatmap(
                z=grey,
                x=components,
                y=labels,
                colorscale=[[0, MASKED_COLOUR], [1, MASKED_COLOUR]],
                showscale=False,
                hoverinfo="skip",
            )
        )
    return go.Figure(data=data, layout=layout)


def speech_cost(cost: SpeechCost, lang: str, lecture: bool = False) -> go.Figure:
    """How the weights of one map grow with seconds of speech: T² for full self-attention against
    about T (2w + 1) for a window of w frames on each side, with the student's length marked."""
    full, windowed = t("heatmap.speech_full", lang), t("heatmap.speech_windowed", lang, w=cost.window)
    seconds, entries = t("heatmap.speech_seconds", lang), t("heatmap.speech_entries", lang)
    hover = f"{seconds}: %{{x:.1f}}<br>{entries}: %{{y:,.0f}}<extra>%{{fullData.name}}</extra>"
    data = [
        go.Scatter(
            x=cost.curve_seconds,
            y=cost.curve_full,
            mode="lines",
            name=full,
            hovertemplate=hover,
            line=dict(color=QUALITATIVE[5], width=3),
        ),
        go.Scatter(
            x=cost.curve_seconds,
            y=cost.curve_window,
            mode="lines",
            name=windowed,
            hovertemplate=hover,
            line=dict(color=QUALITATIVE[0], width=3, dash="dash"),
        ),
        go.Scatter(
            x=[cost.seconds, cost.seconds],
            y=[cost.full_entries, cost.window_entries],
            mode="markers",
            marker=dict(size=10, color=[QUALITATIVE[5], QUALITATIVE[0]]),
            showlegend=False,
            hovertemplate=hover,
            name=t("heatmap.speech_you", lang),
        ),
    ]
    layout = _layout(
        t("heatmap.speech_cost_title", lang),
        None,
        380,
        lecture,
        xaxis=dict(title=dict(text=seconds), rangemode="tozero"),
        yaxis=dict(title=dict(text=entries), rangemode="tozero", automargin=True, exponentformat="SI"),
        legend=dict(x=0.02, y=0.98, xanchor="left", yanchor="top"),  # top left: the full curve rises at the right
    )
    return go.Figure(data=data, layout=layout)


def speech_mask(cost: SpeechCost, lang: str, lecture: bool = False) -> go.Figure:
    """The local mask over the first frames: frame i (a row) may look at frame j (a column) only
    when |i - j| <= w, a band along the diagonal. Frames are named by their start in ms."""
    n = cost.mask.shape[0]
    names = [f"{10 * i} ms" for i in range(n)]
    query, key = t("heatmap.speech_query", lang), t("heatmap.speech_key", lang)
    trace = go.Heatmap(
        z=cost.mask.astype(np.float32),
        x=names,
        y=names,
        colorscale=[[0, "rgb(235,235,235)"], [1, QUALITATIVE[0]]],
        zmin=0,
        zmax=1,
        showscale=False,
        hovertemplate=f"{query}: %{{y}}<br>{key}: %{{x}}<extra></extra>",
    )
    every = max(1, n // 8)
    axis = dict(
        type="category",
        tickmode="array",
        tickvals=names[::every],
        ticktext=names[::every],
        showgrid=False,
        automargin=True,
    )
    layout = _layout(
        t("heatmap.speech_mask_title", lang, n=n, w=cost.window),
        None,
        380,
        lecture,
        xaxis=dict(axis, title=dict(text=key), tickangle=-45),
        yaxis=dict(axis, title=dict(text=query), autorange="reversed"),
    )
    return go.Figure(data=[trace], layout=layout)
