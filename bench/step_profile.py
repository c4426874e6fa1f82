"""Where a slider's step goes in the browser: Chromium's own counters (script, layout, style) and a
sampled JavaScript profile by file, per keyboard step, for the floor (bench/bare_slider_app.py)
and the sliders named. It answers "is it Plotly, React, or the page's layout?" before a lever is
tried; bench.browser_latency then measures whether the lever moved the step.

    .venv/bin/python -m bench.step_profile rnn_cnn:1 heatmap:4     # page:slider (0 = first slider)
    .venv/bin/python -m bench.step_profile one_hot:0 --steps 12
    .venv/bin/python -m bench.step_profile heatmap:0@2              # the first slider of step 2

Per slider it prints the median step (timed as bench.browser_latency times it) and, averaged per
step over the step's whole cycle (the step and the 0.3 s the benchmark lets the page settle after
it): the main thread's busy time, its script, layout and style time (Chrome DevTools Protocol,
Performance.getMetrics), and the sampled profile's self time by source file (PlotlyChart*.js is
Plotly, react-dom*.js React, emotion*.js Streamlit's styled elements; "(native)" is the
browser's own work outside JavaScript: style, layout, paint, garbage collection, and the
measurements JavaScript asks of it, such as Plotly's getBoundingClientRect).
"""

from __future__ import annotations

import argparse
import collections
import re
import statistics

from bench.browser_latency import Target
from bench.common import BARE_APP, launch_chromium, machine_line, page_url_path, start_server

COUNTERS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def counters(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def self_times(profile: dict, label) -> collections.Counter:
    """Self time (ms) of the sampled profile, idle time left out, summed by label(function, file):
    the file is the script's name without the build's hash, "" outside JavaScript."""
    nodes = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    totals: collections.Counter = collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = nodes[sample]
        if frame["functionName"] == "(idle)":
            continue
        file = re.sub(r"\.[\w-]{8}\.js$", ".js", frame["url"].rsplit("/", 1)[-1])
        totals[label(frame["functionName"], file)] += delta / 1000
    return totals


def by_file(profile: dict) -> collections.Counter:
    """Self time (ms) by source file; time outside JavaScript under "(native)"."""
    return self_times(profile, lambda function, file: file or "(native)")


def by_function(profile: dict) -> collections.Counter:
    """Self time (ms) by function and file ("(program)", "(garbage collector)" and the browser's
    built-ins such as JSON.parse have no file): what "(native)" and a file's share are made of."""
    return self_times(profile, lambda function, file: f"{function or '(anonymous)'}@{file or '-'}")


def profile_step(context, name: str, url: str, index: int, steps: int, timeout_ms: int, functions: int = 0) -> str:
    target = Target(name, url, context, index)
    target.open()
    if target.skip_reason:
        return f"{name:44s} skipped: {target.skip_reason}"
    cdp = context.new_cdp_session(target.page)
    cdp.send("Performance.enable")
    for _ in range(2):  # warm-up: caches and the first draw
        target.step(timeout_ms, record=False)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})  # µs
    cdp.send("Profiler.start")
    before = counters(cdp)
    for _ in range(steps):
        target.step(timeout_ms)
    after = counters(cdp)
    profile = cdp.send("Profiler.stop")["profile"]
    target.page.close()
    n = max(1, len(target.times))
    ms = {k: (after[k] - before[k]) * 1000 / n for k in COUNTERS}
    files = by_file(profile)
    top = ", ".join(f"{f} {v / n:.0f}" for f, v in files.most_common(6))
    if functions:
        top += f"\n{'':44s} by function: " + ", ".join(
            f"{f} {v / n:.1f}" for f, v in by_function(profile).most_common(functions)
        )
    return (
        f"{target.name[:44]:44s} step {statistics.median(target.times):5.0f} ms | busy {ms['TaskDuration']:4.0f}"
        f" script {ms['ScriptDuration']:4.0f} layout {ms['LayoutDuration']:3.0f} style"
        f" {ms['RecalcStyleDuration']:3.0f} ms\n{'':44s} by file (ms per step): {top}"
    )


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sliders", nargs="+", help="page:index, e.g. heatmap:4 (the page's fifth slider)")
    parser.add_argument("--steps", type=int, default=8, help="steps profiled per slider")
    parser.add_argument("--timeout", type=float, default=15, help="seconds one step may take")
    parser.add_argument("--functions", type=int, default=0, help="also the N functions with the most self time")
    args = parser.parse_args()
    print(machine_line())
    app, bare = start_server(), start_server(BARE_APP)
    with app, bare, sync_playwright() as p:
        browser = launch_chromium(p)
        context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        print(
            profile_step(
                context, "bare slider (floor)", bare.url, 0, args.steps, int(args.timeout * 1000), args.functions
            )
        )
        for spec in args.sliders:  # page[:slider][@step], e.g. heatmap:0@3 (the third step's first slider)
            spec, _, step = spec.partition("@")
            page, _, index = spec.partition(":")
            url = f"{app.url}/{page_url_path(page)}?lang=en"
            if step:
                from lab_ui.registry import PAGES

                info = next(p for p in PAGES if p.url_path == page_url_path(page))
                url += f"&{info.step_key}={step}"
            print(
                profile_step(context, page, url, int(index or 0), args.steps, int(args.timeout * 1000), args.functions)
            )
        browser.close()


if __name__ == "__main__":
    main()
