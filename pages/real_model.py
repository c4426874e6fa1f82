"""Inside a real model: the 72 attention maps (6 layers x 12 heads) of all-MiniLM-L6-v2 for one
sentence, one head up close, how much attention is parked on [CLS]/[SEP], and heads with a
recognisable job, all found by computation (attention_core.attention_views).

Sections (lecture steps, rm_step): grid, head, sink, jobs, check. The sentence, the [CLS]/[SEP]
switch and the selected layer and head are page-level: the grid outlines the head that the
close-up draws, the check asks about it, and the sink and jobs sections' "show" buttons select
it (in lecture mode, one step at a time, they also go to the close-up's step). The "find a head"
pickers (rm_q, rm_k) are the jobs section's own (a fragment); the checks' answers are the check
section's (a fragment).
"""

import streamlit as st

from attention_core import attention_views as av
from attention_core.pretrained import load_minilm, minilm_available
from attention_core.shipped import load_examples
from lab_ui import controls, page, registry, widgets
from lab_ui.cache import cached
from lab_ui.figures import real_model as figs
from lab_ui.figures.real_model import position_label, position_number
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture

MAP_MAX = 64  # word pieces drawn in the large map: a 64 x 64 map is still readable on a projector
CLEAR_JOB = 0.5  # a head "does" a job when its share is at least this; below, the page says it is weak
PARKED = 0.5  # a head "parks" when a word gives more than this to [CLS]/[SEP], on average
OWN = "own"  # the sentence choice "my own text" (needs the optional model package)
EXAMPLES = {e.id: e for e in load_examples()}
DEFAULT_EX = av.ANIMAL_EXAMPLE
OWN_DEFAULT = "The trophy didn't fit into the suitcase because it was too big."
LONG_TEXT = (
    "The animal didn't cross the street because it was too tired. It lay down under an old oak tree near the "
    "river bank, where the water was quiet and the grass was soft. A girl who lived in a small house on the "
    "other side of the street saw it from her window, took a bowl of water and some bread, and walked slowly "
    "across the road so that she would not frighten it."
)
STEP_KEY = registry.info("real_model").step_key  # the lecture step, in the link and the session: rm_step
N_LAYERS, N_HEADS = EXAMPLES[DEFAULT_EX].attentions.shape[:2]
ANCHORS = cached(av.find_anchors)  # the heads the presets and the defaults point at, found by computing
A_LAYER, A_HEAD, A_IT, A_NOUN = ANCHORS.animal


def presets(available: bool) -> dict[str, dict]:
    (s_layer, s_head, s_q, s_k), (p_layer, p_head) = ANCHORS.saw, ANCHORS.previous
    long_link = dict(zip(("rm_q", "rm_k"), ANCHORS.longest_link or (), strict=False))
    long = {"rm_ex": OWN, "rm_text": LONG_TEXT} if available else {"rm_ex": ANCHORS.longest, **long_link}
    return {
        "article": {
            "rm_ex": av.ARTICLE_EXAMPLE,
            "rm_layer": s_layer + 1,
            "rm_head": s_head + 1,
            "rm_hide": False,
            "rm_q": s_q,
            "rm_k": s_k,
        },
        "long": {**long, "rm_layer": p_layer + 1, "rm_head": p_head + 1, "rm_hide": True},
        "animal": {
            "rm_ex": DEFAULT_EX,
            "rm_layer": A_LAYER + 1,
            "rm_head": A_HEAD + 1,
            "rm_hide": False,
            "rm_q": A_IT,
            "rm_k": A_NOUN,
        },
    }


def show_head(layer: int, head: int, step: int = 0) -> None:
    """A "show" button's callback: select (layer, head), 0-based, before the sliders are drawn; and
    go to lecture step `step` (the close-up's) unless it is 0."""
    st.session_state["rm_layer"], st.session_state["rm_head"] = layer + 1, head + 1
    if step:
        st.session_state[STEP_KEY] = step  # as the step bar's buttons do (lab_ui.page)


def show_button(label_key: str, layer: int, head: int, key: str, kind: str = "secondary") -> bool:
    """A button that shows (layer, head) large: in the close-up above it; in lecture mode, where one
    step is on the screen, the close-up is another step, so the button says so and goes there."""
    step = frame.number("head") if is_lecture() else 0
    names = dict(layer=layer + 1, head=head + 1)
    label = t("real_model.show_head_step", step=step, **names) if step else t(label_key, **names)
    return st.button(
        label, key=key, on_click=show_head, args=(layer, head, step), icon=":material/visibility:", type=kind
    )


def job_line(text: str, layer: int, head: int, key: str) -> None:
    """A finding in words, with a button that shows its head large (the whole page reruns: the
    selected head is page-level)."""
    st.markdown(text)
    if show_button("real_model.show_head", layer, head, key, "tertiary"):
        st.rerun()  # from inside a fragment: the grid and the close-up must follow


