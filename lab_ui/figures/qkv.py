"""Figures, typeset matrices, words and tables for the Q, K, V page: the walkthrough
(attention_core.steps.QKVWalkthrough) and the language in; go.Figure, LaTeX, markdown or a
DataFrame out, each with its labels looked up here; and the text form of a typed weight matrix in
a link. No Streamlit calls: everything here is pure.

Small matrices are typeset (KaTeX) rather than drawn: a student reads them like a textbook and
can redo the arithmetic, the shape sits under each bracket, and the chosen query's row is marked
in colour, in bold and with an arrow (never colour alone). Figures show what a picture says
better than numbers: scores turning into weights, and the output as a weighted sum.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.dropout import N_DRAWS as N_DROPOUT_DRAWS
from attention_core.dropout import DropoutRow
from attention_core.steps import QKVWalkthrough, ScoreCheck, gives_away
from lab_ui.figures.common import DIVERGING_WARM, MAX_LABEL_CHARS, QUALITATIVE, heatmap, safe_label, token_ticks
from lab_ui.i18n import literal, t
from lab_ui.layout import layout_dict, text_px

HIGHLIGHT = "#B34E00"  # a darker Okabe-Ito vermillion: 5.2:1 on white; lab_ui/style.py lightens it on dark
_PIECES = QUALITATIVE[:7]  # Okabe-Ito without its black, which marks the sum b_i
_PATTERNS = ("", "/", "x")  # a second cue when more tokens than colours share them
# The legend along the bottom of the figure, below the axis titles (in container coordinates, so that
# lecture mode's larger type cannot push the axis title onto it).
LEGEND = {"orientation": "h", "x": 0, "xanchor": "left", "y": 0, "yref": "container", "yanchor": "bottom"}
ARTICLE_REPEATED = "saw"  # article 001: "I saw a saw", one word twice with two meanings

# How wide typeset maths comes out, in CSS pixels at Streamlit's body size, measured in Chromium:
# a column of numbers (its padding, and each character of its widest number), a pair of brackets, a
# column of row names. The page sets matrices side by side as separate elements that wrap to the
# next line where the screen is too narrow; one wider than a phone's column (PHONE_PX: 390 px less
# the page's margins) scrolls sideways, and the page says so under it on a phone.
COL_PAD_PX, CHAR_PX, BRACKET_PX, LABEL_PX = 27, 8, 36, 52
PHONE_PX = 356

# The page's CSS. A matrix wider than a phone scrolls sideways; the note that says so (a container
# keyed qkv_hint_<n>) is shown on a phone only. A paragraph whose inline maths cannot wrap (a vector of
# eight numbers) scrolls on its own rather than the page. A formula or paragraph wider than its column
# gets a shadow at the edge it scrolls towards (the covers move with the content, the shadows stay:
# at an end, a cover hides its shadow); not inside a coloured box or a button, whose background the
# covers lack (on a red button they hid its label).
_PARAGRAPH = '[data-testid="stMain"] [data-testid="stMarkdownContainer"] p:not(button *)'
_SCROLLS = f'[data-testid="stMain"] .katex-display, {_PARAGRAPH}'
_SHADOWED = f'[data-testid="stMain"] .katex-display, {_PARAGRAPH}:not([data-testid="stAlert"] *)'
PAGE_CSS = f"""<style>[class*="st-key-qkv_hint"] {{ display: none; }}
@media (max-width: 640px) {{ [class*="st-key-qkv_hint"] {{ display: block; }} }}
{_SCROLLS} {{ overflow-x: auto; overflow-y: hidden; }}
{_SHADOWED} {{ --qkv-bg: #ffffff; background-repeat: no-repeat;
  background-image: linear-gradient(to right, var(--qkv-bg) 40%, transparent), linear-gradient(to left,
    var(--qkv-bg) 40%, transparent), radial-gradient(farthest-side at 0 50%, rgba(128, 128, 128, 0.55), transparent),
    radial-gradient(farthest-side at 100% 50%, rgba(128, 128, 128, 0.55), transparent);
  background-position: left center, right center, left center, right center;
  background-size: 32px 100%, 32px 100%, 14px 100%, 14px 100%; background-attachment: local, local, scroll, scroll; }}
