"""The attention-heatmaps page in AppTest: move the controls, then check what the figures and tables hold
against the core, computed here independently of the page."""

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

import attention_core.pretrained as pretrained
from attention_core import causal_mask, local_mask, split_tokens, token_vectors
from attention_core.normalisation import attend, random_qkv, reweight, strongest_head
from attention_core.shipped import load_examples
from attention_core.speech import speech_cost
from lab_ui.figures import heatmap as figs
from lab_ui.i18n import t
from lab_ui.registry import info as page_info
from pages.heatmap import Controls as C

PAGE = "pages/heatmap.py"
EXAMPLES = {e.id: e for e in load_examples()}
ANIMAL = EXAMPLES["animal_tired"]
IT, NOUN = ANIMAL.tokens.index("it"), ANIMAL.tokens.index("animal")
A_LAYER, A_HEAD = strongest_head(ANIMAL.attentions, IT, NOUN)  # 0-based; the default head, found by computing
DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."
DEFAULT_ZH = "动物没有过马路，因为它太累了。"
RANDOM = {C.source.key: "random"}
BAD_NUMBERS = ("1e309", "-1e309", "1e-400", "9e999")
link = link_of(C)
(CHECK,) = page_info("heatmap").checks


def weights_z(at) -> np.ndarray:
    """The main heatmap's cells; a masked cell is NaN (drawn grey, with a × while there is room)."""
    return plotly_array(figures(at)["heatmap_weights"]["data"][0]["z"])


def key_labels(at) -> list[str]:
    """The column labels as drawn (HTML-escaped); past 32 tokens only every other one is labelled."""
    return figures(at)["heatmap_weights"]["layout"]["xaxis"]["ticktext"][:-1]  # the last tick is Σ


def weights_table(at):
    """The numbers behind the heatmap, opening their expander first (tables are built only when open)."""
    if not any(t("heatmap.row_sum", lang="en") in list(d.value.columns) for d in at.dataframe):
        at.session_state["hm_map_table"] = True
        at.run()
    return next(d.value for d in at.dataframe if t("heatmap.row_sum", lang="en") in list(d.value.columns))


def table_tokens(at) -> list[str]:
    """Every token, from the table's row names "i · token"."""
    return [name.split(" · ", 1)[1] for name in weights_table(at).index]


def crosses(at) -> set[tuple[int, int]]:
    """(row, column) of every × drawn over a masked cell."""
    fig = figures(at)["heatmap_weights"]
    labels = list(fig["data"][0]["x"])
    traces = [tr for tr in fig["data"] if tr.get("mode") == "markers"]
    if not traces:
        return set()
    return {(labels.index(r), labels.index(c)) for r, c in zip(traces[0]["y"], traces[0]["x"], strict=True)}


def row_bar(at) -> dict:
    """The bars of the picked query's weights (behind them may stand the grey band of masked keys)."""
    return next(tr for tr in figures(at)["heatmap_row"]["data"] if tr["name"] == t("heatmap.weight", lang="en"))


def row_sum_texts(at) -> list[str]:
    return list(next(tr["text"] for tr in figures(at)["heatmap_weights"]["data"] if tr.get("mode") == "text"))


def title(at, key: str = "heatmap_weights") -> str:
    return figures(at)[key]["layout"]["title"]["text"]


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return "\n".join(p.value for p in parts)


def random_weights(text: str, d: int = 8, seed: int = 0, mask=None, tau: float = 1.0, norm: str = "softmax"):
    tokens = split_tokens(text)
    q, k, v = random_qkv(token_vectors(tokens, d, seed), d, seed)
    return attend(q, k, v, mask=mask, temperature=tau, normalisation=norm)


@pytest.fixture
def shipped_only(monkeypatch):
    """An install without the optional model package."""
    monkeypatch.setattr(pretrained, "minilm_available", lambda: False)


@pytest.fixture
def full_model():
    if not pretrained.minilm_available():
        pytest.skip("the optional model package is not installed")


