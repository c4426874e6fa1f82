"""A concept page is a declared stepper: a short script of steps, one idea each, one step on the
screen at a time, in every mode. A page script reads:

    class Controls(state.Table): ...              # its state, declared once (lab_ui.state)
    PAGE = page.Page("heatmap", Controls, presets=(...))

    @PAGE.step("map")                             # its steps, in the manifest's order (lab_ui/registry.py)
    def map_step(p: page.Parts, s: Settings) -> None:
        p.prose(t("heatmap.map_body"))
        view = cached(core_function, s.text, s.d)  # one core call
        with p.figure:
            widgets.show_figure(cached(figures.weights_heatmap, view, lang), key=..., alt=...)
        p.table(t("heatmap.table_box"), figures.weights_table, view, lang, key=..., filename=...)
        p.formula(LATEX, core_function)

    if __name__ == "__main__":                    # Streamlit runs the script as __main__; tests import it
        PAGE.start().show(settings)               # settings(): draws the page-level controls, returns
                                                  # their values (plain), which every step receives

The settings and the step on the screen are one st.fragment, and the step a fragment inside it: a
page-level control reruns the settings and that one step (not the title, the sidebar, the other
steps), a control of the step's own reruns the step alone.
A step receives the page-level values as arguments (plain values: a fragment keeps its arguments
for its own reruns, and a computed result held there would outlive the session; it asks the cache
instead). The step bar (previous / next, "step i of n", the page's contents) sits under the title;
the step is `<prefix>_step` in the link; the page's settings stand beside the step. Lecture mode
(?lecture=1) is the same stepper with a projector's styling: the figure first, the words folded, the
settings in a popover. The whole page
at once (?whole=1, the sidebar's switch) shows every step in order, for reading through or printing.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st

from lab_ui import controls, course, quiz, registry, widgets
from lab_ui.i18n import t
from lab_ui.layout import LECTURE_TEXT_PX, text_px
from lab_ui.lecture import is_lecture, is_whole_page
from lab_ui.shell import require_app_shell
from lab_ui.state import Preset, Table

# The widest step title kept whole in lecture mode: the step bar's label column is about 370 px on a
# 1280 px projector; a title wider than this would take a line and more of its own.
STEP_TITLE_WHOLE_PX = 300
# A step's parts in reading order on a screen, and on a projector: there the figure first, so the
# first screen holds it, and the words (which the lecturer says) folded at the end.
SCREEN_ORDER = ("words", "controls", "figure", "reading", "numbers", "code", "check")
PROJECTOR_ORDER = ("figure", "reading", "controls", "check", "numbers", "code", "words")
# The page-level controls' column and the steps' on a screen (lecture mode: a popover, the full width).
SETTINGS_COLUMNS = (1, 2.3)


@dataclass(frozen=True)
class Parts:
    """The places of one step, in the order of SCREEN_ORDER (PROJECTOR_ORDER in lecture mode),
    whatever order the step fills them in: its words, its own controls, its figure, the reading
    of the figure in words and numbers, the numbers behind it (a folded table), the formula beside
    the code that computes it, and the check-yourself."""

    words: object
    controls: object
    figure: object
    reading: object
    numbers: object
    code: object
    check: object
    box_key: str  # the prefix of its numbers boxes' keys: "<prefix>_<step>"

    @classmethod
    def make(cls, box_key: str) -> Parts:
        order = PROJECTOR_ORDER if is_lecture() else SCREEN_ORDER
        boxes = {name: st.container() for name in order}
        return cls(**boxes, box_key=box_key)

    def prose(self, text: str) -> None:
        """The step's words (in lecture mode folded into one line: the lecturer says them)."""
        with self.words:
            prose(text)

    def table(self, label: str, build: Callable, *args, box: str = "table", **show) -> None:
        """widgets.show_table(build(*args), **show) in a folded box, built only while it is open."""
        with self.numbers:
            folded_table(label, f"{self.box_key}_{box}", build, *args, **show)

    def formula(self, latex: str, *funcs: Callable, box: str = "formula") -> None:
        """The formula beside the core code that computes it, read from the core itself, in a folded
        box filled only while it is open: typesetting and highlighting them on every step of a
        slider cost more than the figure's own redraw, and a student opens them to read."""
        with self.code:
            if opened := numbers_box(f"{self.box_key}_{box}", t("common.formula_and_code"), icon=":material/function:"):
                with opened:
                    widgets.formula_and_code(latex, *funcs)


