"""The Q, K, V page in AppTest: move the controls, then check the numbers it shows against the core,
computed here independently of the page."""

import numpy as np
import pytest
from app_harness import figures, open_page, plotly_array

from attention_core.steps import random_weights, sentence_matrix
from lab_ui.i18n import t

PAGE = "pages/qkv.py"
TOKENS = ["I", "saw", "a", "saw"]
SEED = 3  # the page's default seed


def table(at, first_column: str):
    """A table the page shows, found by the name of its first column."""
    return next(d.value for d in at.dataframe if str(d.value.columns[0]) == first_column)


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error, *at.latex]
    return "\n".join(p.value for p in parts)


def headings(at) -> list[str]:
    """The sections' numbered headings."""
    return [h.value for h in at.subheader if h.value[:1].isdigit()]  # not the quiz at the end


def unlock(at):
    """Show the check's answer, so that no number is hidden (see the check tests)."""
    return at.toggle(key="qkv_check_show").set_value(True).run()


def open_unlocked(**params):
    """The page with the check's answer shown (a link cannot do that: it never holds the answer)."""
    return unlock(open_page(PAGE, **params))


def hidden_scores(at) -> list[str]:
    """The score lines of section 5 that end in "?" instead of their number."""
    return [line for line in texts(at).split("$") if line.endswith(r"= \;?")]


def weights(d_model: int, d_k: int, seed: int = SEED):
    """W_q, W_k, W_v as the page draws them: one generator, in that order."""
    rng = np.random.default_rng(seed)
    return [random_weights(d_model, d_k, rng) for _ in range(3)]


def scores_bars(at) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = figures(at)["qkv_scores"]["data"]
    return plotly_array(data[0]["y"]), plotly_array(data[1]["y"]), plotly_array(data[2]["y"])


# --- defaults, languages, steps -------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_in_both_languages_with_every_step(lang):
    at = open_page(PAGE, lang=lang)
    assert not at.exception
    assert at.title[0].value == t("qkv.title", lang=lang)
    names = ("tokens", "weights", "qkv", "check", "scores", "softmax", "output", "matrix", "additive")
    assert headings(at) == [f"{n} · {t(f'qkv.section_{name}', lang=lang)}" for n, name in enumerate(names, 1)]
    assert set(figures(at)) == {"qkv_scores", "qkv_sum", "qkv_dot_vs_add"}  # the check's score in it reads "?"
    body = texts(at)
    assert t("qkv.rows_vs_columns", lang=lang)[:20] in body
    assert "得到一个数值k" in body  # the article's sentence is quoted, and marked as a mistake
    assert t("qkv.repeated", lang=lang, a=2, b=4, token="saw") in body  # the two "saw"s
    assert t("qkv.repeated_article", lang=lang) in body  # article 001's own example, said so
    assert t("qkv.weights_random", lang=lang, seed=SEED) in body  # random weights say they are random


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_students_own_repeated_token_is_not_called_the_articles_example(lang):
    at = open_page(PAGE, lang=lang, qkv_text="cat and cat")
    assert not at.exception
    body = texts(at)
    assert t("qkv.repeated", lang=lang, a=1, b=3, token="cat") in body
    assert t("qkv.repeated_article", lang=lang) not in body  # but they are not article 001's two "saw"s


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_headings_and_navigation_are_plain_words(lang):
    """No pseudo-maths (α_ij = q_i · k_j, Q = I W_q) where KaTeX does not render it."""
    names = ("tokens", "weights", "qkv", "check", "scores", "softmax", "output", "matrix", "additive")
    for key in ("nav", "title", "summary", *(f"section_{name}" for name in names)):
        text = t(f"qkv.{key}", lang=lang)
        assert not any(sign in text for sign in ("_", "=", "·", "√", "Σ", "$")), (key, text)


def test_every_matrix_is_printed_with_its_shape():
    at = open_unlocked()
    latex = texts(at)
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
    at = open_page(PAGE)
    code = [c.value for c in at.code]
    assert [c.split("(")[0] for c in code] == [
        f"def {name}"
        for name in ("project", "dot_scores", "scaled_softmax", "weighted_sum", "matrix_form", "additive_scores")
    ]
    assert max(len(c.splitlines()) for c in code) <= 8  # the formula's lines, not a page of argument checks


# --- the numbers ------------------------------------------------------------------------------------


