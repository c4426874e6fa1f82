"""Page controls whose state lives in the URL, so any view is a link.

Every control has a stable, page-prefixed, short ASCII key (e.g. "qkv_dk"); the URL parameter is
named after it. Two mechanisms, one behaviour:

* Controls whose value is a number, a boolean or free text use Streamlit's own
  `bind="query-params"`: the browser keeps the URL in step as the control moves.
* Controls that choose among options shown with translated labels (selectbox, radio,
  segmented control, multiselect with glosses) are synced here by hand, because Streamlit writes
  the *displayed label* into the URL: a link made in Chinese would hold Chinese labels and break
  when the language changes. We write the option's ASCII id instead (`?hm_mask=causal`).

A value in a link that does not fit (out of range, not a number, an unknown option) falls back to
the default and shows a small notice once, in the user's language: never an error page.
Controls persist for the whole session (`persist_state="session"`), so visiting another page
and coming back loses nothing.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.state import get_session_state

from lab_ui.i18n import current_lang, literal, t

_PERSIST = "session"


# --- notices for link values that did not fit ---------------------------------------------------


def _notice_bad_value(key: str, raw: Sequence[str]) -> None:
    shown = st.session_state.setdefault("_bad_link_values_shown", set())
    if key in shown:
        return
    shown.add(key)
    value = ", ".join(raw)
    if len(value) > 40:
        value = value[:40] + "…"
    # the value is whatever the link held: shown as typed, never as Markdown (an image from another host)
    st.toast(t("common.bad_link_value", name=key, value=literal(value)), icon="⚠️")


def _matches_default(raw: list[str], default: Any) -> bool:
    """Does a URL value equal the control's default? Streamlit drops such a value from the URL,
    which must not be mistaken for a rejected one."""
    defaults = list(default) if isinstance(default, list | tuple) else [default]
    if len(raw) != len(defaults):
        return False
    for r, d in zip(raw, defaults, strict=True):
        if isinstance(d, bool):
            if r.lower() != str(d).lower():
                return False
        elif isinstance(d, int | float):
            try:
                if float(r) != float(d):
                    return False
            except ValueError:
                return False
        elif r != str(d):
            return False
    return True


def _url_text(value: Any) -> str | list[str]:
    """A value as Streamlit's URL binding writes it (true/false, repeated parameters for lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return [str(v) for v in value] or [""]
    return str(value)


def write_url_if_unbound(key: str, value: Any) -> None:
    """Put a value set from code (a preset) into the URL. A bound control that was on the page
    in the last run does this itself; one that was not (shown only under another setting, e.g.
    the real model's layer slider) would be left out of the link, so it is written here.
    Streamlit refuses the write for a control that is bound right now, which is then fine."""
    with contextlib.suppress(StreamlitAPIException):
        st.query_params[key] = _url_text(value)


_INTEGER = re.compile(r"[+-]?[0-9]{1,15}")  # what the app itself writes for a whole number
# A number as the app writes one, in ASCII digits: Python's float() also reads "1_0" (10) and
# Arabic-Indic or full-width digits, which no link of the app holds, so a link that has them was
# made by hand and gets the notice, not a silent reading.
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _number_text_ok(text: str, integer: bool) -> bool:
    """Can Streamlit read this URL text as the control's number without failing? It parses a
    number input's value as a float and then calls int() on it, so "1e309" (infinity) would
    raise OverflowError before the page runs. A whole-number control takes only whole numbers as
    the app writes them (so "1e-400", "1.5" or "9e999" fall back instead of being bent into one)."""
    if integer:
        return bool(_INTEGER.fullmatch(text.strip()))
    return bool(_DECIMAL.fullmatch(text.strip())) and math.isfinite(float(text))


def _drop_unreadable_numbers(key: str, raw: list[str], integer: bool, count: int) -> bool:
    """Remove a link's number that Streamlit could not read, before the widget reads it; True if
    it was removed (the notice is then shown by the caller). count: how many numbers the control
    holds; a link that repeats a one-number control's parameter (?sc_seed=5&sc_seed=7) is refused
    too, where Streamlit took the first, the last or the default depending on the widget."""
    if raw and (len(raw) != count or not all(_number_text_ok(r, integer) for r in raw if r != "")):
        st.query_params.pop(key, None)
        # Streamlit seeds a bound widget from its own copy of the URL as the page was opened,
        # not from st.query_params; that copy has no public setter, so the value is removed
        # there too (tests/app/test_widgets.py fails if a Streamlit upgrade changes this).
        with get_session_state().query_params() as qp:
            qp._initial_query_params.pop(key, None)
        return True
    return False


