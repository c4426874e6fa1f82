"""The one-hot page's figures and tables carry the numbers the core computed, label themselves in
the language they are given, keep groups apart by colour and shape, place labels so they do not
collide, escape every label, fit a lecture step's first screen, and send small arrays as lists."""

import numpy as np
import pytest

from attention_core.sequences import frame_starts, molecule_vectors, network_vectors, representation_sizes
from attention_core.shipped import load_vocabulary
from attention_core.word_map import group_map, word_vectors
from lab_ui.figures import one_hot as figs
from lab_ui.figures.common import QUALITATIVE, safe_label
from lab_ui.i18n import t

voc = load_vocabulary()
WORDS = ("cat", "dog", "apple", "banana", "run", "walk")


@pytest.fixture(scope="module")
def view():
    return word_vectors(WORDS)


@pytest.fixture(scope="module")
def gmap():
    return group_map(("animals", "fruit_plants", "motion_verbs"))


def test_runs_finds_consecutive_groups():
    assert figs.runs(["a"] * 3 + ["b"] * 2 + ["c"] * 4) == [("a", 0, 2), ("b", 3, 4), ("c", 5, 8)]
    assert figs.runs([]) == []
    assert figs.runs(["x", "y", "x"]) == [("x", 0, 0), ("y", 1, 1), ("x", 2, 2)]


def test_word_labels_carry_the_chinese_gloss():
    assert figs.word_label("cat", "en") == "cat"
    assert figs.word_label("cat", "zh") == "cat 猫"
    assert len(figs.word_labels("zh")) == len(voc.words)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_hot_rows_mark_each_word_and_name_the_groups(view, lang):
    fig = figs.one_hot_rows(view, lang)
    heat = fig.data[0]
    assert np.asarray(heat.z).tolist() == view.one_hot.astype(int).tolist()
    assert list(heat.x) == [figs.word_label(w, lang) for w in voc.words]  # hover names each column's word
    assert list(heat.y) == [figs.word_label(w, lang) for w in WORDS]
    position = t("one_hot.position", lang)
    assert [a.text for a in fig.layout.annotations] == [position.format(i=voc.index(w)) for w in WORDS]
    assert list(fig.layout.xaxis.ticktext) == [safe_label(t(f"one_hot.group_{g}", lang), 18) for g in voc.group_ids]
    *borders, rules = fig.layout.shapes
    assert len(borders) == len(voc.group_ids) - 1  # a border before each new group
    assert rules.type == "path" and rules.path.count("M") == len(WORDS) - 1  # and a line between words
    assert fig.layout.xaxis.title.text == t("one_hot.vocab_axis", lang, V=len(voc.words))
    big = figs.one_hot_rows(view, lang, big=True)
    assert fig.layout.height < big.layout.height <= figs.LECTURE_PX


def test_similarity_uses_one_scale_for_both_and_prints_small_matrices(view):
    onehot, learned = figs.similarity(view, "one_hot", "en"), figs.similarity(view, "learned", "en")
    np.testing.assert_array_equal(onehot.data[0].z, np.eye(6))
    np.testing.assert_allclose(learned.data[0].z, view.learned_similarity, atol=1e-6)
    assert (onehot.data[0].zmin, onehot.data[0].zmax) == (learned.data[0].zmin, learned.data[0].zmax) == (0.0, 1.0)
    assert learned.data[0].texttemplate and learned.layout.title.text == t("one_hot.sim_learned_title", "en", d=384)
    assert learned.layout.yaxis.scaleanchor == "x"  # square cells on a screen
    big = figs.similarity(word_vectors(WORDS[:2]), "learned", "zh", big=True)
    assert big.layout.height <= figs.LECTURE_PX and big.layout.yaxis.scaleanchor is None  # cells fill the width
    assert list(big.layout.xaxis.ticktext) == ["cat", "dog"] and list(big.layout.yaxis.ticktext) == ["cat 猫", "dog 狗"]
    many = word_vectors(tuple(voc.words[:13]))
    assert figs.similarity(many, "learned", "en").data[0].texttemplate is None  # 13 x 13: too many cells to print


