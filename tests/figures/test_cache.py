"""lab_ui.cache.cached: one entry per function and arguments (by value), results shared, the call
that made a result used as its key, a bounded size, and one computation for simultaneous askers.
Memory: the bound is in bytes counted honestly (against what the process really grows by), set
from the environment, an entry too big for it is computed but not kept, unused entries go, and
the freed memory goes back to the system."""

import os
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from lab_ui import cache
from lab_ui.cache import cached


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


@dataclass(frozen=True)
class Result:
    weights: np.ndarray
    name: str


calls: list = []


def square(x):
    calls.append(("square", x))
    return np.asarray(x, dtype=float) ** 2


def describe(result: Result, lang: str = "en"):
    calls.append(("describe", result.name, lang))
    return f"{lang}:{result.name}:{result.weights.sum():.1f}"


def make(n: int) -> Result:
    calls.append(("make", n))
    return Result(np.arange(n, dtype=float), f"r{n}")


def test_same_call_computed_once_and_shared():
    calls.clear()
    a, b = cached(make, 3), cached(make, 3)
    assert a is b and calls == [("make", 3)]
    assert cached(make, 4) is not a


def test_arguments_are_keyed_by_value_not_identity():
    calls.clear()
    x = np.array([1.0, 2.0])
    first = cached(square, x)
    again = cached(square, np.array([1.0, 2.0]))  # another array, same numbers
    other = cached(square, np.array([1.0, 3.0]))
    assert first is again and other is not first
    assert cached(square, np.array([1.0, 2.0], dtype=np.float32)) is not first  # the dtype counts
    assert cached(square, np.array([[1.0, 2.0]])) is not first  # so does the shape


def test_keyword_arguments_and_functions_are_part_of_the_key():
    r = cached(make, 2)
    assert cached(describe, r, lang="en") == "en:r2:1.0"
    assert cached(describe, r, lang="zh") == "zh:r2:1.0"
    assert cached(describe, r) != cached(describe, r, lang="zh")


def test_a_result_of_cached_is_keyed_by_the_call_that_made_it():
    calls.clear()
    r = cached(make, 5)
    cached(describe, r)
    cached(describe, cached(make, 5))
    assert calls == [("make", 5), ("describe", "r5", "en")]
    # The same numbers made elsewhere are keyed by value: the figure is equal, computed again once.
    cached(describe, Result(np.arange(5, dtype=float), "r5"))
    assert calls.count(("describe", "r5", "en")) == 2


def test_a_changed_input_is_never_served_a_stale_result():
    assert cached(describe, Result(np.array([1.0]), "a")) == "en:a:1.0"
    assert cached(describe, Result(np.array([2.0]), "a")) == "en:a:2.0"


