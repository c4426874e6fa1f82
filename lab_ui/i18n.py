"""Every string a user sees comes from t(). The catalogs live in lab_ui/locales/*.toml, one file
per page or shared area; a key is "<file stem>.<name>" and holds both languages side by side:

    [title]
    en = "Q, K, V step by step"
    zh = "查询、键、值：一步一步算"

tests/app/test_catalogs.py fails when a key is empty or missing in either language, or when the
two languages disagree on their {placeholders}. A key that is built at run time (an f-string)
cannot be checked by reading the code, so under the tests (STRICT_TEXT_ENV set, as
tests/conftest.py does) t() raises on a missing key instead of showing the key itself.
"""

from __future__ import annotations

import os
import re
import threading
import tomllib
from functools import cache
from pathlib import Path

LANGS = ("en", "zh")
LANG_NAMES = {"en": "English", "zh": "简体中文"}
DEFAULT_LANG = "en"
_LOCALES = Path(__file__).parent / "locales"
STRICT_TEXT_ENV = "ATTENTION_LAB_STRICT_TEXT"


class MissingText(KeyError):
    """A key with no catalog entry, raised only under the tests (STRICT_TEXT_ENV)."""


def _stamp() -> tuple:
    return tuple((p.name, p.stat().st_mtime_ns) for p in sorted(_LOCALES.glob("*.toml")))


_loaded_stamp: tuple = ()


def reload_if_changed() -> None:
    """Called once per run by app.py: a catalog edited on disk shows on the next rerun, as a
    page script's edits do, without restarting the server."""
    global _loaded_stamp
    stamp = _stamp()
    if stamp != _loaded_stamp:
        catalog.cache_clear()
        _loaded_stamp = stamp


# A Chinese character or full-width punctuation mark (CJK symbols, ideographs, full-width forms).
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_LINE_BREAK = re.compile(f"(?<=[{_CJK}])(\\**)\n(?=\\**[{_CJK}])")  # **bold** may stand either side


def join_chinese_lines(text: str) -> str:
    """The catalogs wrap long Chinese paragraphs over several lines, as the English ones are.
    Markdown turns a single line break into a space, which English needs between words and
    Chinese does not have: "服务器上\n训练" would read "服务器上 训练". A break between two
    Chinese characters (either of them maybe in **bold**) is removed; a blank line (a new
    paragraph) and a break next to a Latin word, a number or maths stay."""
    return _CJK_LINE_BREAK.sub(r"\1", text)


_MULTILINE = re.compile(r'"""(?:.|\n)*?"""')  # a triple-quoted TOML string, line breaks and all


def _join_wrapped_paragraphs(source: str) -> str:
    """A catalog file's text with join_chinese_lines applied inside its multi-line strings (in
    triple quotes), where a line break is only the file's wrapping. A line break written as an
    escape in a one-line string is meant, e.g. a figure title's second line, and stays."""
    return _MULTILINE.sub(lambda m: join_chinese_lines(m.group(0)), source)


@cache
def catalog() -> dict[str, dict[str, str]]:
    """{"ns.key": {"en": ..., "zh": ...}} over every catalog file."""
    entries: dict[str, dict[str, str]] = {}
    for path in sorted(_LOCALES.glob("*.toml")):
        for name, texts in tomllib.loads(_join_wrapped_paragraphs(path.read_text(encoding="utf-8"))).items():
            entries[f"{path.stem}.{name}"] = texts
    return entries


# The language of the script run in progress. A page calls t() hundreds of times per run and
# st.session_state costs ~20 µs a read; each run happens in a thread of its own, so app.py notes
# the run's language here once (lab_ui.language.choose_language).
_this_run = threading.local()


def set_run_lang(lang: str) -> None:
    _this_run.lang = lang


def current_lang() -> str:
    """The session's language, chosen in app.py (lab_ui.language); English outside a session."""
    lang = getattr(_this_run, "lang", None)
    if lang is not None:
        return lang
    import streamlit as st  # imported here so the catalogs can be checked without a session

    try:
        lang = st.session_state.get("_lang", DEFAULT_LANG)
    except Exception:  # no script run context, e.g. a plain unit test
        lang = DEFAULT_LANG
    return lang if lang in LANGS else DEFAULT_LANG


_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")
# GitHub-flavoured Markdown (Streamlit's) also links bare addresses: http://..., www.... and
# name@host, escaped or not. An invisible word joiner (U+2060) inside each breaks the pattern.
_AUTOLINKS = re.compile(r"(?i)(?<=https)(?=:)|(?<=http)(?=:)|(?<=ftp)(?=:)|(?<=www)(?=\.)|(?=@)")
WORD_JOINER = "\u2060"


def literal(text: str) -> str:
    """Text that came from a link or a text box, made safe to put into Markdown (a catalog text's
    {placeholder}, st.markdown, a toast, a caption): it is shown as typed, never formatted. Every
    ASCII punctuation mark is backslash-escaped (CommonMark lets any of them be), so no
    **bold**, [link](...), ![image](...), <html>, &entity; or $maths$ can form; line breaks become
    spaces, so a value cannot start a heading, a list or a new paragraph of its own; a bare address
    (http://, www., name@host) gets an invisible word joiner, so it is not made a link either."""
    text = _AUTOLINKS.sub(WORD_JOINER, _LINE_BREAKS.sub(" ", str(text)))
    return _PUNCTUATION.sub(r"\\\1", text)


def t(key: str, lang: str | None = None, **values) -> str:
    """The text for `key` in `lang` (default: the session's), with {placeholders} filled in.

    A missing key is a programming error: under the tests it raises MissingText; in front of a
    class it shows the key itself rather than crashing a lecture.
    """
    lang = lang or current_lang()
    entry = catalog().get(key)
    if entry is None:
        if os.environ.get(STRICT_TEXT_ENV):
            raise MissingText(f"no catalog entry for {key!r} (lab_ui/locales/*.toml)")
        return key
    text = entry.get(lang) or entry.get(DEFAULT_LANG) or key
    return text.format(**values) if values else text
