"""The attention-heatmaps page's figures: the views they are given are the numbers they draw, labelled
in the language asked for, random weights named as such."""

import itertools
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_core import causal_mask
from attention_core.heatmap_views import causal_check, query_row, random_view, shipped_view
from attention_core.shipped import load_examples
from attention_core.speech import speech_cost
from lab_ui.figures import heatmap as figs
from lab_ui.i18n import t
from lab_ui.layout import text_px

TOKENS = ("I", "saw", "a", "<b>saw</b>")
EXAMPLES = {e.id: e for e in load_examples()}


def _trace(fig: go.Figure, **selector):
    return next(iter(fig.select_traces(selector=selector)))


def _z(trace) -> np.ndarray:
    return np.array(trace.z, dtype=float)


def test_cells_are_the_weights_and_masked_cells_are_empty_grey_and_crossed():
    view = random_view(TOKENS, 4, 0, mask="causal")
    fig = figs.weights_heatmap(view, "en")
    z = _z(fig.data[0])
    upper = ~causal_mask(4)
    assert np.all(np.isnan(z[upper]))
    np.testing.assert_allclose(z[~upper], view.weights[~upper], atol=1e-6)
    grey = _z(fig.data[1])
    np.testing.assert_array_equal(~np.isnan(grey), upper)
    crosses = _trace(fig, mode="markers")
    labels = list(fig.data[0].x)
    drawn = {(labels.index(y), labels.index(x)) for x, y in zip(crosses.x, crosses.y, strict=True)}
    assert drawn == {(int(r), int(c)) for r, c in zip(*np.nonzero(upper), strict=True)}
    assert fig.data[0].hoverongaps is False  # a masked cell has no weight to hover


def test_row_sums_are_printed_beside_each_row():
    fig = figs.weights_heatmap(random_view(TOKENS, 4, 0, normalisation="relu"), "en")
    sums = _trace(fig, mode="text")
    view = random_view(TOKENS, 4, 0, normalisation="relu")
    assert list(sums.text) == [f"{s:.2f}" for s in view.row_sums]
    assert fig.layout.xaxis.ticktext[-1] == "Σ" and set(sums.x) == {"Σ"}
    assert fig.data[0].zmax is None  # with ReLU the colour scale follows the data: rows are not shares


def test_labels_are_escaped_unique_and_count_from_one():
    fig = figs.weights_heatmap(random_view(TOKENS, 4, 0), "en")
    assert list(fig.data[0].x) == ["1 · I", "2 · saw", "3 · a", "4 · &lt;b&gt;saw&lt;/b&gt;"]  # two "saw"s apart
    assert list(fig.layout.xaxis.ticktext) == ["I", "saw", "a", "&lt;b&gt;saw&lt;/b&gt;", "Σ"]
    assert list(fig.layout.yaxis.ticktext) == ["I", "saw", "a", "&lt;b&gt;saw&lt;/b&gt;"]
    assert "%{y}" in fig.data[0].hovertemplate and "%{x}" in fig.data[0].hovertemplate
    assert fig.data[0].customdata is None  # no per-cell hover strings


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_random_weights_say_so_in_every_title(lang):
    view = random_view(TOKENS, 4, 7)
    row = query_row(view, 1)
    heat = figs.weights_heatmap(view, lang)
    assert heat.layout.title.text == t("heatmap.fig_random", lang, d=4, seed=7)
    short = t("heatmap.fig_random_short", lang)
    assert figs.row_bars(view, row, lang).layout.title.subtitle.text == short
    assert figs.weighted_sum(view, row, lang).layout.title.subtitle.text == short
    assert figs.weights_heatmap(view, lang, lecture=True).layout.title.text.startswith(
        t("heatmap.fig_random", lang, d=4, seed=7)
    )


