"""Shared widgets: CSV that a spreadsheet cannot run, markdown escaping, URL texts, and how a
check-yourself answer is repeated."""

from pathlib import Path

import pandas as pd
import streamlit
from app_harness import open_page

from lab_ui import layout, widgets
from lab_ui.controls import _matches_default, _number_text_ok, _url_text
from lab_ui.i18n import t
from lab_ui.widgets import csv_safe, escape_markdown


def test_csv_cells_that_would_run_as_formulas_become_text():
    df = pd.DataFrame(
        {"token": ["=HYPERLINK(1)", "+1", "-2", "@SUM(A1)", "\tx", "cat", "猫"], "weight": [-0.25, 1, 2, 3, 4, 5, 6]},
        index=["=1", "b", "c", "d", "e", "f", "g"],
    )
    df.columns = ["token", "=weight"]
    out = csv_safe(df)
    assert list(out["token"]) == ["'=HYPERLINK(1)", "'+1", "'-2", "'@SUM(A1)", "'\tx", "cat", "猫"]
    assert list(out.columns) == ["token", "'=weight"]
    assert out.index[0] == "'=1"
    assert out["'=weight"].tolist() == [-0.25, 1, 2, 3, 4, 5, 6]  # numbers stay numbers, negatives too
    assert df["token"].iloc[0] == "=HYPERLINK(1)"  # the original is untouched


def test_a_named_text_index_keeps_its_name_as_the_csvs_first_header():
    """The rows of a weights table are tokens: their column must be named in the CSV too (an
    empty first header cell was the newcomer's item 12)."""
    df = pd.DataFrame({"1 · cat": [0.5, 0.25]}, index=pd.Index(["1 · cat", "=2 · dog"], name="query"))
    lines = csv_safe(df).to_csv().splitlines()
    assert lines[0] == "query,1 · cat"
    assert lines[2].startswith("'=2 · dog,")
    assert csv_safe(df.rename_axis("=q")).to_csv().splitlines()[0].startswith("'=q,")
    assert csv_safe(df.rename_axis(None)).index.name is None


def test_markdown_escaping_keeps_user_text_as_text():
    text = "**bold** [link](javascript:x) $x$ <b>hi</b> # h"
    assert escape_markdown(text) == r"\*\*bold\*\* \[link\]\(javascript:x\) \$x\$ \<b\>hi\</b\> \# h"


def test_url_texts_match_streamlits_binding():
    assert _url_text(True) == "true" and _url_text(False) == "false"
    assert _url_text([1, 2]) == ["1", "2"] and _url_text([]) == [""]
    assert _url_text(0.5) == "0.5"
    assert _matches_default(["8"], 8) and _matches_default(["8.0"], 8) and not _matches_default(["9"], 8)
    assert _matches_default(["True"], True) and not _matches_default(["1"], True)
    assert not _matches_default(["abc"], 8)


def test_a_huge_or_tiny_typed_answer_is_repeated_briefly():
    """A student can type any number as a check-yourself answer (answers are not in the link): the
    page repeats it readably, not as a 309-digit number."""
    at = open_page("pages/scaling.py")
    at.number_input(key="sc_check").set_value(1e308).run()
    (message,) = [e.value for e in at.error]
    assert "1e+308" in message and len(message) < 200
    at.number_input(key="sc_check").set_value(1e-300).run()
    assert "1e-300" in at.error[0].value and len(at.error[0].value) < 200
    at.number_input(key="sc_check").set_value(3.5).run()
    assert "3.5000" in at.error[0].value
    assert "sc_check" not in at.query_params  # the answer stays out of the link


def test_link_numbers_streamlit_could_not_read_are_recognised():
    """Streamlit parses a number box's link value as a float and calls int() on it: "1e309" is
    infinity and would raise before the page runs, so such values are removed first."""
    for text in ["0", "7", "-3", "+12", "2147483647"]:
        assert _number_text_ok(text, integer=True)
    for text in ["1e309", "-1e309", "1e-400", "9e999", "1.5", "NaN", "inf", "abc", "", "1" * 16]:
        assert not _number_text_ok(text, integer=True), text
    for text in ["0.5", "1e-400", "-2", "3e10"]:
        assert _number_text_ok(text, integer=False)
    for text in ["1e309", "-1e309", "9e999", "NaN", "inf", "abc"]:
        assert not _number_text_ok(text, integer=False), text


