"""Where a figure goes and how big its type is: the one module that decides a figure's pixels.

Figure builders (lab_ui/figures) say what is drawn: traces, labels in the page's language, titles.
This module says where and how large, for the three places a figure is seen: a desktop browser, a
390 px phone (rules the browser applies by CSS, since a figure is built without knowing the screen)
and a projector in lecture mode (text of at least 20 px, thicker lines, no taller than the first
screen). It holds the shared layout of every figure (font, template, chart theme, title room), the
margins that replace Plotly's automargin, lecture styling and the phone rules;
lab_ui.widgets.show_figure calls `place` once per figure. No Streamlit calls here: arrays and dicts in, dicts out.
"""

from __future__ import annotations

import base64
import html
import math
import re

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

# Streamlit 1.67 serves its text font as "Source Sans" (Latin only); Noto Sans CJK (Debian:
# fonts-noto-cjk), PingFang and YaHei draw the Chinese on Linux, macOS and Windows.
FONT_FAMILY = (
    '"Source Sans", "Source Sans Pro", "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif'
)
# Streamlit's own Plotly template is the default and rides along in every figure's JSON (about
# half of it), yet the browser re-themes each chart itself: figures here carry an empty one.
NO_TEMPLATE = go.layout.Template()
# A phone: Streamlit's layout turns to one column at 640 px and narrower.
PHONE_MAX_PX = 640

# Lecture mode's type sizes (lecture_styled applies them), here so that a figure that
# must reserve room for its largest text (lab_ui/figures/scaling.py) reads the same numbers.
LECTURE_TEXT_PX = 20
LECTURE_TITLE_PX = 24
# The tallest a figure is drawn in lecture mode: what a 1280x720 projector leaves under the browser
# bar, the title row and the step bar at 1.4x text, so a step's figure is whole on the first screen.
LECTURE_FIGURE_MAX_PX = 430
# The strip at a figure's top where Plotly's toolbar appears on hover (26 px; a tap on a phone shows
# it), and air: a title that runs there is hidden under the toolbar on a phone.
TOOLBAR_PX = 36
# Room above the plot for a title under that strip: one line at lecture mode's title size.
TITLE_ROOM_PX = TOOLBAR_PX + round(1.3 * LECTURE_TITLE_PX) + 8


def key_labels_hidden_on_phones(key: str, *which: str) -> str:
    """CSS that hides, on a phone's screen only (PHONE_MAX_PX or narrower), the x tick labels of the figure
    `key` that `which` selects (":nth-of-type(3)", ":not(:nth-of-type(2n+1))" ...): Plotly draws one
    g.xtick per label, in order. A figure is built without knowing the screen; CSS knows it."""
    ticks = ", ".join(f".st-key-{key} g.xaxislayer-above g.xtick{w} text" for w in which)
    return f"<style>@media (max-width: {PHONE_MAX_PX}px) {{ {ticks} {{ display: none; }} }}</style>"


def numbers_hidden_on_phones(key: str) -> str:
    """CSS that hides, on a phone only, the numbers written in the heatmap cells of the figure `key`:
    they fit a desktop's or a projector's width but not a 390 px phone's (hover and the numbers
    table still give them)."""
    rule = f".st-key-{key} .heatmap-label {{ display: none; }}"
    return f"<style>@media (max-width: {PHONE_MAX_PX}px) {{ {rule} }}</style>"


def layout_dict(*, title: str | None = None, height: int | None = None, **more) -> dict:
    """The layout every figure shares, as a plain dict: building a figure's layout in one go is
    several times faster than a chain of update_layout / update_xaxes calls."""
    return dict(
        title=dict(text=title, x=0, xanchor="left") if title else None,
        font=dict(family=FONT_FAMILY),
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        height=height,
        hoverlabel=dict(font=dict(family=FONT_FAMILY)),
        template=NO_TEMPLATE,
        **more,
    )


def title_below_toolbar(layout: dict) -> None:
    """Put a figure's title under the strip at its top where Plotly's toolbar appears (a title
    that runs the figure's width on a phone went under the toolbar), with TITLE_ROOM_PX above the plot."""
    layout["title"].update(y=1, yref="container", yanchor="top", pad=dict(t=TOOLBAR_PX))
    layout["margin"]["t"] = TITLE_ROOM_PX


