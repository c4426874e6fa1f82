"""The real-model page in AppTest: the grid, the large map and the [CLS]/[SEP] switch hold the model's
weights (checked against attention_core, computed here independently of the page); free text with
the optional package, examples only without it; awkward text and bad links never break the page."""

import os

import numpy as np
import pytest
from app_harness import figures, open_page, plotly_array

import attention_core.pretrained as pretrained
from attention_core.attention_views import (
    hide_tokens,
    pattern_shares,
    rows_apart,
    special_positions,
    special_share,
    strongest,
)
from attention_core.shipped import load_examples
from lab_ui.figures.real_model import grid_block, grid_gap
from lab_ui.i18n import literal, t
from lab_ui.quiz import shown

PAGE = "pages/real_model.py"
EXAMPLES = {e.id: e for e in load_examples()}
ANIMAL = EXAMPLES["animal_tired"]
IT, NOUN = ANIMAL.tokens.index("it"), ANIMAL.tokens.index("animal")
IT_LAYER, IT_HEAD = strongest(ANIMAL.attentions[:, :, IT, NOUN])  # the default head, found by computing
OWN_DEFAULT = "The trophy didn't fit into the suitcase because it was too big."  # the page's free-text example


def grid_maps(at, T: int) -> np.ndarray:
    """The 72 maps cut back out of the grid figure.  -> [6, 12, T, T]"""
    z = plotly_array(figures(at)["rm_grid"]["data"][0]["z"])
    return np.array([[grid_block(z, T, layer, head) for head in range(12)] for layer in range(6)])


def head_map(at) -> np.ndarray:
    return plotly_array(figures(at)["rm_head_map"]["data"][0]["z"])


def head_rows(at) -> list[str]:
    return figures(at)["rm_head_map"]["data"][0]["y"]


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return " ".join(p.value for p in parts)


@pytest.fixture
def shipped_only(monkeypatch):
    """A default install: the optional model package is absent."""
    monkeypatch.setattr(pretrained, "minilm_available", lambda: False)


@pytest.fixture(scope="module")
def minilm():
    """The encoder, or a visible skip when the package is absent (a failure under CI=true)."""
    if not pretrained.minilm_available():
        reason = f"the real model is not installed: {pretrained.INSTALL_COMMAND} (or make real-model)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    return pretrained.load_minilm()


# --- defaults and languages -------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_in_both_languages_at_the_it_animal_head(lang):
    at = open_page(PAGE, lang=lang)
    assert not at.exception
    assert at.title[0].value == t("real_model.title", lang=lang)
    assert set(figures(at)) == {"rm_grid", "rm_head_map", "rm_share"}
    assert (at.slider(key="rm_layer").value, at.slider(key="rm_head").value) == (IT_LAYER + 1, IT_HEAD + 1)
    row = head_map(at)[IT]
    assert int(np.argmax(row)) == NOUN  # in this head "it" looks most at "animal"
    assert (at.selectbox(key="rm_q").value, at.selectbox(key="rm_k").value) == (IT, NOUN)
    # the shipped rows all sum to 1.0000: said once, not as a range "from 1.0000 to 1.0000"
    said = " ".join(m.value for m in at.markdown)
    assert t("real_model.row_sums_equal", lang=lang, total="1.0000") in said


@pytest.mark.parametrize(
    ("step", "shown"), [(1, {"rm_grid"}), (2, {"rm_head_map"}), (3, {"rm_share"}), (4, set()), (5, set())]
)
def test_lecture_mode_shows_one_section_per_step(step, shown):
    at = open_page(PAGE, lecture="1", rm_step=str(step))
    assert not at.exception
    assert set(figures(at)) == shown
    for fig in figures(at).values():
        assert fig["layout"]["font"]["size"] >= 20 and fig["layout"]["height"] <= 430
    assert at.slider(key="rm_layer") and at.selectbox(key="rm_ex")  # the settings stay at hand, in a popover
    if step == 4:
        assert at.selectbox(key="rm_q") and at.selectbox(key="rm_k")
    if step == 5:
        assert at.number_input(key="rm_num")


def in_order(node):
    """The page's blocks and elements in the order the browser stacks them (a block before its content)."""
    yield node
    children = getattr(node, "children", None) or {}
    for i in sorted(children):
        yield from in_order(children[i])


