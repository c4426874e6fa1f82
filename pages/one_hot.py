"""One-hot vs embedding (独热编码与词嵌入): how a word becomes a vector, why learned vectors carry
meaning that one-hot vectors cannot (seed 001's cat, dog and apple), what each costs, and how a
sentence, a sound, a molecule or a network all become a sequence of vectors."""

from types import FunctionType

import numpy as np
import pandas as pd
import streamlit as st

from attention_core import cosine_similarity, one_hot, pca
from attention_core.sequences import (
    ELEMENTS,
    HOP_MS,
    MOLECULES,
    NETWORK_FRIENDSHIPS,
    NETWORK_PEOPLE,
    WINDOW_MS,
    adjacency_vectors,
    atom_labels,
    atom_vectors,
    embedding_lookup,
    frame_count,
    frame_starts,
    representation_sizes,
    toy_sound,
)
from attention_core.shipped import load_vocabulary
from lab_ui import controls, widgets
from lab_ui.figures import one_hot as figs
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

DEFAULT_WORDS = ["cat", "dog", "apple", "banana", "run", "walk"]
MAX_WORDS = 24
V_OPTIONS = [10, 100, 200, 1_000, 10_000, 30_522, 50_257, 100_000, 250_000, 1_000_000]
D_OPTIONS = [2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 2048, 4096]
SEQUENCE_KINDS = ["sentence", "sound", "molecule", "network"]
SAMPLE_RATE = 16_000  # Hz, what speech models usually read
SHOWN_MS = 100  # the window figure shows the first 100 ms: longer, and 25 ms windows are slivers
QUIZ_MS = 3_000  # the check-yourself asks about a sound of this length

voc = load_vocabulary()
LANG = current_lang()
# The word as the model reads it; in Chinese mode with its gloss. Built once: 200 options.
WORD_LABELS = dict(zip(voc.words, voc.words, strict=True))
if LANG == "zh":
    WORD_LABELS = {w: f"{w} {g}" for w, g in zip(voc.words, voc.glosses_zh, strict=True)}
GROUP_NAMES = {g: t(f"one_hot.group_{g}") for g in voc.group_ids}
word_label = WORD_LABELS.__getitem__


def numbers_box(label_key: str, key: str):
    """A folded table behind a figure, built only when opened: a table costs milliseconds on every
    rerun even while folded, and most visits never open it."""
    return st.expander(t(label_key), key=key, on_change="rerun", icon=":material/table:")


def controls_box():
    """In lecture mode the controls fold away so the figures fill the projector."""
    return st.expander(t("one_hot.controls"), icon=":material/tune:") if is_lecture() else st.container()


# A builder is known by its name and code, so editing one invalidates what it built.
@st.cache_resource(show_spinner=False, max_entries=256,
                   hash_funcs={FunctionType: lambda f: (f.__qualname__, hash(f.__code__))})  # fmt: skip
def cached(builder: FunctionType, *key):
    """builder(*key), computed once per key for all sessions. The core results and the figures of
    this page are cached on small keys (words, sizes, the language, lecture mode): with Plotly,
    building a figure costs more than sending it, and moving one slider should not rebuild the
    figures it does not change. One cache for all of them, because declaring each cache costs a
    little on every rerun. Nothing returned is ever changed (show_figure copies a figure before
    restyling it for lecture mode; the arrays are made read-only)."""
    return builder(*key)


def words_as_vectors(words: tuple[str, ...]):
    """One-hot and learned vectors of the picked words and their cosine similarities."""
    idx = np.array([voc.index(w) for w in words], dtype=int)  # [n]
    onehots = one_hot(idx, len(voc.words))  # [n, V]
    learned = voc.vectors[idx]  # [n, d]
    looked_up = embedding_lookup(idx, voc.vectors)  # [n, d], the same rows by matrix product
    out = idx, onehots, cosine_similarity(onehots), learned, cosine_similarity(learned), looked_up
    for a in out:
        a.setflags(write=False)
    return out


