"""The live-training page in AppTest: train, stop, diverge, tag a typed sentence, the three
comparisons, presets, bad links, the shared cache, the extremes, lecture steps and the checks; and
one click's bound (issue 25): the cost said before the click, a run over the ceiling refused with
the steps that fit, the line a run waits in, and a click that leaves it. Each test opens the step it
tests. Runs here are short (tr_steps=10 or 20): the numbers are checked against the core, computed
here independently of the page, not against the article's 300-step results."""

import difflib
import gc
import sys
import threading
import time
import types

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

import attention_core.train as core
from attention_core.train import (
    Comparison,
    Config,
    Fit,
    Prediction,
    Progress,
    compare_models,
    compare_positions,
    compare_scaling,
    fit,
    order_task,
    saw_task,
)
from attention_core.train_cost import run_cost
from attention_core.train_views import word_ceiling
from lab_ui import cache, live
from lab_ui.figures import train as figures_module
from lab_ui.i18n import t
from lab_ui.registry import info as page_info
from pages.train import STEPS as STEP_OPTIONS
from pages.train import Controls as C

PAGE = "pages/train.py"
INFO = page_info("train")
STEP = INFO.step_key  # tr_step
link = link_of(C)
SHORT = link(steps=20, d=8)  # a run of a fraction of a second
# The issue's link: 79 s of CPU when one click ran it unbounded.
HEAVY = link(d=128, heads=8, steps=2000, window=4, seed=77)


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return "\n".join(p.value for p in parts)


def table(at, column: str):
    return next(d.value for d in at.dataframe if column in list(d.value.columns))


def opened(at, box: str):
    """A step's folded table, opened (it is built only while its box is open)."""
    at.session_state[f"{INFO.prefix}_{box}_table"] = True
    return at.run()


def curves(at) -> dict:
    data = figures(at)["tr_curves"]["data"]
    return {tr["name"]: (plotly_array(tr["x"]), plotly_array(tr["y"])) for tr in data}


def turn_to(at, step: str):
    at.button(key=f"{STEP}_go_{INFO.step_names.index(step) + 1}").click().run()
    return at


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
    assert headings == [f"1 · {t('train.section_train', lang=lang)}"]  # one step on the screen
    assert not any("_" in t(key, lang=lang) for key in INFO.steps.values())  # words, no raw "d_k" (issue 11 #11)
    assert set(figures(at)) == {"tr_curves"}
    expected = fit(Config(), saw_task(), 300, 0.01, 0)
    lines = curves(at)
    np.testing.assert_allclose(lines[t("train.curve_loss", lang=lang)][1], expected.losses, rtol=1e-6)
    np.testing.assert_allclose(
        lines[t("train.curve_ambiguous", lang=lang)][1], 100 * expected.ambiguous_accuracy_curve, rtol=1e-6
    )
    assert f"{100 * expected.ambiguous_accuracy:.1f}%" in texts(at)
    for step in ("frames", "tag"):  # the trained model, shared, on the steps that use it
        assert {"frames": "tr_frames", "tag": "tr_tags"}[step] in figures(turn_to(at, step))


