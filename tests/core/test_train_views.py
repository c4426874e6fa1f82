"""attention_core.train_views: the per-word ceiling, the first step at a level, attention entropy."""

import numpy as np
import pytest

from attention_core.train import Config, fit, order_task, saw_task
from attention_core.train_views import attention_entropy, first_step_at, per_word_ceiling, tag_counts, word_ceiling


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