# --- defaults: a real head, in both languages ---------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_on_the_real_models_it_animal_head(lang):
    at = open_page(PAGE, lang=lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("heatmap.title", lang=lang)
    assert at.button_group(key=C.source.key).value == "model" and at.query_params[C.source.key] == "model"
    assert (at.slider(key=C.layer.key).value, at.slider(key=C.head.key).value) == (A_LAYER + 1, A_HEAD + 1)
    assert key_labels(at) == list(ANIMAL.tokens)
    np.testing.assert_allclose(weights_z(at), ANIMAL.attentions[A_LAYER, A_HEAD], atol=3e-3)  # stored as float16
    assert title(at) == t("heatmap.fig_model", lang=lang, layer=A_LAYER + 1, head=A_HEAD + 1)
    assert at.selectbox(key=C.query.key).value == IT + 1  # "it", which looks most at "animal" here
    assert int(np.nanargmax(weights_z(at)[IT])) == NOUN
    expected = {"heatmap_weights", "heatmap_row", "heatmap_speech_cost", "heatmap_speech_mask"}
    assert expected <= set(figures(at))


def test_without_the_model_package_it_opens_on_the_shipped_maps(shipped_only):
    at = open_page(PAGE)
    assert not at.exception
    np.testing.assert_allclose(weights_z(at), ANIMAL.attentions[A_LAYER, A_HEAD], atol=1e-6)
    assert "own" not in at.selectbox(key=C.sentence.key).options
    assert t("heatmap.shipped_only", lang="en", n=len(EXAMPLES), command=pretrained.INSTALL_COMMAND) in texts(at)


def test_random_weights_are_labelled_random_at_every_figure():
    at = open_page(PAGE, whole="1", **RANDOM)
    assert title(at) == t("heatmap.fig_random", lang="en", d=8, seed=0)
    short = t("heatmap.fig_random_short", lang="en")
    for key in ("heatmap_row", "heatmap_output"):
        assert figures(at)[key]["layout"]["title"]["subtitle"]["text"] == short
    assert t("heatmap.random_caption", lang="en") in texts(at)


def test_default_random_weights_are_the_cores_and_every_row_sums_to_one():
    at = open_page(PAGE, **RANDOM)
    expected = random_weights(DEFAULT_TEXT).weights
    np.testing.assert_allclose(weights_z(at), expected, atol=1e-6)
    assert row_sum_texts(at) == ["1.00"] * len(expected)
    np.testing.assert_allclose(weights_table(at)[t("heatmap.row_sum", lang="en")], 1.0, atol=1e-4)
    assert "Every row sums to 1" in texts(at)
    assert not crosses(at)


def test_the_chinese_page_types_a_chinese_sentence_and_a_links_text_wins():
    at = open_page(PAGE, lang="zh", **RANDOM)
    assert at.text_input(key=C.text.key).value == DEFAULT_ZH
    assert key_labels(at) == list(DEFAULT_ZH)
    again = open_page(PAGE, lang="zh", **link(source="random", text="I saw a saw"))
    assert key_labels(again) == ["I", "saw", "a", "saw"]


# --- old links and a link's own text (issue 11) ------------------------------------------------------------


def test_an_old_link_without_hm_src_still_gives_random_weights():
    """Random weights were the default, so links left hm_src out: such a link must show what it showed."""
    at = open_page(PAGE, **link(text="I saw a saw", d="4", query="2"))
    assert at.button_group(key=C.source.key).value == "random"
    np.testing.assert_allclose(weights_z(at), random_weights("I saw a saw", d=4).weights, atol=1e-6)
    assert at.query_params[C.source.key] == "random"  # now written, so the link says it
    assert not at.toast


@pytest.mark.parametrize("src", ["model", "random"])
def test_a_links_typed_text_is_used(src):
    """Bug: /heatmap?hm_src=model&hm_text=I+saw+a+saw showed the default sentence and lost the text."""
    if src == "model" and not pretrained.minilm_available():
        pytest.skip("the optional model package is not installed")
    at = open_page(PAGE, **link(source=src, text="I saw a saw"))
    assert at.selectbox(key=C.sentence.key).value == "own"
    expected = ["[CLS]", "i", "saw", "a", "saw", "[SEP]"] if src == "model" else ["I", "saw", "a", "saw"]
    assert key_labels(at) == expected
    assert at.query_params[C.text.key] == "I saw a saw"


def test_a_links_typed_text_without_the_model_says_why_and_stays_in_the_link(shipped_only):
    at = open_page(PAGE, **link(source="model", text="I saw a saw"))
    assert not at.exception
    notice = t("heatmap.text_needs_model", lang="en", n=len(EXAMPLES), command=pretrained.INSTALL_COMMAND)
    assert notice in texts(at)
    assert at.text_input(key=C.text.key).value == "I saw a saw"
    assert at.query_params[C.text.key] == "I saw a saw"  # nothing the link held is lost
    assert key_labels(at) == list(ANIMAL.tokens)


# --- normalisation, masks, temperature -------------------------------------------------------------------


def test_relu_rows_need_not_sum_to_one_and_the_page_says_so():
    at = open_page(PAGE, **RANDOM)
    at.button_group(key=C.norm.key).set_value("relu").run()
    expected = random_weights(DEFAULT_TEXT, norm="relu").weights
    z = weights_z(at)
    np.testing.assert_allclose(z, expected, atol=1e-5)
    assert np.all(z >= 0) and np.any(z == 0)  # negative scores were cut to 0
    sums = weights_table(at)[t("heatmap.row_sum", lang="en")].to_numpy()
    assert np.abs(sums - 1).max() > 0.1
    assert row_sum_texts(at) == [f"{s:.2f}" for s in expected.sum(axis=1)]
    assert "With ReLU the rows do not sum to 1" in texts(at)
    assert at.query_params[C.norm.key] == "relu"


def test_causal_mask_empties_and_marks_the_upper_triangle():
    at = open_page(PAGE, **RANDOM)
    at.button_group(key=C.mask.key).set_value("causal").run()
    z = weights_z(at)
    T = z.shape[0]
    upper = ~causal_mask(T)
    assert np.all(np.isnan(z[upper])) and not np.any(np.isnan(z[~upper]))
    assert crosses(at) == {(int(r), int(c)) for r, c in zip(*np.nonzero(upper), strict=True)}
    np.testing.assert_allclose(z[~upper], random_weights(DEFAULT_TEXT, mask=causal_mask(T)).weights[~upper], atol=1e-6)
    np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-5)  # still a share-out per row
    cells = weights_table(at).to_numpy()[:, 1:].astype(float)
    assert np.isnan(cells[upper]).all()  # empty, and the table writes the word in their place:
    table = next(d for d in at.dataframe if t("heatmap.row_sum", lang="en") in list(d.value.columns))
    assert table.proto.placeholder == "masked"
    np.testing.assert_allclose(cells[~upper], z[~upper], atol=1e-6)


