"""Figures of the decoder page: the next character's probabilities, the new character's attention
over every earlier one (layer by layer, head by head), the causal map as it grows, the KV cache's
bytes, and an encoder's map beside the decoder's. What is drawn; lab_ui.layout says where.
The texts the page writes about them (readings, tables) are here too, so the page script stays thin."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.decoder import CacheReport, Comparison, NextToken, TextView
from lab_ui.figures.common import MASKED_COLOUR, QUALITATIVE, SEQUENTIAL, bytes_text, heatmap, safe_label
from lab_ui.i18n import literal, t
from lab_ui.layout import layout_dict

LATEX = {  # the formula beside the code that computes it, per step
    "next": r"p_i = \frac{e^{z_i / \tau}}{\sum_{j \in \text{top-}k} e^{z_j / \tau}},\quad z = \mathrm{LN}(x_T)\,E^\top",
    "mask": r"\alpha_{ij} = \frac{e^{q_i \cdot k_j / \sqrt{d_k}}}{\sum_{l \le i} e^{q_i \cdot k_l / \sqrt{d_k}}}"
    r"\ \text{for } j \le i,\quad \alpha_{ij} = 0 \text{ for } j > i",
    "cache": r"\text{KV cache} = 2 \times L \times T \times d_\text{model} \times b",
    "compare": r"\text{future}_i = \sum_{j > i} \alpha_{ij}",
}
LABELS_MAX = 64  # past this many positions only every other one is labelled on an axis
CROSSES_MAX = 24  # past this many positions the masked cells are grey only
LECTURE_CROSSES_MAX = 12  # on a projector: its 20 px labels need the room
LECTURE_LABELS_MAX = 12  # labels on a projector's map axis


def visible_char(c: str) -> str:
    """A character as the page names it: a blank as ␣, a line break as ↵."""
    return {" ": "␣", "\n": "↵"}.get(c, c)


def char_label(c: str) -> str:
    """A character as Plotly shows it in a label or title: visible_char, HTML escaped (safe_label)."""
    return safe_label(visible_char(c))


def shown_text(text: str) -> str:
    """Typed or written text for Markdown: literal, its line breaks as ↵ (literal() makes them spaces)."""
    return literal(text.replace("\n", " ↵ "))


def _position_ticks(chars: tuple[str, ...], most: int = LABELS_MAX) -> tuple[list[int], list[str]]:
    """Every position's label while at most `most` fit, else every second, third ... one."""
    every = int(np.ceil(len(chars) / most))
    ticks = list(range(0, len(chars), every))
    return ticks, [char_label(chars[i]) for i in ticks]


# --- write: the next character ------------------------------------------------------------------------


def next_bars(n: NextToken, chars: tuple[str, ...], lang: str) -> go.Figure:
    """The model's most probable next characters: their probability at temperature 1, and after the
    temperature and top-k (what the character is drawn from); the drawn one outlined."""
    labels = [char_label(chars[i]) for i in n.top]
    model, drawn_from = (
        t("decoder.bar_model", lang),
        t("decoder.bar_sampling", lang, tau=f"{n.temperature:g}", k=n.top_k),
    )
    outline = [3 if i == n.token else 0 for i in n.top]
    data = [
        go.Bar(
            name=name,
            x=labels,
            y=np.asarray(values[n.top], dtype=np.float32),
            marker=dict(color=colour, line=dict(width=outline, color="#000000")),
            text=[f"{v:.2f}" for v in values[n.top]],
            textposition="outside",
            textfont=dict(size=10),
            cliponaxis=False,
            hovertemplate=f"{name}: %{{y:.4f}}<extra>%{{x}}</extra>",
        )
        for name, values, colour in ((model, n.model_probs, QUALITATIVE[0]), (drawn_from, n.probs, QUALITATIVE[1]))
    ]
    layout = layout_dict(
        title=t("decoder.bars_title", lang, char=char_label(chars[n.token])),
        height=340,
        barmode="group",
        xaxis=dict(tickangle=0, type="category"),
        yaxis=dict(title=dict(text=t("decoder.probability", lang)), range=[0, 1.1]),
        legend=dict(orientation="h", y=-0.2, x=0),
    )
    return go.Figure(data=data, layout=layout)


