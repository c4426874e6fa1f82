"""The published configurations hang together: the shapes the attention pages compute with."""

import pytest

from attention_core.published import MISTRAL_7B, PALM_540B, PUBLISHED_MODELS, ModelConfig, published_model

REQUIRED = {"GPT-2 small", "BERT-base", "GPT-3 175B", "Llama 2 7B", "Llama 2 70B", "Mistral 7B"}


def test_the_models_the_pages_need_are_there_once_each():
    names = [m.name for m in PUBLISHED_MODELS]
    assert len(names) == len(set(names))
    assert set(names) >= REQUIRED
    assert any(m.attention == "multi-query" for m in PUBLISHED_MODELS)
    assert any(m.attention == "grouped-query" for m in PUBLISHED_MODELS)


@pytest.mark.parametrize("model", PUBLISHED_MODELS, ids=lambda m: m.name)
def test_every_model_is_a_consistent_shape_with_a_source(model: ModelConfig):
    assert model.heads % model.kv_heads == 0, "query heads must split evenly among the key/value heads"
    assert model.group_size * model.kv_heads == model.heads
    assert model.window is None or 0 < model.window <= model.context
    if model is not PALM_540B:  # PaLM's heads are 256 wide whatever d_model is
        assert model.heads * model.d_head == model.d_model
    assert len(model.source) > 20 and any(str(year) in model.source for year in range(2017, 2024))


def test_attention_kinds_and_the_published_window():
    assert published_model("GPT-2 small").attention == "multi-head"
    assert published_model("Llama 2 70B").attention == "grouped-query"
    assert published_model("Llama 2 70B").group_size == 8
    assert PALM_540B.attention == "multi-query" and PALM_540B.heads * PALM_540B.d_head < PALM_540B.d_model
    assert MISTRAL_7B.window == 4096 and MISTRAL_7B.kv_heads == 8


def test_an_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"no published model is called 'GPT-5'.*Mistral 7B"):
        published_model("GPT-5")
