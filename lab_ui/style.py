"""Page-wide CSS: a little less empty space above the title for a 720-pixel projector, and
lecture mode's larger text and optional high contrast. Figures get their own lecture styling in
lab_ui.widgets.show_figure."""

from __future__ import annotations

import streamlit as st

_BASE = """
<style>
/* Streamlit leaves ~6rem above the first element; on a 1280x720 projector that is a tenth of the screen. */
[data-testid="stMainBlockContainer"] { padding-top: 2.5rem; }
</style>
"""

# Text 1.4x larger: Streamlit sizes text in rem, so scaling the root font scales the page.
_LECTURE = """
<style>
html { font-size: 22.4px; }
[data-testid="stMainBlockContainer"] { padding-left: 2rem; padding-right: 2rem; max-width: 100%; }
</style>
"""

_HIGH_CONTRAST = """
<style>
[data-testid="stApp"], [data-testid="stSidebar"] { background: #ffffff; color: #000000; }
[data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"], label { color: #000000 !important; }
[data-testid="stMarkdownContainer"] p, li { font-weight: 500; }
</style>
"""


def apply_style(lecture: bool, high_contrast: bool) -> None:
    css = _BASE + (_LECTURE if lecture else "") + (_HIGH_CONTRAST if lecture and high_contrast else "")
    st.html(css)
