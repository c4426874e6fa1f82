"""Figures of the FlashAttention page: the score matrix cut into tiles (the one being computed, the
ones already done), one query row's running maximum m and sum l key block by key block, and the
bytes held and numbers moved as T grows. What is drawn; lab_ui.layout says where."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attention_core.flash import FlashExample, MemorySweep
from lab_ui.figures.common import QUALITATIVE, bytes_text, heatmap
from lab_ui.i18n import t
from lab_ui.layout import layout_dict

CURRENT = QUALITATIVE[1]  # orange: the tile being computed
DONE = "rgba(0,0,0,0.55)"  # the tiles already folded into m, l and O


def positions(T: int) -> list[str]:
    return [str(i + 1) for i in range(T)]


def tile_map(ex: FlashExample, step: int, lang: str) -> go.Figure:
    """The scaled scores s = q kᵀ / √d as the whole matrix the ordinary computation holds, with the
    tiles Algorithm 1 has visited outlined and the current one (step, 0-based) in orange: the tiled
    computation holds only that one."""
    r = ex.result
    T = r.scaled.shape[0]
    allowed = np.isfinite(r.scaled)  # [T, T]; -inf where the causal mask hides a key
    fig = heatmap(
        np.where(allowed, r.scaled, 0.0),
        positions(T),
        positions(T),
        x_title=t("flash.key_axis", lang),
        y_title=t("flash.query_axis", lang),
        value_name=t("flash.score", lang),
        title=t("flash.tiles_title", lang, step=step + 1, n=r.n_tiles),
        colorscale="RdBu_r",
        zmid=0.0,
        mask=allowed if ex.causal else None,
        value_format=".1f",
        show_values=T <= 12,
        height=460,
    )
    shapes = []
    for done in range(step + 1):
        tile = r.tile(done)
        (r0, r1), (c0, c1) = tile.rows, tile.cols
        current = done == step
        shapes.append(
            dict(
                type="rect",
                x0=c0 - 0.5,
                x1=c1 - 0.5,
                y0=r0 - 0.5,
                y1=r1 - 0.5,
                line=dict(color=CURRENT if current else DONE, width=4 if current else 1.5),
                fillcolor="rgba(0,0,0,0)",
            )
        )
    fig.update_layout(shapes=shapes, xaxis_tickangle=0)
    return fig


def tiles_alt(ex: FlashExample, step: int, lang: str) -> str:
    tile = ex.result.tile(step)
    return t(
        "flash.tiles_alt",
        lang,
        n=ex.result.n_tiles,
        step=step + 1,
        r0=tile.rows[0] + 1,
        r1=tile.rows[1],
        c0=tile.cols[0] + 1,
        c1=tile.cols[1],
    )


def tile_table(ex: FlashExample, step: int, lang: str) -> pd.DataFrame:
    """The tile's rows: what each row knew before the tile, the tile's largest score, and after."""
    r, tile = ex.result, ex.result.tile(step)
    r0, r1 = tile.rows
    j = tile.key_block
    m_before = np.full(r1 - r0, -np.inf) if j == 0 else r.m_after[j - 1, r0:r1]  # [B_r]
    l_before = np.zeros(r1 - r0) if j == 0 else r.l_after[j - 1, r0:r1]  # [B_r]
    table = pd.DataFrame(
        {
            t("flash.col_m_before", lang): m_before,
            t("flash.col_tile_max", lang): tile.tile_max,
            t("flash.col_m_after", lang): tile.m,
            t("flash.col_rescale", lang): tile.rescale,
            t("flash.col_l_before", lang): l_before,
            t("flash.col_l_after", lang): tile.l,
        },
        index=pd.Index(range(r0 + 1, r1 + 1), name=t("flash.query_axis", lang)),
    )
    return table


def running_row(ex: FlashExample, row: int, lang: str) -> go.Figure:
    """Query `row` (0-based): its running maximum m and sum l after each key block, against the
    values the whole row gives at once (dashed): the last block lands on them exactly."""
    r = ex.result
    blocks = list(range(1, r.n_key_blocks + 1))
    m_name, l_name = t("flash.running_m", lang), t("flash.running_l", lang)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    m_shown = np.where(np.isneginf(r.m_after[:, row]), np.nan, r.m_after[:, row])  # [T_c]; nothing seen yet: no point
    for row_n, (name, values, whole, colour) in enumerate(
        (
            (m_name, m_shown, ex.row_max[row], QUALITATIVE[0]),
            (l_name, r.l_after[:, row], ex.denominator[row], QUALITATIVE[2]),
        ),
        start=1,
    ):
        fig.add_trace(
            go.Scatter(
                x=blocks,
                y=values,
                mode="lines+markers",
                name=name,
                line=dict(color=colour, width=2.5),
                hovertemplate=f"{name}: %{{y:.4f}}<extra>%{{x}}</extra>",
            ),
            row=row_n,
            col=1,
        )
        fig.add_hline(y=float(whole), line=dict(color=colour, dash="dash", width=1.5), row=row_n, col=1)
    fig.update_layout(
        layout_dict(
            title=t("flash.running_title", lang, row=row + 1),
            height=420,
            legend=dict(orientation="h", y=-0.18, x=0),
        )
    )
    fig.update_yaxes(title_text=m_name, row=1, col=1)
    fig.update_yaxes(title_text=l_name, row=2, col=1)
    fig.update_xaxes(title_text=t("flash.key_block_axis", lang), tickvals=blocks, tickangle=0, row=2, col=1)
    fig.update_xaxes(tickangle=0, row=1, col=1)
    return fig


def running_table(ex: FlashExample, row: int, lang: str) -> pd.DataFrame:
    """Query `row` key block by key block: the block's largest score, m, the rescale e^(m - m'), l,
    and the output's first component O₁ / l so far."""
    r = ex.result
    o_first = r.o_after[:, row, 0] / np.where(r.l_after[:, row] > 0, r.l_after[:, row], 1.0)  # [T_c]
    return pd.DataFrame(
        {
            t("flash.col_tile_max", lang): r.tile_max[:, row],
            t("flash.col_m_after", lang): r.m_after[:, row],
            t("flash.col_rescale", lang): r.rescale[:, row],
            t("flash.col_l_after", lang): r.l_after[:, row],
            t("flash.col_output", lang): o_first,
        },
        index=pd.Index(range(1, r.n_key_blocks + 1), name=t("flash.key_block_axis", lang)),
    )


