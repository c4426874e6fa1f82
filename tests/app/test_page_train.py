"""The live-training page in AppTest: train, stop, diverge, tag a typed sentence, the three
comparisons, presets, bad links, the shared cache, the extremes, lecture steps and the checks.
Runs here are short (tr_steps=10 or 20): the numbers are checked against the core, computed
here independently of the page, not against the article's 300-step results."""

import threading
import time

import numpy as np
import pytest
from app_harness import figures, open_page, plotly_array
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

import attention_core.train as core
from attention_core.train import Config, compare_models, compare_positions, compare_scaling, fit, order_task, saw_task
from attention_core.train_views import word_ceiling
from lab_ui import cache, live
from lab_ui.i18n import t

PAGE = "pages/train.py"
SHORT = {"tr_steps": "20", "tr_d": "8"}  # a run of a fraction of a second


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return "\n".join(p.value for p in parts)


def table(at, column: str):
    return next(d.value for d in at.dataframe if column in list(d.value.columns))


def curves(at) -> dict:
    data = figures(at)["tr_curves"]["data"]
    return {tr["name"]: (plotly_array(tr["x"]), plotly_array(tr["y"])) for tr in data}


@pytest.fixture
def fits(monkeypatch):
    """Count the page's calls of fit (the page imports it from attention_core.train each run)."""
    calls = []

    def counting(*args, **kwargs):
        calls.append(args)
        return fit(*args, **kwargs)

    monkeypatch.setattr(core, "fit", counting)
    cache.clear()
    return calls


# --- opening, training ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_in_both_languages_with_the_articles_example_trained(lang):
    at = open_page(PAGE, lang=lang)
    assert not at.exception
    assert at.title[0].value == t("train.title", lang=lang)
    headings = [h.value for h in at.subheader if h.value[:1].isdigit()]
    assert len(headings) == 7 and not any("_" in h for h in headings)  # words, no raw "d_k" (issue 11 #11)
    assert {"tr_curves", "tr_frames", "tr_tags"} <= set(figures(at))
    expected = fit(Config(), saw_task(), 300, 0.01, 0)
    lines = curves(at)
    np.testing.assert_allclose(lines[t("train.curve_loss", lang=lang)][1], expected.losses, rtol=1e-6)
    np.testing.assert_allclose(
        lines[t("train.curve_ambiguous", lang=lang)][1], 100 * expected.ambiguous_accuracy_curve, rtol=1e-6
    )
    assert f"{100 * expected.ambiguous_accuracy:.1f}%" in texts(at)


def test_train_draws_the_curves_of_these_settings_and_a_new_setting_asks_first(fits):
    at = open_page(PAGE, **SHORT)
    assert not fits  # other settings than the example: not trained unasked
    # a message saying what to do, not empty axes that look like a chart gone wrong (as sections 4-6)
    assert "tr_curves" not in figures(at) and t("train.press_train", lang="en", steps=20) in [i.value for i in at.info]
    at.button(key="tr_train").click().run()
    assert not at.exception and len(fits) == 1
    expected = fit(Config(d_model=8), saw_task(), 20, 0.01, 0)
    x, y = curves(at)[t("train.curve_loss", lang="en")]
    np.testing.assert_array_equal(x, np.arange(20))
    np.testing.assert_allclose(y, expected.losses, rtol=1e-6)
    frames = figures(at)["tr_frames"]
    assert len(frames["frames"]) == len(expected.frame_steps) and frames["layout"]["sliders"][0]["steps"]
    assert [b["method"] for b in frames["layout"]["updatemenus"][0]["buttons"]] == ["animate", "animate"]
    at.session_state["tr_curves_numbers"] = True
    numbers = table(at.run(), t("train.curve_ambiguous", lang="en"))
    assert numbers.index.name == t("train.step", lang="en")
    # one decimal, as the figure's hover and the text show them (and the CSV holds the same)
    np.testing.assert_array_equal(
        numbers[t("train.curve_ambiguous", lang="en")], np.round(100 * expected.ambiguous_accuracy_curve, 1)
    )