def _bound(widget: Callable, key: str, default: Any, *args, number: str | None = None, **kwargs) -> Any:
    """Create a widget with bind="query-params" and notice when the link's value was refused.
    number: "int" or "float" for a numeric control, whose URL text is checked first."""
    raw = st.query_params.get_all(key) if key not in st.session_state else []
    count = len(default) if isinstance(default, tuple | list) else 1
    dropped = number is not None and _drop_unreadable_numbers(key, raw, integer=number == "int", count=count)
    value = widget(*args, key=key, bind="query-params", persist_state=_PERSIST, **kwargs)
    if dropped or (raw and st.query_params.get_all(key) != raw and not _matches_default(raw, default)):
        _notice_bad_value(key, raw)
    return value


# --- hand-synced controls: ids in the URL, translated labels on screen ---------------------------


def restore_from_url(key: str, default: Any, parse: Callable[[list[str]], Any]) -> None:
    """Before a hand-synced control is drawn the first time in a session, seed its state from
    the URL. `parse` turns the URL's values into the control's value or raises ValueError."""
    if key in st.session_state:
        return
    raw = st.query_params.get_all(key)
    value = default
    if raw:
        try:
            value = parse(raw)
        except ValueError:
            _notice_bad_value(key, raw)
    st.session_state[key] = value


def publish_to_url(key: str, value: Any, default: Any, serialize: Callable[[Any], str | list[str]] = str) -> None:
    """Write the control's value into the URL; a default value is left out to keep links short."""
    if value == default:
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = serialize(value)


def _one_of(options: Sequence[Any]) -> Callable[[list[str]], Any]:
    by_text = {str(o): o for o in options}

    def parse(raw: list[str]) -> Any:
        if len(raw) != 1 or raw[0] not in by_text:
            raise ValueError(raw)
        return by_text[raw[0]]

    return parse


def _some_of(options: Sequence[Any], max_selections: int | None) -> Callable[[list[str]], list]:
    by_text = {str(o): o for o in options}

    def parse(raw: list[str]) -> list:
        raw = [r for r in raw if r != ""]  # "?key=" is how an empty selection is written
        if any(r not in by_text for r in raw) or len(set(raw)) != len(raw):
            raise ValueError(raw)
        if max_selections is not None and len(raw) > max_selections:
            raise ValueError(raw)
        return [by_text[r] for r in raw]

    return parse


def _relabel_after_a_language_change(key: str) -> None:
    """Streamlit's selectbox and multiselect keep showing the chosen option's label as the browser
    last drew it: after a switch to Chinese, the heatmap's sentence box still read "My own text".
    Setting the value once more, on the first run in the new language, sends the new label."""
    seen, lang = f"_{key}_lang", current_lang()
    if st.session_state.get(seen, lang) != lang and st.session_state.get(key) is not None:
        st.session_state[key] = st.session_state[key]
    st.session_state[seen] = lang


def _single_choice(
    widget: Callable,
    label: str,
    options: Sequence[Any],
    key: str,
    default: Any,
    format_func: Callable[[Any], str],
    **kwargs,
) -> Any:
    """selectbox, radio and segmented_control alike: the state starts from the URL's option id,
    the widget shows translated labels, and the chosen id goes back into the URL."""
    default = options[0] if default is None else default
    restore_from_url(key, default, _one_of(options))
    _relabel_after_a_language_change(key)
    if st.session_state.get(key) is None:  # a click on the active segment deselects it: undo that
        st.session_state[key] = default
    value = widget(label, options, key=key, format_func=format_func, persist_state=_PERSIST, **kwargs)
    value = default if value is None else value
    publish_to_url(key, value, default)
    return value


def selectbox(
    label: str,
    options: Sequence[Any],
    *,
    key: str,
    default: Any = None,
    format_func: Callable[[Any], str] = str,
    **kwargs,
) -> Any:
    return _single_choice(st.selectbox, label, options, key, default, format_func, **kwargs)


def radio(
    label: str,
    options: Sequence[Any],
    *,
    key: str,
    default: Any = None,
    format_func: Callable[[Any], str] = str,
    horizontal: bool = True,
    **kwargs,
) -> Any:
    return _single_choice(st.radio, label, options, key, default, format_func, horizontal=horizontal, **kwargs)


def segmented(
    label: str,
    options: Sequence[Any],
    *,
    key: str,
    default: Any = None,
    format_func: Callable[[Any], str] = str,
    **kwargs,
) -> Any:
    """A row of buttons, one always chosen (clicking the chosen one again keeps it chosen)."""
    return _single_choice(
        st.segmented_control, label, options, key, default, format_func, selection_mode="single", **kwargs
    )


def multiselect(
    label: str,
    options: Sequence[Any],
    *,
    key: str,
    default: Sequence[Any] = (),
    format_func: Callable[[Any], str] = str,
    max_selections: int | None = None,
    **kwargs,
) -> list:
    default = list(default)
    restore_from_url(key, default, _some_of(options, max_selections))
    _relabel_after_a_language_change(key)
    value = st.multiselect(
        label,
        options,
        key=key,
        format_func=format_func,
        max_selections=max_selections,
        persist_state=_PERSIST,
        **kwargs,
    )
    publish_to_url(key, value, default, serialize=lambda v: [str(o) for o in v] or [""])
    return value


