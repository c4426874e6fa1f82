"""Pieces every concept page shares, built once here: the header, a figure with its export
buttons, a table with its CSV download, the formula beside the code that computes it, and the
check-yourself slot. A page reads:
text -> controls -> core call -> figures -> numbers -> check yourself."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from functools import cache

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from attention_core import split_tokens
from lab_ui import chart, controls, course, layout
from lab_ui.cache import cached, is_cached_result
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture
from lab_ui.quiz import shown
from lab_ui.state import labels

IMAGE_FORMATS = ("png", "svg")
IMAGE_FORMAT_KEY = "img"


# Plotly's buttons left out of every figure's modebar: drag zooms and a double click resets, so
# these only crowd it; zoom, reset and download stay.
MODEBAR_REMOVED = ["lasso2d", "select2d", "pan2d", "zoomIn2d", "zoomOut2d", "autoScale2d"]


# Plotly's own texts that a student can meet (the kept buttons' tooltips, the messages of a zoom
# or a download), by their catalog keys; the catalog's English is Plotly's wording.
PLOTLY_TEXTS = labels(
    "common.",
    "plotly_download_png",
    "plotly_download",
    "plotly_zoom",
    "plotly_reset_axes",
    "plotly_autoscale",
    "plotly_zoom_back",
    "plotly_legend_isolate",
    "plotly_preparing_image",
    "plotly_image_done",
    "plotly_image_failed",
)


@cache
def plotly_locale(lang: str) -> dict:
    """Plotly's texts in `lang`, as the `locale` and `locales` of its config (plotly.js looks each
    English text up in the locale's dictionary). English is Plotly's own, so nothing."""
    if lang == "en":
        return {}
    dictionary = {t(key, lang="en"): t(key, lang=lang) for key in PLOTLY_TEXTS.values()}
    return {"locale": lang, "locales": {lang: {"dictionary": dictionary}}}


def plotly_config(filename: str) -> dict:
    """Plotly's modebar: its camera button downloads the figure as PNG or SVG (the format chosen
    in the sidebar, image_format_picker), named after the figure; no Plotly logo. Three buttons
    stay (download, zoom, reset): the whole default row covered the start of a long title on a
    phone's 350 px figure (the multi-head page's "all-MiniLM-L6-v2 layer 1: trained heads").
    Their tooltips are in the page's language."""
    image_format = st.session_state.get(IMAGE_FORMAT_KEY, "png")
    return {
        "displaylogo": False,
        # plotly.js 3 adds a "Share chart..." button that uploads the figure to Plotly's cloud: nothing
        # in a classroom tool sends anything anywhere
        "showSendToCloud": False,
        "toImageButtonOptions": {"format": image_format, "filename": filename, "scale": 2},
        "modeBarButtonsToRemove": MODEBAR_REMOVED,
        **plotly_locale(current_lang()),
    }


def image_format_picker() -> None:
    """Sidebar choice of the format the figures' download button saves: PNG or SVG. Plotly's
    modebar holds one download button, and its configuration is plain data (no custom button
    code can be passed through Streamlit), so the format is chosen here, once for all figures."""
    controls.radio(
        t("common.image_format"),
        IMAGE_FORMATS,
        key=IMAGE_FORMAT_KEY,
        format_func=str.upper,
        help=t("common.image_format_help"),
    )


def show_figure(
    fig: go.Figure,
    *,
    key: str,
    alt: str,
    numbers_on_phones: bool = True,
    lecture_px: int = layout.LECTURE_FIGURE_MAX_PX,
) -> None:
    """Draw a Plotly figure in the chart element (lab_ui.chart: a step redraws it in place) with the
    shared export config, placed by lab_ui.layout (margins, and in lecture mode a projector's type
    sizes and height). `alt` describes the figure in words for a
    screen reader and for anyone who cannot see the colours. numbers_on_phones=False: the numbers
    written in the figure's heatmap cells are hidden on a phone (layout.numbers_hidden_on_phones).
    lecture_px: the most a figure may be tall in lecture mode."""
    lecture = is_lecture()
    # placed and serialised once per figure, not on every rerun (layout.Serialised says why); a
    # figure made in this run is placed in this run
    if is_cached_result(fig):
        placed = cached(layout.place, fig, lecture=lecture, lecture_px=lecture_px)
    else:
        placed = layout.place(fig, lecture=lecture, lecture_px=lecture_px)
    chart.chart(placed.json(), key=key, config=plotly_config(key), alt=alt)
    if not numbers_on_phones:
        st.html(layout.numbers_hidden_on_phones(key))