def place(at, match) -> int:
    return next(i for i, e in enumerate(in_order(at.main)) if match(e))


def test_lecture_step_2_names_its_head_above_the_map():
    at = open_page(PAGE, lang="zh", lecture="1", rm_step="2")
    title = t("real_model.head_title", lang="zh", layer=IT_LAYER + 1, head=IT_HEAD + 1)
    heading = place(at, lambda e: e.type == "markdown" and e.value == f"**{title}**")
    assert heading < place(at, lambda e: e.type == "plotly_chart" and e.key == "rm_head_map")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lecture_step_4_shows_the_heads_found_before_the_formula_and_code(lang):
    at = open_page(PAGE, lang=lang, lecture="1", rm_step="4")
    shares = pattern_shares(ANIMAL.attentions, ANIMAL.tokens)
    layer, head = strongest(shares[..., 0])
    found = t(
        "real_model.found_previous", lang=lang, layer=layer + 1, head=head + 1, share=f"{shares[layer, head, 0]:.2f}"
    )
    first_found = place(at, lambda e: e.type == "markdown" and e.value == found)
    assert first_found < place(at, lambda e: e.type == "code") and first_found < place(at, lambda e: e.type == "latex")
    assert first_found < place(at, lambda e: e.type == "expander")  # the folded words last, as on other steps
    outside = open_page(PAGE, lang=lang)  # on the screen the words, the measure, then who does it
    assert place(outside, lambda e: e.type == "latex") < place(
        outside, lambda e: e.type == "markdown" and e.value == found
    )


@pytest.mark.parametrize(("step", "button"), [(4, "rm_go_previous"), (3, "rm_go_park")])
def test_a_lecture_steps_show_buttons_go_to_the_close_up_step(step, button):
    """One step is on the screen in lecture mode: "show ... above" pointed at a map that was not there."""
    at = open_page(PAGE, lecture="1", rm_step=str(step))
    label = at.button(key=button).label  # "Show layer 1, head 3 in step 2": where it goes, not "above"
    assert label.endswith("in step 2") and "above" not in label
    at.button(key=button).click().run()
    assert not at.exception
    assert at.session_state["rm_step"] == 2 and at.query_params["rm_step"] == "2"
    assert set(figures(at)) == {"rm_head_map"}
    layer, head = at.slider(key="rm_layer").value - 1, at.slider(key="rm_head").value - 1
    np.testing.assert_allclose(head_map(at), ANIMAL.attentions[layer, head], atol=1e-6)
    assert at.button(key="rm_step_prev")  # still in lecture mode, on the close-up's step


def test_show_buttons_outside_lecture_mode_stay_on_the_page():
    at = open_page(PAGE)
    assert at.button(key="rm_go_previous").label.endswith("above")
    at.button(key="rm_go_previous").click().run()
    assert "rm_step" not in at.query_params and {"rm_grid", "rm_head_map", "rm_share"} <= set(figures(at))


def test_on_a_phone_the_close_up_keeps_every_other_key_label():
    """16 key labels stood 8 px apart in a 130 px map on a phone (CSS knows the screen; the figure does not)."""
    at = open_page(PAGE)
    styles = [h.proto.body for h in at.get("html") if ".st-key-rm_head_map g.xaxislayer-above" in h.proto.body]
    assert len(styles) == 1 and "@media (max-width: 640px)" in styles[0] and "nth-of-type(2n+1)" in styles[0]
    lecture = open_page(PAGE, lecture="1", rm_step="2")  # a projector has the room: all 16 labels
    assert not [h for h in lecture.get("html") if "g.xaxislayer-above" in h.proto.body]


# --- the grid, the large map, the switch ---------------------------------------------------------------


@pytest.mark.parametrize("example", ["animal_tired", "saw_saw", "cat_river_zh"])
def test_grid_holds_the_72_shipped_maps(shipped_only, example):
    at = open_page(PAGE, rm_ex=example)
    e = EXAMPLES[example]
    T = len(e.tokens)
    np.testing.assert_allclose(grid_maps(at, T), e.attentions, atol=1e-6)  # float32 on the wire
    grid = figures(at)["rm_grid"]
    assert grid["data"][0]["y"][0] == t("real_model.layer_n", layer=1) + f" · query 1: {e.tokens[0]}"  # counted from 1
    assert (grid["data"][0]["zmin"], grid["data"][0]["zmax"]) == (0, 1)


