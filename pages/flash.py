"""FlashAttention's tiles: the same softmax(q kᵀ/√d) v computed one tile of the score matrix at a
time, with the online softmax's running maximum m, sum l and output O, and what that saves in memory
held and memory moved (Dao et al. 2022).

Steps (fa_step): tiles, online, memory, check. The example (T, the block size B, the causal mask,
the seed) is page-level: the tiles, the online step and the check read it. The memory step counts a
real model's sizes with its own controls, so on its own it draws no settings (they keep their values).
"""

from dataclasses import dataclass

import streamlit as st

from attention_core.flash import ONLINE_SOFTMAX_FORMULA, attention_memory, attention_memory_sweep, flash_example
from attention_core.flash import flash_attention as flash_attention_fn
from attention_core.published import GPT2_SMALL
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import flash as figures
from lab_ui.i18n import current_lang, t

T_MAX = 32  # every tile drawn with its numbers stays readable; a real T is the memory step's
D_EXAMPLE = 4  # q, k and v of the example: four numbers each, enough for scores of every sign
MEMORY_T = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536)
MEMORY_BLOCKS = (16, 32, 64, 128, 256)
MEMORY_D = (32, 64, 128)
TRAFFIC_TEX = (
    r"\text{standard: } 4Td + 4T^2 \qquad \text{tiled: } 3Td + 2T + T_c\,(3Td + 4T),"
    r"\quad T_c = \lceil T / B_c \rceil"
)


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    T = state.slider("fa_T", "flash.T_label", 2, T_MAX, 8, help="flash.T_help")
    B = state.slider("fa_B", "flash.B_label", 1, T_MAX, 4, help="flash.B_help")
    causal = state.toggle("fa_causal", "flash.causal_label", help="flash.causal_help")
    seed = state.seed("fa_seed")
    tile = state.slider("fa_tile", "flash.tile_label", 1, T_MAX * T_MAX, 1, on="tiles", help="flash.tile_help")
    row = state.slider("fa_row", "flash.row_label", 1, T_MAX, 1, on="online")
    N = state.select_slider("fa_N", "flash.N_label", MEMORY_T, 4096, on="memory", help="flash.N_help")
    d = state.select_slider("fa_d", "flash.d_label", MEMORY_D, 64, on="memory")
    Bm = state.select_slider("fa_Bm", "flash.Bm_label", MEMORY_BLOCKS, 64, on="memory", help="flash.Bm_help")