class Page:
    """A page's declaration: its manifest (lab_ui/registry.py), its controls and presets, its steps.
    Checked when the module loads: every control's step and every step's function exist, and every
    preset fits the controls it sets."""

    def __init__(
        self,
        ns: str,
        table: type[Table],
        presets: Sequence[Preset] | Callable[[], Sequence[Preset]] = (),
    ):
        self.info = registry.info(ns)
        self.table = table
        self._presets = presets
        self._steps: dict[str, Callable] = {}
        if table.prefix not in ("", self.info.prefix):
            raise ValueError(f"{ns}: its controls' prefix {table.prefix!r} is not the manifest's {self.info.prefix!r}")
        for control in table.entries():
            if control.on is not None and control.on not in self.info.steps:
                raise ValueError(f"{control.key} belongs to step {control.on!r}, which {ns} does not have")
        for preset in self.presets():
            preset.check(table)

    @property
    def ns(self) -> str:
        return self.info.ns

    def presets(self) -> Sequence[Preset]:
        """The presets, in the page's language (a preset may set a text in it)."""
        return self._presets() if callable(self._presets) else self._presets

    def step(self, name: str) -> Callable[[Callable], Callable]:
        """Register the function that draws step `name`: fn(parts, *page-level values)."""
        if name not in self.info.steps:
            raise ValueError(f"{self.ns} has no step {name!r}; its manifest lists {list(self.info.steps)}")

        def register(fn: Callable) -> Callable:
            self._steps[name] = fn
            return fn

        return register

    def check(self) -> None:
        """Every step of the manifest has its function (called when the page starts, and by the tests)."""
        missing = [name for name in self.info.steps if name not in self._steps]
        if missing:
            raise ValueError(f"{self.ns}: no function for the steps {missing} (@PAGE.step)")

    def start(self) -> Frame:
        """Draw the top of the page (title, introduction; in lecture mode the title row's step bar
        and popovers) and return this run's frame."""
        self.check()
        require_app_shell()
        course.visit(self.ns)
        info = self.info
        step = restore_step(info.step_key, len(info.steps))
        lecture = is_lecture()
        st.title(t(info.text["title"]))
        if lecture:
            bar = st.columns([1.1, 2.6, 1, 3.6], vertical_alignment="center")
            toolbar = bar[3].container(horizontal=True, horizontal_alignment="right", gap="small")
            with toolbar.popover(t("common.introduction"), icon=":material/subject:"):
                st.markdown(t(info.text["intro"]))
            if self.presets():
                with toolbar.popover(t("common.presets_button"), icon=":material/bookmarks:"):
                    self._preset_buttons(width="stretch")
            frame = Frame(self, step, False, toolbar.popover(t("common.controls"), icon=":material/tune:"))
            _lecture_step_bar(frame, *bar[:3])
            return frame
        frame = Frame(self, step, is_whole_page())
        if step == 1 or frame.whole:
            st.markdown(t(info.text["intro"]))
        else:  # read on step 1; a link to a later step still has it a click away
            with st.expander(t("common.introduction"), icon=":material/subject:"):
                st.markdown(t(info.text["intro"]))
        return frame

    def _preset_buttons(self, **button) -> None:
        for preset in self.presets():
            key = preset.name.replace(".", "_")  # heatmap.preset_causal -> heatmap_preset_causal
            st.button(t(preset.name), key=key, on_click=preset.apply, **button)


