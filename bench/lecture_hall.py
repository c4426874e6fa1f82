"""A lecture hall: N students on one page, each moving a slider now and then, all at once.

    .venv/bin/python -m bench.lecture_hall                       # 200 sessions, heatmap page, 60 s
    .venv/bin/python -m bench.lecture_hall -n 50 --gc both       # runner.postScriptGC on, then off
    .venv/bin/python -m bench.lecture_hall --gc off --reruns 10000   # long run: is memory flat?
    .venv/bin/python -m bench.lecture_hall -n 50 --interval 0 --gc both   # saturated: throughput
    .venv/bin/python -m bench.lecture_hall --compare-workers 1,2     # make serve, 1 then 2 workers
    .venv/bin/python -m bench.lecture_hall --compare-workers 2 --kill-worker-at 30   # one dies
    .venv/bin/python -m bench.lecture_hall --url http://127.0.0.1:8501 --serve-dir DIR  # running
    .venv/bin/python -m bench.lecture_hall --page bench/fragment_app.py --slider section  # fragment

Each session speaks Streamlit's own websocket protocol, as the browser does: it asks
/_stcore/health for the XSRF cookie, opens ws://host:port/_stcore/stream with the subprotocols
["streamlit", <xsrf token>] and the page's Origin, and sends BackMsg.rerun_script with a
ClientState (query string, page name or page script hash, widget states, the hashes of the
large messages it already holds so the server may send references). It reads the ForwardMsgs:
new_session, navigation, page_info_changed, deltas (it notes the page's sliders and any
exception element) and script_finished. It keeps the cookies it gets and sends them back, so
behind HAProxy (`make serve`) it sticks to one worker as a browser does.

Sessions arrive spread over --ramp seconds, load the page, and wait. When all have loaded, the
server's memory is read (idle sessions against none). Then every session moves its slider to a
random value, again and again, at exponentially distributed intervals of mean --interval seconds
measured from its previous move, so that the moves arrive like a Poisson stream (a hall of 200
at 4 s offers 50 reruns/s). A session sends its next move only after its previous rerun
finished, as a student who waits to see the picture; when a move was due before that, it
counts as "late" (the server fell behind).

Which slider: --slider first (the first slider of the main area; the default), random, or a
slider's label or key. It moves as the browser moves it: a slider inside an st.fragment sends
BackMsg.rerun_script whose ClientState carries that fragment's id (the id its delta came with),
and the server reruns that fragment only; any other slider asks for a full rerun. The report
says which it was and counts the runs of each kind. (A session sends the states of the widgets
it moved; a browser sends every widget's. The server keeps the others' values from the previous
run either way.)

Reported: reruns per second, latency (send -> script_finished) median / p95 / max, the first
page load's latency, errors (connection, disconnection, rerun slower than --timeout, exception
element on the page, compile error, page not found), the largest message, the server's RSS (no
sessions, sessions idle, during the run, after they left), idle memory per session, and the CPU
the server and this client used (both share the machine's cores), per rerun.

Several workers: --compare-workers 1,2 starts scripts/serve.py for each count in turn (what
`make serve WORKERS=N` runs: one worker alone, or N behind HAProxy) on a free loopback port,
runs the same hall against it, stops it and prints one row per count. Memory and CPU are read
from /proc of every worker (HAProxy's CPU apart). --url with --serve-dir (the --run-dir of a
running scripts/serve.py) measures a running one the same way.

A worker dies: --kill-worker-at S kills the worker holding the most sessions (SIGKILL) S seconds
into the moving. Its sessions do what the browser does: they reconnect (at once, then after 0.5,
1, 2, 4 s ...), through HAProxy to a live worker, and ask for a full run when the browser would:
the run they waited for was cut off, their last run was a fragment's, or the page has a fragment
on a timer (app.py has one for exactly this, lab_ui/reconnect.py). Reported: errors on the other
workers' sessions, and for the killed worker's sessions the time from the kill until their page
is back (that run finished), against --back-within seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlparse

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider as SliderProto
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.common import (
    BARE_APP,
    ROOT,
    cpu_seconds,
    free_port,
    gc_flags,
    machine_line,
    percentile,
    registered,
    rss_mb,
    start_server,
)

XSRF_COOKIE = "_streamlit_xsrf"
WORKER_COOKIE = "lab_worker"  # deploy/haproxy.cfg: HAProxy's cookie, naming the worker a browser sticks to
DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


@dataclass
class Slider:
    """A slider as the page last drew it."""

    proto: SliderProto
    fragment_id: str  # non-empty when the slider lives in an st.fragment: the browser reruns only that
    in_main: bool  # delta_path[0] == 0: the main area (1 is the sidebar)

    @property
    def names(self) -> set[str]:
        """What --slider may call it: its label, its key (the end of its widget id,
        "$$ID-<hash>-<key>") and the URL parameter it is bound to."""
        p = self.proto
        parts = p.id.split("-", 2)
        key = parts[2] if len(parts) == 3 and parts[2] != "None" else ""
        return {n for n in (p.label, key, p.query_param_key) if n}

    def describe(self) -> str:
        p = self.proto
        keys = sorted(self.names - {p.label})
        where = (
            f"in fragment {self.fragment_id[:12]}: each move is a fragment rerun"
            if self.fragment_id
            else "not in a fragment: each move is a full rerun"
        )
        return f"{p.label!r}" + (f" ({', '.join(keys)})" if keys else "") + f", {where}"

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


class Servers:
    """The server's processes, read from /proc: one pid (a server of our own, or --pid), or the
    workers and HAProxy that scripts/serve.py lists in its run directory's state.json. A worker
    started again has a new pid; a dead one's CPU counts up to its last sample."""

    def __init__(self, pid: int | None = None, state: Path | None = None):
        self.pid, self.state = pid, state
        self._first: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._name: dict[int, str] = {}
        self._counting = False

    def processes(self) -> dict[int, str]:
        """pid -> name ("server" for a lone pid; w1, w2 ..., haproxy from state.json)."""
        if self.state is None:
            return {self.pid: "server"} if self.pid else {}
        with contextlib.suppress(OSError, ValueError):
            children = json.loads(self.state.read_text())["children"]
            return {c["pid"]: c["name"] for c in children if c["pid"]}
        return {}

    def workers(self) -> dict[str, int]:
        return {name: pid for pid, name in self.processes().items() if name != "haproxy"}

    @property
    def known(self) -> bool:
        return bool(self.processes())

    @property
    def balanced(self) -> bool:
        return "haproxy" in self.processes().values()

    def rss(self) -> float | None:
        """MB resident, summed over the workers and HAProxy (its buffers grow with connections too)."""
        total = None
        for pid in self.processes():
            with contextlib.suppress(OSError, RuntimeError):
                total = (total or 0.0) + rss_mb(pid)
        return total

    def start_cpu(self) -> None:
        """From now on: CPU is counted from here, and a process first seen later (a worker started
        again) from its start."""
        self._first, self._last, self._counting = {}, {}, False
        self.sample_cpu()
        self._counting = True

    def sample_cpu(self) -> None:
        for pid, name in self.processes().items():
            try:
                cpu = cpu_seconds(pid)
            except OSError:  # died since state.json was written
                continue
            self._first.setdefault(pid, 0.0 if self._counting else cpu)
            self._last[pid], self._name[pid] = cpu, name

    def cpu(self) -> tuple[float, float]:
        """CPU seconds since start_cpu(): the workers' (or the lone server's), HAProxy's."""
        used = {pid: self._last[pid] - self._first[pid] for pid in self._last}
        haproxy = sum(s for pid, s in used.items() if self._name[pid] == "haproxy")
        return sum(used.values()) - haproxy, haproxy


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
    query: tuple[tuple[str, str], ...] = ()  # the link's own parameters (--page heatmap?hm_step=3), after lang
    stop_at: float = float("inf")
    go: asyncio.Event = field(default_factory=asyncio.Event)
    loaded: int = 0
    load_ms: list[float] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    done_at: list[float] = field(default_factory=list)  # perf_counter() when each move's rerun finished
    errors: Counter = field(default_factory=Counter)
    late: int = 0
    runs: Counter = field(default_factory=Counter)  # the moves' runs: "fragment" or "full"
    largest: int = 0  # bytes of the largest message received
    interrupted: int = 0  # moves whose run a dying worker cut off
    killed: str | None = None  # the worker --kill-worker-at killed
    only_worker: str = ""  # without HAProxy, the name of the one worker (w1), when known
    killed_at: float | None = None

    def enough(self) -> bool:
        return time.perf_counter() >= self.stop_at or (
            self.max_reruns is not None and len(self.move_ms) >= self.max_reruns
        )


