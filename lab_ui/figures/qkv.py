"""Figures and typeset matrices for the Q, K, V page: arrays in, go.Figure or LaTeX text out; and
the text form of a typed weight matrix in a link. No Streamlit calls: everything here is pure.

Small matrices are typeset (KaTeX) rather than drawn: a student reads them like a textbook and
can redo the arithmetic, the shape sits under each bracket, and the chosen query's row is marked
in colour, in bold and with an arrow (never colour alone). Figures show what a picture says
better than numbers: scores turning into weights, and the output as a weighted sum.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures.common import (
    MAX_LABEL_CHARS,
    QUALITATIVE,
    base_layout,
    heatmap,
    safe_label,
    token_ticks,
)

HIGHLIGHT = "#B34E00"  # a darker Okabe-Ito vermillion: 5.2:1 on white; lab_ui/style.py lightens it on dark
_PIECES = QUALITATIVE[:7]  # Okabe-Ito without its black, which marks the sum b_i
_PATTERNS = ("", "/", "x")  # a second cue when more tokens than colours share them

# How wide typeset maths comes out, in CSS pixels at Streamlit's body size, measured in Chromium:
# a column of two-decimal numbers, a pair of brackets, a column of row names, the gap between
# matrices. The page passes the width it has (about 780 px beside the sidebar at 1280 px, less in
# lecture mode's larger type); matrices that would not fit side by side go one per line. Sums are
# inline maths instead (lines_md), which the browser wraps to any width.
COL_PX, BRACKET_PX, LABEL_PX, GAP_PX = 68, 36, 52, 28
WIDTH = 780


def matrix_px(cols: int, labelled: bool = False) -> int:
    return cols * COL_PX + BRACKET_PX + (LABEL_PX if labelled else 0)


def fits(widths: Sequence[int], budget: int = WIDTH) -> bool:
    return sum(widths) + GAP_PX * (len(widths) - 1) <= budget


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
    decimals: int = 2,
) -> str:
    """A bracketed matrix, numbers right-aligned; under it `name [rows × cols]` when named.

    row_labels (LaTeX, e.g. "q_{1}") stand left of the bracket; the highlighted row's label gets
    an arrow, and its numbers are coloured and bold.
    """
    m = np.atleast_2d(np.asarray(m, dtype=np.float64))  # [rows, cols]
    rows, cols = m.shape
    body = []
    for r in range(rows):
        cells = [num(v, decimals) for v in m[r]]
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


def matrices_tex(parts: Sequence[str], widths: Sequence[int], budget: int = WIDTH) -> list[str]:
    """Matrices side by side when they fit in `budget`, else one per line: a list of LaTeX lines."""
    return [r"\qquad ".join(parts)] if fits(widths, budget) else list(parts)


def product_tex(
    factors: Sequence[tuple[str, np.ndarray, Sequence[str] | None]],
    result: tuple[str, np.ndarray, Sequence[str] | None],
    *,
    highlight_row: int | None = None,
    budget: int = WIDTH,
) -> str | None:
    """`I W_q = Q` with every number and shape: factors side by side, then = result. The first
    factor's highlighted row is the result's. None when the line would not fit in `budget`."""
    widths = [matrix_px(np.atleast_2d(m).shape[1], labels is not None) for _, m, labels in (*factors, result)]
    if sum(widths) + 8 * (len(factors) - 1) + 30 > budget:  # thin spaces between factors, then " = "
        return None
    parts = [
        matrix_tex(m, name=name, row_labels=labels, highlight_row=highlight_row if k == 0 else None)
        for k, (name, m, labels) in enumerate(factors)
    ]
    name, m, labels = result
    return r"\;".join(parts) + " = " + matrix_tex(m, name=name, row_labels=labels, highlight_row=highlight_row)


def vector_tex(v: np.ndarray, decimals: int = 2) -> str:
    """A row vector in brackets."""
    cells = " & ".join(num(x, decimals) for x in v)
    return r"\left[\begin{array}{" + "r" * len(v) + "}" + cells + r"\end{array}\right]"


def _signed(x: float, decimals: int = 2) -> str:
    """A term of a sum: negative numbers in parentheses, so "+ (-0.15)" reads plainly."""
    text = num(x, decimals)
    return f"({text})" if text.startswith("-") else text


def _pairs(a: np.ndarray, b: np.ndarray) -> str:
    return " + ".join(f"({num(x)})({num(y)})" for x, y in zip(a, b, strict=True))


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
    return head + " = " + _pairs(a_i, w_col) + " = " + _mark(num(value, 4))


def dot_terms_tex(i: int, q_i: np.ndarray, K: np.ndarray, products: np.ndarray, alpha: np.ndarray) -> list[str]:
    """Per key, one line (for lines_md): α_{i,j} = q_i · k_j = (q)(k) + … = p + … = α.

    The factor pairs while d_k ≤ 4, then the products they give; beyond d_k = 4 the products alone.
    """
    d_k = len(q_i)
    lines = []
    for j in range(len(alpha)):
        line = rf"\alpha_{{{i + 1},{j + 1}}} = q_{{{i + 1}}} \cdot k_{{{j + 1}}} = "
        if d_k <= 4:
            line += _pairs(q_i, K[j]) + " = "
        if d_k > 1:
            line += " + ".join(_signed(p) for p in products[j]) + " = "
        lines.append(line + _mark(num(alpha[j], 3)))
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
    return formula, lines_md([tuple(weights), rf"\textstyle\sum_j \alpha'_{{{i + 1},j}} = {alpha_prime.sum():.3f}"])


def weighted_sum_tex(
    i: int, alpha_prime: np.ndarray, V: np.ndarray, contributions: np.ndarray, b_i: np.ndarray
) -> list[str | tuple[str, str]]:
    """b_i = α'_{i,1} v_1 + …: one term a line (for lines_md), each weighted vector α'v_j beside
    its term as a piece of its own (a narrow screen puts it under the term), then the sum. An
    invisible "b_i" indents the "+" lines under the "="."""
    indent = rf"\phantom{{b_{{{i + 1}}}}}"
    lines = []
    for j in range(len(alpha_prime)):
        head = rf"b_{{{i + 1}}} = " if j == 0 else rf"{indent} + "
        term = rf"{num(alpha_prime[j], 3)} \times {vector_tex(V[j])}"
        lines.append((head + term, rf"{{(= {vector_tex(contributions[j])})}}"))  # braces: never broken inside
    lines.append(rf"{indent} = " + _mark(vector_tex(b_i)))
    return lines


def additive_tex(i: int, j: int, q_i: np.ndarray, k_j: np.ndarray, w: np.ndarray, score: float) -> str:
    """The additive model for one pair, one vector a line so that any d_k up to 8 fits."""
    a, b = i + 1, j + 1
    lines = [
        rf"q_{{{a}}} + k_{{{b}}} &= {vector_tex(q_i + k_j)}",
        rf"\tanh(q_{{{a}}} + k_{{{b}}}) &= {vector_tex(np.tanh(q_i + k_j))}",
        rf"w &= {vector_tex(w)}",
    ]
    last = rf"\alpha_{{{a},{b}}} = w \cdot \tanh(q_{{{a}}} + k_{{{b}}}) &= "
    if len(w) <= 4:  # the sum written out, while it fits on the line
        last += _pairs(w, np.tanh(q_i + k_j)) + " = "
    lines.append(last + _mark(num(score, 3)))
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


# --- figures ------------------------------------------------------------------------------------


def _lean(fig: go.Figure) -> go.Figure:
    """Make a figure cheap to send again on every rerun (the page caches it, Streamlit serialises it
    each time): drop Plotly's default template, which Streamlit's theme replaces in the browser and
    which is most of a small figure's JSON, and hold the data as plain lists, which serialise
    several times faster than Plotly's base64 encoding of small NumPy arrays."""
    fig.layout.template = go.layout.Template()
    for trace in fig.data:
        for name in ("x", "y", "z", "text", "customdata"):
            value = getattr(trace, name, None)
            if isinstance(value, np.ndarray):
                trace[name] = None  # Plotly keeps a NumPy property NumPy unless it is cleared first
                trace[name] = value.tolist()
    return fig