def test_a_finished_run_is_shared_and_not_trained_again(fits):
    first = open_page(PAGE, **SHORT)
    first.button(key="tr_train").click().run()
    assert len(fits) == 1
    shown = curves(first)
    second = open_page(PAGE, **SHORT)  # another session, the same link: the result, no run
    assert not second.exception and len(fits) == 1
    assert curves(second).keys() == shown.keys()
    second.button(key="tr_train").click().run()  # pressing Train again trains nothing either
    assert len(fits) == 1 and t("train.from_cache", lang="en") in texts(second)
    first.run()  # a rerun, as after a reload
    assert len(fits) == 1


def test_a_second_session_pressing_train_meanwhile_follows_the_first_run():
    started, release, calls, drawn = threading.Event(), threading.Event(), [], []

    def slow(x, on_progress=None):
        calls.append(x)
        started.set()
        for step in range(1, 4):
            on_progress(step)
            release.wait(5)
        return x * 2

    cache.clear()
    results = []
    leader = threading.Thread(target=lambda: results.append(live.run(slow, 21, draw=drawn.append)))
    leader.start()
    started.wait(5)
    assert live.running(slow, 21)
    follower = threading.Thread(target=lambda: results.append(live.run(slow, 21, draw=lambda p: drawn.append(-p))))
    follower.start()
    time.sleep(3 * live.EVERY)  # the follower draws the leader's progress meanwhile
    release.set()
    leader.join(5)
    follower.join(5)
    assert results == [42, 42] and calls == [21]
    assert any(p < 0 for p in drawn), "the second session saw no progress"


def test_a_stopped_run_keeps_and_explains_what_it_learned(monkeypatch):
    """A click during a run (Stop) makes its next Streamlit call raise; here the progress bar's
    third update raises as a rerun request would."""
    cache.clear()
    at = open_page(PAGE, lang="zh", tr_steps="2000", tr_d="8")
    real, count = DeltaGenerator.progress, []

    def interrupted(self, *args, **kwargs):
        count.append(1)
        if len(count) == 3:
            raise StopException()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "progress", interrupted)
    at.button(key="tr_train").click().run()
    monkeypatch.setattr(DeltaGenerator, "progress", real)
    at.run()
    assert not at.exception
    warning = next(w.value for w in at.warning if "停止" in w.value)
    k = int(warning.split("第 ")[1].split(" /")[0])
    assert 0 < k < 2000 and warning == t("train.stopped", lang="zh", k=k, n=2000)
    _x, y = curves(at)[t("train.curve_loss", lang="zh")]
    assert len(y) == k and np.all(np.isfinite(y))
    assert "tr_frames" in figures(at) and "tr_tags" in figures(at)  # the stopped model is used below
    assert not live.running(core.fit, Config(d_model=8), saw_task(), 2000, 0.01, 0)
    assert live.finished(core.fit, Config(d_model=8), saw_task(), 2000, 0.01, 0)[0] is False


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_diverging_run_is_explained_and_shows_no_nan(lang):
    at = open_page(PAGE, lang=lang, tr_lr="1000", tr_steps="20")
    at.button(key="tr_train").click().run()
    assert not at.exception
    expected = fit(Config(), saw_task(), 20, 1000.0, 0)
    assert expected.diverged
    offered = [float(o) for o in at.select_slider(key="tr_lr").options]
    smaller = max(r for r in offered if r <= 1000 / 10)  # a rate the slider has (100 is not one)
    message = t(
        f"train.diverged_{expected.divergence}",
        lang=lang,
        at=expected.diverged_at,
        lr="1000",
        shown=expected.steps_run,
        smaller=f"{smaller:g}",
    )
    assert message in [e.value for e in at.error]
    for trace in figures(at)["tr_curves"]["data"]:
        assert np.all(np.isfinite(plotly_array(trace["y"])))
    assert "nan" not in texts(at).lower()


