"""The page "from attention to self-attention" in AppTest: its declaration, then move the controls
and check what the figures and tables hold against the core, computed here independently of the
page; a student's spaced Chinese words stay words (issue 26 #1), article 001's three kinds of
output on the same self-attention outputs (#10), checks that are not the quiz's questions (#8)."""

from dataclasses import fields

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

from attention_core.bottleneck import bottleneck_curves
from attention_core.encoder_decoder import (
    EXAMPLE_PAIRS,
    TARGET_WORDS,
    encoder_decoder_view,
    output_kinds,
    sentence_pair,
    split_target,
    trained_model,
    typed_pair,
)
from lab_ui.figures import before_self_attention as figures_module
from lab_ui.i18n import catalog, literal, t
from lab_ui.registry import info as page_info
from pages import before_self_attention as page_module
from pages.before_self_attention import Controls as C

PAGE = "pages/before_self_attention.py"
INFO = page_info("before_self_attention")
STEPS = INFO.step_names
SHOWN = {
    "maps": {"ed_cross", "ed_self"},
    "bottleneck": {"ed_bottleneck", "ed_positions"},
    "shapes": {"ed_shapes"},
    "outputs": {"ed_kinds"},
    "check": set(),
}
FIGURES = set().union(*SHOWN.values())
link = link_of(C)
ARTICLE_EN, ARTICLE_ZH = EXAMPLE_PAIRS["machine_learning"]


def heatmap_z(at, key: str) -> np.ndarray:
    return plotly_array(figures(at)[key]["data"][0]["z"])


def outlined(at) -> set[tuple[int, int]]:
    """(row, column) of every cell outlined as the dictionary's translation."""
    shapes = figures(at)["ed_cross"]["layout"].get("shapes", [])
    return {(round((s["y0"] + s["y1"]) / 2), round((s["x0"] + s["x1"]) / 2)) for s in shapes}


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return "\n".join(p.value for p in parts)


def table(at, column: str):
    return next(d.value for d in at.dataframe if column in list(d.value.columns))


def step_of(key: str) -> str:
    """The step that draws a control (a page-level one: the first)."""
    control = next((c for c in C.entries() if c.key == key), None)
    return (control.on if control else None) or STEPS[0]


def open_numbers(at, *keys: str):
    """Open the closed boxes that hold a figure's numbers (their tables are built only when open)."""
    for key in keys:
        at.session_state[key] = True
    return at.run()


def cross_weights(source: str, target: str, seed: int = 0) -> np.ndarray:
    return encoder_decoder_view(sentence_pair(source, target), seed).cross.weights


# --- what the page shows ---------------------------------------------------------------------------


def test_the_page_is_declared_once_and_its_steps_get_plain_values():
    page_module.PAGE.check()
    assert STEPS == ("maps", "bottleneck", "shapes", "outputs", "check")
    assert [c.key for c in C.entries()] == ["ed_src", "ed_tgt", "ed_seed", "ed_d", "ed_dtok", "ed_tmax", "ed_same"]
    assert [c.key for c in C.on_step(None)] == [C.source.key, C.target.key, C.seed.key]
    assert {f.type for f in fields(page_module.Settings)} <= {str, int}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEPS)
