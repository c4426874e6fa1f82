"""One-hot vs embedding (独热编码与词嵌入): how a word becomes a vector, why learned vectors carry
meaning that one-hot vectors cannot (article 001's cat, dog and apple), what each costs, and how a
sentence, a sound, a molecule or a network all become a sequence of vectors."""

import streamlit as st

from attention_core import sequences
from attention_core.embedding import cosine_similarity
from attention_core.shipped import load_vocabulary
from attention_core.word_map import WordVectors, centre_plane, group_cosines, group_map, groups_of, word_vectors
from lab_ui import controls, page, widgets
from lab_ui.cache import cached
from lab_ui.figures import one_hot as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

DEFAULT_WORDS = ("cat", "dog", "apple", "banana", "run", "walk")
MAX_WORDS = 24
V_OPTIONS = [10, 100, 200, 1_000, 10_000, 30_522, 50_257, 100_000, 250_000, 1_000_000]
D_OPTIONS = [2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 2048, 4096]
QUIZ_MS = 3_000  # the check-yourself asks about a sound of this length
WINDOW_MS, HOP_MS, frame_count = sequences.WINDOW_MS, sequences.HOP_MS, sequences.frame_count
voc = load_vocabulary()
PRESETS = {
    "article": {"oh_words": ["cat", "dog", "apple", "run"], "oh_V": 200, "oh_d": 4, "oh_T": 4, "oh_map": "picked"},
    "groups": {
        "oh_words": ["cat", "dog", "tiger", "horse", "apple", "banana", "pear", "grape"],
        "oh_V": 30_522,
        "oh_d": 384,
        "oh_T": 8,
        "oh_map": "picked",
    },
    "many": {"oh_words": list(voc.words[::10]), "oh_V": 1_000_000, "oh_d": 4096, "oh_T": 2048, "oh_map": "all"},
}

frame = page.start("one_hot", presets=PRESETS)
lang, big = current_lang(), is_lecture()
with frame.controls():
    picked = controls.multiselect(
        t("one_hot.words_label"),
        list(voc.words),
        key="oh_words",
        default=DEFAULT_WORDS,
        max_selections=MAX_WORDS,
        format_func=figures.word_labels(lang).__getitem__,
        help=t("one_hot.words_help", n=MAX_WORDS),
    )
if len(picked) < 2:
    st.info(t("one_hot.need_two", words=", ".join(DEFAULT_WORDS)), icon=":material/info:")
view = cached(word_vectors, tuple(picked) if len(picked) >= 2 else DEFAULT_WORDS)


@st.fragment
def vectors_section(view: WordVectors) -> None:
    frame.heading("vectors")
    _, figure_box = page.opening(t("one_hot.vectors_body", V=len(voc.words), d=view.learned.shape[1]))
    with figure_box:
        widgets.show_figure(
            cached(figures.one_hot_rows, view, lang, big),
            key="one_hot_vectors",
            alt=t("one_hot.vectors_alt", n=len(view.words), V=len(voc.words)),
        )
    page.folded_table(
        t("one_hot.vectors_table"),
        "oh_x_vectors",
        figures.vectors_table,
        view,
        lang,
        key="oh_vectors",
        filename="one_hot_vectors.csv",
    )


