"""Long computations (a training run, a comparison of three) watched live and shared between
sessions, on top of lab_ui.cache:

    result = live.run(fit, config, task, steps, lr, seed, draw=show_progress)

`fn(*args, on_progress=...)` is computed through `cached`, so the same arguments are computed
once per server process and a finished result comes back at once on a rerun, a reload or in
another session. While it runs, `draw(progress)` is called at most every EVERY seconds in the
session that started it; a second session asking for the same arguments meanwhile follows that
run (its `draw` gets the same progress) and then gets its result, instead of starting its own.

Stopping: in Streamlit a click during a run starts a new run of the script at once, and the old
run's next Streamlit call (inside `draw`) raises. That exception is caught here, the computation
is told to stop (its on_progress returns False), its partial result (e.g. a Fit with stopped=True)
is kept here for the `owner` (the session) that stopped it, and `Interrupted` carries it and the
original exception, which the page must raise again. The old run can no longer write the
session's state, and the new run may already be past the point where it looks, so the new run
asks `stopped(owner, fn, *args)`, which waits for the old one to finish wrapping up. A partial
result is never cached: the next request trains again.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from lab_ui import cache

EVERY = 0.2  # seconds between two drawings of the progress (the issue asks for at most 0.25)

_lock = threading.Lock()
_running: dict[tuple, _Run] = {}
_stopped: OrderedDict[tuple, Any] = OrderedDict()  # (owner, run key) -> the partial result it stopped
MAX_STOPPED = 64
_local = threading.local()


class _Run:
    def __init__(self, owner: str | None) -> None:
        self.latest: Any = None  # the last progress the computation reported
        self.owner = owner  # the session that started it


class Interrupted(Exception):
    """The session's run was interrupted (its `draw` raised); `partial` holds what was done."""

    def __init__(self, partial: Any, cause: BaseException):
        super().__init__("interrupted")
        self.partial, self.cause = partial, cause


def running(fn: Callable, *args) -> bool:
    """Is a computation of fn(*args) in progress in some session right now?"""
    with _lock:
        return _run_key(fn, args) in _running


def finished(fn: Callable, *args) -> tuple[bool, Any]:
    """(True, result) when fn(*args) has been computed to the end by some session, else (False,
    None); never starts it."""
    return cache.lookup(_publishing, fn, *args)


def stopped(owner: str, fn: Callable, *args, wait: float = 10.0) -> Any:
    """The partial result of the last run of fn(*args) that `owner` stopped, or None. A run that
    owner started and that is still wrapping up (a last measurement) is waited for first."""
    key = _run_key(fn, args)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        with _lock:
            run_ = _running.get(key)
            if run_ is None or run_.owner != owner:
                return _stopped.get((owner, key))
        time.sleep(0.02)
    return None


def run(fn: Callable, *args, draw: Callable[[Any], None] | None = None, owner: str | None = None) -> Any:
    """fn(*args, on_progress=...), cached and shared; `draw` sees its progress (see the module);
    `owner` (a session's id) is who may stop it and get its partial result back."""
    key, shown = _run_key(fn, args), None
    while True:  # follow a run of the same arguments in another session, if there is one
        hit, value = finished(fn, *args)
        if hit:
            return value
        with _lock:
            other = _running.get(key)
        if other is None:
            break
        if draw is not None and other.latest is not None and other.latest is not shown:
            shown = other.latest
            draw(shown)
        time.sleep(EVERY)
    _local.draw, _local.owner = draw, owner
    try:
        return cache.cached(_publishing, fn, *args)
    finally:
        _local.draw = _local.owner = None


def _run_key(fn: Callable, args: tuple) -> tuple:
    return (id(fn), cache._key(args))


def _publishing(fn: Callable, *args) -> Any:
    """fn(*args) with an on_progress that publishes each progress for followers and draws it for
    the session that started the run; a `draw` that raises stops the computation."""
    draw, owner, key = getattr(_local, "draw", None), getattr(_local, "owner", None), _run_key(fn, args)
    shared = _Run(owner)
    state = {"drawn": -1.0, "error": None}

    def on_progress(progress) -> bool | None:
        shared.latest = progress
        now = time.monotonic()
        if draw is not None and now - state["drawn"] >= EVERY:
            state["drawn"] = now
            try:
                draw(progress)
            except BaseException as error:  # Streamlit's rerun and stop signals too: the page raises it again
                state["error"] = error
                return False
        return None

    with _lock:
        _running[key] = shared
    value = None
    try:
        value = fn(*args, on_progress=on_progress)
    finally:
        with _lock:
            if state["error"] is not None and owner is not None:  # kept before the run stops being "running"
                _stopped[(owner, key)] = value
                _stopped.move_to_end((owner, key))
                while len(_stopped) > MAX_STOPPED:
                    _stopped.popitem(last=False)
            _running.pop(key, None)
    if state["error"] is not None:
        raise Interrupted(value, state["error"])
    return value
