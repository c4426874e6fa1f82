"""attention_core.heatmap_views: each view holds the weights the core's own functions give, and says
where they came from; one query's row and output; the head linking two words; the causal check."""

import numpy as np
import pytest

import attention_core.pretrained as pretrained
from attention_core import causal_mask, local_mask, split_tokens, token_vectors
from attention_core.heatmap_views import (
    ModelHeads,
    attention_mask,
    causal_check,
    model_heads,
    model_view,
    query_row,
    random_view,
    shipped_view,
    strongest_link,
)
from attention_core.normalisation import attend, random_qkv, reweight
from attention_core.shipped import load_examples

EXAMPLES = {e.id: e for e in load_examples()}
TOKENS = tuple(split_tokens("The animal didn't cross the street because it was too tired."))


def test_random_view_is_attend_on_random_projections():
    view = random_view(TOKENS, 8, 3, mask="causal", temperature=0.5)
    q, k, v = random_qkv(token_vectors(list(TOKENS), 8, 3), 8, 3)
    expected = attend(q, k, v, mask=causal_mask(len(TOKENS)), temperature=0.5)
    np.testing.assert_allclose(view.weights, expected.weights)
    np.testing.assert_allclose(view.values, v)
    np.testing.assert_array_equal(view.allowed, causal_mask(len(TOKENS)))
    np.testing.assert_allclose(view.row_sums, 1.0)
    assert (view.source, view.d, view.seed, view.layer, view.head) == ("random", 8, 3, None, None)
    assert (view.mask, view.temperature, view.normalisation, view.total_tokens) == ("causal", 0.5, "softmax", 12)
    assert view.live.all()


def test_random_view_relu_rows_need_not_sum_to_one():
    view = random_view(TOKENS, 8, 0, normalisation="relu")
    assert view.normalisation == "relu" and view.allowed is None
    assert np.abs(view.row_sums - 1).max() > 0.1
    np.testing.assert_allclose(view.row_sums, view.weights.sum(axis=1))


def test_random_view_cuts_to_max_tokens_and_remembers_the_total():
    view = random_view(("word",) * 100, 4, 0, max_tokens=64)
    assert len(view.tokens) == 64 and view.weights.shape == (64, 64) and view.total_tokens == 100


def test_local_window_and_a_row_with_no_key():
    view = random_view(TOKENS, 4, 0, mask="local", window=1)
    np.testing.assert_array_equal(view.allowed, local_mask(len(TOKENS), 1))
    assert (view.allowed.sum(axis=1) <= 3).all() and view.window == 1
    with pytest.raises(ValueError, match="mask must be one of"):
        attention_mask("sideways", 3)


def test_shipped_view_reweights_the_stored_head_exactly():
    e = EXAMPLES["saw_saw"]
    view = shipped_view(e.tokens, e.attentions, 2, 3, mask="causal", temperature=0.5)
    T = len(e.tokens)
    np.testing.assert_allclose(view.weights, reweight(e.attentions[1, 2], mask=causal_mask(T), temperature=0.5))
    assert view.values is None and view.normalisation == "softmax" and view.source == "shipped"
    assert (view.layer, view.head, view.total_tokens) == (2, 3, T)


def test_model_view_recomputes_the_head_from_its_own_q_k_v():
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(2, 3, 5, 4)) for _ in range(3))  # [L, H, T, d_head]
    heads = ModelHeads(tokens=("[CLS]", "a", "b", "c", "[SEP]"), q=q, k=k, v=v, total_tokens=9)
    view = model_view(heads, 2, 3, mask="local", window=1, temperature=2, normalisation="relu")
    expected = attend(q[1, 2], k[1, 2], v[1, 2], mask=local_mask(5, 1), temperature=2, normalisation="relu")
    np.testing.assert_allclose(view.weights, expected.weights)
    np.testing.assert_allclose(view.values, v[1, 2])
    assert (view.source, view.layer, view.head, view.total_tokens) == ("model", 2, 3, 9)


def test_model_heads_match_the_shipped_maps():
    if not pretrained.minilm_available():
        pytest.skip("the optional model package is not installed")
    e = EXAMPLES["keys_cabinet"]
    heads = model_heads(e.text, max_tokens=64)
    assert heads.tokens == e.tokens and heads.total_tokens == len(e.tokens)
    np.testing.assert_allclose(model_view(heads, 2, 7).weights, e.attentions[1, 6], atol=3e-3)  # float16 storage
    cut = model_heads("Transformers read unbelievably long sentences. " * 20, max_tokens=64)
    assert len(cut.tokens) == 64 and cut.tokens[-1] == "[SEP]" and cut.total_tokens > 64


def test_query_row_is_the_row_and_its_weighted_sum():
    view = random_view(TOKENS, 6, 1, mask="causal")
    row = query_row(view, 7)
    np.testing.assert_allclose(row.weights, view.weights[7])
    np.testing.assert_allclose(row.terms, view.weights[7][:, None] * view.values)
    np.testing.assert_allclose(row.output, view.weights[7] @ view.values)
    np.testing.assert_array_equal(row.allowed, causal_mask(len(TOKENS))[7])
    assert row.best == int(np.argmax(view.weights[7])) and row.total == pytest.approx(1.0)
    e = EXAMPLES["cat_mat"]
    stored = query_row(shipped_view(e.tokens, e.attentions, 1, 1), 2)
    assert stored.terms is None and stored.output is None  # stored weights have no values
    with pytest.raises(ValueError, match="not a token position"):
        query_row(view, len(TOKENS))


def test_strongest_link_finds_the_it_animal_head_by_argmax():
    e = EXAMPLES["animal_tired"]
    layer, head, it = strongest_link(e.attentions, e.tokens, "it", "animal")
    animal = e.tokens.index("animal")
    assert it == e.tokens.index("it")
    assert e.attentions[layer - 1, head - 1, it, animal] == e.attentions[:, :, it, animal].max()


@pytest.mark.parametrize(("T", "n", "hypothetical"), [(16, 16, False), (4, 4, False), (3, 5, True), (1, 5, True)])
def test_causal_check_asks_about_enough_tokens_for_four_different_answers(T, n, hypothetical):
    check = causal_check(T, 3)
    assert (check.k, check.T, check.seen, check.hypothetical) == (3, n, (1, 2, 3), hypothetical)


def test_results_are_read_only():
    view = random_view(TOKENS, 4, 0, mask="causal")
    for a in (view.weights, view.allowed, view.values, view.row_sums, view.live):
        assert not a.flags.writeable
