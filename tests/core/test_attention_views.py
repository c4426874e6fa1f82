"""attention_core.attention_views: hand-worked maps, properties, and messages a student can act on."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core.pretrained as pretrained
from attention_core import softmax
from attention_core.attention_views import (
    PATTERNS,
    ModelMaps,
    build_view,
    check_answers,
    default_link,
    example_maps,
    find_anchors,
    find_link,
    head_numbers,
    head_special_share,
    hide_tokens,
    job_targets,
    pattern_shares,
    read_text,
    rows_apart,
    special_positions,
    special_share,
    strongest,
    text_maps,
    word_positions,
)
from attention_core.shipped import load_examples

TOKENS = ["[CLS]", "i", "saw", "a", "saw", "[SEP]"]
# Rows by hand: [CLS] looks at itself; "i" splits .5 [CLS] / .5 [SEP]; the first "saw" gives .6 to
# "i" (previous) and .4 to [SEP]; "a" .2 to [CLS], .8 to the first "saw" (previous); the second
# "saw" .5 to "a" (previous) and .5 to the first "saw" (same word); [SEP] looks at itself.
ALPHA = np.array(
    [
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.5, 0.0, 0.0, 0.0, 0.0, 0.5],
        [0.0, 0.6, 0.0, 0.0, 0.0, 0.4],
        [0.2, 0.0, 0.8, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.5, 0.5, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
    ]
)


def random_maps(rng, shape) -> np.ndarray:
    return softmax(rng.normal(size=shape) * 3)


# --- hand-worked examples -----------------------------------------------------------------------


def test_special_positions_anywhere_in_the_text():
    assert special_positions(TOKENS).tolist() == [True, False, False, False, False, True]
    assert special_positions(["[CLS]", "a", "[SEP]", "b", "[SEP]"]).tolist() == [True, False, True, False, True]
    assert special_positions(["[UNK]", "cls", "[cls]"]).tolist() == [False, False, False]


def test_special_share_by_hand():
    special = special_positions(TOKENS)
    np.testing.assert_allclose(special_share(ALPHA, special), [1.0, 1.0, 0.4, 0.2, 0.0, 1.0])
    # word queries only: (1.0 + 0.4 + 0.2 + 0.0) / 4 = 0.4
    assert head_special_share(ALPHA, special) == pytest.approx(0.4)
    stacked = np.stack([ALPHA, np.eye(6)])  # the identity map parks nothing on [CLS]/[SEP] from a word
    np.testing.assert_allclose(head_special_share(stacked, special), [0.4, 0.0])


def test_hide_tokens_by_hand():
    shown = hide_tokens(ALPHA, special_positions(TOKENS))
    # "i" gave everything to [CLS]/[SEP]: nothing left, the row stays 0. The first "saw" kept
    # 0.6, all on "i": 1. "a": 0.8 on the first "saw" -> 1. Second "saw": untouched, .5 / .5.
    expected = [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0.5, 0.5, 0]]
    np.testing.assert_allclose(shown, expected, atol=1e-12)


def test_hide_nothing_changes_nothing_and_keeps_leading_dims():
    maps = random_maps(np.random.default_rng(0), (2, 3, 5, 5))
    np.testing.assert_allclose(hide_tokens(maps, np.zeros(5, dtype=bool)), maps, atol=1e-15)
    hidden = np.array([True, False, False, True, False])
    assert hide_tokens(maps, hidden).shape == (2, 3, 3, 3)


def test_pattern_shares_by_hand():
    previous, following, itself, same = pattern_shares(ALPHA, TOKENS)
    # previous: word queries with a word before them are saw(2), a(3), saw(4): .6, .8, .5 -> 19/30
    assert previous == pytest.approx((0.6 + 0.8 + 0.5) / 3)
    # next: i(1), saw(2), a(3) have a word after them; none of them looks there
    assert following == pytest.approx(0.0)
    # self: no word looks at itself
    assert itself == pytest.approx(0.0)
    # same: the two "saw"s; the first gives 0 to the second, the second .5 to the first
    assert same == pytest.approx(0.25)
    assert PATTERNS == ("previous", "next", "self", "same")


def test_unknown_pieces_are_never_the_same_word_piece():
    """猫 and 狗 both read [UNK]: the "same word piece" job and the two-contexts pair leave them out
    (issue 26 #9), while a known repeat still counts."""
    unk = ["[CLS]", "[UNK]", "saw", "[UNK]", "saw", "[SEP]"]
    same = job_targets(unk, 6)[3]
    assert not same[1, 3] and not same[3, 1]  # two [UNK]s: perhaps two different characters
    assert same[2, 4] and same[4, 2]
    assert pattern_shares(ALPHA, unk)[3] == pytest.approx(pattern_shares(ALPHA, TOKENS)[3])  # only the saws
    only_unk = ["[CLS]", "[UNK]", "a", "[UNK]", "b", "[SEP]"]
    assert np.isnan(pattern_shares(ALPHA, only_unk)[3])  # no known repeat: the job does not occur
    maps = np.broadcast_to(ALPHA, (2, 3, 6, 6))
    assert build_view(ModelMaps(tuple(only_unk), maps, False), hide=False).apart is None


def test_pattern_shares_of_perfect_heads():
    T, tokens = 6, ["[CLS]", "a", "b", "c", "d", "[SEP]"]
    shift_back = np.eye(T, k=-1)  # row i looks at i-1
    shift_back[0, 0] = 1
    shift_fwd = np.eye(T, k=1)
    shift_fwd[-1, -1] = 1
    shares = pattern_shares(np.stack([shift_back, shift_fwd, np.eye(T)]), tokens)
    np.testing.assert_allclose(shares[:, :3], np.eye(3))
    assert np.isnan(shares[:, 3]).all()  # no repeated word: "same" does not occur


def test_pattern_shares_nan_when_no_query_has_a_target():
    shares = pattern_shares(softmax(np.zeros((3, 3))), ["[CLS]", "hello", "[SEP]"])
    assert np.isnan(shares[0]) and np.isnan(shares[1]) and np.isnan(shares[3])  # one word: no neighbours
    assert shares[2] == pytest.approx(1 / 3)


def test_strongest_ignores_nan():
    assert strongest(np.array([[0.1, np.nan], [0.7, 0.3]])) == (1, 0)
    with pytest.raises(ValueError, match="does not occur"):
        strongest(np.full((2, 2), np.nan))


def test_rows_apart_by_hand():
    assert rows_apart(ALPHA, 2, 4) == pytest.approx(0.5 * (0.6 + 0.5 + 0.5 + 0.4))  # 1.0: no key in common
    assert rows_apart(ALPHA, 0, 0) == 0.0


# --- the shipped real model -----------------------------------------------------------------------


def test_real_heads_with_jobs_are_found():
    """all-MiniLM-L6-v2 has a previous-token head that is nearly perfect in every English example,
    and its two "saw"s attend differently in some head."""
    for e in load_examples():
        if e.id == "cat_river_zh":
            continue
        shares = pattern_shares(e.attentions, e.tokens)  # [6, 12, 4]
        layer, head = strongest(shares[..., 0])
        assert shares[layer, head, 0] > 0.9, e.id
    saw = next(e for e in load_examples() if e.id == "saw_saw")
    assert rows_apart(saw.attentions, 2, 4).max() > 0.9


def test_most_heads_park_much_of_their_attention_on_cls_and_sep():
    for e in load_examples():
        share = head_special_share(e.attentions, special_positions(e.tokens))  # [6, 12]
        assert share.shape == (6, 12)
        assert (share > 0.5).sum() >= 24, e.id  # at least a third of the 72 heads


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), T=st.integers(2, 9), data=st.data())
def test_hidden_rows_sum_to_one_and_keep_their_order(seed, T, data):
    rng = np.random.default_rng(seed)
    maps = random_maps(rng, (2, T, T))
    hidden = np.array(data.draw(st.lists(st.booleans(), min_size=T, max_size=T)), dtype=bool)
    if hidden.all():
        hidden[0] = False
    shown = hide_tokens(maps, hidden)
    np.testing.assert_allclose(shown.sum(axis=-1), 1.0, atol=1e-12)  # softmax rows are never all 0
    kept = ~hidden
    sub = maps[:, kept][:, :, kept]
    # within a row, re-normalising only rescales: the ratios of any two kept weights stay
    np.testing.assert_allclose(shown * sub.sum(axis=-1, keepdims=True), sub, atol=1e-12)
    # what was hidden plus what was kept is the whole row
    share = special_share(maps, hidden)[:, kept]
    np.testing.assert_allclose(share + sub.sum(axis=-1), 1.0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), T=st.integers(3, 8))