def test_group_markers_are_all_different():
    markers = [figs.group_marker(k) for k in range(10)]
    assert len({(m["color"], m["symbol"]) for m in markers}) == 10
    assert markers[8]["color"] == QUALITATIVE[0] and markers[8]["symbol"].endswith("-open")  # colour back: hollow


def test_vocabulary_map_one_trace_per_group_plus_the_picked_words(gmap):
    fig = figs.vocabulary_map(gmap, ("cat", "tiger", "red"), "en")  # red's group is not on this map
    names = [safe_label(t(f"one_hot.group_{g}", "en"), 24) for g in gmap.group_ids]  # "&" escaped
    assert [tr.name for tr in fig.data] == [*names, t("one_hot.picked", "en")]
    assert isinstance(fig.data[0].x, tuple | list)  # small arrays go as lists, not typed arrays
    animals = np.asarray(gmap.labels) == "animals"
    np.testing.assert_allclose(fig.data[0].x, np.round(gmap.coords[animals, 0], 5))
    assert [s.replace("<b>", "").replace("</b>", "") for s in fig.data[-1].text] == ["cat", "tiger"]
    np.testing.assert_allclose(
        [fig.data[-1].x[0], fig.data[-1].y[0]], gmap.coords[gmap.position(voc.index("cat"))], atol=1e-5
    )
    cat_hover = fig.data[-1].hovertext[0]
    assert f"{gmap.own_group[gmap.position(voc.index('cat'))]:.3f}" in cat_hover  # its own numbers, all dimensions
    assert fig.layout.yaxis.scaleanchor == "x"  # equal scales: distances on the map mean something
    assert fig.layout.xaxis.title.text == t("one_hot.map_axis", "en", k=1, share=100 * gmap.axis_share[0])
    assert fig.layout.legend.orientation == "h" and fig.layout.legend.y < 0  # in rows under the map
    for axis, k in ((fig.layout.xaxis, 0), (fig.layout.yaxis, 1)):  # the data's extent and a little more
        low, high = gmap.coords[:, k].min(), gmap.coords[:, k].max()
        assert axis.range[0] < low and axis.range[1] > high
        assert axis.range[1] - axis.range[0] < 1.2 * (high - low)
        assert axis.constrain == "domain"  # equal scales by shrinking the plot, not padding one range
    assert fig.data[-1].cliponaxis is False  # a label at the edge keeps all its letters
    assert figs.vocabulary_map(gmap, ("red",), "en").data[-1].name != t("one_hot.picked", "en")  # none to ring
    assert figs.vocabulary_map(gmap, WORDS, "en", big=True).layout.height == figs.LECTURE_PX


def test_vocabulary_map_of_one_group_has_no_other_groups_in_its_hover():
    fig = figs.vocabulary_map(group_map(("animals",)), ("cat", "dog"), "en")
    assert t("one_hot.map_hover_other", "en") not in fig.data[0].hovertext[0]


def test_group_cosines_print_the_block_means(gmap):
    fig = figs.group_cosines(gmap, "zh")
    np.testing.assert_allclose(fig.data[0].z, gmap.block_cosine, atol=1e-6)
    assert fig.data[0].texttemplate and (fig.data[0].zmin, fig.data[0].zmax) == (0.0, 1.0)
    assert list(fig.layout.yaxis.ticktext) == ["动物", "水果与植物", "动作动词"]
    assert list(fig.layout.xaxis.ticktext) == ["动物", "水果与<br>植物", "动作<br>动词"]  # upright in a narrow column
    assert figs.group_cosines(gmap, "en", big=True).layout.yaxis.scaleanchor is None