@pytest.mark.parametrize("lr", ["1000", "10", "1"])
def test_the_rate_a_diverged_run_suggests_is_one_the_slider_offers(lr):
    at = open_page(PAGE, tr_lr=lr, tr_steps="20", tr_d="8")
    at.button(key="tr_train").click().run()
    offered = {float(o) for o in at.select_slider(key="tr_lr").options}
    result = fit(Config(d_model=8), saw_task(), 20, float(lr), 0)
    if not result.diverged:
        pytest.skip(f"learning rate {lr} does not diverge in 20 steps")
    error = at.error[0].value
    suggested = float(error.rsplit("(", 1)[1].split(")")[0])  # the number in the last brackets
    assert suggested in offered and suggested <= float(lr) / 10


# --- a typed sentence -----------------------------------------------------------------------------


def test_a_typed_sentence_is_tagged_like_the_core_does():
    at = open_page(PAGE, tr_text="I saw a saw .")
    expected = core.predict(
        fit(Config(), saw_task(), 300, 0.01, 0).params, Config(), saw_task(), ["I", "saw", "a", "saw", "."]
    )
    tags = table(at, t("train.tag", lang="en"))
    assert list(tags[t("train.tag", lang="en")]) == list(expected.tags) == ["PRON", "VERB", "DET", "NOUN", "PUNCT"]
    np.testing.assert_allclose(tags[t("train.confidence", lang="en")], 100 * expected.confidence)
    assert tags.index.name == t("train.position", lang="en")
    assert list(tags[t("train.tag_meaning", lang="en")]) == [t(f"train.tag_{tag}", lang="en") for tag in expected.tags]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tags_are_named_in_words_where_they_are_first_shown(lang):
    at = open_page(PAGE, lang=lang, lecture="1", tr_step="3")
    legend = next(m.value for m in at.markdown if "**PRON**" in m.value)
    for tag in saw_task().tags:  # the task's whole tag set, not only the tags of the sentence typed
        assert f"**{tag}**" in legend and t(f"train.tag_{tag}", lang=lang) in legend


