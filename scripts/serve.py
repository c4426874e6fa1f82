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

Failing loudly (issue 25 #5): HOST:PORT already in use (a second `make serve`, another program)
is refused at start with a message, exit code 2. A worker port given with --worker-ports that is
taken is refused the same way; a free port chosen here that another program takes while its
worker is down is replaced by a new free one, and HAProxy is told (its stats socket). HAProxy
starts as soon as one worker answers its health check, and serves with the workers that are
up. A child that dies is named with what it last said; HAProxy that dies three times without
ever serving stops everything, exit code 1, with its own words.

Memory (issue 25 #1): --memory-mb M (`make serve MEMORY_MB=M`) is each worker's ceiling. The
worker's cache gets a third of it (ATTENTION_LAB_CACHE_MB, lab_ui/cache.py: entries beyond it
are dropped, least recently used first), and this script reads every worker's resident memory
each second; a worker over M for 3 s in a row is restarted (SIGTERM, then started again), which
gives back everything it held: its students reconnect to another worker and get their page
back from its address, as when a worker dies. A worker without sessions for 90 s (its own
/_stcore/metrics) that still holds over M/2 is restarted too: nobody is there to notice, and the
next lecture starts from a small process. bench/soak.py measures it (docs/performance.md).

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
GIVE_UP = 3  # HAProxy that died this many times without ever serving: stop, with its reason
CACHE_SHARE = 3  # --memory-mb M gives each worker's cache M / CACHE_SHARE
OVER_FOR = 3  # samples (1 s apart) a worker may stay over --memory-mb before it is restarted
# A worker nobody has used for this long that still holds over half its --memory-mb is restarted:
# what the cache keeps of slow runs (30 min, lab_ui/cache.py) and what glibc does not hand back
# would otherwise stay with it until the next lecture.
IDLE_RESTART_S = 90.0
STOP_WAIT = 5.0  # seconds a worker stopped for memory has to exit before SIGKILL
IDLE_SHARE = 0.5
SESSIONS = re.compile(r"^active_sessions\s+(\d+)", re.MULTILINE)  # Streamlit's /_stcore/metrics
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


def port_taken(host: str, port: int) -> str | None:
    """Why HOST:PORT cannot be listened on (another process listens there), or None. Bound as
    HAProxy and Streamlit bind (SO_REUSEADDR, no SO_REUSEPORT) and listened on: a socket that
    only waits out TIME_WAIT does not count, another listener does, whoever it is."""
    address = "127.0.0.1" if host == "localhost" else host
    with socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((address, port))
            s.listen(1)
        except OSError as error:
            return error.strerror or str(error)
    return None


def rss_mb(pid: int) -> float | None:
    """A process's resident memory in MB (Linux /proc), None when it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def haproxy_command(sock: str, command: str) -> str:
    """One command on HAProxy's stats socket (deploy/haproxy.cfg), its answer."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        s.connect(sock)
        s.sendall(command.encode() + b"\n")
        return b"".join(iter(lambda: s.recv(65536), b"")).decode(errors="replace")


def host_port(host: str, port: int) -> str:
    """An address as HAProxy writes it: IPv6 in brackets. "localhost" becomes 127.0.0.1, the
    address Streamlit's own `--server.address localhost` listens on."""
    if host == "localhost":
        host = "127.0.0.1"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def render_config(template: str, bind: str, servers: list[tuple[str, str]], run_dir: str) -> str:
    """deploy/haproxy.cfg with its placeholders filled: servers are (name, "address:port"); a
    server's name is also its cookie value. The first one is listed again as an unchecked backup:
    HAProxy sends new students there only when every worker has missed its health checks (a
    hall too busy to answer within a second), where it would otherwise answer 503."""
    lines = [f"    server {name} {address} cookie {name}" for name, address in servers]
    if servers:
        name, address = servers[0]
        lines.append(f"    server {name}-any {address} cookie {name} backup no-check")
    lines = "\n".join(lines)
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
    after: list[Child] = field(default_factory=list)  # its first start waits until one of these is ready
    extra: dict = field(default_factory=dict)  # what the state file says about it
    said: list[str] = field(default_factory=list)  # its last lines of output: why it died
    failures: int = 0  # deaths in a row without having been ready in between
    over: int = 0  # samples in a row over the memory ceiling
    restarting: str = ""  # why this script stopped it (it is started again at once)
    stop_sent: float = 0.0  # when it got SIGTERM for that; SIGKILL after STOP_WAIT
    idle_since: float | None = None  # since when its metrics have said "no sessions" (None: it has some)

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
                self.said = [*self.said[-4:], line]

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

    def last_words(self) -> str:
        said = [line.strip() for line in self.said if line.strip()]
        return f'; it last said: "{said[-1]}"' if said else ""


class Supervisor:
    def __init__(
        self,
        children: list[Child],
        run_dir: Path,
        url: str,
        on_ready: str,
        memory_mb: float | None = None,
        auto_ports: bool = False,
    ):
        self.children = children
        self.run_dir = run_dir
        self.url = url
        self.on_ready = on_ready
        self.memory_mb = memory_mb
        self.auto_ports = auto_ports  # worker ports chosen here: a taken one may be replaced
        self.selector = selectors.DefaultSelector()
        self.stopping = False
        self.announced = False
        self.exit_code = 0
        self._last_state = None
        self._last_sample = 0.0

    def _stop(self, signum, _frame) -> None:
        if not self.stopping:
            log(f"{signal.Signals(signum).name}: stopping {', '.join(c.name for c in self.children)}")
        self.stopping = True

    @property
    def front(self) -> Child | None:
        return next((c for c in self.children if c.name == "haproxy"), None)

    def serving(self) -> bool:
        """Students can connect: HAProxy answers (through a worker), or the one worker does."""
        front = self.front
        return front.ready if front is not None else any(c.ready for c in self.children)

    def write_state(self) -> None:
        """run_dir/state.json: who is running where (pids, ports), for the benchmarks and the
        tests that kill a worker on purpose. Never the cookie secret. "ready": everything is up;
        "serving": students can connect (HAProxy and at least one worker)."""
        ready = all(c.ready for c in self.children)
        state = {
            "pid": os.getpid(),
            "url": self.url,
            "ready": ready,
            "serving": self.serving(),
            "children": [c.state() for c in self.children],
        }
        if state != self._last_state:
            tmp = self.run_dir / "state.json.tmp"
            tmp.write_text(json.dumps(state, indent=1))
            tmp.replace(self.run_dir / "state.json")
            self._last_state = state
        if state["serving"] and not self.announced:
            self.announced = True
            down = [c.name for c in self.children if c.name != "haproxy" and not c.ready]
            log(self.on_ready + (f" Not up yet: {', '.join(down)}; they join when they answer." if down else ""))

    def run(self) -> int:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, self._stop)
        try:
            while not self.stopping:
                self._tick()
        finally:
            self.shutdown()
        return self.exit_code

    def _tick(self) -> None:
        now = time.monotonic()
        for child in self.children:
            waits = child.after and not any(c.ready for c in child.after)
            if child.proc is None and now >= child.due and (child.starts or not waits):
                if self._port_ready(child):
                    child.start(self.selector)
            elif child.proc is not None and child.proc.poll() is not None:
                self._died(child, now)
        for key, _ in self.selector.select(timeout=0.2):
            key.data.relay()
        for child in self.children:
            child.check_health()
        if self.memory_mb and now - self._last_sample >= 1.0:
            self._last_sample = now
            self._watch_memory()
        self.write_state()

    def _port_ready(self, child: Child) -> bool:
        """Before a worker starts (again): is its port free? Taken by another program while the
        worker was down, a port this script chose is replaced by a free one, and HAProxy is told;
        a port the operator gave is waited for, with a message."""
        port = child.extra.get("port")
        if port is None or child.name == "haproxy" or not (why := port_taken(child.extra["address"], port)):
            return True
        if not self.auto_ports:
            log(f"{child.name}: port {port} is taken by another program ({why}); trying again in {MAX_DELAY:.0f} s")
            child.due = time.monotonic() + MAX_DELAY
            return False
        new = free_port(child.extra["address"])
        log(f"{child.name}: port {port} is taken by another program ({why}); {child.name} moves to port {new}")
        child.argv[child.argv.index(str(port), child.argv.index("--server.port"))] = str(new)
        child.extra["port"], child.health_url = new, _health(child.extra["address"], new)
        front = self.front
        if front is not None and front.proc is not None:
            try:
                where = f"addr {child.extra['address']} port {new}"
                answer = haproxy_command(front.extra["socket"], f"set server workers/{child.name} {where}")
                log(f"HAProxy: {answer.strip() or 'ok'}")
            except OSError as error:
                log(f"HAProxy could not be told about {child.name}'s new port ({error}); it stays down there")
        return True

    def _watch_memory(self) -> None:
        for child in self.children:
            if child.restarting and child.proc is not None and time.monotonic() - child.stop_sent > STOP_WAIT:
                # Seen here: a worker whose script threads were busy stayed up after SIGTERM, holding 2.5 GB.
                log(f"{child.name} (pid {child.proc.pid}) did not stop within {STOP_WAIT:.0f} s of SIGTERM: SIGKILL")
                with contextlib.suppress(ProcessLookupError):
                    child.proc.kill()
            if child.name == "haproxy" or child.proc is None or child.restarting:
                continue
            mb = rss_mb(child.proc.pid)
            child.extra["rss_mb"] = round(mb) if mb is not None else None
            child.over = child.over + 1 if mb is not None and mb > self.memory_mb else 0
            if child.over >= OVER_FOR:
                child.restarting = f"it used {mb:.0f} MB, over the ceiling of {self.memory_mb:.0f} MB"
                log(f"{child.name} (pid {child.proc.pid}): {child.restarting} for {OVER_FOR} s: restarting it")
            elif mb is None or mb <= IDLE_SHARE * self.memory_mb:
                child.idle_since = None  # small enough: its sessions are not even asked about
            elif self._idle_for(child) >= IDLE_RESTART_S:
                child.restarting = (
                    f"no sessions for {IDLE_RESTART_S:.0f} s, and it held {mb:.0f} MB, over half its ceiling"
                )
                log(f"{child.name} (pid {child.proc.pid}): {child.restarting}: restarting it to give that back")
            if child.restarting:
                child.stop_sent = time.monotonic()
                with contextlib.suppress(ProcessLookupError):
                    child.proc.terminate()

    def _idle_for(self, child: Child) -> float:
        """Seconds since the worker's sessions went to none (Streamlit's active_sessions, on its
        own loopback port), 0 while it has some; a metrics request that fails changes nothing."""
        if not child.ready or child.health_url is None:
            return 0.0
        now = time.monotonic()
        try:
            url = child.health_url.replace("/_stcore/health", "/_stcore/metrics")
            with urllib.request.urlopen(url, timeout=2) as r:
                found = SESSIONS.search(r.read().decode(errors="replace"))
        except OSError:  # no answer this time (a busy machine): not a sign of students either way
            return now - child.idle_since if child.idle_since else 0.0
        if found is None or int(found.group(1)) > 0:
            child.idle_since = None
            return 0.0
        child.idle_since = child.idle_since or now
        return now - child.idle_since

    def _died(self, child: Child, now: float) -> None:
        child.relay(final=True)
        self.selector.unregister(child.proc.stdout)
        child.proc.stdout.close()
        lived = now - child.started
        pid, code, was_ready = child.proc.pid, child.proc.returncode, child.ready
        child.proc, child.ready = None, False
        if child.restarting:  # stopped here on purpose (memory): started again at once
            log(f"{child.name} (pid {pid}) stopped ({child.restarting}); starting it again")
            child.restarting, child.over, child.due, child.delay = "", 0, now, FIRST_DELAY
            child.idle_since = None
            return
        child.failures = 0 if was_ready else child.failures + 1
        if child.name == "haproxy" and child.failures >= GIVE_UP:
            log(
                f"HAProxy died {child.failures} times in a row without serving "
                f"({_describe(code)}){child.last_words()}. "
                "Stopping: students could not connect. The whole output is above."
            )
            self.stopping, self.exit_code = True, 1
            return
        child.delay = FIRST_DELAY if lived >= STABLE or child.starts == 1 else min(child.delay * 2, MAX_DELAY)
        log(
            f"{child.name} (pid {pid}) died after {lived:.0f} s, {_describe(code)}{child.last_words()}; "
            f"starting it again in {child.delay:.0f} s"
        )
        child.due = now + child.delay

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