@pytest.mark.parametrize("big", [False, True])
def test_the_group_chart_title_sits_below_the_toolbar_strip(gmap, big):
    """In the desktop's narrow right column Plotly's toolbar covered the end of "Mean cosine, group
    by group" on hover: the title stands under the strip where the toolbar appears."""
    title = figs.group_cosines(gmap, "en", big=big).layout.title
    assert title.yref == "container" and title.y == 1 and title.yanchor == "top" and title.pad.t >= figs.TOOLBAR_PX


def test_labels_of_nearby_points_move_apart():
    xy = np.array([[0.0, 0.0], [0.0, 0.01], [5.0, 5.0]])
    spots = figs.label_positions(xy, ["apple", "apples", "far"], extent=np.array([5.0, 5.0]))
    assert spots[0] != spots[1]  # two points on top of each other: their labels go different ways
    assert spots[2] == figs.LABEL_SPOTS[0]  # a lone point keeps the default spot


def test_sizes_draw_zero_as_a_note_not_a_bar():
    s = representation_sizes(30_522, 384, 6)
    fig = figs.sizes(s, "en")
    one_hot_bars, embedding_bars = fig.data
    assert list(one_hot_bars.y) == [30_522.0, 183_132.0, None]
    assert list(embedding_bars.text) == ["384", "2,304", "11,720,448"]
    assert fig.layout.yaxis.type == "log"
    assert [a.text for a in fig.layout.annotations] == [t("one_hot.zero_params", "en")]
    (note,) = fig.layout.annotations
    assert note.textangle == -90 and note.xanchor == "center"  # upright in the empty slot, clear of the bar beside
    assert note.x == pytest.approx(2 - 0.2)  # the one-hot bar's slot of the third category
    assert list(fig.layout.xaxis.ticktext)[1] == figs.two_lines(t("one_hot.cat_sentence", "en", T=6))


def test_sizes_table_and_memory_as_the_page_writes_them():
    s = representation_sizes(1_000_000, 4096, 2048)
    assert figs.memory(s) == {"one_hot": "8.2 GB", "embedding": "33.6 MB", "table": "16.4 GB"}
    assert figs.bytes_text(0) == "0 B" and figs.bytes_text(999) == "999 B" and figs.bytes_text(1000) == "1.0 kB"
    table = figs.sizes_table(s, "en")
    assert table.index.name == t("one_hot.col_quantity", "en")
    assert list(table[t("one_hot.embedding", "en")])[4] == f"{1_000_000 * 4096:,}"
    assert list(table[t("one_hot.onehot", "en")])[1] == f"{2048 * 1_000_000:,}"


def test_tables_name_their_index(view, gmap):
    for table in (
        figs.vectors_table(view, "en"),
        figs.map_table(gmap, "en"),
        figs.sentence_table(view, "en"),
        figs.graph_table(molecule_vectors("water"), "molecule", "en"),
    ):
        assert table.index.name
    assert figs.vectors_table(view, "zh").index.tolist()[0] == "cat 猫"
    assert figs.sentence_table(view, "en").shape == (384, 6)
    assert list(figs.pairs_table(view, "en").columns)[:2] == [
        t("one_hot.col_word_1", "en"),
        t("one_hot.col_word_2", "en"),
    ]
    assert list(figs.graph_table(molecule_vectors("water"), "molecule", "zh").columns) == [
        "H 氢",
        "C 碳",
        "N 氮",
        "O 氧",
    ]


def test_sentence_is_symmetric_about_zero(view):
    fig = figs.sentence(view, "en")
    trace = fig.data[0]
    limit = float(np.abs(view.learned).max())
    assert trace.zmin == pytest.approx(-limit) and trace.zmax == pytest.approx(limit)
    assert list(trace.y) == list(WORDS)
    np.testing.assert_allclose(trace.z, view.learned.astype(np.float32))