def heads_map(n: NextToken, lang: str) -> go.Figure:
    """One row per layer and head: the last character's weights over every position before it."""
    L, h, T = n.weights.shape
    chars = n.view.chars
    rows = [t("decoder.layer_head", lang, layer=layer + 1, head=head + 1) for layer in range(L) for head in range(h)]
    ticks, text = _position_ticks(chars)
    weight = t("decoder.weight", lang)
    cells = go.Heatmap(
        z=n.weights.reshape(L * h, T).astype(np.float32),
        x=list(range(T)),
        y=rows,
        colorscale=SEQUENTIAL,
        zmin=0.0,
        zmax=1.0,
        hovertemplate=f"%{{y}}<br>{t('decoder.position', lang)} %{{x}}<br>{weight}: %{{z:.4f}}<extra></extra>",
        colorbar=dict(title=dict(text=weight, side="right"), thickness=10),
    )
    layout = layout_dict(
        title=t("decoder.heads_title", lang, char=char_label(chars[-1]), t=T - 1),
        height=120 + 26 * L * h,
        xaxis=dict(tickmode="array", tickvals=ticks, ticktext=text, tickangle=0, showgrid=False),
        yaxis=dict(autorange="reversed", tickangle=0, showgrid=False, type="category"),
    )
    return go.Figure(data=[cells], layout=layout)


def next_table(n: NextToken, chars: tuple[str, ...], lang: str) -> pd.DataFrame:
    df = pd.DataFrame(
        {
            t("decoder.col_char", lang): [visible_char(chars[i]) for i in n.top],
            t("decoder.bar_model", lang): n.model_probs[n.top],
            t("decoder.col_sampling", lang): n.probs[n.top],
        },
        index=pd.Index(range(1, len(n.top) + 1), name=t("decoder.col_rank", lang)),
    )
    return df


def heads_table(n: NextToken, lang: str) -> pd.DataFrame:
    L, h, T = n.weights.shape
    columns = [f"{j} · {visible_char(c)}" for j, c in enumerate(n.view.chars)]
    index = [t("decoder.layer_head", lang, layer=a + 1, head=b + 1) for a in range(L) for b in range(h)]
    return pd.DataFrame(
        n.weights.reshape(L * h, T), index=pd.Index(index, name=t("decoder.col_head", lang)), columns=columns
    )


def next_reading(n: NextToken, chars: tuple[str, ...], lang: str) -> str:
    best = int(n.top[0])
    return t(
        "decoder.next_reading",
        lang,
        best=literal(visible_char(chars[best])),
        p_best=f"{n.model_probs[best]:.3f}",
        kept=n.kept,
        drawn=literal(visible_char(chars[n.token])),
        p_drawn=f"{n.probs[n.token]:.3f}",
        p_model=f"{n.model_probs[n.token]:.3f}",
    )


# --- triangle: the causal map ------------------------------------------------------------------------