# The width a title may run on a 390 px phone before it reaches the corner where the toolbar appears
# (Plotly's buttons and Streamlit's own, about 150 px, in a column of about 350 px).
PHONE_TITLE_FREE_PX = 190
THEME_TITLE_PX = 16  # a figure's title in the chart theme (CHART_THEME below)
TITLE_FONT_PX = 17  # what the phone rule measures a title at: the theme's 16 px, drawn bold, runs wider


def title_clear_of_toolbar(spec: dict) -> dict:
    """A figure's dict whose title, if it would run under the toolbar on a phone, is put below it
    (title_below_toolbar): decided here for every figure, once, from the title's own length."""
    layout = spec.setdefault("layout", {})
    title = layout.get("title") or {}
    text = title.get("text")
    if not text or title.get("yref") == "container":
        return spec
    size = (title.get("font") or {}).get("size") or TITLE_FONT_PX
    if text_px(re.sub(r"<[^>]+>", "", text), size) <= PHONE_TITLE_FREE_PX:
        return spec
    layout["title"] = {**title, "y": 1, "yref": "container", "yanchor": "top", "pad": {"t": TOOLBAR_PX}}
    margin = layout.setdefault("margin", {})
    margin["t"] = max(margin.get("t") or 0, TITLE_ROOM_PX)
    return spec


def base_layout(fig: go.Figure, *, title: str | None = None, height: int | None = None) -> go.Figure:
    """Apply the shared layout to a figure built elsewhere."""
    fig.update_layout(**layout_dict(title=title, height=height))
    return fig


# Fixed margins instead of Plotly's automargin (place applies them, once per figure).
# Automargin measures every tick label in the browser on each draw of a chart, and a changed
# chart is drawn afresh on every slider step: on the synthetic page of bench/chart_cost.py two
# titled charts cost 1.75x the floor's step with it and 1.38x with margins that already fit and
# automargin off. The labels are known here, so the room they need is too. The sizes below are
# those of Streamlit's chart theme, which the browser applies: tick labels 12 px, axis titles 14
# px, the title 32 px from a y axis's labels and 24 px under an x axis's, 8 px between the plot
# and its labels. An axis whose room cannot be told here keeps automargin.
TICK_PX, AXIS_TITLE_PX, Y_TITLE_STANDOFF, X_TITLE_STANDOFF, PLOT_PAD = 12, 14, 32, 24, 8
# More than the estimate, as measured against automargin's own margins in Chromium (bench/margins.py):
# labels sit a little further out than pad + width, and a cut label is worse than air.
_Y_SLACK, _X_SLACK = 1.35, 0.7  # in tick-label font sizes: lecture mode's 20 px labels need more
# A legend in a row along the figure's bottom (yref "container", y 0) sits under the x axis's title,
# so its rows are room the x axis must leave. Plotly wraps the row at the plot's width, which the
# figure does not know: the rows are counted at a phone's (a 390 px screen leaves the plot about
# PHONE_PLOT_PX). A wide screen then shows the rows it does not need as empty room, so a legend that would
# take more than LEGEND_MAX_PX there (two rows of 12 px text, one of lecture mode's 20 px) keeps
# automargin instead. Measured in Chromium at the theme's 12 px: an entry is its symbol (about
# 40 px) and its text, a row 19 px, plus 10 px around the legend.
PHONE_PLOT_PX, LEGEND_SYMBOL_PX, LEGEND_ROW, LEGEND_PAD, LEGEND_MAX_PX = 260, 40, 1.6, 10, 50
LABEL_GAP_PX = 4  # Plotly slants an axis's labels when two neighbours come closer than a few pixels
_CARTESIAN = {"scatter", "bar", "heatmap", "histogram"}


def text_px(text: str, size: float) -> float:
    """How wide a label is drawn, from the font size: Chinese and Japanese a full em, Latin
    letters and digits about half of one (Source Sans; a slight overestimate, as the margin wants)."""
    text = re.sub(r"<[^>]*>", "", html.unescape(str(text)))  # <b>, <sub>, <br>: tags take no room
    width = 0.0
    for ch in text:
        if ord(ch) >= 0x2E80:
            width += 1.0
        elif ch in " .,:;'|!il":
            width += 0.3
        elif ch.isupper() or ch in "mwMW%—":
            width += 0.72
        else:
            width += 0.56
    return width * size


