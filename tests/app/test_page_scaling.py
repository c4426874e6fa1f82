"""The page "why divide by √d_k" in AppTest: what its figures and tables say (the two slopes, with
respect to the scaled scores and to the raw scores q·k, labelled), its controls, links, presets,
steps (one on the screen, lecture mode's the same), the check-yourself slot, and bad link values."""

import re
from dataclasses import fields

import numpy as np
import pytest
from app_harness import charts, figure_alts, figures, link_of, open_page, open_step, plotly_array

from attention_core.saturation import D_VALUES, saturation_sweep, score_rows
from lab_ui.figures import scaling as figures_module
from lab_ui.figures.scaling import LECTURE_PX
from lab_ui.i18n import catalog, t
from lab_ui.registry import info as page_info
from pages import scaling as page_module
from pages.scaling import Controls as C

PAGE = "pages/scaling.py"
D_VALUES = list(D_VALUES)
INFO = page_info("scaling")
STEPS = INFO.step_names  # spread, softmax, derivation: old links' sc_step=n open the same step
(CHECK,) = INFO.checks
FIGURES = {
    "spread": {"scaling_hist", "scaling_variance"},
    "softmax": {"scaling_weights", "scaling_curves", "scaling_slopes"},
    "derivation": set(),
}
link = link_of(C)


def open_table(at, step: str):
    """A step's folded table (built only when its box is open), opened: one row per d_k, or per
    scaling and d_k."""
    at.session_state[f"{INFO.prefix}_{step}_table"] = True
    at.run()
    (table,) = at.dataframe
    return table.value


def variance_table(at):
    return open_table(at, "spread")


def saturation_table(at):
    return open_table(at, "softmax")


def curves(at):
    """{measure: {scaling: y values}} from the two figures: largest weight and entropy (3 scalings and a
    reference per panel), softmax's own slope (3 and a reference) and the slope with respect to q·k (3)."""
    out = {}
    for key, panels in (
        ("scaling_curves", (("max", 0), ("entropy", 4))),
        ("scaling_slopes", (("jacobian", 0), ("raw", 4))),
    ):
        data = figures(at)[key]["data"]
        for measure, first in panels:
            lines = data[first : first + 3]
            out[measure] = {s: plotly_array(line["y"]) for s, line in zip(("none", "sqrt", "d"), lines, strict=True)}
    return out


def open_control_step(control, lang: str = "en", **params):
    """The page at the step that draws `control` (a page-level one: the first)."""
    return open_step(PAGE, control.on or STEPS[0], lang, **params)


# --- the declaration -----------------------------------------------------------------------------------


def test_the_page_is_declared_once_and_its_steps_get_plain_values():
    PAGE_ = page_module.PAGE
    PAGE_.check()  # every step of the manifest has its function
    assert STEPS == ("spread", "softmax", "derivation")
    assert [c.key for c in C.entries()] == ["sc_d", "sc_seed", "sc_n", "sc_T"]  # the links' parameters of old
    assert [c.key for c in C.on_step(None)] == [C.d.key, C.seed.key]
    assert (C.n.on, C.T.on) == ("spread", "softmax")
    assert {f.type for f in fields(page_module.Settings)} == {int}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_whole_page_runs_in_both_languages_with_its_figures(lang):
    at = open_page(PAGE, lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("scaling.title", lang=lang)
    assert set(figures(at)) == set().union(*FIGURES.values())
    assert all(alt.strip() for alt in figure_alts(at))
    numbered = [h.value for h in at.subheader if h.value[:1].isdigit()]  # not the quiz at the end
    assert numbered == [f"{i} · {t(INFO.steps[name], lang=lang)}" for i, name in enumerate(STEPS, start=1)]
    # Issue 11 #11: the title and the headings are words, no raw "√d_k" (they are also plain text in
    # the home page's lecture plan, where no formula renders)
    assert not any("_" in h for h in (at.title[0].value, *numbered))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEPS)
def test_each_step_is_alone_on_the_screen(step, lang):
    """Issue 24: one step at a time; an old link's sc_step=n opens the same step."""
    at = open_step(PAGE, step, lang)
    assert not at.exception
    assert set(figures(at)) == FIGURES[step]
    assert [h.value for h in at.subheader if h.value[:1].isdigit()] == [
        f"{STEPS.index(step) + 1} · {t(INFO.steps[step], lang=lang)}"
    ]
    own = {c.key for c in C.entries() if c.on == step}
    drawn = {w.key for w in (*at.select_slider, *at.slider, *at.number_input)}
    assert own <= drawn and not {c.key for c in C.entries() if c.on not in (None, step)} & drawn


