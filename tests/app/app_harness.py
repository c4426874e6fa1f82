"""Open the app the way a browser opens a link: at a page, in a language, with query parameters."""

import base64
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from lab_ui import chart
from lab_ui.registry import HOME, PAGES

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def new_app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=30)


def open_page(path: str = HOME.path, lang: str = "en", **params) -> AppTest:
    at = new_app()
    at.query_params["lang"] = lang
    for key, value in params.items():
        at.query_params[key] = value
    at.run()  # AppTest learns the page registry (st.navigation's url paths) from a first run
    if path != HOME.path:
        at.switch_page(path).run()
    return at


def open_step(path: str, step: str, lang: str = "en", **params) -> AppTest:
    """A page opened at one of its steps, named as its manifest names it (lab_ui/registry.py)."""
    info = next(p for p in PAGES if p.path == path)
    return open_page(path, lang, **{info.step_key: str(info.step_names.index(step) + 1)}, **params)


def link_of(table):
    """link(name=value, ...): a page's link parameters for its controls named as its table names them
    (lab_ui.state.Table), e.g. link(source="random", query=8) -> {"hm_src": "random", "hm_q": "8"}."""

    def link(**values) -> dict[str, str | list[str]]:
        out = {}
        for name, value in values.items():
            key = getattr(table, name).key
            out[key] = [str(v) for v in value] if isinstance(value, list) else str(value)
        return out

    return link


CHART = "bidi_component"  # the element type of lab_ui.chart's element in AppTest's tree


def charts(at: AppTest) -> list:
    """The chart elements on the page (lab_ui.chart), in page order."""
    return [e for e in at.get(CHART) if e.proto.component_name == chart.NAME]


def figures(at: AppTest) -> dict[str, dict]:
    """The Plotly figures on the page as the browser receives them, by widget key
    (lab_ui.widgets.show_figure's `key`), e.g. figures(at)["qkv_scores"]["data"][0]["z"]."""
    return {e.key: chart.sent(e.proto)["spec"] for e in charts(at)}


def figure_alts(at: AppTest) -> list[str]:
    return [chart.sent(e.proto)["alt"] for e in charts(at)]


def plotly_array(value) -> np.ndarray:
    """A number array from a figure spec, as the browser gets it: Plotly sends numpy arrays as
    base64 typed arrays (with a shape when they have more than one axis) and lists as lists, where
    null (a masked cell) becomes NaN."""
    if isinstance(value, dict) and "bdata" in value:
        a = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])).astype(float)
        return a.reshape([int(s) for s in str(value["shape"]).split(",")]) if "shape" in value else a
    return np.array(value, dtype=float)
