"""The "copy link to this view" affordance. Every control keeps its value in the URL, so the
page's address *is* the view; this shows it in full with a copy button, for an instructor to
paste into a slide.

A section that reruns alone (st.fragment) changes the address without rerunning app.py, which
draws this box; so the address shown is read in the browser (location.href), kept current while
the page is open. The server's idea of the address at the last full run is the box's first text,
which is also what a test without a browser (AppTest) sees.
"""

from __future__ import annotations

import html
from urllib.parse import urlencode

import streamlit as st

from lab_ui.i18n import t
from lab_ui.progress import PARAM as PROGRESS

# Runs in the page (st.html is not an iframe). One timer for the whole page however often the box
# is redrawn; it refreshes every box's text and stops touching boxes that are gone.
_SCRIPT = """
<script>
(function () {
  // The link shares the view, never the student's own progress code (lab_ui.progress).
  const shared = () => {
    const url = new URL(window.location.href);
    url.searchParams.delete("progress");
    return url.toString();
  };
  const refresh = () => document.querySelectorAll("code.lab-link").forEach((c) => {
    const link = shared();
    if (c.textContent !== link) c.textContent = link;
  });
  refresh();
  if (!window.__labLinkTimer) window.__labLinkTimer = setInterval(refresh, 250);
  document.querySelectorAll("button.lab-link-copy:not([data-ready])").forEach((button) => {
    button.dataset.ready = "1";
    button.addEventListener("click", () => {
      const text = shared();
      const done = () => { button.textContent = button.dataset.copied; };
      // navigator.clipboard exists only on https or localhost; a class server on a LAN address
      // is plain http, where selecting the text and the older copy command still work.
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done);
      } else {
        const code = button.parentElement.querySelector("code.lab-link");
        const range = document.createRange();
        range.selectNodeContents(code);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (document.execCommand("copy")) done();
      }
    });
  });
})();
</script>
"""

_BOX = """
<div class="lab-link-box">
  <code class="lab-link">{link}</code>
  <button type="button" class="lab-link-copy" data-copied="{copied}">{copy}</button>
</div>
"""


def current_link() -> str:
    """The address of this page with every control's value, as the server saw it at this run
    (without the student's progress code: a shared view never shares progress)."""
    base = st.context.url or ""
    query = urlencode(
        [(key, value) for key in st.query_params if key != PROGRESS for value in st.query_params.get_all(key)]
    )
    return f"{base}?{query}" if query else base


def share_link(slot) -> None:
    """Fill `slot` (a container placed above the page) after the page has run, so the first text
    includes what the page wrote into the URL during this run."""
    with slot, st.popover(t("common.copy_link"), icon=":material/link:"):
        st.caption(t("common.copy_link_help"))
        box = _BOX.format(
            link=html.escape(current_link()), copy=html.escape(t("common.copy")), copied=html.escape(t("common.copied"))
        )
        st.html(box + _SCRIPT, unsafe_allow_javascript=True)
