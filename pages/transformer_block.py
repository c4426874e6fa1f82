"""Where attention sits: one whole block of the real model (all-MiniLM-L6-v2) for the student's
text, array by array; one token through all six blocks; raw attention against rollout; and heads
switched off one by one against how peaked they look (attention_core.transformer_layer).

Steps (tb_step): layer, path, rollout, explain, check. The text and the followed token are
page-level; each step's own controls (the layer and the array; the rollout's residual; the
ablation's mode, second sentence and head) rerun that step alone. Steps get plain values and ask
the cache: no widget, callback or fragment holds a computed result.
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import pretrained
from attention_core import transformer_layer as tl
from attention_core.attention import multi_head_attention, scaled_dot_product_attention
from lab_ui import page, state, widgets
from lab_ui.cache import cached, lookup
from lab_ui.figures import transformer_block as figs
from lab_ui.i18n import current_lang, literal, t

MAX_TOKENS = tl.DEFAULT_MAX_TOKENS  # 64 pieces: every map stays legible, a result stays small
ABLATION_MAX = 24  # the ablation runs the blocks 21 times over: about a second at 24 pieces on a busy machine
TOP = 5  # heads compared at the top of the two rankings
EXAMPLE = "The animal didn't cross the street because it was too tired."
PAIR = "The cat did not cross the road because it was exhausted."
LONG = (
    "The animal didn't cross the street because it was too tired. It lay down under an old oak tree near the "
    "river bank, where the water was quiet and the grass was soft, and a girl brought it a bowl of water."
)
CODE = {  # each group of arrays (figs.stage_group) beside the functions that computed it
    "embed": (pretrained.embed_record, pretrained.layer_norm_rows),
    "input": (pretrained.encoder_block,),
    "attention": (multi_head_attention, scaled_dot_product_attention),
    "norm": (pretrained.add_and_norm, pretrained.layer_norm_rows),
    "ffn": (pretrained.feed_forward_record, pretrained.gelu_in_place),
    "out": (pretrained.add_and_norm,),
}


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    text = state.text("tb_text", "transformer_block.text", EXAMPLE, help="transformer_block.text_help")
    token = state.selectbox("tb_tok", "transformer_block.token", (), 10, help="transformer_block.token_help")
    # all-MiniLM-L6-v2 has 6 layers of 12 heads (Wang et al. 2020); a test holds the ranges to its config
    layer = state.slider(
        "tb_layer", "transformer_block.layer", 1, 6, 1, on="layer", help="transformer_block.layer_help"
    )
    stage = state.selectbox("tb_stage", "transformer_block.stage", figs.STAGE_NAMES, "weights", on="layer")
    head = state.slider("tb_head", "transformer_block.head", 1, 12, 1, on="layer", help="transformer_block.head_help")
    residual = state.slider("tb_res", "transformer_block.residual", 0.0, 1.0, 0.5, step=0.1, on="rollout")
    mode = state.radio("tb_mode", "transformer_block.mode", figs.MODES, "zero", on="explain")
    pair = state.text("tb_pair", "transformer_block.pair", PAIR, on="explain", help="transformer_block.pair_help")
    off_layer = state.slider("tb_al", "transformer_block.off_layer", 1, 6, 1, on="explain")
    off_head = state.slider("tb_ah", "transformer_block.off_head", 1, 12, 1, on="explain")


C = Controls
PRESETS = (
    state.Preset("transformer_block.preset_animal", {C.text: EXAMPLE, C.token: 10}),
    state.Preset("transformer_block.preset_saw", {C.text: "I saw a saw.", C.token: 4}),
    state.Preset("transformer_block.preset_chinese", {C.text: "我在河边看见了一只猫。", C.token: 3}),
    state.Preset("transformer_block.preset_long", {C.text: LONG, C.token: 10, C.layer: 6}),
)
PAGE = page.Page("transformer_block", Controls, presets=PRESETS)
(CHECK,) = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives."""

    text: str  # what the model reads: the box's text, or the example when the box holds nothing readable
    token: int  # the followed piece, 0-based
    model: bool  # the model package is installed