def test_local_window_width():
    at = open_page(PAGE, **RANDOM)
    at.button_group(key=C.mask.key).set_value("local").run()
    for window in (0, 1, 3):
        at.slider(key=C.window.key).set_value(window).run()
        allowed = ~np.isnan(weights_z(at))
        np.testing.assert_array_equal(allowed, local_mask(allowed.shape[0], window))
        assert allowed.sum(axis=1).max() == 2 * window + 1


def test_temperature_sharpens_as_it_falls_and_flattens_as_it_rises():
    at = open_page(PAGE, **RANDOM)
    peaks = {}
    for tau in (10, 1, 0.3, 0.05):
        at.select_slider(key=C.tau.key).set_value(tau).run()
        z = weights_z(at)
        np.testing.assert_allclose(z, random_weights(DEFAULT_TEXT, tau=tau).weights, atol=1e-5)
        peaks[tau] = z.max(axis=1).mean()
    assert peaks[10] < peaks[1] < peaks[0.3] < peaks[0.05]
    assert peaks[0.05] > 0.9  # nearly one key per row
    assert peaks[10] < 1.5 / len(split_tokens(DEFAULT_TEXT))  # nearly even


# --- one query: its row and its output ---------------------------------------------------------------


def test_query_row_bars_and_output_are_the_weighted_sum_of_values():
    at = open_step(PAGE, "query", **link(source="random", query="8"))
    r = random_weights(DEFAULT_TEXT)
    tokens = split_tokens(DEFAULT_TEXT)
    np.testing.assert_allclose(plotly_array(row_bar(at)["y"]), r.weights[7], atol=1e-6)
    out = plotly_array(figures(at)["heatmap_output"]["data"][0]["z"])
    v = random_qkv(token_vectors(tokens, 8, 0), 8, 0)[2]
    np.testing.assert_allclose(out[:-1], r.weights[7][:, None] * v, atol=1e-5)  # alpha'_8j v_j, one row per key
    np.testing.assert_allclose(out[-1], r.output[7], atol=1e-5)  # the sum: b_8
    assert at.selectbox(key=C.query.key).value == 8


