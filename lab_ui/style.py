"""Page-wide CSS: a little less empty space above the title for a 720-pixel projector, and
lecture mode's larger text and optional high contrast. Figures get their own lecture styling in
lab_ui.widgets.show_figure."""

from __future__ import annotations

import streamlit as st

# No "<" inside the CSS, comments included: st.html's sanitiser drops a whole <style> element
# whose text holds something that looks like a tag (tests/app/test_style.py).
_BASE = """
<style>
/* Streamlit leaves ~6rem above the first element; on a 1280x720 projector that is a tenth of the screen. */
[data-testid="stMainBlockContainer"] { padding-top: 2.5rem; }
/* Text contrast of at least 4.5:1 in both themes (WCAG AA), checked by tests/e2e/test_accessibility.py.
   Captions are drawn at 60% opacity, about 3.9:1; 80% gives about 8:1. */
[data-testid="stCaptionContainer"] { opacity: 0.8; }
/* A phone shows Streamlit's header as an opaque bar 60 px high: start the page below it, or it
   hides the top half of the copy-link button. */
@media (max-width: 640px) { [data-testid="stMainBlockContainer"] { padding-top: 4.25rem; } }
/* A formula wider than the screen (a phone, or lecture mode's large type) scrolls sideways on its
   own instead of being cut off at the right edge, with a visible bar to say there is more. */
.katex-display { overflow-x: auto; overflow-y: hidden; padding: 0.2rem 0;
                 scrollbar-width: thin; scrollbar-color: rgba(128, 128, 128, 0.7) transparent; }
/* Code: Streamlit's syntax colours fall to 2.2:1 (green on grey); GitHub's accessible palettes
   instead. The app's theme follows the system's, so the media query picks the matching one. */
/* A row of option buttons (segmented control) wraps to a second line in a narrow column (the page's
   settings beside its steps, a phone) instead of hiding its last options behind a scroll. */
[data-testid="stButtonGroup"] [role="radiogroup"] { flex-wrap: wrap; row-gap: 0.25rem; }
/* The copy-link box (lab_ui.share): the address wraps anywhere, the button sits under it. */
.lab-link-box code { display: block; white-space: pre-wrap; word-break: break-all; font-size: 0.85rem;
                     padding: 0.5rem; border-radius: 0.5rem; background: rgba(128, 128, 128, 0.12); }
.lab-link-box button { margin-top: 0.5rem; padding: 0.25rem 0.9rem; border-radius: 0.5rem; cursor: pointer;
                       border: 1px solid rgba(128, 128, 128, 0.5); background: transparent; color: inherit;
                       font: inherit; }
@media (prefers-color-scheme: light) {
  [data-testid="stCode"] .token.keyword, [data-testid="stCode"] .token.operator { color: #CF222E; }
  [data-testid="stCode"] .token.function, [data-testid="stCode"] .token.class-name { color: #8250DF; }
  [data-testid="stCode"] .token.builtin { color: #953800; }
  [data-testid="stCode"] .token.punctuation { color: #424A53; }
  [data-testid="stCode"] .token.boolean, [data-testid="stCode"] .token.number { color: #0550AE; }
  [data-testid="stCode"] .token.string, [data-testid="stCode"] .token.triple-quoted-string { color: #0A3069; }
  [data-testid="stCode"] .token.comment { color: #57606A; }
}
@media (prefers-color-scheme: dark) {
  /* The chosen option of a segmented control, and the open tab, are written in the accent red:
     3.6:1 on the dark theme. A lighter red for those labels only (white on red stays as it is). */
  button[data-variant="segmented_control"][aria-checked="true"] *,
  [role="tab"][aria-selected="true"] * { color: #FF8A96; }
  /* The Q, K, V page marks the followed query in its formulas with lab_ui.figures.qkv.HIGHLIGHT,
     a dark orange (5.2:1 on white, 3.5:1 on the dark background): lighter here. */
  .katex [style*="color: rgb(179, 78, 0)"] { color: #FFA05A !important; }
  [data-testid="stCode"] .token.keyword, [data-testid="stCode"] .token.operator { color: #FF7B72; }
  [data-testid="stCode"] .token.function, [data-testid="stCode"] .token.class-name { color: #D2A8FF; }
  [data-testid="stCode"] .token.builtin { color: #FFA657; }
  [data-testid="stCode"] .token.punctuation { color: #C9D1D9; }
  [data-testid="stCode"] .token.boolean, [data-testid="stCode"] .token.number { color: #79C0FF; }
  [data-testid="stCode"] .token.string, [data-testid="stCode"] .token.triple-quoted-string { color: #A5D6FF; }
  [data-testid="stCode"] .token.comment { color: #9DA7B3; }
}
</style>
"""

# Text 1.4x larger: Streamlit sizes text in rem, so scaling the root font scales the page.
_LECTURE = """
<style>
html { font-size: 22.4px; }
/* Streamlit's header grows with the root font (3.75rem, 84 px here) though it holds only the
   sidebar's >> button: a lower bar, and the page just below it. */
[data-testid="stHeader"] { height: 2.5rem; min-height: 2.5rem; }
[data-testid="stMainBlockContainer"] { padding: 2.7rem 2rem 2rem 2rem; max-width: 100%; }
/* The title need not be 1.4x of an already large heading; the figure needs the first screen. */
h1 { font-size: 1.55rem !important; padding: 0 !important; }
/* The popovers and step buttons under the title (lab_ui.page): one compact row. */
[data-testid="stMainBlockContainer"] [data-testid="stPopoverButton"],
[data-testid="stMainBlockContainer"] [data-testid="stBaseButton-secondary"] {
  min-height: 2.1rem; padding: 0.1rem 0.6rem; }
[data-testid="stMainBlockContainer"] [data-testid="stPopoverButton"] *,
[data-testid="stMainBlockContainer"] [data-testid="stBaseButton-secondary"] * { font-size: 0.8rem; }
/* "Step 4 of 6 · (the section's title)" wraps in its narrow column: lines of even length, not a lone
   last character ("每层的计算量与表" / "1") or word on a line of its own, and Chinese broken at its
   spaces and punctuation ("第 4 步，共 6 步 ·" / "每层的计算量与表 1"), not inside a word. */
.st-key-lecture_step_label p { text-wrap: balance; word-break: keep-all; }
.st-key-lecture_step_label .whole { display: inline-block; }
h2 { font-size: 1.6rem !important; }
h3 { font-size: 1.3rem !important; }
/* The hall reads the page, not the page list: the sidebar's navigation keeps its normal size, so
   the long page names are not cut short with an ellipsis. */
[data-testid="stSidebarNav"] span { font-size: 0.72rem; }
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
