"""Both languages are complete: every key non-empty in English and in Chinese, the same
{placeholders} in both, Chinese text actually Chinese, and every t("...") key used in the code
present in a catalog."""

import re
import string
from pathlib import Path

import pytest

from bench.page_counts import catalog_usage, code_files
from lab_ui.i18n import LANGS, STRICT_TEXT_ENV, MissingText, catalog, join_chinese_lines, t

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = sorted(catalog().items())
KEY_IN_CODE = r"""\bt\(\s*["']([A-Za-z_0-9]+\.[A-Za-z_0-9.]+)["']"""


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize(("key", "texts"), ENTRIES, ids=[k for k, _ in ENTRIES])
def test_key_complete_in_both_languages(key, texts):
    assert set(texts) == set(LANGS), f"{key} has languages {sorted(texts)}"
    for lang in LANGS:
        assert isinstance(texts[lang], str) and texts[lang].strip(), f"{key} is empty in {lang}"
    assert _fields(texts["en"]) == _fields(texts["zh"]), f"{key}: placeholders differ"


@pytest.mark.parametrize(("key", "texts"), ENTRIES, ids=[k for k, _ in ENTRIES])
def test_chinese_text_is_chinese(key, texts):
    # A copied English string in the zh slot is the usual way a translation goes missing.
    has_letters = re.search(r"[A-Za-z]{4,}", re.sub(r"\{[^}]*\}|\$[^$]*\$|`[^`]*`", "", texts["en"]))
    if has_letters and texts["zh"] == texts["en"]:
        pytest.fail(f"{key}: the Chinese text is the English text")
    if has_letters:
        assert re.search(r"[\u4e00-\u9fff]", texts["zh"]), f"{key}: no Chinese characters in the zh text"


def test_every_key_used_in_code_exists():
    used = set()
    for path in [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("lab_ui/**/*.py")]:
        used |= set(re.findall(KEY_IN_CODE, path.read_text(encoding="utf-8")))
    missing = sorted(used - set(catalog()))
    assert not missing, f"keys used but not in any catalog: {missing}"


def test_a_missing_key_fails_loudly_under_the_tests_and_quietly_in_a_lecture(monkeypatch):
    """Keys built at run time (f-strings) escape the reading above: under the tests t() raises on
    them (tests/conftest.py sets STRICT_TEXT_ENV), so the page that asks for one fails its tests;
    without it, a class sees the key rather than an error page."""
    with pytest.raises(MissingText, match=r"no_such\.key"):
        t("no_such.key")
    monkeypatch.delenv(STRICT_TEXT_ENV)
    assert t("no_such.key") == "no_such.key"


def test_a_chinese_paragraph_wrapped_over_lines_reads_without_spaces():
    """Markdown shows a single line break as a space; the catalogs wrap long Chinese paragraphs,
    and "在这台服务器上 训练" was on the train page. A break between two Chinese characters goes;
    a new paragraph and a break beside a Latin word stay."""
    assert join_chinese_lines("在这台服务器上\n训练这三种模型。") == "在这台服务器上训练这三种模型。"
    assert join_chinese_lines("第一段。\n\n第二段。") == "第一段。\n\n第二段。"
    assert join_chinese_lines("测试句子里的\n**歧义词**（") == "测试句子里的**歧义词**（"
    assert join_chinese_lines("你用\nNumPy 训练") == "你用\nNumPy 训练"
    assert join_chinese_lines("the first\nline") == "the first\nline"
    # in the catalogs: a wrapped paragraph reads as one line, a title's meant second line stays
    assert "服务器上\n训练" not in t("train.intro", "zh")
    assert t("scaling.var_title", "zh").count("\n") == 1
    for path in sorted((ROOT / "lab_ui" / "locales").glob("*.toml")):
        section = None
        for line in path.read_text(encoding="utf-8").splitlines():
            section = line[1:-1] if line.startswith("[") else section
            if line.startswith('zh = """'):  # a wrapped paragraph, not a one-line string
                shown = t(f"{path.stem}.{section}", "zh")
                assert not re.search(r"[\u4e00-\u9fff，。；：]\**\n\**[\u4e00-\u9fff]", shown), section


# --- every key a literal the test can read ---------------------------------------------------------

USAGE = catalog_usage()
STEMS = sorted({key.split(".", 1)[0] for key in catalog()})


@pytest.mark.parametrize("path", code_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_catalog_key_is_built_at_run_time(path):
    """A key built at run time (t(f"heatmap.{x}"), t(P + "x")) escapes this file's reading: a typo in
    one shows the raw key on screen. Keys are literals, or declared by state.labels(prefix, *ids)."""
    built = USAGE.built.get(str(path.relative_to(ROOT)), [])
    assert not built, f"{path.name}: keys built at run time: {built[:10]}"


@pytest.mark.parametrize("stem", STEMS)
def test_every_catalog_key_is_used(stem):
    """A key no code names is dead text (or a key the code builds where this test cannot see it)."""
    unused = [k for k in USAGE.unused if k.startswith(stem + ".")]
    assert not unused, f"{len(unused)} keys of lab_ui/locales/{stem}.toml are not used: {unused[:15]}"


def test_every_literal_key_exists():
    assert not USAGE.missing, f"keys used but not in any catalog: {list(USAGE.missing)}"
