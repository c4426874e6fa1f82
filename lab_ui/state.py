"""A page's state, declared once: every control of the page in one table, as the TensorFlow
Playground's state.ts declares its PROPS.

    ATTENTION = state.labels("heatmap.mask_", "none", "causal", "local")   # option id -> catalog key

    class Controls(state.Table):
        d = state.slider("hm_d", "heatmap.d", 1, 64, 8, help="heatmap.d_help")
        mask = state.choice("hm_mask", "heatmap.mask", ATTENTION, help="heatmap.mask_help")
        q = state.selectbox("hm_q", "heatmap.pick_query", (), 3, on="query")    # options at run time

    d = Controls.d.draw()            # the widget, bound to the link as ?hm_d=8
    Controls.d.key                   # "hm_d": tests and presets name the entry, never the string

An entry holds what a control is: its key (also its link parameter), its kind, its default, its
range or options, its catalog label and help, and the page step it belongs to (`on`; None: a
page-level control, which every step receives as an argument). Drawing, the link, a bad link's
fallback and notice are lab_ui.controls' (one behaviour for every page); a preset is checked
against the entries when the page's module is loaded (lab_ui.page.Page).

Every catalog key is written out as a literal, or made by `labels(prefix, *ids)`, the one helper
that declares a set of them; tests/app/test_catalogs.py reads both from the code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import streamlit as st

from lab_ui import controls
from lab_ui.i18n import current_lang, t

SEED_MAX = 2**31 - 1  # NumPy takes any seed; a link's seed stays a plain 32-bit number


class Labels(Mapping):
    """Option ids and the catalog keys of their words, in order: labels("heatmap.mask_", "none",
    "causal") is {"none": "heatmap.mask_none", "causal": "heatmap.mask_causal"}."""

    def __init__(self, prefix: str, ids: Sequence[Any]):
        self.prefix = prefix
        self._keys = {i: f"{prefix}{i}" for i in ids}

    def __getitem__(self, option: Any) -> str:
        return self._keys[option]

    def __iter__(self) -> Iterator:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"labels({self.prefix!r}, {', '.join(map(repr, self._keys))})"

    def __hash__(self) -> int:  # a manifest (a frozen dataclass) holding one stays hashable
        return hash((self.prefix, tuple(self._keys)))

    def text(self, option: Any, lang: str | None = None, **values) -> str:
        return t(self._keys[option], lang, **values)


def labels(prefix: str, *ids: Any) -> Labels:
    """The catalog keys `prefix + id` for each id, declared in one place (the catalog test expands
    every call whose arguments are literals)."""
    return Labels(prefix, ids)


@dataclass(frozen=True, eq=False)  # eq=False: an entry is its own identity, a preset's dict key
class Control:
    key: str  # session-state key and link parameter, "<page prefix>_<name>": hm_d, qkv_dm
    kind: str  # how it is drawn: one of KINDS
    label: str  # catalog key of its label
    default: Any  # its value without a link (a text's default: a catalog key when default_text)
    help: str | None = None  # catalog key of its tooltip
    low: float | None = None  # a number's range, inclusive
    high: float | None = None
    step: float | None = None  # a number's step (None: Streamlit's, 1 for whole numbers)
    options: tuple = ()  # a choice's option ids, as the link writes them; () = given at run time
    names: Labels | None = None  # a choice's words per option (None: the option as it is)
    on: str | None = None  # the page step it belongs to; None = page-level
    default_text: bool = False  # a text whose default is the catalog text `default`, in the page's language
    max_selections: int | None = None  # a multiselect's most

    @property
    def page_level(self) -> bool:
        return self.on is None

    def value(self, default: Any = None) -> Any:
        """Its value in this session before (or without) drawing it."""
        return st.session_state.get(self.key, self.default if default is None else default)

    def initial(self) -> Any:
        """Its default in the page's language (a text's default is a catalog text)."""
        return t(self.default) if self.default_text else self.default

    def accepts(self, value: Any) -> bool:
        """Could the control hold this value? (a preset is checked with it when the page loads)"""
        if self.kind in ("slider", "number", "seed"):
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                return False
            whole = isinstance(self.default, int) and not isinstance(self.default, bool)
            return (not whole or isinstance(value, int)) and _inside(value, self.low, self.high)
        if self.kind in ("text", "text_area"):
            return isinstance(value, str)
        if self.kind == "toggle":
            return isinstance(value, bool)
        if self.kind == "multiselect":
            return isinstance(value, list | tuple) and all(self._offered(v) for v in value)
        return self._offered(value)

    def _offered(self, value: Any) -> bool:
        return not self.options or value in self.options

    def draw(
        self,
        *,
        options: Sequence | None = None,
        default: Any = None,
        high: float | None = None,
        format_func: Callable[[Any], str] | None = None,
        label: str | None = None,
        **kwargs,
    ) -> Any:
        """Draw the control where the caller is, bound to the link; its value. Run-time overrides:
        `options` (a choice whose options follow the page: the query picker offers the sentence's
        tokens), `default`, `high` (a range that follows another control), `format_func` (words
        for run-time options), `label` (its words, when they take values: t(self.label, ...));
        other keyword arguments go to the widget (disabled=...)."""
        value = self.initial() if default is None else default
        text = t(self.label) if label is None else label
        if self.help is not None and "help" not in kwargs:
            kwargs["help"] = t(self.help)
        kind, key, top = self.kind, self.key, self.high if high is None else high
        if kind == "slider":
            return controls.slider(text, self.low, top, value, key=key, step=self.step, **kwargs)
        if kind == "number":
            return controls.number_input(
                text, key=key, value=value, min_value=self.low, max_value=top, step=self.step, **kwargs
            )
        if kind == "seed":
            return controls.number_input(text, key=key, value=value, min_value=0, max_value=SEED_MAX, step=1, **kwargs)
        if kind == "toggle":
            return controls.toggle(text, value, key=key, **kwargs)
        if kind == "text":
            return controls.text_input(text, value, key=key, **kwargs)
        if kind == "text_area":
            return controls.text_area(text, value, key=key, **kwargs)
        offered = list(self.options if options is None else options)
        words = format_func or self._words()
        if kind == "select_slider":
            return controls.select_slider(text, offered, value, key=key, format_func=words, **kwargs)
        if kind == "multiselect":
            return controls.multiselect(
                text, offered, key=key, default=value, format_func=words, max_selections=self.max_selections, **kwargs
            )
        widget = {"choice": controls.segmented, "selectbox": controls.selectbox, "radio": controls.radio}[kind]
        controls.keep_valid(key, offered, value)  # options that just changed must not hold a value gone
        return widget(text, offered, key=key, default=value, format_func=words, **kwargs)

    def _words(self) -> Callable[[Any], str]:
        """An option's words in the page's language, fixed now: a widget may call it after the run."""
        if self.names is None:
            return str
        names, lang = self.names, current_lang()
        return lambda option: names.text(option, lang)


KINDS = ("slider", "number", "seed", "toggle", "text", "text_area", "select_slider", "multiselect", "choice")
KINDS += ("selectbox", "radio")


def _inside(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


# --- declaring entries: one function per kind, keywords as Control's fields ----------------------


def slider(key: str, label: str, low: float, high: float, default: float, **more) -> Control:
    return Control(key, "slider", label, default, low=low, high=high, **more)


def number(key: str, label: str, low: float | None, high: float | None, default: float, **more) -> Control:
    return Control(key, "number", label, default, low=low, high=high, **more)


def seed(key: str, default: int = 0, **more) -> Control:
    """The seed of a step's random numbers: a link with the same seed draws the same picture."""
    return Control(key, "seed", "common.seed", default, help="common.seed_help", low=0, high=SEED_MAX, **more)


