"""Train a small tagger live: the core of the live-training page.

    from attention_core.train import Config, fit, saw_task, predict

    task = saw_task()
    result = fit(Config(), task, steps=300, learning_rate=0.01, seed=0)
    result.ambiguous_accuracy          # share of the test's ambiguous words tagged right
    result.attention_frames            # how "I saw a saw ." attended, snapshot by snapshot
    predict(result.params, result.config, task, ["they", "saw", "a", "saw"]).tags

The tasks are in train_tasks.py, the models with their hand-written backward pass in
train_model.py, tagging a typed sentence in train_predict.py; this file holds the training loop
(full batch, Adam, float64), the results a page draws, and the comparisons of models, scalings
and positions. Every public name of the four is importable from here. docs/training.md gives
the design and the measured numbers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from attention_core.train_model import (
    LIMITS,
    MODELS,
    POSITIONALS,
    SCALES,
    Config,
    _forward,
    _keep_freed_memory,
    _loss_and_grads,
    attention_maps,
    init_params,
    logits,
    loss_and_grads,
)
from attention_core.train_predict import Prediction, _maps, _words, predict
from attention_core.train_tasks import IGNORE, MAX_LEN, PAD, UNK, Task, order_task, saw_task

__all__ = [
    "IGNORE",
    "LIMITS",
    "MAX_LEN",
    "MAX_STEPS",
    "MODELS",
    "PAD",
    "POSITIONALS",
    "SCALES",
    "UNK",
    "Comparison",
    "ComparisonRow",
    "Config",
    "Fit",
    "Prediction",
    "Progress",
    "Task",
    "attention_maps",
    "compare_models",
    "compare_positions",
    "compare_scaling",
    "fit",
    "init_params",
    "logits",
    "loss_and_grads",
    "order_task",
    "predict",
    "saw_task",
]

MAX_STEPS = 10_000
# Adam's constants, as in Kingma & Ba (2015) and torch.optim.Adam's defaults.
BETA_1, BETA_2, EPSILON = 0.9, 0.999, 1e-8
# A run has diverged when its loss is not a number or has grown to 100 times where it started
# (a healthy run may overshoot to about 15 times and recover: learning rate 0.3 on the default model
# does), or when a weight leaves ±1e4 (nothing in these models needs more than about 10).
LOSS_GROWTH_LIMIT = 100.0
WEIGHT_LIMIT = 1e4


@dataclass(frozen=True)
class Progress:
    """What fit() reports after every step, for a progress bar and live curves. The arrays are
    read-only views into the run's own records: cheap to pass on every step, valid afterwards."""

    step: int  # steps done, 1 .. steps
    steps: int  # steps asked for
    loss: float  # the training loss this step descended from
    losses: np.ndarray  # every loss so far                                      [step]
    eval_steps: np.ndarray  # steps at which the accuracies were measured        [n_evals]
    train_accuracy: np.ndarray  # on the training words                          [n_evals]
    test_accuracy: np.ndarray  # on the test words                               [n_evals]
    ambiguous_accuracy: np.ndarray  # on the test words whose tag needs context  [n_evals]
    seconds: float  # since fit() started
    params: dict[str, np.ndarray] | None = None  # the weights after this step: a new dict every step, safe to keep
    run: int = 0  # in a comparison: which run this is, from 0
    runs: int = 1  # in a comparison: how many runs there are
    label: str = ""  # in a comparison: the row's label

    @property
    def fraction(self) -> float:
        """Share of all the work done, 0 .. 1, across every run of a comparison."""
        return (self.run + self.step / self.steps) / self.runs


