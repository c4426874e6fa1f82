"""The "copy link to this view" affordance. Every control keeps its value in the URL, so the
page's address *is* the view; this shows it in full with a copy button, for an instructor to
paste into a slide."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from lab_ui.i18n import t


def current_link() -> str:
    """The address of this page with every control's value, as the browser shows it."""
    base = st.context.url or ""
    query = urlencode([(key, value) for key in st.query_params for value in st.query_params.get_all(key)])
    return f"{base}?{query}" if query else base


def share_link(slot) -> None:
    """Fill `slot` (a container placed above the page) after the page has run, so the link
    includes what the page wrote into the URL during this run."""
    with slot, st.popover(t("common.copy_link"), icon=":material/link:"):
        st.caption(t("common.copy_link_help"))
        st.code(current_link(), language=None, wrap_lines=True)
