"""What one slider step costs in the browser, piece by piece: the same keyboard step as
bench/browser_latency.py, on a synthetic page (bench/chart_cost_app.py) that draws one thing more
per row: more charts, charts that do not change, a heatmap, numbers in its cells, subplots, text
around a section, a whole page of text. Each row is a ratio to the bare one-slider app measured in
the same run (the floor), so the rows say what each piece adds to a step of Streamlit's own.

    .venv/bin/python -m bench.chart_cost              # every row, 3 rounds of 5 steps each
    .venv/bin/python -m bench.chart_cost -r 5 "fragment=1&charts=2"

Also printed per row: how many times Plotly drew a chart in one step (its plotly_afterplot events).
Streamlit 1.67 remounts a chart whose figure changed (the element's id hashes the figure) and its
chart component draws it twice: once as it mounts, at Plotly's own width, then again at the
container's width, with data Streamlit's theming has copied (a new identity, so Plotly.react
recomputes everything). The floor's one chart is drawn twice per step too.
"""

from __future__ import annotations

import argparse
import statistics

from bench.browser_latency import Target, take_turns
from bench.common import BARE_APP, machine_line, percentile, start_server

APP = "bench/chart_cost_app.py"

# (query string, what it adds), in the order a reader compares them.
ROWS = [
    ("charts=1", "the floor again, as a page of this app (a page-level slider, one bar chart)"),
    ("fragment=1", "the slider and its chart in a section (st.fragment)"),
    ("fragment=1&static=60", "the same section under 60 paragraphs and 6 charts that stay"),
    ("fragment=1&charts=2", "a section with 2 charts that change"),
    ("fragment=1&charts=3", "3 charts that change"),
    ("fragment=1&charts=5", "5 charts that change"),
    ("fragment=1&charts=5&changing=1", "5 charts, 1 of them changes"),
    ("fragment=1&charts=3&subplots=1", "3 charts as 3 subplots of one figure"),
    ("fragment=1&kind=heatmap", "a 12 x 12 heatmap instead of the bars"),
    ("fragment=1&kind=heatmap_text", "the heatmap with its 144 numbers in the cells"),
    ("static=40", "a page-level slider over 40 paragraphs and 4 charts that stay"),
    ("static=40&math=1", "the same, each paragraph with a formula (KaTeX)"),
    ("fragment=1&charts=2&formulas=3", "the 2-chart section with 3 paragraphs and 3 formulas that stay"),
    ("fragment=1&charts=2&formulas=10", "... with 10 of each"),
    ("fragment=1&charts=2&titles=1", "the 2 charts with axis titles and tight margins (automargin grows them)"),
    ("fragment=1&charts=2&titles=1&automargin=0", "... with margins that fit and automargin off"),
    ("fragment=1&charts=2&theme=none", "the 2 charts without Streamlit's chart theme (theme=None)"),
]

# Count each chart's draws: Plotly emits plotly_afterplot after every full draw of a chart.
COUNT_DRAWS_JS = """() => {
  window.__draws = 0;
  const seen = new WeakSet();
  const attach = () => document.querySelectorAll('.js-plotly-plot').forEach(gd => {
    if (seen.has(gd) || !gd.on) return;
    seen.add(gd);
    gd.on('plotly_afterplot', () => { window.__draws += 1; });
  });
  attach();
  new MutationObserver(attach).observe(document.body, {childList: true, subtree: true});
}"""


class Counted(Target):
    """A Target that also counts Plotly's draws in each step."""

    def __init__(self, query: str, url: str, context):
        super().__init__(query, url, context)
        self.query = query  # Target.open() adds the slider's label to the name

    def open(self) -> None:
        super().open()
        self.draws: list[int] = []
        self.page.evaluate(COUNT_DRAWS_JS)

    def step(self, timeout_ms: int, record: bool = True) -> None:
        self.page.evaluate("window.__draws = 0")
        before = len(self.times)
        super().step(timeout_ms, record)
        if len(self.times) > before:
            self.draws.append(self.page.evaluate("window.__draws"))


def measure(rows: list[tuple[str, str]], rounds: int, steps: int, warmup: int, timeout_ms: int) -> None:
    from playwright.sync_api import sync_playwright

    from bench.common import launch_chromium

    print(machine_line())
    app, bare = start_server(APP), start_server(BARE_APP)
    with app, bare, sync_playwright() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        floor = Counted("bare slider (floor)", bare.url, context)
        targets = [floor] + [Counted(query, f"{app.url}/?{query}", context) for query, _ in rows]
        take_turns(targets, rounds, steps, warmup, timeout_ms)
        browser.close()
    if not floor.times:
        raise SystemExit(f"the floor could not be measured: {floor.skip_reason or floor.failures}")
    floor_median = statistics.median(floor.times)
    what = dict(rows)
    print(f"{'row':34s} {'median':>7s} {'p95':>7s} {'ratio':>6s} {'draws':>5s}  what it adds")
    for target in targets:
        if target.skip_reason or not target.times:
            print(f"{target.query:34s} skipped: {target.skip_reason or target.failures}")
            continue
        med, p95 = statistics.median(target.times), percentile(target.times, 95)
        draws = statistics.median(target.draws) if target.draws else float("nan")
        label = "bare slider app (floor)" if target is floor else target.query
        print(f"{label:34s} {med:5.0f} ms {p95:5.0f} ms {med / floor_median:5.2f}x {draws:5.0f}  {what.get(label, '')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", help="query strings of bench/chart_cost_app.py (default: every row)")
    parser.add_argument("-r", "--rounds", type=int, default=3, help="rounds; each row takes its turn per round")
    parser.add_argument("-s", "--steps", type=int, default=5, help="key presses per row per round")
    parser.add_argument("-w", "--warmup", type=int, default=2, help="key presses per row not counted")
    parser.add_argument("--timeout", type=float, default=10, help="seconds one step may take before it fails")
    args = parser.parse_args()
    rows = [(q, dict(ROWS).get(q, "")) for q in args.rows] or ROWS
    measure(rows, args.rounds, args.steps, args.warmup, int(args.timeout * 1000))


if __name__ == "__main__":
    main()
