"""The two tagging tasks of the live-training page, generated in code (nothing is downloaded).

saw_task: part-of-speech tags where a word's tag depends on its neighbours, article 001's
"I saw a saw": saw, fly, watch, book, fish, ring, train and play are nouns after "a", "the" or
an adjective and verbs after "I", "will" or "to". Each of them is a noun exactly as often as a
verb, so a model that sees one word at a time is right about half the time on them, whatever it
learns. One sentence shape in five puts the clue two words back ("I like the dog and book",
"we sing and fish"), out of reach of a window of ±1.

order_task: who does what. "the big dog chased the cat": the noun before the verb is the doer
(SUBJ), the one after it is the one done to (OBJ). Every sentence comes with its twin, the two
nouns swapped ("the big cat chased the dog"): the same words in another order, so the tags of
the nouns are decided by order alone. Self-attention without positional encoding sees a
sentence as a set of words; it gives "dog" the same tag in both twins, one of them wrong.

The sentences are grammatical in shape, not always in sense ("we fish the red bell"): only the
shape decides the tags.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PAD, UNK = 0, 1  # token ids: padding after a sentence's end, and a word not in the vocabulary
SPECIALS = ("<pad>", "<unk>")
IGNORE = -1  # the tag of a padding position; the loss and the accuracies skip it
MAX_LEN = 24  # the longest sentence a trained model tags (learned positions have this many rows)


@dataclass(frozen=True)
class Task:
    """A tagging corpus: sentences as word ids, one tag per word, padded to one length T.

    The arrays are read-only, so a cached Task cannot be changed by one of its users.
    """

    name: str  # "saw" or "order"
    vocab: tuple[str, ...]  # word of each id; vocab[0] = "<pad>", vocab[1] = "<unk>"
    tags: tuple[str, ...]  # tag of each tag id
    train_tokens: np.ndarray  # word ids, PAD after the sentence ends      [N_train, T]
    train_tags: np.ndarray  # tag ids, IGNORE (-1) where there is no word  [N_train, T]
    test_tokens: np.ndarray  # sentences never seen in training            [N_test, T]
    test_tags: np.ndarray  #                                               [N_test, T]
    ambiguous: np.ndarray  # True where the tag depends on context/order   [N_test, T]
    example: tuple[str, ...]  # the sentence whose attention maps fit() records
    max_len: int = MAX_LEN  # longest sentence a model trained on this task will tag

    def encode(self, words) -> np.ndarray:
        """Word ids of a sentence; a word not in the vocabulary becomes UNK.  [n] -> [n]

        Matching ignores case ("i" and "I", "Saw" and "saw" are the same word)."""
        lookup = _lookup(self.vocab)
        return np.array([lookup.get(w.casefold(), UNK) for w in words], dtype=np.int64)  # [n]

    def decode(self, ids) -> list[str]:
        """The words of a row of ids, padding left out."""
        return [self.vocab[i] for i in np.asarray(ids).tolist() if i != PAD]


_LOOKUPS: dict[tuple[str, ...], dict[str, int]] = {}


def _lookup(vocab: tuple[str, ...]) -> dict[str, int]:
    if vocab not in _LOOKUPS:
        _LOOKUPS[vocab] = {w.casefold(): i for i, w in enumerate(vocab) if i >= len(SPECIALS)}
    return _LOOKUPS[vocab]


# --- the saw task ------------------------------------------------------------------------------

_SAW_WORDS = {
    "PRON": ("I", "you", "we", "they"),
    "DET": ("a", "the", "my", "your", "our", "their"),
    "ADJ": ("old", "new", "big", "small", "red", "sharp", "broken", "little"),
    "NOUN": ("dog", "cat", "car", "tree", "box", "door", "bell", "table", "rope", "kite"),
    "VERB": ("see", "like", "want", "need", "find", "have", "use", "hold", "sing", "run", "swim", "walk"),
    "AUX": ("will", "must", "should", "might", "could"),
    "PART": ("to",),
    "CONJ": ("and",),
    "PUNCT": (".",),
}
_TRANSITIVE = ("see", "like", "want", "need", "find", "have", "use", "hold")
_INTRANSITIVE = ("sing", "run", "swim", "walk")
AMBIGUOUS_WORDS = ("saw", "fly", "watch", "book", "fish", "ring", "train", "play")
SAW_TAGS = ("PRON", "DET", "ADJ", "NOUN", "VERB", "AUX", "PART", "CONJ", "PUNCT")

# Each slot is a tag and where its word comes from: a word list, or "N?"/"V?" for an ambiguous
# word used as a noun/verb. The clue for an ambiguous word is one word back (DET or ADJ -> noun;
# PRON, AUX or "to" -> verb), or one word on (a DET follows a verb), except in the last two
# shapes, where "and" stands between the word and its clue.
_SAW_SHAPES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("PRON", "PRON"), ("VERB", "V?"), ("DET", "DET"), ("NOUN", "NOUN")),  # I saw the dog
    (("PRON", "PRON"), ("VERB", "V?"), ("DET", "DET"), ("NOUN", "N?")),  # I saw a saw
    (("PRON", "PRON"), ("VERB", "V?"), ("DET", "DET"), ("ADJ", "ADJ"), ("NOUN", "N?")),  # they saw the old saw
    (("DET", "DET"), ("NOUN", "N?"), ("VERB", "V?"), ("DET", "DET"), ("NOUN", "NOUN")),  # the fly saw the dog
    (("DET", "DET"), ("ADJ", "ADJ"), ("NOUN", "N?"), ("AUX", "AUX"), ("VERB", "_INTRANSITIVE")),  # the old fly will run
    (("PRON", "PRON"), ("AUX", "AUX"), ("VERB", "V?"), ("DET", "DET"), ("NOUN", "N?")),  # we should watch the fly
    (("PRON", "PRON"), ("VERB", "_TRANSITIVE"), ("DET", "DET"), ("NOUN", "N?")),  # I like the book
    (("PRON", "PRON"), ("VERB", "_TRANSITIVE"), ("PART", "PART"), ("VERB", "V?")),  # I want to fly
    (("PRON", "PRON"), ("VERB", "_TRANSITIVE"), ("DET", "DET"), ("NOUN", "NOUN"), ("CONJ", "CONJ"), ("NOUN", "N?")),
    (("PRON", "PRON"), ("VERB", "_INTRANSITIVE"), ("CONJ", "CONJ"), ("VERB", "V?")),  # we sing and fish
)
_SAW_EXAMPLE = ("I", "saw", "a", "saw", ".")


def saw_task(seed: int = 0, n_train: int = 240, n_test: int = 240) -> Task:
    """Article 001's tagging problem: "I saw a saw", "they saw the old saw", "we should watch the fly".

    Balanced twice over, in the training and in the test sentences separately: as many noun
    slots as verb slots, and each ambiguous word filled into the noun slots as often as into the
    verb slots (to within one). The test sentences are all different from the training ones,
    and the example "I saw a saw ." is never a training sentence.
    """
    seed = _seed(seed)
    n_train, n_test = _count(n_train, "n_train"), _count(n_test, "n_test")
    rng = np.random.default_rng(seed)
    vocab = SPECIALS + tuple(dict.fromkeys(w for words in _SAW_WORDS.values() for w in words)) + AMBIGUOUS_WORDS
    train = _saw_sentences(rng, n_train, seen={_SAW_EXAMPLE})  # the example is never a training sentence
    test = _saw_sentences(rng, n_test, seen={tuple(words) for words, _ in train})
    return _build("saw", vocab, SAW_TAGS, train, test, _SAW_EXAMPLE, ambiguous_words=set(AMBIGUOUS_WORDS))


def _saw_sentences(rng: np.random.Generator, n: int, seen: set) -> list[tuple[list[str], list[str]]]:
    counts = {tag: dict.fromkeys(AMBIGUOUS_WORDS, 0) for tag in ("NOUN", "VERB")}
    sentences: list[tuple[list[str], list[str]]] = []
    shapes: list[int] = []
    while len(sentences) < n:
        if not shapes:  # every shape once, in a random order: as many noun slots as verb slots
            shapes = rng.permutation(len(_SAW_SHAPES)).tolist()
        words, tags = [], []
        used = {tag: dict(c) for tag, c in counts.items()}
        for tag, source in _SAW_SHAPES[shapes[-1]]:
            if source in ("N?", "V?"):
                # the ambiguous word used least often with this tag so far, ties broken at random
                fewest = min(used[tag].values())
                choices = [w for w, c in used[tag].items() if c == fewest]
                word = choices[rng.integers(len(choices))]
                used[tag][word] += 1
            else:
                pool = _TRANSITIVE if source == "_TRANSITIVE" else _INTRANSITIVE if source == "_INTRANSITIVE" else None
                pool = pool or _SAW_WORDS[source]
                word = pool[rng.integers(len(pool))]
            words.append(word)
            tags.append(tag)
        words.append(".")
        tags.append("PUNCT")
        if tuple(words) in seen:  # the same shape again, with other words
            continue
        seen.add(tuple(words))
        counts = used
        shapes.pop()
        sentences.append((words, tags))
    return sentences


# --- the order task ----------------------------------------------------------------------------

_ORDER_WORDS = {
    "DET": ("the", "a", "one", "that"),
    "ADJ": ("big", "small", "old", "young", "brown", "white", "quick", "lazy"),
    "NOUN": ("dog", "cat", "fox", "bird", "horse", "mouse", "lion", "cow", "goat", "frog"),
    "VERB": ("chased", "bit", "followed", "found", "helped", "pushed", "saw", "heard"),
    "PUNCT": (".",),
}
ORDER_TAGS = ("DET", "ADJ", "SUBJ", "VERB", "OBJ", "PUNCT")
_ORDER_EXAMPLE = ("the", "dog", "chased", "the", "cat", ".")


def order_task(seed: int = 0, n_pairs_train: int = 120, n_pairs_test: int = 60) -> Task:
    """Who did it? "the big dog chased the cat": dog is SUBJ, cat is OBJ; in its twin "the big cat
    chased the dog" the tags swap. Only the nouns are marked ambiguous: their tag is decided by
    where they stand, and by nothing else.

    Sentences: DET ADJ{0..2} noun VERB DET ADJ{0..2} noun ".", 6 to 10 words, so a noun's own
    position does not give its tag away (a subject can stand at 1, 2 or 3, an object at 4 to 8).
    """
    seed = _seed(seed)
    n_pairs_train, n_pairs_test = _count(n_pairs_train, "n_pairs_train"), _count(n_pairs_test, "n_pairs_test")
    rng = np.random.default_rng(seed)
    vocab = SPECIALS + tuple(dict.fromkeys(w for words in _ORDER_WORDS.values() for w in words))
    train = _order_sentences(rng, n_pairs_train, seen={_ORDER_EXAMPLE})
    test = _order_sentences(rng, n_pairs_test, seen={tuple(words) for words, _ in train})
    return _build("order", vocab, ORDER_TAGS, train, test, _ORDER_EXAMPLE, ambiguous_tags={"SUBJ", "OBJ"})


def _order_sentences(rng: np.random.Generator, n_pairs: int, seen: set) -> list[tuple[list[str], list[str]]]:
    def pick(kind: str) -> str:
        pool = _ORDER_WORDS[kind]
        return pool[rng.integers(len(pool))]

    sentences: list[tuple[list[str], list[str]]] = []
    while len(sentences) < 2 * n_pairs:
        first, second = rng.choice(len(_ORDER_WORDS["NOUN"]), size=2, replace=False)
        nouns = (_ORDER_WORDS["NOUN"][first], _ORDER_WORDS["NOUN"][second])
        adjectives = []
        for _ in range(2):  # before each noun, 0 to 2 different adjectives
            picked = rng.choice(len(_ORDER_WORDS["ADJ"]), size=rng.integers(3), replace=False)
            adjectives.append([_ORDER_WORDS["ADJ"][i] for i in picked])
        det, verb, det2 = pick("DET"), pick("VERB"), pick("DET")
        pair = []
        for subj, obj in (nouns, nouns[::-1]):  # the twin: the same words, the nouns swapped
            words = [det, *adjectives[0], subj, verb, det2, *adjectives[1], obj, "."]
            tags = ["DET", *["ADJ"] * len(adjectives[0]), "SUBJ", "VERB", "DET", *["ADJ"] * len(adjectives[1])]
            pair.append((words, [*tags, "OBJ", "PUNCT"]))
        if any(tuple(words) in seen for words, _ in pair):
            continue
        seen.update(tuple(words) for words, _ in pair)
        sentences.extend(pair)
    return sentences


# --- shared --------------------------------------------------------------------------------------


def _build(name, vocab, tags, train, test, example, ambiguous_words=(), ambiguous_tags=()) -> Task:
    word_id = {w: i for i, w in enumerate(vocab)}
    tag_id = {t: i for i, t in enumerate(tags)}
    T = max(len(words) for words, _ in train + test)

    def arrays(sentences):
        tokens = np.full((len(sentences), T), PAD, dtype=np.int64)  # [N, T]
        tag_ids = np.full((len(sentences), T), IGNORE, dtype=np.int64)  # [N, T]
        for n, (words, word_tags) in enumerate(sentences):
            tokens[n, : len(words)] = [word_id[w] for w in words]
            tag_ids[n, : len(words)] = [tag_id[t] for t in word_tags]
        return tokens, tag_ids

    train_tokens, train_tags = arrays(train)  # [N_train, T] each
    test_tokens, test_tags = arrays(test)  # [N_test, T] each
    ambiguous = np.zeros(test_tokens.shape, dtype=bool)  # [N_test, T]
    for n, (words, word_tags) in enumerate(test):
        for t, (w, tag) in enumerate(zip(words, word_tags, strict=True)):
            ambiguous[n, t] = w in ambiguous_words or tag in ambiguous_tags
    for a in (train_tokens, train_tags, test_tokens, test_tags, ambiguous):
        a.flags.writeable = False
    return Task(
        name=name,
        vocab=vocab,
        tags=tags,
        train_tokens=train_tokens,
        train_tags=train_tags,
        test_tokens=test_tokens,
        test_tags=test_tags,
        ambiguous=ambiguous,
        example=example,
    )


def _seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number, 0 or more; got {seed!r}.")
    return int(seed)


def _count(n, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 100_000:
        raise ValueError(f"{name} must be a whole number from 1 to 100000; got {n!r}.")
    return int(n)
