"""The course (issue 15): the progress code and its round trip through the address, bad codes,
grading of typed and chosen answers, the quiz at the end of a page, the final quiz, and the
lecture plan."""

import re

import numpy as np
import pytest
from app_harness import open_page

from lab_ui import course, progress
from lab_ui import quiz as quiz_ui
from lab_ui.i18n import t
from lab_ui.quiz import Reading, Task, is_right, read_number, shown
from lab_ui.quiz_bank import BANK
from lab_ui.registry import PAGES
from lab_ui.registry import info as page_info

QUESTIONS = [q for qs in BANK.values() for q in qs]

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
    [
        ("12", 12),
        (" 0.25 ", 0.25),
        ("１２", 12),
        ("1,000", 1000),
        ("1/4", 0.25),
        ("-3", -3),
        ("−3", -3),
        ("2.5e3", 2500),
    ],
)
def test_typed_numbers_are_read_leniently(typed, value):
    assert read_number(typed) == Reading(value)


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("", "quiz.hint_empty"),
        ("abc", "quiz.hint_digits"),
        ("十二", "quiz.hint_digits"),
        ("🙂", "quiz.hint_digits"),
        ("0,25", "quiz.hint_comma"),
        ("1e309", "quiz.hint_huge"),
        ("9" * 40, "quiz.hint_huge"),
        ("nan", "quiz.hint_huge"),
        ("1/0", "quiz.hint_digits"),
        ("<b>1</b>", "quiz.hint_digits"),
    ],
)
def test_what_cannot_be_read_gets_a_hint_and_is_wrong(typed, hint):
    reading = read_number(typed)
    assert reading.value is None and reading.hint == hint
    assert not is_right(reading, Task(answer=0.0, tolerance=1.0))
    assert t(hint, lang="zh") and t(hint, lang="en")


def test_a_tolerance_is_absolute_or_relative_whichever_is_larger():
    task = Task(answer=1000.0, tolerance=0.5, relative=0.01)
    assert is_right(Reading(1009.0), task) and not is_right(Reading(1011.0), task)
    task = Task(answer=0.0, tolerance=0.01, relative=0.01)
    assert is_right(Reading(0.009), task) and not is_right(Reading(0.02), task)
    task = Task(answer=798.0, tolerance=1.0)  # an absolute tolerance of 1 is not "within 100 %"
    assert is_right(Reading(799.0), task) and not is_right(Reading(1.0), task)


@pytest.mark.parametrize(
    "question", [q for q in QUESTIONS if not q.make(np.random.default_rng(0)).options], ids=lambda q: q.id
)
def test_a_typed_answer_far_from_the_right_one_is_wrong(question):
    """The answer as the explanation shows it is right; 5 % (or 0.05) away is wrong, in every attempt.
    (The sound question once took anything from 0 to twice the answer, the accuracy one +-10 %.)"""
    for seed in range(30):
        task = question.make(np.random.default_rng(seed))
        answer = float(task.answer)
        off = max(0.05 * abs(answer), 0.05)
        assert is_right(read_number(shown(answer)), task), (seed, task)
        assert not is_right(Reading(answer + off), task) and not is_right(Reading(answer - off), task), (seed, task)


def test_the_sound_question_takes_the_articles_100_vectors_a_second_and_the_exact_count():
    question = next(q for q in BANK["one_hot"] if q.make.__name__ == "sound_vectors")
    for seed in range(30):
        task = question.make(np.random.default_rng(seed))
        seconds = task.values["seconds"]
        assert is_right(Reading(100.0 * seconds), task) and is_right(Reading(float(task.answer)), task)
        assert not is_right(Reading(1.0), task) and not is_right(Reading(150.0 * seconds), task)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.25, "0.25"),
        (-0.44, "-0.44"),
        (0.49668, "0.4967"),
        (12.0, "12"),
        (19_200_000.0, "19,200,000"),
        (6.283185, "6.2832"),
    ],
)
def test_an_answer_is_shown_without_trailing_zeros(value, text):
    assert shown(value) == text


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


def _outside_maths(text: str) -> str:
    return re.sub(r"\$[^$]*\$", "", text)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_question_reads_in_both_languages_for_many_attempts(question, lang, monkeypatch):
    monkeypatch.setattr(quiz_ui, "t", lambda key, **values: t(key, lang=lang, **values))
    for seed in range(5):
        task = question.make(np.random.default_rng(seed))
        texts = [quiz_ui.words(question.text_key, **task.values)]
        answer = task.answer if task.options else shown(float(task.answer))
        texts.append(quiz_ui.words(f"{question.text_key}_why", **task.values, answer=answer))
        if task.options:
            assert task.answer in task.options
            texts += [quiz_ui.words(f"{question.text_key}_{option}") for option in task.options]
        else:
            assert np.isfinite(float(task.answer))
        for text in texts:  # filled in: no placeholder left, no LaTeX brace left doubled
            assert text and "{" not in _outside_maths(text) and "{{" not in text and text.count("$") % 2 == 0, text


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_every_question_links_to_the_section_that_teaches_it(question):
    teacher = page_info(question.teacher)
    assert question.section in teacher.sections, f"{question.id}: no section {question.section!r} on {teacher.ns}"
    where = quiz_ui.where(question)
    number = teacher.sections.index(question.section) + 1
    assert where.endswith(f"{number} {t(f'{teacher.ns}.section_{question.section}', lang='en')}")