@pytest.mark.parametrize(("layer", "head"), [(1, 1), (3, 7), (6, 12)])
def test_selected_head_is_shown_large_and_outlined(layer, head):
    at = open_page(PAGE, rm_ex="keys_cabinet")
    at.slider(key="rm_layer").set_value(layer).run()
    at.slider(key="rm_head").set_value(head).run()
    e = EXAMPLES["keys_cabinet"]
    np.testing.assert_allclose(head_map(at), e.attentions[layer - 1, head - 1], atol=1e-6)
    assert head_rows(at) == [f"{i} · {tok}" for i, tok in enumerate(e.tokens, start=1)]
    np.testing.assert_allclose(head_map(at).sum(axis=1), 1.0, atol=1e-5)
    (outline,) = figures(at)["rm_grid"]["layout"]["shapes"]
    T = len(e.tokens)
    step = T + grid_gap(T)
    assert (outline["x0"] + outline["x1"]) / 2 == pytest.approx((head - 1) * step + (T - 1) / 2)  # around the map
    assert (outline["y0"] + outline["y1"]) / 2 == pytest.approx((layer - 1) * step + (T - 1) / 2)
    assert t("real_model.head_title", layer=layer, head=head) in texts(at)


def test_hiding_cls_and_sep_renormalises_each_row_over_the_words():
    at = open_page(PAGE, rm_ex="bank_river", rm_layer="3", rm_head="5")
    e = EXAMPLES["bank_river"]
    at.toggle(key="rm_hide").set_value(True).run()
    special = special_positions(e.tokens)
    words = e.attentions[2, 4][~special][:, ~special]
    expected = words / words.sum(axis=1, keepdims=True)  # by hand, not with the page's function
    np.testing.assert_allclose(head_map(at), expected, atol=1e-6)
    np.testing.assert_allclose(head_map(at).sum(axis=1), 1.0, atol=1e-5)
    assert head_rows(at)[0] == "2 · she" and len(head_rows(at)) == len(e.tokens) - 2  # positions kept
    T = len(e.tokens) - 2
    np.testing.assert_allclose(grid_maps(at, T), hide_tokens(e.attentions, special), atol=1e-6)
    assert t("real_model.grid_hidden") in texts(at)
    at.toggle(key="rm_hide").set_value(False).run()
    np.testing.assert_allclose(head_map(at), e.attentions[2, 4], atol=1e-6)


def test_hidden_rows_with_nothing_left_stay_zero_and_are_counted():
    e = EXAMPLES["cat_river_zh"]  # float16 storage rounds some word weights to 0
    shown = hide_tokens(e.attentions, special_positions(e.tokens))
    empty = int((shown.sum(axis=-1) == 0).sum())
    at = open_page(PAGE, rm_ex="cat_river_zh", rm_hide="true")
    assert not at.exception
    if empty:
        assert t("real_model.empty_rows", n=empty) in texts(at)
    assert np.isfinite(grid_maps(at, len(e.tokens) - 2)).all()


def test_share_on_cls_and_sep_per_head():
    at = open_page(PAGE, rm_ex="cat_mat")
    e = EXAMPLES["cat_mat"]
    special = special_positions(e.tokens)
    expected = special_share(e.attentions, special)[:, :, ~special].mean(axis=-1)  # [6, 12] over word queries
    np.testing.assert_allclose(plotly_array(figures(at)["rm_share"]["data"][0]["z"]), expected, atol=1e-6)
    parking = int((expected > 0.5).sum())
    assert t("real_model.grid_sink", n=parking, total=72) in texts(at)
    layer, head = np.unravel_index(np.argmax(expected), expected.shape)
    at.button(key="rm_go_park").click().run()
    assert (at.slider(key="rm_layer").value, at.slider(key="rm_head").value) == (layer + 1, head + 1)


