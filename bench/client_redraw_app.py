"""An experiment for bench/client_redraw.py: one section of a page, its slider and its figures,
drawn two ways in one app. The URL says which section and which way:

    section=sizes   the one-hot page's sizes section: its vocabulary slider V (10 sizes), its figure,
                    metrics, text, table and formula (the default)
    section=speech  the heatmap page's speech section: its window slider w (1-50) and its two
                    figures (the cost of full and windowed attention, and the window's mask, up to
                    201 x 201 frames), its text, table and formula, for a sound of 10 s
    mode=server     as the pages draw it: an st.fragment whose slider reruns the section, and
                    st.plotly_chart draws the new figures (the default)
    mode=client     the slider and its figures in one custom element (Streamlit's components v2)
                    that holds the figures for every value of the slider and redraws them in the
                    browser with Plotly.react as the slider moves, without a rerun; when the slider
                    has been still for idle_ms (300), the element hands the value to Streamlit, and
                    the section's rerun brings the numbers, text and table up to date
    lang=zh         the section in Chinese

plotly.js comes from the plotly package's own copy, which bench/client_redraw.py puts in
bench/static/ and serves with Streamlit's static serving (server.enableStaticServing). The element
draws with the fonts and background of Streamlit's chart theme, not all of it (the figures' own
margins, colours and sizes are the pages').

    .venv/bin/python -m bench.client_redraw     # starts this app itself; see there
"""

import json
from collections.abc import Callable
from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st

from attention_core import sequences
from attention_core.speech import speech_cost
from lab_ui import layout
from lab_ui.cache import cached
from lab_ui.figures import heatmap as heatmap_figures
from lab_ui.figures import one_hot as one_hot_figures
from lab_ui.i18n import t

# The one-hot page's vocabulary sizes (pages/one_hot.py), and its d and T at their defaults; the
# heatmap page's sound of 10 s at its default.
V_OPTIONS = [10, 100, 200, 1_000, 10_000, 30_522, 50_257, 100_000, 250_000, 1_000_000]
D, T, SECONDS = 384, 6, 10
IDLE_MS = 300
MODE = st.query_params.get("mode", "server")
LANG = "zh" if st.query_params.get("lang") == "zh" else "en"
st.session_state["_lang"] = LANG  # what lab_ui.i18n.t reads outside app.py

# Streamlit's chart theme is applied by its front end to st.plotly_chart only; the element gets the
# parts of it that set sizes (fonts, the plot's background), so that both modes draw alike.
THEME = {
    "font": {"family": '"Source Sans", sans-serif', "size": 12, "color": "rgb(128, 132, 149)"},
    "paper_bgcolor": "rgba(0,0,0,0)",
    "plot_bgcolor": "rgba(0,0,0,0)",
}

JS = """
function loadPlotly() {
  if (window.Plotly) return Promise.resolve();
  if (!window.__labPlotly) {
    window.__labPlotly = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = '/app/static/plotly.min.js';
      script.onload = resolve;
      script.onerror = reject;
      document.head.appendChild(script);
    });
  }
  return window.__labPlotly;
}

export default function ({ data, parentElement, setStateValue }) {
  let root = parentElement.querySelector('.lab-frames');
  if (!root) {
    root = document.createElement('div');
    root.className = 'lab-frames';
    root.innerHTML = '<label><span></span> <output></output><br><input type="range" min="0" step="1"></label>'
      + '<div class="lab-frames-plots"></div>';
    parentElement.appendChild(root);
    const input = root.querySelector('input');
    // A move redraws at once; Streamlit hears of it when the slider has been still for idle_ms.
    input.addEventListener('input', () => {
      root.pending = true;
      root.draw();
      clearTimeout(root.timer);
      root.timer = setTimeout(() => {
        root.pending = false;
        root.setStateValue('index', Number(input.value));
      }, root.data.idle_ms);
    });
  }
  root.data = data;
  root.setStateValue = setStateValue;  // the newest render's, in case Streamlit hands out a new one
  const input = root.querySelector('input');
  const plots = root.querySelector('.lab-frames-plots');
  root.querySelector('span').textContent = data.label;
  input.max = String(data.options.length - 1);
  if (!root.pending) input.value = String(data.index);  // a rerun's value, unless a move is on its way
  plots.style.gridTemplateColumns = 'repeat(' + data.frames[0].length + ', 1fr)';
  while (plots.children.length < data.frames[0].length) plots.appendChild(document.createElement('div'));
  root.draw = () => {
    const i = Number(input.value);
    root.querySelector('output').textContent = root.data.options[i];
    const drawn = root.data.version + ':' + i;
    if (root.drawn === drawn) return;  // a rerun that sent the same figures: nothing to draw
    root.drawn = drawn;
    root.data.frames[i].forEach((spec, j) =>
      window.Plotly.react(plots.children[j], spec.data, spec.layout, root.data.config));
  };
  loadPlotly().then(root.draw);
}
"""
CSS = ".lab-frames input { width: 100%; } .lab-frames output { font-weight: 600; } .lab-frames-plots { display: grid; }"
frames_slider = st.components.v2.component("lab_frames_slider", js=JS, css=CSS, isolate_styles=False)


