"""Figures of the "inside a real model" page: arrays in, go.Figure out, no Streamlit calls.

The 6 x 12 grid of attention maps is ONE heatmap trace: the 72 maps sit in one matrix with empty
(NaN) gaps between them. Its axes are categorical with one label per row and per column
("layer 3 · query 11: it", "head 7 · key 3: animal"), so hovering any cell names the layer, the
head, the query and the key from 18·(T + gap) short strings, instead of 72·T² per-cell strings;
the whole grid serialises like a single map.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.attention_views import PATTERNS, CheckAnswers, HeadNumbers, Link, ModelView
from lab_ui import state
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL, SEQUENTIAL_ALT, safe_label
from lab_ui.i18n import literal, t
from lab_ui.layout import key_labels_hidden_on_phones, layout_dict

OUTLINE = QUALITATIVE[5]  # Okabe-Ito vermillion: stands out on every Viridis colour
GRID_MAX = 32  # word pieces drawn in each of the 72 small maps (about 3 px a cell at 1280 px)
GRID_HEIGHT = 450  # the grid is twice as wide as tall: 450 px fill a desktop's steps column and a phone alike
# The words of each simple job (attention_core.attention_views.PATTERNS), in its order.
JOB_WORDS = state.labels("real_model.pattern_", "previous", "next", "self", "same")
FOUND = state.labels("real_model.found_", "previous", "next", "self", "same")  # the head found for each
assert tuple(JOB_WORDS) == tuple(FOUND) == PATTERNS
# Plotly's toolbar keeps zoom, reset and download (three buttons at the top right).
MODEBAR = dict(remove=["zoomin", "zoomout", "autoscale", "pan", "select", "lasso"])


def position_label(position: int, tokens: Sequence[str]) -> str:
    """'11 · it': the token at `position` (0-based, as the core and the links count) with its place in
    the whole text counted from 1, as the source articles (a_1 ... a_T) and the other pages count: [CLS]
    is 1. Unique when a word repeats."""
    return f"{position_number(position)} · {tokens[position]}"


def position_number(position: int) -> int:
    """A token's place as a student reads it: position 0 ([CLS]) is token 1."""
    return int(position) + 1


def grid_gap(T: int) -> int:
    """Empty cells between two maps of the grid: about an eighth of a map, at least one."""
    return max(1, round(T / 8))


def model_grid(view: ModelView, selected: tuple[int, int] | None, lang: str) -> go.Figure:
    """Every head's map as a small square, layers down, heads across, one colour scale 0..1, the
    first GRID_MAX tokens each (as drawn: [CLS]/[SEP] hidden or not). Hover names a token by its
    place in the whole text, so hiding tokens does not renumber the others. selected: (layer,
    head), 0-based, outlined, or None."""
    n = min(len(view.kept), GRID_MAX)
    maps = view.maps[:, :, :n, :n]  # [L, H, T, T], float32: half the JSON
    L, H, T, _ = maps.shape
    g = grid_gap(T)
    step = T + g
    z = np.full((L * step - g, H * step - g), np.nan, dtype=np.float32)  # [L·(T+g)-g, H·(T+g)-g]
    for layer in range(L):
        for head in range(H):
            z[layer * step : layer * step + T, head * step : head * step + T] = maps[layer, head]
    text = [f"{position_number(p)}: {safe_label(view.tokens[p])}" for p in view.kept[:n]]
    query, key, value_name = (
        t("real_model.query_word", lang),
        t("real_model.key_word", lang),
        t("real_model.weight", lang),
    )
    # One label per row and per column, unique (categories): gaps get labels nobody sees.
    y_cats = [f"gap {i}" for i in range(z.shape[0])]
    x_cats = [f"gap {j}" for j in range(z.shape[1])]
    for layer in range(L):
        name = t("real_model.layer_n", lang, layer=layer + 1)
        for i, tok in enumerate(text):  # tok: "11: it"
            y_cats[layer * step + i] = f"{name} · {query} {tok}"
    for head in range(H):
        name = t("real_model.head_n", lang, head=head + 1)
        for j, tok in enumerate(text):
            x_cats[head * step + j] = f"{name} · {key} {tok}"
    middle = (T - 1) // 2  # each block's tick sits on its middle row / column
    trace = dict(
        type="heatmap",
        z=z,
        x=x_cats,
        y=y_cats,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=1.0,
        hoverongaps=False,
        hovertemplate=f"%{{y}}<br>%{{x}}<br>{value_name}: %{{z:.4f}}<extra></extra>",
        # Across the bottom, as wide as the plot: the grid is twice as wide as tall and fills the
        # plot's width on a phone and a desktop alike, where a bar down the side would be up to 3x
        # the grid's height (the figure's height is fixed; the screen's width is not known here).
        colorbar=dict(
            title=dict(text=value_name, side="right"),
            orientation="h",
            lenmode="fraction",
            len=1.0,
            thickness=12,
            y=-0.02,
            yanchor="top",
        ),
    )
    shapes = []
    if selected is not None:
        layer, head = selected
        shapes.append(
            dict(
                type="rect",
                x0=head * step - 0.5 - g / 2,
                x1=head * step + T - 0.5 + g / 2,
                y0=layer * step - 0.5 - g / 2,
                y1=layer * step + T - 0.5 + g / 2,
                line=dict(color=OUTLINE, width=3),
                fillcolor="rgba(0,0,0,0)",
            )
        )
    # Categories keep the order in which the trace lists them (Plotly's default, "trace"): no
    # categoryarray, which would send every label a second time.
    axis = dict(type="category", showgrid=False, zeroline=False, tickmode="array", ticks="")
    layout = layout_dict(
        height=GRID_HEIGHT,
        xaxis=dict(
            axis,
            side="top",
            title=dict(text=t("real_model.head_word", lang)),
            tickvals=[x_cats[h * step + middle] for h in range(H)],
            ticktext=[str(h + 1) for h in range(H)],
            constrain="domain",
        ),
        yaxis=dict(
            axis,
            autorange="reversed",
            title=dict(text=t("real_model.layer_word", lang)),
            tickvals=[y_cats[lay * step + middle] for lay in range(L)],
            ticktext=[str(lay + 1) for lay in range(L)],
            scaleanchor="x",
            constrain="domain",
            constraintoward="bottom",
        ),  # the grid sits on its colour bar; spare height goes above
        modebar=MODEBAR,
        shapes=shapes,
        plot_bgcolor="rgba(0,0,0,0)",
    )
    return go.Figure(data=[trace], layout=layout)


