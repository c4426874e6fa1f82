"""attention_core.transformer_layer and the encoder's two paths (attention_core.pretrained).

One block's intermediates against the same block written out in torch ops from the model's own
weights (float64, when PyTorch is installed) and against the reference fixture's hidden states;
the float32 path within 1e-4 of float64; rollout against its definition computed directly on
small random maps; head ablation (nothing off changes nothing, a last-layer head leaves the lower
layers alone, the batched 72 equal one-at-a-time encodes); every text function on bad input.
Tests that need the model take the `minilm` fixture, which skips without the package (fails under
CI=true), as in test_pretrained.py.
"""

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from attention_core import transformer_layer as tl
from attention_core.layers import gelu, layer_norm
from attention_core.pretrained import (
    INSTALL_COMMAND,
    UNKNOWN,
    HeadAblation,
    StreamStep,
    held_bytes,
    load_minilm,
    minilm_available,
    stream_block,
)

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "minilm_reference.npz"
ATOL = 1e-4  # the agreement with the reference libraries, and float32 with float64
SENTENCE = "The animal didn't cross the street because it was too tired."
PAIR = "The cat was too sleepy to walk over the road."
BAD_TEXTS = {
    "empty": "",
    "one character": "a",
    "10,000 characters": "The cat sat on the mat. " * 417,  # 10,008 characters, far past 64 pieces
    "one 10,000-character word": "x" * 10_000,
    "emoji": "I ❤️ NumPy 🚀🔥 👨‍👩‍👧‍👦",
    "Chinese": "我在河边看见了一只猫。",
    "HTML": '<script>alert("x")</script> &amp; <b>bold</b>',
    "control characters only": "\u200b\x00\x07",
}


@pytest.fixture(scope="module")
def minilm():
    if not minilm_available():
        reason = f"the real model is not installed: {INSTALL_COMMAND} (or make real-model)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {reason}")
        pytest.skip(reason)
    return load_minilm()


@pytest.fixture(scope="module")
def torch_weights(minilm):
    """The model's weights as PyTorch reads them ([out, in], as stored), in float64."""
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    return {name: w.to(torch.float64) for name, w in load_file(str(minilm.path / "model.safetensors")).items()}


# --- one block end to end, against torch ops ----------------------------------------------------------


def torch_block(w, x, i: int, n_heads: int, eps: float) -> dict:
    """Block i of BERT in torch.nn.functional ops, every intermediate, from x [T, d_model]."""
    import torch
    import torch.nn.functional as F

    p = f"encoder.layer.{i}."

    def linear(name, z):
        return F.linear(z, w[p + name + ".weight"], w[p + name + ".bias"])

    def norm(name, z):
        return F.layer_norm(z, z.shape[-1:], w[p + name + ".weight"], w[p + name + ".bias"], eps)

    T, d_model = x.shape
    d_head = d_model // n_heads
    q, k, v = (linear(f"attention.self.{n}", x) for n in ("query", "key", "value"))  # [T, d_model]
    qh, kh, vh = (z.view(T, n_heads, d_head).transpose(0, 1) for z in (q, k, v))  # [h, T, d_head]
    scores = qh @ kh.transpose(-1, -2)  # [h, T, T]
    weights = torch.softmax(scores / math.sqrt(d_head), dim=-1)
    heads = weights @ vh  # [h, T, d_head]
    concat = heads.transpose(0, 1).reshape(T, d_model)
    a = linear("attention.output.dense", concat)
    h = norm("attention.output.LayerNorm", x + a)
    hidden = linear("intermediate.dense", h)
    act = F.gelu(hidden)  # the exact erf form
    f = linear("output.dense", act)
    out = norm("output.LayerNorm", h + f)
    stages = dict(q=q, k=k, v=v, scores=scores, weights=weights, heads=heads, concat=concat, a=a, residual_1=x + a)
    return stages | dict(h=h, hidden=hidden, act=act, f=f, residual_2=h + f, out=out)


