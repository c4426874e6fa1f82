"""How fast is the NumPy all-MiniLM-L6-v2, and how does it compare with PyTorch in the same run?

    .venv/bin/python bench/real_model.py                  # ours; with PyTorch installed (make test's
                                                          # reference) also the same model in torch ops
    .venv/bin/python bench/real_model.py --reference-path DIR   # and transformers' BertModel, from
                                                          # a folder `pip install --target DIR transformers` filled

Times, as median and 95th percentile: loading the model (cold: the cache is cleared each time),
encoding texts of 16, 64 and 256 word pieces, and the 72 head ablations of attention_core.
transformer_layer. Ours runs three ways: keep="all" in float64 (every intermediate, what the
tests compare with the reference fixture), keep="stream" in float64, and keep="stream" in float32
(the maps and the residual stream: what a page draws). The references: the same BERT written out
in torch.nn.functional ops from the model's own weights (always, when torch imports: the floor a
hand-made PyTorch model reaches), transformers' BertModel(output_attentions=True,
output_hidden_states=True) when transformers imports, and sentence-transformers' encode (the
embedding alone) when that imports.

Threads: the app runs NumPy with OPENBLAS_NUM_THREADS=1, so this bench sets it to 1 (unless the
environment says otherwise) before NumPy starts, and gives torch the same number. The calls of
ours and of each reference alternate in rounds (a few calls of each, caches warm within a round),
so a change of load on a shared machine falls on all of them; the load average is printed at
start and end.
Each result's size is what it holds (EncodeResult.nbytes: every array once, views not again).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the app runs; must precede the first NumPy import
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the reference libraries must never download

import argparse  # after the thread count is set
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project, whichever venv runs this

SENTENCE_16 = "The animal didn't cross the street because it was too tired."  # 16 pieces with [CLS], [SEP]
PAIR_16 = "The cat was too sleepy to walk over the road."
LENGTHS = (16, 64, 256)


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


def alternating(
    fns: dict[str, Callable[[], object]], repeats: int, rounds: int = 5, warmup: int = 2
) -> dict[str, np.ndarray]:
    """Seconds per call of each function, in `rounds` rounds of repeats/rounds calls of each, so a
    change of load falls on all of them while each keeps its caches warm within a round.  -> {name: [n]}"""
    per_round = max(1, repeats // rounds)
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            for _ in range(warmup):
                fn()
            for _ in range(per_round):
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
    return {name: np.array(t) for name, t in times.items()}


def report(name: str, seconds: np.ndarray, extra: str = "") -> float:
    median = float(np.median(seconds))
    print(f"  {name:52s} median {median * 1e3:8.2f} ms   p95 {np.percentile(seconds, 95) * 1e3:8.2f} ms{extra}")
    return median


def text_of(n_pieces: int) -> str:
    """A sentence-like text of exactly n_pieces word pieces, [CLS] and [SEP] included."""
    words = ("the cat sat on the mat and looked at the dog " * 40).split()
    return " ".join(words[: n_pieces - 2])  # every word here is one piece


def torch_bert(path: Path):
    """all-MiniLM-L6-v2 in torch.nn.functional ops from its safetensors weights (as BertModel
    computes it, eval mode): ids [T] -> (hidden states [7, T, 384], attentions [6, 12, T, T])."""
    import torch
    import torch.nn.functional as F
    from safetensors.torch import load_file

    w = load_file(str(path / "model.safetensors"))
    n_layers = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))
    d_model = w["embeddings.LayerNorm.weight"].shape[0]
    n_heads, eps = 12, 1e-12  # config.json of all-MiniLM-L6-v2
    d_head = d_model // n_heads

    def run(ids):
        T = ids.shape[0]
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:T]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = F.layer_norm(x, (d_model,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        hidden, maps = [x], []
        for i in range(n_layers):
            p = f"encoder.layer.{i}."

            def linear(name, z, p=p):
                return F.linear(z, w[p + name + ".weight"], w[p + name + ".bias"])

            def heads(name, x=x):
                return linear(f"attention.self.{name}", x).view(T, n_heads, d_head).transpose(0, 1)

            q, k, v = heads("query"), heads("key"), heads("value")  # [h, T, d_head]
            a = torch.softmax(q @ k.transpose(-1, -2) / d_head**0.5, dim=-1)  # [h, T, T]
            concat = (a @ v).transpose(0, 1).reshape(T, d_model)
            h = F.layer_norm(
                x + linear("attention.output.dense", concat),
                (d_model,),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            f = linear("output.dense", F.gelu(linear("intermediate.dense", h)))
            x = F.layer_norm(h + f, (d_model,), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
            hidden.append(x)
            maps.append(a)
        return torch.stack(hidden), torch.stack(maps)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="timed encodes per length and variant (default 30)")
    parser.add_argument("--load-repeats", type=int, default=5, help="timed cold loads (default 5)")
    parser.add_argument("--ablation-repeats", type=int, default=3, help="timed 72-head ablations (default 3)")
    parser.add_argument(
        "--reference-path",
        help="a folder with transformers (and its dependencies) in it, searched after the venv's own packages",
    )
    args = parser.parse_args()
    if args.reference_path:
        sys.path.append(args.reference_path)  # last, so the venv's NumPy and tokenizers stay the ones used

    from attention_core import transformer_layer
    from attention_core.pretrained import _load, load_minilm

    threads = int(os.environ["OPENBLAS_NUM_THREADS"])
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}")
    print(f"OPENBLAS_NUM_THREADS={threads}; load average at start: {os.getloadavg()[0]:.2f}")

    def cold_load():
        _load.cache_clear()
        return load_minilm()

    report("load_minilm() (cold)", timed(cold_load, args.load_repeats, warmup=1))
    enc = load_minilm()
    texts = {n: SENTENCE_16 if n == 16 else text_of(n) for n in LENGTHS}
    for n, text in texts.items():
        assert len(enc.encode(text).tokens) == n, f"the {n}-piece text has {len(enc.encode(text).tokens)} pieces"

    ours = {
        "ours, keep='all', float64": lambda t: enc.encode(t),
        "ours, keep='stream', float64": lambda t: enc.encode(t, keep="stream"),
        "ours, keep='stream', float32": lambda t: enc.encode(t, dtype=np.float32, keep="stream"),
    }
    references = _references(enc, threads)
    medians: dict[tuple[str, int], float] = {}
    for n, text in texts.items():
        print(f"encode, {n} pieces:")
        fns = {name: (lambda f=f, t=text: f(t)) for name, f in ours.items()}
        fns.update({name: (lambda f=f, t=text: f(t)) for name, f in references.items()})
        for name, seconds in alternating(fns, args.repeats).items():
            size = f"   {enc.encode(text, **_kwargs(name)).nbytes / 1e6:6.1f} MB" if name.startswith("ours") else ""
            medians[name, n] = report(name, seconds, size)

    print("head ablation, all 72 heads (transformer_layer.head_ablation, float32):")
    for n, pair in ((16, None), (16, PAIR_16), (64, None), (64, text_of(64))):
        label = f"{n} pieces" + (", with a pair similarity" if pair else "")
        report(label, timed(lambda n=n, p=pair: transformer_layer.head_ablation(texts[n], p), args.ablation_repeats, 1))

    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    if references:
        print("ratio ours / reference (above 1: ours is slower):")
        for n in LENGTHS:
            for name in ours:
                ratios = ", ".join(f"{medians[name, n] / medians[ref, n]:.2f} x {ref}" for ref in references)
                print(f"  {n:3d} pieces, {name:30s} {ratios}")


def _kwargs(name: str) -> dict:
    return {"keep": "stream" if "stream" in name else "all", "dtype": np.float32 if "32" in name else np.float64}


def _references(enc, threads: int) -> dict[str, Callable[[str], object]]:
    """The PyTorch references that import here, each a function of the text."""
    try:
        import torch
    except ImportError:
        print("(torch not importable: ours alone)")
        return {}
    torch.set_num_threads(threads)
    print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} thread(s), float32")
    bert_ops = torch_bert(enc.path)

    def ids_of(text: str):
        return torch.tensor(enc.tokenize(text)[1])

    def torch_ops(text: str):
        with torch.no_grad():
            return bert_ops(ids_of(text))

    refs: dict[str, Callable[[str], object]] = {"torch ops": torch_ops}
    try:
        import transformers
        from transformers import BertModel
    except ImportError:
        print("(transformers not importable: no BertModel)")
    else:
        print(f"transformers {transformers.__version__}")
        bert = BertModel.from_pretrained(str(enc.path), attn_implementation="eager", local_files_only=True).eval()

        def bert_model(text: str):
            with torch.no_grad():
                return bert(input_ids=ids_of(text)[None], output_attentions=True, output_hidden_states=True)

        refs["BertModel"] = bert_model
    try:
        import sentence_transformers
        from sentence_transformers import SentenceTransformer
    except ImportError:
        pass
    else:
        print(f"sentence-transformers {sentence_transformers.__version__}")
        st = SentenceTransformer(str(enc.path), device="cpu", local_files_only=True)
        refs["SentenceTransformer.encode"] = lambda text: st.encode([text])
    return refs


if __name__ == "__main__":
    main()
