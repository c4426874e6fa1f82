"""Published model configurations, each figure with its source, for the pages that put this app's
small sizes next to real ones (KV-cache bytes, heads sharing keys and values, sliding windows).

Only figures the cited paper states (or that follow from them, like d_head = d_model / heads) are
here; a model whose shape a paper leaves unclear is left out rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """The attention shape of one published model."""

    name: str  # the name the paper uses
    layers: int  # Transformer blocks (decoder or encoder layers)
    d_model: int  # width of the residual stream
    heads: int  # query heads per layer (h)
    kv_heads: int  # key/value heads per layer (g): g = h multi-head, g = 1 multi-query, else grouped
    d_head: int  # width of one head; heads · d_head need not equal d_model (PaLM)
    context: int  # tokens the model was trained to read at once
    window: int | None  # sliding-window width in tokens; None = every layer sees the whole context
    source: str  # where the figures come from

    @property
    def attention(self) -> str:
        """'multi-head', 'grouped-query' or 'multi-query': what kv_heads makes of the heads."""
        if self.kv_heads == self.heads:
            return "multi-head"
        return "multi-query" if self.kv_heads == 1 else "grouped-query"

    @property
    def group_size(self) -> int:
        """Query heads sharing one key/value head, h / g."""
        return self.heads // self.kv_heads


GPT2_SMALL = ModelConfig(
    name="GPT-2 small",
    layers=12,
    d_model=768,
    heads=12,
    kv_heads=12,
    d_head=768 // 12,  # d_model / heads
    context=1024,
    window=None,
    source=(
        "Radford et al. 2019, Language Models are Unsupervised Multitask Learners, Table 2 (layers, d_model) "
        "and Section 2.3 (context 1024); heads as GPT-1 (Radford et al. 2018, 12 attention heads)"
    ),
)

BERT_BASE = ModelConfig(
    name="BERT-base",
    layers=12,
    d_model=768,
    heads=12,
    kv_heads=12,
    d_head=768 // 12,  # d_model / heads
    context=512,
    window=None,
    source=(
        "Devlin et al. 2019, BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding, "
        "Section 3 (L=12, H=768, A=12) and Appendix A.2 (sequences of up to 512 tokens)"
    ),
)

# GPT-3 alternates dense layers with locally banded sparse ones (as the Sparse Transformer); the
# paper gives no band width, so window stays None and a page should not read it as "no window".
GPT3_175B = ModelConfig(
    name="GPT-3 175B",
    layers=96,
    d_model=12288,
    heads=96,
    kv_heads=96,
    d_head=128,
    context=2048,
    window=None,
    source=(
        "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1 (n_layers, d_model, n_heads, "
        "d_head, n_ctx)"
    ),
)

LLAMA2_7B = ModelConfig(
    name="Llama 2 7B",
    layers=32,
    d_model=4096,
    heads=32,
    kv_heads=32,
    d_head=4096 // 32,  # d_model / heads
    context=4096,
    window=None,
    source=(
        "Touvron et al. 2023, Llama 2: Open Foundation and Fine-Tuned Chat Models, Table 1 (context 4k, "
        "no GQA at 7B); layers, d_model and heads as LLaMA 7B (Touvron et al. 2023, LLaMA, Table 2)"
    ),
)

LLAMA2_70B = ModelConfig(
    name="Llama 2 70B",
    layers=80,
    d_model=8192,
    heads=64,
    kv_heads=8,
    d_head=8192 // 64,  # d_model / heads
    context=4096,
    window=None,
    source=(
        "Touvron et al. 2023, Llama 2: Open Foundation and Fine-Tuned Chat Models, Table 1 (context 4k, GQA) "
        "and Appendix A.2.1 (GQA with 8 KV projections); layers, d_model and heads as LLaMA 65B "
        "(Touvron et al. 2023, LLaMA, Table 2)"
    ),
)

MISTRAL_7B = ModelConfig(
    name="Mistral 7B",
    layers=32,
    d_model=4096,
    heads=32,
    kv_heads=8,
    d_head=128,
    context=8192,
    window=4096,
    source=(
        "Jiang et al. 2023, Mistral 7B, Table 1 (dim, n_layers, head_dim, n_heads, n_kv_heads, window_size, "
        "context_len)"
    ),
)

# PaLM's heads are 256 wide at every size, so at 540B heads · d_head = 12288 is less than d_model.
PALM_540B = ModelConfig(
    name="PaLM 540B",
    layers=118,
    d_model=18432,
    heads=48,
    kv_heads=1,
    d_head=256,
    context=2048,
    window=None,
    source=(
        "Chowdhery et al. 2022, PaLM: Scaling Language Modeling with Pathways, Table 1 (layers, heads, d_model; "
        "head size always 256), Section 2 (multi-query attention) and Section 5 (sequence length 2048)"
    ),
)

PUBLISHED_MODELS: tuple[ModelConfig, ...] = (
    BERT_BASE,
    GPT2_SMALL,
    GPT3_175B,
    PALM_540B,
    LLAMA2_7B,
    LLAMA2_70B,
    MISTRAL_7B,
)


def published_model(name: str) -> ModelConfig:
    """The configuration called `name` (as in PUBLISHED_MODELS, e.g. 'Mistral 7B')."""
    for model in PUBLISHED_MODELS:
        if model.name == name:
            return model
    names = ", ".join(m.name for m in PUBLISHED_MODELS)
    raise ValueError(f"no published model is called {name!r}; choose one of: {names}.")
