"""The chart element: a Plotly figure drawn in the browser by plotly.js, updated in place.

Why not st.plotly_chart: Streamlit 1.67 gives a chart an element id that hashes its figure, so a
figure that changes on a step is a new React element. It mounts afresh, Plotly draws it, the
chart's theme effect hands Plotly a themed copy and Plotly draws it again, and the page is laid
out around the new element. This element keeps its identity (Streamlit's components v2 key it by
their key) and hands the new figure to `Plotly.react`, which draws it once, in the same <div>.

What it keeps from st.plotly_chart: Streamlit's chart theme in light and dark (the values its
front end applies, read from a running app; layout.CHART_THEME), the title in bold, the full width of
its column, the figure's alt text for screen readers (role=figure, aria-label), the modebar
config and a full-screen button in the page's language. plotly.js is the plotly package's own
copy, served by Streamlit's static serving (static_plotly_js puts it there); Streamlit's own
copy, in its chart element's code, is then never loaded.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
from pathlib import Path

import plotly
import streamlit as st

from lab_ui import layout
from lab_ui.i18n import t

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
PLOTLY_JS = "plotly.min.js"


def static_plotly_js(folder: Path = STATIC_DIR) -> Path:
    """The plotly package's plotly.js in static/, where Streamlit serves it (`/app/static/`): the
    same version that the figures' JSON was made for. Copied when missing or different (a
    package upgrade), through a temporary file, so a worker never serves half a file."""
    source = Path(plotly.__file__).parent / "package_data" / PLOTLY_JS
    target = folder / PLOTLY_JS
    if not target.exists() or not filecmp.cmp(source, target, shallow=False):
        folder.mkdir(exist_ok=True)
        partial = target.with_name(f".{PLOTLY_JS}.{os.getpid()}")
        shutil.copyfile(source, partial)
        partial.replace(target)
    return target


# A modebar button that shows the figure alone on the screen, as st.plotly_chart's did (Font
# Awesome's "expand", the icon Streamlit uses).
FULLSCREEN_ICON = {
    "width": 600,
    "height": 470,
    "path": "M32 32C14.3 32 0 46.3 0 64v96c0 17.7 14.3 32 32 32s32-14.3 32-32V96h64c17.7 0 32-14.3 32-32s-14.3-32"
    "-32-32H32zM64 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3"
    "-32-32-32H64V352zM320 32c-17.7 0-32 14.3-32 32s14.3 32 32 32h64v64c0 17.7 14.3 32 32 32s32-14.3 32-32V64c0-"
    "17.7-14.3-32-32-32H320zM448 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H320c-17.7 0-32 14.3-32 32s14.3 32 32 "
    "32h96c17.7 0 32-14.3 32-32V352z",
}

JS = """
const THEME = __THEME__;
const FULLSCREEN_ICON = __ICON__;

function loadPlotly(src) {
  if (!window.__labPlotly) {
    window.__labPlotly = window.Plotly ? Promise.resolve() : new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.onload = resolve;
      script.onerror = reject;
      document.head.appendChild(script);
    });
  }
  return window.__labPlotly;
}

// Dark when the app's background is: Streamlit follows the visitor's system setting.
function scheme() {
  const app = document.querySelector('[data-testid=stApp]') || document.body;
  const rgb = (getComputedStyle(app).backgroundColor.match(/[0-9.]+/g) || [255, 255, 255]).map(Number);
  return (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) < 128 ? 'dark' : 'light';
}

function draw(gd) {
  const data = gd.__data;
  const spec = JSON.parse(data.spec);
  const layout = spec.layout || {};
  layout.template = {layout: THEME[scheme()]};
  if (layout.title && layout.title.text) layout.title.text = '<b>' + layout.title.text + '</b>';
  if (document.fullscreenElement === gd) layout.height = window.innerHeight;
  const config = JSON.parse(data.config);
  config.modeBarButtonsToAdd = [{
    name: 'fullscreen',
    title: document.fullscreenElement === gd ? data.fullscreen_exit : data.fullscreen,
    icon: FULLSCREEN_ICON,
    click: () => document.fullscreenElement ? document.exitFullscreen() : gd.requestFullscreen(),
  }];
  return window.Plotly.react(gd, spec.data || [], layout, config);
}

export default function ({ data, parentElement }) {
  let gd = parentElement.querySelector('.lab-chart');
  if (!gd) {
    gd = document.createElement('div');
    gd.className = 'lab-chart';
    gd.dataset.testid = 'labChart';
    gd.setAttribute('role', 'figure');
    parentElement.appendChild(gd);
    // The column's width can change without the window's (the sidebar folds): follow it.
    new ResizeObserver(() => { if (gd._fullLayout) window.Plotly.Plots.resize(gd); }).observe(gd);
    gd.addEventListener('fullscreenchange', () => draw(gd));
  }
  gd.setAttribute('aria-label', data.alt);
  const before = gd.__data, now = scheme();
  // A rerun that sent the same figure (every rerun sends every element): nothing to draw.
  if (before && before.spec === data.spec && before.config === data.config
      && before.fullscreen === data.fullscreen && gd.__scheme === now) return;
  gd.__data = data;
  gd.__scheme = now;
  // Plotly.react draws the new figure in the same <div>; a draw still under way finishes first.
  gd.__drawing = Promise.all([loadPlotly(data.src), gd.__drawing]).then(() => {
    if (gd.__data === data) return draw(gd);
  });
}
""".replace("__THEME__", json.dumps(layout.CHART_THEME)).replace("__ICON__", json.dumps(FULLSCREEN_ICON))

CSS = ".lab-chart { width: 100%; }"

NAME = "lab_chart"
_element = st.components.v2.component(NAME, js=JS, css=CSS, isolate_styles=False)


def chart(spec_json: str, *, key: str, config: dict, alt: str) -> None:
    """Draw a figure given as Plotly's JSON (layout.Serialised.json) in the element `key`: config is
    Plotly's (lab_ui.widgets.plotly_config), alt the figure in words for a screen reader."""
    _element(
        key=key,
        data={
            "spec": spec_json,
            "config": json.dumps(config),
            "alt": alt,
            "fullscreen": t("common.chart_fullscreen"),
            "fullscreen_exit": t("common.chart_fullscreen_exit"),
            "src": "/app/static/" + PLOTLY_JS,
        },
    )


def sent(proto) -> dict:
    """What an element sent the browser (its BidiComponent proto, as AppTest holds it): the figure as
    a dict under "spec", its alt text under "alt", for tests and bench/ to read."""
    data = json.loads(proto.json)
    return {"spec": json.loads(data["spec"]), "alt": data["alt"]}


# Before any page draws a chart: the browser asks for plotly.js as soon as the first one arrives.
static_plotly_js()
