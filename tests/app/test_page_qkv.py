"""The Q, K, V page in AppTest: open the step a test reads, move the controls, then check the
numbers it shows against the core, computed here independently of the page."""

from dataclasses import fields

import numpy as np
import pytest
from app_harness import CHART, figure_alts, figures, link_of, open_page, open_step, plotly_array

from attention_core.dropout import attention_dropout
from attention_core.steps import random_weights, repeat_groups, sentence_matrix, sentence_walkthrough
from lab_ui import quiz_bank
from lab_ui.i18n import t
from lab_ui.registry import info as page_info
from pages import qkv as page_module
from pages.qkv import Controls as C

PAGE = "pages/qkv.py"
INFO = page_info("qkv")
STEPS = INFO.step_names
TOKENS = ["I", "saw", "a", "saw"]
SEED = 3  # the page's default seed
FIGURES = {
    "tokens": {"qkv_tokens"},
    "weights": set(),
    "qkv": set(),
    "check": set(),
    "scores": set(),
    "softmax": {"qkv_scores"},
    "output": {"qkv_sum"},
    "matrix": set(),
    "additive": {"qkv_dot_vs_add"},
    "dropout": {"qkv_dropout"},
}
link = link_of(C)


def at_step(step: str, lang: str = "en", **params):
    return open_step(PAGE, step, lang, **params)


def table(at, step: str):
    """A step's folded numbers (built only when its box is open), opened."""
    at.session_state[f"qkv_{step}_table"] = True
    at.run()
    (frame,) = [d.value for d in at.dataframe if "_ed" not in (d.proto.id or "")]  # not the weight grids
    return frame


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error, *at.latex, *at.code]
    return "\n".join(p.value for p in parts)


def headings(at) -> list[str]:
    """The steps' numbered headings."""
    return [h.value for h in at.subheader if h.value[:1].isdigit()]  # not the quiz at the end


def unlock(at):
    """Show the check's answer, so that no number is hidden (see the check tests)."""
    at.session_state["qkv_check_show"] = True
    return at.run()


def open_unlocked(step: str, **params):
    """A step with the check's answer shown (a link cannot do that: it never holds the answer)."""
    return unlock(at_step(step, **params))


def hidden_scores(at) -> list[str]:
    """The score lines that end in "?" instead of their number."""
    return [line for line in texts(at).split("$") if line.endswith(r"= \;?")]


def weights(d_model: int, d_k: int, seed: int = SEED):
    """W_q, W_k, W_v as the page draws them: one generator, in that order."""
    rng = np.random.default_rng(seed)
    return [random_weights(d_model, d_k, rng) for _ in range(3)]


def scores_bars(at) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = figures(at)["qkv_scores"]["data"]
    return plotly_array(data[0]["y"]), plotly_array(data[1]["y"]), plotly_array(data[2]["y"])


def qkv_numbers(at) -> dict[str, np.ndarray]:
    """I, Q, K, V from the qkv step's table."""
    frame = table(at, "qkv")
    cols = lambda letter: [c for c in frame.columns if c.startswith(f"{letter}[")]  # noqa: E731
    return {letter: frame[cols(letter)].to_numpy() for letter in "aqkv"}


# --- the declaration --------------------------------------------------------------------------------------