def word_figures(words: tuple[str, ...], lang: str, big: bool):
    """The one-hot rows and the two similarity matrices (lang only keys the cache)."""
    _, onehots, oh_sim, _, learned_sim, _ = words_as_vectors(words)
    labels = [word_label(w) for w in words]
    zmin = min(0.0, float(oh_sim.min()), float(learned_sim.min()))  # one colour scale for both
    vectors = figs.one_hot_rows(
        onehots, labels, list(WORD_LABELS.values()), voc.groups, GROUP_NAMES,
        x_title=t("one_hot.vocab_axis", V=len(voc.words)), value_name=t("one_hot.value"),
        position_text=t("one_hot.position"), big=big,
    )  # fmt: skip
    sims = [
        figs.similarity(sim, labels, title=title, axis_title=t("one_hot.word"), value_name=t("one_hot.cosine"),
                        zmin=zmin, big=big)
        for sim, title in ((oh_sim, t("one_hot.sim_onehot_title")),
                           (learned_sim, t("one_hot.sim_learned_title", d=voc.vectors.shape[1])))
    ]  # fmt: skip
    return vectors, *sims


def vocabulary_map(groups: tuple[str, ...], words: tuple[str, ...], lang: str, big: bool):
    """PCA of the vectors of the words in `groups`, and its map with `words` ringed."""
    rows = np.array([i for i, g in enumerate(voc.groups) if g in groups], dtype=int)  # [n]
    result = pca(voc.vectors[rows], 2)
    position = {int(r): k for k, r in enumerate(rows)}
    ratio = result.explained_variance_ratio
    fig = figs.vocabulary_map(
        result.coords, [f"{word_label(voc.words[r])} · {GROUP_NAMES[voc.groups[r]]}" for r in rows],
        [voc.groups[r] for r in rows], voc.group_ids, GROUP_NAMES, [position[voc.index(w)] for w in words],
        [word_label(w) for w in words], x_title=t("one_hot.pc_axis", k=1, share=100 * ratio[0]),
        y_title=t("one_hot.pc_axis", k=2, share=100 * ratio[1]), picked_name=t("one_hot.picked"),
        height=720 if big else 560, big=big,
    )  # fmt: skip
    return rows, result, fig


def sizes_figure(V: int, d: int, T: int, lang: str):
    s = representation_sizes(V, d, T)
    return figs.sizes(
        [t("one_hot.cat_vector"), t("one_hot.cat_sentence", T=T), t("one_hot.cat_parameters")],
        [s.V, s.one_hot_sentence, s.one_hot_parameters], [s.d, s.embedding_sentence, s.table_parameters],
        one_hot_name=t("one_hot.onehot"), embedding_name=t("one_hot.embedding"), y_title=t("one_hot.count_axis"),
        zero_text=t("one_hot.zero_params"),
    )  # fmt: skip


def sequence_figures(kind: str, choice, words: tuple[str, ...], lang: str):
    """The figure(s) of one example of section 4; `choice` is the sound's length or the molecule."""
    if kind == "sentence":
        learned = cached(words_as_vectors, words)[3]  # [T, d]
        return (figs.wide_heatmap(learned, [word_label(w) for w in words], x_title=t("one_hot.dimension"),
                                  y_title=t("one_hot.word"), value_name=t("one_hot.value")),)  # fmt: skip
    if kind == "sound":
        shown = min(choice, SHOWN_MS)
        x = toy_sound(shown, SAMPLE_RATE)  # [N]
        t_ms = np.arange(x.size) * 1000.0 / SAMPLE_RATE  # [N]
        return (figs.audio_windows(t_ms, x, frame_starts(shown), WINDOW_MS, x_title=t("one_hot.time_ms"),
                                   signal_name=t("one_hot.signal"), frame_text=t("one_hot.frame_hover"),
                                   window_text=t("one_hot.window_note", window=WINDOW_MS),
                                   hop_text=t("one_hot.hop_note", hop=HOP_MS)),)  # fmt: skip
    if kind == "molecule":
        atoms = MOLECULES[choice]
        return (figs.binary_rows(atom_vectors(atoms), atom_labels(atoms), [t(f"one_hot.element_{e}") for e in ELEMENTS],
                                 x_title=t("one_hot.element"), y_title=t("one_hot.atom"),
                                 value_name=t("one_hot.value")),)  # fmt: skip
    A = adjacency_vectors(NETWORK_PEOPLE, NETWORK_FRIENDSHIPS)  # [n, n]
    return (figs.network(NETWORK_PEOPLE, A, friends_name=t("one_hot.friends")),
            figs.binary_rows(A, NETWORK_PEOPLE, NETWORK_PEOPLE, x_title=t("one_hot.friend_of"),
                             y_title=t("one_hot.person"), value_name=t("one_hot.value")))  # fmt: skip


