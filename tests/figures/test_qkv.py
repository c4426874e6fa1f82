"""lab_ui.figures.qkv: the typeset matrices and the figures hold the numbers they were given, and a
line that would not fit is laid out another way."""

import re

import numpy as np
import pytest

from lab_ui.figures import qkv as fq

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


def test_product_is_written_out_only_when_it_fits():
    x, w = np.ones((4, 3)), np.ones((3, 2))
    line = fq.product_tex([("I", x, fq.row_labels("a", 4)), ("W_q", w, None)], ("Q", x @ w, fq.row_labels("q", 4)))
    assert line is not None and r"I\ [4 \times 3]" in line and r"W_q\ [3 \times 2]" in line and "3.00" in line
    wide = np.ones((4, 8))
    assert fq.product_tex([("I", wide, None), ("W", np.ones((8, 8)), None)], ("Q", wide, None)) is None
    assert fq.product_tex([("I", x, None), ("W", w, None)], ("Q", x @ w, None), budget=200) is None


def test_side_by_side_or_one_per_line():
    parts = ["A", "B", "C"]
    assert fq.matrices_tex(parts, [200, 200, 200]) == [r"A\qquad B\qquad C"]
    assert fq.matrices_tex(parts, [300, 300, 300]) == parts


def test_dot_terms_show_the_products_that_make_each_score():
    q = np.array([0.5, -1.0])
    K = np.array([[2.0, 1.0], [0.0, -3.0]])
    products = q * K
    lines = fq.dot_terms_tex(0, q, K, products, products.sum(axis=1))
    # α_11 = (0.50)(2.00) + (-1.00)(1.00) = 1.00 + (-1.00) = 0.000;  α_12 = 0 + 3 = 3.000
    assert len(lines) == 2 and lines[0].startswith(r"\alpha_{1,1} = q_{1} \cdot k_{1} = ")
    assert "(0.50)(2.00) + (-1.00)(1.00) = 1.00 + (-1.00) = " in lines[0]
    assert r"\boldsymbol{0.000}" in lines[0] and r"\boldsymbol{3.000}" in lines[1]
    long = fq.dot_terms_tex(0, np.ones(6), np.ones((1, 6)), np.ones((1, 6)), np.array([6.0]))
    assert ")(" not in long[0] and "1.00 + 1.00" in long[0]  # d_k > 4: products only


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
    lines = fq.weighted_sum_tex(0, weight, V, contributions, b)
    assert len(lines) == 3 and "0.200" in lines[0][0] and "0.800" in lines[1][0] and "1.80 & 0.20" in lines[2]
    assert "0.20 & -0.20" in lines[0][1]  # α'v_1 = 0.2 · (1, -1), a piece of its own
    assert "$\u2003${(=" in fq.lines_md(lines)
    fig = fq.weighted_sum_figure(TOKENS[:2], weight, V, contributions, b, b_name="b1", x_title="c", y_title="v")
    bars = [tr for tr in fig.data if tr.type == "bar"]
    assert len(bars) == 2 and fig.layout.barmode == "relative"
    np.testing.assert_allclose(np.sum([tr.y for tr in bars], axis=0), b, atol=1e-6)
    diamonds = fig.data[-1]
    np.testing.assert_allclose(diamonds.y, b, atol=1e-6)
    assert [s.y0 for s in fig.layout.shapes] == list(np.float32(b).astype(float))


def test_score_bars_hold_the_three_stages():
    alpha = np.array([1.0, 2.0, -1.0, 0.5])
    fig = fq.score_bars(TOKENS, alpha, alpha / 2, np.array([0.1, 0.6, 0.1, 0.2]), names=("a", "b", "c"),
                        x_title="key", y_title="value")  # fmt: skip
    assert [tr.name for tr in fig.data] == ["a", "b", "c"]
    np.testing.assert_allclose(fig.data[1].y, alpha / 2)
    assert fig.layout.xaxis.ticktext[3] == "&lt;b&gt;saw&lt;/b&gt;"  # escaped: shown as text, never HTML


def test_compare_bars_hold_both_models_weights():
    dot, additive = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.25, 0.25, 0.25, 0.25])
    fig = fq.compare_bars(TOKENS, dot, additive, names=("dot", "add"), x_title="k", y_title="w")
    assert [tr.name for tr in fig.data] == ["dot", "add"] and fig.layout.barmode == "group"
    np.testing.assert_allclose(fig.data[0].y, dot, atol=1e-7)
    np.testing.assert_allclose(fig.data[1].y, additive, atol=1e-7)
    assert fig.data[0].marker.color != fig.data[1].marker.color
    assert isinstance(fig.data[0].y, tuple | list)  # plain lists: cheaper to send on every rerun
    assert fig.layout.template.layout.to_plotly_json() == {}


def test_additive_tex_writes_the_pair_out():
    q, k, w = np.array([0.5, 0.0]), np.array([0.5, 1.0]), np.array([2.0, -1.0])
    score = float(w @ np.tanh(q + k))  # 2·tanh(1) − tanh(1) = tanh(1) = 0.762
    tex = fq.additive_tex(0, 1, q, k, w, score)
    assert "1.00 & 1.00" in tex and "0.76 & 0.76" in tex and r"\boldsymbol{0.762}" in tex


def test_a_typed_matrix_survives_the_link():
    m = fq.link_matrix(np.array([[0.5, -1.25], [1 / 3, 99.5], [0.0, -0.0]]))
    assert m == ((0.5, -1.25), (0.333333, 99.0), (0.0, -0.0))  # 6 significant digits, within ±99
    text = fq.matrix_to_text(m)
    assert text == "0.5~-1.25_0.333333~99_0~-0"
    assert re.fullmatch(r"[0-9.~_e+-]+", text)  # unreserved characters only: the link stays readable
    assert fq.parse_matrix([text]) == m


@pytest.mark.parametrize("raw", [["1~2_3"], ["a~1"], ["1~2", "3~4"], ["inf~1"], ["100~0"], ["1~2~3~4~5"], [""]])
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