def test_the_page_is_declared_once_and_its_steps_get_plain_values():
    page_module.PAGE.check()
    assert (
        *("tokens", "weights", "qkv", "check", "scores", "softmax"),
        "output",
        "matrix",
        "additive",
        "dropout",
    ) == STEPS
    old = ["qkv_text", "qkv_dm", "qkv_dk", "qkv_seed", "qkv_w", "qkv_wq", "qkv_wk", "qkv_wv", "qkv_q"]
    assert [c.key for c in C.on_step(None)] == old  # the links' parameters of old
    assert {c.key for c in C.on_step("dropout")} == {C.p.key, C.training.key, C.mask_seed.key}
    plain = {f.name: f.type for f in fields(page_module.Settings)}
    assert "ndarray" not in str(plain) and "QKVWalkthrough" not in str(plain)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_whole_page_runs_in_both_languages_with_every_step(lang):
    at = open_page(PAGE, lang=lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("qkv.title", lang=lang)
    assert headings(at) == [f"{n} · {t(INFO.steps[name], lang=lang)}" for n, name in enumerate(STEPS, 1)]
    assert set(figures(at)) == set().union(*FIGURES.values())
    assert all(alt.strip() for alt in figure_alts(at))
    body = texts(at)
    assert t("qkv.rows_vs_columns", lang=lang)[:20] in body
    assert "得到一个数值k" in body  # the article's sentence is quoted, and marked as a mistake
    assert t("qkv.repeated_article", lang=lang) in body  # article 001's own example, said so
    assert t("qkv.weights_random", lang=lang, seed=SEED) in body  # random weights say they are random


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEPS)
def test_each_step_is_alone_on_the_screen(step, lang):
    """Issue 24: one step at a time; an old link's qkv_step=n opens the same step."""
    at = at_step(step, lang)
    assert not at.exception
    assert set(figures(at)) == FIGURES[step]
    assert headings(at) == [f"{STEPS.index(step) + 1} · {t(INFO.steps[step], lang=lang)}"]
    own = {c.key for c in C.entries() if c.on == step}
    drawn = {w.key for w in (*at.slider, *at.number_input, *at.toggle)}
    assert own <= drawn and not {c.key for c in C.entries() if c.on not in (None, step)} & drawn


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_headings_and_navigation_are_plain_words(lang):
    """No pseudo-maths (α_ij = q_i · k_j, Q = I W_q) where KaTeX does not render it."""
    for key in ("nav", "title", "summary", *(f"section_{name}" for name in STEPS)):
        text = t(f"qkv.{key}", lang=lang)
        assert not any(sign in text for sign in ("_", "=", "·", "√", "Σ", "$")), (key, text)


def test_every_matrix_is_printed_with_its_shape():
    latex = ""
    for step in ("tokens", "weights", "qkv", "matrix"):
        latex += texts(open_unlocked(step))
    for shape in (
        r"I\ [4 \times 3]",
        r"W_q\ [3 \times 2]",
        r"W_v\ [3 \times 2]",
        r"Q = I\,W_q\ [4 \times 2]",
        r"K = I\,W_k\ [4 \times 2]",
        r"A\ [4 \times 4]",
        r"O\ [4 \times 2]",
    ):
        assert shape in latex, shape


def test_formula_beside_the_few_lines_of_code_that_compute_it():
    names = {"qkv": "project", "scores": "dot_scores", "softmax": "scaled_softmax", "output": "weighted_sum"}
    names |= {"matrix": "matrix_form", "additive": "additive_scores"}
    for step, name in names.items():
        at = at_step(step)
        assert not [c for c in at.code if c.value.startswith("def ")]  # folded: not built until opened
        at.session_state[f"qkv_{step}_formula"] = True
        at.run()
        (code,) = [c.value for c in at.code if c.value.startswith("def ")]
        assert code.split("(")[0] == f"def {name}"
        assert len(code.splitlines()) <= 8  # the formula's lines, not a page of argument checks


# --- the numbers ------------------------------------------------------------------------------------


def test_Q_K_V_shown_equal_I_times_the_weights():
    at = at_step("qkv")
    frame = table(at, "qkv")
    assert frame.index.name == t("qkv.token_index") and list(frame.index) == ["1 · I", "2 · saw", "3 · a", "4 · saw"]
    m = qkv_numbers(at)
    np.testing.assert_array_equal(m["a"], sentence_matrix(TOKENS, 3, SEED))
    for letter, w in zip("qkv", weights(3, 2), strict=True):
        np.testing.assert_allclose(m[letter], m["a"] @ w, atol=1e-12)  # rows: I @ W, not W I
    np.testing.assert_array_equal(m["a"][1], m["a"][3])  # the two "saw"s are one vector


def test_each_score_is_the_sum_of_its_shown_products_for_any_query():
    at = open_unlocked("scores", **link(query=3))
    products = table(at, "scores")
    terms = products[["q3[1]·k[1]", "q3[2]·k[2]"]].to_numpy()
    alpha = products["α3,j"].to_numpy()
    np.testing.assert_allclose(terms.sum(axis=1), alpha, atol=1e-12)
    x = sentence_matrix(TOKENS, 3, SEED)
    w_q, w_k, _ = weights(3, 2)
    np.testing.assert_allclose(alpha, (x @ w_k) @ (x @ w_q)[2], atol=1e-12)  # α_3j = q_3 · k_j
    assert r"\alpha_{3,2} = q_{3} \cdot k_{2}" in texts(at)
    at = open_unlocked("softmax", **link(query=3))
    np.testing.assert_allclose(scores_bars(at)[0], alpha, atol=1e-5)