def test_each_step_is_alone_on_the_screen(step, lang):
    at = open_step(PAGE, step, lang)
    assert not at.exception
    assert set(figures(at)) == SHOWN[step]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_in_both_languages_with_its_figures(lang):
    at = open_page(PAGE, lang=lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("before_self_attention.title", lang=lang)
    assert set(figures(at)) == FIGURES
    assert figures(at)["ed_cross"]["layout"]["title"]["text"] == t("before_self_attention.cross_title", lang=lang)


def test_cross_map_is_the_learned_layer_with_target_rows_and_source_columns():
    at = open_page(PAGE)
    z = heatmap_z(at, "ed_cross")
    np.testing.assert_allclose(z, cross_weights(ARTICLE_EN, ARTICLE_ZH), atol=1e-6)
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(np.argmax(z, axis=1) == np.arange(4))  # each Chinese word looks hardest at its translation
    layout = figures(at)["ed_cross"]["layout"]
    assert layout["yaxis"]["ticktext"] == ARTICLE_ZH.split() and layout["xaxis"]["ticktext"] == ARTICLE_EN.split()
    assert outlined(at) == {(i, i) for i in range(4)}
    self_z = heatmap_z(at, "ed_self")
    pair = sentence_pair(ARTICLE_EN, ARTICLE_ZH)
    np.testing.assert_allclose(self_z, encoder_decoder_view(pair).self_source.weights, atol=1e-6)
    weights = table(at, "1 · machine")
    assert weights.index.name == t("before_self_attention.target_axis", lang="en")
    assert list(weights[t("before_self_attention.col_read_out", lang="en")]) == ARTICLE_ZH.split()


def test_the_page_says_where_the_weights_come_from_and_what_is_simplified():
    words = texts(open_page(PAGE, whole="1"))
    assert "Where the weights come from: learned." in words
    assert "One simplification:" in words and "vector of the Chinese word itself" in words
    assert "**set, not learned**" in words  # the bottleneck's C_i attention
    assert t("before_self_attention.kind_learned", lang="en") in words


def test_an_uneven_pair_gives_a_map_that_is_not_square():
    at = open_page(PAGE)
    at.button(key="before_self_attention_preset_uneven").click().run()
    assert at.query_params["ed_src"] == "thank you very much"
    z = heatmap_z(at, "ed_cross")
    assert z.shape == (2, 4)
    np.testing.assert_allclose(z, cross_weights("thank you very much", "非常 感谢"), atol=1e-6)
    assert outlined(at) == {(0, 2), (0, 3), (1, 0)}  # 非常 ← very, much; 感谢 ← thank; "you" untranslated
    at = open_step(PAGE, "shapes", **link(source="thank you very much", target="非常 感谢"))
    shapes = table(at, t("before_self_attention.col_numbers", lang="en"))
    assert shapes.loc["A'", t("before_self_attention.col_numbers", lang="en")] == "[2, 4]"
    assert shapes.loc["Q", t("before_self_attention.col_numbers", lang="en")] == "[2, 8]"
    assert shapes.loc["K", t("before_self_attention.col_numbers", lang="en")] == "[4, 8]"


def test_target_equals_source_makes_the_shapes_square():
    at = open_step(PAGE, "shapes", ed_src="thank you very much", ed_tgt="非常 感谢")
    at.toggle(key="ed_same").set_value(True).run()
    shapes = table(at, t("before_self_attention.col_numbers", lang="en"))
    here = t("before_self_attention.col_numbers", lang="en")
    assert shapes.loc["A'", here] == "[4, 4]" and shapes.loc["C", here] == "[4, 16]"
    blocks = [tr for tr in figures(at)["ed_shapes"]["data"] if tr.get("mode") == "text"][1]
    assert "4 × 4" in blocks["text"]


def test_unknown_words_are_grey_and_explained():
    at = open_page(PAGE, ed_src="machine learning is cool", ed_tgt="机器 学习 很 酷")
    ticks = figures(at)["ed_cross"]["layout"]["xaxis"]["ticktext"]
    assert ticks[:3] == ["machine", "learning", "is"] and "color:#9a9a9a" in ticks[3] and "cool?" in ticks[3]
    assert "color:#9a9a9a" in figures(at)["ed_cross"]["layout"]["yaxis"]["ticktext"][3]
    assert any(t("before_self_attention.unknown_words", lang="en", words="")[:40] in w.value for w in at.warning)
    known = table(at, t("before_self_attention.col_known", lang="en"))[t("before_self_attention.col_known", lang="en")]
    assert list(known) == ["yes", "yes", "yes", t("before_self_attention.known_False", lang="en")]


# --- the bottleneck --------------------------------------------------------------------------------


def test_bottleneck_curves_are_the_cores_and_follow_the_controls():
    at = open_step(PAGE, "bottleneck")
    curves = bottleneck_curves(24, 8, None, 2)
    data = figures(at)["ed_bottleneck"]["data"]
    np.testing.assert_allclose(plotly_array(data[0]["y"]), curves.per_step, atol=1e-6)
    np.testing.assert_allclose(plotly_array(data[1]["y"]), curves.fixed, atol=1e-6)
    np.testing.assert_allclose(plotly_array(data[2]["y"]), curves.ceiling, atol=1e-6)
    marker = figures(at)["ed_bottleneck"]["layout"]["shapes"][0]
    assert marker["x0"] == 4  # the sentence has 4 words
    at.select_slider(key="ed_d").set_value(16).run()
    at.select_slider(key="ed_tmax").set_value(8).run()
    wider = bottleneck_curves(8, 16, None, 2)
    data = figures(at)["ed_bottleneck"]["data"]
    np.testing.assert_allclose(plotly_array(data[1]["y"]), wider.fixed, atol=1e-6)
    assert plotly_array(data[1]["x"]).tolist() == list(range(1, 9))
    bars = figures(at)["ed_positions"]["data"]
    np.testing.assert_allclose(plotly_array(bars[1]["y"]), wider.fixed_by_position, atol=1e-6)
    assert not any(t("before_self_attention.bn_ceiling", lang="en") in d.value.columns for d in at.dataframe)
    numbers = table(open_numbers(at, "ed_bottleneck_table"), t("before_self_attention.bn_ceiling", lang="en"))
    assert numbers.index.name == t("before_self_attention.bn_x", lang="en")
    np.testing.assert_allclose(numbers[t("before_self_attention.bn_fixed", lang="en")], wider.fixed)


def test_the_reading_names_a_ceiling_only_where_c_has_no_room_for_the_sentence():
    """At the defaults (4 words of 2 numbers into d = 8) C could hold every source number: the text
    says so, not that no read-out can pass "1.00". With d = 4 the ceiling 4 / (4 · 2) = 0.50 bites."""
    at = open_step(PAGE, "bottleneck")
    curves = bottleneck_curves(24, 8, None, 2)
    room = t(
        "before_self_attention.bn_reading_room",
        lang="en",
        T=4,
        fixed=f"{curves.fixed[3]:.2f}",
        per_step=f"{curves.per_step[3]:.2f}",
        aligned=f"{curves.aligned_weight[3]:.3f}",
        d=8,
        d_token=2,
        total=8,
        room=4,
    )
    assert room.strip() in texts(at) and "1.00" not in room
    at.select_slider(key="ed_d").set_value(4).run()
    assert "can pass **0.50** there" in texts(at)


def test_the_fixed_context_keeps_less_than_the_per_step_contexts_as_the_sentence_grows():
    at = open_step(PAGE, "bottleneck", ed_tmax="64")
    data = figures(at)["ed_bottleneck"]["data"]
    per_step, fixed = plotly_array(data[0]["y"]), plotly_array(data[1]["y"])
    assert fixed[-1] < 0.1 < 0.8 < per_step[-1]
    assert fixed[0] == pytest.approx(per_step[0], abs=1e-6)


# --- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("", ""),
        ("   ", "机器"),
        ("fun " * 1250, "有趣"),  # 5,000 characters
        ("🤖 <b>bold</b> learning", "😀 <script>x</script>"),
        ("machine learning is fun", "机器学习很有趣"),  # no spaces: split by the dictionary
        ("I", "我 在 家 看 书 呢 吧"),  # 1 word against 7
    ],
)
def test_awkward_text_never_breaks_the_page(source, target):
    at = open_page(PAGE, ed_src=source, ed_tgt=target)
    assert not at.exception
    z = heatmap_z(at, "ed_cross")
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-5)
    assert at.text_input(key="ed_src").value == source  # what was typed stays in the box
    if not source.strip():
        assert t("before_self_attention.empty_source", lang="en") in texts(at)
        assert figures(at)["ed_cross"]["layout"]["xaxis"]["ticktext"] == ARTICLE_EN.split()
    if len(source) > 1000:
        assert z.shape[1] == 40 and t("before_self_attention.cut_source", lang="en", total=1250, shown=40) in texts(at)
    labels = (
        figures(at)["ed_cross"]["layout"]["xaxis"]["ticktext"] + figures(at)["ed_cross"]["layout"]["yaxis"]["ticktext"]
    )
    assert not any("<b>" in s or "<script" in s for s in labels)  # escaped: shown as text


