"""Start Attention Lab for a class: N Streamlit workers behind HAProxy, restarted when they die.

    .venv/bin/python scripts/serve.py                         # one worker per core, on localhost:8501
    .venv/bin/python scripts/serve.py --workers 2 --host 0.0.0.0 --port 8080
    .venv/bin/python scripts/serve.py --print-config          # the HAProxy configuration it would use

`make serve WORKERS=N HOST=... PORT=...` runs this. One Streamlit process runs every session's
script under one GIL, so a class server runs one worker per core: each worker listens on a
loopback port, and HAProxy (Debian's `haproxy` package) listens on HOST:PORT in front of them,
with sticky sessions (a session's websocket and its downloads live in one worker's memory) and
health checks. With one worker, Streamlit itself listens on HOST:PORT and HAProxy is not needed.

A worker that dies is started again on the same port (after 1 s, longer if it keeps dying); its
students' browsers reconnect through HAProxy to a live worker, and since every control is in the
page's address, the page comes back as it was. Ctrl-C or SIGTERM stops HAProxy and every worker
and waits for them.

Every start generates a new cookie secret and gives it to the workers in their environment
(STREAMLIT_SERVER_COOKIE_SECRET), never in a file or on a command line that `ps` shows: every
worker must accept the cookies another one signed. When STREAMLIT_SERVER_COOKIE_SECRET is already
set (workers on several machines, docs/deploy.md), that one is used instead.

Several machines (docs/deploy.md): on each worker machine `--no-balancer --worker-address ADDR
--worker-ports 8601,8602`; on the front machine `--workers 0 --remote ADDR:8601 --remote ...`.

Standard library only: it starts before anything else and must not depend on the venv's packages.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import re
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "haproxy.cfg"
SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"
INSTALL_HINT = "sudo apt-get install haproxy"
# Where Debian puts haproxy: /usr/sbin, which is not on an ordinary user's PATH.
SBIN = ("/usr/sbin", "/usr/local/sbin", "/sbin")
FIRST_DELAY, MAX_DELAY = 1.0, 30.0  # seconds before a dead process is started again
STABLE = 30.0  # a process that ran this long before dying starts again after FIRST_DELAY
# Streamlit's start-up banner names the worker's own loopback address; students must use the
# balancer's, which this script prints instead.
BANNER = re.compile(r"^\s*$|You can now view your Streamlit app|^\s*(Local |Network |External )?URL: ")


def log(text: str) -> None:
    print(f"[serve] {text}", flush=True)


def find_haproxy() -> str | None:
    """$HAPROXY if set (another build, or a path that does not exist to try the message below),
    else haproxy on PATH or in the sbin directories."""
    if "HAPROXY" in os.environ:
        return shutil.which(os.environ["HAPROXY"])
    return shutil.which("haproxy") or shutil.which("haproxy", path=os.pathsep.join(SBIN))


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may use, not the machine's
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET) as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def host_port(host: str, port: int) -> str:
    """An address as HAProxy writes it: IPv6 in brackets. "localhost" becomes 127.0.0.1, the
    address Streamlit's own `--server.address localhost` listens on."""
    if host == "localhost":
        host = "127.0.0.1"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def render_config(template: str, bind: str, servers: list[tuple[str, str]], run_dir: str) -> str:
    """deploy/haproxy.cfg with its placeholders filled: servers are (name, "address:port"); a
    server's name is also its cookie value."""
    lines = "\n".join(f"    server {name} {address} cookie {name}" for name, address in servers)
    return template.replace("@BIND@", bind).replace("@SERVERS@", lines).replace("@RUN_DIR@", run_dir)


def _die_with_parent() -> None:
    """In the child, before exec: die when serve.py dies, even by SIGKILL, so that no worker
    outlives it holding its port (Linux; elsewhere a no-op). SIGKILL, not SIGTERM: a Streamlit
    worker whose output pipe has closed with serve.py fails in its own SIGTERM handler (it prints
    "Stopping...") and stays up."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _describe(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


@dataclass
class Child:
    """A process this script starts, watches and starts again."""

    name: str
    argv: list[str]
    env: dict[str, str]
    health_url: str | None = None  # polled until it answers 200: the child is ready
    proc: subprocess.Popen | None = None
    started: float = 0.0
    starts: int = 0
    ready: bool = False
    due: float = 0.0  # when to start it (again)
    delay: float = FIRST_DELAY
    buffer: bytes = b""
    after: list[Child] = field(default_factory=list)  # its first start waits until these are ready
    extra: dict = field(default_factory=dict)  # what the state file says about it

    def start(self, selector: selectors.BaseSelector) -> None:
        self.proc = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            # Its own process group: the terminal's Ctrl-C reaches only this script, which stops
            # HAProxy first and then the workers, and waits for each.
            start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
        self.started, self.ready, self.buffer = time.monotonic(), self.health_url is None, b""
        self.starts += 1
        os.set_blocking(self.proc.stdout.fileno(), False)
        selector.register(self.proc.stdout, selectors.EVENT_READ, self)
        if self.starts > 1:
            log(f"{self.name} started again (pid {self.proc.pid})")

    def relay(self, final: bool = False) -> None:
        """Copy the child's output to ours, one prefixed line at a time."""
        with contextlib.suppress(BlockingIOError, ValueError, OSError):
            while chunk := self.proc.stdout.read(65536):
                self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        if final and self.buffer:
            lines, self.buffer = [*lines, self.buffer], b""
        for raw in lines:
            line = raw.decode(errors="replace").rstrip()
            if self.name == "haproxy" or not BANNER.search(line):
                print(f"[{self.name}] {line}", flush=True)

    def check_health(self) -> None:
        if self.ready or self.proc is None:
            return
        with contextlib.suppress(OSError), urllib.request.urlopen(self.health_url, timeout=0.5) as r:
            self.ready = r.status == 200

    def state(self) -> dict:
        return {
            "name": self.name,
            "pid": self.proc.pid if self.proc else None,
            "starts": self.starts,
            "ready": self.ready,
            **self.extra,
        }


