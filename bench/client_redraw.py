"""A section whose chart the browser redraws without a rerun, against the same section as the pages
draw it, beside the bare one-slider floor, in one run: the experiment of docs/performance.md,
"A section's figures redrawn in the browser". The app is bench/client_redraw_app.py (the one-hot
page's sizes section and its vocabulary slider V, or the heatmap page's speech section and its
window slider w; server mode and client mode).

Each row is the same keyboard step as bench/browser_latency.py's, timed to the redrawn chart (one
animation frame after the new figure is drawn and no rerun is running). For client mode also
"settled": from the key press to the end of the rerun the element asks for once the slider has
been still for 300 ms, which brings the section's metrics, text and table up to date.

    .venv/bin/python -m bench.client_redraw            # sizes, 3 rounds of 5 steps per row
    .venv/bin/python -m bench.client_redraw -r 5 --lang zh --section speech
"""

from __future__ import annotations

import argparse
import shutil
import statistics
from pathlib import Path

import plotly

from bench.browser_latency import Target, take_turns
from bench.common import BARE_APP, ROOT, machine_line, percentile, start_server

APP = "bench/client_redraw_app.py"
ELEMENT_SLIDER = "[data-testid=stMain] .lab-frames input[type=range]"
# The app's element loads plotly.js from Streamlit's static serving: bench/static/, next to the app.
STATIC = ROOT / "bench" / "static"


class Settled(Target):
    """A client-mode target: after each step, also wait for the rerun the element asks for when the
    slider is still, and time the key press to its end."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.settled: list[float] = []

    def step(self, timeout_ms: int, record: bool = True) -> None:
        n = len(self.times)
        super().step(timeout_ms, record)
        if self.skip_reason or (record and len(self.times) == n):
            return
        self.page.wait_for_function("() => window.__bench.finishedAt !== null", timeout=timeout_ms)
        if record:
            self.settled.append(self.page.evaluate("() => window.__bench.finishedAt - window.__bench.t0"))


def copy_plotly_js() -> None:
    """The plotly package's own plotly.js, where Streamlit's static serving finds it."""
    STATIC.mkdir(exist_ok=True)
    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", STATIC / "plotly.min.js")


def measure(section: str, rounds: int, steps: int, warmup: int, lang: str, timeout_ms: int) -> None:
    from playwright.sync_api import sync_playwright

    from bench.common import launch_chromium

    copy_plotly_js()
    print(machine_line())
    app, bare = start_server(APP, flags=["--server.enableStaticServing", "true"]), start_server(BARE_APP)
    with app, bare, sync_playwright() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        floor = Target("bare slider (floor)", bare.url, context)
        url = f"{app.url}/?section={section}&lang={lang}&mode="
        server = Target("section, st.select_slider", url + "server", context)
        client = Settled("section, redrawn in the browser", url + "client", context, selector=ELEMENT_SLIDER)
        targets = [floor, server, client]
        take_turns(targets, rounds, steps, warmup, timeout_ms)
        browser.close()

    floor_median = statistics.median(floor.times)
    for target in targets:
        if target.skip_reason:
            print(f"{target.name:34s} skipped: {target.skip_reason}")
            continue
        med, p95 = statistics.median(target.times), percentile(target.times, 95)
        rerun = "/".join(sorted(target.reruns)) or "-"
        settled = f"   settled {statistics.median(target.settled):5.0f} ms" if isinstance(target, Settled) else ""
        counts = f"(n={len(target.times)}, {len(target.failures)} failed)"
        print(
            f"{target.name:34s} reruns: {rerun:8s} step median {med:5.0f} ms   p95 {p95:5.0f} ms   "
            f"ratio {med / floor_median:4.2f}x{settled}   {counts}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-r", "--rounds", type=int, default=3, help="rounds; each row takes its turn per round")
    parser.add_argument("-s", "--steps", type=int, default=5, help="key presses per row per round")
    parser.add_argument("-w", "--warmup", type=int, default=2, help="key presses per row not counted")
    parser.add_argument("--section", choices=("sizes", "speech"), default="sizes")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--timeout", type=float, default=10, help="seconds one step may take before it fails")
    args = parser.parse_args()
    measure(args.section, args.rounds, args.steps, args.warmup, args.lang, int(args.timeout * 1000))


if __name__ == "__main__":
    main()
