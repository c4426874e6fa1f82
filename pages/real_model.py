"""Inside a real model: the 72 attention maps (6 layers x 12 heads) of all-MiniLM-L6-v2 for one
sentence, one head up close, how much attention is parked on [CLS]/[SEP], and heads with a
recognisable job, all found by computation (attention_core.attention_views).

Steps (rm_step): grid, head, sink, jobs, check. The sentence, the [CLS]/[SEP] switch and the selected
layer and head are page-level: the grid outlines the head the close-up draws, the check asks about
it, and the sink and jobs steps' "show" buttons select it and turn to the close-up's step (on the
whole page it stands above them). The "find a head" pickers (rm_q, rm_k) are the jobs step's own.
Every step gets plain values and asks the cache for the view: no callback, widget or fragment holds
a computed result (issue 25: 7.6 GB for 200 students from a page whose callbacks did).
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import attention_views as av
from attention_core import pretrained
from attention_core.shipped import load_examples
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import real_model as figs
from lab_ui.figures.real_model import position_label
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture, is_whole_page

MAP_MAX = 64  # word pieces drawn in the large map: a 64 x 64 map is still readable on a projector
CLEAR_JOB = 0.5  # a head "does" a job when its share is at least this; below, the page says it is weak
PARKED = 0.5  # a head "parks" when a word gives more than this to [CLS]/[SEP], on average
OWN = "own"  # the sentence choice "my own text" (needs the optional model package)
# The shipped sentences' words only: the page keeps no arrays of its own (the core loads the maps).
EXAMPLE_TEXTS = {e.id: e.text for e in load_examples()}
DEFAULT_EX = av.ANIMAL_EXAMPLE
OWN_DEFAULT = "The trophy didn't fit into the suitcase because it was too big."
LONG_TEXT = (
    "The animal didn't cross the street because it was too tired. It lay down under an old oak tree near the "
    "river bank, where the water was quiet and the grass was soft. A girl who lived in a small house on the "
    "other side of the street saw it from her window, took a bowl of water and some bread, and walked slowly "
    "across the road so that she would not frighten it."
)
# all-MiniLM-L6-v2's 6 layers of 12 heads (Wang et al. 2020, MiniLM), read from the shipped maps
N_LAYERS, N_HEADS = cached(av.example_maps, DEFAULT_EX).maps.shape[:2]
ANCHORS = cached(av.find_anchors)  # the heads the presets and the defaults point at, found by computing
A_LAYER, A_HEAD, A_IT, A_NOUN = ANCHORS.animal


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    sentence = state.selectbox("rm_ex", "real_model.sentence", (*EXAMPLE_TEXTS, OWN), DEFAULT_EX)
    text = state.text("rm_text", "real_model.text", OWN_DEFAULT, help="real_model.text_help")
    hide = state.toggle("rm_hide", "real_model.hide", False, help="real_model.hide_help")
    layer = state.slider("rm_layer", "real_model.layer", 1, N_LAYERS, A_LAYER + 1, help="real_model.layer_help")
    head = state.slider("rm_head", "real_model.head", 1, N_HEADS, A_HEAD + 1, help="real_model.head_help")
    query = state.selectbox("rm_q", "real_model.find_query", (), A_IT, on="jobs")  # word positions, 0-based
    key = state.selectbox("rm_k", "real_model.find_key", (), A_NOUN, on="jobs")


C = Controls


def presets() -> list[state.Preset]:
    (s_layer, s_head, s_q, s_k), (p_layer, p_head) = ANCHORS.saw, ANCHORS.previous
    if pretrained.minilm_available():
        long = {C.sentence: OWN, C.text: LONG_TEXT}
    else:  # the longest shipped sentence, and which head says "it" is the street in it
        long = {C.sentence: ANCHORS.longest, **dict(zip((C.query, C.key), ANCHORS.longest_link or (), strict=False))}
    article = {C.sentence: av.ARTICLE_EXAMPLE, C.layer: s_layer + 1, C.head: s_head + 1, C.query: s_q, C.key: s_k}
    animal = {C.sentence: DEFAULT_EX, C.layer: A_LAYER + 1, C.head: A_HEAD + 1, C.query: A_IT, C.key: A_NOUN}
    return [
        state.Preset("real_model.preset_article", {**article, C.hide: False}),
        state.Preset("real_model.preset_long", {**long, C.layer: p_layer + 1, C.head: p_head + 1, C.hide: True}),
        state.Preset("real_model.preset_animal", {**animal, C.hide: False}),
    ]


PAGE = page.Page("real_model", Controls, presets=presets)
CHECK, NUMBER = PAGE.info.checks  # rm_check, rm_num: the check step's answers, never in the link


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives (plain values: a step asks the cache for the view)."""

    sentence: str  # an example's id, or OWN
    text: str  # the typed text, read when sentence is OWN ("" without the model package)
    hide: bool  # [CLS] and [SEP] hidden, each row re-normalised over the words
    layer: int  # the selected head's layer, 0-based
    head: int  # the selected head, 0-based