def test_weights_sum_to_one_and_the_d_k_slider_changes_the_scale():
    at = open_unlocked("softmax")
    alpha, scaled, weight = scores_bars(at)
    assert weight.sum() == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_allclose(scaled, alpha / np.sqrt(2), atol=1e-5)
    assert r"\frac{1}{\sqrt{2}} = 0.7071" in texts(at)

    at.slider(key=C.d_k.key).set_value(5).run()
    assert not at.exception
    alpha, scaled, weight = scores_bars(at)
    np.testing.assert_allclose(scaled, alpha / np.sqrt(5), atol=1e-5)
    assert r"\frac{1}{\sqrt{5}} = 0.4472" in texts(at)
    soft = table(at, "softmax")
    assert soft["α'"].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(soft["α/√d_k"], soft["α"] / np.sqrt(5))
    at = open_unlocked("matrix", **link(d_k=5))
    weights_matrix = table(at, "matrix").to_numpy()  # A', one row per query
    np.testing.assert_allclose(weights_matrix.sum(axis=1), 1.0)
    np.testing.assert_allclose(weights_matrix[0], soft["α'"])  # the matrix form agrees with the softmax step


def test_output_is_the_weighted_sum_of_the_values():
    at = at_step("output")
    r = sentence_walkthrough(tuple(TOKENS), 3, 2, SEED, 0)
    V = sentence_matrix(TOKENS, 3, SEED) @ weights(3, 2)[2]
    parts = table(at, "output")
    np.testing.assert_allclose(parts.to_numpy()[:4], r.query.alpha_prime[:, None] * V)
    np.testing.assert_allclose(parts.loc["b1"].to_numpy(), r.query.alpha_prime @ V)
    diamonds = figures(at)["qkv_sum"]["data"][-1]
    np.testing.assert_allclose(plotly_array(diamonds["y"]), r.query.alpha_prime @ V, atol=1e-5)
    at = at_step("matrix")
    assert t("qkv.same_as_steps", i=1, softmax=6, output=7) in texts(at)


# --- repeated tokens: every repeat named (issue 26 #4) -------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_two_saws_are_named_as_article_001s_example(lang):
    at = at_step("tokens", lang)
    body = texts(at)
    pair = t("qkv.repeated_pair", lang=lang, positions=f"2{t('qkv.repeat_last', lang=lang)}4", token="saw")
    assert t("qkv.repeated", lang=lang, groups=pair) in body
    assert t("qkv.repeated_article", lang=lang) in body


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_students_own_repeated_token_is_not_called_the_articles_example(lang):
    at = at_step("tokens", lang, **link(text="cat and cat"))
    body = texts(at)
    pair = t("qkv.repeated_pair", lang=lang, positions=f"1{t('qkv.repeat_last', lang=lang)}3", token="cat")
    assert t("qkv.repeated", lang=lang, groups=pair) in body
    assert t("qkv.repeated_article", lang=lang) not in body  # but they are not article 001's two "saw"s


def test_the_tokens_map_is_I_and_shows_the_two_saws_as_one_row():
    z = plotly_array(figures(at_step("tokens"))["qkv_tokens"]["data"][0]["z"])
    np.testing.assert_allclose(z, sentence_matrix(TOKENS, 3, SEED), atol=1e-6)  # float32 in the browser
    np.testing.assert_array_equal(z[1], z[3])


def test_repeat_groups_hold_every_position_of_every_repeated_token():
    assert repeat_groups(["I", "saw", "a", "saw"]) == ((1, 3),)
    assert repeat_groups(["the", "cat", "saw", "the", "dog", "the", "end"]) == ((0, 3, 5),)
    assert repeat_groups(list("abab")) == ((0, 2), (1, 3)) and repeat_groups(["x", "y"]) == ()


def test_every_repeat_is_named_not_only_the_first_pair():
    """Issue 26 #4: "Tokens 7 and 11 are both 'the'" while token 15 was "the" too."""
    text = "the animal did not cross the street because it was too tired to walk the"
    at = at_step("tokens", **link(text=text))
    (notice,) = [i.value for i in at.info if "the" in i.value and "1" in i.value]
    assert "Tokens 1, 6 and 15 are all “the”" in notice
    at = at_step("tokens", **link(text="a b a b a"))
    (notice,) = [i.value for i in at.info if "“a”" in i.value]
    assert "Tokens 1, 3 and 5 are all “a”" in notice and "Tokens 2 and 4 are both “b”" in notice
    at = at_step("matrix", **link(text="a b a b a"))
    assert t("qkv.repeated_out", rows="1, 3 and 5; 2 and 4") in texts(at)


