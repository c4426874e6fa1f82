"""Shared key/value heads: h query heads reading g key/value heads (grouped-query attention,
Ainslie et al. 2023; g = h is multi-head attention, g = 1 multi-query attention, Shazeer 2019);
what sharing makes equal (the keys and values of a group, not its maps); the parameters and the
KV-cache bytes as g moves, for this page's layer and for published models, each figure cited.

Steps (kv_step): share, maps, bytes, check. The sentence, h, g, the head width and the seed are
page-level; the query head followed (share), one W_q per group (maps), the layers, tokens and bytes
per number (bytes) are their steps' own. g offers only divisors of h; a link's g that does not
divide h is replaced by the nearest smaller divisor, with a notice (never a traceback).
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import grouped
from attention_core.decoder import load_decoder
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import kv_heads as figures
from lab_ui.i18n import current_lang, literal, t
from lab_ui.registry import info as page_info

MAX_TOKENS, MAX_HEADS = 12, 16  # 16 maps of 12 x 12 side by side still fit a screen's column
DECODER = load_decoder().config  # the app's own trained decoder: its layers, heads, width and context
# at most 16 heads of 24 (the decoder's): d_model 384 keeps the seeded layer's four d_model x d_model
# matrices under 10 ms; 16 x 64 = 1024 took 0.15 s and more on a loaded machine
HEAD_WIDTHS = tuple(sorted({2, 4, 8, 16, DECODER.d_model // DECODER.n_heads}))
TOKENS = (128, 512, 1024, 4096, 8192, 32768)  # the bytes step's sequence lengths
MULTI_HEAD = page_info("multi_head")
KV = r"\lfloor i/(h/g) \rfloor"  # the key/value head query head i reads
GROUP_TEX = (
    rf"\text{{head}}_i = \text{{softmax}}\Big(\frac{{Q_i K_{{{KV}}}^\top}}{{\sqrt{{d_\text{{head}}}}}}\Big) V_{{{KV}}}"
)
# Ainslie et al. 2023, Section 2.1: a multi-head checkpoint's key and value heads averaged per group
POOL_TEX = rf"W_K^{{(j)}} = \frac{{g}}{{h}} \sum_{{i:\ {KV} = j}} W_K^{{(i)}}\quad(\text{{and }} W_V)"


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    text = state.text("kv_text", "kv_heads.text", "kv_heads.default_text", default_text=True, help="kv_heads.text_help")
    h = state.slider("kv_h", "kv_heads.h", 1, MAX_HEADS, 8, help="kv_heads.h_help")
    g = state.selectbox("kv_g", "kv_heads.g", (), 2, help="kv_heads.g_help")  # divisors of h
    d_head = state.select_slider("kv_dh", "kv_heads.d_head", HEAD_WIDTHS, 4, help="kv_heads.d_head_help")
    seed = state.seed("kv_seed")
    focus = state.selectbox("kv_q", "kv_heads.focus", (), 1, on="share")  # 1..h
    same = state.toggle("kv_same", "kv_heads.same", on="maps", help="kv_heads.same_help")
    layers = state.slider("kv_L", "kv_heads.layers", 1, 128, DECODER.n_layers, on="bytes", help="kv_heads.layers_help")
    tokens = state.select_slider("kv_T", "kv_heads.tokens", TOKENS, DECODER.context, on="bytes")
    width = state.select_slider("kv_b", "kv_heads.bytes", (2, 4, 8), 2, on="bytes", help="kv_heads.bytes_help")


C = Controls
PRESETS = (
    # Ainslie et al. 2023 group 64 query heads of Llama-like models into 8; at this size: 8 into 2
    state.Preset("kv_heads.preset_grouped", {C.h: 8, C.g: 2, C.d_head: 4, C.same: False}),
    state.Preset("kv_heads.preset_multi_query", {C.h: 8, C.g: 1}),
    state.Preset("kv_heads.preset_multi_head", {C.h: 8, C.g: 8}),
    state.Preset(
        "kv_heads.preset_decoder",  # the app's decoder, as shipped (attention_core/data/decoder_vocab.json)
        {
            C.h: DECODER.n_heads,
            C.g: DECODER.n_heads,
            C.d_head: DECODER.d_model // DECODER.n_heads,
            C.layers: DECODER.n_layers,
            C.tokens: DECODER.context,
        },
    ),
)
PAGE = page.Page("kv_heads", Controls, presets=PRESETS)
(CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    tokens: tuple[str, ...]
    h: int
    g: int  # a divisor of h
    d_head: int
    seed: int


def settings() -> Settings:
    label, help_text = t(C.text.label), t(C.text.help)
    tokens = widgets.sentence_tokens(label, C.text.initial(), key=C.text.key, max_tokens=MAX_TOKENS, help=help_text)
    with page.section_controls():
        h = C.h.draw()
        g = kv_heads_control(h)
    with page.section_controls():
        d_head, seed = C.d_head.draw(), C.seed.draw()
    return Settings(tuple(tokens), h, g, d_head, seed)


def kv_heads_control(h: int) -> int:
    """g offers the divisors of h only. A g that cannot group h evenly (a link's, or one left over
    after h moved) becomes the nearest smaller divisor, and a notice says why."""
    choices = grouped.kv_head_choices(h)
    wanted = st.session_state.get(C.g.key)
    raw = st.query_params.get_all(C.g.key)[:1] if wanted is None else []
    asked = raw[0] if raw else wanted
    whole = isinstance(asked, int) or (isinstance(asked, str) and asked.isascii() and asked.isdigit())
    number = int(asked) if whole else None
    note = None
    if asked is not None and number not in choices:
        fit = max((c for c in choices if number is not None and c <= number), default=choices[0])
        note = t(
            "kv_heads.g_not_divisor", g=literal(str(asked)[:40]), h=h, choices=", ".join(map(str, choices)), fit=fit
        )
        st.session_state[C.g.key] = fit
    g = C.g.draw(options=choices, default=min(2, h) if h % 2 == 0 else 1)
    st.caption(t(figures.kind_of(h, g)))
    if note:
        st.warning(note, icon="⚠️")
    return g


def numbers() -> str:
    return t("kv_heads.numbers")


@PAGE.step("share")
def share_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("kv_heads.share_body"))
    with p.words:
        st.page_link(MULTI_HEAD.path, label=t("kv_heads.multi_head_link"), icon=":material/arrow_back:")
    with p.controls:
        focus = C.focus.draw(options=range(1, s.h + 1), default=1, format_func=lambda i: f"Q{i}")
    m, lang = cached(grouped.shared_maps, s.tokens, s.d_head, s.h, s.g, s.seed), current_lang()
    with p.figure:
        alt = t("kv_heads.diagram_alt", h=s.h, g=s.g, size=m.result.group_size)
        widgets.show_figure(cached(figures.sharing_diagram, m.result, focus - 1, lang), key="kv_diagram", alt=alt)
    with p.reading:
        st.markdown(figures.sharing_text(m.result, focus - 1, lang))
    p.table(numbers(), figures.sharing_table, m.result, lang, key="kv_share_table", filename="query_to_kv_head.csv")
    p.formula(GROUP_TEX, grouped.kv_head_of)


@PAGE.step("maps")
def maps_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("kv_heads.maps_body"))
    with p.controls:
        same = C.same.draw()
    m, lang = cached(grouped.shared_maps, s.tokens, s.d_head, s.h, s.g, s.seed, same), current_lang()
    with p.figure:
        alt = t("kv_heads.maps_alt", h=s.h, g=s.g, T=len(s.tokens))
        widgets.show_figure(cached(figures.maps_grid, m, lang), key="kv_maps", alt=alt, numbers_on_phones=False)
    with p.reading:
        st.markdown(figures.maps_text(m, lang))
        st.caption(t("kv_heads.pooling_caption"))
    p.table(numbers(), figures.maps_table, m, lang, key="kv_maps_table", filename="kv_maps.csv")
    p.formula(POOL_TEX, grouped.mean_pool_kv, grouped.grouped_query_attention)


@PAGE.step("bytes")
def bytes_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("kv_heads.bytes_body"))
    with p.controls, page.section_controls():
        layers, T = C.layers.draw(), C.tokens.draw()
        width = C.width.draw()
    c, lang = cached(grouped.sharing_costs, s.d_head, s.h, layers, T, width), current_lang()
    with p.figure:
        alt = t("kv_heads.app_alt", h=s.h, layers=layers, T=T)
        widgets.show_figure(cached(figures.app_bars, c, s.g, lang), key="kv_app_bars", alt=alt)
    with p.reading:
        st.markdown(figures.bytes_text_reading(c, s.g, lang))
    with p.figure:
        alt = t("kv_heads.models_alt", n=len(c.models))
        widgets.show_figure(cached(figures.model_bars, c, lang), key="kv_model_bars", alt=alt)
    with p.reading:
        st.markdown(figures.models_reading(c, lang))
        st.caption(figures.sources_text(c, lang))
    p.table(numbers(), figures.app_table, c, lang, key="kv_app_table", filename="kv_cost_app.csv")
    p.table(
        t("kv_heads.models_box"),
        figures.models_table,
        c,
        lang,
        box="models",
        key="kv_models_table",
        filename="kv_cache_models.csv",
    )
    p.formula(grouped.KV_CACHE_FORMULA, grouped.kv_cache_bytes, grouped.attention_parameters)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    layers, T = C.layers.value(), C.tokens.value()
    layers = layers if isinstance(layers, int) and 1 <= layers <= C.layers.high else C.layers.default
    T = T if T in TOKENS else C.tokens.default
    answer = grouped.kv_cache_bytes(layers, T, s.g, s.d_head, bytes_per_value=2)
    with p.check:
        widgets.check_number(
            t("kv_heads.check_question", layers=layers, T=T, g=s.g, h=s.h, d_head=s.d_head),
            float(answer),
            key=CHECK,
            explanation=t(
                "kv_heads.check_explanation", layers=layers, T=T, g=s.g, d_head=s.d_head, answer=f"{answer:,}"
            ),
        )


if __name__ == "__main__":
    PAGE.start().show(settings)
