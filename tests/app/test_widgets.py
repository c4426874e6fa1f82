"""Shared widgets: CSV that a spreadsheet cannot run, markdown escaping, URL texts, and how a
check-yourself answer is repeated."""

import html
import re
from pathlib import Path
from urllib.parse import quote, urlencode

import pandas as pd
import pytest
import streamlit
from app_harness import open_page
from markdown_it import MarkdownIt

from lab_ui import layout, widgets
from lab_ui.controls import MAX_LINK_BYTES, TEXT_LINK_BYTES, _matches_default, _number_text_ok, _url_text, link_text
from lab_ui.i18n import WORD_JOINER, literal, t
from lab_ui.registry import info as page_info
from lab_ui.widgets import csv_safe


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


HOSTILE = [
    "**bold** [link](javascript:x) $x$ <b>hi</b> # h",
    "![x](http://evil.example/i.png)",
    "**PWN**[x](http://evil.example/a)",
    "$\\frac{1}{2}$ and $$x^2$$",
    "line one\n\n# heading\n\n> quote\n- item\n1. item\n---",
    "&lt;b&gt; &amp; &#60;i&#62; `code` ~~gone~~ <https://evil.example> https://evil.example",
    "a\\*b\\* \\[c\\](d)",
    "猫 saw 🐱 <img src=x onerror=alert(1)>",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_literal_text_renders_as_the_text_itself_never_as_markdown(text):
    """Rendered by a CommonMark parser, literal(text) is one paragraph of the text as typed (line
    breaks as spaces, bare addresses with an invisible word joiner inside, which GitHub-flavoured
    Markdown then does not link): no link, image, emphasis, heading, code, HTML or entity forms."""
    html_out = MarkdownIt("commonmark", {"linkify": False}).enable("strikethrough").render(literal(text))
    shown = re.sub(r"[\r\n]+", " ", text)
    assert html_out.replace(WORD_JOINER, "") == f"<p>{html.escape(shown, quote=False)}</p>\n".replace("&quot;", '"')
    assert not re.search(r"(?i)\b(?:https?|ftp)://|\bwww\.|\w@\w", html_out), "a bare address GFM would link"
    assert "$" not in literal(text).replace("\\$", "")  # Streamlit typesets an unescaped $...$


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
    at = open_page("pages/scaling.py", sc_step=str(len(page_info("scaling").steps)))  # the check's step
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
    images = {"rc_step": str(page_info("rnn_cnn").step_names.index("images") + 1)}  # the step rc_beta is on
    at = open_page("pages/rnn_cnn.py", rc_beta="50", **images)
    assert at.select_slider(key="rc_beta").value == 50.0 and not at.toast
    assert at.query_params["rc_beta"] in ("50.0", ["50.0"])
    at = open_page("pages/rnn_cnn.py", rc_beta="51", **images)
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


@pytest.mark.parametrize("text", ["1_0", "١٢", "１２", "1 000", "0x10", "nan", "inf", "1e5e5", ""])
def test_a_number_in_a_link_is_read_only_in_the_ascii_digits_the_app_writes(text):
    """float() reads "1_0" as 10 and Arabic-Indic "١٢" as 12: a link the app never writes gets the
    notice, not a silent reading."""
    assert not _number_text_ok(text, integer=False) and not _number_text_ok(text, integer=True)


@pytest.mark.parametrize("text", ["12", "-3", "+4", "0.5", ".5", "5.", "1e-3", "2E+4"])
def test_numbers_the_app_writes_are_read(text):
    assert _number_text_ok(text, integer=False)


def test_a_long_text_is_cut_in_the_link_but_kept_whole_on_the_page():
    """1,700 Chinese characters made a 15 kB link that HAProxy refused after a reload: the link now
    keeps a start of the text that fits TEXT_LINK_BYTES, says so, and the page uses the whole text."""
    text = ("注意力机制让每个词看见句子里的所有词。" * 90)[:1700]
    at = open_page("pages/heatmap.py", "en", hm_src="random", hm_ex="own")
    at.text_input(key="hm_text").input(text).run()
    assert not at.exception
    kept = at.query_params["hm_text"]
    assert text.startswith(kept) and len(kept) < len(text)
    assert len(quote(kept, safe="")) <= TEXT_LINK_BYTES < len(quote(kept + text[len(kept)], safe=""))
    assert at.query_params["hm_text_cut"] == "1700"
    assert at.text_input(key="hm_text").value == text  # the page keeps the whole text
    shown = t("common.text_cut_in_link", lang="en", shown=len(kept), total=len(text))
    assert shown in [c.value for c in at.caption]
    # the cut link, opened afresh: the start of the text, and a word that it was cut
    again = open_page("pages/heatmap.py", "zh", hm_src="random", hm_ex="own", hm_text=kept, hm_text_cut="1700")
    assert again.text_input(key="hm_text").value == kept
    told = t("common.text_cut_link_opened", lang="zh", shown=len(kept), total=1700)
    assert told in [c.value for c in again.caption]
    assert (
        len(urlencode(again.query_params.to_dict() if hasattr(again.query_params, "to_dict") else {})) < MAX_LINK_BYTES
    )


def test_link_text_cuts_at_a_whole_character():
    assert link_text("abc", 3) == "abc" and link_text("abcd", 3) == "abc"
    assert link_text("猫狗", 9) == "猫" and link_text("猫狗", 8) == ""
    assert link_text("a b", 5) == "a b"  # a space is %20