# --- typed weights and the link -----------------------------------------------------------------------


def test_typed_weights_come_from_the_link_and_stay_in_it():
    at = at_step("qkv", **link(source="typed"), qkv_wq="1~0_0~-1.5_2~0.25")
    assert not at.exception and not at.toast
    w_q = np.array([[1, 0], [0, -1.5], [2, 0.25]])
    m = qkv_numbers(at)
    np.testing.assert_allclose(m["q"], m["a"] @ w_q)
    np.testing.assert_allclose(m["k"], m["a"] @ weights(3, 2)[1])  # untouched: random
    assert at.query_params[C.wq.key] == "1~0_0~-1.5_2~0.25"
    assert C.wk.key not in at.query_params  # equal to the random default, so left out of the link
    editors = [d for d in at.dataframe if "qkv_wq_ed" in d.proto.id]
    np.testing.assert_array_equal(editors[0].value.to_numpy(), w_q)  # the grid shows what the link holds

    # Growing d_model keeps what was typed and fills the new row from the random weights.
    at.slider(key=C.d_model.key).set_value(4).run()
    grown = np.array([[float(v) for v in row.split("~")] for row in at.query_params[C.wq.key].split("_")])
    np.testing.assert_array_equal(grown[:3], w_q)
    np.testing.assert_array_equal(grown[3], weights(4, 2)[0][3])

    # Back to random weights: the typed matrix leaves the link (kept in the session).
    at.button_group(key=C.source.key).set_value("random").run()
    assert C.wq.key not in at.query_params


def test_typed_weights_need_small_sizes():
    at = at_step("tokens", **link(source="typed", d_model=6), qkv_wq="1~0_0~1")
    assert not at.exception
    assert t("qkv.typed_too_big", max=4) in texts(at)
    assert not [d for d in at.dataframe if "qkv_wq_ed" in d.proto.id]


NUMBER_KEYS = ("qkv_dm", "qkv_dk", "qkv_seed", "qkv_q", "qkv_step", "qkv_wq", "qkv_wk", "qkv_wv", "qkv_w")
NO_NUMBER = ("1e309", "-1e309", "1e-400", "9e999")  # infinity, minus infinity, a zero, infinity again


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("qkv_wq", "1~2_3"),  # ragged rows
        ("qkv_wq", "1~x_3~4_5~6"),  # not a number
        ("qkv_wq", "1e9~0_0~1_1~1"),  # beyond ±99
        ("qkv_wq", "nan~0_0~1_1~1"),
        ("qkv_wq", "1e309~0_0~1_1~1"),
        ("qkv_dk", "99"),
        ("qkv_dm", "abc"),
        ("qkv_q", "9"),
        ("qkv_w", "magic"),
        ("qkv_step", "42"),
        ("qkv_p", "0.95"),
        ("qkv_dseed", "-1"),
        *((key, value) for key in NUMBER_KEYS for value in NO_NUMBER),
    ],
)
def test_a_bad_link_value_falls_back_with_a_notice_and_keeps_the_rest(key, value):
    params = {"qkv_text": "cats chase mice", "qkv_dk": "3", "qkv_seed": "7", "qkv_q": "2"} | {key: value}
    if key.startswith("qkv_w") and key != "qkv_w":
        params["qkv_w"] = "typed"
    if key in ("qkv_p", "qkv_dseed"):
        params["qkv_step"] = str(STEPS.index("dropout") + 1)
    at = open_page(PAGE, **params)
    assert not at.exception and not at.error
    assert at.toast and key in at.toast[0].value
    assert at.text_input(key="qkv_text").value == "cats chase mice"  # nothing else is lost
    for other, control in (("qkv_dk", at.slider), ("qkv_seed", at.number_input)):
        if other != key:
            assert control(key=other).value == int(params[other]), other
    if key != "qkv_q":
        assert at.button_group(key="qkv_q").value == 2
    if key == "qkv_step":
        assert headings(at)[0].startswith("1 ·")


# --- check yourself ---------------------------------------------------------------------------------------


def alpha_12() -> float:
    w_q, w_k, _ = weights(3, 2)
    x = sentence_matrix(TOKENS, 3, SEED)
    return float((x[0] @ w_q) @ (x[1] @ w_k))