def score_bars(
    tokens: Sequence[str],
    alpha: np.ndarray,
    alpha_scaled: np.ndarray,
    alpha_prime: np.ndarray,
    *,
    names: tuple[str, str, str],
    x_title: str,
    y_title: str,
    height: int = 340,
) -> go.Figure:
    """Three bars per key: the raw score α, the scaled score α/√d_k, and the weight α'."""
    ticks, text = token_ticks(tokens)
    fig = go.Figure()
    for values, name, colour in zip((alpha, alpha_scaled, alpha_prime), names, QUALITATIVE[:3], strict=True):
        values = np.asarray(values, dtype=np.float32)  # [T]
        fig.add_trace(
            go.Bar(
                x=ticks, y=values, name=name, marker_color=colour, customdata=text,
                text=[f"{v:.2f}" for v in values] if len(values) <= 8 else None,  # beyond 8 keys: on hover
                textposition="outside", cliponaxis=False,
                hovertemplate=f"{x_title}: %{{customdata}}<br>{name}: %{{y:.4f}}<extra></extra>",
            )
        )  # fmt: skip
    fig.update_xaxes(title=x_title, tickmode="array", tickvals=ticks, ticktext=text)
    fig.update_yaxes(title=y_title, zeroline=True, zerolinewidth=2)
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0))
    fig = base_layout(fig, height=height)
    fig.update_layout(margin=dict(t=60))
    return _lean(fig)


