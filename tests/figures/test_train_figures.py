"""The figures and tables of the live-training page: they draw the run they are given, frames
played in the browser, unknown words marked and escaped, tags named in words."""

import numpy as np
import pytest

from attention_core.train import Config, compare_models, compare_positions, compare_scaling, fit, predict, saw_task
from attention_core.train_views import tag_examples
from lab_ui.figures import train as figs
from lab_ui.i18n import t
from lab_ui.layout import TOOLBAR_PX


@pytest.fixture(scope="module")
def run():
    return fit(Config(), saw_task(), 20, 0.01, 0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_panels_are_named_above_them_not_by_an_axis_title_in_the_gap(run, lang):
    # a y-axis title of the right panel stands in the gap, over the left panel's curves on a phone
    comp = compare_scaling(saw_task(), 10, 0.001, 0, 8)
    for fig, right in (
        (figs.curves(run, 20, lang), "train.accuracy"),
        (figs.scaling(comp, lang), "train.curve_ambiguous"),
    ):
        assert [a.text for a in fig.layout.annotations] == [
            f"<b>{t('train.curve_loss', lang)}</b>",
            f"<b>{t(right, lang)}</b>",
        ]
        assert not fig.layout.yaxis2.title.text and not fig.layout.yaxis.title.text
        assert fig.layout.title.yref == "container" and fig.layout.margin.t == figs.PANELS_TOP


def test_the_scaling_loss_axis_labels_powers_of_ten_only():
    fig = figs.scaling(compare_scaling(saw_task(), 10, 0.001, 0, 8), "en")
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis.dtick == 1


@pytest.mark.parametrize("kind", ["models", "positions"])
def test_the_ceiling_is_a_line_in_the_legend_not_a_label_over_the_bars(kind):
    task = saw_task()
    comp = (
        compare_models(task, 5, 0.01, 0, Config())
        if kind == "models"
        else compare_positions(task, 5, 0.01, 0, Config())
    )
    fig = figs.comparison(comp, kind, 0.5, "zh")
    line = fig.data[-1]
    assert list(line.y) == [50, 50] and line.name == t(f"train.ceiling_{kind}", "zh", p="50")
    assert not fig.layout.annotations and not fig.layout.shapes


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_curves_draw_the_runs_losses_and_accuracies(run, lang):
    fig = figs.curves(run, 20, lang)
    assert [tr.name for tr in fig.data] == [t(f"train.curve_{c}", lang) for c in ("loss", "train", "test", "ambiguous")]
    np.testing.assert_allclose(fig.data[0].y, run.losses, rtol=1e-6)
    np.testing.assert_allclose(fig.data[3].y, 100 * run.ambiguous_accuracy_curve, rtol=1e-6)
    train, test = fig.data[1], fig.data[2]  # the training words' curve under the test words' and wider, so it shows
    assert train.line.width > test.line.width and train.marker.size > test.marker.size
    table = figs.curves_table(run, lang)
    assert table.index.name == t("train.step", lang) and len(table) == len(run.eval_steps)


@pytest.mark.parametrize("big", [False, True])
def test_frames_are_played_in_the_browser(run, big):
    fig = figs.frames(run, 1, "en", big)
    assert len(fig.frames) == len(run.frame_steps)
    np.testing.assert_allclose(fig.frames[0].data[0].z, run.attention_frames[0, 0, 1], atol=1e-3)
    np.testing.assert_allclose(fig.data[0].z, run.attention_frames[-1, 0, 1], atol=1e-3)  # opens on the last step
    assert [b.method for b in fig.layout.updatemenus[0].buttons] == ["animate", "animate"]
    assert len(fig.layout.sliders[0].steps) == len(run.frame_steps)
    assert fig.layout.height == (figs.FRAMES_LECTURE_PX if big else figs.HEIGHT + 80)
    table = figs.frames_table(run, 1, "en")
    assert len(table) == len(run.frame_steps) * 5 and table.index.name == t("train.step", "en")


def test_unknown_words_are_marked_and_escaped(run):
    pred = predict(run.params, run.config, saw_task(), ["I", "<b>x</b>", "saw"])
    fig = figs.tags(pred, "en")
    assert fig.data[0].text[1] == t("train.unknown_tag", "en") and fig.data[0].y[1] == 0
    assert "&lt;b&gt;" in fig.layout.xaxis.ticktext[1]
    assert list(figs.tags_table(pred, "en")[t("train.word", "en")]) == ["I", "<b>x</b>", "saw"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_legend_names_every_tag_of_the_task_with_example_words_of_the_corpus(lang):
    task = saw_task()
    legend = figs.tag_legend(task, lang)
    for tag, words in zip(task.tags, tag_examples(task), strict=True):
        named = t("train.tag_item", lang, tag=tag, name=t(f"train.tag_{tag}", lang), examples="")
        assert named.split("(")[0].split("（")[0] in legend, tag  # "**PRON** pronoun", before its examples
        assert all(t("train.tag_example", lang, word=w) in legend for w in words), tag


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tags_hover_and_table_name_each_tag_in_words(run, lang):
    pred = predict(run.params, run.config, saw_task(), ["I", "saw", "a", "xyz", "."])
    fig = figs.tags(pred, lang)
    for hover, tag in zip(fig.data[0].hovertext, pred.tags, strict=True):
        assert (t(f"train.tag_{tag}", lang) if tag else t("train.unknown_tag", lang)) in hover
    table = figs.tags_table(pred, lang)
    names = table[t("train.tag_meaning", lang)]
    assert list(names.fillna("")) == [t(f"train.tag_{tag}", lang) if tag else "" for tag in pred.tags]


def test_the_scaling_table_names_its_rows_and_leaves_never_empty():
    comp = compare_scaling(saw_task(), 30, 0.001, 0, 8)
    table = figs.scaling_table(comp, "en")
    # measures down the side, the scalings across: it fits a phone's width (issue 26 #7)
    assert list(table.columns) == [t(f"train.scale_{s}", "en") for s in ("sqrt", "d", "none")]
    assert table.index.name == t("train.measure", "en")
    assert table.loc[t("train.col_first_90", "en")].isna().all()  # 30 steps: nobody reaches 90%
    assert len(figs.scaling(comp, "en").data) == 6


def test_titles_sit_below_the_strip_where_the_toolbar_appears(run):
    """On a phone a title runs the figure's width, into the corner where Plotly's toolbar appears
    on a tap; titles start below that strip."""
    task = saw_task()
    for fig in (
        figs.curves(run, 20, "zh"),
        figs.tags(predict(run.params, run.config, task, ["I", "saw"]), "zh"),
        figs.comparison(compare_models(task, 5, 0.01, 0, Config()), "models", 0.5, "zh"),
    ):
        assert fig.layout.title.yref == "container" and fig.layout.title.pad.t >= TOOLBAR_PX


def test_a_single_snapshot_has_no_play_buttons():
    """A run that diverges at once keeps one snapshot: buttons and a slider would do nothing."""
    diverged = fit(Config(d_model=8), saw_task(), 20, 1000.0, 0)
    assert diverged.diverged and len(diverged.frame_steps) == 1
    fig = figs.frames(diverged, 0, "en")
    assert not fig.frames and not fig.layout.updatemenus and not fig.layout.sliders


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_scale_formula_names_the_three_factors_in_the_language_asked_for(lang):
    formula = figs.scale_formula(lang)
    either = rf"\ \text{{{t('train.or', lang)}}}\ "
    assert formula.endswith(rf"c = 1/\sqrt{{d_k}}{either}1/d_k{either}1")
