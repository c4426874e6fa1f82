"""lab_ui.live bounds what clicks cost a worker: a run over one click's ceiling is refused before it
starts, at most MAX_RUNNING runs compute at once, the others wait in a line whose place each
session is shown, and a click while waiting leaves the line."""

from __future__ import annotations

import os
import threading
import time
import types

import pytest

from attention_core.train import Config, fit, saw_task
from lab_ui import cache, live


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    cache.clear()
    monkeypatch.setattr(live, "MAX_RUNNING", 1)
    yield
    cache.clear()


active, most = [0], [0]
lock = threading.Lock()


def slow(n: int, on_progress=None) -> int:
    """A run of 0.3 s that reports progress, and notes how many such runs compute at once."""
    with lock:
        active[0] += 1
        most[0] = max(most[0], active[0])
    try:
        for step in range(6):
            time.sleep(0.05)
            if on_progress is not None and on_progress(step) is False:
                break
        return n * 10
    finally:
        with lock:
            active[0] -= 1


def _start(target, *args, **kwargs) -> tuple[threading.Thread, list]:
    out: list = []

    def body():
        try:
            out.append(target(*args, **kwargs))
        except BaseException as error:  # the test reads what happened
            out.append(error)

    thread = threading.Thread(target=body)
    thread.start()
    return thread, out


def test_a_run_over_the_ceiling_is_refused_before_it_starts():
    # The click: /train?tr_d=128&tr_heads=8&tr_steps=2000 (79 s of CPU when it ran)
    started = time.monotonic()
    with pytest.raises(live.OverBudget, match="at most") as refused:
        live.run(fit, Config(d_model=128, heads=8), saw_task(), 2000, 0.01, 0)
    assert time.monotonic() - started < 1.0  # not a step was trained
    assert refused.value.cost.max_steps < 2000
    assert not live.running(fit, Config(d_model=128, heads=8), saw_task(), 2000, 0.01, 0)
    assert live.budget(fit, Config(), saw_task(), 300, 0.01, 0).within
    assert live.budget(slow, 1) is None  # a function whose cost is not known is not bounded


def test_runs_take_turns_and_the_waiting_see_their_place():
    most[0] = 0
    seen: dict[int, list[live.Waiting]] = {1: [], 2: [], 3: []}
    threads = []
    for n in (1, 2, 3):
        threads.append(_start(live.run, slow, n, wait=seen[n].append))
        time.sleep(0.08)  # arrive in this order
    assert live.queue() == live.Queue(running=1, waiting=2, limit=1)
    for thread, _ in threads:
        thread.join()
    assert [out for _, out in threads] == [[10], [20], [30]]
    assert most[0] == 1  # never two at once
    assert seen[1] == []  # the first had nothing to wait for
    assert {w.position for w in seen[2]} == {1}
    assert seen[3][0].position == 2 and seen[3][-1].position == 1  # moved up the line
    assert all(w.running == 1 and w.limit == 1 for w in seen[2] + seen[3])
    assert seen[3][-1].seconds > seen[3][0].seconds
    assert live.queue() == live.Queue(0, 0, 1)


def test_two_at_once_when_the_worker_allows_two(monkeypatch):
    monkeypatch.setattr(live, "MAX_RUNNING", 2)
    most[0] = 0
    threads = [_start(live.run, slow, n) for n in (4, 5, 6)]
    for thread, _ in threads:
        thread.join()
    assert most[0] == 2


def test_a_click_while_waiting_leaves_the_line():
    first, _ = _start(live.run, slow, 7)
    time.sleep(0.05)

    class Rerun(Exception):
        """What Streamlit raises in a session's script thread when the student clicks."""

    def interrupted(waiting):
        raise Rerun

    with pytest.raises(live.Interrupted) as stop:
        live.run(slow, 8, wait=interrupted)
    assert stop.value.partial is None and isinstance(stop.value.cause, Rerun)
    assert not live.running(slow, 8) and live.queue().waiting == 0
    first.join()
    assert live.run(slow, 8) == 80  # asked again, it runs


def test_a_follower_of_a_waiting_run_sees_its_place_too():
    blocker, _ = _start(live.run, slow, 9)
    time.sleep(0.05)
    leader, led = _start(live.run, slow, 10, wait=lambda w: None)
    time.sleep(0.05)
    followed: list[live.Waiting] = []
    assert live.run(slow, 10, wait=followed.append) == 100
    assert followed and followed[0].position == 1
    for thread in (blocker, leader):
        thread.join()
    assert led == [100]


def test_a_click_queued_behind_a_watched_run_is_seen(monkeypatch):
    """A click inside a fragment (a page's step) does not interrupt the script that runs; Streamlit
    queues its rerun. The run's drawing looks for that queued rerun itself."""
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    for state, stops in ((ScriptRequestType.RERUN, True), (ScriptRequestType.CONTINUE, False)):
        ctx = types.SimpleNamespace(script_requests=types.SimpleNamespace(_state=state))
        monkeypatch.setattr(live, "get_script_run_ctx", lambda ctx=ctx: ctx)
        if stops:
            with pytest.raises(live.ClickQueued):
                live._stop_if_clicked()
        else:
            live._stop_if_clicked()


def own_priority(n: int, on_progress=None) -> tuple[int, int]:
    """The nice values of the thread computing the run and of the process's main thread."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), os.getpriority(os.PRIO_PROCESS, os.getpid())


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no per-thread nice values here")
def test_a_run_computes_below_the_sliders_priority_and_only_its_own_thread():
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    thread, out = _start(live.run, own_priority, 1)
    thread.join()
    (computing, main) = out[0]
    assert computing == min(before + live.RUN_NICE, 19), "the run computed at the sliders' priority"
    assert main == before, "lowering the run's thread lowered the whole worker"
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