def test_every_figure_has_its_numbers_once_opened():
    at = open_page(PAGE, rm_ex="saw_saw", rm_layer="2", rm_head="4")
    assert len(at.dataframe) == 0  # tables are built only when their expander is open
    for key in ("rm_num_grid", "rm_num_head", "rm_num_share"):
        at.session_state[key] = True
    at.run()
    e = EXAMPLES["saw_saw"]
    head = next(d.value for d in at.dataframe if t("real_model.row_sum") in d.value.columns)
    np.testing.assert_allclose(head.iloc[:, 1:].to_numpy(float), e.attentions[1, 3], atol=1e-6)  # float32 kept
    np.testing.assert_allclose(head[t("real_model.row_sum")], 1.0, atol=1e-6)
    assert list(head.index) == ["1 · [CLS]", "2 · i", "3 · saw", "4 · a", "5 · saw", "6 · .", "7 · [SEP]"]
    grid = next(d.value for d in at.dataframe if t("real_model.query") in d.value.columns)
    assert len(grid) == 72 * 7
    np.testing.assert_allclose(grid.iloc[:, 3:].to_numpy(float), e.attentions.reshape(-1, 7), atol=1e-6)


# --- heads with a job, found by computation --------------------------------------------------------------


def test_jobs_name_the_heads_the_core_finds():
    at = open_page(PAGE, rm_ex="attention_need")
    e = EXAMPLES["attention_need"]
    shares = pattern_shares(e.attentions, e.tokens)
    layer, head = strongest(shares[..., 0])
    found = t("real_model.found_previous", layer=layer + 1, head=head + 1, share=f"{shares[layer, head, 0]:.2f}")
    assert found in texts(at)
    at.button(key="rm_go_previous").click().run()
    assert (at.slider(key="rm_layer").value, at.slider(key="rm_head").value) == (layer + 1, head + 1)
    rows = head_map(at)
    assert all(int(np.argmax(rows[i])) == i - 1 for i in range(2, len(e.tokens) - 1))  # each word: the one before


def test_a_job_no_head_does_clearly_is_said_to_be_weak():
    at = open_page(PAGE)  # "The animal didn't cross...": no head looks mostly at the word itself
    shares = pattern_shares(ANIMAL.attentions, ANIMAL.tokens)
    layer, head = strongest(shares[..., 2])
    assert shares[layer, head, 2] < 0.5
    found = t("real_model.found_self", layer=layer + 1, head=head + 1, share=f"{shares[layer, head, 2]:.2f}")
    assert t("real_model.weak_job", found=found, clear="0.50") in texts(at)
    buttons = [b.key for b in at.button]
    assert "rm_go_self" not in buttons and "rm_go_previous" in buttons


def test_seeds_preset_shows_the_two_saws_attending_differently():
    at = open_page(PAGE)
    at.button(key="real_model_preset_article").click().run()
    e = EXAMPLES["saw_saw"]
    apart = rows_apart(e.attentions, 2, 4)
    layer, head = strongest(apart)
    assert at.selectbox(key="rm_ex").value == "saw_saw"
    assert (at.slider(key="rm_layer").value, at.slider(key="rm_head").value) == (layer + 1, head + 1)
    rows = head_map(at)
    assert int(np.argmax(rows[2])) != int(np.argmax(rows[4]))  # the same word, looking at different tokens
    assert f"{apart[layer, head]:.2f}" in texts(at)


def test_positions_are_counted_from_1_as_on_the_other_pages_and_links_keep_their_meaning():
    # The heatmap page says "11 · it" for this sentence; this page said "10 · it" and "“the” stands at 1
    # and at 7". Links store the 0-based position (rm_q=10 is "it"), as they always did.
    at = open_page(PAGE, rm_q=str(IT), rm_k=str(NOUN))
    assert (at.selectbox(key="rm_q").value, at.selectbox(key="rm_k").value) == (IT, NOUN)
    assert ANIMAL.tokens[IT] == "it" and IT == 10
    options = at.selectbox(key="rm_q").options  # as shown: the words only, counted from 1
    assert options[0] == "2 · the" and "11 · it" in options
    first, second = [i for i, tok in enumerate(ANIMAL.tokens) if tok == "the"][:2]
    said = texts(at)
    assert f"“the” stands at {first + 1} and at {second + 1}" in said  # 2 and 8
    assert literal("11 · it → 3 · animal") in said
    assert head_rows(at)[IT] == "11 · it"
    grid = figures(at)["rm_grid"]["data"][0]
    assert grid["y"][IT] == t("real_model.layer_n", layer=1) + " · query 11: it"


