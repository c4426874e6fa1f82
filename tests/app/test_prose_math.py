"""Issue 11 #11 on every page (a new one too): prose that
Streamlit renders as Markdown writes its symbols in LaTeX ($a_1$, $d_k$), which KaTeX renders,
not as raw pseudo-maths (a_1, d_k) beside rendered formulas. Code names stay in `code`, names of
curves in “quotes” as the legend writes them; d_model is a name, as in the articles' code."""

import re
import tomllib
from pathlib import Path

import pytest

LOCALES = Path(__file__).resolve().parents[2] / "lab_ui" / "locales"
SHARED = ("app", "common", "course", "home", "quiz")  # catalogs of no single page
# Every page's catalog, a new page's too.
PAGES = tuple(p.stem for p in sorted(LOCALES.glob("*.toml")) if p.stem not in SHARED)
# The catalog keys whose text the pages draw as Markdown (st.markdown, st.caption, a notice, a
# check's question or explanation, a control's tooltip): bodies, readings, captions, questions, answers, help.
PROSE = re.compile(r"(_body|reading|_caption|_why|^q_|check_|_intro|_hint|_ok|_bad|explanation|question|_help$)")
SYMBOL = re.compile(r"(?<![A-Za-z_])(?!d_model)[A-Za-zα-ω]+_[A-Za-z0-9({]|\S*ᵀ")  # a_1, d_k; Kᵀ
SPARED = re.compile(r"\$[^$]*\$|`[^`]*`|“[^”]*”|\{[a-z_]+\}")  # formulas, code, quoted legend names, placeholders


@pytest.mark.parametrize("ns", PAGES)
def test_prose_writes_its_symbols_in_latex(ns):
    catalog = tomllib.loads((LOCALES / f"{ns}.toml").read_text(encoding="utf-8"))
    raw = {
        (key, lang): SYMBOL.findall(SPARED.sub("", entry[lang]))
        for key, entry in catalog.items()
        if isinstance(entry, dict) and PROSE.search(key)
        for lang in ("en", "zh")
    }
    assert not {k: v for k, v in raw.items() if v}
