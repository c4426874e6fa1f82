import numpy as np
import pytest

from attention_core import cosine_similarity, one_hot, pca, sinusoidal_positional_encoding, token_vectors


def test_sinusoidal_by_hand():
    pe = sinusoidal_positional_encoding(3, 4)
    # Column pair i = 0 turns at 1 radian per position; pair i = 1 at 1/10000^(2/4) = 0.01.
    np.testing.assert_allclose(pe[1], [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)])
    np.testing.assert_allclose(pe[0], [0, 1, 0, 1])


def test_sinusoidal_matches_the_seed_formula_with_odd_d_model():
    n, d, base = 50, 7, 10000.0
    pe = sinusoidal_positional_encoding(n, d, base)
    # The article's PyTorch code: div_term = exp(arange(0, d, 2) * -log(base) / d)
    div_term = np.exp(np.arange(0, d, 2) * -np.log(base) / d)
    pos = np.arange(n)[:, None]
    np.testing.assert_allclose(pe[:, 0::2], np.sin(pos * div_term), atol=1e-12)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(pos * div_term[: d // 2]), atol=1e-12)


@pytest.mark.parametrize("base", [0, -1, float("nan")])
def test_bad_base(base):
    with pytest.raises(ValueError, match="base must be a positive number"):
        sinusoidal_positional_encoding(4, 4, base)


def test_one_hot_vectors_are_orthogonal():
    sim = cosine_similarity(one_hot([0, 3, 7], 10))
    np.testing.assert_array_equal(sim, np.eye(3))


def test_cosine_of_zero_vector_is_zero():
    sim = cosine_similarity(np.array([[0.0, 0.0], [1.0, 1.0]]))
    assert sim[0, 1] == 0 and sim[1, 1] == pytest.approx(1)


def test_same_token_same_vector():
    a = token_vectors(["I", "saw", "a", "saw"], 5, seed=3)
    np.testing.assert_array_equal(a[1], a[3])
    assert not np.allclose(a[0], a[1])
    np.testing.assert_array_equal(token_vectors(["saw"], 5, seed=3)[0], a[1])
    assert token_vectors([], 5).shape == (0, 5)


def test_pca_recovers_a_line():
    t = np.linspace(-1, 1, 20)
    x = np.stack([t, 2 * t, np.zeros_like(t)], axis=1)
    r = pca(x, 2)
    assert r.explained_variance_ratio[0] == pytest.approx(1)
    np.testing.assert_allclose(np.abs(r.components[0]), np.array([1, 2, 0]) / np.sqrt(5))
