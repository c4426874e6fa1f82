"""lab_ui.figures.qkv: the typeset matrices, figures and tables hold the numbers they were given, in
the language asked for, and hide what the check-yourself asks until it is answered."""

import re

import numpy as np
import pytest

from attention_core.steps import gives_away, sentence_walkthrough
from lab_ui.figures import qkv as fq
from lab_ui.i18n import t

TOKENS = ["I", "saw", "a", "<b>saw</b>"]


def test_numbers_never_read_minus_zero():
    assert fq.num(-0.001) == "0.00"
    assert fq.num(-0.005, 3) == "-0.005"
    assert fq.num(1.2345, 2) == "1.23"


def test_matrix_has_its_numbers_shape_labels_and_highlight():
    m = np.array([[1.0, -2.5], [0.25, 3.0], [0.0, -0.004]])
    tex = fq.matrix_tex(m, name="Q", row_labels=fq.row_labels("q", 3), highlight_row=1)
    assert r"\begin{array}{rr}" in tex and r"Q\ [3 \times 2]" in tex
    assert "1.00 & -2.50" in tex and "0.00 & 0.00" in tex  # -0.004 rounds to 0.00, not -0.00
    assert tex.count(r"\textcolor") == 3  # the two numbers of row 2 and its label, never another row
    assert r"\blacktriangleright q_{2}" in tex
    assert r"\textcolor{#B34E00}{\boldsymbol{0.25}}" in tex


def test_a_product_is_pieces_that_a_narrow_screen_can_wrap():
    x, w = np.ones((4, 3)), np.ones((3, 2))
    parts = fq.product_parts(
        [("I", x, fq.row_labels("a", 4)), ("W_q", w, None)],
        ("Q", x @ w, fq.row_labels("q", 4)),
        highlight_row=0,
        hide=np.eye(4, 2, dtype=bool),
    )
    assert [tex.count(r"\underbrace") for tex, _ in parts] == [1, 1, 1]
    assert r"I\ [4 \times 3]" in parts[0][0] and r"W_q\ [3 \times 2]" in parts[1][0] and "3.00" in parts[2][0]
    assert parts[2][0].startswith("= ") and parts[2][1] == fq.matrix_px(x @ w, True) + 30
    assert parts[2][0].count("?") == 2 and "?" not in parts[0][0]  # hide applies to the result only


def test_each_section_has_its_rows_of_matrices():
    r = sentence_walkthrough(("I", "saw", "a", "saw"), 3, 2, 3, 1)
    assert [len(row) for row in fq.tokens_rows(r)] == [1] and r"I\ [4 \times 3]" in fq.tokens_rows(r)[0][0][0]
    assert [tex.count(r"\underbrace") for tex, _ in fq.weights_rows(r)[0]] == [1, 1, 1]
    ((q, k),) = fq.scores_rows(r)
    assert q[0].startswith("q_{2} = ") and r"K\ [4 \times 2]" in k[0]
    product, three = fq.qkv_rows(r)
    assert len(product) == 3 and [r"Q = I\,W_q" in three[0][0], r"V = I\,W_v" in three[2][0]] == [True, True]


def test_widths_grow_with_columns_minus_signs_and_row_names():
    # Measured in Chromium at the body size: 4 × 4 with minus signs and row names is about 353 px,
    # without minus signs about 323 px, a 3 × 2 weight matrix about 165 px.
    assert abs(fq.matrix_px(-np.ones((4, 4)), True) - 353) < 15
    assert abs(fq.matrix_px(np.full((4, 4), 0.13), True) - 323) < 15
    assert abs(fq.matrix_px(-np.ones((3, 2))) - 165) < 15
    assert fq.matrix_px(np.ones((2, 8))) > fq.PHONE_PX > fq.matrix_px(np.ones((4, 2)), True)