def test_the_typed_answer_is_checked():
    at = at_step("check")
    answer = alpha_12()  # α_12 = q_1 · k_2
    at.number_input(key="qkv_check").set_value(answer + 0.5).run()
    assert at.error and not at.success
    at.number_input(key="qkv_check").set_value(round(answer, 3)).run()
    assert at.success and f"{answer:.4f}" in at.success[0].value
    assert any(f"{answer:.4f}" in i.value and "Multiply" in i.value for i in at.info)  # and why


def test_a_one_token_sentence_asks_for_alpha_11():
    at = at_step("check", **link(text="hello"))
    assert not at.exception
    assert r"\alpha_{1,1} = q_1 \cdot k_{1}" in texts(at)


def shows_answer(at, answer: float) -> bool:
    """Is the check's answer anywhere: written out, in the scores chart, or in A = Q Kᵀ?"""
    chart = figures(at).get("qkv_scores", {"data": [{"text": []}]})["data"][0]["text"]
    return f"{answer:.3f}" in texts(at) or f"{answer:.2f}" in chart or f"{answer:.2f}" in texts(at)


def test_the_check_comes_before_the_steps_that_answer_it_and_they_hide_its_numbers():
    assert STEPS.index("check") == 3  # right after Q, K, V
    answer = alpha_12()
    at = at_step("check")
    assert not shows_answer(at, answer)
    assert [i.value for i in at.info] == [t("qkv.check_locks", j=2)]
    for step in ("scores", "softmax", "matrix", "additive"):
        at = at_step(step)
        assert not shows_answer(at, answer), step
    at = at_step("scores")
    assert len(hidden_scores(at)) == 2  # α_12 and α_14 ("saw" twice)
    assert [i.value for i in at.info] == [t("qkv.check_hides", j=2, step=4)]  # one notice, not one per number
    assert len(hidden_scores(at_step("additive"))) == 1  # α_12 in the comparison
    assert figures(at_step("softmax"))["qkv_scores"]["data"][0]["text"] == ["2.18", "?", "4.32", "?"]
    assert "?" in next(x.value for x in at_step("matrix").latex if r"A\ [4 \times 4]" in x.value)

    # The notice's button turns to the check; a wrong answer there: still hidden; a right one: shown.
    at.button(key="qkv_scores_to_check").click().run()
    assert headings(at) == [f"4 · {t('qkv.section_check')}"]
    at.number_input(key="qkv_check").set_value(answer + 0.5).run()
    at.button(key=f"{INFO.step_key}_next").click().run()
    assert not shows_answer(at, answer) and hidden_scores(at)
    at.button(key=f"{INFO.step_key}_prev").click().run()
    at.number_input(key="qkv_check").set_value(round(answer, 2)).run()
    at.button(key=f"{INFO.step_key}_next").click().run()
    assert shows_answer(at, answer) and not hidden_scores(at)
    assert not [i for i in at.info if i.value == t("qkv.check_hides", j=2, step=4)]


def test_on_the_whole_page_an_answer_shows_the_numbers_below_it():
    """The check reruns on its own when typed into; the steps below it follow."""
    at = open_page(PAGE, whole="1")
    answer = alpha_12()
    assert not shows_answer(at, answer) and hidden_scores(at)
    at.number_input(key="qkv_check").set_value(round(answer, 2)).run()
    assert not at.exception
    assert shows_answer(at, answer) and not hidden_scores(at)


def test_show_the_answer_unlocks_and_stays_out_of_the_link():
    at = at_step("check")
    at.toggle(key="qkv_check_show").set_value(True).run()
    assert not at.exception and not at.warning
    at.button(key=f"{INFO.step_key}_next").click().run()
    assert shows_answer(at, alpha_12())
    assert "qkv_check_show" not in at.query_params and "qkv_check" not in at.query_params


@pytest.mark.parametrize(
    "params", [{"qkv_check": "2.4478"}, {"qkv_check_show": "true"}, {"qkv_check": "2.4478", "qkv_check_show": "true"}]
)
def test_a_link_never_unlocks_the_hidden_numbers(params):
    """Issue 11: the check's answer once rode in the link (qkv_check=2.46), so a shared link showed
    the next student every hidden number. Such a link now unlocks nothing, and loses those values."""
    at = open_page(PAGE, whole="1", **params)
    assert not at.exception
    assert at.number_input(key="qkv_check").value is None
    assert at.toggle(key="qkv_check_show").value is False
    assert not shows_answer(at, alpha_12()) and hidden_scores(at)
    assert "qkv_check" not in at.query_params and "qkv_check_show" not in at.query_params


