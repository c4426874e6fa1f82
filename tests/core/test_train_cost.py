"""attention_core.train_cost: the products fit() and the comparisons really multiply, counted while
they run, are the ones counted from the config; the ceiling refuses the issue's 79-second click
and lets the page's defaults and presets through."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np
import pytest

from attention_core import train_cost as tc
from attention_core import train_model
from attention_core.train import (
    Config,
    _schedule,
    compare_models,
    compare_positions,
    compare_scaling,
    fit,
    order_task,
    saw_task,
)


class Counting(np.ndarray):
    """An array whose products (the @ operator, np.matmul) add their multiply-adds and the
    numbers they read and write to Counting.tally."""

    tally: ClassVar[dict[str, int]] = {"multiply_adds": 0, "numbers": 0}

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [np.asarray(x) if isinstance(x, Counting) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(np.asarray(x) if isinstance(x, Counting) else x for x in kwargs["out"])
        if ufunc is np.matmul and method == "__call__":
            a, b = plain
            _count(int(np.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))), *a.shape[-2:], b.shape[-1])
        result = getattr(ufunc, method)(*plain, **kwargs)
        return result.view(Counting) if isinstance(result, np.ndarray) else result


def _count(batch: int, m: int, k: int, n: int) -> None:
    Counting.tally["multiply_adds"] += batch * m * k * n
    Counting.tally["numbers"] += batch * (m * k + k * n + m * n)


@pytest.fixture
def counted(monkeypatch):
    """Every product of attention_core.train_model counted: the row-blocked ones (_mm, _batch_outer)
    by their shapes, once each, and the heads' own products through arrays that count."""
    mm, outer, split = train_model._mm, train_model._batch_outer, train_model.split_heads

    def counting_mm(a, w):
        a, w = np.asarray(a), np.asarray(w)
        _count(1, int(np.prod(a.shape[:-1])), a.shape[-1], w.shape[1])
        return mm(a, w)

    def counting_outer(a, b):
        a, b = np.asarray(a), np.asarray(b)
        _count(1, a.shape[-1], int(np.prod(a.shape[:-1])), b.shape[-1])
        return outer(a, b)

    monkeypatch.setattr(train_model, "_mm", counting_mm)
    monkeypatch.setattr(train_model, "_batch_outer", counting_outer)
    monkeypatch.setattr(train_model, "split_heads", lambda x, h: split(np.asarray(x), h).view(Counting))
    Counting.tally = {"multiply_adds": 0, "numbers": 0}
    return Counting.tally


CONFIGS = [
    Config(),
    Config(model="word", d_model=8),
    Config(model="window", d_model=8, window=2),
    Config(d_model=32, heads=4, layers=2, positional="learned"),
    Config(d_model=12, heads=3, scale="none", positional="none"),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.model}-d{c.d_model}-h{c.heads}-L{c.layers}")
@pytest.mark.parametrize("steps", [1, 7])
def test_fit_multiplies_what_was_counted(counted, config, steps):
    result = fit(config, saw_task(), steps, 0.01, 0)
    assert result.steps_run == steps  # run to the end: the count is for a whole run
    cost = tc.fit_cost(config, saw_task(), steps)
    assert counted["multiply_adds"] == cost.multiply_adds
    # the window tagger's copies outside its products: 3 per step and for the final loss, 1 per evaluation
    task = saw_task()
    copies = (3 * (steps + 1)) * tc._window_copies(config, *task.train_tokens.shape)
    copies += len(_schedule(steps, 31)) * tc._window_copies(config, *task.test_tokens.shape)
    assert counted["numbers"] == cost.numbers_touched - copies


def test_fewer_evaluations_and_other_frame_words_are_counted(counted):
    fit(Config(), order_task(), 5, 0.01, 0, n_evals=3, n_frames=2, frame_words=["the", "cat"])
    cost = tc.run_cost(fit, Config(), order_task(), 5, 0.01, 0, n_evals=3, n_frames=2, frame_words=["the", "cat"])
    assert counted["multiply_adds"] == cost.multiply_adds


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (compare_models, (saw_task(), 3, 0.01, 0, Config(d_model=8, window=2))),
        (compare_positions, (order_task(), 3, 0.01, 0, Config(d_model=8))),
        (compare_scaling, (saw_task(), 3, 0.001, 0, 16)),
    ],
    ids=["models", "positions", "scaling"],
)
def test_a_comparison_multiplies_what_was_counted(counted, fn, args):
    fn(*args)
    cost = tc.run_cost(fn, *args)
    assert cost.runs == 3
    assert counted["multiply_adds"] == cost.multiply_adds


def test_other_functions_have_no_known_cost():
    assert tc.run_cost(len, "abc") is None


def test_the_issue_s_click_is_refused_with_what_to_choose_instead():
    # /train?tr_d=128&tr_heads=8&tr_steps=2000&tr_window=4: 78.7 s of CPU when it ran unbounded
    cost = tc.fit_cost(Config(d_model=128, heads=8, window=4), saw_task(), 2000)
    assert not cost.within and cost.seconds > 4 * tc.MAX_SECONDS
    assert 1 <= cost.max_steps < 2000
    with pytest.raises(ValueError, match=f"at most {cost.max_steps} steps"):
        tc.check(cost)
    fits = replace(cost, steps=cost.max_steps)
    assert fits.within and not replace(cost, steps=cost.max_steps + 1).within
    tc.check(fits)


def test_the_page_s_defaults_and_presets_fit_within_the_ceiling():
    task = saw_task()
    for config, steps in [(Config(), 300), (Config(d_model=64, heads=1, scale="d"), 300), (Config(), 2000)]:
        tc.check(tc.fit_cost(config, task, steps))
    tc.check(tc.run_cost(compare_scaling, task, 300, 0.001, 0, 64))  # the largest comparison at its defaults
    tc.check(tc.run_cost(compare_models, task, 300, 0.01, 0, Config()))
    tc.check(tc.run_cost(compare_positions, order_task(), 300, 0.01, 0, Config()))


def test_nothing_is_left_to_a_run_that_cannot_take_one_step():
    cost = tc.fit_cost(Config(d_model=128, heads=8), saw_task(), 10, limit_s=0.01)
    assert cost.max_steps == 0
    with pytest.raises(ValueError, match="smaller d_model"):
        tc.check(cost)


@pytest.mark.parametrize("bad", [0, 10_001, 2.5, True])
def test_bad_steps_are_refused(bad):
    with pytest.raises(ValueError, match="steps"):
        tc.fit_cost(Config(), saw_task(), bad)
