"""A synthetic page for bench/chart_cost.py: one slider and the charts and text it is told to draw,
so that what a slider step costs in the browser can be taken apart piece by piece. Its URL says
what to draw (every parameter optional):

    charts=K      K charts under the slider (1)
    changing=J    the first J of them change with the slider, the others stay the same (all)
    kind=bar      a two-bar chart, as the floor's; heatmap: a 12 x 12 heatmap; heatmap_text: the same
                  with each cell's number written in it (texttemplate)
    subplots=1    the K charts as K subplots of one figure instead
    static=N      N paragraphs of text and every tenth a chart, above the slider, that never change
    fragment=1    the slider and its charts in an st.fragment (a section), the rest outside it

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


def trace(kind: str, value: int):
    """One chart's trace for a slider value (the same value: the same trace)."""
    if kind == "bar":
        return go.Bar(y=[value, 20 - value])
    z = np.random.default_rng(value).random((12, 12))  # [12, 12]
    return go.Heatmap(z=z, texttemplate="%{z:.2f}" if kind == "heatmap_text" else None, showscale=False)


def charts(x: int) -> None:
    values = [x if i < CHANGING else -1 - i for i in range(CHARTS)]  # an unchanging chart keeps its value
    if SUBPLOTS:
        fig = make_subplots(rows=1, cols=CHARTS)
        for i, value in enumerate(values):
            fig.add_trace(trace(KIND, value), row=1, col=i + 1)
        st.plotly_chart(fig, key="chart")
        return
    for i, value in enumerate(values):
        st.plotly_chart(go.Figure(trace(KIND, value), layout=dict(height=300)), key=f"chart{i}")


for i in range(STATIC):
    st.markdown(f"Paragraph {i}: some words of prose that wrap over a line or two, as a page's text does.")
    if i % 10 == 9:
        st.plotly_chart(go.Figure(go.Bar(y=[i, 3])), key=f"static{i}")


def section() -> None:
    x = st.slider("x", 0, 20, 10, key="x")
    charts(x)


(st.fragment(section) if FRAGMENT else section)()
