"""FlashAttention's tiles: the page's example against the whole computation and against the online
softmax worked by hand, then the page in AppTest (every step in both languages, the tile and the row
the controls pick, the counts of the memory step, bad links, the check)."""

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

from attention_core import scaled_dot_product_attention, softmax
from attention_core.flash import attention_memory, flash_example
from lab_ui.i18n import t
from lab_ui.registry import info as page_info
from pages.flash import D_EXAMPLE
from pages.flash import Controls as C

PAGE = "pages/flash.py"
link = link_of(C)
(CHECK,) = page_info("flash").checks


# --- the core: flash_example ----------------------------------------------------------------------------


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("block", [1, 3, 4, 8, 20])
def test_the_example_tiles_give_the_whole_computations_output(block, causal):
    ex = flash_example(8, D_EXAMPLE, block, seed=3, causal=causal)
    np.testing.assert_allclose(ex.result.output, ex.reference, rtol=0, atol=1e-12)
    assert ex.max_error < 1e-12
    whole = scaled_dot_product_attention(ex.q, ex.k, ex.v, mask=np.tril(np.ones((8, 8), bool)) if causal else None)
    np.testing.assert_allclose(ex.weights, whole.weights)
    np.testing.assert_allclose(ex.result.m, ex.row_max)  # the last running maximum is the row's maximum
    np.testing.assert_allclose(ex.result.l, ex.denominator)  # and the last running sum softmax's denominator


def test_the_online_softmax_by_hand_for_one_row():
    """One row, two key blocks of two: m, l after each block and the rescale, by hand."""
    ex = flash_example(4, D_EXAMPLE, 2, seed=0)
    s = ex.result.scaled[0]  # [4]
    m1 = max(s[0], s[1])
    l1 = np.exp(s[0] - m1) + np.exp(s[1] - m1)
    m2 = max(m1, s[2], s[3])
    l2 = np.exp(m1 - m2) * l1 + np.exp(s[2] - m2) + np.exp(s[3] - m2)
    np.testing.assert_allclose(ex.result.m_after[:, 0], [m1, m2])
    np.testing.assert_allclose(ex.result.l_after[:, 0], [l1, l2])
    assert ex.result.rescale[1, 0] == pytest.approx(np.exp(m1 - m2))
    np.testing.assert_allclose(ex.reference[0], softmax(s) @ ex.v)


def test_first_raise_names_a_row_whose_maximum_a_later_block_raised():
    ex = flash_example(8, D_EXAMPLE, 2, seed=0)
    row, block = ex.first_raise
    assert block >= 1 and ex.raised(row, block)
    assert ex.result.m_after[block, row] > ex.result.m_after[block - 1, row]
    assert not any(ex.raised(r, b) for b in range(1, block) for r in range(8))  # no earlier block raised one
    assert flash_example(8, D_EXAMPLE, 8, seed=0).first_raise is None  # one block: nothing to raise


# --- the page -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("step", "charts"), [("tiles", {"fa_tiles"}), ("online", {"fa_running"}), ("memory", {"fa_held", "fa_moved"})]
)
def test_every_step_opens_with_its_figures(lang, step, charts):
    at = open_step(PAGE, step, lang)
    assert not at.exception
    assert set(figures(at)) == charts
    assert at.title[0].value == t("flash.title", lang=lang)


def test_the_whole_page_opens_in_both_languages():
    for lang in ("en", "zh"):
        at = open_page(PAGE, lang, whole="1")
        assert not at.exception
        assert {"fa_tiles", "fa_running", "fa_held", "fa_moved"} <= set(figures(at))


def test_the_tile_control_outlines_the_tiles_done_and_the_current_one():
    at = open_step(PAGE, "tiles", **link(T=8, B=4, tile=3))
    assert not at.exception
    fig = figures(at)["fa_tiles"]
    shapes = fig["layout"]["shapes"]
    assert len(shapes) == 3  # tiles 1 and 2 done, 3 being computed
    current = shapes[-1]
    # Algorithm 1's order: key block j = (3 - 1) // 2 = 1, query block i = 0 -> rows 1-4, keys 5-8
    assert (current["x0"], current["x1"], current["y0"], current["y1"]) == (3.5, 7.5, -0.5, 3.5)
    reading = " ".join(m.value for m in at.markdown)
    assert (
        t("flash.tiles_reading", "en", step=3, n=4, Tr=2, Tc=2, i=1, j=2, r0=1, r1=4, c0=5, c1=8, cells=16, whole=64)
        in reading
    )


