"""A lecture hall: N students on one page, each moving a slider now and then, all at once.

    .venv/bin/python -m bench.lecture_hall                       # 200 sessions, heatmap page, 60 s
    .venv/bin/python -m bench.lecture_hall -n 50 --gc both       # runner.postScriptGC on, then off
    .venv/bin/python -m bench.lecture_hall --gc off --reruns 10000   # long run: is memory flat?
    .venv/bin/python -m bench.lecture_hall -n 50 --interval 0 --gc both   # saturated: throughput

Each session speaks Streamlit's own websocket protocol, as the browser does: it asks
/_stcore/health for the XSRF cookie, opens ws://host:port/_stcore/stream with the subprotocols
["streamlit", <xsrf token>] and the page's Origin, and sends BackMsg.rerun_script with a
ClientState (query string, page name or page script hash, widget states, the hashes of the
large messages it already holds so the server may send references). It reads the ForwardMsgs:
new_session, navigation, page_info_changed, deltas (it notes the page's sliders and any
exception element) and script_finished.

Sessions arrive spread over --ramp seconds, load the page, and wait. When all have loaded, the
server's memory is read (idle sessions against none). Then every session moves its slider
(first slider of the main area by default) to a random value, again and again, at exponentially
distributed intervals of mean --interval seconds measured from its previous move, so that the
moves arrive like a Poisson stream (a hall of 200 at 4 s offers 50 reruns/s). A session sends
its next move only after its previous rerun finished, as a student who waits to see the
picture; when a move was due before that, it counts as "late" (the server fell behind).

Reported: reruns per second, latency (send -> script_finished) median / p95 / max, the first
page load's latency, errors (connection, rerun slower than --timeout, exception element on the
page, compile error, page not found), the server's RSS (no sessions, sessions idle, during the
run, after they left), idle memory per session, and the CPU the server and this client used
(both share the machine's cores).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlparse

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider as SliderProto
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bench.common import (
    BARE_APP,
    cpu_seconds,
    gc_flags,
    machine_line,
    percentile,
    registered,
    rss_mb,
    start_server,
)

XSRF_COOKIE = "_streamlit_xsrf"
DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


@dataclass
class Slider:
    """A slider as the page last drew it."""

    proto: SliderProto
    fragment_id: str  # non-empty when the slider lives in an st.fragment: the browser reruns only that
    in_main: bool  # delta_path[0] == 0: the main area (1 is the sidebar)

    def current(self, moved: WidgetState | None) -> list[float]:
        """Where the slider stands: where this session last moved it, else where the page put it.
        A select slider's position is an option index."""
        p = self.proto
        if moved is None:
            return list(p.value if p.set_value else p.default)
        if p.type == SliderProto.SELECT_SLIDER:
            return [float(list(p.options).index(o)) for o in moved.string_array_value.data if o in p.options]
        return list(moved.double_array_value.data)

    def random_move(self, rng: random.Random, moved: WidgetState | None) -> tuple[WidgetState, str]:
        """A new value, somewhere else on the slider: its widget state and its URL text."""
        p = self.proto
        now = self.current(moved) or [p.min]
        state = WidgetState(id=p.id)
        if p.type == SliderProto.SELECT_SLIDER:
            index = rng.choice([i for i in range(len(p.options)) if i != int(now[0])] or [int(now[0])])
            state.string_array_value.data[:] = [p.options[index]]
            return state, p.options[index]
        steps = max(1, round((p.max - p.min) / p.step))
        k = rng.choice([i for i in range(steps + 1) if i != round((now[-1] - p.min) / p.step)])
        value = p.min + k * p.step
        if p.data_type == SliderProto.INT:
            value = round(value)
        values = [value]
        if len(now) == 2:  # a range slider: move its upper end, keep the lower below it
            values = [min(now[0], value), value]
        state.double_array_value.data[:] = values
        return state, ",".join(str(v) for v in values)

    @property
    def movable(self) -> bool:
        p = self.proto
        return not p.disabled and (
            p.type == SliderProto.SELECT_SLIDER or p.data_type in (SliderProto.INT, SliderProto.FLOAT)
        )