def causal_map(view: TextView, layer: int, head: int, rows: int, lang: str, lecture: bool = False) -> go.Figure:
    """One head's map over the first `rows` positions: the text as it stood when position rows - 1 was
    read. Above the diagonal grey: no position reads one after it. On a projector (lecture) the labels
    are larger, so fewer of them."""
    chars = view.chars[:rows]
    w = view.result.weights[layer, head, :rows, :rows]  # [rows, rows]
    mask = view.result.mask[:rows, :rows]  # [rows, rows]
    raw = [visible_char(c) for c in chars]  # common.heatmap escapes them itself
    if rows <= (LECTURE_CROSSES_MAX if lecture else CROSSES_MAX):
        return heatmap(
            w,
            raw,
            raw,
            x_title=t("decoder.key", lang),
            y_title=t("decoder.query", lang),
            value_name=t("decoder.weight", lang),
            title=t("decoder.map_title", lang, layer=layer + 1, head=head + 1, rows=rows),
            zmin=0.0,
            zmax=1.0,
            mask=mask,
            show_values=rows <= 12,
            value_format=".2f",
            height=min(720, 160 + 22 * rows),
        )
    ticks, text = _position_ticks(chars, LECTURE_LABELS_MAX if lecture else 40)
    weight = t("decoder.weight", lang)
    hover = f"{t('decoder.query', lang)} %{{y}}<br>{t('decoder.key', lang)} %{{x}}<br>{weight}: %{{z:.4f}}"
    data = [
        go.Heatmap(
            z=np.where(mask, w, np.nan).astype(np.float32),
            colorscale=SEQUENTIAL,
            zmin=0.0,
            zmax=1.0,
            hoverongaps=False,
            hovertemplate=hover + "<extra></extra>",
            colorbar=dict(title=dict(text=weight, side="right"), thickness=10),
        ),
        go.Heatmap(
            z=np.where(mask, np.nan, 1.0).astype(np.float32),
            colorscale=[[0, MASKED_COLOUR], [1, MASKED_COLOUR]],
            showscale=False,
            hoverinfo="skip",
        ),
    ]
    axis = dict(tickmode="array", tickvals=ticks, ticktext=text, tickangle=0, showgrid=False, zeroline=False)
    layout = layout_dict(
        title=t("decoder.map_title", lang, layer=layer + 1, head=head + 1, rows=rows),
        height=620,
        xaxis=dict(axis, title=dict(text=t("decoder.key", lang)), constrain="domain"),
        yaxis=dict(
            axis, title=dict(text=t("decoder.query", lang)), autorange="reversed", scaleanchor="x", constrain="domain"
        ),
    )
    return go.Figure(data=data, layout=layout)


def map_table(view: TextView, layer: int, head: int, rows: int, lang: str) -> pd.DataFrame:
    names = [f"{j} · {visible_char(c)}" for j, c in enumerate(view.chars[:rows])]
    w = np.where(view.result.mask[:rows, :rows], view.result.weights[layer, head, :rows, :rows], np.nan)
    return pd.DataFrame(w, index=pd.Index(names, name=t("decoder.query", lang)), columns=names)


def triangle_reading(view: TextView, layer: int, head: int, rows: int, lang: str) -> str:
    row = view.result.weights[layer, head, rows - 1, :rows]  # [rows]
    best = int(np.argmax(row))
    return t(
        "decoder.triangle_reading",
        lang,
        t=rows - 1,
        char=literal(visible_char(view.chars[rows - 1])),
        seen=int(view.sight.visible[rows - 1]),
        best=literal(visible_char(view.chars[best])),
        j=best,
        w=f"{row[best]:.3f}",
        cells=int(view.result.mask[:rows, :rows].sum()),
        total=rows * rows,
        future=f"{float(view.future_max.max()):.1f}",
    )


# --- cache: what it holds and what it saves -------------------------------------------------------


def cache_growth(r: CacheReport, lang: str) -> go.Figure:
    """The cache's bytes after each length of text, this decoder; the text's own length marked."""
    name = t("decoder.cache_bytes", lang, b=r.bytes_per_number)
    line = go.Scatter(
        x=r.lengths,
        y=r.growth,
        mode="lines",
        name=name,
        line=dict(color=QUALITATIVE[0], width=2.5),
        hovertemplate=f"T = %{{x}}<br>{name}: %{{y:,}}<extra></extra>",
    )
    now = go.Scatter(
        x=[r.T],
        y=[r.bytes_now],
        mode="markers+text",
        marker=dict(size=11, color=QUALITATIVE[1]),
        text=[bytes_text(r.bytes_now)],
        textposition="top left",
        hoverinfo="skip",
        showlegend=False,
    )
    layout = layout_dict(
        title=t("decoder.growth_title", lang),
        height=340,
        showlegend=False,
        xaxis=dict(title=dict(text=t("decoder.tokens_axis", lang)), tickangle=0),
        yaxis=dict(title=dict(text=t("decoder.bytes_axis", lang, b=r.bytes_per_number)), rangemode="tozero"),
    )
    return go.Figure(data=[line, now], layout=layout)


