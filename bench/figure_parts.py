"""Which part of a figure its drawing time goes to: the figures of one step of a page, as the
browser gets them (the page run in AppTest), each drawn by plotly.js alone in Chromium, whole and
without one part at a time (its shapes, its annotations, the numbers written in its cells, the
gaps between heatmap cells, its legend, its hover). A part whose removal takes much off the draw
is a lever; bench.browser_latency --against then says whether the step moved.

    .venv/bin/python -m bench.figure_parts multi_head 1        # a page and the number of its step
    .venv/bin/python -m bench.figure_parts rnn_cnn 1 --draws 30

Each figure is drawn into a fresh 700 px div (Plotly.newPlot, then the next animation frame), its
variants in turn, round after round, so a busy moment of the machine falls on all of them alike;
printed per variant: the median draw (ms) and the range of the rounds' medians. The floor's chart
(two bars, bench/bare_slider_app.py) is drawn the same way for scale. This is the figure alone:
Streamlit mounts a changed chart afresh and lays the page out around it, so a step costs more.
(It found that a heatmap with gaps between its cells took 103 ms to draw against 61 without,
see lab_ui.figures.common.row_rules.)
"""

from __future__ import annotations

import argparse
import copy
import statistics
from collections.abc import Callable

from bench.common import ROOT, launch_chromium, machine_line, page_url_path
from bench.figure_draw import PLOTLY_JS

FLOOR = {"data": [{"type": "bar", "y": [3, 7]}], "layout": {}}  # the floor app's chart

# Draw a spec `n` times into fresh divs; the median time from newPlot to the next frame (ms).
DRAW_JS = """
async ([spec, n, width]) => {
  const times = [];
  for (let r = 0; r < n; r++) {
    const div = document.createElement('div');
    div.style.width = width + 'px';
    document.body.appendChild(div);
    const t0 = performance.now();
    await Plotly.newPlot(div, spec.data, spec.layout, {displaylogo: false, responsive: false});
    await new Promise(done => requestAnimationFrame(() => done()));
    times.push(performance.now() - t0);
    Plotly.purge(div);
    div.remove();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)];
}
"""


def _drop_layout(name: str) -> Callable[[dict], None]:
    return lambda spec: spec["layout"].update({name: []})


def _drop_trace_keys(*names: str, kind: str | None = None) -> Callable[[dict], None]:
    def drop(spec: dict) -> None:
        for trace in spec["data"]:
            if kind is None or trace.get("type") == kind:
                for name in names:
                    trace.pop(name, None)

    return drop


def variants(spec: dict) -> dict[str, dict]:
    """The figure, and a copy without each part it has: {label: spec}."""
    layout, data = spec.get("layout", {}), spec.get("data", [])
    parts: dict[str, Callable[[dict], None]] = {}
    if layout.get("shapes"):
        parts[f"no shapes ({len(layout['shapes'])})"] = _drop_layout("shapes")
    if layout.get("annotations"):
        parts[f"no annotations ({len(layout['annotations'])})"] = _drop_layout("annotations")
    if any(trace.get("texttemplate") or trace.get("text") for trace in data):
        parts["no text in cells or on marks"] = _drop_trace_keys("texttemplate", "text")
    if any(trace.get("type") == "heatmap" and (trace.get("xgap") or trace.get("ygap")) for trace in data):
        parts["no gaps between heatmap cells"] = _drop_trace_keys("xgap", "ygap", kind="heatmap")
    if any(trace.get("customdata") is not None for trace in data):
        parts["no customdata"] = _drop_trace_keys("customdata")
    parts["no legend"] = lambda s: s["layout"].update(showlegend=False)
    parts["no hover"] = lambda s: s["layout"].update(hovermode=False)
    out = {"whole": spec}
    for label, drop in parts.items():
        copied = copy.deepcopy(spec)
        drop(copied)
        out[label] = copied
    return out


def step_figures(url_path: str, step: int) -> dict[str, dict]:
    """The figures of a page's step as the browser receives them, by key (AppTest, English)."""
    from streamlit.testing.v1 import AppTest

    from lab_ui import chart
    from lab_ui.registry import PAGES

    info = next(p for p in PAGES if p.url_path == url_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"lang": "en", info.step_key: str(step)})
    at.run()
    at.switch_page(info.path).run()
    charts = [e for e in at.get("bidi_component") if e.proto.component_name == chart.NAME]
    return {e.key: chart.sent(e.proto)["spec"] for e in charts}


def measure(url_path: str, step: int, draws: int, rounds: int) -> None:
    from playwright.sync_api import sync_playwright

    print(machine_line())
    specs = {"floor (two bars)": FLOOR}
    for key, spec in step_figures(url_path, step).items():
        for label, variant in variants(spec).items():
            specs[key if label == "whole" else f"  {key}: {label}"] = variant
    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page()
        page.set_content("<html><body></body></html>")
        page.add_script_tag(path=str(PLOTLY_JS))
        per_round = max(1, draws // rounds)
        for spec in specs.values():  # warm-up: Plotly's first draw of a kind costs more
            page.evaluate(DRAW_JS, [spec, 2, 700])
        times: dict[str, list[float]] = {label: [] for label in specs}
        for _ in range(rounds):
            for label, spec in specs.items():
                times[label].append(page.evaluate(DRAW_JS, [spec, per_round, 700]))
        browser.close()
    for label, ms in times.items():
        print(f"{label:52s} {statistics.median(ms):6.1f} ms   (rounds {min(ms):.0f}-{max(ms):.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", help="url path or script")
    parser.add_argument("step", type=int, help="the step's number, from 1, as in the link")
    parser.add_argument("--draws", type=int, default=20, help="draws of each variant in all")
    parser.add_argument("--rounds", type=int, default=5, help="rounds the draws are spread over")
    args = parser.parse_args()
    measure(page_url_path(args.page), args.step, args.draws, args.rounds)


if __name__ == "__main__":
    main()