def model_controls(available: bool) -> dict:
    """The page-level settings: the sentence, the [CLS]/[SEP] switch, the selected layer and head."""
    sentences = [*EXAMPLES, OWN] if available else list(EXAMPLES)
    name = {**{k: e.text for k, e in EXAMPLES.items()}, OWN: t("real_model.own_text")}
    choice = controls.selectbox(
        t("real_model.sentence"), sentences, key="rm_ex", default=DEFAULT_EX, format_func=name.get
    )
    text = ""
    if available:  # drawn even while an example is chosen, so that a preset can fill it and the link keep it
        text = controls.text_input(
            t("real_model.text"), OWN_DEFAULT, key="rm_text", disabled=choice != OWN, help=t("real_model.text_help")
        )
    hide = controls.toggle(t("real_model.hide"), False, key="rm_hide", help=t("real_model.hide_help"))
    c_layer, c_head = st.columns(2)
    with c_layer:
        layer = controls.slider(
            t("real_model.layer"), 1, N_LAYERS, A_LAYER + 1, key="rm_layer", help=t("real_model.layer_help")
        )
    with c_head:
        head = controls.slider(
            t("real_model.head"), 1, N_HEADS, A_HEAD + 1, key="rm_head", help=t("real_model.head_help")
        )
    if not available:
        st.caption(t("real_model.enable_free_text", n=len(EXAMPLES)))
    return dict(choice=choice, text=text, hide=hide, layer=layer - 1, head=head - 1)


def source_maps(choice: str, text: str) -> av.ModelMaps:
    """The 72 maps of the chosen sentence: shipped, or the model on the typed text (the example
    sentence, with a message, when the text is empty or unreadable)."""
    if choice != OWN:
        return cached(av.example_maps, choice)
    reading = cached(av.read_text, text, OWN_DEFAULT)
    if reading.problem:
        key = {"empty": "common.empty_text", "no_words": "common.no_tokens"}.get(
            reading.problem, "real_model.unreadable"
        )
        st.info(t(key, example=OWN_DEFAULT), icon=":material/info:")
    return reading.maps


def grid_section(v: av.ModelView, layer: int, head: int) -> None:
    frame.heading("grid")
    words, figure = page.parts(2)
    n_grid = min(len(v.kept), figs.GRID_MAX)
    with words:
        page.prose(t("real_model.grid_body"))
    with figure:
        widgets.show_figure(
            cached(figs.model_grid, v, (layer, head), lang, is_lecture()),
            key="rm_grid",
            alt=t("real_model.grid_alt", T=n_grid, layer=layer + 1, head=head + 1),
        )
    limit = load_minilm().max_tokens if v.truncated else 0
    st.caption(figs.grid_notes(v, lang, choice != OWN, limit, parking, MAP_MAX))
    if box := page.numbers_box("rm_num_grid", t("real_model.grid_numbers")):
        with box:
            widgets.show_table(figs.grid_table(v, lang), key="rm_grid_table", filename="all_heads.csv")


def head_section(v: av.ModelView, layer: int, head: int) -> None:
    frame.heading("head")
    st.markdown(f"**{t('real_model.head_title', layer=layer + 1, head=head + 1)}**")  # above the map, lecture too
    words, figure = page.parts(2)
    numbers = cached(av.head_numbers, v, layer, head, MAP_MAX)
    body, row_sums, notes = figs.head_words(numbers, v, layer, head, lang)
    with words:
        page.prose(body)
    with figure:
        alt = t("real_model.head_alt", layer=layer + 1, head=head + 1, T=len(numbers.positions))
        widgets.show_figure(
            cached(figs.head_map, numbers, v, lang, is_lecture()), key="rm_head_map", alt=alt, numbers_on_phones=False
        )
        if not is_lecture() and (css := figs.phone_keys_css("rm_head_map", numbers)):
            st.html(css)  # on a phone, fewer key labels: all of them stood in one clump
    st.markdown(row_sums)
    if notes:
        st.caption(notes)
    if box := page.numbers_box("rm_num_head", t("real_model.head_numbers")):
        with box:
            widgets.show_table(
                figs.head_table(numbers, v, lang),
                key="rm_head_table",
                filename=f"layer{layer + 1}_head{head + 1}.csv",
                caption=t("real_model.head_table"),
            )


def sink_section(v: av.ModelView) -> None:
    frame.heading("sink")
    words, figure = page.parts(2)
    top_l, top_h = v.top_park
    with words:
        page.prose(t("real_model.sink_body"))
        st.markdown(
            t(
                "real_model.sink_numbers",
                n=parking,
                total=v.share.size,
                mean=f"{v.share.mean():.0%}",
                layer=top_l + 1,
                head=top_h + 1,
                top=f"{v.share[top_l, top_h]:.0%}",
            )
        )
    with figure:
        widgets.show_figure(
            cached(figs.share_map, v, lang, is_lecture()),
            key="rm_share",
            numbers_on_phones=False,
            alt=t("real_model.share_alt", n=parking, total=v.share.size),
        )
    show_button("real_model.show_parking", top_l, top_h, "rm_go_park")
    if box := page.numbers_box("rm_num_share", t("real_model.share_numbers")):
        with box:
            widgets.show_table(figs.share_table(v, lang), key="rm_share_table", filename="cls_sep_share.csv")
    widgets.formula_and_code(figs.LATEX_SHARE, av.special_share, av.hide_tokens)