@dataclass
class Hall:
    """What every session shares: where to go, what to do, and the tallies."""

    base: str  # http://127.0.0.1:port
    page: str  # url path, "" for the main page
    lang: str
    interval: float
    slider_choice: str
    timeout: float
    rng: random.Random
    max_reruns: int | None = None
    stop_at: float = float("inf")
    go: asyncio.Event = field(default_factory=asyncio.Event)
    loaded: int = 0
    load_ms: list[float] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    done_at: list[float] = field(default_factory=list)  # perf_counter() when each move's rerun finished
    errors: Counter = field(default_factory=Counter)
    late: int = 0

    def enough(self) -> bool:
        return time.perf_counter() >= self.stop_at or (
            self.max_reruns is not None and len(self.move_ms) >= self.max_reruns
        )


class RunFailed(Exception):
    pass


class NoAnswer(RunFailed):
    """The server did not finish the run at all: this session leaves."""


def fetch_xsrf_cookie(base: str) -> str | None:
    """What the browser does before it opens the websocket: GET /_stcore/health (which sets the
    XSRF cookie) and /_stcore/host-config."""
    token = None
    with urllib.request.urlopen(f"{base}/_stcore/health", timeout=30) as r:
        for header in r.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            if name.strip() == XSRF_COOKIE:
                token = rest.split(";", 1)[0]
    with urllib.request.urlopen(f"{base}/_stcore/host-config", timeout=30) as r:
        r.read()
    return token


