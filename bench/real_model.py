"""How fast is the NumPy all-MiniLM-L6-v2, and how does it compare with the reference libraries?

    .venv/bin/python bench/real_model.py                      # ours only (needs make real-model)
    /work/refvenv/bin/python bench/real_model.py              # also sentence-transformers and
                                                              # transformers, in the same run

Times, as median and 95th percentile over many runs: loading the model (cold: the cache is
cleared each time) and encoding sentences of 16, 64 and 256 word pieces. The issue's budget is a
16-piece encode at most 30 ms and a load at most 1 s. Ours returns every attention map and hidden
state; sentence-transformers returns only the embedding, and transformers is timed with
output_attentions=True, the call that gives what ours gives.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project, whichever venv runs this

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the reference libraries must never download

SENTENCE_16 = "The animal didn't cross the street because it was too tired."  # 16 pieces with [CLS], [SEP]


def timed(fn: Callable[[], object], repeats: int, warmup: int = 2) -> np.ndarray:
    """Seconds per call, after `warmup` calls that are not counted.  -> [repeats]"""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return np.array(times)  # [repeats]


def report(name: str, seconds: np.ndarray) -> float:
    median = float(np.median(seconds))
    print(f"  {name:48s} median {median * 1e3:8.2f} ms   p95 {np.percentile(seconds, 95) * 1e3:8.2f} ms")
    return median


def text_of(n_pieces: int) -> str:
    """A sentence-like text of exactly n_pieces word pieces, [CLS] and [SEP] included."""
    words = ("the cat sat on the mat and looked at the dog " * 40).split()
    return " ".join(words[: n_pieces - 2])  # every word here is one piece


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50, help="timed encodes per length (default 50)")
    parser.add_argument("--load-repeats", type=int, default=10, help="timed cold loads (default 10)")
    args = parser.parse_args()

    from attention_core.pretrained import _load, load_minilm

    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}")
    # Other work on the machine shows up in the timings; the load average says how much there was.
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print("ours (NumPy, float64):")

    def cold_load():
        _load.cache_clear()
        return load_minilm()

    ours_load = report("load_minilm() (cold)", timed(cold_load, args.load_repeats, warmup=1))
    enc = load_minilm()
    texts = {16: SENTENCE_16, 64: text_of(64), 256: text_of(256)}
    for n, text in texts.items():
        assert len(enc.encode(text).tokens) == n, f"the {n}-piece text has {len(enc.encode(text).tokens)} pieces"
    ours = {n: report(f"encode, {n} pieces", timed(lambda t=t: enc.encode(t), args.repeats)) for n, t in texts.items()}

    try:
        import sentence_transformers
        import torch
        import transformers
        from sentence_transformers import SentenceTransformer
        from transformers import BertModel
    except ImportError:
        print("(sentence-transformers not importable: run with the reference venv to compare)")
        print(f"load average at end: {os.getloadavg()[0]:.2f}")
        return

    torch.set_num_threads(os.cpu_count() or 1)
    print(
        f"reference (PyTorch {torch.__version__}, float32; sentence-transformers {sentence_transformers.__version__}, "
        f"transformers {transformers.__version__}):"
    )
    path = str(enc.path)
    st_load = report(
        "SentenceTransformer(path)",
        timed(lambda: SentenceTransformer(path, device="cpu", local_files_only=True), args.load_repeats, warmup=1),
    )
    st = SentenceTransformer(path, device="cpu", local_files_only=True)
    st_enc = {
        n: report(f"SentenceTransformer.encode, {n} pieces", timed(lambda t=text: st.encode([t]), args.repeats))
        for n, text in texts.items()
    }
    bert = BertModel.from_pretrained(path, attn_implementation="eager", local_files_only=True).eval()

    def bert_attentions(text: str):
        with torch.no_grad():
            ids = torch.tensor([enc.tokenize(text)[1]])
            return bert(input_ids=ids, output_attentions=True, output_hidden_states=True)

    bert_enc = {
        n: report(f"BertModel(output_attentions=True), {n} pieces", timed(lambda t=t: bert_attentions(t), args.repeats))
        for n, t in texts.items()
    }

    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    print("ratio ours / reference (above 1: ours is slower):")
    print(f"  load: {ours_load / st_load:.2f} x SentenceTransformer")
    for n in texts:
        print(
            f"  encode {n:3d} pieces: {ours[n] / st_enc[n]:.2f} x SentenceTransformer.encode, "
            f"{ours[n] / bert_enc[n]:.2f} x BertModel with attentions"
        )


if __name__ == "__main__":
    main()
