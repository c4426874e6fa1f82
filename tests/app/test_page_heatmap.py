"""The attention-heatmaps page in AppTest: move the controls, then check what the figures and tables
hold against the core, computed here independently of the page."""

import numpy as np
import pytest
from app_harness import figures, open_page, plotly_array

import attention_core.pretrained as pretrained
from attention_core import causal_mask, local_mask, split_tokens, token_vectors
from attention_core.normalisation import attend, random_qkv, reweight, strongest_head
from attention_core.shipped import load_examples
from lab_ui.i18n import t

PAGE = "pages/heatmap.py"
EXAMPLES = {e.id: e for e in load_examples()}
DEFAULT_TEXT = "The animal didn't cross the street because it was too tired."


def weights_z(at) -> np.ndarray:
    """The main heatmap's cells; a masked cell is NaN (drawn grey with a ×)."""
    return plotly_array(figures(at)["heatmap_weights"]["data"][0]["z"])


def key_labels(at) -> list[str]:
    """The column labels as drawn (HTML-escaped); past 32 tokens only every other one is labelled."""
    return figures(at)["heatmap_weights"]["layout"]["xaxis"]["ticktext"][:-1]  # the last tick is Σ


def table_tokens(at) -> list[str]:
    """Every token, from the table's row names "i · token"."""
    return [name.split(" · ", 1)[1] for name in weights_table(at).index]


def crosses(at) -> set[tuple[int, int]]:
    """(row, column) of every × drawn over a masked cell."""
    traces = [tr for tr in figures(at)["heatmap_weights"]["data"] if tr.get("mode") == "markers"]
    if not traces:
        return set()
    return {(int(r), int(c)) for r, c in zip(plotly_array(traces[0]["y"]), plotly_array(traces[0]["x"]), strict=True)}


def row_bar(at) -> dict:
    """The bars of the picked query's weights (behind them may stand the grey band of masked keys)."""
    return next(tr for tr in figures(at)["heatmap_row"]["data"] if tr["name"] == t("heatmap.weight", lang="en"))


def row_sum_texts(at) -> list[str]:
    return next(tr["text"] for tr in figures(at)["heatmap_weights"]["data"] if tr.get("mode") == "text")


def weights_table(at):
    return next(d.value for d in at.dataframe if t("heatmap.row_sum", lang="en") in list(d.value.columns))


def texts(at) -> str:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.success, *at.error]
    return "\n".join(p.value for p in parts)


def random_weights(text: str, d: int = 8, seed: int = 0, mask=None, tau: float = 1.0, norm: str = "softmax"):
    tokens = split_tokens(text)
    q, k, v = random_qkv(token_vectors(tokens, d, seed), d, seed)
    return attend(q, k, v, mask=mask, temperature=tau, normalisation=norm)


@pytest.fixture
def shipped_only(monkeypatch):
    """A default install: the optional model package is absent."""
    monkeypatch.setattr(pretrained, "minilm_available", lambda: False)


# --- defaults and languages -----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_in_both_languages_with_its_figures(lang):
    at = open_page(PAGE, lang=lang)
    assert not at.exception
    assert at.title[0].value == t("heatmap.title", lang=lang)
    assert set(figures(at)) == {"heatmap_weights", "heatmap_row", "heatmap_output"}
    assert key_labels(at) == split_tokens(DEFAULT_TEXT)


def test_default_weights_are_the_cores_and_every_row_sums_to_one():
    at = open_page(PAGE)
    expected = random_weights(DEFAULT_TEXT).weights
    np.testing.assert_allclose(weights_z(at), expected, atol=1e-6)
    assert row_sum_texts(at) == ["1.00"] * len(expected)
    np.testing.assert_allclose(weights_table(at)[t("heatmap.row_sum", lang="en")], 1.0, atol=1e-4)
    assert "Every row sums to 1" in texts(at)
    assert not crosses(at)