def worker_env(args: argparse.Namespace) -> dict[str, str]:
    """The workers' environment: ours, and with --memory-mb their cache's bound
    (ATTENTION_LAB_CACHE_MB, lab_ui/cache.py), a share of the ceiling: the rest is the
    interpreter, the libraries and the model (about 170 MB), and what sessions and a run hold."""
    env = dict(os.environ)
    if args.memory_mb:
        env["ATTENTION_LAB_CACHE_MB"] = f"{args.memory_mb / CACHE_SHARE:.0f}"
    return env


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
    parser.add_argument(
        "--memory-mb",
        type=float,
        default=None,
        help=f"each worker's memory ceiling: its cache gets 1/{CACHE_SHARE}, and a worker over it is restarted",
    )
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
    if args.memory_mb is not None and args.memory_mb < 256:
        parser.error("--memory-mb must be at least 256 (a worker with nothing cached takes about 170 MB)")
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
    if refused := _ports_in_use(args, address, ports):
        print(refused, file=sys.stderr)
        return 2

    env = worker_env(args)
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
                after=list(children),  # once one worker answers: serve with the workers that are up
                extra={"config": str(cfg), "socket": str(run_dir / "haproxy.sock")},
            )
        )
        where = ", ".join(f"{name} {address}" for name, address in servers)
        ready = f"Attention Lab is at {url}  (HAProxy in front of {where}). Ctrl-C stops it."
    elif args.no_balancer:
        ready = f"Workers ready on {', '.join(a for _, a in local)} (no balancer here). Ctrl-C stops them."
    else:
        ready = f"Attention Lab is at {url}  (one worker, no balancer). Ctrl-C stops it."
    if args.memory_mb:
        log(
            f"memory ceiling {args.memory_mb:.0f} MB per worker (cache {env['ATTENTION_LAB_CACHE_MB']} MB); "
            "a worker over it for 3 s is restarted"
        )
    log(f"run directory {run_dir}; starting {', '.join(c.name for c in children)}")
    auto = (balanced or args.no_balancer) and not args.worker_ports
    return Supervisor(children, run_dir, url, ready, memory_mb=args.memory_mb, auto_ports=auto).run()


