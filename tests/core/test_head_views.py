"""attention_core.head_views: what the multi-head page shows, checked against the core functions it
is built from and by hand."""

import dataclasses

import numpy as np
import pytest

from attention_core import head_views as hv
from attention_core import multi_head_attention, token_vectors
from attention_core.head_stats import head_overlap, mean_entropy, random_projections
from attention_core.pretrained import minilm_available
from attention_core.shipped import load_examples

EXAMPLES = {e.id: e for e in load_examples()}
needs_model = pytest.mark.skipif(not minilm_available(), reason="the optional model package is absent")


def test_random_view_is_multi_head_attention_with_the_seeds_weights():
    v = hv.random_view(("I", "saw", "a", "saw"), 8, 4, 3)
    x = token_vectors(["I", "saw", "a", "saw"], 8, 3)
    w = random_projections(8, np.random.default_rng(3))
    r = multi_head_attention(x, w.w_q, w.w_k, w.w_v, w.w_o, 4)
    np.testing.assert_array_equal(v.weights, r.weights)
    np.testing.assert_array_equal(v.layer.output, r.output)
    assert (v.source, v.seed, v.T, v.n_heads, v.d_model, v.d_head) == ("random", 3, 4, 4, 8, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.seed = 4


def test_shipped_view_is_the_stored_layer_without_q_k_v():
    v = hv.shipped_view("saw_saw", 5)
    np.testing.assert_array_equal(v.weights, EXAMPLES["saw_saw"].attentions[4])
    assert v.layer is None and (v.source, v.layer_number, v.d_model, v.n_heads, v.d_head) == ("shipped", 5, 384, 12, 32)
    assert hv.model_shape() == (6, 12, 384)
    with pytest.raises(ValueError, match="from 1 to 6"):
        hv.shipped_view("saw_saw", 7)
    with pytest.raises(ValueError, match="no shipped example"):
        hv.shipped_view("nope", 1)


@needs_model
def test_model_view_is_one_layer_of_the_text_cut_to_max_tokens():
    encoded = hv.encode_text("Dogs chase cats. " * 30, 20)
    assert encoded.truncated and len(encoded.tokens) == 20 and encoded.tokens[-1] == "[SEP]"
    v = hv.model_view(encoded, 3)
    np.testing.assert_array_equal(v.weights, encoded.attentions[2])
    assert v.layer is encoded.layers[2] and v.truncated and v.total_tokens == encoded.total_tokens
    e = EXAMPLES["cat_mat"]
    np.testing.assert_allclose(hv.model_view(hv.encode_text(e.text, 48), 2).weights, e.attentions[1], atol=3e-3)
    with pytest.raises(ValueError, match="broken character"):
        hv.encode_text("\ud800", 48)  # the page falls back to its example sentence


def test_the_clearest_layer_overlaps_least_and_its_focus_is_the_sharpest_head():
    maps = EXAMPLES["animal_wide"].attentions
    c = hv.clearest_view("animal_wide")
    overlaps = [np.mean(head_overlap(m)[~np.eye(12, dtype=bool)]) for m in maps]
    assert c.layer == 1 + int(np.argmin(overlaps))
    assert c.focus == 1 + int(np.argmin(mean_entropy(maps[c.layer - 1])))


@pytest.mark.parametrize(
    ("d_model", "wanted", "expected"),
    [
        (8, 4, (4, "ok")),
        (8, None, (2, "ok")),
        (10, 4, (2, "not_divisor")),
        (18, 4, (3, "not_divisor")),
        (64, 32, (16, "too_many")),
        (8, 0, (2, "too_few")),
        (8, -3, (2, "too_few")),
        (8, "abc", (2, "not_number")),
        (8, "2.5", (2, "not_number")),
        (8, "1e309", (2, "not_number")),
        (8, "4", (4, "ok")),
        (17, 2, (1, "not_divisor")),
        (9, None, (9, "ok")),
    ],  # 2 does not divide 9: the largest option
)
def test_fit_heads_keeps_a_divisor_and_otherwise_says_why(d_model, wanted, expected):
    fit = hv.fit_heads(d_model, wanted, 16, 2)
    assert (fit.n_heads, fit.reason) == expected
    assert d_model % fit.n_heads == 0 and fit.n_heads in fit.options
    assert fit.ratio == (d_model / int(wanted) if fit.reason == "not_divisor" else None)  # 10 / 4 = 2.5 per head


def test_the_articles_scaling_mistake_flattens_the_maps():
    v = hv.random_view(tuple(["the", "cat", "sat", "on", "the", "mat"]), 64, 2, 0)
    m = hv.scaling_mistake(v)
    assert m.d_head == 32 and m.factors == pytest.approx((1 / np.sqrt(32), 1 / 32))
    np.testing.assert_array_equal(m.weights[0], v.weights)  # the right one is the layer's own
    assert m.entropy[1] > m.entropy[0] and m.peak[1] < m.peak[0]  # dividing by d_head: flatter, lower peaks
    np.testing.assert_allclose(m.entropy[0], mean_entropy(v.weights).mean())


def test_the_heads_scores_add_up_and_the_join_only_moves_numbers():
    v = hv.random_view(tuple(["attention", "is", "all", "you", "need"]), 24, 6, 2)
    assert hv.scores_gap(v) < 1e-12
    assert hv.concat_gap(v) == 0.0


def test_head_differences_by_hand():
    # Head 0 looks at the previous token (the first query at itself), head 1 at the first token,
    # head 2 is the same as head 0: heads 0 and 2 are the most alike, 0 and 1 overlap in query 0 and 1.
    back = np.array([[1.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    first = np.array([[1.0, 0, 0], [1, 0, 0], [1, 0, 0]])
    d = hv.head_differences(np.stack([back, first, back]))
    assert (d.most_alike.a, d.most_alike.b, d.most_alike.overlap) == (0, 2, 1.0)
    assert (d.least_alike.a, d.least_alike.b) == (0, 1) and d.least_alike.overlap == pytest.approx(2 / 3)
    # Head 1's query 1 looks at token 0, which is also its previous token: one of the two queries that
    # have a previous token, a share of 1/2, which counts as a job at JOB_SHARE = 0.5.
    assert [(j.head, j.pattern) for j in d.jobs] == [
        (0, "previous"),
        (0, "first"),
        (1, "previous"),
        (1, "first"),
        (2, "previous"),
        (2, "first"),
    ]
    assert [j.share for j in d.jobs if j.pattern == "previous"] == [1.0, 0.5, 1.0]
    assert d.uniform_bits == pytest.approx(np.log2(3)) and d.most_focused == 0
    one = hv.head_differences(back[None])
    assert one.most_alike is None and one.least_alike is None


def test_cost_comparison_h_heads_against_one_wide_head():
    c = hv.cost_comparison(384, 12, 16)
    assert c.same_parameters and c.many.total == c.one.total == 4 * 384**2
    assert c.rows == ("qkv_per_head", "qkv", "w_o", "total", "score_products", "softmax_rows")
    assert (c.many.softmax_rows, c.one.softmax_rows) == (12 * 16, 16)


def test_the_multi_head_page_and_the_real_model_page_agree_on_the_previous_token_head():
    # "The animal didn't cross the street because it was too tired.", layer 1, head 3: the multi-head
    # page said "the previous token (94%)", the real-model page 1.00. The 94% was 15/16: the first row,
    # which has no previous token, counted 0. Both measures now average over the rows that have one.
    from attention_core import attention_views as av

    real = av.build_view(av.example_maps("animal_tired"), hide=False)
    assert (real.previous.layer, real.previous.head) == (0, 2)
    diff = hv.head_differences(hv.shipped_view("animal_tired", 1).weights)
    (job,) = [j for j in diff.jobs if j.head == 2 and j.pattern == "previous"]
    assert f"{job.share:.0%}" == "100%" and f"{real.previous.share:.2f}" == "1.00"
    assert job.share == pytest.approx(real.previous.share, abs=0.005)
