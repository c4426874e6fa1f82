"""Figures of the shared key/value heads page, the tables behind them and the words that read them:
the core's results (attention_core.grouped) and a language in, go.Figure / pd.DataFrame / text out,
no Streamlit calls. What is drawn; lab_ui.layout says where."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.grouped import GroupedQueryResult, SharedMaps, SharingCosts
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL, bytes_text, safe_label
from lab_ui.i18n import t
from lab_ui.layout import layout_dict

# A legend in a row under the x axis's title (lab_ui.layout reserves its room)
LEGEND = dict(orientation="h", x=0, xanchor="left", y=0, yref="container", yanchor="bottom")
FADED = "rgba(140,140,140,0.45)"
CHOSEN = QUALITATIVE[1]  # orange: the g chosen, the query head followed
LABEL_ROWS = 3  # empty rows of cells over each row of maps, for the heads' names (inside the plot, under the title)
PER_ROW = 8  # query heads' maps side by side; more wrap to a new row (16 across left 6 px cells)


def colour_bar(lang: str) -> dict:  # the weights' colour bar, titled
    return dict(title=dict(text=t("kv_heads.weight", lang)))


def group_colour(j: int) -> str:
    """Key/value head j's colour, the same on every figure of the page."""
    palette = (QUALITATIVE[0], QUALITATIVE[2], QUALITATIVE[3], QUALITATIVE[5], QUALITATIVE[4], QUALITATIVE[7])
    return palette[j % len(palette)]


def kind_of(h: int, g: int) -> str:
    """The catalog key of what g makes of h heads."""
    return "kv_heads.kind_multi_head" if g == h else "kv_heads.kind_multi_query" if g == 1 else "kv_heads.kind_grouped"


# --- share: who reads which keys and values -----------------------------------------------------------


def sharing_diagram(r: GroupedQueryResult, focus: int, lang: str) -> go.Figure:
    """The h query heads in a row above the g key/value heads, a line from each query head to the
    one it reads; the followed query head's line bold."""
    h, g, size = r.n_heads, r.n_kv_heads, r.group_size
    qx = np.arange(h, dtype=float)  # [h]
    kx = np.arange(g) * size + (size - 1) / 2  # [g] each key/value head under the middle of its group
    traces = []
    for i in range(h):
        j = int(r.kv_head_of[i])
        traces.append(
            go.Scatter(
                x=[qx[i], kx[j]],
                y=[1, 0],
                mode="lines",
                line=dict(color=CHOSEN if i == focus else group_colour(j), width=5 if i == focus else 2),
                hoverinfo="skip",
                showlegend=False,
            )
        )
    q_name, kv_name = t("kv_heads.query_head", lang), t("kv_heads.kv_head", lang)
    traces.append(
        go.Scatter(
            x=qx,
            y=np.ones(h),
            mode="markers+text",
            text=[f"Q{i + 1}" for i in range(h)],
            textposition="top center",
            marker=dict(size=16, symbol="square", color=[CHOSEN if i == focus else FADED for i in range(h)]),
            name=q_name,
            hovertemplate=f"{q_name} %{{text}}<extra></extra>",
        )
    )
    traces.append(
        go.Scatter(
            x=kx,
            y=np.zeros(g),
            mode="markers+text",
            text=[f"K/V{j + 1}" for j in range(g)],
            textposition="bottom center",
            marker=dict(size=22, symbol="diamond", color=[group_colour(j) for j in range(g)]),
            name=kv_name,
            hovertemplate=f"{kv_name} %{{text}}<extra></extra>",
        )
    )
    hidden = dict(showgrid=False, zeroline=False, showticklabels=False)
    layout = layout_dict(
        title=t("kv_heads.diagram_title", lang, h=h, g=g, kind=t(kind_of(h, g), lang)),
        height=300,
        xaxis=dict(hidden, range=[-0.8, h - 0.2]),
        yaxis=dict(hidden, range=[-0.6, 1.6]),
        legend=LEGEND,
    )
    return go.Figure(data=traces, layout=layout)


def sharing_table(r: GroupedQueryResult, lang: str) -> pd.DataFrame:
    columns = {
        t("kv_heads.kv_head", lang): r.kv_head_of + 1,
        t("kv_heads.col_q_columns", lang): [f"{i * r.d_head}..{(i + 1) * r.d_head - 1}" for i in range(r.n_heads)],
        t("kv_heads.col_kv_columns", lang): [f"{j * r.d_head}..{(j + 1) * r.d_head - 1}" for j in r.kv_head_of],
    }
    return pd.DataFrame(columns, index=pd.Index(np.arange(1, r.n_heads + 1), name=t("kv_heads.query_head", lang)))


