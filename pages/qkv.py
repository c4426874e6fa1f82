"""Q, K, V step by step (查询、键、值): the source articles' walkthrough of self-attention for one
output b_i, with the real numbers and the shape of every matrix, then the same in matrix form, the
additive (tanh) scoring beside the dot product, and dropout on the weights while training.

Steps (qkv_step): tokens, weights, qkv, check, scores, softmax, output, matrix, additive, dropout;
step n is qkv_step=n in links made before steps (dropout came last, so no old link moved). The
sentence, d_model, d_k, the seed, the weights (random or typed) and the followed query are
page-level; dropout's p, training switch and mask seed are the dropout step's own. Until the check
is answered (or its answer shown), the later steps write the numbers that equal it as "?".
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import steps
from attention_core.dropout import attention_dropout
from lab_ui import matrices, page, state, walkthrough, widgets
from lab_ui.cache import cached
from lab_ui.figures import qkv as fq
from lab_ui.i18n import current_lang, literal, t

DEFAULT_TEXT = "I saw a saw"  # article 001's own example: two "saw"s, one word, two meanings
DEFAULT_SEED = 3  # with this seed, token 1 of the default sentence attends clearly to one key
MAX_TOKENS, D_MAX = 16, 8
DROPOUT_SEED = 16  # with p = 0.1, this mask drops the default row's largest weight (key 3, "a"): the output moves
SOURCES = state.labels("qkv.w_", "random", "typed")
LONG = "the animal did not cross the street because it was too tired to walk any further"


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    text = state.text("qkv_text", "qkv.sentence", DEFAULT_TEXT, help="qkv.sentence_help")
    d_model = state.slider("qkv_dm", "qkv.d_model", 1, D_MAX, 3, help="qkv.d_model_help")
    d_k = state.slider("qkv_dk", "qkv.d_k", 1, D_MAX, 2, help="qkv.d_k_help")
    seed = state.seed("qkv_seed", DEFAULT_SEED)
    source = state.choice("qkv_w", "qkv.w_source", SOURCES, help="qkv.w_source_help")
    # The typed matrices, as the link writes them (fq.matrix_to_text); drawn as grids, not text boxes.
    wq = state.text("qkv_wq", "qkv.w_grid", "")
    wk = state.text("qkv_wk", "qkv.w_grid", "")
    wv = state.text("qkv_wv", "qkv.w_grid", "")
    query = state.Control("qkv_q", "choice", "qkv.query", 1, help="qkv.query_help")  # the tokens 1..T, at run time
    p = state.slider("qkv_p", "qkv.dropout_p", 0.0, 0.9, 0.1, step=0.05, on="dropout", help="qkv.dropout_p_help")
    training = state.toggle("qkv_train", "qkv.dropout_train", True, on="dropout", help="qkv.dropout_train_help")
    mask_seed = state.seed("qkv_dseed", DROPOUT_SEED, on="dropout")


C = Controls
GRIDS = (("W_q", C.wq), ("W_k", C.wk), ("W_v", C.wv))
ARTICLE = {C.text: DEFAULT_TEXT, C.d_model: 3, C.d_k: 2, C.seed: DEFAULT_SEED, C.source: "random", C.query: 1}
# W_q = W_k = 2·identity: a score is twice the similarity of two inputs, so "saw" finds both "saw"s.
MATCH = {C.d_model: 4, C.d_k: 4, C.seed: 0, C.source: "typed", C.query: 2}
MATCH |= {C.wq: fq.matrix_to_text(fq.eye_matrix(4, 2.0)), C.wk: fq.matrix_to_text(fq.eye_matrix(4, 2.0))}
MATCH |= {C.wv: fq.matrix_to_text(fq.eye_matrix(4))}
PAGE = page.Page(
    "qkv",
    Controls,
    presets=(
        state.Preset("qkv.preset_article", ARTICLE),
        state.Preset("qkv.preset_long", {**ARTICLE, C.text: LONG, C.d_model: 8, C.d_k: 4, C.query: 9}),
        state.Preset("qkv.preset_match", {**ARTICLE, **MATCH}),
        state.Preset("qkv.preset_chars", {**ARTICLE, C.text: "机器学习", C.d_model: 4}),
    ),
)
(CHECK,) = PAGE.info.checks
LOCK = walkthrough.Lock(CHECK, PAGE.info.step_key, PAGE.info.step_names.index("check") + 1)


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives (plain values: a step asks the cache for the walk)."""

    tokens: tuple[str, ...]  # the sentence's tokens, at most MAX_TOKENS
    d_model: int
    d_k: int
    seed: int
    typed: tuple | None  # W_q, W_k, W_v typed by hand (nested tuples), or None: the seed's
    i: int  # the followed query, 0-based


