"""The page "positional encoding" in AppTest: the shuffle check holds without positions and fails
with them, the rotation check holds, figures follow the sliders (odd d_model too), the base changes
the curves, the sections read top to bottom and are lecture steps whose buttons move one step per
click, page-level controls appear only where they act, presets, check-yourself, and bad input."""

import html

import numpy as np
import pytest
from app_harness import figure_alts, figures, open_page, plotly_array

from attention_core import sinusoidal_positional_encoding
from lab_ui.i18n import t

PAGE = "pages/positional.py"
SECTIONS = ("why", "sinusoids", "similarity", "learned", "check")
FIGURES = {
    1: {"positional_shuffle"},
    2: {"positional_curves", "positional_heatmap"},
    3: {"positional_dot", "positional_offset", "positional_rotation"},
    4: {"positional_learned", "positional_learned_cos", "positional_sin_cos", "positional_learned_offset"},
    5: set(),
}
ALL_FIGURES = set().union(*FIGURES.values())
URL_KEYS = (
    "pe_n",
    "pe_d",
    "pe_base",
    "pe_text",
    "pe_order",
    "pe_i",
    "pe_j",
    "pe_seed",
    "pe_dims",
    "pe_k",
    "pe_pair",
    "pe_step",
)


def metric(at, key: str) -> float:
    label = t(f"positional.{key}", lang="en")
    return float(next(m.value for m in at.metric if m.label == label))


def texts(at) -> str:
    return "\n".join(e.value for e in (*at.markdown, *at.caption, *at.info, *at.success, *at.warning, *at.error))


def z_of(at, key: str, trace: int = 0) -> np.ndarray:
    return plotly_array(figures(at)[key]["data"][trace]["z"])


def popovers(block) -> dict:
    """Every popover under `block` by label, however deeply nested."""
    found = {}
    for child in getattr(block, "children", {}).values():
        if getattr(child, "type", None) == "popover":
            found[child.proto.popover.label] = child
        found.update(popovers(child))
    return found


def step_line(at, lang: str, i: int) -> str:
    return next(m.value for m in at.markdown if t("common.step_of", lang=lang, i=i, n=5) in m.value)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_reads_top_to_bottom_in_both_languages(lang):
    at = open_page(PAGE, lang)
    assert not at.exception
    assert at.title[0].value == t("positional.title", lang=lang)
    assert set(figures(at)) == ALL_FIGURES  # every section, one after the other
    assert all(alt.strip() for alt in figure_alts(at))
    headings = [h.value for h in at.subheader]
    for i, name in enumerate(SECTIONS, 1):  # "2 · The sinusoidal encoding": numbered as the lecture steps
        assert f"{i} · {t(f'positional.section_{name}', lang=lang)}" in headings
    assert not at.tabs


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", [1, 2, 3, 4, 5])
def test_every_lecture_step_runs_in_both_languages(lang, step):
    at = open_page(PAGE, lang, lecture="1", pe_step=str(step))
    assert not at.exception
    assert set(figures(at)) == FIGURES[step]  # one section at a time
    assert all(alt.strip() for alt in figure_alts(at))
    line = step_line(at, lang, step)
    assert html.escape(t(f"positional.section_{SECTIONS[step - 1]}", lang=lang)) in line  # one number, the step's


def test_without_positions_a_shuffle_only_reorders_the_outputs_and_with_them_it_changes_them():
    at = open_page(PAGE, "en")  # "I saw a saw", words 1 and 3 swapped: "a saw I saw"
    assert "a saw I saw" in texts(at)
    assert metric(at, "metric_plain") < 1e-9
    assert metric(at, "metric_pe") > 1e-3
    assert at.success[0].value == t("positional.verdict_plain", lang="en")
    # the figure says the same: without PE (top row) the two panels are one picture, with PE (bottom) they differ
    assert np.allclose(z_of(at, "positional_shuffle", 0), z_of(at, "positional_shuffle", 1), atol=1e-6)
    assert not np.allclose(z_of(at, "positional_shuffle", 2), z_of(at, "positional_shuffle", 3), atol=1e-3)
    notes = [a["text"] for a in figures(at)["positional_shuffle"]["layout"]["annotations"]]
    assert any("max difference 0.7754" in n for n in notes)  # the row heading carries the number too
    assert "random" in figures(at)["positional_shuffle"]["layout"]["title"]["text"]  # random weights say so
    # the two "saw"s: the very same output without positions, different outputs with them
    line = next(m.value for m in at.markdown if "appears twice" in m.value)
    assert "differ by 0:" in line and "With positional encoding they differ by 0.0" in line


