"""The page "one-hot vs embedding" in AppTest: one-hot rows and their similarity (every distinct
pair exactly 0) against the learned vectors' (animals close, fruit close) on one scale, whether
the words of a group gather (mean cosine within against between groups, computed by the core and
shown) and the map on the plane of the group centres with the variance it keeps, sizes of one-hot
vs embedding, the sequence examples (frames of a sound counted by the core), presets,
check-yourself, lecture steps, CSV tables with named indexes, Chinese glosses and bad links."""

import numpy as np
import pytest
from app_harness import figure_alts, figures, link_of, open_page, open_step, plotly_array

from attention_core import cosine_similarity
from attention_core.sequences import (
    MOLECULES,
    NETWORK_FRIENDSHIPS,
    NETWORK_PEOPLE,
    adjacency_vectors,
    atom_vectors,
    frame_count,
    frame_starts,
    representation_sizes,
)
from attention_core.shipped import load_vocabulary
from attention_core.word_map import group_map
from lab_ui.figures.common import safe_label
from lab_ui.figures.one_hot import LECTURE_PX
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_FIGURE_MAX_PX
from lab_ui.quiz import shown
from lab_ui.registry import info as page_info
from pages import one_hot as page_module
from pages.one_hot import Controls as C

PAGE = "pages/one_hot.py"
INFO = page_info("one_hot")
STEP_NAMES = INFO.step_names
link = link_of(C)
DEFAULT_WORDS = ["cat", "dog", "apple", "banana", "run", "walk"]
voc = load_vocabulary()


def texts(at) -> str:
    return "\n".join(e.value for e in (*at.markdown, *at.caption, *at.info, *at.success, *at.warning, *at.error))


def metric(at, key: str, lang: str = "en") -> str:
    label = t(f"one_hot.{key}", lang=lang)
    return next(m.value for m in at.metric if m.label == label)


def z_of(at, key: str, trace: int = 0) -> np.ndarray:
    return plotly_array(figures(at)[key]["data"][trace]["z"])


def rows_of(at, key: str) -> list[str]:
    """Row labels of one of the page's heatmaps (categorical axis or token ticks)."""
    spec = figures(at)[key]
    trace = spec["data"][0]
    if isinstance(trace.get("y"), list) and trace["y"] and isinstance(trace["y"][0], str):
        return trace["y"]
    return spec["layout"]["yaxis"]["ticktext"]


def at_step(step: str, lang: str = "en", **params):
    return open_step(PAGE, step, lang, **params)