class RunFailed(Exception):
    pass


class NoAnswer(RunFailed):
    """The server did not finish the run at all: this session leaves."""


class Disconnected(RunFailed):
    """The websocket closed under a run: the session reconnects, as the browser does."""


def fetch_cookies(base: str, cookies: dict[str, str]) -> dict[str, str]:
    """What the browser does before it opens the websocket: GET /_stcore/health (which sets the
    XSRF cookie; behind HAProxy, also the cookie naming the worker) and /_stcore/host-config,
    sending the cookies it has. Returns them updated."""
    cookies = dict(cookies)
    for path in ("/_stcore/health", "/_stcore/host-config"):
        request = urllib.request.Request(base + path)
        if cookies:
            request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
        with urllib.request.urlopen(request, timeout=30) as r:
            r.read()
            for header in r.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                cookies[name.strip()] = rest.split(";", 1)[0]
    return cookies


class Session:
    def __init__(self, hall: Hall, index: int, cookies: dict[str, str] | None = None):
        self.hall = hall
        self.index = index
        self.ws = None
        self.cookies: dict[str, str] = dict(cookies or {})
        self.session_id = ""  # the server's; the browser names it when it reconnects
        self.query = [("lang", hall.lang), *hall.query]
        self.page_script_hash = ""
        self.sliders: dict[str, Slider] = {}
        self._run_sliders: dict[str, Slider] = {}
        self.buttons: dict[str, str] = {}  # a button's widget id -> the fragment it was drawn in ("" none)
        self.states: dict[str, WidgetState] = {}  # what this session has moved: the browser resends it
        self.cache: dict[str, int] = {}  # hash of a large message the "browser" holds -> run it last came in
        self.max_cache_age = 2
        self.runs = 0
        self._exceptions = 0
        self._pending: asyncio.Future | None = None
        self.closing = False
        self.page_not_found = False  # the server said "Page not found" since the last send (then runs the main page)
        self.last_run_fragment = False  # what the browser keeps as fragmentIdsThisRun
        self.auto_reruns: set[str] = set()  # fragments on a timer (st.fragment(run_every=...))
        self.errors: Counter = Counter()
        self.reconnecting: asyncio.Task | None = None
        self.worker_at_kill = ""
        self.back_s: float | None = None  # seconds from the kill until the page was back
        self.reconnected_s: float | None = None  # seconds from the kill until the websocket was open again
        self.last_kind = "full"  # the kind of run the last rerun() was: "full" or "fragment"

    @property
    def worker(self) -> str:
        """The worker HAProxy sends this session to; without HAProxy, the one worker."""
        return self.cookies.get(WORKER_COOKIE, self.hall.only_worker)

    def error(self, kind: str) -> None:
        self.hall.errors[kind] += 1
        self.errors[kind] += 1

    # --- the wire ------------------------------------------------------------------------------

    async def connect(self) -> None:
        self.cookies = await asyncio.to_thread(fetch_cookies, self.hall.base, self.cookies)
        token = self.cookies.get(XSRF_COOKIE)
        protocols = ["streamlit", token or "PLACEHOLDER_AUTH_TOKEN"]
        if self.session_id:  # reconnecting: the browser names its session, which a new worker does not know
            protocols.append(self.session_id)
        url = "ws" + self.hall.base.removeprefix("http") + "/_stcore/stream"
        self.ws = await connect(
            url,
            subprotocols=protocols,
            origin=self.hall.base,
            additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
            if self.cookies
            else None,
            max_size=None,  # a page's message may exceed the library's 1 MiB default
            proxy=None,
            ping_interval=None,  # browsers send no pings of their own
            open_timeout=60,
        )
        asyncio.get_running_loop().create_task(self._read(self.ws))

    async def _read(self, ws) -> None:
        try:
            async for data in ws:
                self.hall.largest = max(self.hall.largest, len(data))
                self._on_message(ForwardMsg.FromString(data))
        except ConnectionClosed:
            pass
        finally:
            if not self.closing and ws is self.ws:
                interrupted = bool(self._pending and not self._pending.done())
                if interrupted:
                    self._pending.set_exception(Disconnected("disconnected"))
                if self.worker != self.hall.killed:
                    self.error("disconnected")
                self.reconnecting = asyncio.get_running_loop().create_task(self._reconnect(interrupted))

    async def _reconnect(self, interrupted: bool) -> None:
        """What the browser does when its websocket closes: health check at once, then again
        after 0.5, 1, 2, 4 s ... (+-20 %), up to 60 s apart; once connected, a full run if its
        last run was cut off or was a fragment's, or the page has a fragment on a timer
        (Streamlit 1.67's frontend, handleConnectionStateChanged). Otherwise it would keep the
        old page over an empty session; here the page counts as back when the socket is."""
        tries = 0
        while not self.closing:
            try:
                await self.connect()
                break
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                tries += 1
                delay = 0.5 if tries == 1 else 0.5 * 2 ** (tries - 1) * self.hall.rng.uniform(0.8, 1.2)
                await asyncio.sleep(min(60.0, delay))
        else:
            return
        victim = self.hall.killed_at is not None and self.worker_at_kill == self.hall.killed
        if victim and self.reconnected_s is None:
            self.reconnected_s = time.perf_counter() - self.hall.killed_at
        if interrupted or self.last_run_fragment or self.auto_reruns:
            try:
                await self.rerun()
            except RunFailed as e:
                self.error(f"after reconnecting: {e}")
                return
        if victim and self.back_s is None:
            self.back_s = time.perf_counter() - self.hall.killed_at

    def _on_message(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if msg.metadata.cacheable:
            self.cache[msg.hash] = self.runs
        if kind == "ref_hash":
            self.cache[msg.ref_hash] = self.runs
        elif kind == "new_session":
            self.page_script_hash = msg.new_session.page_script_hash or self.page_script_hash
            self.session_id = msg.new_session.initialize.session_id or self.session_id
            self.max_cache_age = msg.new_session.config.max_cached_message_age or self.max_cache_age
            self._run_sliders = {}
            self._exceptions = 0
            if not msg.metadata.run.fragment_ids:  # a full run: the browser drops its timers, the run sets them again
                self.auto_reruns.clear()
        elif kind == "auto_rerun":
            self.auto_reruns.add(msg.auto_rerun.fragment_id)
        elif kind == "stop_auto_rerun":
            self.auto_reruns.difference_update(msg.stop_auto_rerun.fragment_ids)
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
            elif element.WhichOneof("type") == "button":
                self.buttons[element.button.id] = msg.delta.fragment_id
            elif element.WhichOneof("type") == "exception":
                self._exceptions += 1
        elif kind == "script_finished":
            status = msg.script_finished
            if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return  # the page asked for another run (st.rerun); the answer is the next one
            self.runs += 1
            self.last_run_fragment = status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
            if self.last_run_fragment:
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
                    self._pending.set_result("fragment" if self.last_run_fragment else "full")

    async def click(self, key: str) -> float:
        """Press the button whose key is `key`, as the browser does (a trigger, in the button's
        fragment if it has one); ms until that run finished."""
        found = [(wid, fragment) for wid, fragment in self.buttons.items() if wid.endswith(f"-{key}")]
        if not found:
            raise RunFailed(f"no button {key!r} on the page")
        wid, fragment = found[-1]
        return await self.rerun(fragment, extra=[WidgetState(id=wid, trigger_value=True)])

    async def rerun(self, fragment_id: str = "", extra: list[WidgetState] | None = None) -> float:
        """Send a rerun as the browser does; returns ms until the script finished. extra: widget
        states sent once (a button's trigger)."""
        msg = BackMsg()
        client = msg.rerun_script
        client.query_string = urlencode(self.query)
        if self.page_script_hash:
            client.page_script_hash = self.page_script_hash
        else:  # the first request names the page by its address, as a fresh tab does
            client.page_name = self.hall.page
        live = {sid: s for sid, s in self.states.items() if sid in self.sliders}
        client.widget_states.widgets.extend(live.values())
        client.widget_states.widgets.extend(extra or [])
        client.fragment_id = fragment_id
        fresh = self.runs - self.max_cache_age
        client.cached_message_hashes.extend(h for h, run in self.cache.items() if run >= fresh)
        info = client.context_info
        info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
        info.url, info.is_embedded, info.color_scheme = f"{self.hall.base}/{self.hall.page}", False, "light"

        self._pending = asyncio.get_running_loop().create_future()
        self.page_not_found = False
        start = time.perf_counter()
        try:
            await self.ws.send(msg.SerializeToString())
        except ConnectionClosed as e:
            raise Disconnected("disconnected") from e
        try:
            # A rerun slower than --timeout is an error, but the session waits for it all the same:
            # sending the next move on top would make the server stop and restart the run, and an
            # overloaded server would then finish nothing at all. It gives up at 4x --timeout.
            kind = await asyncio.wait_for(self._pending, 4 * self.hall.timeout)
        except TimeoutError as e:
            raise NoAnswer(f"no answer within {4 * self.hall.timeout:.0f} s") from e
        ms = (time.perf_counter() - start) * 1000
        if ms > self.hall.timeout * 1000:
            self.error(f"slower than {self.hall.timeout:.0f} s")
        self.last_kind = kind
        return ms

    # --- a student -----------------------------------------------------------------------------

    def _slider(self) -> Slider | None:
        movable = [s for s in self.sliders.values() if s.movable]
        choice = self.hall.slider_choice
        if choice in ("first", "random"):
            choices = [s for s in movable if s.in_main] or movable
            if not choices:
                return None
            return choices[0] if choice == "first" else self.hall.rng.choice(choices)
        return next((s for s in movable if choice in s.names), None)

    async def move(self) -> float:
        slider = self._slider()
        if slider is None:
            raise RunFailed("no slider on the page")
        state, text = slider.random_move(self.hall.rng, self.states.get(slider.proto.id))
        self.states[state.id] = state
        key = slider.proto.query_param_key
        if key:  # a bound slider: the browser writes the new value into the address first
            self.query = [(k, v) for k, v in self.query if k != key] + [(key, text)]
        ms = await self.rerun(slider.fragment_id)
        self.hall.runs[self.last_kind] += 1
        return ms

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
        except (RunFailed, OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as e:
            self.error(f"load: {e}" if isinstance(e, RunFailed) else f"connect: {type(e).__name__}")
            hall.loaded += 1
            return
        hall.loaded += 1
        await hall.go.wait()
        due = time.perf_counter() + self._pause()
        while True:
            await asyncio.sleep(max(0.0, min(due, hall.stop_at) - time.perf_counter()))
            if self.reconnecting is not None:  # the browser is reconnecting: the student waits for the page
                await self.reconnecting
                self.reconnecting = None
            if hall.enough():
                break
            sent = time.perf_counter()
            try:
                hall.move_ms.append(await self.move())
                hall.done_at.append(time.perf_counter())
            except Disconnected:
                hall.interrupted += 1
            except NoAnswer as e:
                self.error(str(e))
                break
            except RunFailed as e:
                self.error(str(e))
            due = sent + self._pause()
            if due < time.perf_counter() and hall.interval > 0:
                hall.late += 1

    async def close(self) -> None:
        self.closing = True
        if self.reconnecting is not None:
            self.reconnecting.cancel()
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
    server_cpu: float | None  # CPU seconds the server (every worker) used while the sessions moved
    wall: float  # seconds the sessions moved (until the last rerun came back)
    client_cpu: float  # share of one core this client used meanwhile
    haproxy_cpu: float | None = None  # CPU seconds HAProxy used meanwhile (behind a balancer)
    workers: int = 1
    slider: str = ""
    runs: Counter = field(default_factory=Counter)
    largest: int = 0
    per_worker: Counter = field(default_factory=Counter)  # sessions per worker when the moves began
    kill: dict | None = None  # what --kill-worker-at saw
    interrupted: int = 0  # moves whose run a dying worker cut off (the reconnect's run replaced them)
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)  # load average at the end


async def _heavy(args, base: str, i: int, students: Hall) -> list[float | str]:
    """One student who presses Train on /train with heavy settings (--heavy-query) as soon as the
    hall moves, and again whenever the run has finished, until the hall stops: seconds per click, or
    what went wrong. Every click has a seed no other click has (77 + i, then 77 + i + 1000, ...), in a
    session of its own as a reopened link: a click the cache could answer would be no work at all."""
    hall = Hall(base, "train", "en", 0.0, "first", 20 * args.timeout, random.Random(i))
    clicks: list[float | str] = []
    while not students.enough():
        session = Session(hall, -100 - i - 1000 * len(clicks))
        seed = 77 + i + 1000 * len(clicks)
        session.query = [("lang", "en"), *parse_qsl(args.heavy_query), ("tr_seed", str(seed))]
        try:
            await session.connect()
            await session.rerun()
            clicks.append(await session.click("tr_train") / 1000)
        except (RunFailed, OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as e:
            clicks.append(f"{type(e).__name__}: {e}"[:60])
            break
        finally:
            await session.close()
    return clicks


def _kill_one(servers: Servers, sessions: list[Session], hall: Hall) -> None:
    """SIGKILL the worker holding the most sessions (the first, on a tie)."""
    workers = servers.workers()
    held = Counter(s.worker for s in sessions)
    name = max(sorted(workers), key=lambda w: held.get(w, 0))
    for s in sessions:
        s.worker_at_kill = s.worker
    hall.killed, hall.killed_at = name, time.perf_counter()
    os.kill(workers[name], signal.SIGKILL)
    print(f"  killed {name} (pid {workers[name]}), which held {held.get(name, 0)} sessions", flush=True)


def _kill_report(sessions: list[Session], hall: Hall, limit: float) -> dict:
    victims = [s for s in sessions if s.worker_at_kill == hall.killed]
    others = [s for s in sessions if s.worker_at_kill != hall.killed]
    back = [s.back_s for s in victims if s.back_s is not None]
    return {
        "killed": hall.killed,
        "victims": len(victims),
        "back": back,
        "reconnected": [s.reconnected_s for s in victims if s.reconnected_s is not None],
        "late": sum(1 for b in back if b > limit),
        "never": len(victims) - len(back),
        "victim_errors": sum((s.errors for s in victims), Counter()),
        "others": len(others),
        "other_errors": sum((s.errors for s in others), Counter()),
        "limit": limit,
        "moved_to": Counter(s.worker for s in victims),
    }


async def run_hall(args, base: str, servers: Servers, label: str) -> Result:
    # The HTTP requests before a websocket (fetch_cookies) run in threads. asyncio's default pool
    # has min(32, cores + 4) of them, 6 here: when a killed worker's 100 sessions reconnect at
    # once, they would queue for it, which no browser does. One thread per session instead.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=args.sessions + 8))
    rng = random.Random(args.seed)
    hall = Hall(base, args.page, args.lang, args.interval, args.slider, args.timeout, rng, args.reruns, args.query)

    # One visit first, as the instructor's own before class: it fills the caches and imports what
    # the page needs; behind HAProxy one visit per worker (the cookie picks the worker). The "no
    # sessions" memory is read after they have left.
    workers = sorted(servers.workers()) if servers.balanced else [""]
    if not servers.balanced and servers.state is not None:
        hall.only_worker = next(iter(servers.workers()), "")
    slider = None
    for name in workers:
        warm = Session(hall, -1, {WORKER_COOKIE: name} if name else None)
        await warm.connect()
        await warm.rerun()
        slider = warm._slider()
        if slider is None:
            choice = "" if args.slider in ("first", "random") else f" called {args.slider!r}"
            raise SystemExit(f"page {args.page!r} shows no slider{choice} to move")
        if warm.page_not_found:  # lab_ui/shell.py's first-request detour; later sessions are checked
            print(f"note: the first visit to /{args.page} on this fresh server got 'Page not found'")
        await warm.close()
    print(f"slider: {slider.describe()}", flush=True)
    await asyncio.sleep(2)
    rss_none = servers.rss()

    n = args.sessions
    sessions = [Session(hall, i) for i in range(n)]
    tasks = [asyncio.create_task(s.live(i * args.ramp / n)) for i, s in enumerate(sessions)]
    while hall.loaded < n:
        await asyncio.sleep(0.1)
    await asyncio.sleep(args.idle)  # everyone has the page and looks at it
    rss_idle = servers.rss()
    per_worker = Counter(s.cookies[WORKER_COOKIE] for s in sessions if WORKER_COOKIE in s.cookies)

    servers.start_cpu()
    client_start = time.process_time()
    start = time.perf_counter()
    if args.reruns is None:
        hall.stop_at = start + args.duration
    hall.go.set()
    heavy = [asyncio.create_task(_heavy(args, base, i, hall)) for i in range(args.heavy)]
    series = []
    next_progress = 60.0
    kill_at = start + args.kill_worker_at if args.kill_worker_at is not None else None
    while not all(t.done() for t in tasks):
        servers.sample_cpu()
        series.append(Sample(time.perf_counter() - start, len(hall.move_ms), servers.rss() or 0.0))
        if series[-1].t >= next_progress:  # a long run says how it is getting on, once a minute
            s = series[-1]
            print(f"  {s.t:5.0f} s  {s.reruns:6d} reruns  {s.reruns / s.t:5.1f}/s  RSS {s.rss:.0f} MB", flush=True)
            next_progress += 60
        if kill_at is not None and time.perf_counter() >= kill_at:
            _kill_one(servers, sessions, hall)
            kill_at = None
        await asyncio.wait(tasks, timeout=min(args.sample, 0.25) if kill_at is not None else args.sample)
    end = hall.done_at[-1] if hall.done_at else time.perf_counter()
    wall = time.perf_counter() - start
    servers.sample_cpu()
    worker_cpu, haproxy_cpu = servers.cpu() if servers.known else (None, None)
    client_cpu = (time.process_time() - client_start) / wall
    series.append(Sample(time.perf_counter() - start, len(hall.move_ms), servers.rss() or 0.0))
    kill = _kill_report(sessions, hall, args.back_within) if hall.killed else None
    if heavy:
        clicks = [c for task in await asyncio.gather(*heavy) for c in task]
        done = [c for c in clicks if isinstance(c, float)]
        print(
            f"heavy clicks on /train ({args.heavy_query}, each its own seed): {len(done)} finished"
            + (f", {statistics.median(done):.1f} s median, {max(done):.1f} s longest" if done else "")
            + (f"; failed: {Counter(c for c in clicks if isinstance(c, str))}" if len(done) < len(clicks) else ""),
            flush=True,
        )

    await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
    await asyncio.sleep(3)
    return Result(
        label,
        n,
        end - start,
        len(hall.move_ms),
        hall.move_ms,
        hall.load_ms,
        hall.errors,
        hall.late,
        rss_none,
        rss_idle,
        servers.rss(),
        series,
        worker_cpu,
        wall,
        client_cpu,
        haproxy_cpu=haproxy_cpu if servers.balanced else None,
        workers=max(1, len(servers.workers())),
        slider=slider.describe(),
        runs=hall.runs,
        largest=hall.largest,
        per_worker=per_worker,
        kill=kill,
        interrupted=hall.interrupted,
        load=os.getloadavg(),
    )


def _mb(value: float | None) -> str:
    return f"{value:.0f} MB" if value is not None else "n/a"


def _errors(counter: Counter) -> str:
    kinds = ", ".join(f"{k}: {v}" for k, v in counter.most_common())
    return f"{sum(counter.values())}" + (f" ({kinds})" if kinds else "")


def report(r: Result) -> None:
    rate = r.reruns / r.seconds if r.seconds else 0.0
    print(f"--- {r.label}: {r.sessions} sessions, {r.reruns} reruns in {r.seconds:.0f} s")
    print(f"slider        {r.slider}; runs: {', '.join(f'{v} {k}' for k, v in sorted(r.runs.items())) or 'none'}")
    if r.per_worker:
        print(f"sessions      {', '.join(f'{w}: {n}' for w, n in sorted(r.per_worker.items()))}")
    print(f"reruns/s      {rate:.1f}")
    if r.move_ms:
        print(
            f"latency       median {statistics.median(r.move_ms):.0f} ms   p95 {percentile(r.move_ms, 95):.0f} ms"
            f"   max {max(r.move_ms):.0f} ms   (send -> script_finished)"
        )
    if r.load_ms:
        print(f"first load    median {statistics.median(r.load_ms):.0f} ms   p95 {percentile(r.load_ms, 95):.0f} ms")
    cut = f";  moves cut off by a dying worker {r.interrupted}" if r.interrupted else ""
    print(f"errors        {_errors(r.errors)};  late moves {r.late}{cut}")
    print(f"messages      largest {r.largest / 1024:.0f} kB")
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
        who = f"{r.workers} workers" if r.workers > 1 else "server"
        cpu = f"{who} {r.server_cpu / r.wall * 100:.0f}% of a core ({per_rerun:.0f} ms CPU per rerun), "
        if r.haproxy_cpu is not None:
            cpu += f"HAProxy {r.haproxy_cpu / r.wall * 100:.0f}% ({r.haproxy_cpu / max(r.reruns, 1) * 1000:.1f} ms), "
    print(f"CPU           {cpu}this client {r.client_cpu * 100:.0f}% of a core")
    if r.kill:
        k = r.kill
        back, again = k["back"], k["reconnected"]
        times = f"median {statistics.median(back):.1f} s, max {max(back):.1f} s" if back else "none back"
        opened = f"median {statistics.median(again):.1f} s, max {max(again):.1f} s" if again else "never"
        moved = ", ".join(f"{w}: {n}" for w, n in sorted(k["moved_to"].items()))
        print(
            f"killed        {k['killed']}: {k['victims']} sessions; websocket open again after {opened}; "
            f"page back (its run finished) after {times} ({k['late']} later than {k['limit']:.0f} s, "
            f"{k['never']} never); now on {moved}; their errors {_errors(k['victim_errors'])}"
        )
        print(f"              the other {k['others']} sessions: errors {_errors(k['other_errors'])}")


def row(r: Result) -> str:
    """One line of the 1-vs-N-workers table (markdown)."""
    rate = r.reruns / r.seconds if r.seconds else 0.0
    p50 = statistics.median(r.move_ms) / 1000 if r.move_ms else 0
    p95 = percentile(r.move_ms, 95) / 1000 if r.move_ms else 0
    top = max(r.move_ms) / 1000 if r.move_ms else 0
    cpu = f"{r.server_cpu / r.reruns * 1000:.0f} ms" if r.server_cpu is not None and r.reruns else "n/a"
    haproxy = f"{r.haproxy_cpu / r.reruns * 1000:.1f} ms" if r.haproxy_cpu is not None and r.reruns else "-"
    idle = (
        f"{(r.rss_idle - r.rss_none) / r.sessions * 1024:.0f} kB"
        if r.rss_none is not None and r.rss_idle is not None
        else "n/a"
    )
    load = " ".join(f"{x:.1f}" for x in r.load)
    return (
        f"| {r.workers} | {rate:.1f} | {p50:.1f} / {p95:.1f} / {top:.1f} s | {sum(r.errors.values())} | {cpu} | "
        f"{haproxy} | {idle} | {r.client_cpu * 100:.0f}% | {load} |"
    )


TABLE_HEAD = (
    "| workers | reruns/s | latency p50 / p95 / max | errors | server CPU per rerun (all workers) "
    "| HAProxy CPU per rerun | idle memory per session | client CPU | load average (1/5/15 min) at the end |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


@contextlib.contextmanager
def serve(workers: int, script: str, flags: list[str], timeout: float = 120) -> Iterator[tuple[str, Path]]:
    """scripts/serve.py, as `make serve WORKERS=N` runs it, on a free loopback port; yields its
    address and its state.json; stops it (HAProxy and every worker) afterwards."""
    port = free_port()
    run_dir = Path(tempfile.mkdtemp(prefix="lecture-hall-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}  # only our flags count
    cmd = [
        sys.executable,
        "scripts/serve.py",
        "--workers",
        str(workers),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--app",
        script,
        "--run-dir",
        str(run_dir),
        "--",
        *flags,
    ]
    log = (run_dir / "serve.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    state = run_dir / "state.json"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"scripts/serve.py exited: {(run_dir / 'serve.log').read_text()[-2000:]}")
            with contextlib.suppress(OSError, ValueError):
                if json.loads(state.read_text())["ready"]:
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"scripts/serve.py not ready within {timeout:.0f} s")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}", state
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        # What serve.py and HAProxy saw of a worker dying or failing its health checks.
        seen = [
            line
            for line in (run_dir / "serve.log").read_text().splitlines()
            if "is DOWN" in line or (line.startswith("[serve]") and ("died" in line or "again" in line))
        ]
        print("\n".join(f"  {line}" for line in seen) or "  (no worker died or failed its health checks)")
        for path in run_dir.iterdir():
            path.unlink()
        run_dir.rmdir()


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


def _write_csv(path: str, r: Result) -> None:
    with open(path, "w") as f:
        f.write("t_s,reruns,rss_mb\n")
        f.writelines(f"{s.t:.1f},{s.reruns},{s.rss:.1f}\n" for s in r.series)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--page",
        default=None,
        help="url path or page script, with a link's parameters if wanted (heatmap?hm_step=3; default: heatmap, else "
        "the bare app); or a script of its own, "
        "such as bench/fragment_app.py",
    )
    parser.add_argument("-n", "--sessions", type=int, default=200)
    parser.add_argument(
        "--interval", type=float, default=4.0, help="mean seconds between a session's moves; 0: no pause (saturation)"
    )
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of moving (unless --reruns)")
    parser.add_argument("--reruns", type=int, default=None, help="stop after this many reruns in all")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which the sessions arrive")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds all sit idle before memory is read")
    parser.add_argument(
        "--slider",
        default="first",
        help="which slider moves: first (of the main area), random, or a slider's label or key",
    )
    parser.add_argument("--lang", default="en")
    parser.add_argument("--timeout", type=float, default=30.0, help="a rerun slower than this is an error")
    parser.add_argument("--sample", type=float, default=1.0, help="seconds between memory samples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", help="write the memory series (t, reruns, RSS MB) to this file")
    parser.add_argument(
        "--gc",
        choices=("config", "on", "off", "both"),
        default="config",
        help="runner.postScriptGC for the server we start; both: on, then off, on fresh servers",
    )
    parser.add_argument("--url", help="use a running server instead of starting one")
    parser.add_argument("--pid", type=int, help="with --url: the server's process id, for its memory and CPU")
    parser.add_argument(
        "--serve-dir",
        type=Path,
        help="with --url: the --run-dir of a running scripts/serve.py (its state.json names the workers)",
    )
    parser.add_argument(
        "--compare-workers",
        metavar="N,M",
        help="run the hall against scripts/serve.py (make serve) with each number of workers in turn",
    )
    parser.add_argument(
        "--kill-worker-at",
        type=float,
        metavar="SECONDS",
        help="kill the worker holding the most sessions this many seconds into the moving",
    )
    parser.add_argument("--back-within", type=float, default=10.0, help="seconds a killed worker's session may take")
    parser.add_argument(
        "--heavy", type=int, default=0, help="students who press Train on /train, again and again, while the hall moves"
    )
    parser.add_argument(
        "--heavy-query",
        default="tr_d=64&tr_heads=4&tr_steps=1000&tr_window=4",
        help="their settings (default: 13 s of one click's 15 s ceiling, attention_core.train_cost)",
    )
    args = parser.parse_args()

    from bench.common import page_url_path

    script, args.query = "app.py", ()
    if args.page and "?" in args.page:  # a step of a page, or any other state a link can hold
        args.page, link = args.page.split("?", 1)
        args.query = tuple(parse_qsl(link, keep_blank_values=True))
    if args.page is None:
        args.page = "heatmap"
        if not registered("heatmap"):
            print("the heatmap page does not exist yet: using the bare one-slider app")
            script, args.page = BARE_APP, ""
    elif args.page.endswith(".py") and not args.page.startswith("pages/"):
        script, args.page = args.page, ""  # a script of its own (bench/fragment_app.py), not an app page
    elif args.page:
        args.page = page_url_path(args.page)
    if args.kill_worker_at is not None and not (args.compare_workers or args.serve_dir):
        parser.error("--kill-worker-at needs workers it knows: --compare-workers, or --url with --serve-dir")

    print(machine_line())
    where = args.page or script
    if args.url:
        base = args.url.rstrip("/")
        servers = Servers(state=args.serve_dir / "state.json") if args.serve_dir else Servers(pid=args.pid)
        report(asyncio.run(run_hall(args, base, servers, f"/{args.page} at {urlparse(base).netloc}")))
        return
    if args.compare_workers:
        counts = [int(c) for c in args.compare_workers.split(",")]
        results = []
        for count in counts:
            with serve(count, script, gc_flags(args.gc)) as (base, state):
                label = f"{where}, make serve WORKERS={count}"
                results.append(asyncio.run(run_hall(args, base, Servers(state=state), label)))
            report(results[-1])
            print(machine_line(), flush=True)
        print(f"\n{where}: {args.sessions} sessions, a move every {args.interval:g} s on average, {args.duration:g} s")
        print(TABLE_HEAD)
        for r in results:
            print(row(r))
        if len(results) > 1 and results[0].reruns:
            first = results[0].reruns / results[0].seconds
            for r in results[1:]:
                ratio = r.reruns / r.seconds / first
                print(f"{r.workers} workers / {results[0].workers}: {ratio:.2f}x the reruns per second")
        return
    results = []
    for gc in ("on", "off") if args.gc == "both" else (args.gc,):
        with start_server(script, flags=gc_flags(gc)) as server:
            label = f"{where}, postScriptGC {gc}"
            results.append(asyncio.run(run_hall(args, server.url, Servers(pid=server.pid), label)))
        report(results[-1])
        if args.reruns is not None:
            report_series(results[-1])
        if args.csv:
            _write_csv(args.csv if len(results) == 1 else args.csv.replace(".csv", f"_{gc}.csv"), results[-1])
    if len(results) == 2:
        on, off = results
        print(
            f"postScriptGC on -> off: reruns/s {on.reruns / on.seconds:.1f} -> {off.reruns / off.seconds:.1f}, "
            f"p95 {percentile(on.move_ms, 95):.0f} -> {percentile(off.move_ms, 95):.0f} ms"
        )


if __name__ == "__main__":
    main()