@dataclass(frozen=True)
class Fit:
    """A training run: its curves, its final numbers, its snapshots of attention, its weights.

    losses[i] is the loss before update i + 1; final_loss is the loss of the returned params.
    A run that diverged returns the weights of the last step before the loss ran away (steps_run
    updates), and every number here comes from them: none is NaN or infinite.
    """

    config: Config
    steps: int  # steps asked for
    learning_rate: float
    seed: int
    steps_run: int  # updates in `params`: steps, or fewer if stopped or diverged
    stopped: bool  # on_progress returned False
    diverged: bool
    diverged_at: int | None  # the step at which the divergence was seen
    divergence: str | None  # "loss_not_finite" | "loss_exploded" | "weights_exploded"
    message: str  # a sentence for the student when stopped or diverged; "" otherwise
    losses: np.ndarray  # training loss, step by step                           [steps_run]
    final_loss: float  # training loss of `params`
    eval_steps: np.ndarray  # steps at which accuracy was measured, 0 .. steps_run  [n_evals]
    train_accuracy_curve: np.ndarray  #                                         [n_evals]
    test_accuracy_curve: np.ndarray  #                                          [n_evals]
    ambiguous_accuracy_curve: np.ndarray  #                                     [n_evals]
    train_accuracy: float  # of `params`, on every training word
    test_accuracy: float  # on every test word
    ambiguous_accuracy: float  # on the test words whose tag depends on context
    frame_words: tuple[str, ...]  # the sentence whose attention was recorded
    frame_steps: np.ndarray  # steps of the snapshots                          [n_frames]
    attention_frames: np.ndarray  # its attention maps ([n_frames, 0, 0, T, T] without attention)
    #                                                                           [n_frames, layers, h, T, T]
    params: dict[str, np.ndarray]  # the weights after steps_run updates
    seconds: float  # wall-clock time of the run