@pytest.mark.parametrize(
    ("text", "unknown"),
    [("I saw a 锯子", "锯"), ("🙂 saw", "🙂"), ("<b>saw</b>", "<"), ("我看见了", "我"), ("I sawww a saw", "sawww")],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_words_outside_the_vocabulary_are_listed_not_guessed(text, unknown, lang):
    at = open_page(PAGE, lang=lang, tr_text=text, tr_seed="0")
    assert not at.exception
    warning = next(w.value for w in at.warning if t("train.unknown_words", lang=lang, words="")[:8] in w.value)
    assert unknown in warning.replace("\\", "")
    tags = table(at, t("train.tag", lang=lang))
    assert t("train.unknown_tag", lang=lang) in list(tags[t("train.tag", lang=lang)])
    assert at.query_params["tr_text"] == text  # nothing the student typed is lost


def test_each_unknown_word_is_listed_once():
    at = open_page(PAGE, tr_text="<b>saw</b> 🙂 🙂 saw !!!")
    warning = next(w.value for w in at.warning if t("train.unknown_words", lang="en", words="")[:8] in w.value)
    listed = warning.split(": ", 1)[1].split(". ", 1)[0].replace("\\", "").split(", ")
    assert sorted(listed) == sorted(set(listed)) and {"<", "🙂", "!"} <= set(listed)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_empty_and_very_long_text_get_a_message_and_keep_the_other_settings(lang):
    at = open_page(PAGE, lang=lang, tr_slr="0.01")
    at.text_input(key="tr_text").input("").run()
    assert not at.exception
    assert t("common.empty_text", lang=lang, example="I saw a saw .") in texts(at)
    assert at.select_slider(key="tr_slr").value == 0.01
    at.text_input(key="tr_text").input("saw " * 1250).run()  # 5,000 characters
    assert not at.exception
    assert t("common.tokens_cut", lang=lang, total=1250, shown=24) in texts(at)
    assert t("train.long_sentence", lang=lang, n=24) in texts(at)
    assert at.select_slider(key="tr_slr").value == 0.01 and at.query_params["tr_slr"] == "0.01"


def test_the_vocabulary_is_shown_on_request():
    at = open_page(PAGE)
    assert " · ".join(saw_task().vocab[2:8]).replace(".", "\\.") in texts(at)


# --- comparisons -----------------------------------------------------------------------------------


def test_the_three_comparisons_run_on_their_buttons_and_match_the_core():
    cache.clear()
    at = open_page(PAGE, tr_steps="20")
    assert sum(t("train.press_run", lang="en", steps=20) in i.value for i in at.info) == 3
    for name in ("compare", "order", "scale"):
        at.button(key=f"tr_run_{name}").click().run()
        assert not at.exception, name
    task = saw_task()
    models = compare_models(task, 20, 0.01, 0, Config())
    got = table(at, t("train.col_ambiguous_accuracy", lang="en"))
    assert got.index.name == t("train.models_row", lang="en")
    np.testing.assert_array_equal(
        got[t("train.col_ambiguous_accuracy", lang="en")], [round(100 * r.ambiguous_accuracy, 1) for r in models.rows]
    )
    bars = figures(at)["tr_compare_figure"]
    ceiling = bars["data"][-1]  # the per-word ceiling, computed from the test set, a dashed line in the legend
    limit = 100 * word_ceiling(task)
    assert list(plotly_array(ceiling["y"])) == [limit, limit]
    assert ceiling["name"] == t("train.ceiling_models", lang="en", p=f"{limit:.0f}")
    positions = compare_positions(order_task(), 20, 0.01, 0, Config())
    order = next(d.value for d in at.dataframe if d.value.index.name == t("train.positions_row", lang="en"))
    np.testing.assert_array_equal(
        order[t("train.col_ambiguous_accuracy", lang="en")],
        [round(100 * r.ambiguous_accuracy, 1) for r in positions.rows],
    )
    scaling = compare_scaling(task, 20, 0.001, 0, 64)
    curves_ = figures(at)["tr_scale_figure"]["data"]
    for row, trace in zip(scaling.rows, curves_[::2], strict=True):
        np.testing.assert_allclose(plotly_array(trace["y"]), row.fit.losses, rtol=1e-6)
    assert [tr["name"] for tr in curves_[::2]] == [t(f"train.scale_{s}", lang="en") for s in ("sqrt", "d", "none")]


# --- presets, links, extremes, lecture, checks ---------------------------------------------------


@pytest.mark.parametrize("preset", ["article", "no_position", "scale_d"])
def test_every_preset_sets_the_controls(preset):
    at = open_page(PAGE, tr_steps="20", tr_d="32")
    at.button(key=f"train_preset_{preset}").click().run()
    assert not at.exception
    assert at.select_slider(key="tr_steps").value == 300
    expected = {
        "article": ("sinusoidal", "sqrt", 16),
        "no_position": ("none", "sqrt", 16),
        "scale_d": ("sinusoidal", "d", 64),
    }
    pos, scale, d = expected[preset]
    assert at.button_group(key="tr_pos").value == pos and at.button_group(key="tr_scale").value == scale
    assert at.select_slider(key="tr_d").value == d


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("tr_model", "cnn"),
        ("tr_d", "7"),
        ("tr_d", "abc"),
        ("tr_heads", "3"),
        ("tr_pos", "rope"),
        ("tr_scale", "2"),
        ("tr_window", "99"),
        ("tr_window", "1e309"),
        ("tr_lr", "-1"),
        ("tr_lr", "nan"),
        ("tr_steps", "0"),
        ("tr_steps", "1e309"),
        ("tr_seed", "-1"),
        ("tr_seed", "x"),
        ("tr_slr", "5"),
        ("tr_head", "9"),
        ("tr_step", "99"),
    ],
)
def test_bad_link_values_fall_back_with_a_notice(key, value):
    at = open_page(PAGE, lang="zh", **{key: value}, tr_text="we fish")
    assert not at.exception
    assert any(key in toast.value for toast in at.toast), [x.value for x in at.toast]
    assert at.query_params["tr_text"] == "we fish"  # nothing else in the link is lost


