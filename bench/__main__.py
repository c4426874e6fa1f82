"""Every benchmark, one after the other, with its defaults (what `make bench` runs):

    .venv/bin/python -m bench                         # all six
    .venv/bin/python -m bench rerun cold_start        # some of them

    rerun            in-process rerun time per page, defaults and maxima   (bench/rerun.py)
    browser_latency  keyboard step to redrawn chart in Chromium, vs floor  (bench/browser_latency.py)
    chart_cost       what each chart, text and section adds to a step       (bench/chart_cost.py)
    lecture_hall     200 websocket sessions moving sliders on one page     (bench/lecture_hall.py)
    cold_start       server start until the first page is drawn            (bench/cold_start.py)
    train            training speed of the live-training page's core        (bench/train.py)

Each runs in its own process (AppTest, Playwright and asyncio each want the process to
themselves) and prints its own figures; each also runs alone, with --help for its options.
The figures are only as good as the machine is quiet: each prints the load average it saw.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from bench.common import ROOT

BENCHMARKS = ("rerun", "browser_latency", "chart_cost", "lecture_hall", "cold_start", "train")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"some of {', '.join(BENCHMARKS)} (default: all)")
    args = parser.parse_args()
    unknown = set(args.names) - set(BENCHMARKS)
    if unknown:
        parser.error(f"no benchmark {', '.join(sorted(unknown))}; choose from {', '.join(BENCHMARKS)}")
    failed = []
    for name in args.names or BENCHMARKS:
        print(f"\n=== {name} " + "=" * (60 - len(name)), flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", f"bench.{name}"], cwd=ROOT)
        print(f"({name}: {time.perf_counter() - start:.0f} s)", flush=True)
        if code:
            failed.append(name)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
