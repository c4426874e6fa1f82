"""attention_core.split_tokens: words for English, a character each for Chinese, a symbol each for
the rest, nothing invisible, in any mix of them."""

from __future__ import annotations

import pytest

from attention_core import split_tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The cat didn't sit.", ["The", "cat", "didn't", "sit", "."]),
        ("我爱猫", ["我", "爱", "猫"]),
        # mixed: Chinese after a Latin word is not glued to it (Python counts 了 as a word character)
        ("我saw了a cat", ["我", "saw", "了", "a", "cat"]),
        ("GPT的d_k是64", ["GPT", "的", "d_k", "是", "64"]),
        ("猫cat猫", ["猫", "cat", "猫"]),
        ("日本語とEnglish", ["日", "本", "語", "と", "English"]),
        ("🐱🐶🍎", ["🐱", "🐶", "🍎"]),
        ("👩‍💻 codes", ["👩‍💻", "codes"]),
        ("1️⃣ one", ["1️⃣", "one"]),
        ("a\u200bb\u200ec", ["a", "bc"]),  # a zero-width space breaks a word; a direction mark vanishes
        ("<b>x</b>", ["<", "b", ">", "x", "<", "/", "b", ">"]),
        ("", []),
        ("   \n", []),
    ],
)
def test_split_tokens(text, tokens):
    assert split_tokens(text) == tokens
