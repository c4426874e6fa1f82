"""Real-browser tests: Debian's Chromium driven by Playwright, against the app started on a free
loopback port. Without Chromium they skip with the reason, except under CI=true, where a missing
browser is a failure (CI must always run them)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _missing(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run)", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(port: int, *extra: str) -> subprocess.Popen:
    """Start the app as `make serve` does, on 127.0.0.1:port; returns once it answers."""
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        *extra,
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the app did not answer within 60 s")


@pytest.fixture(scope="session")
def app_url():
    port = free_port()
    proc = start_app(port)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser():
    chromium = find_chromium()
    if chromium is None:
        _missing("Chromium not found (install Debian's chromium, or set CHROMIUM=/path/to/chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright for Python is not installed (make test installs it)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def haproxy() -> str:
    """HAProxy, which `make serve` puts in front of its workers (tests/e2e/test_balancer.py);
    missing, it skips the test, or fails it under CI=true."""
    from scripts.serve import INSTALL_HINT, find_haproxy

    path = find_haproxy()
    if path is None:
        _missing(f"HAProxy not found (install it with: {INSTALL_HINT})")
    return path
