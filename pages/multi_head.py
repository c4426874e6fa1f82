"""Multi-head attention: Q, K, V cut into h column blocks, one self-attention per head, the heads
joined and mixed by W_o; how the heads differ, and why h heads cost what one head costs."""

import numpy as np
import pandas as pd
import streamlit as st

from attention_core import (
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    split_heads,
    token_vectors,
)
from attention_core.head_stats import (
    PATTERNS,
    head_choices,
    head_overlap,
    head_patterns,
    head_size,
    mean_entropy,
    mean_overlap,
    mean_peak,
    multi_head_cost,
    random_projections,
    score_split,
)
from attention_core.pretrained import load_minilm, minilm_available
from attention_core.shipped import load_examples, load_position_table
from lab_ui import controls, widgets
from lab_ui.figures import multi_head as figs
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture, stepper
from lab_ui.registry import PAGES

MAX_HEADS = 16  # more maps than this no longer fit side by side on a projector
MAX_TOKENS = 40  # random weights: tokens drawn
MAX_PIECES = 48  # real model: word pieces read, [CLS] and [SEP] included
DEFAULT_TEXT = "machine learning is fun"
DEFAULT_D, DEFAULT_HEADS = 8, 2
LONG_TEXT = (
    "The animal didn't cross the street because it was too tired, so it lay down under an old tree "
    "and slept until the sun went down."
)
MATRICES = ("Q", "K", "V")

widgets.page_header("multi_head")
available = minilm_available()
examples = {e.id: e for e in load_examples()}
N_LAYERS, MODEL_HEADS = next(iter(examples.values())).attentions.shape[:2]
MODEL_D = load_position_table().shape[1]


@st.cache_data(show_spinner=False)
def clearest_view(example_id: str) -> dict:
    """The layer (1-based) whose heads overlap least, and in it the most focused head (lowest mean
    entropy) for the close-up: the page's key effect at its clearest, chosen by the numbers."""
    maps = examples[example_id].attentions  # [n_layers, h, T, T]
    layer = int(np.argmin([mean_overlap(m) for m in maps]))
    return {"mh_layer": layer + 1, "mh_focus": 1 + int(np.argmin(mean_entropy(maps[layer])))}


# --- presets and controls -------------------------------------------------------------------------