def test_train_draws_the_curves_of_these_settings_and_a_new_setting_asks_first(fits):
    at = open_page(PAGE, **SHORT)
    assert not fits  # other settings than the example: not trained unasked
    # a message saying what to do, not empty axes that look like a chart gone wrong
    assert "tr_curves" not in figures(at) and t("train.press_train", lang="en", steps=20) in [i.value for i in at.info]
    at.button(key="tr_train").click().run()
    assert not at.exception and len(fits) == 1
    expected = fit(Config(d_model=8), saw_task(), 20, 0.01, 0)
    x, y = curves(at)[t("train.curve_loss", lang="en")]
    np.testing.assert_array_equal(x, np.arange(20))
    np.testing.assert_allclose(y, expected.losses, rtol=1e-6)
    numbers = table(opened(at, "train"), t("train.curve_ambiguous", lang="en"))
    assert numbers.index.name == t("train.step", lang="en")
    # one decimal, as the figure's hover and the text show them (and the CSV holds the same)
    np.testing.assert_array_equal(
        numbers[t("train.curve_ambiguous", lang="en")], np.round(100 * expected.ambiguous_accuracy_curve, 1)
    )
    frames = figures(turn_to(at, "frames"))["tr_frames"]  # the next step shows the model trained here
    assert len(fits) == 1
    assert len(frames["frames"]) == len(expected.frame_steps) and frames["layout"]["sliders"][0]["steps"]
    assert [b["method"] for b in frames["layout"]["updatemenus"][0]["buttons"]] == ["animate", "animate"]


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
    at = open_page(PAGE, lang="zh", **link(steps=2000, d=8))
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
    assert "tr_frames" in figures(turn_to(at, "frames"))  # the stopped model is used by the next steps
    assert "tr_tags" in figures(turn_to(at, "tag"))
    assert not live.running(core.fit, Config(d_model=8), saw_task(), 2000, 0.01, 0)
    assert live.finished(core.fit, Config(d_model=8), saw_task(), 2000, 0.01, 0)[0] is False


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_diverging_run_is_explained_and_shows_no_nan(lang):
    at = open_page(PAGE, lang=lang, **link(lr=1000, steps=20))
    at.button(key="tr_train").click().run()
    assert not at.exception
    expected = fit(Config(), saw_task(), 20, 1000.0, 0)
    assert expected.diverged
    offered = [float(o) for o in at.select_slider(key=C.lr.key).options]
    smaller = max(r for r in offered if r <= 1000 / 10)  # a rate the slider has (100 is not one)
    message = figures_module.DIVERGED.text(
        expected.divergence, lang, at=expected.diverged_at, lr="1000", shown=expected.steps_run, smaller=f"{smaller:g}"
    )
    assert message in [e.value for e in at.error]
    for trace in figures(at)["tr_curves"]["data"]:
        assert np.all(np.isfinite(plotly_array(trace["y"])))
    assert "nan" not in texts(at).lower()


@pytest.mark.parametrize("lr", ["1000", "10", "1"])
def test_the_rate_a_diverged_run_suggests_is_one_the_slider_offers(lr):
    at = open_page(PAGE, **link(lr=lr, steps=20, d=8))
    at.button(key="tr_train").click().run()
    offered = {float(o) for o in at.select_slider(key=C.lr.key).options}
    result = fit(Config(d_model=8), saw_task(), 20, float(lr), 0)
    if not result.diverged:
        pytest.skip(f"learning rate {lr} does not diverge in 20 steps")
    error = at.error[0].value
    suggested = float(error.rsplit("(", 1)[1].split(")")[0])  # the number in the last brackets
    assert suggested in offered and suggested <= float(lr) / 10


# --- one click's bound (issue 25 item 4) ----------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cost_of_a_run_is_said_before_the_click(lang):
    at = open_page(PAGE, lang=lang, **SHORT)
    cost = run_cost(fit, Config(d_model=8), saw_task(), 20, 0.01, 0)
    assert live.cost_words(cost, lang) in [c.value for c in at.caption]
    assert not at.button(key="tr_train").disabled
    at = open_step(PAGE, "scale", lang=lang, **SHORT)  # a comparison: its three runs together
    cost = run_cost(compare_scaling, saw_task(), 20, 0.001, 0, 64)
    assert cost.runs == 3 and live.cost_words(cost, lang) in [c.value for c in at.caption]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_issues_heavy_link_is_refused_before_anything_trains(lang, monkeypatch):
    """/train?tr_d=128&tr_heads=8&tr_steps=2000&tr_window=4&tr_seed=77, then Train: the page says
    beforehand that it is over one click's ceiling and how many steps fit; the button is disabled,
    and a click that gets through anyway (a session that pressed it before) is refused by
    lab_ui.live before a single step is trained."""
    steps_trained = []
    real_adam = core._adam

    def counting_adam(*args, **kwargs):  # every training step of fit() goes through it
        steps_trained.append(1)
        return real_adam(*args, **kwargs)

    monkeypatch.setattr(core, "_adam", counting_adam)
    cache.clear()
    at = open_page(PAGE, lang=lang, **HEAVY)
    cost = run_cost(fit, Config(d_model=128, heads=8, window=4), saw_task(), 2000, 0.01, 77)
    assert not cost.within and 0 < cost.max_steps < 2000
    fitting = max(s for s in STEP_OPTIONS if s <= cost.max_steps)
    assert live.over_words(cost, fitting, lang) in [w.value for w in at.warning]
    assert at.button(key="tr_train").disabled
    at.session_state["_tr_train_asked"] = True  # as the button's callback would have set it
    at.run()
    assert not at.exception and not steps_trained and "tr_curves" not in figures(at)
    assert live.over_words(cost, fitting, lang) in [e.value for e in at.error]
    assert not live.running(fit, Config(d_model=128, heads=8, window=4), saw_task(), 2000, 0.01, 77)
    at.button(key="tr_train_fit").click().run()  # "Use 300 steps": the most the slider offers that fit
    assert at.select_slider(key=C.steps.key).value == fitting
    assert at.query_params.get(C.steps.key, [str(C.steps.default)]) in (
        str(fitting),
        [str(fitting)],
    )  # the default: left out
    assert not at.button(key="tr_train").disabled and not steps_trained


