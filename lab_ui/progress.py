"""A student's progress through the course, kept in the address as a short code (?progress=...).

Why the address: the code survives moving between pages and reloading the browser, a bookmark
keeps it, it can be copied to another device, and nothing is sent anywhere or stored on the
server (a class server forgets a session when its tab closes). The copy-link button leaves it out
(lab_ui.share), so a link an instructor shares never hands over the instructor's progress.

What it holds: one bit per course item (lab_ui.course.ITEMS: each page visited, each
check-yourself and quiz question passed), packed into bytes, written in base 32, followed by a
checksum. A code that was typed wrong or edited by hand fails its checksum and is ignored with a
notice; everything else in the link still applies. New items are only ever appended to ITEMS, so
an older, shorter code still reads.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Sequence

import streamlit as st

from lab_ui.i18n import t

PARAM = "progress"
_STATE = "_progress"  # the set of passed item ids, in st.session_state
_REJECTED = "_progress_rejected"  # the code the link brought that could not be read (the home page shows it)
_TOLD = "_progress_rejected_told"  # tell_rejected has said it
_VERSION = "1"
_CHECK_CHARS = 4


def encode(passed: Iterable[str], items: Sequence[str]) -> str:
    """The code for a set of passed items: "" when nothing is passed yet."""
    passed = set(passed)
    bits = [item in passed for item in items]
    while bits and not bits[-1]:
        bits.pop()  # trailing zeros say nothing: shorter codes
    if not bits:
        return ""
    data = bytes(sum(1 << j for j in range(8) if i + j < len(bits) and bits[i + j]) for i in range(0, len(bits), 8))
    body = base64.b32encode(data).decode().rstrip("=").lower()
    return f"{_VERSION}{body}{_checksum(body)}"


def decode(code: str, items: Sequence[str]) -> frozenset[str]:
    """The passed items a code holds. ValueError for a code that is malformed or fails its check."""
    code = code.strip().lower()
    if len(code) < 1 + _CHECK_CHARS + 1 or not code.startswith(_VERSION):
        raise ValueError(f"not a progress code: {code[:20]!r}")
    body, check = code[1:-_CHECK_CHARS], code[-_CHECK_CHARS:]
    if _checksum(body) != check:
        raise ValueError("the progress code's checksum does not match")
    try:
        data = base64.b32decode(body.upper() + "=" * (-len(body) % 8))
    except ValueError:
        raise ValueError("the progress code has characters base 32 does not use") from None
    bits = [bool(byte >> j & 1) for byte in data for j in range(8)]
    if any(bits[len(items) :]):
        raise ValueError("the progress code names items this version of the course does not have")
    return frozenset(item for item, bit in zip(items, bits, strict=False) if bit)


def _checksum(body: str) -> str:
    digest = hashlib.blake2b(f"{_VERSION}:{body}".encode(), digest_size=5).digest()
    return base64.b32encode(digest).decode().lower()[:_CHECK_CHARS]


# --- in a session ------------------------------------------------------------------------------


def restore(items: Sequence[str]) -> None:
    """Once per session, before anything is marked: read the code from the link. app.py calls it
    on every run; after the first it only writes the current code back into the address (a page
    change or a preset must not drop it)."""
    if _STATE not in st.session_state:
        passed: frozenset[str] = frozenset()
        raw = st.query_params.get(PARAM)
        if raw:
            try:
                passed = decode(raw, items)
            except ValueError:
                st.session_state[_REJECTED] = raw[:80]  # said once, by tell_rejected
        st.session_state[_STATE] = set(passed)
    _publish(items)


def tell_rejected(on_home: bool) -> None:
    """One notice for a code that could not be read, once per session: on the home page its
    progress box says it (a warning with the code as typed), elsewhere a long toast (a student who
    loses their progress must not miss why). Two notices in different words read as two problems."""
    if rejected() is None or st.session_state.get(_TOLD):
        return
    st.session_state[_TOLD] = True
    if not on_home:
        st.toast(t("course.bad_progress_code"), icon="⚠️", duration="long")


def rejected() -> str | None:
    """The progress code this session's link brought and could not read, if any (cut to 80 characters)."""
    return st.session_state.get(_REJECTED)


def passed() -> frozenset[str]:
    return frozenset(st.session_state.get(_STATE, ()))


def mark(item: str, items: Sequence[str]) -> None:
    """Record an item as passed (a page visited, a check answered right) and update the address,
    also during a section's own rerun, which does not run app.py."""
    done = st.session_state.setdefault(_STATE, set())
    if item in items and item not in done:
        done.add(item)
        _publish(items)


def forget(items: Sequence[str]) -> None:
    st.session_state[_STATE] = set()
    st.session_state.pop(_REJECTED, None)
    _publish(items)


def code(items: Sequence[str]) -> str:
    return encode(passed(), items)


def _publish(items: Sequence[str]) -> None:
    value = code(items)
    if value:
        st.query_params[PARAM] = value
    else:
        st.query_params.pop(PARAM, None)