def grid_block(fig_z: np.ndarray, T: int, layer: int, head: int) -> np.ndarray:
    """The map of (layer, head), 0-based, cut back out of model_grid's matrix.  -> [T, T]"""
    step = T + grid_gap(T)
    return np.asarray(fig_z)[layer * step : layer * step + T, head * step : head * step + T]  # [T, T]


def head_labels(numbers: HeadNumbers, view: ModelView, lang: str) -> tuple[list[str], list[str]]:
    """The drawn map's row and column names: "11 · it", and the "rest" column when there is one."""
    rows = [position_label(int(p), view.tokens) for p in numbers.positions]
    return rows, [*rows, t("real_model.rest_column", lang, n=numbers.rest)] if numbers.rest else rows


def label_every(rows: int, cols: int, lecture: bool) -> int:
    """The close-up labels every n-th row and column: labels would overlap past 40 (20 at 20 px)."""
    return int(np.ceil(max(rows, cols) / (20 if lecture else 40)))


def key_ticks(x: list[str], rows: int, every: int) -> list[str]:
    """The labelled columns: every `every`-th key, and the "rest" column (the last, when there are
    more columns than rows) always."""
    cols = len(x)
    return [*x[: cols - 1 : every], x[-1]] if cols > rows else x[::every]


def slanted(n_labels: int, lecture: bool) -> bool:
    """Slanted key labels while a phone's ~20 px columns leave room for them (12 labels), upright past
    that; on a projector the figure has the full width, slanted up to 24."""
    return n_labels <= (24 if lecture else 12)


# On a phone the close-up's plot is about 130 px wide (a 390 px screen, less the row labels and the colour
# bar): 16 upright key labels, each 16 px across, sat 8 px apart in one clump. The figure is built without
# knowing the screen; CSS does know it, and leaves only every k-th label there (hover still names every key).
PHONE_MAP_PX = 130
UPRIGHT_LABEL_PX = 15  # a 12 px label standing upright, across, with a few pixels between two
SLANTED_LABEL_PX = 18  # the same at -45 degrees: 18 px along the axis are 13 px across the slant


