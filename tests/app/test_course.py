"""The course (issue 15): the progress code and its round trip through the address, bad codes,
grading of typed and chosen answers, the quiz at the end of a page, the final quiz, and the
lecture plan."""

import ast
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from app_harness import open_page

from lab_ui import course, progress
from lab_ui import quiz as quiz_ui
from lab_ui.i18n import t
from lab_ui.quiz import Reading, is_right, read_number, shown
from lab_ui.quiz_bank import Task
from lab_ui.registry import LEDGER, PAGES
from lab_ui.registry import info as page_info

QUESTIONS = [q for info in PAGES if not info.scored for q in info.quiz]  # the pages' own quizzes
QUIZ = {info.ns: info.quiz for info in PAGES}

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
    (warning,) = (w.value for w in at.warning)  # on the home page its progress box says it, once
    assert "1zzzzzzzz" in warning and not at.toast
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
    question = next(q for q in QUIZ["one_hot"] if q.make.__name__ == "sound_vectors")
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


def test_every_manifest_item_is_in_the_ledger_once_and_every_page_has_an_objective():
    for info in PAGES:
        assert set(info.items) <= set(ITEMS), f"{info.ns}: append its items to lab_ui.registry.LEDGER"
        assert all(q.ns == info.ns for q in info.quiz), info.ns
        assert t(info.text["objective"], lang="en") and info.minutes > 0
        if info.ns != "quiz":
            assert len(info.quiz) == 4, info.ns
    assert len(set(ITEMS)) == len(ITEMS)


def _ledgers_in_history() -> list[tuple[str, tuple[str, ...]]]:
    """The progress items at every commit of the project that changed them: course.ITEMS before the
    manifests (lab_ui/course.py), registry.LEDGER since; [] outside a git checkout."""
    root = Path(__file__).resolve().parents[2]
    found = []
    # The course's first two drafts (1 December, within its first hour) ordered the items otherwise;
    # the order has been kept since e209479, the first to have every page of the first course.
    since = ["e209479^..HEAD"] if _has_commit(root, "e209479") else []
    for path, name in (("lab_ui/course.py", "ITEMS"), ("lab_ui/registry.py", "LEDGER")):
        try:
            log = subprocess.run(
                ["git", "log", "--format=%H", *since, "--", path], cwd=root, capture_output=True, text=True, check=True
            ).stdout.split()
        except (OSError, subprocess.CalledProcessError):
            return []
        for commit in log:
            source = subprocess.run(
                ["git", "show", f"{commit}:{path}"], cwd=root, capture_output=True, text=True
            ).stdout
            items = _items_defined(source, name)
            if items:
                found.append((commit[:8], items))
    return found


def _has_commit(root: Path, commit: str) -> bool:
    found = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=root, capture_output=True)
    return found.returncode == 0


