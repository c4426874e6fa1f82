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

One click's compute is bounded, and so is a worker's. For fit and the comparisons of
attention_core.train, `budget(fn, *args)` is the run's attention_core.train_cost.Cost (CPU seconds
on the reference machine, the ceiling, the most steps that fit), for the page to say before the
student clicks; `run` refuses a run over its ceiling before it starts (OverBudget, a ValueError
whose message says what to choose instead). At most MAX_RUNNING runs compute at once in a worker
(ATTENTION_LAB_TRAININGS, default 1: one run already takes a whole core's share of the GIL, and a
second would take it from every other student's slider); the others wait in line, first come
first served:

    result = live.run(fit, config, task, steps, lr, seed, draw=show_progress, wait=show_waiting)

`wait(waiting)` is called about every EVERY seconds while the run waits for its turn, in the
session that asked and in every session following the same run, with a `Waiting`: `position` (1:
next to start), `running` and `limit` (runs computing now, at most), `seconds` (waited so far).
A Streamlit call inside `wait` is where a click during the wait interrupts it, as in `draw`: the
run leaves the line and `Interrupted` (its `partial` None) carries the exception. Without `wait`
the session waits without a word and cannot be interrupted before its run starts. `queue()` says
how busy the worker is (running, waiting, limit) for a page that wants to show it before a click.
A page catches OverBudget (or checks `budget(...).within` first and offers `max_steps`) and shows
its message; it raises `Interrupted.cause` again, as for a stopped run.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from attention_core.train_cost import Cost, check, run_cost
from lab_ui import cache

EVERY = 0.2  # seconds between two drawings of the progress (the issue asks for at most 0.25)


def _trainings() -> int:
    raw = os.environ.get("ATTENTION_LAB_TRAININGS", "").strip() or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(
            f"ATTENTION_LAB_TRAININGS={raw!r} must be a whole number, 1 or more (runs at once per worker)."
        )
    return int(raw)


MAX_RUNNING = _trainings()

_lock = threading.Lock()
_running: dict[tuple, _Run] = {}
_stopped: OrderedDict[tuple, Any] = OrderedDict()  # (owner, run key) -> the partial result it stopped
MAX_STOPPED = 64
_local = threading.local()


class _Run:
    def __init__(self, owner: str | None) -> None:
        self.latest: Any = None  # the last progress the computation reported
        self.owner = owner  # the session that started it
        self.waiting: Waiting | None = None  # while it waits for its turn


@dataclass(frozen=True)
class Waiting:
    """A run waiting for its turn (what `wait` is given)."""

    position: int  # 1: the next to start
    running: int  # runs computing now in this worker
    limit: int  # at most this many at once (MAX_RUNNING)
    seconds: float  # waited so far


@dataclass(frozen=True)
class Queue:
    """How busy the worker is (what `queue()` says)."""

    running: int  # runs computing now in this worker
    waiting: int  # runs waiting for their turn
    limit: int  # MAX_RUNNING


class OverBudget(ValueError):
    """A run over one click's ceiling, refused before it started; `cost` says by how much."""

    def __init__(self, message: str, cost: Cost):
        super().__init__(message)
        self.cost = cost


_turns = threading.Condition()
_line: list[object] = []  # tickets of the runs waiting, first come first
_granted: set[object] = set()  # tickets given a turn, their runs not yet told
_computing = 0  # runs holding a turn (granted ones included)


def queue() -> Queue:
    with _turns:
        return Queue(_computing, len(_line), MAX_RUNNING)


def budget(fn: Callable, *args) -> Cost | None:
    """The cost of fn(*args) against one click's ceiling (attention_core.train_cost), or None
    when fn's cost is not known (it is then not bounded)."""
    return run_cost(fn, *args)


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


def run(
    fn: Callable,
    *args,
    draw: Callable[[Any], None] | None = None,
    owner: str | None = None,
    wait: Callable[[Waiting], None] | None = None,
) -> Any:
    """fn(*args, on_progress=...), cached and shared; `draw` sees its progress and `wait` its place
    in the line (see the module); `owner` (a session's id) is who may stop it and get its partial
    result back. OverBudget, before anything runs, for a run over one click's ceiling."""
    key, shown = _run_key(fn, args), None
    while True:  # follow a run of the same arguments in another session, if there is one
        hit, value = finished(fn, *args)
        if hit:
            return value
        with _lock:
            other = _running.get(key)
        if other is None:
            break
        try:
            if other.waiting is not None:
                if wait is not None:
                    wait(other.waiting)
            elif draw is not None and other.latest is not None and other.latest is not shown:
                shown = other.latest
                draw(shown)
        except BaseException as error:  # a follower interrupted: nothing of its own to keep
            raise Interrupted(None, error) from error
        time.sleep(EVERY)
    cost = budget(fn, *args)
    if cost is not None and not cost.within:
        try:
            check(cost)
        except ValueError as error:
            raise OverBudget(str(error), cost) from None
    _local.draw, _local.owner, _local.wait = draw, owner, wait
    try:
        return cache.cached(_publishing, fn, *args)
    finally:
        _local.draw = _local.owner = _local.wait = None


def _run_key(fn: Callable, args: tuple) -> tuple:
    return (id(fn), cache._key(args))


def _publishing(fn: Callable, *args) -> Any:
    """fn(*args) with an on_progress that publishes each progress for followers and draws it for
    the session that started the run; a `draw` that raises stops the computation."""
    draw, owner, key = getattr(_local, "draw", None), getattr(_local, "owner", None), _run_key(fn, args)
    wait = getattr(_local, "wait", None)
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
        _take_turn(shared, wait)
    except BaseException as error:  # interrupted while waiting: it never ran
        with _lock:
            _running.pop(key, None)
        raise Interrupted(None, error) from error
    try:
        value = fn(*args, on_progress=on_progress)
    finally:
        _give_turn()
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


def _take_turn(shared: _Run, wait: Callable[[Waiting], None] | None) -> None:
    """Wait in line until this run may compute; meanwhile `shared.waiting` says where it stands
    (for followers) and `wait` draws it for the session that asked, about every EVERY seconds.
    A run that ends hands its turn to the head of the line at once (_grant), so `running` never
    reads 0 to the waiting between two runs."""
    global _computing
    ticket, since = object(), time.monotonic()
    with _turns:
        _line.append(ticket)
        _grant()
        try:
            while ticket not in _granted:
                shared.waiting = Waiting(_line.index(ticket) + 1, _computing, MAX_RUNNING, time.monotonic() - since)
                if wait is not None:
                    _turns.release()  # the page's drawing must not hold up the line
                    try:
                        wait(shared.waiting)
                    finally:
                        _turns.acquire()
                if ticket not in _granted:
                    _turns.wait(EVERY)
        except BaseException:
            if ticket in _granted:  # granted while its `wait` raised: the turn goes to the next
                _computing -= 1
            else:
                _line.remove(ticket)
            _grant()
            raise
        finally:
            _granted.discard(ticket)
            shared.waiting = None


def _grant() -> None:
    """Give free turns to the head of the line (under _turns)."""
    global _computing
    while _line and _computing < MAX_RUNNING:
        _granted.add(_line.pop(0))
        _computing += 1
    _turns.notify_all()


def _give_turn() -> None:
    global _computing
    with _turns:
        _computing -= 1
        _grant()