class Session:
    def __init__(self, hall: Hall, index: int):
        self.hall = hall
        self.index = index
        self.ws = None
        self.query = [("lang", hall.lang)]
        self.page_script_hash = ""
        self.sliders: dict[str, Slider] = {}
        self._run_sliders: dict[str, Slider] = {}
        self.states: dict[str, WidgetState] = {}  # what this session has moved: the browser resends it
        self.cache: dict[str, int] = {}  # hash of a large message the "browser" holds -> run it last came in
        self.max_cache_age = 2
        self.runs = 0
        self._exceptions = 0
        self._pending: asyncio.Future | None = None
        self.closing = False
        self.page_not_found = False  # the server said "Page not found" since the last send (then runs the main page)

    # --- the wire ------------------------------------------------------------------------------

    async def connect(self) -> None:
        token = await asyncio.to_thread(fetch_xsrf_cookie, self.hall.base)
        url = "ws" + self.hall.base.removeprefix("http") + "/_stcore/stream"
        self.ws = await connect(
            url,
            subprotocols=["streamlit", token or "PLACEHOLDER_AUTH_TOKEN"],
            origin=self.hall.base,
            additional_headers={"Cookie": f"{XSRF_COOKIE}={token}"} if token else None,
            max_size=None,  # a page's message may exceed the library's 1 MiB default
            proxy=None,
            ping_interval=None,  # browsers send no pings of their own
            open_timeout=60,
        )
        asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                self._on_message(ForwardMsg.FromString(data))
        except ConnectionClosed:
            pass
        finally:
            if not self.closing:
                self.hall.errors["disconnected"] += 1
            if self._pending and not self._pending.done():
                self._pending.set_exception(RunFailed("disconnected"))

    def _on_message(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if msg.metadata.cacheable:
            self.cache[msg.hash] = self.runs
        if kind == "ref_hash":
            self.cache[msg.ref_hash] = self.runs
        elif kind == "new_session":
            self.page_script_hash = msg.new_session.page_script_hash or self.page_script_hash
            self.max_cache_age = msg.new_session.config.max_cached_message_age or self.max_cache_age
            self._run_sliders = {}
            self._exceptions = 0
        elif kind == "page_not_found":
            self.page_not_found = True
        elif kind == "navigation":
            self.page_script_hash = msg.navigation.page_script_hash or self.page_script_hash
        elif kind == "page_info_changed":
            self.query = parse_qsl(msg.page_info_changed.query_string, keep_blank_values=True)
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            if element.WhichOneof("type") == "slider":
                path = msg.metadata.delta_path
                self._run_sliders[element.slider.id] = Slider(
                    element.slider, msg.delta.fragment_id, bool(path) and path[0] == 0
                )
            elif element.WhichOneof("type") == "exception":
                self._exceptions += 1
        elif kind == "script_finished":
            status = msg.script_finished
            if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return  # the page asked for another run (st.rerun); the answer is the next one
            self.runs += 1
            if status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                self.sliders.update(self._run_sliders)
            else:
                self.sliders = self._run_sliders
            if self._pending and not self._pending.done():
                if status not in DONE:
                    self._pending.set_exception(RunFailed("compile error"))
                elif self._exceptions:
                    self._pending.set_exception(RunFailed("exception on the page"))
                elif self.page_not_found and self.index >= 0:
                    self._pending.set_exception(RunFailed("page not found"))
                else:
                    self._pending.set_result(None)

    async def rerun(self, fragment_id: str = "") -> float:
        """Send a rerun as the browser does; returns ms until the script finished."""
        msg = BackMsg()
        client = msg.rerun_script
        client.query_string = urlencode(self.query)
        if self.page_script_hash:
            client.page_script_hash = self.page_script_hash
        else:  # the first request names the page by its address, as a fresh tab does
            client.page_name = self.hall.page
        live = {sid: s for sid, s in self.states.items() if sid in self.sliders}
        client.widget_states.widgets.extend(live.values())
        client.fragment_id = fragment_id
        fresh = self.runs - self.max_cache_age
        client.cached_message_hashes.extend(h for h, run in self.cache.items() if run >= fresh)
        info = client.context_info
        info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
        info.url, info.is_embedded, info.color_scheme = f"{self.hall.base}/{self.hall.page}", False, "light"

        self._pending = asyncio.get_running_loop().create_future()
        self.page_not_found = False
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        try:
            # A rerun slower than --timeout is an error, but the session waits for it all the same:
            # sending the next move on top would make the server stop and restart the run, and an
            # overloaded server would then finish nothing at all. It gives up at 4x --timeout.
            await asyncio.wait_for(self._pending, 4 * self.hall.timeout)
        except TimeoutError as e:
            raise NoAnswer(f"no answer within {4 * self.hall.timeout:.0f} s") from e
        ms = (time.perf_counter() - start) * 1000
        if ms > self.hall.timeout * 1000:
            self.hall.errors[f"slower than {self.hall.timeout:.0f} s"] += 1
        return ms

    # --- a student -----------------------------------------------------------------------------

    def _slider(self) -> Slider | None:
        choices = [s for s in self.sliders.values() if s.in_main and s.movable] or [
            s for s in self.sliders.values() if s.movable
        ]
        if not choices:
            return None
        return choices[0] if self.hall.slider_choice == "first" else self.hall.rng.choice(choices)

    async def move(self) -> float:
        slider = self._slider()
        if slider is None:
            raise RunFailed("no slider on the page")
        state, text = slider.random_move(self.hall.rng, self.states.get(slider.proto.id))
        self.states[state.id] = state
        key = slider.proto.query_param_key
        if key:  # a bound slider: the browser writes the new value into the address first
            self.query = [(k, v) for k, v in self.query if k != key] + [(key, text)]
        return await self.rerun(slider.fragment_id)

    def _pause(self) -> float:
        """Seconds from one move to the next: exponential (a Poisson stream over the hall); with
        --interval 0 none at all, so the hall finds the server's saturated throughput."""
        return self.hall.rng.expovariate(1 / self.hall.interval) if self.hall.interval > 0 else 0.0

    async def live(self, start_delay: float) -> None:
        hall = self.hall
        await asyncio.sleep(start_delay)
        try:
            await self.connect()
            hall.load_ms.append(await self.rerun())
        except (RunFailed, OSError, ConnectionClosed, TimeoutError) as e:
            hall.errors[f"load: {e}" if isinstance(e, RunFailed) else f"connect: {type(e).__name__}"] += 1
            hall.loaded += 1
            return
        hall.loaded += 1
        await hall.go.wait()
        due = time.perf_counter() + self._pause()
        while True:
            await asyncio.sleep(max(0.0, min(due, hall.stop_at) - time.perf_counter()))
            if hall.enough():
                break
            sent = time.perf_counter()
            try:
                hall.move_ms.append(await self.move())
                hall.done_at.append(time.perf_counter())
            except NoAnswer as e:
                hall.errors[str(e)] += 1
                break
            except RunFailed as e:
                hall.errors[str(e)] += 1
            except ConnectionClosed:
                break
            due = sent + self._pause()
            if due < time.perf_counter() and hall.interval > 0:
                hall.late += 1

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            await self.ws.close()


@dataclass
class Sample:
    t: float  # seconds since the moves began
    reruns: int
    rss: float  # MB


@dataclass
class Result:
    label: str
    sessions: int
    seconds: float
    reruns: int
    move_ms: list[float]
    load_ms: list[float]
    errors: Counter
    late: int
    rss_none: float | None
    rss_idle: float | None
    rss_after: float | None
    series: list[Sample]
    server_cpu: float | None  # CPU seconds the server used while the sessions moved
    wall: float  # seconds the sessions moved (until the last rerun came back)
    client_cpu: float  # share of one core this client used meanwhile


async def run_hall(args, base: str, pid: int | None, label: str) -> Result:
    rng = random.Random(args.seed)
    hall = Hall(base, args.page, args.lang, args.interval, args.slider, args.timeout, rng, args.reruns)
    rss = (lambda: rss_mb(pid)) if pid else (lambda: None)

    # One visit first, as the instructor's own before class: it fills the caches and imports what
    # the page needs. The "no sessions" memory is read after it has left.
    warm = Session(hall, -1)
    await warm.connect()
    await warm.rerun()
    if warm._slider() is None:
        raise SystemExit(f"page {args.page!r} shows no slider to move")
    if warm.page_not_found:  # lab_ui/shell.py's first-request detour; later sessions are checked
        print(f"note: the first visit to /{args.page} on this fresh server got 'Page not found'")
    await warm.close()
    await asyncio.sleep(2)
    rss_none = rss()

    n = args.sessions
    sessions = [Session(hall, i) for i in range(n)]
    tasks = [asyncio.create_task(s.live(i * args.ramp / n)) for i, s in enumerate(sessions)]
    while hall.loaded < n:
        await asyncio.sleep(0.1)
    await asyncio.sleep(args.idle)  # everyone has the page and looks at it
    rss_idle = rss()

    cpu_start = cpu_seconds(pid) if pid else None
    client_start = time.process_time()
    start = time.perf_counter()
    if args.reruns is None:
        hall.stop_at = start + args.duration
    hall.go.set()
    series = []
    next_progress = 60.0
    while not all(t.done() for t in tasks):
        series.append(Sample(time.perf_counter() - start, len(hall.move_ms), rss() or 0.0))
        if series[-1].t >= next_progress:  # a long run says how it is getting on, once a minute
            s = series[-1]
            print(f"  {s.t:5.0f} s  {s.reruns:6d} reruns  {s.reruns / s.t:5.1f}/s  RSS {s.rss:.0f} MB", flush=True)
            next_progress += 60
        await asyncio.wait(tasks, timeout=args.sample)
    end = hall.done_at[-1] if hall.done_at else time.perf_counter()
    wall = time.perf_counter() - start
    server_cpu = (cpu_seconds(pid) - cpu_start) if pid else None
    client_cpu = (time.process_time() - client_start) / wall
    series.append(Sample(time.perf_counter() - start, len(hall.move_ms), rss() or 0.0))

    await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
    await asyncio.sleep(3)
    return Result(
        label, n, end - start, len(hall.move_ms), hall.move_ms, hall.load_ms, hall.errors, hall.late,
        rss_none, rss_idle, rss(), series, server_cpu, wall, client_cpu,
    )  # fmt: skip


def _mb(value: float | None) -> str:
    return f"{value:.0f} MB" if value is not None else "n/a"


def report(r: Result) -> None:
    rate = r.reruns / r.seconds if r.seconds else 0.0
    print(f"--- {r.label}: {r.sessions} sessions, {r.reruns} reruns in {r.seconds:.0f} s")
    print(f"reruns/s      {rate:.1f}")
    if r.move_ms:
        print(
            f"latency       median {statistics.median(r.move_ms):.0f} ms   p95 {percentile(r.move_ms, 95):.0f} ms"
            f"   max {max(r.move_ms):.0f} ms   (send -> script_finished)"
        )
    if r.load_ms:
        print(f"first load    median {statistics.median(r.load_ms):.0f} ms   p95 {percentile(r.load_ms, 95):.0f} ms")
    errors = ", ".join(f"{k}: {v}" for k, v in r.errors.most_common()) or "none"
    print(f"errors        {sum(r.errors.values())} ({errors});  late moves {r.late}")
    if r.rss_none is not None:
        per = (r.rss_idle - r.rss_none) / r.sessions * 1024 if r.sessions else 0
        peak = max(s.rss for s in r.series) if r.series else 0
        print(
            f"server RSS    no sessions {_mb(r.rss_none)}, {r.sessions} idle {_mb(r.rss_idle)} "
            f"({per:.0f} kB per idle session), peak {_mb(peak)}, after they left {_mb(r.rss_after)}"
        )
    cpu = ""
    if r.server_cpu is not None:
        per_rerun = r.server_cpu / r.reruns * 1000 if r.reruns else 0
        cpu = f"server {r.server_cpu / r.wall * 100:.0f}% of a core ({per_rerun:.0f} ms CPU per rerun), "
    print(f"CPU           {cpu}this client {r.client_cpu * 100:.0f}% of a core")


def report_series(r: Result, rows: int = 10) -> None:
    """The RSS series in `rows` lines, and its drift over the second half (after warm-up):
    flat memory shows as a drift near 0 MB per 1000 reruns."""
    series = [s for s in r.series if s.rss]
    if len(series) < 4:
        return
    print("memory series (t, reruns, RSS):")
    for i in range(rows + 1):
        s = series[round(i * (len(series) - 1) / rows)]
        print(f"  {s.t:7.0f} s {s.reruns:7d} {s.rss:8.1f} MB")
    half = series[len(series) // 2 :]
    xs, ys = [s.reruns for s in half], [s.rss for s in half]
    if max(xs) > min(xs):
        slope = statistics.linear_regression(xs, ys).slope * 1000
        print(
            f"second half: RSS {min(ys):.1f}..{max(ys):.1f} MB, drift {slope:+.2f} MB per 1000 reruns "
            f"over {max(xs) - min(xs)} reruns"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", default=None, help="url path or script (default: heatmap, else the bare app)")
    parser.add_argument("-n", "--sessions", type=int, default=200)
    parser.add_argument(
        "--interval", type=float, default=4.0, help="mean seconds between a session's moves; 0: no pause (saturation)"
    )
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of moving (unless --reruns)")
    parser.add_argument("--reruns", type=int, default=None, help="stop after this many reruns in all")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which the sessions arrive")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds all sit idle before memory is read")
    parser.add_argument("--slider", choices=("first", "random"), default="first", help="which slider moves")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--timeout", type=float, default=30.0, help="a rerun slower than this is an error")
    parser.add_argument("--sample", type=float, default=1.0, help="seconds between memory samples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", help="write the memory series (t, reruns, RSS MB) to this file")
    parser.add_argument(
        "--gc", choices=("config", "on", "off", "both"), default="config",
        help="runner.postScriptGC for the server we start; both: on, then off, on fresh servers",
    )  # fmt: skip
    parser.add_argument("--url", help="use a running server instead of starting one (no memory figures)")
    parser.add_argument("--pid", type=int, help="with --url: the server's process id, for its memory")
    args = parser.parse_args()

    from bench.common import page_url_path

    script = "app.py"
    if args.page is None:
        args.page = "heatmap"
        if not registered("heatmap"):
            print("the heatmap page does not exist yet: using the bare one-slider app")
            script, args.page = BARE_APP, ""
    elif args.page:
        args.page = page_url_path(args.page)

    print(machine_line())
    where = args.page or script
    if args.url:
        base = args.url.rstrip("/")
        report(asyncio.run(run_hall(args, base, args.pid, f"/{args.page} at {urlparse(base).netloc}")))
        return
    results = []
    for gc in ("on", "off") if args.gc == "both" else (args.gc,):
        with start_server(script, flags=gc_flags(gc)) as server:
            label = f"{where}, postScriptGC {gc}"
            results.append(asyncio.run(run_hall(args, server.url, server.pid, label)))
        report(results[-1])
        if args.reruns is not None:
            report_series(results[-1])
        if args.csv:
            path = args.csv if len(results) == 1 else args.csv.replace(".csv", f"_{gc}.csv")
            with open(path, "w") as f:
                f.write("t_s,reruns,rss_mb\n")
                f.writelines(f"{s.t:.1f},{s.reruns},{s.rss:.1f}\n" for s in results[-1].series)
    if len(results) == 2:
        on, off = results
        print(
            f"postScriptGC on -> off: reruns/s {on.reruns / on.seconds:.1f} -> {off.reruns / off.seconds:.1f}, "
            f"p95 {percentile(on.move_ms, 95):.0f} -> {percentile(off.move_ms, 95):.0f} ms"
        )


if __name__ == "__main__":
    main()
