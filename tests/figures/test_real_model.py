"""lab_ui.figures.real_model: the figures hold the arrays of the view they were given, in the right
places, labelled in the language asked for."""

import numpy as np

from attention_core import softmax
from attention_core.attention_views import ModelMaps, build_view, head_numbers
from lab_ui import layout
from lab_ui.figures import real_model as figs
from lab_ui.figures.common import SEQUENTIAL
from lab_ui.i18n import t

TOKENS = ("[CLS]", "a", "<b>", "a", "[SEP]")


def maps(L=2, H=3, T=5, seed=0) -> np.ndarray:
    return softmax(np.random.default_rng(seed).normal(size=(L, H, T, T)) * 2)


def view(m=None, tokens=TOKENS, hide=False):
    m = maps() if m is None else m
    return build_view(ModelMaps(tuple(tokens), m, False), hide)


def test_grid_is_one_trace_holding_every_map_apart():
    m = maps()
    fig = figs.model_grid(view(m), (1, 2), "en")
    assert len(fig.data) == 1
    z = np.asarray(fig.data[0].z, dtype=float)
    g = figs.grid_gap(5)
    assert z.shape == (2 * 5 + g, 3 * 5 + 2 * g)
    for layer in range(2):
        for head in range(3):
            np.testing.assert_allclose(figs.grid_block(z, 5, layer, head), m[layer, head], atol=1e-6)
    assert np.isnan(z[5:6]).all() and np.isnan(z[:, 5:6]).all()  # the gaps are empty, not zero
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0, 1)  # one colour scale for all maps
    assert fig.data[0].hoverongaps is False
    bar = fig.data[0].colorbar  # across the bottom, as wide as the grid, on a phone as on a desktop
    assert (bar.orientation, bar.lenmode, bar.len) == ("h", "fraction", 1)


def test_grid_hover_labels_name_layer_head_query_and_key_in_the_language_asked_for():
    fig = figs.model_grid(view(), (1, 2), "en")
    y, x = list(fig.data[0].y), list(fig.data[0].x)
    assert len(set(y)) == len(y) and len(set(x)) == len(x)  # categories: the two "a"s stay apart
    assert y[1] == "layer 1 · query 2: a" and y[3] == "layer 1 · query 4: a"  # counted from 1: [CLS] is 1
    assert x[2] == "head 1 · key 3: &lt;b&gt;"  # a token's HTML is shown as text
    step = 5 + figs.grid_gap(5)
    assert x[2 * step + 4] == "head 3 · key 5: [SEP]"
    assert "%{y}<br>%{x}" in fig.data[0].hovertemplate
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "3"] and list(fig.layout.yaxis.ticktext) == ["1", "2"]
    zh = figs.model_grid(view(), None, "zh")
    assert list(zh.data[0].y)[1] == f"{t('real_model.layer_n', 'zh', layer=1)} · 查询 2: a"
    assert zh.layout.xaxis.title.text == t("real_model.head_word", "zh")


def test_grid_keeps_positions_of_the_whole_text_when_tokens_are_hidden():
    fig = figs.model_grid(view(hide=True), None, "en")
    assert list(fig.data[0].y)[:3] == ["layer 1 · query 2: a", "layer 1 · query 3: &lt;b&gt;", "layer 1 · query 4: a"]


def test_grid_outlines_the_selected_head():
    fig = figs.model_grid(view(), (1, 2), "en")
    (shape,) = fig.layout.shapes
    step = 5 + figs.grid_gap(5)
    assert shape.x0 < 2 * step - 0.5 and shape.x1 > 2 * step + 4.5  # around head 3's columns
    assert shape.y0 < step - 0.5 and shape.y1 > step + 4.5  # around layer 2's rows
    assert shape.x1 - shape.x0 < step + 1  # and no further than the next map
    assert figs.model_grid(view(), None, "en").layout.shapes == ()


def test_grid_draws_at_most_32_tokens_a_map():
    tokens = ("[CLS]", *(f"w{i}" for i in range(38)), "[SEP]")
    fig = figs.model_grid(view(maps(1, 2, 40), tokens), None, "en")
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (32, 2 * 32 + figs.grid_gap(32))