def test_the_derivation_draws_no_settings_and_the_other_steps_keep_theirs():
    """The derivation reads neither d_k nor the seed: no controls that would change nothing; what
    they held comes back on the steps that read them."""
    at = open_page(PAGE, "en", **link(d="1024", seed="5"))
    at.button(key=f"{INFO.step_key}_next").click().run()
    at.button(key=f"{INFO.step_key}_next").click().run()
    assert not figures(at)
    assert not [w for w in (*at.select_slider, *at.number_input) if w.key in (C.d.key, C.seed.key)]
    assert t("scaling.no_settings", lang="en") in [c.value for c in at.caption]
    at.button(key=f"{INFO.step_key}_prev").click().run()
    assert (at.select_slider(key=C.d.key).value, at.number_input(key=C.seed.key).value) == (1024, 5)
    assert "d_k = 1024" in figures(at)["scaling_weights"]["layout"]["title"]["text"]


# --- step 1: the spread of q·k ------------------------------------------------------------------------


def test_measured_variance_tracks_d_and_is_about_1_after_scaling():
    at = open_page(PAGE, "en")
    assert not at.dataframe  # folded: not built until opened
    table = variance_table(at)
    d = table.index.to_numpy(dtype=float)
    assert list(d) == D_VALUES
    measured = table[t("scaling.col_var", lang="en")].to_numpy()
    se = table[t("scaling.col_se", lang="en")].to_numpy()
    assert np.all(np.abs(measured - d) < 4 * se), (measured, d, se)
    scaled = table[t("scaling.col_scaled", lang="en")].to_numpy()
    scaled_se = table[t("scaling.col_scaled_se", lang="en")].to_numpy()
    assert np.all(np.abs(scaled - 1) < 4 * scaled_se)
    # and the standard error shrinks with more samples: 5,000 pairs at d_k = 64 -> √((2·64² + 6·64)/5000)
    at.select_slider(key=C.n.key).set_value(5000).run()
    assert variance_table(at)[t("scaling.col_se", lang="en")].loc[64] == pytest.approx(
        np.sqrt((2 * 64**2 + 6 * 64) / 5000), abs=1e-4
    )


def test_histogram_shows_the_samples_at_the_chosen_d():
    at = open_page(PAGE, "en")
    at.select_slider(key=C.d.key).set_value(1024).run()
    hist = figures(at)["scaling_hist"]["data"]
    raw, scaled = plotly_array(hist[0]["x"]), plotly_array(hist[2]["x"])
    assert raw.var() == pytest.approx(1024, rel=0.2)  # 2,000 samples: SE ≈ 3 %
    assert scaled.var() == pytest.approx(1, rel=0.2)
    assert "1024" in at.metric[0].label


# --- step 2: what softmax does with them ---------------------------------------------------------------


def test_saturation_unscaled_one_hot_scaled_steady_divided_by_d_uniform():
    at = open_step(PAGE, "softmax")
    T = 8
    c = curves(at)
    # unscaled: the largest weight goes to 1 and the gradient to 0
    assert c["max"]["none"][-1] > 0.95 and c["max"]["none"][0] < 0.5
    assert c["jacobian"]["none"][-1] < 0.2 * c["jacobian"]["none"][0]
    # ÷ d_k: entropy goes to log T (uniform)
    assert c["entropy"]["d"][-1] == pytest.approx(np.log(T), rel=1e-3)
    assert c["max"]["d"][-1] == pytest.approx(1 / T, rel=0.05)
    # ÷ √d_k: roughly constant
    for measure in ("max", "entropy", "jacobian"):
        assert c[measure]["sqrt"].max() / c[measure]["sqrt"].min() < 1.3
    # the slope with respect to q·k carries the scale factor: ÷ d_k starves it, 4,096 times over
    np.testing.assert_allclose(c["raw"]["d"], c["jacobian"]["d"] / np.array(D_VALUES), rtol=1e-6)
    np.testing.assert_allclose(c["raw"]["sqrt"], c["jacobian"]["sqrt"] / np.sqrt(D_VALUES), rtol=1e-6)
    assert c["jacobian"]["d"][-1] > 0.3 and c["raw"]["d"][-1] < 1e-4
    # the saturation table agrees with the figure
    assert not at.dataframe  # folded: not built until opened
    table = saturation_table(at)
    unscaled = table[table[t("scaling.col_scaling", lang="en")] == t("scaling.scaling_none", lang="en")]
    np.testing.assert_allclose(unscaled[t("scaling.col_max", lang="en")], c["max"]["none"], atol=1e-4)