def test_swapping_the_two_identical_words_changes_nothing_without_positions():
    at = open_page(PAGE, "en", pe_i="2", pe_j="4")  # saw <-> saw: the same sentence again
    assert metric(at, "metric_plain") == 0
    assert metric(at, "metric_pe") > 1e-3  # out[perm] swaps the two saws' rows, which now differ


@pytest.mark.parametrize("order", ["reverse", "random"])
def test_every_shuffle_keeps_the_check(order):
    at = open_page(PAGE, "en", pe_text="the quick brown fox jumps over the lazy dog")
    at.button_group(key="pe_order").set_value(order).run()
    assert not at.exception
    assert metric(at, "metric_plain") < 1e-9 < 1e-3 < metric(at, "metric_pe")
    if order == "reverse":
        assert "dog lazy the over jumps fox brown quick the" in texts(at)


def test_a_one_word_sentence_says_nothing_moved():
    at = open_page(PAGE, "en", pe_text="hello")
    assert not at.exception
    assert t("positional.nothing_moved", lang="en") in texts(at)


def test_rotation_check_holds_and_shows_the_block():
    at = open_page(PAGE, "en")
    assert metric(at, "rotation_metric") < 1e-9
    assert at.success[-1].value.startswith("Checked on 64 positions × 32 pairs")
    at.slider(key="pe_k").set_value(7).run()
    at.slider(key="pe_pair").set_value(0).run()
    latex = " ".join(e.value for e in at.latex)
    assert f"{np.cos(7):.4f} & {np.sin(7):.4f}" in latex  # pair 0 turns 1 rad per position: 7 rad
    # the circle: the arrow from p = 0 ends at PE_7
    arrow = figures(at)["positional_rotation"]["layout"]["annotations"][0]
    assert (arrow["x"], arrow["y"]) == pytest.approx((np.sin(7), np.cos(7)), abs=1e-6)


@pytest.mark.parametrize(("n", "d", "k", "base"), [(512, 511, 512, "2"), (2, 2, 0, "1000000"), (100, 3, 1, "10")])
def test_rotation_check_holds_at_the_extremes(n, d, k, base):
    at = open_page(PAGE, "en", lecture="1", pe_step="3", pe_n=str(n), pe_d=str(d), pe_k=str(k), pe_base=base)
    assert not at.exception
    assert metric(at, "rotation_metric") < 1e-9
    assert at.success and not at.error


def test_pair_beyond_d_model_is_clamped_with_a_note():
    at = open_page(PAGE, "en", lecture="1", pe_step="3", pe_d="6", pe_pair="100")
    assert t("positional.pair_clamped", lang="en", d=6, last=2) in texts(at)
    assert figures(at)["positional_rotation"]["layout"]["xaxis"]["title"]["text"].startswith("PE[p, 4]")


def test_heatmap_shape_follows_the_sliders():
    at = open_page(PAGE, "en", pe_n="100", pe_d="37")
    z = z_of(at, "positional_heatmap")
    assert z.shape == (100, 37)
    np.testing.assert_allclose(z, sinusoidal_positional_encoding(100, 37), atol=1e-6)
    at.slider(key="pe_n").set_value(512).run()
    at.slider(key="pe_d").set_value(512).run()
    z = z_of(at, "positional_heatmap")
    assert z.shape == (171, 171)  # every 3rd position and dimension is drawn ...
    assert t("positional.thinned", lang="en", rows=3, cols=3) in texts(at)
    spec = figures(at)["positional_heatmap"]["data"][0]
    assert spec.get("y0", 0) + spec["dy"] * (z.shape[0] - 1) == 510  # ... at their true indices