def test_embeddings_against_torch_ops(minilm, torch_weights):
    import torch
    import torch.nn.functional as F

    view = tl.layer_view(SENTENCE, 1, encoder=minilm)
    ids = torch.tensor(minilm.tokenize(SENTENCE)[1])
    w, T = torch_weights, len(ids)
    word = F.embedding(ids, w["embeddings.word_embeddings.weight"])
    total = word + w["embeddings.position_embeddings.weight"][:T] + w["embeddings.token_type_embeddings.weight"][0]
    out = F.layer_norm(total, (384,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], 1e-12)
    e = view.embedding
    np.testing.assert_array_equal(e.word, word.numpy())  # a float32 row cast to float64 is exact
    np.testing.assert_allclose(e.total, total.numpy(), atol=1e-15)
    np.testing.assert_allclose(e.output, out.numpy(), atol=1e-12)
    np.testing.assert_array_equal(view.block.input, e.output)  # block 1 reads the embeddings


@pytest.mark.parametrize("layer_number", [1, 4, 6])
def test_every_intermediate_of_a_block_against_torch_ops(minilm, torch_weights, layer_number):
    """Block by block from our own input, so each stage is compared with the same stage."""
    import torch

    view = tl.layer_view(SENTENCE, layer_number, encoder=minilm)
    b, c = view.block, minilm.config
    ref = {
        k: v.numpy()
        for k, v in torch_block(torch_weights, torch.from_numpy(b.input), layer_number - 1, 12, c.eps).items()
    }
    att = b.attention
    exact = {"q": att.q, "k": att.k, "v": att.v, "scores": att.scores, "weights": att.weights, "heads": att.heads}
    exact |= {"concat": att.concat, "a": att.output, "residual_1": b.attention_residual, "h": b.attention_norm}
    for name, ours in (exact | {"hidden": b.ff_hidden}).items():
        np.testing.assert_allclose(ours, ref[name], atol=1e-11, rtol=0, err_msg=name)
    # GELU: A&S 7.1.26's erf is within 1.5e-7 of torch's exact one (docs/real_model.md)
    for ours, name in ((b.ff_activation, "act"), (b.ff_output, "f"), (b.ff_residual, "residual_2"), (b.output, "out")):
        np.testing.assert_allclose(ours, ref[name], atol=2e-6, rtol=0, err_msg=name)
    assert b.ff_hidden.shape == (16, c.d_ff) and view.d_ff == 4 * view.d_model and view.d_head == 32
    assert att.weights.shape == (12, 16, 16) and att.q_heads.shape == (12, 16, 32)


def test_the_whole_model_against_torch_ops_from_the_ids(minilm, torch_weights):
    """End to end, each side feeding itself: the blocks' errors do not grow past 1e-5."""
    import torch
    import torch.nn.functional as F

    w, c = torch_weights, minilm.config
    ids = torch.tensor(minilm.tokenize(SENTENCE)[1])
    T = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:T]
    x = x + w["embeddings.token_type_embeddings.weight"][0]
    x = F.layer_norm(x, (384,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], c.eps)
    ours = minilm.encode(SENTENCE)
    for i in range(c.n_layers):
        ref = torch_block(w, x, i, c.n_heads, c.eps)
        x = ref["out"]
        np.testing.assert_allclose(ours.blocks[i].output, x.numpy(), atol=1e-5, rtol=0)
        np.testing.assert_allclose(ours.mid_states[i], ref["h"].numpy(), atol=1e-5, rtol=0)
        np.testing.assert_allclose(ours.attentions[i], ref["weights"].numpy(), atol=1e-5, rtol=0)


def test_the_record_is_what_encode_outputs(minilm):
    """The same code path: the record's arrays are the model's output, not a recomputation."""
    r = minilm.encode(SENTENCE)
    assert r.keep == "all" and len(r.blocks) == 6
    np.testing.assert_array_equal(r.hidden_states[0], r.embedding.output)
    for i, b in enumerate(r.blocks):
        assert r.layers[i] is b.attention
        np.testing.assert_array_equal(b.input, r.hidden_states[i])
        np.testing.assert_array_equal(b.output, r.hidden_states[i + 1])
        np.testing.assert_array_equal(b.attention.output, r.attention_updates[i])
        np.testing.assert_array_equal(b.ff_output, r.ffn_updates[i])
        np.testing.assert_array_equal(b.attention_residual, b.input + b.attention.output)
        np.testing.assert_array_equal(b.ff_residual, b.attention_norm + b.ff_output)
        np.testing.assert_allclose(b.attention_norm, layer_norm(b.attention_residual, *_ln(minilm, i, 1)), atol=1e-13)
        np.testing.assert_allclose(b.ff_activation, gelu(b.ff_hidden), atol=1e-13)
    view = tl.layer_view(SENTENCE, 3, encoder=minilm)
    np.testing.assert_array_equal(view.block.output, r.hidden_states[3])