def test_another_query_keeps_its_own_sums_but_A_waits():
    at = at_step("softmax", **link(query=3))
    assert "?" not in figures(at)["qkv_scores"]["data"][0]["text"]  # query 3's scores are not the check's answer
    at = at_step("scores", **link(query=3))
    assert r"\alpha_{3,2} = q_{3} \cdot k_{2}" in texts(at) and not hidden_scores(at)
    assert not [i for i in at.info if i.value == t("qkv.check_hides", j=2, step=4)]
    at = at_step("matrix", **link(query=3))
    assert "?" in next(x.value for x in at.latex if r"A\ [4 \times 4]" in x.value)  # A holds α_12
    assert len([i for i in at.info if i.value == t("qkv.check_hides", j=2, step=4)]) == 1


def test_lecture_mode_asks_on_a_screen_of_its_own():
    at = open_page(PAGE, lecture="1", qkv_step="4")
    assert not at.exception
    answer = alpha_12()
    assert f"{answer:.3f}" not in texts(at) and not figures(at)
    assert r"\alpha_{1,2} = q_1 \cdot k_{2}" in texts(at)  # the question, with q_1 and k_2 written out


def test_the_checks_vectors_wrap_with_the_words_on_a_phone():
    """With d_k = 8 the question's q_1 and k_2 were bracketed arrays, which never break: on a 390 px
    phone their last numbers were off the screen. Written [a, b, ...] with a break allowed after
    every comma, they wrap; the numbers are still every one of q_1's and k_2's."""
    at = at_step("check", **link(d_model=8, d_k=8))
    x = sentence_matrix(TOKENS, 8, SEED)
    w_q, w_k, _ = weights(8, 8)
    question = next(m.value for m in at.markdown if "(before scaling)" in m.value)
    assert r"\begin{array}" not in question
    for vector in (x[0] @ w_q, x[1] @ w_k):
        shown = [f"{v:.2f}" if round(v, 2) != 0 else "0.00" for v in vector]
        assert ",\\allowbreak\\ ".join(shown) in question, vector


def test_the_quiz_never_asks_the_checks_task_again():
    """Issue 26 #8: the check asks one score q·k of two given vectors by hand; the page's quiz asked
    the same (a query, a key, "what is q · k?"). Its questions go on from there instead."""
    rng = np.random.default_rng(0)
    for question in INFO.quiz:
        task = question.make(rng)
        values = task.values
        if "q" in values and "k" in values:
            q, k = (np.array([float(v) for v in values[name].strip("[]").split(",")]) for name in ("q", "k"))
            assert task.answer != pytest.approx(float(q @ k)), question.text
    task = quiz_bank.two_key_weight(np.random.default_rng(1))
    q, k1, k2 = (np.array([float(v) for v in task.values[n].strip("[]").split(",")]) for n in ("q", "k1", "k2"))
    assert task.answer == pytest.approx(np.exp(q @ k1) / (np.exp(q @ k1) + np.exp(q @ k2)))
    check = t("qkv.check_question", j=2, q1="x", kj="y").split("$")
    assert all(t(q.text).split("$")[0] not in check for q in INFO.quiz)  # no question opens with the check's words


