"""The page "why divide by √d_k" on a 390 px phone (a visual review found four things wrong there):
the slope panels' tick labels ran onto each other, the bars of weights' value labels shrank to 4 px
and their key numbers ran together, the link to the train page was cut at the screen's edge, and
the code box on article 003's slip hid the very division it is about. The figures cannot know the
screen's width: these tests check the settings that degrade gracefully and the CSS the page sends."""

import itertools
import json
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from attention_core.saturation import D_VALUES, saturation_sweep, score_rows
from lab_ui.figures import scaling as figs
from lab_ui.i18n import t

PHONE_TICK_PX = 12  # the tick labels' size in Streamlit's chart theme


@pytest.fixture(scope="module")
def rows():
    return score_rows(1, n_rows=64)


def sweep(rows, T):
    return saturation_sweep(D_VALUES, rows, T)


def valid(fig: go.Figure) -> dict:
    spec = json.loads(fig.to_json())
    go.Figure(spec)  # raises on a misspelled property or a bad value
    return spec


def style_body(css: str) -> str:
    """The text of a <style> element: st.html's sanitiser drops a whole element whose text holds a "<"."""
    body = re.fullmatch(r"<style>(.*)</style>", css, flags=re.S)
    assert body, css
    assert "<" not in body.group(1)
    return body.group(1)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_slope_panels_share_one_y_axis_and_its_tick_labels(rows, lang):
    """The right panel's own "10⁻¹²" labels sat in the 7% gap between the panels, about 20 px on a
    phone: they were drawn over the left panel's line. The raw slope is c ≤ 1 times softmax's own,
    so one y axis holds both; the right panel draws the grid and no labels."""
    sat = sweep(rows, 8)
    spec = valid(figs.slope_curves(sat, lang))
    left, right = spec["layout"]["yaxis"], spec["layout"]["yaxis2"]
    assert right["matches"] == "y" and right["showticklabels"] is False
    assert left.get("showticklabels", True) and "matches" not in left
    assert left["type"] == right["type"] == "log"
    # one axis is enough: every raw slope is within the decades of softmax's own slopes
    own, raw = np.asarray(sat.slope_scaled), np.asarray(sat.slope_raw)  # [n_s, n_d]
    assert raw.max() <= own.max() and raw[raw > 0].min() >= own[own > 0].min() / 10
    # the largest-weight and entropy panels have different units: each keeps its own axis
    curves = valid(figs.saturation_curves(sat, lang))["layout"]["yaxis2"]
    assert "matches" not in curves and curves.get("showticklabels", True)


@pytest.mark.parametrize("big", [False, True])
def test_bar_value_labels_too_small_to_read_are_hidden(rows, big):
    """On a phone a bar is about 9 px wide and Plotly shrank "0.87" to about 4 px to fit it; below
    BAR_TEXT_MIN_PX a label is now hidden (hover gives the value), while a desktop's or a projector's
    bars (about 25 and 35 px wide) keep theirs."""
    spec = valid(figs.weights_at_d(sweep(rows, 8), 64, "en", big))
    assert spec["data"][0]["texttemplate"] == "%{y:.2f}"
    assert spec["layout"]["uniformtext"] == {"minsize": figs.BAR_TEXT_MIN_PX, "mode": "hide"}
    assert 8 <= figs.BAR_TEXT_MIN_PX <= 10  # readable, and under a desktop's 11-12 px labels
    # and on a phone's screen CSS hides them all (a bar there is about 9 px wide)
    assert f".st-key-{figs.WEIGHTS_KEY} .bartext {{ display: none; }}" in phone_rules(figs.SOFTMAX_CSS)


def phone_rules(css: str) -> str:
    """The part of a style sheet inside its max-width: 640px media query."""
    body = style_body(css)
    start = body.index("@media (max-width: 640px) {")
    return body[start:]