def test_a_comparison_over_the_ceiling_is_refused_too():
    at = open_step(PAGE, "scale", **link(steps=2000))
    cost = run_cost(compare_scaling, saw_task(), 2000, 0.001, 0, 64)
    fitting = live.fitting_steps(cost, STEP_OPTIONS)
    assert not cost.within and at.button(key="tr_run_scale").disabled
    assert live.over_words(cost, fitting, "en") in [w.value for w in at.warning]
    assert not at.info  # no "press the button" beside a button that cannot be pressed


@pytest.fixture
def one_at_a_time(monkeypatch):
    """A worker that trains one run at a time, its turn held by another session's run until released."""
    monkeypatch.setattr(live, "MAX_RUNNING", 1)
    cache.clear()
    started, release = threading.Event(), threading.Event()

    def other_students_run(n, on_progress=None):
        started.set()
        release.wait(30)
        return n

    holder = threading.Thread(target=live.run, args=(other_students_run, 1))
    holder.start()
    assert started.wait(10)
    yield
    release.set()
    holder.join(10)


def test_a_waiting_run_shows_its_place_and_a_click_leaves_the_line(fits, one_at_a_time, monkeypatch):
    at = open_page(PAGE, **SHORT)
    busy = live.queue()
    assert busy == live.Queue(running=1, waiting=0, limit=1)
    assert live.queue_words(busy, "en") in [c.value for c in at.caption]  # said before the click
    real, said = DeltaGenerator.info, []

    def clicked_while_waiting(self, body, *args, **kwargs):
        said.append(body)
        if len(said) == 2:  # the second drawing of the place: the student clicks meanwhile
            raise StopException()
        return real(self, body, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "info", clicked_while_waiting)
    at.button(key="tr_train").click().run()
    monkeypatch.setattr(DeltaGenerator, "info", real)
    before, after = t("train.waiting", lang="en", position=1, running=1, limit=1, seconds="§").split("§")
    assert len(said) == 2 and all(s.startswith(before) and s.endswith(after) for s in said), said
    assert live.queue() == live.Queue(running=1, waiting=0, limit=1)  # it left the line
    assert not fits and not live.running(core.fit, Config(d_model=8), saw_task(), 20, 0.01, 0)
    at.run()  # the click's rerun: nothing trained, nothing asked
    assert not at.exception and not fits
    assert t("train.press_train", lang="en", steps=20) in [i.value for i in at.info]


def test_held_results_finds_a_result_held_by_a_callback():
    """The check below can fail: a button whose callback's argument is a Fit is found."""
    at = open_page(PAGE)
    result = fit(Config(d_model=4), saw_task(), 10, 0.01, 0)
    at._session_state._state._new_widget_state.widget_metadata["probe"] = types.SimpleNamespace(callback_args=(result,))
    assert any(f.endswith("Fit") and "callback_args" in f for f in held_results(at))


def test_a_session_holds_no_computed_result():
    at = open_page(PAGE)
    for name in INFO.step_names:
        turn_to(at, name)
        if name == "train":
            opened(at, "train")
        if name in ("compare", "order"):
            at.button(key=f"tr_run_{name}").click().run()
            opened(at, name)
        if name == "frames":
            at.button_group(key=C.head.key).set_value(2).run()
    at.button(key="train_preset_no_position").click().run()
    assert not at.exception
    assert held_results(at) == []


RESULTS = (Fit, Comparison, Prediction, Progress)


