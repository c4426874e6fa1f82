"""The decoder page in AppTest: the numbers it draws against the decoder computed here independently
(forward() and NumPy, not the page's view functions), its buttons, its controls, bad input and the check."""

import numpy as np
import pytest
from app_harness import figure_alts, figures, link_of, open_page, open_step, plotly_array

from attention_core import attention_views as av
from attention_core import decoder as dc
from attention_core import pretrained
from lab_ui.figures.decoder import shown_text
from lab_ui.i18n import literal, t
from lab_ui.registry import info as page_info
from lab_ui.writing import WRITTEN
from pages.decoder import Controls as C

PAGE = "pages/decoder.py"
MODEL = dc.load_decoder()
CONFIG, VOCAB = MODEL.config, MODEL.vocab
PROMPT_EN = "Attention lets every word "
(CHECK,) = page_info("decoder").checks
link = link_of(C)


def probs_after(text: str, temperature: float = 0.8, top_k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """The model's next-character probabilities and the drawn-from ones, by hand: softmax of the last row's
    logits, and softmax(logits / τ) over the top k."""
    ids = dc.encode_prompt(text, VOCAB, CONFIG.context).ids
    z = dc.forward(MODEL.params, ids, CONFIG).logits[-1]  # [V]
    model = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    keep = np.argsort(-z, kind="stable")[:top_k]
    scaled = np.full_like(z, -np.inf)
    scaled[keep] = (z[keep] - z.max()) / temperature
    drawn = np.exp(scaled) / np.exp(scaled).sum()
    return model, drawn


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return "\n".join(p.value for p in parts)


def button(at, key: str):
    return next(b for b in at.button if b.key == key)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", ["write", "triangle", "cache", "compare", "check"])
def test_every_step_opens_in_both_languages(step, lang):
    at = open_step(PAGE, step, lang=lang)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == t("decoder.title", lang=lang)
    if step != "check":
        assert figures(at)


def test_the_chinese_page_starts_from_a_chinese_prompt():
    at = open_step(PAGE, "write", lang="zh")
    assert at.text_area(key=C.prompt.key).value == t("decoder.default_prompt", lang="zh")
    assert not at.warning  # every character of the default is in the alphabet


def test_the_bars_are_the_models_probabilities():
    at = open_step(PAGE, "write")
    model, drawn = probs_after(PROMPT_EN)
    bars = figures(at)["dc_bars"]["data"]
    top = np.argsort(-model, kind="stable")[: len(bars[0]["x"])]
    np.testing.assert_allclose(plotly_array(bars[0]["y"]), model[top], atol=1e-6)
    np.testing.assert_allclose(plotly_array(bars[1]["y"]), drawn[top], atol=1e-6)
    # the last character's attention per layer and head, rows = (layer, head)
    w = dc.forward(MODEL.params, VOCAB.encode(PROMPT_EN), CONFIG).weights[:, :, -1]  # [L, h, T]
    z = plotly_array(figures(at)["dc_heads"]["data"][0]["z"])
    np.testing.assert_allclose(z, w.reshape(-1, len(PROMPT_EN)), atol=1e-6)


def test_temperature_and_top_k_reshape_the_draw():
    at = open_page(PAGE, **link(top_k=1))
    drawn = plotly_array(figures(at)["dc_bars"]["data"][1]["y"])
    assert drawn[0] == 1.0 and np.all(drawn[1:] == 0)
    hot = open_page(PAGE, **link(temperature=2.0, top_k=CONFIG.vocab_size))
    model, flat = probs_after(PROMPT_EN, 2.0, CONFIG.vocab_size)
    np.testing.assert_allclose(plotly_array(figures(hot)["dc_bars"]["data"][1]["y"])[0], flat[np.argmax(model)], 1e-5)
    assert flat.max() < model.max()  # hotter: the favourite loses weight


def test_next_character_writes_the_drawn_character_and_write_n_streams_the_same_text():
    at = open_step(PAGE, "write", **link(temperature=0.9, top_k=20, seed=3))
    for _ in range(3):
        button(at, "dc_next_go").click().run()
    by_clicks = at.session_state[WRITTEN]
    assert isinstance(by_clicks, str) and len(by_clicks) == 3  # a plain string, never a computed result
    # independently: draw each character from the probabilities worked by hand
    text = PROMPT_EN
    for i in range(3):
        _, drawn = probs_after(text, 0.9, 20)
        text += VOCAB.chars[dc.draw_token(drawn, 3, i)]
    assert by_clicks == text[len(PROMPT_EN) :]
    assert shown_text(by_clicks) in texts(at)  # the written text on the page, as literal text

    fresh = open_step(PAGE, "write", **link(temperature=0.9, top_k=20, seed=3, n_write=7))
    button(fresh, "dc_many").click().run()
    written = fresh.session_state[WRITTEN]
    assert len(written) == 7 and written.startswith(by_clicks)
    button(fresh, "dc_again").click().run()
    assert fresh.session_state[WRITTEN] == ""


def test_greedy_writes_the_argmax_and_a_new_prompt_starts_again():
    at = open_step(PAGE, "write", **link(temperature=0.0))
    button(at, "dc_next_go").click().run()
    model, _ = probs_after(PROMPT_EN)
    assert at.session_state[WRITTEN] == VOCAB.chars[int(np.argmax(model))]
    at.text_area(key=C.prompt.key).set_value("The query ").run()
    assert at.session_state[WRITTEN] == ""


def test_writing_stops_at_the_limit():
    at = open_step(PAGE, "write", **link(n_write=100, temperature=0.0))
    button(at, "dc_many").click().run()
    assert len(at.session_state[WRITTEN]) == 100
    assert button(at, "dc_next_go").disabled and button(at, "dc_many").disabled
    assert t("decoder.full", lang="en", n=100) in texts(at)


def test_the_triangle_masks_the_future_and_grows_with_the_rows_slider():
    at = open_step(PAGE, "triangle", **link(layer=2, head=3))
    T = len(PROMPT_EN)
    w = dc.forward(MODEL.params, VOCAB.encode(PROMPT_EN), CONFIG).weights[1, 2]  # [T, T]
    z = plotly_array(figures(at)["dc_map"]["data"][0]["z"])
    assert z.shape == (T, T)
    np.testing.assert_allclose(z[np.tril_indices(T)], w[np.tril_indices(T)], atol=1e-6)
    assert np.all(np.isnan(z[np.triu_indices(T, 1)]))  # masked: drawn grey, not as a weight
    at.slider(key=C.rows.key).set_value(5).run()
    assert plotly_array(figures(at)["dc_map"]["data"][0]["z"]).shape == (5, 5)
    assert "5" in texts(at)


def test_the_cache_step_counts_bytes_by_hand_and_labels_the_measurement():
    at = open_step(PAGE, "cache")
    T = len(PROMPT_EN)
    by_hand = 2 * CONFIG.n_layers * T * CONFIG.d_model * 2
    assert str(by_hand) in texts(at)
    growth = plotly_array(figures(at)["dc_growth"]["data"][0]["y"])
    assert growth[T - 1] == by_hand and growth[0] == by_hand // T
    assert "Measured on this server" in texts(at)
    at.button_group(key=C.bytes.key).set_value("float64").run()
    assert str(4 * by_hand) in texts(at)
    names = list(figures(at)["dc_published"]["data"][0]["y"])
    assert "Mistral 7B" in names and "Llama 2 70B" in names
    assert literal("Jiang et al. 2023") in texts(at)  # every published figure with its source


def test_compare_the_encoder_reads_ahead_and_the_decoder_does_not():
    at = open_step(PAGE, "compare", **link(sentence="cat_mat"))
    assert not at.exception
    shown = figures(at)
    encoder, decoder = (
        plotly_array(shown["dc_encoder"]["data"][0]["z"]),
        plotly_array(shown["dc_decoder"]["data"][0]["z"]),
    )
    text = "The cat sat on the mat."
    w = dc.forward(MODEL.params, VOCAB.encode(text), CONFIG).weights[0, 0]
    np.testing.assert_allclose(decoder[np.tril_indices(len(text))], w[np.tril_indices(len(text))], atol=1e-6)
    assert np.triu(encoder, 1).sum() > 0.1  # an encoder's rows do put weight on later pieces


@pytest.mark.skipif(not pretrained.minilm_available(), reason="the optional model package is not installed")
def test_compare_reads_the_prompt_through_the_real_encoder():
    at = open_step(PAGE, "compare", lang="zh")
    assert not at.exception
    assert "[UNK]" in texts(at)  # the encoder reads Chinese poorly, and the page says so


def test_bad_input_gets_a_notice_in_the_users_language():
    emoji = open_step(PAGE, "write", lang="zh", **link(prompt="猫🐍<b>x</b>"))
    assert not emoji.exception
    assert emoji.warning[0].value == t("decoder.unknown_chars", lang="zh", n=1, chars=literal("🐍"))
    assert literal("<b>x</b>") in texts(emoji)  # shown as typed, never as HTML
    empty = open_step(PAGE, "write", **link(prompt=""))
    assert t("decoder.empty_prompt", lang="en") in texts(empty)
    long = open_page(PAGE)
    long.text_area(key=C.prompt.key).set_value("attention " * 1000).run()
    assert not long.exception
    assert t("decoder.prompt_cut", lang="en", n=10_000 - CONFIG.context, context=CONFIG.context) in texts(long)
    hot = open_page(PAGE, **link(temperature="9e999", top_k="0"))
    assert not hot.exception and hot.toast
    assert hot.slider(key=C.temperature.key).value == 0.8


def test_the_check_accepts_the_right_number_and_rejects_a_wrong_one():
    at = open_step(PAGE, "check")
    answer = 2 * CONFIG.n_layers * len(PROMPT_EN) * CONFIG.d_model * 2
    at.number_input(key=CHECK).set_value(answer // 2).run()  # 2 bytes forgotten
    assert at.error and not at.success
    at.number_input(key=CHECK).set_value(answer).run()
    assert at.success and not at.error
    assert CHECK not in at.query_params


def test_on_the_whole_page_every_step_reads_the_new_text():
    at = open_page(PAGE, whole="1", **link(temperature=0.0))
    button(at, "dc_next_go").click().run()
    assert not at.exception
    T = len(PROMPT_EN) + 1
    assert plotly_array(figures(at)["dc_map"]["data"][0]["z"]).shape == (T, T)
    assert len(plotly_array(figures(at)["dc_decoder"]["data"][0]["z"])) == T


@pytest.mark.skipif(not pretrained.minilm_available(), reason="the optional model package is not installed")
def test_both_models_read_the_same_stretch_of_a_long_prompt():
    long = "The cat sat on the mat. " * 20 + "The end of it."
    at = open_step(PAGE, "compare", **link(prompt=long))
    assert not at.exception
    decoder = plotly_array(figures(at)["dc_decoder"]["data"][0]["z"])
    assert len(decoder) == CONFIG.context
    pieces = len(av.text_maps(long[-CONFIG.context :]).tokens)  # the encoder on the decoder's stretch
    assert pieces < len(av.text_maps(long).tokens)
    assert t("decoder.encoder_alt", lang="en", n=pieces) in figure_alts(at)
