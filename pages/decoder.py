"""A decoder that writes: the app's own tiny character-level GPT (attention_core.decoder) continues
a prompt one character at a time; its next-character probabilities, the new character's attention
over every earlier one, the causal triangle as it grows, the KV cache, and an encoder's map beside it.

Steps (dc_step): write, triangle, cache, compare, check. The prompt, temperature, top-k and seed are
page-level. What the model has written is a plain string in session state (dc_written, beside the
prompt it continues, dc_written_for): every view is recomputed from prompt + written through cached(),
and character i is drawn with the seed and i (decoder.draw_token), so one click at a time and "write N"
with the cache write the same text.
"""

import streamlit as st

from attention_core import attention_views as av
from attention_core import decoder as dc
from attention_core import pretrained
from attention_core.shipped import load_examples
from lab_ui import page, state, widgets, writing
from lab_ui.cache import cached
from lab_ui.figures import decoder as figures
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture
from lab_ui.writing import CHARS, CONFIG, MAX_WRITTEN, Settings, written

TOP_KS = (1, 2, 3, 5, 10, 20, 50, 100, CONFIG.vocab_size)  # the last: every character
EXAMPLE_TEXTS = {e.id: e.text for e in load_examples()}
PROMPT = "prompt"  # the compare step's choice "the text above"
ANIMAL = av.ANIMAL_EXAMPLE
_ANIMAL = av.example_maps(ANIMAL)
# the encoder's head that reads the next word most on the example: what a decoder's mask forbids
E_LAYER, E_HEAD = av.strongest(av.pattern_shares(_ANIMAL.maps, _ANIMAL.tokens)[..., av.PATTERNS.index("next")])
N_E_LAYERS, N_E_HEADS = _ANIMAL.maps.shape[:2]
BYTES = state.labels("decoder.bytes_", "float16", "float32", "float64")
SIZES = {"float16": 2, "float32": 4, "float64": 8}  # bytes per number


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    prompt = state.text_area("dc_prompt", "decoder.prompt", "decoder.default_prompt", default_text=True)
    temperature = state.slider("dc_temp", "decoder.temperature", 0.0, 2.0, 0.8, step=0.1, help="decoder.temp_help")
    top_k = state.select_slider("dc_topk", "decoder.top_k", TOP_KS, 10, help="decoder.top_k_help")
    seed = state.seed("dc_seed")
    n_write = state.slider("dc_n", "decoder.n_write", 1, MAX_WRITTEN, 40, on="write")
    layer = state.slider("dc_layer", "decoder.layer", 1, CONFIG.n_layers, 1, on="triangle")
    head = state.slider("dc_head", "decoder.head", 1, CONFIG.n_heads, 1, on="triangle")
    rows = state.slider("dc_rows", "decoder.rows", 1, CONFIG.context, CONFIG.context, on="triangle")
    bytes = state.choice("dc_bytes", "decoder.bytes", BYTES, on="cache", help="decoder.bytes_help")
    sentence = state.selectbox("dc_ex", "decoder.sentence", (PROMPT, *EXAMPLE_TEXTS), PROMPT, on="compare")
    e_layer = state.slider("dc_el", "decoder.e_layer", 1, N_E_LAYERS, E_LAYER + 1, on="compare")
    e_head = state.slider("dc_eh", "decoder.e_head", 1, N_E_HEADS, E_HEAD + 1, on="compare")
    d_layer = state.slider("dc_dl", "decoder.d_layer", 1, CONFIG.n_layers, 1, on="compare")
    d_head = state.slider("dc_dh", "decoder.d_head", 1, CONFIG.n_heads, 1, on="compare")