@st.fragment
def similarity_section(view: WordVectors) -> None:
    frame.heading("similarity")
    _, figure_box = page.opening(t("one_hot.similarity_body"))
    labels, sim = [figures.word_label(w, lang) for w in view.words], view.learned_similarity
    left, right = figure_box.columns(2) if big or len(labels) <= figures.SIDE_BY_SIDE_MAX else (figure_box, figure_box)
    with left:
        widgets.show_figure(
            cached(figures.similarity, view, "one_hot", lang, big),
            key="one_hot_sim_onehot",
            alt=t("one_hot.sim_onehot_alt"),
        )
    with right:
        widgets.show_figure(
            cached(figures.similarity, view, "learned", lang, big),
            key="one_hot_sim_learned",
            alt=t("one_hot.sim_learned_alt"),
        )
    (a, b), (c, e) = view.closest, view.least
    if len(labels) == 2:  # one pair: no "closest" and "least alike" to tell apart
        st.markdown(t("one_hot.sim_reading_two", a=labels[0], b=labels[1], learned=sim[0, 1]))
    else:
        st.markdown(
            t(
                "one_hot.sim_reading",
                pairs=len(labels) * (len(labels) - 1) // 2,
                a=labels[a],
                b=labels[b],
                best=sim[a, b],
                c=labels[c],
                e=labels[e],
                worst=sim[c, e],
            )
        )
    page.folded_table(
        t("one_hot.pairs_table"),
        "oh_x_pairs",
        figures.pairs_table,
        view,
        lang,
        key="oh_pairs",
        filename="cosine_similarities.csv",
        caption=t("one_hot.pairs_caption"),
    )
    widgets.formula_and_code(
        r"\begin{aligned}\cos(\mathbf{x}, \mathbf{y}) &= "
        r"\frac{\mathbf{x}\cdot\mathbf{y}}{\lVert\mathbf{x}\rVert\,\lVert\mathbf{y}\rVert}\\[4pt]"
        r"\mathbf{e}_i\cdot\mathbf{e}_j &= 0 \quad (i \neq j)\end{aligned}",
        cosine_similarity,
    )
    widgets.check_number(
        t("one_hot.quiz_cos", a=labels[0], b=labels[1]),
        float(view.one_hot_similarity[0, 1]),
        key="oh_q_cos",
        explanation=t(
            "one_hot.quiz_cos_answer",
            a=labels[0],
            b=labels[1],
            i=int(view.indices[0]),
            j=int(view.indices[1]),
            learned=sim[0, 1],
        ),
    )


@st.fragment
def map_section(view: WordVectors) -> None:
    frame.heading("map")
    controls_box, figure_box = page.opening(t("one_hot.map_body", d=view.learned.shape[1]))
    with controls_box:
        scope = controls.segmented(
            t("one_hot.map_scope"),
            ["picked", "all"],
            key="oh_map",
            default="picked",
            format_func=lambda s: t(f"one_hot.map_{s}"),
        )
    gmap = cached(group_map, voc.group_ids if scope == "all" else cached(groups_of, view.words))
    k = len(gmap.group_ids)
    left, right = figure_box.columns([1, 1] if big else [3, 2])
    with left:
        widgets.show_figure(
            cached(figures.vocabulary_map, gmap, view.words, lang, big),
            key="one_hot_map",
            alt=t("one_hot.map_alt", n=len(gmap.rows), groups=k),
        )
    with right:
        widgets.show_figure(
            cached(figures.group_cosines, gmap, lang, big), key="one_hot_groups", alt=t("one_hot.blocks_alt", groups=k)
        )
    m1, m2 = st.columns(2)
    m1.metric(t("one_hot.metric_within"), f"{gmap.within:.3f}", help=t("one_hot.metric_within_help", n=gmap.n_within))
    m2.metric(
        t("one_hot.metric_between"),
        "—" if k == 1 else f"{gmap.between:.3f}",
        help=t("one_hot.metric_between_help", n=gmap.n_between),
    )
    st.markdown(
        t(
            "one_hot.map_reading_one" if k == 1 else "one_hot.map_reading",
            d=view.learned.shape[1],
            groups=k,
            within=gmap.within,
            between=gmap.between,
            kept=100 * gmap.kept,
            centres=100 * gmap.centre_share,
        )
    )
    page.folded_table(
        t("one_hot.map_table"),
        "oh_x_map",
        figures.map_table,
        gmap,
        lang,
        key="oh_map_coords",
        filename="vocabulary_map.csv",
        missing="—",
    )
    widgets.formula_and_code(
        r"\begin{aligned}\text{within} &= \operatorname*{mean}_{i \neq j,\ g_i = g_j} \cos(\mathbf{x}_i, \mathbf{x}_j)"
        r"\\ \text{between} &= \operatorname*{mean}_{g_i \neq g_j} \cos(\mathbf{x}_i, \mathbf{x}_j)\\[6pt]"
        r"\mathbf{m}_g &= \sqrt{n_g}\,\big(\bar{\mathbf{x}}_g - \bar{\mathbf{x}}\big)\\"
        r"M = [\mathbf{m}_g]_g &= U S A^\top\\"
        r"\mathbf{y}_i &= (\mathbf{x}_i - \bar{\mathbf{x}})\, A_{:,1:2}\end{aligned}",
        group_cosines,
        centre_plane,
    )


