"""TEMPORARY: the page frame of before the steppers, kept while the pages move to
lab_ui.page.Page; deleted when the last one has.

The frame of a concept page: title and introduction, presets, the page-level controls, and the
numbered sections, which are also the lecture's steps.

    frame = page.start("heatmap", presets=PRESETS)  # sections: lab_ui/registry.py
    with frame.controls():
        text = ...                             # page-level controls: every section depends on them
    view = cached(core_function, text, ...)    # one core call
    if frame.shows("map"):
        map_section(frame, view)               # an @st.fragment: its own controls rerun it alone

Normally every section is shown, each under a numbered heading ("2 · One query"). In lecture mode
(?lecture=1) the page shows one section at a time, with previous / next buttons, and the section's
number rides in the link as `<prefix>_step` so a slide can link to it; the row under the title then
holds those buttons and the introduction, the presets and the page-level controls as three small
popovers, so the section's figure has the projector's first screen.

Catalog keys a page with sections has: `<ns>.section_<name>` (the heading, plain words, no maths).
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from lab_ui import controls, course, quiz, registry, widgets
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_TEXT_PX, text_px
from lab_ui.lecture import is_lecture
from lab_ui.shell import require_app_shell

# The widest step title kept whole in lecture mode: the step bar's label column is about 370 px on a
# 1280 px projector; a title wider than this would take a line and more of its own.
STEP_TITLE_WHOLE_PX = 300


@dataclass(frozen=True)
class LegacyFrame:
    ns: str  # the page's catalog namespace, e.g. "heatmap"
    sections: tuple[str, ...]  # section names in page order; section i (1-based) is lecture step i
    step: int  # the lecture step shown (1-based); every section is shown outside lecture mode
    toolbar: object | None  # lecture mode: the title row's container that holds the popovers

    def shows(self, name: str) -> bool:
        """Is this section drawn in this run? Always, except in lecture mode (one at a time)."""
        return not is_lecture() or self.number(name) == self.step

    def number(self, name: str) -> int:
        return self.sections.index(name) + 1

    def heading(self, name: str) -> None:
        """The section's numbered heading. In lecture mode the step bar names the section."""
        if not is_lecture():
            st.subheader(f"{self.number(name)} · {t(registry.info(self.ns).steps[name])}", anchor=f"{self.ns}-{name}")

    def end(self) -> None:
        """The bottom of a concept page: its quiz, then the previous and next page of the course.
        Left out in lecture mode, where the screen belongs to the step's figure."""
        if is_lecture():
            return
        questions = list(registry.info(self.ns).quiz)
        if questions:
            st.fragment(quiz.page_quiz)(self.ns, questions)  # an answer reruns the quiz alone
        course.previous_next(self.ns)

    def controls(self):
        """Where the page-level controls go: in place, or a popover in lecture mode's title row."""
        if self.toolbar is None:
            return st.container()
        return self.toolbar.popover(t("common.controls"), icon=":material/tune:")


def start(ns: str, *, presets: dict[str, dict] | None = None) -> LegacyFrame:
    """Draw the top of the page and return its frame. The sections (lecture steps) and the step's
    link parameter come from the page's entry in lab_ui/registry.py, which the home page's
    lecture plan reads too. presets: {preset id: {control key: value}}, named `<ns>.preset_<id>`."""
    require_app_shell()
    course.visit(ns)
    entry = registry.info(ns)
    sections, step_key = entry.sections, entry.step_key
    if sections:
        step = _restore_step(step_key, len(sections))
    else:  # no lecture steps (home, the final quiz); a bookmark may still carry an old home_step=0
        step = 0
        st.query_params.pop(step_key, None)
    if not is_lecture():
        st.title(t(entry.text["title"]))
        st.markdown(t(entry.text["intro"]))
        if presets:
            _preset_buttons(ns, presets)
        return LegacyFrame(ns, sections, step, None)
    st.title(t(entry.text["title"]))
    prev_col, label_col, next_col, toolbar = st.columns([1.1, 2.6, 1, 3.6], vertical_alignment="center")
    toolbar = toolbar.container(horizontal=True, horizontal_alignment="right", gap="small")
    with toolbar.popover(t("common.introduction"), icon=":material/subject:"):
        st.markdown(t(entry.text["intro"]))
    if presets:
        with toolbar.popover(t("common.presets_button"), icon=":material/bookmarks:"):
            for preset_id, values in presets.items():
                st.button(
                    t(f"{ns}.preset_{preset_id}"),
                    key=f"{ns}_preset_{preset_id}",
                    on_click=apply_preset,
                    args=(values,),
                    width="stretch",
                )
    frame = LegacyFrame(ns, sections, step, toolbar)
    if sections:
        _step_bar(frame, step_key, prev_col, label_col, next_col)
    return frame