def fit(
    config: Config,
    task: Task,
    steps: int,
    learning_rate: float,
    seed: int,
    *,
    on_progress: Callable[[Progress], bool | None] | None = None,
    n_evals: int = 31,
    n_frames: int = 31,
    frame_words: Sequence[str] | None = None,
) -> Fit:
    """Train `config` on `task` with full-batch Adam for `steps` steps; deterministic for a seed.

    on_progress(progress) is called after every step (a few milliseconds apart: redraw when
    progress.seconds has moved on enough); returning False stops the run, and its result says
    stopped=True and holds everything up to there. An exception raised inside on_progress
    leaves fit() at once; the last Progress it was given still holds the curves and weights.

    Accuracies are measured at n_evals evenly spaced steps from 0 to steps, and the attention
    maps of frame_words (the task's example, "I saw a saw ." for saw_task; at most max_len
    words) at n_frames; a stopped or diverged run adds one last measurement where it ended. A
    diverging run stops at once (see Fit).
    """
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config(...); got {type(config).__name__}.")
    if not isinstance(task, Task):
        raise ValueError(f"task must be a Task, e.g. saw_task(); got {type(task).__name__}.")
    steps = _whole(steps, "steps", 1, MAX_STEPS)
    learning_rate = _learning_rate(learning_rate)
    n_evals = _whole(n_evals, "n_evals", 2, MAX_STEPS + 1)
    n_frames = _whole(n_frames, "n_frames", 2, MAX_STEPS + 1)
    if on_progress is not None and not callable(on_progress):
        raise ValueError("on_progress must be a function taking a Progress (or None).")
    words = tuple(task.example if frame_words is None else _words(frame_words))[: task.max_len]
    if not words:
        raise ValueError("frame_words must hold at least one word (or be None for the task's example).")
    frame_tokens = task.encode(words)[None]  # [1, T_f]

    started = time.perf_counter()
    _keep_freed_memory()
    params = init_params(config, task, seed)
    m = {name: np.zeros_like(p) for name, p in params.items()}  # Adam's running mean of the gradient
    v = {name: np.zeros_like(p) for name, p in params.items()}  # ... and of its square
    eval_at, frame_at = set(_schedule(steps, n_evals)), set(_schedule(steps, n_frames))
    record = _Record(np.zeros(steps), frame_tokens)
    history = [params]  # P_(k-1), and P_(k-2) when there was one: a diverged run goes back to it
    stopped, divergence, diverged_at, first_loss, steps_run = False, None, None, None, steps

    with np.errstate(all="ignore"):  # overflow is detected below and explained, not warned about
        for k in range(1, steps + 1):
            loss, grads, train_logits = _loss_and_grads(params, task.train_tokens, task.train_tags, config)
            first_loss = loss if first_loss is None else first_loss
            if not np.isfinite(loss) or not all(np.isfinite(g).all() for g in grads.values()):
                divergence = "loss_not_finite"
            elif loss > LOSS_GROWTH_LIMIT * first_loss:
                divergence = "loss_exploded"
            if divergence and k == 1:
                raise ValueError(
                    f"the untrained model's loss is already {loss}: these sizes overflow. Choose a smaller d_model."
                )
            if divergence:  # P_(k-1) is already bad: go back to P_(k-2)
                diverged_at, steps_run = k, max(k - 2, 0)
                params = history[0]
                break
            record.losses[k - 1] = loss
            if k - 1 in eval_at:
                record.evaluate(k - 1, params, config, task, train_logits)
            if k - 1 in frame_at:
                record.snapshot(k - 1, params, config)
            params, m, v = _adam(params, grads, m, v, k, learning_rate)
            if not all(np.isfinite(p).all() and np.abs(p).max(initial=0.0) <= WEIGHT_LIMIT for p in params.values()):
                divergence, diverged_at, steps_run = "weights_exploded", k, k - 1
                params = history[-1]
                break
            history = [history[-1], params]
            if on_progress is not None:
                keep_going = on_progress(record.progress(k, steps, loss, time.perf_counter() - started, params))
                if keep_going is False:
                    stopped, steps_run = True, k
                    break

        final_loss, final_logits = _loss_and_logits(params, task, config)
        if steps_run not in record.eval_steps:
            record.evaluate(steps_run, params, config, task, final_logits)
        if steps_run not in record.frame_steps:
            record.snapshot(steps_run, params, config)

    test_acc, ambiguous_acc = record.test[-1], record.ambiguous[-1]
    return Fit(
        config=config,
        steps=steps,
        learning_rate=learning_rate,
        seed=int(seed),
        steps_run=steps_run,
        stopped=stopped,
        diverged=divergence is not None,
        diverged_at=diverged_at,
        divergence=divergence,
        message=_message(divergence, diverged_at, stopped, steps_run, steps, learning_rate, first_loss),
        losses=record.losses[:steps_run].copy(),
        final_loss=final_loss,
        eval_steps=np.array(record.eval_steps),
        train_accuracy_curve=np.array(record.train),
        test_accuracy_curve=np.array(record.test),
        ambiguous_accuracy_curve=np.array(record.ambiguous),
        train_accuracy=record.train[-1],
        test_accuracy=test_acc,
        ambiguous_accuracy=ambiguous_acc,
        frame_words=words,
        frame_steps=np.array(record.frame_steps),
        attention_frames=np.stack(record.frames),
        params=params,
        seconds=time.perf_counter() - started,
    )


class _Record:
    """The curves and snapshots of one run, appended to as it goes."""

    def __init__(self, losses: np.ndarray, frame_tokens: np.ndarray):
        self.losses = losses  # [steps]
        self.frame_tokens = frame_tokens  # [1, T_f]
        self.eval_steps: list[int] = []
        self.train: list[float] = []
        self.test: list[float] = []
        self.ambiguous: list[float] = []
        self.frame_steps: list[int] = []
        self.frames: list[np.ndarray] = []

    def evaluate(self, step, params, config, task, train_logits) -> None:
        test_logits = _forward(params, task.test_tokens, config).logits  # [N_test, T, C]
        self.eval_steps.append(step)
        self.train.append(_accuracy(train_logits, task.train_tags, task.train_tokens != PAD))
        self.test.append(_accuracy(test_logits, task.test_tags, task.test_tokens != PAD))
        self.ambiguous.append(_accuracy(test_logits, task.test_tags, task.ambiguous))

    def snapshot(self, step, params, config) -> None:
        self.frame_steps.append(step)
        self.frames.append(_maps(params, self.frame_tokens, config)[0])  # [layers, h, T_f, T_f]

    def progress(self, step, steps, loss, seconds, params) -> Progress:
        return Progress(
            step=step,
            steps=steps,
            loss=float(loss),
            losses=_read_only(self.losses[:step]),
            eval_steps=_read_only(np.array(self.eval_steps)),
            train_accuracy=_read_only(np.array(self.train)),
            test_accuracy=_read_only(np.array(self.test)),
            ambiguous_accuracy=_read_only(np.array(self.ambiguous)),
            seconds=seconds,
            params=params,
        )