def test_Q_K_V_shown_equal_I_times_the_weights():
    at = open_unlocked(qkv_tables="true")
    qkv = table(at, "a[1]")
    assert qkv.index.name == t("qkv.token_index") and list(qkv.index) == ["1 · I", "2 · saw", "3 · a", "4 · saw"]
    x = qkv[[f"a[{c}]" for c in (1, 2, 3)]].to_numpy()
    np.testing.assert_array_equal(x, sentence_matrix(TOKENS, 3, SEED))
    w_q, w_k, w_v = weights(3, 2)
    for letter, w in (("q", w_q), ("k", w_k), ("v", w_v)):
        shown = qkv[[f"{letter}[1]", f"{letter}[2]"]].to_numpy()
        np.testing.assert_allclose(shown, x @ w, atol=1e-12)  # rows: I @ W, not W I
    np.testing.assert_array_equal(x[1], x[3])  # the two "saw"s are one vector


def test_each_score_is_the_sum_of_its_shown_products_for_any_query():
    at = open_unlocked(qkv_tables="true")
    at.button_group(key="qkv_q").set_value(3).run()
    assert not at.exception
    products = table(at, "q3[1]·k[1]")
    terms = products[["q3[1]·k[1]", "q3[2]·k[2]"]].to_numpy()
    alpha = products["α3,j"].to_numpy()
    np.testing.assert_allclose(terms.sum(axis=1), alpha, atol=1e-12)
    qkv = table(at, "a[1]")
    q3 = qkv[["q[1]", "q[2]"]].to_numpy()[2]
    K = qkv[["k[1]", "k[2]"]].to_numpy()
    np.testing.assert_allclose(alpha, K @ q3, atol=1e-12)  # α_3j = q_3 · k_j
    np.testing.assert_allclose(scores_bars(at)[0], alpha, atol=1e-5)
    assert r"\alpha_{3,2} = q_{3} \cdot k_{2}" in texts(at)


def test_weights_sum_to_one_and_the_d_k_slider_changes_the_scale():
    at = open_unlocked(qkv_tables="true")
    alpha, scaled, weight = scores_bars(at)
    assert weight.sum() == pytest.approx(1.0, abs=1e-6)
    np.testing.assert_allclose(scaled, alpha / np.sqrt(2), atol=1e-5)
    assert r"\frac{1}{\sqrt{2}} = 0.7071" in texts(at)

    at.slider(key="qkv_dk").set_value(5).run()
    assert not at.exception
    alpha, scaled, weight = scores_bars(at)
    np.testing.assert_allclose(scaled, alpha / np.sqrt(5), atol=1e-5)
    assert r"\frac{1}{\sqrt{5}} = 0.4472" in texts(at)
    soft = table(at, "α")
    assert soft["α'"].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(soft["α/√d_k"], soft["α"] / np.sqrt(5))
    weights_matrix = table(at, "1 · I").to_numpy()[:4]  # A', one row per query
    np.testing.assert_allclose(weights_matrix.sum(axis=1), 1.0)
    np.testing.assert_allclose(weights_matrix[0], soft["α'"])  # the matrix form agrees with section 6


def test_output_is_the_weighted_sum_of_the_values():
    at = open_unlocked(qkv_tables="true")
    qkv = table(at, "a[1]")
    V = qkv[["v[1]", "v[2]"]].to_numpy()
    weight = table(at, "α")["α'"].to_numpy()
    parts = table(at, "[1]")
    np.testing.assert_allclose(parts.to_numpy()[:4], weight[:, None] * V)
    np.testing.assert_allclose(parts.loc["b1"].to_numpy(), weight @ V)
    diamonds = figures(at)["qkv_sum"]["data"][-1]
    np.testing.assert_allclose(plotly_array(diamonds["y"]), weight @ V, atol=1e-5)
    assert t("qkv.same_as_steps", i=1, softmax=6, output=7) in texts(at)


# --- typed weights and the link -----------------------------------------------------------------------