def published_bars(r: CacheReport, lang: str) -> go.Figure:
    """Each decoder's cache at its whole context, on a log scale (this one is a few hundred kB, the
    largest hundreds of GB): what it keeps, and the formula's 2 L T d_model b beside it."""
    names = [t("decoder.this_decoder", lang) if i == 0 else s.name for i, s in enumerate(r.sizes)]
    rows = (
        (t("decoder.formula_bytes", lang), [s.formula_bytes for s in r.sizes], QUALITATIVE[4]),
        (t("decoder.kept_bytes", lang), [s.bytes for s in r.sizes], QUALITATIVE[0]),
    )
    data = [
        go.Bar(
            name=label,
            y=names,
            x=values,
            orientation="h",
            marker_color=colour,
            text=[bytes_text(v) for v in values],
            textposition="outside",
            cliponaxis=False,
            hovertemplate=f"{label}: %{{x:,}} B<extra>%{{y}}</extra>",
        )
        for label, values, colour in rows
    ]
    layout = layout_dict(
        title=t("decoder.published_title", lang, b=r.bytes_per_number),
        height=420,
        barmode="group",
        # room on the right for the largest bar's words: log10 of the axis's ends, widened
        xaxis=dict(
            type="log",
            title=dict(text=t("decoder.bytes_log", lang)),
            tickangle=0,
            range=[np.log10(min(rows[1][1])) - 0.3, np.log10(max(rows[0][1])) + 0.7],
        ),
        yaxis=dict(autorange="reversed", tickangle=0),
        legend=dict(orientation="h", y=-0.18, x=0),
    )
    return go.Figure(data=data, layout=layout)


def cache_table(r: CacheReport, lang: str) -> pd.DataFrame:
    names = [t("decoder.this_decoder", lang) if i == 0 else s.name for i, s in enumerate(r.sizes)]
    return pd.DataFrame(
        {
            t("decoder.col_layers", lang): [s.layers for s in r.sizes],
            "d_model": [s.d_model for s in r.sizes],
            t("decoder.col_kv_width", lang): [s.kv_width for s in r.sizes],
            t("decoder.col_context", lang): [s.T for s in r.sizes],
            t("decoder.col_kept", lang): [s.kept for s in r.sizes],
            t("decoder.formula_bytes", lang): [s.formula_bytes for s in r.sizes],
            t("decoder.kept_bytes", lang): [s.bytes for s in r.sizes],
            t("decoder.col_source", lang): [s.source for s in r.sizes],
        },
        index=pd.Index(names, name=t("decoder.col_model", lang)),
    )


def cache_reading(r: CacheReport, lang: str) -> list[str]:
    """What the cache holds now, and the next step's cost both ways: counted, then measured."""
    c = r.cost
    return [
        t(
            "decoder.cache_holds",
            lang,
            L=r.n_layers,
            h=r.n_heads,
            T=r.T,
            d_head=r.d_head,
            d_model=r.d_model,
            b=r.bytes_per_number,
            bytes=str(r.bytes_now),  # inside LaTeX: a comma there is a list's
            shown=bytes_text(r.bytes_now),
        ),
        t(
            "decoder.cost_counted",
            lang,
            T=r.T,
            cached=f"{c.cached.total:,}",
            full=f"{c.full.total:,}",
            ratio=f"{c.ratio:.1f}",
        ),
        t(
            "decoder.cost_measured",
            lang,
            step=f"{1e3 * r.measured_step:.2f}",
            full=f"{1e3 * r.measured_full:.2f}",
            ratio=f"{r.measured_full / r.measured_step:.1f}",
            n=r.repeats,
        ),
    ]


