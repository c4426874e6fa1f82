"""Cold start: from starting the server until the first page is drawn in Chromium.

    .venv/bin/python -m bench.cold_start                # heatmap page (home until it exists), 5 runs
    .venv/bin/python -m bench.cold_start --page qkv -r 3

Each run starts a fresh server (the production start: headless, no file watcher), waits for
/_stcore/health (polled every 20 ms), then opens the page in a fresh browser context (an empty
cache, as a student's first visit) and waits until the script has finished, nothing is a
skeleton any more and every Plotly chart has its SVG. Chromium itself is launched once, before
the clock starts: it is the student's browser, not part of our start.

Reported per run and as medians, each counted from spawning the server: "server" (health
answers), "frontend" (Streamlit's JavaScript has loaded and runs), "output" (the first script
run's first element arrives), "finished" (the run has finished: imports, the page's first
computation) and "drawn" (every chart is drawn: the figure the target is about; the gap from
"finished" is the browser fetching and compiling Plotly's 4.7 MB of code, which Streamlit loads
on first use, and drawing). Target: drawn <= 3 s.

The bare one-slider app (bench/bare_slider_app.py, one small Plotly chart) is measured the same
way, run for run, as the floor: what Streamlit and Plotly cost before any of our code runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.common import BARE_APP, gc_flags, launch_chromium, machine_line, page_url_path, registered, start_server

STATE = "document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state')"
# A page of the app has arrived when its title has: on a fresh server the first run takes a
# detour (lab_ui/shell.py) and stops before the title, so "not running" alone could come early.
ARRIVED = {
    "app": "document.querySelector('[data-testid=stMain] h1') !== null",
    "bare": "document.querySelector('[data-testid=stMain] [data-testid=stSlider]') !== null",
}


def milestones(kind: str) -> dict[str, str]:
    """The milestones of a first visit, in the order they happen, each a condition checked
    every animation frame."""
    arrived = ARRIVED[kind]
    finished = f"{STATE} === 'notRunning' && {arrived}"
    return {
        "frontend": "() => document.querySelector('[data-testid=stApp]') !== null",
        "output": "() => document.querySelector('[data-testid=stMain] [data-testid=stElementContainer]') !== null",
        "finished": f"() => {finished}",
        "drawn": f"""() => {finished}
            && !document.querySelector('[data-testid=stStatusWidget]')
            && !document.querySelector('[data-testid=stMain] [data-testid=stSkeleton]')
            && [...document.querySelectorAll('[data-testid=stMain] [data-testid=labChart]')]
                 .every(c => c.querySelector('.main-svg'))""",
    }


def one_run(browser, script: str, path: str, kind: str, gc: str) -> tuple[dict[str, float], int]:
    """Seconds from spawning the server to each milestone ("server": health answers), and the
    number of charts drawn, for one cold start."""
    with start_server(script, flags=gc_flags(gc)) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        page = context.new_page()
        times = {"server": server.ready - server.started}
        page.goto(f"{server.url}/{path}", wait_until="commit")
        for name, condition in milestones(kind).items():
            page.wait_for_function(condition, timeout=60000, polling="raf")
            times[name] = time.perf_counter() - server.started
        charts = page.locator("[data-testid=stMain] [data-testid=labChart]").count()
        context.close()
        return times, charts


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", default=None, help="url path or script (default: heatmap, else home)")
    parser.add_argument("-r", "--runs", type=int, default=5)
    parser.add_argument("--no-floor", action="store_true", help="skip the bare app")
    parser.add_argument("--gc", choices=("config", "on", "off"), default="config", help="runner.postScriptGC")
    args = parser.parse_args()
    if args.page is None:
        page_path = "heatmap" if registered("heatmap") else ""
    else:
        page_path = page_url_path(args.page)

    print(machine_line())
    targets = {f"/{page_path}": ("app.py", f"{page_path}?lang=en", "app")}
    if not args.no_floor:
        targets["bare app (floor)"] = (BARE_APP, "", "bare")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in targets}
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for i in range(args.runs):  # the page and the floor take turns, so a busy moment hits both
            for name, (script, path, kind) in targets.items():
                times, charts = one_run(browser, script, path, kind, args.gc)
                runs[name].append(times)
                steps = "   ".join(f"{k} {v:5.2f}" for k, v in times.items())
                print(f"run {i + 1} {name:18s} {steps} s   ({charts} charts)")
        browser.close()
    for name, results in runs.items():
        medians = {k: statistics.median(r[k] for r in results) for k in results[0]}
        verdict = ("ok (<= 3 s)" if medians["drawn"] <= 3 else "OVER 3 s") if name.startswith("/") else ""
        steps = ", ".join(f"{k} {v:.2f}" for k, v in medians.items())
        print(f"cold start {name}: median {medians['drawn']:.2f} s to drawn (n={len(results)}; {steps} s)  {verdict}")


if __name__ == "__main__":
    main()