def test_a_real_head_names_its_layer_and_head_and_the_settings():
    e = EXAMPLES["cat_mat"]
    view = shipped_view(e.tokens, e.attentions, 3, 5, mask="local", window=1, temperature=0.5)
    fig = figs.weights_heatmap(view, "en")
    assert fig.layout.title.text == "Real model · layer 3, head 5"
    assert "local window, w = 1 · τ = 0.5" in fig.layout.title.subtitle.text
    lecture = figs.weights_heatmap(view, "en", lecture=True)
    assert lecture.layout.title.text == "Real model · layer 3, head 5 · local window, w = 1 · τ = 0.5"
    assert lecture.layout.title.subtitle.text is None and lecture.layout.height <= figs.LECTURE_HEIGHT


def test_the_title_starts_at_the_left_and_the_toolbar_is_short():
    """A phone's toolbar sits at the top right: the title starts at the left, and the toolbar keeps
    three buttons (zoom, reset, download), so the two fit one line."""
    fig = figs.weights_heatmap(random_view(TOKENS, 4, 0), "zh")
    assert (fig.layout.title.x, fig.layout.title.xanchor) == (0, "left")
    assert {"zoomin", "zoomout", "autoscale", "pan"} <= set(fig.layout.modebar.remove)


def test_row_bars_grey_out_masked_keys():
    view = random_view(TOKENS, 4, 0, mask="causal")
    fig = figs.row_bars(view, query_row(view, 1), "en")
    bar, band = _trace(fig, name=t("heatmap.weight", "en")), _trace(fig, name="×")
    np.testing.assert_allclose(np.array(bar.y, dtype=float), view.weights[1], atol=1e-6)
    assert list(band.x) == ["3 · a", "4 · &lt;b&gt;saw&lt;/b&gt;"] and list(band.text) == ["×", "×"]
    assert fig.data[0] is band  # drawn behind the bars
    assert list(fig.layout.xaxis.categoryarray) == list(bar.x)  # the band does not reorder the keys


def test_crowded_masks_are_grey_without_crosses():
    view = random_view(tuple(f"w{i}" for i in range(40)), 4, 0, mask="causal")
    fig = figs.weights_heatmap(view, "en")
    assert not list(fig.select_traces(selector=dict(mode="markers")))
    np.testing.assert_array_equal(~np.isnan(_z(fig.data[1])), ~causal_mask(40))
    assert list(fig.layout.yaxis.ticktext) == [f"w{i}" for i in range(0, 40, 2)]  # every other label past 32


def plotly_rgb(colour: str) -> tuple[int, ...]:
    return tuple(int(c) for c in colour.removeprefix("rgb(").removesuffix(")").split(","))


def test_weighted_sum_rows_are_the_terms_and_the_last_row_is_their_sum():
    view = random_view(TOKENS, 2, 0, mask="causal")
    row = query_row(view, 2)
    fig = figs.weighted_sum(view, row, "en")
    heat = fig.data[0]
    z = _z(heat)
    np.testing.assert_allclose(z[:3], view.weights[2][:3, None] * view.values[:3], atol=1e-6)
    assert np.all(np.isnan(z[3]))  # key 4 is masked for query 3
    np.testing.assert_array_equal(~np.isnan(_z(fig.data[1])), np.isnan(z))  # and drawn grey, not as a white 0
    np.testing.assert_allclose(z[4], view.weights[2] @ view.values, atol=1e-6)  # b_3
    assert heat.zmid == 0 and heat.zmin == -heat.zmax  # diverging scale centred on 0
    # positive red and negative blue, as every other page draws signed numbers
    (low, high) = (plotly_rgb(heat.colorscale[0][1]), plotly_rgb(heat.colorscale[-1][1]))
    assert high[0] > high[2] and low[2] > low[0]
    assert list(fig.layout.yaxis.ticktext)[-1] == "b3 = Σ"
    stored = EXAMPLES["cat_mat"]
    shipped = shipped_view(stored.tokens, stored.attentions, 1, 1)
    with pytest.raises(ValueError, match="no value vectors"):
        figs.weighted_sum(shipped, query_row(shipped, 0), "en")