def _values(v) -> np.ndarray | None:
    """A trace's x or y as numbers or strings, however the figure's dict holds it."""
    if v is None:
        return None
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).ravel()  # [n]
    return np.asarray(v, dtype=object).ravel()  # [n]


def _shape(z) -> tuple[int, int]:
    """Rows and columns of a heatmap's z, a list of rows or Plotly's {"bdata", "shape"} dict."""
    if isinstance(z, dict):
        rows, _, cols = str(z.get("shape", "0, 0")).partition(",")
        return int(rows), int(cols or 1)
    z = np.asarray(z, dtype=object)  # [rows, cols]
    return (z.shape[0], z.shape[1]) if z.ndim == 2 else (1, z.shape[0])


def _numeric_labels(lo: float, hi: float, tickformat: str | None) -> list[str] | None:
    """The tick labels Plotly will likely write between lo and hi on a linear axis (about six
    ticks), or None when its format cannot be told here."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    if tickformat not in (None, "", ".0%", ".1%", ".2f", ".3f", ".1f", ".0f", "d", ",d"):
        return None
    lo, hi = min(lo, hi), max(lo, hi)
    span = hi - lo or abs(hi) or 1.0
    raw = span / 5
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if m * step >= raw)
    values = [lo, hi, lo + step, hi - step]
    if tickformat and tickformat.endswith("%"):
        return [f"{100 * v:.{int(tickformat[1])}f}%" for v in values]
    if tickformat and tickformat.endswith("f"):
        return [f"{v:.{int(tickformat[1])}f}" for v in values]
    if tickformat in ("d", ",d"):
        return [f"{v:,.0f}" for v in values]
    if max(abs(lo), abs(hi)) >= 10_000:
        return [f"{v / 1000:.0f}k" if abs(v) < 1e6 else f"{v / 1e6:.1f}M" for v in values]  # Plotly's SI
    quarter = step / 10 ** math.floor(math.log10(step)) == 2.5  # 0.25, 2.5: one digit more
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) + int(quarter)
    return [f"−{abs(v):.{decimals}f}" if v < 0 else f"{v:.{decimals}f}" for v in values]


def _axis_labels(layout: dict, name: str, traces: list[dict]) -> list[str] | None:
    """The tick labels of axis `name` (e.g. "yaxis2"), from its ticktext, its categories or its
    numbers' range; None when they cannot be told here."""
    axis = layout.get(name) or {}
    if axis.get("showticklabels") is False or axis.get("visible") is False:
        return []
    if axis.get("ticktext") is not None:
        return [str(s) for s in axis["ticktext"]]
    if axis.get("type") == "log":
        return None  # powers of ten in a format of Plotly's choosing (1, 10, 100 or 10⁻⁵)
    letter, ref = name[0], name[0] + name[5:]  # "yaxis2" -> "y", "y2"
    mine = [tr for tr in traces if tr.get(f"{letter}axis", letter) == ref]
    if any(tr.get("type", "scatter") not in _CARTESIAN or tr.get("orientation") == "h" for tr in mine):
        return None
    found: list = []
    for tr in mine:
        v = _values(tr.get(letter))
        if v is None and tr.get("type") == "heatmap" and tr.get("z") is not None:
            rows, cols = _shape(tr["z"])
            v = np.arange(rows if letter == "y" else cols)  # [rows] or [cols]: Plotly numbers the cells
        elif v is None and tr.get("type", "scatter") != "histogram":  # a histogram's other axis counts
            along = _values(tr.get("y" if letter == "x" else "x"))
            v = None if along is None else np.arange(len(along))  # [n]: Plotly numbers the points 0, 1, ...
        if v is None:
            return None
        found.extend(v.tolist())
        if tr.get("type") == "bar" and letter == "y":
            found.append(0)
    if not found:
        return None
    if axis.get("type") == "category" or any(isinstance(s, str) for s in found):
        return [str(s) for s in found]
    numbers = [float(s) for s in found if s is not None and math.isfinite(float(s))]
    if axis.get("range"):
        numbers += [float(r) for r in axis["range"] if r is not None]
    if not numbers:
        return []
    return _numeric_labels(min(numbers), max(numbers), axis.get("tickformat"))


def _title_lines(axis: dict) -> int:
    title = axis.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return 0 if not text else str(text).count("<br>") + 1