@dataclass(frozen=True)
class Section:
    heading: str  # catalog keys
    body: str
    label: str
    options: list[int]
    default: int
    figures: Callable[[int], list[go.Figure]]  # the section's figures for one value of its slider
    numbers: Callable[[int], None]  # draws what the section shows under its figures


def sizes_numbers(V: int) -> None:
    s = sequences.representation_sizes(V, D, T)
    m1, m2, m3 = st.columns(3)
    m1.metric(t("one_hot.metric_onehot_len"), f"{s.V:,}")
    m2.metric(t("one_hot.metric_embedding_len"), f"{s.d:,}")
    m3.metric(t(f"one_hot.metric_ratio_{s.longer}"), f"{s.longer_by:,.1f}×")
    st.markdown(t("one_hot.size_memory", T=T, **one_hot_figures.memory(s)))
    with st.expander(t("one_hot.sizes_table")):
        st.dataframe(one_hot_figures.sizes_table(s, LANG))
    st.markdown(t("one_hot.size_reading", V=s.V, d=s.d, table=s.table_parameters))
    st.latex(
        r"\begin{aligned}\mathbf{x}_i &= \mathbf{e}_i^\top E = E_{i,:}\\ "
        r"E &\in \mathbb{R}^{V \times d}\end{aligned}"
    )


def speech_numbers(w: int) -> None:
    c = speech_cost(SECONDS, w)
    st.markdown(heatmap_figures.speech_text(c, LANG))
    with st.expander(t("heatmap.speech_numbers_box")):
        st.dataframe(heatmap_figures.speech_table(c, LANG))
    st.latex(heatmap_figures.LATEX["speech"])


SECTIONS = {
    "sizes": Section(
        "one_hot.section_sizes",
        "one_hot.size_body",
        "one_hot.V_label",
        V_OPTIONS,
        30_522,
        lambda V: [one_hot_figures.sizes(sequences.representation_sizes(V, D, T), LANG)],
        sizes_numbers,
    ),
    "speech": Section(
        "heatmap.section_speech",
        "heatmap.speech_body",
        "heatmap.speech_window_control",
        list(range(1, 51)),
        8,
        lambda w: [
            heatmap_figures.speech_cost(speech_cost(SECONDS, w), LANG),
            heatmap_figures.speech_mask(speech_cost(SECONDS, w), LANG),
        ],
        speech_numbers,
    ),
}
SECTION = SECTIONS.get(st.query_params.get("section", "sizes"), SECTIONS["sizes"])


def frame_dicts(section: str, value: int, lang: str) -> list[dict]:
    """The section's figures for one value, as the dicts the browser draws (Plotly's JSON, arrays
    as base64, the pages' fixed margins)."""
    specs = [json.loads(layout.Serialised(fig).to_json()) for fig in SECTIONS[section].figures(value)]
    return [{**spec, "layout": {**spec["layout"], **THEME}} for spec in specs]


@st.fragment
def section() -> None:
    name = next(k for k, v in SECTIONS.items() if v is SECTION)
    st.subheader(t(SECTION.heading))
    st.markdown(t(SECTION.body))
    if MODE == "client":
        index = SECTION.options.index(SECTION.default)
        result = frames_slider(
            key="frames",
            data={
                "label": t(SECTION.label),
                "options": SECTION.options,
                "index": index,
                "frames": [cached(frame_dicts, name, v, LANG) for v in SECTION.options],
                "version": f"{name}-{LANG}",
                "config": {"displaylogo": False},
                "idle_ms": IDLE_MS,
            },
            default={"index": index},
            on_index_change=lambda: None,
        )
        value = SECTION.options[int(result.index)]
    else:
        value = st.select_slider(t(SECTION.label), SECTION.options, SECTION.default, key="value")
        figs = SECTION.figures(value)
        for j, (column, fig) in enumerate(zip(st.columns(len(figs)), figs, strict=True)):
            column.plotly_chart(layout.Serialised(fig), key=f"chart_{j}", config={"displaylogo": False})
    SECTION.numbers(value)


section()
