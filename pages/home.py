"""Home: what self-attention is, in a few sentences, and the start of the course: the pages in
teaching order with what each leaves a student able to do, how long it takes and how far this
student got; the progress code; the lecture plan for instructors."""

from urllib.parse import urlencode

import streamlit as st

from lab_ui import course, page, progress
from lab_ui.i18n import current_lang, literal, t

page.front_page("home")

st.subheader(t("course.course_title"))
st.markdown(t("course.course_intro"))
pages = course.course_pages()
statuses = {info.ns: course.status(info.ns) for info in pages}
nxt = next((info for info in pages if statuses[info.ns][0] != "done"), None)
if nxt is not None:
    first = statuses[pages[0].ns][0] == "new"
    label = t("course.start_here") if first else t("course.continue_here", page=t(nxt.text["nav"]))
    st.page_link(nxt.path, label=label, icon=":material/play_arrow:")

section = None
for info in pages:
    if info.section != section:
        section = info.section
        st.markdown(f"#### {t(section)}")
    icon = {
        "new": ":material/radio_button_unchecked:",
        "visited": ":material/pending:",
        "done": ":material/check_circle:",
    }[statuses[info.ns][0]]
    st.page_link(info.path, label=t(info.text["nav"]), icon=icon)
    st.caption(f"{t(info.text['objective'])}  \n{t('course.minutes', n=info.minutes)} · {course.status_text(info.ns)}")

base = (st.context.url or "").split("?", 1)[0].rstrip("/")  # this page is the app's root
rejected = progress.rejected()
with st.expander(t("course.progress_code"), icon=":material/bookmark:", expanded=rejected is not None):
    if rejected is not None:
        st.warning(t("course.rejected_code", code=literal(rejected)), icon=":material/warning:")
    code = progress.code(course.ITEMS)
    if code:
        st.markdown(t("course.progress_code_is", code=code))
        st.caption(t("course.progress_code_help"))
        st.code(f"{base}/?{urlencode({'lang': current_lang(), progress.PARAM: code})}", language=None, wrap_lines=True)
        with st.popover(t("course.forget_progress"), icon=":material/delete:"):
            st.markdown(t("course.forget_confirm_text"))
            st.button(t("course.forget_confirm"), on_click=progress.forget, args=(course.ITEMS,), type="primary")
    else:
        st.caption(t("course.no_progress_yet"))

with st.expander(t("course.lecture_plan"), icon=":material/co_present:"):
    st.caption(t("course.lecture_plan_intro"))
    st.code(course.lecture_plan(base, current_lang()) or "-", language=None, wrap_lines=True)

st.subheader(t("home.how"))
st.markdown(t("home.how_body"))

st.subheader(t("home.sources"))
st.markdown(t("home.sources_body"))