def csv_safe(df: pd.DataFrame) -> pd.DataFrame:
    """Spreadsheets run a cell that begins with = + - @ (or tab / CR) as a formula: a token
    "=HYPERLINK(...)" must arrive as text. Text cells get a leading apostrophe; numbers stay
    numbers, so a negative weight is still -0.25."""

    def cell(v):
        if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
            return "'" + v
        return v

    out = df.copy()
    out.columns = [cell(str(c)) for c in out.columns]
    if pd.api.types.is_string_dtype(out.index) or out.index.dtype == object:  # keep its name: the CSV's first header
        out.index = pd.Index(
            [cell(i) for i in out.index], name=None if out.index.name is None else cell(str(out.index.name))
        )
    for col in out.columns:
        if pd.api.types.is_string_dtype(out[col]) or out[col].dtype == object:
            out[col] = out[col].map(cell)
    return out


def show_table(
    df: pd.DataFrame,
    *,
    key: str,
    filename: str,
    caption: str | None = None,
    decimals: int | None = 4,
    full_precision: bool = False,
    missing: str | None = None,
    number_format: str | None = None,
) -> None:
    """The numbers behind a figure, readable by a screen reader, downloadable as CSV.

    Every number is shown with `decimals` places, so the columns line up, and the CSV holds the
    same rounded numbers (a 0.9999999999999999 is 1.0000 in both); full_precision=True keeps every
    digit in the CSV, and the caption says so. The index is written as a named column: a table
    whose rows mean something must name them (df.index.name), a plain 0, 1, 2 ... index is left
    out. missing: the word an empty (NaN) cell shows, on screen and in the CSV.
    number_format: an explicit printf format for the screen, instead of `decimals`."""
    meaningful_index = not isinstance(df.index, pd.RangeIndex) or df.index.name is not None
    if meaningful_index and df.index.name is None:
        raise ValueError(f"table {key!r}: name its index (df.index.name), the CSV's first column")
    if full_precision:
        caption = f"{caption} {t('common.csv_full_precision')}" if caption else t("common.csv_full_precision")
    if caption:
        st.caption(caption)
    if number_format is None and decimals is not None:
        number_format = f"%.{decimals}f"
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
    config = dict.fromkeys(numeric, st.column_config.NumberColumn(format=number_format)) if number_format else None
    st.dataframe(df, key=f"{key}_df", width="stretch", column_config=config, placeholder=missing)
    out = df if full_precision or decimals is None else df.round(decimals)
    out = out.astype(object).where(out.notna(), missing) if missing is not None else out
    st.download_button(
        t("common.download_csv"),
        # built only on click; BOM: Excel reads Chinese
        lambda: csv_safe(out).to_csv(index=meaningful_index).encode("utf-8-sig"),
        file_name=filename,
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
        icon=":material/download:",
    )


@cache
def _source(func: Callable) -> str:
    return inspect.getsource(func)


def formula_and_code(latex: str, *funcs: Callable) -> None:
    """The formula beside the few lines of core code that compute it, read from the core itself
    so the two can never drift apart. In lecture mode (large text) the code goes below."""
    if is_lecture():
        left = right = st.container()
    else:
        left, right = st.columns([2, 3])
    with left:
        st.latex(latex)
    with right:
        for func in funcs:
            st.code(_source(func), language="python", wrap_lines=True)  # no docstring cut at the right


def friendly_error(error: ValueError, hint_key: str | None = None) -> None:
    """A ValueError from the core, shown in the page's language instead of a traceback."""
    st.warning(t(hint_key) if hint_key else t("common.cannot_compute", reason=str(error)), icon="⚠️")


