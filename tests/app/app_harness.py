"""Open the app the way a browser opens a link: at a page, in a language, with query parameters."""

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
    if path != HOME.path:
        at.switch_page(path)
    return at.run()
