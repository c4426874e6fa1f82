"""Home: what self-attention is, in a few sentences, and the start of the course: the pages in
teaching order with what each leaves a student able to do, how long it takes and how far this
student got; the progress code; the lecture plan for instructors."""

import streamlit as st

from lab_ui import course, page, progress
from lab_ui.i18n import current_lang, t

frame = page.start("home")

st.subheader(t("course.course_title"))
st.markdown(t("course.course_intro"))
pages = course.course_pages()
statuses = {info.ns: course.status(info.ns) for info in pages}
nxt = next((info for info in pages if statuses[info.ns][0] != "done"), None)
if nxt is not None:
    first = statuses[pages[0].ns][0] == "new"
    label = t("course.start_here") if first else t("course.continue_here", page=t(f"{nxt.ns}.nav"))
    st.page_link(nxt.path, label=label, icon=":material/play_arrow:")

section = None
for info in pages:
    if info.section != section:
        section = info.section
        st.markdown(f"#### {t(section)}")
    state, passed, total = statuses[info.ns]
    icon = {"new": ":material/radio_button_unchecked:", "visited": ":material/pending:",
            "done": ":material/check_circle:"}[state]  # fmt: skip
    st.page_link(info.path, label=t(f"{info.ns}.nav"), icon=icon)
    status_text = t(f"course.status_{state}", passed=passed, total=total)
    st.caption(f"{t(f'course.objective_{info.ns}')}  \n{t('course.minutes', n=info.minutes)} · {status_text}")

with st.expander(t("course.progress_code"), icon=":material/bookmark:"):
    code = progress.code(course.ITEMS)
    if code:
        st.code(code, language=None)
        st.caption(t("course.progress_code_help"))
        st.button(t("course.forget_progress"), on_click=progress.forget, args=(course.ITEMS,),
                  icon=":material/delete:")  # fmt: skip
    else:
        st.caption(t("course.no_progress_yet"))

with st.expander(t("course.lecture_plan"), icon=":material/co_present:"):
    st.caption(t("course.lecture_plan_intro"))
    base = (st.context.url or "").split("?", 1)[0].rstrip("/")  # this page is the app's root
    lines = [f"{t('course.lecture_plan_row', page=title, i=i, step=step)}\n{link}"
             for title, i, step, link in course.lecture_links(base, current_lang())]  # fmt: skip
    st.code("\n\n".join(lines) or "-", language=None, wrap_lines=True)

st.subheader(t("home.how"))
st.markdown(t("home.how_body"))

st.subheader(t("home.sources"))
st.markdown(t("home.sources_body"))