# --- bound controls: numbers, switches, text ---------------------------------------------------------


def _kind(*numbers) -> str:
    """ "int" when every given number is whole (Streamlit then makes an int control), else "float"."""
    return "int" if all(isinstance(n, int) for n in numbers if n is not None) else "float"


def slider(label: str, min_value, max_value, value, *, key: str, step=None, **kwargs):
    number = _kind(min_value, max_value, *(value if isinstance(value, tuple | list) else [value]), step)
    return _bound(st.slider, key, value, label, min_value, max_value, value, step, number=number, **kwargs)


def select_slider(label: str, options: Sequence[Any], value, *, key: str, **kwargs):
    """A slider over fixed values (e.g. powers of two); the option text must not depend on the
    language, because it is what the URL holds. A link may write a number as a person types it:
    beta=50 for the option 50.0, tau=1.50 for 1.5."""
    raw = st.query_params.get_all(key) if key not in st.session_state else []
    if len(raw) == 1:
        _spell_as_option(key, raw[0], options)
    return _bound(st.select_slider, key, value, label, options=options, value=value, **kwargs)


def _spell_as_option(key: str, text: str, options: Sequence[Any]) -> None:
    """Rewrite a link's number into the spelling of the option it equals (Streamlit matches the
    option's text exactly), before the widget reads it."""
    texts = [str(o) for o in options]
    if text in texts or not _number_text_ok(text, integer=False):
        return
    same = [t for o, t in zip(options, texts, strict=True) if isinstance(o, int | float) and float(o) == float(text)]
    if same:
        st.query_params[key] = same[0]
        with get_session_state().query_params() as qp:  # Streamlit's copy, as in _drop_unreadable_numbers
            qp._initial_query_params[key] = [same[0]]


def number_input(label: str, *, key: str, value=None, **kwargs):
    number = _kind(value, kwargs.get("min_value"), kwargs.get("max_value"), kwargs.get("step"))
    if value is None and kwargs.get("min_value") is None and kwargs.get("step") is None:
        number = "float"  # an empty box with no bounds is a float input in Streamlit
    return _bound(st.number_input, key, value, label, value=value, number=number, **kwargs)


# The longest link the app writes. HAProxy's buffers take twice this (deploy/haproxy.cfg), and a
# slide's or a chat's link of this size still pastes whole. Every control but a free text writes a
# few bytes; a text may take TEXT_LINK_BYTES of it, URL-encoded (a Chinese character is 9 bytes:
# %E7%8C%AB), and a longer text is cut in the link, with a notice, and kept whole in the session.
MAX_LINK_BYTES = 8_000
TEXT_LINK_BYTES = 3_000
CUT_SUFFIX = "_cut"  # <key>_cut=<characters>: the link's text is the start of a text this long


def link_text(text: str, limit: int = TEXT_LINK_BYTES) -> str:
    """The longest start of `text` whose URL encoding fits `limit` bytes."""
    if len(quote(text, safe="")) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits, by bisection over characters
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if len(quote(text[:mid], safe="")) <= limit else (lo, mid - 1)
    return text[:lo]


def _one_text(raw: list[str]) -> str:
    if len(raw) != 1:
        raise ValueError(raw)
    return raw[0]


def _text(widget: Callable, label: str, value: str, key: str, **kwargs) -> str:
    """A free text: restored from the link once, the whole text kept in the session, the link
    holding at most TEXT_LINK_BYTES of it (the rest would make a link the balancer refuses)."""
    cut_key = key + CUT_SUFFIX
    opened = key not in st.session_state
    restore_from_url(key, value, _one_text)
    if opened and (total := st.query_params.get(cut_key, "")).isdigit():  # the link held a cut text
        st.session_state[f"_{cut_key}_read"] = (st.session_state[key], int(total))
    text = widget(label, key=key, persist_state=_PERSIST, **kwargs)
    shown = link_text(text)
    publish_to_url(key, shown, value)
    if shown != text:
        st.query_params[cut_key] = str(len(text))
        st.caption(t("common.text_cut_in_link", shown=len(shown), total=len(text)))
    else:
        st.query_params.pop(cut_key, None)
        read, total = st.session_state.get(f"_{cut_key}_read", (None, 0))
        if text == read and len(text) < total:  # until the student changes the text
            st.caption(t("common.text_cut_link_opened", shown=len(text), total=total))
    return text


def text_input(label: str, value: str, *, key: str, **kwargs) -> str:
    return _text(st.text_input, label, value, key, **kwargs)


def text_area(label: str, value: str, *, key: str, **kwargs) -> str:
    return _text(st.text_area, label, value, key, **kwargs)


def toggle(label: str, value: bool = False, *, key: str, **kwargs) -> bool:
    return _bound(st.toggle, key, value, label, value, **kwargs)


def keep_valid(key: str, options: Sequence, default: Any) -> None:
    """A choice whose options just changed (a shorter sentence, another model) must not hold a value
    that is no longer offered; called before it is drawn."""
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = default