def weighted_sum_figure(
    tokens: Sequence[str],
    alpha_prime: np.ndarray,
    V: np.ndarray,
    contributions: np.ndarray,
    b_i: np.ndarray,
    *,
    b_name: str,
    x_title: str,
    y_title: str,
    height: int = 360,
) -> go.Figure:
    """b_i as a stack: for each component c, the pieces α'_{i,j} v_j[c] of every key j stacked
    (positive up, negative down), and b_i[c], their sum, marked with a diamond."""
    contributions = np.asarray(contributions, dtype=np.float32)  # [T, d_v]
    T, d_v = contributions.shape
    comps = list(range(d_v))
    comp_text = [str(c + 1) for c in comps]
    fig = go.Figure()
    for j in range(T):
        label = f"{j + 1} · {safe_label(tokens[j])}"
        fig.add_trace(
            go.Bar(
                x=comps, y=contributions[j], name=label, width=0.5,
                marker=dict(color=_PIECES[j % len(_PIECES)],
                            pattern_shape=_PATTERNS[(j // len(_PIECES)) % len(_PATTERNS)]),
                customdata=np.stack([np.full(d_v, alpha_prime[j]), V[j]], axis=-1).astype(np.float32),
                hovertemplate=(f"{label}<br>α' = %{{customdata[0]:.4f}}<br>v = %{{customdata[1]:.4f}}"
                               "<br>α'·v = %{y:.4f}<extra></extra>"),
            )
        )  # fmt: skip
    # The sum stands just right of its bar, joined to the bar's net height by a short line, so the
    # diamond and its number never sit on top of a coloured piece.
    b = np.asarray(b_i, dtype=np.float32)  # [d_v]
    for c in comps:
        fig.add_shape(type="line", x0=c + 0.25, x1=c + 0.38, y0=float(b[c]), y1=float(b[c]),
                      line=dict(color="#888888", width=2))  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=[c + 0.38 for c in comps], y=b, name=b_name, mode="markers+text",
            marker=dict(symbol="diamond", size=14, color="#000000", line=dict(width=2, color="#FFFFFF")),
            text=[f"{v:.2f}" for v in b], textposition="middle right", textfont=dict(size=15),
            hovertemplate=f"{b_name}[%{{customdata}}] = %{{y:.4f}}<extra></extra>", customdata=comp_text,
        )
    )  # fmt: skip
    fig.update_layout(barmode="relative", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0))
    fig.update_xaxes(title=x_title, tickmode="array", tickvals=comps, ticktext=comp_text)
    fig.update_yaxes(title=y_title, zeroline=True, zerolinewidth=2)
    fig = base_layout(fig, height=height)
    fig.update_layout(margin=dict(t=60))
    return _lean(fig)


