"""The page "self-attention, RNN and CNN" in AppTest: move the controls, then check what the figures
and tables hold against the core, computed here independently of the page."""

import numpy as np
import pytest
from app_harness import figures, open_page, plotly_array

from attention_core.patches import landmark_patch, picture_view
from attention_core.sequence_costs import complexity_table, layer_costs
from attention_core.sequence_models import compare_visibility, long_range_influence
from lab_ui.i18n import t

PAGE = "pages/rnn_cnn.py"
FIGURES = {"rc_see", "rc_long", "rc_parallel", "rc_cost", "rc_picture"}
KIND_ORDER = ("rnn", "birnn", "cnn", "truncated", "self_attention")


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return "\n".join(p.value for p in parts)


def table(at, column: str):
    return next(d.value for d in at.dataframe if column in list(d.value.columns))


def open_numbers(at, *keys: str):
    """Open the closed boxes that hold a figure's numbers (their tables are built only when open)."""
    for key in keys:
        at.session_state[key] = True
    return at.run()


def visibility_z(at) -> np.ndarray:
    """The five pictures' cells, in KINDS order: steps where visible, NaN where not."""
    return np.stack([plotly_array(tr["z"]) for tr in figures(at)["rc_see"]["data"]])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_in_both_languages_with_its_figures(lang):
    at = open_page(PAGE, lang=lang)
    assert not at.exception
    assert at.title[0].value == t("rnn_cnn.title", lang=lang)
    assert set(figures(at)) == FIGURES


# --- who sees whom ---------------------------------------------------------------------------------


def test_who_sees_whom_is_the_cores_masks_and_steps():
    at = open_page(PAGE)
    z = visibility_z(at)
    comp = compare_visibility(8, 3, 1)
    np.testing.assert_array_equal(~np.isnan(z), comp.masks)
    np.testing.assert_array_equal(np.nan_to_num(z), comp.steps)
    rnn, birnn, cnn, truncated, attention = range(5)
    assert np.all(np.isnan(z[rnn][np.triu_indices(8, 1)]))  # left only
    np.testing.assert_array_equal(z[cnn], z[truncated])  # r = k: the same picture
    assert np.all(z[attention] == 1) and z[rnn][7, 0] == 8 and z[birnn][0, 7] == 8
    numbers = table(open_numbers(at, "rc_see_numbers"), t("rnn_cnn.col_sees", lang="en", kind="RNN"))
    assert numbers.index.name == t("rnn_cnn.output_axis", lang="en")
    assert numbers.loc["b8", t("rnn_cnn.col_sees", lang="en", kind="RNN")] == "a1…a8"
    assert numbers.loc["b5", t("rnn_cnn.col_sees", lang="en", kind="CNN, k = 3")] == "a4…a6"


@pytest.mark.parametrize(("T", "k", "layers"), [(1, 3, 1), (64, 15, 8), (12, 5, 2), (9, 1, 1)])
def test_who_sees_whom_at_the_extremes(T, k, layers):
    at = open_page(PAGE, rc_T=str(T), rc_k=str(k), rc_layers=str(layers))
    assert not at.exception and not at.toast
    z = visibility_z(at)
    assert z.shape == (5, T, T)
    np.testing.assert_array_equal(~np.isnan(z), compare_visibility(T, k, layers).masks)


def test_moving_the_slider_redraws_the_masks():
    at = open_page(PAGE)
    at.slider(key="rc_T").set_value(5).run()
    at.select_slider(key="rc_k").set_value(5).run()
    z = visibility_z(at)
    assert z.shape == (5, 5, 5)
    assert np.sum(~np.isnan(z[2][2])) == 5  # the middle output sees 2 on each side


# --- long range -----------------------------------------------------------------------------------


def test_long_range_one_decays_one_does_not():
    at = open_page(PAGE, rc_lrT="64")
    curves = long_range_influence((1, 2, 4, 8, 16, 32, 64), 16, 0, 0.9)
    data = figures(at)["rc_long"]["data"]
    assert len(data) == 2
    np.testing.assert_allclose(plotly_array(data[0]["y"]), curves.rnn_relative, rtol=1e-6)
    np.testing.assert_allclose(plotly_array(data[1]["y"]), curves.attention_relative, rtol=1e-6)
    assert plotly_array(data[0]["y"])[-1] < 1e-10 < 0.2 < plotly_array(data[1]["y"])[-1]
    layout = figures(at)["rc_long"]["layout"]
    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
    assert "random" in layout["title"]["text"]


