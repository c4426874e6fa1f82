"""What the benchmarks share: starting a server of our own, reading its memory, summarising times,
launching Debian's Chromium the way the e2e tests do."""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BARE_APP = "bench/bare_slider_app.py"

# The flags of tests/e2e/conftest.py: headless, and nothing that talks to other hosts.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]

# Other engineers' servers live on 8501-8519; ours stay in this range so that a stray one is
# easy to recognise (and to stop by its id).
PORTS = range(8520, 8541)


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # all taken: any port the system gives us
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A Streamlit server this benchmark started; stop() ends it (and only it)."""

    proc: subprocess.Popen
    port: int
    started: float  # time.perf_counter() just before the process was spawned
    ready: float = 0.0  # when /_stcore/health first answered
    flags: Sequence[str] = field(default_factory=tuple)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss_mb(self) -> float:
        return rss_mb(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def server_command(script: str, port: int, flags: Sequence[str] = ()) -> list[str]:
    """The production start (as tests/e2e start it): headless, no file watcher, no statistics."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
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
        *flags,
    ]


def start_server(script: str = "app.py", flags: Sequence[str] = (), timeout: float = 60) -> Server:
    """Start `script` on a free port and return once /_stcore/health answers. The health check
    is polled every 20 ms, so `ready - started` is the server's own start-up time."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}  # only our flags count
    started = time.perf_counter()
    proc = subprocess.Popen(
        server_command(script, port, flags), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    server = Server(proc, port, started, flags=tuple(flags))
    deadline = started + timeout
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{script} exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    server.ready = time.perf_counter()
                    return server
        except OSError:
            time.sleep(0.02)
    server.stop()
    raise RuntimeError(f"{script} did not answer within {timeout:.0f} s")


def gc_flags(gc: str) -> list[str]:
    """--gc on|off|config -> the server flag for runner.postScriptGC ("config": leave it to config.toml)."""
    if gc == "config":
        return []
    return ["--runner.postScriptGC", "true" if gc == "on" else "false"]


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc (Linux): what the machine actually spends on it."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sample."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def summary(times: Sequence[float], unit: str = "ms") -> str:
    if not times:
        return "no samples"
    return f"median {statistics.median(times):7.1f} {unit}   p95 {percentile(times, 95):7.1f} {unit}   (n={len(times)})"


def machine_line() -> str:
    """Cores and load average, printed with every result: a figure means little without them."""
    one, five, fifteen = os.getloadavg()
    return f"machine: {os.cpu_count()} cores, load average {one:.2f} {five:.2f} {fifteen:.2f}"


def find_chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def launch_chromium(playwright):
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("Chromium not found (install Debian's chromium, or set CHROMIUM=/path/to/chromium)")
    return playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)


def page_url_path(name: str) -> str:
    """A page given as url path ("heatmap"), script ("pages/heatmap.py") or namespace -> url path."""
    from lab_ui.registry import HOME, PAGES

    for info in (HOME, *PAGES):
        if name in (info.url_path, info.path, info.ns):
            return info.url_path
    raise SystemExit(f"no page {name!r}; pages: {', '.join(p.url_path for p in PAGES) or '(none yet)'}")


def registered(url_path: str) -> bool:
    from lab_ui.registry import PAGES

    return any(p.url_path == url_path for p in PAGES)