# --- normalisation, masks, temperature -------------------------------------------------------------------


def test_relu_rows_need_not_sum_to_one_and_the_page_says_so():
    at = open_page(PAGE)
    at.button_group(key="hm_norm").set_value("relu").run()
    expected = random_weights(DEFAULT_TEXT, norm="relu").weights
    z = weights_z(at)
    np.testing.assert_allclose(z, expected, atol=1e-5)
    assert np.all(z >= 0) and np.any(z == 0)  # negative scores were cut to 0
    sums = weights_table(at)[t("heatmap.row_sum", lang="en")].to_numpy()
    assert np.abs(sums - 1).max() > 0.1
    assert row_sum_texts(at) == [f"{s:.2f}" for s in expected.sum(axis=1).astype(np.float32)]
    assert "With ReLU the rows do not sum to 1" in texts(at)
    assert at.query_params["hm_norm"] == "relu"


def test_causal_mask_empties_and_marks_the_upper_triangle():
    at = open_page(PAGE)
    at.button_group(key="hm_mask").set_value("causal").run()
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
    np.testing.assert_allclose(cells[~upper], z[~upper], atol=1e-6)  # full precision; 4 decimals only on screen


def test_local_window_width():
    at = open_page(PAGE)
    at.button_group(key="hm_mask").set_value("local").run()
    for window in (0, 1, 3):
        at.slider(key="hm_win").set_value(window).run()
        allowed = ~np.isnan(weights_z(at))
        np.testing.assert_array_equal(allowed, local_mask(allowed.shape[0], window))
        assert allowed.sum(axis=1).max() == 2 * window + 1


def test_temperature_sharpens_as_it_falls_and_flattens_as_it_rises():
    at = open_page(PAGE)
    peaks = {}
    for tau in (10, 1, 0.3, 0.05):
        at.select_slider(key="hm_tau").set_value(tau).run()
        z = weights_z(at)
        np.testing.assert_allclose(z, random_weights(DEFAULT_TEXT, tau=tau).weights, atol=1e-5)
        peaks[tau] = z.max(axis=1).mean()
    assert peaks[10] < peaks[1] < peaks[0.3] < peaks[0.05]
    assert peaks[0.05] > 0.9  # nearly one key per row
    assert peaks[10] < 1.5 / len(split_tokens(DEFAULT_TEXT))  # nearly even


# --- one query: its row and its output ---------------------------------------------------------------


def test_query_row_bars_and_output_are_the_weighted_sum_of_values():
    at = open_page(PAGE, hm_q="8")
    r = random_weights(DEFAULT_TEXT)
    tokens = split_tokens(DEFAULT_TEXT)
    np.testing.assert_allclose(plotly_array(row_bar(at)["y"]), r.weights[7], atol=1e-6)
    out = plotly_array(figures(at)["heatmap_output"]["data"][0]["z"])
    v = random_qkv(token_vectors(tokens, 8, 0), 8, 0)[2]
    np.testing.assert_allclose(out[:-1], r.weights[7][:, None] * v, atol=1e-5)  # alpha'_8j v_j, one row per key
    np.testing.assert_allclose(out[-1], r.output[7], atol=1e-5)  # the sum: b_8
    assert at.selectbox(key="hm_q").value == 8


def test_a_masked_key_is_grey_in_the_row_bars():
    at = open_page(PAGE, hm_mask="causal", hm_q="2")
    band = next(tr for tr in figures(at)["heatmap_row"]["data"] if tr["name"] == "×")
    assert list(plotly_array(band["x"])) == list(range(2, len(split_tokens(DEFAULT_TEXT))))  # keys 3 ... T, 0-based
    np.testing.assert_allclose(plotly_array(row_bar(at)["y"])[2:], 0.0)


# --- the real model ----------------------------------------------------------------------------------