def test_picking_a_query_changes_its_section_only():
    at = open_page(PAGE, whole="1", **RANDOM)
    heatmap_before = figures(at)["heatmap_weights"]
    at.selectbox(key=C.query.key).set_value(5).run()
    assert figures(at)["heatmap_weights"] == heatmap_before
    np.testing.assert_allclose(plotly_array(row_bar(at)["y"]), random_weights(DEFAULT_TEXT).weights[4], atol=1e-6)
    assert at.query_params[C.query.key] == "5"


def test_a_masked_key_is_grey_in_the_row_bars():
    at = open_step(PAGE, "query", **link(source="random", mask="causal", query="2"))
    band = next(tr for tr in figures(at)["heatmap_row"]["data"] if tr["name"] == "×")
    labels = list(figures(at)["heatmap_row"]["layout"]["xaxis"]["categoryarray"])
    assert [labels.index(x) for x in band["x"]] == list(range(2, len(split_tokens(DEFAULT_TEXT))))  # keys 3 ... T
    np.testing.assert_allclose(plotly_array(row_bar(at)["y"])[2:], 0.0)


# --- the real model ----------------------------------------------------------------------------------


def test_layer_and_head_show_the_shipped_weights(shipped_only):
    at = open_page(PAGE, **link(source="model", sentence="cat_mat"))
    example = EXAMPLES["cat_mat"]
    for layer, head in ((1, 1), (3, 5), (6, 12)):
        at.slider(key=C.layer.key).set_value(layer).run()
        at.slider(key=C.head.key).set_value(head).run()
        np.testing.assert_allclose(weights_z(at), example.attentions[layer - 1, head - 1], atol=1e-6)
        assert title(at) == t("heatmap.fig_model", lang="en", layer=layer, head=head)
    assert key_labels(at) == list(example.tokens)
    assert key_labels(at)[0] == "[CLS]" and key_labels(at)[-1] == "[SEP]"


def test_with_the_full_model_the_heads_agree_with_the_shipped_maps(full_model):
    at = open_page(PAGE, whole="1", **link(source="model", sentence="keys_cabinet", layer="2", head="7"))
    np.testing.assert_allclose(weights_z(at), EXAMPLES["keys_cabinet"].attentions[1, 6], atol=3e-3)
    assert "heatmap_output" in figures(at)  # the value vectors come with the full model
    at.button_group(key=C.norm.key).set_value("relu").run()
    assert "With ReLU the rows do not sum to 1" in texts(at)


def test_shipped_weights_take_mask_and_temperature_exactly(shipped_only):
    at = open_page(PAGE, **link(source="model", sentence="saw_saw", layer="2", head="3", mask="causal", tau="0.5"))
    w = EXAMPLES["saw_saw"].attentions[1, 2]
    T = w.shape[0]
    expected = reweight(w, mask=causal_mask(T), temperature=0.5)
    z = weights_z(at)
    np.testing.assert_allclose(np.nan_to_num(z), expected, atol=1e-6)
    assert np.all(np.isnan(z[~causal_mask(T)]))
    assert t("heatmap.fact", lang="en").split("**")[1] in texts(at)


