"""attention_core: the pure-NumPy mathematics of Attention Lab.

Never imports streamlit, plotly or pandas (tests/core/test_import_rule.py enforces it), so the
same functions serve the pages, the tests and anyone reading the code next to the formulas.
"""

from attention_core.attention import (
    AttentionResult,
    MultiHeadResult,
    additive_attention_scores,
    causal_mask,
    local_mask,
    merge_heads,
    multi_head_attention,
    one_hot,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from attention_core.embedding import PCAResult, cosine_similarity, pca, token_vectors
from attention_core.flash import FlashResult, FlashTile, flash_attention
from attention_core.grouped import GroupedQueryResult, grouped_query_attention
from attention_core.positional import sinusoidal_positional_encoding
from attention_core.rotary import alibi_bias, rotary_embedding
from attention_core.text import split_tokens
from attention_core.windows import sliding_window_mask

__all__ = [
    "AttentionResult",
    "FlashResult",
    "FlashTile",
    "GroupedQueryResult",
    "MultiHeadResult",
    "PCAResult",
    "additive_attention_scores",
    "alibi_bias",
    "causal_mask",
    "cosine_similarity",
    "flash_attention",
    "grouped_query_attention",
    "local_mask",
    "merge_heads",
    "multi_head_attention",
    "one_hot",
    "pca",
    "rotary_embedding",
    "scaled_dot_product_attention",
    "sinusoidal_positional_encoding",
    "sliding_window_mask",
    "softmax",
    "split_heads",
    "split_tokens",
    "token_vectors",
]
