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

On the page (the end of this module: the training page's runs, in its catalog's words):

    pressed = live.ask("tr_run_scale", t("train.run_scale"), compare_scaling, args, steps=C.steps, offered=STEPS)
    comp = live.result(compare_scaling, *args, name="scale", asked=pressed)

`ask` says the run's cost before the click, disables the button over the ceiling and offers the
steps that fit (a button that sets the `steps` control), and says when the worker is busy; `result`
is the finished run (any session's), the one run now if asked (`watch`: its place in line with a
button that leaves it, then its progress with a Stop button), or this session's stopped one. What
a session keeps is a flag for a pressed button, never a result.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attention_core.train_cost import Cost, check, run_cost
from lab_ui import cache
from lab_ui.i18n import current_lang, t

EVERY = 0.2  # seconds between two drawings of the progress (the issue asks for at most 0.25)


def _trainings() -> int:
    raw = os.environ.get("ATTENTION_LAB_TRAININGS", "").strip() or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(
            f"ATTENTION_LAB_TRAININGS={raw!r} must be a whole number, 1 or more (runs at once per worker)."
        )
    return int(raw)


MAX_RUNNING = _trainings()
# A run computes at a lower CPU priority than the sliders of the worker's other sessions: on a busy
# machine the scheduler then gives their short reruns the cores first, and the training takes what
# is left (Linux sets a thread's nice value on its own, by its thread id).
RUN_NICE = 10

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
        with lowered_priority():
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


@contextlib.contextmanager
def lowered_priority(by: int = RUN_NICE):
    """This thread at `by` nice levels lower priority while the block runs; back afterwards where the
    system allows it (raising a priority again may need privileges: then the thread, a session's
    script thread, stays lower until it ends). Nothing where threads have no nice value of their own."""
    tid = threading.get_native_id()
    try:
        before = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(before + by, 19))
    except (AttributeError, OSError):  # no per-thread priorities here, or not allowed
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, tid, before)


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


# --- on the page: a run's cost before the click, its place in line, its progress ------------------


def _seconds(x: float) -> str:
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"


def fitting_steps(cost: Cost, offered: tuple[int, ...]) -> int | None:
    """The most steps the slider offers within one click's ceiling (None: not even the fewest)."""
    return max((s for s in offered if s <= cost.max_steps), default=None)


def cost_words(cost: Cost, lang: str) -> str:
    """What the run will cost, said before the button is pressed."""
    values = dict(seconds=_seconds(cost.seconds), limit=f"{cost.limit_s:g}", runs=cost.runs)
    return t("train.cost_runs" if cost.runs > 1 else "train.cost_run", lang, **values)


def over_words(cost: Cost, fitting: int | None, lang: str) -> str:
    """Why a run over one click's ceiling is not started, and what would fit instead."""
    values = dict(seconds=_seconds(cost.seconds), limit=f"{cost.limit_s:g}", most=cost.max_steps, fit=fitting)
    return t("train.over_budget" if fitting else "train.over_budget_model", lang, **values)


def queue_words(queue: Queue, lang: str) -> str:
    """How busy the server is, said before the click when a run would have to wait."""
    return t("train.queue_busy", lang, running=queue.running, limit=queue.limit, waiting=queue.waiting)


def waiting_words(waiting: Waiting, lang: str) -> str:
    """A waiting run's place in line, as the student who asked for it (and anyone following it) sees it."""
    return t(
        "train.waiting",
        lang,
        position=waiting.position,
        running=waiting.running,
        limit=waiting.limit,
        seconds=f"{waiting.seconds:.0f}",
    )


