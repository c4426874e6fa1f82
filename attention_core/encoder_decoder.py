"""The attention that came before self-attention: an encoder-decoder where each output word of a
translation asks the source sentence with its own query (cross-attention), and self-attention as
the special case Target = Source.

    cross-attention   Q = X_target W_q,  K = X_source W_k,  V = X_source W_v
                      A' = softmax(Q Kᵀ / √d_k)   [T_target, T_source]
                      C_i = row i of A' V          each target word's own context
    self-attention    the same with X_target = X_source: A' is [T_source, T_source]

Where the weights come from: LEARNED, by the small NumPy training loop below (a hand-written
gradient, deterministic for a seed). The task: random sentences from a 25-word bilingual
dictionary, and the Chinese word each query stands for must be read off its context C_i by a
linear read-out. Nothing tells the model which source word is the translation; it has to find
it, because C_i only holds what the attention picked from the source. Half of the training
queries come from the Chinese sentence (cross-attention), half from the English sentence itself
(Target = Source), so the same four matrices serve both maps.

One simplification, to say on the page: in a real translator the query at output step i is the
decoder's state after writing the words before i; here it is the vector of the target word
itself, so that the map reads word against word.
"""

from __future__ import annotations

import dataclasses
import functools
import unicodedata
from dataclasses import dataclass

import numpy as np

from attention_core.attention import _positive_int, scaled_dot_product_attention, softmax
from attention_core.embedding import token_vectors
from attention_core.text import split_tokens

# English word -> its Chinese translation. Every word the example pairs use. "is" -> 很: before an
# adjective Chinese writes 很 (literally "very") where English writes "is" (机器学习很有趣).
# Two English words may share a translation (very, much -> 非常); one English word has only one.
LEXICON: tuple[tuple[str, str], ...] = (
    ("machine", "机器"),
    ("learning", "学习"),
    ("is", "很"),
    ("fun", "有趣"),
    ("i", "我"),
    ("love", "爱"),
    ("read", "看"),
    ("books", "书"),
    ("at", "在"),
    ("home", "家"),
    ("ate", "吃"),
    ("apples", "苹果"),
    ("yesterday", "昨天"),
    ("good", "好"),
    ("morning", "早上"),
    ("teacher", "老师"),
    ("thank", "感谢"),
    ("you", "你"),
    ("very", "非常"),
    ("much", "非常"),
    ("cat", "猫"),
    ("likes", "喜欢"),
    ("fish", "鱼"),
    ("we", "我们"),
    ("today", "今天"),
)
SOURCE_WORDS: tuple[str, ...] = tuple(en for en, _ in LEXICON)  # V_source = 25
TARGET_WORDS: tuple[str, ...] = tuple(dict.fromkeys(zh for _, zh in LEXICON))  # V_target = 24, first-seen order
_TRANSLATION = dict(LEXICON)

# id -> (English, Chinese with the words separated by spaces). The source article's own pair first.
EXAMPLE_PAIRS: dict[str, tuple[str, str]] = {
    "machine_learning": ("machine learning is fun", "机器 学习 很 有趣"),
    "read_at_home": ("I read books at home", "我 在 家 看 书"),  # "at home" moves before the verb
    "good_morning": ("good morning teacher", "老师 早上 好"),  # the order reversed
    "thank_you": ("thank you very much", "非常 感谢"),  # 4 words against 2
    "ate_yesterday": ("I ate apples yesterday", "我 昨天 吃 苹果"),
}

MAX_TOKENS = 40  # words per side a map can show legibly
EMBEDDING_SEED = 7  # word vectors: token_vectors(word, d_model, EMBEDDING_SEED)


# --- sentences ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SentencePair:
    """A source sentence and its translation, split into words, with the dictionary alignment."""

    source: tuple[str, ...]  # English words as typed                                    T_source
    target: tuple[str, ...]  # Chinese words                                             T_target
    alignment: np.ndarray  # True where target word i translates source word j    [T_target, T_source] bool
    known_source: np.ndarray  # the word is in LEXICON (the model was trained on it) [T_source] bool
    known_target: np.ndarray  #                                                       [T_target] bool
    source_total: int  # words typed on the source side (more than T_source when cut)
    target_total: int  # words typed on the target side
    replaced: tuple[str, ...] = ()  # sides ("source", "target") left empty and filled with the articles' sentence