class Supervisor:
    def __init__(self, children: list[Child], run_dir: Path, url: str, on_ready: str):
        self.children = children
        self.run_dir = run_dir
        self.url = url
        self.on_ready = on_ready
        self.selector = selectors.DefaultSelector()
        self.stopping = False
        self.announced = False
        self._last_state = None

    def _stop(self, signum, _frame) -> None:
        if not self.stopping:
            log(f"{signal.Signals(signum).name}: stopping {', '.join(c.name for c in self.children)}")
        self.stopping = True

    def write_state(self) -> None:
        """run_dir/state.json: who is running where (pids, ports), for the benchmarks and the
        tests that kill a worker on purpose. Never the cookie secret."""
        ready = all(c.ready for c in self.children)
        state = {"pid": os.getpid(), "url": self.url, "ready": ready, "children": [c.state() for c in self.children]}
        if state != self._last_state:
            tmp = self.run_dir / "state.json.tmp"
            tmp.write_text(json.dumps(state, indent=1))
            tmp.replace(self.run_dir / "state.json")
            self._last_state = state
        if ready and not self.announced:
            self.announced = True
            log(self.on_ready)

    def run(self) -> int:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, self._stop)
        try:
            while not self.stopping:
                self._tick()
        finally:
            self.shutdown()
        return 0

    def _tick(self) -> None:
        now = time.monotonic()
        for child in self.children:
            if child.proc is None and now >= child.due and (child.starts or all(c.ready for c in child.after)):
                child.start(self.selector)
            elif child.proc is not None and child.proc.poll() is not None:
                self._died(child, now)
        for key, _ in self.selector.select(timeout=0.2):
            key.data.relay()
        for child in self.children:
            child.check_health()
        self.write_state()

    def _died(self, child: Child, now: float) -> None:
        child.relay(final=True)
        self.selector.unregister(child.proc.stdout)
        child.proc.stdout.close()
        lived = now - child.started
        child.delay = FIRST_DELAY if lived >= STABLE or child.starts == 1 else min(child.delay * 2, MAX_DELAY)
        log(
            f"{child.name} (pid {child.proc.pid}) died after {lived:.0f} s, {_describe(child.proc.returncode)}; "
            f"starting it again in {child.delay:.0f} s"
        )
        child.proc, child.ready, child.due = None, False, now + child.delay

    def shutdown(self) -> None:
        """SIGTERM to HAProxy (first: no new connections to half-stopped workers), then to every
        worker at once; wait up to 10 s each, then SIGKILL."""
        for group in ([c for c in self.children if c.name == "haproxy"], self.children):
            running = [c for c in group if c.proc is not None and c.proc.poll() is None]
            for child in running:
                with contextlib.suppress(ProcessLookupError):
                    child.proc.terminate()
            for child in running:
                try:
                    child.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    log(f"{child.name} did not stop within 10 s: SIGKILL")
                    child.proc.kill()
                    child.proc.wait()
        for child in self.children:
            if child.proc is not None:
                child.relay(final=True)
                child.proc.stdout.close()
                child.proc = None
        self.write_state()
        log("stopped")