def ask(key: str, label: str, fn: Callable, args: tuple, *, steps, offered: tuple, **button) -> bool:
    """The run's cost, then its button `key` (disabled over one click's ceiling, with a button that
    sets the `steps` control, a lab_ui.state entry, to the most of `offered` that fit), and how busy
    the worker is. -> whether it was pressed: a flag its callback set, taken once (the app shell may
    rerun the script before the page, which would lose a plain button's True)."""
    lang, cost = current_lang(), budget(fn, *args)
    over = cost is not None and not cost.within
    if cost is not None and not over:
        st.caption(cost_words(cost, lang))
    elif over:
        fitting = fitting_steps(cost, offered)
        st.warning(over_words(cost, fitting, lang), icon=":material/timer_off:")
        kwargs = dict(key=f"{key}_fit", on_click=st.session_state.__setitem__, args=(steps.key, fitting))
        if fitting and st.button(t("train.use_steps", steps=fitting), **kwargs):
            st.rerun()  # from inside the step's fragment: the settings must show the new steps
    if (busy := queue()).running >= busy.limit:
        st.caption(queue_words(busy, lang))
    flag = f"_{key}_asked"
    st.button(label, key=key, on_click=st.session_state.__setitem__, args=(flag, True), disabled=over, **button)
    return st.session_state.pop(flag, False)


def watch(fn: Callable, *args, name: str, label=lambda p: "", chart: Callable | None = None, offered: tuple = ()):
    """fn(*args) run here: while it waits for its turn, its place in line and a button that
    leaves it; while it runs, a progress bar at most every EVERY seconds (and chart(progress, key),
    if given, drawing its live figure under a key of its own each time) and a Stop button. A click
    meanwhile interrupts it; what it had done is kept for the rerun. None for a run refused over
    one click's ceiling (said, with the most of `offered` steps that fit)."""
    lang, area = current_lang(), st.empty()  # one place for the buttons, the bar and the chart, cleared at the end
    box = area.container()
    button, bar, figure = box.empty(), box.empty(), box.empty()
    bar.progress(0.0, text=t("train.starting"))
    shown = {"leave": False, "stop": False, "drawn": 0}

    def wait_(waiting: Waiting) -> None:
        _stop_if_clicked()
        if not shown["leave"]:
            shown["leave"] = True
            button.button(t("train.leave_line"), key=f"tr_leave_{name}", icon=":material/logout:")
        bar.info(waiting_words(waiting, lang), icon=":material/hourglass_top:")

    def draw(p) -> None:
        _stop_if_clicked()
        if not shown["stop"]:
            shown["stop"] = True
            button.button(t("train.stop"), key=f"tr_stop_{name}", icon=":material/stop_circle:")
        values = dict(step=p.step, steps=p.steps, loss=f"{p.loss:.4f}", seconds=f"{p.seconds:.1f}")
        bar.progress(min(p.fraction, 1.0), text=t("train.progress", label=label(p), **values))
        if chart is not None:
            shown["drawn"] += 1  # two drawings with equal keys would clash
            with figure:
                chart(p, f"tr_live_{shown['drawn']}")

    try:
        value = run(fn, *args, draw=draw, owner=session(), wait=wait_)
    except Interrupted as stop:  # stopped, or left the line: the click's rerun shows what is kept
        if not isinstance(stop.cause, ClickQueued):
            raise stop.cause from None
        area.empty()  # this run draws what was kept and ends; the click's run, queued behind it, follows
        return stop.partial
    except OverBudget as refused:
        area.empty()
        st.error(over_words(refused.cost, fitting_steps(refused.cost, offered), lang), icon=":material/timer_off:")
        return None
    area.empty()
    return value


def result(fn: Callable, *args, name: str, asked: bool, **watching):
    """The finished result of fn(*args) if any session computed it, else the one run now if
    asked (watch, with `watching`), else this session's stopped one, else None."""
    hit, value = finished(fn, *args)
    if hit:
        return value
    if asked:
        return watch(fn, *args, name=name, **watching)
    return stopped(session(), fn, *args)


class ClickQueued(Exception):
    """The student clicked (or moved a control) while a run was watched here."""


def _stop_if_clicked() -> None:
    """Raise ClickQueued when a rerun waits behind this script run. A click inside a fragment (each
    step of a page is one) does not interrupt the run under way, as a click elsewhere does:
    Streamlit queues its rerun until this run ends, so Stop and Leave the line would wait for the
    whole training. The run's drawing looks for a queued rerun itself and stops the run."""
    requests = getattr(get_script_run_ctx(), "script_requests", None)
    if getattr(getattr(requests, "_state", None), "name", None) == "RERUN":
        raise ClickQueued


def session() -> str:
    """This browser session's id: whose stopped run is whose."""
    return get_script_run_ctx().session_id