def test_head_map_rows_and_columns():
    m = maps()
    v = view(m)
    fig = figs.head_map(head_numbers(v, 0, 0), v, "en")
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), m[0, 0], atol=1e-6)
    assert list(fig.data[0].y) == ["1 · [CLS]", "2 · a", "3 · &lt;b&gt;", "4 · a", "5 · [SEP]"]
    assert list(fig.layout.xaxis.ticktext) == list(fig.data[0].y)  # keys indexed like the queries
    assert fig.layout.xaxis.tickangle == -45  # slanted, not stacked upright
    assert fig.layout.yaxis.scaleanchor is None  # the map fills the plot, so it is as tall as its colour bar
    assert fig.data[0].colorscale[0][1] == "#440154" and SEQUENTIAL == "Viridis"
    assert fig.data[0].texttemplate  # 25 cells: the values are printed
    assert "Query: %{y}<br>Key: %{x}" in fig.data[0].hovertemplate
    assert fig.data[0].customdata is None  # no per-cell hover strings
    projected = layout.place(figs.head_map(head_numbers(v, 0, 0), v, "en", lecture=True), lecture=True)
    assert projected.to_dict()["layout"]["height"] <= layout.LECTURE_FIGURE_MAX_PX


def test_a_projected_head_map_thins_its_row_labels_sooner_than_its_columns():
    tokens = ("[CLS]", *(f"w{i}" for i in range(14)), "[SEP]")
    v = view(maps(T=16), tokens)
    fig = figs.head_map(head_numbers(v, 0, 0), v, "en", lecture=True)
    assert len(fig.layout.yaxis.ticktext) == 8  # 16 rows in ~270 px at 20 px: every other one
    assert len(fig.layout.xaxis.ticktext) == 16  # the slanted keys have room for all


def test_head_map_with_a_rest_column():
    tokens = tuple(f"w{i}" for i in range(8))
    v = view(maps(T=8), tokens)
    fig = figs.head_map(head_numbers(v, 0, 0, limit=6), v, "en")
    shown = np.asarray(fig.data[0].z, dtype=float)
    assert shown.shape == (6, 7)
    np.testing.assert_allclose(shown.sum(axis=1), 1.0, atol=1e-5)
    assert list(fig.data[0].x)[-1] == t("real_model.rest_column", "en", n=2)
    eleven = view(maps(T=11), tuple(f"w{i}" for i in range(11)))
    assert figs.head_map(head_numbers(eleven, 0, 0), eleven, "en").data[0].texttemplate is None  # 121 cells
    many = view(maps(1, 1, 73), tuple(f"w{i}" for i in range(73)))
    crowded = figs.head_map(head_numbers(many, 0, 0, limit=64), many, "en")
    assert list(crowded.layout.yaxis.tickvals) == [f"{i + 1} · w{i}" for i in range(0, 64, 2)]  # every 2nd labelled
    assert list(crowded.layout.xaxis.tickvals)[-1] == t("real_model.rest_column", "en", n=9)
    assert len(crowded.data[0].x) == 65
    assert crowded.layout.xaxis.tickangle == -90  # 33 labels: upright, side by side


def test_share_map_prints_every_number():
    v = view(maps(6, 12, 5))
    fig = figs.share_map(v, "en")
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), v.share, atol=1e-6)
    assert fig.data[0].texttemplate == "%{z:.2f}"
    assert list(fig.layout.xaxis.ticktext) == [str(h) for h in range(1, 13)]
    assert list(fig.layout.yaxis.ticktext) == [str(i) for i in range(1, 7)]
    assert list(fig.data[0].x) == list(range(1, 13)) and list(fig.data[0].y) == list(range(1, 7))
    assert "Layer %{y} · Head %{x}" in fig.data[0].hovertemplate  # the axes are the numbers hover names
    assert fig.data[0].colorscale[0][1] == "#00224e"  # Cividis: apart from the attention maps' Viridis