def _adam(params, grads, m, v, t, learning_rate):
    """One Adam step: p ← p − lr · m̂ / (√v̂ + ε), with m̂, v̂ the bias-corrected running means of
    the gradient and of its square. New arrays, so the previous weights stay as they were."""
    new_params, new_m, new_v = {}, {}, {}
    for name, p in params.items():
        g = grads[name]
        new_m[name] = BETA_1 * m[name] + (1 - BETA_1) * g  # same shape as p
        new_v[name] = BETA_2 * v[name] + (1 - BETA_2) * g * g  # same shape as p
        m_hat = new_m[name] / (1 - BETA_1**t)  # the early steps' means are pulled towards 0; undo that
        v_hat = new_v[name] / (1 - BETA_2**t)
        new_params[name] = p - learning_rate * m_hat / (np.sqrt(v_hat) + EPSILON)  # same shape as p
    return new_params, new_m, new_v


def _message(divergence, at, stopped, steps_run, steps, learning_rate, first_loss) -> str:
    if divergence == "loss_not_finite":
        what = "the loss stopped being a number (it overflowed)"
    elif divergence == "loss_exploded":
        what = f"the loss grew to over {LOSS_GROWTH_LIMIT:g} times its starting value {first_loss:.3g}"
    elif divergence == "weights_exploded":
        what = f"a weight grew beyond ±{WEIGHT_LIMIT:g}"
    elif stopped:
        return f"Stopped after {steps_run} of {steps} steps."
    else:
        return ""
    shown = "the untrained model" if steps_run == 0 else f"step {steps_run}, the last before it ran away"
    return (
        f"Training diverged at step {at}: {what}. With learning rate {learning_rate:g} each step overshoots "
        f"and the next one overshoots further. The numbers shown are from {shown}. "
        f"Try a learning rate 10 times smaller ({learning_rate / 10:g})."
    )


# --- comparisons ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ComparisonRow:
    """One model of a comparison, trained with the comparison's steps, learning rate and seed."""

    label: str  # "word", "window ±1", "attention"; "1/√d_k", "1/d_k", "none"; a positional kind
    config: Config
    ambiguous_accuracy: float  # on the test words whose tag needs context (or order)
    test_accuracy: float  # on every test word
    final_loss: float  # training loss at the end
    diverged: bool
    fit: Fit  # the whole run, for its curves


@dataclass(frozen=True)
class Comparison:
    """The same task, steps, learning rate and seed for every row; only the config changes."""

    task: str
    steps: int
    learning_rate: float
    seed: int
    rows: tuple[ComparisonRow, ...]

    def row(self, label: str) -> ComparisonRow:
        for row in self.rows:
            if row.label == label:
                return row
        raise ValueError(f"no row {label!r}; the rows are {', '.join(r.label for r in self.rows)}.")


def compare_models(
    task: Task | None = None,
    steps: int = 300,
    learning_rate: float = 0.01,
    seed: int = 0,
    config: Config | None = None,
    on_progress: Callable[[Progress], bool | None] | None = None,
) -> Comparison:
    """Article 001's three taggers on the same task: one word at a time, a window of ±w, and
    self-attention; config supplies the sizes (default Config()). Rows: word, window ±w, attention."""
    config = config or Config()
    configs = [replace(config, model=model) for model in MODELS]
    labels = ["word", f"window ±{config.window}", "attention"]
    return _compare(task or saw_task(), configs, labels, steps, learning_rate, seed, on_progress)


