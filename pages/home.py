"""Home: what self-attention is, in a few sentences, and a map of the pages."""

import streamlit as st

from lab_ui.i18n import t
from lab_ui.registry import PAGES
from lab_ui.widgets import page_header

page_header("home")

st.subheader(t("home.map"))
section = None
for info in PAGES:
    if info.section != section:
        section = info.section
        st.markdown(f"#### {t(section)}")
    st.page_link(info.path, label=t(f"{info.ns}.nav"), icon=info.icon)
    st.caption(t(f"{info.ns}.summary"))

st.subheader(t("home.how"))
st.markdown(t("home.how_body"))

st.subheader(t("home.sources"))
st.markdown(t("home.sources_body"))