def test_tables_name_their_rows_and_hold_the_drawn_numbers():
    m = maps()
    v = view(m)
    grid = figs.grid_table(v, "en")
    assert list(grid.columns[:3]) == ["Layer", "Head", "Query"] and len(grid) == 2 * 3 * 5
    np.testing.assert_allclose(grid.iloc[:, 3:].to_numpy(float), m.reshape(-1, 5), atol=1e-6)
    head = figs.head_table(head_numbers(v, 1, 2), v, "zh")
    assert head.index.name == t("real_model.query", "zh") and head.columns[0] == t("real_model.row_sum", "zh")
    np.testing.assert_allclose(head.iloc[:, 1:].to_numpy(float), m[1, 2], atol=1e-6)
    share = figs.share_table(v, "en")
    assert share.index.name == "Layer" and list(share.index) == ["layer 1", "layer 2"]


def test_words_under_the_figures():
    v = view()
    notes = figs.grid_notes(v, "en", shipped=True, max_tokens=256, parking=3, map_max=64)
    assert t("real_model.shipped_note", "en") in notes and "3 of 6 heads" in notes
    body, sums, rest = figs.head_words(head_numbers(v, 0, 0), v, 0, 0, "en")
    assert t("real_model.pattern_previous", "en") in body and sums.startswith("Each row is a probability")
    assert rest == ""


def test_on_a_phone_the_close_up_thins_its_key_labels_by_css():
    """The figure does not know the screen: on a phone (about 130 px of map) CSS hides all but every k-th
    key label, always keeping the last (the "rest" column's) and hiding the k - 1 before it."""
    sixteen = view(maps(T=16), ("[CLS]", *(f"w{i}" for i in range(14)), "[SEP]"))
    css = figs.phone_keys_css("rm_head_map", head_numbers(sixteen, 0, 0))
    assert css.startswith("<style>@media (max-width: 640px)")
    assert ".st-key-rm_head_map g.xaxislayer-above g.xtick:not(:nth-of-type(2n+1)):not(:last-of-type) text" in css
    assert "g.xtick:nth-last-of-type(-n+2):not(:last-of-type) text" in css
    assert figs.phone_keys_css("k", head_numbers(view(), 0, 0)) is None  # 5 slanted labels fit
    many = view(maps(1, 1, 73), tuple(f"w{i}" for i in range(73)))
    crowded = figs.phone_keys_css("k", head_numbers(many, 0, 0, limit=64))  # 33 labels, 4 px apart
    assert "nth-of-type(4n+1)" in crowded
    desktop = figs.head_map(head_numbers(sixteen, 0, 0), sixteen, "en")
    assert len(desktop.layout.xaxis.ticktext) == 16  # a desktop's figure keeps every label


def test_figures_say_what_and_the_layout_module_says_where():
    """No margins or lecture type sizes of the builders' own: lab_ui.layout gives the margins, and styles
    every figure for a projector (at least 20 px text, no taller than the first screen)."""
    v = view(maps(6, 12, 5))
    built = {
        "grid": figs.model_grid(v, (0, 0), "en"),
        "head": figs.head_map(head_numbers(v, 0, 0), v, "en", lecture=True),
        "share": figs.share_map(v, "en"),
    }
    for name, fig in built.items():
        assert fig.layout.margin.to_plotly_json() == layout.layout_dict()["margin"], name
        assert fig.layout.font.size is None, name  # the theme's, or lab_ui.layout's on a projector
        projected = layout.place(fig, lecture=True).to_dict()["layout"]
        assert projected["font"]["size"] >= layout.LECTURE_TEXT_PX, name
        assert projected["height"] <= layout.LECTURE_FIGURE_MAX_PX, name


def test_findings_in_words_with_the_keys_of_their_show_buttons():
    v = view()  # "a" stands at 2 and at 4: one word in two contexts
    jobs, weak, apart = figs.job_findings(v, "en", clear=0.0)
    assert [f.key for f in jobs] == [f"rm_go_{j.pattern}" for j in v.jobs] and weak == ""
    assert (apart.key, apart.layer, apart.head) == ("rm_go_apart", v.apart.layer, v.apart.head)
    assert "“a” stands at 2 and at 4" in apart.text
    none_clear, weak, _ = figs.job_findings(v, "zh", clear=1.01)  # no share reaches 1.01: every job weak, no button
    assert none_clear == [] and weak.count(t("real_model.weak_job", "zh", found="", clear="1.01")) == len(v.jobs)
