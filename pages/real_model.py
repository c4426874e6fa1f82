"""Inside a real model: the 72 attention maps (6 layers x 12 heads) of all-MiniLM-L6-v2 for one
sentence, one head up close, how much attention is parked on [CLS]/[SEP], and heads with a
recognisable job, all found by computation."""

import numpy as np
import pandas as pd
import streamlit as st

from attention_core.attention_views import (
    PATTERNS,
    head_special_share,
    hide_tokens,
    pattern_shares,
    rows_apart,
    special_positions,
    special_share,
    strongest,
)
from attention_core.pretrained import load_minilm, minilm_available
from attention_core.shipped import load_examples
from lab_ui import controls, widgets
from lab_ui.figures import real_model as figs
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

MAP_MAX = 64  # word pieces drawn in the large map: a 64 x 64 map is still readable on a projector
GRID_MAX = 32  # word pieces drawn in each of the 72 small maps (about 3 px a cell at 1280 px)
CLEAR_JOB = 0.5  # a head "does" a job when its share is at least this; below, the page says it is weak
PARKED = 0.5  # a head "parks" when a word gives more than this to [CLS]/[SEP], on average
OWN = "own"  # the sentence choice "my own text" (needs the optional model package)
EXAMPLES = {e.id: e for e in load_examples()}
DEFAULT_EX = "animal_tired"
SEEDS_EX = "saw_saw"  # the seeds' "I saw a saw": one word, two meanings
OWN_DEFAULT = "The trophy didn't fit into the suitcase because it was too big."
LONG_TEXT = (
    "The animal didn't cross the street because it was too tired. It lay down under an old oak tree near the "
    "river bank, where the water was quiet and the grass was soft. A girl who lived in a small house on the "
    "other side of the street saw it from her window, took a bowl of water and some bread, and walked slowly "
    "across the road so that she would not frighten it."
)
N_LAYERS, N_HEADS = EXAMPLES[DEFAULT_EX].attentions.shape[:2]


def label(position: int, tokens) -> str:
    """'10 · it': a token with its position in the whole text ([CLS] is 0), unique even when a word repeats."""
    return f"{position} · {tokens[position]}"


# --- what the page computes (plain functions; the Streamlit caches below wrap them) ----------------


def encode_text(text: str) -> dict:
    """The model's pass over free text, keeping only what the page draws: the word pieces and the
    72 maps as float32. (An EncodeResult holds every intermediate: 199 MB at 256 pieces.)"""
    result = encoder().encode(text)
    maps = result.attentions.astype(np.float32)  # [n_layers, n_heads, T, T]
    maps.setflags(write=False)
    return {"tokens": result.tokens, "maps": maps, "truncated": result.truncated}


def source_maps(source: tuple) -> tuple[tuple[str, ...], np.ndarray, bool]:
    """Word pieces, the 72 maps [L, H, T, T] and "was the text cut to 256 pieces", for
    ("shipped", example id) or ("text", free text)."""
    kind, value = source
    if kind == "shipped":
        e = EXAMPLES[value]
        return e.tokens, e.attentions, False
    enc = encoded(value)
    return enc["tokens"], enc["maps"], enc["truncated"]


def build_view(source: tuple, hide: bool) -> dict:
    """Everything the page shows for a sentence, with [CLS]/[SEP] shown or hidden, computed once."""
    tokens, maps, truncated = source_maps(source)
    special = special_positions(tokens)  # [T]
    kept = np.flatnonzero(~special) if hide else np.arange(len(tokens))  # [T'] full positions shown
    shown = hide_tokens(maps, special) if hide else np.asarray(maps, dtype=np.float64)  # [L, H, T', T']
    shown_tokens = tuple(tokens[i] for i in kept)
    share = head_special_share(maps, special)  # [L, H] from the maps as the model made them
    patterns = pattern_shares(shown, shown_tokens)  # [L, H, 4] on the maps as drawn
    raw_previous = pattern_shares(maps, tokens)[..., 0]  # [L, H]
    jobs = [(p, *strongest(patterns[..., j])) for j, p in enumerate(PATTERNS) if not np.isnan(patterns[..., j]).all()]
    out = {
        "tokens": tokens, "special": special, "kept": kept, "shown_tokens": shown_tokens, "truncated": truncated,
        "maps": shown.astype(np.float32), "share": share, "patterns": patterns, "top_park": strongest(share),
        "jobs": [(p, lay, h, float(patterns[lay, h, PATTERNS.index(p)])) for p, lay, h in jobs],
        "previous": None if np.isnan(raw_previous).all() else (*strongest(raw_previous), raw_previous.max()),
        "empty_rows": int((shown.sum(axis=-1) == 0).sum()), "apart": None,
    }  # fmt: skip
    # Two copies of one word piece ("I saw a saw"): the head whose rows for them differ most.
    repeats = [i for i in range(len(tokens)) if not special[i] and tokens.index(tokens[i]) < i]
    if repeats:
        second = repeats[0]
        first = tokens.index(tokens[second])
        apart = rows_apart(maps, first, second)  # [L, H]
        out["apart"] = (first, second, *strongest(apart), float(apart.max()))
    for value in out.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)  # shared by every session: nobody may edit it
    return out