def phone_keys_css(key: str, numbers: HeadNumbers) -> str | None:
    """CSS that leaves only every k-th key label of the close-up (figure `key`) on a phone's screen,
    and the "rest" column's; None when the labels already fit there. For the screen figure (lecture
    mode is for a projector)."""
    rows, cols = np.shape(numbers.weights)
    every = label_every(rows, cols, False)
    n = len(key_ticks(list(range(cols)), rows, every))
    pitch = PHONE_MAP_PX * every / cols  # px between two labelled columns
    k = int(np.ceil((SLANTED_LABEL_PX if slanted(n, False) else UPRIGHT_LABEL_PX) / pitch))
    if k <= 1:
        return None
    # every k-th label and the last; none of the k - 1 before the last, which would touch it
    return key_labels_hidden_on_phones(
        key, f":not(:nth-of-type({k}n+1)):not(:last-of-type)", f":nth-last-of-type(-n+{k}):not(:last-of-type)"
    )


def head_map(numbers: HeadNumbers, view: ModelView, lang: str, lecture: bool = False) -> go.Figure:
    """One head's map, large, on the shared 0..1 scale (with a last column summing the keys not
    drawn, when there are more than the drawn ones).

    Both axes are categorical with unique labels ("11 · it", so a repeated word keeps its own row),
    and hover reads them back (%{y}, %{x}): the exact weight with both tokens and positions for
    2·T strings, where per-cell hover text would be 2·T² strings, 8,000 at 64 tokens, copied on
    every rerun. The columns carry the same labels as the rows, slanted so they stand side by
    side; past 40 tokens every second one is labelled.

    The cells fill the plot rather than staying square: the figure is built without knowing the
    screen's width, and a square map on a phone would be a third of the height of its colour bar.
    Filling the plot, the map is exactly as tall as the colour bar, on every screen."""
    z = np.asarray(numbers.weights, dtype=np.float32)  # [T_q, T_k]; float32 halves the JSON
    rows, cols = z.shape
    row_names, col_names = head_labels(numbers, view, lang)
    y = [safe_label(s, 24) for s in row_names]
    x = [safe_label(s, 24) for s in col_names]
    query, key, weight = t("real_model.query", lang), t("real_model.key", lang), t("real_model.weight", lang)
    trace = dict(
        type="heatmap",
        z=z,
        x=x,
        y=y,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=1.0,
        texttemplate="%{z:.2f}" if rows * cols <= 100 else None,
        hovertemplate=f"{query}: %{{y}}<br>{key}: %{{x}}<br>{weight}: %{{z:.6f}}<extra></extra>",
        colorbar=dict(title=dict(text=weight, side="right"), thickness=14),
    )
    every = label_every(rows, cols, lecture)
    # A projector's rows are shorter than its columns are wide: the figure (at most
    # layout.LECTURE_FIGURE_MAX_PX) leaves the map about 300 px under the slanted keys, room for 12
    # labels at 20 px, so the rows are thinned sooner.
    y_every = int(np.ceil(rows / 12)) if lecture else every
    x_tick = key_ticks(x, rows, every)
    # automargin: the slanted labels push the plot down instead of being cut at the figure's edge.
    axis = dict(type="category", tickmode="array", showgrid=False, zeroline=False, automargin=True)
    layout = layout_dict(
        # Taller with more rows; lab_ui.layout caps it for a projector.
        height=int(np.clip(18 * rows + 220, 420, 800)),
        # Slanted or upright: slanted(). On a projector no axis title (the step's title names the map),
        # so the rows keep their height. On a phone the page thins the labels (phone_keys_css).
        xaxis=dict(
            axis,
            tickvals=x_tick,
            ticktext=x_tick,
            side="top",
            title=dict(text=None if lecture else key),
            tickangle=-45 if slanted(len(x_tick), lecture) else -90,
        ),
        yaxis=dict(axis, tickvals=y[::y_every], ticktext=y[::y_every], autorange="reversed", title=dict(text=query)),
        modebar=MODEBAR,
    )
    return go.Figure(data=[trace], layout=layout)


def share_map(view: ModelView, lang: str) -> go.Figure:
    """Each head's share of a word's attention parked on [CLS] and [SEP], layers down, heads across,
    the number printed in every cell. The axes are the layer and head numbers themselves, so hover
    needs no per-cell text."""
    z = np.asarray(view.share, dtype=np.float32)  # [L, H]
    L, H = z.shape
    layers, heads = list(range(1, L + 1)), list(range(1, H + 1))
    layer, head, share = t("real_model.layer_word", lang), t("real_model.head_word", lang), t("real_model.share", lang)
    trace = dict(
        type="heatmap",
        z=z,
        x=heads,
        y=layers,
        colorscale=SEQUENTIAL_ALT,
        zmin=0.0,
        zmax=1.0,
        texttemplate="%{z:.2f}",
        hovertemplate=f"{layer} %{{y}} · {head} %{{x}}<br>{share}: %{{z:.4f}}<extra></extra>",
        colorbar=dict(title=dict(text=share, side="right"), thickness=14),
    )
    axis = dict(tickmode="array", showgrid=False, zeroline=False)
    layout = layout_dict(
        height=70 + 42 * L,  # 42 px a layer: a cell holds its number at a projector's 20 px too
        xaxis=dict(axis, tickvals=heads, ticktext=[str(h) for h in heads], side="top", title=dict(text=head)),
        yaxis=dict(
            axis, tickvals=layers, ticktext=[str(i) for i in layers], autorange="reversed", title=dict(text=layer)
        ),
        modebar=MODEBAR,
    )
    return go.Figure(data=[trace], layout=layout)