def test_a_tile_past_the_last_falls_back_with_a_notice():
    at = open_step(PAGE, "tiles", **link(T=4, B=2), **{C.tile.key: "9"})  # 4 tiles
    assert not at.exception
    assert at.slider(key=C.tile.key).value == 1
    assert at.toast and C.tile.key in at.toast[0].value


@pytest.mark.parametrize("bad", ["0", "abc", "1e309", "٣", "33"])
def test_a_bad_size_in_a_link_falls_back_with_a_notice(bad):
    at = open_step(PAGE, "tiles", **{C.T.key: bad})
    assert not at.exception
    assert at.slider(key=C.T.key).value == C.T.default
    assert at.toast and C.T.key in at.toast[0].value


def test_a_tile_that_does_not_divide_t_is_fine_and_the_last_tiles_are_smaller():
    at = open_step(PAGE, "tiles", **link(T=7, B=3, tile=9))  # 3 x 3 tiles, the last 1 x 1
    assert not at.exception
    current = figures(at)["fa_tiles"]["layout"]["shapes"][-1]
    assert (current["x1"] - current["x0"], current["y1"] - current["y0"]) == (1, 1)


def test_the_online_step_reads_the_cores_numbers_for_the_row_chosen():
    at = open_step(PAGE, "online", **link(T=8, B=2, row=5))
    assert not at.exception
    ex = flash_example(8, D_EXAMPLE, 2, 0, False)
    reading = " ".join(m.value for m in at.markdown)
    assert f"{ex.result.l[4]:.4f}" in reading and f"{ex.denominator[4]:.4f}" in reading
    trace = figures(at)["fa_running"]["data"][1]  # the running sum
    np.testing.assert_allclose(plotly_array(trace["y"]), ex.result.l_after[:, 4])


def test_the_memory_step_counts_what_the_core_counts():
    at = open_step(PAGE, "memory", **link(N=16384, d=64, Bm=128))
    assert not at.exception
    mem = attention_memory(16384, 64, 128)
    reading = " ".join(m.value for m in at.markdown)
    assert f"{mem.standard_traffic:,}" in reading and f"{mem.flash_traffic:,}" in reading
    assert f"{mem.standard_traffic / mem.flash_traffic:.1f}" in reading
    assert t("flash.no_settings", "en") in [c.value for c in at.caption]  # the example's settings not drawn
    assert not at.slider(key=C.T.key) if False else C.T.key not in [s.key for s in at.slider]


def test_the_check_asks_for_the_rescale_factor_and_never_rides_in_the_link():
    at = open_step(PAGE, "check", **link(T=8, B=2))
    ex = flash_example(8, D_EXAMPLE, 2, 0, False)
    row, block = ex.first_raise
    at.number_input(key=CHECK).set_value(2.0).run()
    assert at.error and not at.success
    at.number_input(key=CHECK).set_value(round(float(ex.result.rescale[block, row]), 4)).run()
    assert at.success
    assert CHECK not in at.query_params


def test_with_one_tile_the_check_asks_for_the_sum():
    at = open_step(PAGE, "check", **link(T=6, B=6))
    ex = flash_example(6, D_EXAMPLE, 6, 0, False)
    at.number_input(key=CHECK).set_value(round(float(ex.result.l[0]), 4)).run()
    assert at.success


def test_the_causal_preset_masks_the_upper_triangle():
    at = open_step(PAGE, "tiles")
    at.button(key="flash_preset_causal").click().run()
    assert not at.exception
    assert at.toggle(key=C.causal.key).value is True and at.query_params[C.causal.key] in ("1", "true", "True")
    fig = figures(at)["fa_tiles"]
    assert len(fig["data"]) >= 2  # the masked cells' grey layer


def test_tiles_too_small_are_said_to_move_more_not_fewer():
    mem = attention_memory(4096, 64, 16)
    assert mem.flash_traffic > mem.standard_traffic  # the counts say so: Q and O re-read 256 times
    at = open_step(PAGE, "memory", **link(N=4096, d=64, Bm=16))
    reading = " ".join(m.value for m in at.markdown)
    assert f"{mem.flash_traffic:,}" in reading and "**more**" in reading
