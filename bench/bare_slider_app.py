"""The floor for bench/browser_latency.py and bench/cold_start.py: one slider and one small
chart that depends on it, nothing else. Whatever a page costs above this app is ours; this
app's own latency is Streamlit's and Plotly's (in 1.67 a keyboard step asks for the rerun at
once: the floor is a round trip, about 100 ms on a quiet machine, not a 200 ms debounce).

    .venv/bin/streamlit run bench/bare_slider_app.py
"""

import plotly.graph_objects as go
import streamlit as st

x = st.slider("x", 0, 20, 10)
st.plotly_chart(go.Figure(go.Bar(y=[x, 20 - x])), key="bare_chart", config={"displaylogo": False})