def test_typed_weights_come_from_the_link_and_stay_in_it():
    at = open_unlocked(qkv_tables="true", qkv_w="typed", qkv_wq="1~0_0~-1.5_2~0.25")
    assert not at.exception and not at.toast
    w_q = np.array([[1, 0], [0, -1.5], [2, 0.25]])
    qkv = table(at, "a[1]")
    x = qkv[["a[1]", "a[2]", "a[3]"]].to_numpy()
    np.testing.assert_allclose(qkv[["q[1]", "q[2]"]].to_numpy(), x @ w_q)
    np.testing.assert_allclose(qkv[["k[1]", "k[2]"]].to_numpy(), x @ weights(3, 2)[1])  # untouched: random
    assert at.query_params["qkv_wq"] == "1~0_0~-1.5_2~0.25"
    assert "qkv_wk" not in at.query_params  # equal to the random default, so left out of the link
    editors = [d for d in at.dataframe if "qkv_wq_ed" in d.proto.id]
    np.testing.assert_array_equal(editors[0].value.to_numpy(), w_q)  # the grid shows what the link holds

    # Growing d_model keeps what was typed and fills the new row from the random weights.
    at.slider(key="qkv_dm").set_value(4).run()
    grown = np.array([[float(v) for v in row.split("~")] for row in at.query_params["qkv_wq"].split("_")])
    np.testing.assert_array_equal(grown[:3], w_q)
    np.testing.assert_array_equal(grown[3], weights(4, 2)[0][3])

    # Back to random weights: the typed matrix leaves the link (kept in the session).
    at.button_group(key="qkv_w").set_value("random").run()
    assert "qkv_wq" not in at.query_params


def test_typed_weights_need_small_sizes():
    at = open_page(PAGE, qkv_w="typed", qkv_dm="6", qkv_wq="1~0_0~1")
    assert not at.exception
    assert t("qkv.typed_too_big", max=4) in texts(at)
    assert not [d for d in at.dataframe if "qkv_wq_ed" in d.proto.id]


NUMBER_KEYS = ("qkv_dm", "qkv_dk", "qkv_seed", "qkv_q", "qkv_step", "qkv_wq", "qkv_wk", "qkv_wv", "qkv_tables", "qkv_w")
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
        *((key, value) for key in NUMBER_KEYS for value in NO_NUMBER),
    ],
)
def test_a_bad_link_value_falls_back_with_a_notice_and_keeps_the_rest(key, value):
    params = {"qkv_text": "cats chase mice", "qkv_dk": "3", "qkv_seed": "7", "qkv_q": "2"} | {key: value}
    if key.startswith("qkv_w") and key != "qkv_w":
        params["qkv_w"] = "typed"
    at = open_page(PAGE, **params)
    assert not at.exception and not at.error
    assert at.toast and key in at.toast[0].value
    assert at.text_input(key="qkv_text").value == "cats chase mice"  # nothing else is lost
    for other, control in (("qkv_dk", at.slider), ("qkv_seed", at.number_input)):
        if other != key:
            assert control(key=other).value == int(params[other]), other
    if key != "qkv_q":
        assert at.button_group(key="qkv_q").value == 2
    assert headings(at)[0].startswith("1 ·")


# --- check yourself ---------------------------------------------------------------------------------------


def test_the_typed_answer_is_checked():
    at = open_page(PAGE)
    w_q, w_k, _ = weights(3, 2)
    x = sentence_matrix(TOKENS, 3, SEED)
    answer = float((x[0] @ w_q) @ (x[1] @ w_k))  # α_12 = q_1 · k_2
    at.number_input(key="qkv_check").set_value(answer + 0.5).run()
    assert at.error and not at.success
    at.number_input(key="qkv_check").set_value(round(answer, 3)).run()
    assert at.success and f"{answer:.4f}" in at.success[0].value
    assert any(f"{answer:.4f}" in i.value and "Multiply" in i.value for i in at.info)  # and why


def test_a_one_token_sentence_asks_for_alpha_11():
    at = open_page(PAGE, qkv_text="hello")
    assert not at.exception
    assert r"\alpha_{1,1} = q_1 \cdot k_{1}" in texts(at)


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


@pytest.mark.parametrize(("step", "main"), [(1, "I"), (2, "W_q"), (3, "W_q"), (5, "K"), (8, "A'")])
def test_each_lecture_step_starts_with_its_matrices_and_folds_its_words(step, main):
    """Right under the step bar: the step's figure or matrices; its words folded into one line
    below them, so that a projector's first screen holds the block whole."""
    at = open_page(PAGE, lecture="1", qkv_step=str(step))
    assert not at.exception
    first = next(
        e
        for e in at.main
        if e.type in ("latex", "markdown", "expandable") and "Step" not in str(getattr(e, "value", ""))
    )
    assert first.type != "expandable"  # not the folded words
    assert at.expander and at.expander[0].label == t("common.section_text")