def test_the_matrix_form_in_two_layouts():
    r = sentence_walkthrough(("I", "saw", "a", "saw"), 3, 2, 3, 0)
    normal, compact = fq.matrix_rows(r, True), fq.matrix_rows(r, True, compact=True)
    assert "?" not in "".join(tex for row in fq.matrix_rows(r, False) for tex, _ in row)
    assert [len(row) for row in normal] == [3, 2] and [len(row) for row in compact] == [
        1,
        2,
    ]  # A, then A' and O: in the order they are computed
    assert r"A\ [4 \times 4]" in normal[0][2][0] and r"O\ [4 \times 2]" in normal[1][1][0]
    assert r"\underbrace" not in "".join(tex for row in compact for tex, _ in row)  # named before the bracket
    assert normal[0][2][0].count("?") == compact[0][0][0].count("?") == 2  # α_12 and α_14: "saw" twice


def test_multi_line_formulas_are_inside_an_environment():
    # KaTeX warns "\\ does nothing in display mode" for a line break outside an environment.
    for name, tex in fq.FORMULAS.items():
        outside = re.sub(r"\\begin\{(\w+)\}.*?\\end\{\1\}", "", tex)
        assert r"\\" not in outside, name


def test_dot_terms_show_the_products_that_make_each_score():
    q = np.array([0.5, -1.0])
    K = np.array([[2.0, 1.0], [0.0, -3.0]])
    products = q * K
    lines = fq.dot_terms_tex(0, q, K, products, products.sum(axis=1))
    # α_11 = (0.50)(2.00) + (-1.00)(1.00) = 1.000 + (-1.000) = 0.000;  α_12 = 0 + 3 = 3.000
    assert len(lines) == 2 and lines[0].startswith(r"\alpha_{1,1} = q_{1} \cdot k_{1} = ")
    assert "(0.50)(2.00) + (-1.00)(1.00) = 1.000 + (-1.000) = " in lines[0]
    assert r"\boldsymbol{0.000}" in lines[0] and r"\boldsymbol{3.000}" in lines[1]
    long = fq.dot_terms_tex(0, np.ones(6), np.ones((1, 6)), np.ones((1, 6)), np.array([6.0]))
    assert ")(" not in long[0] and "1.000 + 1.000" in long[0]  # d_k > 4: products only


def test_a_score_worked_from_rounded_numbers_says_approximately():
    # q·k = 0.456 · 1.004 = 0.457824 unrounded; printed (0.46)(1.00) = 0.460: "≈", and the note gives 0.458
    q, K = np.array([0.456]), np.array([[1.004]])
    (line,) = fq.dot_terms_tex(0, q, K, q * K, (q * K).sum(axis=1))
    assert r"k_{1} \approx (0.46)(1.00) = " in line and r"\boldsymbol{0.460}" in line
    r = walk()  # seed 3, the review's example: the additive score (0.96)(−0.97) + (−0.20)(0.99) read −1.131
    md = fq.compare_md(r, "en", hide_dot=False)
    assert r"&\approx (0.96)(-0.97) + (-0.20)(0.99) \\ &= \textcolor{#B34E00}{\boldsymbol{-1.129}}" in md
    assert md.endswith(t("qkv.rounded_note", "en", exact=r"$\alpha_{1,2} = -1.131$"))
    assert "≈" not in fq.entry_md(r, "zh")  # two-place a and W_q: the four-place entry is exact


def test_sums_are_inline_maths_that_a_narrow_screen_can_wrap():
    md = fq.lines_md(["a = 1 + 2", "b = 3"])
    assert md == "$a = 1 + 2$\n\n$b = 3$"  # one paragraph a line; no aligned block, which cannot wrap
    entry = fq.entry_tex("q", 0, 0, np.array([1.0, 2.0]), np.array([0.5, 0.25]), 1.0, "W_q")
    assert "&" not in entry and "(1.00)(0.50) + (2.00)(0.25)" in entry


def test_softmax_lines_hold_every_weight_and_their_sum():
    w = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    formula, weights = fq.softmax_tex(2, w)
    assert r"\frac{e^{\alpha_{3,j}/\sqrt{d_k}}}" in formula
    for j, v in enumerate(w, start=1):
        assert rf"$\alpha'_{{3,{j}}} = {v:.3f}" in weights  # each weight its own formula: wraps between them
    assert "$\u2003$" in weights and ",$" in weights  # a comma ends a formula, so a wrapped line never starts with one
    assert r"\sum_j \alpha'_{3,j} = 1.000" in weights


