"""Attention Lab entry point: page registry, language, shared sidebar. No mathematics here."""

import streamlit as st

from lab_ui.i18n import reload_if_changed, t
from lab_ui.language import choose_language, language_picker
from lab_ui.lecture import high_contrast_toggle, lecture_toggle
from lab_ui.registry import HOME, PAGES
from lab_ui.share import share_link
from lab_ui.shell import mark_app_shell
from lab_ui.style import apply_style
from lab_ui.widgets import image_format_picker

st.set_page_config(page_title="Attention Lab · 注意力实验室", page_icon="assets/icon.png", layout="wide")

mark_app_shell()
reload_if_changed()
lang = choose_language()


def _page(info):
    return st.Page(info.path, title=t(f"{info.ns}.nav"), icon=info.icon, url_path=info.url_path or None,
                   default=info is HOME)  # fmt: skip


sections: dict[str, list] = {"": [_page(HOME)]}
for info in PAGES:
    sections.setdefault(t(info.section), []).append(_page(info))
page = st.navigation(sections)

with st.sidebar:
    language_picker(lang)
    lecture = lecture_toggle()
    high_contrast = high_contrast_toggle()
    image_format_picker()
apply_style(lecture, high_contrast)

link_slot = st.container(horizontal=True, horizontal_alignment="right")  # above the page, filled after it
page.run()
share_link(link_slot)
