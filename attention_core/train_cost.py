"""What one training run costs, counted before it starts: from the config and the task alone.

    from attention_core.train_cost import fit_cost, run_cost, check

    cost = fit_cost(Config(d_model=128, heads=8), saw_task(), steps=2000)
    cost.multiply_adds      # every product fit() multiplies: forward, backward, evaluations, snapshots
    cost.seconds            # the CPU seconds that is on the reference machine (see below)
    cost.within             # False: over MAX_SECONDS
    cost.max_steps          # the most steps of this model the ceiling allows
    check(cost)             # ValueError saying what to choose instead

A training step of attention_core.train_model is matrix products and, around them, a few
operations per number (the loss, the softmax, Adam, the residual). Both are counted here, exactly,
from the shapes: the products' multiply-adds (m·k·n for an [m, k] @ [k, n] product) and the numbers
they read and write (m·k + k·n + m·n; the elementwise work runs over the same arrays). The
multiply-adds alone mislead: the window tagger's product with its C = 9 tag columns moves a
number for every nine multiply-adds and is five times slower per multiply-add than attention's
square products. tests/core/test_train_cost.py counts every product fit() really computes and
finds the same numbers.

The time: CPU seconds = SECONDS_PER_MULTIPLY_ADD · multiply-adds + SECONDS_PER_NUMBER · numbers
touched + SECONDS_PER_STEP · steps, the least-squares fit of `calibrate()` over fit()'s models on
this project's 2-core build machine (within a factor of 1.5 of the measured CPU time there;
docs/performance.md, "One click's compute"). It is a fixed estimate, not a measurement: the same
click gets the same verdict on every machine and at every load. One click may use MAX_SECONDS.

Counted, for a batch of N sentences of T words (padding included: the products run over it), d =
d_model, h heads of d_k = d/h, C tags, n_in the tagger's input width (d, or (2w+1)·d for a window):

    forward, per attention layer    4 products N·T x d x d (Q, K, V, W_o), and N·h of T x d_k x T
                                    (Q Kᵀ) and T x T x d_k (A V)
    forward, the tagger             N·T x n_in x C
    backward                        each forward product's two gradients, dX = dY Wᵀ and dW = Xᵀ dY

fit() runs, for `steps` steps, a forward and backward pass over the training set; at n_evals
points a forward pass over the test set; at n_frames points a forward pass over the example
sentence (its attention snapshot); and at the end one more forward and backward pass (the final
loss).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from attention_core.train import (
    MAX_STEPS,
    Config,
    _schedule,
    compare_models,
    compare_positions,
    compare_scaling,
    fit,
    order_task,
    saw_task,
)
from attention_core.train_tasks import Task

# calibrate() on this project's 2-core build machine (OPENBLAS_NUM_THREADS=1, as make serve runs;
# docs/performance.md): 61 ps per multiply-add, 1.5 ns per number touched, 0.75 ms per step.
SECONDS_PER_MULTIPLY_ADD, SECONDS_PER_NUMBER, SECONDS_PER_STEP = 6.1e-11, 1.5e-9, 7.5e-4
# One click's ceiling. The page's largest comparison at its defaults (article 003's three scalings
# at d_model = 64, 300 steps) is about 11 s; d_model = 128 with 8 heads for 2000 steps, 79 s of CPU
# when it ran unbounded, is refused (it may have 450 steps).
MAX_SECONDS = 15.0
# Models of every kind and size the page offers, for calibrate(): (model, d_model, heads, window).
_CALIBRATION = (
    ("attention", 4, 1, 1),
    ("attention", 16, 2, 1),
    ("attention", 32, 4, 1),
    ("attention", 64, 1, 1),
    ("attention", 64, 8, 1),
    ("attention", 128, 8, 1),
    ("window", 16, 1, 1),
    ("window", 64, 1, 4),
    ("window", 128, 1, 4),
    ("word", 16, 1, 0),
    ("word", 128, 1, 0),
)


def _seconds(n_multiply_adds: int, n_numbers: int, n_steps: int) -> float:
    return SECONDS_PER_MULTIPLY_ADD * n_multiply_adds + SECONDS_PER_NUMBER * n_numbers + SECONDS_PER_STEP * n_steps


Product = tuple[int, int, int, int]  # (batch, m, k, n): batch products of [m, k] @ [k, n]


def forward_products(config: Config, n_sentences: int, T: int, n_tags: int) -> list[Product]:
    """The products of one forward pass of `config` over n_sentences sentences of T words."""
    NT, d, C = n_sentences * T, config.d_model, n_tags
    tagger = (1, NT, _tagger_width(config), C)  # logits = features W_tag
    if config.model != "attention":
        return [tagger]
    Nh, d_k = n_sentences * config.heads, config.d_k
    layer = [(1, NT, d, d)] * 3 + [(Nh, T, d_k, T), (Nh, T, T, d_k), (1, NT, d, d)]  # Q K V, Q Kᵀ, A V, W_o
    return layer * config.layers + [tagger]


def backward_products(config: Config, n_sentences: int, T: int, n_tags: int) -> list[Product]:
    """The products of one backward pass: for every forward product Y = X W, its two gradients
    dX = dY Wᵀ and dW = Xᵀ dY (summed over the batch's words), each as many multiply-adds."""
    NT, d, C, n_in = n_sentences * T, config.d_model, n_tags, _tagger_width(config)
    tagger = [(1, n_in, NT, C), (1, NT, C, n_in)]  # dW_tag, dfeatures
    if config.model != "attention":
        return tagger
    Nh, d_k = n_sentences * config.heads, config.d_k
    layer = [(1, d, NT, d), (1, NT, d, d)]  # dW_o, d(heads)
    layer += [(Nh, T, d_k, T), (Nh, T, T, d_k), (Nh, T, T, d_k), (Nh, T, T, d_k)]  # dA, dV, dQ, dK
    layer += [(1, d, NT, d)] * 3 + [(1, NT, d, d)] * 3  # dW_q, dW_k, dW_v; dx through each
    return tagger + layer * config.layers


def multiply_adds(products: Sequence[Product]) -> int:
    return sum(b * m * k * n for b, m, k, n in products)


def numbers_touched(products: Sequence[Product]) -> int:
    """Numbers the products read and write: a product with a thin side (the tagger's C = 9
    columns) moves many numbers for few multiply-adds, and moving them is what its time is."""
    return sum(b * (m * k + k * n + m * n) for b, m, k, n in products)


@dataclass(frozen=True)
class Cost:
    """One run (a fit, or a comparison of several fits) counted: what each step does, what is
    done once, and the ceiling it is checked against."""

    steps: int  # steps asked for (per fit)
    runs: int  # fits in the run: 1, or 3 for a comparison
    step_multiply_adds: int  # one step of every fit together: forward and backward over the training set
    step_numbers: int  # numbers those products read and write
    fixed_multiply_adds: int  # done once per fit whatever the steps: evaluations, snapshots, final loss
    fixed_numbers: int
    limit_s: float = 0.0  # the ceiling: MAX_SECONDS unless told otherwise

    @property
    def multiply_adds(self) -> int:
        return self.steps * self.step_multiply_adds + self.fixed_multiply_adds

    @property
    def numbers_touched(self) -> int:
        return self.steps * self.step_numbers + self.fixed_numbers

    @property
    def seconds(self) -> float:
        """CPU seconds on the reference machine: what a student is told before pressing Train."""
        return self.steps * self._step_s + self._fixed_s

    @property
    def within(self) -> bool:
        return self.seconds <= self.limit_s

    @property
    def max_steps(self) -> int:
        """The most steps this run may take within the ceiling (0 if even one is over)."""
        return max(0, min(MAX_STEPS, int((self.limit_s - self._fixed_s) // self._step_s)))

    @property
    def _step_s(self) -> float:
        return _seconds(self.step_multiply_adds, self.step_numbers, self.runs)

    @property
    def _fixed_s(self) -> float:
        return _seconds(self.fixed_multiply_adds, self.fixed_numbers, 0)


def fit_cost(
    config: Config,
    task: Task,
    steps: int,
    *,
    n_evals: int = 31,
    n_frames: int = 31,
    frame_words: Sequence[str] | None = None,
    limit_s: float | None = None,
) -> Cost:
    """The cost of fit(config, task, steps, ...) run to the end (a stopped or diverged run does less)."""
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config(...); got {type(config).__name__}.")
    if not isinstance(task, Task):
        raise ValueError(f"task must be a Task, e.g. saw_task(); got {type(task).__name__}.")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"steps={steps!r} is out of range: choose steps from 1 to {MAX_STEPS}.")
    C = len(task.tags)
    N_train, T_train = task.train_tokens.shape
    N_test, T_test = task.test_tokens.shape
    step = forward_products(config, N_train, T_train, C) + backward_products(config, N_train, T_train, C)
    once = step + len(_schedule(steps, n_evals)) * forward_products(config, N_test, T_test, C)
    if config.model == "attention":  # the other models have no maps to snapshot
        T_frame = min(len(task.example if frame_words is None else frame_words), task.max_len)
        once += len(_schedule(steps, n_frames)) * forward_products(config, 1, T_frame, C)
    return Cost(
        steps=steps,
        runs=1,
        step_multiply_adds=multiply_adds(step),
        step_numbers=numbers_touched(step) + 3 * _window_copies(config, N_train, T_train),
        fixed_multiply_adds=multiply_adds(once),
        fixed_numbers=numbers_touched(once)
        + 3 * _window_copies(config, N_train, T_train)
        + len(_schedule(steps, n_evals)) * _window_copies(config, N_test, T_test),
        limit_s=MAX_SECONDS if limit_s is None else limit_s,
    )


def run_cost(fn: Callable, *args, limit_s: float | None = None, **kwargs) -> Cost | None:
    """The cost of fn(*args, **kwargs) for fit and the three comparisons of attention_core.train,
    however they are called; None for any other function (its cost is not known here)."""
    if fn not in _COMPARISONS and fn is not fit:
        return None
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    if fn is fit:
        extra = {name: a[name] for name in ("n_evals", "n_frames", "frame_words")}
        return fit_cost(a["config"], a["task"], a["steps"], limit_s=limit_s, **extra)
    configs, default_task = _COMPARISONS[fn](a)
    task = a["task"] or default_task()
    costs = [fit_cost(c, task, a["steps"], limit_s=limit_s) for c in configs]
    return Cost(
        steps=a["steps"],
        runs=len(costs),
        step_multiply_adds=sum(c.step_multiply_adds for c in costs),
        step_numbers=sum(c.step_numbers for c in costs),
        fixed_multiply_adds=sum(c.fixed_multiply_adds for c in costs),
        fixed_numbers=sum(c.fixed_numbers for c in costs),
        limit_s=costs[0].limit_s,
    )


def check(cost: Cost) -> None:
    """ValueError, saying how many steps would fit, when a run is over its ceiling."""
    if cost.within:
        return
    what = "This comparison" if cost.runs > 1 else "This training run"
    instead = (
        f"choose at most {cost.max_steps} steps, or a smaller d_model" if cost.max_steps else "choose a smaller d_model"
    )
    raise ValueError(
        f"{what} would take about {cost.seconds:.0f} s of the server's time, more than the {cost.limit_s:g} s "
        f"one click may use: {instead}."
    )


def calibrate(steps: int = 100) -> tuple[float, float, float]:
    """(seconds per multiply-add, per number touched, per step): the least-squares fit, in relative
    error, of fit()'s CPU time on a grid of models of every kind and size. How the constants below
    were found; run it on a quiet machine (a few minutes)."""
    task = saw_task()
    rows, times = [], []
    for model, d, heads, window in _CALIBRATION:
        cost = fit_cost(Config(model=model, d_model=d, heads=heads, window=window), task, steps)
        started = time.process_time()
        fit(Config(model=model, d_model=d, heads=heads, window=window), task, steps, 0.001, 0)
        times.append(time.process_time() - started)
        rows.append([cost.multiply_adds, cost.numbers_touched, steps])
    a, y = np.array(rows, dtype=float), np.array(times)  # [n, 3], [n]
    coef, *_ = np.linalg.lstsq(a / y[:, None], np.ones_like(y), rcond=None)  # [3]
    return tuple(float(c) for c in coef)


def _window_copies(config: Config, n_sentences: int, T: int) -> int:
    """Numbers the window tagger copies outside its product to build its input (the sentence
    padded, then 2w+1 shifted copies side by side); its backward pass adds them back as many
    times. Counted once for a forward pass, three times for forward and backward."""
    if config.model == "attention":
        return 0
    return n_sentences * T * _tagger_width(config)


def _tagger_width(config: Config) -> int:
    return (2 * config.reach + 1) * config.d_model


def _models(a) -> tuple[list[Config], Callable[[], Task]]:
    config = a["config"] or Config()
    return [replace(config, model=m) for m in ("word", "window", "attention")], saw_task


def _scaling(a) -> tuple[list[Config], Callable[[], Task]]:
    return [Config(d_model=a["d_model"], heads=1, scale=s) for s in ("sqrt", "d", "none")], saw_task


def _positions(a) -> tuple[list[Config], Callable[[], Task]]:
    config = replace(a["config"] or Config(), model="attention")
    return [replace(config, positional=p) for p in ("none", "sinusoidal", "learned")], order_task


# How each comparison builds its configs (attention_core.train's compare_* say the same in code).
_COMPARISONS = {compare_models: _models, compare_scaling: _scaling, compare_positions: _positions}