def settings() -> Settings:
    tokens = widgets.sentence_tokens(
        t(C.text.label), C.text.default, key=C.text.key, max_tokens=MAX_TOKENS, help=t("qkv.sentence_help")
    )
    with page.section_controls():
        d_model, d_k, seed = C.d_model.draw(), C.d_k.draw(), C.seed.draw()
    source = C.source.draw(help=t("qkv.w_source_help", max=fq.TYPED_MAX))
    typed = matrices.typed_weights(GRIDS, source, d_model, d_k, seed)
    T = len(tokens)
    words = {j: f"{j} · {literal(fq.short(tokens[j - 1]))}" for j in range(1, T + 1)}
    page.choice_keep_valid(C.query.key, list(words), T)  # a shorter sentence: the last token, not the first
    query = C.query.draw(options=list(words), format_func=words.get)
    return Settings(tuple(tokens), d_model, d_k, seed, typed, min(query, T) - 1)


def walk(s: Settings) -> steps.QKVWalkthrough:
    try:
        return cached(steps.sentence_walkthrough, s.tokens, s.d_model, s.d_k, s.seed, s.i, s.typed)
    except ValueError as error:
        widgets.friendly_error(error)
        st.stop()


@PAGE.step("tokens")
def tokens_step(p: page.Parts, s: Settings) -> None:
    r = walk(s)
    p.prose(t("qkv.tokens_body", T=len(s.tokens), d_model=s.d_model))
    with p.figure:
        matrices.tokens(r)
    with p.reading:
        lang = current_lang()
        widgets.show_figure(cached(fq.tokens_map, r, lang), key="qkv_tokens", alt=t("qkv.alt_tokens", T=len(s.tokens)))
        if r.repeats:
            st.info(fq.repeated_md(r, lang), icon=":material/content_copy:")


@PAGE.step("weights")
def weights_step(p: page.Parts, s: Settings) -> None:
    r = walk(s)
    p.prose(t("qkv.weights_body", d_model=s.d_model, d_k=s.d_k))
    with p.figure:
        matrices.rows("weights", *cached(fq.weights_rows, r))
    with p.reading:
        st.caption(t("qkv.weights_random", seed=s.seed) if r.random_weights else t("qkv.weights_typed"))


@PAGE.step("qkv")
def qkv_step(p: page.Parts, s: Settings) -> None:
    r, lang = walk(s), current_lang()
    product, three = cached(fq.qkv_rows, r)
    p.prose(t("qkv.qkv_body", T=len(s.tokens), d_model=s.d_model, d_k=s.d_k))
    with p.figure:
        matrices.rows("qkv", product)
    with p.reading:
        st.markdown(cached(fq.entry_md, r, lang))
        matrices.rows("three", three)
        if r.random_weights:
            st.caption(t("qkv.qkv_random"))
        st.info(t("qkv.rows_vs_columns"), icon=":material/swap_horiz:")
    walkthrough.numbers(p, fq.qkv_table, r, lang)
    p.formula(fq.FORMULAS["qkv"], steps.project)


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    """α_{1,j} by hand. Typing reruns this step alone; on the whole page, where the steps that hide
    its answer stand below, a change of what they must hide reruns the page."""
    c, lang = walk(s).check, current_lang()
    with p.check:
        question, why = fq.check_question_md(c, lang), fq.check_md(c, lang)
        widgets.check_number(question, c.answer, key=CHECK, tolerance=c.tolerance, explanation=why)
        LOCK.under_check(c)


@PAGE.step("scores")
def scores_step(p: page.Parts, s: Settings) -> None:
    r, lang = walk(s), current_lang()
    hide_answer = LOCK.locked(r.check)
    hide = steps.gives_away(r.query.alpha, r.check.answer) & hide_answer  # [T]
    p.prose(t("qkv.scores_body", i=s.i + 1, token=fq.token_md(s.tokens, s.i)))
    with p.figure:
        matrices.rows("scores", *cached(fq.scores_rows, r))
    with p.reading:
        st.markdown(cached(fq.dot_md, r, hide_answer, lang))
        LOCK.notice(p, r.check, bool(hide.any()))
        widgets.article_mistake(fq.seed_mistake_md(r, lang))
    walkthrough.numbers(p, fq.products_table, r, lang, hide)
    p.formula(fq.FORMULAS["scores"], steps.dot_scores)