def sharing_text(r: GroupedQueryResult, focus: int, lang: str) -> str:
    j = int(r.kv_head_of[focus])
    group = np.flatnonzero(r.kv_head_of == j) + 1  # the query heads that read key/value head j
    return t(
        "kv_heads.share_reading",
        lang,
        h=r.n_heads,
        g=r.n_kv_heads,
        size=r.group_size,
        q=focus + 1,
        kv=j + 1,
        group=", ".join(f"Q{i}" for i in group),
        T=r.q.shape[0],
        d_head=r.d_head,
        q_cols=r.q.shape[1],
        kv_cols=r.k.shape[1],
        kind=t(kind_of(r.n_heads, r.n_kv_heads), lang),
    )


# --- maps: what sharing makes equal -----------------------------------------------------------------------


def maps_grid(s: SharedMaps, lang: str) -> go.Figure:
    """Every query head's map as ONE heatmap (NaN between the maps): for each query head the layer
    as multi-head attention (g = h) above the same layer sharing g key/value heads, at most
    PER_ROW heads across; the heads that share one key/value head outlined in its colour."""
    r, T = s.result, len(s.tokens)
    h, size = r.n_heads, r.group_size
    across = min(h, PER_ROW)
    step, block = T + 1, LABEL_ROWS + 2 * T + 4  # a map and the gap after it; a row of heads: names, two maps, K/V
    blocks = -(-h // across)
    z = np.full((blocks * block, across * step - 1), np.nan, dtype=np.float32)  # [rows of cells, columns of cells]
    head = np.zeros(z.shape, dtype=np.uint8)  # each cell's query head, from 1
    shapes, notes, y_ticks, y_text = [], [], [], []
    rows = (t("kv_heads.maps_row_multi", lang, h=h), t("kv_heads.maps_row_shared", lang, g=r.n_kv_heads))
    for i in range(h):
        b, c = divmod(i, across)
        x0, y0 = c * step, b * block + LABEL_ROWS
        z[y0 : y0 + T, x0 : x0 + T] = s.multi_head_weights[i]  # [T, T]
        z[y0 + T + 1 : y0 + 2 * T + 1, x0 : x0 + T] = r.weights[i]  # [T, T]
        head[y0 : y0 + 2 * T + 1, x0 : x0 + T] = i + 1
        notes.append(dict(x=x0 + (T - 1) / 2, y=y0 - 0.5, text=f"Q{i + 1}", yanchor="bottom", showarrow=False))
        if i % size == 0 or c == 0:  # a group starts, or goes on in a new row of heads
            j, last = int(r.kv_head_of[i]), min((i // size + 1) * size, (b + 1) * across) - 1
            x1 = (last - b * across) * step + T - 0.5
            box = dict(x0=x0 - 0.5, x1=x1, y0=y0 + T + 0.5, y1=y0 + 2 * T + 0.5)  # the shared row's maps
            shapes.append(dict(type="rect", **box, line=dict(color=group_colour(j), width=3)))
            notes.append(
                dict(x=(box["x0"] + x1) / 2, y=box["y1"], text=f"K/V{j + 1}", yanchor="top", showarrow=False)
                | dict(font=dict(color=group_colour(j)))
            )
    for b in range(blocks):
        top = b * block + LABEL_ROWS
        y_ticks += [top + (T - 1) / 2, top + T + 1 + (T - 1) / 2]
        y_text += list(rows)
    name = t("kv_heads.query_head", lang)
    trace = go.Heatmap(
        z=z,
        customdata=head,
        coloraxis="coloraxis",
        hoverongaps=False,
        hovertemplate=f"{name} %{{customdata}}: %{{z:.3f}}<extra></extra>",
    )
    hidden = dict(showgrid=False, zeroline=False, ticks="")
    layout = layout_dict(
        title=t("kv_heads.maps_title", lang),
        height=int(np.clip(140 + z.shape[0] * 520 / z.shape[1], 240, 720)),  # square cells in a 520 px plot
        # one scale for both rows, up to the largest weight drawn: 0..1 left a uniform layer's maps all dark
        coloraxis=dict(colorscale=SEQUENTIAL, cmin=0, cmax=float(np.nanmax(z)), colorbar=colour_bar(lang)),
        xaxis=dict(hidden, showticklabels=False),
        yaxis=dict(hidden, tickvals=y_ticks, ticktext=y_text, autorange="reversed", scaleanchor="x"),
        shapes=shapes,
        annotations=[note | dict(xref="x", yref="y") for note in notes],
    )
    return go.Figure(data=[trace], layout=layout)


def maps_table(s: SharedMaps, lang: str) -> pd.DataFrame:
    r = s.result
    first = np.arange(r.n_heads) // r.group_size * r.group_size  # [h] each group's first query head
    columns = {
        t("kv_heads.kv_head", lang): r.kv_head_of + 1,
        t("kv_heads.col_key_gap", lang): np.abs(r.k_shared - r.k_shared[first]).max(axis=(1, 2)),
        t("kv_heads.col_map_gap", lang): np.abs(r.weights - r.weights[first]).max(axis=(1, 2)),
        t("kv_heads.col_moved", lang): np.abs(r.weights - s.multi_head_weights).max(axis=(1, 2)),
    }
    return pd.DataFrame(columns, index=pd.Index(np.arange(1, r.n_heads + 1), name=t("kv_heads.query_head", lang)))


def maps_text(s: SharedMaps, lang: str) -> str:
    r = s.result

    def gap(x: float) -> str:
        return "—" if np.isnan(x) else f"{x:.3g}"

    if r.n_kv_heads == 1:  # one group: nothing across groups to compare
        key = "kv_heads.maps_reading_one_same" if s.same_queries else "kv_heads.maps_reading_one"
        return t(
            key,
            lang,
            key_within=gap(s.key_gap_within),
            map_within=gap(s.map_gap_within),
            moved=gap(s.moved_from_multi_head),
        )
    key = "kv_heads.maps_reading_same" if s.same_queries else "kv_heads.maps_reading"
    return t(
        key,
        lang,
        g=r.n_kv_heads,
        size=r.group_size,
        key_within=gap(s.key_gap_within),
        key_between=gap(s.key_gap_between),
        map_within=gap(s.map_gap_within),
        map_between=gap(s.map_gap_between),
        moved=gap(s.moved_from_multi_head),
    )


# --- bytes: what sharing saves --------------------------------------------------------------------------


def app_bars(c: SharingCosts, g: int, lang: str) -> go.Figure:
    """The app's layer: KV-cache bytes (left) and attention parameters (right) for every g."""
    a = c.app
    names = [str(n) for n in a.n_kv_heads]
    colours = [CHOSEN if n == g else QUALITATIVE[0] for n in a.n_kv_heads]
    cache, params = t("kv_heads.cache_axis", lang), t("kv_heads.params_axis", lang)
    traces = [
        go.Bar(
            x=names,
            y=a.cache_bytes,
            marker_color=colours,
            text=[bytes_text(int(b)) for b in a.cache_bytes],
            textposition="outside",
            cliponaxis=False,
            name=cache,
            hovertemplate="g = %{x}: %{text}<extra></extra>",
            showlegend=False,
        ),
        go.Bar(
            x=names,
            y=a.attention_params,
            marker_color=colours,
            text=[f"{int(p):,}" for p in a.attention_params],
            textposition="outside",
            cliponaxis=False,
            xaxis="x2",
            yaxis="y2",
            name=params,
            hovertemplate="g = %{x}: %{text}<extra></extra>",
            showlegend=False,
        ),
    ]
    # each panel named under it, with g: a second y axis's title sat in the gap, on the first panel's bars
    left, right = t("kv_heads.cache_by_g", lang), t("kv_heads.params_by_g", lang)
    layout = layout_dict(
        title=t("kv_heads.app_title", lang, d_model=a.d_model, h=a.n_heads, layers=a.layers, T=a.T),
        height=380,
        xaxis=dict(domain=[0, 0.44], title=dict(text=left), tickangle=0, type="category"),
        yaxis=dict(rangemode="tozero"),
        xaxis2=dict(domain=[0.56, 1], anchor="y2", title=dict(text=right), tickangle=0, type="category"),
        yaxis2=dict(anchor="x2", rangemode="tozero"),
    )
    return go.Figure(data=traces, layout=layout)


def model_bars(c: SharingCosts, lang: str) -> go.Figure:
    """Each published model's cache at its context: as built, had every query head its own keys and
    values (g = h), had all shared one (g = 1); a log axis, since they span five powers of ten."""
    names = [m.model.name for m in c.models]
    rows = (
        ("multi_head_bytes", t("kv_heads.bar_multi_head", lang), QUALITATIVE[5]),
        ("cache_bytes", t("kv_heads.bar_built", lang), QUALITATIVE[0]),
        ("multi_query_bytes", t("kv_heads.bar_multi_query", lang), QUALITATIVE[2]),
    )
    traces = [
        go.Bar(
            y=names,
            x=[getattr(m, field) for m in c.models],
            orientation="h",
            name=label,
            marker_color=colour,
            customdata=[bytes_text(getattr(m, field)) for m in c.models],
            hovertemplate=f"{label}: %{{customdata}}<extra>%{{y}}</extra>",
        )
        for field, label, colour in rows
    ]
    low = min(m.multi_query_bytes for m in c.models)
    high = max(m.multi_head_bytes for m in c.models)
    powers = 10.0 ** np.arange(np.floor(np.log10(low)), np.ceil(np.log10(high)) + 1)  # [n] decades only
    layout = layout_dict(
        title=t("kv_heads.models_title", lang, bytes=c.models[0].bytes_per_value),
        height=460,
        barmode="group",
        xaxis=dict(
            type="log",
            title=dict(text=t("kv_heads.cache_axis", lang)),
            tickvals=powers.tolist(),
            ticktext=[bytes_text(int(p)) for p in powers],
            tickangle=0,
        ),
        yaxis=dict(autorange="reversed", tickangle=0),
        legend=LEGEND,
    )
    return go.Figure(data=traces, layout=layout)


def app_table(c: SharingCosts, lang: str) -> pd.DataFrame:
    a = c.app
    columns = {
        t("kv_heads.col_kind", lang): [t(kind_of(a.n_heads, int(n)), lang) for n in a.n_kv_heads],
        t("kv_heads.params_axis", lang): a.attention_params,
        t("kv_heads.col_kv_params", lang): a.kv_params,
        t("kv_heads.cache_axis", lang): a.cache_bytes,
        t("kv_heads.col_fraction", lang): a.cache_fraction,
    }
    return pd.DataFrame(columns, index=pd.Index(a.n_kv_heads, name="g"))


def models_table(c: SharingCosts, lang: str) -> pd.DataFrame:
    ms = [m.model for m in c.models]
    columns = {
        t("kv_heads.col_layers", lang): [m.layers for m in ms],
        "h": [m.heads for m in ms],
        "g": [m.kv_heads for m in ms],
        "d_head": [m.d_head for m in ms],
        t("kv_heads.col_context", lang): [m.context for m in ms],
        t("kv_heads.col_cached", lang): [m.cached_tokens for m in c.models],
        t("kv_heads.bar_built", lang): [m.cache_bytes for m in c.models],
        t("kv_heads.bar_multi_head", lang): [m.multi_head_bytes for m in c.models],
        t("kv_heads.bar_multi_query", lang): [m.multi_query_bytes for m in c.models],
        t("kv_heads.col_source", lang): [m.source for m in ms],
    }
    return pd.DataFrame(columns, index=pd.Index([m.name for m in ms], name=t("kv_heads.col_model", lang)))


def sources_text(c: SharingCosts, lang: str) -> str:
    """Every figure drawn, cited: one line per model."""
    lines = [f"- **{m.model.name}**: {m.model.source}" for m in c.models]
    return t("kv_heads.sources", lang) + "\n" + "\n".join(lines)


def bytes_text_reading(c: SharingCosts, g: int, lang: str) -> str:
    a = c.app
    k = int(np.flatnonzero(a.n_kv_heads == g)[0])
    return t(
        "kv_heads.bytes_reading",
        lang,
        layers=a.layers,
        T=a.T,
        g=g,
        d_head=a.d_head,
        b=a.bytes_per_value,
        cache=f"{int(a.cache_bytes[k]):,}",
        full=f"{int(a.cache_bytes[-1]):,}",
        share=f"{a.cache_fraction[k]:.3g}",
        params=f"{int(a.attention_params[k]):,}",
        params_full=f"{int(a.attention_params[-1]):,}",
    )


def models_reading(c: SharingCosts, lang: str) -> str:
    """The largest saving among the models that share, in words."""
    shared = [m for m in c.models if m.model.kv_heads < m.model.heads]
    if not shared:
        return ""
    m = max(shared, key=lambda m: m.model.group_size)
    return t(
        "kv_heads.models_reading",
        lang,
        name=safe_label(m.model.name),
        T=m.T,
        cached=m.cached_tokens,
        h=m.model.heads,
        g=m.model.kv_heads,
        built=bytes_text(m.cache_bytes),
        full=bytes_text(m.multi_head_bytes),
        times=m.model.group_size,  # h / g: the same window either way
    )
