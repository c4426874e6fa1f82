"""Make sure app.py (language, sidebar, navigation) ran before a page draws.

Streamlit 1.67 still has its older multipage mode: when a folder named pages/ sits beside the
entry script, the first request a fresh server gets runs in that mode, which executes the
requested page script directly and skips app.py. A student opening an instructor's link
(/qkv?...) on a freshly started server would get the page without its language or sidebar. Every
AppTest run after the first does the same. Once app.py has called st.navigation the server stays
in the current mode, so the guard below switches it and reruns: one extra run, once per process.
That older mode finds a page by its file name, so every page's url_path equals its file's stem
(pages/multi_head.py is /multi_head); otherwise it would show "Page not found" first.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

_MARK = "_app_shell_ran"


def mark_app_shell() -> None:
    """Called by app.py on every run, before the page runs."""
    st.session_state[_MARK] = True


def require_app_shell() -> None:
    """Called at the top of every page: rerun through app.py if it did not run this time."""
    if not st.session_state.pop(_MARK, False):
        PagesManager.uses_pages_directory = False  # what st.navigation itself sets
        st.rerun()