def test_without_the_full_model_relu_and_free_text_explain_themselves(shipped_only):
    at = open_page(PAGE, **link(source="model", sentence="animal_tired", norm="relu"))
    assert not at.exception
    assert "own" not in at.selectbox(key=C.sentence.key).options
    assert t("heatmap.relu_unavailable", lang="en") in texts(at)
    np.testing.assert_allclose(np.nansum(weights_z(at), axis=1), 1.0, atol=1e-5)  # softmax is shown instead
    assert "make real-model" in texts(at)
    assert "heatmap_output" not in figures(at)
    assert at.button_group(key=C.norm.key).value == "relu"  # what the student chose is kept for later


def test_free_text_link_without_the_model_falls_back_to_an_example(shipped_only):
    at = open_page(PAGE, **link(source="model", sentence="own", text="Dogs bark."))
    assert not at.exception
    assert at.selectbox(key=C.sentence.key).value == "animal_tired"
    assert key_labels(at) == list(ANIMAL.tokens)
    assert at.query_params[C.text.key] == "Dogs bark."


def test_it_to_animal_preset_finds_the_head_by_computing():
    at = open_page(PAGE, whole="1", **RANDOM)
    at.button(key="heatmap_preset_animal").click().run()
    assert at.slider(key=C.layer.key).value == A_LAYER + 1 and at.slider(key=C.head.key).value == A_HEAD + 1
    assert at.selectbox(key=C.query.key).value == IT + 1
    row = plotly_array(row_bar(at)["y"])
    assert int(np.argmax(row)) == NOUN  # in this head "it" looks most at "animal"


def test_model_word_pieces_are_cut_at_64_with_a_note(full_model):
    text = "Transformers read unbelievably long sentences. " * 20
    at = open_page(PAGE, **link(source="model", sentence="own", text=text))
    labels = table_tokens(at)
    assert len(labels) == 64 and labels[0] == "[CLS]" and labels[-1] == "[SEP]"
    assert key_labels(at) == labels[::2]  # the axis labels every other token
    assert any(label.startswith("##") for label in labels)
    assert "only the first 64 are drawn" in texts(at)
    np.testing.assert_allclose(np.nansum(weights_z(at), axis=1), 1.0, atol=1e-5)


def test_text_the_models_tokenizer_cannot_read_falls_back_with_a_message(full_model, monkeypatch):
    """A lone UTF-16 surrogate cannot travel through AppTest, so the encoder's ValueError is staged."""
    encode = pretrained.MiniLMEncoder.encode

    def refuse_marked(self, text, max_tokens=None):
        if "MARK" in text:
            raise ValueError("text contains a broken character (a lone UTF-16 surrogate); paste it again.")
        return encode(self, text, max_tokens=max_tokens)

    monkeypatch.setattr(pretrained.MiniLMEncoder, "encode", refuse_marked)
    at = open_page(PAGE, **link(source="model", text="MARK unreadable"))
    assert not at.exception
    assert t("heatmap.unreadable", lang="en", example=ANIMAL.text) in texts(at)
    assert key_labels(at) == list(ANIMAL.tokens)


# --- text input ---------------------------------------------------------------------------------------


def test_long_text_is_cut_to_64_tokens_with_a_note():
    at = open_page(PAGE, **link(source="random", text="word " * 100))
    assert weights_z(at).shape == (64, 64)
    assert "The text has 100 tokens; only the first 64 are drawn" in texts(at)


def test_chinese_is_split_into_characters():
    at = open_page(PAGE, lang="zh", **link(source="random", text="我在河边看见了一只猫。"))
    assert key_labels(at) == list("我在河边看见了一只猫。")


def test_html_is_shown_as_text():
    at = open_page(PAGE, whole="1", **link(source="random", text="<b>bold</b> <img src=x onerror=alert(1)>", query="1"))
    assert not at.exception
    labels = key_labels(at)
    assert "&lt;" in labels and "&gt;" in labels and "<" not in labels
    assert all("<b>" not in m.value and "<img" not in m.value for m in [*at.markdown, *at.caption])
    assert at.selectbox(key=C.query.key).format_func(1) == "1 · <"  # a selectbox shows plain text