def test_a_link_writes_a_select_sliders_number_as_a_person_types_it():
    """rc_beta=50 means the option 50.0 (Streamlit matches an option's text exactly, and fell back
    with a notice); a number no option equals still falls back."""
    at = open_page("pages/rnn_cnn.py", rc_beta="50")
    assert at.select_slider(key="rc_beta").value == 50.0 and not at.toast
    assert at.query_params["rc_beta"] in ("50.0", ["50.0"])
    at = open_page("pages/rnn_cnn.py", rc_beta="51")
    assert at.select_slider(key="rc_beta").value == 10.0 and at.toast


def test_plotlys_own_texts_follow_the_page_language():
    """The toolbar's tooltips and Plotly's messages: a locale of the catalog's translations, keyed
    by Plotly's English wording, which must be the wording of the plotly.js Streamlit serves."""
    assert widgets.plotly_locale("en") == {}
    zh = widgets.plotly_locale("zh")
    dictionary = zh["locales"][zh["locale"]]["dictionary"]
    assert dictionary["Zoom"] == t("common.plotly_zoom", lang="zh") and len(dictionary) == len(widgets.PLOTLY_TEXTS)
    (bundle,) = (Path(streamlit.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js")
    plotly_js = bundle.read_text(encoding="utf-8")
    assert [text for text in dictionary if f"`{text}`" not in plotly_js] == []


def test_a_projectors_colour_bars_carry_their_title_on_top():
    """Beside the bar ("right"), Plotly placed the title for the page's smaller tick labels: at
    lecture mode's 20 px it ran over "0.4" and "0.6". On top it cannot; the same for the bars of a
    layout's colour axes (multi_head's maps share one)."""
    import plotly.graph_objects as go

    single = go.Figure(go.Heatmap(z=[[0, 1]], colorbar=dict(title=dict(text="weight", side="right"))))
    shared = go.Figure(
        go.Heatmap(z=[[0, 1]], coloraxis="coloraxis"),
        layout=dict(coloraxis=dict(colorbar=dict(title=dict(text="value", side="right")))),
    )
    assert layout.lecture_styled(single).data[0].colorbar.title.side == "top"
    styled = layout.lecture_styled(shared).layout.coloraxis.colorbar
    assert styled.title.side == "top" and styled.tickfont.size == layout.LECTURE_TEXT_PX
    # a bar across the bottom keeps its title at its end: on top it sat under the plot like an axis title
    across = go.Figure(go.Heatmap(z=[[0, 1]], colorbar=dict(orientation="h", title=dict(text="weight", side="right"))))
    assert layout.lecture_styled(across).data[0].colorbar.title.side == "right"


def test_a_projectors_text_beside_markers_is_at_least_20_px():
    """qkv's sums b_i were written at the 15 px their figure gives them, under a projector's 20."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[0], y=[1], mode="markers+text", text=["-1.37"], textfont=dict(size=15)))
    assert layout.lecture_styled(fig).data[0].textfont.size == layout.LECTURE_TEXT_PX
    bigger = go.Figure(go.Scatter(x=[0], y=[1], mode="text", text=["x"], textfont=dict(size=28)))
    assert layout.lecture_styled(bigger).data[0].textfont.size == 28  # never smaller


def test_a_projectors_legend_is_at_least_20_px():
    """Streamlit's chart theme sizes legends itself: 16.8 px in lecture mode, under a projector's 20."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[0], y=[1], name="full"))
    assert layout.lecture_styled(fig).layout.legend.font.size == layout.LECTURE_TEXT_PX
    bigger = go.Figure(go.Scatter(x=[0], y=[1]), layout=dict(legend=dict(font=dict(size=26))))
    assert layout.lecture_styled(bigger).layout.legend.font.size == 26  # never smaller


def test_a_chosen_options_label_follows_a_language_change():
    """Streamlit's selectbox kept showing the chosen option in the language it was picked in (the
    heatmap's sentence box read "My own text" on the Chinese page); the new label is sent once."""
    at = open_page("pages/heatmap.py", lang="en", hm_src="random", hm_ex="own")
    at.radio(key="lang_pick").set_value("zh").run()
    box = at.selectbox(key="hm_ex").proto
    assert box.set_value and box.raw_value == t("heatmap.ex_own", lang="zh")
    assert at.selectbox(key="hm_ex").value == "own" and not at.exception
