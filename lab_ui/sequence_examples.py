"""The one-hot page's last step, sequences of vectors beyond words: a sound cut into windows, a
molecule's atoms, a network's people. The page declares the controls (pages/one_hot.py) and hands
them in; these draw each example's figure, reading, formula and check."""

from __future__ import annotations

import streamlit as st

from attention_core import sequences
from lab_ui import page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import one_hot as figures
from lab_ui.i18n import t
from lab_ui.lecture import is_lecture

QUIZ_MS = 3_000  # the check-yourself asks about a sound of this length
WINDOW_MS, HOP_MS, frame_count = sequences.WINDOW_MS, sequences.HOP_MS, sequences.frame_count
MOLECULES = state.labels("one_hot.mol_", "water", "carbon_dioxide", "methane", "ammonia", "ethanol", "glycine")
assert tuple(MOLECULES) == tuple(sequences.MOLECULES)


def sound_example(p: page.Parts, ms: state.Control, check_key: str, lang: str) -> None:
    """A sound as windows of WINDOW_MS every HOP_MS, each one vector: its length (control `ms`),
    the frames, their count, and a check-yourself (`check_key`) on where the last whole window
    starts."""
    with p.controls:
        duration = ms.draw()
    sound, shown = cached(sequences.sound_frames, duration), min(duration, figures.SHOWN_MS)
    with p.figure:
        alt = t("one_hot.sound_alt", shown=shown, k=frame_count(shown))
        widgets.show_figure(cached(figures.sound, duration, lang), key="one_hot_sound", alt=alt)
    with p.reading:
        if duration > shown:
            st.caption(t("one_hot.sound_shown", shown=shown, k=frame_count(shown), n=sound.n_frames))
        a1, a2, a3 = st.columns(3)
        a1.metric(t("one_hot.metric_frames"), f"{sound.n_frames:,}")
        a2.metric(t("one_hot.metric_rate"), f"{sound.per_second:.1f}" if duration else "—")
        a3.metric(t("one_hot.metric_frame_len"), f"{sound.samples_per_window}")
        rate = 1000 // HOP_MS
        st.markdown(t("one_hot.sound_text", window=WINDOW_MS, hop=HOP_MS, rate=rate, n=sound.n_frames, ms=duration))
        if duration < WINDOW_MS:
            st.info(t("one_hot.sound_too_short", window=WINDOW_MS), icon=":material/info:")
    p.formula(figures.LATEX["frames"], frame_count, sequences.frame_starts)
    with p.check:  # the quiz asks how many vectors; this asks where the last whole window starts
        last = float(sequences.frame_starts(QUIZ_MS)[-1])
        widgets.check_number(
            t("one_hot.quiz_frames", ms=QUIZ_MS),
            last,
            key=check_key,
            tolerance=0.001,
            explanation=t("one_hot.quiz_frames_answer", ms=QUIZ_MS, n=frame_count(QUIZ_MS), last=int(last)),
        )


def graph_example(p: page.Parts, kind: str, molecule: state.Control, lang: str) -> None:
    """A molecule's atoms (which molecule: control `molecule`) or a network's people, each one
    vector: the figure(s), then every row."""
    big = is_lecture()
    if kind == "molecule":
        with p.controls:
            mol = molecule.draw()
        graph, name, filename = cached(sequences.molecule_vectors, mol), MOLECULES.text(mol), f"{mol}_atoms.csv"
        with p.figure:
            alt = t("one_hot.mol_alt", name=name, n=len(graph.nodes))
            widgets.show_figure(cached(figures.graph_rows, graph, kind, lang, big), key="one_hot_molecule", alt=alt)
        with p.reading:
            st.markdown(t("one_hot.mol_text", name=name, n=len(graph.nodes), k=len(graph.features)))
    else:
        graph, filename = cached(sequences.network_vectors), "network_vectors.csv"
        n, links = len(graph.nodes), len(sequences.NETWORK_FRIENDSHIPS)
        with p.figure:
            g1, g2 = st.columns(2)
            with g1:
                alt = t("one_hot.net_alt", n=n, links=links)
                widgets.show_figure(cached(figures.network, graph, lang), key="one_hot_network", alt=alt)
            with g2:
                alt = t("one_hot.adj_alt", n=n)
                widgets.show_figure(
                    cached(figures.graph_rows, graph, kind, lang, big), key="one_hot_adjacency", alt=alt
                )
        with p.reading:
            st.markdown(t("one_hot.net_text", n=n, links=links))
    with p.reading:  # every row: the figure's numbers, short enough to show unfolded
        widgets.show_table(
            cached(figures.graph_table, graph, kind, lang), key=f"oh_{kind}", filename=filename, decimals=None
        )
