"""attention_core.train_views: the per-word ceiling, the first step at a level, attention entropy,
example words of each tag."""

import numpy as np
import pytest

from attention_core.train import Config, fit, order_task, saw_task
from attention_core.train_tasks import AMBIGUOUS_WORDS
from attention_core.train_views import (
    attention_entropy,
    first_step_at,
    per_word_ceiling,
    tag_counts,
    tag_examples,
    word_ceiling,
)


@pytest.mark.parametrize("seed", [0, 3])
def test_a_per_word_tagger_can_reach_half_of_the_balanced_ambiguous_words(seed):
    assert word_ceiling(saw_task(seed)) == 0.5
    assert word_ceiling(order_task(seed)) == 0.5
    counts = tag_counts(saw_task(seed))  # [V, C]
    assert counts.sum() == saw_task(seed).ambiguous.sum()


def test_the_ceiling_takes_each_words_more_frequent_tag():
    assert per_word_ceiling([[3, 1], [0, 4]]) == 7 / 8
    assert per_word_ceiling([[5, 5]]) == 0.5
    for bad in ([[0, 0]], [1, 2], [[-1, 3]]):
        with pytest.raises(ValueError):
            per_word_ceiling(bad)


def test_first_step_at_a_level():
    assert first_step_at([0, 10, 20, 30], [0.1, 0.5, 0.95, 0.9], 0.9) == 20
    assert first_step_at([0, 10], [0.1, 0.5], 0.9) is None


def test_entropy_is_ln_T_for_uniform_rows_and_zero_for_one_hot_and_no_attention():
    T = 5
    uniform = np.full((2, 1, 2, T, T), 1 / T)
    np.testing.assert_allclose(attention_entropy(uniform), [np.log(T)] * 2)
    one_hot = np.broadcast_to(np.eye(T), (3, 1, 1, T, T))
    np.testing.assert_allclose(attention_entropy(one_hot), [0, 0, 0], atol=1e-12)
    assert attention_entropy(np.zeros((4, 0, 0, T, T))).tolist() == [0, 0, 0, 0]


def test_the_trained_maps_sharpen():
    result = fit(Config(), saw_task(), 60, 0.01, 0)
    entropy = attention_entropy(result.attention_frames)  # [n_frames]
    assert entropy[0] > entropy[-1] and entropy[0] <= np.log(5) + 1e-9


@pytest.mark.parametrize("make", [saw_task, order_task])
def test_each_tags_examples_are_words_the_training_sentences_tag_so(make):
    task = make()
    examples = tag_examples(task, 2)
    assert len(examples) == len(task.tags)
    for c, words in enumerate(examples):
        tagged = {task.vocab[i] for i in task.train_tokens[task.train_tags == c]}
        assert 1 <= len(words) <= 2 and set(words) <= tagged, task.tags[c]


def test_examples_come_in_vocabulary_order_so_nouns_and_verbs_are_unambiguous_ones():
    examples = dict(zip(saw_task().tags, tag_examples(saw_task(), 1), strict=True))
    assert examples["PRON"] == ("I",) and examples["PUNCT"] == (".",)
    assert not {examples["NOUN"][0], examples["VERB"][0]} & set(AMBIGUOUS_WORDS)
    with pytest.raises(ValueError):
        tag_examples(saw_task(), 0)
