"""lab_ui.chart: the element every figure is drawn in. What it sends the browser (the figure's JSON
made once, Plotly's config, the alt text) and the plotly.js it serves; the drawing itself is
tests/e2e's (test_pages, test_sharing, test_accessibility)."""

import json
from pathlib import Path

import plotly
from app_harness import charts, figure_alts, figures, open_page, open_step

from lab_ui import chart


def test_plotly_js_is_the_plotly_package_s_own(tmp_path):
    served = chart.static_plotly_js(tmp_path)
    shipped = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    assert served.read_bytes() == shipped
    served.write_text("// an older copy")
    assert chart.static_plotly_js(tmp_path).read_bytes() == shipped  # replaced
    assert [p.name for p in tmp_path.iterdir()] == ["plotly.min.js"]  # no partial copy left


def test_every_figure_reaches_the_browser_in_a_chart_element_with_its_config():
    at = open_step("pages/scaling.py", "softmax")
    elements = charts(at)
    assert [e.key for e in elements] == list(figures(at)) and len(elements) == 3
    for element in elements:
        config = json.loads(json.loads(element.proto.json)["config"])
        assert config["displaylogo"] is False and config["showSendToCloud"] is False  # no upload button
        assert config["toImageButtonOptions"]["filename"] == element.key
    assert all(alt.strip() for alt in figure_alts(at))


def test_the_element_s_texts_are_in_the_page_s_language():
    at = open_page("pages/one_hot.py", lang="zh")
    data = json.loads(charts(at)[0].proto.json)
    assert (data["fullscreen"], data["fullscreen_exit"]) == ("全屏", "退出全屏")
    assert json.loads(data["config"])["locale"] == "zh"