def _level_on_a_phone(layout: dict, name: str, tick: float) -> bool:
    """Whether an x axis's ticktext stays level even at a phone's width (Plotly slants labels that
    would overlap). Told only for numbered ticks on a range the axis fixes, where the room between
    two neighbours is known: the plot's width share times the gap between their values over the range."""
    axis = layout.get(name) or {}
    values, texts, span = axis.get("tickvals"), axis.get("ticktext"), axis.get("range")
    if not values or not texts or not span or len(values) != len(texts) or axis.get("type") in ("log", "category"):
        return False
    if not all(isinstance(v, int | float) for v in [*values, *span]) or span[0] == span[1]:
        return False
    x0, x1 = axis.get("domain") or [0, 1]
    width = PHONE_PLOT_PX * (x1 - x0)
    rows = layout.get("yaxis" + (axis.get("anchor") or "y")[1:]) or {}
    if rows.get("scaleanchor") == "x" + name[5:]:  # a square plot is no wider than it is tall
        y0, y1 = rows.get("domain") or [0, 1]
        width = min(width, ((layout.get("height") or 0) - ((layout.get("margin") or {}).get("t") or 0)) * (y1 - y0))
    gaps = np.diff(np.sort(np.asarray(values, dtype=float)))  # [n - 1]
    room = width * (gaps.min() if gaps.size else abs(span[1] - span[0])) / abs(span[1] - span[0])
    return max(text_px(s, tick) for s in texts) + LABEL_GAP_PX <= room


def _legend_room(layout: dict, traces: list[dict], font: float | None) -> float | None:
    """The height a legend in a row along the figure's bottom takes, counted at a phone's width;
    None when it cannot be told here (a legend elsewhere, an entry Plotly would name itself) or it
    would take more than LEGEND_MAX_PX there."""
    legend = layout.get("legend") or {}
    if legend.get("yref") != "container" or (legend.get("y") or 0) > 0.05 or legend.get("yanchor") != "bottom":
        return None
    shown = [tr for tr in traces if tr.get("showlegend", tr.get("type", "scatter") != "heatmap") is not False]
    if len(shown) < 2 and layout.get("showlegend") is not True:
        return 0.0  # one trace: Plotly draws no legend
    if any(not tr.get("name") for tr in shown):
        return None  # Plotly writes "trace 3" for it
    size = (legend.get("font") or {}).get("size") or font or TICK_PX
    rows, used = 1, 0.0
    for tr in shown:
        entry = LEGEND_SYMBOL_PX + text_px(tr["name"], size)
        if used and used + entry > PHONE_PLOT_PX:
            rows, used = rows + 1, 0.0
        used += entry
    room = LEGEND_PAD + rows * LEGEND_ROW * size
    return None if room > LEGEND_MAX_PX else room


