"""One cache for every page: `cached(fn, *args, **kwargs)` returns fn(*args, **kwargs), computed
once per server process for the same function and the same arguments, and shared by every session.

Pages call the core and the figure builders through it:

    view = cached(attend_random, tokens, d, seed)      # a core result (a frozen dataclass)
    fig = cached(figures.weights_heatmap, view, lang)  # a figure built from it

The key is the function and its arguments, never a hand-written name, so a figure cannot be served
for inputs it was not built from. Arguments are keyed by value: numbers, strings, tuples, None and
other hashable values as themselves; NumPy arrays by their bytes, shape and dtype; a frozen
dataclass by its fields. An object that `cached` itself returned is keyed by the call that made it,
which is exact (the functions are deterministic and their results never modified) and costs
nothing, where hashing a large array again on every rerun would not.

What it holds is shared between sessions and must not be modified: core results are frozen
dataclasses, and figures are copied before anything restyles them (lab_ui.widgets.show_figure).
When several sessions ask for the same missing entry at once (a lecture hall pressing the same
button), one computes it and the others wait for that result.

Memory. A class server's worker serves hundreds of students, each of whom may type a sentence of
their own, and every distinct sentence is a new entry. So the cache is bounded in bytes, counted
honestly (`size_of`: every array, string, number, dict and list an entry holds, recursively, each
shared object once; a Plotly figure by what it holds: its traces, its layout and the dict it was
serialised to), least recently used first out:

- ATTENTION_LAB_CACHE_MB (default 512): the bound, per worker process;
- an entry bigger than ENTRY_SHARE of the bound is computed and returned but not kept (it would
  push out dozens of others for one student's sake);
- ATTENTION_LAB_CACHE_IDLE_S (default 120): an entry nobody asked for in that long is dropped,
  so a worker whose students have left gives its memory back; an entry that took SLOW_S or more
  to compute (a training run) is kept KEEP_SLOW_S instead, bytes permitting;
- after dropping entries it asks glibc to return the freed memory to the system (malloc_trim):
  NumPy's arrays of a few hundred kB live in malloc's heap (attention_core.train_model raises
  the threshold for that), and without the trim a worker keeps its peak size for good.

A daemon thread sweeps the idle entries every SWEEP_S seconds; it starts with the first entry.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import gc
import hashlib
import os
import sys
import threading
import time
import types
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np
from plotly.basedatatypes import BaseFigure

T = TypeVar("T")


def _setting(name: str, default: float) -> float:
    """A positive number from the environment (a class server sets it for its workers), else the default."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number; set it to e.g. {default:g}, or unset it.") from None
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{name}={raw!r} must be a positive number, e.g. {default:g}.")
    return value


MAX_ENTRIES = 512
MAX_BYTES = int(_setting("ATTENTION_LAB_CACHE_MB", 512) * 2**20)  # a server has the memory, a laptop too
ENTRY_SHARE = 1 / 8  # an entry over this share of MAX_BYTES is handed back, not kept
IDLE_S = _setting("ATTENTION_LAB_CACHE_IDLE_S", 120)
SLOW_S, KEEP_SLOW_S = 1.0, 1800.0  # computed in SLOW_S or more: kept that long unused
SWEEP_S = 10.0
FREE_HEAP_TRIM = 32 * 2**20  # free bytes glibc may keep before a sweep hands them back
TRIM_EVERY_S = 5.0  # malloc_trim walks the whole heap: after an eviction, at most this often

_lock = threading.Lock()
_entries: OrderedDict[tuple, _Entry] = OrderedDict()  # least recently used first
_made_by: dict[int, tuple] = {}  # id(result) -> the key of the call that returned it
_pending: dict[tuple, _Pending] = {}
_bytes = 0
_hits = _misses = _not_kept = _expired = _trims = 0
_sweeper: threading.Thread | None = None
_trimmed_at = float("-inf")


@dataclasses.dataclass
class _Pending:
    """A call being computed: who waits for it waits on `done`, then takes `value` if it came."""

    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    value: Any = None
    has_value: bool = False


@dataclasses.dataclass
class _Entry:
    value: Any
    size: int
    fn: Callable  # kept so that the function's id, part of the key, is not reused while cached
    used: float  # time.monotonic() of the last hit
    keep: float  # seconds it may sit unused


@dataclasses.dataclass(frozen=True)
class Stats:
    entries: int
    bytes: int
    hits: int
    misses: int
    not_kept: int = 0  # results too big to keep (over ENTRY_SHARE of the bound)
    expired: int = 0  # entries dropped for sitting unused
    trims: int = 0  # times freed memory was handed back to the system