widgets.page_header("one_hot")

widgets.presets(
    {
        "seeds": {"oh_words": ["cat", "dog", "apple", "run"], "oh_V": 200, "oh_d": 4, "oh_T": 4},
        "groups": {"oh_words": ["cat", "dog", "tiger", "horse", "apple", "banana", "pear", "grape"],
                   "oh_V": 30_522, "oh_d": 384, "oh_T": 8, "oh_map": "picked"},
        "many": {"oh_words": [voc.words[i] for i in range(0, len(voc.words), 10)], "oh_V": 1_000_000,
                 "oh_d": 4096, "oh_T": 2048, "oh_map": "all"},
    },
    key="oh_preset",
    format_func=lambda p: t(f"one_hot.preset_{p}"),
)  # fmt: skip

# --- 1. words as vectors ------------------------------------------------------------------------------
st.header(t("one_hot.words_header"))
st.markdown(t("one_hot.words_intro", V=len(voc.words), d=voc.vectors.shape[1]))
with controls_box():
    picked = controls.multiselect(
        t("one_hot.words_label"), list(voc.words), key="oh_words", default=DEFAULT_WORDS, format_func=word_label,
        max_selections=MAX_WORDS, help=t("one_hot.words_help", n=MAX_WORDS),
    )  # fmt: skip
words = tuple(picked)
if len(words) < 2:
    st.info(t("one_hot.need_two", words=", ".join(DEFAULT_WORDS)), icon=":material/info:")
    words = tuple(DEFAULT_WORDS)
labels = [word_label(w) for w in words]
idx, onehots, oh_sim, learned, learned_sim, looked_up = cached(words_as_vectors, words)
vectors_fig, sim_onehot_fig, sim_learned_fig = cached(word_figures, words, LANG, is_lecture())

widgets.show_figure(vectors_fig, key="one_hot_vectors", alt=t("one_hot.vectors_alt", n=len(words), V=len(voc.words)))
box = numbers_box("one_hot.vectors_table", "oh_x_vectors")
if box.open:
    # Each one-hot vector in full, in four numbers: listing its V - 1 zeros would help no screen reader.
    with box:
        widgets.show_table(
            pd.DataFrame({t("one_hot.word"): labels, t("one_hot.col_position"): idx,
                          t("one_hot.col_length"): len(voc.words),
                          t("one_hot.col_ones"): onehots.sum(axis=1).astype(int),
                          t("one_hot.col_zeros"): (onehots == 0).sum(axis=1)}),
            key="oh_vectors", filename="one_hot_vectors.csv",
        )  # fmt: skip

st.subheader(t("one_hot.sim_header"))
# Side by side on a screen; one under the other on a projector or for many words.
stacked = is_lecture() or len(words) > figs.SIDE_BY_SIDE_MAX
left, right = (st.container(), st.container()) if stacked else st.columns(2)
with left:
    widgets.show_figure(sim_onehot_fig, key="one_hot_sim_onehot", alt=t("one_hot.sim_onehot_alt"))
with right:
    widgets.show_figure(sim_learned_fig, key="one_hot_sim_learned", alt=t("one_hot.sim_learned_alt"))
n = len(words)
pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
best = max(pairs, key=lambda p: learned_sim[p])
worst = min(pairs, key=lambda p: learned_sim[p])
if len(pairs) == 1:  # two words: one pair, no "closest" and "least alike" to tell apart
    st.markdown(t("one_hot.sim_reading_two", a=labels[0], b=labels[1], learned=learned_sim[0, 1]))
