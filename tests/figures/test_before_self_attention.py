"""The figures and tables of "from attention to self-attention": the arrays they are given are the
arrays they draw, unknown words are grey, labels are escaped, and both languages have their words."""

import numpy as np
import pytest

from attention_core.bottleneck import bottleneck_curves
from attention_core.encoder_decoder import encoder_decoder_view, sentence_pair, trained_model
from lab_ui.figures import before_self_attention as figs
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_FIGURE_MAX_PX


@pytest.fixture(scope="module")
def view():
    return encoder_decoder_view(sentence_pair("thank you very much", "非常 感谢 😀"))


@pytest.fixture(scope="module")
def curves():
    return bottleneck_curves(T_max=8, d=4, d_token=2, n_fit=60, n_test=60)


def test_cross_map_draws_the_weights_with_the_alignment_outlined(view):
    fig = figs.cross_map(view, "en")
    (heat,) = fig.data
    np.testing.assert_allclose(np.array(heat.z, dtype=float), view.cross.weights, atol=1e-6)
    assert np.array(heat.z).shape == (3, 4)  # target rows, source columns
    frames = sorted((round((s.y0 + s.y1) / 2), round((s.x0 + s.x1) / 2)) for s in fig.layout.shapes)
    assert frames == [(0, 2), (0, 3), (1, 0)]  # 非常 ← very, much; 感谢 ← thank
    # inside its cell, so the number written in it stays readable
    assert all(s.x1 - s.x0 < 1 and s.y1 - s.y0 < 1 and s.fillcolor == "rgba(0,0,0,0)" for s in fig.layout.shapes)
    assert fig.layout.title.text == t("before_self_attention.cross_title", "en")


def test_unknown_words_are_grey_and_html_is_escaped(view):
    fig = figs.cross_map(view, "en")
    x, y = fig.layout.xaxis.ticktext, fig.layout.yaxis.ticktext
    assert x == ("thank", "you", "very", "much")
    assert y[:2] == ("非常", "感谢") and figs.UNKNOWN_COLOUR in y[2] and "😀?" in y[2]
    grey = figs._ticks(["<b>x</b>", "fun"], np.array([False, True]))
    assert "&lt;b&gt;x&lt;/b&gt;?" in grey[0] and figs.UNKNOWN_COLOUR in grey[0] and grey[1] == "fun"


def test_self_map_is_square_and_has_no_rings(view):
    fig = figs.self_map(view, "zh")
    assert len(fig.data) == 1
    np.testing.assert_allclose(np.array(fig.data[0].z, dtype=float), view.self_source.weights, atol=1e-6)
    assert fig.layout.title.text == t("before_self_attention.self_title", "zh")


def test_cross_table_has_a_named_index_and_the_read_out(view):
    table = figs.cross_table(view, "zh")
    assert table.index.name == t("before_self_attention.target_axis", "zh")
    assert list(table.index) == ["1 · 非常", "2 · 感谢", "3 · 😀"]
    np.testing.assert_allclose(table.iloc[:, :4].to_numpy(dtype=float), view.cross.weights)
    assert list(table[t("before_self_attention.col_read_out", "zh")]) == list(view.predicted)


def test_bottleneck_figure_draws_the_three_curves_and_marks_the_sentence(curves):
    fig = figs.bottleneck_figure(curves, 3, "en")
    per_step, fixed, ceiling = fig.data
    np.testing.assert_allclose(np.array(per_step.y, dtype=float), curves.per_step, atol=1e-6)
    np.testing.assert_allclose(np.array(fixed.y, dtype=float), curves.fixed, atol=1e-6)
    np.testing.assert_allclose(np.array(ceiling.y, dtype=float), curves.ceiling, atol=1e-6)
    assert fig.layout.shapes[0].x0 == 3
    assert not figs.bottleneck_figure(curves, 20, "en").layout.shapes  # longer than the chart: no mark
    assert fig.layout.height <= LECTURE_FIGURE_MAX_PX


def test_by_position_and_table(curves):
    fig = figs.by_position_figure(curves, "en")
    np.testing.assert_allclose(np.array(fig.data[1].y, dtype=float), curves.fixed_by_position, atol=1e-6)
    table = figs.bottleneck_table(curves, "zh")
    assert table.index.name == t("before_self_attention.bn_x", "zh") and list(table.index) == list(range(1, 9))


@pytest.mark.parametrize("same", [False, True])
def test_shapes_are_spelled_out_from_the_arrays(view, same):
    rows = {name: (r, c) for name, r, c, _ in figs.shapes(view, same)}
    t_rows = 4 if same else 3
    assert rows["Q"] == (t_rows, 8) and rows["K"] == (4, 8) and rows["V"] == (4, 16)
    assert rows["A'"] == (t_rows, 4) and rows["C"] == (t_rows, 16)
    table = figs.shapes_table(view, same, "en")
    assert table.loc["A'", t("before_self_attention.col_numbers", "en")] == f"[{t_rows}, 4]"
    assert table.loc["A'", t("before_self_attention.col_shape", "en")] == (
        "[T_source, T_source]" if same else "[T_target, T_source]"
    )
    fig = figs.shapes_figure(view, same, "en")
    sizes = [tr for tr in fig.data if tr.mode == "text"][1].text
    assert sizes == (f"{t_rows} × 8", "8 × 4", f"{t_rows} × 4", "4 × 16", f"{t_rows} × 16")


def test_training_curve_is_the_models_losses():
    model = trained_model(0)
    fig = figs.training_curve(model, "zh")
    np.testing.assert_allclose(np.array(fig.data[0].y, dtype=float), model.losses, rtol=1e-6)
    assert fig.layout.yaxis.type == "log"


