"""Train the decoder that writes (attention_core.decoder) and ship it in attention_core/data/.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python scripts/build_decoder.py            # about 10 minutes here
    .venv/bin/python scripts/build_decoder.py --freeze-corpus                    # re-read the catalogs first

The corpus is the app's own bilingual explanations: every English and Chinese text of lab_ui/locales/*.toml,
one paragraph per line, frozen into attention_core/data/decoder_corpus.txt the first time (or with
--freeze-corpus), so that a rebuild reads the same text whatever the catalogs say since. Every tenth
pair of paragraphs (a text and its translation) is held out. The training is attention_core.lm.train (the
project's own NumPy engine, float64), deterministic: the same seed gives the same weights, bit for bit on
the same machine. Writes

  decoder.safetensors   every parameter, float32
  decoder_vocab.json    the alphabet, the config, and the report: held-out loss against the bigram
                        baseline, size, time, samples in each language (docs/decoder.md shows them)

Progress goes to stderr, one line every few seconds.
"""

from __future__ import annotations

import os

# One BLAS thread, as the app runs (Makefile): on a busy 2-core machine BLAS threads wait for each other.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import re
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere without installing

from attention_core import lm  # noqa: E402
from attention_core.decoder import (  # noqa: E402
    VOCAB_FILE,
    WEIGHTS_FILE,
    DecoderConfig,
    config_dict,
    encode_prompt,
    generate,
    n_parameters,
)

LOCALES = ROOT / "lab_ui" / "locales"
SEED = 0
MIN_COUNT = 3  # a character seen fewer times in the training text is read as unknown
STEPS = 1100
BATCH_SIZE = 16
LEARNING_RATE = 3e-3
WARMUP = 100
SIZES = {"context": 128, "n_layers": 3, "n_heads": 4, "d_model": 96, "d_ff": 384}
# The samples the report shows: greedy, then drawn at temperature 0.8 among the 10 best, seed 0.
SAMPLE_PROMPTS = ("Attention ", "The query ", "注意力", "每个词元")
SAMPLE_LENGTH = 120
# One key only: safetensors writes metadata in hash order, and the file must be the same on every run.
METADATA = {"source": "attention_core.lm.train on attention_core/data/decoder_corpus.txt, by scripts/build_decoder.py"}


