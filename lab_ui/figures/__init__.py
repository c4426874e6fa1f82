"""Figures: arrays in, go.Figure out, no Streamlit calls. common.py holds what every page
shares; each page's own figures live in a module named after the page."""
