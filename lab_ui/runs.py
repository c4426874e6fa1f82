"""Training runs on a page (the live-training page's), on top of lab_ui.live: a run's button with
its cost, the model the page's settings train (drawn live while it trains) and its figures (the
learning curves, the attention frames, a typed sentence's tags), the words for a run that stopped
or diverged, and a comparison of several runs, from its button to its figure, reading and table.
The page keeps its controls and steps, and hands in the core's functions (fit, compare_models,
...), which it imports on every run of its script; these are its parts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import streamlit as st

from lab_ui import live, page, state, widgets
from lab_ui.cache import cached
from lab_ui.figures import train as figures
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture

LECTURE_PX = 350  # the height a figure gets on a 1280 x 720 projector (lecture mode)


def _live_curves(progress, key: str, lang: str) -> None:
    widgets.show_figure(figures.curves(progress, progress.steps, lang), key=key, alt=t("train.curves_title"))


@dataclass(frozen=True)
class Runs:
    """How a page asks for its runs and shows them: one per page, made from its declaration."""

    steps: state.Control  # the page's steps: over one click's ceiling, a button sets them to the steps that fit
    offered: tuple[int, ...]  # the steps the control offers
    rates: tuple[float, ...]  # the learning rates the page offers: a diverged run's words suggest a smaller one

    def ask(self, key: str, label: str, fn: Callable, args: tuple, **button) -> bool:
        """live.ask with the page's steps: the run's cost, its button, the steps that fit."""
        return live.ask(key, label, fn, args, steps=self.steps, offered=self.offered, **button)

    def trained(self, fit: Callable, args: tuple, asked: bool):
        """The model fit(*args) trains: finished (any session's), trained now if asked (its progress
        and live curves drawn where this is called), or the one stopped in this session; else None."""
        chart = partial(_live_curves, lang=current_lang())
        return live.result(fit, *args, name="train", asked=asked, chart=chart, offered=self.offered)

    @staticmethod
    def within(fn: Callable, args: tuple) -> bool:
        """May one click run fn(*args)? (live.ask has said so, or why not, beside its button)"""
        cost = live.budget(fn, *args)
        return cost is None or cost.within

    def invite(self, p: page.Parts, fn: Callable, args: tuple, words: str) -> None:
        """Where no run is there yet: a message saying what to press, not empty axes; over one
        click's ceiling nothing (the warning beside the button says why not)."""
        if self.within(fn, args):
            with p.figure:
                st.info(words, icon=":material/play_arrow:")

    def ending(self, result) -> None:
        """A stopped or diverged run, said in the user's language, with what the numbers show."""
        if ending := figures.ending_words(result, self.rates, current_lang()):
            kind, words = ending
            (st.error if kind == "error" else st.warning)(words, icon=":material/warning:")

    def curves(self, result, steps: int, lang: str, *, from_cache: bool, alt: str) -> None:
        """A finished run's learning curves over `steps`, after how it ended; first, for a run asked
        for that some session had already trained, that it came from the cache."""
        if from_cache:
            st.caption(t("train.from_cache"))
        self.ending(result)
        fig = cached(figures.curves, result, steps, lang)
        widgets.show_figure(fig, key="tr_curves", lecture_px=LECTURE_PX, alt=alt)

    @staticmethod
    def frames(result, head: int, lang: str) -> None:
        """How one head's attention (0-based) sharpened while the run trained, played in the browser."""
        alt = t("train.frames_alt", head=head + 1, steps=result.steps_run)
        fig = cached(figures.frames, result, head, lang, is_lecture())
        widgets.show_figure(fig, key="tr_frames", lecture_px=LECTURE_PX, alt=alt)
        if len(result.frame_steps) > 1:  # a single snapshot has nothing to play
            st.caption(t("train.frames_hint"))

    @staticmethod
    def tags(prediction, n: int, lang: str) -> None:
        """The trained model's tags for a typed sentence of n words."""
        alt = t("train.tags_alt", n=n)
        widgets.show_figure(cached(figures.tags, prediction, lang), key="tr_tags", lecture_px=LECTURE_PX, alt=alt)

    def comparison(
        self, p: page.Parts, name: str, fn: Callable, args: tuple, kind: str, words: tuple[str, str, str], ceiling=0.5
    ) -> None:
        """A comparison's button and cost, its progress, then its figure, reading and table; words:
        the catalog keys of its button, its alt text and its reading."""
        lang, (run, alt, reading) = current_lang(), words
        with p.controls:
            asked = self.ask(f"tr_run_{name}", t(run), fn, args, icon=":material/play_arrow:")
            comp = live.result(
                fn, *args, name=name, asked=asked, label=lambda p: f"{p.run + 1}/{p.runs} · ", offered=self.offered
            )
        if comp is None:
            self.invite(p, fn, args, t("train.press_run", steps=args[1]))
            return
        with p.figure:
            for row in comp.rows:
                if row.fit.stopped or row.diverged:
                    st.caption(figures.row_name(row, kind, lang))
                    self.ending(row.fit)
            scaling = kind == "scaling"
            if scaling:
                fig = cached(figures.scaling, comp, lang)
            else:
                fig = cached(figures.comparison, comp, kind, ceiling, lang)
            widgets.show_figure(fig, key=f"tr_{name}_figure", lecture_px=LECTURE_PX, alt=t(alt))
        with p.reading:
            st.markdown(t(reading))
        build, more = (figures.scaling_table, ()) if scaling else (figures.comparison_table, (kind,))
        shown = dict(
            key=f"tr_{name}_table", filename=f"{name}.csv", missing="—", decimals=None, caption=t("train.scroll_hint")
        )
        p.table(t("train.numbers"), build, comp, *more, lang, **shown)