C = Controls
PRESETS = (  # the build report's own first sample first: greedy after "Attention " (docs/decoder.md)
    state.Preset("decoder.preset_greedy", {C.prompt: "Attention ", C.temperature: 0.0}),
    state.Preset("decoder.preset_chinese", {C.prompt: "注意力", C.temperature: 0.8, C.top_k: 10}),
    state.Preset("decoder.preset_empty", {C.prompt: "", C.temperature: 0.8, C.top_k: 10}),
    state.Preset("decoder.preset_hot", {C.prompt: "The query ", C.temperature: 1.6, C.top_k: CONFIG.vocab_size}),
)
PAGE = page.Page("decoder", Controls, presets=PRESETS)
(CHECK,) = PAGE.info.checks


def settings() -> Settings:
    prompt = C.prompt.draw(height=90, max_chars=10_000)
    read = cached(dc.read_text, prompt).encoded
    if read.empty:
        st.info(t("decoder.empty_prompt"), icon=":material/info:")
    if read.unknown:
        unknown = literal(" ".join(read.unknown))
        st.warning(t("decoder.unknown_chars", chars=unknown, n=len(read.unknown)), icon=":material/warning:")
    if read.n_cut:
        st.info(t("decoder.prompt_cut", n=read.n_cut, context=CONFIG.context), icon=":material/content_cut:")
    with page.section_controls():
        temperature = C.temperature.draw()
        top_k = C.top_k.draw()  # the option's text is its link's: no words of a language
    seed = C.seed.draw()
    return Settings(prompt, temperature, top_k, seed)


@PAGE.step("write")
def write_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("decoder.write_body"))
    with p.controls:
        done = writing.text_and_buttons(s, C.n_write.draw())
    nt, lang = cached(dc.next_token, s.base + done, s.temperature, s.top_k, s.seed, len(done)), current_lang()
    with p.figure:
        widgets.show_figure(
            cached(figures.next_bars, nt, CHARS, lang),
            key="dc_bars",
            alt=t("decoder.bars_alt", char=literal(figures.visible_char(CHARS[int(nt.top[0])]))),
        )
        widgets.show_figure(cached(figures.heads_map, nt, lang), key="dc_heads", alt=t("decoder.heads_alt"))
    with p.reading:
        st.markdown(figures.next_reading(nt, CHARS, lang))
        if nt.view.encoded.n_cut:
            st.caption(t("decoder.reads_last", context=CONFIG.context))
    p.table(t("decoder.next_box"), figures.next_table, nt, CHARS, lang, key="dc_next_tab", filename="next_char.csv")
    p.table(t("decoder.heads_box"), figures.heads_table, nt, lang, key="dc_heads_tab", filename="heads.csv", box="h")
    p.formula(figures.LATEX["next"], dc.next_token, dc.sampling_probs, dc.draw_token)


@PAGE.step("triangle")
def triangle_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("decoder.triangle_body"))
    view, lang = cached(dc.read_text, s.base + written(s)), current_lang()
    with p.controls, page.section_controls():
        layer, head = C.layer.draw() - 1, C.head.draw() - 1
        # the slider's range is the context, not this text's length: a link's value then means the same
        # whatever the text, and past the text's end the whole text is shown
        rows = min(C.rows.draw(), len(view.chars))
    with p.figure:
        alt = t("decoder.map_alt", rows=rows, layer=layer + 1, head=head + 1)
        fig = cached(figures.causal_map, view, layer, head, rows, lang, is_lecture())
        widgets.show_figure(fig, key="dc_map", alt=alt, numbers_on_phones=False)
    with p.reading:
        st.markdown(figures.triangle_reading(view, layer, head, rows, lang))
    args = (view, layer, head, rows, lang)
    p.table(t("decoder.map_box"), figures.map_table, *args, key="dc_map_tab", filename="causal_map.csv")
    p.formula(figures.LATEX["mask"], dc.decoder_mask, dc.visible)