# --- the articles' mistakes, pointed out where the page teaches the right thing (issue 26 #14) -----------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_article_001s_softmax_is_no_fully_connected_layers_activation(lang):
    body = texts(at_step("softmax", lang))
    assert "之后再经过的全连接层的激活函数不一定是softmax" in body  # quoted as the article writes it
    assert t("qkv.softmax_mistake", lang=lang) in body


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_article_003s_unused_attn_layer_is_pointed_out_by_the_additive_model(lang):
    at = at_step("additive", lang)
    assert "self.attn = nn.Linear(embed_dim, 1)" in next(c.value for c in at.code)
    assert "用于计算attention的权重" in texts(at) and "`forward`" in t("qkv.attn_mistake", lang=lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_article_003s_required_mask_and_float_dropout_are_pointed_out(lang):
    at = at_step("dropout", lang)
    (code,) = [c.value for c in at.code]
    assert "def forward(self, q, k, v, mask=None):" in code and "if mask is not None:" in code
    assert "self.dropout = nn.Dropout(p=dropout)" in code
    words = t("qkv.code_mistake", lang=lang)
    assert words in texts(at) and "forward(self, q, k, v, mask)" in words and "self.dropout = dropout" in words


# --- dropout on the weights (issue 26 #11) ------------------------------------------------------------


def test_dropout_zeroes_weights_and_scales_the_rest_of_the_pages_own_row():
    at = at_step("dropout")
    r = sentence_walkthrough(tuple(TOKENS), 3, 2, SEED, 0)
    data = figures(at)["qkv_dropout"]["data"]
    before, after, mean = (plotly_array(trace["y"]) for trace in data)
    np.testing.assert_allclose(before, r.query.alpha_prime, atol=1e-6)  # the softmax step's row
    dropped = after == 0
    assert dropped.any() and not dropped.all()  # the default mask drops some, keeps some
    np.testing.assert_allclose(after[~dropped], before[~dropped] / (1 - 0.1), atol=1e-6)
    assert t(
        "qkv.dropout_scaled",
        p="0.1",
        scale="1.1111",
        total=f"{after.sum():.3f}",
        n=2000,
        gap=f"{np.abs(mean - before).max():.3f}",
    )[:60] in texts(at)
    np.testing.assert_allclose(mean, before, atol=0.05)  # on average, the row itself
    assert "0 ✕" in data[1]["text"]


def test_dropout_follows_p_and_is_off_outside_training():
    at = at_step("dropout")
    at.slider(key=C.p.key).set_value(0.5).run()
    after = plotly_array(figures(at)["qkv_dropout"]["data"][1]["y"])
    before = plotly_array(figures(at)["qkv_dropout"]["data"][0]["y"])
    kept = after > 0
    np.testing.assert_allclose(after[kept], 2 * before[kept], atol=1e-6)  # 1/(1 - 0.5) = 2
    frame = table(at, "dropout")
    assert frame[t("qkv.dropout_kept")].tolist() == kept.tolist()
    at.toggle(key=C.training.key).set_value(False).run()
    after = plotly_array(figures(at)["qkv_dropout"]["data"][1]["y"])
    np.testing.assert_allclose(after, before, atol=1e-6)
    assert t("qkv.dropout_eval") in texts(at)


def test_the_dropout_core_function_is_seeded_and_checks_p():
    row = np.array([0.1, 0.2, 0.3, 0.4])
    a, b = attention_dropout(row, 0.5, seed=4), attention_dropout(row, 0.5, seed=4)
    np.testing.assert_array_equal(a.keep, b.keep)  # the same seed, the same mask
    np.testing.assert_allclose(a.dropped, np.where(a.keep, row * 2, 0.0))
    assert a.row_sum == pytest.approx(a.dropped.sum())
    off = attention_dropout(row, 0.5, seed=4, training=False)
    np.testing.assert_array_equal(off.dropped, row) and off.scale == 1.0
    for p in (-0.1, 1.0, 1.5):
        with pytest.raises(ValueError, match="dropout probability"):
            attention_dropout(row, p, seed=0)
    V = np.eye(4)
    np.testing.assert_allclose(attention_dropout(row, 0.0, seed=0, V=V).output, row)  # p = 0: nothing changes


# --- lecture mode, presets, extremes, bad text -------------------------------------------------------------


def test_lecture_mode_shows_one_step_and_keeps_it_in_the_link():
    at = open_page(PAGE, lecture="1", qkv_step="5")
    assert not at.exception
    body = texts(at)
    assert "得到一个数值k" in body  # step 5, the scores: nothing is hidden in lecture mode
    assert r"\alpha_{1,2} = q_{1} \cdot k_{2}" in body and not hidden_scores(at)
    assert r"I\ [4 \times 3]" not in body  # step 1 is hidden
    assert not headings(at)  # the step bar names the step instead
    at.button(key="qkv_step_next").click().run()
    assert at.query_params["qkv_step"] == "6"
    assert "qkv_scores" in figures(at) and "qkv_sum" not in figures(at)


@pytest.mark.parametrize(("step", "main"), [(1, "I"), (2, "W_q"), (3, "I"), (5, "q_{1}"), (8, "A")])
def test_each_lecture_step_starts_with_its_matrices_and_folds_its_words(step, main):
    """Right under the step bar: the step's figure or matrices; its words folded into one line
    below them, so that a projector's first screen holds the block whole."""
    at = open_page(PAGE, lecture="1", qkv_step=str(step))
    assert not at.exception
    kinds = [e for e in at.main if e.type in ("latex", "expandable")]
    assert kinds[0].type == "latex" and main in kinds[0].value  # not the folded words
    assert t("common.section_text") in [e.label for e in at.expander]


@pytest.mark.parametrize("step", [6, 7, 9, 10])
def test_each_lecture_step_with_a_figure_starts_with_it(step):
    at = open_page(PAGE, lecture="1", qkv_step=str(step))
    kinds = [e.type for e in at.main if e.type in (CHART, "expandable", "latex")]
    assert kinds[0] == CHART, kinds


def test_presets_set_the_controls():
    at = open_unlocked("softmax")
    at.button(key="qkv_preset_match").click().run()
    assert not at.exception
    assert at.button_group(key=C.source.key).value == "typed"
    _, _, weight = scores_bars(at)  # query "saw" with W_q = W_k: both "saw"s, equally, and little else
    assert weight[1] == pytest.approx(weight[3]) and weight[1] + weight[3] > 0.9

    at.button(key="qkv_preset_long").click().run()
    assert not at.exception
    assert len(plotly_array(figures(at)["qkv_scores"]["data"][0]["y"])) == 16

    at.button(key="qkv_preset_chars").click().run()
    assert figures(at)["qkv_scores"]["layout"]["xaxis"]["ticktext"] == list("机器学习")

    at.button(key="qkv_preset_article").click().run()
    assert at.text_input(key=C.text.key).value == "I saw a saw"
    assert at.slider(key=C.d_model.key).value == 3 and at.slider(key=C.d_k.key).value == 2


def test_a_long_sentence_draws_A_prime_instead_of_printing_it():
    at = at_step("matrix", **link(text=page_module.LONG, d_model=8, d_k=4, query=9))
    assert "qkv_weights" in figures(at)  # 16 × 16 is drawn, not printed
    assert table(at, "matrix").shape == (16, 16)
    assert figures(at)["qkv_weights"]["layout"]["xaxis"]["tickangle"] == -60  # words at an angle given


@pytest.mark.parametrize(("d_model", "d_k"), [(1, 1), (8, 8), (1, 8), (8, 1)])
def test_every_size_runs(d_model, d_k):
    at = open_unlocked("softmax", **link(d_model=d_model, d_k=d_k))
    assert not at.exception
    _, _, weight = scores_bars(at)
    assert weight.sum() == pytest.approx(1.0, abs=1e-6)
    at = at_step("qkv", **link(d_model=d_model, d_k=d_k))
    assert table(at, "qkv").shape == (4, d_model + 3 * d_k)


AWKWARD = [
    "",
    "   ",
    "word " * 1000,
    "😀 👍🏽 🎉",
    "我看见一把锯",
    "مرحبا بالعالم",
    "a\u200bb\u200c\u200fc",
    "<b>bold</b> <script>x</script>",
]


@pytest.mark.parametrize("text", AWKWARD)
def test_awkward_text_never_breaks_the_page(text):
    at = open_unlocked("softmax", **link(text=text))
    assert not at.exception
    n = len(plotly_array(figures(at)["qkv_scores"]["data"][0]["y"]))
    assert 1 <= n <= 16
    if not text.strip():
        assert t("common.empty_text", example="I saw a saw") in texts(at)
    if text.startswith("word"):
        assert t("common.tokens_cut", total=1000, shown=16) in texts(at)
    if "<b>" in text:
        assert "&lt;" in figures(at)["qkv_scores"]["layout"]["xaxis"]["ticktext"]
        assert r"**\<**" in texts(at_step("tokens", **link(text=text)))  # a token of its own, shown as text


def test_a_shorter_sentence_keeps_a_valid_query():
    at = at_step("tokens")
    at.button_group(key=C.query.key).set_value(4).run()
    at.text_input(key=C.text.key).set_value("two words").run()
    assert not at.exception
    assert at.button_group(key=C.query.key).value == 2


def test_the_largest_seed_works_and_a_negative_one_falls_back():
    at = at_step("qkv", **link(seed=2**31 - 1))
    assert not at.exception
    m = qkv_numbers(at)
    np.testing.assert_allclose(m["q"], m["a"] @ weights(3, 2, seed=2**31 - 1)[0])
    at = open_page(PAGE, qkv_seed="-1")
    assert not at.exception and at.toast and "qkv_seed" in at.toast[0].value
    assert at.number_input(key=C.seed.key).value == SEED


def test_seed_quotes_are_translated_on_the_english_page():
    body = texts(at_step("weights", "en")) + texts(at_step("qkv", "en"))
    assert "矩阵Wq、Wk、Wv是需要学习的参数" in body and "the parameters to be learned" in body
    assert "这个矩阵有4个column" in body and "this matrix has 4 columns" in body
