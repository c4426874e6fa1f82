"""Which language a session sees: ?lang= wins, then the choice made earlier in the session, then
the browser's language (any zh* gives Chinese). The choice always rides along in the URL as
lang=en|zh, so a copied link opens in the same language on a student's machine."""

from __future__ import annotations

import streamlit as st

from lab_ui.i18n import LANG_NAMES, LANGS, set_run_lang, t


def browser_lang() -> str:
    locale = (st.context.locale or "").lower()
    return "zh" if locale.startswith("zh") else "en"


def choose_language() -> str:
    raw = st.query_params.get("lang")
    picked, last = st.session_state.get("lang_pick"), st.session_state.get("_lang")
    if picked in LANGS and last is not None and picked != last:
        lang = picked  # the picker was just clicked: it wins over the URL it is about to rewrite
    elif raw in LANGS:
        lang = raw
    else:
        lang = st.session_state.get("_lang") or browser_lang()
        if raw is not None:
            st.session_state["_lang"] = lang  # so the notice below is in the language we fell back to
            st.toast(t("common.bad_link_value", name="lang", value=raw[:40]), icon="⚠️")
    st.session_state["_lang"] = lang
    set_run_lang(lang)
    st.query_params["lang"] = lang
    return lang


def language_picker(lang: str) -> None:
    """The English / 简体中文 switch in the sidebar; its label is in both languages so a
    student who landed in the wrong one can still find it."""
    st.sidebar.radio(
        t("common.language"),
        LANGS,
        index=LANGS.index(lang),
        format_func=LANG_NAMES.get,
        key="lang_pick",
        horizontal=True,
    )