def test_cells_carry_numbers_only_while_they_are_wide_enough():
    small = figs.weights_heatmap(random_view(TOKENS, 4, 0), "en").data[0]
    assert small.texttemplate == "%{z:.2f}" and small.textfont.size == 12  # 4 wide cells: the larger size
    assert small.hovertemplate.endswith("%{z:.6f}<extra></extra>")  # hover keeps the exact value
    T = figs.CELL_TEXT_MAX_TOKENS + 1  # past the desktop's limit: no numbers (a phone hides them sooner)
    crowded = figs.weights_heatmap(random_view(tuple(f"w{i}" for i in range(T)), 4, 0), "en")
    assert crowded.data[0].texttemplate is None
    assert crowded.layout.xaxis.automargin and crowded.layout.yaxis.automargin  # slanted labels are not cut


def test_a_projected_map_labels_rows_only_as_densely_as_its_20_px_text_allows():
    """A projector's map grows a 22 px row for each row past 12, so that the default sentence's 16
    tokens are all named at 20 px; past 17 rows it stops growing and names every other row."""
    tokens = tuple(f"w{i}" for i in range(16))
    view = random_view(tokens, 4, 0)
    desk, lecture = figs.weights_heatmap(view, "en"), figs.weights_heatmap(view, "en", lecture=True)
    assert list(desk.layout.yaxis.ticktext) == list(tokens)  # a desktop's rows are tall enough for every label
    assert list(lecture.layout.yaxis.ticktext) == list(tokens)  # and now a projector's too
    assert lecture.layout.height == figs.LECTURE_HEIGHT + 4 * figs.LECTURE_ROW_PX <= figs.LECTURE_MAP_MAX_PX
    assert len(lecture.layout.xaxis.ticktext) == 17  # the columns are wide: every key, and Σ
    sums = _trace(lecture, type="scatter", mode="text")
    assert sums.textfont.size == figs.LECTURE_TEXT_PX  # 20 px sums (shrunk to fit every row, they were 14 px)
    assert list(sums.text) == list(sums.customdata) == [f"{v:.2f}" for v in view.row_sums]
    long = random_view(tuple(f"w{i}" for i in range(24)), 4, 0)
    projected = figs.weights_heatmap(long, "en", lecture=True)
    assert projected.layout.height == figs.LECTURE_MAP_MAX_PX
    assert list(projected.layout.yaxis.ticktext) == [f"w{i}" for i in range(0, 24, 2)]  # every other one
    sums = _trace(projected, type="scatter", mode="text")  # on the labelled rows; hover keeps every row's
    assert list(sums.text) == [f"{v:.2f}" if i % 2 == 0 else "" for i, v in enumerate(long.row_sums)]
    assert "%{customdata}" in sums.hovertemplate
    small = figs.weights_heatmap(random_view(TOKENS, 4, 0), "en", lecture=True)
    assert list(small.layout.yaxis.ticktext) == list(figs.safe_label(s) for s in TOKENS)
    assert small.layout.height <= figs.LECTURE_HEIGHT  # a short map keeps its own height


def test_a_thinned_label_keeps_its_room_from_the_sums_label():
    view = random_view(tuple(f"w{i}" for i in range(40)), 4, 0)
    fig = figs.weighted_sum(view, query_row(view, 2), "en", lecture=True)  # every third key's row is named
    assert list(fig.layout.yaxis.ticktext) == [f"w{i}" for i in range(0, 37, 3)] + ["b3 = Σ"]  # not w39, over b3


def test_a_projected_output_names_every_key_of_the_default_sentence_and_the_sum():
    view = random_view(tuple(f"w{i}" for i in range(16)), 4, 0)
    fig = figs.weighted_sum(view, query_row(view, 0), "en", lecture=True)
    assert list(fig.layout.yaxis.ticktext) == [f"w{i}" for i in range(16)] + ["b1 = Σ"]
    assert fig.layout.height == figs.LECTURE_MAP_MAX_PX  # 17 rows, the most a projector's map names one by one