def cached(fn: Callable[..., T], *args, **kwargs) -> T:
    """fn(*args, **kwargs), computed once per distinct call and kept while there is room."""
    global _hits, _misses
    key = (id(fn), _key(args), _key(tuple(sorted(kwargs.items()))))
    while True:
        with _lock:
            entry = _entries.get(key)
            if entry is not None:
                _touch(key, entry)
                _hits += 1
                return entry.value
            waiting = _pending.get(key)
            if waiting is None:
                mine = _pending[key] = _Pending()
                _misses += 1
                break
        waiting.done.wait()  # another session is computing it
        if waiting.has_value:  # also a result too big to keep: those who waited for it get it
            return waiting.value
        # it failed: look again, and compute it here if nobody else has started
    try:
        started = time.monotonic()
        value = fn(*args, **kwargs)
        mine.value, mine.has_value = value, True
        _store(key, fn, value, time.monotonic() - started)
        return value
    finally:
        with _lock:
            _pending.pop(key).done.set()


def lookup(fn: Callable, *args, **kwargs) -> tuple[bool, Any]:
    """(True, value) when cached(fn, *args, **kwargs) would return at once, else (False, None);
    never computes. A page that must not start a long computation on its own (a training run)
    shows a result somebody already paid for, or a button."""
    global _hits
    key = (id(fn), _key(args), _key(tuple(sorted(kwargs.items()))))
    with _lock:
        entry = _entries.get(key)
        if entry is None:
            return False, None
        _touch(key, entry)
        _hits += 1
        return True, entry.value


def is_cached_result(value: Any) -> bool:
    """Did `cached` return this very object (and still hold it)? Then a call keyed by it is
    cheap and exact."""
    with _lock:
        return id(value) in _made_by


def clear() -> None:
    """Forget everything (tests; a developer who edited a core function without restarting)."""
    global _bytes, _hits, _misses, _not_kept, _expired, _trims
    with _lock:
        _entries.clear()
        _made_by.clear()
        _bytes = _hits = _misses = _not_kept = _expired = _trims = 0


def stats() -> Stats:
    with _lock:
        return Stats(len(_entries), _bytes, _hits, _misses, _not_kept, _expired, _trims)


def sweep(now: float | None = None) -> int:
    """Drop the entries that sat unused longer than they may; then, if any went, collect the
    garbage they leave and hand the freed memory back to the system. Returns how many went."""
    global _expired
    now = time.monotonic() if now is None else now
    with _lock:
        old = [key for key, entry in _entries.items() if now - entry.used > entry.keep]
        for key in old:
            _drop(key)
        _expired += len(old)
    if old:
        gc.collect()  # a result's own reference cycles (a figure's) would otherwise wait for a full collection
    free = _free_heap_bytes()
    if old or free is None or free > FREE_HEAP_TRIM:  # also what closed sessions freed meanwhile
        release_memory()
    return len(old)


def release_memory(force: bool = True) -> bool:
    """Ask glibc to give the heap's free pages back to the system (malloc_trim(3)); False where
    there is no glibc, or (force=False) when the last trim was less than TRIM_EVERY_S ago.
    ctypes releases the GIL for the call, so sessions go on meanwhile."""
    global _trims, _trimmed_at
    trim = _malloc_trim()
    with _lock:
        if trim is None or (not force and time.monotonic() - _trimmed_at < TRIM_EVERY_S):
            return False
        _trimmed_at = time.monotonic()
        _trims += 1
    trim(0)
    return True


def size_of(value: Any) -> int:
    """Bytes a value holds, as honestly as Python lets us count without a heap walk: every object
    reachable through containers, dataclasses, objects' attributes and figures, each once; a
    NumPy array by the buffer it views (a view of a cached array costs its header only)."""
    return _Sizer().size(value)


# --- inside --------------------------------------------------------------------------------------


def _touch(key: tuple, entry: _Entry) -> None:
    _entries.move_to_end(key)
    entry.used = time.monotonic()


def _store(key: tuple, fn: Callable, value: Any, seconds: float) -> None:
    global _bytes, _not_kept
    size = size_of(value)
    keep = KEEP_SLOW_S if seconds >= SLOW_S else IDLE_S
    with _lock:
        if size > ENTRY_SHARE * MAX_BYTES:
            _not_kept += 1
            return
        _entries[key] = _Entry(value, size, fn, time.monotonic(), keep)
        if not _is_plain(value):
            _made_by[id(value)] = key
        _bytes += size
        evicted = 0
        while len(_entries) > 1 and (len(_entries) > MAX_ENTRIES or _bytes > MAX_BYTES):
            _drop(next(iter(_entries)))
            evicted += 1
    _start_sweeper()
    if evicted:
        release_memory(force=False)


def _drop(key: tuple) -> None:
    """Forget one entry (the caller holds the lock)."""
    global _bytes
    old = _entries.pop(key)
    _bytes -= old.size
    if _made_by.get(id(old.value)) == key:
        del _made_by[id(old.value)]


def _start_sweeper() -> None:
    global _sweeper
    with _lock:
        if _sweeper is not None and _sweeper.is_alive():
            return
        _sweeper = threading.Thread(target=_sweep_forever, name="lab-cache-sweeper", daemon=True)
        _sweeper.start()


def _sweep_forever() -> None:
    while True:
        time.sleep(SWEEP_S)
        with contextlib.suppress(Exception):  # a failed sweep must not end the sweeping
            sweep()


_TRIM: list = []