def catalog_corpus(locales: Path = LOCALES) -> str:
    """Every English and Chinese text of the catalogs, files in name order and keys in file order, English
        before Chinese (a text missing in either language is left out, so lines 2k and 2k + 1 are always one text
    in the two languages): one paragraph per line, line breaks inside a text turned into spaces and Markdown's
        ** and __ (bold) dropped, since the model is to write prose, not mark-up."""
    paragraphs = []

    def walk(table: dict) -> None:
        for value in table.values():
            if not isinstance(value, dict):
                continue
            if "en" in value and "zh" in value:
                pair = [
                    re.sub(r"\s+", " ", value[lang].replace("**", "").replace("__", "")).strip()
                    for lang in ("en", "zh")
                ]
                if all(pair):  # lines 2k and 2k + 1 are always a text and its translation
                    paragraphs.extend(pair)
            else:
                walk(value)

    for path in sorted(locales.glob("*.toml")):
        walk(tomllib.loads(path.read_text(encoding="utf-8")))
    return "".join(p + "\n" for p in paragraphs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--freeze-corpus", action="store_true", help="re-read the catalogs into the corpus file")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"training steps (default {STEPS})")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=WEIGHTS_FILE.parent, help="where to write the two files")
    args = parser.parse_args()

    if args.freeze_corpus or not lm.CORPUS_FILE.exists():
        lm.CORPUS_FILE.write_text(catalog_corpus(), encoding="utf-8")
        print(f"froze {lm.CORPUS_FILE.relative_to(ROOT)} from {LOCALES.relative_to(ROOT)}", file=sys.stderr)
    corpus = lm.load_corpus()
    split = lm.split_corpus(corpus)
    vocab = lm.build_vocabulary(split.train, MIN_COUNT)
    train_ids, held_ids = vocab.encode(split.train), vocab.encode(split.held_out)  # [n_train], [n_held]
    config = DecoderConfig(vocab_size=len(vocab), **SIZES)
    print(
        f"corpus {len(corpus):,} characters: {len(train_ids):,} to train on, {len(held_ids):,} held out; "
        f"alphabet {len(vocab)}; {n_parameters(config):,} parameters; OPENBLAS_NUM_THREADS="
        f"{os.environ['OPENBLAS_NUM_THREADS']}",
        file=sys.stderr,
    )

    last = [0.0]

    def progress(p: lm.TrainProgress) -> None:
        if p.seconds - last[0] >= 5 or p.step == p.steps:
            last[0] = p.seconds
            filled = round(30 * p.step / p.steps)
            eta = p.seconds / p.step * (p.steps - p.step)
            print(
                f"[{'#' * filled}{'.' * (30 - filled)}] step {p.step}/{p.steps}  loss {p.loss:.3f}  "
                f"lr {p.learning_rate:.2e}  {p.seconds:.0f} s, {eta:.0f} s to go",
                file=sys.stderr,
            )

    fit = lm.train(
        config, train_ids, args.steps, BATCH_SIZE, LEARNING_RATE, args.seed, warmup=WARMUP, on_progress=progress
    )
    shipped = {name: p.astype(np.float32) for name, p in fit.params.items()}
    params = {name: p.astype(np.float64) for name, p in shipped.items()}  # what load_decoder() will return

    print("measuring the held-out loss and the bigram baseline ...", file=sys.stderr)
    bigram = lm.bigram_baseline(train_ids, held_ids, len(vocab))
    held_loss = lm.text_loss(params, held_ids, config)
    train_sample = train_ids[: len(held_ids)]  # as much training text as there is held-out text
    unigram = np.bincount(train_ids, minlength=len(vocab)) + 1.0
    report = {
        "seed": args.seed,
        "steps": fit.steps,
        "batch_size": BATCH_SIZE,
        "learning_rate": LEARNING_RATE,
        "min_count": MIN_COUNT,
        "train_characters": len(train_ids),
        "held_out_characters": len(held_ids),
        "held_out_unknown": int(np.sum(held_ids == 0)),
        "n_parameters": n_parameters(config),
        "train_seconds": round(fit.seconds, 1),
        "openblas_num_threads": os.environ["OPENBLAS_NUM_THREADS"],
        "final_batch_loss": round(float(fit.losses[-20:].mean()), 4),
        "train_loss": round(lm.text_loss(params, train_sample, config), 4),
        "held_out_loss": round(held_loss, 4),
        "bigram_held_out_loss": round(bigram.loss(held_ids), 4),
        "bigram_alpha": bigram.alpha,
        "unigram_held_out_loss": round(-float(np.mean(np.log(unigram[held_ids] / unigram.sum()))), 4),
        "samples": _samples(params, config, vocab),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    save_file(shipped, str(args.out / WEIGHTS_FILE.name), metadata=METADATA)
    meta = {"chars": list(vocab.chars), "config": config_dict(config), "report": report}
    (args.out / VOCAB_FILE.name).write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=1), file=sys.stderr)
    for sample in report["samples"]:
        print(f"{sample['how']}: {sample['prompt']!r} -> {sample['text']!r}", file=sys.stderr)


def _samples(params, config, vocab) -> list[dict]:
    out = []
    for prompt in SAMPLE_PROMPTS:
        ids = encode_prompt(prompt, vocab, config.context).ids
        for how, temperature, top_k in (("greedy", 0.0, None), ("temperature 0.8, top-10", 0.8, 10)):
            rng = np.random.default_rng(0)
            steps = generate(params, config, ids, SAMPLE_LENGTH, temperature, top_k, rng)
            text = vocab.decode([s.token for s in steps])
            out.append({"prompt": prompt, "how": how, "text": text})
    return out


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
