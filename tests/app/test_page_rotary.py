"""The rotary-positions page: its core calls against numbers worked by hand or computed another way,
then the page in AppTest (every step in both languages, the controls, the figures' numbers, bad
links, the check, a preset)."""

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

from attention_core import split_tokens
from attention_core.rotary import sentence_positions, sentence_qk, sentence_turn
from lab_ui.i18n import t
from lab_ui.registry import info as page_info
from pages.rotary import Controls as C

PAGE = "pages/rotary.py"
link = link_of(C)
(CHECK,) = page_info("rotary").checks
TOKENS = tuple(split_tokens(t("rotary.default_text", lang="en")))


# --- the core, as the page calls it ---------------------------------------------------------------


def test_the_default_turn_is_five_times_a_tenth():
    r = sentence_turn(TOKENS, 8, 0, 1, 5.0)  # d = 8: θ_1 = 10000^(-2/8) = 0.1
    assert r.angle[1] == pytest.approx(0.5)
    q = sentence_qk(TOKENS, 8, 0).q[1]
    c, s = np.cos(0.5), np.sin(0.5)
    np.testing.assert_allclose(r.rotated[2:4], [c * q[2] - s * q[3], s * q[2] + c * q[3]])  # the 2 x 2 rotation


def test_alibi_slopes_for_four_heads_are_quarter_powers_of_two():
    c = sentence_positions(TOKENS, 8, 4, 0)
    np.testing.assert_allclose(c.slopes, [2**-2, 2**-4, 2**-6, 2**-8])  # 2^(-8h/4)
    T = len(TOKENS)
    bias = c.scaled[3, :, -1, :] - c.scaled[0, :, -1, :]  # ALiBi minus no position, the last query
    np.testing.assert_allclose(bias, -c.slopes[:, None] * np.arange(T)[::-1][None, :], atol=1e-12)


# --- the page -----------------------------------------------------------------------------------------

CHARTS = {
    "rotate": {"ro_plane", "ro_bars"},
    "relative": {"ro_shift_plot"},
    "decay": {"ro_decay"},
    "alibi": {"ro_penalty", "ro_maps"},
    "check": set(),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", list(CHARTS))
def test_every_step_opens_with_its_figures(lang, step):
    at = open_step(PAGE, step, lang)
    assert not at.exception, [e.value for e in at.exception]
    assert set(figures(at)) == CHARTS[step]
    assert at.title[0].value == t("rotary.title", lang=lang)


def test_moving_the_position_moves_the_angle_the_page_reads_out():
    at = open_step(PAGE, "rotate")
    reading = " ".join(m.value for m in at.markdown)
    assert "**0.5 rad**" in reading
    at.slider(key=C.m.key).set_value(30).run()
    reading = " ".join(m.value for m in at.markdown)
    assert "**3 rad**" in reading and "30 × 0.1" in reading
    bars = figures(at)["ro_bars"]["data"][0]
    np.testing.assert_allclose(plotly_array(bars["y"]), 30 * 10000.0 ** (-np.arange(0, 8, 2) / 8), rtol=1e-6)


def test_the_shift_leaves_ropes_scores_on_the_diagonal_and_moves_the_sinusoids():
    at = open_step(PAGE, "relative", **link(shift=300))
    _, sinusoid, rope = figures(at)["ro_shift_plot"]["data"]
    np.testing.assert_allclose(plotly_array(rope["y"]), plotly_array(rope["x"]), atol=1e-5)
    assert np.abs(plotly_array(sinusoid["y"]) - plotly_array(sinusoid["x"])).max() > 0.1
    assert len(plotly_array(rope["x"])) == len(TOKENS) ** 2


def test_the_penalty_lines_are_minus_slope_times_distance():
    at = open_step(PAGE, "alibi", **link(heads=8))
    lines = figures(at)["ro_penalty"]["data"]
    assert len(lines) == 8
    for h, line in enumerate(lines, start=1):
        distance = plotly_array(line["x"])
        np.testing.assert_allclose(plotly_array(line["y"]), -(2.0 ** (-h)) * distance, atol=1e-6)


def test_the_sentences_start_moves_only_the_sinusoids_map():
    def maps(offset):
        data = figures(open_step(PAGE, "alibi", **link(offset=offset)))["ro_maps"]["data"]
        return [np.nan_to_num(plotly_array(d["z"])) for d in data]

    before, after = maps(0), maps(150)
    moved = [float(np.abs(a - b).max()) for a, b in zip(before, after, strict=True)]
    assert moved[0] == moved[3] == 0.0 and moved[2] < 1e-6 < 1e-3 < moved[1]


@pytest.mark.parametrize(("key", "bad"), [(C.pair.key, "9"), (C.d.key, "3"), (C.m.key, "abc"), (C.head.key, "0")])
def test_a_link_value_that_does_not_fit_falls_back_with_a_notice(key, bad):
    at = open_page(PAGE, whole="1", **{key: bad})
    assert not at.exception
    assert any(key in toast.value for toast in at.toast), [toast.value for toast in at.toast]


def test_a_pair_left_from_a_wider_d_is_not_an_error():
    at = open_step(PAGE, "rotate", **link(d=64, pair=20))
    assert at.selectbox(key=C.pair.key).value == 20
    at.select_slider(key=C.d.key).set_value(4).run()
    assert not at.exception
    assert at.selectbox(key=C.pair.key).value in (0, 1)


def test_the_check_takes_the_angle_and_never_rides_in_the_link():
    at = open_page(PAGE, whole="1", **link(m=7, pair=2))  # the rotate step's m and i; θ_2 = 10000^(-4/8) = 0.01
    at.number_input(key=CHECK).set_value(7.0).run()
    assert at.error and not at.success
    at.number_input(key=CHECK).set_value(0.07).run()
    assert at.success
    assert CHECK not in at.query_params


def test_the_articles_preset_sets_the_sentence_and_the_turn():
    at = open_step(PAGE, "rotate")
    at.button(key="rotary_preset_article").click().run()
    assert at.text_input(key=C.text.key).value == "I saw a saw"
    assert at.slider(key=C.m.key).value == 3
    assert at.query_params[C.text.key] == "I saw a saw"
