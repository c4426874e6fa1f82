"""The whole-layer page: what it draws against the same numbers computed here independently from
the model's weights (layer 1 by hand in NumPy, norms and cosines of encode's own blocks, rollout by
its definition, one head switched off by encode itself), then the page in AppTest: every step in
both languages, the controls, bad text and bad links, the check, no model installed."""

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

import attention_core.pretrained as pretrained
from attention_core import transformer_layer as tl
from attention_core.layers import layer_norm
from attention_core.pretrained import HeadAblation, load_minilm
from lab_ui.i18n import literal, t
from lab_ui.registry import info as page_info
from pages.transformer_block import ABLATION_MAX, EXAMPLE, PAIR
from pages.transformer_block import Controls as C

PAGE = "pages/transformer_block.py"
INFO = page_info("transformer_block")
(CHECK,) = INFO.checks
IT = 10  # "it" in the example: [CLS] the animal didn ' t cross the street because it ...
link = link_of(C)
needs_model = pytest.mark.skipif(
    not pretrained.minilm_available(), reason="the optional model package is not installed"
)
pytestmark = needs_model


def words(at) -> str:
    """Everything the page wrote as text: Markdown, captions, notices."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    return " ".join(parts + [i.value for i in at.info] + [w.value for w in at.warning])


@pytest.fixture(scope="module")
def enc():
    return load_minilm()


@pytest.fixture(scope="module")
def full(enc):
    return enc.encode(EXAMPLE, max_tokens=64, keep="all")


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# --- the numbers against an independent computation ----------------------------------------------


def test_layer_1s_weights_are_the_model_worked_in_plain_numpy(enc):
    at = open_step(PAGE, "layer", **link(stage="weights", head=3))
    assert not at.exception
    _, ids, _ = enc.pieces(EXAMPLE, 64)
    e, b = enc.embeddings, enc.blocks[0]
    x = layer_norm(e.word[list(ids)] + e.position[: len(ids)] + e.token_type[0], e.ln_gamma, e.ln_beta, enc.config.eps)
    q, k = (x @ b.w_q + b.b_q)[:, 64:96], (x @ b.w_k + b.b_k)[:, 64:96]  # head 3: columns 64..95
    weights = softmax(q @ k.T / np.sqrt(32))
    z = plotly_array(figures(at)["tb_stage_map"]["data"][0]["z"])
    np.testing.assert_allclose(z, weights, atol=1e-6)
    title = figures(at)["tb_stage_map"]["layout"]["title"]["text"]
    assert "L1 H3" in title and f"[12, {len(ids)}, {len(ids)}]" in title


def test_the_ffn_is_four_times_wider_and_its_map_is_the_models(full):
    at = open_step(PAGE, "layer", **link(stage="ff_hidden", layer=4))
    b = full.blocks[3]
    z = plotly_array(figures(at)["tb_stage_map"]["data"][0]["z"])
    np.testing.assert_allclose(z, b.ff_hidden[:, :48], atol=1e-5)
    assert f"[{len(full.tokens)}, 1536]" in figures(at)["tb_stage_map"]["layout"]["title"]["text"]
    assert f"|a| = {np.linalg.norm(b.attention.output[IT]):.2f}" in words(at)  # the followed piece's update


def test_the_path_is_the_blocks_norms_and_cosines(full):
    at = open_step(PAGE, "path")
    bars, lines = figures(at)["tb_updates"]["data"], figures(at)["tb_cosines"]["data"]
    x = np.stack([b.input[IT] for b in full.blocks])  # [6, 384]
    a = np.stack([b.attention.output[IT] for b in full.blocks])
    h = np.stack([b.attention_norm[IT] for b in full.blocks])
    f = np.stack([b.ff_output[IT] for b in full.blocks])
    out = np.stack([b.output[IT] for b in full.blocks])
    norm = np.linalg.norm
    np.testing.assert_allclose(plotly_array(bars[0]["y"]), norm(a, axis=1) / norm(x, axis=1), atol=1e-4)
    np.testing.assert_allclose(plotly_array(bars[1]["y"]), norm(f, axis=1) / norm(h, axis=1), atol=1e-4)
    cos = (out * x).sum(axis=1) / (norm(out, axis=1) * norm(x, axis=1))
    np.testing.assert_allclose(plotly_array(lines[2]["y"]), cos, atol=1e-4)


def test_the_rollout_is_its_definition(full):
    at = open_step(PAGE, "rollout")
    z = plotly_array(figures(at)["tb_rollout"]["data"][0]["z"])  # 6 raw rows, a gap, 6 rollout rows
    raw = full.attentions.mean(axis=1)  # [6, T, T]
    T = raw.shape[-1]
    rolled = np.eye(T)
    expected = []
    for layer in range(6):
        rolled = (0.5 * np.eye(T) + 0.5 * raw[layer]) @ rolled
        expected.append(rolled[IT])
    np.testing.assert_allclose(z[:6], raw[:, IT], atol=1e-5)
    assert np.isnan(z[6]).all()
    np.testing.assert_allclose(z[7:], np.array(expected), atol=1e-5)


def test_no_residual_share_gives_the_plain_product_of_the_maps(full):
    at = open_step(PAGE, "rollout")
    at.slider(key=C.residual.key).set_value(0.0).run()
    z = plotly_array(figures(at)["tb_rollout"]["data"][0]["z"])
    raw = full.attentions.mean(axis=1)
    np.testing.assert_allclose(z[8], (raw[1] @ raw[0])[IT], atol=1e-5)
    assert t("transformer_block.no_residual", lang="en") in words(at)


def test_switching_one_head_off_moves_the_embedding_as_encode_says(enc):
    at = open_step(PAGE, "explain", **link(off_layer=2, off_head=5))
    assert not at.exception
    base = enc.encode(EXAMPLE, max_tokens=ABLATION_MAX, dtype=np.float32, keep="stream")
    off = enc.encode(EXAMPLE, max_tokens=ABLATION_MAX, dtype=np.float32, keep="stream", ablation=HeadAblation(1, 4))
    shift = 1.0 - float(off.sentence_embedding @ base.sentence_embedding)
    ringed = figures(at)["tb_ablation"]["data"][-1]
    assert float(plotly_array(ringed["y"])[0]) == pytest.approx(shift, rel=1e-3, abs=1e-7)
    assert f"1 − cos = {shift:.2e}" in words(at)
    pair = enc.encode(PAIR, max_tokens=ABLATION_MAX, dtype=np.float32, keep="stream")
    assert f"{float(base.sentence_embedding @ pair.sentence_embedding):.4f}" in words(at)
    assert t("transformer_block.measured_here", lang="en", T=len(base.tokens)) in words(at)


def test_uniform_weights_are_the_other_ablation(enc):
    at = open_step(PAGE, "explain", **link(mode="uniform", pair="", off_layer=6, off_head=1))
    off = enc.encode(
        EXAMPLE, max_tokens=ABLATION_MAX, dtype=np.float32, keep="stream", ablation=HeadAblation(5, 0, "uniform")
    )
    base = enc.encode(EXAMPLE, max_tokens=ABLATION_MAX, dtype=np.float32, keep="stream")
    ringed = figures(at)["tb_ablation"]["data"][-1]
    shift = 1.0 - float(off.sentence_embedding @ base.sentence_embedding)
    assert float(plotly_array(ringed["y"])[0]) == pytest.approx(shift, rel=1e-3, abs=1e-7)
    assert t("transformer_block.no_pair", lang="en") in words(at)


def test_a_long_text_is_cut_for_the_ablation_with_a_notice():
    text = "The quick brown fox jumps over the lazy dog near the river bank. " * 4
    at = open_step(PAGE, "explain", **link(text=text))
    assert not at.exception
    _, _, total = load_minilm().pieces(text, ABLATION_MAX)
    assert total > ABLATION_MAX
    assert t("transformer_block.ablation_cut", lang="en", kept=ABLATION_MAX, total=total) in words(at)


# --- the page ------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("step", "charts"),
    [
        ("layer", {"tb_stage_map"}),
        ("path", {"tb_updates", "tb_cosines"}),
        ("rollout", {"tb_rollout"}),
        ("explain", {"tb_ablation"}),
        ("check", set()),
    ],
)
def test_every_step_opens_with_its_figures(lang, step, charts):
    at = open_step(PAGE, step, lang)
    assert not at.exception
    assert set(figures(at)) == charts
    assert at.title[0].value == t("transformer_block.title", lang=lang)


def test_the_layer_slider_moves_the_map(full):
    at = open_step(PAGE, "layer")
    before = plotly_array(figures(at)["tb_stage_map"]["data"][0]["z"])
    at.slider(key=C.layer.key).set_value(5).run()
    after = plotly_array(figures(at)["tb_stage_map"]["data"][0]["z"])
    np.testing.assert_allclose(after, full.attentions[4, 0], atol=1e-6)
    assert not np.allclose(before, after)
    assert "L5 H1" in figures(at)["tb_stage_map"]["layout"]["title"]["text"]


def test_the_followed_token_feeds_every_step(full):
    at = open_step(PAGE, "path", **link(token=2))  # "animal"
    a = np.linalg.norm(full.blocks[0].attention.output[2]) / np.linalg.norm(full.blocks[0].input[2])
    assert float(plotly_array(figures(at)["tb_updates"]["data"][0]["y"])[0]) == pytest.approx(a, abs=1e-4)
    assert "animal (3)" in words(at)


def test_the_check_takes_the_mixed_diagonal():
    at = open_step(PAGE, "check")
    load = load_minilm().encode(EXAMPLE, max_tokens=64, keep="all")
    answer = 0.5 + 0.5 * float(load.attentions[0, :, IT, IT].mean())
    at.number_input(key=CHECK).set_value(round(answer + 0.2, 4)).run()
    assert at.error and not at.success
    at.number_input(key=CHECK).set_value(round(answer, 4)).run()
    assert at.success
    assert CHECK not in at.query_params


def test_the_saw_preset_sets_the_text_and_marks_the_same_piece():
    at = open_step(PAGE, "path")
    at.button(key="transformer_block_preset_saw").click().run()
    assert at.text_input(key=C.text.key).value == "I saw a saw."
    assert at.selectbox(key=C.token.key).value == 4


@pytest.mark.parametrize("bad", ["99", "abc", "1e309", "١"])
def test_a_bad_layer_in_the_link_falls_back_with_a_notice(bad):
    at = open_step(PAGE, "layer", **{C.layer.key: bad})
    assert not at.exception
    assert at.slider(key=C.layer.key).value == C.layer.default
    assert at.toast and C.layer.key in at.toast[0].value


def test_a_token_past_the_text_falls_back_to_it():
    at = open_step(PAGE, "path", **link(token=500))
    assert not at.exception
    assert at.selectbox(key=C.token.key).value == IT


# --- bad text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "notice"),
    [
        ("", t("common.empty_text", lang="en", example=EXAMPLE)),
        ("   ", t("common.empty_text", lang="en", example=EXAMPLE)),
        ("\u200b", t("common.no_tokens", lang="en", example=EXAMPLE)),
    ],
)
def test_a_text_with_nothing_to_read_falls_back_to_the_example(text, notice):
    at = open_step(PAGE, "layer")
    at.text_input(key=C.text.key).set_value(text).run()
    assert not at.exception
    assert notice in [i.value for i in at.info]
    assert at.text_input(key=C.text.key).value == text  # what was typed stays in the box


@pytest.mark.parametrize("step", ["layer", "path", "rollout", "explain", "check"])
@pytest.mark.parametrize("text", ["a", "I ❤️ NumPy 🚀🔥", '<script>alert("x")</script> <b>bold</b> $x^2$'])
def test_odd_text_opens_every_step(step, text):
    at = open_step(PAGE, step)
    at.text_input(key=C.text.key).set_value(text).run()
    assert not at.exception
    assert not [w for w in at.warning if "Traceback" in w.value]


def test_chinese_says_how_many_pieces_became_unk():
    text = "我在河边看见了一只猫。"
    tokens = load_minilm().pieces(text)[0]
    at = open_step(PAGE, "path", **link(text=text, token=1))
    assert not at.exception
    n = tokens.count("[UNK]")
    assert n > 0 and t("transformer_block.unknown", lang="en", n=n, T=len(tokens)) in words(at)
    assert t("transformer_block.unk_not_same", lang="en") in words(at)
    assert "(the same piece)" not in words(at).split("after the last layer")[0]  # [UNK] never matches [UNK]


def test_ten_thousand_characters_are_cut_with_a_notice():
    text = "The cat sat on the mat. " * 417
    at = open_step(PAGE, "layer")
    at.text_input(key=C.text.key).set_value(text).run()
    assert not at.exception
    tokens, _, total = load_minilm().pieces(text, 64)
    notice = t("transformer_block.cut", lang="en", total=total, kept=len(tokens), chars=len(text))
    assert notice in words(at)
    assert "[12, 64, 64]" in figures(at)["tb_stage_map"]["layout"]["title"]["text"]  # 64 pieces read


def test_html_in_the_text_is_shown_as_text():
    text = "<b>bold</b> it"
    at = open_step(PAGE, "layer", **link(text=text, token=1))
    assert not at.exception
    assert literal("<") in words(at)  # the piece is escaped wherever the page names it
    assert "<b>" not in words(at)


def test_without_the_model_the_page_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(pretrained, "minilm_available", lambda: False)
    at = open_page(PAGE, whole="1")
    assert not at.exception
    assert t("transformer_block.needs_model", lang="en", command=pretrained.INSTALL_COMMAND) in [
        i.value for i in at.info
    ]
    assert not figures(at)


def test_the_embeddings_shown_at_a_later_layer_say_they_feed_layer_1_only(full):
    at = open_step(PAGE, "layer", **link(layer=3, stage="position"))
    assert t("transformer_block.embed_note", lang="en", layer=3, before=2) in words(at)
    z = plotly_array(figures(at)["tb_stage_map"]["data"][0]["z"])
    np.testing.assert_allclose(z, full.embedding.position[:, :48], atol=1e-6)


def test_the_verdict_on_the_two_rankings_is_the_one_their_numbers_give():
    at = open_step(PAGE, "explain")
    result = tl.head_ablation(EXAMPLE, PAIR, "zero", ABLATION_MAX)
    agreement = tl.ranking_agreement(result, 5)
    verdict = {
        "agree": "transformer_block.verdict_agree",
        "opposite": "transformer_block.verdict_opposite",
        "unrelated": "transformer_block.verdict_unrelated",
    }
    assert t(verdict[agreement.verdict], lang="en") in words(at)
    assert f"ρ between the effect and the peakedness is {agreement.spearman:+.2f}" in " ".join(words(at).split())
    top = ", ".join(f"L{layer + 1} H{head + 1}" for layer, head in agreement.top_effect)
    assert top in words(at)