@dataclass(frozen=True)
class Frame:
    """One run of a page: which step is on the screen."""

    page: Page
    step: int  # the step on the screen, 1-based
    whole: bool  # every step at once (?whole=1)
    lecture_controls: object = None  # lecture mode: the title row's popover for the page-level controls

    @property
    def names(self) -> tuple[str, ...]:
        return self.page.info.step_names

    def number(self, name: str) -> int:
        return self.names.index(name) + 1

    def shows(self, name: str) -> bool:
        """Is this step drawn in this run?"""
        return self.whole or self.number(name) == self.step

    def show(self, settings: Callable, *args) -> None:
        """The page's settings and the step on the screen (every step in whole-page mode), then
        the page's end. settings(*args) draws the page-level controls and returns their values
        (plain values), which every step receives.

        The settings and the steps are one fragment, each step a fragment inside it: a page-level
        control reruns the settings and the step on the screen, not the page around them (title,
        sidebar, navigation), and a step's own control reruns that step alone. In lecture mode the
        settings stay in the title row's popover, so the step's figure has the projector's screen
        (a page-level control there reruns the page)."""
        if self.lecture_controls is not None:
            with self.lecture_controls:
                values = settings(*args)
            self._steps(values)
            return
        st.fragment(self._body)(settings, *args)
        if self.whole or self.step == len(self.names):
            self.end()

    def _body(self, settings: Callable, *args) -> None:
        info = self.page.info
        if st.session_state.get(info.step_key, self.step) != self.step:
            st.rerun()  # the step bar turned the page: the whole page follows, not this fragment alone
        # The page-level controls beside the step, so that moving one shows what it changed on the
        # same screen; a phone stacks the two, the settings first (folded with one click).
        side, main = st.columns(SETTINGS_COLUMNS, gap="medium")
        with side:
            if self.page.presets():
                with st.popover(t("common.presets_button"), icon=":material/bookmarks:", width="stretch"):
                    st.caption(t("common.presets"))
                    self.page._preset_buttons(width="stretch")
            with st.expander(t("common.settings"), expanded=True, icon=":material/tune:"):
                values = settings(*args)
        with main:
            if not self.whole:
                _step_bar(self)
            self._steps(values)
            if not self.whole:
                _bottom_bar(self)

    def _steps(self, values) -> None:
        info = self.page.info
        for name in self.names:
            if not self.shows(name):
                continue
            draw, heading = self.page._steps[name], f"{self.number(name)} · {t(info.steps[name])}"

            def step(values, draw=draw, heading=heading, name=name) -> None:
                if not is_lecture():  # in lecture mode the step bar names the step
                    st.subheader(heading, anchor=f"{info.ns}-{name}")
                draw(Parts.make(f"{info.prefix}_{name}"), values)

            st.fragment(step)(values)

    def end(self) -> None:
        """The bottom of a concept page: its quiz, then the previous and next page of the course."""
        questions = list(self.page.info.quiz)
        if questions:
            st.fragment(quiz.page_quiz)(self.page.ns, questions)  # an answer reruns the quiz alone
        course.previous_next(self.page.ns)


def go_to_step(key: str, step: int) -> None:
    """A button's callback: turn to `step` (the page reruns, the link follows)."""
    st.session_state[key] = step


def restore_step(key: str, n: int) -> int:
    """The step on the screen, 1..n: from the session, else the link, else 1 (with a notice for a
    link's step that the page does not have)."""
    if n == 0:  # a page that is not a stepper; a bookmark may still carry an old home_step=0
        st.query_params.pop(key, None)
        return 0

    def parse(raw: list[str]) -> int:
        step = int(raw[0]) if len(raw) == 1 and raw[0].isascii() and raw[0].isdigit() else 0
        if not 1 <= step <= n:
            raise ValueError(raw)
        return step

    controls.restore_from_url(key, 1, parse)
    step = min(max(int(st.session_state[key]), 1), n)
    st.session_state[key] = step
    controls.publish_to_url(key, step, 1)
    return step