C = Controls
PAGE = page.Page(
    "flash",
    Controls,
    presets=(
        state.Preset("flash.preset_paper", {C.T: 8, C.B: 4, C.causal: False, C.tile: 1}),
        state.Preset("flash.preset_one_block", {C.T: 8, C.B: 8, C.tile: 1}),
        state.Preset("flash.preset_single", {C.T: 6, C.B: 1, C.tile: 1}),
        state.Preset("flash.preset_causal", {C.T: 12, C.B: 4, C.causal: True, C.tile: 1}),
        state.Preset("flash.preset_gpt", {C.N: GPT2_SMALL.context, C.d: GPT2_SMALL.d_head, C.Bm: 128}),
    ),
)
(CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The example every step but the memory one reads."""

    T: int  # queries and keys
    B: int  # rows and columns of a tile (B_r = B_c)
    causal: bool
    seed: int


def settings(drawn: bool) -> Settings:
    if not drawn:
        st.caption(t("flash.no_settings"))
        return Settings(C.T.value(), C.B.value(), C.causal.value(), C.seed.value())
    with page.section_controls():
        T = C.T.draw()
        B = C.B.draw()
        return Settings(T, B, C.causal.draw(), C.seed.draw())


def example(s: Settings):
    return cached(flash_example, s.T, D_EXAMPLE, s.B, s.seed, s.causal)


@PAGE.step("tiles")
def tiles_step(p: page.Parts, s: Settings) -> None:
    lang, ex = current_lang(), example(s)
    r = ex.result
    p.prose(t("flash.tiles_body"))
    with p.controls:
        step = C.tile.draw(high=r.n_tiles) - 1  # a value from a link past the last tile falls back
    tile = r.tile(step)
    with p.figure:
        widgets.show_figure(
            cached(figures.tile_map, ex, step, lang), key="fa_tiles", alt=figures.tiles_alt(ex, step, lang)
        )
    with p.reading:
        st.markdown(
            t(
                "flash.tiles_reading",
                step=step + 1,
                n=r.n_tiles,
                Tr=r.n_query_blocks,
                Tc=r.n_key_blocks,
                i=tile.query_block + 1,
                j=tile.key_block + 1,
                r0=tile.rows[0] + 1,
                r1=tile.rows[1],
                c0=tile.cols[0] + 1,
                c1=tile.cols[1],
                cells=tile.scores.size,
                whole=s.T * s.T,
            )
        )
        st.markdown(t("flash.tiles_exact", error=f"{ex.max_error:.1e}"))
    p.table(
        t("flash.tile_table"),
        figures.tile_table,
        ex,
        step,
        lang,
        key="fa_tile_table",
        filename="flash_tile.csv",
        caption=t("flash.tile_table_caption"),
    )
    p.formula(ONLINE_SOFTMAX_FORMULA, flash_attention_fn)


@PAGE.step("online")
def online_step(p: page.Parts, s: Settings) -> None:
    lang, ex = current_lang(), example(s)
    r = ex.result
    p.prose(t("flash.online_body"))
    with p.controls:
        row = C.row.draw(high=s.T) - 1
    with p.figure:
        widgets.show_figure(
            cached(figures.running_row, ex, row, lang),
            key="fa_running",
            alt=t("flash.running_alt", row=row + 1, n=r.n_key_blocks),
        )
    with p.reading:
        raised = [j + 1 for j in range(r.n_key_blocks) if ex.raised(row, j)]
        key = "flash.online_raised" if raised else "flash.online_never"
        st.markdown(t(key, row=row + 1, blocks=", ".join(map(str, raised))))
        st.markdown(
            t(
                "flash.online_reading",
                row=row + 1,
                m=f"{r.m[row]:.4f}",
                row_max=f"{ex.row_max[row]:.4f}",
                l=f"{r.l[row]:.4f}",
                denominator=f"{ex.denominator[row]:.4f}",
            )
        )
    p.table(
        t("flash.running_table"),
        figures.running_table,
        ex,
        row,
        lang,
        key="fa_running_table",
        filename="flash_online_softmax.csv",
    )
    p.formula(ONLINE_SOFTMAX_FORMULA, flash_attention_fn)


@PAGE.step("memory")
def memory_step(p: page.Parts, s: Settings) -> None:
    lang = current_lang()
    p.prose(t("flash.memory_body"))
    with p.controls, page.section_controls():
        N, d, B = C.N.draw(), C.d.draw(), C.Bm.draw()
    sweep = cached(attention_memory_sweep, MEMORY_T, d, MEMORY_BLOCKS)
    mem = cached(attention_memory, N, d, B)
    with p.figure:
        widgets.show_figure(cached(figures.memory_held, sweep, B, lang), key="fa_held", alt=t("flash.held_alt"))
    with p.reading:
        fewer = mem.flash_traffic < mem.standard_traffic
        st.markdown(
            t(
                "flash.memory_reading" if fewer else "flash.memory_reading_more",
                T=f"{N:,}",
                d=d,
                B=B,
                matrix=figures.size(mem.score_matrix_bytes),
                tile=figures.size(mem.tile_bytes),
                standard=f"{mem.standard_traffic:,}",
                tiled=f"{mem.flash_traffic:,}",
                ratio=f"{mem.standard_traffic / mem.flash_traffic:.1f}",
                passes=f"{mem.outer_passes:,}",
            )
        )
        widgets.show_figure(cached(figures.memory_moved, sweep, lang), key="fa_moved", alt=t("flash.moved_alt"))
        st.info(t("flash.io_argument"), icon=":material/memory:")
    p.table(
        t("flash.memory_table"),
        figures.memory_table,
        sweep,
        lang,
        key="fa_memory_table",
        filename="flash_memory.csv",
        caption=t("flash.memory_table_caption", d=d),
        decimals=0,
    )
    p.formula(TRAFFIC_TEX, attention_memory)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    ex = example(s)
    r = ex.result
    with p.check:
        if ex.first_raise is None:  # one key block, or no later block raised a maximum: ask for l
            widgets.check_number(
                t("flash.check_l_question", T=s.T, B=s.B),
                float(r.l[0]),
                key=CHECK,
                explanation=t("flash.check_l_explanation", l=f"{r.l[0]:.4f}"),
            )
            return
        row, j = ex.first_raise
        widgets.check_number(
            t(
                "flash.check_question",
                row=row + 1,
                j0=j,
                j=j + 1,
                m0=f"{r.m_after[j - 1, row]:.4f}",
                tile_max=f"{r.tile_max[j, row]:.4f}",
            ),
            float(r.rescale[j, row]),
            key=CHECK,
            explanation=t(
                "flash.check_explanation",
                m0=f"{r.m_after[j - 1, row]:.4f}",
                m1=f"{r.m_after[j, row]:.4f}",
                factor=f"{r.rescale[j, row]:.4f}",
            ),
        )


if __name__ == "__main__":
    frame = PAGE.start()
    frame.show(settings, frame.whole or not frame.shows("memory"))