@pytest.mark.parametrize(
    "text", ["", "   ", "\u200b\u200c\u2060", "👩‍💻 loves 🐍", "שלום עולם", "x" * 5000, "a\u200bb\u200bc"]
)
def test_awkward_text_never_breaks_the_page(text):
    at = open_page(PAGE, **link(source="random", text=text))
    assert not at.exception
    z = weights_z(at)
    np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-5)
    if not text.strip() or not split_tokens(text):
        assert key_labels(at) == split_tokens(DEFAULT_TEXT)  # the example sentence, with a message
        assert DEFAULT_TEXT in texts(at)
    assert at.text_input(key=C.text.key).value == text  # what was typed stays in the box


@pytest.mark.parametrize(
    "params",
    [
        dict(**link(source="random", text="hello", mask="causal")),  # one token
        dict(**link(source="random", d="1", seed="2147483647", tau="0.05", norm="relu")),
        dict(**link(source="random", d="64", tau="10", mask="local", window="32", query="12")),
        dict(**link(source="model", sentence="cat_river_zh", layer="6", head="12", mask="local", window="0")),
        dict(**link(seconds="1", speech_window="50")),
        dict(**link(seconds="120", speech_window="1")),
    ],
)
def test_every_control_at_its_extremes(params):
    at = open_page(PAGE, whole="1", **params)
    assert not at.exception and not at.toast
    z = weights_z(at)
    assert np.all(np.isnan(z) | (z >= 0))
    if params.get(C.norm.key) != "relu":
        np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-5)
    if params.get(C.window.key) == "0":
        np.testing.assert_array_equal(~np.isnan(z), np.eye(len(z), dtype=bool))  # each token sees only itself
    options = at.radio(key=CHECK).options[1:]  # AppTest gives the labels as shown
    assert len(set(options)) == 4  # four different answers, even for a one-token sentence


# --- links, presets -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "key", "fallback"),
    [
        ({C.d.key: "abc"}, C.d.key, 8),
        ({C.d.key: "999"}, C.d.key, 8),
        ({C.tau.key: "7"}, C.tau.key, 1),
        ({C.mask.key: "sideways"}, C.mask.key, "none"),
        ({C.norm.key: "sigmoid"}, C.norm.key, "softmax"),
        ({C.query.key: "0"}, C.query.key, 3),
        ({C.query.key: "three"}, C.query.key, 3),
        ({C.sentence.key: "no_such_example"}, C.sentence.key, "own"),
        *[({C.d.key: bad}, C.d.key, 8) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.seed.key: bad}, C.seed.key, 0) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.tau.key: bad}, C.tau.key, 1) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[
            ({C.window.key: bad, C.mask.key: "local"}, C.window.key, 2)
            for bad in ("1e309", "-1e309", "1e-400", "9e999")
        ],
        *[({C.query.key: bad}, C.query.key, 3) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.mask.key: bad}, C.mask.key, "none") for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.norm.key: bad}, C.norm.key, "softmax") for bad in ("1e309", "-1e309", "1e-400", "9e999")],
    ],
)
def test_bad_random_link_values_fall_back_with_a_notice(params, key, fallback):
    at = open_page(PAGE, whole="1", **link(source="random", text="one two three four five"), **params)
    assert not at.exception
    assert at.toast and key in at.toast[0].value
    assert at.get_by_key(key).value == fallback
    assert key_labels(at) == ["one", "two", "three", "four", "five"]  # the rest of the link still counts


@pytest.mark.parametrize(
    ("params", "key", "fallback"),
    [
        ({C.source.key: "oracle"}, C.source.key, "model"),
        ({C.layer.key: "99"}, C.layer.key, A_LAYER + 1),
        ({C.head.key: "-1"}, C.head.key, A_HEAD + 1),
        *[({C.layer.key: bad}, C.layer.key, A_LAYER + 1) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.head.key: bad}, C.head.key, A_HEAD + 1) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.seconds.key: bad}, C.seconds.key, 10) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.speech_window.key: bad}, C.speech_window.key, 8) for bad in ("1e309", "-1e309", "1e-400", "9e999")],
        *[({C.source.key: bad}, C.source.key, "model") for bad in ("1e309", "9e999")],
        *[({C.sentence.key: bad}, C.sentence.key, "animal_tired") for bad in ("1e309", "9e999")],
    ],
)
def test_bad_model_link_values_fall_back_with_a_notice(params, key, fallback):
    at = open_page(
        PAGE, whole="1", **{C.source.key: "model", C.sentence.key: "cat_mat", C.mask.key: "causal", **params}
    )
    assert not at.exception
    assert at.toast and key in at.toast[0].value
    assert at.get_by_key(key).value == fallback
    if key != C.sentence.key:
        assert key_labels(at) == list(EXAMPLES["cat_mat"].tokens)  # the rest of the link still counts
    assert at.button_group(key=C.mask.key).value == "causal"


