"""The course (issue 15): the progress code and its round trip through the address, bad codes,
grading of typed and chosen answers, the quiz at the end of a page, the final quiz, and the
lecture plan."""

import re

import numpy as np
import pytest
from app_harness import open_page

from lab_ui import course, progress
from lab_ui.i18n import t
from lab_ui.quiz import Reading, Task, is_right, read_number
from lab_ui.quiz_bank import BANK
from lab_ui.registry import PAGES

ITEMS = course.ITEMS


# --- the progress code --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 9, len(ITEMS)])
def test_a_code_round_trips(n):
    rng = np.random.default_rng(n)
    passed = set(rng.choice(ITEMS, size=n, replace=False)) if n else set()
    code = progress.encode(passed, ITEMS)
    assert (code == "") == (n == 0)
    assert progress.decode(code, ITEMS) == passed if code else True
    assert re.fullmatch(r"[a-z1-7]*", code), "a code is plain lower-case letters and digits"


def test_an_older_shorter_item_list_still_reads():
    code = progress.encode({ITEMS[0], ITEMS[3]}, ITEMS[:5])
    assert progress.decode(code, ITEMS) == {ITEMS[0], ITEMS[3]}


@pytest.mark.parametrize(
    "code",
    ["", "x", "1", "2abcdefgh", "1abc!defg", "1" + "a" * 40, "<script>", "进度码进度码进度码", "1e309"],
)
def test_a_broken_code_is_refused(code):
    with pytest.raises(ValueError):
        progress.decode(code, ITEMS)


def test_a_hand_edited_code_fails_its_checksum():
    code = progress.encode({ITEMS[0], ITEMS[2]}, ITEMS)
    edited = code[:-5] + ("b" if code[-5] != "b" else "c") + code[-4:]
    with pytest.raises(ValueError, match="checksum"):
        progress.decode(edited, ITEMS)


def test_progress_survives_moving_between_pages_and_a_reload():
    at = open_page("pages/heatmap.py", "en")
    assert "page:heatmap" in progress.decode(at.query_params["progress"], ITEMS)
    at.switch_page("pages/qkv.py").run()
    code = at.query_params["progress"]
    assert {"page:heatmap", "page:qkv"} <= progress.decode(code, ITEMS)
    reloaded = open_page("pages/home.py", "en", progress=code)  # a new session from the same address
    assert reloaded.query_params["progress"] == code
    captions = "\n".join(c.value for c in reloaded.caption)
    assert t("course.status_visited", lang="en", passed=0, total=len(course.page_items("heatmap"))) in captions


def test_a_bad_code_is_ignored_with_a_notice_and_loses_nothing_else():
    at = open_page("pages/home.py", "zh", progress="1zzzzzzzz", hm_tau="2")
    assert not at.exception
    assert any(t("course.bad_progress_code", lang="zh") in toast.value for toast in at.toast)
    assert at.query_params["lang"] == "zh" and at.query_params["hm_tau"] == "2"
    assert "progress" not in at.query_params  # nothing passed yet: no code


def test_the_copy_link_never_carries_the_progress():
    at = open_page("pages/quiz.py", "en")
    assert "progress" in at.query_params
    html = "\n".join(h.proto.body for h in at.get("html"))
    link = re.search(r'<code class="lab-link">([^<]*)</code>', html).group(1)
    assert "progress=" not in link and "lang=en" in link


# --- reading and grading answers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "value"),
    [("12", 12), (" 0.25 ", 0.25), ("１２", 12), ("1,000", 1000), ("1/4", 0.25), ("-3", -3), ("−3", -3),
     ("2.5e3", 2500)],
)  # fmt: skip
def test_typed_numbers_are_read_leniently(typed, value):
    assert read_number(typed) == Reading(value)


@pytest.mark.parametrize(
    ("typed", "hint"),
    [("", "quiz.hint_empty"), ("abc", "quiz.hint_digits"), ("十二", "quiz.hint_digits"), ("🙂", "quiz.hint_digits"),
     ("0,25", "quiz.hint_comma"), ("1e309", "quiz.hint_huge"), ("9" * 40, "quiz.hint_huge"),
     ("nan", "quiz.hint_huge"), ("1/0", "quiz.hint_digits"), ("<b>1</b>", "quiz.hint_digits")],
)  # fmt: skip
def test_what_cannot_be_read_gets_a_hint_and_is_wrong(typed, hint):
    reading = read_number(typed)
    assert reading.value is None and reading.hint == hint
    assert not is_right(reading, Task(answer=0.0, tolerance=1.0))
    assert t(hint, lang="zh") and t(hint, lang="en")


def test_a_tolerance_is_absolute_or_relative_whichever_is_larger():
    task = Task(answer=1000.0, tolerance=0.01)
    assert is_right(Reading(1009.0), task) and not is_right(Reading(1011.0), task)
    task = Task(answer=0.0, tolerance=0.01)
    assert is_right(Reading(0.009), task) and not is_right(Reading(0.02), task)


# --- the bank and the items ------------------------------------------------------------------------


def test_every_question_and_check_is_a_progress_item_and_every_page_has_an_objective():
    for ns, questions in BANK.items():
        assert len(questions) == course.QUIZ_SIZE, ns
        for q in questions:
            assert q.id in ITEMS and q.ns == ns
    for keys in course.CHECKS.values():
        assert set(keys) <= set(ITEMS)
    assert len(set(ITEMS)) == len(ITEMS)
    for info in PAGES:
        assert t(f"course.objective_{info.ns}", lang="en") and info.minutes > 0