def reading(text: str) -> tl.PieceReport | None:
    """How the model reads `text` (None: it cannot, a lone surrogate): the rollout's encode, cached."""
    try:
        return cached(tl.text_rollout, text, MAX_TOKENS).pieces
    except ValueError:
        return None


def settings(model: bool) -> Settings:
    """The text and the followed token, with what the tokenizer made of the text."""
    if not model:
        st.info(t("transformer_block.needs_model", command=pretrained.INSTALL_COMMAND), icon=":material/info:")
        return Settings(EXAMPLE, 0, False)
    text = C.text.draw()
    pieces = reading(text)
    if pieces is None or pieces.empty:
        key = "common.empty_text" if not text.strip() else "common.no_tokens"
        st.info(
            t(key if pieces is not None else "transformer_block.unreadable", example=EXAMPLE), icon=":material/info:"
        )
        text, pieces = EXAMPLE, reading(EXAMPLE)
    tokens = pieces.tokens
    default = tokens.index("it") if "it" in tokens else 1
    with page.section_controls():
        token = C.token.draw(
            options=range(len(tokens)), default=default, format_func=lambda i: f"{tokens[i]} ({i + 1})"
        )
    if pieces.truncated:
        st.caption(
            t("transformer_block.cut", total=pieces.total_pieces, kept=pieces.n_pieces, chars=pieces.n_characters)
        )
    if pieces.n_unknown:
        st.caption(t("transformer_block.unknown", n=pieces.n_unknown, T=pieces.n_pieces))
    return Settings(text, int(token), True)


@PAGE.step("layer")
def layer_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("transformer_block.layer_body"))
    if not s.model:
        return
    with p.controls, page.section_controls():
        layer, stage, head = C.layer.draw(), C.stage.draw(), C.head.draw()
    view, lang = cached(tl.layer_view, s.text, layer, MAX_TOKENS), current_lang()
    stages = cached(tl.layer_stages, view)
    chosen = stages[tl.STAGES.index(stage)]
    tokens = view.pieces.tokens
    with p.figure:
        words = dict(name=figs.STAGE_NAMES.text(stage), shape=figs.shape_of(chosen), layer=layer)
        alt = t("transformer_block.map_alt", **words)
        fig = cached(figs.stage_map, chosen, tokens, head - 1, layer, lang)
        widgets.show_figure(fig, key="tb_stage_map", alt=alt, numbers_on_phones=False)
    with p.reading:
        st.markdown(t("transformer_block.chain", layer=layer, chain=figs.chain_text(stages, lang)))
        st.markdown(figs.stage_words(stages, stage, s.token, tokens, lang))
        if layer > 1 and figs.stage_group(stage) == "embed":
            st.caption(t("transformer_block.embed_note", layer=layer, before=layer - 1))
    box = t("transformer_block.layer_numbers")
    p.table(box, figs.stages_table, stages, s.token, tokens, lang, key="tb_layer_table", filename=f"layer{layer}.csv")
    group = figs.stage_group(stage)
    p.formula(figs.FORMULAS[group], *CODE[group])


@PAGE.step("path")
def path_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("transformer_block.path_body"))
    if not s.model:
        return
    paths, lang = cached(tl.token_paths, s.text, MAX_TOKENS), current_lang()
    tokens = paths.pieces.tokens
    with p.figure:
        left, right = st.columns(2)
        with left:
            bars = cached(figs.update_bars, paths, s.token, lang)
            widgets.show_figure(bars, key="tb_updates", alt=t("transformer_block.bars_alt"))
        with right:
            lines = cached(figs.cosine_lines, paths, s.token, lang)
            widgets.show_figure(lines, key="tb_cosines", alt=t("transformer_block.lines_alt"))
    with p.reading:
        st.markdown(figs.path_words(paths, s.token, tokens, lang))
        if paths.pieces.n_unknown:
            st.caption(t("transformer_block.unk_not_same"))
    box = t("transformer_block.path_numbers")
    p.table(box, figs.path_table, paths, s.token, tokens, lang, key="tb_path_table", filename="token_path.csv")
    p.formula(figs.PATH_TEX, tl.token_paths, tl.row_cosines)