def test_odd_d_model_works_everywhere():
    at = open_page(PAGE, "en", pe_d="7")
    assert z_of(at, "positional_heatmap").shape == (64, 7)
    assert t("positional.odd_note", lang="en", d=7, last=6) in texts(at)
    assert "d_model is odd" in texts(at)
    assert metric(at, "rotation_metric") < 1e-9
    at = open_page(PAGE, "en", pe_d="1")
    assert not at.exception
    assert t("positional.no_pairs", lang="en") in texts(at)
    assert metric(at, "metric_plain") < 1e-9  # one-number word vectors: the shuffle test still holds


def test_base_changes_the_curves_but_not_dimension_0():
    def curves(at):
        return {tr["name"]: plotly_array(tr["y"]) for tr in figures(at)["positional_curves"]["data"]}

    at = open_page(PAGE, "en")
    before = curves(at)
    at.select_slider(key="pe_base").set_value(100).run()
    after = curves(at)
    dim0, dim8 = (next(name for name in before if name.startswith(f"{d} ·")) for d in (0, 8))
    np.testing.assert_allclose(after[dim0], np.sin(np.arange(64)), atol=1e-6)  # ω_0 = 1 for every base
    np.testing.assert_allclose(before[dim0], after[dim0])
    np.testing.assert_allclose(after[dim8], np.sin(np.arange(64) / 100 ** (8 / 64)), atol=1e-6)
    assert not np.allclose(before[dim8], after[dim8], atol=1e-2)


def test_dimensions_missing_or_none():
    at = open_page(PAGE, "en", pe_d="10")  # default dims 0, 1, 8, 20: 20 does not exist
    assert len(figures(at)["positional_curves"]["data"]) == 3
    assert "Dimension(s) 20 do not exist when d_model = 10" in texts(at)
    at.multiselect(key="pe_dims").set_value([]).run()
    assert "positional_curves" not in figures(at)
    assert t("positional.no_dims", lang="en") in texts(at)


def test_similarity_depends_on_offset_only_and_learned_table_is_the_model_s():
    at = open_page(PAGE, "en")
    dot = z_of(at, "positional_dot")
    assert dot.shape == (64, 64)
    np.testing.assert_allclose(np.diag(dot), 32, atol=1e-4)  # d_model / 2
    assert "differ by at most **" in next(m.value for m in at.markdown if "along each diagonal" in m.value.lower())
    at = open_page(PAGE, "en", pe_n="512")
    learned = z_of(at, "positional_learned")
    assert learned.shape == (171, 192)  # [512, 384] thinned to every 3rd position, every 2nd dimension
    for key in ("positional_learned_cos", "positional_sin_cos"):  # a figure each, in columns a phone stacks
        (cos,) = figures(at)[key]["data"]
        np.testing.assert_allclose(np.diag(plotly_array(cos["z"])), 1, atol=1e-5)


def test_numbers_open_on_demand_with_the_full_table_named_index_and_six_decimals():
    at = open_page(PAGE, "en", pe_n="300", pe_d="9")
    assert not at.dataframe  # every box closed: nothing built
    at.session_state["pe_x_heatmap"] = True
    at.run()
    (table,) = [d.value for d in at.dataframe]
    assert table.shape == (300, 9)  # all of it, not the thinned drawing
    assert table.index.name == "p"
    assert table.iloc[1, 0] == pytest.approx(np.sin(1), abs=1e-6)
    at.session_state["pe_x_outputs"] = True
    at.run()
    words = [d.value for d in at.dataframe if d.value.index.name == t("positional.word", lang="en")]
    assert len(words) == 4 and list(words[0].index) == ["1 a", "2 saw", "3 I", "4 saw"]


def test_page_level_controls_show_only_where_they_act():
    """Issue 11: "Number of positions n" sat beside the shuffle test, which it does not change. A
    lecture step shows only the page-level controls its section uses; the page says which is which."""
    shown = {}
    for step in range(1, 6):
        at = open_page(PAGE, "en", lecture="1", pe_step=str(step))
        settings = popovers(at.main).get(t("common.controls", lang="en"))
        shown[step] = set() if settings is None else {w.key for w in (*settings.slider, *settings.select_slider)}
    assert shown == {
        1: {"pe_d", "pe_base"},
        2: {"pe_d", "pe_n", "pe_base"},
        3: {"pe_d", "pe_n", "pe_base"},
        4: {"pe_n", "pe_base"},
        5: set(),
    }
    at = open_page(PAGE, "en")
    assert t("positional.settings_note", lang="en") in texts(at)