def test_size_is_bounded_and_the_least_recent_goes_first(monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    for n in range(1, 5):
        cached(make, n)
    cached(make, 2)  # touch: 2 is now the most recent
    cached(make, 5)
    calls.clear()
    cached(make, 2)
    cached(make, 5)
    assert calls == []  # still held
    cached(make, 1)
    assert calls == [("make", 1)]  # evicted first
    assert cache.stats().entries == 3


def test_memory_is_bounded_by_the_arrays_held(monkeypatch):
    monkeypatch.setattr(cache, "MAX_BYTES", 40_000)
    for n in range(10):
        cached(make, 500 + n)  # 4 kB of floats each
    assert 0 < cache.stats().bytes <= 40_000
    assert 5 <= cache.stats().entries < 10


def test_an_evicted_result_is_then_keyed_by_value(monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 1)
    r = cached(make, 3)
    cached(make, 4)  # evicts r's entry, and with it r's provenance
    assert cached(describe, r) == "en:r3:3.0"


def test_simultaneous_askers_share_one_computation():
    started = []

    def slow(x):
        started.append(x)
        time.sleep(0.2)
        return x * 2

    results = []
    threads = [threading.Thread(target=lambda: results.append(cached(slow, 21))) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [42] * 8 and started == [21]


def test_an_error_is_not_cached_and_reaches_every_caller():
    attempts = []

    def fails(x):
        attempts.append(x)
        raise ValueError("d_model=10 is not divisible by n_heads=4")

    for _ in range(2):
        with pytest.raises(ValueError, match="divisible"):
            cached(fails, 1)
    assert attempts == [1, 1]


def test_unkeyable_arguments_are_refused_clearly():
    with pytest.raises(TypeError, match="cannot key"):
        cached(len, {1, 2})  # a set: unordered, not keyed (pass a sorted tuple)


def test_is_cached_result_knows_only_what_cached_returned_and_still_holds():
    made = cached(square, (1, 2))
    assert cache.is_cached_result(made)
    assert not cache.is_cached_result(square((1, 2)))  # equal, but not the object the cache holds
    assert not cache.is_cached_result(cached(square, 3))  # a plain number is keyed as itself
    cache.clear()
    assert not cache.is_cached_result(made)


# --- memory --------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Inner:
    weights: np.ndarray


@dataclass(frozen=True)
class Outer:
    name: str
    inner: tuple[Inner, ...]
    table: dict


def nested(n: int) -> Outer:
    """A result shaped like the core's: arrays two levels down, in a tuple of dataclasses and a dict."""
    return Outer(f"o{n}", (Inner(np.full(2**15, float(n))), Inner(np.zeros(2**15))), {"rows": np.ones(2**14)})


def test_an_entry_is_counted_with_everything_it_holds_however_deep():
    r = nested(1)
    arrays = 2 * 2**15 * 8 + 2**14 * 8
    assert arrays <= cache.size_of(r) < arrays * 1.05
    view = r.inner[0].weights[::2]  # a view costs its header, not its owner's numbers again
    assert cache.size_of((r, view)) - cache.size_of(r) < 1000


def test_memory_is_bounded_for_nested_results(monkeypatch):
    # Each result holds 640 kB two levels down; counting one level (arrays of the result itself)
    # would see a few hundred bytes and keep all 30 in a 4 MB bound.
    monkeypatch.setattr(cache, "MAX_BYTES", 4 * 2**20)
    for n in range(30):
        cached(nested, n)
    held = cache.stats()
    assert held.bytes <= 4 * 2**20 and held.entries <= 7


# The app's real entries, made one after another in a fresh process: what the process grows by
# per entry against what size_of counts. One entry of each kind is made first, so that what the
# first call loads (Plotly's validators, the template) is not counted as the entries'.
GROWTH = textwrap.dedent(
    """
    import gc, sys
    from attention_core import heatmap_views as hv
    from lab_ui import cache
    from lab_ui.figures import heatmap as figures
    from lab_ui.layout import Serialised

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096

    def entry(kind, i):
        tokens = tuple(f"w{(i * 7 + j) % 97}" for j in range(60))
        view = hv.random_view(tokens, 8, i, "none", 2, 1.0, "softmax", 64)
        if kind == "view":
            return view
        fig = figures.weights_heatmap(view, "en", False)
        return fig if kind == "figure" else Serialised(fig)

    kind, n = sys.argv[1], 150
    entry(kind, 10_000)
    gc.collect()
    before, kept, counted = rss(), [], 0
    for i in range(n):
        kept.append(entry(kind, i))
        counted += cache.size_of(kept[-1])
    gc.collect()
    print((rss() - before) / n, counted / n)
    """
)


@pytest.mark.parametrize("kind", ["view", "figure", "serialised"])
def test_what_an_entry_is_counted_is_what_the_process_grows_by(kind):
    out = subprocess.run(
        [sys.executable, "-c", GROWTH, kind], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    grown, counted = map(float, out.split())
    assert 0.75 < counted / grown < 1.33, (
        f"{kind}: the process grew {grown:.0f} B per entry, size_of says {counted:.0f}"
    )


def test_an_entry_too_big_to_keep_is_computed_and_returned_but_not_kept(monkeypatch):
    monkeypatch.setattr(cache, "MAX_BYTES", 8 * 2**20)  # the share: 1 MB
    calls.clear()
    big = cached(make, 2**18)  # 2 MB of floats
    assert big.weights.size == 2**18
    assert cached(make, 2**18) is not big and calls == [("make", 2**18)] * 2
    assert cache.stats().not_kept == 2 and cache.stats().entries == 0
    assert cached(make, 1000) is cached(make, 1000)  # a small one is kept as ever


def test_those_waiting_for_an_entry_too_big_to_keep_get_it_without_computing_it_again(monkeypatch):
    monkeypatch.setattr(cache, "MAX_BYTES", 2**20)
    started = []

    def slow_big(n):
        started.append(n)
        time.sleep(0.2)
        return np.zeros(n)

    results = []
    threads = [threading.Thread(target=lambda: results.append(cached(slow_big, 2**18))) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(results) == 4 and started == [2**18]


def test_the_bound_and_the_idle_time_are_settings(monkeypatch):
    monkeypatch.setenv("LAB_TEST_SETTING", "64")
    assert cache._setting("LAB_TEST_SETTING", 512) == 64
    monkeypatch.setenv("LAB_TEST_SETTING", "")
    assert cache._setting("LAB_TEST_SETTING", 512) == 512
    for bad in ("lots", "0", "-5", "inf"):
        monkeypatch.setenv("LAB_TEST_SETTING", bad)
        with pytest.raises(ValueError, match="LAB_TEST_SETTING"):
            cache._setting("LAB_TEST_SETTING", 512)
    env = {**os.environ, "ATTENTION_LAB_CACHE_MB": "96", "ATTENTION_LAB_CACHE_IDLE_S": "30"}
    code = "from lab_ui import cache; print(cache.MAX_BYTES, cache.IDLE_S)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(96 * 2**20), "30.0"]


def test_unused_entries_go_and_slow_ones_stay_longer(monkeypatch):
    monkeypatch.setattr(cache, "SLOW_S", 0.15)
    cheap = cached(make, 10)

    def slow(n):
        time.sleep(0.2)
        return np.zeros(n)

    cached(slow, 10)
    soon = time.monotonic() + cache.IDLE_S + 1
    assert cache.sweep(soon) == 1
    calls.clear()
    assert cached(make, 10) is not cheap and calls == [("make", 10)]  # computed again
    assert cache.lookup(slow, 10)[0]  # a slow one is kept KEEP_SLOW_S
    assert cache.sweep(time.monotonic() + cache.KEEP_SLOW_S + 1) == 2
    assert cache.stats().expired == 3 and cache.stats().entries == 0


def test_a_hit_keeps_an_entry_alive():
    cached(make, 10)
    time.sleep(0.05)
    cached(make, 10)  # used again: its idle time starts over
    assert cache.sweep(time.monotonic() + cache.IDLE_S - 0.01) == 0


# Arrays of a few hundred kB freed between objects that stay: glibc keeps the pages (RSS stays
# up) until malloc_trim hands them back. attention_core.train_model raises malloc's mmap threshold
# the same way (np.empty of 16 MB, freed), so the app's arrays live in that heap.
FRAGMENTED = textwrap.dedent(
    """
    import numpy as np
    from lab_ui import cache

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2**20

    np.empty(2**21)
    arrays, stays = [], []
    for i in range(1500):
        arrays.append(np.ones(25_000))  # 200 kB
        stays.append(np.ones(8))  # small, between them
    peak = rss()
    del arrays
    freed = rss()
    trimmed = cache.release_memory()
    print(peak, freed, rss(), trimmed)
    """
)


def test_freed_memory_goes_back_to_the_system():
    out = subprocess.run([sys.executable, "-c", FRAGMENTED], cwd=ROOT, capture_output=True, text=True, check=True)
    peak, freed, after, trimmed = out.stdout.split()
    peak, freed, after = float(peak), float(freed), float(after)
    if trimmed != "True":
        pytest.skip("no glibc malloc_trim here")
    assert freed > 0.8 * peak, "glibc handed the freed arrays back by itself: nothing to show"
    assert after < 0.3 * peak, f"RSS {peak:.0f} MB at the peak, {freed:.0f} after freeing, {after:.0f} after the trim"


def test_a_sweep_that_drops_entries_hands_the_memory_back(monkeypatch):
    trims = []
    monkeypatch.setattr(cache, "release_memory", lambda force=True: trims.append(force) or True)
    cached(make, 10)
    monkeypatch.setattr(cache, "_free_heap_bytes", lambda: 0)
    assert cache.sweep(time.monotonic()) == 0 and trims == []  # nothing dropped, nothing free: no trim
    assert cache.sweep(time.monotonic() + cache.IDLE_S + 1) == 1 and trims == [True]
    monkeypatch.setattr(cache, "_free_heap_bytes", lambda: cache.FREE_HEAP_TRIM + 1)
    assert cache.sweep(time.monotonic()) == 0 and trims == [True, True]  # sessions freed memory meanwhile