def toggle(key: str, label: str, default: bool = False, **more) -> Control:
    return Control(key, "toggle", label, default, **more)


def text(key: str, label: str, default: str, **more) -> Control:
    return Control(key, "text", label, default, **more)


def text_area(key: str, label: str, default: str, **more) -> Control:
    return Control(key, "text_area", label, default, **more)


def select_slider(key: str, label: str, options: Sequence, default: Any, **more) -> Control:
    return Control(key, "select_slider", label, default, options=tuple(options), **more)


def choice(key: str, label: str, names: Labels, default: Any = None, **more) -> Control:
    """A row of buttons, one always chosen; the options are the ids of `names`."""
    return _choice("choice", key, label, names, default, more)


def radio(key: str, label: str, names: Labels, default: Any = None, **more) -> Control:
    return _choice("radio", key, label, names, default, more)


def selectbox(key: str, label: str, options: Sequence | Labels, default: Any = None, **more) -> Control:
    """A drop-down list; `options` as Labels (words from the catalog), plain ids, or () when the
    page gives them at run time (draw(options=..., format_func=...))."""
    return _choice("selectbox", key, label, options, default, more)


def multiselect(key: str, label: str, options: Sequence, default: Sequence = (), **more) -> Control:
    return Control(key, "multiselect", label, tuple(default), options=tuple(options), **more)