def test_weighted_sum_tex_and_figure_agree_with_the_arrays():
    weight = np.array([0.2, 0.8])
    V = np.array([[1.0, -1.0], [2.0, 0.5]])
    contributions = weight[:, None] * V
    b = contributions.sum(axis=0)  # (1.8, 0.2)
    lines = fq.weighted_sum_tex(0, weight, V, b)
    assert len(lines) == 3 and "0.200" in lines[0][0] and "0.800" in lines[1][0] and "1.80 & 0.20" in lines[2]
    assert "0.20 & -0.20" in lines[0][1]  # α'v_1 = 0.2 · (1, -1), a piece of its own
    assert "$\u2003${(=" in fq.lines_md(lines)
    r = walk(tokens=tuple(TOKENS))
    s = r.query
    fig = fq.sum_figure(r, "en")
    bars = [tr for tr in fig.data if tr.type == "bar"]
    assert len(bars) == 4 and fig.layout.barmode == "relative"
    np.testing.assert_allclose(np.sum([tr.y for tr in bars], axis=0), s.b_i, atol=1e-12)
    diamonds = fig.data[-1]
    np.testing.assert_allclose(diamonds.y, s.b_i, atol=1e-12)
    assert diamonds.name == "b1" and bars[3].name == "4 · &lt;b&gt;saw&lt;/b&gt;"
    assert fig.layout.xaxis.title.text == t("qkv.component_axis", "en")


def walk(i: int = 0, tokens=("I", "saw", "a", "saw"), **kwargs):
    """The page's default walkthrough: "saw" twice, so α_12 = α_14 (both the check's answer)."""
    return sentence_walkthrough(tokens, 3, 2, 3, i, **kwargs)


def test_score_bars_hold_the_three_stages_in_the_language_given():
    r = walk(tokens=tuple(TOKENS))
    s = r.query
    fig = fq.scores_figure(r, "zh")
    assert [tr.name for tr in fig.data] == [t(f"qkv.bar_{k}", "zh") for k in ("alpha", "scaled", "weight")]
    np.testing.assert_allclose(fig.data[0].y, s.alpha)
    np.testing.assert_allclose(fig.data[1].y, s.alpha / np.sqrt(2))
    assert fig.layout.xaxis.ticktext[3] == "&lt;b&gt;saw&lt;/b&gt;"  # escaped: shown as text, never HTML
    assert fig.layout.xaxis.title.text == t("qkv.key_axis", "zh")
    assert isinstance(fig.data[0].y, tuple | list)  # plain lists: cheaper to send on every rerun
    assert fig.layout.template.layout.to_plotly_json() == {}
    assert fig.layout.modebar.orientation == "v" and fig.layout.legend.x == 0  # the toolbar never covers the legend


def test_the_scores_chart_writes_the_checks_answer_as_a_question_mark():
    r = walk()
    fig = fq.scores_figure(r, "en", hide_answer=True)
    hidden = gives_away(r.query.alpha, r.check.answer)  # α_12 and α_14 ("saw" is there twice)
    assert hidden.tolist() == [False, True, False, True]
    for trace in fig.data[:2]:  # the score and the scaled score
        assert [trace.text[j] for j in (1, 3)] == ["?", "?"] and [trace.y[j] for j in (1, 3)] == [0.0, 0.0]
        assert f"{r.check.answer:.2f}" not in str(trace.to_plotly_json())
    np.testing.assert_allclose(fig.data[2].y, r.query.alpha_prime)  # the weights stay


def test_compare_bars_hold_both_models_weights():
    r = walk(i=2)
    fig = fq.compare_figure(r, "en")
    assert [tr.name for tr in fig.data] == [t("qkv.dot_map", "en"), t("qkv.add_map", "en")]
    assert fig.layout.barmode == "group"
    np.testing.assert_allclose(fig.data[0].y, r.matrix.weights[2])
    np.testing.assert_allclose(fig.data[1].y, r.additive_weights[2])
    assert fig.data[0].marker.color != fig.data[1].marker.color