def fixed_margins(spec: dict) -> dict:
    """The figure's dict with margins that hold its outer axes' labels and titles, and automargin
    off on every axis whose room was reserved (the others keep it)."""
    layout = dict(spec.get("layout") or {})
    traces = spec.get("data") or []
    if not traces or any(tr.get("type", "scatter") not in _CARTESIAN for tr in traces):
        return spec
    font = (layout.get("font") or {}).get("size")
    margin = dict(layout.get("margin") or {})
    names = {n for n in layout if re.fullmatch(r"[xy]axis\d*", n)} | {"xaxis", "yaxis"}
    # A legend under the plot takes room under the x axis's title: reserved when its rows can be
    # counted (_legend_room), automargin otherwise. A square plot (scaleanchor) needs the same room
    # as any other; Streamlit's theme turns automargin on for it, which costs several layout passes
    # (the positional page's rotation circle drew in 170-240 ms with it, about 40 without).
    legend = layout.get("legend") or {}
    legend_below = layout.get("showlegend") is not False and (
        legend.get("orientation") == "h" and (legend.get("y") is None or legend.get("y") < 0.5)
    )
    legend_room = _legend_room(layout, traces, font) if legend_below else 0.0
    # Play buttons and a frame slider are placed in fractions of the plot's width: beside a square
    # plot they were laid out for the narrow margin automargin finds there, and a wider one would move them.
    keep_square = bool(layout.get("sliders") or layout.get("updatemenus"))
    square = {layout[n]["scaleanchor"] for n in names if (layout.get(n) or {}).get("scaleanchor")}
    for name in sorted(names):
        axis = dict(layout.get(name) or {})
        letter, other = name[0], "y" if name[0] == "x" else "x"
        if axis.get("overlaying") or axis.get("anchor") == "free" or axis.get("side") in ("right", "top"):
            continue
        if letter == "x" and legend_room is None:
            continue
        if keep_square and (axis.get("scaleanchor") or letter + name[5:] in square):
            continue
        tick = (axis.get("tickfont") or {}).get("size") or font or TICK_PX
        angle = axis.get("tickangle")
        slanted = letter == "x" and isinstance(angle, int | float) and not isinstance(angle, bool) and angle % 180 != 0
        may_slant = axis.get("ticktext") is not None and angle is None
        if letter == "x" and may_slant and not _level_on_a_phone(layout, name, tick):
            continue  # words Plotly may slant on a narrow screen, at an angle of its own: automargin finds the room
        labels = _axis_labels(layout, name, traces)
        if labels is None:
            continue
        title = ((axis.get("title") or {}).get("font") or {}).get("size") or font or AXIS_TITLE_PX
        anchor = layout.get(other + "axis" + (axis.get("anchor") or other)[1:]) or {}
        on_edge = (anchor.get("domain") or [0, 1])[0] <= 0.02
        if on_edge:
            lines = _title_lines(axis)
            if letter == "y":
                widest = max((text_px(s, tick) for s in labels), default=0)
                need = PLOT_PAD + widest + (Y_TITLE_STANDOFF + 1.4 * title * lines if lines else 0) + _Y_SLACK * tick
                margin["l"] = max(margin.get("l") or 0, math.ceil(need))
            else:  # labels as tall as their lines, or, slanted at a fixed angle, as their slanted width
                lines_of_labels = max((str(s).count("<br>") + 1 for s in labels), default=1)
                tall = 1.45 * tick * lines_of_labels if labels else 0
                if slanted and labels:
                    theta = math.radians(angle)
                    widest = max(text_px(s, tick) for s in labels)
                    tall = widest * abs(math.sin(theta)) + 1.45 * tick * abs(math.cos(theta))
                need = PLOT_PAD + tall + (X_TITLE_STANDOFF + 1.4 * title * lines if lines else 0) + _X_SLACK * tick
                need += legend_room
                margin["b"] = max(margin.get("b") or 0, math.ceil(need))
        axis["automargin"] = False
        layout[name] = axis
    layout["margin"] = margin
    return {**spec, "layout": layout}


# The chart theme lab_ui.chart hands every figure in the browser, light or dark as the app is drawn:
# Streamlit's, as its front end applies it to st.plotly_chart (theme="streamlit") in this app's
# light and dark themes, read from gd.layout.template.layout of a drawn chart in Chromium.
_THEME_SANS = '"Source Sans", sans-serif'


def _chart_theme(text: str, heading: str, legend: str, line: str, bg: str, hover_border: str) -> dict:
    axis_title = {"font": {"color": text, "size": AXIS_TITLE_PX}}
    return {
        "font": {"color": text, "family": _THEME_SANS, "size": TICK_PX, "weight": 400},
        "title": {
            "font": {"family": _THEME_SANS, "size": THEME_TITLE_PX, "color": heading},
            "pad": {"l": 4},
            "xanchor": "left",
            "x": 0,
        },
        "legend": {
            "title": {"font": {"size": TICK_PX, "color": text}, "side": "top"},
            "valign": "top",
            "bordercolor": "transparent",
            "borderwidth": 0,
            "font": {"size": TICK_PX, "color": legend},
        },
        "paper_bgcolor": bg,
        "plot_bgcolor": bg,
        "yaxis": {
            "ticklabelposition": "outside",
            "zerolinecolor": line,
            "title": {**axis_title, "standoff": 24},
            "tickcolor": line,
            "tickfont": {"color": text, "size": TICK_PX},
            "gridcolor": line,
            "minor": {"gridcolor": line},
            "automargin": True,
        },
        "xaxis": {
            "zerolinecolor": line,
            "gridcolor": line,
            "showgrid": False,
            "tickfont": {"color": text, "size": TICK_PX},
            "tickcolor": line,
            "title": {**axis_title, "standoff": 20},
            "minor": {"gridcolor": line},
            "zeroline": False,
            "automargin": True,
        },
        "margin": {"pad": 8, "r": 0, "l": 0},
        "hoverlabel": {
            "bgcolor": bg,
            "bordercolor": hover_border,
            "font": {"color": text, "family": _THEME_SANS, "size": TICK_PX},
        },
        "coloraxis": {
            "colorbar": {
                "thickness": 16,
                "xpad": 24,
                "ticklabelposition": "outside",
                "outlinecolor": "transparent",
                "outlinewidth": 8,
                "len": 0.75,
                "y": 0.5745,
                "title": axis_title,
                "tickfont": {"color": text, "size": TICK_PX},
            }
        },
    }