def test_a_control_a_lecture_step_does_not_draw_keeps_its_value():
    at = open_page(PAGE, "en", lecture="1", pe_step="3", pe_n="30", pe_k="9")
    for _ in range(2):
        at.button(key="pe_step_prev").click().run()
    assert "pe_n" not in [w.key for w in at.slider]  # step 1 does not use n
    for _ in range(2):
        at.button(key="pe_step_next").click().run()
    assert at.slider(key="pe_n").value == 30 and at.slider(key="pe_k").value == 9


def test_each_step_button_click_moves_exactly_one_step_and_the_link_follows():
    """Issue 11: after one tab change the next click was ignored. Steps are buttons now; every
    click counts, forwards and back, also after a control inside a section moved."""
    at = open_page(PAGE, "en", lecture="1")
    for step in (2, 3, 4, 5):
        at.button(key="pe_step_next").click().run()
        assert at.query_params["pe_step"] == str(step)
        assert set(figures(at)) == FIGURES[step]
    for step in (4, 3):
        at.button(key="pe_step_prev").click().run()
        assert at.query_params["pe_step"] == str(step)
    at.slider(key="pe_k").set_value(11).run()  # a section's own control, then the next click
    at.button(key="pe_step_next").click().run()
    assert at.query_params["pe_step"] == "4" and set(figures(at)) == FIGURES[4]
    at.sidebar.radio(key="lang_pick").set_value("zh").run()  # relabelled; the step stays
    assert set(figures(at)) == FIGURES[4]
    assert step_line(at, "zh", 4).count("4") == 1


def test_a_step_link_opens_the_page_at_that_section():
    """pe_step=3 named the third tab; the page now scrolls there, once, and lecture mode starts there."""
    at = open_page(PAGE, "en", pe_step="3")
    scripts = [h.proto.body for h in at.get("html") if "scrollIntoView" in h.proto.body]
    assert len(scripts) == 1 and 'getElementById("positional-similarity")' in scripts[0]
    assert set(figures(at)) == ALL_FIGURES
    at.slider(key="pe_k").set_value(8).run()  # moving a control does not scroll again
    assert not [h for h in at.get("html") if "scrollIntoView" in h.proto.body]
    at.sidebar.toggle(key="lecture").set_value(True).run()
    assert set(figures(at)) == FIGURES[3]
    assert not [h for h in open_page(PAGE, "en").get("html") if "scrollIntoView" in h.proto.body]


def test_lecture_mode_puts_the_sections_own_controls_in_a_popover():
    at = open_page(PAGE, "en", lecture="1")
    shuffle = popovers(at.main)[t("positional.controls_shuffle", lang="en")]
    assert {w.key for w in shuffle.text_input} == {"pe_text"}
    assert {w.key for w in shuffle.number_input} == {"pe_i", "pe_j", "pe_seed"}
    at = open_page(PAGE, "en", lecture="1", pe_step="2")
    assert popovers(at.main)[t("positional.dims_label", lang="en")].multiselect
    for lang in ("en", "zh"):  # the metric labels fit half a projector's width
        assert len(t("positional.metric_plain", lang=lang)) <= 40 and "|" not in t("positional.metric_pe", lang=lang)


def test_presets():
    at = open_page(PAGE, "en")
    at.button(key="positional_preset_shuffle").click().run()
    assert "the dog bit the man → **shuffled:** the man bit the dog" in texts(at)
    assert metric(at, "metric_plain") < 1e-9
    at.button(key="positional_preset_article").click().run()
    assert at.slider(key="pe_n").value == 4 and at.slider(key="pe_d").value == 4
    assert z_of(at, "positional_heatmap").shape == (4, 4)
    at.button(key="positional_preset_long").click().run()
    assert at.slider(key="pe_n").value == 512 and at.slider(key="pe_d").value == 512
    assert at.query_params["pe_n"] == "512"
    assert not at.exception