def open_table(at, step: str):
    """Open a step's folded table (they are built only when opened) and return the page."""
    at.session_state[f"oh_{step}_table"] = True
    at.run()
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_runs_in_both_languages_with_every_figure_described(lang):
    at = open_page(PAGE, lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("one_hot.title", lang=lang)
    assert set(figures(at)) == {
        "one_hot_vectors",
        "one_hot_sim_onehot",
        "one_hot_sim_learned",
        "one_hot_map",
        "one_hot_groups",
        "one_hot_sizes",
        "one_hot_sentence",
    }
    assert [h.value for h in at.subheader][:5] == [
        f"{i} · {t(f'one_hot.section_{name}', lang=lang)}"
        for i, name in enumerate(("vectors", "similarity", "map", "sizes", "sequences"), start=1)
    ]
    assert all(alt.strip() for alt in figure_alts(at))
    assert at.multiselect(key="oh_words").value == DEFAULT_WORDS


def test_each_one_hot_row_has_a_single_one_at_the_words_position():
    at = at_step("vectors")
    z = z_of(at, "one_hot_vectors")
    assert z.shape == (6, len(voc.words))
    np.testing.assert_array_equal(z.sum(axis=1), 1)
    assert [int(np.argmax(row)) for row in z] == [voc.index(w) for w in DEFAULT_WORDS]
    assert figures(at)["one_hot_vectors"]["data"][0]["x"] == list(voc.words)  # hover names each column's word
    notes = [a["text"] for a in figures(at)["one_hot_vectors"]["layout"]["annotations"]]
    assert notes == [t("one_hot.position", lang="en").format(i=voc.index(w)) for w in DEFAULT_WORDS]


def test_one_hot_says_nothing_about_meaning_and_the_learned_vectors_do():
    at = at_step("similarity")
    onehot, learned = z_of(at, "one_hot_sim_onehot"), z_of(at, "one_hot_sim_learned")
    np.testing.assert_array_equal(onehot, np.eye(6))  # every distinct pair exactly 0
    idx = [voc.index(w) for w in DEFAULT_WORDS]
    np.testing.assert_allclose(learned, cosine_similarity(voc.vectors[idx]), atol=1e-6)
    cat, dog, apple, banana = 0, 1, 2, 3
    assert learned[cat, dog] > learned[cat, apple]  # the article's point
    assert learned[apple, banana] > learned[apple, dog]  # fruit close
    # the two matrices share one colour scale, so equal colours mean equal numbers
    a, b = (figures(at)[k]["data"][0] for k in ("one_hot_sim_onehot", "one_hot_sim_learned"))
    assert (a["zmin"], a["zmax"]) == (b["zmin"], b["zmax"]) == (0.0, 1.0)
    assert "**cat** and **dog** (0.661)" in texts(at)


def test_pair_table_holds_both_matrices_when_opened():
    at = at_step("similarity")
    assert not at.dataframe or all(len(df.value) != 21 for df in at.dataframe)  # folded: not built
    df = open_table(at, "similarity").dataframe[0].value
    assert len(df) == 6 * 7 // 2  # every pair once, each word with itself included
    first = df.iloc[df[t("one_hot.col_word_1", lang="en")].ne(df[t("one_hot.col_word_2", lang="en")]).argmax()]
    assert {first.iloc[0], first.iloc[1]} == {"cat", "dog"}  # most alike pair of different words on top
    different = df[df.iloc[:, 0] != df.iloc[:, 1]]
    assert (different[t("one_hot.col_onehot", lang="en")] == 0).all()
    assert (different[t("one_hot.col_learned", lang="en")] > 0.2).all()


def test_picking_other_words_moves_every_figure():
    at = open_page(PAGE, "en", whole="1")
    at.multiselect(key="oh_words").set_value(["tiger", "lion", "red", "blue", "car"]).run()
    assert not at.exception
    assert rows_of(at, "one_hot_sim_learned") == ["tiger", "lion", "red", "blue", "car"]
    learned = z_of(at, "one_hot_sim_learned")
    assert learned[0, 1] > learned[0, 2] and learned[2, 3] > learned[2, 4]  # animals together, colours together
    np.testing.assert_array_equal(z_of(at, "one_hot_sim_onehot"), np.eye(5))
    picked = figures(at)["one_hot_map"]["data"][-1]
    assert [s.replace("<b>", "").replace("</b>", "") for s in picked["text"]] == ["tiger", "lion", "red", "blue", "car"]
    assert at.query_params["oh_words"] == ["tiger", "lion", "red", "blue", "car"]  # the view is a link


def test_fewer_than_two_words_show_the_defaults_with_a_note_and_keep_the_choice():
    at = at_step("similarity")
    at.multiselect(key="oh_words").set_value(["cat"]).run()
    assert not at.exception
    assert any(t("one_hot.need_two", lang="en", words=", ".join(DEFAULT_WORDS)) == i.value for i in at.info)
    assert rows_of(at, "one_hot_sim_onehot") == DEFAULT_WORDS
    assert at.multiselect(key="oh_words").value == ["cat"]  # what the student picked stays picked
    at.multiselect(key="oh_words").set_value([]).run()
    assert not at.exception and rows_of(at, "one_hot_sim_onehot") == DEFAULT_WORDS
    at.multiselect(key="oh_words").set_value(["dog", "cat"]).run()  # two words: one pair
    assert t(
        "one_hot.sim_reading_two", lang="en", a="dog", b="cat", learned=z_of(at, "one_hot_sim_learned")[0, 1]
    ) in texts(at)


def test_the_map_section_shows_the_cosines_that_support_the_claim():
    """Issue 11 #6: the claim "the animals gather in one cluster" is supported by numbers the core
    computed in all 384 dimensions (mean cosine within a group against between groups), shown to
    the student, and the map says how much of the variance its plane keeps."""
    at = at_step("map")
    gmap = group_map(("animals", "fruit_plants", "motion_verbs"))  # the default words' groups
    assert metric(at, "metric_within") == f"{gmap.within:.3f}" and metric(at, "metric_between") == f"{gmap.between:.3f}"
    assert gmap.within > gmap.between + 0.1
    reading = t(
        "one_hot.map_reading",
        lang="en",
        d=384,
        groups=3,
        within=gmap.within,
        between=gmap.between,
        kept=100 * gmap.kept,
        centres=100 * gmap.centre_share,
    )
    assert reading in texts(at) and f"**{100 * gmap.kept:.1f}%**" in reading
    np.testing.assert_allclose(z_of(at, "one_hot_groups"), gmap.block_cosine, atol=1e-6)
    layout = figures(at)["one_hot_map"]["layout"]
    for k, axis in ((0, "xaxis"), (1, "yaxis")):
        assert layout[axis]["title"]["text"] == t(
            "one_hot.map_axis", lang="en", k=k + 1, share=100 * gmap.axis_share[k]
        )
    traces = figures(at)["one_hot_map"]["data"]
    groups = traces[:-1]
    assert [g["name"] for g in groups] == [safe_label(t(f"one_hot.group_{g}", lang="en"), 24) for g in gmap.group_ids]
    assert sum(len(g["x"]) for g in groups) == 60
    np.testing.assert_allclose(
        [traces[-1]["x"][0], traces[-1]["y"][0]], gmap.coords[gmap.position(voc.index("cat"))], atol=1e-5
    )
    assert len({(g["marker"]["color"], g["marker"]["symbol"]) for g in groups}) == len(groups)  # all distinct
    # on the plane of the three centres, cat and dog sit with the animals, apple with the fruit
    cat, dog, apple = (gmap.coords[gmap.position(voc.index(w))] for w in ("cat", "dog", "apple"))
    fruit = gmap.coords[np.asarray(gmap.labels) == "fruit_plants"].mean(axis=0)
    assert np.linalg.norm(apple - fruit) < np.linalg.norm(apple - cat) and np.linalg.norm(cat - dog) < 0.2


def test_all_groups_keep_less_of_the_variance_and_the_page_says_so():
    at = at_step("map")
    at.segmented_control(key="oh_map").set_value("all").run()
    traces = figures(at)["one_hot_map"]["data"]
    assert [g["name"] for g in traces[:-1]] == [
        safe_label(t(f"one_hot.group_{g}", lang="en"), 24) for g in voc.group_ids
    ]
    everything, picked = group_map(voc.group_ids), group_map(("animals", "fruit_plants", "motion_verbs"))
    assert everything.kept < picked.kept and everything.centre_share < 1
    assert f"**{100 * everything.kept:.1f}%**" in texts(at)
    assert f"{100 * everything.centre_share:.0f}% of the spread of the 10 group centres" in texts(at)
    assert at.query_params["oh_map"] in ("all", ["all"])  # the view is a link
    table = open_table(at, "map").dataframe[0].value
    assert len(table) == len(voc.words) and table.index.name == t("one_hot.word", lang="en")
    np.testing.assert_allclose(table[t("one_hot.col_axis", lang="en", k=1)], everything.coords[:, 0], atol=1e-4)
    np.testing.assert_allclose(table[t("one_hot.col_own", lang="en")], everything.own_group, atol=1e-4)


def test_words_of_one_group_say_there_is_nothing_to_compare():
    at = at_step("map", oh_words=["cat", "dog", "tiger"])
    assert not at.exception
    assert metric(at, "metric_between") == "—"
    assert t(
        "one_hot.map_reading_one",
        lang="en",
        within=group_map(("animals",)).within,
        d=384,
        kept=100 * group_map(("animals",)).kept,
    ) in texts(at)


@pytest.mark.parametrize(
    ("V", "d", "T", "memory"),
    [
        (30_522, 384, 6, ("732.5 kB", "9.2 kB", "46.9 MB")),
        (1_000_000, 4096, 2048, ("8.2 GB", "33.6 MB", "16.4 GB")),
        (10, 2, 1, ("40 B", "8 B", "80 B")),
        (200, 384, 3, ("2.4 kB", "4.6 kB", "307.2 kB")),
    ],
)
def test_sizes_follow_the_sliders(V, d, T, memory):
    at = at_step("sizes")
    at.select_slider(key="oh_V").set_value(V)
    at.select_slider(key="oh_d").set_value(d)
    at.slider(key="oh_T").set_value(T).run()
    s = representation_sizes(V, d, T)
    assert metric(at, "metric_onehot_len") == f"{V:,}" and metric(at, "metric_embedding_len") == f"{d:,}"
    ratio_key, ratio = ("metric_ratio_one_hot", V / d) if d <= V else ("metric_ratio_embedding", d / V)  # longer
    assert metric(at, ratio_key) == f"{ratio:,.1f}×"
    bars = figures(at)["one_hot_sizes"]["data"]
    assert bars[0]["text"] == [f"{V:,}", f"{s.one_hot_sentence:,}", "0"]
    assert bars[1]["text"] == [f"{d:,}", f"{s.embedding_sentence:,}", f"{s.table_parameters:,}"]
    assert bars[0]["y"][2] is None  # no bar for one-hot's zero parameters on a log axis...
    assert figures(at)["one_hot_sizes"]["layout"]["annotations"][0]["text"] == t("one_hot.zero_params", lang="en")
    one_hot_mem, embedding_mem, table_mem = memory  # float32: 4 bytes a number, worked out by hand
    line = t("one_hot.size_memory", lang="en", T=T, one_hot=one_hot_mem, embedding=embedding_mem, table=table_mem)
    assert line in texts(at)
    table = next(
        df.value for df in open_table(at, "sizes").dataframe if t("one_hot.onehot", lang="en") in df.value.columns
    )
    assert list(table[t("one_hot.embedding", lang="en")])[4] == f"{V * d:,}"
    assert list(table[t("one_hot.onehot", lang="en")])[1] == f"{T * V:,}"
    # and the same view opens from a link
    again = at_step("sizes", **link(V=V, d=d, T=T))
    assert not again.toast and metric(again, ratio_key) == f"{ratio:,.1f}×"
    assert figures(again)["one_hot_sizes"]["data"][1]["text"] == bars[1]["text"]


def test_lookup_by_one_hot_equals_the_table_rows():
    at = at_step("sizes")
    line = next(c.value for c in at.caption if c.value.startswith("Checked on the 6 picked words"))
    assert line.endswith("largest difference 0.")


@pytest.mark.parametrize("ms", [1000, 25, 5000, 995])
def test_a_sound_becomes_about_100_vectors_a_second(ms):
    at = at_step("sequences", oh_seq="sound")
    at.slider(key="oh_ms").set_value(ms).run()
    assert not at.exception
    n = frame_count(ms)
    assert metric(at, "metric_frames") == f"{n:,}"
    assert metric(at, "metric_rate") == f"{n / ms * 1000:.1f}"
    windows = figures(at)["one_hot_sound"]["data"][4]["text"]  # the numbers over the window bars
    assert windows == [str(k + 1) for k in range(frame_count(min(ms, 100)))]


def test_one_second_of_sound_is_98_whole_windows_and_too_short_a_sound_none():
    at = at_step("sequences", oh_seq="sound")
    assert metric(at, "metric_frames") == str(frame_count(1000)) == "98"
    at.slider(key="oh_ms").set_value(20).run()
    assert metric(at, "metric_frames") == "0"
    assert t("one_hot.sound_too_short", lang="en", window=25) in [i.value for i in at.info]


@pytest.mark.parametrize("mol", list(MOLECULES))
def test_each_atom_is_a_one_hot_row(mol):
    at = at_step("sequences", oh_seq="molecule", oh_mol=mol)
    assert not at.exception
    np.testing.assert_array_equal(z_of(at, "one_hot_molecule"), atom_vectors(MOLECULES[mol]))
    table = at.dataframe[-1].value
    np.testing.assert_array_equal(table.to_numpy(), atom_vectors(MOLECULES[mol]))


def test_each_person_is_their_row_of_friends():
    at = at_step("sequences", "zh", oh_seq="network")
    A = adjacency_vectors(NETWORK_PEOPLE, NETWORK_FRIENDSHIPS)
    np.testing.assert_array_equal(z_of(at, "one_hot_adjacency"), A)
    edges = figures(at)["one_hot_network"]["data"][0]["x"]
    assert edges.count(None) == len(NETWORK_FRIENDSHIPS)  # one line per friendship
    assert t("one_hot.net_text", lang="zh", n=6, links=7) in texts(at)


def test_sentence_is_T_rows_of_384():
    at = at_step("sequences")
    z = z_of(at, "one_hot_sentence")
    idx = [voc.index(w) for w in DEFAULT_WORDS]
    np.testing.assert_allclose(z, voc.vectors[idx], atol=1e-6)
    df = next(d.value for d in open_table(at, "sequences").dataframe if len(d.value) == 384)
    assert list(df.columns) == DEFAULT_WORDS
    np.testing.assert_allclose(df.to_numpy().T, voc.vectors[idx])


def test_check_yourself_cosine_of_one_hot_vectors():
    at = at_step("similarity")
    assert t("one_hot.quiz_cos", lang="en", a="cat", b="dog") in texts(at)
    at.number_input(key="oh_q_cos").set_value(0.5).run()
    assert at.error and "0.5000" in at.error[0].value
    at.number_input(key="oh_q_cos").set_value(0.0).run()
    assert t("common.correct", lang="en", answer="0") in [s.value for s in at.success]


def test_check_yourself_frames_counted_by_the_core():
    at = at_step("sequences", oh_seq="sound")
    at.number_input(key="oh_q_frames").set_value(2975.0).run()  # 25 ms before the end is no start: starts step by 10
    assert at.error
    last = float(frame_starts(3000)[-1])
    at.number_input(key="oh_q_frames").set_value(last).run()
    assert t("common.correct", lang="en", answer=shown(last)) in [s.value for s in at.success]
    assert f"the last of {frame_count(3000)} windows" in texts(at)  # a right answer brings its explanation


def test_presets_set_the_controls():
    at = open_page(PAGE, "en", whole="1")
    at.button(key="one_hot_preset_article").click().run()
    assert at.multiselect(key="oh_words").value == ["cat", "dog", "apple", "run"]
    assert (at.select_slider(key="oh_V").value, at.select_slider(key="oh_d").value) == (200, 4)
    np.testing.assert_array_equal(z_of(at, "one_hot_sim_onehot"), np.eye(4))
    at.button(key="one_hot_preset_groups").click().run()
    assert len(at.multiselect(key="oh_words").value) == 8
    learned = z_of(at, "one_hot_sim_learned")
    off = ~np.eye(4, dtype=bool)
    between = learned[:4, 4:].mean()  # two blocks: animals with animals, fruit with fruit
    assert learned[:4, :4][off].mean() > between + 0.15 and learned[4:, 4:][off].mean() > between + 0.15
    assert at.segmented_control(key="oh_map").value == "picked"
    at.button(key="one_hot_preset_many").click().run()
    assert not at.exception
    assert len(rows_of(at, "one_hot_sim_learned")) == 20
    assert metric(at, "metric_onehot_len") == "1,000,000"


def test_chinese_mode_shows_glosses_and_translated_groups():
    at = open_page(PAGE, "zh", whole="1")
    assert rows_of(at, "one_hot_sim_onehot")[:3] == ["cat 猫", "dog 狗", "apple 苹果"]
    names = [tr["name"] for tr in figures(at)["one_hot_map"]["data"][:-1]]
    assert names[0] == "动物" and names[1] == "水果与植物"
    ms = at.multiselect(key="oh_words")
    assert ms.format_func("cat") == "cat 猫"
    ms.set_value(["tiger", "cat"]).run()
    assert at.query_params["oh_words"] == ["tiger", "cat"]  # the link holds the ASCII word, not the label
    assert rows_of(at, "one_hot_sim_learned") == ["tiger 老虎", "cat 猫"]


STEPS = {
    1: {"one_hot_vectors"},
    2: {"one_hot_sim_onehot", "one_hot_sim_learned"},
    3: {"one_hot_map", "one_hot_groups"},
    4: {"one_hot_sizes"},
    5: {"one_hot_sentence"},
}


@pytest.mark.parametrize("step", STEPS)
def test_lecture_steps_show_one_section_each_with_its_figures_sized_for_the_first_screen(step):
    at = open_page(PAGE, "en", lecture="1", oh_step=str(step))
    assert not at.exception
    shown = figures(at)
    assert set(shown) == STEPS[step]
    for spec in shown.values():
        assert spec["layout"]["height"] <= LECTURE_PX <= LECTURE_FIGURE_MAX_PX  # whole under the lecture frame
        assert spec["layout"]["font"]["size"] >= 20
    assert t(
        f"one_hot.section_{('vectors', 'similarity', 'map', 'sizes', 'sequences')[step - 1]}", lang="en"
    ) in " ".join(m.value for m in at.markdown)
    assert t("common.section_text", lang="en") in [e.label for e in at.expander]  # the words fold away


def test_lecture_mode_puts_the_words_in_a_popover_and_the_step_in_the_link():
    at = open_page(PAGE, "en", lecture="1")
    assert at.multiselect(key="oh_words").value == DEFAULT_WORDS  # in the title row's popover
    at.button(key="oh_step_next").click().run()
    assert at.query_params["oh_step"] in ("2", ["2"]) and set(figures(at)) == STEPS[2]
    normal = at_step("similarity")
    big, small = figures(at)["one_hot_sim_learned"], figures(normal)["one_hot_sim_learned"]
    assert big["layout"]["font"]["size"] > small["layout"]["font"].get("size", 14)


def test_tables_download_with_named_indexes():
    at = open_page(PAGE, "en", whole="1")
    for box in ("oh_vectors_table", "oh_sizes_table", "oh_sequences_table"):
        at.session_state[box] = True
    at.run()
    indexes = {df.value.index.name for df in at.dataframe}
    assert {
        t("one_hot.word", lang="en"),
        t("one_hot.col_quantity", lang="en"),
        t("one_hot.dimension", lang="en"),
    } <= indexes


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("oh_words", "xylophone"),
        ("oh_words", "<b>cat</b>"),
        ("oh_words", "😀"),
        ("oh_words", "猫"),
        ("oh_words", "cat\u200b"),
        ("oh_words", "a" * 5000),
        ("oh_words", "  "),
        ("oh_V", "abc"),
        ("oh_V", "12345"),
        ("oh_d", "-1"),
        ("oh_T", "99999"),
        ("oh_T", "nan"),
        ("oh_ms", "-5"),
        ("oh_ms", "1e9"),
        ("oh_seq", "video"),
        ("oh_map", "‮all"),
        ("oh_mol", "uranium"),
        ("oh_step", "0"),
        ("oh_step", "6"),
        ("oh_step", "two"),
        *(
            (key, number)
            for key in ("oh_V", "oh_d", "oh_T", "oh_ms", "oh_step", "oh_words", "oh_map", "oh_seq", "oh_mol")
            for number in ("1e309", "-1e309", "1e-400", "9e999")
        ),
    ],
)
def test_a_bad_link_value_falls_back_with_a_notice(key, value):
    example = {"oh_ms": "sound", "oh_mol": "molecule"}.get(key, "sentence")
    lecture = {"lecture": "1"} if key == "oh_step" else {"whole": "1"}
    at = open_page(PAGE, "en", **({"oh_seq": example} | lecture | {key: value}))
    assert not at.exception
    assert at.toast and key in at.toast[0].value
    if key == "oh_step":
        assert set(figures(at)) == {"one_hot_vectors"}  # back to the first step
    else:
        assert set(figures(at)) >= {"one_hot_vectors", "one_hot_sim_onehot", "one_hot_map", "one_hot_sizes"}