def _ports_in_use(args: argparse.Namespace, address: str, ports: list[int]) -> str | None:
    """The message for ports another process listens on, or None. HOST:PORT taken is a second
    `make serve` or another program: refused (two HAProxy processes on one port split the
    students between two sets of workers). A worker port given with --worker-ports: refused too;
    ports chosen here were free a moment ago."""
    front = [] if args.no_balancer else [(args.host, args.port)]
    workers = [(address, port) for port in ports] if args.worker_ports else []
    taken = [(host, port, why) for host, port in front + workers if (why := port_taken(host, port))]
    if not taken:
        return None
    lines = [f"Port {port} on {host} is in use ({why})." for host, port, why in taken]
    if front and taken[0][:2] == front[0]:
        lines.append(
            f"Another `make serve` or another program listens there: `ss -ltnp 'sport = :{args.port}'` says which. "
            "Stop it, or choose another port: make serve PORT=..."
        )
    else:
        lines.append("Choose other --worker-ports, or leave them out: free ones are chosen then.")
    return "\n".join(lines)


def _health(address: str, port: int) -> str:
    """Streamlit's health check on an address this machine can reach (a wildcard means itself)."""
    if address in ("0.0.0.0", "", "*"):
        address = "127.0.0.1"
    elif address == "::":
        address = "::1"
    return f"http://{host_port(address, port)}/_stcore/health"


if __name__ == "__main__":
    sys.exit(main())