def test_the_heatmap_outlines_the_followed_query():
    r = sentence_walkthrough(tuple("abcdefghij"), 3, 2, 3, 4)
    fig = fq.weights_map(r, "en")
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), r.matrix.weights, atol=1e-6)
    (outline,) = fig.layout.shapes
    assert (outline.y0, outline.y1) == (3.5, 4.5) and outline.line.color == fq.HIGHLIGHT


def test_tables_name_their_rows_and_leave_hidden_numbers_empty():
    r = walk()
    hide = gives_away(r.query.alpha, r.check.answer)
    frame, filename, caption = fq.products_table(r, "zh", hide)
    assert frame.index.name == t("qkv.key_index", "zh") and filename == "qkv_products.csv"
    assert caption == t("qkv.table_products", "zh")
    assert frame.iloc[[1, 3]].isna().all().all() and frame.iloc[[0, 2]].notna().all().all()
    frame = fq.softmax_table(r, "en", hide)[0]
    assert frame["α"].isna().tolist() == hide.tolist() and frame["α'"].notna().all()
    for build in (fq.qkv_table, fq.sum_table, fq.weights_table, fq.both_table):
        frame = build(r, "en")[0]
        assert frame.index.name and frame.notna().all().all(), build.__name__
    assert fq.qkv_table(r, "en")[0].shape == (4, 3 + 3 * 2)


def test_words_built_from_the_walkthrough():
    r = walk()
    assert t("qkv.random_leans", "en", i=1) in fq.lean_md(r, "en")
    typed = walk(typed=(((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)),) * 3)
    assert t("qkv.random_leans", "en", i=1) not in fq.lean_md(typed, "en")
    hidden, shown = fq.compare_md(r, "en", hide_dot=True), fq.compare_md(r, "en", hide_dot=False)
    assert r"k_{2} = \;?" in hidden and f"{r.query.alpha[1]:.3f}" in shown
    assert f"{r.additive_scores[0, 1]:.3f}" in hidden  # the additive score is no answer


def test_additive_tex_writes_the_pair_out():
    q, k, w = np.array([0.5, 0.0]), np.array([0.5, 1.0]), np.array([2.0, -1.0])
    score = float(w @ np.tanh(q + k))  # 2·tanh(1) − tanh(1) = tanh(1) = 0.762
    tex = fq.additive_tex(0, 1, q, k, w, score)
    assert "1.00 & 1.00" in tex and "0.76 & 0.76" in tex
    # the sum on a line of its own (narrower), worked from the printed 0.76: 0.760, where tanh(1) gives 0.762
    assert r"&\approx (2.00)(0.76) + (-1.00)(0.76) \\ &= \textcolor{#B34E00}{\boldsymbol{0.760}}" in tex
    tex = fq.additive_tex(0, 1, q, k, np.array([2.0, 0.0]), 2 * np.tanh(1.0))  # 2 · 0.7616 = 1.523
    assert r"&\approx (2.00)(0.76) + (0.00)(0.76) \\ &= \textcolor{#B34E00}{\boldsymbol{1.520}}" in tex
    tex = fq.additive_tex(0, 1, q, k, np.array([0.0, 0.0]), 0.0)
    assert r"&= (0.00)(0.76) + (0.00)(0.76) \\ &= \textcolor{#B34E00}{\boldsymbol{0.000}}" in tex


def test_a_typed_matrix_survives_the_link():
    m = fq.link_matrix(np.array([[0.5, -1.25], [1 / 3, 99.5], [0.0, -0.0]]))
    assert m == ((0.5, -1.25), (0.333333, 99.0), (0.0, -0.0))  # 6 significant digits, within ±99
    text = fq.matrix_to_text(m)
    assert text == "0.5~-1.25_0.333333~99_0~-0"
    assert re.fullmatch(r"[0-9.~_e+-]+", text)  # unreserved characters only: the link stays readable
    assert fq.parse_matrix([text]) == m
    assert fq.parse_matrix(["0e5~-0.0_1e-5~0"]) == ((0.0, -0.0), (1e-05, 0.0))  # zeros written as zeros are zeros