def test_a_bad_value_loses_nothing_else_from_the_link():
    at = open_page(
        PAGE, "en", whole="1", oh_words=["tiger", "lion", "apple"], oh_V="oops", oh_d="768", oh_seq="network"
    )
    assert not at.exception
    assert at.toast and "oh_V" in at.toast[0].value
    assert at.multiselect(key="oh_words").value == ["tiger", "lion", "apple"]
    assert at.select_slider(key="oh_d").value == 768 and at.select_slider(key="oh_V").value == 30_522
    assert "one_hot_network" in figures(at)


# --- the declaration and its steps ---------------------------------------------------------------------

FIGURES = {
    "vectors": {"one_hot_vectors"},
    "similarity": {"one_hot_sim_onehot", "one_hot_sim_learned"},
    "map": {"one_hot_map", "one_hot_groups"},
    "sizes": {"one_hot_sizes"},
    "sequences": {"one_hot_sentence"},
}


def test_the_page_is_declared_once_and_its_steps_get_plain_values():
    page_module.PAGE.check()
    assert STEP_NAMES == ("vectors", "similarity", "map", "sizes", "sequences")
    keys = ["oh_words", "oh_map", "oh_V", "oh_d", "oh_T", "oh_seq", "oh_ms", "oh_mol"]  # the links' parameters of old
    assert [c.key for c in C.entries()] == keys
    assert [c.key for c in C.on_step(None)] == [C.words.key]
    assert (C.scope.on, C.V.on, C.kind.on, C.ms.on) == ("map", "sizes", "sequences", "sequences")
    assert page_module.Settings(("cat", "dog")).words == ("cat", "dog")  # plain words, no vectors


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEP_NAMES)
def test_each_step_is_alone_on_the_screen(step, lang):
    """Issue 24: one step at a time; an old link's oh_step=n opens the same step."""
    at = at_step(step, lang)
    assert not at.exception
    assert set(figures(at)) == FIGURES[step]
    numbered = [h.value for h in at.subheader if h.value[:1].isdigit()]
    assert numbered == [f"{STEP_NAMES.index(step) + 1} · {t(INFO.steps[step], lang=lang)}"]
    own = {c.key for c in C.entries() if c.on == step}
    drawn = {w.key for w in (*at.slider, *at.select_slider, *at.segmented_control, *at.selectbox)}
    assert own - {C.ms.key, C.molecule.key} <= drawn  # the sound's and molecule's own: under their example
    assert not {c.key for c in C.entries() if c.on not in (None, step)} & drawn