def _ln(minilm, i: int, which: int):
    b = minilm.blocks[i]
    return (b.ln1_gamma, b.ln1_beta) if which == 1 else (b.ln2_gamma, b.ln2_beta)


def test_the_stream_path_is_the_full_path(minilm):
    """keep='stream' (no Q/K/V kept, Q, K, V in one product) computes what keep='all' does."""
    full, lean = minilm.encode(SENTENCE), minilm.encode(SENTENCE, keep="stream")
    assert lean.keep == "stream" and lean.layers == () and lean.blocks == () and lean.embedding is None
    for name in ("attentions", "hidden_states", "attention_updates", "mid_states", "ffn_updates", "sentence_embedding"):
        np.testing.assert_allclose(getattr(lean, name), getattr(full, name), atol=1e-12, rtol=0, err_msg=name)
    assert lean.tokens == full.tokens and lean.nbytes < full.nbytes / 4


# --- float32, and the reference fixture ------------------------------------------------------------


def reference_cases() -> list[str]:
    with np.load(REFERENCE) as ref:
        return list(json.loads(str(ref["meta"]))["texts"])


@pytest.mark.parametrize("case", reference_cases())
def test_float32_stream_matches_the_reference_libraries(minilm, case):
    with np.load(REFERENCE) as ref:
        text = json.loads(str(ref["meta"]))["texts"][case]
        r = minilm.encode(text, dtype=np.float32, keep="stream")
        assert r.hidden_states.dtype == np.float32 and r.attentions.dtype == np.float32
        rows, layers, hidden_layers = ref[f"{case}/rows"], ref[f"{case}/attention_layers"], ref[f"{case}/hidden_layers"]
        np.testing.assert_allclose(r.attentions[layers][:, :, rows, :], ref[f"{case}/attentions"], atol=ATOL, rtol=0)
        np.testing.assert_allclose(
            r.hidden_states[hidden_layers][:, rows], ref[f"{case}/hidden_states"], atol=ATOL, rtol=0
        )
        np.testing.assert_allclose(r.sentence_embedding, ref[f"{case}/embedding"], atol=ATOL, rtol=0)


@pytest.mark.parametrize("text", [SENTENCE, "word " * 300, "我在河边看见了一只猫。"])
def test_float32_within_1e_4_of_float64(minilm, text):
    exact, fast = minilm.encode(text), minilm.encode(text, dtype=np.float32, keep="stream")
    for name in ("attentions", "hidden_states", "attention_updates", "mid_states", "ffn_updates", "sentence_embedding"):
        assert np.abs(getattr(fast, name) - getattr(exact, name)).max() < ATOL, name
    assert fast.nbytes < exact.nbytes / 8


def test_a_cached_64_piece_result_holds_under_25_mb(minilm):
    text = " ".join(["word"] * 62)
    assert len(minilm.encode(text, dtype=np.float32, keep="stream").tokens) == 64
    for result in (
        minilm.encode(text, dtype=np.float32, keep="stream"),
        tl.layer_view(text, 6, encoder=minilm),
        tl.token_paths(text, encoder=minilm),
        tl.text_rollout(text, encoder=minilm),
    ):
        assert held_bytes(result) <= 25e6, type(result).__name__


def test_held_bytes_counts_a_shared_buffer_once():
    a = np.zeros((10, 10))
    assert held_bytes((a, a[2:], {"x": a.T}, [a.reshape(100)])) == a.nbytes
    assert held_bytes(StreamStep(a, a[0], np.ones(3), a, a)) == a.nbytes + 24


def test_dtype_and_keep_are_checked(minilm):
    with pytest.raises(ValueError, match="float64"):
        minilm.encode("hi", dtype=np.float32)  # keep='all' is float64 only
    with pytest.raises(ValueError, match=r"float64 \(exact\) or float32"):
        minilm.encode("hi", dtype=np.float16, keep="stream")
    with pytest.raises(ValueError, match="keep="):
        minilm.encode("hi", keep="maps")


# --- one token through every block ----------------------------------------------------------------------