def test_check_yourself():
    at = open_page(PAGE, "en", lecture="1", pe_step="5")
    at.number_input(key="pe_q_value").set_value(0.8415).run()
    assert at.success and "0.8415" in at.success[0].value
    at.number_input(key="pe_q_value").set_value(1.0).run()
    assert at.error
    at.radio(key="pe_q_swap").set_value("swap").run()
    assert any(t("positional.q_swap_why", lang="en") == i.value for i in at.info)
    at.radio(key="pe_q_offset").set_value("sum").run()
    assert len(at.error) == 2  # the typed 1.0 and the wrong prediction
    assert t("positional.q_offset_why", lang="en") not in texts(at)  # a wrong pick does not reveal the answer
    assert "pe_q_value" not in at.query_params and "pe_q_offset" not in at.query_params


@pytest.mark.parametrize(
    "params",
    [
        {"pe_n": "abc"},
        {"pe_n": "9999"},
        {"pe_d": "0"},
        {"pe_d": "-3"},
        {"pe_base": "3"},
        {"pe_dims": "999"},
        {"pe_k": "-5"},
        {"pe_pair": "x"},
        {"pe_order": "sideways"},
        {"pe_step": "9"},
        {"pe_i": "0"},
        *({key: value} for key in URL_KEYS if key != "pe_text" for value in ("1e309", "-1e309", "1e-400", "9e999")),
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()),
)
def test_bad_link_values_fall_back_with_a_notice(params):
    at = open_page(PAGE, "en", pe_text="the dog bit the man", **params)
    assert not at.exception
    assert at.toast, f"no notice for {params}"
    assert at.slider(key="pe_n").value == 64 and at.slider(key="pe_d").value == 64
    assert at.select_slider(key="pe_base").value == 10000
    assert at.text_input(key="pe_text").value == "the dog bit the man"  # nothing else in the link is lost


@pytest.mark.parametrize("value", ["1e309", "-1e309", "1e-400", "9e999"])
def test_a_number_no_control_holds_in_the_sentence_is_just_text(value):
    at = open_page(PAGE, "en", pe_text=value)
    assert not at.exception
    assert at.text_input(key="pe_text").value == value
    assert metric(at, "metric_plain") < 1e-9


def test_a_bad_value_keeps_the_others():
    at = open_page(PAGE, "en", pe_n="abc", pe_d="12", pe_base="100", pe_k="1e309", pe_pair="3")
    assert at.toast
    assert at.slider(key="pe_d").value == 12 and at.select_slider(key="pe_base").value == 100
    assert at.slider(key="pe_k").value == 5 and at.slider(key="pe_pair").value == 3
    assert z_of(at, "positional_heatmap").shape == (64, 12)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("   ", 4),  # empty: the example sentence
        ("\u200b\u200b", 4),  # invisible only: the example sentence
        ("我看见一把锯", 6),
        ("مرحبا بالعالم", 2),
        ("🙂 saw 🙂", 3),
        ("<b>bold</b> <script>x</script>", None),
        ("word " * 1000, 64),
    ],
)
def test_any_text_gives_a_result_never_a_traceback(text, tokens):
    at = open_page(PAGE, "en", pe_text=text)
    assert not at.exception
    assert metric(at, "metric_plain") < 1e-9
    spec = figures(at)["positional_shuffle"]
    ticks = spec["layout"]["yaxis"]["ticktext"]
    if tokens is not None:  # 64 words: rows of 7.5 px, too short for a label each; every other word is labelled
        assert len(ticks) == (tokens if tokens <= 24 else -(-tokens // 2))
    assert not any("<b>" in tick or "<script>" in tick for tick in ticks)  # shown as text, never rendered
    assert at.text_input(key="pe_text").value == text  # what the student typed is kept


def test_swap_numbers_beyond_the_sentence_are_clamped_with_a_note():
    at = open_page(PAGE, "en", pe_i="1", pe_j="40")
    assert not at.exception
    assert t("positional.swap_clamped", lang="en", T=4, i=1, j=4) in texts(at)
    assert "saw saw a I" in texts(at)