def test_every_figure_has_its_numbers(view, curves):
    """CSV behind every figure: the self-attention map, the words read back by position, the loss."""
    self_weights = figs.self_table(view, "en")
    assert self_weights.index.name == t("before_self_attention.source_query_axis", "en")
    np.testing.assert_allclose(self_weights.to_numpy(), view.self_source.weights)
    by_position = figs.by_position_table(curves, "zh")
    assert by_position.index.name == t("before_self_attention.pos_x", "zh") and len(by_position) == 8
    np.testing.assert_allclose(by_position[t("before_self_attention.bn_fixed", "zh")], curves.fixed_by_position)
    losses = figs.loss_table(trained_model(0), "en")
    assert list(losses.index[:2]) == [1, 2] and len(losses) == 200


# A 390 px phone keeps Plotly's toolbar (zoom, reset, download) and Streamlit's full-screen button
# at the top right of every figure, over the title's line. Measured in Chromium at 15 px bold: a
# title reaches them past about 31 Latin characters (a Chinese character is as wide as two).
PHONE_TITLE_UNITS = 31


def _visible(text: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", text)


def _units(text: str) -> int:
    return sum(2 if ord(ch) >= 0x2E80 else 1 for ch in _visible(text))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_title_fits_beside_the_toolbar_on_a_phone(view, lang):
    long = bottleneck_curves(T_max=64, d=16, d_token=8, n_fit=60, n_test=60)  # two-digit numbers in the titles
    built = [
        figs.cross_map(view, lang),
        figs.self_map(view, lang),
        figs.training_curve(trained_model(0), lang),
        figs.bottleneck_figure(long, 4, lang),
        figs.by_position_figure(long, lang),
        figs.shapes_figure(view, False, lang),
        figs.shapes_figure(view, True, lang),
    ]
    for fig in built:
        assert _units(fig.layout.title.text) <= PHONE_TITLE_UNITS, fig.layout.title.text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_in_lecture_mode_the_y_title_is_no_longer_than_the_plot_is_tall(curves, lang):
    """Lecture mode draws these figures LECTURE_PX tall with 20 px text: a longer y-axis title ran
    over the figure's title (about 0.55 em a Latin character, 1 em a Chinese one)."""
    for fig in (figs.bottleneck_figure(curves, 4, lang), figs.by_position_figure(curves, lang)):
        plot = figs.LECTURE_PX - fig.layout.margin.t - fig.layout.margin.b
        title = _visible(fig.layout.yaxis.title.text)
        width = sum(20 if ord(ch) >= 0x2E80 else 11 for ch in title)
        assert width <= plot, title


def test_a_shortened_map_keeps_only_the_row_labels_that_fit():
    """Lecture mode draws the maps LECTURE_PX tall with 20 px labels: 9 target words (HTML typed as a
    sentence) piled their labels on top of each other. The shorter copy labels every other row."""
    many = encoder_decoder_view(sentence_pair("😀 <script>alert(1)</script> fun", "<b>x</b> 有趣"))
    for fig in (figs.cross_map(many, "zh"), figs.self_map(many, "zh")):
        short = figs.shorter(fig, figs.LECTURE_PX)
        ticks = short.layout.yaxis.tickvals
        room = short.layout.height - figs.LABELS_MARGIN
        assert 1 < len(ticks) < len(fig.layout.yaxis.tickvals) and len(ticks) * figs.LECTURE_LABEL_PX <= room
        assert list(short.layout.yaxis.ticktext) == [
            fig.layout.yaxis.ticktext[list(fig.layout.yaxis.tickvals).index(v)] for v in ticks
        ]
        assert len(short.data[0].y) == len(fig.data[0].y)  # every row still drawn
    few = figs.cross_map(encoder_decoder_view(sentence_pair("machine learning is fun", "机器 学习 很 有趣")), "en")
    assert figs.shorter(few, figs.LECTURE_PX).layout.yaxis.tickvals == few.layout.yaxis.tickvals  # 4 rows: all


def test_a_shortened_map_of_six_words_labels_rows_apart_under_a_two_line_row_title():
    """Lecture mode, "thank you very much machine learning": six slanted key labels under the map left
    17 px rows for 20 px labels, and the one-line row title ran into the figure's title."""
    six = encoder_decoder_view(sentence_pair("thank you very much machine learning", "机器 学习 很 有趣"))
    for lang in ("en", "zh"):
        short = figs.shorter(figs.self_map(six, lang), figs.LECTURE_PX)
        assert len(short.layout.yaxis.tickvals) < 6  # every other row labelled
        assert short.layout.yaxis.title.text.count("<br>") == 1  # "query:" / "English word"


def test_beside_the_cross_map_the_self_map_has_no_colour_bar_and_slants_its_labels_left(view):
    """Lecture mode: the colour bar's room goes to the columns; with no bar on the right, labels
    that Plotly slants must lean left, or the last one runs past the figure's edge and is dropped."""
    alone, beside = figs.self_map(view, "en"), figs.self_map(view, "en", beside_cross=True)
    assert alone.data[0].showscale is not False and beside.data[0].showscale is False
    assert all(angle <= 0 for angle in beside.layout.xaxis.autotickangles)


def test_a_projectors_maps_with_numbers_in_their_cells_have_no_colour_bar():
    """On a projector the cross map's colour bar took the width its English key labels needed: they
    slanted and left the map a 70 px strip. Its cells hold their numbers, so the bar goes."""
    view = encoder_decoder_view(sentence_pair("machine learning is fun", "机器 学习 很 有趣"))
    fig = figs.cross_map(view, "zh")
    assert fig.data[0].showscale is not False and fig.data[0].texttemplate
    assert figs.shorter(fig, figs.LECTURE_PX).data[0].showscale is False
