"""Attention heatmaps: every query's weights over every key as one picture; a real model's heads or
random weights, masks, softmax or ReLU, temperature, and why speech models look only at a window.

Sections (lecture steps, hm_step): map, query, speech, check. What makes the weights (source,
sentence, d and seed or layer and head, τ, mask, window, normalisation) is page-level: the query
section shows a row of the same weights. The query picker (hm_q) and the speech section's seconds
and window (hm_sec, hm_sw) are their fragments' own.

Links. The page opens on the real model: random weights, the old default, invite reading meaning
into noise. Old links left hm_src out (it was the default), so a link with hm_ parameters and no
hm_src still opens with random weights; the page now always writes hm_src. An old hm_src=model link
without hm_layer / hm_head (layer 1, head 1) now opens at the default head, where "it" looks most
at "animal". A link's hm_text without hm_ex means that text, for either source.
"""

import streamlit as st

from attention_core import heatmap_views as hv
from attention_core import split_tokens
from attention_core.normalisation import attend, relu_weights, reweight
from attention_core.pretrained import INSTALL_COMMAND, minilm_available
from attention_core.shipped import load_examples
from attention_core.speech import frame_count, speech_cost, window_entries
from lab_ui import controls, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import heatmap as figures
from lab_ui.figures.heatmap import position_label
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture

MAX_TOKENS = 64  # the most tokens drawn: a 64 x 64 heatmap is still readable on a projector
TAUS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10)  # whole numbers as ints: the link reads tau=10
OWN = "own"  # the sentence choice "my own text"
EXAMPLES = {e.id: e for e in load_examples()}
ANIMAL = "animal_tired"
N_LAYERS, N_HEADS = EXAMPLES[ANIMAL].attentions.shape[:2]
A_LAYER, A_HEAD, A_IT = hv.strongest_link(EXAMPLES[ANIMAL].attentions, EXAMPLES[ANIMAL].tokens, "it", "animal")


def presets() -> dict[str, dict]:
    base = {"hm_mask": "none", "hm_norm": "softmax", "hm_tau": 1}
    model = {**base, "hm_src": "model", "hm_layer": A_LAYER, "hm_head": A_HEAD}
    return {
        "article": {**base, "hm_src": "random", "hm_ex": OWN, "hm_text": "I saw a saw", "hm_d": 4, "hm_q": 2},
        "long": {**base, "hm_src": "random", "hm_ex": OWN, "hm_text": t("heatmap.long_text"), "hm_q": 3},
        "causal": {**model, "hm_ex": ANIMAL, "hm_mask": "causal", "hm_q": 3},
        "local": {**model, "hm_ex": "bank_river", "hm_mask": "local", "hm_win": 2, "hm_q": 6},  # 15 tokens
        "animal": {**model, "hm_ex": ANIMAL, "hm_q": A_IT + 1},
    }


def named(prefix: str):  # a choice's label: the mask's option "causal" reads t("heatmap.mask_causal")
    return lambda option: t(f"heatmap.{prefix}_{option}")


def weight_controls(has_model: bool) -> dict:
    """The page-level settings: where the weights come from and how each row is normalised."""
    params = st.query_params  # old links, and a link's text (the module's docstring):
    old_link = "hm_src" not in params and any(k.startswith("hm_") and k != "hm_step" for k in params)
    if old_link and "hm_src" not in st.session_state:
        st.session_state["hm_src"] = "random"
    if "hm_ex" not in st.session_state and "hm_ex" not in params and "hm_text" in params:
        st.session_state["hm_ex"] = OWN
    source = controls.segmented(
        t("heatmap.source"),
        hv.SOURCES,
        key="hm_src",
        default="model",
        help=t("heatmap.source_help"),
        format_func=named("source"),
    )
    if st.query_params.get("hm_src") != source:
        st.query_params["hm_src"] = source  # always in the link: a link without it is an old one
    sentences = [OWN, *EXAMPLES] if source == "random" or has_model else list(EXAMPLES)
    default = OWN if source == "random" else ANIMAL
    page.choice_keep_valid("hm_ex", sentences, default)
    choice = controls.selectbox(t("heatmap.sentence"), sentences, key="hm_ex", default=default, format_func=named("ex"))
    example = t("heatmap.default_text")  # in the page's language: Chinese on the Chinese page
    # Drawn even while an example is chosen, so that a link keeps the text and a preset can fill it.
    text = controls.text_input(
        t("heatmap.text"), example, key="hm_text", disabled=choice != OWN, help=t("heatmap.text_help")
    )
    if source == "model" and not has_model:
        note = "text_needs_model" if text != example else "shipped_only"
        st.caption(t(f"heatmap.{note}", n=len(EXAMPLES), command=INSTALL_COMMAND))
    if choice == OWN and not split_tokens(text):
        st.info(t("common.no_tokens" if text.strip() else "common.empty_text", example=example), icon=":material/info:")
        text = example
    c1, c2 = st.columns(2)
    if source == "random":
        with c1:
            size = dict(d=controls.slider(t("heatmap.d"), 1, 64, 8, key="hm_d", help=t("heatmap.d_help")))
        with c2:
            size["seed"] = widgets.seed_input(key="hm_seed")
    else:
        with c1:
            size = dict(
                layer=controls.slider(
                    t("heatmap.layer"), 1, N_LAYERS, A_LAYER, key="hm_layer", help=t("heatmap.layer_help")
                )
            )
        with c2:
            size["head"] = controls.slider(
                t("heatmap.head"), 1, N_HEADS, A_HEAD, key="hm_head", help=t("heatmap.head_help")
            )
    tau = controls.select_slider(t("heatmap.tau"), TAUS, 1, key="hm_tau", help=t("heatmap.tau_help"))
    mask = controls.segmented(
        t("heatmap.mask"), hv.MASKS, key="hm_mask", format_func=named("mask"), help=t("heatmap.mask_help")
    )
    window = 2
    if mask == "local":
        window = controls.slider(t("heatmap.window"), 0, 32, 2, key="hm_win", help=t("heatmap.window_help"))
    norm = controls.segmented(
        t("heatmap.norm"),
        ("softmax", "relu"),
        key="hm_norm",
        help=t("heatmap.norm_help"),
        format_func=named("norm"),
        disabled=not (has_model or source == "random"),
    )
    return dict(source=source, choice=choice, text=text, mask=mask, window=window, tau=tau, norm=norm, **size)