def test_layer_and_head_show_the_shipped_weights(shipped_only):
    at = open_page(PAGE, hm_src="model", hm_ex="cat_mat")
    example = EXAMPLES["cat_mat"]
    for layer, head in ((1, 1), (3, 5), (6, 12)):
        at.slider(key="hm_layer").set_value(layer).run()
        at.slider(key="hm_head").set_value(head).run()
        np.testing.assert_allclose(weights_z(at), example.attentions[layer - 1, head - 1], atol=1e-6)
    assert key_labels(at) == list(example.tokens)
    assert key_labels(at)[0] == "[CLS]" and key_labels(at)[-1] == "[SEP]"


def test_with_the_full_model_the_heads_agree_with_the_shipped_maps():
    if not pretrained.minilm_available():
        pytest.skip("the optional model package is not installed")
    at = open_page(PAGE, hm_src="model", hm_ex="keys_cabinet", hm_layer="2", hm_head="7")
    np.testing.assert_allclose(weights_z(at), EXAMPLES["keys_cabinet"].attentions[1, 6], atol=3e-3)
    assert "heatmap_output" in figures(at)  # the value vectors come with the full model
    at.button_group(key="hm_norm").set_value("relu").run()
    assert "With ReLU the rows do not sum to 1" in texts(at)


def test_shipped_weights_take_mask_and_temperature_exactly(shipped_only):
    at = open_page(PAGE, hm_src="model", hm_ex="saw_saw", hm_layer="2", hm_head="3", hm_mask="causal", hm_tau="0.5")
    w = EXAMPLES["saw_saw"].attentions[1, 2]
    T = w.shape[0]
    expected = reweight(w, mask=causal_mask(T), temperature=0.5)
    z = weights_z(at)
    np.testing.assert_allclose(np.nan_to_num(z), expected, atol=1e-6)
    assert np.all(np.isnan(z[~causal_mask(T)]))
    assert t("heatmap.fact", lang="en").split("**")[1] in texts(at)


def test_without_the_full_model_relu_and_free_text_explain_themselves(shipped_only):
    at = open_page(PAGE, hm_src="model", hm_ex="animal_tired", hm_norm="relu")
    assert not at.exception
    assert "own" not in at.selectbox(key="hm_ex").options
    assert t("heatmap.relu_unavailable", lang="en") in texts(at)
    np.testing.assert_allclose(np.nansum(weights_z(at), axis=1), 1.0, atol=1e-5)  # softmax is shown instead
    assert "make real-model" in texts(at)
    assert "heatmap_output" not in figures(at)
    assert at.button_group(key="hm_norm").value == "relu"  # what the student chose is kept for later


def test_free_text_link_without_the_model_falls_back_to_an_example(shipped_only):
    at = open_page(PAGE, hm_src="model", hm_ex="own", hm_text="Dogs bark.")
    assert not at.exception
    assert at.selectbox(key="hm_ex").value == "animal_tired"
    assert key_labels(at) == list(EXAMPLES["animal_tired"].tokens)


def test_it_to_animal_preset_finds_the_head_by_computing():
    at = open_page(PAGE)
    at.button(key="hm_preset_animal").click().run()
    example = EXAMPLES["animal_tired"]
    it, animal = example.tokens.index("it"), example.tokens.index("animal")
    layer, head = strongest_head(example.attentions, it, animal)
    assert at.slider(key="hm_layer").value == layer + 1 and at.slider(key="hm_head").value == head + 1
    assert at.selectbox(key="hm_q").value == it + 1
    row = plotly_array(row_bar(at)["y"])
    assert int(np.argmax(row)) == animal  # in this head "it" looks most at "animal"