@pytest.mark.parametrize("bad", ["1e309", "-1e309", "1e-400", "9e999"])
def test_a_bad_step_number_falls_back_to_the_first_step(bad):
    at = open_page(PAGE, lecture="1", hm_step=bad, **link(query="5"))
    assert not at.exception and at.toast and "hm_step" in at.toast[0].value
    assert "heatmap_weights" in figures(at)


def test_a_link_round_trips():
    """Choices live in the URL as ASCII ids (hand-synced); a link with every control set gives that view."""
    at = open_page(PAGE, whole="1", **RANDOM)
    at.button_group(key=C.mask.key).set_value("local").run()
    at.selectbox(key=C.query.key).set_value(4).run()
    assert (at.query_params[C.mask.key], at.query_params[C.query.key]) == ("local", "4")
    params = link(text="a b c d e", d="5", seed="9", mask="local", window="1", tau="0.5", query="4")
    again = open_page(PAGE, whole="1", **params)
    expected = random_weights("a b c d e", d=5, seed=9, mask=local_mask(5, 1), tau=0.5).weights
    np.testing.assert_allclose(np.nan_to_num(weights_z(again)), expected, atol=1e-6)
    assert again.selectbox(key=C.query.key).value == 4
    assert not again.toast
    copied = open_page(PAGE, **{k: v for k, v in again.query_params.items() if k != "lang"})
    np.testing.assert_array_equal(weights_z(copied), weights_z(again))  # the page's own link, read back


def test_articles_preset_shows_two_identical_saws():
    at = open_page(PAGE)
    at.button(key="heatmap_preset_article").click().run()
    assert key_labels(at) == ["I", "saw", "a", "saw"]
    assert at.slider(key=C.d.key).value == 4
    z = weights_z(at)
    np.testing.assert_allclose(z[1], z[3], atol=1e-7)  # same vector, same query, same row
    assert t("heatmap.same_vectors", lang="en") in texts(at)
    assert title(at) == t("heatmap.fig_random", lang="en", d=4, seed=0)  # and they are random


def test_long_local_and_causal_presets():
    at = open_page(PAGE)
    at.button(key="heatmap_preset_long").click().run()
    assert weights_z(at).shape == (64, 64)
    at.button(key="heatmap_preset_local").click().run()
    z = weights_z(at)
    T = len(EXAMPLES["bank_river"].tokens)
    assert T <= 32 and key_labels(at) == list(EXAMPLES["bank_river"].tokens)  # fits: every token labelled
    np.testing.assert_array_equal(~np.isnan(z), local_mask(T, 2))
    at.button(key="heatmap_preset_causal").click().run()
    assert at.button_group(key=C.mask.key).value == "causal"
    assert np.isnan(weights_z(at)[0, 1])


# --- speech -----------------------------------------------------------------------------------------------


def test_speech_section_counts_full_and_windowed_attention():
    at = open_step(PAGE, "speech", **link(seconds="30", speech_window="5"))
    cost = speech_cost(30, 5)
    fig = figures(at)["heatmap_speech_cost"]
    np.testing.assert_array_equal(plotly_array(fig["data"][0]["y"]), cost.curve_full)
    np.testing.assert_array_equal(plotly_array(fig["data"][1]["y"]), cost.curve_window)
    mask = plotly_array(figures(at)["heatmap_speech_mask"]["data"][0]["z"])
    np.testing.assert_array_equal(mask == 1, local_mask(40, 5))
    assert f"{cost.full_entries:,}" in texts(at) and f"{cost.window_entries:,}" in texts(at)
    assert "2,998" in texts(at)  # T: 30 s of 25 ms windows every 10 ms
    at.slider(key=C.speech_window.key).set_value(20).run()
    assert f"{speech_cost(30, 20).window_entries:,}" in texts(at)


