"""lab_ui.cache.cached: one entry per function and arguments (by value), results shared, the call
that made a result used as its key, a bounded size, and one computation for simultaneous askers."""

import threading
import time
from dataclasses import dataclass

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
    monkeypatch.setattr(cache, "MAX_BYTES", 10_000)
    for n in range(10):
        cached(make, 500 + n)  # 4 kB of floats each
    assert cache.stats().bytes <= 10_000


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