@PAGE.step("rollout")
def rollout_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("transformer_block.rollout_body"))
    if not s.model:
        return
    with p.controls, page.section_controls():
        residual = C.residual.draw()
    view, lang = cached(tl.text_rollout, s.text, MAX_TOKENS, residual), current_lang()
    with p.figure:
        alt = t("transformer_block.rollout_alt", token=view.pieces.tokens[s.token])
        widgets.show_figure(cached(figs.rollout_map, view, s.token, lang), key="tb_rollout", alt=alt)
    with p.reading:
        st.markdown(figs.rollout_words(view, s.token, lang))
        if residual == 0.0:
            st.caption(t("transformer_block.no_residual"))
    box = t("transformer_block.rollout_numbers")
    p.table(box, figs.rollout_table, view, s.token, lang, key="tb_rollout_table", filename="rollout.csv")
    p.formula(figs.ROLLOUT_TEX, tl.attention_rollout)


@PAGE.step("explain")
def explain_step(p: page.Parts, s: Settings) -> None:
    p.prose(t("transformer_block.explain_body"))
    if not s.model:
        return
    with p.controls:
        mode, pair = C.mode.draw(), C.pair.draw()
        with page.section_controls():
            chosen = (C.off_layer.draw() - 1, C.off_head.draw() - 1)
    pair_text = pair if pair.strip() else None
    args = (s.text, pair_text, mode, ABLATION_MAX)
    try:
        if lookup(tl.head_ablation, *args)[0]:
            result = cached(tl.head_ablation, *args)
        else:
            with st.spinner(t("transformer_block.ablation_running")):
                result = cached(tl.head_ablation, *args)
    except ValueError:  # the second sentence cannot be read (a lone surrogate)
        st.info(t("transformer_block.pair_unreadable"), icon=":material/info:")
        result = cached(tl.head_ablation, s.text, None, mode, ABLATION_MAX)
    agreement, lang = cached(tl.ranking_agreement, result, TOP), current_lang()
    with p.figure:
        alt = t("transformer_block.scatter_alt", n=result.embedding_shift.size)
        widgets.show_figure(cached(figs.ablation_scatter, result, chosen, lang), key="tb_ablation", alt=alt)
    with p.reading:
        if result.pieces.truncated:
            st.caption(t("transformer_block.ablation_cut", kept=ABLATION_MAX, total=result.pieces.total_pieces))
        if pair_text is None:
            st.caption(t("transformer_block.no_pair"))
        st.markdown(figs.chosen_words(result, chosen, lang))
        st.markdown(figs.agreement_words(agreement, result, lang))
        st.caption(t("transformer_block.measured_here", T=result.pieces.n_pieces))
    box = t("transformer_block.explain_numbers")
    p.table(box, figs.ablation_table, result, lang, key="tb_explain_table", filename=f"heads_{mode}.csv")
    p.formula(figs.ABLATION_TEX, tl.ablated_embeddings, tl.head_peakedness, tl.ranking_agreement)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    if not s.model:
        return
    view = cached(tl.text_rollout, s.text, MAX_TOKENS, 0.5)  # the paper's residual share, whatever the slider says
    r, tokens = view.rollout, view.pieces.tokens
    own, answer = float(r.raw[0, s.token, s.token]), float(r.mixed[0, s.token, s.token])
    token = f"{literal(tokens[s.token])} ({s.token + 1})"
    with p.check:
        widgets.check_number(
            t("transformer_block.check_question", token=token, w=f"{own:.4f}"),
            answer,
            key=CHECK,
            explanation=t("transformer_block.check_explanation", w=f"{own:.4f}", answer=f"{answer:.4f}"),
        )


if __name__ == "__main__":
    PAGE.start().show(settings, pretrained.minilm_available())