def test_long_range_absolute_shows_the_bound_and_the_sharing():
    at = open_page(PAGE, rc_lrT="64")
    at.button_group(key="rc_lrview").set_value("absolute").run()
    assert at.query_params["rc_lrview"] == "absolute"
    data = figures(at)["rc_long"]["data"]
    curves = long_range_influence((1, 2, 4, 8, 16, 32, 64), 16, 0, 0.9)
    names = [tr["name"] for tr in data]
    assert names[2] == t("rnn_cnn.lr_att", lang="en") and names[4] == t("rnn_cnn.lr_uniform", lang="en")
    np.testing.assert_allclose(plotly_array(data[2]["y"]), curves.attention, rtol=1e-6)
    assert np.all(plotly_array(data[0]["y"]) <= plotly_array(data[1]["y"]) * (1 + 1e-9))  # under its bound
    assert "sharing, not\ndistance" in texts(at) or "sharing, not distance" in texts(at).replace("\n", " ")


def test_an_exploding_rnn_and_vanishing_values_are_drawn_on_a_log_axis():
    at = open_page(PAGE)
    at.button(key="rnn_cnn_preset_explode").click().run()
    assert not at.exception
    rnn = plotly_array(figures(at)["rc_long"]["data"][0]["y"])
    assert rnn[-1] > 1e10  # radius 3: it explodes
    at = open_page(PAGE, rc_lrview="absolute", rc_radius="0.5")
    rnn = plotly_array(figures(at)["rc_long"]["data"][0]["y"])
    assert np.isnan(rnn[-1])  # 0.5^511 is 0 in floating point: left out, not drawn at 0 on a log axis
    assert t("rnn_cnn.lr_table_caption", lang="en", trials=8)[:40] in texts(open_numbers(at, "rc_long_numbers"))


# --- parallel -------------------------------------------------------------------------------------


def test_timing_runs_only_on_the_button_and_is_labelled_as_this_server():
    at = open_page(PAGE, rc_td="64", rc_tT="256")
    data = figures(at)["rc_parallel"]["data"]
    assert len(data) == 2  # steps only, until measured
    np.testing.assert_array_equal(plotly_array(data[0]["y"]), [16, 32, 64, 128, 256])
    np.testing.assert_array_equal(plotly_array(data[1]["y"]), [1, 1, 1, 1, 1])
    at.slider(key="rc_T").set_value(6).run()  # another section moving measures nothing
    assert len(figures(at)["rc_parallel"]["data"]) == 2
    at.button(key="rc_measure").click().run()
    assert not at.exception
    spec = figures(at)["rc_parallel"]
    assert len(spec["data"]) == 4
    assert all(np.all(plotly_array(tr["y"]) > 0) for tr in spec["data"][2:])
    labels = " ".join(a["text"] for a in spec["layout"]["annotations"])
    assert "Measured on this server" in labels and "CPUs" in labels and "UTC" in labels
    assert "Measured on this server" in texts(at)
    numbers = table(open_numbers(at, "rc_parallel_numbers"), t("rnn_cnn.col_ms_rnn", lang="en"))
    assert list(numbers.index) == [16, 32, 64, 128, 256]
    at.slider(key="rc_T").set_value(7).run()  # the measurement stays for this session
    assert len(figures(at)["rc_parallel"]["data"]) == 4


# --- cost and Table 1 -----------------------------------------------------------------------------


def test_cost_chart_and_table_1_use_the_students_T_and_d():
    at = open_page(PAGE, rc_n="1000", rc_d="512", rc_ck="3", rc_r="7")
    spec = figures(at)["rc_cost"]
    assert spec["layout"]["shapes"][0]["x0"] == 512  # the crossover T = d
    marks = spec["data"][-1]
    costs = layer_costs(1000, 512, 3, 7)
    np.testing.assert_array_equal(plotly_array(marks["x"]), [1000] * 4)
    np.testing.assert_allclose(plotly_array(marks["y"]), [costs.self_attention, costs.rnn, costs.cnn, costs.truncated])
    assert "T > d" in texts(at)
    table1 = table(at, t("rnn_cnn.t1_complexity", lang="en"))
    rows = complexity_table(1000, 512, 3, 7)
    assert list(table1[t("rnn_cnn.t1_complexity_value", lang="en")]) == [r.complexity_value for r in rows]
    assert list(table1[t("rnn_cnn.t1_sequential_value", lang="en")]) == [1, 1000, 1, 1]
    assert list(table1[t("rnn_cnn.t1_complexity", lang="en")]) == ["O(n²·d)", "O(n·d²)", "O(k·n·d²)", "O(r·n·d)"]


@pytest.mark.parametrize(("T", "d"), [(1, 1), (512, 1), (1, 100000), (1000000, 512), (512, 512)])
def test_cost_at_the_extremes(T, d):
    at = open_page(PAGE, rc_n=str(T), rc_d=str(d))
    assert not at.exception and not at.toast
    marks = figures(at)["rc_cost"]["data"][-1]
    assert plotly_array(marks["y"])[0] == pytest.approx(T * T * d)
    if d == T:
        assert t("rnn_cnn.cost_reading_equal", lang="en", T=f"{T:,}", att=f"{T**3:,}") in texts(at)


# --- images ---------------------------------------------------------------------------------------


