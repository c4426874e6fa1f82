from urllib.parse import parse_qs, urlsplit

from app_harness import new_app, open_page
from streamlit.testing.v1 import AppTest

from lab_ui import course, progress
from lab_ui.i18n import literal, t
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
    assert links[1:] == [t(p.text["nav"], lang="en") for p in PAGES]


def test_the_final_quiz_is_visited_not_zero_of_zero_right():
    at = open_page("pages/quiz.py", "en")
    at.switch_page("pages/home.py").run()
    captions = [c.value for c in at.caption]
    objective = next(c for c in captions if c.startswith(t("quiz.objective", lang="en")))
    assert objective.endswith(t("course.status_seen", lang="en"))
    assert t("course.status_visited", lang="en", passed=0, total=0) not in "\n".join(captions)


def test_a_bookmarked_home_page_does_not_warn_about_a_lecture_step_it_has_not_got():
    """page.start wrote home_step=0 into the address; a bookmark kept it, and every reload then
    said that 0 does not fit."""
    at = open_page(lang="zh")
    assert "home_step" not in at.query_params
    reloaded = open_page(lang="zh", **{k: v for k, v in at.query_params.items() if k != "lang"})
    assert not reloaded.toast


def test_the_lecture_plan_names_each_page_once_and_links_every_step():
    at = open_page(lang="en")
    plan = at.code[-1].value
    for page in course.concept_pages():
        assert plan.count(t(f"{page.ns}.title", lang="en") + "\n") == 1, page.ns
        for i in range(1, len(page.steps) + 1):
            assert f"/{page.url_path}?lang=en&lecture=1&{page.step_key}={i}\n" in plan + "\n", (page.ns, i)
    assert plan.count("lecture=1") == sum(len(p.steps) for p in course.concept_pages())


def test_the_progress_box_gives_a_link_that_brings_the_progress_back():
    at = open_page("pages/qkv.py", "zh")
    at.switch_page("pages/home.py").run()
    code = at.query_params["progress"]
    link = next(c.value for c in at.code if "progress=" in c.value)
    query = parse_qs(urlsplit(link).query)
    assert query == {"lang": ["zh"], "progress": [code]}
    again = open_page(lang="zh", progress=query["progress"][0])
    assert "page:qkv" in progress.decode(again.query_params["progress"], course.ITEMS)
    assert again.query_params["progress"] == code


def test_a_code_that_cannot_be_read_is_shown_on_the_home_page_and_nothing_else_is_lost():
    at = open_page(lang="en", progress="1aemvyc`**x**", hm_tau="2")
    assert not at.toast  # one notice (issue 26 #6: an alert and a toast in different words read as two problems)
    (warning,) = (w.value for w in at.warning)
    assert literal("1aemvyc`**x**") in warning  # shown as typed: the backtick and the stars are text
    assert at.query_params["hm_tau"] == "2" and "progress" not in at.query_params


def test_forgetting_the_progress_asks_first():
    at = open_page("pages/qkv.py", "en")
    at.switch_page("pages/home.py").run()
    assert "progress" in at.query_params
    assert not [b for b in at.button if b.label == t("course.forget_progress", lang="en")]  # not a one-click button
    confirm = next(b for b in at.button if b.label == t("course.forget_confirm", lang="en"))
    confirm.click().run()
    assert "progress" not in at.query_params
    assert any(c.value == t("course.no_progress_yet", lang="en") for c in at.caption)


def test_a_code_that_cannot_be_read_is_told_once_on_another_page():
    """Opened on a concept page, the unreadable code is one toast; turning to other pages says it no more."""

    def app():
        import streamlit as st

        from lab_ui import course, progress

        progress.restore(course.ITEMS)
        progress.tell_rejected(on_home=False)
        st.button("again")

    at = AppTest.from_function(app)
    at.query_params["progress"] = "1aemvyc`**x**"
    at.run()
    assert [toast.value for toast in at.toast] == [t("course.bad_progress_code", lang="en")]
    at.button[0].click().run()
    assert not at.toast