@pytest.mark.parametrize("T", [4, 10, 16, 24])
def test_a_projected_row_writes_its_bar_numbers_at_20_px_never_touching(T):
    """Lecture mode: Plotly shrank the numbers on the bars to the bars' width ("0.68" at 12 px on 16
    keys). They keep the 20 px font now (constraintext none), and where the bars are narrower than a
    number, the largest weights keep theirs and their neighbours go without."""
    view = random_view(tuple(f"w{i}" for i in range(T)), 4, 1, temperature=0.3)
    row = query_row(view, 0)
    desk, lecture = figs.row_bars(view, row, "en"), figs.row_bars(view, row, "en", lecture=True)
    bars = _trace(lecture, type="bar", name=t("heatmap.weight", "en"))
    assert bars.constraintext == "none" and _trace(desk, type="bar").constraintext is None  # desktop as before
    shown = [j for j, s in enumerate(bars.text) if s]
    slot = figs.LECTURE_BARS_PX / T  # px a bar
    for a, b in itertools.pairwise(shown):  # neighbouring numbers: centres a number's width apart
        assert (b - a) * slot >= text_px("0.00", figs.LECTURE_TEXT_PX)
    best = int(np.argmax(row.weights))
    assert bars.text[best] == f"{row.weights[best]:.2f}"  # the largest weight always keeps its number
    if T <= 10:  # wide bars: every number, as on a desktop
        assert list(bars.text) == list(_trace(desk, type="bar").text)


def test_a_phone_shows_every_other_key_label_of_a_long_sentence():
    """On a phone the map's columns are ~12 px past 16 keys, and labels slanted at -60 degrees touched
    ("[CLS]the"); the figure cannot know the width, so the page hands the browser a media query."""
    assert figs.phone_ticks_css("k", 8) is None  # level labels, as many as a phone fits
    css = figs.phone_ticks_css("heatmap_weights", 16)
    assert "@media (max-width: 640px)" in css and ".st-key-heatmap_weights g.xaxislayer-above" in css
    assert "g.xtick:not(:nth-of-type(2n+1)):not(:last-of-type) text { display: none; }" in css  # Σ stays
    assert ":nth-of-type(3n+1)" in figs.phone_ticks_css("k", 24)  # narrower columns: every third
    for T in (16, 24, 40, 64):  # what stays apart on the phone's map
        every = int(re.search(r"nth-of-type\((\d+)n", figs.phone_ticks_css("k", T)).group(1))
        step = int(np.ceil(T / figs.LABEL_EVERY_MAX))
        assert every * step * figs.PHONE_MAP_PX / (T + 2) >= figs.SLANTED_LABEL_GAP_PX


def test_weighted_sum_numbers_have_a_fixed_size_and_stop_when_crowded_or_projected():
    narrow = random_view(TOKENS, 4, 0)
    heat = figs.weighted_sum(narrow, query_row(narrow, 0), "en").data[0]
    assert heat.texttemplate == "%{z:.2f}" and heat.textfont.size == 12  # fixed: Plotly would shrink it to 4 px
    wide = random_view(TOKENS, 8, 0)
    assert figs.weighted_sum(wide, query_row(wide, 0), "en").data[0].texttemplate is None  # 8 components
    assert figs.weighted_sum(narrow, query_row(narrow, 0), "en", lecture=True).data[0].texttemplate is None
    d32 = random_view(TOKENS, 32, 0)  # 32 components: 16 numbers on a desktop, 8 at a projector's 20 px
    assert len(figs.weighted_sum(d32, query_row(d32, 0), "en").layout.xaxis.tickvals) == 16
    assert len(figs.weighted_sum(d32, query_row(d32, 0), "en", lecture=True).layout.xaxis.tickvals) == 8