def test_model_word_pieces_are_cut_at_64_with_a_note():
    if not pretrained.minilm_available():
        pytest.skip("the optional model package is not installed")
    text = "Transformers read unbelievably long sentences. " * 20
    at = open_page(PAGE, hm_src="model", hm_ex="own", hm_text=text)
    labels = table_tokens(at)
    assert len(labels) == 64 and labels[0] == "[CLS]" and labels[-1] == "[SEP]"
    assert key_labels(at) == labels[::2]  # the axis labels every other token
    assert any(label.startswith("##") for label in labels)
    assert "only the first 64 are drawn" in texts(at)
    np.testing.assert_allclose(np.nansum(weights_z(at), axis=1), 1.0, atol=1e-5)


# --- text input ---------------------------------------------------------------------------------------


def test_long_text_is_cut_to_64_tokens_with_a_note():
    at = open_page(PAGE, hm_text="word " * 100)
    assert weights_z(at).shape == (64, 64)
    assert "The text has 100 tokens; only the first 64 are drawn" in texts(at)


def test_chinese_is_split_into_characters():
    at = open_page(PAGE, lang="zh", hm_text="我在河边看见了一只猫。")
    assert key_labels(at) == list("我在河边看见了一只猫。")


def test_html_is_shown_as_text():
    at = open_page(PAGE, hm_text="<b>bold</b> <img src=x onerror=alert(1)>", hm_q="1")
    assert not at.exception
    labels = key_labels(at)
    assert "&lt;" in labels and "&gt;" in labels and "<" not in labels
    assert all("<b>" not in m.value and "<img" not in m.value for m in [*at.markdown, *at.caption])
    assert at.selectbox(key="hm_q").format_func(1) == "1 · <"  # a selectbox shows plain text


@pytest.mark.parametrize(
    "text", ["", "   ", "\u200b\u200c\u2060", "👩‍💻 loves 🐍", "שלום עולם", "x" * 5000, "a\u200bb\u200bc"]
)
def test_awkward_text_never_breaks_the_page(text):
    at = open_page(PAGE, hm_text=text)
    assert not at.exception
    z = weights_z(at)
    np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-5)
    if not text.strip() or not split_tokens(text):
        assert key_labels(at) == split_tokens(DEFAULT_TEXT)  # the example sentence, with a message
        assert DEFAULT_TEXT in texts(at)
    assert at.text_input(key="hm_text").value == text  # what was typed stays in the box


@pytest.mark.parametrize(
    "params",
    [
        dict(hm_text="hello", hm_mask="causal"),  # one token
        dict(hm_d="1", hm_seed="2147483647", hm_tau="0.05", hm_norm="relu"),
        dict(hm_d="64", hm_tau="10", hm_mask="local", hm_win="32", hm_q="12"),
        dict(hm_src="model", hm_ex="cat_river_zh", hm_layer="6", hm_head="12", hm_mask="local", hm_win="0"),
    ],
)
def test_every_control_at_its_extremes(params):
    at = open_page(PAGE, **params)
    assert not at.exception and not at.toast
    z = weights_z(at)
    assert np.all(np.isnan(z) | (z >= 0))
    if params.get("hm_norm") != "relu":
        np.testing.assert_allclose(np.nansum(z, axis=1), 1.0, atol=1e-5)
    if params.get("hm_win") == "0":
        np.testing.assert_array_equal(~np.isnan(z), np.eye(len(z), dtype=bool))  # each token sees only itself
    options = at.radio(key="hm_check").options[1:]  # AppTest gives the labels as shown
    assert len(set(options)) == 4  # four different answers, even for a one-token sentence