def _malloc_trim():
    """glibc's malloc_trim, or None (another C library, another system)."""
    if not _TRIM:
        fn = None
        if sys.platform == "linux":
            with contextlib.suppress(OSError, AttributeError):
                fn = ctypes.CDLL("libc.so.6").malloc_trim
                fn.argtypes, fn.restype = [ctypes.c_size_t], ctypes.c_int
        _TRIM.append(fn)
    return _TRIM[0]


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ] + [("keepcost", ctypes.c_size_t)]


def _free_heap_bytes() -> int | None:
    """Bytes malloc holds free in its heaps (mallinfo2's fordblks, glibc 2.33+), or None."""
    if _malloc_trim() is None:
        return None
    with contextlib.suppress(OSError, AttributeError):
        info = ctypes.CDLL("libc.so.6").mallinfo2
        info.restype = _MallInfo2
        return int(info().fordblks)
    return None


def _is_plain(value: Any) -> bool:
    """A value keyed as itself (hashable and cheap to compare), not by where it came from."""
    return value is None or isinstance(value, bool | int | float | str | bytes)


def _key(value: Any) -> Hashable:
    made = _made_by.get(id(value))
    if made is not None:
        return ("made", made)
    if _is_plain(value):
        return value
    if isinstance(value, np.ndarray):
        digest = hashlib.blake2b(np.ascontiguousarray(value).data, digest_size=16).digest()
        return ("array", value.shape, value.dtype.str, digest)
    if isinstance(value, tuple | list):
        return (type(value).__name__, *(_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", *((_key(k), _key(v)) for k, v in value.items()))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = (_key(getattr(value, f.name)) for f in dataclasses.fields(value))
        return (type(value).__module__, type(value).__qualname__, *fields)
    if callable(value) and hasattr(value, "__qualname__"):
        return ("callable", value.__module__, value.__qualname__)
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"cached(): cannot key an argument of type {type(value).__name__}") from None
    return (type(value).__qualname__, value)


# Shared by every entry, or part of the program rather than of a result: never counted.
_NOT_COUNTED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
_NUMBERS = (bool, int, float, complex, np.generic)
_LONG_LIST = 64  # a list at least this long, all numbers at its ends, is counted as numbers throughout


class _Sizer:
    """One walk over a value; `seen` makes each object count once, however often it is referred to."""

    def __init__(self) -> None:
        self.seen: set[int] = set()

    def size(self, value: Any, depth: int = 0) -> int:
        if id(value) in self.seen or isinstance(value, _NOT_COUNTED) or depth > 40:
            return 0
        self.seen.add(id(value))
        if isinstance(value, np.ndarray):
            return self._array(value, depth)
        own = sys.getsizeof(value)
        if isinstance(value, (str, bytes, bytearray, *_NUMBERS)) or value is None:
            return own
        if isinstance(value, BaseFigure):
            # What a figure holds: its traces' and layout's properties (dicts of arrays and lists),
            # and, for lab_ui.layout.Serialised, the dict and the JSON it hands the chart element. Its
            # trace and layout objects are views on those dicts plus shared validators.
            own_parts = [getattr(value, "_spec", None), getattr(value, "_json", None)]
            parts = [value._data, value._layout, value._data_objs, value._layout_obj, *own_parts]
            return own + sum(self.size(p, depth + 1) for p in parts)
        if isinstance(value, list | tuple) and len(value) >= _LONG_LIST and _all_numbers(value):
            return own + len(value) * sys.getsizeof(value[0])  # a row of a heatmap's z, say
        if isinstance(value, dict):
            # a str key is most often a name the program already holds (an interned identifier)
            keys = sum(self.size(k, depth + 1) for k in value if not isinstance(k, str))
            return own + keys + sum(self.size(v, depth + 1) for v in value.values())
        if isinstance(value, list | tuple | set | frozenset):
            return own + sum(self.size(v, depth + 1) for v in value)
        if dataclasses.is_dataclass(value):
            return own + sum(self.size(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value))
        if hasattr(value, "__dict__"):
            return own + self.size(vars(value), depth + 1)
        return own

    def _array(self, a: np.ndarray, depth: int) -> int:
        chain = [a]  # a, the array it views, the array that one views ... down to the owner of the buffer
        while isinstance(chain[-1].base, np.ndarray):
            chain.append(chain[-1].base)
        owner, total = chain[-1], 0
        for view in chain[:-1]:
            if view is a or id(view) not in self.seen:
                self.seen.add(id(view))
                total += sys.getsizeof(view)  # a view's header; its numbers are the owner's
        if owner is not a:
            if id(owner) in self.seen:
                return total
            self.seen.add(id(owner))
        total += sys.getsizeof(owner)  # with its numbers when it owns them
        if owner.base is not None:
            total += owner.nbytes  # numbers in another object's buffer (np.frombuffer)
        if owner.dtype.hasobject:
            total += sum(self.size(v, depth + 1) for v in owner.ravel())
        return total


def _all_numbers(values) -> bool:
    return all(isinstance(v, _NUMBERS) for v in (values[0], values[len(values) // 2], values[-1]))
