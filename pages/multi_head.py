"""Multi-head attention: Q, K, V cut into h column blocks, one self-attention per head, the heads
joined and mixed by W_o; how the heads differ, and why h heads cost what one head costs.

It opens on the real model's trained heads (all-MiniLM-L6-v2 run here, or its shipped maps without
the optional package); random weights, one click away, are called random wherever they are drawn.
Links: mh_src=random gives random weights, and so does a link without mh_src that sets one of their
controls (mh_text, mh_d, mh_h, mh_seed): it was made when they were the default."""

import contextlib

import streamlit as st

from attention_core import head_views as hv
from attention_core import merge_heads, split_heads
from attention_core import pretrained as model
from attention_core.head_stats import head_overlap, head_size, mean_entropy, multi_head_cost, score_split
from lab_ui import controls, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import multi_head as figs
from lab_ui.i18n import current_lang, literal, t
from lab_ui.lecture import is_lecture
from lab_ui.registry import PAGES

MAX_HEADS = 16  # more maps than this no longer fit side by side on a projector
MAX_TOKENS, MAX_PIECES = 40, 48  # tokens drawn (random weights); word pieces read with [CLS], [SEP] (real model)
DEFAULT_TEXT, DEFAULT_D, DEFAULT_HEADS = "machine learning is fun", 8, 2
LONG_TEXT = (
    "The animal didn't cross the street because it was too tired, so it lay down under an old tree "
    "and slept until the sun went down."
)
RANDOM_KEYS = {"mh_text", "mh_d", "mh_h", "mh_seed"}  # controls of random weights only
N_LAYERS, MODEL_HEADS, MODEL_D = hv.model_shape()
MODEL = dict(d_model=MODEL_D, n_heads=MODEL_HEADS, d_head=head_size(MODEL_D, MODEL_HEADS))  # its sizes, for the text
EXAMPLES = hv.example_texts()
CLEAREST = cached(hv.clearest_view, "animal_tired")
PRESETS = {
    "article": {"mh_src": "random", "mh_text": "机器学习", "mh_d": 4, "mh_h": 2, "mh_seed": 0},
    "long": {"mh_src": "random", "mh_text": LONG_TEXT, "mh_d": 64, "mh_h": 8, "mh_seed": 0},
    "model": {"mh_src": "model", "mh_ex": "animal_tired", "mh_layer": CLEAREST.layer, "mh_focus": CLEAREST.focus},
}

frame = page.start("multi_head", presets=PRESETS)
lang, lecture = current_lang(), is_lecture()