def find_anchors() -> dict:
    """The heads the presets point at, found by computation on the shipped examples."""
    animal = EXAMPLES[DEFAULT_EX]
    it, noun = animal.tokens.index("it"), animal.tokens.index("animal")
    saw = EXAMPLES[SEEDS_EX]
    first, second = [i for i, tok in enumerate(saw.tokens) if tok == "saw"][:2]
    longest = max(EXAMPLES.values(), key=lambda e: (len(e.tokens), e.id != DEFAULT_EX))
    # In the longest example ("...too wide.") "it" is the street: the long preset asks which head says so.
    words = longest.tokens
    link = {"rm_q": words.index("it"), "rm_k": words.index("street")} if {"it", "street"} <= set(words) else {}
    return {
        "animal": (*strongest(animal.attentions[:, :, it, noun]), it, noun),
        "saw": (*strongest(rows_apart(saw.attentions, first, second)), second, first),
        "previous": strongest(pattern_shares(animal.attentions, animal.tokens)[..., 0]),
        "longest": longest.id,
        "longest_link": link,
    }


def head_numbers(w: dict, layer: int, head: int) -> tuple[np.ndarray, list[str], list[str]]:
    """The drawn part of one head's map: its first MAP_MAX queries and keys, and when more keys
    exist, one last column holding the rest of each row, so that every drawn row still sums to 1."""
    labels = [label(int(p), w["tokens"]) for p in w["kept"]]
    m = w["maps"][layer, head]  # [T', T']
    n = min(len(labels), MAP_MAX)
    z = m[:n, :n]  # [n, n]
    cols = labels[:n]
    if len(labels) > n:
        z = np.hstack([z, m[:n, n:].sum(axis=1, keepdims=True)])  # [n, n + 1]
        cols = [*cols, t("real_model.rest_column", n=len(labels) - n)]
    return z, labels[:n], cols


def build_figure(kind: str, source: tuple, hide: bool, layer: int, head: int):
    w = view(source, hide)
    names = dict(query_title=t("real_model.query"), key_title=t("real_model.key"), value_name=t("real_model.weight"))
    if kind == "grid":
        n = min(len(w["kept"]), GRID_MAX)
        return figs.model_grid(
            w["maps"][:, :, :n, :n], w["shown_tokens"][:n], [int(p) for p in w["kept"][:n]],
            selected=(layer, head), layer_title=t("real_model.layer_word"), head_title=t("real_model.head_word"),
            layer_names=[t("real_model.layer_n", layer=i + 1) for i in range(N_LAYERS)],
            head_names=[t("real_model.head_n", head=h + 1) for h in range(N_HEADS)],
            query_label=t("real_model.query_word"), key_label=t("real_model.key_word"), value_name=names["value_name"],
        )  # fmt: skip
    if kind == "head":
        z, rows, cols = head_numbers(w, layer, head)
        return figs.head_map(z, rows, cols, **names)
    return figs.share_map(w["share"], layer_title=t("real_model.layer_word"), head_title=t("real_model.head_word"),
                          value_name=t("real_model.share"))  # fmt: skip


