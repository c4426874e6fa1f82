"""Bring a student's page back after the worker that served it died.

`make serve` runs several Streamlit workers behind HAProxy. When one dies, its students' browsers
reconnect through HAProxy to another worker, which has never seen them: a new, empty session.
Streamlit 1.67's browser asks for a script run after reconnecting only in a few cases (its last
run was interrupted or was a fragment's, or the page has a fragment that reruns on a timer);
otherwise it keeps showing the old page over an empty session, whose downloads answer 404 and
whose fragments ignore the student's moves until a full rerun. An empty fragment on a daily timer
is one of those cases at no cost: every reconnect then reruns the page from its address, where
every control's value is kept, so the student gets the same view back from the new worker.
"""

from __future__ import annotations

import streamlit as st

# A day: the browser's timer (setInterval, restarted by every full run) never fires in a lecture,
# and it stays far below the 24.8 days at which setInterval overflows and fires at once.
INTERVAL_S = 24 * 3600


@st.fragment(run_every=INTERVAL_S)
def _rerun_on_reconnect() -> None:
    """Draws nothing."""


def rerun_on_reconnect() -> None:
    """Called by app.py on every run."""
    _rerun_on_reconnect()