def test_find_a_head_links_two_words():
    at = open_page(PAGE, rm_ex="keys_cabinet")
    e = EXAMPLES["keys_cabinet"]
    q, k = e.tokens.index("are"), e.tokens.index("keys")
    at.selectbox(key="rm_q").set_value(q).run()
    at.selectbox(key="rm_k").set_value(k).run()
    layer, head = strongest(e.attentions[:, :, q, k])
    assert f"{e.attentions[layer, head, q, k]:.2f}" in texts(at)
    at.button(key="rm_go_link").click().run()
    assert (at.slider(key="rm_layer").value, at.slider(key="rm_head").value) == (layer + 1, head + 1)
    assert head_map(at)[q, k] == pytest.approx(e.attentions[layer, head, q, k], abs=1e-6)


def test_presets_long_and_animal(shipped_only):
    at = open_page(PAGE)
    at.button(key="real_model_preset_long").click().run()
    longest = max(EXAMPLES.values(), key=lambda e: (len(e.tokens), e.id != "animal_tired"))
    assert at.selectbox(key="rm_ex").value == longest.id
    assert at.toggle(key="rm_hide").value is True
    it, street = longest.tokens.index("it"), longest.tokens.index("street")  # "...too wide": "it" is the street
    assert (at.selectbox(key="rm_q").value, at.selectbox(key="rm_k").value) == (it, street)
    special = special_positions(longest.tokens)
    layer, head = strongest(hide_tokens(longest.attentions, special)[:, :, it - 1, street - 1])
    assert f"{layer + 1}, head {head + 1} gives the most" in texts(at)
    at.button(key="real_model_preset_animal").click().run()
    assert at.selectbox(key="rm_ex").value == "animal_tired" and at.toggle(key="rm_hide").value is False


# --- check yourself -------------------------------------------------------------------------------------


