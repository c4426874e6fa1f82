"""The scores-by-hand page: its core function against numbers worked by hand, then the page in
AppTest (every step in both languages, the controls, the article's mistake, the check, links)."""

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

from attention_core.steps import query_scores
from lab_ui.i18n import t
from lab_ui.registry import info as page_info
from pages.dot_product import Controls as C

PAGE = "pages/dot_product.py"
link = link_of(C)
(CHECK,) = page_info("dot_product").checks


# --- the core: query_scores ---------------------------------------------------------------------------


def test_scores_are_the_dot_products_worked_by_hand():
    r = query_scores([1.0, 0.5], [[0.8, 0.9], [-1.0, 0.2], [0.0, 0.0]])
    np.testing.assert_allclose(r.products, [[0.8, 0.45], [-1.0, 0.1], [0.0, 0.0]])
    np.testing.assert_allclose(r.alpha, [1.25, -0.9, 0.0])
    np.testing.assert_allclose(r.cosine[:2], r.alpha[:2] / (np.hypot(1, 0.5) * np.hypot([0.8, -1], [0.9, 0.2])))
    assert r.cosine[2] == 0.0  # a zero key has no direction
    e = np.exp(r.alpha / np.sqrt(2))
    np.testing.assert_allclose(r.weights, e / e.sum())
    assert r.scale == pytest.approx(1 / np.sqrt(2))


@pytest.mark.parametrize(("scaling", "scale"), [("none", 1.0), ("sqrt", 1 / np.sqrt(2)), ("d", 0.5)])
def test_each_scaling_multiplies_the_scores_by_its_factor(scaling, scale):
    r = query_scores([1.0, 2.0], [[1.0, 1.0], [2.0, -1.0]], scaling)
    np.testing.assert_allclose(r.scaled, r.alpha * scale)
    assert r.weights.sum() == pytest.approx(1.0)


def test_a_query_and_keys_of_different_lengths_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="must match"):
        query_scores([1.0, 2.0], [[1.0, 2.0, 3.0]])


# --- the page -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("step", "charts"), [("dot", {"dp_plane"}), ("keys", {"dp_bars", "dp_keys_plane"})])
def test_every_step_opens_with_its_figures(lang, step, charts):
    at = open_step(PAGE, step, lang)
    assert not at.exception
    assert set(figures(at)) == charts
    assert at.title[0].value == t("dot_product.title", lang=lang)


def test_moving_the_key_changes_the_score_the_page_writes_out():
    at = open_step(PAGE, "dot")
    at.slider(key=C.k1.key).set_value(-2.0).run()
    r = query_scores((1.0, 0.5), ((-2.0, 0.9),))
    markdown = " ".join(m.value for m in at.markdown)
    assert "(1.00)(-2.00) + (0.50)(0.90) = -1.55" in markdown and f"{r.alpha[0]:.2f}" == "-1.55"
    assert t("dot_product.sign_negative", lang="en") in [c.value for c in at.caption]


def test_the_query_in_the_settings_feeds_both_steps():
    at = open_page(PAGE, whole="1", **link(q1=2.0, q2=-1.0))
    assert not at.exception
    plane = figures(at)["dp_keys_plane"]
    xs, ys = plotly_array(plane["data"][0]["x"]), plotly_array(plane["data"][0]["y"])
    assert (xs[0], ys[0]) == (2.0, -1.0)  # q is the first arrow's tip on every plane


def test_the_bars_are_the_cores_numbers_and_the_weights_sum_to_one():
    at = open_step(PAGE, "keys", **link(scaling="none"))
    r = query_scores((1.0, 0.5), ((0.9, 0.7), (-0.6, 0.9), (0.2, -1.0)), "none")
    bars = figures(at)["dp_bars"]["data"]
    np.testing.assert_allclose(plotly_array(bars[0]["y"]), r.alpha, atol=1e-6)
    np.testing.assert_allclose(plotly_array(bars[1]["y"]), r.scaled, atol=1e-6)
    np.testing.assert_allclose(plotly_array(bars[2]["y"]).sum(), 1.0, atol=1e-6)


def test_article_003s_one_over_d_k_is_shown_as_a_mistake():
    at = open_step(PAGE, "keys")
    assert not at.warning
    at.radio(key=C.scaling.key).set_value("d").run()
    assert [w.value for w in at.warning] == [t("dot_product.article_mistake", lang="en")]
    assert at.query_params[C.scaling.key] == "d"


def test_the_check_takes_the_softmax_weight_and_never_rides_in_the_link():
    at = open_step(PAGE, "check")
    r = query_scores((1.0, 0.5), ((0.9, 0.7), (-0.6, 0.9), (0.2, -1.0)), "sqrt")
    at.number_input(key=CHECK).set_value(0.9).run()
    assert at.error and not at.success
    at.number_input(key=CHECK).set_value(round(float(r.weights[0]), 4)).run()
    assert at.success
    assert CHECK not in at.query_params


def test_the_articles_preset_sets_the_query_and_the_keys():
    at = open_step(PAGE, "keys")
    at.button(key="dot_product_preset_article").click().run()
    assert (at.slider(key=C.q1.key).value, at.slider(key=C.q2.key).value) == (1.0, 0.8)
    assert at.slider(key=C.b1.key).value == -0.6
    assert at.query_params[C.q2.key] == "0.8"


@pytest.mark.parametrize("bad", ["99", "abc", "1e309", "١"])
def test_a_link_value_out_of_range_falls_back_with_a_notice(bad):
    at = open_step(PAGE, "dot", **{C.k1.key: bad})
    assert not at.exception
    assert at.slider(key=C.k1.key).value == C.k1.default
    assert at.toast and C.k1.key in at.toast[0].value


def test_a_link_round_trips():
    params = link(q1=-1.5, q2=2.0, a1=0.1, scaling="none")
    at = open_page(PAGE, whole="1", **params)
    for name in ("q1", "q2", "a1"):
        assert at.slider(key=getattr(C, name).key).value == float(params[getattr(C, name).key])
    assert at.radio(key=C.scaling.key).value == "none"