@st.fragment
def jobs_section(v: av.ModelView, animal: bool) -> None:
    frame.heading("jobs")
    words, measure, found = page.parts(3)  # in lecture mode the heads found first, the formula and code after
    with words:
        page.prose(t("real_model.jobs_body", page=t("multi_head.nav")))
    with measure:
        widgets.formula_and_code(figs.LATEX_JOBS, av.pattern_shares, av.job_targets)  # the measure, then who does it
    with found:
        jobs_found(v, animal)


def jobs_found(v: av.ModelView, animal: bool) -> None:
    """The jobs section's results: the head that does each job best, and the "find a head" pickers."""
    weak = []
    for job in v.jobs:
        found = t(f"real_model.found_{job.pattern}", layer=job.layer + 1, head=job.head + 1, share=f"{job.share:.2f}")
        if job.share >= CLEAR_JOB:
            job_line(found, job.layer, job.head, f"rm_go_{job.pattern}")
        else:  # no button for a job nobody does
            weak.append(t("real_model.weak_job", found=found, clear=f"{CLEAR_JOB:.2f}"))
    if weak:
        st.markdown("\n\n".join(weak))
    if (a := v.apart) is not None:
        token = literal(v.tokens[a.first])
        i, j = position_number(a.first), position_number(a.second)  # counted from 1, as the labels are
        job_line(
            t(
                "real_model.found_apart",
                token=token,
                i=i,
                j=j,
                layer=a.layer + 1,
                head=a.head + 1,
                apart=f"{a.distance:.2f}",
            ),
            a.layer,
            a.head,
            "rm_go_apart",
        )
    st.markdown(f"**{t('real_model.find_title')}**")  # which head links this word to that one most strongly?
    words = list(av.word_positions(v))
    default_q, default_k = (A_IT, A_NOUN) if animal else av.default_link(v)  # the page's key effect: "it" -> "animal"
    page.choice_keep_valid("rm_q", words, default_q)
    page.choice_keep_valid("rm_k", words, default_k)
    with page.section_controls():
        q = controls.selectbox(
            t("real_model.find_query"),
            words,
            key="rm_q",
            default=default_q,
            format_func=lambda p: position_label(p, v.tokens),
        )
        k = controls.selectbox(
            t("real_model.find_key"),
            words,
            key="rm_k",
            default=default_k,
            format_func=lambda p: position_label(p, v.tokens),
        )
    link = cached(av.find_link, v, q, k)
    name = {p: literal(position_label(p, v.tokens)) for p in (q, k, link.top)}
    job_line(
        t(
            "real_model.found_link",
            q=name[q],
            k=name[k],
            layer=link.layer + 1,
            head=link.head + 1,
            weight=f"{link.weight:.2f}",
            top=name[link.top],
            top_weight=f"{link.top_weight:.2f}",
        ),
        link.layer,
        link.head,
        "rm_go_link",
    )


@st.fragment
def check_section(v: av.ModelView, layer: int, head: int) -> None:
    frame.heading("check")
    answers = cached(av.check_answers, v, layer, head)
    ask = literal(position_label(answers.ask, v.tokens))
    if answers.previous is not None:
        prev, options = answers.previous, [str(o) for o in answers.options]
        page.choice_keep_valid("rm_check", ["", *options], "")
        widgets.check_choice(
            t("real_model.check_q", layer=prev.layer + 1, head=prev.head + 1, share=f"{prev.share:.2f}", query=ask),
            options,
            str(answers.best),
            key="rm_check",
            format_func=lambda o: literal(position_label(int(o), v.tokens)),
            explanation=t(
                "real_model.check_expl",
                best=literal(position_label(answers.best, v.tokens)),
                weight=f"{answers.best_weight:.3f}",
                layer=prev.layer + 1,
                head=prev.head + 1,
            ),
        )
    widgets.check_number(
        t("real_model.number_q", layer=layer + 1, head=head + 1, query=ask),
        answers.parked,
        key="rm_num",
        tolerance=0.01,
        explanation=t("real_model.number_expl", share=f"{answers.parked:.3f}", rest=f"{1 - answers.parked:.3f}"),
    )


available = minilm_available()
frame = page.start("real_model", presets=presets(available))
lang = current_lang()
with frame.controls():
    settings = model_controls(available)
choice, layer, head = settings["choice"], settings["layer"], settings["head"]
source = source_maps(choice, settings["text"])
view = cached(av.build_view, source, settings["hide"])
parking = int((view.share > PARKED).sum())
if frame.shows("grid"):
    grid_section(view, layer, head)
if frame.shows("head"):
    head_section(view, layer, head)
if frame.shows("sink"):
    sink_section(view)
if frame.shows("jobs"):
    jobs_section(view, choice == DEFAULT_EX)
if frame.shows("check"):
    check_section(view, layer, head)

frame.end()