# --- links, presets, check yourself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "key", "fallback"),
    [
        ({"hm_d": "abc"}, "hm_d", 8),
        ({"hm_d": "999"}, "hm_d", 8),
        ({"hm_tau": "7"}, "hm_tau", 1),
        ({"hm_mask": "sideways"}, "hm_mask", "none"),
        ({"hm_norm": "sigmoid"}, "hm_norm", "softmax"),
        ({"hm_src": "oracle"}, "hm_src", "random"),
        ({"hm_q": "0"}, "hm_q", 3),
        ({"hm_q": "three"}, "hm_q", 3),
        ({"hm_src": "model", "hm_layer": "99"}, "hm_layer", 1),
        ({"hm_src": "model", "hm_head": "-1"}, "hm_head", 1),
        ({"hm_ex": "no_such_example"}, "hm_ex", "own"),
    ],
)
def test_bad_link_values_fall_back_with_a_notice(params, key, fallback):
    at = open_page(PAGE, hm_text="one two three four five", **params)
    assert not at.exception
    assert at.toast and key in at.toast[0].value
    widget = at.get_by_key(key) if hasattr(at, "get_by_key") else None
    value = widget.value if widget is not None else None
    assert value == fallback
    if params.get("hm_src") != "model":
        assert key_labels(at) == ["one", "two", "three", "four", "five"]  # the rest of the link still counts


def test_a_link_round_trips():
    """Choices live in the URL as ASCII ids (hand-synced); a link with every control set gives that view."""
    at = open_page(PAGE)
    at.button_group(key="hm_mask").set_value("local").run()
    at.selectbox(key="hm_q").set_value(4).run()
    assert (at.query_params["hm_mask"], at.query_params["hm_q"]) == ("local", "4")
    link = dict(hm_text="a b c d e", hm_d="5", hm_seed="9", hm_mask="local", hm_win="1", hm_tau="0.5", hm_q="4")
    again = open_page(PAGE, **link)
    expected = random_weights("a b c d e", d=5, seed=9, mask=local_mask(5, 1), tau=0.5).weights
    np.testing.assert_allclose(np.nan_to_num(weights_z(again)), expected, atol=1e-6)
    assert again.selectbox(key="hm_q").value == 4
    assert not again.toast


def test_seeds_preset_shows_two_identical_saws():
    at = open_page(PAGE)
    at.button(key="hm_preset_seeds").click().run()
    assert key_labels(at) == ["I", "saw", "a", "saw"]
    assert at.slider(key="hm_d").value == 4
    z = weights_z(at)
    np.testing.assert_allclose(z[1], z[3], atol=1e-7)  # same vector, same query, same row
    assert t("heatmap.same_vectors", lang="en") in texts(at)


def test_long_and_local_presets():
    at = open_page(PAGE)
    at.button(key="hm_preset_long").click().run()
    assert weights_z(at).shape == (64, 64)
    at.button(key="hm_preset_local").click().run()
    np.testing.assert_array_equal(~np.isnan(weights_z(at)), local_mask(64, 2))
    at.button(key="hm_preset_causal").click().run()
    assert at.button_group(key="hm_mask").value == "causal"
    assert np.isnan(weights_z(at)[0, 1])


def test_check_yourself_causal_row_three():
    at = open_page(PAGE)
    at.radio(key="hm_check").set_value("all").run()
    assert at.error
    at.radio(key="hm_check").set_value("up_to").run()
    assert at.success
    assert "1 · The, 2 · animal, 3 · didn't" in texts(at).replace("\\", "")


def test_lecture_mode_folds_the_controls_away():
    at = open_page(PAGE, lecture="1")
    assert not at.exception
    assert t("heatmap.controls", lang="en") in [e.label for e in at.expander]
    assert figures(at)["heatmap_weights"]["layout"]["font"]["size"] >= 20


@pytest.mark.parametrize(("text", "hidden"), [("I saw a saw", False), (DEFAULT_TEXT, True)])
def test_cell_numbers_are_hidden_on_phones_only_when_crowded(text, hidden):
    """4 tokens: the numbers fit a phone. The default 12: they fit a desktop's column (and are
    written), but the page asks the browser to hide them below 640 px."""
    at = open_page(PAGE, hm_text=text)
    trace = figures(at)["heatmap_weights"]["data"][0]
    assert trace["texttemplate"] == "%{z:.2f}"
    styles = [h.proto.body for h in at.get("html") if ".st-key-heatmap_weights .heatmap-label" in h.proto.body]
    assert bool(styles) == hidden