@st.fragment
def sizes_section(view: WordVectors) -> None:
    frame.heading("sizes")
    controls_box, figure_box = page.opening(t("one_hot.size_body"))
    with controls_box, page.section_controls():
        V = controls.select_slider(t("one_hot.V_label"), V_OPTIONS, 30_522, key="oh_V", help=t("one_hot.V_help"))
        d = controls.select_slider(t("one_hot.d_label"), D_OPTIONS, 384, key="oh_d", help=t("one_hot.d_help"))
        T = controls.slider(t("one_hot.T_label"), 1, 2048, 6, key="oh_T")
    s = cached(sequences.representation_sizes, V, d, T)
    with figure_box:
        widgets.show_figure(
            cached(figures.sizes, s, lang, big), key="one_hot_sizes", alt=t("one_hot.sizes_alt", V=V, d=d, T=T)
        )
    m1, m2, m3 = st.columns(3)
    m1.metric(t("one_hot.metric_onehot_len"), f"{s.V:,}")
    m2.metric(t("one_hot.metric_embedding_len"), f"{s.d:,}")
    m3.metric(t(f"one_hot.metric_ratio_{s.longer}"), f"{s.longer_by:,.1f}×")  # a tiny vocabulary: the embedding
    st.markdown(t("one_hot.size_memory", T=T, **figures.memory(s)))
    page.folded_table(
        t("one_hot.sizes_table"),
        "oh_x_sizes",
        figures.sizes_table,
        s,
        lang,
        key="oh_sizes",
        filename="one_hot_vs_embedding_sizes.csv",
    )
    st.markdown(t("one_hot.size_reading", V=s.V, d=s.d, table=s.table_parameters))
    widgets.formula_and_code(
        r"\begin{aligned}\mathbf{x}_i &= \mathbf{e}_i^\top E = E_{i,:}\\ E &\in \mathbb{R}^{V \times d}\end{aligned}",
        sequences.embedding_lookup,
    )
    st.caption(t("one_hot.lookup_check", n=len(view.words), diff=view.lookup_difference))


@st.fragment
def sequences_section(view: WordVectors) -> None:
    frame.heading("sequences")
    controls_box, figure_box = page.opening(t("one_hot.seq_body"))
    with controls_box:
        kind = controls.segmented(
            t("one_hot.seq_kind"),
            ["sentence", "sound", "molecule", "network"],
            key="oh_seq",
            format_func=lambda k: t(f"one_hot.seq_{k}"),
        )
    if kind == "sentence":
        T, d = view.learned.shape
        with figure_box:
            widgets.show_figure(
                cached(figures.sentence, view, lang, big),
                key="one_hot_sentence",
                alt=t("one_hot.sentence_alt", T=T, d=d),
            )
        st.markdown(t("one_hot.sentence_text", T=T, d=d, sentence=" ".join(view.words)))
        page.folded_table(
            t("one_hot.sentence_table"),
            "oh_x_sentence",
            figures.sentence_table,
            view,
            lang,
            key="oh_sentence",
            filename="sentence_vectors.csv",
        )
    elif kind == "sound":
        sound_example(controls_box, figure_box)
    else:
        graph_example(kind, controls_box, figure_box)
    st.markdown(t("one_hot.seq_outro"))


