"""In-process rerun time per page (AppTest): median and 95th percentile over repeated reruns.

    .venv/bin/python -m bench.rerun                    # every page, default settings
    .venv/bin/python -m bench.rerun pages/qkv.py -n 50 # one page, 50 reruns

A rerun here is what a slider move costs the server: the whole script runs again, the core
call hits its cache, figures are rebuilt and serialised. The browser's own time is measured
by bench/browser_latency.py.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import streamlit.runtime.pages_manager as pages_manager
from streamlit.testing.v1 import AppTest

from lab_ui.registry import HOME, PAGES

# AppTest re-detects the pages/ folder on every run and so takes the one-off detour that
# lab_ui/shell.py explains on every rerun; a real server takes it once per process. Measure what
# the server does: keep the flag where st.navigation leaves it.
_init = pages_manager.PagesManager.__init__


def _init_as_after_first_request(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    pages_manager.PagesManager.uses_pages_directory = False


pages_manager.PagesManager.__init__ = _init_as_after_first_request

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def time_reruns(path: str, n: int, lang: str = "en", params: dict | None = None) -> list[float]:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["lang"] = lang
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()  # AppTest learns the page registry (st.navigation's url paths) from a first run
    if path != HOME.path:
        at.switch_page(path).run()  # this run fills the caches, like a student's first visit
    if at.exception:
        raise RuntimeError(f"{path}: {at.exception[0].value}")
    times = []
    for _ in range(n):
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
    return times


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(times):6.1f} ms   p95 {p95:6.1f} ms   (n={len(times)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", help="page scripts (default: all)")
    parser.add_argument("-n", type=int, default=30, help="reruns per page")
    args = parser.parse_args()
    paths = args.pages or [p.path for p in (HOME, *PAGES)]
    for path in paths:
        print(f"{path:28s} {summary(time_reruns(path, args.n))}")


if __name__ == "__main__":
    main()
