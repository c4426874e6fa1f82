import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core.sequences import (
    ELEMENTS,
    MOLECULES,
    NETWORK_FRIENDSHIPS,
    NETWORK_PEOPLE,
    adjacency_vectors,
    atom_labels,
    atom_vectors,
    embedding_lookup,
    frame_count,
    frame_signal,
    frame_starts,
    molecule_vectors,
    network_vectors,
    representation_sizes,
    sound_frames,
    toy_sound,
)


def test_sizes_by_hand():
    s = representation_sizes(V=10, d=4, T=3)
    assert (s.one_hot_sentence, s.one_hot_nonzero, s.embedding_sentence) == (30, 3, 12)
    assert (s.table_parameters, s.one_hot_parameters) == (40, 0)
    assert s.length_ratio == 2.5 and s.bytes_per_number == 4


def test_which_vector_is_longer_and_how_much_memory():
    s = representation_sizes(V=30_522, d=384, T=6)
    assert (s.longer, s.longer_by) == ("one_hot", pytest.approx(30_522 / 384))
    assert s.bytes(s.table_parameters) == 30_522 * 384 * 4  # float32
    tiny = representation_sizes(V=10, d=384, T=1)  # for once the embedding is the longer one
    assert (tiny.longer, tiny.longer_by) == ("embedding", pytest.approx(38.4))
    assert representation_sizes(V=4, d=4, T=1).longer_by == 1.0


def test_sizes_of_minilm_do_not_overflow():
    s = representation_sizes(V=1_000_000, d=4096, T=2048)
    assert s.one_hot_sentence == 2_048_000_000 and s.table_parameters == 4_096_000_000
    assert isinstance(s.table_parameters, int)


@pytest.mark.parametrize(("V", "d", "T"), [(0, 4, 1), (10, 0, 1), (10, 4, 0), (10.5, 4, 1), (True, 4, 1)])
def test_sizes_refuse_nonsense(V, d, T):
    with pytest.raises(ValueError, match="must"):
        representation_sizes(V, d, T)


def test_lookup_is_one_hot_times_table():
    E = np.arange(12.0).reshape(4, 3)  # V=4 words, d=3
    np.testing.assert_array_equal(embedding_lookup([2, 0, 2], E), [[6, 7, 8], [0, 1, 2], [6, 7, 8]])
    with pytest.raises(ValueError, match=r"0\.\.3"):
        embedding_lookup([4], E)
    with pytest.raises(ValueError, match=r"matrix \[V, d\]"):
        embedding_lookup([0], np.zeros(3))


@given(st.integers(1, 30), st.integers(1, 8), st.data())
def test_lookup_equals_indexing(V, d, data):
    E = np.random.default_rng(V * 31 + d).standard_normal((V, d))
    idx = data.draw(st.lists(st.integers(0, V - 1), max_size=10))
    np.testing.assert_array_equal(embedding_lookup(np.array(idx, dtype=int), E), E[idx].reshape(len(idx), d))


def test_one_second_of_audio():
    # Starts 0, 10, ..., 970 ms: the window starting at 980 ms would end at 1005 ms, past the end.
    assert frame_count(1000) == 98
    assert frame_count(25) == 1 and frame_count(24) == 0 and frame_count(0) == 0
    assert frame_count(35) == 2 and frame_count(34.9) == 1
    np.testing.assert_array_equal(frame_starts(50), [0, 10, 20])
    assert frame_count(0.035, 0.025, 0.010) == 2  # seconds work too, rounding does not lose a frame


@given(st.integers(25, 600_000))
def test_about_100_frames_a_second(duration_ms):
    n = frame_count(duration_ms)
    assert n == len(frame_starts(duration_ms))
    assert frame_starts(duration_ms)[-1] + 25 <= duration_ms < frame_starts(duration_ms)[-1] + 25 + 10
    assert abs(n - duration_ms / 10) <= 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1,), "negative"),
        ((100, 0, 10), "positive"),
        ((100, 25, -1), "positive"),
        (("x",), "number"),
        ((float("nan"),), "finite"),
    ],
)
def test_frame_count_refuses_nonsense(args, message):
    with pytest.raises(ValueError, match=message):
        frame_count(*args)


def test_frame_signal_rows_overlap():
    x = np.arange(10.0)
    f = frame_signal(x, window=4, hop=2)
    np.testing.assert_array_equal(f, [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7], [6, 7, 8, 9]])
    assert frame_signal(x[:3], 4, 2).shape == (0, 4)
    with pytest.raises(ValueError, match="one row"):
        frame_signal(np.zeros((2, 2)), 4, 2)


def test_toy_sound_matches_frame_count_in_samples():
    x = toy_sound(1000, sample_rate=16000)
    assert x.shape == (16000,) and np.abs(x).max() <= 1
    frames = frame_signal(x, window=400, hop=160)  # 25 ms and 10 ms at 16 kHz
    assert frames.shape == (frame_count(1000), 400)
    with pytest.raises(ValueError, match="negative"):
        toy_sound(-5)


def test_atoms_are_one_hot_rows():
    water = atom_vectors(MOLECULES["water"])
    np.testing.assert_array_equal(water, [[0, 0, 0, 1], [1, 0, 0, 0], [1, 0, 0, 0]])  # O, H, H over H C N O
    assert atom_labels(MOLECULES["water"]) == ["O", "H1", "H2"]
    assert atom_labels(MOLECULES["ethanol"])[:3] == ["C1", "C2", "O"]
    for atoms in MOLECULES.values():
        v = atom_vectors(atoms)
        assert v.shape == (len(atoms), len(ELEMENTS)) and np.all(v.sum(axis=1) == 1)
    with pytest.raises(ValueError, match="not in the element list"):
        atom_vectors(["Na", "Cl"])


def test_network_rows():
    A = adjacency_vectors(NETWORK_PEOPLE, NETWORK_FRIENDSHIPS)
    np.testing.assert_array_equal(A, A.T)
    assert A.sum() == 2 * len(NETWORK_FRIENDSHIPS) and np.all(np.diag(A) == 0)
    np.testing.assert_array_equal(A[NETWORK_PEOPLE.index("C")], [1, 1, 0, 1, 0, 0])  # friends with A, B and D
    with pytest.raises(ValueError, match="not in the network"):
        adjacency_vectors("AB", [("A", "Z")])
    with pytest.raises(ValueError, match="itself"):
        adjacency_vectors("AB", [("A", "A")])


def test_sound_frames_summarise_the_sequence_a_sound_gives():
    one_second = sound_frames(1000)
    assert (one_second.n_frames, one_second.per_second, one_second.samples_per_window) == (98, 98.0, 400)
    assert sound_frames(0).n_frames == 0 and sound_frames(0).per_second == 0.0
    assert sound_frames(995).per_second == pytest.approx(frame_count(995) / 0.995)
    assert sound_frames(1000, sample_rate=8000).samples_per_window == 200
    with pytest.raises(ValueError, match="negative"):
        sound_frames(-1)


def test_graphs_as_sequences_of_vectors():
    water = molecule_vectors("water")
    assert water.nodes == ("O", "H1", "H2") and water.features == ELEMENTS
    np.testing.assert_array_equal(water.vectors, atom_vectors(MOLECULES["water"]))
    net = network_vectors()
    assert net.nodes == net.features == NETWORK_PEOPLE
    np.testing.assert_array_equal(net.vectors, adjacency_vectors(NETWORK_PEOPLE, NETWORK_FRIENDSHIPS))
    with pytest.raises(ValueError, match="unknown molecule"):
        molecule_vectors("uranium")