def test_check_yourself_answers_are_computed():
    at = open_page(PAGE, rm_ex="cat_mat", rm_layer="5", rm_head="6")
    e = EXAMPLES["cat_mat"]
    words = [i for i, tok in enumerate(e.tokens) if tok not in ("[CLS]", "[SEP]")]
    ask = words[len(words) // 2]
    layer, head = strongest(pattern_shares(e.attentions, e.tokens)[..., 0])
    best = int(np.argmax(e.attentions[layer, head, ask]))
    assert best == ask - 1  # the previous-token head does its job here
    at.radio(key="rm_check").set_value(str(ask + 1)).run()
    assert t("common.not_quite_choice", typed=literal(f"{ask + 2} · {e.tokens[ask + 1]}")) in texts(at)
    explanation = t(
        "real_model.check_expl",
        best=literal(f"{best + 1} · {e.tokens[best]}"),
        weight=f"{e.attentions[layer, head, ask, best]:.3f}",
        layer=layer + 1,
        head=head + 1,
    )
    assert explanation not in texts(at)  # a wrong pick keeps the answer behind "Show the answer"
    at.toggle(key="rm_check_show").set_value(True).run()
    assert explanation in texts(at)
    at.toggle(key="rm_check_show").set_value(False).run()
    at.radio(key="rm_check").set_value(str(best)).run()
    assert t("common.correct", answer=literal(f"{best + 1} · {e.tokens[best]}")) in texts(at)
    assert explanation in texts(at)
    parked = float(e.attentions[4, 5, ask, 0] + e.attentions[4, 5, ask, -1])
    at.number_input(key="rm_num").set_value(round(parked, 3)).run()
    assert t("common.correct", answer=shown(parked)) in texts(at)
    at.number_input(key="rm_num").set_value(round(parked + 0.1, 3)).run()
    assert t("common.correct", answer=shown(parked)) not in texts(at)


# --- without the optional package -------------------------------------------------------------------------


def test_without_the_package_only_examples_and_how_to_enable(shipped_only):
    at = open_page(PAGE)
    assert not at.exception
    assert at.selectbox(key="rm_ex").options == [e.text for e in EXAMPLES.values()]
    assert "make real-model" in texts(at)
    assert not [w for w in at.text_input if not w.key.startswith("qz_")]  # the quiz at the end types numbers


def test_a_free_text_link_without_the_package_falls_back_with_a_notice(shipped_only):
    at = open_page(PAGE, rm_ex="own", rm_text="Dogs bark.")
    assert not at.exception
    assert at.selectbox(key="rm_ex").value == "animal_tired"
    assert at.toast and "rm_ex" in at.toast[0].value
    assert head_rows(at)[1] == "2 · the"


# --- free text with the package -------------------------------------------------------------------------------


def test_free_text_runs_the_model(minilm):
    text = "The trophy didn't fit into the suitcase because it was too big."
    at = open_page(PAGE, rm_ex="own", rm_text=text, rm_layer="2", rm_head="3")
    assert not at.exception
    r = minilm.encode(text)
    T = len(r.tokens)
    np.testing.assert_allclose(grid_maps(at, T), r.attentions, atol=1e-6)
    np.testing.assert_allclose(head_map(at), r.attentions[1, 2], atol=1e-6)
    assert head_rows(at) == [f"{i} · {tok}" for i, tok in enumerate(r.tokens, start=1)]
    assert t("real_model.shipped_note") not in texts(at)


def test_long_text_preset_keeps_its_text_in_the_link(minilm):
    at = open_page(PAGE)
    at.button(key="real_model_preset_long").click().run()
    text = at.text_input(key="rm_text").value
    assert at.selectbox(key="rm_ex").value == "own" and len(minilm.encode(text).tokens) > 64
    assert at.query_params["rm_text"] == text  # the preset's view is a link too
    assert t("real_model.drawn_cut", total=len(minilm.encode(text).tokens) - 2, grid=32, map=64) in texts(at)
    assert at.toggle(key="rm_hide").value is True
    again = open_page(PAGE, **dict(at.query_params))
    np.testing.assert_array_equal(head_map(again), head_map(at))


def test_over_256_pieces_is_truncated_and_drawing_is_cut(minilm):
    text = "word " * 300
    at = open_page(PAGE, rm_ex="own", rm_text=text)
    assert not at.exception
    assert t("real_model.truncated", limit=256) in texts(at)
    assert t("real_model.drawn_cut", total=256, grid=32, map=64) in texts(at)
    z = head_map(at)
    assert z.shape == (64, 65)  # 64 keys and one column for the 192 not drawn
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-5)
    layer, head = at.slider(key="rm_layer").value - 1, at.slider(key="rm_head").value - 1
    np.testing.assert_allclose(z[:, :64], minilm.encode(text).attentions[layer, head, :64, :64], atol=1e-6)
    grid = plotly_array(figures(at)["rm_grid"]["data"][0]["z"])
    assert grid.shape[1] == 12 * 32 + 11 * grid_gap(32)  # 32 tokens a map
    assert at.text_input(key="rm_text").value == text  # the whole text stays in the box


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "common.empty_text"),
        ("   ", "common.empty_text"),
        ("\u200b\u200c\u2060", "common.no_tokens"),
        ("\x00\x01", "common.no_tokens"),
        ("我在河边看见了一只猫。", "real_model.unk_note"),
        ("I love 🐍 and 👩‍💻", "real_model.unk_note"),
        ("שלום עולם and مرحبا", None),
        ("<b>bold</b> <img src=x onerror=alert(1)> **not bold** $x$", None),
        ("x" * 5000, None),
    ],
    ids=["empty", "blanks", "zero-width", "control", "chinese", "emoji", "right-to-left", "html", "5000 chars"],
)
def test_awkward_text_gives_a_message_or_a_view(minilm, text, expected):
    at = open_page(PAGE, rm_ex="own", rm_text=text)
    assert not at.exception
    np.testing.assert_allclose(head_map(at).sum(axis=1), 1.0, atol=1e-5)
    if expected == "real_model.unk_note":
        tokens = minilm.encode(text).tokens
        assert t(expected, n=tokens.count("[UNK]"), T=len(tokens)) in texts(at)
    elif expected:
        assert t(expected, example=OWN_DEFAULT) in texts(at)
        assert head_rows(at)[1:3] == ["2 · the", "3 · trophy"]  # the example sentence is shown instead
    assert at.text_input(key="rm_text").value == text  # what was typed stays in the box
    rows = head_rows(at)
    assert all("<b>" not in r and "<img" not in r for r in rows)  # HTML reaches the figure escaped
    assert all("<img" not in m.value for m in [*at.markdown, *at.caption])