def test_heads_that_do_not_divide_d_model_fall_back():
    at = open_page(PAGE, tr_d="4", tr_heads="8")
    assert not at.exception
    assert at.button_group(key="tr_heads").value in (1, 2, 4)


@pytest.mark.parametrize(
    "params",
    [
        {"tr_d": "128", "tr_heads": "8", "tr_steps": "10", "tr_lr": "0.0003", "tr_window": "4", "tr_pos": "learned"},
        {
            "tr_d": "4",
            "tr_heads": "4",
            "tr_steps": "10",
            "tr_lr": "1000",
            "tr_scale": "none",
            "tr_model": "window",
            "tr_window": "0",
            "tr_seed": "2147483647",
        },
        {"tr_model": "word", "tr_steps": "10", "tr_d": "128"},
    ],
)
def test_every_setting_at_its_extremes(params):
    at = open_page(PAGE, **params)
    at.button(key="tr_train").click().run()
    assert not at.exception
    for trace in figures(at)["tr_curves"]["data"]:
        assert np.all(np.isfinite(plotly_array(trace["y"])))
    if params.get("tr_model") in ("word", "window"):
        assert t("train.frames_no_attention", lang="en") in texts(at)


@pytest.mark.parametrize("step", range(1, 8))
def test_lecture_mode_shows_one_step_at_a_time(step):
    at = open_page(PAGE, lang="zh", lecture="1", tr_step=str(step))
    assert not at.exception
    name = ("train", "frames", "tag", "compare", "order", "scale", "check")[step - 1]
    assert t(f"train.section_{name}", lang="zh") in texts(at)
    shown = set(figures(at))
    assert shown <= {{"train": "tr_curves", "frames": "tr_frames", "tag": "tr_tags"}.get(name, "none")}


def test_check_yourself_computes_the_ceiling():
    at = open_page(PAGE)
    at.number_input(key="tr_check_ceiling").set_value(50.0).run()
    assert any(t("common.correct", lang="en", answer="50") in s.value for s in at.success)
    at.radio(key="tr_check_order").set_value("same").run()
    assert t("train.q_order_why", lang="en") in texts(at)


def test_a_stopped_run_is_kept_for_the_session_that_stopped_it_and_never_cached():
    """In a browser Stop starts a new script run while the old one is still wrapping up in its own
    thread, which can no longer write the session's state: the new run asks lab_ui.live."""
    cache.clear()
    release = threading.Event()

    def stop_at_once(p):  # the first drawing is at step 1
        release.wait(1)
        raise StopException()

    def wrapped():
        with pytest.raises(live.Interrupted) as stop:
            live.run(core.fit, Config(d_model=4), saw_task(), 50, 0.01, 0, draw=stop_at_once, owner="A")
        assert stop.value.partial.stopped and stop.value.partial.steps_run == 1

    old_run = threading.Thread(target=wrapped)
    old_run.start()
    deadline = time.monotonic() + 30  # as in a browser, the old run is under way before Stop is pressed
    while not live.running(core.fit, Config(d_model=4), saw_task(), 50, 0.01, 0) and time.monotonic() < deadline:
        time.sleep(0.01)
    release.set()
    partial = live.stopped("A", core.fit, Config(d_model=4), saw_task(), 50, 0.01, 0)  # waits for the old run
    old_run.join(5)
    assert partial is not None and partial.steps_run == 1
    assert live.stopped("B", core.fit, Config(d_model=4), saw_task(), 50, 0.01, 0) is None
    assert live.finished(core.fit, Config(d_model=4), saw_task(), 50, 0.01, 0) == (False, None)