def compute_view(s: dict, has_model: bool) -> hv.HeatmapView:
    """The weights for the settings: one core call, cached."""
    text = s["text"] if s["choice"] == OWN else EXAMPLES[s["choice"]].text
    rows = (s["mask"], s["window"], s["tau"])
    if s["source"] == "random":
        return cached(hv.random_view, tuple(split_tokens(text)), s["d"], s["seed"], *rows, s["norm"], MAX_TOKENS)
    if not has_model:  # the shipped example's stored weights (the sentence picker offers only those)
        e = EXAMPLES[s["choice"]]
        return cached(hv.shipped_view, e.tokens, e.attentions, s["layer"], s["head"], *rows)
    try:
        heads = cached(hv.model_heads, text, MAX_TOKENS)
    except ValueError:  # a lone surrogate: the only text the tokenizer cannot read
        st.info(t("heatmap.unreadable", example=EXAMPLES[ANIMAL].text), icon=":material/info:")
        heads = cached(hv.model_heads, EXAMPLES[ANIMAL].text, MAX_TOKENS)
    return cached(hv.model_view, heads, s["layer"], s["head"], *rows, s["norm"])


def map_section(view: hv.HeatmapView, s: dict, area) -> None:
    with area:
        words, figure = page.parts(2)
        with words:
            page.prose(t("heatmap.map_body"))
        with figure:
            if s["norm"] == "relu" and view.normalisation != "relu":
                st.info(t("heatmap.relu_unavailable"), icon=":material/info:")
            fig = cached(figures.weights_heatmap, view, lang, is_lecture())
            widgets.show_figure(
                fig,
                key="heatmap_weights",
                alt=t("heatmap.heatmap_alt", n=len(view.tokens)),
                numbers_on_phones=len(view.tokens) <= figures.CELL_TEXT_PHONE_MAX,
                lecture_px=figures.LECTURE_MAP_MAX_PX,
            )
            if css := figures.phone_ticks_css("heatmap_weights", len(view.tokens)):
                st.html(css)  # on a phone, fewer key labels: slanted, they touched
            if view.source == "random":
                st.caption(t("heatmap.random_caption"))
        st.markdown(figures.row_sums_text(view, lang))
        st.caption("\n\n".join(figures.notes(view, lang)))
    if box := page.numbers_box("hm_table_box", t("heatmap.table_box")):
        with box:
            widgets.show_table(
                figures.weights_table(view, lang),
                key="heatmap_table",
                filename="attention_weights.csv",
                caption=t("heatmap.table_caption"),
                missing=t("heatmap.masked_cell"),
            )
    st.caption(t("heatmap.formula_caption"))
    if view.source != "random":
        st.markdown(t("heatmap.fact"))
    if view.source == "shipped":
        widgets.formula_and_code(figures.LATEX["shipped"], reweight)
    else:
        relu = view.normalisation == "relu"
        widgets.formula_and_code(figures.LATEX[view.normalisation], attend, *([relu_weights] if relu else []))