@media (prefers-color-scheme: dark) {{ {_SHADOWED} {{ --qkv-bg: #0e1117; }} }}</style>"""


def matrix_px(m: np.ndarray, labelled: bool = False) -> int:
    """The width of matrix_tex(m) (without its name), e.g. 4 × 4 with minus signs and row names: 386."""
    m = np.atleast_2d(m)  # [rows, cols]
    chars = [max(len(num(v)) for v in col) for col in m.T]  # "−0.81": 5
    return sum(COL_PAD_PX + CHAR_PX * n for n in chars) + BRACKET_PX + (LABEL_PX if labelled else 0)


# --- typeset numbers ----------------------------------------------------------------------------


def num(x: float, decimals: int = 2) -> str:
    """A number for LaTeX: fixed decimals, no "-0.00"."""
    text = f"{x:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _mark(text: str) -> str:
    return rf"\textcolor{{{HIGHLIGHT}}}{{\boldsymbol{{{text}}}}}"


def matrix_tex(
    m: np.ndarray,
    *,
    name: str | None = None,
    row_labels: Sequence[str] | None = None,
    highlight_row: int | None = None,
    hide: np.ndarray | None = None,
    decimals: int = 2,
) -> str:
    """A bracketed matrix, numbers right-aligned; under it `name [rows × cols]` when named.

    row_labels (LaTeX, e.g. "q_{1}") stand left of the bracket; the highlighted row's label gets
    an arrow, and its numbers are coloured and bold. hide: bool [rows, cols], cells shown as "?".
    """
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))  # [rows, cols]
    rows, cols = m.shape
    body = []
    for r in range(rows):
        cells = ["?" if hide is not None and hide[r, c] else num(v, decimals) for c, v in enumerate(m[r])]
        body.append(" & ".join(_mark(c) if r == highlight_row else c for c in cells))
    core = r"\left[\begin{array}{" + "r" * cols + "}" + r" \\ ".join(body) + r"\end{array}\right]"
    if name:
        core = rf"\underbrace{{{core}}}_{{\textstyle {name}\ [{rows} \times {cols}]}}"
    if row_labels is not None:
        labels = [
            _mark(rf"\blacktriangleright {lab}") if r == highlight_row else lab for r, lab in enumerate(row_labels)
        ]
        core = r"\begin{array}{r}" + r" \\ ".join(labels) + r"\end{array}\!" + core
    return core


def row_labels(letter: str, n: int) -> list[str]:
    """a_{1} .. a_{n}: the articles' names for the rows (1-based, as the articles count)."""
    return [f"{letter}_{{{j + 1}}}" for j in range(n)]


Part = tuple[str, int]  # a piece of typeset maths the page sets beside others, and its width in px


def matrix_part(
    m: np.ndarray,
    *,
    name: str | None = None,
    labels: Sequence[str] | None = None,
    highlight_row: int | None = None,
    hide: np.ndarray | None = None,
    prefix: str = "",
    prefix_px: int = 0,
) -> Part:
    """One matrix (see matrix_tex), after an optional `prefix` such as "= " that is prefix_px wide."""
    tex = prefix + matrix_tex(m, name=name, row_labels=labels, highlight_row=highlight_row, hide=hide)
    return tex, matrix_px(m, labels is not None) + prefix_px


def product_parts(
    factors: Sequence[tuple[str, np.ndarray, Sequence[str] | None]],
    result: tuple[str, np.ndarray, Sequence[str] | None],
    *,
    highlight_row: int | None = None,
    hide: np.ndarray | None = None,
) -> list[Part]:
    """`I W_q = Q` with every number and shape, as pieces: each factor, then "= result". Set side
    by side they read as one line; a narrow screen wraps them. The first factor's highlighted row
    is the result's; `hide` applies to the result."""
    parts = [
        matrix_part(m, name=name, labels=labels, highlight_row=highlight_row if k == 0 else None)
        for k, (name, m, labels) in enumerate(factors)
    ]
    name, m, labels = result
    return [
        *parts,
        matrix_part(m, name=name, labels=labels, highlight_row=highlight_row, hide=hide, prefix="= ", prefix_px=30),
    ]


# The formulas beside the code that computes them (attention_core.steps), one per section.
FORMULAS = {
    "qkv": r"Q = I\,W_q \qquad K = I\,W_k \qquad V = I\,W_v",
    "scores": r"\alpha_{i,j} = q_i \cdot k_j = \sum_{c=1}^{d_k} q_i[c]\; k_j[c]",
    "softmax": r"\alpha'_{i,j} = \frac{e^{\alpha_{i,j}/\sqrt{d_k}}}{\sum_m e^{\alpha_{i,m}/\sqrt{d_k}}}",
    "output": r"b_i = \sum_j \alpha'_{i,j}\, v_j",
    # One display formula on several lines: \\ only breaks a line inside an environment (KaTeX warns otherwise).
    "matrix": r"\begin{gathered} A = Q K^{\top} \\ A' = \operatorname{softmax}\!\left(\frac{A}{\sqrt{d_k}}\right)"
    r" \\ O = A' V \end{gathered}",
    "additive": r"\alpha_{i,j} = w \cdot \tanh(q_i + k_j)",
    # dropout while training: a weight is zeroed with probability p, the others scaled so that its mean stays
    "dropout": r"\tilde\alpha'_{i,j} = \begin{cases} \alpha'_{i,j}/(1-p) & \text{kept, probability } 1-p \\"
    r" 0 & \text{dropped, probability } p \end{cases} \qquad \mathbb{E}\,\tilde\alpha'_{i,j} = \alpha'_{i,j}",
}


def tokens_rows(r: QKVWalkthrough) -> list[list[Part]]:
    """Section 1's matrix: I, the followed query's row marked."""
    return [[matrix_part(r.x, name="I", labels=row_labels("a", len(r.x)), highlight_row=r.query.i)]]


def weights_rows(r: QKVWalkthrough) -> list[list[Part]]:
    """Section 2's matrices: W_q, W_k, W_v side by side."""
    return [[matrix_part(w, name=name) for name, w in (("W_q", r.w_q), ("W_k", r.w_k), ("W_v", r.w_v))]]


def scores_rows(r: QKVWalkthrough) -> list[list[Part]]:
    """Section 5's matrices: the followed query q_i beside K."""
    s = r.query
    return [[vector_part(f"q_{{{s.i + 1}}}", s.q_i), matrix_part(r.K, name="K", labels=row_labels("k", len(r.x)))]]


def qkv_rows(r: QKVWalkthrough) -> tuple[list[Part], list[Part]]:
    """Section 3's matrices: I W_q = Q written out, then Q, K and V side by side."""
    T, i = len(r.x), r.query.i
    product = product_parts(
        [("I", r.x, row_labels("a", T)), ("W_q", r.w_q, None)], ("Q", r.Q, row_labels("q", T)), highlight_row=i
    )
    three = [
        matrix_part(m, name=rf"{X} = I\,W_{x}", labels=row_labels(x, T), highlight_row=i)
        for X, x, m in (("Q", "q", r.Q), ("K", "k", r.K), ("V", "v", r.V))
    ]
    return product, three


def matrix_rows(r: QKVWalkthrough, hide_answer: bool, compact: bool = False) -> list[list[Part]]:
    """Section 8's matrices: Q Kᵀ = A written out (hide_answer: cells of A that equal the check's
    answer read "?"), then A' and O. compact: A without its factors, then A' and O, each named before
    its bracket instead of under it: two short rows, which lecture mode's larger type fits on one
    screen, in the order they are computed."""
    T, i, m = len(r.x), r.query.i, r.matrix
    hide = gives_away(m.scores, r.check.answer) & hide_answer  # [T, T]
    q_labels, b_labels = row_labels("q", T), row_labels("b", T)
    if compact:
        return [
            [
                matrix_part(
                    m.scores, labels=q_labels, highlight_row=i, hide=hide, prefix=r"A = Q K^{\top} = ", prefix_px=110
                )
            ],
            [
                matrix_part(
                    m.weights,
                    labels=q_labels,
                    highlight_row=i,
                    prefix=r"A' = \operatorname{softmax}\!\left("
                    r"\frac{A}{\sqrt{d_k}}\right) = ",
                    prefix_px=160,
                ),
                matrix_part(m.output, highlight_row=i, prefix="O = A'V = ", prefix_px=80),
            ],
        ]
    product = product_parts(
        [("Q", r.Q, q_labels), (r"K^{\top}", r.K.T, None)], ("A", m.scores, q_labels), highlight_row=i, hide=hide
    )
    return [
        product,
        [
            matrix_part(m.weights, name=r"A' = \operatorname{softmax}(A/\sqrt{d_k})", labels=q_labels, highlight_row=i),
            matrix_part(m.output, name="O", labels=b_labels, highlight_row=i, prefix="O = A'V = ", prefix_px=110),
        ],
    ]


def vector_part(name: str, v: np.ndarray) -> Part:
    """`name = [v]`, e.g. q_{1} = [-0.52  0.74]."""
    return f"{name} = {vector_tex(v)}", matrix_px(v) + 60


def vector_tex(v: np.ndarray, decimals: int = 2) -> str:
    """A row vector in brackets."""
    cells = " & ".join(num(x, decimals) for x in v)
    return r"\left[\begin{array}{" + "r" * len(v) + "}" + cells + r"\end{array}\right]"


def inline_vector_tex(v: np.ndarray, decimals: int = 2) -> str:
    """A row vector inside a sentence: [a, b, ...] with a line break allowed after each comma, so
    that on a phone a long one wraps with the words instead of running off the screen (a bracketed
    array never breaks)."""
    return r"[\," + r",\allowbreak\ ".join(num(x, decimals) for x in v) + r"\,]"


def _signed(x: float, decimals: int = 2) -> str:
    """A term of a sum: negative numbers in parentheses, so "+ (-0.15)" reads plainly."""
    text = num(x, decimals)
    return f"({text})" if text.startswith("-") else text


def pairs_tex(a: np.ndarray, b: np.ndarray) -> str:
    return " + ".join(f"({num(x)})({num(y)})" for x, y in zip(a, b, strict=True))


# --- worked sums: from the numbers as printed ----------------------------------------------------------
# A student redoes a worked sum from the numbers on the screen, which are rounded. So each written
# result is computed from the printed numbers (a product of printed factors, a total of printed
# terms) and agrees with them to its last digit; where the unrounded result the page computes with
# differs, the line says "≈" where the rounded numbers come in, and a note gives the unrounded one.


def shown(x, decimals: int = 2) -> np.ndarray:
    """The numbers as num() prints them: -1.2345 at two places is -1.23.  same shape as x"""
    return np.vectorize(lambda v: float(num(v, decimals)), otypes=[np.float64])(np.asarray(x, dtype=np.float64))


def total(terms: Sequence[str], decimals: int) -> str:
    """The sum of printed terms, exactly (in units of their last digit), printed the same way."""
    units = sum(round(float(term.strip("()")) * 10**decimals) for term in terms)
    return num(units / 10**decimals, decimals)


def relation(worked: str, exact: str) -> str:
    """ "=" when the worked result prints as the unrounded one, else "≈" (LaTeX)."""
    return "=" if worked == exact else r"\approx"


def rounded_note(lang: str, exact: Sequence[str]) -> str:
    """What "≈" means, and the unrounded results (LaTeX pieces); nothing when no line needed it."""
    listed = t("qkv.list_separator", lang).join(f"${e}$" for e in exact)
    return "\n\n" + t("qkv.rounded_note", lang, exact=listed) if exact else ""


def lines_md(lines: Sequence[str | tuple[str, ...]]) -> str:
    """Sums written as inline maths, one paragraph a line. The browser breaks inline maths after
    "=" or "+" when the screen is too narrow (a phone), where a display formula would be cut;
    on a wide screen each stays on one line. A line given as pieces may also break between them."""
    pieces = ((line,) if isinstance(line, str) else line for line in lines)
    return "\n\n".join("\u2003".join(f"${p}$" for p in line) for line in pieces)


def entry_tex(letter: str, i: int, c: int, a_i: np.ndarray, w_col: np.ndarray, value: float, w_name: str) -> str:
    """One entry of a projection by hand: q_{i,c} = a_i · (column c of W_q) = (a)(w) + … = value,
    one line (for lines_md)."""
    head = rf"{letter}_{{{i + 1},{c + 1}}} = a_{{{i + 1}}} \cdot {w_name}[:, {c + 1}]"
    if len(a_i) > 4:  # eight factor pairs are more than a reader redoes: the product is the formula above
        return head + " = " + _mark(num(value, 4))
    # Two-place inputs give a four-place sum, exact; weights typed with more places are printed rounded.
    worked = num(float(shown(a_i) @ shown(w_col)), 4)
    return head + f" {relation(worked, num(value, 4))} " + pairs_tex(a_i, w_col) + " = " + _mark(worked)


def dot_terms_tex(
    i: int, q_i: np.ndarray, K: np.ndarray, products: np.ndarray, alpha: np.ndarray, hide: np.ndarray | None = None
) -> list[str]:
    """Per key, one line (for lines_md): α_{i,j} = q_i · k_j = (q)(k) + … = p + … = α.

    The factor pairs while d_k ≤ 4, then the products they give; beyond d_k = 4 the products alone.
    hide: bool [T], keys whose line ends "= ?" with no terms (they would give an answer away).
    """
    d_k = len(q_i)
    lines = []
    for j in range(len(alpha)):
        line = rf"\alpha_{{{i + 1},{j + 1}}} = q_{{{i + 1}}} \cdot k_{{{j + 1}}} "
        if hide is not None and hide[j]:
            lines.append(line + r"= \;?")
            continue
        # the products of the printed factors while they are printed, else the unrounded products;
        # three places, and the score is their sum
        terms = [_signed(p, 3) for p in (shown(q_i) * shown(K[j]) if d_k <= 4 else products[j])]
        worked = total(terms, 3)
        line += relation(worked, num(alpha[j], 3)) + " "
        if d_k <= 4:
            line += pairs_tex(q_i, K[j]) + " = "
        if d_k > 1:
            line += " + ".join(terms) + " = "
        lines.append(line + _mark(worked))
    return lines


def scale_tex(d_k: int, scale: float) -> str:
    return rf"\frac{{1}}{{\sqrt{{d_k}}}} = \frac{{1}}{{\sqrt{{{d_k}}}}} = {scale:.4f}"


def softmax_tex(i: int, alpha_prime: np.ndarray) -> tuple[str, str]:
    """α'_{i,j} = e^{α_{i,j}/√d_k} / Σ_m e^{α_{i,m}/√d_k} (display maths), then every weight and
    their sum as inline maths, one formula per weight, so that a narrow screen wraps between them."""
    n = len(alpha_prime)
    formula = (
        rf"\alpha'_{{{i + 1},j}} = \frac{{e^{{\alpha_{{{i + 1},j}}/\sqrt{{d_k}}}}}}"
        rf"{{\sum_{{m=1}}^{{{n}}} e^{{\alpha_{{{i + 1},m}}/\sqrt{{d_k}}}}}}"
    )
    weights = [rf"\alpha'_{{{i + 1},{j + 1}}} = {num(alpha_prime[j], 3)}" for j in range(n)]
    weights = [w + ("," if j < n - 1 else "") for j, w in enumerate(weights)]  # the comma inside: never first
    worked = total([num(a, 3) for a in alpha_prime], 3)  # the printed weights' sum: 0.999 or 1.001 at times
    line = rf"\textstyle\sum_j \alpha'_{{{i + 1},j}} {relation(worked, num(alpha_prime.sum(), 3))} {worked}"
    return formula, lines_md([tuple(weights), line])


def dot_md(r: QKVWalkthrough, hide_answer: bool, lang: str) -> str:
    """Section 5's sums: every score of the followed query from its products; one that equals the
    check's answer reads "?" while hide_answer."""
    s = r.query
    hide = gives_away(s.alpha, r.check.answer) & hide_answer  # [T]
    lines = dot_terms_tex(s.i, s.q_i, r.K, s.products, s.alpha, hide)
    exact = [
        rf"\alpha_{{{s.i + 1},{j + 1}}} = {num(s.alpha[j], 3)}" for j, line in enumerate(lines) if r"\approx" in line
    ]
    return lines_md(lines) + rounded_note(lang, exact)


def sum_md(r: QKVWalkthrough, lang: str) -> str:
    """Section 7's sum b_i = Σ_j α'_ij v_j term by term, then which value it lies closest to."""
    s = r.query
    lines = weighted_sum_tex(s.i, s.alpha_prime, r.V, s.b_i)
    exact = [rf"b_{{{s.i + 1}}} = {vector_tex(s.b_i)}"] if r"\approx" in lines[0][0] else []
    return lines_md(lines) + rounded_note(lang, exact) + "\n\n" + lean_md(r, lang)


def softmax_md(r: QKVWalkthrough, lang: str) -> str:
    """Section 6's numbers: 1/√d_k, the softmax of the followed query, every weight and their sum."""
    s = r.query
    formula, weights = softmax_tex(s.i, s.alpha_prime)
    exact = [rf"\textstyle\sum_j \alpha'_{{{s.i + 1},j}} = 1"] if r"\approx" in weights else []
    return f"$$\n{scale_tex(r.Q.shape[1], s.scale)}\n$$\n\n$$\n{formula}\n$$\n\n{weights}" + rounded_note(lang, exact)


def weighted_sum_tex(i: int, alpha_prime: np.ndarray, V: np.ndarray, b_i: np.ndarray) -> list[str | tuple[str, str]]:
    """b_i = α'_{i,1} v_1 + …: one term a line (for lines_md), each weighted vector α'v_j beside
    its term as a piece of its own (a narrow screen puts it under the term), then the sum. An
    invisible "b_i" indents the "+" lines under the "="."""
    indent = rf"\phantom{{b_{{{i + 1}}}}}"
    pieces = shown(alpha_prime, 3)[:, None] * shown(V)  # [T, d_v]: the printed weights times the printed values
    worked = [total([num(p) for p in column], 2) for column in pieces.T]  # [d_v]: the printed pieces' sums
    rel = "=" if worked == [num(b) for b in b_i] else r"\approx"
    lines = []
    for j in range(len(alpha_prime)):
        head = rf"b_{{{i + 1}}} {rel} " if j == 0 else rf"{indent} + "
        term = rf"{num(alpha_prime[j], 3)} \times {vector_tex(V[j])}"
        lines.append((head + term, rf"{{(= {vector_tex(pieces[j])})}}"))  # braces: never broken inside
    lines.append(rf"{indent} = " + _mark(vector_tex(np.array([float(w) for w in worked]))))
    return lines


def additive_tex(i: int, j: int, q_i: np.ndarray, k_j: np.ndarray, w: np.ndarray, score: float) -> str:
    """The additive model for one pair, one vector a line so that any d_k up to 8 fits."""
    a, b = i + 1, j + 1
    summed = np.round(shown(q_i) + shown(k_j), 2)  # [d_k]: q_i and k_j as section 3 prints them, added
    squashed = shown(np.tanh(summed))  # [d_k]
    worked = num(float(shown(w) @ squashed), 3)
    lines = [
        rf"q_{{{a}}} + k_{{{b}}} &= {vector_tex(summed)}",
        rf"\tanh(q_{{{a}}} + k_{{{b}}}) &= {vector_tex(squashed)}",
        rf"w &= {vector_tex(w)}",
    ]
    lines.append(rf"\alpha_{{{a},{b}}} &= w \cdot \tanh(q_{{{a}}} + k_{{{b}}})")
    rel = relation(worked, num(score, 3))
    if len(w) <= 4:  # the sum written out, while a reader would redo it
        lines.append(f"&{rel} " + pairs_tex(w, squashed))
        rel = "="
    lines.append(f"&{rel} " + _mark(worked))
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


# --- figures ------------------------------------------------------------------------------------


def _bars(
    ticks: list[int],
    values,
    shown: list[str],
    name: str,
    colour: str,
    key_text: list[str],
    x_title: str,
    with_text: bool,
) -> go.Bar:
    """One series of bars over the keys; `shown` is each bar's number as written (or "?")."""
    return go.Bar(
        x=ticks,
        y=[float(v) for v in values],
        name=name,
        marker_color=colour,
        customdata=[[k, s] for k, s in zip(key_text, shown, strict=True)],
        text=shown if with_text else None,
        textposition="outside",
        cliponaxis=False,
        hovertemplate=f"{x_title}: %{{customdata[0]}}<br>{name}: %{{customdata[1]}}<extra></extra>",
    )


def _layout(height: int, **more) -> dict:
    """The shared layout, with the legend in rows along the figure's bottom, starting at the left
    (lab_ui.layout reserves its room). Plotly's toolbar stands upright at the right: across the top
    it covered the plot's highest bars' numbers."""
    return layout_dict(height=height) | dict(legend=LEGEND, modebar=dict(orientation="v"), **more)


def tick_angle(labels: Sequence[str]) -> int:
    """0 while the key labels fit side by side on a phone's plot, else -60 (lab_ui.layout reserves
    the room of either: Plotly measuring them on every draw was a quarter of a step)."""
    room = PHONE_PX - 60  # a phone's plot: the column less the y axis
    return 0 if sum(text_px(label, 12) + 12 for label in labels) <= room else -60


def scores_figure(r: QKVWalkthrough, lang: str, hide_answer: bool = False) -> go.Figure:
    """Three bars per key for the followed query: the raw score α, the scaled score α/√d_k and the
    weight α'. hide_answer: a score equal to the check's answer is drawn as "?" (and its scaled
    score too, which is the answer times 1/√d_k)."""
    s, x_title = r.query, t("qkv.key_axis", lang)
    ticks, key_text = token_ticks(r.tokens)
    hidden = gives_away(s.alpha, r.check.answer) if hide_answer else np.zeros(len(s.alpha), dtype=bool)  # [T]
    with_text = len(ticks) <= 8  # beyond 8 keys: on hover
    data = []
    names = (t("qkv.bar_alpha", lang), t("qkv.bar_scaled", lang), t("qkv.bar_weight", lang))
    for values, name, colour, hide in zip(
        (s.alpha, s.alpha_scaled, s.alpha_prime), names, QUALITATIVE[:3], (hidden, hidden, None), strict=True
    ):
        shown = ["?" if hide is not None and h else f"{v:.2f}" for v, h in zip(values, hidden, strict=True)]
        values = np.where(hidden, 0.0, values) if hide is not None else values  # [T]
        data.append(_bars(ticks, values, shown, name, colour, key_text, x_title, with_text))
    layout = _layout(
        340,
        barmode="group",
        xaxis=dict(title=x_title, tickmode="array", tickvals=ticks, ticktext=key_text, tickangle=tick_angle(key_text)),
        yaxis=dict(title=t("qkv.value_axis", lang), zeroline=True, zerolinewidth=2),
    )
    return go.Figure(data=data, layout=layout)


def sum_figure(r: QKVWalkthrough, lang: str) -> go.Figure:
    """b_i as a stack: for each component c, the pieces α'_{i,j} v_j[c] of every key j stacked
    (positive up, negative down), and b_i[c], their sum, marked with a diamond just right of it."""
    s = r.query
    contributions = np.asarray(s.contributions, dtype=np.float64)  # [T, d_v]
    T, d_v = contributions.shape
    comps, comp_text = list(range(d_v)), [str(c + 1) for c in range(d_v)]
    b_name = f"b{s.i + 1}"
    data = []
    for j in range(T):
        label = f"{j + 1} · {safe_label(r.tokens[j])}"
        data.append(
            go.Bar(
                x=comps,
                y=[float(v) for v in contributions[j]],
                name=label,
                width=0.5,
                marker=dict(
                    color=_PIECES[j % len(_PIECES)], pattern_shape=_PATTERNS[(j // len(_PIECES)) % len(_PATTERNS)]
                ),
                customdata=[[float(s.alpha_prime[j]), float(v)] for v in r.V[j]],
                hovertemplate=(
                    f"{label}<br>α' = %{{customdata[0]:.4f}}<br>v = %{{customdata[1]:.4f}}"
                    "<br>α'·v = %{y:.4f}<extra></extra>"
                ),
            )
        )
    b = [float(v) for v in s.b_i]  # [d_v]
    # The sum stands just right of its bar, joined to the bar's net height by a short grey line, so
    # the diamond and its number never sit on top of a coloured piece.
    data.append(
        go.Scatter(
            x=[x for c in comps for x in (c + 0.25, c + 0.38, None)],
            y=[y for v in b for y in (v, v, None)],
            mode="lines",
            line=dict(color="#888888", width=2),
            hoverinfo="skip",
            showlegend=False,
        )
    )
    data.append(
        go.Scatter(
            x=[c + 0.38 for c in comps],
            y=b,
            name=b_name,
            mode="markers+text",
            marker=dict(symbol="diamond", size=14, color="#000000", line=dict(width=2, color="#FFFFFF")),
            text=[f"{v:.2f}" for v in b],
            textposition="middle right",
            textfont=dict(size=15),
            customdata=comp_text,
            hovertemplate=f"{b_name}[%{{customdata}}] = %{{y:.4f}}<extra></extra>",
            cliponaxis=False,
        )
    )
    layout = _layout(  # room on the right for the last sum's number, on a phone too
        360,
        barmode="relative",
        xaxis=dict(
            title=t("qkv.component_axis", lang),
            tickmode="array",
            tickvals=comps,
            ticktext=comp_text,
            range=[-0.5, d_v - 0.1],
            tickangle=0,
        ),
        yaxis=dict(title=t("qkv.value_axis", lang), zeroline=True, zerolinewidth=2),
    )
    return go.Figure(data=data, layout=layout)


def tokens_map(r: QKVWalkthrough, lang: str) -> go.Figure:
    """I in colour, one row per token: identical tokens are identical rows, which a colour shows
    at a glance (the numbers are the typeset matrix's, on hover)."""
    T, d_model = r.x.shape
    labels = [f"{j + 1} · {tok}" for j, tok in enumerate(r.tokens)]
    fig = heatmap(
        r.x,
        [str(c + 1) for c in range(d_model)],
        labels,
        x_title=t("qkv.component_axis_a", lang),
        y_title=t("qkv.token_index", lang),
        value_name="a",
        colorscale=DIVERGING_WARM,
        zmid=0.0,
        value_format=".2f",
        height=min(560, 150 + 26 * T),
    )
    fig.layout.xaxis.tickangle = 0
    return fig


def weights_map(r: QKVWalkthrough, lang: str, max_height: int = 620) -> go.Figure:
    """A' as a heatmap, for a sentence too long to print A' as numbers; the query's row outlined."""
    T, i = len(r.tokens), r.query.i
    fig = heatmap(
        r.matrix.weights,
        r.tokens,
        r.tokens,
        x_title=t("qkv.key_axis", lang),
        y_title=t("qkv.query_axis", lang),
        value_name="α'",
        zmin=0.0,
        zmax=1.0,
        value_format=".2f",
        height=min(max_height, 180 + 30 * T),
    )
    outline = dict(
        type="rect",
        x0=-0.5,
        x1=T - 0.5,
        y0=i - 0.5,
        y1=i + 0.5,
        line=dict(color=HIGHLIGHT, width=3),
        fillcolor="rgba(0,0,0,0)",
    )
    fig.layout.shapes = (outline,)
    fig.layout.xaxis.tickangle = tick_angle(fig.layout.xaxis.ticktext or [safe_label(tok) for tok in r.tokens])
    return fig


def compare_figure(r: QKVWalkthrough, lang: str) -> go.Figure:
    """The followed query's weights over the keys from the two scoring models, bar beside bar."""
    i, x_title = r.query.i, t("qkv.key_axis", lang)
    ticks, key_text = token_ticks(r.tokens)
    names = (t("qkv.dot_map", lang), t("qkv.add_map", lang))
    data = [
        _bars(ticks, w, [f"{v:.2f}" for v in w], name, colour, key_text, x_title, len(ticks) <= 8)
        for w, name, colour in zip(
            (r.matrix.weights[i], r.additive_weights[i]), names, (QUALITATIVE[0], QUALITATIVE[5]), strict=True
        )
    ]
    layout = _layout(
        320,
        barmode="group",
        xaxis=dict(title=x_title, tickmode="array", tickvals=ticks, ticktext=key_text, tickangle=tick_angle(key_text)),
        yaxis=dict(title=t("qkv.bar_weight", lang), range=[0, 1.08]),
    )
    return go.Figure(data=data, layout=layout)


# --- words and tables built from the walkthrough (no Streamlit calls either) -------------------------


def lean_md(r: QKVWalkthrough, lang: str) -> str:
    """Which value b_i lies closest to, or that it is close to the plain average; with random weights,
    a reminder that this says nothing about the words."""
    s, T = r.query, len(r.tokens)
    w, i = s.alpha_prime[s.best], s.i + 1
    if s.stands_out:
        text = t("qkv.leans", lang, i=i, j=s.best + 1, w=f"{w:.3f}", token=token_md(r.tokens, s.best))
    else:
        text = t("qkv.even", lang, i=i, w=f"{w:.3f}", avg=f"{1 / T:.3f}")
    return text + (" " + t("qkv.random_leans", lang, i=i) if r.random_weights else "")


def entry_md(r: QKVWalkthrough, lang: str) -> str:
    """One entry of Q worked out by hand (the followed query's first), then a word on K and V."""
    i = r.query.i
    entry = entry_tex("q", i, 0, r.x[i], r.w_q[:, 0], r.Q[i, 0], "W_q")
    exact = [rf"q_{{{i + 1},1}} = {num(r.Q[i, 0], 4)}"] if r"\approx" in entry else []
    return lines_md([entry]) + rounded_note(lang, exact) + "\n\n" + t("qkv.qkv_all", lang)


def check_md(c: ScoreCheck, lang: str) -> str:
    """The check's answer worked out from q_1 and k_j as the question prints them (two places, so
    the sum has four, exactly), then the unrounded answer the page accepts it against."""
    worked, answer = num(float(shown(c.q) @ shown(c.k)), 4), num(c.answer, 4)
    return t(
        "qkv.check_explain",
        lang,
        j=c.j + 1,
        rel=relation(worked, answer),
        terms=pairs_tex(c.q, c.k),
        worked=worked,
        answer=answer,
    )


def check_question_md(c: ScoreCheck, lang: str) -> str:
    """The check's question: α_{1,j} by hand, from q_1 and k_j printed with two places."""
    return t("qkv.check_question", lang, j=c.j + 1, q1=inline_vector_tex(c.q), kj=inline_vector_tex(c.k))


def seed_mistake_md(r: QKVWalkthrough, lang: str) -> str:
    """Article 000's mistake beside the scores: k_j is a vector of d_k numbers, not one number."""
    j = r.check.j
    return t("qkv.seed_mistake", lang, d_k=r.K.shape[1], k2=inline_vector_tex(r.K[j]), j=j + 1)


def agrees_md(r: QKVWalkthrough, step_names: Sequence[str], lang: str) -> str:
    """Whether row i of the matrix form holds the α' and b_i that the softmax and output steps (named
    by their numbers among the page's step_names) worked out for the followed query alone."""
    key, number = "qkv.same_as_steps" if r.agrees else "qkv.not_same", step_names.index
    return t(key, lang, i=r.query.i + 1, softmax=number("softmax") + 1, output=number("output") + 1)


def tokens_md(tokens: Sequence[str]) -> str:
    """The sentence's tokens named as the articles name them: a_1 = I, a_2 = saw, ..."""
    return "\u2003".join(f"$a_{{{j + 1}}}$ = **{token_md(tokens, j)}**" for j in range(len(tokens)))


def token_md(tokens: Sequence[str], j: int) -> str:
    """Token j as markdown shows it: shortened to 24 characters, its markup characters escaped."""
    return literal(short(tokens[j], 24))


def positions_text(js: Sequence[int], lang: str) -> str:
    """1-based positions as a list in words: "2 and 4", "7, 11 and 15" ("7、11、15" in Chinese)."""
    shown = [str(j + 1) for j in js]
    return t("qkv.repeat_sep", lang).join(shown[:-1]) + t("qkv.repeat_last", lang) + shown[-1]


def repeated_md(r: QKVWalkthrough, lang: str, output: bool = False) -> str:
    """Every repeated token and all its positions ("tokens 7, 11 and 15 are all 'the'"): identical
    rows of I (output=False), or of A' and O (output=True)."""
    groups = r.repeats
    if output:
        rows = t("qkv.repeat_groups_sep", lang).join(positions_text(js, lang) for js in groups)
        return t("qkv.repeated_out", lang, rows=rows)
    named = [
        t(
            "qkv.repeated_pair" if len(js) == 2 else "qkv.repeated_many",
            lang,
            positions=positions_text(js, lang),
            token=token_md(r.tokens, js[0]),
        )
        for js in groups
    ]
    text = t("qkv.repeated", lang, groups=t("qkv.repeat_groups_sep", lang).join(named))
    # Article 001's example is the two "saw"s; any other repeated token is the student's own.
    article = any(r.tokens[js[0]].lower() == ARTICLE_REPEATED for js in groups)
    return f"{text} {t('qkv.repeated_article', lang)}" if article else text


def compare_md(r: QKVWalkthrough, lang: str, hide_dot: bool) -> str:
    """The two scores of the followed query and the check's key, side by side in a table, then the
    additive one worked out. hide_dot: the dot-product score is the check's answer, written "?"."""
    s, j = r.query, r.check.j
    a, b = s.i + 1, j + 1
    pair = rf"\alpha_{{{a},{b}}} = "
    dot = pair + rf"q_{{{a}}} \cdot k_{{{b}}} = " + (r"\;?" if hide_dot else num(s.alpha[j], 3))
    add = pair + rf"w \cdot \tanh(q_{{{a}}} + k_{{{b}}}) = " + num(r.additive_scores[s.i, j], 3)
    notes = [t(key, lang).replace("|", "\\|") for key in ("qkv.dot_note", "qkv.add_note")]  # a bare "|" ends a cell
    worked = additive_tex(s.i, j, s.q_i, r.K[j], r.w_additive, r.additive_scores[s.i, j])
    exact = [pair + num(r.additive_scores[s.i, j], 3)] if r"\approx" in worked else []
    return "\n".join(
        [
            f"| {t('qkv.dot_title', lang)} | {t('qkv.add_title', lang)} |",
            "|---|---|",
            f"| ${dot}$ | ${add}$ |",
            f"| {notes[0]} | {notes[1]} |",
            "",
            t("qkv.add_worked", lang, i=a, j=b),
            "",
            f"$$\n{worked}\n$$",
        ]
    ) + rounded_note(lang, exact)


Table = tuple[pd.DataFrame, str, str]  # the numbers, the CSV's file name, the caption


def _table(data, index: Sequence[str], index_key: str, columns, filename: str, caption_key: str, lang: str) -> Table:
    frame = pd.DataFrame(data, index=pd.Index(list(index), name=t(index_key, lang)), columns=columns)
    return frame, filename, t(caption_key, lang)


def qkv_table(r: QKVWalkthrough, lang: str) -> Table:
    """Every token's a, q, k and v."""
    d_model, d_k = r.x.shape[1], r.Q.shape[1]
    columns = [f"{p}[{c + 1}]" for p, n in (("a", d_model), ("q", d_k), ("k", d_k), ("v", d_k)) for c in range(n)]
    return _table(
        np.hstack([r.x, r.Q, r.K, r.V]),
        key_labels(r.tokens),
        "qkv.token_index",
        columns,
        "qkv_I_Q_K_V.csv",
        "qkv.table_qkv",
        lang,
    )


def products_table(r: QKVWalkthrough, lang: str, hide: np.ndarray) -> Table:
    """The products that make each score of the followed query, and the score; hidden rows empty."""
    s, d_k = r.query, r.Q.shape[1]
    columns = [f"q{s.i + 1}[{c + 1}]·k[{c + 1}]" for c in range(d_k)] + [f"α{s.i + 1},j"]
    data = np.where(hide[:, None], np.nan, np.column_stack([s.products, s.alpha]))  # [T, d_k + 1]
    return _table(data, key_labels(r.tokens), "qkv.key_index", columns, "qkv_products.csv", "qkv.table_products", lang)


def softmax_table(r: QKVWalkthrough, lang: str, hide: np.ndarray) -> Table:
    """Score to weight, key by key; a hidden key's score and what follows from it left empty."""
    s = r.query
    data = {"α": s.alpha, "α/√d_k": s.alpha_scaled, "exp(α/√d_k − max)": s.exp_shifted}
    data = {name: np.where(hide, np.nan, v) for name, v in data.items()} | {"α'": s.alpha_prime}  # [T] each
    return _table(data, key_labels(r.tokens), "qkv.key_index", None, "qkv_softmax.csv", "qkv.table_softmax", lang)


def sum_table(r: QKVWalkthrough, lang: str) -> Table:
    """The weighted values α'·v of every token and their sum b_i."""
    s, labels = r.query, key_labels(r.tokens)
    index = [*(f"α'·v {lab}" for lab in labels), f"b{s.i + 1}"]
    columns = [f"[{c + 1}]" for c in range(r.V.shape[1])]
    return _table(
        np.vstack([s.contributions, s.b_i]),
        index,
        "qkv.term_index",
        columns,
        "qkv_weighted_sum.csv",
        "qkv.table_sum",
        lang,
    )


def weights_table(r: QKVWalkthrough, lang: str) -> Table:
    """A', one row per query."""
    labels = key_labels(r.tokens)
    return _table(
        r.matrix.weights, labels, "qkv.query_axis", labels, "qkv_attention_weights.csv", "qkv.table_weights", lang
    )


def both_table(r: QKVWalkthrough, lang: str) -> Table:
    """Both models' weights, every query."""
    labels = key_labels(r.tokens)
    index = [f"{name} · {lab}" for name in (t("qkv.dot_short", lang), t("qkv.add_short", lang)) for lab in labels]
    return _table(
        np.vstack([r.matrix.weights, r.additive_weights]),
        index,
        "qkv.model_query_index",
        labels,
        "qkv_dot_vs_additive.csv",
        "qkv.table_both",
        lang,
    )


# --- names for tables and buttons -------------------------------------------------------------------


def short(token: str, n: int = MAX_LABEL_CHARS) -> str:
    """A token shortened with … for a button or a table row (markdown escaping is the caller's)."""
    return token if len(token) <= n else token[: n - 1] + "…"


def key_labels(tokens: Sequence[str]) -> list[str]:
    """Row names for tables: position and token, so the two "saw"s stay two rows."""
    return [f"{j + 1} · {short(tok)}" for j, tok in enumerate(tokens)]


# --- typed weights in a link: "0.5~-1.2_0.3~0.8" (rows joined by _, numbers by ~; all four
# characters are unreserved in a URL, so the link stays readable) -------------------------------------

TYPED_MAX = 4  # weights can be typed by hand up to d_model, d_k <= 4: a grid a student can fill in
TYPED_LIMIT = 99.0  # typed weights beyond ±99 are refused: exp() of such scores means nothing to read

Matrix = tuple[tuple[float, ...], ...]


def matrix_to_text(m: Matrix) -> str:
    return "_".join("~".join(format(v, ".6g") for v in row) for row in m)


def parse_matrix(raw: list[str]) -> Matrix:
    """A typed matrix from the link; anything but a small grid of sensible numbers raises ValueError."""
    if len(raw) != 1:
        raise ValueError(raw)
    rows = [row.split("~") for row in raw[0].split("_")]
    if not 1 <= len(rows) <= TYPED_MAX or len({len(r) for r in rows}) != 1 or not 1 <= len(rows[0]) <= TYPED_MAX:
        raise ValueError(raw)
    m = tuple(tuple(float(v) for v in row) for row in rows)  # float() raises ValueError on junk
    if not all(np.isfinite(v) and abs(v) <= TYPED_LIMIT for row in m for v in row):
        raise ValueError(raw)
    underflow = [v for row in rows for v in row if float(v) == 0 and re.search(r"[1-9]", v.lower().split("e")[0])]
    if underflow:  # "1e-400" reads as 0, which is not what it says
        raise ValueError(raw)
    return m


def link_matrix(w) -> Matrix:
    """A matrix as the link writes it: within ±99 and to 6 significant digits, so that the numbers
    computed with are exactly the numbers a copied link restores."""
    return tuple(tuple(float(format(min(max(float(v), -TYPED_LIMIT), TYPED_LIMIT), ".6g")) for v in row) for row in w)


def fit_shape(m: Matrix | None, fallback: np.ndarray) -> Matrix:
    """The typed matrix at the current d_model × d_k: what was typed is kept where it still fits,
    new cells come from `fallback` (the random weights)."""
    out = np.array(fallback, dtype=np.float64)  # [d_model, d_k]
    if m is not None:
        typed = np.array(m, dtype=np.float64)  # [rows, cols]
        r, c = min(typed.shape[0], out.shape[0]), min(typed.shape[1], out.shape[1])
        out[:r, :c] = typed[:r, :c]
    return link_matrix(out)


def held_matrix(held) -> Matrix | None:
    """What the session holds for a typed matrix: a matrix, the link's text of one (a preset sets
    that), or nothing yet."""
    if isinstance(held, str):
        return parse_matrix([held]) if held else None
    return held


def grid_frame(m: Matrix) -> pd.DataFrame:
    """A typed matrix as the grid a student types into: rows and columns numbered from 1."""
    rows, cols = len(m), len(m[0])
    return pd.DataFrame(m, index=[str(r + 1) for r in range(rows)], columns=[str(c + 1) for c in range(cols)])


def eye_matrix(n: int, scale: float = 1.0) -> Matrix:
    """scale × the n × n identity, as a typed matrix (for presets)."""
    return tuple(tuple(scale * float(r == c) for c in range(n)) for r in range(n))


# --- dropout on the weights (attention_core.dropout.DropoutRow) -----------------------------------


def dropout_figure(d: DropoutRow, tokens: Sequence[str], lang: str) -> go.Figure:
    """The followed query's weights α' beside the same row after this draw of dropout (dropped
    weights at 0, written "0 ✕"), and the average of many draws as diamonds: back at α'."""
    ticks, key_text = token_ticks(tokens)
    with_text = len(ticks) <= 8
    after = [("0 ✕" if not kept else f"{v:.2f}") for v, kept in zip(d.dropped, d.keep, strict=True)]
    names = (t("qkv.bar_before", lang), t("qkv.bar_after", lang))
    x_title = t("qkv.key_axis", lang)
    data = [
        _bars(
            ticks, d.weights, [f"{v:.2f}" for v in d.weights], names[0], QUALITATIVE[0], key_text, x_title, with_text
        ),
        _bars(ticks, d.dropped, after, names[1], QUALITATIVE[1], key_text, x_title, with_text),
        go.Scatter(  # over the "after" bars (the right of each pair): their average over many draws
            x=[x + 0.2 for x in ticks],
            y=[float(v) for v in d.mean_row],
            name=t("qkv.bar_mean", lang),
            mode="markers",
            marker=dict(symbol="diamond", size=11, color="#000000", line=dict(width=1.5, color="#FFFFFF")),
            hovertemplate="%{y:.3f}<extra></extra>",
        ),
    ]
    top = max(float(d.dropped.max()), float(d.weights.max()), float(d.mean_row.max()))
    layout = _layout(
        340,
        barmode="group",
        xaxis=dict(title=x_title, tickmode="array", tickvals=ticks, ticktext=key_text, tickangle=tick_angle(key_text)),
        yaxis=dict(title=t("qkv.bar_weight", lang), range=[0, 1.15 * top + 0.02], zeroline=True),
    )
    return go.Figure(data=data, layout=layout)


def dropout_md(d: DropoutRow, tokens: Sequence[str], lang: str) -> str:
    """What this draw did to the row, in words and numbers: which weights were zeroed, the scale
    of the others, the row's sum, and the average of many draws."""
    T = len(d.weights)
    if not d.training:
        return t("qkv.dropout_eval", lang)
    zeroed = [j for j in range(T) if not d.keep[j]]
    parts = []
    if zeroed:
        keys = t("qkv.repeat_sep", lang).join(f"{j + 1} ({token_md(tokens, j)})" for j in zeroed)
        parts.append(t("qkv.dropout_zeroed", lang, n=len(zeroed), T=T, keys=keys))
    else:
        parts.append(t("qkv.dropout_none", lang, T=T, p=f"{d.p:g}"))
    parts.append(
        t(
            "qkv.dropout_scaled",
            lang,
            p=f"{d.p:g}",
            scale=f"{d.scale:.4f}",
            total=f"{d.row_sum:.3f}",
            n=N_DROPOUT_DRAWS,
            gap=f"{float(np.abs(d.mean_row - d.weights).max()):.3f}",
        )
    )
    if d.output is not None:
        parts.append(lines_md([rf"\tilde b = {vector_tex(d.output)}", rf"b = {vector_tex(d.plain_output)}"]))
    return "\n\n".join(parts)


def dropout_table(d: DropoutRow, tokens: Sequence[str], lang: str) -> Table:
    """Key by key: α', kept or not, the weight after dropout, the average over many draws."""
    data = {
        "α'": d.weights,
        t("qkv.dropout_kept", lang): [bool(k) for k in d.keep],
        t("qkv.bar_after", lang): d.dropped,
        t("qkv.bar_mean", lang): d.mean_row,
    }
    return _table(data, key_labels(tokens), "qkv.key_index", None, "qkv_dropout.csv", "qkv.table_dropout", lang)
