"""Every page, every control in the link at once, with a number no control can hold: the page
opens with no error box, and each number control falls back to what it shows without the link (a
text box keeps the text as typed). The notice itself is tested page by page."""

import re

import pytest
from app_harness import open_page
from markdown_it import MarkdownIt

from lab_ui.registry import HOME, PAGES

BAD_NUMBERS = ["1e309", "-1e309", "1e-400", "9e999", "NaN", "-inf", "1.5", "99999999999999999999"]


def controls(at) -> dict:
    """Every keyed input on the page (sidebar included) by key, with its value."""
    out = {}
    for kind in (
        "slider",
        "select_slider",
        "number_input",
        "text_input",
        "text_area",
        "selectbox",
        "radio",
        "toggle",
        "checkbox",
        "multiselect",
        "segmented_control",
    ):
        for widget in at.get(kind):
            if widget.key and not widget.key.startswith("$$"):
                out[widget.key] = (kind, widget.value)
    return out


@pytest.mark.parametrize("value", BAD_NUMBERS)
@pytest.mark.parametrize("info", [HOME, *PAGES], ids=[p.ns for p in (HOME, *PAGES)])
def test_a_number_no_control_can_hold_falls_back_everywhere(info, value):
    plain = open_page(info.path, "en", whole="1")  # every step, so every control
    assert not plain.exception
    expected = controls(plain)
    keys = [k for k in expected if not k.startswith("lang") and k != "whole"]
    at = open_page(info.path, "en", whole="1", **dict.fromkeys(keys, value))
    assert not at.exception, [e.value for e in at.exception]
    for key, (kind, shown) in controls(at).items():
        if key not in expected:
            continue  # a control that only appears under another setting
        if kind in ("text_input", "text_area"):
            assert shown in (value, expected[key][1]), key
        elif kind in ("number_input", "slider", "select_slider") and shown != expected[key][1]:
            # a number that fits after all ("1.5" in a float box) is the only other outcome
            assert float(value) == shown, (key, shown)
        # A choice may follow another control (the query picker offers the tokens of the text
        # now in the box, the head count the divisors of d_model): it must still be one of its
        # options, which AppTest checks when it reads the value.


@pytest.mark.parametrize(
    ("path", "key", "default"),
    [("pages/scaling.py", "sc_seed", 0), ("pages/quiz.py", "qz_seed", 1), ("pages/heatmap.py", "hm_sw", 8)],
)
def test_a_number_given_twice_in_the_link_falls_back_with_a_notice(path, key, default):
    """?sc_seed=5&sc_seed=7 showed the default without a word, ?qz_seed=2&qz_seed=3 took 3."""
    at = open_page(path, "en", whole="1", **{key: ["5", "7"]})
    assert not at.exception
    assert next(w for w in at.get("number_input") + at.get("slider") if w.key == key).value == default
    assert any(key in toast.value for toast in at.toast), [toast.value for toast in at.toast]


HOSTILE = (
    "**PWN**[x](http://evil.example/a) ![i](http://evil.example/i.png) $x^2$ <b>b</b> &amp; "
    "www.evil.example me@evil.example"
)
# What GitHub-flavoured Markdown (Streamlit's) links without any syntax: bare addresses, escaped or not.
BARE_ADDRESS = re.compile(r"(?i)\b(?:https?|ftp)://|\bwww\.|[\w.+-]@[a-z0-9-]+\.")


def _formatted(markdown: str) -> list[str]:
    """What a CommonMark renderer would make of a notice besides plain text and paragraphs."""
    rendered = MarkdownIt("commonmark").render(markdown)
    found = re.findall(r"<(a|img|strong|em|code|h\d|ul|ol|blockquote|b)\b", rendered)
    if re.search(r"(?<!\\)\$", markdown):
        found.append("$ (Streamlit typesets $...$ as maths)")
    found += [f"{m} (a bare address Streamlit links)" for m in BARE_ADDRESS.findall(markdown.replace("\\", ""))]
    return found


@pytest.mark.parametrize("info", [HOME, *PAGES], ids=[p.ns for p in (HOME, *PAGES)])
def test_a_hostile_link_value_is_shown_as_literal_text_in_every_notice(info):
    """/heatmap?hm_d=![x](http://evil.example/i.png) made the browser fetch an outside image: every
    control's notice now shows the link's value as typed."""
    plain = open_page(info.path, "en", whole="1")
    keys = [k for k, (kind, _) in controls(plain).items() if kind not in ("text_input", "text_area") and k != "whole"]
    at = open_page(info.path, "en", whole="1", **dict.fromkeys([*keys, "progress"], HOSTILE))
    assert not at.exception, [e.value for e in at.exception]
    notices = [toast.value for toast in at.toast] + [w.value for w in at.warning]
    assert notices, "a hostile link got no notice"
    for notice in notices:
        assert _formatted(notice) == [], notice