def memory_held(sweep: MemorySweep, block: int, lang: str) -> go.Figure:
    """Bytes held for one head: the whole T x T score matrix against one tile, on log axes."""
    b = int(np.flatnonzero(sweep.block_sizes == block)[0])
    T = sweep.T.astype(float)
    data = [
        go.Scatter(
            x=T,
            y=sweep.score_matrix_bytes,
            mode="lines+markers",
            name=t("flash.held_matrix", lang),
            line=dict(color=QUALITATIVE[5], width=2.5),
            hovertemplate="T = %{x:,}: %{y:,} B<extra></extra>",
        ),
        go.Scatter(
            x=T,
            y=np.full(T.shape, float(sweep.tile_bytes[b])),
            mode="lines+markers",
            name=t("flash.held_tile", lang, B=block),
            line=dict(color=QUALITATIVE[0], width=2.5),
            hovertemplate="T = %{x:,}: %{y:,} B<extra></extra>",
        ),
    ]
    layout = layout_dict(
        title=t("flash.held_title", lang),
        height=380,
        xaxis=dict(type="log", title=dict(text=t("flash.T_axis", lang)), tickangle=0),
        yaxis=dict(type="log", exponentformat="SI", title=dict(text=t("flash.bytes_axis", lang))),  # 10G, not "10B"
        legend=dict(orientation="h", y=-0.25, x=0),
    )
    return go.Figure(data=data, layout=layout)


def memory_moved(sweep: MemorySweep, lang: str) -> go.Figure:
    """Numbers read from and written to the GPU's main memory: standard attention, and the tiled one
    for every block size."""
    T = sweep.T.astype(float)
    data = [
        go.Scatter(
            x=T,
            y=sweep.standard_traffic,
            mode="lines+markers",
            name=t("flash.moved_standard", lang),
            line=dict(color=QUALITATIVE[5], width=3),
            hovertemplate="T = %{x:,}: %{y:,}<extra></extra>",
        )
    ]
    for n, block in enumerate(sweep.block_sizes):
        data.append(
            go.Scatter(
                x=T,
                y=sweep.flash_traffic[:, n],
                mode="lines",
                name=t("flash.moved_tiled", lang, B=int(block)),
                line=dict(color=QUALITATIVE[n % 5], width=1.5, dash="dot"),
                hovertemplate="T = %{x:,}: %{y:,}<extra></extra>",
            )
        )
    layout = layout_dict(
        title=t("flash.moved_title", lang),
        height=400,
        xaxis=dict(type="log", title=dict(text=t("flash.T_axis", lang)), tickangle=0),
        yaxis=dict(type="log", exponentformat="SI", title=dict(text=t("flash.numbers_axis", lang))),
        legend=dict(orientation="h", y=-0.25, x=0),
    )
    return go.Figure(data=data, layout=layout)


def memory_table(sweep: MemorySweep, lang: str) -> pd.DataFrame:
    table = pd.DataFrame(
        {
            t("flash.held_matrix", lang): sweep.score_matrix_bytes,
            t("flash.moved_standard", lang): sweep.standard_traffic,
        },
        index=pd.Index(sweep.T, name=t("flash.T_axis", lang)),
    )
    for n, block in enumerate(sweep.block_sizes):
        table[t("flash.moved_tiled", lang, B=int(block))] = sweep.flash_traffic[:, n]
    return table


def size(n_bytes: int) -> str:
    return bytes_text(int(n_bytes))