def test_speech_cost_curves_and_the_students_point():
    cost = speech_cost(10, 8)
    fig = figs.speech_cost(cost, "zh")
    full, window, point = fig.data
    np.testing.assert_array_equal(full.y, cost.curve_full)
    np.testing.assert_array_equal(window.y, cost.curve_window)
    assert list(point.x) == [10, 10] and list(point.y) == [cost.full_entries, cost.window_entries]
    assert full.name == t("heatmap.speech_full", "zh") and window.name == t("heatmap.speech_windowed", "zh", w=8)


def test_speech_mask_is_the_band_of_the_window():
    cost = speech_cost(10, 3)
    fig = figs.speech_mask(cost, "en")
    np.testing.assert_array_equal(_z(fig.data[0]) == 1, cost.mask)
    assert list(fig.data[0].x[:3]) == ["0 ms", "10 ms", "20 ms"]
    assert fig.layout.title.text == t("heatmap.speech_mask_title", "en", n=40, w=3) == "Window w = 3, first 40 frames"


def test_words_under_the_figures():
    # decimal units, as the one-hot page writes them: 3,984,016 bytes are 4.0 MB, not 3.8 "MB"
    assert figs.bytes_text(4 * 998**2) == "4.0 MB" and figs.bytes_text(3 * 10**9) == "3.0 GB"
    assert figs.bytes_text(512) == "512 B"
    e = EXAMPLES["cat_river_zh"]
    notes = figs.notes(shipped_view(e.tokens, e.attentions, 1, 1, mask="causal"), "zh")
    n_unknown = e.tokens.count("[UNK]")
    assert n_unknown > 0 and t("heatmap.masked_note", "zh") in notes
    assert t("heatmap.model_unk", "zh", n=n_unknown, T=len(e.tokens)) in notes  # how many, beside the map
    assert any(f"{len(e.tokens)} 个词元中有 {n_unknown} 个是 [UNK]" in note for note in notes)
    assert t("heatmap.model_english", "zh") in notes
    assert t("common.tokens_cut", "en", total=100, shown=64) in figs.notes(
        random_view(("w",) * 100, 2, 0, max_tokens=64), "en"
    )
    assert figs.row_sums_text(random_view(TOKENS, 4, 0), "en") == t("heatmap.sums_softmax_equal", "en", total="1.0000")


def test_the_causal_checks_keys_are_named_by_their_tokens_or_by_number_for_a_longer_sentence():
    assert figs.seen_keys(causal_check(4, 3), TOKENS) == "1 · I, 2 · saw, 3 · a"
    assert figs.seen_keys(causal_check(2, 3), TOKENS[:2]) == "1, 2, 3"  # about a sentence of five


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_speech_mask_title_fits_beside_a_phones_toolbar(lang):
    """On a 390 px phone the toolbar starts about 31 Latin characters (15 Chinese) into the title's
    line (measured in Chromium); "The window over the first 40 frames, w = 8" ran under it."""
    fig = figs.speech_mask(speech_cost(120, 50), lang)
    assert sum(2 if ord(ch) >= 0x2E80 else 1 for ch in fig.layout.title.text) <= 31, fig.layout.title.text


def test_a_wide_window_is_drawn_as_a_band_without_cell_gaps():
    fig = figs.speech_mask(speech_cost(120, 50), "en")
    z = np.array(fig.data[0].z)
    assert z.shape[0] >= 201 and not z.all()  # the band's edge is in the picture
    assert not fig.data[0].xgap and not fig.data[0].ygap  # 2 px cells: a 1 px gap would stripe them


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_weights_titles_fit_beside_a_phones_toolbar(lang):
    # "Random weights (untrained) · d = 8, seed 0" ran under the toolbar on a 390 px phone.
    e = load_examples()[0]
    for view in (random_view(TOKENS, 8, 0), shipped_view(e.tokens, e.attentions, 4, 12)):
        title = figs.weights_heatmap(view, lang).layout.title.text
        assert sum(2 if ord(ch) >= 0x2E80 else 1 for ch in title) <= 31, title
