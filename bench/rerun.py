"""In-process rerun time per page (AppTest): median and 95th percentile over repeated reruns,
at default settings and with every slider at its maximum.

    .venv/bin/python -m bench.rerun                    # every page, both rows
    .venv/bin/python -m bench.rerun pages/qkv.py -n 50 # one page, 50 reruns per row

A rerun here is what a slider move costs the server: the whole script runs again, the core
call hits its cache, figures are rebuilt and serialised, and (unless runner.postScriptGC is
off, or --gc off) the full garbage collection the server runs after every script. The
browser's own time is measured by bench/browser_latency.py. Targets (issue 6): median
<= 30 ms at defaults, <= 100 ms at maxima.

"Maxima": after the first run, every st.slider, st.select_slider and st.number_input on the page
is set to its largest value (a range slider to its whole range; a number input without a
maximum keeps its value), then the page runs again until no control's range moves (one control
may bound another, e.g. d_k by d_model); the reruns are timed from there.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from pathlib import Path

import streamlit.runtime.pages_manager as pages_manager
import streamlit.testing.v1.app_test as app_test_module
import streamlit.testing.v1.local_script_runner as local_runner_module
from streamlit import config
from streamlit.proto.Slider_pb2 import Slider as SliderProto
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest

from bench.common import machine_line, summary
from lab_ui.registry import HOME, PAGES

# AppTest re-detects the pages/ folder on every run and so takes the one-off detour that
# lab_ui/shell.py explains on every rerun; a real server takes it once per process. Measure what
# the server does: keep the flag where st.navigation leaves it.
_init = pages_manager.PagesManager.__init__


def _init_as_after_first_request(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    pages_manager.PagesManager.uses_pages_directory = False


pages_manager.PagesManager.__init__ = _init_as_after_first_request

# AppTest also compiles app.py and the page afresh on every run (a new ScriptCache each time); a
# server compiles each script once and keeps the bytecode. One shared cache, as the server has.
_SCRIPT_CACHE = ScriptCache()
app_test_module.ScriptCache = local_runner_module.ScriptCache = lambda: _SCRIPT_CACHE

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def time_reruns(
    path: str, n: int, lang: str = "en", params: dict | None = None, maxima: bool = False, cpu: list | None = None
) -> list[float]:
    """Wall-clock ms of `n` reruns of a page. When `cpu` is a list, the CPU ms this process spent
    on each rerun are appended to it: a figure that a busy machine inflates far less."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["lang"] = lang
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()  # AppTest learns the page registry (st.navigation's url paths) from a first run
    if path != HOME.path:
        at.switch_page(path).run()  # this run fills the caches, like a student's first visit
    if maxima:
        set_controls_to_maxima(at)
    if at.exception:
        raise RuntimeError(f"{path}: {at.exception[0].value}")
    # A server runs gc.collect(2) after every script run unless runner.postScriptGC is off;
    # AppTest's runner does not, so it is added here to time what the server does.
    post_gc = config.get_option("runner.postScriptGC")
    times = []
    for _ in range(n):
        start, start_cpu = time.perf_counter(), time.process_time()
        at.run()
        if post_gc:
            gc.collect(2)
        times.append((time.perf_counter() - start) * 1000)
        if cpu is not None:
            cpu.append((time.process_time() - start_cpu) * 1000)
    return times


def _largest(widget):
    """The value that puts a control at its maximum, or None when it has none."""
    if widget.type == "select_slider":
        value = widget.options[-1]
        is_range = isinstance(widget.value, list | tuple)
        return [widget.options[0], value] if is_range else value
    if widget.type == "number_input":
        return widget.max
    high = widget.proto.max
    if widget.proto.data_type == SliderProto.INT:
        high = int(high)
    elif widget.proto.data_type != SliderProto.FLOAT:
        return None  # date and time sliders: their maximum is no heavier than any other value
    if isinstance(widget.value, list | tuple):
        low = int(widget.proto.min) if widget.proto.data_type == SliderProto.INT else widget.proto.min
        return [low, high]
    return high


def set_controls_to_maxima(at: AppTest, passes: int = 4) -> None:
    """Every slider, select slider and number input to its maximum, rerunning until nothing moves."""
    for _ in range(passes):
        changed = False
        for widget in (*at.slider, *at.select_slider, *at.number_input):
            target = _largest(widget)
            if target is None or widget.disabled:
                continue
            current = list(widget.value) if isinstance(widget.value, list | tuple) else widget.value
            if current != target:
                widget.set_value(target)
                changed = True
        if not changed:
            return
        at.run()
        if at.exception:
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", help="page scripts (default: all)")
    parser.add_argument("-n", type=int, default=30, help="reruns per page and row")
    parser.add_argument("--defaults-only", action="store_true", help="skip the maxima row")
    parser.add_argument(
        "--gc", choices=("config", "on", "off"), default="config",
        help="runner.postScriptGC: the full garbage collection after every run is part of a rerun's time",
    )  # fmt: skip
    args = parser.parse_args()
    if args.gc != "config":
        config.set_option("runner.postScriptGC", args.gc == "on")
    print(machine_line())
    gc_on = config.get_option("runner.postScriptGC")
    print(f"runner.postScriptGC {'on: each rerun includes its gc.collect(2)' if gc_on else 'off'}")
    paths = args.pages or [p.path for p in (HOME, *PAGES)]
    for path in paths:
        for maxima in (False, True) if not args.defaults_only else (False,):
            row = "maxima" if maxima else "defaults"
            try:
                cpu: list[float] = []
                result = summary(time_reruns(path, args.n, maxima=maxima, cpu=cpu))
                result += f"   cpu median {statistics.median(cpu):6.1f} ms"
            except RuntimeError as e:  # a page that raises is reported, and the others still run
                result = f"FAILED: {str(e).splitlines()[0][:80]}"
            print(f"{path:28s} {row:9s} {result}")


if __name__ == "__main__":
    main()