def source_of(s: Settings) -> av.ModelMaps:
    """The 72 maps of the chosen sentence: shipped, or the model on the typed text (the example
    sentence when the text cannot be read; the settings say why)."""
    if s.sentence != OWN:
        return cached(av.example_maps, s.sentence)
    return cached(av.read_text, s.text, OWN_DEFAULT).maps


def view_of(s: Settings) -> av.ModelView:
    """Everything the steps show for the settings: one core call, cached."""
    return cached(av.build_view, source_of(s), s.hide)


def settings(model: bool) -> Settings:
    """The page-level controls: the sentence, the [CLS]/[SEP] switch, the selected layer and head."""
    offered = [*EXAMPLE_TEXTS, OWN] if model else list(EXAMPLE_TEXTS)
    names = {**EXAMPLE_TEXTS, OWN: t("real_model.own_text")}
    sentence = C.sentence.draw(options=offered, format_func=names.get)
    text = ""
    if model:  # drawn even while an example is chosen, so that a preset can fill it and the link keep it
        text = C.text.draw(disabled=sentence != OWN)
    hide = C.hide.draw()
    with page.section_controls():
        layer = C.layer.draw()
        head = C.head.draw()
    if not model:
        st.caption(t("real_model.enable_free_text", n=len(EXAMPLE_TEXTS)))
    elif sentence == OWN and (problem := cached(av.read_text, text, OWN_DEFAULT).problem):
        words = {"empty": "common.empty_text", "no_words": "common.no_tokens", "unreadable": "real_model.unreadable"}
        st.info(t(words[problem], example=OWN_DEFAULT), icon=":material/info:")
    return Settings(sentence, text, hide, layer - 1, head - 1)


def parked(v: av.ModelView) -> int:
    """How many heads park more than PARKED of a word's attention on [CLS]/[SEP]."""
    return int((v.share > PARKED).sum())


def show_head(layer: int, head: int, step: int) -> None:
    """A "show" button's callback: select (layer, head), 0-based, before the sliders are drawn, and
    turn to step `step` (the close-up's; 0: stay, the whole page is on the screen)."""
    st.session_state[C.layer.key], st.session_state[C.head.key] = layer + 1, head + 1
    if step:
        st.session_state[PAGE.info.step_key] = step  # as the step bar's buttons do (lab_ui.page)


def show_button(label_key: str, layer: int, head: int, key: str, kind: str = "secondary") -> None:
    """A button that shows (layer, head) large: the close-up is another step, so the button says
    which and goes there; in whole-page mode the close-up stands above. Its arguments are numbers."""
    step = 0 if is_whole_page() and not is_lecture() else PAGE.info.step_names.index("head") + 1
    names = dict(layer=layer + 1, head=head + 1)
    label = t("real_model.show_head_step", step=step, **names) if step else t(label_key, **names)
    icon = ":material/visibility:"
    if st.button(label, key=key, on_click=show_head, args=(layer, head, step), icon=icon, type=kind):
        st.rerun()  # from inside the step's fragment: the settings and the step bar must follow


@PAGE.step("grid")
def grid_step(p: page.Parts, s: Settings) -> None:
    v, lang = view_of(s), current_lang()
    p.prose(t("real_model.grid_body"))
    with p.figure:
        alt = t("real_model.grid_alt", T=min(len(v.kept), figs.GRID_MAX), layer=s.layer + 1, head=s.head + 1)
        widgets.show_figure(cached(figs.model_grid, v, (s.layer, s.head), lang), key="rm_grid", alt=alt)
    limit = pretrained.load_minilm().max_tokens if v.truncated else 0
    with p.reading:
        st.caption(figs.grid_notes(v, lang, s.sentence != OWN, limit, parked(v), MAP_MAX))
        st.page_link("pages/transformer_block.py", label=t("real_model.block_link"), icon=":material/stacks:")
    p.table(t("real_model.grid_numbers"), figs.grid_table, v, lang, key="rm_grid_table", filename="all_heads.csv")