def worker_argv(app: str, address: str, port: int, extra: list[str]) -> list[str]:
    """A worker as `make serve` always started Streamlit: headless (no browser opened), no file
    watcher (no reruns when files change, no inotify cost), no usage statistics."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        app,
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--server.address",
        address,
        "--server.port",
        str(port),
        *extra,
    ]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=None, help="Streamlit workers (default: one per core)")
    parser.add_argument("--host", default="localhost", help="where students connect (0.0.0.0: the room's network)")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--app", default="app.py", help="the Streamlit script the workers run")
    parser.add_argument("--worker-address", default="127.0.0.1", help="the address the workers listen on")
    parser.add_argument("--worker-ports", default=None, help="comma-separated (default: free ports, chosen at start)")
    parser.add_argument(
        "--remote",
        action="append",
        default=[],
        metavar="ADDRESS:PORT",
        help="a worker on another machine, for HAProxy to use too (repeatable)",
    )
    parser.add_argument("--no-balancer", action="store_true", help="workers only: a worker machine")
    parser.add_argument("--run-dir", help="where the HAProxy config and state.json go (default: a temporary directory)")
    parser.add_argument("--print-config", action="store_true", help="print the HAProxy configuration and exit")
    parser.add_argument("streamlit_args", nargs="*", help="after --: more flags for every worker")
    args = parser.parse_args(argv)
    if args.workers is None:
        args.workers = 0 if args.remote else cores()
    if args.workers < 0 or (args.workers == 0 and not args.remote):
        parser.error("--workers must be at least 1 (or 0 with --remote workers on other machines)")
    if args.worker_ports:
        args.worker_ports = [int(p) for p in args.worker_ports.split(",")]
        if len(args.worker_ports) != args.workers:
            parser.error(f"--worker-ports lists {len(args.worker_ports)} ports for {args.workers} workers")
    if args.no_balancer and args.remote:
        parser.error("--no-balancer runs workers only; --remote is for the machine that runs HAProxy")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    balanced = not args.no_balancer and (args.workers > 1 or bool(args.remote))
    haproxy = find_haproxy() if balanced else None
    if balanced and haproxy is None:
        print(
            f"HAProxy is not installed. `make serve` with {args.workers} workers puts it in front of them "
            f"(one Streamlit process uses one core).\nInstall it with:  {INSTALL_HINT}\n"
            "or start a single worker without it:  make serve WORKERS=1",
            file=sys.stderr,
        )
        return 1

    own_dir = args.run_dir is None
    run_dir = Path(args.run_dir or tempfile.mkdtemp(prefix="attention-lab-"))
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "state.json").unlink(missing_ok=True)  # a previous run's would say "ready"
    try:
        return _serve(args, balanced, haproxy, run_dir)
    finally:
        if own_dir:
            shutil.rmtree(run_dir, ignore_errors=True)


def _serve(args: argparse.Namespace, balanced: bool, haproxy: str | None, run_dir: Path) -> int:
    if balanced or args.no_balancer:
        address = args.worker_address
        ports = args.worker_ports or [free_port(address) for _ in range(args.workers)]
    else:  # one worker and no HAProxy: Streamlit itself on HOST:PORT, as `make serve` always did
        address, ports = args.host, [args.port]
    local = [(f"w{i + 1}", host_port(address, port)) for i, port in enumerate(ports)]
    servers = local + [(f"r{i + 1}", remote) for i, remote in enumerate(args.remote)]

    config = render_config(TEMPLATE.read_text(), host_port(args.host, args.port), servers, str(run_dir))
    if args.print_config:
        print(config, end="")
        return 0

    env = dict(os.environ)
    if args.no_balancer and SECRET_ENV not in env:
        log(
            f"warning: {SECRET_ENV} is not set, so these workers get a secret of their own; workers on "
            "several machines behind one HAProxy must share one (docs/deploy.md)"
        )
    env.setdefault(SECRET_ENV, secrets.token_hex(32))
    children = [
        Child(
            name,
            worker_argv(args.app, address, port, args.streamlit_args),
            env,
            _health(address, port),
            extra={"address": address, "port": port},
        )
        for (name, _), port in zip(local, ports, strict=True)
    ]
    url = "http://" + host_port(args.host, args.port).replace("127.0.0.1", args.host)
    if balanced:
        cfg = run_dir / "haproxy.cfg"
        cfg.write_text(config)
        check = subprocess.run([haproxy, "-c", "-f", str(cfg)], capture_output=True, text=True)
        if check.returncode != 0:
            print(f"HAProxy rejects the configuration {cfg}:\n{check.stdout}{check.stderr}", file=sys.stderr)
            return 1
        # The balancer is ready when its own address answers the health check through a worker.
        children.append(
            Child(
                "haproxy",
                [haproxy, "-db", "-f", str(cfg)],
                dict(os.environ),
                _health(args.host, args.port),
                after=list(children),  # no "no server available" alarms while workers start
                extra={"config": str(cfg), "socket": str(run_dir / "haproxy.sock")},
            )
        )
        where = ", ".join(f"{name} {address}" for name, address in servers)
        ready = f"Attention Lab is at {url}  (HAProxy in front of {where}). Ctrl-C stops it."
    elif args.no_balancer:
        ready = f"Workers ready on {', '.join(a for _, a in local)} (no balancer here). Ctrl-C stops them."
    else:
        ready = f"Attention Lab is at {url}  (one worker, no balancer). Ctrl-C stops it."
    log(f"run directory {run_dir}; starting {', '.join(c.name for c in children)}")
    return Supervisor(children, run_dir, url, ready).run()


def _health(address: str, port: int) -> str:
    """Streamlit's health check on an address this machine can reach (a wildcard means itself)."""
    if address in ("0.0.0.0", "", "*"):
        address = "127.0.0.1"
    elif address == "::":
        address = "::1"
    return f"http://{host_port(address, port)}/_stcore/health"


if __name__ == "__main__":
    sys.exit(main())