def heads_control(d_model: int, notes: list[str]) -> int:
    """n_heads offers only divisors of d_model. A value that cannot work (from a link, or left over
    after d_model moved) is replaced by the nearest smaller divisor, and `notes` says why."""
    wanted = st.session_state.get("mh_h")
    raw = st.query_params.get_all("mh_h")[:1] if wanted is None else []
    fit = hv.fit_heads(d_model, raw[0] if raw else wanted, MAX_HEADS, DEFAULT_HEADS)
    if fit.reason != "ok":
        wanted, choices = raw[0][:40] if raw else wanted, ", ".join(map(str, fit.options))
        notes.append(
            t(
                f"multi_head.heads_{fit.reason}",
                value=literal(str(wanted)),
                wanted=wanted,
                d_model=d_model,
                fallback=fit.n_heads,
                choices=choices,
                max_heads=MAX_HEADS,
                ratio=f"{fit.ratio:.2f}" if fit.ratio is not None else "",
            )
        )
        st.session_state["mh_h"] = fit.n_heads
    n_heads = controls.selectbox(
        t("multi_head.heads_label"), list(fit.options), key="mh_h", default=fit.n_heads, help=t("multi_head.heads_help")
    )
    sizes = dict(d_model=d_model, n_heads=n_heads, d_head=d_model // n_heads, max_heads=MAX_HEADS)
    st.caption(t("multi_head.heads_only_one" if fit.options == (1,) else "multi_head.heads_caption", **sizes))
    return n_heads


def random_controls(notes: list[str]):
    c_text, c_d, c_h, c_seed = st.columns([3, 2, 1.4, 1.2])
    with c_text:
        tokens = widgets.sentence_tokens(
            t("multi_head.text_label"),
            DEFAULT_TEXT,
            key="mh_text",
            max_tokens=MAX_TOKENS,
            help=t("multi_head.text_help"),
        )
    with c_d:
        d_model = controls.slider(t("multi_head.d_label"), 2, 512, DEFAULT_D, key="mh_d", help=t("multi_head.d_help"))
    with c_h:
        n_heads = heads_control(d_model, notes)
    with c_seed:
        seed = widgets.seed_input(key="mh_seed")
    return cached(hv.random_view, tuple(tokens), d_model, n_heads, seed)


def model_controls():
    available = model.minilm_available()
    c_ex, c_layer = st.columns([3, 2])
    with c_ex:
        options = [*EXAMPLES, "own"] if available else list(EXAMPLES)
        example = controls.selectbox(
            t("multi_head.example_label"),
            options,
            key="mh_ex",
            format_func=lambda e: EXAMPLES.get(e) or t("multi_head.example_own"),
        )
        own = controls.text_input(t("multi_head.own_text_label"), LONG_TEXT, key="mh_mtext") if example == "own" else ""
    with c_layer:
        layer = controls.slider(
            t("multi_head.layer_label"), 1, N_LAYERS, 1, key="mh_layer", help=t("multi_head.layer_help")
        )
    st.caption(t("multi_head.model_sizes", layer=layer, **MODEL))
    if not available:
        st.caption(t("multi_head.enable_free_text"))
        return cached(hv.shipped_view, example, layer)
    text = EXAMPLES[example] if example != "own" else own if own.strip() else LONG_TEXT
    if example == "own" and not own.strip():
        st.info(t("common.empty_text", example=LONG_TEXT), icon=":material/info:")
    try:
        encoded = cached(hv.encode_text, text, MAX_PIECES)
    except ValueError as error:  # e.g. a lone surrogate the tokenizer cannot read
        st.info(t("multi_head.model_error", reason=str(error)), icon=":material/info:")
        encoded = cached(hv.encode_text, LONG_TEXT, MAX_PIECES)
    if encoded.truncated:
        st.caption(t("multi_head.model_cut", shown=len(encoded.tokens), total=encoded.total_tokens))
    return cached(hv.model_view, encoded, layer)


notes: list[str] = []
with frame.controls():
    if "mh_src" not in st.session_state and "mh_src" not in st.query_params and RANDOM_KEYS & set(st.query_params):
        st.session_state["mh_src"] = "random"  # a link from when random weights were the default
    source = controls.segmented(
        t("multi_head.source_label"),
        ["model", "random"],
        key="mh_src",
        default="model",
        format_func=lambda s: t(f"multi_head.source_{s}"),
        help=t("multi_head.source_help"),
    )
    view = random_controls(notes) if source == "random" else model_controls()
for note in notes:
    st.warning(note, icon="⚠️")
T, n_heads, d_model, d_head = view.T, view.n_heads, view.d_model, view.d_head
sizes = dict(T=T, d_model=d_model, n_heads=n_heads, d_head=d_head)


@contextlib.contextmanager
def words(text: str):
    """A section's words above its figure; in lecture mode folded under it: the figure has the first screen."""
    above = st.container()
    yield
    with st.container() if lecture else above:
        page.prose(text)


def numbers(key: str, *tables) -> None:
    """The numbers behind a figure, in an expander: each of `tables` draws one, called only while it is open."""
    if box := page.numbers_box(key, t("multi_head.numbers")):
        with box:
            for draw in tables:
                draw()


@st.fragment
def split_section(view) -> None:
    frame.heading("split")
    with words(t("multi_head.s1_body")):
        if view.layer is None:
            return st.info(t("multi_head.need_encoder"), icon=":material/info:")
        figure_slot = st.container()  # lecture mode: the figure first, its control under it
        with st.container() if lecture else figure_slot:
            name = controls.segmented(t("multi_head.matrix_label"), ["Q", "K", "V"], key="mh_mat")
        with figure_slot:
            widgets.show_figure(
                cached(figs.split_figure, view, name, lang, lecture),
                key="mh_split",
                alt=t("multi_head.split_alt", name=name, **sizes),
                numbers_on_phones=False,
            )
    st.markdown(f"`{t('multi_head.shapes_split', name=name, **sizes)}`")
    numbers(
        "mh_num_split",
        lambda: widgets.show_table(
            cached(figs.split_table, view, name, lang),
            key="mh_split_table",
            filename=f"{name}_heads.csv",
            caption=t("multi_head.split_table", name=name),
        ),
    )
    widgets.formula_and_code(figs.FORMULAS["split"], split_heads)
    st.caption(t("multi_head.split_indexing"))


@st.fragment
def maps_section(view) -> None:
    frame.heading("maps")
    with words(t("multi_head.s2_body")):
        widgets.show_figure(
            cached(figs.head_maps, view, lang, lecture),
            key="mh_maps",
            alt=t("multi_head.maps_alt", n_heads=n_heads, T=T),
            numbers_on_phones=False,
        )
        st.html(figs.MAPS_ON_PHONES)
    if (every := figs.maps_grid(n_heads, T, lecture).every) > 1:  # a close-up of one head, every token labelled
        st.caption(t("multi_head.maps_labels", every=every))
        heads, default = list(range(1, n_heads + 1)), cached(hv.head_differences, view.weights).most_focused + 1
        page.choice_keep_valid("mh_focus", heads, default)
        focus = controls.selectbox(
            t("multi_head.focus_label"),
            heads,
            key="mh_focus",
            default=default,
            format_func=lambda i: t("multi_head.head_name", i=i),
        )
        # Below the first screen even on a projector: it may be as tall as the screen, 30 px a row for 20 px labels.
        widgets.show_figure(
            cached(figs.head_detail, view, focus, lang),
            key="mh_focus_map",
            alt=t("multi_head.focus_alt", head=t("multi_head.head_name", i=focus), T=T),
            lecture_px=min(30 * T + 200, 680),
        )
    numbers(
        "mh_num_maps",
        lambda: widgets.show_table(
            cached(figs.maps_table, view, lang),
            key="mh_maps_table",
            filename="attention_maps.csv",
            caption=t("multi_head.maps_table"),
        ),
    )
    if view.layer is not None:
        st.markdown(t("multi_head.sum_check", n_heads=n_heads, gap=figs.gap_text(cached(hv.scores_gap, view))))
    st.markdown(f"**{t('multi_head.mistake_title')}**\n\n{t('multi_head.mistake_body', d_head=d_head)}")
    if view.layer is None:
        st.info(t("multi_head.need_encoder"), icon=":material/info:")
    elif d_head == 1:
        st.caption(t("multi_head.mistake_same"))
    else:
        table = cached(figs.mistake_table, cached(hv.scaling_mistake, view), lang)
        widgets.show_table(table, key="mh_mistake", filename="scaling_mistake.csv")
    if scaling := next((p for p in PAGES if p.ns == "scaling"), None):
        st.page_link(scaling.path, label=t("multi_head.scaling_link"), icon=":material/arrow_forward:")
    widgets.formula_and_code(figs.FORMULAS["maps"], score_split)


@st.fragment
def join_section(view) -> None:
    frame.heading("join")
    with words(t("multi_head.s3_body")):
        if view.layer is None:
            return st.info(t("multi_head.need_encoder"), icon=":material/info:")
        widgets.show_figure(
            cached(figs.concat_figure, view, lang, lecture),
            key="mh_concat",
            alt=t("multi_head.concat_alt", **sizes),
            numbers_on_phones=False,
        )
    st.markdown(f"`{t('multi_head.shapes_concat', **sizes)}`")
    st.caption(t("multi_head.concat_check", gap=figs.gap_text(cached(hv.concat_gap, view))))
    numbers(
        "mh_num_concat",
        lambda: widgets.show_table(
            cached(figs.joined_table, view, lang),
            key="mh_concat_table",
            filename="heads_joined.csv",
            caption=t("multi_head.concat_table"),
        ),
    )
    widgets.formula_and_code(figs.FORMULAS["join"], merge_heads)


@st.fragment
def differ_section(view) -> None:
    frame.heading("differ")
    diff = cached(hv.head_differences, view.weights)
    body = t("multi_head.s4_random") if view.source == "random" else t("multi_head.s4_model")
    with words(f"{body}\n\n{t('multi_head.measures')}"):
        left, right = st.columns(2)
        with left:
            alt = t("multi_head.entropy_alt", n_heads=n_heads, bits=f"{diff.uniform_bits:.2f}")
            widgets.show_figure(cached(figs.entropy_bars, view, diff, lang, lecture), key="mh_entropy", alt=alt)
        with right:
            widgets.show_figure(
                cached(figs.overlap_heatmap, view, diff, lang, lecture),
                key="mh_overlap",
                alt=t("multi_head.overlap_alt", n_heads=n_heads),
            )
    st.markdown(cached(figs.differences_text, diff, lang, view.source != "random"))
    numbers(
        "mh_num_heads",
        lambda: widgets.show_table(
            cached(figs.stats_table, diff, lang),
            key="mh_stats",
            filename="head_stats.csv",
            caption=t("multi_head.stats_table"),
        ),
        lambda: widgets.show_table(
            cached(figs.overlap_table, diff, lang),
            key="mh_overlap_table",
            filename="head_overlap.csv",
            caption=t("multi_head.overlap_table"),
        ),
    )
    widgets.formula_and_code(figs.FORMULAS["differ"], mean_entropy, head_overlap)


def cost_section(view) -> None:
    frame.heading("cost")
    cost = cached(hv.cost_comparison, d_model, n_heads, T)
    with words(t("multi_head.s5_body")):
        widgets.show_table(
            cached(figs.cost_table, cost, lang),
            key="mh_cost",
            filename="multi_head_cost.csv",
            decimals=None,
            number_format="localized",  # 589,824 as the text below writes it
            caption=t("multi_head.cost_table", **sizes),
        )
    if n_heads == 1:
        st.caption(t("multi_head.cost_single"))
    elif cost.same_parameters:
        st.success(t("multi_head.cost_equal", total=f"{cost.many.total:,}", d_model=d_model, n_heads=n_heads))
    st.caption(t("multi_head.cost_bias"))
    widgets.formula_and_code(figs.FORMULAS["cost"], multi_head_cost)


@st.fragment
def check_section(view) -> None:
    frame.heading("check")
    widgets.check_number(
        t("multi_head.check_q", **MODEL),
        MODEL["d_head"],
        key="mh_check",
        tolerance=0,
        explanation=t("multi_head.check_expl", **MODEL),
    )
    widgets.check_choice(
        t("multi_head.choice_q"),
        ["every_token", "same_token", "all_heads"],
        "every_token",
        key="mh_choice",
        format_func=lambda o: t(f"multi_head.choice_{o}"),
        explanation=t("multi_head.choice_expl"),
    )


SECTIONS = (split_section, maps_section, join_section, differ_section, cost_section, check_section)
for name, section in zip(frame.sections, SECTIONS, strict=True):
    if frame.shows(name):
        section(view)

frame.end()