def test_a_patch_attends_beyond_the_cnns_view():
    at = open_page(PAGE)
    view = picture_view(8, "grass", 10.0, 3, 1, True)
    data = figures(at)["rc_picture"]["data"]
    weights, field = data[3], data[4]  # after the three pictures: the attention, then the CNN's mask
    np.testing.assert_allclose(plotly_array(weights["z"]), view.weights, atol=1e-6)
    assert np.all(np.isnan(plotly_array(field["z"])) == view.field)
    assert f"{view.weight_outside_field:.2f}" in texts(at)
    numbers = table(open_numbers(at, "rc_picture_numbers"), t("rnn_cnn.col_in_field", lang="en"))
    assert numbers.index.name == t("rnn_cnn.img_patch", lang="en") and len(numbers) == 36


@pytest.mark.parametrize(("patch", "spot"), [(4, "sun"), (24, "sky"), (6, "door"), (16, "trunk")])
def test_every_patch_size_and_place(patch, spot):
    at = open_page(PAGE, rc_patch=str(patch), rc_spot=spot, rc_beta="50.0", rc_ik="15", rc_il="6")
    assert not at.exception and not at.toast
    z = plotly_array(figures(at)["rc_picture"]["data"][3]["z"])
    assert z.shape == (48 // patch, 48 // patch)
    q = landmark_patch(spot, patch)
    assert z.ravel()[q] == 0.0 and z.sum() == pytest.approx(1.0, abs=1e-5)  # its own cell left out


# --- presets, links, lecture, check ---------------------------------------------------------------


def test_presets_set_several_sections_at_once():
    at = open_page(PAGE)
    at.button(key="rnn_cnn_preset_speech").click().run()
    assert (at.session_state["rc_n"], at.session_state["rc_d"], at.session_state["rc_T"]) == (1000, 256, 32)
    assert visibility_z(at).shape == (5, 32, 32)
    at.button(key="rnn_cnn_preset_article").click().run()
    assert visibility_z(at).shape == (5, 4, 4)


@pytest.mark.parametrize(
    ("params", "key", "fallback"),
    [
        ({"rc_T": "1e309"}, "rc_T", 8),
        ({"rc_n": "-1e309"}, "rc_n", 100),
        ({"rc_d": "9e999"}, "rc_d", 512),
        ({"rc_r": "1e-400"}, "rc_r", 3),
        ({"rc_k": "4"}, "rc_k", 3),
        ({"rc_spot": "moon"}, "rc_spot", "grass"),
        ({"rc_lrview": "sideways"}, "rc_lrview", "relative"),
        ({"rc_patch": "5"}, "rc_patch", 8),
        ({"rc_step": "0"}, "rc_step", 1),
    ],
)
def test_bad_link_values_fall_back_with_a_notice(params, key, fallback):
    at = open_page(PAGE, **{"rc_T": "5", **params})
    assert not at.exception and not at.error
    assert at.toast and key in at.toast[0].value
    assert at.session_state[key] == fallback
    if key != "rc_T":
        assert visibility_z(at).shape == (5, 5, 5)  # the rest of the link still counts


@pytest.mark.parametrize(
    ("step", "shown"),
    [(1, {"rc_see"}), (2, {"rc_long"}), (3, {"rc_parallel"}), (4, {"rc_cost"}), (5, {"rc_picture"}), (6, set())],
)
def test_lecture_mode_shows_one_step_at_a_time(step, shown):
    at = open_page(PAGE, lecture="1", rc_step=str(step))
    assert not at.exception
    assert set(figures(at)) == shown
    for spec in figures(at).values():
        assert spec["layout"]["height"] <= 430 and spec["layout"]["font"]["size"] >= 20
    if step == 1:  # a projector is wide: the five pictures in one row
        domains = {tuple(v["domain"]) for k, v in figures(at)["rc_see"]["layout"].items() if k.startswith("yaxis")}
        assert len(domains) == 1
    if step in (2, 4):  # a projector is wide: the legend beside the plot, which a row under it squashed
        key = "rc_long" if step == 2 else "rc_cost"
        assert figures(at)[key]["layout"]["legend"]["orientation"] == "v"
        assert figures(open_page(PAGE))[key]["layout"]["legend"]["orientation"] == "h"  # a phone's width


def test_check_yourself():
    at = open_page(PAGE)
    at.radio(key="rc_check_cheaper").set_value("self_attention").run()
    assert at.error
    at.radio(key="rc_check_cheaper").set_value("rnn").run()
    assert at.success
    at.number_input(key="rc_check_products").set_value(5_120_000.0).run()
    assert len(at.success) == 2


def test_every_figure_has_its_numbers_one_click_away():
    at = open_numbers(
        open_page(PAGE),
        "rc_see_numbers",
        "rc_long_numbers",
        "rc_parallel_numbers",
        "rc_cost_numbers",
        "rc_picture_numbers",
    )
    assert not at.exception
    assert len(at.dataframe) == 6  # five figures' tables and Table 1
    assert len([b for b in at.get("download_button")]) == 6
