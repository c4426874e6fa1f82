"""bench/client_redraw_app.py draws a page's section both ways (server and client mode), with the same
numbers; in client mode its element holds the figures of every value of the slider, each with its
own numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "bench" / "client_redraw_app.py")


def _run(mode: str, lang: str = "en", section: str = "sizes") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(mode=mode, lang=lang, section=section)
    at.run()
    assert not at.exception
    return at


def _element(at: AppTest):
    (section,) = at.main.children.values()
    return next(c for c in section.children.values() if c.type == "bidi_component")


@pytest.mark.parametrize("mode", ["server", "client"])
def test_both_modes_show_the_section_at_its_defaults(mode):
    at = _run(mode)
    assert [m.value for m in at.metric] == ["30,522", "384", "79.5×"]  # V, d and V / d at V = 30,522, d = 384


def test_the_element_holds_one_figure_per_vocabulary_size_with_its_counts():
    data = json.loads(_element(_run("client")).proto.json)
    assert len(data["frames"]) == len(data["options"]) == 10
    assert data["options"][data["index"]] == 30_522
    for V, (figure,) in zip(data["options"], data["frames"], strict=True):
        one_hot = figure["data"][0]  # the one-hot bars: one word is V numbers, a sentence of 6 words 6V
        assert one_hot["text"][:2] == [f"{V:,}", f"{6 * V:,}"]


def test_the_element_speaks_the_pages_language():
    at = _run("client", "zh")
    assert json.loads(_element(at).proto.json)["label"] != json.loads(_element(_run("client")).proto.json)["label"]
    assert at.subheader[0].value == "两种表示各有多大？"


@pytest.mark.parametrize("mode", ["server", "client"])
def test_the_speech_section_writes_the_windows_numbers(mode):
    at = _run(mode, section="speech")
    assert "w = 8" in at.markdown[1].value.replace("*", "")  # the default window, in the text under the figures


def test_the_speech_element_holds_both_figures_for_every_window():
    data = json.loads(_element(_run("client", section="speech")).proto.json)
    assert data["options"] == list(range(1, 51))
    assert all(len(frame) == 2 for frame in data["frames"])  # the cost chart and the window's mask