def _outline_row(fig: go.Figure, i: int, n_cols: int, xref: str = "x", yref: str = "y") -> None:
    fig.add_shape(
        type="rect", x0=-0.5, x1=n_cols - 0.5, y0=i - 0.5, y1=i + 0.5, xref=xref, yref=yref,
        line=dict(color=HIGHLIGHT, width=3), fillcolor="rgba(0,0,0,0)",
    )  # fmt: skip


def attention_map(
    weights: np.ndarray, tokens: Sequence[str], i: int, *, x_title: str, y_title: str, value_name: str
) -> go.Figure:
    """A' as a heatmap, for a sentence too long to print A' as numbers; the query's row outlined."""
    T = len(tokens)
    fig = heatmap(
        weights, tokens, tokens, x_title=x_title, y_title=y_title, value_name=value_name,
        zmin=0.0, zmax=1.0, value_format=".2f", height=min(620, 180 + 30 * T),
    )  # fmt: skip
    _outline_row(fig, i, T)
    return _lean(fig)


def compare_bars(
    tokens: Sequence[str],
    dot: np.ndarray,
    additive: np.ndarray,
    *,
    names: tuple[str, str],
    x_title: str,
    y_title: str,
    height: int = 320,
) -> go.Figure:
    """One query's weights over the keys from the two scoring models, bar beside bar."""
    ticks, text = token_ticks(tokens)
    fig = go.Figure()
    for values, name, colour in zip((dot, additive), names, (QUALITATIVE[0], QUALITATIVE[5]), strict=True):
        values = np.asarray(values, dtype=np.float32)  # [T]
        fig.add_trace(
            go.Bar(
                x=ticks, y=values, name=name, marker_color=colour, customdata=text,
                text=[f"{v:.2f}" for v in values] if len(values) <= 8 else None, textposition="outside",
                cliponaxis=False, hovertemplate=f"{x_title}: %{{customdata}}<br>{name}: %{{y:.4f}}<extra></extra>",
            )
        )  # fmt: skip
    fig.update_xaxes(title=x_title, tickmode="array", tickvals=ticks, ticktext=text)
    fig.update_yaxes(title=y_title, range=[0, 1.08])
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0))
    fig = base_layout(fig, height=height)
    fig.update_layout(margin=dict(t=60))
    return _lean(fig)


def page_figures(r, tokens: Sequence[str], i: int, text: dict[str, str]) -> dict[str, go.Figure]:
    """Every figure of the page for one walkthrough `r` (attention_core.steps.QKVWalkthrough) and
    query i. `text` holds the translated titles: key, query, value, component, alpha, scaled,
    weight, dot, additive."""
    s = r.query
    key, query, value = text["key"], text["query"], text["value"]
    return {
        "scores": score_bars(tokens, s.alpha, s.alpha_scaled, s.alpha_prime, x_title=key, y_title=value,
                             names=(text["alpha"], text["scaled"], text["weight"])),
        "sum": weighted_sum_figure(tokens, s.alpha_prime, r.V, s.contributions, s.b_i, b_name=f"b{i + 1}",
                                   x_title=text["component"], y_title=value),
        "weights": attention_map(r.matrix.weights, tokens, i, x_title=key, y_title=query, value_name="α'"),
        "both": compare_bars(tokens, r.matrix.weights[i], r.additive_weights[i], x_title=key, y_title=text["weight"],
                             names=(text["dot"], text["additive"])),
    }  # fmt: skip


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


def eye_matrix(n: int, scale: float = 1.0) -> Matrix:
    """scale × the n × n identity, as a typed matrix (for presets)."""
    return tuple(tuple(scale * float(r == c) for c in range(n)) for r in range(n))
