"""A memory soak: many distinct long texts, each in its own session, against a memory ceiling.

    .venv/bin/python -m bench.soak                                  # 300 texts on /real_model, 1 worker
    .venv/bin/python -m bench.soak --page heatmap -n 300            # the same on /heatmap (the model's heads)
    .venv/bin/python -m bench.soak --memory-mb 900 --at-once 10 --after 180

What issue 25 #1 found: every distinct long sentence left memory behind (a worker from 165 MB to
7.6 GB for 200 sessions, still there long after they had closed). This starts scripts/serve.py
as `make serve MEMORY_MB=M WORKERS=W` starts it, on a free loopback port, and opens --sessions
sessions through it, --at-once at a time, each with a text no other session has (--words words
drawn from a fixed vocabulary by its own seed): it loads the page with the text in its address,
as a shared link opens it, waits --hold seconds, and closes. The sessions speak Streamlit's
websocket protocol as bench/lecture_hall.py's do (its Session class).

The workers' resident memory (/proc, summed over the workers) is sampled every second, from
before the first session until --after seconds after the last one closed. Reported: idle RSS (one
warm visit, closed), the peak and when, the ceiling, the workers' restarts by serve.py for
memory, and the first time after the sessions closed when RSS was within 20 % of idle (and
whether it stayed there). --csv writes the series. Exit code 1 when the peak exceeded the
ceiling by more than the margin serve.py allows (3 samples over it before the restart) or RSS
was not back within --after seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.common import ROOT, machine_line, rss_mb
from bench.lecture_hall import Disconnected, Hall, RunFailed, Session
from scripts import serve as serve_script

# Ordinary words the model's word pieces know whole: a text of them costs what a student's does.
VOCABULARY = """
the a cat dog bank river money teacher student book table window city road
car train morning evening music song water tree garden house door light rain sun
cloud friend mother father child school lesson paper letter story word sentence question answer
sat ran saw read wrote found opened closed crossed watched heard told gave took
made because when while after before and but so then quickly slowly quietly again
never tired happy small large old new red blue green warm cold long short
early late
""".split()  # noqa: SIM905 (a list literal would take 90 lines)
BACK_WITHIN = 0.20  # issue 25 #1: back within 20 % of idle


def texts(n: int, words: int, seed: int) -> list[str]:
    """n distinct texts of `words` words each."""
    rng = random.Random(seed)
    out: set[str] = set()
    while len(out) < n:
        out.add(" ".join(rng.choice(VOCABULARY) for _ in range(words)).capitalize() + ".")
    return sorted(out)


def link(page: str, text: str) -> list[tuple[str, str]]:
    """The query a shared link to this page with this text holds (pages' own parameter names)."""
    if page == "real_model":
        return [("lang", "en"), ("rm_ex", "own"), ("rm_text", text)]
    return [("lang", "en"), ("hm_src", "model"), ("hm_ex", "own"), ("hm_text", text)]


@dataclass
class Served:
    base: str
    state: Path
    log: Path

    def workers(self) -> list[dict]:
        with contextlib.suppress(OSError, ValueError):
            return [c for c in json.loads(self.state.read_text())["children"] if c["name"] != "haproxy"]
        return []

    def rss(self) -> float:
        total = 0.0
        for c in self.workers():
            with contextlib.suppress(OSError, RuntimeError, TypeError):
                total += rss_mb(c["pid"])
        return total

    def restarts(self) -> int:
        return sum(max(0, c["starts"] - 1) for c in self.workers())


@contextlib.contextmanager
def serve(workers: int, memory_mb: float | None, timeout: float = 180) -> Iterator[Served]:
    """scripts/serve.py as `make serve WORKERS=W MEMORY_MB=M` runs it, on a free loopback port."""
    # An ephemeral port (bench.common's free_port scans 8520-8540: two soaks started together got
    # the same one, and their workers shared it).
    port = serve_script.free_port()
    run_dir = Path(tempfile.mkdtemp(prefix="soak-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMLIT_", "ATTENTION_LAB_CACHE"))}
    cmd = [sys.executable, "scripts/serve.py", "--workers", str(workers), "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--run-dir", str(run_dir)]
    if memory_mb:
        cmd += ["--memory-mb", str(memory_mb)]
    log = run_dir / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    served = Served(f"http://127.0.0.1:{port}", run_dir / "state.json", log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"scripts/serve.py exited: {log.read_text()[-2000:]}")
            with contextlib.suppress(OSError, ValueError):
                if json.loads(served.state.read_text())["ready"]:
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"scripts/serve.py not ready within {timeout:.0f} s")
            time.sleep(0.2)
        yield served
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        said = [
            line
            for line in log.read_text().splitlines()
            if line.startswith("[serve]") and ("ceiling" in line or "stopped (" in line)
        ]
        print("\n".join(f"  {line}" for line in said) or "  (serve.py restarted no worker for memory)")
        for path in run_dir.iterdir():
            path.unlink()
        run_dir.rmdir()


