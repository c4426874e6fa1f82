"""One-hot vs embedding (独热编码与词嵌入): how a word becomes a vector, why learned vectors carry
meaning that one-hot vectors cannot (article 001's cat, dog and apple), what each costs, and how a
sentence, a sound, a molecule or a network all become a sequence of vectors.

Steps (oh_step): vectors, similarity, map, sizes, sequences. The picked words are page-level (the
vectors, similarity, map and sentence all show them); the map's scope, the sizes' V, d and T and
the sequence example with its sound length and molecule are their steps' own.
"""

from dataclasses import dataclass

import streamlit as st

from attention_core import sequences
from attention_core.embedding import cosine_similarity
from attention_core.shipped import load_vocabulary
from attention_core.word_map import centre_plane, group_cosines, group_map, groups_of, word_vectors
from lab_ui import page, state, widgets
from lab_ui import sequence_examples as examples
from lab_ui.cache import cached
from lab_ui.figures import one_hot as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

DEFAULT_WORDS = ("cat", "dog", "apple", "banana", "run", "walk")
MAX_WORDS = 24
V_OPTIONS = (10, 100, 200, 1_000, 10_000, 30_522, 50_257, 100_000, 250_000, 1_000_000)
D_OPTIONS = (2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 2048, 4096)
WORDS = load_vocabulary().words
SCOPES = state.labels("one_hot.map_", "picked", "all")
KINDS = state.labels("one_hot.seq_", "sentence", "sound", "molecule", "network")


class Controls(state.Table):
    """Every control of the page: its link parameter, default, range and step."""

    words = state.multiselect(
        "oh_words", "one_hot.words_label", WORDS, DEFAULT_WORDS, max_selections=MAX_WORDS, help="one_hot.words_help"
    )
    scope = state.choice("oh_map", "one_hot.map_scope", SCOPES, on="map")
    V = state.select_slider("oh_V", "one_hot.V_label", V_OPTIONS, 30_522, on="sizes", help="one_hot.V_help")
    d = state.select_slider("oh_d", "one_hot.d_label", D_OPTIONS, 384, on="sizes", help="one_hot.d_help")
    T = state.slider("oh_T", "one_hot.T_label", 1, 2048, 6, on="sizes")
    kind = state.choice("oh_seq", "one_hot.seq_kind", KINDS, on="sequences")
    ms = state.slider("oh_ms", "one_hot.ms_label", 0, 5000, 1000, step=5, on="sequences", help="one_hot.ms_help")
    molecule = state.selectbox("oh_mol", "one_hot.mol_label", examples.MOLECULES, on="sequences")


C = Controls
PAGE = page.Page(
    "one_hot",
    Controls,
    presets=(
        state.Preset("one_hot.preset_article", {C.words: ["cat", "dog", "apple", "run"], C.V: 200, C.d: 4, C.T: 4}),
        state.Preset(
            "one_hot.preset_groups",
            {C.words: ["cat", "dog", "tiger", "horse", "apple", "banana", "pear", "grape"], C.V: 30_522, C.d: 384},
        ),
        state.Preset("one_hot.preset_many", {C.words: list(WORDS[::10]), C.V: 1_000_000, C.d: 4096, C.T: 2048}),
    ),
)
COS_CHECK, FRAMES_CHECK = PAGE.info.checks


@dataclass(frozen=True)
class Settings:
    """The page-level values every step receives: the words shown (at least two)."""

    words: tuple[str, ...]


def settings() -> Settings:
    lang = current_lang()
    picked = C.words.draw(format_func=figures.word_labels(lang).__getitem__, help=t("one_hot.words_help", n=MAX_WORDS))
    if len(picked) < 2:
        st.info(t("one_hot.need_two", words=", ".join(DEFAULT_WORDS)), icon=":material/info:")
        return Settings(DEFAULT_WORDS)
    return Settings(tuple(picked))


@PAGE.step("vectors")
def vectors_step(p: page.Parts, s: Settings) -> None:
    view, lang = cached(word_vectors, s.words), current_lang()
    p.prose(t("one_hot.vectors_body", V=len(WORDS), d=view.learned.shape[1]))
    with p.figure:
        widgets.show_figure(
            cached(figures.one_hot_rows, view, lang, is_lecture()),
            key="one_hot_vectors",
            alt=t("one_hot.vectors_alt", n=len(view.words), V=len(WORDS)),
        )
    p.table(
        t("one_hot.vectors_table"), figures.vectors_table, view, lang, key="oh_vectors", filename="one_hot_vectors.csv"
    )


@PAGE.step("similarity")
def similarity_step(p: page.Parts, s: Settings) -> None:
    view, lang, big = cached(word_vectors, s.words), current_lang(), is_lecture()
    p.prose(t("one_hot.similarity_body"))
    labels = [figures.word_label(w, lang) for w in view.words]
    with p.figure:
        # Side by side on a projector's full width; in the stepper's column, one under the other (two
        # there left each matrix about 100 px and ran its labels together).
        left, right = st.columns(2) if big else (st.container(),) * 2
        for column, kind, alt in (
            (left, "one_hot", "one_hot.sim_onehot_alt"),
            (right, "learned", "one_hot.sim_learned_alt"),
        ):
            with column:
                widgets.show_figure(
                    cached(figures.similarity, view, kind, lang, big),
                    key=f"one_hot_sim_{kind.replace('_', '')}",
                    alt=t(alt),
                )
    with p.reading:
        st.markdown(figures.similarity_reading(view, lang))
    p.table(
        t("one_hot.pairs_table"),
        figures.pairs_table,
        view,
        lang,
        key="oh_pairs",
        filename="cosine_similarities.csv",
        caption=t("one_hot.pairs_caption"),
    )
    p.formula(figures.LATEX["similarity"], cosine_similarity)
    with p.check:
        widgets.check_number(
            t("one_hot.quiz_cos", a=labels[0], b=labels[1]),
            float(view.one_hot_similarity[0, 1]),
            key=COS_CHECK,
            explanation=figures.cos_answer(view, lang),
        )