def held_results(at) -> list[str]:
    """Every computed result the session's state and its fragments reach (closures, callbacks'
    arguments, widget state), except what every session shares: the modules and what they hold at
    their top level (the cache, lab_ui.live's bounded store of stopped runs)."""
    shared = set()
    for module in list(sys.modules.values()):
        if isinstance(module, types.ModuleType):
            shared |= {id(module), id(vars(module)), *map(id, list(vars(module).values()))}
    found, seen = [], set(shared)
    for name, root in {"session state": at._session_state._state, "fragments": at._fragment_storage}.items():
        stack = [(root, name)]
        while stack:
            obj, path = stack.pop()
            if id(obj) in seen or isinstance(obj, types.ModuleType):
                continue
            seen.add(id(obj))
            if isinstance(obj, RESULTS):
                found.append(f"{path}: {type(obj).__name__}")
                continue
            for ref in gc.get_referents(obj):
                names = [k for k, v in obj.items() if v is ref][:1] if isinstance(obj, dict) else []
                stack.append((ref, f"{path} > {names[0]!r}" if names else f"{path} > {type(ref).__name__}"))
    return found


# --- a typed sentence -----------------------------------------------------------------------------


def test_a_typed_sentence_is_tagged_like_the_core_does():
    at = open_step(PAGE, "tag", **link(text="I saw a saw ."))
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
    at = open_step(PAGE, "tag", lang=lang, lecture="1")
    legend = next(m.value for m in at.markdown if "**PRON**" in m.value)
    for tag in saw_task().tags:  # the task's whole tag set, not only the tags of the sentence typed
        assert f"**{tag}**" in legend and t(f"train.tag_{tag}", lang=lang) in legend