CHART_THEME = {
    "light": _chart_theme("#808495", "#2F2D2B", "#262730", "#e6eaf1", "#FFFFFF", "rgba(47, 45, 43, 0.2)"),
    "dark": _chart_theme("#e6eaf1", "#EDEBE8", "#fafafa", "#31333F", "#171614", "#4A4742"),
}


class Serialised(go.Figure):
    """A figure that hands out the dict and the JSON Plotly made of it once. The chart element
    (lab_ui.chart) sends the JSON on every run; making it is a deep copy of every array and a
    base64 pass over them, about a third of a multi-head page's rerun for figures that come from
    the cache unchanged. A cached figure never changes (lab_ui.cache), so both are made once, when
    it is placed, and counted in the cache's bytes. The dict has fixed margins for its labels
    (fixed_margins says why)."""

    def __init__(self, fig: go.Figure):
        super().__init__()
        self._spec = fixed_margins(title_clear_of_toolbar(fig.to_dict()))
        self._json = pio.to_json(self, validate=False)

    def to_dict(self) -> dict:
        return self._spec

    def json(self) -> str:
        return self._json


def lecture_styled(fig: go.Figure, max_px: int = LECTURE_FIGURE_MAX_PX) -> go.Figure:
    """A copy of the figure for a projector (the original sits in a cache): text at least 20 px,
    lines and markers about 1.5x thicker, each trace keeping its own proportions, and no taller
    than max_px, what a 1280x720 projector leaves under the title and the step bar."""
    fig = go.Figure(fig)
    text, title = LECTURE_TEXT_PX, LECTURE_TITLE_PX
    height = min(fig.layout.height or max_px, max_px)
    fig.update_layout(font_size=text, hoverlabel_font_size=text, title_font_size=title, height=height)
    # Streamlit's chart theme gives legends a size of their own (16.8 px in lecture mode), not the figure's
    fig.update_layout(legend_font_size=max(text, fig.layout.legend.font.size or 0))
    fig.update_xaxes(tickfont_size=text, title_font_size=text)  # axes inherit 0.8 x the font otherwise
    fig.update_yaxes(tickfont_size=text, title_font_size=text)
    for trace in fig.data:
        if trace.type != "scatter":
            continue
        mode = trace.mode or "lines+markers"
        if "lines" in mode:
            trace.line.width = max(4, 1.5 * (trace.line.width or 2))
        if "markers" in mode and isinstance(trace.marker.size, int | float):
            trace.marker.size = max(10, 1.3 * trace.marker.size)
        if isinstance(trace.textfont.size, int | float):  # a size of its own (qkv's sums: 15 px) would stay small
            trace.textfont.size = max(text, trace.textfont.size)
    # A colour bar's title goes on top: beside the bar ("right"), Plotly placed it for the page's smaller
    # tick labels, and at 20 px it ran over them ("0.4", "0.6").
    # A bar across the bottom (real_model's grid) keeps its title at its right end: on top, it sat
    # under the plot and read as the axis's title.
    fig.update_traces(selector=dict(type="heatmap"), textfont_size=18, colorbar_tickfont_size=text)
    for trace in fig.data:
        if trace.type == "heatmap" and trace.colorbar.orientation != "h":
            trace.colorbar.title.side = "top"
    for name in fig.layout.to_plotly_json():  # coloraxis, coloraxis2 ...: the bars of maps that share a scale
        if name.startswith("coloraxis"):
            fig.layout[name].colorbar.update(title_side="top", tickfont_size=text)
    return fig


def place(fig: go.Figure, *, lecture: bool, lecture_px: int = LECTURE_FIGURE_MAX_PX) -> go.Figure:
    """The figure as the browser gets it: in lecture mode a styled copy (the original sits in a
    cache), then its dict made once with fixed margins (Serialised). lecture_px: the most a figure
    may be tall in lecture mode, where a page's title row and text leave less than the usual room."""
    return Serialised(lecture_styled(fig, lecture_px) if lecture else fig)
