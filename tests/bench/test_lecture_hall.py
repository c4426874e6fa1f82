"""bench/lecture_hall.py moves a slider as the browser does: a slider inside an st.fragment asks
for a fragment rerun (its ClientState carries the fragment's id), any other slider for a full
rerun. Checked against bench/fragment_app.py, a page with one of each, on a server of its own."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from bench.common import start_server
from bench.lecture_hall import Servers, run_hall


@pytest.fixture(scope="module")
def fragment_server():
    with start_server("bench/fragment_app.py") as server:
        yield server


def _hall(server, slider: str):
    args = SimpleNamespace(
        page="",
        query=(),  # no link parameters beyond the language
        lang="en",
        sessions=3,
        interval=0.2,
        duration=2.0,
        reruns=None,
        ramp=0.5,
        idle=0.5,
        slider=slider,
        timeout=30.0,
        sample=0.5,
        seed=0,
        kill_worker_at=None,
        back_within=10.0,
        heavy=0,  # no students pressing Train on /train here
        heavy_query="",
    )
    # A thread of its own: in a pytest worker that also runs the browser tests, Playwright's event
    # loop is running in this thread, and asyncio.run() refuses to start a second one there.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run_hall(args, server.url, Servers(pid=server.pid), slider)).result()


@pytest.mark.parametrize(("slider", "kind"), [("section", "fragment"), ("section_x", "fragment"), ("page", "full")])
def test_a_slider_moves_as_the_browser_moves_it(fragment_server, slider, kind):
    result = _hall(fragment_server, slider)
    assert result.errors == {}
    assert result.reruns > 0
    assert set(result.runs) == {kind}, result.runs
    assert ("in fragment" in result.slider) == (kind == "fragment")
    assert result.server_cpu is not None
