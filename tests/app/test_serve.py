"""scripts/serve.py fails loudly and serves with what it has (issue 25 #5), and keeps a worker
under its memory ceiling (#1): a port in use is refused with a message, a worker port taken
while its worker is down is replaced, HAProxy starts once one worker answers, HAProxy that
cannot start stops everything with its reason, a worker over --memory-mb is restarted.

The Supervisor's tests run small stand-ins (a static HTTP server answering /_stcore/health,
Python one-liners) instead of Streamlit and HAProxy: what is tested is serve.py's logic, in a
few seconds; tests/e2e/test_balancer.py runs the real thing."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts import serve

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


@pytest.fixture
def listener():
    """A socket listening on a free loopback port, as another program would."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        yield s.getsockname()[1]


def _serve(*args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "scripts/serve.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_a_port_in_use_is_refused_with_a_message(listener):
    """Before: one worker started on the taken port and was started again forever."""
    done = _serve("--workers", "1", "--host", "127.0.0.1", "--port", str(listener))
    assert done.returncode == 2
    assert f"Port {listener} on 127.0.0.1 is in use" in done.stderr
    assert "make serve PORT=" in done.stderr


def test_a_second_serve_on_the_balancers_port_is_refused(listener):
    if serve.find_haproxy() is None:
        pytest.skip("HAProxy is not installed")
    done = _serve("--workers", "2", "--host", "127.0.0.1", "--port", str(listener))
    assert done.returncode == 2 and f"Port {listener}" in done.stderr


def test_a_worker_port_given_and_taken_is_named(listener):
    free = serve.free_port()
    done = _serve("--no-balancer", "--workers", "2", "--worker-ports", f"{free},{listener}")
    assert done.returncode == 2
    assert f"Port {listener} on 127.0.0.1 is in use" in done.stderr
    assert f"Port {free}" not in done.stderr


def test_the_config_has_a_backup_for_a_hall_whose_workers_all_miss_their_checks(tmp_path):
    config = serve.render_config(
        serve.TEMPLATE.read_text(), "127.0.0.1:8501", [("w1", "127.0.0.1:1"), ("w2", "127.0.0.1:2")], str(tmp_path)
    )
    servers = [line.split() for line in config.splitlines() if line.strip().startswith("server ")]
    assert servers[-1] == ["server", "w1-any", "127.0.0.1:1", "cookie", "w1", "backup", "no-check"]
    assert "option httpchk GET /_stcore/health" in config or "uri /_stcore/health" in config
    haproxy = serve.find_haproxy()
    if haproxy is not None:  # HAProxy itself accepts it
        (tmp_path / "h.cfg").write_text(config)
        check = subprocess.run([haproxy, "-c", "-f", str(tmp_path / "h.cfg")], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr


def test_port_taken_sees_a_listener_only(listener):
    assert serve.port_taken("127.0.0.1", listener)
    assert serve.port_taken("127.0.0.1", serve.free_port()) is None


# --- the Supervisor, with stand-ins -------------------------------------------------------------


def _healthy_worker(tmp_path: Path, name: str) -> serve.Child:
    """A static HTTP server whose /_stcore/health answers 200, as Streamlit's does."""
    (tmp_path / "_stcore").mkdir(exist_ok=True)
    (tmp_path / "_stcore" / "health").write_text("ok")
    port = serve.free_port()
    argv = [PY, "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(tmp_path), str(port)]
    return serve.Child(name, argv, {}, serve._health("127.0.0.1", port), extra={"address": "127.0.0.1", "port": port})


def _silent_worker(name: str) -> serve.Child:
    """A worker that never answers its health check (stuck starting, or its port went elsewhere)."""
    port = serve.free_port()
    argv = [PY, "-c", "import time; time.sleep(60)"]
    return serve.Child(name, argv, {}, serve._health("127.0.0.1", port), extra={"address": "127.0.0.1", "port": port})


def _run(supervisor: serve.Supervisor, until, timeout_s: float) -> float:
    """Tick the supervisor (as run() does, without its signal handlers) until a condition holds."""
    start = time.monotonic()
    try:
        while not until() and not supervisor.stopping and time.monotonic() - start < timeout_s:
            supervisor._tick()
    finally:
        supervisor.shutdown()
    return time.monotonic() - start


def test_haproxy_starts_once_one_worker_answers(tmp_path):
    """Before: HAProxy waited for every worker, so one that never came up kept the site down."""
    up, stuck = _healthy_worker(tmp_path, "w1"), _silent_worker("w2")
    front = serve.Child("haproxy", [PY, "-c", "import time; time.sleep(60)"], {}, None, after=[up, stuck])
    supervisor = serve.Supervisor([up, stuck, front], tmp_path, "http://x", "serving")
    _run(supervisor, lambda: front.proc is not None, 20)
    assert front.starts == 1 and up.ready and not stuck.ready


def test_haproxy_that_cannot_start_stops_everything_and_says_why(tmp_path, capsys):
    """Before: serve.py started HAProxy again forever, and the site was down without a word."""
    said = "[ALERT] (1) : Starting frontend attention_lab: cannot bind socket (Address in use) [127.0.0.1:8501]"
    front = serve.Child("haproxy", [PY, "-c", f"import sys; print({said!r}); sys.exit(1)"], {}, "http://127.0.0.1:9/")
    supervisor = serve.Supervisor([front], tmp_path, "http://x", "serving")
    _run(supervisor, lambda: False, 30)
    assert supervisor.stopping and supervisor.exit_code == 1
    assert front.starts == serve.GIVE_UP
    out = capsys.readouterr().out
    assert f"HAProxy died {serve.GIVE_UP} times in a row without serving" in out and "cannot bind socket" in out


def test_a_worker_port_taken_while_it_is_down_is_replaced(tmp_path, listener):
    worker = serve.Child(
        "w1",
        [PY, "-c", "import time; time.sleep(60)", "--server.port", str(listener)],
        {},
        serve._health("127.0.0.1", listener),
        extra={"address": "127.0.0.1", "port": listener},
    )
    supervisor = serve.Supervisor([worker], tmp_path, "http://x", "serving", auto_ports=True)
    _run(supervisor, lambda: worker.proc is not None, 10)
    new = worker.extra["port"]
    assert new != listener and worker.argv[-1] == str(new) and str(new) in worker.health_url
    assert serve.port_taken("127.0.0.1", new) is None  # free for the worker (this stand-in does not bind)


def test_a_worker_port_given_and_taken_later_is_waited_for(tmp_path, listener, capsys):
    worker = serve.Child("w1", [PY, "-c", "pass"], {}, None, extra={"address": "127.0.0.1", "port": listener})
    supervisor = serve.Supervisor([worker], tmp_path, "http://x", "serving", auto_ports=False)
    _run(supervisor, lambda: False, 1)
    assert worker.starts == 0 and worker.extra["port"] == listener
    assert f"port {listener} is taken by another program" in capsys.readouterr().out


def test_a_worker_over_its_memory_ceiling_is_restarted(tmp_path, capsys):
    """300 MB held (touched, so resident) against a 256 MB ceiling: stopped and started again."""
    hog = "import time; x = b'x' * (300 * 2**20); time.sleep(60)"
    worker = serve.Child("w1", [PY, "-c", hog], {}, None)
    supervisor = serve.Supervisor([worker], tmp_path, "http://x", "serving", memory_mb=256)
    _run(supervisor, lambda: worker.starts >= 2, 30)
    assert worker.starts >= 2
    out = capsys.readouterr().out
    assert "over the ceiling of 256 MB" in out and "restarting it" in out


def test_a_worker_under_its_memory_ceiling_is_left_alone(tmp_path):
    worker = serve.Child("w1", [PY, "-c", "import time; time.sleep(60)"], {}, None)
    supervisor = serve.Supervisor([worker], tmp_path, "http://x", "serving", memory_mb=256)
    _run(supervisor, lambda: False, 5)
    assert worker.starts == 1 and 0 < worker.extra["rss_mb"] < 256


def test_memory_mb_gives_the_cache_its_share(monkeypatch):
    """--memory-mb's share for the cache, in the workers' environment; without it, the cache's
    own default."""
    monkeypatch.delenv("ATTENTION_LAB_CACHE_MB", raising=False)
    env = serve.worker_env(serve.parse_args(["--workers", "2", "--memory-mb", "900"]))
    assert env["ATTENTION_LAB_CACHE_MB"] == str(900 // serve.CACHE_SHARE)
    assert "ATTENTION_LAB_CACHE_MB" not in serve.worker_env(serve.parse_args(["--workers", "2"]))
    with pytest.raises(SystemExit):
        serve.parse_args(["--memory-mb", "100"])


def _idle_hog(tmp_path: Path, sessions: int) -> serve.Child:
    """A worker holding 300 MB whose /_stcore/metrics says it has `sessions` sessions."""
    (tmp_path / "_stcore").mkdir(exist_ok=True)
    (tmp_path / "_stcore" / "health").write_text("ok")
    (tmp_path / "_stcore" / "metrics").write_text(f"# TYPE active_sessions gauge\nactive_sessions {sessions}\n")
    port = serve.free_port()
    code = (
        "import functools, http.server, sys; x = b'x' * (300 * 2**20); "
        "handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1]); "
        "http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[2])), handler).serve_forever()"
    )
    argv = [PY, "-c", code, str(tmp_path), str(port)]
    return serve.Child("w1", argv, {}, serve._health("127.0.0.1", port), extra={"address": "127.0.0.1", "port": port})


def test_a_worker_nobody_uses_gives_its_memory_back(tmp_path, monkeypatch, capsys):
    """No sessions, 300 MB held against a 512 MB ceiling (over half): restarted after the idle time."""
    monkeypatch.setattr(serve, "IDLE_RESTART_S", 2.0)
    worker = _idle_hog(tmp_path, sessions=0)
    supervisor = serve.Supervisor([worker], tmp_path, "http://x", "serving", memory_mb=512)
    _run(supervisor, lambda: worker.starts >= 2, 30)
    assert worker.starts >= 2
    assert "no sessions for 2 s" in capsys.readouterr().out


def test_a_worker_with_students_keeps_what_it_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(serve, "IDLE_RESTART_S", 2.0)
    worker = _idle_hog(tmp_path, sessions=3)
    supervisor = serve.Supervisor([worker], tmp_path, "http://x", "serving", memory_mb=512)
    _run(supervisor, lambda: False, 8)
    assert worker.starts == 1 and worker.ready and worker.extra["rss_mb"] > 256


def test_a_worker_that_ignores_sigterm_is_killed(tmp_path, capsys, monkeypatch):
    """Over its ceiling and deaf to SIGTERM (as a worker whose scripts were busy was, here):
    SIGKILL after STOP_WAIT, then started again."""
    monkeypatch.setattr(serve, "STOP_WAIT", 1.0)
    hog = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); x = b'x' * (300 * 2**20); time.sleep(60)"
    worker = serve.Child("w1", [PY, "-c", hog], {}, None)
    supervisor = serve.Supervisor([worker], tmp_path, "http://x", "serving", memory_mb=256)
    _run(supervisor, lambda: worker.starts >= 2, 30)
    assert worker.starts >= 2
    assert "did not stop within 1 s of SIGTERM: SIGKILL" in capsys.readouterr().out