def _shown(x: float) -> str:
    """A typed number as the page repeats it: four places, or four significant digits when it is
    too large or too small for that (1e308 must not become a 309-digit number)."""
    return f"{x:.4f}" if x == 0 or 1e-3 <= abs(x) < 1e6 else f"{x:.4g}"


def check_number(question: str, answer: float, *, key: str, tolerance: float = 0.01, explanation: str) -> bool:
    """Predict, then check: the student types a number and the page says whether it is right
    (within `tolerance`, relative or absolute, whichever is larger), then explains. Returns
    whether the typed answer is right, for a page that shows more once it is.

    The answer is kept for the session but never in the link: a shared link must not hand the
    next student the answer (or unlock what the answer unlocks)."""
    solved = False
    with st.container(border=True):
        st.markdown(f"**{t('common.check_yourself')}** · {question}")
        typed = st.number_input(
            t("common.your_answer"),
            key=key,
            value=None,
            format="%.4f",
            placeholder=t("common.type_a_number"),
            persist_state="session",
        )
        if typed is not None:
            solved = math.isfinite(typed) and abs(typed - answer) <= max(tolerance, tolerance * abs(answer))
            if solved:
                st.success(t("common.correct", answer=shown(answer)))  # 8, not 8.0000
            else:
                st.error(t("common.not_quite", typed=_shown(typed)))
        if solved or st.toggle(t("common.reveal"), key=f"{key}_show", persist_state="session"):
            st.info(explanation)
    course.record(key, solved)
    return solved


def check_choice(
    question: str, options: list[str], correct: str, *, key: str, format_func: Callable = str, explanation: str
) -> bool:
    """Predict, then reveal: pick an answer; a right one shows why, a wrong one says so and leaves
    the explanation behind "Show the answer", so a second try is still a prediction. Returns
    whether the right answer is picked. Kept for the session, never in the link."""
    with st.container(border=True):
        st.markdown(f"**{t('common.check_yourself')}** · {question}")
        picked = st.radio(
            t("common.your_prediction"),
            ["", *options],
            key=key,
            horizontal=True,
            persist_state="session",
            format_func=lambda o: format_func(o) if o else "—",
        )
        solved = picked == correct
        if solved:
            st.success(t("common.correct", answer=format_func(correct)))
        elif picked:
            st.error(t("common.not_quite_choice", typed=format_func(picked)))
        if solved or st.toggle(t("common.reveal"), key=f"{key}_show", persist_state="session"):
            st.info(explanation)
    course.record(key, solved)
    return solved


def sentence_tokens(label: str, default: str, *, key: str, max_tokens: int = 64, help: str | None = None) -> list[str]:
    """A text box for a sentence, split by attention_core.split_tokens (words for English,
    characters for Chinese). Empty or unreadable text falls back to `default` with a message;
    text longer than `max_tokens` tokens is cut with a visible note. Whatever is typed stays in
    the box and in the link, so nothing the student wrote is lost."""
    text = controls.text_input(label, default, key=key, help=help)
    tokens = split_tokens(text)
    if not text.strip():
        st.info(t("common.empty_text", example=default), icon=":material/info:")
        tokens = split_tokens(default)
    elif not tokens:
        st.info(t("common.no_tokens", example=default), icon=":material/info:")
        tokens = split_tokens(default)
    if len(tokens) > max_tokens:
        st.caption(t("common.tokens_cut", total=len(tokens), shown=max_tokens))
        tokens = tokens[:max_tokens]
    return tokens


def seed_input(*, key: str, value: int = 0) -> int:
    """The seed of a page's random numbers: a link with the same seed draws the same picture."""
    return controls.number_input(
        t("common.seed"), key=key, value=value, min_value=0, max_value=2**31 - 1, step=1, help=t("common.seed_help")
    )


def article_mistake(text: str, code: str | None = None) -> None:
    """A source article's mistake, pointed out in a box of its own beside what the step teaches
    right (text: the catalog's Markdown; code: the article's code, as it printed it)."""
    with st.container(border=True):
        st.markdown(text)
        if code:
            st.code(code, language="python", wrap_lines=True)