# --- the words under the figures --------------------------------------------------------------------

LATEX_SHARE = (
    r"\begin{aligned} s_i &= \sum_{j \in S} \alpha_{ij} \quad S = \{\mathrm{[CLS]}, \mathrm{[SEP]}\} \\"
    r" \alpha'_{ij} &= \frac{\alpha_{ij}}{\sum_{l \notin S} \alpha_{il}} = \frac{\alpha_{ij}}{1 - s_i}"
    r" \quad (i, j \notin S) \end{aligned}"
)
LATEX_JOBS = (
    r"\begin{aligned} \mathrm{previous}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \alpha^{h}_{i,\,i-1} \\"
    r" \mathrm{next}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \alpha^{h}_{i,\,i+1} \\"
    r" \mathrm{self}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \alpha^{h}_{i,\,i} \\"
    r" \mathrm{same}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \sum_{j \ne i,\ t_j = t_i} \alpha^{h}_{i,\,j}"
    r" \end{aligned}"
)


def grid_notes(view: ModelView, lang: str, shipped: bool, max_tokens: int, parking: int, map_max: int) -> str:
    """The notes under the grid: where the maps come from, what was cut, [UNK]s, and what the
    bright first and last columns are (or that they are hidden)."""
    T, n = len(view.kept), min(len(view.kept), GRID_MAX)
    notes = [
        shipped and t("real_model.shipped_note", lang),
        view.truncated and t("real_model.truncated", lang, limit=max_tokens),
        T > GRID_MAX and t("real_model.drawn_cut", lang, total=T, grid=n, map=min(T, map_max)),
        "[UNK]" in view.tokens and t("real_model.unk_note", lang, n=view.tokens.count("[UNK]"), T=len(view.tokens)),
        t("real_model.grid_hidden", lang)
        if view.hidden
        else t("real_model.grid_sink", lang, n=parking, total=view.share.size),
    ]
    return "\n\n".join(note for note in notes if note)


def head_words(numbers: HeadNumbers, view: ModelView, layer: int, head: int, lang: str) -> tuple[str, str, str]:
    """The close-up's words: what the head does (before the map), its row sums and notes (after)."""
    jobs = ", ".join(
        t("real_model.job_share", lang, job=JOB_WORDS.text(p, lang), share=f"{s:.2f}")
        for p, s in zip(PATTERNS, view.patterns[layer, head], strict=True)
        if not np.isnan(s)
    )
    body = t("real_model.head_body", lang, share=f"{view.share[layer, head]:.0%}", jobs=jobs)
    sums = numbers.row_sums[numbers.row_sums > 0]
    lo, hi = f"{sums.min():.4f}", f"{sums.max():.4f}"  # "from 1.0000 to 1.0000" would read as a range
    row_sums = (
        t("real_model.row_sums_equal", lang, total=lo) if lo == hi else t("real_model.row_sums", lang, lo=lo, hi=hi)
    )
    notes = [
        numbers.rest and t("real_model.rest_note", lang, n=len(numbers.positions), total=len(view.kept)),
        view.hidden and t("real_model.hidden_note", lang),
        view.hidden and view.empty_rows and t("real_model.empty_rows", lang, n=view.empty_rows),
    ]
    return body, row_sums, "\n\n".join(note for note in notes if note)


def sink_words(view: ModelView, parked: int, lang: str) -> str:
    """How many heads park (`parked` of them), all heads' mean, and the head that parks most."""
    layer, head = view.top_park
    share, mean = f"{view.share[layer, head]:.0%}", f"{view.share.mean():.0%}"
    where = dict(layer=layer + 1, head=head + 1)
    return t("real_model.sink_numbers", lang, n=parked, total=view.share.size, mean=mean, top=share, **where)


class Finding(NamedTuple):
    """A head found doing something, in words, and the key of the button that shows it large."""

    text: str
    layer: int  # 0-based
    head: int
    key: str