@pytest.mark.parametrize(
    ("text", "unknown"),
    [("I saw a 锯子", "锯"), ("🙂 saw", "🙂"), ("<b>saw</b>", "<"), ("我看见了", "我"), ("I sawww a saw", "sawww")],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_words_outside_the_vocabulary_are_listed_not_guessed(text, unknown, lang):
    at = open_step(PAGE, "tag", lang=lang, **link(text=text, seed=0))
    assert not at.exception
    warning = next(w.value for w in at.warning if t("train.unknown_words", lang=lang, words="")[:8] in w.value)
    assert unknown in warning.replace("\\", "")
    tags = table(at, t("train.tag", lang=lang))
    assert t("train.unknown_tag", lang=lang) in list(tags[t("train.tag", lang=lang)])
    assert at.query_params[C.text.key] == text  # nothing the student typed is lost


def test_each_unknown_word_is_listed_once():
    at = open_step(PAGE, "tag", **link(text="<b>saw</b> 🙂 🙂 saw !!!"))
    warning = next(w.value for w in at.warning if t("train.unknown_words", lang="en", words="")[:8] in w.value)
    listed = warning.split(": ", 1)[1].split(". ", 1)[0].replace("\\", "").split(", ")
    assert sorted(listed) == sorted(set(listed)) and {"<", "🙂", "!"} <= set(listed)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_empty_and_very_long_text_get_a_message_and_keep_the_other_settings(lang):
    at = open_page(PAGE, lang=lang, **link(lr=0.03, steps=20, d=8))
    at.button(key="tr_train").click().run()  # settings of its own, trained, then the sentence typed
    turn_to(at, "tag")
    at.text_input(key=C.text.key).input("").run()
    assert not at.exception
    assert t("common.empty_text", lang=lang, example="I saw a saw .") in texts(at)
    assert at.select_slider(key=C.lr.key).value == 0.03
    at.text_input(key=C.text.key).input("saw " * 1250).run()  # 5,000 characters
    assert not at.exception
    assert t("common.tokens_cut", lang=lang, total=1250, shown=24) in texts(at)
    assert t("train.long_sentence", lang=lang, n=24) in texts(at)
    assert at.select_slider(key=C.lr.key).value == 0.03 and at.query_params[C.lr.key] == "0.03"


def test_the_vocabulary_is_shown_on_request():
    at = open_step(PAGE, "tag")
    assert " · ".join(saw_task().vocab[2:8]).replace(".", "\\.") in texts(at)


# --- comparisons -----------------------------------------------------------------------------------


def test_the_three_comparisons_run_on_their_buttons_and_match_the_core():
    cache.clear()
    task = saw_task()
    at = open_step(PAGE, "compare", **link(steps=20))
    assert t("train.press_run", lang="en", steps=20) in [i.value for i in at.info]
    at.button(key="tr_run_compare").click().run()
    assert not at.exception
    models = compare_models(task, 20, 0.01, 0, Config())
    got = table(opened(at, "compare"), t("train.col_ambiguous_accuracy", lang="en"))
    assert got.index.name == t("train.models_row", lang="en")
    np.testing.assert_array_equal(
        got[t("train.col_ambiguous_accuracy", lang="en")], [round(100 * r.ambiguous_accuracy, 1) for r in models.rows]
    )
    bars = figures(at)["tr_compare_figure"]
    ceiling = bars["data"][-1]  # the per-word ceiling, computed from the test set, a dashed line in the legend
    limit = 100 * word_ceiling(task)
    assert list(plotly_array(ceiling["y"])) == [limit, limit]
    assert ceiling["name"] == t("train.ceiling_models", lang="en", p=f"{limit:.0f}")

    turn_to(at, "order").button(key="tr_run_order").click().run()
    assert not at.exception
    positions = compare_positions(order_task(), 20, 0.01, 0, Config())
    order = table(opened(at, "order"), t("train.col_ambiguous_accuracy", lang="en"))
    assert order.index.name == t("train.positions_row", lang="en")
    np.testing.assert_array_equal(
        order[t("train.col_ambiguous_accuracy", lang="en")],
        [round(100 * r.ambiguous_accuracy, 1) for r in positions.rows],
    )

    turn_to(at, "scale").button(key="tr_run_scale").click().run()
    assert not at.exception
    scaling = compare_scaling(task, 20, 0.001, 0, 64)
    curves_ = figures(at)["tr_scale_figure"]["data"]
    for row, trace in zip(scaling.rows, curves_[::2], strict=True):
        np.testing.assert_allclose(plotly_array(trace["y"]), row.fit.losses, rtol=1e-6)
    assert [tr["name"] for tr in curves_[::2]] == [t(f"train.scale_{s}", lang="en") for s in ("sqrt", "d", "none")]


def test_the_scalings_table_fits_a_phone_measures_down_the_side():
    """Issue 26 #7: ten columns were cut at the right edge ("First ste..."); the three scalings
    across, the measures down the side."""
    at = open_step(PAGE, "scale", **link(steps=50))
    at.button(key="tr_run_scale").click().run()
    got = table(opened(at, "scale"), t("train.scale_sqrt", lang="en"))
    scaling = compare_scaling(saw_task(), 50, 0.001, 0, 64)
    assert list(got.columns) == [t(f"train.scale_{s}", lang="en") for s in ("sqrt", "d", "none")]
    assert got.index.name == t("train.measure", lang="en")
    first = t("train.col_first_90", lang="en")
    assert first in got.index
    for row, name in zip(scaling.rows, got.columns, strict=True):
        assert got.loc[t("train.col_loss_at", lang="en", step=25), name] == f"{row.fit.losses[24]:.4f}"
        assert got.loc[t("train.col_ambiguous_accuracy", lang="en"), name] == f"{100 * row.ambiguous_accuracy:.1f}"


# --- presets, links, extremes, lecture, checks ---------------------------------------------------


@pytest.mark.parametrize("preset", ["article", "no_position", "scale_d"])
def test_every_preset_sets_the_controls(preset):
    at = open_page(PAGE, **link(steps=20, d=32))
    at.button(key=f"train_preset_{preset}").click().run()
    assert not at.exception
    assert at.select_slider(key=C.steps.key).value == 300
    expected = {
        "article": ("sinusoidal", "sqrt", 16),
        "no_position": ("none", "sqrt", 16),
        "scale_d": ("sinusoidal", "d", 64),
    }
    pos, scale, d = expected[preset]
    assert at.button_group(key=C.positional.key).value == pos and at.button_group(key=C.scale.key).value == scale
    assert at.select_slider(key=C.d.key).value == d


@pytest.mark.parametrize(
    ("entry", "value"),
    [
        ("model", "cnn"),
        ("d", "7"),
        ("d", "abc"),
        ("heads", "3"),
        ("positional", "rope"),
        ("scale", "2"),
        ("window", "99"),
        ("window", "1e309"),
        ("lr", "-1"),
        ("lr", "nan"),
        ("steps", "0"),
        ("steps", "1e309"),
        ("seed", "-1"),
        ("seed", "x"),
        ("scaling_lr", "5"),
        ("head", "9"),
    ],
)
def test_bad_link_values_fall_back_with_a_notice(entry, value):
    control = getattr(C, entry)
    step = control.on or "train"  # opened where the control is drawn
    at = open_step(PAGE, step, lang="zh", **{control.key: value}, **link(text="we fish"))
    assert not at.exception
    assert any(control.key in toast.value for toast in at.toast), [x.value for x in at.toast]
    assert at.query_params[C.text.key] == "we fish"  # nothing else in the link is lost


def test_a_step_the_page_does_not_have_falls_back_with_a_notice():
    at = open_page(PAGE, lang="zh", **{STEP: "99"})
    assert not at.exception and any(STEP in toast.value for toast in at.toast)


def test_heads_that_do_not_divide_d_model_fall_back():
    at = open_page(PAGE, **link(d=4, heads=8))
    assert not at.exception
    assert at.button_group(key=C.heads.key).value in (1, 2, 4)


@pytest.mark.parametrize(
    "params",
    [
        link(d=128, heads=8, steps=10, lr=0.0003, window=4, positional="learned"),
        link(d=4, heads=4, steps=10, lr=1000, scale="none", model="window", window=0, seed=2147483647),
        link(model="word", steps=10, d=128),
    ],
)
def test_every_setting_at_its_extremes(params):
    at = open_page(PAGE, **params)
    at.button(key="tr_train").click().run()
    assert not at.exception
    for trace in figures(at)["tr_curves"]["data"]:
        assert np.all(np.isfinite(plotly_array(trace["y"])))
    if params.get(C.model.key) in ("word", "window"):
        assert t("train.frames_no_attention", lang="en") in texts(turn_to(at, "frames"))


@pytest.mark.parametrize("name", INFO.step_names)
def test_lecture_mode_shows_one_step_at_a_time(name):
    at = open_step(PAGE, name, lang="zh", lecture="1")
    assert not at.exception
    assert t(INFO.steps[name], lang="zh") in texts(at)
    shown = set(figures(at))
    assert shown <= {{"train": "tr_curves", "frames": "tr_frames", "tag": "tr_tags"}.get(name, "none")}


def test_check_yourself_computes_the_ceiling_and_asks_what_fixes_order():
    at = open_step(PAGE, "check")
    ceiling, order = INFO.checks
    at.number_input(key=ceiling).set_value(100 * word_ceiling(saw_task())).run()
    assert any(t("common.correct", lang="en", answer="50") in s.value for s in at.success)
    at.radio(key=order).set_value("heads").run()
    assert t("common.not_quite_choice", lang="en", typed=t("train.q_order_heads", lang="en")) in texts(at)
    at.radio(key=order).set_value("positions").run()
    assert t("train.q_order_why", lang="en") in texts(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_check_yourself_questions_are_not_the_quizs(lang):
    """Issue 26 #8: a check-yourself question repeated word for word in the page's quiz teaches
    nothing the second time: each check differs from every quiz question of the page."""
    checks = [t("train.q_ceiling", lang=lang), t("train.q_order", lang=lang)]
    quiz = [t(q.text, lang=lang) for q in INFO.quiz]
    for check in checks:
        for question in quiz:
            similar = difflib.SequenceMatcher(None, check, question).ratio()
            assert similar < 0.6, (check, question, similar)


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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_click_queued_during_a_run_stops_it_and_the_run_shows_what_was_kept(lang, monkeypatch):
    """In a browser Stop, inside the step's fragment, is queued behind the run (lab_ui.live's
    _stop_if_clicked finds it): the run stops and this very run shows the stopped model."""
    cache.clear()
    real, calls = live._stop_if_clicked, []

    def clicked_at_the_third_drawing():
        calls.append(1)
        if len(calls) == 3:
            raise live.ClickQueued
        real()

    monkeypatch.setattr(live, "_stop_if_clicked", clicked_at_the_third_drawing)
    at = open_page(PAGE, lang=lang, **link(steps=2000, d=8))
    at.button(key="tr_train").click().run()
    assert not at.exception
    _x, y = curves(at)[t("train.curve_loss", lang=lang)]
    k = len(y)
    assert 0 < k < 2000 and t("train.stopped", lang=lang, k=k, n=2000) in [w.value for w in at.warning]
    assert not live.running(core.fit, Config(d_model=8), saw_task(), 2000, 0.01, 0)