@pytest.mark.parametrize(
    "raw", [["1~2_3"], ["a~1"], ["1~2", "3~4"], ["inf~1"], ["100~0"], ["1~2~3~4~5"], [""], ["1e-400"], ["1e309"]]
)
def test_a_bad_typed_matrix_is_refused(raw):
    with pytest.raises(ValueError):
        fq.parse_matrix(raw)


def test_a_typed_matrix_keeps_what_fits_when_the_size_changes():
    typed = ((1.0, 2.0), (3.0, 4.0))
    grown = fq.fit_shape(typed, np.full((3, 3), 9.0))
    assert grown == ((1.0, 2.0, 9.0), (3.0, 4.0, 9.0), (9.0, 9.0, 9.0))
    assert fq.fit_shape(typed, np.zeros((1, 1))) == ((1.0,),)
    assert fq.fit_shape(None, np.eye(2)) == fq.eye_matrix(2)


def test_labels_keep_repeated_tokens_apart_and_long_ones_short():
    assert fq.key_labels(["saw", "a", "saw"]) == ["1 · saw", "2 · a", "3 · saw"]
    assert fq.short("x" * 30) == "x" * 13 + "…"


# --- every worked sum adds up from the numbers it prints -----------------------------------------------

NUMBER = r"-?\d+\.\d+"
PAIR = re.compile(rf"\(({NUMBER})\)\(({NUMBER})\)")
RESULT = re.compile(rf"\\boldsymbol{{({NUMBER})}}")


def numbers(tex: str) -> list[float]:
    return [float(x) for x in re.findall(NUMBER, tex)]


def places(tex: str) -> int:
    """The decimal places of the bold result: a result is checked to half of its last digit."""
    return len(RESULT.search(tex).group(1).split(".")[1])


def assert_adds_up(terms: list[float], result: float, decimals: int) -> None:
    """Printed terms add up to the printed result within half its last digit."""
    assert abs(sum(terms) - result) <= 0.5 * 10.0**-decimals + 1e-9, (terms, result)


CASES = [  # (tokens, d_model, d_k, seed, query, typed): the defaults, every d_k, long sentences, typed weights
    *[(("I", "saw", "a", "saw"), 3, 2, seed, 0, None) for seed in range(8)],
    *[(("the", "cat", "sat", "on", "the", "mat"), d, d_k, 5, 2, None) for d, d_k in ((1, 1), (4, 3), (8, 4), (6, 8))],
    (("I", "saw", "a", "saw"), 2, 2, 0, 1, (((0.333333, 1.0), (0.5, -0.25)),) * 3),  # typed: more places than shown
]