async def visit(
    hall: Hall, index: int, text: str, hold: float, errors: Counter, load_ms: list[float], retry_s: float = 120.0
) -> None:
    """One student: open the link, look at the page for `hold` seconds, leave. A connection
    refused or cut (a worker restarted for memory) is tried again, as the browser does (0.5, 1,
    2 ... s apart), for up to retry_s; each retry is counted in errors as "retried: ..."."""
    deadline, delay = time.perf_counter() + retry_s, 0.5
    while True:
        session = Session(hall, index)
        session.query = link(hall.page, text)
        try:
            await session.connect()
            load_ms.append(await session.rerun())
            await asyncio.sleep(hold)
            return
        except (RunFailed, OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as e:
            why = f"{type(e).__name__}: {e}"[:80]
            if time.perf_counter() + delay > deadline or not isinstance(e, OSError | ConnectionClosed | Disconnected):
                errors[why] += 1
                return
            errors[f"retried: {why}"] += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 8.0)
        finally:
            with contextlib.suppress(Exception):
                await session.close()


async def soak(args, served: Served) -> dict:
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=args.at_once + 8))
    hall = Hall(served.base, args.page, "en", 0.0, "first", args.timeout, random.Random(args.seed))
    series: list[tuple[float, float, int]] = []  # (s since start, RSS MB, sessions done)
    errors: Counter = Counter()
    load_ms: list[float] = []
    done = 0
    start = time.perf_counter()

    async def sample(stop: asyncio.Event) -> None:
        while not stop.is_set():
            series.append((time.perf_counter() - start, served.rss(), done))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)

    # The instructor's visit before class: imports, the model's weights, the page's first run.
    await visit(hall, -1, texts(1, args.words, args.seed + 1)[0], 0, errors, [])
    await asyncio.sleep(5)
    idle = served.rss()
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample(stop))

    queue = texts(args.sessions, args.words, args.seed)
    gate = asyncio.Semaphore(args.at_once)

    async def one(i: int, text: str) -> None:
        nonlocal done
        async with gate:
            await visit(hall, i, text, args.hold, errors, load_ms)
            done += 1
            if done % 25 == 0:
                print(
                    f"  {done:4d} sessions  RSS {served.rss():6.0f} MB  {time.perf_counter() - start:5.0f} s",
                    flush=True,
                )

    await asyncio.gather(*(one(i, text) for i, text in enumerate(queue)))
    closed = time.perf_counter() - start
    await asyncio.sleep(args.after)
    stop.set()
    await sampler

    peak_t, peak, _ = max(series, key=lambda s: s[1])
    after = [(t, rss) for t, rss, _ in series if t >= closed]
    limit = idle * (1 + BACK_WITHIN)
    back = next((t - closed for t, rss in after if rss <= limit), None)
    stays = back is not None and all(rss <= limit for t, rss in after if t - closed >= back)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            csv.writer(f).writerows([("t_s", "rss_mb", "sessions_done"), *series])
    return {
        "idle": idle,
        "peak": peak,
        "peak_t": peak_t,
        "closed": closed,
        "end": after[-1][1] if after else served.rss(),
        "back": back,
        "stays": stays,
        "errors": errors,
        "loads": sorted(load_ms),
        "restarts": served.restarts(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", default="real_model", choices=("real_model", "heatmap"))
    parser.add_argument("-n", "--sessions", type=int, default=300, help="sessions, each with its own text")
    parser.add_argument("--words", type=int, default=300, help="words per text")
    parser.add_argument("--at-once", type=int, default=10, help="sessions open at the same time")
    parser.add_argument("--hold", type=float, default=2.0, help="seconds a session stays after its page loaded")
    parser.add_argument("--after", type=float, default=180.0, help="seconds sampled after the last session closed")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--memory-mb", type=float, default=900.0, help="make serve MEMORY_MB (0: none)")
    parser.add_argument("--timeout", type=float, default=120.0, help="a page load slower than this is an error")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", help="write the RSS series (t, MB, sessions done) to this file")
    args = parser.parse_args()

    print(machine_line(), flush=True)
    print(
        f"{args.sessions} sessions on /{args.page}, {args.words} distinct words each, {args.at_once} at once, "
        f"{args.workers} worker(s), ceiling {args.memory_mb or 'none'} MB",
        flush=True,
    )
    with serve(args.workers, args.memory_mb or None) as served:
        r = asyncio.run(soak(args, served))
    loads = r["loads"]
    p50 = loads[len(loads) // 2] / 1000 if loads else float("nan")
    print(f"idle (one visit, closed)   {r['idle']:7.0f} MB")
    closed = f"sessions closed at {r['closed']:.0f} s"
    print(f"peak                       {r['peak']:7.0f} MB at {r['peak_t']:.0f} s ({closed})")
    print(f"ceiling                    {args.memory_mb or 'none'} MB; worker restarts for memory: {r['restarts']}")
    print(f"page load                  median {p50:.1f} s, {len(loads)} of {args.sessions} loaded")
    back = f"{r['back']:.0f} s after closing" if r["back"] is not None else f"not within {args.after:.0f} s"
    stays = " (and stayed)" if r["stays"] else (" (but rose again)" if r["back"] is not None else "")
    print(f"within 20 % of idle        {back}{stays}; at the end {r['end']:.0f} MB")
    print(f"errors                     {dict(r['errors']) or 'none'}  (retried: tried again, as a browser does)")
    over = args.memory_mb and r["peak"] > args.memory_mb * args.workers * 1.25
    sys.exit(1 if over or r["back"] is None else 0)


if __name__ == "__main__":
    main()