def test_the_right_option_has_no_favourite_place():
    """Options were sorted by id, which put the right one last in 11 of 21 questions: a student
    could score by position. Now each question's generator shuffles them."""
    choice = [q for q in QUESTIONS if q.make(np.random.default_rng(0)).options]
    for question in choice:  # across attempts, a question's right answer moves
        places = {(task := question.make(np.random.default_rng(seed))).options.index(task.answer) for seed in range(20)}
        assert len(places) >= 2, question.id
    on_pages = [quiz_ui.page_task(q) for q in choice]  # as the pages' own quizzes ask them
    places = [task.options.index(task.answer) for task in on_pages]
    assert max(places.count(p) for p in set(places)) <= len(places) / 2, places


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
    task = quiz_ui.page_task(BANK["scaling"][1])
    at.text_input(key="qz_scaling_2").input(shown(float(task.answer))).run()
    assert any(t("quiz.right", lang="zh", answer=shown(float(task.answer))) in s.value for s in at.success)


def test_a_page_quiz_links_the_section_on_the_page_itself_by_its_anchor():
    at = open_page("pages/heatmap.py", "en")
    at.text_input(key="qz_heatmap_3").input("5").run()  # a local window: taught in section "speech"
    anchors = [h.proto.anchor for h in at.subheader]
    assert "heatmap-speech" in anchors
    assert any("](#heatmap-speech)" in m.value for m in at.markdown)


def test_quiz_answers_survive_leaving_the_page_to_reread_and_coming_back():
    at = open_page("pages/quiz.py", "en", qz_seed="3")
    key = next(w.key for w in at.text_input if w.key and w.key.startswith("final_"))
    at.text_input(key=key).input("abc").run()
    at.switch_page("pages/one_hot.py").run()
    at.switch_page("pages/quiz.py").run()
    assert at.text_input(key=key).value == "abc"
    page = open_page("pages/heatmap.py", "en")
    page.radio(key="qz_heatmap_2").set_value("all").run()
    page.switch_page("pages/qkv.py").run()
    page.switch_page("pages/heatmap.py").run()
    assert page.radio(key="qz_heatmap_2").value == "all"


def test_the_final_quiz_scores_and_a_new_attempt_draws_new_numbers():
    at = open_page("pages/quiz.py", "en", qz_seed="3")
    assert not at.exception
    first = [m.value for m in at.markdown]
    keys = [w.key for w in (*at.radio, *at.text_input) if w.key and w.key.startswith("final_")]
    assert len(keys) == 2 * len(course.concept_pages())
    radio = next(w for w in at.radio if w.key.startswith("final_"))
    radio.set_value(radio.options[1]).run()
    assert any(
        t("quiz.score", lang="en", right=0, total=len(keys), answered=1).split("(")[0][:10] in h.value
        for h in at.subheader
    )
    at.button[0].click().run()  # a new attempt
    assert at.number_input(key="qz_seed").value == 4
    assert [m.value for m in at.markdown] != first


def test_the_final_quiz_ends_with_the_way_back():
    at = open_page("pages/quiz.py", "en")
    links = [p.label for p in at.get("page_link")]
    last = course.concept_pages()[-1]
    assert links[-2:] == [
        t("course.previous", lang="en", page=t(f"{last.ns}.nav", lang="en")),
        t("course.to_start", lang="en"),
    ]


def test_the_final_quiz_says_what_to_reread_as_soon_as_an_answer_is_wrong():
    at = open_page("pages/quiz.py", "zh", qz_seed="2")
    assert "quiz_step" not in at.query_params  # the quiz has no lecture steps
    widget = next(w for w in at.text_input if w.key and w.key.startswith("final_"))
    question = next(q for q in QUESTIONS if widget.key.endswith(q.id))
    widget.input("-1").run()  # wrong, and the page's other question is still unanswered
    rereads = [p.label for p in at.get("page_link")]
    teacher = page_info(question.teacher)
    number = teacher.sections.index(question.section) + 1
    where = f"{t(f'{teacher.ns}.nav', lang='zh')} · {number} {t(f'{teacher.ns}.section_{question.section}', lang='zh')}"
    assert rereads.count(t("quiz.reread", lang="zh", where=where)) == 1  # under the question
    assert rereads.count(t("quiz.topic_reread", lang="zh", where=where)) == 1  # and in what to reread


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
        "page:one_hot",
        "page:before_self_attention",
        "page:qkv",
        "page:heatmap",
        "page:multi_head",
        "page:positional",
        "page:rnn_cnn",
        "page:scaling",
        "page:real_model",
        "page:quiz",
        *(key for keys in checks_v1.values() for key in keys),
        *(f"quiz:{ns}:{i}" for ns in checks_v1 for i in range(1, course.QUIZ_SIZE + 1)),
    )
    assert ITEMS[: len(old)] == old
    assert ITEMS[len(old) :] == (
        "page:train",
        "tr_check_ceiling",
        "tr_check_order",
        *(f"quiz:train:{i}" for i in range(1, 5)),
    )
    code = progress.encode({"page:heatmap", "qkv_check", "quiz:real_model:4"}, old)  # saved before the train page
    assert progress.decode(code, ITEMS) == {"page:heatmap", "qkv_check", "quiz:real_model:4"}