def test_speech_numbers_table_opens_with_named_rows():
    at = open_step(PAGE, "speech", **link(seconds="10", speech_window="8"))
    at.session_state["hm_speech_table"] = True
    at.run()
    table = next(d.value for d in at.dataframe if t("heatmap.speech_frames", lang="en") in list(d.value.columns))
    assert table.index.name == t("heatmap.speech_seconds", lang="en")
    assert list(table.index[:3]) == [0.0, 5.0, 10.0] and table[t("heatmap.speech_frames", lang="en")].iloc[2] == 998


# --- check yourself ----------------------------------------------------------------------------------------


def test_check_yourself_a_wrong_pick_hides_the_explanation_until_asked():
    """Issue 11: picking "Tokens 3 to 12" showed the whole explanation at once."""
    at = open_step(PAGE, "check", **RANDOM)
    explanation = "Row 3 of a causal mask allows"
    at.radio(key=CHECK).set_value("from_on").run()
    assert at.error and explanation not in " ".join(i.value for i in at.info)
    at.toggle(key=CHECK + "_show").set_value(True).run()
    assert explanation in " ".join(i.value for i in at.info)
    at.toggle(key=CHECK + "_show").set_value(False).run()
    at.radio(key=CHECK).set_value("up_to").run()
    assert at.success and explanation in " ".join(i.value for i in at.info)
    assert "1 · The, 2 · animal, 3 · didn't" in texts(at).replace("\\", "")
    assert CHECK not in at.query_params  # answers never ride in the link


# --- tables, lecture mode, phones ---------------------------------------------------------------------------


def test_the_weights_table_names_its_rows_and_is_built_only_when_opened():
    at = open_page(PAGE, **RANDOM)
    assert not at.dataframe
    table = weights_table(at)
    assert table.index.name == t("heatmap.query", lang="en")
    assert list(table.columns[:2]) == [t("heatmap.row_sum", lang="en"), "1 · The"]


@pytest.mark.parametrize(
    ("step", "shown"),
    [
        (1, {"heatmap_weights"}),
        (2, {"heatmap_row", "heatmap_output"}),
        (3, {"heatmap_speech_cost", "heatmap_speech_mask"}),
        (4, set()),
    ],
)
def test_lecture_mode_shows_one_section_per_step(step, shown):
    at = open_page(PAGE, lecture="1", hm_step=str(step))
    assert not at.exception
    assert set(figures(at)) == shown
    for key, fig in figures(at).items():
        # on the first screen: the maps grow with their rows (16 tokens: every row named), up to a limit
        tallest = figs.LECTURE_MAP_MAX_PX if key in ("heatmap_weights", "heatmap_output") else 430
        assert fig["layout"]["font"]["size"] >= 20 and fig["layout"]["height"] <= tallest
    if step == 4:
        assert at.radio(key=CHECK)
    assert at.slider(key=C.layer.key)  # the settings stay at hand, in the title row's popover


@pytest.mark.parametrize(("text", "hidden"), [("I saw a saw", False), (DEFAULT_TEXT, True)])
def test_cell_numbers_are_hidden_on_phones_only_when_crowded(text, hidden):
    """4 tokens: the numbers fit a phone. The default 12: they fit a desktop's column (and are
    written), but the page asks the browser to hide them below 640 px."""
    at = open_page(PAGE, **link(source="random", text=text))
    trace = figures(at)["heatmap_weights"]["data"][0]
    assert trace["texttemplate"] == "%{z:.2f}"
    styles = [h.proto.body for h in at.get("html") if ".st-key-heatmap_weights .heatmap-label" in h.proto.body]
    assert bool(styles) == hidden
    # 12 keys: slanted labels too, every other one on a phone; 4 keys: level labels, all of them
    labels = [h.proto.body for h in at.get("html") if ".st-key-heatmap_weights g.xaxislayer-above" in h.proto.body]
    assert bool(labels) == hidden