def test_a_chinese_sentence_without_spaces_is_split_into_dictionary_words():
    at = open_page(PAGE, ed_tgt="机器学习很有趣")
    assert figures(at)["ed_cross"]["layout"]["yaxis"]["ticktext"] == ["机器", "学习", "很", "有趣"]


def test_another_seed_trains_another_model_that_still_aligns():
    at = open_page(PAGE, ed_seed="3")
    z = heatmap_z(at, "ed_cross")
    np.testing.assert_allclose(z, cross_weights(ARTICLE_EN, ARTICLE_ZH, seed=3), atol=1e-6)
    assert not np.allclose(z, cross_weights(ARTICLE_EN, ARTICLE_ZH, seed=0), atol=1e-3)


@pytest.mark.parametrize(
    ("params", "key", "fallback"),
    [
        ({"ed_d": "3"}, "ed_d", 8),
        ({"ed_d": "1e309"}, "ed_d", 8),
        ({"ed_tmax": "9e999"}, "ed_tmax", 24),
        ({"ed_dtok": "-1e309"}, "ed_dtok", 2),
        ({"ed_seed": "1e-400"}, "ed_seed", 0),
        ({"ed_same": "maybe"}, "ed_same", False),
        ({"ed_step": "9"}, "ed_step", 1),
    ],
)
def test_bad_link_values_fall_back_with_a_notice(params, key, fallback):
    step = {INFO.step_key: str(STEPS.index(step_of(key)) + 1)} if key != INFO.step_key else {}
    at = open_page(PAGE, "en", ed_src="thank you very much", ed_tgt="非常 感谢", **{**step, **params})
    assert not at.exception and not at.error
    assert at.toast and key in at.toast[0].value
    assert at.session_state[key] == fallback
    view = encoder_decoder_view(typed_pair("thank you very much", "非常 感谢"))  # the rest of the link still counts
    assert view.cross.weights.shape == (2, 4) and "thank you very much" in at.query_params["ed_src"]


