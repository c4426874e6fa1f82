"""Cold start: from starting the server until the first page is drawn in Chromium.

    .venv/bin/python -m bench.cold_start                # heatmap page (home until it exists), 5 runs
    .venv/bin/python -m bench.cold_start --page qkv -r 3

Each run starts a fresh server (the production start: headless, no file watcher), waits for
/_stcore/health (polled every 20 ms), then opens the page in a fresh browser context (an empty
cache, as a student's first visit) and waits until the script has finished, nothing is a
skeleton any more, the title is there and every Plotly chart has its SVG. Chromium itself is
launched once, before the clock starts: it is the student's browser, not part of our start.
Reported per run and as the median: server start (until health answers), browser (page load
and first script run, with the imports and caches it fills) and the total. Target: <= 3 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.common import gc_flags, launch_chromium, machine_line, page_url_path, registered, start_server

DRAWN_JS = """
() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') === 'notRunning'
  && !document.querySelector('[data-testid=stStatusWidget]')
  && !document.querySelector('[data-testid=stMain] [data-testid=stSkeleton]')
  && document.querySelector('[data-testid=stMain] h1') !== null
  && [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')]
       .every(c => c.querySelector('.main-svg'))
"""


def one_run(browser, page_path: str, gc: str) -> tuple[float, float, int]:
    """(server start s, total s, charts drawn) for one cold start."""
    with start_server(flags=gc_flags(gc)) as server:
        context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
        page = context.new_page()
        page.goto(f"{server.url}/{page_path}?lang=en")
        page.wait_for_function(DRAWN_JS, timeout=60000, polling="raf")
        drawn = time.perf_counter()
        charts = page.locator("[data-testid=stMain] [data-testid=stPlotlyChart]").count()
        context.close()
        return server.ready - server.started, drawn - server.started, charts


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", default=None, help="url path or script (default: heatmap, else home)")
    parser.add_argument("-r", "--runs", type=int, default=5)
    parser.add_argument("--gc", choices=("config", "on", "off"), default="config", help="runner.postScriptGC")
    args = parser.parse_args()
    if args.page is None:
        page_path = "heatmap" if registered("heatmap") else ""
    else:
        page_path = page_url_path(args.page)

    print(machine_line())
    totals, servers = [], []
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for i in range(args.runs):
            server_s, total_s, charts = one_run(browser, page_path, args.gc)
            servers.append(server_s)
            totals.append(total_s)
            print(
                f"run {i + 1}: server {server_s:5.2f} s   browser {total_s - server_s:5.2f} s   "
                f"total {total_s:5.2f} s   ({charts} charts)"
            )
        browser.close()
    total = statistics.median(totals)
    server = statistics.median(servers)
    browser_s = statistics.median([t - s for t, s in zip(totals, servers, strict=True)])
    verdict = "ok (<= 3 s)" if total <= 3 else "OVER 3 s"
    print(
        f"cold start /{page_path}: median {total:.2f} s (server {server:.2f} s, browser {browser_s:.2f} s), "
        f"n={len(totals)}   {verdict}"
    )


if __name__ == "__main__":
    main()