@PAGE.step("map")
def map_step(p: page.Parts, s: Settings) -> None:
    view, lang, big = cached(word_vectors, s.words), current_lang(), is_lecture()
    p.prose(t("one_hot.map_body", d=view.learned.shape[1]))
    with p.controls:
        scope = C.scope.draw()
    gmap = cached(group_map, load_vocabulary().group_ids if scope == "all" else cached(groups_of, view.words))
    k = len(gmap.group_ids)
    with p.figure:
        left, right = st.columns([1, 1] if big else [3, 2])
        with left:
            widgets.show_figure(
                cached(figures.vocabulary_map, gmap, view.words, lang, big),
                key="one_hot_map",
                alt=t("one_hot.map_alt", n=len(gmap.rows), groups=k),
            )
        with right:
            alt = t("one_hot.blocks_alt", groups=k)
            widgets.show_figure(cached(figures.group_cosines, gmap, lang, big), key="one_hot_groups", alt=alt)
    with p.reading:
        m1, m2 = st.columns(2)
        m1.metric(
            t("one_hot.metric_within"), f"{gmap.within:.3f}", help=t("one_hot.metric_within_help", n=gmap.n_within)
        )
        between = "—" if k == 1 else f"{gmap.between:.3f}"
        m2.metric(t("one_hot.metric_between"), between, help=t("one_hot.metric_between_help", n=gmap.n_between))
        st.markdown(figures.map_reading(gmap, view.learned.shape[1], lang))
    p.table(
        t("one_hot.map_table"),
        figures.map_table,
        gmap,
        lang,
        key="oh_map_coords",
        filename="vocabulary_map.csv",
        missing="—",
    )
    p.formula(figures.LATEX["map"], group_cosines, centre_plane)


@PAGE.step("sizes")
def sizes_step(p: page.Parts, s: Settings) -> None:
    view, lang = cached(word_vectors, s.words), current_lang()
    p.prose(t("one_hot.size_body"))
    with p.controls, page.section_controls():
        V, d, T = C.V.draw(), C.d.draw(), C.T.draw()
    sizes = cached(sequences.representation_sizes, V, d, T)
    with p.figure:
        alt = t("one_hot.sizes_alt", V=V, d=d, T=T)
        widgets.show_figure(cached(figures.sizes, sizes, lang, is_lecture()), key="one_hot_sizes", alt=alt)
    with p.reading:
        m1, m2, m3 = st.columns(3)
        m1.metric(t("one_hot.metric_onehot_len"), f"{sizes.V:,}")
        m2.metric(t("one_hot.metric_embedding_len"), f"{sizes.d:,}")
        m3.metric(figures.ratio_label(sizes, lang), f"{sizes.longer_by:,.1f}×")  # a tiny vocabulary: the embedding
        st.markdown(t("one_hot.size_memory", T=T, **figures.memory(sizes)))
        st.markdown(t("one_hot.size_reading", V=sizes.V, d=sizes.d, table=sizes.table_parameters))
        st.caption(t("one_hot.lookup_check", n=len(view.words), diff=view.lookup_difference))
    p.table(
        t("one_hot.sizes_table"),
        figures.sizes_table,
        sizes,
        lang,
        key="oh_sizes",
        filename="one_hot_vs_embedding_sizes.csv",
    )
    p.formula(figures.LATEX["sizes"], sequences.embedding_lookup)


@PAGE.step("sequences")
def sequences_step(p: page.Parts, s: Settings) -> None:
    view, lang = cached(word_vectors, s.words), current_lang()
    p.prose(t("one_hot.seq_body"))
    with p.controls:
        kind = C.kind.draw()
    if kind == "sentence":
        T, d = view.learned.shape
        with p.figure:
            alt = t("one_hot.sentence_alt", T=T, d=d)
            widgets.show_figure(cached(figures.sentence, view, lang, is_lecture()), key="one_hot_sentence", alt=alt)
        with p.reading:
            st.markdown(t("one_hot.sentence_text", T=T, d=d, sentence=" ".join(view.words)))
        p.table(
            t("one_hot.sentence_table"),
            figures.sentence_table,
            view,
            lang,
            key="oh_sentence",
            filename="sentence_vectors.csv",
        )
    elif kind == "sound":
        examples.sound_example(p, C.ms, FRAMES_CHECK, lang)
    else:
        examples.graph_example(p, kind, C.molecule, lang)
    with p.reading:
        st.markdown(t("one_hot.seq_outro"))


if __name__ == "__main__":  # Streamlit runs the script as __main__; tests import it for its declaration
    PAGE.start().show(settings)