# --- Streamlit caches -------------------------------------------------------------------------------
# Kept by reference (cache_resource), never copied: a 256-piece text's maps are 19 MB. Shared by every
# session and never modified (view() makes its arrays read-only; show_figure copies a figure before
# restyling it). The wrappers are one line each because Streamlit reads a cached function's source on
# every rerun to key its cache; the work lives in the plain functions above (after editing those
# during development, clear the cache or restart).


@st.cache_resource(show_spinner=False)
def encoder():
    return load_minilm()  # the 91 MB model, once per server process


@st.cache_resource(max_entries=4, show_spinner=t("real_model.encoding"))  # a spinner only while it runs
def encoded(text: str) -> dict:
    return encode_text(text)


@st.cache_resource(max_entries=6, show_spinner=False)
def view(source: tuple, hide: bool) -> dict:
    return build_view(source, hide)


@st.cache_resource(show_spinner=False)
def anchors() -> dict:
    return find_anchors()


@st.cache_resource(max_entries=48, show_spinner=False)
def figure(kind: str, source: tuple, hide: bool, lang: str, layer: int, head: int):
    return build_figure(kind, source, hide, layer, head)  # lang: the labels' language, part of the key


def keep_valid(key: str, options, default) -> None:
    """A control whose options just changed (another sentence) must not hold a value no longer offered."""
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default


def show_head(layer: int, head: int) -> None:
    """A "show" button's callback: select (layer, head), 0-based, before the sliders are drawn."""
    st.session_state["rm_layer"], st.session_state["rm_head"] = layer + 1, head + 1


def job_line(text: str, layer: int, head: int, key: str) -> None:
    """A finding in words, with a button that shows its head large."""
    left, right = st.columns([5, 1], vertical_alignment="center")
    left.markdown(text)
    right.button(t("real_model.show"), key=key, on_click=show_head, args=(layer, head), width="stretch",
                 icon=":material/visibility:")  # fmt: skip


def numbers(key: str, label_key: str):
    """An expander whose tables are built only while it is open (on_change="rerun")."""
    return st.expander(t(label_key), key=key, on_change="rerun", icon=":material/table:")


# --- text ---------------------------------------------------------------------------------------

widgets.page_header("real_model")
available = minilm_available()
a = anchors()
A_LAYER, A_HEAD, A_IT, A_NOUN = a["animal"]

# --- presets and controls -------------------------------------------------------------------------

p_layer, p_head = a["previous"]
long_source = {"rm_ex": OWN, "rm_text": LONG_TEXT} if available else {"rm_ex": a["longest"], **a["longest_link"]}
with st.expander(t("real_model.controls"), icon=":material/tune:") if is_lecture() else st.container():
    widgets.presets(
        {
            "seeds": {"rm_ex": SEEDS_EX, "rm_layer": a["saw"][0] + 1, "rm_head": a["saw"][1] + 1, "rm_hide": False,
                      "rm_q": a["saw"][2], "rm_k": a["saw"][3]},
            "long": {**long_source, "rm_layer": p_layer + 1, "rm_head": p_head + 1, "rm_hide": True},
            "animal": {"rm_ex": DEFAULT_EX, "rm_layer": A_LAYER + 1, "rm_head": A_HEAD + 1, "rm_hide": False,
                       "rm_q": A_IT, "rm_k": A_NOUN},
        },
        key="rm_preset",
        format_func=lambda p: t(f"real_model.preset_{p}"),
    )  # fmt: skip
    c_text, c_hide = st.columns([3, 1], vertical_alignment="bottom")
    with c_text:
        sentences = [*EXAMPLES, OWN] if available else list(EXAMPLES)
        choice = controls.selectbox(
            t("real_model.sentence"), sentences, key="rm_ex", default=DEFAULT_EX,
            format_func=lambda s: t("real_model.own_text") if s == OWN else EXAMPLES[s].text,
        )  # fmt: skip
        text = ""
        if available:  # drawn even while an example is chosen, so that a preset can fill it and the link keep it
            text = controls.text_input(t("real_model.text"), OWN_DEFAULT, key="rm_text", disabled=choice != OWN,
                                       help=t("real_model.text_help"))  # fmt: skip
    with c_hide:
        hide = controls.toggle(t("real_model.hide"), False, key="rm_hide", help=t("real_model.hide_help"))
    c_layer, c_head = st.columns(2)
    with c_layer:
        layer = controls.slider(t("real_model.layer"), 1, N_LAYERS, A_LAYER + 1, key="rm_layer",
                                help=t("real_model.layer_help")) - 1  # fmt: skip
    with c_head:
        head = controls.slider(t("real_model.head"), 1, N_HEADS, A_HEAD + 1, key="rm_head",
                               help=t("real_model.head_help")) - 1  # fmt: skip
    if not available:
        st.caption(t("real_model.enable_free_text", n=len(EXAMPLES)))

