"""`make serve WORKERS=2` in a real browser: two Streamlit workers behind HAProxy, started by
scripts/serve.py as `make serve` starts them, once for the whole file (the last test kills one).

- The longest link the app writes goes through the balancer, twice in one request (the request
  line and an asset's Referer), and a long Chinese text typed on /heatmap survives a reload as a
  cut link with its notice, never a "400 Bad request" (issue 25 #2).
- /_stcore/metrics is refused through the balancer however it is spelled, and still served on
  a worker's loopback port; a link of more than 1,000 parameters, which Streamlit drops whole,
  comes back with its language and progress code (issue 25 #7).
- A frozen worker (SIGSTOP) is marked down within about 3 s and new students go to the other
  (issue 25 #6).
- A student's page on /heatmap, with its settings in the address, survives the death of the
  worker that served it: the browser reconnects through HAProxy to the other worker and gets the
  same page back, from the address, within 10 s (a behaviour, not a speed benchmark); then a CSV
  download works through the balancer, and the dead worker has been started again."""

from __future__ import annotations

import csv
import http.client
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_helpers import chart_data, exceptions, open_page, wait_until_idle
from conftest import ROOT, free_port
from playwright.sync_api import expect

from lab_ui.controls import MAX_LINK_BYTES, link_text
from lab_ui.i18n import t

# Settings a student would have in the address: the seeds' sentence, d = 4, in Chinese (URL keys of
# pages/heatmap.py: hm_text is the sentence, hm_d the vectors' size).
QUERY = "lang=zh&hm_src=random&hm_text=I+saw+a+saw&hm_d=4"
COOKIE = "lab_worker"  # deploy/haproxy.cfg: the cookie naming the worker a browser sticks to
RECONNECT_S = 10


@dataclass
class Balanced:
    url: str
    run_dir: Path
    proc: subprocess.Popen

    def state(self) -> dict:
        return json.loads((self.run_dir / "state.json").read_text())

    def worker(self, name: str) -> dict:
        return next(c for c in self.state()["children"] if c["name"] == name)

    def haproxy(self, command: str) -> str:
        """One command on HAProxy's stats socket (deploy/haproxy.cfg), its answer."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.worker("haproxy")["socket"])
            s.sendall(command.encode() + b"\n")
            return b"".join(iter(lambda: s.recv(65536), b"")).decode()

    def status(self, name: str) -> str:
        """UP, DOWN, ... of one worker as HAProxy's health checks see it."""
        rows = [line.split(",") for line in self.haproxy("show stat").splitlines() if line.startswith("workers,")]
        return next(row[17] for row in rows if row[1] == name)


