"""Everything is a sequence of vectors (article 001): a sentence, a sound, a molecule, a social
network each become a table [T, d], one row per word, frame, atom or person. And what the two
ways of turning a word into a vector cost: one-hot (length V) against an embedding (length d).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attention_core.attention import _positive_int, one_hot

# --- one-hot vs embedding: how big ------------------------------------------------------------------


@dataclass(frozen=True)
class RepresentationSizes:
    """Counts of numbers for one word and for a sentence of T words, both ways. Python ints,
    so V = 1,000,000 times T = 2,048 cannot overflow."""

    V: int  # vocabulary size: the length of a one-hot vector
    d: int  # embedding size: the length of a learned vector
    T: int  # words in the sentence
    bytes_per_number: int  # 4 for float32, what models usually store
    one_hot_sentence: int  # T * V numbers, all but T of them zero
    one_hot_nonzero: int  # T: a single 1 per word
    embedding_sentence: int  # T * d numbers, (almost) none of them zero
    table_parameters: int  # V * d learned numbers: the embedding table, one row per word
    one_hot_parameters: int  # 0: one-hot is a fixed rule, nothing to learn

    @property
    def length_ratio(self) -> float:
        """How many times longer a one-hot vector is than an embedding (V / d)."""
        return self.V / self.d

    @property
    def longer(self) -> str:
        """Which vector of a word is the longer: "one_hot" (V > d, as in every real model) or "embedding"."""
        return "one_hot" if self.d <= self.V else "embedding"

    @property
    def longer_by(self) -> float:
        """How many times longer that one is: V / d or d / V, at least 1."""
        return max(self.V, self.d) / min(self.V, self.d)

    def bytes(self, n_numbers: int) -> int:
        """The memory n_numbers take, stored as bytes_per_number each."""
        return n_numbers * self.bytes_per_number


def representation_sizes(V: int, d: int, T: int, bytes_per_number: int = 4) -> RepresentationSizes:
    """Numbers needed to feed T words to a model as one-hot vectors or as embeddings."""
    V = _positive_int(V, "V (vocabulary size)")
    d = _positive_int(d, "d (embedding size)")
    T = _positive_int(T, "T (words in the sentence)")
    bytes_per_number = _positive_int(bytes_per_number, "bytes_per_number")
    return RepresentationSizes(
        V=V,
        d=d,
        T=T,
        bytes_per_number=bytes_per_number,
        one_hot_sentence=T * V,
        one_hot_nonzero=T,
        embedding_sentence=T * d,
        table_parameters=V * d,
        one_hot_parameters=0,
    )


def embedding_lookup(indices, table: np.ndarray) -> np.ndarray:
    """x_i = one_hot(i) @ E: a one-hot row times the table picks out row i of E.  [n], [V, d] -> [n, d]

    This is why an embedding table and "one-hot, then a linear layer without bias" are the same
    model: the table *is* that layer's weight matrix. Real code indexes E[i] instead and skips
    the V - 1 multiplications by zero.
    """
    E = _table(table)  # [V, d]
    return one_hot(indices, E.shape[0]) @ E  # [n, V] @ [V, d] -> [n, d]


def _table(table) -> np.ndarray:
    E = np.asarray(table, dtype=np.float64)  # [V, d]
    if E.ndim != 2:
        raise ValueError(f"the embedding table must be a matrix [V, d]; got shape {E.shape}.")
    return E


# --- sound: 25 ms windows every 10 ms ----------------------------------------------------------------

WINDOW_MS = 25  # speech front ends describe 25 ms of sound at a time...
HOP_MS = 10  # ...and move the window on by 10 ms, so neighbouring windows overlap by 15 ms


def frame_count(duration_ms: float, window_ms: float = WINDOW_MS, hop_ms: float = HOP_MS) -> int:
    """How many whole windows fit into the sound: 1 + floor((L - w) / h), or 0 if L < w.

    One new window every 10 ms is 100 a second, but a window must end inside the sound, so one
    second holds 98 whole windows (starts 0, 10, ..., 970 ms). Libraries that pad the ends get
    101; "about 100 vectors a second" is what all of them agree on.
    """
    length, w, h = _windows_input(duration_ms, window_ms, hop_ms)
    if length < w:
        return 0
    # The tiny tolerance keeps 0.035 s - 0.025 s = 0.0099999... from losing a whole frame.
    return 1 + math.floor((length - w) / h + 1e-9)


def _windows_input(duration_ms, window_ms, hop_ms) -> tuple[float, float, float]:
    length, w, h = _finite(duration_ms, "duration_ms"), _finite(window_ms, "window_ms"), _finite(hop_ms, "hop_ms")
    if length < 0:
        raise ValueError(f"duration_ms={duration_ms} is negative; a sound lasts zero or more milliseconds.")
    if w <= 0 or h <= 0:
        raise ValueError(f"window_ms={window_ms} and hop_ms={hop_ms} must both be positive.")
    return length, w, h


def frame_starts(duration_ms: float, window_ms: float = WINDOW_MS, hop_ms: float = HOP_MS) -> np.ndarray:
    """Start time of every whole window, in ms: 0, h, 2h, ...  -> [n_frames]"""
    n = frame_count(duration_ms, window_ms, hop_ms)
    return np.arange(n) * float(hop_ms)  # [n_frames]


def frame_signal(signal: np.ndarray, window: int, hop: int) -> np.ndarray:
    """Cut a sound into overlapping windows: row t is samples t*hop .. t*hop + window.  [N] -> [n_frames, window]

    Each row is one vector of the sequence a speech model reads (before it is usually summarised
    as 40 to 80 filterbank energies).
    """
    x = np.asarray(signal, dtype=np.float64)  # [N]
    if x.ndim != 1:
        raise ValueError(f"a sound is one row of samples; got shape {x.shape}.")
    window = _positive_int(window, "window (samples)")
    hop = _positive_int(hop, "hop (samples)")
    n = frame_count(x.size, window, hop)
    rows = np.arange(n)[:, None] * hop + np.arange(window)[None, :]  # [n_frames, window] sample indices
    return x[rows].reshape(n, window)  # [n_frames, window]


@dataclass(frozen=True)
class SoundFrames:
    """A sound of some length as the sequence a speech model reads: how many vectors it gives."""

    duration_ms: float  # the sound's length
    n_frames: int  # whole windows that fit into it: the length of the sequence
    per_second: float  # n_frames per second of sound (0 for a sound of 0 ms)
    samples_per_window: int  # numbers one window holds at the sample rate


def sound_frames(duration_ms: float, sample_rate: int = 16000) -> SoundFrames:
    """Windows of WINDOW_MS every HOP_MS over a sound of duration_ms (see frame_count)."""
    n = frame_count(duration_ms)
    sample_rate = _positive_int(sample_rate, "sample_rate")
    return SoundFrames(
        duration_ms=float(duration_ms),
        n_frames=n,
        per_second=n / float(duration_ms) * 1000 if duration_ms else 0.0,
        samples_per_window=WINDOW_MS * sample_rate // 1000,
    )


def toy_sound(duration_ms: float, sample_rate: int = 16000) -> np.ndarray:
    """A made-up vowel: harmonics of 140 Hz under a slow swell, so the windows visibly cut a
    wave that changes.  -> [N] samples in [-1, 1], N = duration * sample_rate / 1000."""
    length = _finite(duration_ms, "duration_ms")
    if length < 0:
        raise ValueError(f"duration_ms={duration_ms} is negative; a sound lasts zero or more milliseconds.")
    sample_rate = _positive_int(sample_rate, "sample_rate")
    t = np.arange(int(length * sample_rate / 1000)) / sample_rate  # [N] seconds
    f0 = 140.0  # a speaking voice's pitch, Hz
    wave = np.sin(2 * np.pi * f0 * t) + 0.5 * np.sin(2 * np.pi * 2 * f0 * t + 1.0) + 0.25 * np.sin(6 * np.pi * f0 * t)
    swell = 0.6 + 0.4 * np.sin(2 * np.pi * 4.0 * t)  # [N] 4 Hz, like syllables
    return wave * swell / 1.75  # [N]; 1.75 = the largest the three harmonics can add up to


# --- graphs: a molecule's atoms, a network's people ---------------------------------------------------

ELEMENTS = ("H", "C", "N", "O")  # enough for the examples; each atom is a one-hot row over these

# Each molecule as its atoms, heavy atoms first (the order only names the rows).
MOLECULES: dict[str, tuple[str, ...]] = {
    "water": ("O", "H", "H"),
    "carbon_dioxide": ("C", "O", "O"),
    "methane": ("C", "H", "H", "H", "H"),
    "ammonia": ("N", "H", "H", "H"),
    "ethanol": ("C", "C", "O", "H", "H", "H", "H", "H", "H"),
    "glycine": ("N", "C", "C", "O", "O", "H", "H", "H", "H", "H"),
}


def atom_vectors(atoms, elements=ELEMENTS) -> np.ndarray:
    """One one-hot row per atom over the element list (article 001: an atom can be a one-hot
    vector too).  [n_atoms] -> [n_atoms, n_elements]"""
    elements = tuple(elements)
    unknown = sorted({a for a in atoms if a not in elements})
    if unknown:
        raise ValueError(f"atoms {unknown} are not in the element list {list(elements)}; add them to it.")
    return one_hot(np.array([elements.index(a) for a in atoms], dtype=int), len(elements))  # [n_atoms, n_elements]


def atom_labels(atoms) -> list[str]:
    """Row names that tell equal atoms apart: O, H1, H2 (a number only where an element repeats)."""
    atoms = list(atoms)
    seen: dict[str, int] = {}
    labels = []
    for a in atoms:
        seen[a] = seen.get(a, 0) + 1
        labels.append(f"{a}{seen[a]}" if atoms.count(a) > 1 else a)
    return labels


@dataclass(frozen=True)
class GraphVectors:
    """A graph as a sequence of vectors (article 001): one 0/1 row per node."""

    nodes: tuple[str, ...]  # the rows: atoms (O, H1, H2) or people                 n
    features: tuple[str, ...]  # the columns: elements, or the people again       m
    vectors: np.ndarray  # row i is node i's vector                              [n, m]


def molecule_vectors(name: str) -> GraphVectors:
    """The atoms of one of MOLECULES as one-hot rows over ELEMENTS."""
    if name not in MOLECULES:
        raise ValueError(f"unknown molecule {name!r}; pick one of {list(MOLECULES)}.")
    atoms = MOLECULES[name]
    return GraphVectors(tuple(atom_labels(atoms)), ELEMENTS, atom_vectors(atoms))


def network_vectors() -> GraphVectors:
    """The people of the example network, each as their row of friends."""
    return GraphVectors(NETWORK_PEOPLE, NETWORK_PEOPLE, adjacency_vectors(NETWORK_PEOPLE, NETWORK_FRIENDSHIPS))


# Six people in two circles of friends, joined by one friendship (C-D).
NETWORK_PEOPLE = ("A", "B", "C", "D", "E", "F")
NETWORK_FRIENDSHIPS = (("A", "B"), ("A", "C"), ("B", "C"), ("C", "D"), ("D", "E"), ("D", "F"), ("E", "F"))


def adjacency_vectors(nodes, edges) -> np.ndarray:
    """Each node's vector: a 1 for every node it is linked to (its row of the adjacency matrix).
    Links go both ways, as friendships do.  -> [n_nodes, n_nodes]"""
    nodes = tuple(nodes)
    A = np.zeros((len(nodes), len(nodes)))  # [n, n]
    for a, b in edges:
        if a not in nodes or b not in nodes:
            raise ValueError(f"the link {a}-{b} names someone not in the network {list(nodes)}.")
        if a == b:
            raise ValueError(f"the link {a}-{b} joins {a} to itself; a friendship needs two people.")
        i, j = nodes.index(a), nodes.index(b)
        A[i, j] = A[j, i] = 1.0
    return A  # [n, n]


def _finite(value, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}.") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number; got {value!r}.")
    return x