# --- core call ------------------------------------------------------------------------------------

source = ("shipped", choice) if choice != OWN else ("text", text)
if choice == OWN:
    fallback = ("text", OWN_DEFAULT)
    if not text.strip():
        st.info(t("common.empty_text", example=OWN_DEFAULT), icon=":material/info:")
        source = fallback
    else:
        try:
            read = source_maps(source)[0]
            if special_positions(read).all():  # only [CLS] [SEP]: e.g. zero-width or control characters
                st.info(t("common.no_tokens", example=OWN_DEFAULT), icon=":material/info:")
                source = fallback
        except ValueError:  # a lone surrogate: the only text the tokenizer cannot read
            st.info(t("real_model.unreadable", example=OWN_DEFAULT), icon=":material/info:")
            source = fallback
v = view(source, hide)
tokens, kept, special = v["tokens"], v["kept"], v["special"]
T, T_shown = len(tokens), len(kept)
n_grid, n_map = min(T_shown, GRID_MAX), min(T_shown, MAP_MAX)
share = v["share"]  # [L, H]
parking = int((share > PARKED).sum())
lang = current_lang()

if source[0] == "shipped":
    st.caption(t("real_model.shipped_note"))
if v["truncated"]:
    st.warning(t("real_model.truncated", limit=encoder().max_tokens), icon=":material/content_cut:")
if T_shown > GRID_MAX:
    st.caption(t("real_model.drawn_cut", total=T_shown, grid=n_grid, map=n_map))
n_unk = tokens.count("[UNK]")
if n_unk:
    st.info(t("real_model.unk_note", n=n_unk, T=T), icon=":material/translate:")

# --- 1: all 72 heads ----------------------------------------------------------------------------------

st.subheader(t("real_model.grid_title"))
widgets.show_figure(figure("grid", source, hide, lang, layer, head), key="rm_grid",
                    alt=t("real_model.grid_alt", T=n_grid, layer=layer + 1, head=head + 1))  # fmt: skip
st.markdown(t("real_model.grid_body"))
if hide:
    st.caption(t("real_model.grid_hidden"))
else:
    st.caption(t("real_model.grid_sink", n=parking, total=N_LAYERS * N_HEADS))
with numbers("rm_num_grid", "real_model.grid_numbers") as box:
    if box.open:
        names = [label(int(p), tokens) for p in kept[:n_grid]]
        block = v["maps"][:, :, :n_grid, :n_grid].reshape(-1, n_grid)  # [L·H·n, n]
        grid_table = pd.DataFrame(block, columns=names)
        grid_table.insert(0, t("real_model.query"), names * (N_LAYERS * N_HEADS))
        grid_table.insert(0, t("real_model.head_word"), np.tile(np.repeat(np.arange(1, N_HEADS + 1), n_grid), N_LAYERS))
        grid_table.insert(0, t("real_model.layer_word"), np.repeat(np.arange(1, N_LAYERS + 1), N_HEADS * n_grid))
        widgets.show_table(grid_table, key="rm_grid_table", filename="all_heads.csv")

# --- 2: one head up close ---------------------------------------------------------------------------

st.subheader(t("real_model.head_title", layer=layer + 1, head=head + 1))
z, row_labels, col_labels = head_numbers(v, layer, head)
sums = z.sum(axis=1)  # [n]
jobs = ", ".join(
    t("real_model.job_share", job=t(f"real_model.pattern_{p}"), share=f"{s:.2f}")
    for p, s in zip(PATTERNS, v["patterns"][layer, head], strict=True)
    if not np.isnan(s)
)
st.markdown(t("real_model.head_body", share=f"{share[layer, head]:.0%}", jobs=jobs))
widgets.show_figure(figure("head", source, hide, lang, layer, head), key="rm_head_map",
                    alt=t("real_model.head_alt", layer=layer + 1, head=head + 1, T=len(row_labels)))  # fmt: skip