@pytest.mark.parametrize("step", [6, 7, 9])
def test_each_lecture_step_with_a_figure_starts_with_it(step):
    at = open_page(PAGE, lecture="1", qkv_step=str(step))
    kinds = [e.type for e in at.main if e.type in ("plotly_chart", "expandable", "latex")]
    assert kinds[0] == "plotly_chart", kinds


def test_presets_set_the_controls():
    at = open_unlocked()
    at.button(key="qkv_preset_match").click().run()
    assert not at.exception
    assert at.button_group(key="qkv_w").value == "typed"
    _, _, weight = scores_bars(at)  # query "saw" with W_q = W_k: both "saw"s, equally, and little else
    assert weight[1] == pytest.approx(weight[3]) and weight[1] + weight[3] > 0.9

    at.button(key="qkv_preset_long").click().run()
    assert not at.exception
    assert len(plotly_array(figures(at)["qkv_scores"]["data"][0]["y"])) == 16
    assert "qkv_weights" in figures(at)  # 16 × 16 is drawn, not printed
    assert table(at, "1 · the").shape == (16, 16)

    at.button(key="qkv_preset_chars").click().run()
    assert figures(at)["qkv_scores"]["layout"]["xaxis"]["ticktext"] == list("机器学习")

    at.button(key="qkv_preset_article").click().run()
    assert at.text_input(key="qkv_text").value == "I saw a saw"
    assert at.slider(key="qkv_dm").value == 3 and at.slider(key="qkv_dk").value == 2


@pytest.mark.parametrize(("d_model", "d_k"), [(1, 1), (8, 8), (1, 8), (8, 1)])
def test_every_size_runs(d_model, d_k):
    at = open_unlocked(qkv_dm=str(d_model), qkv_dk=str(d_k), qkv_tables="true")
    assert not at.exception
    assert table(at, "a[1]").shape == (4, d_model + 3 * d_k)
    _, _, weight = scores_bars(at)
    assert weight.sum() == pytest.approx(1.0, abs=1e-6)


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
    at = open_unlocked(qkv_text=text)
    assert not at.exception
    n = len(plotly_array(figures(at)["qkv_scores"]["data"][0]["y"]))
    assert 1 <= n <= 16
    if not text.strip():
        assert t("common.empty_text", example="I saw a saw") in texts(at)
    if text.startswith("word"):
        assert t("common.tokens_cut", total=1000, shown=16) in texts(at)
    if "<b>" in text:
        assert r"**\<**" in texts(at)  # "<" is a token of its own, escaped: shown as text, never as HTML
        assert "&lt;" in figures(at)["qkv_scores"]["layout"]["xaxis"]["ticktext"]


def test_a_shorter_sentence_keeps_a_valid_query():
    at = open_page(PAGE)
    at.button_group(key="qkv_q").set_value(4).run()
    at.text_input(key="qkv_text").set_value("two words").run()
    assert not at.exception
    assert at.button_group(key="qkv_q").value == 2


def test_the_largest_seed_works_and_a_negative_one_falls_back():
    at = open_unlocked(qkv_seed=str(2**31 - 1), qkv_tables="true")
    assert not at.exception
    w_q = weights(3, 2, seed=2**31 - 1)[0]
    qkv = table(at, "a[1]")
    x = qkv[["a[1]", "a[2]", "a[3]"]].to_numpy()
    np.testing.assert_allclose(qkv[["q[1]", "q[2]"]].to_numpy(), x @ w_q)
    at = open_page(PAGE, qkv_seed="-1")
    assert not at.exception and at.toast and "qkv_seed" in at.toast[0].value
    assert at.number_input(key="qkv_seed").value == SEED


# --- the check does not give its answer away ------------------------------------------------------------------


def alpha_12() -> float:
    w_q, w_k, _ = weights(3, 2)
    x = sentence_matrix(TOKENS, 3, SEED)
    return float((x[0] @ w_q) @ (x[1] @ w_k))


def shows_answer(at, answer: float) -> bool:
    """Is the check's answer anywhere: written out, in the scores chart, or in A = Q Kᵀ?"""
    chart = figures(at)["qkv_scores"]["data"][0]["text"]
    return f"{answer:.3f}" in texts(at) or f"{answer:.2f}" in chart or f"{answer:.2f}" in texts(at)