def job_findings(view: ModelView, lang: str, clear: float) -> tuple[list[Finding], str, Finding | None]:
    """The head that does each simple job best; the jobs whose best share is under `clear`, in one
    paragraph that says they are weak (nobody does them: no head to show); a word in two contexts."""
    found, weak = [], []
    for job in view.jobs:
        text = FOUND.text(job.pattern, lang, layer=job.layer + 1, head=job.head + 1, share=f"{job.share:.2f}")
        if job.share >= clear:
            found.append(Finding(text, job.layer, job.head, f"rm_go_{job.pattern}"))
        else:
            weak.append(t("real_model.weak_job", lang, found=text, clear=f"{clear:.2f}"))
    if (a := view.apart) is None:
        return found, "\n\n".join(weak), None
    i, j, apart = position_number(a.first), position_number(a.second), f"{a.distance:.2f}"
    where = dict(layer=a.layer + 1, head=a.head + 1)
    text = t("real_model.found_apart", lang, token=literal(view.tokens[a.first]), i=i, j=j, apart=apart, **where)
    return found, "\n\n".join(weak), Finding(text, a.layer, a.head, "rm_go_apart")


def link_words(link: Link, tokens: Sequence[str], lang: str) -> str:
    """The head that links the query word to the key word most, and what the query looks at most there."""
    name = {i: literal(position_label(i, tokens)) for i in (link.query, link.key, link.top)}
    words = dict(q=name[link.query], k=name[link.key], top=name[link.top], layer=link.layer + 1, head=link.head + 1)
    return t("real_model.found_link", lang, weight=f"{link.weight:.2f}", top_weight=f"{link.top_weight:.2f}", **words)


def check_words(answers: CheckAnswers, tokens: Sequence[str], layer: int, head: int, lang: str) -> dict[str, str]:
    """The two checks' questions and explanations (the choice's only when the text has a previous-token
    head); (layer, head), 0-based, is the selected head the number check asks about."""
    ask, parked = literal(position_label(answers.ask, tokens)), answers.parked
    words = dict(
        number_q=t("real_model.number_q", lang, layer=layer + 1, head=head + 1, query=ask),
        number_expl=t("real_model.number_expl", lang, share=f"{parked:.3f}", rest=f"{1 - parked:.3f}"),
    )
    if (prev := answers.previous) is not None:
        where = dict(layer=prev.layer + 1, head=prev.head + 1)
        best, weight = literal(position_label(answers.best, tokens)), f"{answers.best_weight:.3f}"
        words["check_q"] = t("real_model.check_q", lang, share=f"{prev.share:.2f}", query=ask, **where)
        words["check_expl"] = t("real_model.check_expl", lang, best=best, weight=weight, **where)
    return words


# --- the numbers behind the figures, as tables -----------------------------------------------------


def grid_table(view: ModelView, lang: str) -> pd.DataFrame:
    """All 72 drawn maps, one row per (layer, head, query); the columns are the keys."""
    n = min(len(view.kept), GRID_MAX)
    L, H = view.maps.shape[:2]
    names = [position_label(int(p), view.tokens) for p in view.kept[:n]]
    block = view.maps[:, :, :n, :n].reshape(-1, n)  # [L·H·n, n]
    table = pd.DataFrame(block, columns=names)
    table.insert(0, t("real_model.query", lang), names * (L * H))
    table.insert(0, t("real_model.head_word", lang), np.tile(np.repeat(np.arange(1, H + 1), n), L))
    table.insert(0, t("real_model.layer_word", lang), np.repeat(np.arange(1, L + 1), H * n))
    return table


def head_table(numbers: HeadNumbers, view: ModelView, lang: str) -> pd.DataFrame:
    """One head's drawn map: a row per query, the row sum first."""
    rows, cols = head_labels(numbers, view, lang)
    table = pd.DataFrame(numbers.weights, index=pd.Index(rows, name=t("real_model.query", lang)), columns=cols)
    table.insert(0, t("real_model.row_sum", lang), numbers.row_sums)
    return table


def share_table(view: ModelView, lang: str) -> pd.DataFrame:
    """The [CLS]/[SEP] share per head: a row per layer, a column per head."""
    L, H = view.share.shape
    index = pd.Index(
        [t("real_model.layer_n", lang, layer=i + 1) for i in range(L)], name=t("real_model.layer_word", lang)
    )
    return pd.DataFrame(view.share, index=index, columns=[t("real_model.head_n", lang, head=h + 1) for h in range(H)])
