"""Lecture mode (?lecture=1): for a projector at the back of a hall. Figures get larger fonts and
thicker lines (lab_ui.widgets.show_figure), and pages that are a sequence of steps show one step
at a time with next / previous buttons whose step is part of the link."""

from __future__ import annotations

import streamlit as st

from lab_ui import controls
from lab_ui.i18n import t

KEY = "lecture"
WHOLE_KEY = "whole"
CONTRAST_KEY = "contrast"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _parse_flag(raw: list[str]) -> bool:
    if len(raw) == 1 and raw[0].lower() in _TRUE + _FALSE:
        return raw[0].lower() in _TRUE
    raise ValueError(raw)


def lecture_toggle() -> bool:
    """The sidebar switch; kept in the URL as lecture=1 (hand-synced so that "1" works)."""
    controls.restore_from_url(KEY, False, _parse_flag)
    on = st.toggle(t("common.lecture_mode"), key=KEY, help=t("common.lecture_help"), persist_state="session")
    controls.publish_to_url(KEY, on, False, serialize=lambda v: "1")
    return on


def high_contrast_toggle() -> bool:
    """Shown in lecture mode only: black on white, heavier text, for a washed-out projector."""
    controls.restore_from_url(CONTRAST_KEY, False, _parse_flag)
    if not is_lecture():
        return False
    on = st.toggle(t("common.high_contrast"), key=CONTRAST_KEY, persist_state="session")
    controls.publish_to_url(CONTRAST_KEY, on, False, serialize=lambda v: "1")
    return on


def lecture_requested() -> bool:
    """Lecture mode as the link (?lecture=1) or this session has it, before the switch is drawn:
    app.py needs it first, to start with the sidebar folded away on a projector."""
    controls.restore_from_url(KEY, False, _parse_flag)
    return is_lecture()


def is_lecture() -> bool:
    return bool(st.session_state.get(KEY, False))


def whole_page_toggle() -> bool:
    """The sidebar switch that shows every step of a page at once (to read through or print);
    kept in the link as whole=1. Not in lecture mode, which shows one step on a projector."""
    controls.restore_from_url(WHOLE_KEY, False, _parse_flag)
    if is_lecture():
        return False
    on = st.toggle(t("common.whole_page"), key=WHOLE_KEY, help=t("common.whole_page_help"), persist_state="session")
    controls.publish_to_url(WHOLE_KEY, on, False, serialize=lambda v: "1")
    return on


def is_whole_page() -> bool:
    return bool(st.session_state.get(WHOLE_KEY, False))
