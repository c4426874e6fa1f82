"""The page "positional encoding" in AppTest: the shuffle check holds without positions and fails
with them, the rotation check holds, figures follow the sliders (odd d_model too), the base changes
the curves, sections open as tabs or lecture steps, presets, check-yourself, and bad input."""

import numpy as np
import pytest
from app_harness import figure_alts, figures, open_page, plotly_array

from attention_core import sinusoidal_positional_encoding
from lab_ui.i18n import t

PAGE = "pages/positional.py"
FIGURES = {
    1: {"positional_outputs_plain", "positional_outputs_pe"},
    2: {"positional_curves", "positional_heatmap"},
    3: {"positional_dot", "positional_offset", "positional_rotation"},
    4: {"positional_learned", "positional_learned_cos", "positional_learned_offset"},
    5: set(),
}


def metric(at, key: str) -> float:
    label = t(f"positional.{key}", lang="en")
    return float(next(m.value for m in at.metric if m.label == label))


def texts(at) -> str:
    return "\n".join(e.value for e in (*at.markdown, *at.caption, *at.info, *at.success, *at.warning, *at.error))


def z_of(at, key: str, trace: int = 0) -> np.ndarray:
    return plotly_array(figures(at)[key]["data"][trace]["z"])


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", [1, 2, 3, 4, 5])
def test_every_section_runs_in_both_languages(lang, step):
    at = open_page(PAGE, lang, pe_step=str(step))
    assert not at.exception
    assert at.title[0].value == t("positional.title", lang=lang)
    assert set(figures(at)) == FIGURES[step]  # only the open tab's section is drawn
    assert all(alt.strip() for alt in figure_alts(at))
    title = t(f"positional.{('s1', 's2', 's3', 's4', 'check')[step - 1]}_title", lang=lang)
    assert any(h.value.endswith(title) for h in at.header)  # "2 · title": the number added by the page


def test_without_positions_a_shuffle_only_reorders_the_outputs_and_with_them_it_changes_them():
    at = open_page(PAGE, "en")  # "I saw a saw", words 1 and 3 swapped: "a saw I saw"
    assert "a saw I saw" in texts(at)
    assert metric(at, "metric_plain") < 1e-9
    assert metric(at, "metric_pe") > 1e-3
    assert at.success[0].value == t("positional.verdict_plain", lang="en")
    # the figures say the same: without PE the two panels are one picture, with PE they differ
    assert np.allclose(z_of(at, "positional_outputs_plain", 0), z_of(at, "positional_outputs_plain", 1), atol=1e-6)
    assert not np.allclose(z_of(at, "positional_outputs_pe", 0), z_of(at, "positional_outputs_pe", 1), atol=1e-3)
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


def test_rotation_check_holds_and_shows_the_block():
    at = open_page(PAGE, "en", pe_step="3")
    assert metric(at, "rotation_metric") < 1e-9
    assert at.success[0].value.startswith("Checked on 64 positions × 32 pairs")
    at.slider(key="pe_k").set_value(7).run()
    at.slider(key="pe_pair").set_value(0).run()
    latex = " ".join(e.value for e in at.latex)
    assert f"{np.cos(7):.4f} & {np.sin(7):.4f}" in latex  # pair 0 turns 1 rad per position: 7 rad
    # the circle: every drawn point lies on the unit circle, and the arrow from p = 0 ends at PE_7
    arrow = figures(at)["positional_rotation"]["layout"]["annotations"][0]
    assert (arrow["x"], arrow["y"]) == pytest.approx((np.sin(7), np.cos(7)), abs=1e-6)


@pytest.mark.parametrize(("n", "d", "k", "base"), [(512, 511, 512, "2"), (2, 2, 0, "1000000"), (100, 3, 1, "10")])
def test_rotation_check_holds_at_the_extremes(n, d, k, base):
    at = open_page(PAGE, "en", pe_step="3", pe_n=str(n), pe_d=str(d), pe_k=str(k), pe_base=base)
    assert not at.exception
    assert metric(at, "rotation_metric") < 1e-9
    assert at.success and not at.error


def test_heatmap_shape_follows_the_sliders():
    at = open_page(PAGE, "en", pe_step="2", pe_n="100", pe_d="37")
    z = z_of(at, "positional_heatmap")
    assert z.shape == (100, 37)
    np.testing.assert_allclose(z, sinusoidal_positional_encoding(100, 37), atol=1e-6)
    at.slider(key="pe_n").set_value(512).run()
    at.slider(key="pe_d").set_value(512).run()
    z = z_of(at, "positional_heatmap")
    assert z.shape == (171, 171)  # every 3rd position and dimension is drawn ...
    assert t("positional.thinned", lang="en", rows=3, cols=3) in texts(at)
    spec = figures(at)["positional_heatmap"]["data"][0]
    assert plotly_array(spec["y"])[-1] == 510  # ... at their true indices