@pytest.mark.parametrize(("tokens", "d_model", "d_k", "seed", "i", "typed"), CASES)
def test_every_worked_sum_adds_up_from_its_printed_numbers(tokens, d_model, d_k, seed, i, typed):
    """A student redoing a sum from the printed numbers gets the printed result (issue: the additive
    example printed (0.96)(−0.97) + (−0.20)(0.99) = −1.131, where the printed numbers give −1.129)."""
    r = sentence_walkthrough(tokens, d_model, d_k, seed, i, typed)
    s = r.query
    for line in fq.dot_md(r, False, "en").split("\n\n")[: len(tokens)]:  # section 5: one line per key
        pairs = [(float(a), float(b)) for a, b in PAIR.findall(line)]
        result, decimals = float(RESULT.search(line).group(1)), places(line)
        if d_k > 1:  # the products, printed to the result's places, add up exactly
            products = numbers(line.split(" = ")[-2])
            assert_adds_up(products, result, decimals)
            for (a, b), p in zip(pairs, products, strict=False):
                assert_adds_up([a * b], p, decimals)
        else:
            assert_adds_up([a * b for a, b in pairs], result, decimals)
    entry = fq.entry_md(r, "en").split("\n\n")[0]  # section 3: one entry of Q
    if d_model <= 4:
        products = [float(a) * float(b) for a, b in PAIR.findall(entry)]
        assert_adds_up(products, float(RESULT.search(entry).group(1)), places(entry))
    explained = fq.check_md(r.check, "en")  # section 4, the check's answer
    worked = float(re.search(rf"= ({NUMBER})\$", explained).group(1))
    assert_adds_up([float(a) * float(b) for a, b in PAIR.findall(explained)], worked, 4)
    *weights, total = numbers(fq.softmax_md(r, "en").split("$$")[-1].split("≈")[0])  # section 6
    assert_adds_up(weights, total, 3)
    weighted = fq.weighted_sum_tex(s.i, s.alpha_prime, r.V, s.b_i)  # section 7, component by component
    pieces = np.array([numbers(piece) for _, piece in weighted[:-1]])  # [T, d_v]
    for (term, _), row in zip(weighted[:-1], pieces, strict=True):
        weight, *values = numbers(term.split("b_{")[-1] if term.startswith("b_") else term)
        for v, p in zip(values, row, strict=True):
            assert_adds_up([weight * v], p, 2)
    for column, result in zip(pieces.T, numbers(weighted[-1]), strict=True):
        assert_adds_up(list(column), result, 2)
    worked = fq.compare_md(r, "en", hide_dot=False).split("$$")[1]  # section 9
    vectors = [numbers(line.split("&", 1)[1]) for line in worked.split(r" \\ ")[:3]]  # q + k, tanh(q + k), w
    result = float(RESULT.search(worked).group(1))
    assert_adds_up([w * h for w, h in zip(vectors[2], vectors[1], strict=True)], result, 3)
    if d_k <= 4:
        assert [(float(a), float(b)) for a, b in PAIR.findall(worked)] == list(zip(vectors[2], vectors[1], strict=True))


@pytest.mark.parametrize(("tokens", "d_model", "d_k", "seed", "i", "typed"), CASES)
def test_approximately_marks_exactly_the_results_the_unrounded_numbers_change(tokens, d_model, d_k, seed, i, typed):
    r = sentence_walkthrough(tokens, d_model, d_k, seed, i, typed)
    s = r.query
    lines = fq.dot_md(r, False, "zh").split("\n\n")
    for j, line in enumerate(lines[: len(tokens)]):
        differs = RESULT.search(line).group(1) != fq.num(s.alpha[j], 3)
        assert (r"\approx" in line) == differs
        assert (rf"$\alpha_{{{i + 1},{j + 1}}} = {fq.num(s.alpha[j], 3)}$" in lines[-1]) == differs  # in the note
    assert (len(lines) > len(tokens)) == any(r"\approx" in line for line in lines)
    worked = fq.compare_md(r, "zh", hide_dot=False)
    differs = RESULT.search(worked).group(1) != fq.num(r.additive_scores[i, r.check.j], 3)
    assert (r"\approx" in worked) == differs == worked.endswith("。")  # the note closes the section's words


def test_the_words_around_the_walk_name_its_tokens_question_and_steps():
    r = sentence_walkthrough(tuple(TOKENS), 3, 2, 3, 0)
    assert fq.tokens_md(r.tokens).split("\u2003") == [
        "$a_{1}$ = **I**",
        "$a_{2}$ = **saw**",
        "$a_{3}$ = **a**",
        f"$a_{{4}}$ = **{fq.token_md(r.tokens, 3)}**",  # escaped: markup typed in the sentence stays text
    ]
    c = r.check
    assert fq.check_question_md(c, "zh") == t(
        "qkv.check_question", "zh", j=c.j + 1, q1=fq.inline_vector_tex(c.q), kj=fq.inline_vector_tex(c.k)
    )
    assert fq.inline_vector_tex(r.K[c.j]) in fq.seed_mistake_md(r, "en")
    names = ("tokens", "softmax", "output")  # the steps are said by their numbers, 1-based
    assert fq.agrees_md(r, names, "en") == t("qkv.same_as_steps", "en", i=1, softmax=2, output=3)