def test_the_check_comes_before_the_steps_that_answer_it_and_hides_their_numbers():
    at = open_page(PAGE)
    answer = alpha_12()
    order = headings(at)
    assert order.index(f"4 · {t('qkv.section_check')}") == 3  # right after Q, K, V
    assert not shows_answer(at, answer)
    notices = [i for i in at.info if i.value == t("qkv.check_hides", j=2)]
    assert len(notices) == 1  # one notice, under the check, not one per hidden number
    assert len(hidden_scores(at)) == 3  # α_12 and α_14 ("saw" twice) in the sums, α_12 in the comparison
    assert figures(at)["qkv_scores"]["data"][0]["text"] == ["2.18", "?", "4.32", "?"]
    assert "?" in next(x.value for x in at.latex if r"A\ [4 \times 4]" in x.value)

    at.number_input(key="qkv_check").set_value(answer + 0.5).run()  # a wrong answer: still hidden
    assert not shows_answer(at, answer)
    at.number_input(key="qkv_check").set_value(round(answer, 2)).run()  # right: every number appears
    assert shows_answer(at, answer) and not hidden_scores(at)
    assert not [i for i in at.info if i.value == t("qkv.check_hides", j=2)]


def test_show_the_answer_unlocks_and_stays_out_of_the_link():
    at = open_page(PAGE)
    unlock(at)
    assert not at.exception and not at.warning
    assert shows_answer(at, alpha_12())
    assert "qkv_check_show" not in at.query_params and "qkv_check" not in at.query_params


@pytest.mark.parametrize(
    "params", [{"qkv_check": "2.4478"}, {"qkv_check_show": "true"}, {"qkv_check": "2.4478", "qkv_check_show": "true"}]
)
def test_a_link_never_unlocks_the_hidden_numbers(params):
    """Issue 11: the check's answer once rode in the link (qkv_check=2.46), so a shared link showed
    the next student every hidden number. Such a link now unlocks nothing, and loses those values."""
    at = open_page(PAGE, **params)
    assert not at.exception
    assert at.number_input(key="qkv_check").value is None
    assert at.toggle(key="qkv_check_show").value is False
    assert not shows_answer(at, alpha_12()) and hidden_scores(at)
    assert "qkv_check" not in at.query_params and "qkv_check_show" not in at.query_params


def test_another_query_keeps_its_own_sums_but_A_waits():
    at = open_page(PAGE)
    at.button_group(key="qkv_q").set_value(3).run()
    assert "?" not in figures(at)["qkv_scores"]["data"][0]["text"]  # query 3's scores are not the check's answer
    assert r"\alpha_{3,2} = q_{3} \cdot k_{2}" in texts(at) and not hidden_scores(at)
    assert "?" in next(x.value for x in at.latex if r"A\ [4 \times 4]" in x.value)  # A holds α_12
    assert len([i for i in at.info if i.value == t("qkv.check_hides", j=2)]) == 1


def test_lecture_mode_asks_on_a_screen_of_its_own():
    at = open_page(PAGE, lecture="1", qkv_step="4")
    assert not at.exception
    answer = alpha_12()
    assert f"{answer:.3f}" not in texts(at) and not figures(at)
    assert r"\alpha_{1,2} = q_1 \cdot k_{2}" in texts(at)  # the question, with q_1 and k_2 written out


def test_seed_quotes_are_translated_on_the_english_page():
    body = texts(open_page(PAGE, lang="en"))
    assert "矩阵Wq、Wk、Wv是需要学习的参数" in body and "the parameters to be learned" in body
    assert "这个矩阵有4个column" in body and "this matrix has 4 columns" in body


def test_the_checks_vectors_wrap_with_the_words_on_a_phone():
    """With d_k = 8 the question's q_1 and k_2 were bracketed arrays, which never break: on a 390 px
    phone their last numbers were off the screen. Written [a, b, ...] with a break allowed after
    every comma, they wrap; the numbers are still every one of q_1's and k_2's."""
    at = open_page(PAGE, qkv_dm=8, qkv_dk=8)
    x = sentence_matrix(TOKENS, 8, SEED)
    w_q, w_k, _ = weights(8, 8)
    question = next(m.value for m in at.markdown if "(before scaling)" in m.value)
    assert r"\begin{array}" not in question
    for vector in (x[0] @ w_q, x[1] @ w_k):
        shown = [f"{v:.2f}" if round(v, 2) != 0 else "0.00" for v in vector]
        assert ",\\allowbreak\\ ".join(shown) in question, vector
