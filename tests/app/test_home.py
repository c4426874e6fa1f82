from app_harness import new_app, open_page

from lab_ui.i18n import t
from lab_ui.registry import PAGES


def test_home_runs_in_english_and_chinese():
    for lang in ("en", "zh"):
        at = open_page(lang=lang)
        assert not at.exception
        assert at.title[0].value == t("home.title", lang=lang)
        assert at.query_params["lang"] == lang


def test_language_follows_the_browser_unless_the_link_says_otherwise():
    at = new_app()
    at.context["locale"] = "zh-TW"
    at.run()
    assert at.title[0].value == t("home.title", lang="zh")
    assert at.query_params["lang"] == "zh"  # the choice rides along in the link

    at = new_app()
    at.context["locale"] = "zh-CN"
    at.query_params["lang"] = "en"
    at.run()
    assert at.title[0].value == t("home.title", lang="en")

    at = new_app()
    at.context["locale"] = "fr-FR"
    at.run()
    assert at.title[0].value == t("home.title", lang="en")


def test_picker_switches_language_and_a_bad_lang_value_falls_back():
    at = open_page(lang="en")
    at.sidebar.radio(key="lang_pick").set_value("zh").run()
    assert at.title[0].value == t("home.title", lang="zh")
    assert at.query_params["lang"] == "zh"

    at = open_page(lang="klingon")
    assert not at.exception
    assert at.title[0].value == t("home.title", lang="en")
    assert at.toast and "klingon" in at.toast[0].value


def test_home_maps_every_page():
    at = open_page()
    links = [link.label for link in at.get("page_link")]
    assert links[0] == t("course.start_here", lang="en")  # a newcomer is told where to begin
    assert links[1:] == [t(f"{p.ns}.nav", lang="en") for p in PAGES]