def heads_control(d_model: int, notes: list[str]) -> int:
    """n_heads offers only divisors of d_model. A value that cannot work (from a link, or left over
    after d_model moved) is replaced by the nearest smaller divisor, and `notes` says why."""
    options = head_choices(d_model, MAX_HEADS)
    default = DEFAULT_HEADS if DEFAULT_HEADS in options else options[-1]
    choices = ", ".join(map(str, options))
    wanted = st.session_state.get("mh_h")
    raw = st.query_params.get_all("mh_h") if wanted is None else []
    if raw:
        try:
            wanted = int(raw[0])
        except ValueError:
            value = widgets.escape_markdown(raw[0][:40])  # the link's text is shown as text, never as markdown
            notes.append(t("multi_head.heads_not_number", value=value, fallback=default, choices=choices))
            st.session_state["mh_h"] = wanted = default
    if wanted is not None and wanted not in options:
        fallback = max([o for o in options if o <= wanted], default=default)
        if wanted < 1:
            notes.append(t("multi_head.heads_not_number", value=str(wanted), fallback=fallback, choices=choices))
        elif d_model % wanted == 0:
            notes.append(t("multi_head.heads_too_many", wanted=wanted, d_model=d_model, max_heads=MAX_HEADS,
                           fallback=fallback, choices=choices))  # fmt: skip
        else:
            ratio = f"{d_model / wanted:.2f}"
            notes.append(t("multi_head.heads_not_divisor", wanted=wanted, d_model=d_model, ratio=ratio,
                           fallback=fallback, choices=choices))  # fmt: skip
        st.session_state["mh_h"] = fallback
    n_heads = controls.selectbox(
        t("multi_head.heads_label"), options, key="mh_h", default=default, help=t("multi_head.heads_help")
    )
    if options == [1]:
        st.caption(t("multi_head.heads_only_one", d_model=d_model, max_heads=MAX_HEADS))
    else:
        st.caption(t("multi_head.heads_caption", d_model=d_model, n_heads=n_heads, d_head=d_model // n_heads))
    return n_heads


notes: list[str] = []
with st.expander(t("multi_head.controls")) if is_lecture() else st.container():  # a projector shows figures
    widgets.presets(
        {
            "seeds": {"mh_src": "random", "mh_text": "机器学习", "mh_d": 4, "mh_h": 2, "mh_seed": 0},
            "long": {"mh_src": "random", "mh_text": LONG_TEXT, "mh_d": 64, "mh_h": 8, "mh_seed": 0},
            "model": {"mh_src": "model", "mh_ex": "animal_tired", **clearest_view("animal_tired")},
        },
        key="mh_preset",
        format_func=lambda p: t(f"multi_head.preset_{p}"),
    )
    source = controls.segmented(
        t("multi_head.source_label"), ["random", "model"], key="mh_src",
        format_func=lambda s: t(f"multi_head.source_{s}"), help=t("multi_head.source_help"),
    )  # fmt: skip
    if source == "random":
        c_text, c_d, c_h, c_seed = st.columns([3, 2, 1.4, 1.2])
        with c_text:
            tokens = widgets.sentence_tokens(t("multi_head.text_label"), DEFAULT_TEXT, key="mh_text",
                                             max_tokens=MAX_TOKENS, help=t("multi_head.text_help"))  # fmt: skip
        with c_d:
            d_model = controls.slider(
                t("multi_head.d_label"), 2, 512, DEFAULT_D, key="mh_d", help=t("multi_head.d_help")
            )
        with c_h:
            n_heads = heads_control(d_model, notes)
        with c_seed:
            seed = widgets.seed_input(key="mh_seed")
    else:
        options = [*examples, "own"] if available else list(examples)
        c_ex, c_layer = st.columns([3, 2])
        with c_ex:
            example = controls.selectbox(
                t("multi_head.example_label"), options, key="mh_ex",
                format_func=lambda e: t("multi_head.example_own") if e == "own" else examples[e].text,
            )  # fmt: skip
            if example == "own":
                own = controls.text_input(t("multi_head.own_text_label"), LONG_TEXT, key="mh_mtext")
        with c_layer:
            layer = controls.slider(t("multi_head.layer_label"), 1, N_LAYERS, 1, key="mh_layer",
                                    help=t("multi_head.layer_help"))  # fmt: skip
        d_model, n_heads = MODEL_D, MODEL_HEADS
        st.caption(
            t("multi_head.model_sizes", layer=layer, d_model=d_model, n_heads=n_heads, d_head=d_model // n_heads)
        )
        if not available:
            st.caption(t("multi_head.enable_free_text"))
for note in notes:
    st.warning(note, icon="⚠️")


# --- core calls (cached on their arguments) --------------------------------------------------------


def summarise(tokens, weights, mh=None) -> dict:
    """What every step draws: the maps and the measures of how the heads differ."""
    view = {
        "tokens": tuple(tokens), "weights": weights, "mh": mh,
        "entropy": mean_entropy(weights), "overlap": head_overlap(weights), "patterns": head_patterns(weights),
    }  # fmt: skip
    if mh is not None:
        d_head = mh.q_heads.shape[-1]
        # Seed 003's code divides the scores by d_head instead of √d_head: the same heads, that scale.
        view["mistaken"] = scaled_dot_product_attention(mh.q_heads, mh.k_heads, mh.v_heads, scale=1.0 / d_head).weights
        view["split"] = score_split(mh.q, mh.k, mh.q_heads.shape[0])
    return view


# Entry limits keep memory bounded on a shared server: a view at d_model = 512 holds about 2 MB.
@st.cache_data(max_entries=16, show_spinner=False)
def random_view(tokens: tuple[str, ...], d_model: int, n_heads: int, seed: int) -> dict:
    x = token_vectors(list(tokens), d_model, seed)  # [T, d_model]
    w = random_projections(d_model, np.random.default_rng(seed))
    mh = multi_head_attention(x, w.w_q, w.w_k, w.w_v, w.w_o, n_heads)
    return summarise(tokens, mh.weights, mh)


@st.cache_resource(max_entries=2, show_spinner=False)  # all six layers of a text: about 12 MB
def encode(text: str) -> dict:
    """Run the real model; a text longer than MAX_PIECES word pieces is cut where piece MAX_PIECES - 1 ends."""
    encoder = load_minilm()
    pieces = encoder.tokenizer.encode(text)
    cut = len(pieces.tokens) > MAX_PIECES
    if cut:
        text = text[: pieces.offsets[MAX_PIECES - 2][1]]  # offsets[0] is [CLS]; keep room for [SEP]
    result = encoder.encode(text)
    return {"tokens": result.tokens, "layers": result.layers, "cut": cut}


@st.cache_data(max_entries=8, show_spinner=False)
def model_view(text: str, layer: int) -> dict:
    encoded = encode(text)
    mh = encoded["layers"][layer - 1]
    return {**summarise(encoded["tokens"], mh.weights, mh), "cut": encoded["cut"]}


@st.cache_data(max_entries=32, show_spinner=False)
def shipped_view(example_id: str, layer: int) -> dict:
    e = examples[example_id]
    return summarise(e.tokens, e.attentions[layer - 1])


def get_view(view_key: tuple) -> dict:
    """The computed view for a key: ("random", tokens, d_model, n_heads, seed), ("model", text, layer)
    or ("shipped", example id, layer)."""
    kind, *args = view_key
    return {"random": random_view, "model": model_view, "shipped": shipped_view}[kind](*args)


if source == "random":
    view_key = ("random", tuple(tokens), d_model, n_heads, seed)
elif example == "own":
    if not own.strip():
        st.info(t("common.empty_text", example=LONG_TEXT), icon=":material/info:")
        own = LONG_TEXT
    view_key = ("model", own, layer)
    with st.spinner():
        try:
            view = get_view(view_key)
        except ValueError as error:  # e.g. a lone surrogate the tokenizer cannot read
            st.info(t("multi_head.model_error", reason=str(error)), icon=":material/info:")
            view_key = ("model", LONG_TEXT, layer)
elif available:
    view_key = ("model", examples[example].text, layer)
else:
    view_key = ("shipped", example, layer)
with st.spinner():
    view = get_view(view_key)
if view.get("cut"):
    st.caption(t("multi_head.model_cut", shown=len(view["tokens"])))

tokens = list(view["tokens"])
mh = view["mh"]
T = len(tokens)
d_head = d_model // n_heads
head_names = [t("multi_head.head_name", i=i + 1) for i in range(n_heads)]
head_numbers = [str(i + 1) for i in range(n_heads)]  # short tick labels where the axis says "head"
row_labels = [f"{p}: {tok}" for p, tok in enumerate(tokens)]  # unique even when a token repeats
labels = {
    "token": t("multi_head.label_token"), "value": t("multi_head.label_value"), "column": t("multi_head.label_column"),
    "out_column": t("multi_head.label_out_column"), "head": t("multi_head.head_name"),
}  # fmt: skip
head_columns = [f"h{i + 1}:c{c}" for i in range(n_heads) for c in range(d_head)]
lang = current_lang()


# --- figures: built once per view and language ------------------------------------------------------


def split_fig(v: dict, name: str):
    r, n = v["mh"], dict(name=name, T=T, d_model=d_model, n_heads=n_heads, d_head=d_head)
    whole, blocks = {"Q": (r.q, r.q_heads), "K": (r.k, r.k_heads), "V": (r.v, r.v_heads)}[name]
    return figs.split_figure(whole, blocks, tokens, whole_title=t("multi_head.whole_title", **n),
                             split_title=t("multi_head.split_title", **n), labels=labels)  # fmt: skip


def maps_fig(v: dict, _):
    return figs.head_maps(v["weights"], tokens, head_names=head_names, query_title=t("multi_head.query"),
                          key_title=t("multi_head.key"), value_name=t("multi_head.weight"))  # fmt: skip


def focus_fig(v: dict, focus: int):
    return figs.head_detail(v["weights"][focus - 1], tokens, focus - 1, head_name=head_names[focus - 1],
                            query_title=t("multi_head.query"), key_title=t("multi_head.key"),
                            value_name=t("multi_head.weight"))  # fmt: skip


def concat_fig(v: dict, _):
    r, n = v["mh"], dict(T=T, d_model=d_model, n_heads=n_heads, d_head=d_head)
    return figs.concat_figure(
        r.heads, r.concat, r.output, tokens, heads_title=t("multi_head.heads_title", **n),
        concat_title=t("multi_head.concat_title", **n), output_title=t("multi_head.output_title", **n), labels=labels,
    )  # fmt: skip


def entropy_fig(v: dict, _):
    bits = np.log2(T)
    return figs.entropy_bars(v["entropy"], head_numbers, uniform=bits, x_title=t("multi_head.col_head"),
                             y_title=t("multi_head.entropy_y"),
                             uniform_label=t("multi_head.uniform_label", T=T, bits=f"{bits:.2f}"))  # fmt: skip


def overlap_fig(v: dict, _):
    return figs.overlap_heatmap(v["overlap"], head_numbers, title=t("multi_head.col_head"),
                                value_name=t("multi_head.overlap_value"))  # fmt: skip


FIGURES = {"split": split_fig, "maps": maps_fig, "focus": focus_fig, "concat": concat_fig,
           "entropy": entropy_fig, "overlap": overlap_fig}  # fmt: skip


@st.cache_resource(max_entries=64, show_spinner=False)
def figure(kind: str, view_key: tuple, lang: str, option=None):
    """Building a Plotly figure costs more than sending it, so each is built once per view,
    language and option; a rerun that changes nothing it shows reuses it (nothing edits a figure
    after this: show_figure copies before restyling for lecture mode)."""
    return FIGURES[kind](get_view(view_key), option)


visible = stepper("mh_step", [t(f"multi_head.step{i}") for i in range(1, 7)])


def numbers(key: str):
    """An expander for the numbers behind a figure. Its tables are built only while it is open:
    building and sending them would otherwise cost more than the rest of a rerun."""
    return st.expander(t("multi_head.numbers"), key=key, on_change="rerun")


def step_header(i: int) -> None:
    """A step's heading, numbered like the other pages' ("2 · ..."). In lecture mode the stepper's
    bar already names the step."""
    if not is_lecture():
        st.subheader(f"{i} · {t(f'multi_head.step{i}')}")


# --- 1: cut Q, K, V into heads ----------------------------------------------------------------------

if visible(1):
    step_header(1)
    st.markdown(t("multi_head.s1_body"))
    if mh is None:
        st.info(t("multi_head.need_encoder"), icon=":material/info:")
    else:
        name = controls.segmented(t("multi_head.matrix_label"), list(MATRICES), key="mh_mat")
        whole = {"Q": mh.q, "K": mh.k, "V": mh.v}[name]  # [T, d_model]
        sizes = dict(name=name, T=T, d_model=d_model, n_heads=n_heads, d_head=d_head)
        st.markdown(f"`{t('multi_head.shapes_split', **sizes)}`")
        widgets.show_figure(
            figure("split", view_key, lang, name),
            key="mh_split",
            alt=t("multi_head.split_alt", **sizes),
            numbers_on_phones=False,  # 4-5 px on a phone: the numbers table below has them
        )
        with numbers("mh_num_split") as box:
            if box.open:
                table = pd.DataFrame(whole, index=row_labels, columns=head_columns)
                widgets.show_table(table, key="mh_split_table", filename=f"{name}_heads.csv",
                                   caption=t("multi_head.split_table", name=name))  # fmt: skip
        widgets.formula_and_code(
            r"\begin{aligned} Q &= x\,W_q \\ d_{head} &= d_{model} / h \\"
            r" Q_i &= \text{columns } (i-1)\,d_{head}+1 \ldots i\,d_{head} \text{ of } Q \end{aligned}",
            split_heads,
        )
        st.caption(t("multi_head.split_indexing"))


# --- 2: each head attends on its own ------------------------------------------------------------------

if visible(2):
    step_header(2)
    st.markdown(t("multi_head.s2_body"))
    weights = view["weights"]  # [h, T, T]
    widgets.show_figure(
        figure("maps", view_key, lang),
        key="mh_maps",
        alt=t("multi_head.maps_alt", n_heads=n_heads, T=T),
        numbers_on_phones=False,
    )
    if not figs.maps_have_labels(n_heads, T):  # too small to label: offer a close-up of one head
        heads = list(range(1, n_heads + 1))
        if st.session_state.get("mh_focus", 1) not in heads:  # left over from a run with more heads
            st.session_state["mh_focus"] = 1
        focus = controls.selectbox(t("multi_head.focus_label"), heads, key="mh_focus",
                                   format_func=lambda i: head_names[i - 1])  # fmt: skip
        widgets.show_figure(figure("focus", view_key, lang, focus), key="mh_focus_map",
                            alt=t("multi_head.focus_alt", head=head_names[focus - 1], T=T))  # fmt: skip
    with numbers("mh_num_maps") as box:
        if box.open:
            maps = pd.DataFrame(weights.reshape(n_heads * T, T), columns=row_labels)
            maps.insert(0, t("multi_head.query"), row_labels * n_heads)
            maps.insert(0, t("multi_head.col_head"), np.repeat(head_names, T))
            widgets.show_table(
                maps, key="mh_maps_table", filename="attention_maps.csv", caption=t("multi_head.maps_table")
            )
    if mh is not None:
        gap = float(np.max(np.abs(view["split"].summed - view["split"].full)))
        st.markdown(t("multi_head.sum_check", n_heads=n_heads, gap=f"{gap:.1e}"))
    st.markdown(f"**{t('multi_head.mistake_title')}**")
    st.markdown(t("multi_head.mistake_body", d_head=d_head))
    if mh is None:
        st.info(t("multi_head.need_encoder"), icon=":material/info:")
    elif d_head == 1:
        st.caption(t("multi_head.mistake_same"))
    else:
        compare = {"right": (weights, 1 / np.sqrt(d_head)), "wrong": (view["mistaken"], 1 / d_head)}
        table = pd.DataFrame(
            {
                t("multi_head.factor_col"): [round(factor, 4) for _, factor in compare.values()],
                t("multi_head.entropy_col"): [round(float(mean_entropy(w).mean()), 4) for w, _ in compare.values()],
                t("multi_head.max_col"): [round(float(mean_peak(w).mean()), 4) for w, _ in compare.values()],
            },
            index=[t(f"multi_head.scale_{k}") for k in compare],
        )
        widgets.show_table(table, key="mh_mistake", filename="scaling_mistake.csv")
    scaling = next((p for p in PAGES if p.ns == "scaling"), None)
    if scaling is not None:
        st.page_link(scaling.path, label=t("multi_head.scaling_link"), icon=":material/arrow_forward:")
    widgets.formula_and_code(
        r"\begin{aligned} A_i &= Q_i K_i^{\top} \\ Q K^{\top} &= A_1 + \dots + A_h \\"
        r" \alpha_i &= \mathrm{softmax}\!\left(A_i / \sqrt{d_{head}}\right) \end{aligned}",
        score_split,
    )


# --- 3: join the heads, multiply by W_o -----------------------------------------------------------------

if visible(3):
    step_header(3)
    st.markdown(t("multi_head.s3_body"))
    if mh is None:
        st.info(t("multi_head.need_encoder"), icon=":material/info:")
    else:
        sizes = dict(T=T, d_model=d_model, n_heads=n_heads, d_head=d_head)
        st.markdown(f"`{t('multi_head.shapes_concat', **sizes)}`")
        widgets.show_figure(figure("concat", view_key, lang), key="mh_concat",
                            alt=t("multi_head.concat_alt", **sizes), numbers_on_phones=False)  # fmt: skip
        gap = float(np.max(np.abs(merge_heads(mh.heads) - mh.concat)))
        st.caption(t("multi_head.concat_check", gap=f"{gap:.1e}"))
        with numbers("mh_num_concat") as box:
            if box.open:
                joined = pd.DataFrame(np.hstack([mh.concat, mh.output]), index=row_labels,
                                      columns=head_columns + [f"out:c{c}" for c in range(d_model)])  # fmt: skip
                widgets.show_table(joined, key="mh_concat_table", filename="heads_joined.csv",
                                   caption=t("multi_head.concat_table"))  # fmt: skip
        widgets.formula_and_code(
            r"\begin{aligned} \mathrm{head}_i &= \mathrm{softmax}\!\left(\frac{Q_i K_i^{\top}}{\sqrt{d_{head}}}\right)"
            r" V_i \\ \mathrm{MultiHead}(x) &= [\mathrm{head}_1, \dots, \mathrm{head}_h]\, W_o \end{aligned}",
            multi_head_attention,
        )


# --- 4: do the heads differ? ------------------------------------------------------------------------------

if visible(4):
    step_header(4)
    st.markdown(t("multi_head.s4_random") if source == "random" else t("multi_head.s4_model"))
    st.markdown(t("multi_head.measures"))
    entropy, overlap, patterns = view["entropy"], view["overlap"], view["patterns"]
    left, right = st.columns(2)
    with left:
        alt = t("multi_head.entropy_alt", n_heads=n_heads, bits=f"{np.log2(T):.2f}")
        widgets.show_figure(figure("entropy", view_key, lang), key="mh_entropy", alt=alt)
    with right:
        widgets.show_figure(
            figure("overlap", view_key, lang), key="mh_overlap", alt=t("multi_head.overlap_alt", n_heads=n_heads)
        )
    if n_heads == 1:
        st.caption(t("multi_head.one_head_only"))
    else:
        pairs = [(overlap[a, b], a, b) for a in range(n_heads) for b in range(a + 1, n_heads)]
        (high, a, b), (low, c, d) = max(pairs), min(pairs)
        if n_heads == 2:
            st.markdown(t("multi_head.one_pair", a=head_names[a], b=head_names[b], overlap=f"{high:.2f}"))
        else:
            st.markdown(t("multi_head.most_alike", a=head_names[a], b=head_names[b], high=f"{high:.2f}",
                          c=head_names[c], d=head_names[d], low=f"{low:.2f}"))  # fmt: skip
    jobs = [
        t("multi_head.job", head=head_names[i], pattern=t(f"multi_head.pattern_{PATTERNS[j]}"), share=f"{share:.0%}")
        for i, row in enumerate(patterns)
        for j, share in enumerate(row)
        if share >= 0.5
    ]
    st.markdown(
        t("multi_head.jobs") + "\n" + "".join(f"\n- {job}" for job in jobs) if jobs else t("multi_head.no_jobs")
    )
    with numbers("mh_num_heads") as box:
        if box.open:
            stats = pd.DataFrame(patterns, index=head_names, columns=[t(f"multi_head.pattern_{p}") for p in PATTERNS])
            stats.insert(0, t("multi_head.entropy_col"), entropy)
            widgets.show_table(stats, key="mh_stats", filename="head_stats.csv", caption=t("multi_head.stats_table"))
            widgets.show_table(pd.DataFrame(overlap, index=head_names, columns=head_names), key="mh_overlap_table",
                               filename="head_overlap.csv", caption=t("multi_head.overlap_table"))  # fmt: skip
    widgets.formula_and_code(
        r"\begin{aligned} H(\alpha_i) &= -\textstyle\sum_j \alpha_{ij} \log_2 \alpha_{ij} \\"
        r" H_h &= \tfrac{1}{T} \textstyle\sum_i H(\alpha^{h}_i) \\"
        r" \mathrm{overlap}(a, b) &= \tfrac{1}{T} \textstyle\sum_{i,j} \min(\alpha^{a}_{ij}, \alpha^{b}_{ij})"
        r" \end{aligned}",
        mean_entropy,
        head_overlap,
    )


# --- 5: what the heads cost -----------------------------------------------------------------------------

if visible(5):
    step_header(5)
    st.markdown(t("multi_head.s5_body"))
    many, one = multi_head_cost(d_model, n_heads, T), multi_head_cost(d_model, 1, T)
    rows = ("qkv_per_head", "qkv", "w_o", "total", "score_products", "softmax_rows")
    row_names = [t("multi_head.cost_qkv_per_head"), t("multi_head.cost_qkv"), t("multi_head.cost_wo"),
                 t("multi_head.cost_total"), t("multi_head.cost_scores"), t("multi_head.cost_maps")]  # fmt: skip
    cost = pd.DataFrame(
        {
            t("multi_head.cost_many", n_heads=n_heads): [getattr(many, r) for r in rows],
            t("multi_head.cost_one"): [getattr(one, r) for r in rows],
        },
        index=row_names,
    )
    cost.index.name = t("multi_head.cost_quantity")
    caption = t("multi_head.cost_table", n_heads=n_heads, d_head=d_head, d_model=d_model, T=T)
    widgets.show_table(cost, key="mh_cost", filename="multi_head_cost.csv", caption=caption)
    if n_heads == 1:
        st.caption(t("multi_head.cost_single"))
    elif many.total == one.total:
        st.success(t("multi_head.cost_equal", total=f"{many.total:,}", d_model=d_model, n_heads=n_heads))
    st.caption(t("multi_head.cost_bias"))
    widgets.formula_and_code(
        r"\begin{aligned} & \underbrace{h \cdot 3\, d_{model}\, d_{head}}_{W_q, W_k, W_v}"
        r" + \underbrace{d_{model}^2}_{W_o} \\ &= 3\, d_{model}^2 + d_{model}^2 = 4\, d_{model}^2 \end{aligned}",
        multi_head_cost,
    )


# --- 6: check yourself ------------------------------------------------------------------------------------

if visible(6):
    step_header(6)
    model_d_head = head_size(MODEL_D, MODEL_HEADS)
    widgets.check_number(
        t("multi_head.check_q", d_model=MODEL_D, n_heads=MODEL_HEADS), model_d_head, key="mh_check", tolerance=0,
        explanation=t("multi_head.check_expl", d_model=MODEL_D, n_heads=MODEL_HEADS, d_head=model_d_head),
    )  # fmt: skip
    widgets.check_choice(
        t("multi_head.choice_q"), ["every_token", "same_token", "all_heads"], "every_token", key="mh_choice",
        format_func=lambda o: t(f"multi_head.choice_{o}"), explanation=t("multi_head.choice_expl"),
    )  # fmt: skip