# --- lecture mode, check yourself ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "shown"),
    [(i, SHOWN[name]) for i, name in enumerate(STEPS, 1)],
)
def test_lecture_mode_shows_one_step_at_a_time(step, shown):
    at = open_page(PAGE, lecture="1", ed_step=str(step))
    assert not at.exception
    assert set(figures(at)) == shown
    for spec in figures(at).values():
        assert spec["layout"]["height"] <= 430 and spec["layout"]["font"]["size"] >= 20


def test_in_lecture_mode_the_self_maps_key_labels_have_room_and_air():
    """On a projector "machine" and "learning" under the self-attention map stood 6 px apart and
    read as one label. There the map gives its colour bar's room to its columns (the cross map
    beside it shows the same scale), and each key label carries air either side, so labels that
    still come close make Plotly slant them."""
    air = figures_module.LABEL_AIR
    lecture = figures(open_page(PAGE, lecture="1", ed_step="1"))
    assert lecture["ed_self"]["data"][0]["showscale"] is False
    # The cross map's cells hold their numbers: no colour bar either, its width is the key labels'
    assert lecture["ed_cross"]["data"][0]["showscale"] is False and lecture["ed_cross"]["data"][0]["texttemplate"]
    for key in ("ed_cross", "ed_self"):
        labels = lecture[key]["layout"]["xaxis"]["ticktext"]
        assert [s.strip(air) for s in labels] == ARTICLE_EN.split() and all(s[0] == s[-1] == air for s in labels)
    desktop = figures(open_page(PAGE))["ed_self"]
    assert desktop["data"][0].get("showscale", True) and desktop["layout"]["xaxis"]["ticktext"] == ARTICLE_EN.split()


def test_check_yourself():
    at = open_step(PAGE, "check")
    at.radio(key="ed_check_shape").set_value("3x6").run()  # A' is [3, 6]; C = A'V is [3, d_v]
    assert at.error and not at.success
    at.radio(key="ed_check_shape").set_value("3x8").run()
    assert at.success
    curves = bottleneck_curves(24, 8, None, 2)  # the bottleneck chart as it opens, which the check asks about
    at.number_input(key="ed_check_ceiling").set_value(float(curves.ceiling[15])).run()
    assert len(at.success) == 2
    assert f"about {curves.fixed[15]:.2f} at $T$ = 16" in texts(at)  # the measured curve, from the core
    assert "ed_check_shape" not in at.query_params  # answers stay out of the link


def test_a_pair_with_nothing_to_align_says_so():
    at = open_page(PAGE, ed_src="cat likes fish", ed_tgt="机器 学习")
    assert not at.exception and not outlined(at)
    assert t("before_self_attention.agreement_none", lang="en") in texts(at)
    aligned = open_page(PAGE)
    assert t("before_self_attention.agreement_some", lang="en", share="100 %") in texts(aligned)


