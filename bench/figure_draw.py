"""How much of a slider's step is Plotly drawing the figures that the step changes, timed alone: a
lower bound for the step that no change to Streamlit, React or the server can go under, as long
as the page shows those figures.

    .venv/bin/python -m bench.figure_draw                    # every slider of every page
    .venv/bin/python -m bench.figure_draw multi_head qkv     # some pages

For each slider of the main area (as bench.browser_latency finds them): one keyboard step, then
every chart whose data the step changed is drawn again by plotly.js alone (Plotly.newPlot of a
copy of its data and layout into a fresh div of the chart's width, median of 5 draws; the plotly
package's own plotly.js, close to the version inside Streamlit). Printed per slider: whether its
step reruns its section or the page, the charts it changed, their draws summed ("drawn once"),
and that sum as a ratio to the floor's keyboard step (bench/bare_slider_app.py: a round trip and
one small chart drawn), measured in the same run as bench.browser_latency measures it.

Streamlit draws a changed chart twice (it remounts it) and the browser lays out the section
around it, so a real step costs more than "drawn once"; a slider whose "drawn once" alone is over
2.0x the floor cannot meet issue 10's "no slider above 2.0x" without drawing less.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import plotly

from bench.browser_latency import Target, slider_count, take_turns
from bench.common import BARE_APP, launch_chromium, machine_line, page_url_path, start_server

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"

# Each chart's data as text, to tell after a step which charts it changed.
SNAPSHOT_JS = """
() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')].map(gd => JSON.stringify(gd.data))
"""

# Draw the charts at these positions again with plotly.js alone; each one's median of 5 draws, ms.
DRAW_JS = """
async (indices) => {
  const charts = [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')];
  const out = [];
  for (const i of indices) {
    const gd = charts[i];
    const data = JSON.parse(JSON.stringify(gd.data)), layout = JSON.parse(JSON.stringify(gd.layout));
    const times = [];
    for (let r = 0; r < 5; r++) {
      const div = document.createElement('div');
      div.style.width = gd.offsetWidth + 'px';
      document.body.appendChild(div);
      const t0 = performance.now();
      await window.Plotly.newPlot(div, data, layout, {displayModeBar: false});
      div.getBoundingClientRect();  // the layout the drawing asked for, done now rather than later
      times.push(performance.now() - t0);
      window.Plotly.purge(div);
      div.remove();
    }
    times.sort((a, b) => a - b);
    const key = gd.closest('[class*=st-key-]')?.className.match(/st-key-(\\S+)/)?.[1] || String(i);
    out.push([key, times[2]]);
  }
  return out;
}
"""


def changed_draws(target: Target, timeout_ms: int) -> list[tuple[str, float]]:
    """One more step of the target's slider; the charts it changed, each drawn alone (ms)."""
    before = target.page.evaluate(SNAPSHOT_JS)
    target.step(timeout_ms, record=False)
    after = target.page.evaluate(SNAPSHOT_JS)
    changed = [i for i, text in enumerate(after) if i >= len(before) or text != before[i]]
    if not target.page.evaluate("() => !!window.Plotly"):
        target.page.add_script_tag(path=str(PLOTLY_JS))
    return [(key, ms) for key, ms in target.page.evaluate(DRAW_JS, changed)]


def measure(pages: list[str], timeout_ms: int) -> None:
    from playwright.sync_api import sync_playwright

    print(machine_line())
    app, bare = start_server(), start_server(BARE_APP)
    with app, bare, sync_playwright() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        floor = Target("bare slider (floor)", bare.url, context)
        take_turns([floor], rounds=3, steps=5, warmup=2, timeout_ms=timeout_ms)
        floor_ms = statistics.median(floor.times)
        print(f"floor: a keyboard step {floor_ms:.0f} ms (median of {len(floor.times)})")
        for name in pages:
            url = f"{app.url}/{name}?lang=en"
            for index in range(slider_count(context, url)):
                target = Target(name, url, context, index)
                take_turns([target], rounds=0, steps=0, warmup=2, timeout_ms=timeout_ms)  # opens and warms it
                if target.skip_reason:
                    print(f"{target.name:44s} skipped: {target.skip_reason}")
                    target.page.close()
                    continue
                target.reruns.clear()
                draws = changed_draws(target, timeout_ms)
                total = sum(ms for _, ms in draws)
                rerun = "/".join(sorted(target.reruns)) or "-"
                charts = ", ".join(f"{key} {ms:.0f}" for key, ms in draws)
                print(
                    f"{target.name:44s} {rerun:8s} drawn once {total:5.0f} ms = {total / floor_ms:4.1f}x the floor"
                    f"   ({len(draws)} charts: {charts})"
                )
                target.page.close()
        browser.close()


def main() -> None:
    from lab_ui.registry import PAGES

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", help="url paths or scripts (default: every registered page)")
    parser.add_argument("--timeout", type=float, default=10, help="seconds one step may take before it fails")
    args = parser.parse_args()
    pages = [page_url_path(name) for name in args.pages] or [p.url_path for p in PAGES]
    measure(pages, int(args.timeout * 1000))


if __name__ == "__main__":
    main()