@PAGE.step("head")
def head_step(p: page.Parts, s: Settings) -> None:
    v, lang = view_of(s), current_lang()
    numbers = cached(av.head_numbers, v, s.layer, s.head, MAP_MAX)
    body, row_sums, notes = figs.head_words(numbers, v, s.layer, s.head, lang)
    p.prose(body)
    with p.figure:
        st.markdown(f"**{t('real_model.head_title', layer=s.layer + 1, head=s.head + 1)}**")  # names the map
        alt = t("real_model.head_alt", layer=s.layer + 1, head=s.head + 1, T=len(numbers.positions))
        fig = cached(figs.head_map, numbers, v, lang, is_lecture())
        widgets.show_figure(fig, key="rm_head_map", alt=alt, numbers_on_phones=False)
        if not is_lecture() and (css := figs.phone_keys_css("rm_head_map", numbers)):
            st.html(css)  # on a phone, fewer key labels: all of them stood in one clump
    with p.reading:
        st.markdown(row_sums)
        if notes:
            st.caption(notes)
    csv, caption = f"layer{s.layer + 1}_head{s.head + 1}.csv", t("real_model.head_table")
    box = t("real_model.head_numbers")
    p.table(box, figs.head_table, numbers, v, lang, key="rm_head_table", filename=csv, caption=caption)


@PAGE.step("sink")
def sink_step(p: page.Parts, s: Settings) -> None:
    v, lang = view_of(s), current_lang()
    p.prose(t("real_model.sink_body"))
    with p.figure:
        alt = t("real_model.share_alt", n=parked(v), total=v.share.size)
        widgets.show_figure(cached(figs.share_map, v, lang), key="rm_share", numbers_on_phones=False, alt=alt)
    with p.reading:
        st.markdown(figs.sink_words(v, parked(v), lang))
        show_button("real_model.show_parking", *v.top_park, "rm_go_park")
        st.page_link("pages/windows.py", label=t("real_model.windows_link"), icon=":material/view_week:")
    box = t("real_model.share_numbers")
    p.table(box, figs.share_table, v, lang, key="rm_share_table", filename="cls_sep_share.csv")
    p.formula(figs.LATEX_SHARE, av.special_share, av.hide_tokens)


def show_found(found: figs.Finding) -> None:
    """A head found doing something, in words, with a button that shows it large."""
    st.markdown(found.text)
    show_button("real_model.show_head", found.layer, found.head, found.key, "tertiary")


@PAGE.step("jobs")
def jobs_step(p: page.Parts, s: Settings) -> None:
    v, lang = view_of(s), current_lang()
    p.prose(t("real_model.jobs_body", page=t("multi_head.nav")))
    jobs, weak, apart = figs.job_findings(v, lang, CLEAR_JOB)
    with p.figure:  # the step's result: the head that does each job best
        for found in jobs:
            show_found(found)
        if weak:
            st.markdown(weak)
        if apart:  # one word in two contexts
            show_found(apart)
    with p.reading:  # which head links this word to that one most strongly?
        st.markdown(f"**{t('real_model.find_title')}**")
        words, tokens = list(av.word_positions(v)), v.tokens  # the pickers close over the tokens, not the view
        default_q, default_k = (A_IT, A_NOUN) if s.sentence == DEFAULT_EX else av.default_link(v)  # "it" -> "animal"
        with page.section_controls():
            q = C.query.draw(options=words, default=default_q, format_func=lambda i: position_label(i, tokens))
            k = C.key.draw(options=words, default=default_k, format_func=lambda i: position_label(i, tokens))
        link = cached(av.find_link, v, q, k)
        show_found(figs.Finding(figs.link_words(link, tokens, lang), link.layer, link.head, "rm_go_link"))
    p.formula(figs.LATEX_JOBS, av.pattern_shares, av.job_targets)  # the measure, after who does it


@PAGE.step("check")
def check_step(p: page.Parts, s: Settings) -> None:
    v = view_of(s)
    answers, tokens = cached(av.check_answers, v, s.layer, s.head), v.tokens  # the choice's words: tokens, not v
    words = figs.check_words(answers, tokens, s.layer, s.head, current_lang())
    with p.check:
        if answers.previous is not None:
            options = [str(o) for o in answers.options]
            page.choice_keep_valid(CHECK, ["", *options], "")
            widgets.check_choice(
                words["check_q"],
                options,
                str(answers.best),
                key=CHECK,
                format_func=lambda o: literal(position_label(int(o), tokens)),
                explanation=words["check_expl"],
            )
        widgets.check_number(
            words["number_q"], answers.parked, key=NUMBER, tolerance=0.01, explanation=words["number_expl"]
        )


if __name__ == "__main__":
    PAGE.start().show(settings, pretrained.minilm_available())