@PAGE.step("cache")
def cache_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("decoder.cache_body"))
    with p.controls:
        b = SIZES[C.bytes.draw()]
    r, lang = cached(dc.cache_report, s.base + written(s), b), current_lang()
    with p.figure:
        alt = t("decoder.growth_alt", T=r.T, shown=figures.bytes_text(r.bytes_now))
        widgets.show_figure(cached(figures.cache_growth, r, lang), key="dc_growth", alt=alt)
        alt = t("decoder.published_alt", n=len(r.sizes) - 1)
        widgets.show_figure(cached(figures.published_bars, r, lang), key="dc_published", alt=alt)
    with p.reading:
        for line in figures.cache_reading(r, lang):
            st.markdown(line)
        st.caption(t("decoder.sources", sources=literal("; ".join(f"{x.name}: {x.source}" for x in r.sizes[1:]))))
    p.table(t("decoder.cache_box"), figures.cache_table, r, lang, key="dc_cache_tab", filename="kv_cache.csv")
    p.formula(figures.LATEX["cache"], dc.kv_cache_bytes, dc.step, dc.step_cost)


@PAGE.step("compare")
def compare_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("decoder.compare_body"))
    model = pretrained.minilm_available()
    offered = [PROMPT, *EXAMPLE_TEXTS] if model else list(EXAMPLE_TEXTS)
    names = {**EXAMPLE_TEXTS, PROMPT: t("decoder.the_prompt")}
    with p.controls:
        choice = C.sentence.draw(options=offered, default=PROMPT if model else ANIMAL, format_func=names.get)
        with page.section_controls():
            el, eh = C.e_layer.draw() - 1, C.e_head.draw() - 1
            dl, dh = C.d_layer.draw() - 1, C.d_head.draw() - 1
    if choice == PROMPT:  # what the decoder reads (the last `context` characters), the encoder reads too
        text = cached(dc.read_text, s.base + written(s)).encoded.read
        reading = cached(av.read_text, text, EXAMPLE_TEXTS[ANIMAL])
        if reading.problem:  # nothing the encoder can read: both models get the example sentence
            st.info(t("decoder.encoder_fallback", text=EXAMPLE_TEXTS[ANIMAL]), icon=":material/info:")
            text = EXAMPLE_TEXTS[ANIMAL]
        maps = reading.maps
    else:
        text, maps = EXAMPLE_TEXTS[choice], cached(av.example_maps, choice)
    c, lang = cached(dc.compare, maps.tokens, maps.maps[el, eh], text, dl, dh), current_lang()
    with p.figure:
        encoder, decoder = cached(figures.compare_maps, c, lang)
        left, right = st.columns(2)  # side by side on a screen, one under the other on a phone
        with left:
            widgets.show_figure(encoder, key="dc_encoder", alt=t("decoder.encoder_alt", n=len(c.encoder_tokens)))
        with right:
            widgets.show_figure(decoder, key="dc_decoder", alt=t("decoder.decoder_alt", n=len(c.decoder.chars)))
        st.caption(t("decoder.compare_caption"))
    with p.reading:
        st.markdown(figures.compare_reading(c, lang))
        if unknown := c.encoder_tokens.count(pretrained.UNKNOWN):
            st.caption(t("decoder.encoder_unknown", n=unknown, T=len(c.encoder_tokens)))
    p.table(t("decoder.compare_box"), figures.compare_table, c, lang, key="dc_cmp_tab", filename="encoder_decoder.csv")
    p.formula(figures.LATEX["compare"], dc.sight, dc.compare)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    T = len(cached(dc.read_text, s.base + written(s)).chars)
    answer = dc.kv_cache_bytes(CONFIG.n_layers, T, CONFIG.d_model, 2)
    values = dict(L=CONFIG.n_layers, T=T, d_model=CONFIG.d_model)
    with p.check:
        widgets.check_number(
            t("decoder.check_question", **values),
            float(answer),
            key=CHECK,
            explanation=t("decoder.check_explanation", **values, answer=str(answer)),
        )


if __name__ == "__main__":
    PAGE.start().show(settings)