# --- compare: encoder against decoder ----------------------------------------------------------------


def _panel(
    z: np.ndarray, mask: np.ndarray | None, labels: list[str], title: str, lang: str, angle: int = -90
) -> go.Figure:
    """One model's map for the comparison: no colour bar (both share 0 = dark to 1 = yellow, said in the
    caption), masked cells grey, what its positions see as the x axis's title."""
    weight, query, key = t("decoder.weight", lang), t("decoder.query", lang), t("decoder.key", lang)
    data = [
        go.Heatmap(
            z=(z if mask is None else np.where(mask, z, np.nan)).astype(np.float32),
            colorscale=SEQUENTIAL,
            zmin=0.0,
            zmax=1.0,
            showscale=False,
            hoverongaps=False,
            hovertemplate=f"{query} %{{y}}<br>{key} %{{x}}<br>{weight}: %{{z:.4f}}<extra></extra>",
        )
    ]
    if mask is not None:
        data.append(
            go.Heatmap(
                z=np.where(mask, np.nan, 1.0).astype(np.float32),
                colorscale=[[0, MASKED_COLOUR], [1, MASKED_COLOUR]],
                showscale=False,
                hoverinfo="skip",
            )
        )
    every = int(np.ceil(len(labels) / 24))
    ticks = list(range(0, len(labels), every))
    axis = dict(tickmode="array", tickvals=ticks, ticktext=[labels[i] for i in ticks], showgrid=False, zeroline=False)
    layout = layout_dict(
        height=420,
        xaxis=dict(axis, tickangle=angle, constrain="domain", title=dict(text=title)),
        yaxis=dict(axis, autorange="reversed", scaleanchor="x", constrain="domain"),
    )
    return go.Figure(data=data, layout=layout)


def compare_maps(c: Comparison, lang: str) -> tuple[go.Figure, go.Figure]:
    """The encoder's map (every cell a weight: every piece reads every other) and the decoder's (the
    triangle), each titled with what its positions see and their weight on later positions."""
    encoder = _panel(
        c.encoder_map,
        None,
        [safe_label(s, 10) for s in c.encoder_tokens],
        t("decoder.encoder_title", lang, future=f"{c.encoder.mean_future:.2f}"),
        lang,
    )
    decoder = _panel(
        c.decoder_map,
        c.decoder.result.mask,
        [char_label(ch) for ch in c.decoder.chars],
        t("decoder.decoder_title", lang, future=f"{c.decoder_sight.mean_future:.2f}"),
        lang,
        angle=0,  # one character each: level
    )
    return encoder, decoder


def compare_reading(c: Comparison, lang: str) -> str:
    return t(
        "decoder.compare_reading",
        lang,
        e_n=len(c.encoder_tokens),
        e_future=f"{c.encoder.mean_future:.2f}",
        e_max=f"{c.encoder.max_future:.2f}",
        d_n=len(c.decoder.chars),
        d_future=f"{c.decoder_sight.max_future:.1f}",
    )


def compare_table(c: Comparison, lang: str) -> pd.DataFrame:
    """Per position of each model: how many keys it may read, and its weight on keys after it."""
    rows = []
    for model, tokens, s in (
        (t("decoder.encoder", lang), c.encoder_tokens, c.encoder),
        (t("decoder.decoder", lang), c.decoder.chars, c.decoder_sight),
    ):
        for i, token in enumerate(tokens):
            rows.append((f"{model} · {i} · {visible_char(token)}", int(s.visible[i]), float(s.future[i])))
    return pd.DataFrame(
        [(v, f) for _, v, f in rows],
        index=pd.Index([n for n, _, _ in rows], name=t("decoder.col_position", lang)),
        columns=[t("decoder.col_visible", lang), t("decoder.col_future", lang)],
    )