def _choice(kind: str, key: str, label: str, options, default: Any, more: dict) -> Control:
    names = options if isinstance(options, Labels) else None
    ids = tuple(options)
    if default is None and ids:
        default = ids[0]
    return Control(key, kind, label, default, options=ids, names=names, **more)


# --- the table ----------------------------------------------------------------------------------


class Table:
    """A page's controls as class attributes, in the order declared (Control entries only)."""

    prefix: str = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        entries = [v for v in vars(cls).values() if isinstance(v, Control)]
        keys = [c.key for c in entries]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{cls.__name__}: a key is declared twice: {sorted(keys)}")
        prefixes = {k.split("_", 1)[0] for k in keys}
        if len(prefixes) > 1:
            raise ValueError(f"{cls.__name__}: one page prefix per table, not {sorted(prefixes)}")
        for c in entries:
            if c.kind not in KINDS:
                raise ValueError(f"{c.key}: unknown kind {c.kind!r}")
            if not c.accepts(c.default) and not (c.default_text or (c.kind != "multiselect" and not c.options)):
                raise ValueError(f"{c.key}: its default {c.default!r} is not a value it can hold")
        cls.prefix = prefixes.pop() if prefixes else ""
        cls._entries = tuple(entries)

    @classmethod
    def entries(cls) -> tuple[Control, ...]:
        return cls._entries

    @classmethod
    def on_step(cls, step: str | None) -> tuple[Control, ...]:
        """The entries of one step (None: the page-level ones)."""
        return tuple(c for c in cls._entries if c.on == step)


def blank_table(prefix: str) -> type[Table]:
    """The table of a page with no controls (the home page)."""
    return type(f"{prefix.title()}Controls", (Table,), {"prefix": prefix})


@dataclass(frozen=True)
class Preset:
    """A named set of values: one click sets them all, and the view is a link like any other."""

    name: str  # catalog key of the button's words
    values: Mapping[Control, Any] = field(default_factory=dict)

    def check(self, table: type[Table]) -> None:
        for control, value in self.values.items():
            if control not in table.entries():
                raise ValueError(f"preset {self.name}: {control.key} is not a control of this page")
            if not control.accepts(value):
                raise ValueError(f"preset {self.name}: {control.key} cannot hold {value!r}")

    def with_values(self, **more: Any) -> Preset:
        return replace(self, values={**self.values, **more})

    def apply(self) -> None:
        """Set the values (a button's callback); a control not on the page in this run is written
        into the link here (lab_ui.controls.write_url_if_unbound)."""
        for control, value in self.values.items():
            st.session_state[control.key] = list(value) if control.kind == "multiselect" else value
            controls.write_url_if_unbound(control.key, value)