def test_a_formula_is_folded_beside_its_code():
    at = at_step("sequences", oh_seq="sound")
    assert not [c for c in at.code if "def frame_count" in c.value]
    at.session_state["oh_sequences_formula"] = True
    at.run()
    assert [c.value.split("(")[0] for c in at.code] == ["def frame_count", "def frame_starts"]


# --- issue 26 #8 ----------------------------------------------------------------------------------------


def test_the_chinese_column_labels_never_run_together():
    """Issue 26 #8: on the Chinese page the similarity matrices' column labels, slanted by Plotly
    as it saw fit, ran together ("cat 猫dog 狗"). The angle is given: level while the labels fit
    their columns, else slanted so far that neighbours stay a line apart, on the narrowest plot."""
    from lab_ui.figures.one_hot import LABEL_PX, LINE_PX, MATRIX_PLOT_PX
    from lab_ui.layout import text_px

    for words in (DEFAULT_WORDS, ["cat", "dog"], list(voc.words[::10])):
        at = at_step("similarity", "zh", oh_words=words)
        for key in ("one_hot_sim_onehot", "one_hot_sim_learned"):
            xaxis = figures(at)[key]["layout"]["xaxis"]
            angle, labels = xaxis["tickangle"], xaxis["ticktext"]
            cell = MATRIX_PLOT_PX / len(labels)
            if angle == 0:
                assert max(text_px(label, LABEL_PX) for label in labels) <= cell, (words, labels)
            else:
                assert cell * abs(np.sin(np.radians(angle))) >= LINE_PX, (words, angle)
    assert figures(at_step("similarity", "zh"))["one_hot_sim_onehot"]["layout"]["xaxis"]["tickangle"] != 0
    # on a projector the labels are the words alone, at 20 px: "apple" and "banana" touched, level
    big = open_page(PAGE, "en", lecture="1", oh_step="2")
    assert figures(big)["one_hot_sim_learned"]["layout"]["xaxis"]["tickangle"] != 0


def test_the_checks_ask_what_the_quiz_does_not():
    """Issue 26 #8: the check asked the cosine of two words' one-hot vectors and the quiz their dot
    product (both 0, the same point); the check counted a sound's windows and the quiz too. Each
    quiz question now asks something its page's checks do not."""
    rng = np.random.default_rng(0)
    tasks = {q.make.__name__: q.make(rng) for q in INFO.quiz}
    assert "one_hot_dot" not in tasks  # the check's own point, asked again
    zeros = tasks["one_hot_zeros"]
    assert zeros.answer == float(int(zeros.values["V"].replace(",", "")) - 1)  # a one-hot vector's V - 1 zeros
    at = at_step("sequences", oh_seq="sound")
    at.number_input(key="oh_q_frames").set_value(float(frame_count(3000))).run()  # the quiz's answer (3 s)
    assert at.error and not at.success  # is not the check's: it asks where the last window starts
    check = t("one_hot.quiz_frames", lang="en", ms=3000)
    assert all(t(q.text, lang="en").split("{")[0] not in check for q in INFO.quiz)
