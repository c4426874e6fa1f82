"""In-process rerun time per page and per section (AppTest): what a control's move costs the server.

    .venv/bin/python -m bench.rerun                     # every page: whole page, then each section
    .venv/bin/python -m bench.rerun pages/qkv.py -n 50  # one page, 50 reruns per row

Rows per page:

- **page**: the whole script runs again (a page-level control moved): app.py, the page, every
  section; the core calls and figures hit their caches (lab_ui.cache), as when a student moves a
  slider back to a value it had;
- **section <name>**: one section (an st.fragment) reruns alone, as the server does when a control
  inside that section moves (the browser asks for a fragment rerun with the fragment's id);
- **page, maxima**: every st.slider, st.select_slider and st.number_input set to its largest value
  (rerun until no control's range moves: one control may bound another), then the whole page.

The time is the script's own execution on the server (`script`: from the start to the end of
the script or fragment run, the widgets' messages built inside it), measured by wrapping the
function Streamlit runs the code with; `AppTest` is the same rerun with AppTest's own work around
it (starting the runner thread, parsing the messages into its element tree), about 10 ms that a
server does not spend. AppTest skips the server's post-script gc.collect(2); the benchmark adds
it when runner.postScriptGC is on (`--gc on`; off in this project's config). Targets (issue 10):
median script time at most 15 ms for a section and 30 ms for a page at defaults.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from pathlib import Path
from urllib import parse

import streamlit.runtime.pages_manager as pages_manager
import streamlit.runtime.scriptrunner.script_runner as script_runner_module
import streamlit.testing.v1.app_test as app_test_module
import streamlit.testing.v1.local_script_runner as local_runner_module
from streamlit import config
from streamlit.proto.Slider_pb2 import Slider as SliderProto
from streamlit.runtime.scriptrunner import RerunData
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import parse_tree_from_messages

from bench.common import machine_line, percentile
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

# The script's own execution: Streamlit runs the page (or the fragments of a fragment rerun) as
# one call of exec_func_with_error_handling; its duration is what the server spends on the rerun.
_exec = script_runner_module.exec_func_with_error_handling
_script_ms: list[float] = []


def _timed_exec(func, ctx):
    start = time.perf_counter()
    try:
        return _exec(func, ctx)
    finally:
        _script_ms.append((time.perf_counter() - start) * 1000)


script_runner_module.exec_func_with_error_handling = _timed_exec

# AppTest has no fragment reruns; the runner does. While _FRAGMENTS holds ids, AppTest's runs ask
# for a fragment rerun of those ids, as the browser does when a control inside a fragment moves.
_FRAGMENTS: list[str] = []
_PAGES: dict = {}  # the pages st.navigation registered in the last full run
_run = local_runner_module.LocalScriptRunner.run


def _run_fragment_aware(self, widget_state=None, query_params=None, timeout=3, page_hash="", context_info=None):
    if not _FRAGMENTS:
        tree = _run(self, widget_state, query_params, timeout, page_hash, context_info)
        _PAGES.clear()
        _PAGES.update(self._pages_manager.get_pages())
        return tree
    # AppTest gives every run a new PagesManager; a server keeps the pages app.py's st.navigation
    # registered, which st.page_link inside a fragment looks up.
    self._pages_manager._set_pages(dict(_PAGES))
    rerun_data = RerunData(
        widget_states=widget_state,
        query_string=parse.urlencode(query_params or {}, doseq=True),
        page_script_hash=page_hash,
        context_info=context_info,
        fragment_id_queue=list(_FRAGMENTS),
    )
    # The runner's constructor has already asked for a full-app rerun (RerunData()), and a full-app
    # request absorbs any fragment request folded into it: replace it instead of adding to it.
    with self._requests._lock:
        self._requests._rerun_data = rerun_data
    try:
        if not self._script_thread:
            self.start()
        local_runner_module.require_widgets_deltas(self, timeout)
    finally:
        self.join()
    return parse_tree_from_messages(self.forward_msgs())


local_runner_module.LocalScriptRunner.run = _run_fragment_aware

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_app(path: str, lang: str = "en", params: dict | None = None) -> AppTest:
    """The page after a first visit (its caches filled)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["lang"] = lang
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()  # AppTest learns the page registry (st.navigation's url paths) from a first run
    if path != HOME.path:
        at.switch_page(path).run()
    if at.exception:
        raise RuntimeError(f"{path}: {at.exception[0].value}")
    return at


