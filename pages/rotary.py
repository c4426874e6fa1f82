"""Rotary positions and ALiBi: each (2i, 2i+1) pair of a query and a key turned by position x θ_i
(RoPE, Su et al. 2021), so a score sees only the distance m - n; the same check failing for added
sinusoids; how RoPE's scores fade with distance; ALiBi's fixed distance penalty (Press et al. 2022);
the four ways of telling position compared on one sentence.

Steps (ro_step): rotate, relative, decay, alibi, check. The sentence, the head width d and the seed
are page-level (seeded random token vectors and projections: no learned meaning); the token, its
position and the pair (rotate), the shift (relative), the distance and base (decay), the heads, the
head looked at and the sentence's start (alibi) are their steps' own.
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import rotary
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import rotary as figures
from lab_ui.i18n import current_lang, literal, t
from lab_ui.registry import info as page_info

MAX_TOKENS = 16  # the comparison draws four T x T maps: 16 tokens is still readable on a phone
WIDTHS = (2, 4, 8, 16, 32, 64)  # d, even: RoPE turns pairs of columns
DISTANCES = (16, 64, 256, 1024, 4096)  # the decay's furthest distance (a 4096 x d/2 table: < 10 ms)
DECAY_WIDTHS = (8, 16, 32, 64, 128, 256)  # the decay's own d: a smooth curve needs many pairs
BASES = (100, 1000, 10000, 100000, 1000000)  # RoFormer's (and the 2017 sinusoids') base is 10000
MAX_HEADS = 8  # ALiBi's paper shows 8 heads' slopes: 1/2, 1/4, ..., 1/256
POSITIONAL = page_info("positional")
# RoFormer Section 3.4.3: summation by parts bounds a score by the mean size of partial sums
DECAY_TEX = (
    r"\lvert q\cdot R_{\delta}\,k\rvert \le \max_i \lvert h_{i+1}-h_i\rvert \sum_{j=1}^{d/2} \lvert S_j\rvert,"
    r"\quad S_j = \sum_{i<j} e^{\,\mathrm{i}\,\delta\theta_i}"
)


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    text = state.text("ro_text", "rotary.text", "rotary.default_text", default_text=True, help="rotary.text_help")
    d = state.select_slider("ro_d", "rotary.d", WIDTHS, 8, help="rotary.d_help")
    seed = state.seed("ro_seed")
    token = state.selectbox("ro_tok", "rotary.token", (), 2, on="rotate")  # positions 1..T
    m = state.slider("ro_m", "rotary.m", 0, 100, 5, on="rotate", help="rotary.m_help")
    pair = state.selectbox("ro_pair", "rotary.pair", (), 1, on="rotate", help="rotary.pair_help")  # 0..d/2-1
    shift = state.slider("ro_shift", "rotary.shift", 0, 1000, 40, on="relative", help="rotary.shift_help")
    distance = state.select_slider("ro_dist", "rotary.distance", DISTANCES, 1024, on="decay")
    decay_d = state.select_slider("ro_dd", "rotary.decay_d", DECAY_WIDTHS, 128, on="decay", help="rotary.decay_d_help")
    base = state.select_slider("ro_base", "rotary.base", BASES, 10000, on="decay", help="rotary.base_help")
    heads = state.slider("ro_heads", "rotary.heads", 1, MAX_HEADS, 4, on="alibi", help="rotary.heads_help")
    head = state.selectbox("ro_head", "rotary.head", (), 1, on="alibi")  # 1..heads
    offset = state.slider("ro_off", "rotary.offset", 0, 200, 0, on="alibi", help="rotary.offset_help")


C = Controls
PRESETS = (
    # the heatmap page's "I saw a saw": the two "saw"s have one vector; only their positions differ
    state.Preset("rotary.preset_article", {C.text: "I saw a saw", C.d: 8, C.token: 2, C.m: 3, C.pair: 0}),
    state.Preset("rotary.preset_alibi8", {C.heads: 8, C.head: 1, C.offset: 0}),  # Press et al. 2022's 8 heads
    state.Preset("rotary.preset_far", {C.shift: 1000, C.m: 100, C.pair: 1, C.offset: 200}),
    state.Preset("rotary.preset_wide", {C.d: 64, C.decay_d: 256, C.distance: 4096, C.base: 10000}),
)
PAGE = page.Page("rotary", Controls, presets=PRESETS)
(CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    tokens: tuple[str, ...]  # the sentence (at most MAX_TOKENS)
    d: int  # the width of a query and a key (one head's)
    seed: int


def settings() -> Settings:
    label, help_text = t(C.text.label), t(C.text.help)
    tokens = widgets.sentence_tokens(label, C.text.initial(), key=C.text.key, max_tokens=MAX_TOKENS, help=help_text)
    with page.section_controls():
        d, seed = C.d.draw(), C.seed.draw()
    return Settings(tuple(tokens), d, seed)


def numbers() -> str:
    return t("rotary.numbers")


@PAGE.step("rotate")
def rotate_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rotary.rotate_body"))
    with p.words:
        st.page_link(POSITIONAL.path, label=t("rotary.positional_link"), icon=":material/arrow_back:")
    T = len(s.tokens)
    with p.controls, page.section_controls():
        words = lambda j: f"{j}: {s.tokens[j - 1]}"  # noqa: E731  the position and its token
        index = C.token.draw(options=range(1, T + 1), default=min(2, T), format_func=words)
        m = C.m.draw()
        pair = C.pair.draw(options=range(s.d // 2), default=min(1, s.d // 2 - 1))
    r, lang = cached(rotary.sentence_turn, s.tokens, s.d, s.seed, index - 1, float(m)), current_lang()
    with p.figure:
        left, right = st.columns(2)
        with left:
            alt = t("rotary.plane_alt", i=pair, m=m, angle=f"{r.angle[pair]:.3f}")
            widgets.show_figure(cached(figures.turn_plane, r, pair, lang), key="ro_plane", alt=alt)
        with right:
            alt = t("rotary.bars_alt", m=m, n=s.d // 2)
            widgets.show_figure(cached(figures.angle_bars, r, pair, lang), key="ro_bars", alt=alt)
    with p.reading:
        st.markdown(figures.turn_text(r, pair, s.tokens[index - 1], lang))
    p.table(numbers(), figures.turn_table, r, lang, key="ro_turn_table", filename="rope_pairs.csv")
    p.formula(rotary.ROPE_FORMULA, rotary.rope_frequencies, rotary.rotary_embedding)


@PAGE.step("relative")
def relative_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rotary.relative_body"))
    with p.controls, page.section_controls():
        shift = C.shift.draw()
    c, lang = cached(rotary.sentence_shift, s.tokens, s.d, s.seed, shift), current_lang()
    with p.figure:
        alt = t("rotary.shift_alt", shift=shift, rope=f"{c.rope_change:.1e}", sin=f"{c.sinusoid_change:.3f}")
        widgets.show_figure(cached(figures.shift_scatter, c, lang), key="ro_shift_plot", alt=alt)
    with p.reading:
        st.markdown(figures.shift_text(c, lang))
    caption = t("rotary.shift_table_caption")
    p.table(
        numbers(), figures.shift_table, c, s.tokens, lang, key="ro_shift_table", filename="shift.csv", caption=caption
    )
    p.formula(rotary.ROPE_FORMULA, rotary.rope_shift_check)


@PAGE.step("decay")
def decay_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rotary.decay_body"))
    with p.controls, page.section_controls():
        far, d, base = C.distance.draw(), C.decay_d.draw(), C.base.draw()
    r, lang = cached(rotary.rope_decay, far, d, float(base)), current_lang()
    with p.figure:
        alt = t("rotary.decay_alt", d=d, far=far)
        widgets.show_figure(cached(figures.decay_lines, r, lang), key="ro_decay", alt=alt)
    with p.reading:
        st.markdown(figures.decay_text(r, lang))
        if d <= 16:
            st.caption(t("rotary.decay_few_pairs", n=d // 2))
    p.table(numbers(), figures.decay_table, r, lang, key="ro_decay_table", filename="rope_decay.csv")
    p.formula(DECAY_TEX, rotary.rope_decay)


@PAGE.step("alibi")
def alibi_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("rotary.alibi_body"))
    with p.controls, page.section_controls():
        n_heads = C.heads.draw()
        head = C.head.draw(options=range(1, n_heads + 1), default=1, format_func=lambda h: t("rotary.head_n", h=h))
        offset = C.offset.draw()
    c, lang = cached(rotary.sentence_positions, s.tokens, s.d, n_heads, s.seed, offset), current_lang()
    with p.figure:
        alt = t("rotary.penalty_alt", n=n_heads)
        widgets.show_figure(cached(figures.penalty_lines, c, lang), key="ro_penalty", alt=alt)
        alt = t("rotary.maps_alt", head=head, T=len(s.tokens))
        maps = cached(figures.comparison_maps, c, head - 1, s.tokens, lang)
        widgets.show_figure(maps, key="ro_maps", alt=alt, numbers_on_phones=False)
    with p.reading:
        st.markdown(figures.alibi_text(c, head - 1, s.tokens, lang))
        st.caption(t("rotary.alibi_offset_note", offset=offset))
    p.table(numbers(), figures.slopes_table, c, lang, key="ro_slopes_table", filename="alibi_slopes.csv")
    p.formula(rotary.ALIBI_FORMULA, rotary.alibi_slopes, rotary.alibi_bias)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    pair, m = C.pair.value(), C.m.value()
    pair = pair if isinstance(pair, int) and 0 <= pair < s.d // 2 else 0  # a value left from a wider d
    index = C.token.value()
    index = index if isinstance(index, int) and 1 <= index <= len(s.tokens) else 1
    r = cached(rotary.sentence_turn, s.tokens, s.d, s.seed, index - 1, float(m))
    with p.check:
        widgets.check_number(
            t("rotary.check_question", d=s.d, i=pair, m=m),
            float(r.angle[pair]),
            key=CHECK,
            tolerance=0.005,
            explanation=t(
                "rotary.check_explanation",
                d=s.d,
                i=pair,
                m=m,
                theta=f"{r.theta[pair]:.6g}",
                angle=f"{r.angle[pair]:.4f}",
                degrees=f"{r.degrees[pair]:.1f}",
                token=literal(s.tokens[index - 1]),
            ),
        )


if __name__ == "__main__":
    PAGE.start().show(settings)