live = sums > 0
lo, hi = f"{sums[live].min():.4f}", f"{sums[live].max():.4f}"
if lo == hi:  # "from 1.0000 to 1.0000" would read as a range
    st.markdown(t("real_model.row_sums_equal", total=lo))
else:
    st.markdown(t("real_model.row_sums", lo=lo, hi=hi))
if T_shown > n_map:
    st.caption(t("real_model.rest_note", n=n_map, total=T_shown))
if hide:
    st.caption(t("real_model.hidden_note"))
    if v["empty_rows"]:
        st.caption(t("real_model.empty_rows", n=v["empty_rows"]))
with numbers("rm_num_head", "real_model.head_numbers") as box:
    if box.open:
        head_table = pd.DataFrame(z, index=row_labels, columns=col_labels)
        head_table.insert(0, t("real_model.row_sum"), sums)
        widgets.show_table(head_table, key="rm_head_table", filename=f"layer{layer + 1}_head{head + 1}.csv",
                           caption=t("real_model.head_table"))  # fmt: skip

# --- 3: why [CLS] and [SEP] soak up attention ---------------------------------------------------------

st.subheader(t("real_model.sink_title"))
st.markdown(t("real_model.sink_body"))
top_l, top_h = v["top_park"]
st.markdown(t("real_model.sink_numbers", n=parking, total=N_LAYERS * N_HEADS, mean=f"{share.mean():.0%}",
              layer=top_l + 1, head=top_h + 1, top=f"{share[top_l, top_h]:.0%}"))  # fmt: skip
st.markdown(f"**{t('real_model.share_fig_title')}**")
widgets.show_figure(figure("share", source, hide, lang, 0, 0), key="rm_share", numbers_on_phones=False,
                    alt=t("real_model.share_alt", n=parking, total=N_LAYERS * N_HEADS))  # fmt: skip
with numbers("rm_num_share", "real_model.share_numbers") as box:
    if box.open:
        share_table = pd.DataFrame(
            share, index=[t("real_model.layer_n", layer=i + 1) for i in range(N_LAYERS)],
            columns=[t("real_model.head_n", head=h + 1) for h in range(N_HEADS)],
        )  # fmt: skip
        widgets.show_table(share_table, key="rm_share_table", filename="cls_sep_share.csv")
st.button(t("real_model.show_parking", layer=top_l + 1, head=top_h + 1), key="rm_go_park", on_click=show_head,
          args=(top_l, top_h), icon=":material/visibility:")  # fmt: skip
widgets.formula_and_code(
    r"\begin{aligned} s_i &= \sum_{j \in S} \alpha_{ij} \quad S = \{\mathrm{[CLS]}, \mathrm{[SEP]}\} \\"
    r" \alpha'_{ij} &= \frac{\alpha_{ij}}{\sum_{l \notin S} \alpha_{il}} = \frac{\alpha_{ij}}{1 - s_i}"
    r" \quad (i, j \notin S) \end{aligned}",
    special_share,
    hide_tokens,
)

# --- 4: heads with a recognisable job -----------------------------------------------------------------

st.subheader(t("real_model.jobs_title"))
st.markdown(t("real_model.jobs_body"))
weak = []
for pattern, jl, jh, job_share in v["jobs"]:
    found = t(f"real_model.found_{pattern}", layer=jl + 1, head=jh + 1, share=f"{job_share:.2f}")
    if job_share >= CLEAR_JOB:
        job_line(found, jl, jh, f"rm_go_{pattern}")
    else:  # no button for a job nobody does
        weak.append(t("real_model.weak_job", found=found, clear=f"{CLEAR_JOB:.2f}"))
if weak:
    st.markdown("\n\n".join(weak))
if v["apart"] is not None:
    first, second, dl, dh, apart = v["apart"]
    job_line(
        t("real_model.found_apart", token=widgets.escape_markdown(tokens[first]), i=first, j=second, layer=dl + 1,
          head=dh + 1, apart=f"{apart:.2f}"),
        dl, dh, "rm_go_apart",
    )  # fmt: skip