def test_text_the_tokenizer_cannot_read_falls_back_with_a_message(minilm, monkeypatch):
    """A lone UTF-16 surrogate cannot travel through AppTest, so the encoder's ValueError is staged."""
    encode = pretrained.MiniLMEncoder.encode

    def refuse_marked(self, text):
        if "MARK" in text:
            raise ValueError("text contains a broken character (a lone UTF-16 surrogate); paste it again.")
        return encode(self, text)

    monkeypatch.setattr(pretrained.MiniLMEncoder, "encode", refuse_marked)
    at = open_page(PAGE, lang="zh", rm_ex="own", rm_text="MARK unreadable")
    assert not at.exception
    assert t("real_model.unreadable", lang="zh", example=OWN_DEFAULT) in texts(at)
    assert head_rows(at)[1:3] == ["2 · the", "3 · trophy"]


# --- bad links ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "key", "widget", "fallback"),
    [
        (dict(rm_layer="9"), "rm_layer", "slider", IT_LAYER + 1),
        (dict(rm_layer="0"), "rm_layer", "slider", IT_LAYER + 1),
        (dict(rm_head="abc"), "rm_head", "slider", IT_HEAD + 1),
        (dict(rm_head="2.5"), "rm_head", "slider", IT_HEAD + 1),
        (dict(rm_ex="nope"), "rm_ex", "selectbox", "animal_tired"),
        (dict(rm_q="999"), "rm_q", "selectbox", IT),
        (dict(rm_k="-1"), "rm_k", "selectbox", NOUN),
        (dict(rm_hide="maybe"), "rm_hide", "toggle", False),
        *[(dict(rm_layer=bad), "rm_layer", "slider", IT_LAYER + 1) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[(dict(rm_head=bad), "rm_head", "slider", IT_HEAD + 1) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[(dict(rm_q=bad), "rm_q", "selectbox", IT) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[(dict(rm_k=bad), "rm_k", "selectbox", NOUN) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[(dict(rm_hide=bad), "rm_hide", "toggle", False) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[(dict(rm_ex=bad), "rm_ex", "selectbox", "animal_tired") for bad in ("1e309", "-1e309", "1e-400", "9e999")],
    ],
)
def test_bad_link_values_fall_back_with_a_notice(params, key, widget, fallback):
    at = open_page(PAGE, **params)
    assert not at.exception
    assert at.toast and key in at.toast[0].value
    assert getattr(at, widget)(key=key).value == fallback
    assert "rm_grid" in figures(at)


@pytest.mark.parametrize("bad", ["1e309", "-1e309", "1e-400", "9e999"])
def test_bad_numbers_lose_nothing_else_in_the_link(bad):
    at = open_page(PAGE, rm_ex="cat_mat", rm_hide="true", rm_layer=bad, rm_head="5")
    assert not at.exception and at.toast and "rm_layer" in at.toast[0].value
    assert at.selectbox(key="rm_ex").value == "cat_mat" and at.toggle(key="rm_hide").value is True
    assert at.slider(key="rm_head").value == 5


@pytest.mark.parametrize("bad", ["1e309", "-1e309", "1e-400", "9e999"])
def test_a_bad_step_number_falls_back_to_the_first_step(bad):
    at = open_page(PAGE, lecture="1", rm_step=bad)
    assert not at.exception and at.toast and "rm_step" in at.toast[0].value
    assert set(figures(at)) == {"rm_grid"}


def test_tables_name_their_rows():
    at = open_page(PAGE, rm_ex="saw_saw")
    for key in ("rm_num_head", "rm_num_share"):
        at.session_state[key] = True
    at.run()
    head = next(d.value for d in at.dataframe if t("real_model.row_sum") in d.value.columns)
    share = next(d.value for d in at.dataframe if t("real_model.head_n", head=1) in d.value.columns)
    assert head.index.name == t("real_model.query") and share.index.name == t("real_model.layer_word")