def apply_preset(values: dict) -> None:
    """Set several controls at once; the values land in the URL like any other change, so a preset
    view is a link too (a control not on the page in this run is written into the URL here)."""
    for control_key, value in values.items():
        st.session_state[control_key] = value
        controls.write_url_if_unbound(control_key, value)


def prose(text: str) -> None:
    """A section's words. In lecture mode they fold into one line above the figure: the lecturer
    says them, the hall looks at the figure."""
    if is_lecture():
        with st.expander(t("common.section_text"), icon=":material/subject:"):
            st.markdown(text)
    else:
        st.markdown(text)


def parts(n: int) -> tuple:
    """Places (containers) for a section's n parts in reading order, e.g. its words, its controls,
    its figure: on a screen they stand in that order, whatever order the code fills them in; in
    lecture mode in reverse, the figure first, so that a projector's first screen holds it, and
    the words (folded by prose()) last."""
    boxes = [st.container() for _ in range(n)]
    return tuple(reversed(boxes)) if is_lecture() else tuple(boxes)


def opening(text: str) -> tuple:
    """A section's words, then places for its own controls and its figure (parts(3)): on a
    projector the figure first, then the controls, then the folded words. -> (controls, figure)"""
    words, controls_box, figure_box = parts(3)
    with words:
        prose(text)
    return controls_box, figure_box


def numbers_box(key: str, label: str):
    """The numbers behind a figure, in a closed box that is filled only while it is open (opening
    it reruns the section): most visits never open it, and a table costs a rerun more than a
    figure does. -> the open box to draw the table in, or None."""
    box = st.expander(label, key=key, on_change="rerun", icon=":material/table:")
    return box if box.open else None


def folded_table(label: str, box_key: str, build, *args, **show) -> None:
    """widgets.show_table(build(*args), **show) in a numbers_box: built only while it is open."""
    if box := numbers_box(box_key, label):
        with box:
            widgets.show_table(build(*args), **show)


@contextlib.contextmanager
def section_controls():
    """A section's own controls, in one row of columns: fewer rows above the figure."""
    with st.container(horizontal=True, gap="medium"):
        yield


def _preset_buttons(ns: str, presets: dict[str, dict]) -> None:
    st.caption(t("common.presets"))
    with st.container(horizontal=True):
        for preset_id, values in presets.items():
            st.button(
                t(f"{ns}.preset_{preset_id}"), key=f"{ns}_preset_{preset_id}", on_click=apply_preset, args=(values,)
            )


def _restore_step(key: str, n: int) -> int:
    def parse(raw: list[str]) -> int:
        step = int(raw[0]) if len(raw) == 1 and raw[0].isdigit() else 0
        if not 1 <= step <= n:
            raise ValueError(raw)
        return step

    controls.restore_from_url(key, 1, parse)
    step = min(max(int(st.session_state[key]), 1), n)
    st.session_state[key] = step
    controls.publish_to_url(key, step, 1)
    return step


def _step_bar(frame: LegacyFrame, key: str, prev_col, label_col, next_col) -> None:
    """Previous / next and "Step i of n · title", in the row under the title (lecture mode)."""
    n, step = len(frame.sections), frame.step

    def go(to: int) -> None:
        st.session_state[key] = to

    prev_col.button(
        t("common.previous_step"),
        key=f"{key}_prev",
        disabled=step == 1,
        on_click=go,
        args=(step - 1,),
        icon=":material/arrow_back:",
        width="stretch",
    )
    title = html.escape(t(registry.info(frame.ns).steps[frame.sections[step - 1]]))
    # A short title stays whole, on the next line if it must (lab_ui.style): broken at a space, a line
    # ended on its first word ("· 把" over "Q、K、V 切成几个头"). A long one runs on and wraps.
    if text_px(title, LECTURE_TEXT_PX) <= STEP_TITLE_WHOLE_PX:
        title = f'<span class="whole">{title}</span>'
    with label_col.container(key="lecture_step_label"):  # lab_ui.style balances its lines
        # "Step 1 of 6 ·" whole as well: the line breaks between it and the title, if anywhere.
        step_of = f'<span class="whole"><strong>{t("common.step_of", i=step, n=n)}</strong>\u00a0·</span>'
        st.markdown(f"{step_of} {title}", unsafe_allow_html=True)
    next_col.button(
        t("common.next_step"),
        key=f"{key}_next",
        disabled=step == n,
        on_click=go,
        args=(step + 1,),
        icon=":material/arrow_forward:",
        width="stretch",
    )


def choice_keep_valid(key: str, options: Sequence, default) -> None:
    """A control whose options just changed (a shorter sentence, another model) must not hold a
    value that is no longer offered; call before drawing it."""
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default