def _step_bar(frame: Frame) -> None:
    """Under the title: previous, "Step i of n", the page's contents, next."""
    info, step, n = frame.page.info, frame.step, len(frame.names)
    key = info.step_key
    with st.container(horizontal=True, vertical_alignment="center", gap="small", key="step_bar"):
        st.button(
            t("common.previous_step"),
            key=f"{key}_prev",
            disabled=step == 1,
            on_click=go_to_step,
            args=(key, step - 1),
            icon=":material/arrow_back:",
        )
        with st.popover(t("common.step_of", i=step, n=n), icon=":material/toc:"):
            for i, title in enumerate(info.steps.values(), start=1):
                st.button(
                    f"{i} · {t(title)}",
                    key=f"{key}_go_{i}",
                    on_click=go_to_step,
                    args=(key, i),
                    type="primary" if i == step else "tertiary",
                    width="stretch",
                )
        st.button(
            t("common.next_step"),
            key=f"{key}_next",
            disabled=step == n,
            on_click=go_to_step,
            args=(key, step + 1),
            icon=":material/arrow_forward:",
            type="primary",
        )


def _bottom_bar(frame: Frame) -> None:
    """At the end of a step: the way to the step before and the step after, by name."""
    info, step, n = frame.page.info, frame.step, len(frame.names)
    titles, key = list(info.steps.values()), info.step_key
    with st.container(horizontal=True, horizontal_alignment="distribute", key="step_bar_bottom"):
        if step > 1:
            label, back = f"{step - 1} · {t(titles[step - 2])}", ":material/arrow_back:"
            st.button(label, key=f"{key}_prev_b", on_click=go_to_step, args=(key, step - 1), icon=back)
        if step < n:
            st.button(
                f"{step + 1} · {t(titles[step])}",
                key=f"{key}_next_b",
                on_click=go_to_step,
                args=(key, step + 1),
                icon=":material/arrow_forward:",
                icon_position="right",
                type="primary",
            )


def _lecture_step_bar(frame: Frame, prev_col, label_col, next_col) -> None:
    """Lecture mode's row under the title: previous / next and "Step i of n · title"."""
    info, step, n = frame.page.info, frame.step, len(frame.names)
    key = info.step_key
    prev_col.button(
        t("common.previous_step"),
        key=f"{key}_prev",
        disabled=step == 1,
        on_click=go_to_step,
        args=(key, step - 1),
        icon=":material/arrow_back:",
        width="stretch",
    )
    title = html.escape(t(info.steps[frame.names[step - 1]]))
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
        on_click=go_to_step,
        args=(key, step + 1),
        icon=":material/arrow_forward:",
        width="stretch",
    )


# --- pieces a step uses ---------------------------------------------------------------------------


def prose(text: str) -> None:
    """Words of a step. In lecture mode they fold into one line: the lecturer says them, the hall
    looks at the figure."""
    if is_lecture():
        with st.expander(t("common.section_text"), icon=":material/subject:"):
            st.markdown(text)
    else:
        st.markdown(text)


def numbers_box(key: str, label: str, icon: str = ":material/table:"):
    """The numbers behind a figure, in a closed box that is filled only while it is open (opening
    it reruns the step): most visits never open it, and a table costs a rerun more than a figure
    does. -> the open box to draw the table in, or None."""
    box = st.expander(label, key=key, on_change="rerun", icon=icon)
    return box if box.open else None


def folded_table(label: str, box_key: str, build, *args, **show) -> None:
    """widgets.show_table(build(*args), **show) in a numbers_box: built only while it is open."""
    if box := numbers_box(box_key, label):
        with box:
            widgets.show_table(build(*args), **show)


@contextlib.contextmanager
def section_controls():
    """A step's own controls, in one row that wraps: fewer rows above the figure."""
    with st.container(horizontal=True, gap="medium"):
        yield


def choice_keep_valid(key: str, options: Sequence, default) -> None:
    """A control whose options just changed (a shorter sentence, another model) must not hold a
    value that is no longer offered; call before drawing it."""
    controls.keep_valid(key, options, default)


def front_page(ns: str) -> None:
    """The top of a page that is not a stepper (the home page): its title and introduction. A
    bookmark from before the steps may still carry an old `<prefix>_step`; it is dropped."""
    require_app_shell()
    course.visit(ns)
    info = registry.info(ns)
    st.query_params.pop(info.step_key, None)
    st.title(t(info.text["title"]))
    st.markdown(t(info.text["intro"]))
