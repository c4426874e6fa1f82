"""Attention Lab entry point: page registry, language, shared sidebar. No mathematics here."""

import streamlit as st

from lab_ui import course, progress
from lab_ui.i18n import reload_if_changed, t
from lab_ui.language import choose_language, language_picker
from lab_ui.lecture import high_contrast_toggle, lecture_requested, lecture_toggle, whole_page_toggle
from lab_ui.reconnect import rerun_on_reconnect
from lab_ui.registry import HOME, PAGES
from lab_ui.share import share_link
from lab_ui.shell import mark_app_shell
from lab_ui.style import apply_style
from lab_ui.widgets import image_format_picker

# In lecture mode the sidebar starts folded away: on a 1280-pixel projector its 300 pixels belong
# to the figure (the switch to leave lecture mode is one click on the ">>" away).
st.set_page_config(
    page_title="Attention Lab · 注意力实验室",
    page_icon="assets/icon.png",
    layout="wide",
    initial_sidebar_state="collapsed" if lecture_requested() else "auto",
)

mark_app_shell()
reload_if_changed()
lang = choose_language()
progress.restore(course.ITEMS)  # the student's progress code from the link, kept in it on every page


def _page(info):
    return st.Page(
        info.path, title=t(info.text["nav"]), icon=info.icon, url_path=info.url_path or None, default=info is HOME
    )


sections: dict[str, list] = {"": [_page(HOME)]}
for info in PAGES:
    sections.setdefault(t(info.section), []).append(_page(info))
page = st.navigation(sections, expanded=True)  # every page listed, not "View 3 more"
progress.tell_rejected(on_home=page.url_path == HOME.url_path)  # one notice, on whichever page the link opened

with st.sidebar:
    language_picker(lang)
    lecture = lecture_toggle()
    high_contrast = high_contrast_toggle()
    whole_page_toggle()
    image_format_picker()
    rerun_on_reconnect()  # draws nothing; in the sidebar so that not even an empty block joins the page
apply_style(lecture, high_contrast)

# The copy-link button above the page, filled after it; in lecture mode in the sidebar, so the
# first screen of a projector shows the page, not the button.
link_slot = st.sidebar.container() if lecture else st.container(horizontal=True, horizontal_alignment="right")
page.run()
share_link(link_slot)