def sections(at: AppTest) -> dict[str, str]:
    """The page's fragments by the name of the function that makes each: {name: fragment id}."""
    found = {}
    for fragment_id, wrapped in at._fragment_storage._fragments.items():
        for cell in wrapped.__closure__ or ():
            func = cell.cell_contents
            if callable(func) and not getattr(func, "__module__", "streamlit").startswith("streamlit"):
                found[func.__qualname__] = fragment_id
                break
    return found


def time_reruns(at: AppTest, n: int, fragment: str | None = None) -> tuple[list[float], list[float]]:
    """n reruns of the page (or of one fragment): the script's own ms and AppTest's total ms each."""
    post_gc = config.get_option("runner.postScriptGC")
    _FRAGMENTS[:] = [fragment] if fragment else []
    script, total = [], []
    try:
        for _ in range(n):
            _script_ms.clear()
            start = time.perf_counter()
            at.run()
            if post_gc:
                gc.collect(2)
            total.append((time.perf_counter() - start) * 1000)
            script.append(sum(_script_ms))
    finally:
        _FRAGMENTS.clear()
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    if fragment and len(at.title):  # a fragment rerun sends its own elements only, not the page's title
        raise RuntimeError(f"the rerun of fragment {fragment} ran the whole page: this row would time the page")
    return script, total


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


def row(name: str, script: list[float], total: list[float], target: float | None) -> str:
    median = statistics.median(script)
    verdict = "" if target is None else ("  ok" if median <= target else f"  over {target:.0f} ms")
    return (
        f"  {name:34s} script median {median:6.1f} ms  p95 {percentile(script, 95):6.1f} ms"
        f"   AppTest median {statistics.median(total):6.1f} ms{verdict}"
    )


def bench_page(path: str, n: int, maxima: bool) -> list[str]:
    at = open_app(path)
    lines = [row("page", *time_reruns(at, n), target=30)]
    for name, fragment in sections(at).items():
        if name.startswith("_"):  # lab_ui.reconnect's daily timer, not a section of the page
            continue
        lines.append(row(f"section {name}", *time_reruns(at, n, fragment), target=15))
    if maxima:
        at = open_app(path)
        set_controls_to_maxima(at)
        lines.append(row("page, maxima", *time_reruns(at, n), target=None))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", help="page scripts (default: all)")
    parser.add_argument("-n", type=int, default=30, help="reruns per row")
    parser.add_argument("--defaults-only", action="store_true", help="skip the maxima row")
    parser.add_argument(
        "--gc",
        choices=("config", "on", "off"),
        default="config",
        help="runner.postScriptGC: the full garbage collection after every run is part of a rerun's time",
    )
    args = parser.parse_args()
    if args.gc != "config":
        config.set_option("runner.postScriptGC", args.gc == "on")
    print(machine_line())
    gc_on = config.get_option("runner.postScriptGC")
    print(f"runner.postScriptGC {'on: each rerun includes its gc.collect(2)' if gc_on else 'off'}")
    for path in args.pages or [p.path for p in (HOME, *PAGES)]:
        print(path)
        try:
            for line in bench_page(path, args.n, maxima=not args.defaults_only):
                print(line)
        except RuntimeError as e:  # a page that raises is reported, and the others still run
            print(f"  FAILED: {str(e).splitlines()[0][:100]}")


if __name__ == "__main__":
    main()
