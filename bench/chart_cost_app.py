"""A synthetic page for bench/chart_cost.py: one slider and the charts and text it is told to draw,
so that what a slider step costs in the browser can be taken apart piece by piece. Its URL says
what to draw (every parameter optional):

    charts=K      K charts under the slider (1)
    changing=J    the first J of them change with the slider, the others stay the same (all)
    kind=bar      a two-bar chart, as the floor's; heatmap: a 12 x 12 heatmap; heatmap_text: the same
                  with each cell's number written in it (texttemplate)
    subplots=1    the K charts as K subplots of one figure instead
    static=N      N paragraphs of text and every tenth a chart, above the slider, that never change
    titles=1      axis titles and the tight margins the pages' figures start from (l=r=b=10, t=50):
                  Plotly's automargin (on in Streamlit's theme) grows the margins to fit, on each draw
    automargin=0  the same with automargin off and margins that already fit (l=90, b=70)
    automargin=fit  margins that already fit, automargin left on (it finds nothing to grow)
    theme=none    the charts without Streamlit's Plotly theme (st.plotly_chart(theme=None))
    math=1        each of those paragraphs with a formula in it (KaTeX), as a page's prose has
    fragment=1    the slider and its charts in an st.fragment (a section), the rest outside it
    formulas=N    N paragraphs with a formula each (KaTeX) in the section, under its charts, that
                  never change (a section's prose, its formula and its code)

    .venv/bin/streamlit run bench/chart_cost_app.py   # then e.g. /?charts=3&fragment=1
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

params = st.query_params
CHARTS = int(params.get("charts", 1))
CHANGING = int(params.get("changing", CHARTS))
KIND = params.get("kind", "bar")
SUBPLOTS = params.get("subplots") == "1"
STATIC = int(params.get("static", 0))
FRAGMENT = params.get("fragment") == "1"
FORMULAS = int(params.get("formulas", 0))
MATH = params.get("math") == "1"
TITLES = params.get("titles") == "1"
AUTOMARGIN = params.get("automargin") != "0"
FITTING = params.get("automargin") in ("0", "fit")
THEME = None if params.get("theme") == "none" else "streamlit"


def trace(kind: str, value: int):
    """One chart's trace for a slider value (the same value: the same trace)."""
    if kind == "bar":
        return go.Bar(y=[value, 20 - value])
    z = np.random.default_rng(value).random((12, 12))  # [12, 12]
    return go.Heatmap(z=z, texttemplate="%{z:.2f}" if kind == "heatmap_text" else None, showscale=False)


def layout() -> dict:
    """A chart's layout: plain, or titled as the pages' figures are (see titles= above)."""
    if not TITLES:
        return dict(height=300)
    margin = dict(l=90, r=10, t=50, b=70) if FITTING else dict(l=10, r=10, t=50, b=10)
    axis = dict(automargin=AUTOMARGIN)
    return dict(
        height=300,
        margin=margin,
        title=dict(text="A chart with a title"),
        xaxis=dict(axis, title=dict(text="position j")),
        yaxis=dict(axis, title=dict(text="weight")),
    )


def charts(x: int) -> None:
    values = [x if i < CHANGING else -1 - i for i in range(CHARTS)]  # an unchanging chart keeps its value
    if SUBPLOTS:
        fig = make_subplots(rows=1, cols=CHARTS)
        fig.update_layout(layout())
        for i, value in enumerate(values):
            fig.add_trace(trace(KIND, value), row=1, col=i + 1)
        st.plotly_chart(fig, key="chart", theme=THEME)
        return
    for i, value in enumerate(values):
        st.plotly_chart(go.Figure(trace(KIND, value), layout=layout()), key=f"chart{i}", theme=THEME)


for i in range(STATIC):
    softmax = f"$a_{{{i}j}} = \\mathrm{{softmax}}_j(q_{i} \\cdot k_j / \\sqrt{{d_k}})$"
    formula = f" The weights {softmax} sum to 1." if MATH else ""
    st.markdown(f"Paragraph {i}: some words of prose that wrap over a line or two, as a page's text does.{formula}")
    if i % 10 == 9:
        st.plotly_chart(go.Figure(go.Bar(y=[i, 3])), key=f"static{i}")


def section() -> None:
    x = st.slider("x", 0, 20, 10, key="x")
    charts(x)
    for i in range(FORMULAS):
        st.markdown(
            f"Paragraph {i} of the section: the weights $a_{{ij}} = \\mathrm{{softmax}}_j"
            f"(q_i \\cdot k_j / \\sqrt{{d_k}})$ sum to one over $j$, as the formula says:"
        )
        st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V")


(st.fragment(section) if FRAGMENT else section)()
