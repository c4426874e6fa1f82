"""How fast does the shipped decoder write? One token with the KV cache against recomputing everything.

    .venv/bin/python bench/decoder.py               # 100 tokens per generation, 5 generations per length
    .venv/bin/python bench/decoder.py -n 200 -r 9

For prompts that leave the sequence at about 16, 64 and 127 tokens (the model's context is 128), three
things are timed, in alternating rounds so that a change of load on a shared machine falls on all of them:

  generated token   one next() of attention_core.decoder.generate at temperature 0.8, top-k 10: a step()
                    with the cache, the sampling, and the GenerationStep a page draws (the target: 20 ms)
  step (cache)      attention_core.decoder.step alone: one new row through every layer
  full forward      attention_core.decoder.forward on the whole sequence again, what a decoder without a
                    cache does for every token

beside the multiply-adds counted from the shapes (decoder.step_cost), so the measured ratio can be read
against the counted one. Loading the weights (load_decoder, cold) is timed once per run. First, the
shipped model's loss on the whole held-out text against the bigram baseline is computed again from the
weights (attention_core.lm), the figures docs/decoder.md reports.

Threads: the app runs NumPy with OPENBLAS_NUM_THREADS=1, so this bench sets it to 1 (unless the environment
says otherwise) before NumPy starts. The load average is printed at start and at end: on a shared 2-core
machine a figure means little without it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the app runs; must precede the first NumPy import

import argparse  # after the thread count is set
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project, whichever venv runs this

from attention_core import lm
from attention_core.decoder import (
    encode_prompt,
    forward,
    generate,
    load_decoder,
    prefill,
    step,
    step_cost,
)

PROMPT = "Each query is compared with every key. 每个查询都与每个键比较。"
TARGET_MS = 20.0  # the ceiling for one generated token with the cache
LENGTHS = (16, 64, 127)  # tokens in the sequence when the new one is read


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def prompt_of(n: int, vocab) -> np.ndarray:
    """n token ids of the bilingual prompt, repeated as needed.  -> [n]"""
    text = (PROMPT * (n // len(PROMPT) + 1))[:n]
    return encode_prompt(text, vocab, n).ids  # [n]


def generated_token_times(shipped, ids: np.ndarray, n_new: int, seed: int) -> list[float]:
    """Seconds between successive GenerationSteps, the first (the prompt's prefill) left out."""
    steps = generate(shipped.params, shipped.config, ids, n_new + 1, 0.8, 10, np.random.default_rng(seed))
    next(steps)
    times, last = [], time.perf_counter()
    for _ in steps:
        now = time.perf_counter()
        times.append(now - last)
        last = now
    return times


def timed(fn, repeats: int) -> list[float]:
    fn()  # warm
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {1e3 * statistics.median(values):6.2f} ms   p95 {1e3 * p95:6.2f} ms   (n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--tokens", type=int, default=100, help="tokens per timed generation (default 100)")
    parser.add_argument("-r", "--rounds", type=int, default=5, help="rounds per length (default 5)")
    args = parser.parse_args()

    print(f"numpy {np.__version__}, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    print(f"at start: {load_line()}")
    start = time.perf_counter()
    load_decoder.cache_clear()
    shipped = load_decoder()
    print(f"load_decoder() cold: {1e3 * (time.perf_counter() - start):.0f} ms")
    config = shipped.config
    print(f"model: {config}, {sum(p.size for p in shipped.params.values()):,} parameters")

    start = time.perf_counter()
    split = lm.split_corpus(lm.load_corpus())
    train_ids, held = shipped.vocab.encode(split.train), shipped.vocab.encode(split.held_out)
    bigram = lm.bigram_baseline(train_ids, held, len(shipped.vocab))
    model_loss = lm.text_loss(shipped.params, held, config)
    print(
        f"held-out loss ({len(held):,} characters, nats per character): decoder {model_loss:.4f}, "
        f"bigram {bigram.loss(held):.4f} (add-{bigram.alpha} smoothing): {bigram.loss(held) - model_loss:.3f} lower "
        f"({time.perf_counter() - start:.0f} s)"
    )

    # A whole generation from a short prompt: what a page streams (the cache grows from 8 to 8 + n tokens;
    # past the context of 128, generate() rebuilds the cache now and then, and that token's time counts too).
    generation = []
    for r in range(args.rounds):
        generation += generated_token_times(shipped, prompt_of(8, shipped.vocab), args.tokens, r)
    print(f"\n{args.tokens} tokens after an 8-token prompt, {args.rounds} generations:")
    print(f"  generated token          {ms(generation)}")

    worst = 0.0
    print("\none more token at a given length, rounds alternating:")
    for T in LENGTHS:
        ids = prompt_of(T, shipped.vocab)  # [T]; the last one is the new token
        _, cache = prefill(shipped.params, ids[:-1], config)
        new = int(ids[-1])
        results = {"generated token": [], "step (cache)": [], "full forward": []}
        for r in range(args.rounds):
            n_new = min(10, config.context - len(ids[:-1]))  # never past the context: no rebuild inside
            results["generated token"] += generated_token_times(shipped, ids[:-1], n_new, r)
            results["step (cache)"] += timed(lambda c=cache, t=new: step(shipped.params, c, t), 10)
            results["full forward"] += timed(lambda x=ids: forward(shipped.params, x, config), 10)
        cost = step_cost(config, T)
        measured = statistics.median(results["full forward"]) / statistics.median(results["step (cache)"])
        worst = max(worst, statistics.median(results["generated token"]))
        print(f" T = {T}: multiply-adds {cost.cached.total:,} with the cache, {cost.full.total:,} recomputing")
        for name, values in results.items():
            print(f"  {name:24s} {ms(values)}")
        print(f"  recomputing / cache: counted {cost.ratio:.1f}x, measured {measured:.1f}x")

    verdict = "met" if max(worst, statistics.median(generation)) <= TARGET_MS / 1e3 else "MISSED"
    print(f"\ntarget: one generated token <= {TARGET_MS:.0f} ms (median): {verdict}")
    print(f"at end: {load_line()}")


if __name__ == "__main__":
    main()