def test_more_keys_raise_the_uniform_entropy():
    at = open_step(PAGE, "softmax", **link(T="64"))
    c = curves(at)
    assert c["entropy"]["d"][-1] == pytest.approx(np.log(64), rel=1e-3)
    assert c["max"]["none"][-1] > 0.9


def test_the_bars_follow_the_pages_d_k():
    at = open_step(PAGE, "softmax")
    spec = figures(at)["scaling_weights"]
    assert not spec.get("frames") and not spec["layout"].get("sliders")  # the page's d_k is the one control
    sat = saturation_sweep(D_VALUES, score_rows(0), 8)
    np.testing.assert_allclose(
        plotly_array(spec["data"][0]["y"]), sat.first_weights[:, D_VALUES.index(64)].reshape(-1), atol=1e-4
    )
    at.select_slider(key=C.d.key).set_value(1024).run()
    spec = figures(at)["scaling_weights"]
    np.testing.assert_allclose(
        plotly_array(spec["data"][0]["y"]), sat.first_weights[:, D_VALUES.index(1024)].reshape(-1), atol=1e-4
    )
    assert "d_k = 1024" in spec["layout"]["title"]["text"]


def test_a_d_k_step_on_the_softmax_step_redraws_the_bars_alone():
    """The curves and slopes hold for every d_k: a d_k step leaves their figures as they were, so
    Streamlit does not draw them again (a dashed line at d_k made them two new figures each step),
    and the reading under them follows the new d_k."""
    at = open_step(PAGE, "softmax")
    before = figures(at)
    at.select_slider(key=C.d.key).set_value(1024).run()
    after = figures(at)
    assert after["scaling_weights"] != before["scaling_weights"]
    assert after["scaling_curves"] == before["scaling_curves"] and after["scaling_slopes"] == before["scaling_slopes"]
    assert any("d_k = 1024" in m.value for m in at.markdown)


def test_the_slopes_figure_says_which_slope_is_which_and_the_text_reads_the_numbers():
    """Issue 11 #7: "gradient size" was softmax's Jacobian with respect to the already scaled
    scores, so article 003's ÷ d_k looked healthy. Both slopes are shown, each panel titled."""
    at = open_step(PAGE, "softmax", **link(d="1024"))
    spec = figures(at)["scaling_slopes"]
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert titles == [
        f"<b>{t(k, lang='en').replace(chr(10), '<br>')}</b>" for k in ("scaling.slope_scaled", "scaling.slope_raw")
    ]
    assert "raw" in titles[1] and "q·k" in titles[1] and "c·s" in titles[0]
    sat = saturation_sweep(D_VALUES, score_rows(0), 8)
    j = D_VALUES.index(1024)
    reading = " ".join(m.value for m in at.markdown)
    assert f"**{sat.slope_scaled[2, j]:.3f}**" in reading and f"**{sat.slope_raw[2, j]:.2g}**" in reading
    table = saturation_table(at)
    assert t("scaling.col_slope_raw", lang="en") in table.columns and table.index.name == t("scaling.col_d", lang="en")
    by_d = table[table[t("scaling.col_scaling", lang="en")] == t("scaling.scaling_d", lang="en")]
    np.testing.assert_allclose(by_d[t("scaling.col_slope_raw", lang="en")], sat.slope_raw[2])  # full precision: tiny


def test_moving_T_draws_no_new_rows():
    """Issue 11's stopwatch: T took 3 s a step. The rows are drawn once per seed (score_rows), and
    a row of T keys is their first T: T = 8 and T = 9 share their first eight raw scores."""
    a = open_step(PAGE, "softmax", **link(d="1"))
    b = open_step(PAGE, "softmax", **link(d="1", T="9"))
    customdata = [np.array(figures(x)["scaling_weights"]["data"][0]["customdata"]) for x in (a, b)]
    np.testing.assert_allclose(customdata[1][:8, 1], customdata[0][:8, 1])  # the first group's raw scores q·k