def test_odd_d_model_works_everywhere():
    at = open_page(PAGE, "en", pe_step="2", pe_d="7")
    assert z_of(at, "positional_heatmap").shape == (64, 7)
    assert t("positional.odd_note", lang="en", d=7, last=6) in texts(at)
    at = open_page(PAGE, "en", pe_step="3", pe_d="7")
    assert "d_model is odd" in texts(at)
    assert metric(at, "rotation_metric") < 1e-9
    at = open_page(PAGE, "en", pe_step="3", pe_d="1")
    assert not at.exception
    assert t("positional.no_pairs", lang="en") in texts(at)


def test_base_changes_the_curves_but_not_dimension_0():
    def curves(at):
        return {tr["name"]: plotly_array(tr["y"]) for tr in figures(at)["positional_curves"]["data"]}

    at = open_page(PAGE, "en", pe_step="2")
    before = curves(at)
    at.select_slider(key="pe_base").set_value(100).run()
    after = curves(at)
    dim0, dim8 = (next(name for name in before if name.startswith(f"{d} ·")) for d in (0, 8))
    np.testing.assert_allclose(after[dim0], np.sin(np.arange(64)), atol=1e-6)  # ω_0 = 1 for every base
    np.testing.assert_allclose(before[dim0], after[dim0])
    np.testing.assert_allclose(after[dim8], np.sin(np.arange(64) / 100 ** (8 / 64)), atol=1e-6)
    assert not np.allclose(before[dim8], after[dim8], atol=1e-2)


def test_dimensions_missing_or_none():
    at = open_page(PAGE, "en", pe_step="2", pe_d="10")  # default dims 0, 1, 8, 20: 20 does not exist
    assert len(figures(at)["positional_curves"]["data"]) == 3
    assert "Dimension(s) 20 do not exist when d_model = 10" in texts(at)
    at.multiselect(key="pe_dims").set_value([]).run()
    assert "positional_curves" not in figures(at)
    assert t("positional.no_dims", lang="en") in texts(at)


def test_similarity_depends_on_offset_only_and_learned_table_is_the_model_s():
    at = open_page(PAGE, "en", pe_step="3")
    dot = z_of(at, "positional_dot")
    assert dot.shape == (64, 64)
    np.testing.assert_allclose(np.diag(dot), 32, atol=1e-4)  # d_model / 2
    assert "differ by at most **" in next(m.value for m in at.markdown if "along each diagonal" in m.value.lower())
    at = open_page(PAGE, "en", pe_step="4", pe_n="512")
    learned = z_of(at, "positional_learned")
    assert learned.shape == (171, 192)  # [512, 384] thinned to every 3rd position, every 2nd dimension
    cos = figures(at)["positional_learned_cos"]["data"]
    np.testing.assert_allclose(np.diag(plotly_array(cos[0]["z"])), 1, atol=1e-5)
    np.testing.assert_allclose(np.diag(plotly_array(cos[1]["z"])), 1, atol=1e-5)


def test_numbers_open_on_demand_with_the_full_table():
    at = open_page(PAGE, "en", pe_step="2", pe_n="300", pe_d="9")
    assert not at.dataframe  # closed: nothing built
    at.session_state["pe_x_heatmap"] = True
    at.run()
    table = at.dataframe[0].value
    assert table.shape == (300, 9)  # all of it, not the thinned drawing
    assert table.iloc[1, 0] == pytest.approx(np.sin(1), abs=1e-6)


def test_tabs_and_next_button_keep_the_section_in_the_link():
    at = open_page(PAGE, "en")
    assert "pe_step" not in at.query_params
    at.button(key="pe_next").click().run()
    assert set(figures(at)) == FIGURES[2]
    assert at.query_params["pe_step"] == "2"
    at.sidebar.radio(key="lang_pick").set_value("zh").run()  # the tabs are relabelled; the section stays
    assert set(figures(at)) == FIGURES[2]
    s2 = t("positional.s2_title", lang="zh")
    assert at.header[0].value == t("positional.section_heading", lang="zh", n=2, title=s2)
    at.sidebar.toggle(key="lecture").set_value(True).run()  # and lecture mode starts at that step
    assert set(figures(at)) == FIGURES[2] and not at.tabs
    step_line = next(m.value for m in at.markdown if t("common.step_of", lang="zh", i=2, n=5) in m.value)
    assert step_line.count("2") == 1  # "第 2 步 · 正弦位置编码": the title adds no second number
    assert t("positional.controls_shared", lang="zh") in [e.label for e in at.expander]


