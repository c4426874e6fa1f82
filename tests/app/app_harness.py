"""Open the app the way a browser opens a link: at a page, in a language, with query parameters."""

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from lab_ui.registry import HOME

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


def figures(at: AppTest) -> dict[str, dict]:
    """The Plotly figures on the page as the browser receives them, by widget key
    (lab_ui.widgets.show_figure's `key`), e.g. figures(at)["qkv_scores"]["data"][0]["z"]."""
    out = {}
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        out[element.key] = spec
    return out


def figure_alts(at: AppTest) -> list[str]:
    return [element.proto.alt for element in at.get("plotly_chart")]