@st.fragment
def query_section(view, default_q: int) -> None:
    frame.heading("query")
    words, figure = page.parts(2)  # in lecture mode the figures first, the words and the picker under them
    T = len(view.tokens)
    with words:
        page.prose(t("heatmap.query_body"))
        page.choice_keep_valid("hm_q", list(range(1, T + 1)), default_q)
        i = controls.selectbox(
            t("heatmap.pick_query"),
            list(range(1, T + 1)),
            key="hm_q",
            default=default_q,
            format_func=lambda j: position_label(j, view.tokens[j - 1]),
        )
    row, name = cached(hv.query_row, view, i - 1), position_label(i, view.tokens[i - 1])
    with figure:
        left, right = st.columns(2)
    with left:
        widgets.show_figure(
            cached(figures.row_bars, view, row, lang, is_lecture()),
            key="heatmap_row",
            alt=t("heatmap.row_alt", query=name),
        )
        best = literal(position_label(row.best + 1, view.tokens[row.best]))
        st.markdown(
            t(
                "heatmap.row_summary",
                weight=f"{row.weights[row.best]:.3f}",
                best=best,
                total=f"{row.total:.3f}",
                tau=view.temperature,
            )
        )
    with right:
        if row.terms is None:
            st.info(t("heatmap.no_values", command=INSTALL_COMMAND), icon=":material/info:")
        else:
            widgets.show_figure(
                cached(figures.weighted_sum, view, row, lang, is_lecture()),
                key="heatmap_output",
                alt=t("heatmap.sum_alt", i=i, d=row.terms.shape[1]),
                lecture_px=figures.LECTURE_MAP_MAX_PX,
            )
            st.caption(t("heatmap.sum_caption", i=i))


@st.fragment
def speech_section() -> None:
    frame.heading("speech")
    words, figure = page.parts(2)
    with words:
        page.prose(t("heatmap.speech_body"))
        with page.section_controls():
            seconds = controls.slider(t("heatmap.speech_seconds_control"), 1, 120, 10, key="hm_sec")
            w = controls.slider(
                t("heatmap.speech_window_control"), 1, 50, 8, key="hm_sw", help=t("heatmap.speech_window_help")
            )
    c = cached(speech_cost, seconds, w)
    with figure:
        left, right = st.columns(2)
    with left:
        alt = t(
            "heatmap.speech_cost_alt",
            w=w,
            seconds=seconds,
            full=f"{c.full_entries:,}",
            windowed=f"{c.window_entries:,}",
        )
        widgets.show_figure(cached(figures.speech_cost, c, lang, is_lecture()), key="heatmap_speech_cost", alt=alt)
    with right:
        widgets.show_figure(
            cached(figures.speech_mask, c, lang, is_lecture()),
            key="heatmap_speech_mask",
            alt=t("heatmap.speech_mask_alt", n=c.mask.shape[0], keys=2 * w + 1),
        )
    st.markdown(figures.speech_text(c, lang))
    if box := page.numbers_box("hm_speech_box", t("heatmap.speech_numbers_box")):
        with box:
            widgets.show_table(
                figures.speech_table(c, lang),
                key="heatmap_speech_table",
                filename="speech_cost.csv",
                caption=t("heatmap.speech_table"),
                decimals=1,
            )
    widgets.formula_and_code(figures.LATEX["speech"], frame_count, window_entries)


@st.fragment
def check_section(tokens: tuple[str, ...]) -> None:
    frame.heading("check")
    c = hv.causal_check(len(tokens), 3)
    seen = [str(j) if c.hypothetical else position_label(j, tokens[j - 1]) for j in c.seen]
    widgets.check_choice(
        t("heatmap.check_question", k=c.k),
        ["only_self", "up_to", "from_on", "all"],
        "up_to",
        key="hm_check",
        format_func=lambda o: t(f"heatmap.check_{o}", k=c.k, T=c.T),
        explanation=t("heatmap.check_explanation", k=c.k, seen=literal(", ".join(seen))),
    )


frame = page.start("heatmap", presets=presets())
lang, has_model = current_lang(), minilm_available()
if is_lecture():  # the settings in the title row's popover; the map section below
    panel, area = frame.controls(), st.container()
else:  # the settings beside the map, so both fit one screen
    frame.heading("map")
    panel, area = st.columns([2, 3], gap="medium")
with panel:
    settings = weight_controls(has_model)
view = compute_view(settings, has_model)
if frame.shows("map"):
    map_section(view, settings, area)
if frame.shows("query"):
    animal = (settings["source"], settings["choice"]) == ("model", ANIMAL)
    query_section(view, A_IT + 1 if animal else min(3, len(view.tokens)))  # "it" in "it -> animal"
if frame.shows("speech"):
    speech_section()
if frame.shows("check"):
    check_section(view.tokens)

frame.end()