else:
    st.markdown(
        t("one_hot.sim_reading", pairs=len(pairs), a=labels[best[0]], b=labels[best[1]], best=learned_sim[best],
          c=labels[worst[0]], e=labels[worst[1]], worst=learned_sim[worst])
    )  # fmt: skip
order = sorted(((i, j) for i in range(n) for j in range(i, n)), key=lambda p: -learned_sim[p])  # most alike first
box = numbers_box("one_hot.pairs_table", "oh_x_pairs")
if box.open:
    with box:
        widgets.show_table(
            pd.DataFrame({t("one_hot.col_word_1"): [labels[i] for i, _ in order],
                          t("one_hot.col_word_2"): [labels[j] for _, j in order],
                          t("one_hot.col_onehot"): [oh_sim[p] for p in order],
                          t("one_hot.col_learned"): [learned_sim[p] for p in order]}),
            key="oh_pairs", filename="cosine_similarities.csv", caption=t("one_hot.pairs_caption"),
        )  # fmt: skip
widgets.formula_and_code(
    r"\begin{aligned}\cos(\mathbf{x}, \mathbf{y}) &= "
    r"\frac{\mathbf{x}\cdot\mathbf{y}}{\lVert\mathbf{x}\rVert\,\lVert\mathbf{y}\rVert}\\[4pt]"
    r"\mathbf{e}_i\cdot\mathbf{e}_j &= 0 \quad (i \neq j)\end{aligned}",
    cosine_similarity,
)
widgets.check_number(
    t("one_hot.quiz_cos", a=labels[0], b=labels[1]),
    float(oh_sim[0, 1]),
    key="oh_q_cos",
    explanation=t("one_hot.quiz_cos_answer", a=labels[0], b=labels[1], i=int(idx[0]), j=int(idx[1]),
                  learned=learned_sim[0, 1]),
)  # fmt: skip

# --- 2. a map of the vocabulary ------------------------------------------------------------------------
st.header(t("one_hot.map_header"))
st.markdown(t("one_hot.map_intro", d=voc.vectors.shape[1]))
scope = controls.segmented(
    t("one_hot.map_scope"), ["all", "picked"], key="oh_map", format_func=lambda s: t(f"one_hot.map_{s}")
)
groups = voc.group_ids if scope == "all" else tuple(g for g in voc.group_ids if g in {voc.groups[i] for i in idx})
rows, result, map_fig = cached(vocabulary_map, groups, words, LANG, is_lecture())
widgets.show_figure(map_fig, key="one_hot_map", alt=t("one_hot.map_alt", n=len(rows), groups=len(groups)))
share = 100 * result.explained_variance_ratio.sum()
st.markdown(t("one_hot.map_reading", n=len(rows), share=share, d=voc.vectors.shape[1]))
box = numbers_box("one_hot.map_table", "oh_x_map")
if box.open:
    with box:
        widgets.show_table(
            pd.DataFrame({t("one_hot.word"): [word_label(voc.words[r]) for r in rows],
                          t("one_hot.group"): [GROUP_NAMES[voc.groups[r]] for r in rows],
                          t("one_hot.pc_col", k=1): result.coords[:, 0],
                          t("one_hot.pc_col", k=2): result.coords[:, 1]}),
            key="oh_map_coords", filename="vocabulary_map.csv",
        )  # fmt: skip
widgets.formula_and_code(
    r"\begin{aligned}X_c &= X - \bar{x}\\ X_c &= U S P^\top\\ Y &= X_c\, P_{:,1:2}\\"
    r"r_k &= \frac{s_k^2}{\sum_j s_j^2}\end{aligned}",
    pca,
)