def test_token_paths_are_the_streams_norms_and_cosines(minilm):
    paths = tl.token_paths(SENTENCE, dtype=np.float64, encoder=minilm)
    r = minilm.encode(SENTENCE)
    L, T = 6, len(r.tokens)
    assert paths.attention_ratio.shape == (L, T) and paths.stream_norms.shape == (L + 1, T)
    np.testing.assert_allclose(paths.attention_update_norms, np.linalg.norm(r.attention_updates, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(
        paths.attention_ratio, paths.attention_update_norms / np.linalg.norm(r.hidden_states[:-1], axis=-1), rtol=1e-12
    )
    np.testing.assert_allclose(
        paths.ffn_ratio, paths.ffn_update_norms / np.linalg.norm(r.mid_states, axis=-1), rtol=1e-12
    )
    t = r.tokens.index("it")
    x, out = r.hidden_states[2, t], r.hidden_states[3, t]
    assert paths.cosine_to_input[2, t] == pytest.approx(x @ out / np.linalg.norm(x) / np.linalg.norm(out), abs=1e-12)
    for s in range(L + 1):  # the neighbours are the other tokens in order of cosine
        v = r.hidden_states[s]
        cos = (v @ v[t]) / np.linalg.norm(v, axis=-1) / np.linalg.norm(v[t])
        cos[t] = -np.inf
        np.testing.assert_array_equal(paths.neighbours[s, t], np.argsort(-cos, kind="stable")[:3])
        np.testing.assert_allclose(paths.neighbour_cosines[s, t], np.sort(cos)[::-1][:3], atol=1e-12)
    assert (paths.neighbours != np.arange(T)[None, :, None]).all()


def test_the_same_piece_is_marked_and_unk_never_is(minilm):
    paths = tl.token_paths("I saw a saw.", encoder=minilm)
    tokens = paths.pieces.tokens
    first, second = tokens.index("saw"), len(tokens) - 1 - tokens[::-1].index("saw")
    same = paths.neighbour_same_piece
    expected = np.array([[tokens[j] == tokens[i] for j in row] for i, row in enumerate(paths.neighbours[0])])
    np.testing.assert_array_equal(same[0], expected)
    assert tl.same_piece(tokens)[first, second] and not tl.same_piece(tokens)[first, first]
    zh = tl.token_paths("我在河边看见了一只猫。", encoder=minilm)
    unk = np.array(zh.pieces.is_unknown)
    assert zh.pieces.n_unknown == unk.sum() >= 2
    assert not zh.neighbour_same_piece[:, unk].any()  # two [UNK] are never "the same word piece"
    assert not tl.same_piece(zh.pieces.tokens)[np.ix_(unk, unk)].any()


# --- attention rollout -----------------------------------------------------------------------------------


def random_maps(rng, L=4, H=3, T=5) -> np.ndarray:
    logits = rng.normal(size=(L, H, T, T)) * 2
    e = np.exp(logits)
    return e / e.sum(axis=-1, keepdims=True)  # [L, H, T, T]


@pytest.mark.parametrize("residual", [0.5, 0.0, 0.3, 1.0])
def test_rollout_is_its_definition(residual):
    """Abnar & Zuidema 2020: Ã = r I + (1 - r) mean_h A, rows renormalised, R_l = Ã_l ... Ã_1."""
    rng = np.random.default_rng(7)
    maps = random_maps(rng)
    result = tl.attention_rollout(maps, residual)
    T = maps.shape[-1]
    for layer in range(maps.shape[0]):
        product = np.eye(T)
        for below in range(layer + 1):  # the first block's map on the right: it acts first
            a = residual * np.eye(T) + (1 - residual) * np.mean([maps[below, h] for h in range(maps.shape[1])], axis=0)
            a = a / a.sum(axis=1, keepdims=True)
            product = a @ product
        np.testing.assert_allclose(result.rollout[layer], product, atol=1e-13)
    np.testing.assert_allclose(result.rollout.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(result.raw, maps.mean(axis=1), atol=1e-15)
    if residual == 1.0:
        np.testing.assert_array_equal(result.rollout, np.broadcast_to(np.eye(T), result.rollout.shape))


def test_rollout_of_the_model(minilm):
    view = tl.text_rollout(SENTENCE, encoder=minilm)
    r = minilm.encode(SENTENCE, dtype=np.float32, keep="stream")
    T = len(r.tokens)
    assert view.rollout.rollout.shape == (6, T, T) and view.rollout.residual == 0.5
    np.testing.assert_allclose(view.rollout.raw, r.attentions.mean(axis=1), atol=1e-6)
    np.testing.assert_allclose(view.rollout.rollout.sum(axis=-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("residual", [-0.1, 1.5, float("nan")])
def test_rollout_checks_its_arguments(residual):
    with pytest.raises(ValueError, match="residual"):
        tl.attention_rollout(random_maps(np.random.default_rng(0)), residual)
    with pytest.raises(ValueError, match=r"\[layers, heads, T, T\]"):
        tl.attention_rollout(np.ones((3, 4, 4)))


# --- head ablation ---------------------------------------------------------------------------------------


def test_switching_nothing_off_changes_nothing(minilm):
    r = minilm.encode(SENTENCE, dtype=np.float64, keep="stream")
    block = minilm.lean_blocks(np.float64)[2]
    x = np.stack([r.hidden_states[2]] * 3)  # [3, T, d_model]
    plain = stream_block(r.hidden_states[2], block, 12, minilm.config.eps)
    for mode in ("zero", "uniform"):
        none = stream_block(x, block, 12, minilm.config.eps, ablate_heads=np.full(3, -1), mode=mode)
        for variant in range(3):
            np.testing.assert_allclose(none.output[variant], plain.output, atol=1e-13, rtol=0)
            np.testing.assert_allclose(none.weights[variant], plain.weights, atol=1e-15, rtol=0)
    np.testing.assert_allclose(plain.output, r.hidden_states[3], atol=1e-13, rtol=0)


@pytest.mark.parametrize("mode", ["zero", "uniform"])
def test_a_last_layer_head_leaves_the_lower_layers_alone(minilm, mode):
    base = minilm.encode(SENTENCE, keep="stream")
    off = minilm.encode(SENTENCE, keep="stream", ablation=HeadAblation(5, 7, mode))
    np.testing.assert_array_equal(off.hidden_states[:6], base.hidden_states[:6])
    np.testing.assert_array_equal(off.attentions[:5], base.attentions[:5])
    assert np.abs(off.hidden_states[6] - base.hidden_states[6]).max() > 1e-3
    if mode == "uniform":
        np.testing.assert_allclose(off.attentions[5, 7], 1 / len(base.tokens), atol=1e-15)
    else:  # the head's output is gone from a: a_off = a - head_7 W_o[rows of head 7]
        full = minilm.encode(SENTENCE).layers[5]
        expected = full.output - full.heads[7] @ minilm.blocks[5].w_o[7 * 32 : 8 * 32]
        np.testing.assert_allclose(off.attention_updates[5], expected, atol=1e-12)


def test_all_72_ablations_at_once_equal_one_at_a_time(minilm):
    result = tl.head_ablation(SENTENCE, PAIR, dtype=np.float64, encoder=minilm)
    base, pair = minilm.encode(SENTENCE), minilm.encode(PAIR)
    assert result.similarity == pytest.approx(base.sentence_embedding @ pair.sentence_embedding, abs=1e-12)
    for layer, head in [(0, 0), (2, 5), (5, 11)]:
        off = HeadAblation(layer, head, "zero")
        e = minilm.encode(SENTENCE, keep="stream", ablation=off).sentence_embedding
        p = minilm.encode(PAIR, keep="stream", ablation=off).sentence_embedding
        assert result.embedding_shift[layer, head] == pytest.approx(1 - e @ base.sentence_embedding, abs=1e-12)
        assert result.ablated_similarity[layer, head] == pytest.approx(e @ p, abs=1e-12)
    np.testing.assert_allclose(result.similarity_shift, result.ablated_similarity - result.similarity, atol=1e-15)


def test_ablation_ranks_and_rank_correlations(minilm):
    result = tl.head_ablation(SENTENCE, mode="uniform", encoder=minilm)
    assert result.embedding_shift.shape == (6, 12) and result.pair_pieces is None and result.similarity is None
    assert (result.embedding_shift > -1e-6).all() and result.embedding_shift.max() > 1e-4
    assert sorted(result.effect_rank.ravel()) == list(range(1, 73)) == sorted(result.peak_rank.ravel())
    top = np.unravel_index(np.argmax(result.embedding_shift), (6, 12))
    assert result.effect_rank[top] == 1
    maps = minilm.encode(SENTENCE, dtype=np.float32, keep="stream").attentions.astype(np.float64)
    np.testing.assert_allclose(result.mean_max_weight, maps.max(axis=-1).mean(axis=-1), atol=1e-12)
    entropy = -(maps * np.log(np.where(maps > 0, maps, 1.0))).sum(axis=-1).mean(axis=-1)
    np.testing.assert_allclose(result.mean_entropy, entropy, atol=1e-9)
    assert result.spearman_max_weight == pytest.approx(tl.spearman(result.embedding_shift, result.mean_max_weight))
    assert -1 <= result.spearman_entropy <= 1


def test_spearman_is_pearson_of_average_ranks():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=50), rng.normal(size=50)

    def ranks(x):  # every value's rank, a tie getting the mean of the places it spans
        return np.array([np.sum(x < v) + (np.sum(x == v) + 1) / 2 for v in x])

    assert tl.spearman(a, b) == pytest.approx(np.corrcoef(ranks(a), ranks(b))[0, 1], abs=1e-12)
    assert tl.spearman(a, np.exp(a)) == pytest.approx(1.0) and tl.spearman(a, -a) == pytest.approx(-1.0)
    tied = np.round(a)  # many ties
    assert tl.spearman(tied, b) == pytest.approx(np.corrcoef(ranks(tied), ranks(b))[0, 1], abs=1e-12)
    assert tl.spearman(np.ones(5), b[:5]) is None
    with pytest.raises(ValueError, match="equally long"):
        tl.spearman(a, b[:10])


def test_ablation_checks_its_arguments(minilm):
    with pytest.raises(ValueError, match="mode"):
        tl.head_ablation(SENTENCE, mode="random", encoder=minilm)
    with pytest.raises(ValueError, match="counted from 0"):
        minilm.encode(SENTENCE, keep="stream", ablation=HeadAblation(6, 0))
    with pytest.raises(ValueError, match="keep='stream'"):
        minilm.encode(SENTENCE, ablation=HeadAblation(0, 0))
    with pytest.raises(ValueError, match="mode"):
        minilm.encode(SENTENCE, keep="stream", ablation=HeadAblation(0, 0, "half"))
    x = minilm.encode(SENTENCE, keep="stream").hidden_states[0]
    block = minilm.lean_blocks(np.float64)[0]
    with pytest.raises(ValueError, match="mode"):
        stream_block(x, block, 12, minilm.config.eps, ablate_heads=3, mode="half")
    with pytest.raises(ValueError, match=r"0\.\.11 \(or -1 for none\)"):
        stream_block(x, block, 12, minilm.config.eps, ablate_heads=12)


# --- bad input: clear fields, never an exception -----------------------------------------------------


@pytest.mark.parametrize("case", list(BAD_TEXTS))
def test_every_text_function_reads_bad_input(minilm, case):
    text = BAD_TEXTS[case]
    views = [
        tl.layer_view(text, 6, encoder=minilm),
        tl.token_paths(text, encoder=minilm),
        tl.text_rollout(text, encoder=minilm),
        tl.head_ablation(text, pair_text=text, encoder=minilm),
    ]
    for view in views:
        p = view.pieces
        assert p.tokens[0] == "[CLS]" and p.tokens[-1] == "[SEP]" and p.n_pieces == len(p.tokens) <= 64
        assert p.n_characters == len(text) and p.n_cut == p.total_pieces - p.n_pieces >= 0
        assert p.n_unknown == sum(p.is_unknown) == p.tokens.count(UNKNOWN)
        assert p.empty == (p.n_pieces == 2)
    paths, ablation = views[1], views[3]
    assert np.isfinite(paths.attention_ratio).all() and np.isfinite(ablation.embedding_shift).all()
    if case in ("empty", "control characters only"):
        assert views[0].pieces.empty and paths.neighbours.shape[-1] == 1  # [CLS] has only [SEP] to be near
    if case == "10,000 characters":
        assert views[0].pieces.truncated and views[0].pieces.n_pieces == 64 and views[0].pieces.n_cut > 2000
    if case == "Chinese":
        assert views[0].pieces.n_unknown >= 2
    if case == "one 10,000-character word":  # longer than any word the tokenizer splits: one [UNK]
        assert views[0].pieces.tokens == ("[CLS]", UNKNOWN, "[SEP]")
    if case == "HTML":
        assert "<" in views[0].pieces.tokens  # the markup is text to the model, read piece by piece


def test_bad_arguments_are_value_errors(minilm):
    with pytest.raises(ValueError, match="lone UTF-16 surrogate"):
        tl.token_paths("bad \ud800 text", encoder=minilm)
    for layer_number in (0, 7):
        with pytest.raises(ValueError, match="layers 1 to 6"):
            tl.layer_view(SENTENCE, layer_number, encoder=minilm)
    with pytest.raises(ValueError, match="at least one"):
        tl.token_paths(SENTENCE, k=0, encoder=minilm)
    with pytest.raises(ValueError, match="max_tokens"):
        tl.text_rollout(SENTENCE, max_tokens=1, encoder=minilm)


# --- layer_stages and ranking_agreement (the whole-layer page's walk and its verdict) ---------------


def test_layer_stages_are_the_blocks_arrays_in_order_with_their_norms(minilm):
    view = tl.layer_view(SENTENCE, 2, encoder=minilm)
    stages = {s.name: s for s in tl.layer_stages(view)}
    assert tuple(stages) == tl.STAGES
    T, b = view.pieces.n_pieces, view.block
    assert stages["input"].array is b.input and stages["weights"].array is b.attention.weights
    assert stages["q"].array.shape == (12, T, 32) and stages["ff_hidden"].array.shape == (T, 1536)
    # the 12 heads' rows of one piece together are that piece's row of Q before the split
    np.testing.assert_allclose(stages["q"].token_norms, np.linalg.norm(b.attention.q, axis=-1))
    np.testing.assert_allclose(stages["weights"].token_norms, np.linalg.norm(b.attention.weights, axis=(0, 2)))
    np.testing.assert_allclose(stages["segment"].token_norms, np.linalg.norm(view.embedding.segment))
    assert stages["output"].mean == pytest.approx(float(np.mean(b.output)))
    assert stages["ff_activation"].std == pytest.approx(float(np.std(gelu(b.ff_hidden))), rel=1e-6)


def _ablation_with(shift: np.ndarray, peak: np.ndarray) -> tl.AblationResult:
    """An AblationResult whose two rankings are given, the rest left empty."""
    return tl.AblationResult(
        pieces=None, pair_pieces=None, mode="zero", embedding_shift=shift, similarity=None,
        ablated_similarity=None, similarity_shift=None, mean_max_weight=peak, mean_entropy=peak,
        effect_rank=tl.descending_rank(shift), peak_rank=tl.descending_rank(peak),
        spearman_max_weight=tl.spearman(shift, peak), spearman_entropy=None, similarity_spearman_max_weight=None,
    )  # fmt: skip


def test_ranking_agreement_on_rankings_worked_by_hand():
    shift = np.array([[0.9, 0.1, 0.5], [0.3, 0.7, 0.2]])  # effect order: (0,0) (1,1) (0,2) (1,0) (1,2) (0,1)
    peak = np.array([[0.2, 0.8, 0.6], [0.1, 0.9, 0.3]])  # peak order: (1,1) (0,1) (0,2) (1,2) (0,0) (1,0)
    r = tl.ranking_agreement(_ablation_with(shift, peak), k=3)
    assert r.top_effect == ((0, 0), (1, 1), (0, 2)) and r.top_peaked == ((1, 1), (0, 1), (0, 2))
    assert r.shared == ((1, 1), (0, 2))
    assert r.effect_rank_of_peaked == (2, 6, 3)
    # ranks (1 = smallest) shift 6 1 4 3 5 2, peak 2 5 4 1 6 3: d = 4 -4 0 2 -1 -1, Σd² = 38
    assert r.spearman == pytest.approx(1 - 6 * 38 / (6 * 35)) and r.verdict == "unrelated"
    assert tl.ranking_agreement(_ablation_with(shift, shift), k=2).verdict == "agree"
    assert tl.ranking_agreement(_ablation_with(shift, -shift), k=2).verdict == "opposite"
    assert tl.ranking_agreement(_ablation_with(shift, np.ones_like(shift)), k=2).verdict == "none"
    with pytest.raises(ValueError, match="between 1 and 6"):
        tl.ranking_agreement(_ablation_with(shift, peak), k=7)