widgets.formula_and_code(
    r"\begin{aligned} \mathrm{previous}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \alpha^{h}_{i,\,i-1} \\"
    r" \mathrm{next}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \alpha^{h}_{i,\,i+1} \\"
    r" \mathrm{self}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \alpha^{h}_{i,\,i} \\"
    r" \mathrm{same}_h &= \tfrac{1}{|W|} \textstyle\sum_{i \in W} \sum_{j \ne i,\ t_j = t_i} \alpha^{h}_{i,\,j}"
    r" \end{aligned}",
    pattern_shares,
)

# Find a head: which head links this word to that one most strongly?
st.markdown(f"**{t('real_model.find_title')}**")
words = [int(p) for p in np.flatnonzero(~special)]  # full positions of the word pieces
index_of = {int(p): i for i, p in enumerate(kept)}  # full position -> row of the shown maps
if source == ("shipped", DEFAULT_EX):  # the page's key effect: "it" -> "animal"
    default_q, default_k = A_IT, A_NOUN
else:
    default_q = tokens.index("it") if "it" in tokens else words[-1]
    links = v["maps"][:, :, index_of[default_q]].max(axis=(0, 1))  # [T'] strongest link from the query, any head
    # Neighbours win trivially (the previous-token head gives them ~1): default to the strongest link
    # to a word at least two places away.
    far = [p for p in words if abs(p - default_q) > 1] or words
    default_k = max(far, key=lambda p: links[index_of[p]])
keep_valid("rm_q", words, default_q)
keep_valid("rm_k", words, default_k)
c_q, c_k = st.columns(2)
with c_q:
    q = controls.selectbox(t("real_model.find_query"), words, key="rm_q", default=default_q,
                           format_func=lambda p: label(p, tokens))  # fmt: skip
with c_k:
    k = controls.selectbox(t("real_model.find_key"), words, key="rm_k", default=default_k,
                           format_func=lambda p: label(p, tokens))  # fmt: skip
link = v["maps"][:, :, index_of[q], index_of[k]]  # [L, H]
fl, fh = np.unravel_index(int(np.argmax(link)), link.shape)
row = v["maps"][fl, fh, index_of[q]]  # [T']
top = int(kept[int(np.argmax(row))])
job_line(
    t("real_model.found_link", q=widgets.escape_markdown(label(q, tokens)), k=widgets.escape_markdown(label(k, tokens)),
      layer=fl + 1, head=fh + 1, weight=f"{link[fl, fh]:.2f}", top=widgets.escape_markdown(label(top, tokens)),
      top_weight=f"{row.max():.2f}"),
    int(fl), int(fh), "rm_go_link",
)  # fmt: skip

# --- 5: check yourself ------------------------------------------------------------------------------

raw = source_maps(source)[1]  # [L, H, T, T], [CLS]/[SEP] included
ask = words[len(words) // 2]  # a word from the middle of the text
if len(words) >= 2 and v["previous"] is not None:
    pl, ph, previous_share = v["previous"]
    guess_row = raw[pl, ph, ask]  # [T]
    best = int(np.argmax(guess_row))
    options = [str(o) for o in sorted({ask - 1, ask, min(ask + 1, T - 1), 0, T - 1, best})]
    keep_valid("rm_check", ["", *options], "")
    widgets.check_choice(
        t("real_model.check_q", layer=pl + 1, head=ph + 1, share=f"{previous_share:.2f}",
          query=widgets.escape_markdown(label(ask, tokens))),
        options, str(best), key="rm_check", format_func=lambda o: widgets.escape_markdown(label(int(o), tokens)),
        explanation=t("real_model.check_expl", best=widgets.escape_markdown(label(best, tokens)),
                      weight=f"{guess_row[best]:.3f}", layer=pl + 1, head=ph + 1),
    )  # fmt: skip
parked = float(special_share(raw[layer, head], special)[ask])
widgets.check_number(
    t("real_model.number_q", layer=layer + 1, head=head + 1, query=widgets.escape_markdown(label(ask, tokens))),
    parked, key="rm_num", tolerance=0.01,
    explanation=t("real_model.number_expl", share=f"{parked:.3f}", rest=f"{1 - parked:.3f}"),
)  # fmt: skip