def spaced_words(text: str) -> list[str] | None:
    """Text whose words the student separated by spaces, as those words, in every script: 猫 坐 在 垫子
    is four words, 垫子 one of them. Letters, digits and marks run together into a word; punctuation and
    symbols stand apart, as split_tokens sets them (垫子。 -> 垫子 。). None for text without spaces
    between words: a splitter of its own decides there."""
    chunks = unicodedata.normalize("NFC", text or "").split()
    if len(chunks) < 2:
        return None
    words: list[str] = []
    for chunk in chunks:
        word = ""
        for piece in split_tokens(chunk):
            if unicodedata.category(piece[0])[0] not in "LNM":  # punctuation or a symbol: a token of its own
                words += [word, piece] if word else [piece]
                word = ""
            else:
                word += piece
        words += [word] if word else []
    return words


def split_source(text: str) -> list[str]:
    """The source sentence into words: the words a student separated by spaces, else split_tokens."""
    spaced = spaced_words(text)
    return split_tokens(text or "") if spaced is None else spaced


def split_target(text: str) -> list[str]:
    """Chinese text into words. Words separated by spaces stay words (猫 坐 在 垫子: four, whatever the
    dictionary knows). Text without spaces is cut into dictionary words, longest first (机器学习很有趣
    -> 机器 学习 很 有趣), and a character that starts no dictionary word stays on its own (垫子 -> 垫 子).
    Anything else as split_tokens splits it."""
    spaced = spaced_words(text)
    if spaced is not None:
        return spaced
    longest = max(len(w) for w in TARGET_WORDS)
    words: list[str] = []
    for chunk in unicodedata.normalize("NFC", text or "").split():
        pieces = split_tokens(chunk)
        i = 0
        while i < len(pieces):
            for n in range(min(longest, len(pieces) - i), 0, -1):
                candidate = "".join(pieces[i : i + n])
                if n == 1 or (candidate in _TRANSLATION.values() and all(len(p) == 1 for p in pieces[i : i + n])):
                    words.append(candidate)
                    i += n
                    break
    return words


def sentence_pair(source_text: str, target_text: str, max_tokens: int = MAX_TOKENS, cut: bool = False) -> SentencePair:
    """Split both sentences and align them with the dictionary: target word i is aligned to source
    word j when LEXICON translates j to i (case ignored). A word outside the dictionary is kept,
    marked unknown and aligned to nothing. ValueError for an empty side, and for more than
    max_tokens words on a side unless cut=True, which keeps the first max_tokens (source_total and
    target_total say how many were typed). The two sides may differ in length."""
    max_tokens = _positive_int(max_tokens, "max_tokens")
    source = tuple(split_source(source_text or ""))
    target = tuple(split_target(target_text or ""))
    for name, words in (("source (English)", source), ("target (Chinese)", target)):
        if not words:
            raise ValueError(f"the {name} sentence has no words; type at least one.")
        if len(words) > max_tokens and not cut:
            raise ValueError(
                f"the {name} sentence has {len(words)} words; a map shows at most {max_tokens}, so shorten it."
            )
    totals = len(source), len(target)
    source, target = source[:max_tokens], target[:max_tokens]
    translated = [_TRANSLATION.get(w.lower()) for w in source]  # T_source x (str | None)
    alignment = np.array([[t is not None and t == zh for t in translated] for zh in target])  # [T_target, T_source]
    return SentencePair(
        source=source,
        target=target,
        alignment=alignment.reshape(len(target), len(source)),  # [T_target, T_source]
        known_source=np.array([w.lower() in _TRANSLATION for w in source]),  # [T_source]
        known_target=np.array([w in TARGET_WORDS for w in target]),  # [T_target]
        source_total=totals[0],
        target_total=totals[1],
    )


def typed_pair(source_text: str, target_text: str, max_tokens: int = MAX_TOKENS) -> SentencePair:
    """What a page makes of two typed sentences, never an error: a side with no words takes the
    source articles' sentence (named in `replaced`, so the page can say so), a side longer than
    max_tokens words is cut to its first max_tokens."""
    default_source, default_target = EXAMPLE_PAIRS["machine_learning"]
    replaced = []
    if not split_source(source_text or ""):
        source_text = default_source
        replaced.append("source")
    if not split_target(target_text or ""):
        target_text = default_target
        replaced.append("target")
    pair = sentence_pair(source_text, target_text, max_tokens, cut=True)
    return dataclasses.replace(pair, replaced=tuple(replaced))