@PAGE.step("softmax")
def softmax_step(p: page.Parts, s: Settings) -> None:
    r, lang = walk(s), current_lang()
    hide = steps.gives_away(r.query.alpha, r.check.answer) & LOCK.locked(r.check)  # [T]
    p.prose(t("qkv.softmax_body", d_k=s.d_k))
    with p.figure:
        walkthrough.scores(r, lang, bool(hide.any()))
    with p.reading:
        st.markdown(cached(fq.softmax_md, r, lang))
        LOCK.notice(p, r.check, bool(hide.any()))
        widgets.article_mistake(t("qkv.softmax_mistake"))
    walkthrough.numbers(p, fq.softmax_table, r, lang, hide)
    p.formula(fq.FORMULAS["softmax"], steps.scaled_softmax)


@PAGE.step("output")
def output_step(p: page.Parts, s: Settings) -> None:
    r, lang = walk(s), current_lang()
    p.prose(t("qkv.output_body", i=s.i + 1))
    with p.figure:
        widgets.show_figure(cached(fq.sum_figure, r, lang), key="qkv_sum", alt=t("qkv.alt_sum", i=s.i + 1))
    with p.reading:
        st.markdown(cached(fq.sum_md, r, lang))
    walkthrough.numbers(p, fq.sum_table, r, lang)
    p.formula(fq.FORMULAS["output"], steps.weighted_sum)


@PAGE.step("matrix")
def matrix_step(p: page.Parts, s: Settings) -> None:
    r, lang, T = walk(s), current_lang(), len(s.tokens)
    hide_answer = LOCK.locked(r.check)
    p.prose(t("qkv.matrix_body", T=T, d_k=s.d_k))
    with p.figure:
        matrices.all_queries(r, hide_answer, lang)
    with p.reading:
        st.markdown(fq.agrees_md(r, PAGE.info.step_names, lang))
        LOCK.notice(p, r.check, T <= matrices.SQUARE_MAX and LOCK.hides(r.check, r.matrix.scores))
        if r.repeats:
            st.info(fq.repeated_md(r, lang, output=True), icon=":material/content_copy:")
    walkthrough.numbers(p, fq.weights_table, r, lang)
    p.formula(fq.FORMULAS["matrix"], steps.matrix_form)


@PAGE.step("additive")
def additive_step(p: page.Parts, s: Settings) -> None:
    r, lang = walk(s), current_lang()
    hide = LOCK.hides(r.check, r.query.alpha[r.check.j])
    p.prose(t("qkv.additive_body"))
    with p.figure:
        walkthrough.dot_vs_additive(r, lang)
    with p.reading:
        st.markdown(cached(fq.compare_md, r, lang, hide))
        widgets.article_mistake(t("qkv.attn_mistake"), t("qkv.attn_mistake_code"))
    walkthrough.numbers(p, fq.both_table, r, lang)
    p.formula(fq.FORMULAS["additive"], steps.additive_scores)


@PAGE.step("dropout")
def dropout_step(p: page.Parts, s: Settings) -> None:
    r, lang = walk(s), current_lang()
    p.prose(t("qkv.dropout_body", i=s.i + 1))
    with p.controls, page.section_controls():
        drop, training, mask_seed = C.p.draw(), C.training.draw(), C.mask_seed.draw()
    d = cached(attention_dropout, r.query.alpha_prime, drop, mask_seed, training, r.V)
    with p.figure:
        walkthrough.dropout(d, s.tokens, s.i, lang)
    with p.reading:
        st.markdown(fq.dropout_md(d, s.tokens, lang))
        widgets.article_mistake(t("qkv.code_mistake"), t("qkv.code_mistake_code"))
    walkthrough.numbers(p, fq.dropout_table, d, s.tokens, lang)
    p.formula(fq.FORMULAS["dropout"], attention_dropout)


if __name__ == "__main__":  # Streamlit runs the script as __main__; tests import it for its declaration
    for old in ("qkv_check", "qkv_check_show", "qkv_tables"):  # older links: the check's answer, the tables switch
        st.query_params.pop(old, None)
    frame = PAGE.start()
    st.html(fq.PAGE_CSS)
    frame.show(settings)