def test_sound_windows_numbered_and_staggered():
    fig = figs.sound(1000, "en")
    numbers = fig.data[4]
    assert list(numbers.text) == [str(k) for k in range(1, len(frame_starts(100)) + 1)]
    bars = fig.data[1:4]  # three rows of bars: windows 1, 4, 7 / 2, 5, 8 / 3, 6
    assert [b.x[0] for b in bars] == [0.0, 10.0, 20.0]
    assert [x for x in bars[0].x if x is not None] == [0.0, 25.0, 30.0, 55.0, 60.0, 85.0]
    assert {a.text for a in fig.layout.annotations} >= {
        t("one_hot.window_note", "en", window=25),
        t("one_hot.hop_note", "en", hop=10),
    }
    assert len(figs.sound(20, "en").data[4].text) == 0  # too short for a single window


def test_network_layout_keeps_the_two_circles_apart():
    graph = network_vectors()
    A, people = graph.vectors, list(graph.nodes)
    pos = figs.spring_layout(A)
    assert pos.shape == (6, 2) and np.abs(pos).max() == pytest.approx(1)
    np.testing.assert_array_equal(pos, figs.spring_layout(A))  # the same drawing every time

    def dist(a, b):
        return np.linalg.norm(pos[people.index(a)] - pos[people.index(b)])

    assert dist("A", "B") < dist("A", "E") and dist("E", "F") < dist("B", "F")
    fig = figs.network(graph, "en")
    assert list(fig.data[1].customdata) == A.sum(axis=1).astype(int).tolist()
    assert fig.data[0].x.count(None) == int(A.sum()) // 2


def test_graph_rows_print_every_cell():
    fig = figs.graph_rows(molecule_vectors("water"), "molecule", "zh")
    trace = fig.data[0]
    assert trace.texttemplate and trace.showscale is False and (trace.zmin, trace.zmax) == (0, 1)
    assert list(fig.layout.xaxis.ticktext) == ["H 氢", "C 碳", "N 氮", "O 氧"]
    assert fig.layout.xaxis.title.text == t("one_hot.element", "zh")
    assert figs.graph_rows(molecule_vectors("glycine"), "molecule", "en", big=True).layout.height <= figs.LECTURE_PX


def test_labels_are_escaped():
    fig = figs.vocabulary_map(group_map(("animals",)), (), "en")
    assert all("<" not in h.split("<br>")[0] for h in fig.data[0].hovertext)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_group_columns_stand_upright_on_two_lines(gmap, lang):
    """In the desktop's right column a cell is about 60 px: Plotly's -30° slant ran "动物" into
    "水果与植物"; each column's name is on two lines instead, upright, or vertical where that cannot fit."""
    layout = figs.group_cosines(gmap, lang).layout
    assert list(layout.xaxis.autotickangles) == [0, -90]
    names = list(layout.yaxis.ticktext)  # the rows keep one line each
    assert [tick.replace("<br>", "" if lang == "zh" else " ") for tick in layout.xaxis.ticktext] == names
    assert any("<br>" in tick for tick in layout.xaxis.ticktext)


def test_two_lines_breaks_at_the_middle():
    assert figs.two_lines("fruit & plants") == "fruit &<br>plants"
    assert figs.two_lines("action verbs") == "action<br>verbs"
    assert figs.two_lines("水果与植物") == "水果与<br>植物"
    assert figs.two_lines("动物") == "动物"
    assert figs.two_lines("animals") == "animals"
    assert figs.two_lines("one word") == "one word"
    assert figs.two_lines("6 个词的句子") == "6 个词<br>的句子"  # Chinese at its middle, not at the space


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sizes_categories_stand_upright_on_two_lines(lang):
    """Slanted on a phone, the last category ("learned parameters") ran past the figure's edge and
    was not drawn."""
    fig = figs.sizes(representation_sizes(30_522, 384, 6), lang)
    assert fig.layout.xaxis.tickangle == 0
    assert all(tick.count("<br>") == 1 for tick in fig.layout.xaxis.ticktext[1:])  # the two long ones
    assert "<br>" not in fig.layout.xaxis.ticktext[0]  # "one word", "一个词"