def example_pair(example_id: str) -> SentencePair:
    """One of EXAMPLE_PAIRS, split and aligned."""
    if example_id not in EXAMPLE_PAIRS:
        raise ValueError(f"no example {example_id!r}; choose one of {', '.join(EXAMPLE_PAIRS)}.")
    return sentence_pair(*EXAMPLE_PAIRS[example_id])


def word_vectors(words, d_model: int) -> np.ndarray:
    """Each word's vector, the same for training and for display: token_vectors of the word in
    lower case. English and Chinese vectors are independent random draws, so nothing about the
    translation is built into them.  [T] -> [T, d_model]"""
    return token_vectors([w.lower() for w in words], d_model, EMBEDDING_SEED)  # [T, d_model]


@functools.lru_cache(maxsize=8)
def _vocabulary_vectors(d_model: int) -> tuple[np.ndarray, np.ndarray]:
    """The dictionary's vectors, drawn once: training asks for them at every step."""
    en, zh = word_vectors(SOURCE_WORDS, d_model), word_vectors(TARGET_WORDS, d_model)  # [V_source, d], [V_target, d]
    en.setflags(write=False)
    zh.setflags(write=False)
    return en, zh


# --- cross-attention ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CrossAttentionResult:
    """Every intermediate of attention with queries from one sequence and keys, values from another."""

    q: np.ndarray  # Q = X_target W_q                        [T_target, d_k]
    k: np.ndarray  # K = X_source W_k                        [T_source, d_k]
    v: np.ndarray  # V = X_source W_v                        [T_source, d_v]
    scores: np.ndarray  # Q Kᵀ                               [T_target, T_source]
    weights: np.ndarray  # A' = softmax(Q Kᵀ / √d_k), rows sum to 1  [T_target, T_source]
    output: np.ndarray  # C = A' V: row i is C_i              [T_target, d_v]
    scale: float  # 1/√d_k


def cross_attention(target_x, source_x, w_q, w_k, w_v) -> CrossAttentionResult:
    """softmax((X_t W_q)(X_s W_k)ᵀ / √d_k)(X_s W_v): each target row asks the source.

    target_x: [T_target, d_model], source_x: [T_source, d_model] (T_target and T_source may
    differ), w_q, w_k: [d_model, d_k], w_v: [d_model, d_v]. With target_x = source_x this is
    self-attention.
    """
    target_x, source_x, w_q, w_k, w_v = _check_cross(target_x, source_x, w_q, w_k, w_v)
    q = target_x @ w_q  # [T_target, d_k]    queries from the target
    k = source_x @ w_k  # [T_source, d_k]    keys from the source
    v = source_x @ w_v  # [T_source, d_v]    values from the source
    att = scaled_dot_product_attention(q, k, v)  # weights [T_target, T_source], output [T_target, d_v]
    return CrossAttentionResult(
        q=q, k=k, v=v, scores=att.scores, weights=att.weights, output=att.output, scale=att.scale
    )