def _wait(condition, timeout_s: float, what: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"scripts/serve.py exited: {log.read_text()[-3000:]}")
        try:
            if condition():
                return
        except (OSError, ValueError):  # state.json not written yet
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} within {timeout_s:.0f} s: {log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def balanced(haproxy, tmp_path_factory):
    """Two workers behind HAProxy on a free loopback port, for every test of this file; stopped
    (all of it) afterwards."""
    tmp_path = tmp_path_factory.mktemp("serve")
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "scripts/serve.py",
                "--workers",
                "2",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--run-dir",
                str(tmp_path),
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "HAPROXY": haproxy},
        )
    server = Balanced(f"http://127.0.0.1:{port}", tmp_path, proc)
    try:
        _wait(lambda: server.state()["ready"], 90, "the workers and HAProxy were not ready", proc, log)
        yield server
    finally:
        proc.terminate()  # serve.py stops HAProxy and both workers and waits for them
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    print(log.read_text()[-3000:])  # shown by pytest when the test fails


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    """One GET without following redirects: its status and headers."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=headers or {})
        answer = conn.getresponse()
        answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}
    finally:
        conn.close()


def test_the_longest_link_goes_through_the_balancer_twice_in_one_request(balanced):
    """A link of MAX_LINK_BYTES (the most the app writes) on the request line and again in the
    Referer of the same request, as every asset of that page is asked for: HAProxy's default
    buffers answered 400 to this."""
    text = "猫" * ((MAX_LINK_BYTES - 40) // len(urllib.parse.quote("猫")))
    url = f"{balanced.url}/heatmap?lang=zh&hm_text={urllib.parse.quote(text)}"
    assert MAX_LINK_BYTES - 100 < len(url) - len(balanced.url) <= MAX_LINK_BYTES
    status, _ = _get(url, {"Referer": url, "Cookie": "lab_worker=w1; " + "x=" + "y" * 500})
    assert status == 200


def test_a_long_chinese_text_survives_a_reload_through_the_balancer(browser, balanced):
    context = browser.new_context(viewport={"width": 1280, "height": 1600}, locale="zh-CN")
    page = context.new_page()
    answers: list[int] = []
    page.on("response", lambda response: answers.append(response.status))
    open_page(page, f"{balanced.url}/heatmap?lang=zh&hm_src=random")  # random weights: the student's own text
    text = ("注意力让每个词看向其他词并按权重取值。" * 100)[:1750]  # 1,750 characters, 15,750 bytes in a link
    box = page.get_by_role("textbox", name=t("heatmap.text", lang="zh"))
    box.fill(text)
    box.press("Enter")
    page.wait_for_function("() => location.search.includes('hm_text_cut=1750')", timeout=60000)
    wait_until_idle(page)
    kept = len(link_text(text))  # the characters the link holds
    assert page.get_by_text(t("common.text_cut_in_link", lang="zh", shown=kept, total=1750)).count() > 0

    page.reload(timeout=60000)
    wait_until_idle(page)
    assert 400 not in answers and all(status < 500 for status in answers), answers
    assert page.get_by_text(t("common.text_cut_link_opened", lang="zh", shown=kept, total=1750)).count() > 0
    # the box may be drawn again by the run that follows the first one: its value, once settled
    expect(page.get_by_role("textbox", name=t("heatmap.text", lang="zh"))).to_have_value(text[:kept], timeout=30000)
    assert exceptions(page) == []
    context.close()


@pytest.mark.parametrize(
    "path", ["/_stcore/metrics", "//_stcore/metrics", "/_stcore/%6detrics", "/_stcore/metrics?x=1", "/_stcore//metrics"]
)
def test_metrics_are_served_on_the_workers_ports_only(balanced, path):
    status, _ = _get(balanced.url + path)
    assert status == 403
    worker = balanced.worker("w1")
    direct, _ = _get(f"http://127.0.0.1:{worker['port']}/_stcore/metrics")
    assert direct == 200  # for whoever watches the machine itself


def test_a_link_of_more_than_1000_parameters_keeps_its_language_and_progress(balanced):
    """Streamlit drops a query string of more than 1,000 parameters whole; the balancer sends
    such a link back to its page with only the language and the progress code."""
    many = "&".join(f"x{i}=1" for i in range(1200))
    status, headers = _get(f"{balanced.url}/heatmap?lang=zh&{many}&progress=AbC-12")
    assert status == 303
    assert headers["location"].endswith("/heatmap?lang=zh&progress=AbC-12")
    status, headers = _get(f"{balanced.url}/heatmap?{many}")
    assert status == 303 and headers["location"].endswith("/heatmap")
    status, _ = _get(f"{balanced.url}/heatmap?lang=zh&{'&'.join(f'x{i}=1' for i in range(900))}")
    assert status == 200  # under the limit: the link as it was


def test_a_frozen_worker_is_marked_down_and_new_students_go_elsewhere(balanced):
    """SIGSTOP: the worker's port still accepts connections but nothing answers. The health
    checks (1 s apart, 1 s to answer, down after 2) take it out within about 3 s; a newcomer's
    cookie then names the other worker."""
    frozen = balanced.worker("w1")
    assert balanced.status("w1").startswith("UP")
    os.kill(frozen["pid"], signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        while not balanced.status("w1").startswith("DOWN") and time.monotonic() - stopped < 20:
            time.sleep(0.1)
        down = time.monotonic() - stopped
        assert balanced.status("w1").startswith("DOWN"), balanced.status("w1")
        # 1 s apart, 1 s to answer, down after 2: about 3 s. The bound is loose (HAProxy shares a
        # busy machine too) but below what the old checks took (5 s to answer, down after 3: 18 s).
        print(f"frozen worker marked down after {down:.1f} s")
        assert down < 10, f"marked down after {down:.1f} s"
        for _ in range(4):  # every newcomer, not one by chance
            status, headers = _get(f"{balanced.url}/heatmap")
            assert status == 200 and "lab_worker=w2" in headers.get("set-cookie", ""), headers
    finally:
        os.kill(frozen["pid"], signal.SIGCONT)
    deadline = time.monotonic() + 20
    while not balanced.status("w1").startswith("UP") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert balanced.status("w1").startswith("UP")


class Sockets:
    """Every websocket a page opens, with the sizes of the frames it received on each."""

    def __init__(self, page):
        self.received: list[list[int]] = []
        page.on("websocket", self._opened)

    def _opened(self, ws) -> None:
        frames: list[int] = []
        self.received.append(frames)
        ws.on("framereceived", lambda payload: frames.append(len(payload)))


def test_a_page_comes_back_after_its_worker_dies(browser, balanced):
    context = browser.new_context(viewport={"width": 1280, "height": 1600}, locale="zh-CN")
    page = context.new_page()
    sockets = Sockets(page)

    open_page(page, f"{balanced.url}/heatmap?{QUERY}")
    assert exceptions(page) == []
    url, shown = page.url, chart_data(page)
    assert all(part in url for part in QUERY.split("&"))
    name = {c["name"]: c["value"] for c in context.cookies()}[COOKIE]
    victim = balanced.worker(name)
    assert len(sockets.received) == 1

    os.kill(victim["pid"], signal.SIGKILL)
    killed = time.monotonic()

    # Back: the browser opened a new websocket through HAProxy, the page ran again on the other
    # worker (frames arrived on the new socket), the run has finished and the charts are drawn.
    def came_back() -> bool:
        if len(sockets.received) < 2 or not sockets.received[-1]:
            return False
        if page.locator("[data-testid=stStatusWidget]").count():  # "Connecting", "Running"
            return False
        state = page.evaluate("() => document.querySelector('[data-testid=stApp]')?.dataset.testScriptState")
        return state == "notRunning" and chart_data(page) == shown

    while time.monotonic() - killed < RECONNECT_S:
        page.wait_for_timeout(100)  # lets Playwright deliver the websocket events
        if came_back():
            break
    back = time.monotonic() - killed
    assert len(sockets.received) > 1, "the browser did not reconnect"
    assert sockets.received[-1], "the browser reconnected, but the page did not run again on the live worker"
    assert back < RECONNECT_S, f"the page took {back:.1f} s to come back"
    wait_until_idle(page)
    assert page.url == url
    assert chart_data(page) == shown
    assert exceptions(page) == []
    now = {c["name"]: c["value"] for c in context.cookies()}[COOKIE]
    assert now != name, "HAProxy's cookie still names the dead worker"

    # The CSV behind the table, from the worker that now holds this session.
    page.get_by_text(t("heatmap.table_box", lang="zh")).first.click()  # the numbers, built when opened
    page.get_by_text(t("common.download_csv", lang="zh")).first.wait_for(timeout=20000)
    with page.expect_download() as download:
        page.get_by_text(t("common.download_csv", lang="zh")).first.click()
    data = Path(download.value.path()).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert len(rows) == 1 + 4  # a header and one row per token of "I saw a saw"
    context.close()

    # serve.py has started the dead worker again, on the same port.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not (balanced.worker(name)["starts"] == 2 and balanced.worker(name)["ready"]):
        time.sleep(0.5)
    again = balanced.worker(name)
    assert again["starts"] == 2 and again["ready"], again
    assert again["port"] == victim["port"] and again["pid"] != victim["pid"]
