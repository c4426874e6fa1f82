"""The simple, documented split the concept pages use to turn typed text into tokens.

Words for English (letters, digits and inner apostrophes stay together: "didn't"), one token
per character for Chinese and Japanese, one token per other symbol (punctuation, an emoji with
its modifiers). Invisible characters (zero-width spaces, direction marks, byte-order marks) are
dropped so they never become blank tokens. The real-model pages use the model's own tokenizer
instead.
"""

from __future__ import annotations

import re
import unicodedata

# Zero-width non-joiner, word joiner, BOM, soft hyphen, direction marks and embeddings. The
# zero-width space (U+200B) marks a word break, so it becomes a space. The zero-width joiner
# (U+200D) is kept: it glues emoji such as 👩‍💻 together; a stray one never forms a token.
_INVISIBLE = re.compile("[\u200c\u2060\ufeff\u00ad\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# One CJK character (ideographs, kana, CJK punctuation), or a word, or one other symbol with
# any emoji modifiers (variation selector, skin tone, keycap) and joiner sequences attached. A
# word's letters are \w but not CJK: Python counts 了 as a word character, and "我saw了a" must be
# 我 / saw / 了 / a, not 我 / saw了a.
_CJK = (
    r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
    r"\U00020000-\U0003ffff]"
)
_LETTER = rf"(?:(?!{_CJK})\w)"
_TOKEN = re.compile(
    rf"{_CJK}"
    rf"|{_LETTER}+(?:['’]{_LETTER}+)*[\ufe0f\u20e3]*"
    r"|[^\s\w\u200d](?:[\ufe0f\u20e3\U0001f3fb-\U0001f3ff]|\u200d[^\s\w\u200d])*"
)


def split_tokens(text: str) -> list[str]:
    """Split text into tokens as described above; empty or blank text gives []."""
    text = _INVISIBLE.sub("", (text or "").replace("\u200b", " "))
    text = unicodedata.normalize("NFC", text)
    return _TOKEN.findall(text)