def enclosing_ids(at, kind: str) -> list[list[str]]:
    """For each element of `kind`, the ids of the blocks around it, outermost first (a keyed
    container's id ends with its key, the key its CSS class .st-key-<key> names)."""
    found = []

    def walk(node, ids):
        for child in node.children.values():
            if child.type == kind:
                found.append(ids)
            if getattr(child, "children", None):
                walk(child, [*ids, getattr(child.proto, "id", "") or ""])

    walk(at._tree, [])
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_softmax_step_sends_its_phone_css_and_keys_what_it_styles(lang):
    """A review on a 390 px phone: the bars' key numbers ran together and their value labels were
    4 px, the link to the train page was cut at the screen's edge, the code box hid article 003's
    division. The page sends the media queries (lab_ui.figures.scaling says what each does) and puts
    the link and the box in the containers they name."""
    at = open_step(PAGE, "softmax", lang)
    styles = [h.proto.body for h in at.get("html") if "<style>" in h.proto.body]
    assert figures_module.SOFTMAX_CSS in styles
    assert figures_module.phone_key_ticks_css(figures_module.WEIGHTS_KEY, 8) in styles  # T = 8 by default
    code = next(c for c in at.code if "self.embed_dim // self.num_heads" in c.value)
    assert code.value == t("scaling.mistake_code", lang=lang) and code.proto.wrap_lines
    (link_ids,) = [
        ids
        for ids, p in zip(enclosing_ids(at, "page_link"), at.get("page_link"), strict=True)
        if p.proto.label == t("scaling.train_link", lang=lang)
    ]
    assert link_ids[-1].endswith(f"-{figures_module.TRAIN_LINK_KEY}")
    code_ids = [ids for ids, c in zip(enclosing_ids(at, "code"), at.code, strict=True) if c.value == code.value]
    assert any(i.endswith(f"-{figures_module.MISTAKE_KEY}") for i in code_ids[0])


def test_few_keys_need_no_css_for_their_numbers():
    at = open_step(PAGE, "softmax", **link(T="4"))
    assert not [h for h in at.get("html") if "g.xtick:nth-of-type" in h.proto.body]
    assert figures_module.SOFTMAX_CSS in [h.proto.body for h in at.get("html")]


# --- step 3: the derivation and the check ------------------------------------------------------------------


def test_check_accepts_8_and_rejects_64():
    at = open_step(PAGE, "derivation")
    at.number_input(key=CHECK).set_value(8).run()
    assert at.success and "8" in at.success[0].value
    at.number_input(key=CHECK).set_value(64).run()
    assert not at.success and at.error and "64" in at.error[0].value
    at.toggle(key=f"{CHECK}_show").set_value(True).run()
    assert any(t("scaling.check_explanation", lang="en") == i.value for i in at.info)
    assert CHECK not in at.query_params  # answers never ride in the link


def test_the_derivation_shows_every_step_and_corrects_article_003():
    at = open_step(PAGE, "derivation")
    shown = [m.value for m in at.markdown]
    assert all(t(key, lang="en") in shown for key, _ in figures_module.DERIVATION)
    assert [x.value.strip("$\n") for x in at.latex] == [latex for _, latex in figures_module.DERIVATION if latex]
    assert next(i.value for i in at.info) == t("scaling.garbled", lang="en")


def test_english_page_translates_every_chinese_quote():
    """Article 003's words stay in Chinese (they are the source), each followed by an English
    translation in brackets: “原文” (“translation”)."""
    quote = re.compile(r"“([^”]*[\u4e00-\u9fff][^”]*)”")
    found = 0
    for key, texts in catalog().items():
        if not key.startswith("scaling."):
            continue
        for match in quote.finditer(texts["en"]):
            found += 1
            after = texts["en"][match.end() :].lstrip()
            assert re.match(r"\(“[A-Za-z][^”]*”\)", after), (key, match.group(0))
    assert found >= 4
    at = open_step(PAGE, "derivation")
    page = " ".join(m.value for m in at.markdown)
    assert "(“independent components: summed, they become 0 and dk”)" in page


# --- links, presets, bad values ------------------------------------------------------------------------


def test_link_reproduces_the_view_and_the_seed_decides_the_numbers():
    params = link(d="256", T="16", seed="7", n="1000")
    a = open_page(PAGE, "en", whole="1", **params)
    assert not a.exception
    assert a.select_slider(key=C.d.key).value == 256
    assert a.slider(key=C.T.key).value == 16
    assert a.select_slider(key=C.n.key).value == 1000
    assert a.number_input(key=C.seed.key).value == 7
    b = open_page(PAGE, "en", **params)
    c = open_page(PAGE, "en", **{**params, **link(seed="8")})
    same = figures(a)["scaling_hist"]["data"][0]["x"], figures(b)["scaling_hist"]["data"][0]["x"]
    assert same[0] == same[1]
    assert figures(c)["scaling_hist"]["data"][0]["x"] != same[0]
    assert variance_table(b).equals(variance_table(open_page(PAGE, "en", **params)))