@pytest.mark.parametrize("question", [q for qs in BANK.values() for q in qs], ids=lambda q: q.id)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_question_reads_in_both_languages_for_many_attempts(question, lang):
    for seed in range(5):
        task = question.make(np.random.default_rng(seed))
        words = t(question.text_key, lang=lang, **task.values)
        assert "{" not in words
        shown = task.answer if task.options else f"{float(task.answer):.4f}"
        assert t(f"{question.text_key}_why", lang=lang, **task.values, answer=shown)
        if task.options:
            assert task.answer in task.options
            for option in task.options:
                assert t(f"{question.text_key}_{option}", lang=lang)
        else:
            assert np.isfinite(float(task.answer))


def test_a_numeric_question_asks_new_numbers_on_another_attempt():
    question = BANK["qkv"][0]
    asked = {question.make(np.random.default_rng(seed)).values["q"] for seed in range(10)}
    assert len(asked) > 5


# --- quizzes in the app ----------------------------------------------------------------------------


def test_a_page_quiz_grades_at_once_and_counts_toward_progress():
    at = open_page("pages/heatmap.py", "en")
    question = BANK["heatmap"][1]  # a causal mask: which keys may token 3 see?
    at.radio(key="qz_heatmap_2").set_value("all").run()
    assert any(t("quiz.wrong", lang="en", answer=t("quiz.heatmap_2_upto", lang="en")) in e.value for e in at.error)
    assert question.id not in progress.decode(at.query_params["progress"], ITEMS)
    at.radio(key="qz_heatmap_2").set_value("upto").run()
    assert at.success and question.id in progress.decode(at.query_params["progress"], ITEMS)


def test_a_typed_quiz_answer_is_graded_and_bad_text_gets_a_hint():
    at = open_page("pages/scaling.py", "zh")
    at.text_input(key="qz_scaling_2").input("abc").run()
    assert not at.exception
    assert any(t("quiz.hint_digits", lang="zh") in w.value for w in at.warning)
    task = BANK["scaling"][1].make(np.random.default_rng([0, 2]))
    at.text_input(key="qz_scaling_2").input(f"{float(task.answer):.4f}").run()
    assert any(t("quiz.right", lang="zh", answer=f"{float(task.answer):.4f}") in s.value for s in at.success)


def test_the_final_quiz_scores_and_a_new_attempt_draws_new_numbers():
    at = open_page("pages/quiz.py", "en", qz_seed="3")
    assert not at.exception
    first = [m.value for m in at.markdown]
    keys = [w.key for w in (*at.radio, *at.text_input) if w.key and w.key.startswith("final_")]
    assert len(keys) == 2 * len(course.concept_pages())
    radio = next(w for w in at.radio if w.key.startswith("final_"))
    radio.set_value(radio.options[1]).run()
    assert any(t("quiz.score", lang="en", right=0, total=len(keys), answered=1).split("(")[0][:10] in h.value
               for h in at.subheader)  # fmt: skip
    at.button[0].click().run()  # a new attempt
    assert at.number_input(key="qz_seed").value == 4
    assert [m.value for m in at.markdown] != first


def test_the_lecture_plan_lists_step_links():
    rows = course.lecture_links("http://class:8501", "zh")
    for _title, i, _step, link in rows:
        assert link.startswith("http://class:8501/") and "lecture=1" in link and f"_step={i}" in link
    steps = sum(len(p.sections) for p in course.concept_pages())
    assert len(rows) == steps


@pytest.mark.parametrize("info", [p for p in PAGES if p.ns in course.CHECKS], ids=lambda p: p.ns)
def test_the_course_knows_every_check_yourself_of_every_page(info):
    """A check the course does not list would not count toward progress (each check draws a
    "Show the answer" toggle keyed <check key>_show while it is unanswered)."""
    at = open_page(info.path, "en")
    drawn = {w.key[: -len("_show")] for w in at.toggle if w.key and w.key.endswith("_show")}
    assert drawn and drawn <= set(course.CHECKS[info.ns])  # some checks appear only under a setting


def test_items_keep_the_order_of_the_first_saved_codes_and_new_pages_come_after():
    """ITEMS as it was defined before the train page (issue 14): a code saved then must read the
    same now, so these items keep their places and the train page's items come after them."""
    checks_v1 = {
        "one_hot": ("oh_q_cos", "oh_q_frames"),
        "before_self_attention": ("ed_check_shape", "ed_check_ceiling"),
        "qkv": ("qkv_check",),
        "heatmap": ("hm_check",),
        "multi_head": ("mh_check", "mh_choice"),
        "positional": ("pe_q_swap", "pe_q_value", "pe_q_offset"),
        "rnn_cnn": ("rc_check_cheaper", "rc_check_products"),
        "scaling": ("sc_check",),
        "real_model": ("rm_check", "rm_num"),
    }
    old = (
        "page:one_hot", "page:before_self_attention", "page:qkv", "page:heatmap", "page:multi_head",
        "page:positional", "page:rnn_cnn", "page:scaling", "page:real_model", "page:quiz",
        *(key for keys in checks_v1.values() for key in keys),
        *(f"quiz:{ns}:{i}" for ns in checks_v1 for i in range(1, course.QUIZ_SIZE + 1)),
    )  # fmt: skip
    assert ITEMS[: len(old)] == old
    assert ITEMS[len(old) :] == ("page:train", "tr_check_ceiling", "tr_check_order",
                                 *(f"quiz:train:{i}" for i in range(1, 5)))  # fmt: skip
    code = progress.encode({"page:heatmap", "qkv_check", "quiz:real_model:4"}, old)  # saved before the train page
    assert progress.decode(code, ITEMS) == {"page:heatmap", "qkv_check", "quiz:real_model:4"}