@pytest.mark.parametrize("T", [2, 4, 5, 6, 7, 8, 10, 12, 16, 17, 24, 32, 64])
def test_a_phone_shows_key_numbers_that_stand_apart(rows, T):
    """The 3 x 8 key numbers under the bars, in about 250 px on a phone, ran together
    ("12345678"): the page hands the browser a media query that hides every other one (or more,
    for longer rows), the same keys in each group, the first of each group kept."""
    axis = figs.weights_at_d(sweep(rows, T), 64, "en").layout.xaxis
    ticks = [int(s) for s in axis.ticktext]  # one g.xtick each, in this order
    tickvals = np.asarray(axis.tickvals, dtype=float)  # [n_ticks]
    lo, hi = axis.range
    px_per_unit = figs.PHONE_WEIGHTS_PLOT_PX / (hi - lo)
    css = figs.phone_key_ticks_css(figs.WEIGHTS_KEY, T)
    hidden = set() if css is None else {int(n) for n in re.findall(r"g\.xtick:nth-of-type\((\d+)\) text", css)}
    if css is not None:
        assert phone_rules(css).startswith("@media (max-width: 640px) {")
        assert f".st-key-{figs.WEIGHTS_KEY} g.xaxislayer-above g.xtick:nth-of-type(" in css
    assert hidden <= set(range(1, len(ticks) + 1))
    shown = [i for i in range(len(ticks)) if i + 1 not in hidden]
    per_group = len(ticks) // 3
    for g in range(3):  # each group starts with key 1 and shows the same keys
        assert ticks[g * per_group] == 1 and g * per_group in shown
        assert [ticks[i] for i in shown if i // per_group == g] == [ticks[i] for i in shown if i // per_group == 0]
    widths = {i: figs.DIGIT_PX * len(str(ticks[i])) for i in shown}
    for a, b in itertools.pairwise(shown):  # neighbours shown on the phone stay apart
        room = (tickvals[b] - tickvals[a]) * px_per_unit - (widths[a] + widths[b]) / 2
        assert room >= figs.KEY_LABEL_AIR_PX - 1e-9, (T, ticks[a], ticks[b], room)
    if T == 8:  # the review's case: 1 3 5 7 in each group
        assert [ticks[i] for i in shown if i < per_group] == [1, 3, 5, 7]
    if T <= 5:  # few keys have room for all their numbers
        assert css is None


def test_the_key_numbers_rule_was_measured_for_a_phone():
    """PHONE_WEIGHTS_PLOT_PX is the bars of weights' plot width on a 390 px phone (249 px in Chromium):
    on it, at 8 keys, all 24 numbers are 8.9 px apart, less than a digit and its air."""
    slot = figs.PHONE_WEIGHTS_PLOT_PX / (3 * 8 + 2 * 2)
    assert slot < figs.DIGIT_PX + figs.KEY_LABEL_AIR_PX
    assert 0.5 * PHONE_TICK_PX <= figs.DIGIT_PX <= 0.6 * PHONE_TICK_PX


def test_the_link_to_the_train_page_wraps_instead_of_being_cut():
    """Streamlit draws a page link's label on one line (white-space: nowrap) and cuts it at the
    screen's edge, with no ellipsis: on a phone "See it in training: … 1/√d_k," ended there."""
    body = style_body(figs.SOFTMAX_CSS)
    rule = (
        f".st-key-{figs.TRAIN_LINK_KEY} [data-testid='stPageLink'] span,"
        f" .st-key-{figs.TRAIN_LINK_KEY} [data-testid='stPageLink'] p {{ white-space: normal; }}"
    )
    assert rule in body and rule not in phone_rules(figs.SOFTMAX_CSS)  # at every width: a long label wraps


def width(line: str) -> int:
    """A line's width in monospace characters: a Chinese character takes two."""
    return sum(2 if ord(ch) >= 0x2E80 else 1 for ch in line)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_code_box_shows_article_003s_division_on_a_phone(lang):
    """On a phone the code box showed about 37 characters of the line
    `attn = torch.matmul(q, k.transpose(-2, -1)) / (self.embed_dim // self.num_heads)`: the division
    by d_k, the point of the box, was off the right edge. Now every line fits a phone's box at 12 px
    (the page's media query), the division has a line of its own, and the box wraps a line on a
    narrower screen instead of hiding it."""
    code = t("scaling.mistake_code", lang)
    compile(code, "<mistake_code>", "exec")  # still Python
    lines = code.split("\n")
    assert max(width(line) for line in lines) <= figs.MISTAKE_CODE_CHARS
    assert any(line.startswith(") / (self.embed_dim // self.num_heads)") for line in lines)
    assert any("math.sqrt(d_k)" in line for line in lines)
    phone_text_px = 390 - 2 * 16 - 2 * 16 - 2 * 16  # measured 294 px: the page's, the box's and the code's padding
    assert phone_text_px >= figs.MISTAKE_CODE_CHARS * 0.6 * 12  # Source Code Pro: 0.6 em a character
    assert phone_text_px < figs.MISTAKE_CODE_CHARS * 0.6 * 14  # at Streamlit's 14 px it would not fit
    rule = f".st-key-{figs.MISTAKE_KEY} [data-testid='stCode'] code {{ font-size: 12px; }}"
    assert rule in phone_rules(figs.SOFTMAX_CSS)