def sound_example(controls_box, figure_box) -> None:
    with controls_box:
        duration = controls.slider(t("one_hot.ms_label"), 0, 5000, 1000, key="oh_ms", step=5, help=t("one_hot.ms_help"))
    sound, shown = cached(sequences.sound_frames, duration), min(duration, figures.SHOWN_MS)
    with figure_box:
        widgets.show_figure(
            cached(figures.sound, duration, lang),
            key="one_hot_sound",
            alt=t("one_hot.sound_alt", shown=shown, k=frame_count(shown)),
        )
    if duration > shown:
        st.caption(t("one_hot.sound_shown", shown=shown, k=frame_count(shown), n=sound.n_frames))
    a1, a2, a3 = st.columns(3)
    a1.metric(t("one_hot.metric_frames"), f"{sound.n_frames:,}")
    a2.metric(t("one_hot.metric_rate"), f"{sound.per_second:.1f}" if duration else "—")
    a3.metric(t("one_hot.metric_frame_len"), f"{sound.samples_per_window}")
    st.markdown(
        t("one_hot.sound_text", window=WINDOW_MS, hop=HOP_MS, rate=1000 // HOP_MS, n=sound.n_frames, ms=duration)
    )
    if duration < WINDOW_MS:
        st.info(t("one_hot.sound_too_short", window=WINDOW_MS), icon=":material/info:")
    widgets.formula_and_code(
        r"\begin{gathered}n = \begin{cases} 1 + \left\lfloor \dfrac{L - 25}{10} \right\rfloor & L \ge 25 \\[4pt]"
        r" 0 & L < 25\end{cases}\\[6pt] [L] = \text{ms}\end{gathered}",
        frame_count,
    )
    widgets.check_number(
        t("one_hot.quiz_frames", ms=QUIZ_MS),
        frame_count(QUIZ_MS),
        key="oh_q_frames",
        tolerance=0.001,
        explanation=t(
            "one_hot.quiz_frames_answer",
            ms=QUIZ_MS,
            n=frame_count(QUIZ_MS),
            last=int(sequences.frame_starts(QUIZ_MS)[-1]),
            rate=QUIZ_MS // HOP_MS,
        ),
    )


def graph_example(kind: str, controls_box, figure_box) -> None:
    """A molecule's atoms or a network's people, each one vector: the figure(s), then every row."""
    if kind == "molecule":
        with controls_box:
            mol = controls.selectbox(
                t("one_hot.mol_label"),
                list(sequences.MOLECULES),
                key="oh_mol",
                format_func=lambda m: t(f"one_hot.mol_{m}"),
            )
        graph, name, filename = cached(sequences.molecule_vectors, mol), t(f"one_hot.mol_{mol}"), f"{mol}_atoms.csv"
        with figure_box:
            widgets.show_figure(
                cached(figures.graph_rows, graph, kind, lang, big),
                key="one_hot_molecule",
                alt=t("one_hot.mol_alt", name=name, n=len(graph.nodes)),
            )
        st.markdown(t("one_hot.mol_text", name=name, n=len(graph.nodes), k=len(graph.features)))
    else:
        graph, filename = cached(sequences.network_vectors), "network_vectors.csv"
        n, links = len(graph.nodes), len(sequences.NETWORK_FRIENDSHIPS)
        g1, g2 = figure_box.columns(2)
        with g1:
            widgets.show_figure(
                cached(figures.network, graph, lang), key="one_hot_network", alt=t("one_hot.net_alt", n=n, links=links)
            )
        with g2:
            widgets.show_figure(
                cached(figures.graph_rows, graph, kind, lang, big),
                key="one_hot_adjacency",
                alt=t("one_hot.adj_alt", n=n),
            )
        st.markdown(t("one_hot.net_text", n=n, links=links))
    widgets.show_table(
        cached(figures.graph_table, graph, kind, lang), key=f"oh_{kind}", filename=filename, decimals=None
    )


for name, section in (
    ("vectors", vectors_section),
    ("similarity", similarity_section),
    ("map", map_section),
    ("sizes", sizes_section),
    ("sequences", sequences_section),
):
    if frame.shows(name):
        section(view)

frame.end()