def test_lecture_mode_shows_one_step_with_its_buttons():
    at = open_page(PAGE, "en", lecture="1", pe_step="3")
    assert set(figures(at)) == FIGURES[3]
    assert not at.tabs
    at.button(key="pe_step_next").click().run()
    assert set(figures(at)) == FIGURES[4]


def test_presets():
    at = open_page(PAGE, "en")
    at.button(key="pe_preset_shuffle").click().run()
    assert "the dog bit the man → **shuffled:** the man bit the dog" in texts(at)
    assert metric(at, "metric_plain") < 1e-9
    at.button(key="pe_preset_seeds").click().run()
    assert at.slider(key="pe_n").value == 4 and at.slider(key="pe_d").value == 4
    at.button(key="pe_next").click().run()
    assert z_of(at, "positional_heatmap").shape == (4, 4)
    at.button(key="pe_preset_long").click().run()
    assert at.slider(key="pe_n").value == 512 and at.slider(key="pe_d").value == 512
    assert not at.exception


def test_check_yourself():
    at = open_page(PAGE, "en", pe_step="5")
    at.number_input(key="pe_q_value").set_value(0.8415).run()
    assert at.success and "0.8415" in at.success[0].value
    at.number_input(key="pe_q_value").set_value(1.0).run()
    assert at.error
    at.radio(key="pe_q_swap").set_value("swap").run()
    assert any(t("positional.q_swap_why", lang="en") == i.value for i in at.info)
    at.radio(key="pe_q_offset").set_value("sum").run()
    assert len(at.error) == 2  # the typed 1.0 and the wrong prediction


@pytest.mark.parametrize(
    "params",
    [
        {"pe_n": "abc"},
        {"pe_n": "9999"},
        {"pe_d": "0"},
        {"pe_d": "-3"},
        {"pe_base": "3"},
        {"pe_dims": "999", "pe_step": "2"},
        {"pe_k": "-5", "pe_step": "3"},
        {"pe_pair": "x", "pe_step": "3"},
        {"pe_order": "sideways"},
        {"pe_step": "9"},
        {"pe_i": "0"},
    ],
)
def test_bad_link_values_fall_back_with_a_notice(params):
    at = open_page(PAGE, "en", **params)
    assert not at.exception
    assert at.toast, f"no notice for {params}"
    assert at.slider(key="pe_n").value == 64 and at.slider(key="pe_d").value == 64
    assert at.select_slider(key="pe_base").value == 10000


def test_a_bad_value_keeps_the_others():
    at = open_page(PAGE, "en", pe_step="2", pe_n="abc", pe_d="12", pe_base="100")
    assert at.toast
    assert at.slider(key="pe_d").value == 12 and at.select_slider(key="pe_base").value == 100
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
    spec = figures(at)["positional_outputs_plain"]
    ticks = spec["layout"]["yaxis"]["ticktext"]
    if tokens is not None:
        assert len(ticks) == tokens
    assert not any("<b>" in tick or "<script>" in tick for tick in ticks)  # shown as text, never rendered
    assert at.text_input(key="pe_text").value == text  # what the student typed is kept


def test_swap_numbers_beyond_the_sentence_are_clamped_with_a_note():
    at = open_page(PAGE, "en", pe_i="1", pe_j="40")
    assert not at.exception
    assert t("positional.swap_clamped", lang="en", T=4, i=1, j=4) in texts(at)
    assert "saw saw a I" in texts(at)


def test_lecture_mode_step_one_has_one_controls_label_each_and_short_metric_labels():
    at = open_page(PAGE, "en")
    at.sidebar.toggle(key="lecture").set_value(True).run()
    labels = [e.label for e in at.expander]
    assert {t("positional.controls_shared", lang="en"), t("positional.controls_shuffle", lang="en")} <= set(labels)
    step_line = next(m.value for m in at.markdown if t("common.step_of", lang="en", i=1, n=5) in m.value)
    assert step_line.endswith(f"· {t('positional.s1_title', lang='en')}")  # "Step 1 of 5 · Why: …", one number
    for lang in ("en", "zh"):  # the formula moved to the help; the label fits half a projector's width
        assert len(t("positional.metric_plain", lang=lang)) <= 40 and "|" not in t("positional.metric_pe", lang=lang)