def _items_defined(source: str, name: str) -> tuple[str, ...] | None:
    """The tuple a module assigns to `name`, evaluated with the module's frozen check lists."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    scope: dict = {"QUIZ_SIZE": 4}
    for node in tree.body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id in ("_CHECKS_V1", "CHECKS", name) and node.value is not None:
            try:
                scope[target.id] = eval(compile(ast.Expression(node.value), "<ledger>", "eval"), scope)
            except Exception:  # a definition that reads names of its module: not a ledger written out
                return None
    items = scope.get(name)
    return tuple(items) if items else None


def test_the_ledger_only_ever_grew():
    """A saved code's n-th bit is the n-th item: every earlier item list is a start of today's, so
    no item was removed, moved or put in between (a new page appends its items at the end)."""
    history = _ledgers_in_history()
    if not history:
        pytest.skip("not a git checkout: the ledger's history cannot be read")
    for commit, items in history:
        assert LEDGER[: len(items)] == items, f"the progress items at {commit} are not a start of LEDGER"


def _outside_maths(text: str) -> str:
    return re.sub(r"\$[^$]*\$", "", text)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_question_reads_in_both_languages_for_many_attempts(question, lang, monkeypatch):
    monkeypatch.setattr(quiz_ui, "t", lambda key, **values: t(key, lang=lang, **values))
    for seed in range(5):
        task = question.make(np.random.default_rng(seed))
        texts = [quiz_ui.words(question.text, **task.values)]
        answer = task.answer if task.options else shown(float(task.answer))
        texts.append(quiz_ui.words(question.why, **task.values, answer=answer))
        if task.options:
            assert task.answer in task.options
            texts += [quiz_ui.words(question.option(option)) for option in task.options]
        else:
            assert np.isfinite(float(task.answer))
        for text in texts:  # filled in: no placeholder left, no LaTeX brace left doubled
            assert text and "{" not in _outside_maths(text) and "{{" not in text and text.count("$") % 2 == 0, text


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_every_question_links_to_the_section_that_teaches_it(question):
    teacher = page_info(question.teacher)
    assert question.section in teacher.steps, f"{question.id}: no step {question.section!r} on {teacher.ns}"
    where = quiz_ui.where(question)
    number = teacher.step_names.index(question.section) + 1
    assert where.endswith(f"{number} {t(teacher.steps[question.section], lang='en')}")


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
    question = QUIZ["qkv"][0]
    asked = {question.make(np.random.default_rng(seed)).values["q"] for seed in range(10)}
    assert len(asked) > 5


# --- quizzes in the app ----------------------------------------------------------------------------


def test_a_page_quiz_grades_at_once_and_counts_toward_progress():
    at = open_page("pages/heatmap.py", "en", whole="1")
    question = QUIZ["heatmap"][1]  # a causal mask: which keys may token 3 see?
    at.radio(key="qz_heatmap_2").set_value("all").run()
    assert any(t("quiz.wrong", lang="en", answer=t(question.option("upto"), lang="en")) in e.value for e in at.error)
    assert question.id not in progress.decode(at.query_params["progress"], ITEMS)
    at.radio(key="qz_heatmap_2").set_value("upto").run()
    assert at.success and question.id in progress.decode(at.query_params["progress"], ITEMS)


def test_a_typed_quiz_answer_is_graded_and_bad_text_gets_a_hint():
    at = open_page("pages/scaling.py", "zh", whole="1")
    at.text_input(key="qz_scaling_2").input("abc").run()
    assert not at.exception
    assert any(t("quiz.hint_digits", lang="zh") in w.value for w in at.warning)
    task = quiz_ui.page_task(QUIZ["scaling"][1])
    at.text_input(key="qz_scaling_2").input(shown(float(task.answer))).run()
    assert any(t("quiz.right", lang="zh", answer=shown(float(task.answer))) in s.value for s in at.success)


def test_a_page_quiz_turns_to_the_step_that_teaches_a_question_on_the_page_itself():
    heatmap = page_info("heatmap")
    at = open_page("pages/heatmap.py", "en", hm_step=str(len(heatmap.steps)))  # the quiz follows the last step
    at.text_input(key="qz_heatmap_3").input("5").run()  # a local window: taught in step "speech"
    speech = heatmap.step_names.index("speech") + 1
    reread = next(b for b in at.button if b.key == "reread_quiz:heatmap:3")
    reread.click().run()
    assert not at.exception
    assert at.session_state[heatmap.step_key] == speech and at.query_params[heatmap.step_key] == str(speech)


def test_quiz_answers_survive_leaving_the_page_to_reread_and_coming_back():
    at = open_page("pages/quiz.py", "en", qz_seed="3")
    key = next(w.key for w in at.text_input if w.key and w.key.startswith("final_"))
    at.text_input(key=key).input("abc").run()
    at.switch_page("pages/one_hot.py").run()
    at.switch_page("pages/quiz.py").run()
    assert at.text_input(key=key).value == "abc"
    page = open_page("pages/heatmap.py", "en", whole="1")
    page.radio(key="qz_heatmap_2").set_value("all").run()
    page.switch_page("pages/qkv.py").run()
    page.switch_page("pages/heatmap.py").run()
    assert page.radio(key="qz_heatmap_2").value == "all"


def test_the_final_quiz_scores_and_a_new_attempt_draws_new_numbers():
    at = open_page("pages/quiz.py", "en", qz_seed="3")
    assert not at.exception
    first = [m.value for m in at.markdown]
    keys = [w.key for w in (*at.radio, *at.text_input) if w.key and w.key.startswith("final_")]
    assert len(keys) == len(page_info("quiz").quiz)
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
        t("course.previous", lang="en", page=t(last.text["nav"], lang="en")),
        t("course.to_start", lang="en"),
    ]


def test_the_final_quiz_says_what_to_reread_as_soon_as_an_answer_is_wrong():
    at = open_page("pages/quiz.py", "zh", qz_seed="2")
    assert "quiz_step" not in at.query_params  # the quiz has no lecture steps
    widget = next(w for w in at.text_input if w.key and w.key.startswith("final_"))
    question = next(q for q in page_info("quiz").quiz if widget.key.endswith(q.id))
    widget.input("-1").run()  # wrong, and the page's other question is still unanswered
    rereads = [p.label for p in at.get("page_link")]
    teacher = page_info(question.teacher)
    number = teacher.step_names.index(question.section) + 1
    where = f"{t(teacher.text['nav'], lang='zh')} · {number} {t(teacher.steps[question.section], lang='zh')}"
    assert rereads.count(t("quiz.reread", lang="zh", where=where)) == 1  # under the question
    assert rereads.count(t("quiz.topic_reread", lang="zh", where=where)) == 1  # and in what to reread


def test_the_lecture_plan_lists_step_links():
    rows = course.lecture_links("http://class:8501", "zh")
    for _title, i, _step, link in rows:
        assert link.startswith("http://class:8501/") and "lecture=1" in link and f"_step={i}" in link
    steps = sum(len(p.steps) for p in course.concept_pages())
    assert len(rows) == steps


@pytest.mark.parametrize("info", [p for p in PAGES if p.checks], ids=lambda p: p.ns)
def test_the_course_knows_every_check_yourself_of_every_page(info):
    """A check the course does not list would not count toward progress (each check draws a
    "Show the answer" toggle keyed <check key>_show while it is unanswered)."""
    at = open_page(info.path, "en", whole="1")  # every step, so every check
    drawn = {w.key[: -len("_show")] for w in at.toggle if w.key and w.key.endswith("_show")}
    assert drawn and drawn <= set(info.checks)  # some checks appear only under a setting


def test_the_final_quiz_asks_questions_of_its_own():
    """It reused the pages' quiz questions with new numbers (issue 26 #3): now its own, each taught
    by a step of a concept page."""
    final = page_info("quiz").quiz
    assert final and not {q.text for q in final} & {q.text for q in QUESTIONS}
    for question in final:
        assert question.section in page_info(question.teacher).steps, question.id


def test_the_final_quizs_best_score_is_kept_in_the_progress_code_and_shown_at_home():
    """After 19/20 the home page showed only "visited" (issue 26 #3)."""
    at = open_page("pages/quiz.py", "en", qz_seed="5")
    final = page_info("quiz").quiz
    right = 0
    for question in final[:3]:
        task = question.make(np.random.default_rng([5, ITEMS.index("page:quiz"), question.number]))
        key = f"final_5_{question.id}"
        if task.options:
            at.radio(key=key).set_value(task.answer).run()
        else:
            at.text_input(key=key).input(shown(float(task.answer))).run()
        right += 1
    passed = progress.decode(at.query_params["progress"], ITEMS)
    assert {f"final:best:{k}" for k in range(1, right + 1)} <= passed and f"final:best:{right + 1}" not in passed
    home = open_page("pages/home.py", "en", progress=at.query_params["progress"])
    best = t("course.status_best", lang="en", best=right, total=len(final))
    assert any(c.value.endswith(best) for c in home.caption)


def test_no_check_yourself_question_is_a_quiz_question_again():
    """Issue 26 #8: a page's check and its quiz ask different things (a student who answered one has
    not answered the other). Measured on the words: at most half the characters in common."""
    import difflib
    import tomllib
    from pathlib import Path

    for path in sorted((Path(__file__).resolve().parents[2] / "lab_ui" / "locales").glob("*.toml")):
        catalog = tomllib.loads(path.read_text(encoding="utf-8"))
        words = {k: v for k, v in catalog.items() if isinstance(v, dict)}
        checks = [v["en"] for k, v in words.items() if "check" in k and "question" in k]
        quiz = [v["en"] for k, v in words.items() if k.startswith("quiz_") and k.count("_") == 1]
        for check in checks:
            for question in quiz:
                ratio = difflib.SequenceMatcher(None, check, question).ratio()
                assert ratio <= 0.5, (path.stem, check, question, round(ratio, 2))