def _check_cross(target_x, source_x, w_q, w_k, w_v) -> tuple[np.ndarray, ...]:
    """cross_attention's arguments as float arrays, or a ValueError that says what is wrong."""
    target_x = _table(target_x, "target_x")  # [T_target, d_model]
    source_x = _table(source_x, "source_x")  # [T_source, d_model]
    if target_x.shape[1] != source_x.shape[1]:
        raise ValueError(
            f"target vectors have {target_x.shape[1]} components and source vectors {source_x.shape[1]}; "
            "both sides must use the same d_model, since the same W_q and W_k project them."
        )
    w_q, w_k, w_v = (_projection(w, name, source_x.shape[1]) for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")))
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(
            f"w_q gives queries of {w_q.shape[1]} components and w_k keys of {w_k.shape[1]}; they must match."
        )
    return target_x, source_x, w_q, w_k, w_v


# --- learning the weights -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TranslationModel:
    """One attention layer and its read-out, learned by train_translation_attention."""

    w_q: np.ndarray  # [d_model, d_k]
    w_k: np.ndarray  # [d_model, d_k]
    w_v: np.ndarray  # [d_model, d_v]
    w_out: np.ndarray  # C_i -> a score per Chinese word  [d_v, V_target]
    losses: np.ndarray  # training loss (cross-entropy, nats) after each step  [steps]
    accuracy: float  # share of words read out right on 400 fresh random sentences
    seed: int
    weights_kind: str  # "learned": gradient descent found them; nobody wrote the alignment in


def translation_loss(w_q, w_k, w_v, w_out, x_query, x_source, y) -> tuple[float, dict[str, np.ndarray]]:
    """The training loss and its gradient, written out by hand.

    x_query: [N, T, d_model] (one query per word to translate), x_source: [N, T, d_model],
    y: [N, T] the index in TARGET_WORDS each query must read out. Forward:
        S = c·Q Kᵀ, A = softmax(S), C = A V, Z = C W_out, P = softmax(Z), L = -mean log P[y].
    Backward, from the end: dZ = (P - onehot(y)) / (N T); dW_out = Cᵀ dZ; dC = dZ W_outᵀ;
    dA = dC Vᵀ; dV = Aᵀ dC; dS = A ⊙ (dA - rowsum(dA ⊙ A)) (softmax's Jacobian);
    dQ = c·dS K; dK = c·dSᵀ Q; dW_q = X_qᵀ dQ, dW_k = X_sᵀ dK, dW_v = X_sᵀ dV.
    """
    x_query, x_source = np.asarray(x_query, dtype=np.float64), np.asarray(x_source, dtype=np.float64)
    y = np.asarray(y)
    N, T = y.shape
    c = 1.0 / np.sqrt(w_q.shape[1])
    q, k, v = x_query @ w_q, x_source @ w_k, x_source @ w_v  # [N, T, d_k], [N, T_s, d_k], [N, T_s, d_v]
    a = softmax(c * q @ k.transpose(0, 2, 1))  # [N, T, T_s]
    ctx = a @ v  # [N, T, d_v]  C_i
    p = softmax(ctx @ w_out)  # [N, T, V_target]
    picked = np.take_along_axis(p, y[..., None], axis=-1)[..., 0]  # [N, T]
    loss = float(-np.mean(np.log(np.maximum(picked, 1e-300))))
    dz = p.copy()  # [N, T, V_target]
    np.put_along_axis(dz, y[..., None], np.take_along_axis(dz, y[..., None], axis=-1) - 1.0, axis=-1)
    dz /= N * T
    d_out = np.einsum("ntv,ntw->vw", ctx, dz)  # [d_v, V_target]
    d_ctx = dz @ w_out.T  # [N, T, d_v]
    d_a = d_ctx @ v.transpose(0, 2, 1)  # [N, T, T_s]
    d_v = a.transpose(0, 2, 1) @ d_ctx  # [N, T_s, d_v]
    d_s = a * (d_a - np.sum(d_a * a, axis=-1, keepdims=True))  # [N, T, T_s]
    d_q = c * d_s @ k  # [N, T, d_k]
    d_k = c * d_s.transpose(0, 2, 1) @ q  # [N, T_s, d_k]
    grads = {
        "w_q": np.einsum("ntd,ntk->dk", x_query, d_q),  # [d_model, d_k]
        "w_k": np.einsum("nsd,nsk->dk", x_source, d_k),  # [d_model, d_k]
        "w_v": np.einsum("nsd,nsv->dv", x_source, d_v),  # [d_model, d_v]
        "w_out": d_out,  # [d_v, V_target]
    }
    return loss, grads


def random_batch(rng: np.random.Generator, n_sentences: int, length: int, d_model: int):
    """n_sentences random English sentences of `length` dictionary words and their word-for-word
    translations, half asked from the Chinese side (cross-attention), half from the English side
    itself (Target = Source).  -> x_query [2n, T, d_model], x_source [2n, T, d_model], y [2n, T]"""
    en, zh = _vocabulary_vectors(d_model)  # [V_source, d_model], [V_target, d_model]
    target_of = np.array([TARGET_WORDS.index(zh_word) for _, zh_word in LEXICON])  # [V_source]
    words = rng.integers(0, len(SOURCE_WORDS), size=(n_sentences, length))  # [n, T]
    y = target_of[words]  # [n, T]
    x_source = en[words]  # [n, T, d_model]
    x_query = np.concatenate([zh[y], x_source])  # [2n, T, d_model]
    return x_query, np.concatenate([x_source, x_source]), np.concatenate([y, y])  # [2n, T, d_model] x2, [2n, T]


def train_translation_attention(
    seed: int = 0, d_model: int = 16, d_k: int = 8, steps: int = 200, learning_rate: float = 0.05
) -> TranslationModel:
    """Learn W_q, W_k, W_v and the read-out by Adam on random dictionary sentences of 2 to 6 words.

    Deterministic for a seed: one np.random.Generator draws the initial weights (N(0, 1/d_model),
    in the order W_q, W_k, W_v, W_out) and then every batch. About 0.2 s at the defaults.
    """
    d_model, d_k = _positive_int(d_model, "d_model"), _positive_int(d_k, "d_k")
    steps = _positive_int(steps, "steps")
    rng = np.random.default_rng(seed)
    params = {
        "w_q": rng.standard_normal((d_model, d_k)) / np.sqrt(d_model),  # [d_model, d_k]
        "w_k": rng.standard_normal((d_model, d_k)) / np.sqrt(d_model),  # [d_model, d_k]
        "w_v": rng.standard_normal((d_model, d_model)) / np.sqrt(d_model),  # [d_model, d_v]
        "w_out": rng.standard_normal((d_model, len(TARGET_WORDS))) / np.sqrt(d_model),  # [d_v, V_target]
    }
    # Adam (Kingma & Ba 2015): a step per parameter scaled by its own gradient history, so the
    # four matrices learn at comparable speed without tuning a rate for each.
    m = {name: np.zeros_like(w) for name, w in params.items()}
    s = {name: np.zeros_like(w) for name, w in params.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    losses = np.zeros(steps)  # [steps]
    for step in range(1, steps + 1):
        batch = random_batch(rng, 32, int(rng.integers(2, 7)), d_model)
        losses[step - 1], grads = translation_loss(**params, x_query=batch[0], x_source=batch[1], y=batch[2])
        for name, g in grads.items():
            m[name] = beta1 * m[name] + (1 - beta1) * g
            s[name] = beta2 * s[name] + (1 - beta2) * g**2
            m_hat, s_hat = m[name] / (1 - beta1**step), s[name] / (1 - beta2**step)
            rate = learning_rate * (1.0 - (step - 1) / steps)  # decays to 0, so the last steps settle
            params[name] = params[name] - rate * m_hat / (np.sqrt(s_hat) + eps)
    x_query, x_source, y = random_batch(np.random.default_rng([seed, 1]), 200, 4, d_model)  # held out
    ctx = softmax(x_query @ params["w_q"] @ (x_source @ params["w_k"]).transpose(0, 2, 1) / np.sqrt(d_k)) @ (
        x_source @ params["w_v"]
    )  # [400, 4, d_v]
    accuracy = float(np.mean(np.argmax(ctx @ params["w_out"], axis=-1) == y))
    for w in (*params.values(), losses):
        w.setflags(write=False)
    return TranslationModel(**params, losses=losses, accuracy=accuracy, seed=seed, weights_kind="learned")


@functools.lru_cache(maxsize=4)
def trained_model(seed: int = 0) -> TranslationModel:
    """train_translation_attention(seed) at the default sizes, trained once per process."""
    return train_translation_attention(seed)


# --- the two maps side by side ------------------------------------------------------------------------


@dataclass(frozen=True)
class EncoderDecoderView:
    """Everything page 1 draws for one sentence pair."""

    pair: SentencePair
    source_x: np.ndarray  # the source word vectors                      [T_source, d_model]
    target_x: np.ndarray  # the target word vectors                      [T_target, d_model]
    cross: CrossAttentionResult  # Q from the target, K and V from the source: weights [T_target, T_source]
    self_source: CrossAttentionResult  # Target = Source: weights       [T_source, T_source]
    predicted: tuple[str, ...]  # the Chinese word read off each C_i     T_target
    agreement: float  # share of aligned target words looking hardest at an aligned source word (nan: none aligned)
    any_aligned: bool  # is any target word's translation in the source? (agreement is nan when not)
    weights_kind: str  # "learned"
    seed: int


def encoder_decoder_view(pair: SentencePair, seed: int = 0) -> EncoderDecoderView:
    """The learned layer's cross-attention map for a pair, and the same layer's self-attention
    map of the source. Words outside the dictionary get vectors the model never saw: their
    rows and columns show untrained behaviour, and pair.known_* says which they are."""
    model = trained_model(seed)
    d_model = model.w_q.shape[0]
    source_x = word_vectors(pair.source, d_model)  # [T_source, d_model]
    target_x = word_vectors(pair.target, d_model)  # [T_target, d_model]
    cross = cross_attention(target_x, source_x, model.w_q, model.w_k, model.w_v)  # weights [T_target, T_source]
    self_source = cross_attention(source_x, source_x, model.w_q, model.w_k, model.w_v)  # [T_source, T_source]
    predicted = tuple(TARGET_WORDS[i] for i in np.argmax(cross.output @ model.w_out, axis=-1))  # T_target
    aligned_rows = pair.alignment.any(axis=1)  # [T_target]
    hits = pair.alignment[np.arange(len(pair.target)), np.argmax(cross.weights, axis=1)]  # [T_target]
    agreement = float(hits[aligned_rows].mean()) if aligned_rows.any() else float("nan")
    return EncoderDecoderView(
        pair=pair,
        source_x=source_x,
        target_x=target_x,
        cross=cross,
        self_source=self_source,
        predicted=predicted,
        agreement=agreement,
        any_aligned=bool(aligned_rows.any()),
        weights_kind=model.weights_kind,
        seed=seed,
    )


# --- article 001's three kinds of output, read off the same self-attention outputs ---------------------


@dataclass(frozen=True)
class OutputKinds:
    """Article 001's three kinds of output, from one self-attention layer over the source sentence:
    one label per vector (sequence labelling: part-of-speech tags), one label for the whole sequence
    (sentiment, who is speaking: the outputs pooled into one vector first), and a sequence whose
    length the model decides (seq2seq: translation, here the decoder's cross-attention rows).

    The labels come from the page's trained layer and its output head, which reads a vector as one of
    TARGET_WORDS: per vector that tags each English word with a Chinese word; the pooled vector gets
    one word for the sentence (the head was trained on words, not on sentences: a sentiment model
    trains its head on labels such as positive / negative, with the same shapes)."""

    source: tuple[str, ...]  # the English words, one per input vector                  T_source
    outputs: np.ndarray  # the self-attention outputs O, one per input vector         [T_source, d_model]
    per_vector: tuple[str, ...]  # one label per output vector                          T_source
    per_vector_p: np.ndarray  # the head's probability of each of those labels          [T_source]
    pooled: np.ndarray  # the mean of the outputs: one vector for the sequence          [d_model]
    per_sequence: str  # one label for the whole sequence
    per_sequence_p: float  # its probability
    sequence: tuple[str, ...]  # seq2seq: the decoder's words, as many as the target has  T_target


def output_kinds(pair: SentencePair, seed: int = 0) -> OutputKinds:
    """The three kinds of output for a pair's source sentence (the seq2seq one from the pair's target)."""
    model, view = trained_model(seed), encoder_decoder_view(pair, seed)
    outputs = view.self_source.output  # [T_source, d_model]
    p_vector = softmax(outputs @ model.w_out)  # [T_source, V_target]
    pooled = outputs.mean(axis=0)  # [d_model]
    p_sequence = softmax(pooled @ model.w_out)  # [V_target]
    best = np.argmax(p_vector, axis=-1)  # [T_source]
    return OutputKinds(
        source=pair.source,
        outputs=outputs,  # [T_source, d_model]
        per_vector=tuple(TARGET_WORDS[i] for i in best),
        per_vector_p=p_vector[np.arange(len(best)), best],  # [T_source]
        pooled=pooled,  # [d_model]
        per_sequence=TARGET_WORDS[int(np.argmax(p_sequence))],
        per_sequence_p=float(np.max(p_sequence)),
        sequence=view.predicted,
    )


# --- argument checks ----------------------------------------------------------------------------------


def _table(a, name: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a table of word vectors, shape [T, d_model]; got shape {a.shape}.")
    if a.shape[0] == 0:
        raise ValueError(f"{name} has no rows: the sentence needs at least one word.")
    return a


def _projection(w, name: str, d_model: int) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != d_model or w.shape[1] == 0:
        raise ValueError(f"{name} must have shape [d_model, n] = [{d_model}, n] with n >= 1; got {w.shape}.")
    return w