# --- 3. how big ----------------------------------------------------------------------------------------
st.header(t("one_hot.size_header"))
st.markdown(t("one_hot.size_intro"))
with controls_box():
    c1, c2, c3 = st.columns(3)
    with c1:
        V = controls.select_slider(t("one_hot.V_label"), V_OPTIONS, 30_522, key="oh_V", help=t("one_hot.V_help"))
    with c2:
        d = controls.select_slider(t("one_hot.d_label"), D_OPTIONS, 384, key="oh_d", help=t("one_hot.d_help"))
    with c3:
        T = controls.slider(t("one_hot.T_label"), 1, 2048, 6, key="oh_T")
s = representation_sizes(V, d, T)
m1, m2, m3 = st.columns(3)
m1.metric(t("one_hot.metric_onehot_len"), f"{s.V:,}")
m2.metric(t("one_hot.metric_embedding_len"), f"{s.d:,}")
if s.length_ratio >= 1:
    m3.metric(t("one_hot.metric_ratio"), f"{s.length_ratio:,.1f}×")
else:  # a tiny vocabulary: for once the one-hot vector is the shorter one
    m3.metric(t("one_hot.metric_ratio_embedding"), f"{1 / s.length_ratio:,.1f}×")
widgets.show_figure(cached(sizes_figure, V, d, T, LANG), key="one_hot_sizes", alt=t("one_hot.sizes_alt", V=V, d=d, T=T))


def mem(n_numbers: int) -> str:
    """Bytes as float32, in decimal units."""
    size = n_numbers * s.bytes_per_number
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:,.1f} {unit}"
    return f"{size:,} B"


st.markdown(t("one_hot.size_memory", T=T, one_hot=mem(s.one_hot_sentence), embedding=mem(s.embedding_sentence),
              table=mem(s.table_parameters)))  # fmt: skip
box = numbers_box("one_hot.sizes_table", "oh_x_sizes")
if box.open:
    size_rows = [
        (t("one_hot.row_length"), f"{s.V:,}", f"{s.d:,}"),
        (t("one_hot.row_sentence", T=T), f"{s.one_hot_sentence:,}", f"{s.embedding_sentence:,}"),
        (t("one_hot.row_nonzero", T=T), f"{s.one_hot_nonzero:,}", f"{s.embedding_sentence:,}"),
        (t("one_hot.row_sentence_mem", T=T), mem(s.one_hot_sentence), mem(s.embedding_sentence)),
        (t("one_hot.row_parameters"), f"{s.one_hot_parameters:,}", f"{s.table_parameters:,}"),
        (t("one_hot.row_parameters_mem"), mem(s.one_hot_parameters), mem(s.table_parameters)),
    ]
    columns = [t("one_hot.col_quantity"), t("one_hot.onehot"), t("one_hot.embedding")]
    with box:
        widgets.show_table(pd.DataFrame(size_rows, columns=columns).set_index(columns[0]), key="oh_sizes",
                           filename="one_hot_vs_embedding_sizes.csv")  # fmt: skip
st.markdown(t("one_hot.size_reading", V=s.V, d=s.d, table=s.table_parameters))
widgets.formula_and_code(
    r"\begin{aligned}\mathbf{x}_i &= \mathbf{e}_i^\top E = E_{i,:}\\ E &\in \mathbb{R}^{V \times d}\end{aligned}",
    embedding_lookup,
)
st.caption(t("one_hot.lookup_check", n=len(words), diff=float(np.abs(looked_up - learned).max())))

# --- 4. everything is a sequence of vectors --------------------------------------------------------------
st.header(t("one_hot.seq_header"))
st.markdown(t("one_hot.seq_intro"))
kind = controls.segmented(
    t("one_hot.seq_kind"), SEQUENCE_KINDS, key="oh_seq", format_func=lambda k: t(f"one_hot.seq_{k}")
)
if kind == "sentence":
    st.markdown(t("one_hot.sentence_text", T=len(words), d=learned.shape[1], sentence=" ".join(words)))
    (fig,) = cached(sequence_figures, kind, None, words, LANG)
    widgets.show_figure(fig, key="one_hot_sentence", alt=t("one_hot.sentence_alt", T=len(words), d=learned.shape[1]))
    box = numbers_box("one_hot.sentence_table", "oh_x_sentence")
    if box.open:
        with box:  # a column per word: 384 rows read better than 384 columns
            widgets.show_table(
                pd.DataFrame(learned.T, columns=labels), key="oh_sentence", filename="sentence_vectors.csv"
            )