def test_every_figure_has_its_numbers_one_click_away():
    boxes = ("ed_maps_table", "ed_bottleneck_table", "ed_bottleneck_positions", "ed_learned", "ed_outputs_table")
    at = open_numbers(open_page(PAGE, whole="1"), *boxes)
    assert not at.exception
    assert len(at.dataframe) == 7  # cross, self, bottleneck by length and by position, shapes, loss, outputs
    assert set(figures(at)) == FIGURES | {"ed_loss"}


# --- issue 26: spaced words stay words, three kinds of output, checks that are not the quiz ----------


def test_a_student_s_spaced_chinese_words_stay_words():
    """Issue 26 #1: 猫 坐 在 垫子 is four words; 垫子, not in the dictionary, became 垫 / 子 and the
    shapes read [5, ...] rows instead of [4, ...]."""
    assert split_target("猫 坐 在 垫子") == ["猫", "坐", "在", "垫子"]
    assert split_target("垫子") == ["垫", "子"]  # no spaces: the dictionary, then one character each
    assert split_target("猫 坐 在 垫子。") == ["猫", "坐", "在", "垫子", "。"]
    at = open_step(PAGE, "shapes", **link(source="the cat sat on mat", target="猫 坐 在 垫子"))
    shapes = table(at, t("before_self_attention.col_numbers", lang="en"))
    here = t("before_self_attention.col_numbers", lang="en")
    assert shapes.loc["A'", here] == "[4, 5]" and shapes.loc["Q", here] == "[4, 8]"
    at = open_step(PAGE, "maps", **link(source="the cat sat on mat", target="猫 坐 在 垫子"))
    assert heatmap_z(at, "ed_cross").shape == (4, 5)
    assert literal("猫 / 坐 / 在 / 垫子") in texts(at)  # the page says how it read the sentence, and by which rule
    assert "separated by spaces stay words" in texts(at)


def test_article_001_s_three_kinds_of_output_on_the_same_self_attention_outputs():
    pair = sentence_pair(*EXAMPLE_PAIRS["thank_you"])
    kinds = output_kinds(pair)
    model, view = trained_model(0), encoder_decoder_view(pair)
    np.testing.assert_allclose(kinds.outputs, view.self_source.output)
    assert len(kinds.per_vector) == len(pair.source) == 4  # one label per vector
    assert kinds.per_vector == tuple(TARGET_WORDS[i] for i in np.argmax(view.self_source.output @ model.w_out, -1))
    np.testing.assert_allclose(kinds.pooled, view.self_source.output.mean(axis=0))  # one label per sequence
    assert kinds.per_sequence == TARGET_WORDS[int(np.argmax(kinds.pooled @ model.w_out))]
    assert kinds.sequence == view.predicted and len(kinds.sequence) == 2  # seq2seq: 2 words for 4
    at = open_step(PAGE, "outputs", **link(source="thank you very much", target="非常 感谢"))
    z = heatmap_z(at, "ed_kinds")
    assert z.shape == (5, view.self_source.output.shape[1])  # four outputs and their mean
    ticks = figures(at)["ed_kinds"]["layout"]["yaxis"]["ticktext"]
    assert ticks[0] == f"thank → {kinds.per_vector[0]}" and kinds.per_sequence in ticks[-1]
    words = texts(at)
    for example in ("part-of-speech tagging", "sentiment analysis", "which speaker", "seq2seq", "translation"):
        assert example in words
    assert "**2** words" in words and "非常 感谢" in words
    zh = texts(open_step(PAGE, "outputs", "zh"))
    assert "词性标注" in zh and "情感分析" in zh and "seq2seq" in zh


def test_the_checks_ask_other_questions_than_the_quiz():
    texts_of = catalog()
    checks = [texts_of[f"before_self_attention.{key}"]["en"] for key in ("q_shape", "q_ceiling")]
    quiz = [texts_of[q.text]["en"] for q in INFO.quiz]

    def words(text: str) -> set[str]:
        return set(text.lower().replace("$", " ").split())

    for check in checks:
        for question in quiz:
            overlap = len(words(check) & words(question)) / len(words(check) | words(question))
            assert overlap < 0.3, (check, question)
    # the shape of A' is the quiz's question (its number of weights); the check asks for C = A'V
    assert "C = A'V" in checks[0]