@pytest.mark.parametrize(
    ("control", "value"),
    [
        (C.d, "100"),
        (C.d, "abc"),
        (C.d, "-64"),
        (C.T, "999"),
        (C.T, "1.5"),
        (C.T, "两"),
        (C.n, "7"),
        (C.seed, "-1"),
        (C.seed, "<b>x</b>"),
        *((control, number) for control in C.entries() for number in ("1e309", "-1e309", "1e-400", "9e999")),
    ],
    ids=str,
)
def test_bad_link_values_fall_back_with_a_notice_and_keep_the_rest(control, value):
    good = {C.d.key: "1024", C.T.key: "16"}
    good.pop(control.key, None)
    at = open_control_step(control, "en", **good, **{control.key: value})
    assert not at.exception
    assert at.toast and control.key in at.toast[0].value
    kinds = {"slider": at.slider, "seed": at.number_input, "select_slider": at.select_slider}
    assert kinds[control.kind](key=control.key).value == control.default
    if C.d.key in good:
        assert at.select_slider(key=C.d.key).value == 1024  # what else the link set is kept
    if C.T.key in good and control.on == "softmax":
        assert at.slider(key=C.T.key).value == 16


def test_presets_set_the_controls_and_the_link():
    at = open_step(PAGE, "softmax")
    at.button(key="scaling_preset_saturation").click().run()
    assert at.select_slider(key=C.d.key).value == 1024
    assert at.query_params[C.d.key] in ("1024", ["1024"])
    assert "d_k = 1024" in figures(at)["scaling_weights"]["layout"]["title"]["text"]
    at.button(key="scaling_preset_article").click().run()
    assert (at.select_slider(key=C.d.key).value, at.slider(key=C.T.key).value) == (8, 4)
    at.button(key="scaling_preset_long").click().run()
    assert not at.exception
    assert (at.select_slider(key=C.d.key).value, at.slider(key=C.T.key).value) == (4096, 64)


def test_a_preset_on_another_step_sets_a_control_that_step_does_not_draw():
    """The article's T = 4, chosen on step 1 (where T has no slider), is what step 2 shows."""
    at = open_page(PAGE, "en")
    at.button(key="scaling_preset_article").click().run()
    assert at.query_params[C.T.key] in ("4", ["4"])
    at.button(key=f"{INFO.step_key}_next").click().run()
    assert (at.select_slider(key=C.d.key).value, at.slider(key=C.T.key).value) == (8, 4)


@pytest.mark.parametrize("step", STEPS)
def test_extremes_run_on_every_step(step):
    at = open_step(PAGE, step, "zh", **link(d="1", T="2", n="500"), lecture="1")
    assert not at.exception
    if step != "derivation":
        assert at.select_slider(key=C.d.key).value == 1  # in the settings' popover
    at = open_step(PAGE, step, "en", **link(d="4096", T="64", n="5000", seed=str(2**31 - 1)))
    assert not at.exception
    if step == "spread":
        assert variance_table(at).index[-1] == 4096


# --- lecture mode ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("step", STEPS)
def test_lecture_steps_show_one_step_and_its_first_figure_fits_the_first_screen(step):
    """Issue 11 #16: lecture mode cut the histograms. The step's first figure is drawn right under
    the step bar, no taller than LECTURE_PX; its controls and words come after it."""
    at = open_step(PAGE, step, "en", lecture="1")
    assert not at.exception
    assert set(figures(at)) == FIGURES[step]
    first = {"spread": "scaling_hist", "softmax": "scaling_weights"}.get(step)
    if first:
        assert figures(at)[first]["layout"]["height"] <= LECTURE_PX
        assert figures(at)[first]["layout"]["font"]["size"] >= 20
        assert charts(at)[0].key == first
        assert {w.key for w in (*at.select_slider, *at.number_input)} >= {C.d.key, C.seed.key}
    else:
        at.number_input(key=CHECK).set_value(8).run()
        assert at.success
        assert not [w for w in (*at.select_slider, *at.number_input) if w.key in (C.d.key, C.seed.key)]


@pytest.mark.parametrize("lecture", ["0", "1"])
@pytest.mark.parametrize("value", ["0", "4", "two", "1e309", "-1e309", "1e-400", "9e999"])
def test_a_bad_step_in_the_link_falls_back_to_the_first_step_and_keeps_the_rest(value, lecture):
    at = open_page(PAGE, "en", lecture=lecture, **{INFO.step_key: value}, **link(d="1024"))
    assert not at.exception
    assert at.toast and INFO.step_key in at.toast[0].value
    assert set(figures(at)) == FIGURES["spread"]
    assert at.select_slider(key=C.d.key).value == 1024