elif kind == "sound":
    duration = controls.slider(t("one_hot.ms_label"), 0, 5000, 1000, key="oh_ms", step=5, help=t("one_hot.ms_help"))
    n_frames, n_shown = frame_count(duration), frame_count(min(duration, SHOWN_MS))
    a1, a2, a3 = st.columns(3)
    a1.metric(t("one_hot.metric_frames"), f"{n_frames:,}")
    a2.metric(t("one_hot.metric_rate"), f"{n_frames / duration * 1000:.1f}" if duration else "—")
    a3.metric(t("one_hot.metric_frame_len"), f"{WINDOW_MS * SAMPLE_RATE // 1000}")
    st.markdown(t("one_hot.sound_text", window=WINDOW_MS, hop=HOP_MS, rate=1000 // HOP_MS, n=n_frames, ms=duration))
    if duration < WINDOW_MS:
        st.info(t("one_hot.sound_too_short", window=WINDOW_MS), icon=":material/info:")
    (fig,) = cached(sequence_figures, kind, duration, (), LANG)
    widgets.show_figure(fig, key="one_hot_sound", alt=t("one_hot.sound_alt", shown=min(duration, SHOWN_MS), k=n_shown))
    if duration > SHOWN_MS:
        st.caption(t("one_hot.sound_shown", shown=SHOWN_MS, k=n_shown, n=n_frames))
    widgets.formula_and_code(
        r"\begin{gathered}n = \begin{cases} 1 + \left\lfloor \dfrac{L - 25}{10} \right\rfloor & L \ge 25 \\[4pt]"
        r" 0 & L < 25\end{cases}\\[6pt] [L] = \text{ms}\end{gathered}",
        frame_count,
    )
    widgets.check_number(
        t("one_hot.quiz_frames", ms=QUIZ_MS), frame_count(QUIZ_MS), key="oh_q_frames", tolerance=0.001,
        explanation=t("one_hot.quiz_frames_answer", ms=QUIZ_MS, n=frame_count(QUIZ_MS),
                      last=int(frame_starts(QUIZ_MS)[-1]), rate=QUIZ_MS // HOP_MS),
    )  # fmt: skip
elif kind == "molecule":
    mol = controls.selectbox(
        t("one_hot.mol_label"), list(MOLECULES), key="oh_mol", format_func=lambda m: t(f"one_hot.mol_{m}")
    )
    atoms, name = MOLECULES[mol], t(f"one_hot.mol_{mol}")
    st.markdown(t("one_hot.mol_text", name=name, n=len(atoms), k=len(ELEMENTS)))
    (fig,) = cached(sequence_figures, kind, mol, (), LANG)
    widgets.show_figure(fig, key="one_hot_molecule", alt=t("one_hot.mol_alt", name=name, n=len(atoms)))
    widgets.show_table(
        pd.DataFrame(atom_vectors(atoms).astype(int), index=atom_labels(atoms),
                     columns=[t(f"one_hot.element_{e}") for e in ELEMENTS]),
        key="oh_molecule", filename=f"{mol}_atoms.csv",
    )  # fmt: skip
else:
    people, links = NETWORK_PEOPLE, NETWORK_FRIENDSHIPS
    st.markdown(t("one_hot.net_text", n=len(people), links=len(links)))
    graph_fig, table_fig = cached(sequence_figures, kind, None, (), LANG)
    g1, g2 = st.columns(2)
    with g1:
        widgets.show_figure(graph_fig, key="one_hot_network", alt=t("one_hot.net_alt", n=len(people), links=len(links)))
    with g2:
        widgets.show_figure(table_fig, key="one_hot_adjacency", alt=t("one_hot.adj_alt", n=len(people)))
    widgets.show_table(pd.DataFrame(adjacency_vectors(people, links).astype(int), index=people, columns=people),
                       key="oh_network", filename="network_vectors.csv")  # fmt: skip
st.markdown(t("one_hot.seq_outro"))