# At d_k = 64 and this learning rate the three separate as article 003 says they should on
# saw_task: 1/√d_k first, 1/d_k behind it, no scaling stuck on a plateau. At 0.01 1/d_k does
# better than 1/√d_k; docs/training.md shows the sweep.
SCALING_LEARNING_RATE = 0.001


def compare_scaling(
    task: Task | None = None,
    steps: int = 300,
    learning_rate: float = SCALING_LEARNING_RATE,
    seed: int = 0,
    d_model: int = 64,
    on_progress: Callable[[Progress], bool | None] | None = None,
) -> Comparison:
    """Article 003's slip: the same one-head attention model (d_k = d_model = 64) trained with
    scores times 1/√d_k, 1/d_k and 1. Rows: "1/√d_k", "1/d_k", "none"."""
    configs = [Config(d_model=d_model, heads=1, scale=scale) for scale in ("sqrt", "d", "none")]
    return _compare(task or saw_task(), configs, ["1/√d_k", "1/d_k", "none"], steps, learning_rate, seed, on_progress)


def compare_positions(
    task: Task | None = None,
    steps: int = 300,
    learning_rate: float = 0.01,
    seed: int = 0,
    config: Config | None = None,
    on_progress: Callable[[Progress], bool | None] | None = None,
) -> Comparison:
    """The attention model without and with positions, on order_task() unless told otherwise.
    Rows: "none", "sinusoidal", "learned"."""
    config = replace(config or Config(), model="attention")
    configs = [replace(config, positional=kind) for kind in ("none", "sinusoidal", "learned")]
    return _compare(
        task or order_task(), configs, ["none", "sinusoidal", "learned"], steps, learning_rate, seed, on_progress
    )


def _compare(task, configs, labels, steps, learning_rate, seed, on_progress) -> Comparison:
    rows = []
    for run, (config, label) in enumerate(zip(configs, labels, strict=True)):
        report = None
        if on_progress is not None:

            def report(p: Progress, run=run, label=label) -> bool | None:
                return on_progress(replace(p, run=run, runs=len(configs), label=label))

        result = fit(config, task, steps, learning_rate, seed, on_progress=report)
        row = ComparisonRow(
            label=label,
            config=config,
            ambiguous_accuracy=result.ambiguous_accuracy,
            test_accuracy=result.test_accuracy,
            final_loss=result.final_loss,
            diverged=result.diverged,
            fit=result,
        )
        rows.append(row)
        if result.stopped:  # the student pressed stop: the remaining rows are not run
            break
    return Comparison(task=task.name, steps=steps, learning_rate=learning_rate, seed=seed, rows=tuple(rows))


# --- small helpers ---------------------------------------------------------------------------------


def _loss_and_logits(params, task, config) -> tuple[float, np.ndarray]:
    loss, _, train_logits = _loss_and_grads(params, task.train_tokens, task.train_tags, config)
    return loss, train_logits


def _accuracy(logits_, tags, where) -> float:
    """Share of the positions in `where` whose most probable tag is the right one."""
    where = where & (tags != IGNORE)  # [N, T]
    if not where.any():
        return 0.0
    return float(np.mean(logits_.argmax(axis=-1)[where] == tags[where]))


def _schedule(steps: int, n: int) -> list[int]:
    """n steps from 0 to `steps`, evenly spaced (fewer if steps < n - 1)."""
    return sorted({round(s) for s in np.linspace(0, steps, n).tolist()})


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.view()
    a.flags.writeable = False
    return a


def _whole(n, name: str, low: int, high: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number; got {n!r}.")
    if not low <= n <= high:
        raise ValueError(f"{name}={n} is out of range: choose {name} from {low} to {high}.")
    return int(n)


def _learning_rate(lr) -> float:
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.integer, np.floating)):
        raise ValueError(f"learning_rate must be a number; got {lr!r}.")
    lr = float(lr)
    if not np.isfinite(lr):
        raise ValueError(f"learning_rate must be a finite number; got {lr}.")
    if lr <= 0:
        raise ValueError(f"learning_rate must be positive (0.01 trains the default model well); got {lr:g}.")
    return lr
