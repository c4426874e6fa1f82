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
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np
from plotly.basedatatypes import BaseFigure

T = TypeVar("T")

MAX_ENTRIES = 512
MAX_BYTES = 512 * 2**20  # the arrays the entries hold; a server has the memory, a laptop too
FIGURE_BYTES = 200 * 2**10  # what a Plotly figure is counted as (its arrays are not walked)

_lock = threading.Lock()
_entries: OrderedDict[tuple, _Entry] = OrderedDict()  # least recently used first
_made_by: dict[int, tuple] = {}  # id(result) -> the key of the call that returned it
_pending: dict[tuple, threading.Event] = {}
_bytes = 0


@dataclasses.dataclass
class _Entry:
    value: Any
    size: int
    fn: Callable  # kept so that the function's id, part of the key, is not reused while cached


@dataclasses.dataclass(frozen=True)
class Stats:
    entries: int
    bytes: int
    hits: int
    misses: int


_hits = _misses = 0


def cached(fn: Callable[..., T], *args, **kwargs) -> T:
    """fn(*args, **kwargs), computed once per distinct call and kept while there is room."""
    global _hits, _misses
    key = (id(fn), _key(args), _key(tuple(sorted(kwargs.items()))))
    while True:
        with _lock:
            entry = _entries.get(key)
            if entry is not None:
                _entries.move_to_end(key)
                _hits += 1
                return entry.value
            waiting = _pending.get(key)
            if waiting is None:
                _pending[key] = threading.Event()
                _misses += 1
                break
        waiting.wait()  # another session is computing it; then look again (it may have failed)
    try:
        value = fn(*args, **kwargs)
        _store(key, fn, value)
        return value
    finally:
        with _lock:
            _pending.pop(key).set()


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
        _entries.move_to_end(key)
        _hits += 1
        return True, entry.value


def is_cached_result(value: Any) -> bool:
    """Did `cached` return this very object (and still hold it)? Then a call keyed by it is
    cheap and exact."""
    with _lock:
        return id(value) in _made_by


def clear() -> None:
    """Forget everything (tests; a developer who edited a core function without restarting)."""
    global _bytes, _hits, _misses
    with _lock:
        _entries.clear()
        _made_by.clear()
        _bytes = _hits = _misses = 0


def stats() -> Stats:
    with _lock:
        return Stats(len(_entries), _bytes, _hits, _misses)


def _store(key: tuple, fn: Callable, value: Any) -> None:
    global _bytes
    size = _size(value)
    with _lock:
        _entries[key] = _Entry(value, size, fn)
        if not _is_plain(value):
            _made_by[id(value)] = key
        _bytes += size
        while len(_entries) > 1 and (len(_entries) > MAX_ENTRIES or _bytes > MAX_BYTES):
            old_key, old = _entries.popitem(last=False)
            _bytes -= old.size
            if _made_by.get(id(old.value)) == old_key:
                del _made_by[id(old.value)]


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


def _size(value: Any) -> int:
    """Bytes of the arrays a result holds, looking one level into containers and dataclasses."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, BaseFigure):  # a figure, or the dict it was serialised to (layout.Serialised)
        return FIGURE_BYTES
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [getattr(value, f.name) for f in dataclasses.fields(value)]
    elif isinstance(value, tuple | list):
        parts = list(value)
    elif isinstance(value, dict):
        parts = list(value.values())
    else:
        return 64
    return 64 + sum(p.nbytes if isinstance(p, np.ndarray) else 64 for p in parts)
