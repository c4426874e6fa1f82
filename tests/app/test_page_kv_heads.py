"""The shared key/value heads page: its core calls against numbers worked by hand or computed another
way, then the page in AppTest (every step in both languages, the controls, the figures' numbers, a
g that does not divide h from a link, the check, a preset)."""

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

from attention_core import split_tokens
from attention_core.decoder import load_decoder
from attention_core.grouped import shared_maps, sharing_costs
from attention_core.published import PUBLISHED_MODELS
from lab_ui.figures.kv_heads import LABEL_ROWS
from lab_ui.i18n import t
from lab_ui.registry import info as page_info
from pages.kv_heads import Controls as C

PAGE = "pages/kv_heads.py"
link = link_of(C)
(CHECK,) = page_info("kv_heads").checks
TOKENS = tuple(split_tokens(t("kv_heads.default_text", lang="en")))


# --- the core, as the page calls it ---------------------------------------------------------------


def test_the_default_layers_cache_by_hand():
    config = load_decoder().config  # the defaults: the app's decoder's layers and context
    c = sharing_costs(4, 8, config.n_layers, config.context)
    # 2 (K, V) x 3 layers x 128 tokens x g x 4 columns x 2 bytes
    np.testing.assert_array_equal(c.app.cache_bytes, [6144 * g for g in (1, 2, 4, 8)])
    # W_q, W_o 32 x 32 each, W_k and W_v 32 x 4g each
    np.testing.assert_array_equal(c.app.attention_params, [2 * 32 * 32 + 2 * 32 * 4 * g for g in (1, 2, 4, 8)])


def test_a_group_reads_one_array_of_keys():
    s = shared_maps(TOKENS, 4, 8, 2, 0)
    np.testing.assert_array_equal(s.result.k_shared[0], s.result.k_shared[3])  # Q1..Q4 read K/V1
    assert not np.array_equal(s.result.k_shared[3], s.result.k_shared[4])  # Q5 reads K/V2


# --- the page -----------------------------------------------------------------------------------------

CHARTS = {"share": {"kv_diagram"}, "maps": {"kv_maps"}, "bytes": {"kv_app_bars", "kv_model_bars"}, "check": set()}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", list(CHARTS))
def test_every_step_opens_with_its_figures(lang, step):
    at = open_step(PAGE, step, lang)
    assert not at.exception, [e.value for e in at.exception]
    assert set(figures(at)) == CHARTS[step]
    assert at.title[0].value == t("kv_heads.title", lang=lang)


def test_the_diagram_joins_each_query_head_to_its_group():
    at = open_step(PAGE, "share", **link(h=6, g=3))
    lines = figures(at)["kv_diagram"]["data"][:6]  # one line per query head, then the heads' markers
    ends = [plotly_array(line["x"])[1] for line in lines]
    assert ends == [0.5, 0.5, 2.5, 2.5, 4.5, 4.5]  # K/V j under the middle of its pair of query heads
    reading = " ".join(m.value for m in at.markdown)
    assert "each key/value head serves 2 query heads" in reading


def test_one_w_q_per_group_makes_the_groups_maps_equal():
    def shared_row(at):
        z = plotly_array(figures(at)["kv_maps"]["data"][0]["z"])
        T = len(TOKENS)
        top = LABEL_ROWS + T + 1  # under the heads' names and the multi-head row; h = 8 fits one row
        return [z[top : top + T, i * (T + 1) : i * (T + 1) + T] for i in range(8)]

    apart = shared_row(open_step(PAGE, "maps"))
    assert np.abs(apart[0] - apart[1]).max() > 1e-3  # same keys, other queries
    at = open_step(PAGE, "maps")
    at.toggle(key=C.same.key).set_value(True).run()
    same = shared_row(at)
    np.testing.assert_allclose(same[1], same[0], atol=1e-6)  # float32 in the figure
    assert np.abs(same[4] - same[0]).max() > 1e-3  # another group's keys
    assert at.toggle(key=C.same.key).value


def test_the_cache_bars_follow_g_and_the_models_are_cited():
    at = open_step(PAGE, "bytes", **link(layers=4, tokens=1024))
    bars = figures(at)["kv_app_bars"]["data"][0]
    np.testing.assert_array_equal(plotly_array(bars["y"]), [2 * 4 * 1024 * g * 4 * 2 for g in (1, 2, 4, 8)])
    models = figures(at)["kv_model_bars"]["data"]
    assert list(models[0]["y"]) == [m.name for m in PUBLISHED_MODELS]
    captions = " ".join(c.value for c in at.caption)
    for m in PUBLISHED_MODELS:
        assert m.source in captions  # every figure drawn, cited where it is drawn


@pytest.mark.parametrize(("g", "fit"), [("3", 2), ("7", 4), ("abc", 1), ("0", 1)])
def test_a_g_that_does_not_divide_h_gets_a_notice_and_keeps_the_rest(g, fit):
    at = open_step(PAGE, "share", **{C.g.key: g, C.h.key: "8", C.d_head.key: "8"})
    assert not at.exception
    assert at.selectbox(key=C.g.key).value == fit
    assert at.select_slider(key=C.d_head.key).value == 8  # the other settings are kept
    warning = [w.value for w in at.warning]
    assert len(warning) == 1 and f"g = {fit}" in warning[0] and "1, 2, 4, 8" in warning[0]


def test_moving_h_away_from_g_gets_the_notice_too():
    at = open_step(PAGE, "share", **link(h=8, g=4))
    at.slider(key=C.h.key).set_value(6).run()
    assert not at.exception
    assert at.selectbox(key=C.g.key).value == 3
    assert at.warning


def test_the_check_takes_the_cache_bytes_and_never_rides_in_the_link():
    at = open_page(PAGE, whole="1", **link(layers=5, tokens=512, g=4))
    answer = 2 * 5 * 512 * 4 * 4 * 2  # K and V, layers, tokens, g, d_head, bytes
    at.number_input(key=CHECK).set_value(answer / 2).run()
    assert at.error and not at.success
    at.number_input(key=CHECK).set_value(answer).run()
    assert at.success
    assert CHECK not in at.query_params


def test_the_decoders_preset_sets_its_sizes():
    config = load_decoder().config
    at = open_step(PAGE, "bytes")
    at.button(key="kv_heads_preset_decoder").click().run()
    assert at.slider(key=C.h.key).value == config.n_heads
    assert at.selectbox(key=C.g.key).value == config.n_heads
    assert at.select_slider(key=C.d_head.key).value == config.d_model // config.n_heads
    assert not at.warning