def test_shares_are_between_zero_and_one(seed, T):
    maps = random_maps(np.random.default_rng(seed), (3, T, T))
    tokens = ["[CLS]", *(["w", "v"] * T)[: T - 2], "[SEP]"]
    shares = pattern_shares(maps, tokens)
    found = shares[~np.isnan(shares)]
    assert found.size and np.all((found >= 0) & (found <= 1 + 1e-12))
    assert not np.isnan(shares[..., 2]).any()  # every word has itself
    apart = rows_apart(maps, 1, T - 2)
    assert np.all((apart >= 0) & (apart <= 1 + 1e-12))


# --- messages a student can act on ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: hide_tokens(ALPHA, np.ones(6, dtype=bool)), "keep at least one token"),
        (lambda: hide_tokens(ALPHA, np.ones(5, dtype=bool)), "6 of them"),
        (lambda: hide_tokens(ALPHA, np.ones(6)), "True/False"),
        (lambda: head_special_share(np.eye(2), np.ones(2, dtype=bool)), "type at least one word"),
        (lambda: pattern_shares(ALPHA, TOKENS[:5]), "must match"),
        (lambda: pattern_shares(ALPHA[:, :5], TOKENS), "square"),
        (lambda: special_share(-ALPHA, special_positions(TOKENS)), "never negative"),
        (lambda: special_share(np.ones(3), np.ones(3, dtype=bool)), r"\[..., T_q, T_k\]"),
        (lambda: rows_apart(ALPHA, 0, 6), "positions 0..5"),
        (lambda: strongest(np.ones(3)), r"\[L, H\]"),
    ],
)
def test_messages(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- the real-model page's analysis ----------------------------------------------------------------

EXAMPLES = {e.id: e for e in load_examples()}


def test_build_view_by_hand():
    maps = np.broadcast_to(ALPHA, (2, 3, 6, 6))  # [L, H, T, T], every head the hand-made map
    view = build_view(ModelMaps(tuple(TOKENS), maps, False), hide=False)
    assert view.tokens == tuple(TOKENS) and view.shown_tokens == tuple(TOKENS) and not view.hidden
    np.testing.assert_array_equal(view.kept, np.arange(6))
    np.testing.assert_allclose(view.maps, maps, atol=1e-7)  # float32 for drawing
    np.testing.assert_allclose(view.share, 0.4)  # (1 + .4 + .2 + 0) / 4 word queries
    np.testing.assert_allclose(view.patterns, np.broadcast_to(pattern_shares(ALPHA, TOKENS), (2, 3, 4)))
    assert [j.pattern for j in view.jobs] == list(PATTERNS)  # every job has a target in this text
    assert view.jobs[1].share == 0  # nobody looks at the next word
    assert view.previous.share == pytest.approx((0.6 + 0.8 + 0.5) / 3)
    assert (view.apart.first, view.apart.second) == (2, 4)  # the two "saw"s
    assert view.apart.distance == pytest.approx(rows_apart(ALPHA, 2, 4))
    assert view.empty_rows == 0 and view.top_park == (0, 0)


def test_build_view_hiding_cls_and_sep():
    maps = np.broadcast_to(ALPHA, (1, 2, 6, 6))
    view = build_view(ModelMaps(tuple(TOKENS), maps, False), hide=True)
    np.testing.assert_array_equal(view.kept, [1, 2, 3, 4])
    assert view.shown_tokens == ("i", "saw", "a", "saw")
    np.testing.assert_allclose(view.maps[0, 0], hide_tokens(ALPHA, special_positions(TOKENS)), atol=1e-7)
    assert view.empty_rows == 2  # "i" gave everything to [CLS]/[SEP]: in both heads
    np.testing.assert_allclose(view.share, 0.4)  # measured on the maps as the model made them
    np.testing.assert_array_equal(view.raw, maps)
    assert not view.maps.flags.writeable and not view.share.flags.writeable


def test_head_numbers_cut_to_a_limit_with_a_rest_column():
    e = EXAMPLES["bank_river"]
    view = build_view(example_maps(e.id), hide=False)
    whole = head_numbers(view, 2, 4)
    np.testing.assert_allclose(whole.weights, e.attentions[2, 4], atol=1e-6)
    assert whole.rest == 0 and list(whole.positions) == list(range(len(e.tokens)))
    cut = head_numbers(view, 2, 4, limit=5)
    assert cut.weights.shape == (5, 6) and cut.rest == len(e.tokens) - 5
    np.testing.assert_allclose(cut.weights[:, -1], e.attentions[2, 4, :5, 5:].sum(axis=1), atol=1e-6)
    np.testing.assert_allclose(cut.row_sums, 1.0, atol=1e-5)  # every drawn row still sums to 1


def test_find_a_head_linking_two_words():
    e = EXAMPLES["keys_cabinet"]
    view = build_view(example_maps(e.id), hide=False)
    q, k = e.tokens.index("are"), e.tokens.index("keys")
    link = find_link(view, q, k)
    assert (link.layer, link.head) == strongest(e.attentions[:, :, q, k])
    assert link.weight == pytest.approx(e.attentions[link.layer, link.head, q, k], abs=1e-6)
    assert link.top == int(np.argmax(e.attentions[link.layer, link.head, q]))
    assert word_positions(view) == tuple(range(1, len(e.tokens) - 1))
    with pytest.raises(ValueError, match="drawn tokens"):
        find_link(build_view(example_maps(e.id), hide=True), 0, k)  # [CLS] is hidden


def test_default_link_starts_at_it_and_a_word_at_least_two_places_away():
    e = EXAMPLES["animal_wide"]
    view = build_view(example_maps(e.id), hide=False)
    q, k = default_link(view)
    assert q == e.tokens.index("it") and abs(k - q) > 1 and k not in (0, len(e.tokens) - 1)
    far = [p for p in word_positions(view) if abs(p - q) > 1]
    assert e.attentions[:, :, q, k].max() == pytest.approx(max(e.attentions[:, :, q, p].max() for p in far))
    cat = EXAMPLES["cat_mat"]  # no "it": the last word asks
    assert default_link(build_view(example_maps(cat.id), hide=False))[0] == len(cat.tokens) - 2


def test_check_answers_are_computed():
    e = EXAMPLES["cat_mat"]
    view = build_view(example_maps(e.id), hide=False)
    answers = check_answers(view, 4, 5)
    words = word_positions(view)
    assert answers.ask == words[len(words) // 2]
    layer, head = strongest(pattern_shares(e.attentions, e.tokens)[..., 0])
    assert (answers.previous.layer, answers.previous.head) == (layer, head)
    assert answers.best == int(np.argmax(e.attentions[layer, head, answers.ask])) == answers.ask - 1
    assert answers.best in answers.options and len(set(answers.options)) == len(answers.options)
    assert answers.parked == pytest.approx(e.attentions[4, 5, answers.ask, 0] + e.attentions[4, 5, answers.ask, -1])
    one = build_view(ModelMaps(("[CLS]", "hello", "[SEP]"), softmax(np.zeros((1, 1, 3, 3))), False), hide=False)
    assert check_answers(one, 0, 0).previous is None  # one word has no previous word


def test_anchors_are_found_on_the_shipped_examples():
    anchors = find_anchors()
    animal = EXAMPLES["animal_tired"]
    it, noun = animal.tokens.index("it"), animal.tokens.index("animal")
    assert anchors.animal == (*strongest(animal.attentions[:, :, it, noun]), it, noun)
    saw = EXAMPLES["saw_saw"]
    assert anchors.saw == (*strongest(rows_apart(saw.attentions, 2, 4)), 4, 2)
    assert anchors.longest == "animal_wide"  # as long as the animal sentence: the other one
    words = EXAMPLES["animal_wide"].tokens
    assert anchors.longest_link == (words.index("it"), words.index("street"))


def test_text_maps_with_the_full_model():
    if not pretrained.minilm_available():
        pytest.skip("the optional model package is not installed")
    e = EXAMPLES["saw_saw"]
    maps = text_maps(e.text)
    assert maps.tokens == e.tokens and not maps.truncated and maps.maps.dtype == np.float32
    np.testing.assert_allclose(maps.maps, e.attentions, atol=3e-3)
    assert text_maps("word " * 300).truncated
    fallback = "The cat sat on the mat."
    assert read_text("I saw a saw.", fallback).problem is None
    for text, problem in (("   ", "empty"), ("\u200b\x00", "no_words")):
        reading = read_text(text, fallback)
        assert reading.problem == problem and reading.maps.tokens == EXAMPLES["cat_mat"].tokens


def test_example_maps_are_the_shipped_ones():
    e = EXAMPLES["bank_river"]
    maps = example_maps("bank_river")
    assert maps.tokens == e.tokens and maps.maps is e.attentions and not maps.truncated
    with pytest.raises(ValueError, match="no shipped example"):
        example_maps("nope")
