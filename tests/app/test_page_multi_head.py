"""The multi-head page in AppTest: move the controls, then check what the figures and tables hold
against the core (attention_core), computed here independently of the page."""

import html

import numpy as np
import pytest
from app_harness import figures, link_of, open_page, open_step, plotly_array

import attention_core.pretrained as pretrained
from attention_core import multi_head_attention, split_tokens, token_vectors
from attention_core.head_stats import head_choices, head_overlap, mean_entropy, random_projections
from attention_core.shipped import load_examples
from lab_ui.figures.multi_head import LECTURE_HEIGHT_PX
from lab_ui.i18n import literal, t
from lab_ui.registry import info as page_info
from pages.multi_head import Controls as C

PAGE = "pages/multi_head.py"
EXAMPLES = {e.id: e for e in load_examples()}
INFO = page_info("multi_head")
SECTIONS = INFO.step_names
STEP = INFO.step_key
NUMBER_CHECK, CHOICE_CHECK = INFO.checks
FIGURES_OF_STEP = {
    1: {"mh_split"},
    2: {"mh_maps", "mh_focus_map"},
    3: {"mh_concat"},
    4: {"mh_entropy", "mh_overlap"},
    5: set(),
    6: set(),
}
URL_KEYS = (
    C.source.key,
    C.text.key,
    C.d.key,
    C.heads.key,
    C.seed.key,
    C.example.key,
    C.own_text.key,
    C.layer.key,
    C.matrix.key,
    C.focus.key,
    STEP,
)
BAD_NUMBERS = ("1e309", "-1e309", "1e-400", "9e999")
needs_model = pytest.mark.skipif(
    not pretrained.minilm_available(), reason="the optional model package is not installed"
)
link = link_of(C)


def core(text: str, d_model: int, n_heads: int, seed: int):
    """What the page must show for seeded random weights, computed from the core alone."""
    x = token_vectors(split_tokens(text), d_model, seed)
    w = random_projections(d_model, np.random.default_rng(seed))
    return multi_head_attention(x, w.w_q, w.w_k, w.w_v, w.w_o, n_heads)


def messages(at) -> str:
    return " ".join(w.value for w in at.warning) + " " + " ".join(i.value for i in at.info)


def table_with_column(at, column: str):
    return next(d.value for d in at.dataframe if column in list(d.value.columns))


def blocks_apart(trace, n_heads: int) -> list[np.ndarray]:
    """The head blocks of a stacked figure's "apart" trace: its cells, less the empty gap columns."""
    z = plotly_array(trace["z"])
    filled = ~np.isnan(z).all(axis=0)
    return np.split(z[:, filled], n_heads, axis=1)


def head_maps(spec) -> list[np.ndarray]:
    """Each head's map, out of the small multiples: one heatmap whose cells name their head (customdata, from 1)."""
    z, heads = plotly_array(spec["data"][0]["z"]), plotly_array(spec["data"][0]["customdata"])
    T = int(np.sqrt(np.count_nonzero(heads == 1)))
    return [z[heads == i].reshape(T, T) for i in range(1, int(heads.max()) + 1)]


def map_tokens(spec) -> list[str]:
    """The keys of the first small map, as hover names them: the x categories are "token (position)"."""
    heads = plotly_array(spec["data"][0]["customdata"])
    row = heads[np.nonzero((heads == 1).any(axis=1))[0][0]]
    return [spec["data"][0]["x"][j].rsplit(" (", 1)[0] for j in np.nonzero(row == 1)[0]]


def titles(at) -> dict[str, str]:
    return {key: spec["layout"]["title"]["text"] for key, spec in figures(at).items()}


@pytest.fixture
def shipped_only(monkeypatch):
    """An install without the optional model package."""
    monkeypatch.setattr(pretrained, "minilm_available", lambda: False)


# --- defaults and languages -----------------------------------------------------------------------


@needs_model
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_opens_on_the_real_models_heads_in_both_languages(lang):
    at = open_page(PAGE, lang=lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("multi_head.title", lang=lang)
    assert at.button_group(key=C.source.key).value == "model"
    assert set(figures(at)) == {"mh_split", "mh_maps", "mh_focus_map", "mh_concat", "mh_entropy", "mh_overlap"}
    assert [s.value for s in at.subheader][:6] == [
        f"{i} · {t(INFO.steps[name], lang=lang)}" for i, name in enumerate(SECTIONS, 1)
    ]
    e = EXAMPLES["animal_tired"]  # the first example, layer 1: the model run here matches its shipped maps
    maps = np.stack(head_maps(figures(at)["mh_maps"]))
    np.testing.assert_allclose(maps, e.attentions[0], atol=3e-3)  # shipped maps are float16
    model_title = t("multi_head.fig_model", lang=lang, layer=1)
    assert all(model_title in title for title in titles(at).values())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_the_model_package_it_opens_on_the_shipped_maps(lang, shipped_only):
    at = open_page(PAGE, lang=lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("multi_head.title", lang=lang)
    assert [s.value for s in at.subheader][:6] == [
        f"{i} · {t(INFO.steps[name], lang=lang)}" for i, name in enumerate(SECTIONS, 1)
    ]
    assert at.button_group(key=C.source.key).value == "model"
    assert set(figures(at)) == {"mh_maps", "mh_focus_map", "mh_entropy", "mh_overlap"}
    assert t("multi_head.need_encoder", lang=lang) in messages(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_random_weights_are_called_random_in_every_figure(lang):
    at = open_page(PAGE, lang=lang, whole="1", **link(source="random", seed="3"))
    assert not at.exception
    shown = titles(at)
    assert set(shown) == {"mh_split", "mh_maps", "mh_concat", "mh_entropy", "mh_overlap"}
    assert all(t("multi_head.fig_random", lang=lang, seed=3) in title for title in shown.values()), shown
    assert t("multi_head.source_random", lang=lang) in at.button_group(key=C.source.key).options


# --- old links: random weights were the default ------------------------------------------------------


def test_a_link_from_before_with_random_controls_still_opens_on_random_weights():
    at = open_step(PAGE, "maps", **link(text="the cat sat", heads="1"))
    assert at.button_group(key=C.source.key).value == "random"
    assert at.query_params[C.source.key] == "random"  # the link now says so
    r = core("the cat sat", 8, 1, 0)
    np.testing.assert_allclose(head_maps(figures(at)["mh_maps"])[0], r.weights[0], atol=1e-6)


def test_a_link_without_source_or_random_controls_opens_on_the_model(shipped_only):
    at = open_page(PAGE, **link(matrix="K"), **{STEP: "2"})
    assert at.button_group(key=C.source.key).value == "model"
    at = open_page(PAGE, **link(source="random"))
    assert at.button_group(key=C.source.key).value == "random"


# --- the split, the maps, the join -----------------------------------------------------------------


def test_head_blocks_of_q_k_v_are_their_columns():
    at = open_page(PAGE, **link(text="the cat sat on the mat", d="12", heads="3", seed="5"))
    r = core("the cat sat on the mat", 12, 3, 5)
    for name, whole in (("Q", r.q), ("K", r.k), ("V", r.v)):
        if name != "Q":
            at.button_group(key=C.matrix.key).set_value(name).run()
        spec = figures(at)["mh_split"]["data"]  # the matrix, then its 3 head blocks apart
        assert len(spec) == 2
        shown = plotly_array(spec[0]["z"])
        np.testing.assert_allclose(shown, whole, atol=1e-5)  # float32 on the wire
        np.testing.assert_array_equal(plotly_array(spec[0]["customdata"])[0], np.repeat([1, 2, 3], 4))  # heads
        for i, block in enumerate(blocks_apart(spec[1], 3)):
            assert block.shape == (6, 4)
            np.testing.assert_array_equal(block, shown[:, 4 * i : 4 * (i + 1)])  # head i's block: Q's columns
        shapes = t("multi_head.shapes_split", name=name, T=6, d_model=12, n_heads=3, d_head=4)
        assert f"`{shapes}`" in [m.value for m in at.markdown]


def test_concat_is_the_heads_side_by_side_and_output_is_concat_times_w_o():
    at = open_step(PAGE, "join", **link(text="machine learning is fun", d="8", heads="2"))
    at.slider(key=C.d.key).set_value(16).run()
    at.selectbox(key=C.heads.key).set_value(4).run()
    r = core("machine learning is fun", 16, 4, 0)
    spec = figures(at)["mh_concat"]["data"]  # 4 heads apart, the 4 blocks joined, the output
    assert len(spec) == 3
    blocks = blocks_apart(spec[0], 4)
    concat = plotly_array(spec[1]["z"])
    output = plotly_array(spec[2]["z"])
    np.testing.assert_array_equal(np.hstack(blocks), concat)  # joined = heads side by side, exactly
    for i, block in enumerate(blocks):
        np.testing.assert_allclose(block, r.heads[i], atol=1e-5)
    np.testing.assert_allclose(concat, r.concat, atol=1e-5)
    np.testing.assert_allclose(output, r.output, atol=1e-5)


def test_each_head_map_is_the_cores_and_all_share_one_scale():
    at = open_step(PAGE, "maps", **link(text="I saw a saw", d="8", heads="4", seed="3"))
    r = core("I saw a saw", 8, 4, 3)
    spec = figures(at)["mh_maps"]
    maps = head_maps(spec)
    assert len(maps) == 4
    for i, m in enumerate(maps):
        np.testing.assert_allclose(m, r.weights[i], atol=1e-6)
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-5)
    assert {trace["coloraxis"] for trace in spec["data"]} == {"coloraxis"}
    assert (spec["layout"]["coloraxis"]["cmin"], spec["layout"]["coloraxis"]["cmax"]) == (0, 1)
    assert "mh_focus_map" not in figures(at)  # every token labelled already: no close-up


def test_the_real_models_small_maps_are_labelled_and_the_close_up_names_every_token(shipped_only):
    at = open_step(PAGE, "maps", **link(example="bank_river", layer="2"))
    tokens = EXAMPLES["bank_river"].tokens
    layout = figures(at)["mh_maps"]["layout"]
    step = next(k for k in range(1, len(tokens) + 1) if layout["yaxis"]["ticktext"] == list(tokens[::k]) * 3)
    assert 1 < step <= 3  # 15 word pieces in maps this small: the first and one in every few, beside each row of maps
    assert layout["xaxis"]["ticktext"] == list(tokens[::step]) * 4  # and under each of the 4 lowest maps
    assert t("multi_head.maps_labels", every=step) in [c.value for c in at.caption]
    detail = figures(at)["mh_focus_map"]["layout"]
    assert list(detail["yaxis"]["ticktext"]) == list(tokens) == list(detail["xaxis"]["ticktext"])


def test_every_figure_has_its_numbers_as_a_table_once_opened():
    at = open_page(PAGE, whole="1", **link(text="one two three", d="6", heads="3", seed="2"))
    assert len(at.dataframe) == 2  # only the always-visible tables until "The numbers" is opened
    for key in ("mh_split_table", "mh_maps_table", "mh_join_table", "mh_differ_table"):
        at.session_state[key] = True
    at.run()
    r = core("one two three", 6, 3, 2)
    q = table_with_column(at, "h3:c1")
    np.testing.assert_allclose(q.to_numpy(), r.q)
    assert list(q.index) == ["1: one", "2: two", "3: three"]  # counted from 1, as on the other pages
    assert q.index.name == t("multi_head.label_token")  # the CSV's first column has a header
    maps = table_with_column(at, t("multi_head.query"))
    np.testing.assert_allclose(maps.iloc[:, 2:].to_numpy(float), r.weights.reshape(9, 3))
    joined = table_with_column(at, "out:c5")
    np.testing.assert_allclose(joined.to_numpy(), np.hstack([r.concat, r.output]))
    overlap = table_with_column(at, t("multi_head.head_name", i=3))
    np.testing.assert_allclose(overlap.to_numpy(), head_overlap(r.weights))
    assert overlap.index.name == t("multi_head.col_head")


# --- n_heads: only divisors, and a clear message otherwise ---------------------------------------------


def test_n_heads_offers_only_divisors_of_d_model():
    at = open_page(PAGE, **link(source="random"))
    for d_model in (8, 12, 17, 30, 384, 512):
        at.slider(key=C.d.key).set_value(d_model).run()
        options = [int(o) for o in at.selectbox(key=C.heads.key).options]
        assert options == head_choices(d_model, 16)
        assert all(d_model % h == 0 for h in options)
    assert not at.exception


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_non_divisor_in_the_link_is_explained_and_the_rest_is_kept(lang):
    at = open_page(PAGE, lang=lang, **link(d="10", heads="4", text="keep these words", seed="7"))
    assert not at.exception
    expected = t(
        "multi_head.heads_not_divisor", lang=lang, wanted=4, d_model=10, ratio="2.50", fallback=2, choices="1, 2, 5, 10"
    )
    assert expected in messages(at)
    assert at.selectbox(key=C.heads.key).value == 2
    assert at.slider(key=C.d.key).value == 10
    assert at.text_input(key=C.text.key).value == "keep these words"
    assert at.number_input(key=C.seed.key).value == 7
    at = open_step(PAGE, "maps", lang=lang, **link(d="10", heads="4", text="keep these words", seed="7"))
    assert len(head_maps(figures(at)["mh_maps"])) == 2


@pytest.mark.parametrize(
    ("d_model", "raw", "fallback", "expected"),
    [
        (
            "64",
            "32",
            16,
            lambda: t(
                "multi_head.heads_too_many", wanted=32, d_model=64, max_heads=16, fallback=16, choices="1, 2, 4, 8, 16"
            ),
        ),
        ("8", "abc", 2, lambda: t("multi_head.heads_not_number", value="abc", fallback=2, choices="1, 2, 4, 8")),
        ("8", "2.5", 2, lambda: t("multi_head.heads_not_number", value=r"2\.5", fallback=2, choices="1, 2, 4, 8")),
        ("8", "0", 2, lambda: t("multi_head.heads_too_few", value="0", fallback=2, choices="1, 2, 4, 8")),
        ("8", "-1", 2, lambda: t("multi_head.heads_too_few", value=r"\-1", fallback=2, choices="1, 2, 4, 8")),
        (
            "8",
            "**[x](y)**",
            2,
            lambda: t("multi_head.heads_not_number", value=r"\*\*\[x\]\(y\)\*\*", fallback=2, choices="1, 2, 4, 8"),
        ),
        ("8", "1e309", 2, lambda: t("multi_head.heads_not_number", value="1e309", fallback=2, choices="1, 2, 4, 8")),
    ],
    ids=["divides but too many", "not a number", "not whole", "zero", "negative", "markdown stays text", "infinity"],
)
def test_other_impossible_head_counts_in_the_link(d_model, raw, fallback, expected):
    at = open_page(PAGE, **link(d=d_model, heads=raw))
    assert not at.exception
    assert expected() in messages(at)
    assert at.selectbox(key=C.heads.key).value == fallback


def test_moving_d_model_to_a_value_the_heads_do_not_divide_says_why():
    at = open_page(PAGE, **link(source="random"))
    at.selectbox(key=C.heads.key).set_value(4).run()
    at.slider(key=C.d.key).set_value(18).run()
    assert "18 / 4 = 4.50" in messages(at)
    assert at.selectbox(key=C.heads.key).value == 3  # the nearest smaller divisor
    at.slider(key=C.d.key).set_value(17).run()
    assert at.selectbox(key=C.heads.key).options == ["1"]
    assert any(c.value == t("multi_head.heads_only_one", d_model=17, max_heads=16) for c in at.caption)
    assert not at.exception


# --- heads differ: measures match the core ----------------------------------------------------------


def test_entropy_and_overlap_figures_hold_the_cores_numbers():
    at = open_step(PAGE, "differ", **link(text="attention is all you need today", d="24", heads="6", seed="11"))
    r = core("attention is all you need today", 24, 6, 11)
    spec = figures(at)
    np.testing.assert_allclose(plotly_array(spec["mh_entropy"]["data"][0]["y"]), mean_entropy(r.weights), atol=1e-5)
    np.testing.assert_allclose(plotly_array(spec["mh_overlap"]["data"][0]["z"]), head_overlap(r.weights), atol=1e-5)
    at.session_state["mh_differ_table"] = True  # open "The numbers": its tables are built only when open
    at.run()
    stats = table_with_column(at, t("multi_head.pattern_self"))
    np.testing.assert_allclose(stats[t("multi_head.entropy_col")], mean_entropy(r.weights))
    overlap = head_overlap(r.weights)
    pairs = [(overlap[a, b], a, b) for a in range(6) for b in range(a + 1, 6)]
    (high, a, b), (low, c, d) = max(pairs), min(pairs)
    name = [t("multi_head.head_name", i=i + 1) for i in range(6)]
    said = t("multi_head.most_alike", a=name[a], b=name[b], high=f"{high:.2f}", c=name[c], d=name[d], low=f"{low:.2f}")
    assert any(said in m.value for m in at.markdown)


def test_parameter_counts_are_equal_and_computed():
    at = open_step(PAGE, "cost", **link(source="random"))
    at.slider(key=C.d.key).set_value(384).run()
    at.selectbox(key=C.heads.key).set_value(12).run()
    cost = table_with_column(at, t("multi_head.cost_one"))
    assert list(cost.columns) == [t("multi_head.cost_many", n_heads=12), t("multi_head.cost_one")]
    assert cost.index.name == t("multi_head.cost_quantity")
    many, one = cost.iloc[:, 0], cost.iloc[:, 1]
    total = t("multi_head.cost_total")
    assert many[total] == one[total] == 4 * 384**2
    assert many[t("multi_head.cost_qkv")] == one[t("multi_head.cost_qkv")] == 3 * 384**2
    assert many[t("multi_head.cost_qkv_per_head")] == 3 * 384 * 32
    assert many[t("multi_head.cost_softmax_rows")] == 12 * one[t("multi_head.cost_softmax_rows")]
    assert any(
        t("multi_head.cost_equal", total=f"{4 * 384**2:,}", d_model=384, n_heads=12) == s.value for s in at.success
    )
    # Short labels keep the table narrow enough for a phone; the sizes and formulas are in its caption.
    T = int(one[t("multi_head.cost_softmax_rows")])  # one head: one softmax row per token
    caption = t("multi_head.cost_table", n_heads=12, d_head=32, d_model=384, T=T)
    assert any(c.value == caption for c in at.caption)
    assert "3 · d_model · d_head" in t("multi_head.cost_table") and "h · T · T · d_head" in t("multi_head.cost_table")
    assert all(len(name) <= 25 for name in cost.index), list(cost.index)


def test_one_head_keeps_both_columns():
    at = open_page(PAGE, whole="1", **link(source="random"))
    at.selectbox(key=C.heads.key).set_value(1).run()
    assert not at.exception
    assert table_with_column(at, t("multi_head.cost_one")).shape[1] == 2
    assert any(t("multi_head.one_head_only") in m.value for m in at.markdown)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_split_formula_says_how_each_side_counts(lang):
    at = open_page(PAGE, lang=lang, **link(source="random"))
    note = t("multi_head.split_indexing", lang=lang)
    assert any(c.value == note for c in at.caption)
    assert "(i-1)" in note and "(i+1)" in note  # 1-based formula, 0-based code


def test_the_seed_quote_is_translated_on_the_english_page():
    body = t("multi_head.s3_body", lang="en")
    assert "把两个b进行拼接起来" in body and "concatenate the two b's" in body


def test_the_article_003_mistake_is_shown_flatter_than_the_right_scaling():
    at = open_step(PAGE, "maps", **link(d="64", heads="2"))
    table = table_with_column(at, t("multi_head.factor_col"))
    assert list(table.index) == [t("multi_head.scale_right"), t("multi_head.scale_wrong")]
    assert table.index.name == t("multi_head.scale_col")
    right, wrong = table.iloc[0], table.iloc[1]
    assert right[t("multi_head.factor_col")] == pytest.approx(1 / np.sqrt(32), abs=1e-4)
    assert wrong[t("multi_head.factor_col")] == pytest.approx(1 / 32, abs=1e-4)
    assert wrong[t("multi_head.entropy_col")] > right[t("multi_head.entropy_col")]  # flatter maps
    assert "1/d_head" in t("multi_head.scale_wrong") and "003" in t("multi_head.scale_wrong")


# --- the real model --------------------------------------------------------------------------------


def test_real_model_layer_shows_the_shipped_maps(shipped_only):
    at = open_page(PAGE, whole="1", **link(source="model", example="saw_saw", layer="2"))
    assert not at.exception
    e = EXAMPLES["saw_saw"]
    for layer in (2, 5):
        if layer != 2:
            at.slider(key=C.layer.key).set_value(layer).run()
        spec = figures(at)
        maps = head_maps(spec["mh_maps"])
        assert len(maps) == 12
        for i, m in enumerate(maps):
            np.testing.assert_allclose(m, e.attentions[layer - 1, i], atol=1e-6)
        entropy = plotly_array(spec["mh_entropy"]["data"][0]["y"])
        np.testing.assert_allclose(entropy, mean_entropy(e.attentions[layer - 1]), atol=1e-5)
        assert "mh_split" not in spec and "mh_concat" not in spec  # no Q, K, V without the model
        assert t("multi_head.need_encoder") in messages(at)
        assert t("multi_head.fig_model", layer=layer) in spec["mh_maps"]["layout"]["title"]["text"]
    assert "own" not in at.selectbox(key=C.example.key).options
    assert any(c.value == t("multi_head.enable_free_text") for c in at.caption)


def test_the_model_preset_picks_the_layer_whose_heads_differ_most(shipped_only):
    at = open_page(PAGE, whole="1", **link(source="random"))
    at.button(key="multi_head_preset_model").click().run()
    assert at.button_group(key=C.source.key).value == "model"
    maps = EXAMPLES["animal_tired"].attentions
    overlaps = [np.mean(head_overlap(m)[~np.eye(12, dtype=bool)]) for m in maps]
    assert at.slider(key=C.layer.key).value == 1 + int(np.argmin(overlaps))
    focus = at.selectbox(key=C.focus.key).value
    assert focus == 1 + int(np.argmin(mean_entropy(maps[int(np.argmin(overlaps))])))
    # the close-up is that head's map, labelled with the model's word pieces
    detail = figures(at)["mh_focus_map"]["data"][0]
    np.testing.assert_allclose(plotly_array(detail["z"]), maps[int(np.argmin(overlaps)), focus - 1], atol=1e-6)
    assert any("previous" in item.value for item in at.markdown)  # a head that looks one token back


def test_the_close_up_opens_on_the_most_focused_head_and_follows_the_layer(shipped_only):
    at = open_step(PAGE, "maps", **link(example="keys_cabinet", layer="4"))
    maps = EXAMPLES["keys_cabinet"].attentions[3]
    assert at.selectbox(key=C.focus.key).value == 1 + int(np.argmin(mean_entropy(maps)))
    at.selectbox(key=C.focus.key).set_value(7).run()
    assert at.query_params[C.focus.key] == "7"
    np.testing.assert_allclose(plotly_array(figures(at)["mh_focus_map"]["data"][0]["z"]), maps[6], atol=1e-6)


@needs_model
def test_with_the_model_installed_examples_get_real_q_k_v_and_free_text_works():
    at = open_page(PAGE, whole="1", **link(source="model", example="cat_mat", layer="3"))
    e = EXAMPLES["cat_mat"]
    spec = figures(at)
    maps = np.stack(head_maps(spec["mh_maps"]))
    np.testing.assert_allclose(maps, e.attentions[2], atol=3e-3)  # shipped maps are float16
    split = spec["mh_split"]["data"]
    assert len(split) == 2
    assert plotly_array(split[0]["z"]).shape == (len(e.tokens), 384)
    assert len(blocks_apart(split[1], 12)) == 12

    at.selectbox(key=C.example.key).set_value("own").run()
    text = "Dogs chase cats. " * 40
    at.text_input(key=C.own_text.key).set_value(text).run()
    assert not at.exception
    maps = head_maps(figures(at)["mh_maps"])
    assert len(maps) == 12 and maps[0].shape == (48, 48)  # cut to MAX_PIECES, [CLS] ... [SEP]
    tokens = map_tokens(figures(at)["mh_maps"])
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    total = pretrained.load_minilm().tokenize(text)[2]
    assert t("multi_head.model_cut", shown=48, total=total) in [c.value for c in at.caption]


@needs_model
@pytest.mark.parametrize("text", ["", "   "], ids=["empty", "blank"])  # unreadable text: tests/core/test_head_views.py
def test_own_text_the_model_cannot_read_falls_back_to_the_example(text):
    at = open_step(PAGE, "maps", **link(example="own"))
    at.text_input(key=C.own_text.key).set_value(text).run()
    assert not at.exception
    assert at.info, "no message"
    assert at.text_input(key=C.own_text.key).value == text  # what was typed stays in the box
    assert len(head_maps(figures(at)["mh_maps"])) == 12


# --- presets, steps, check yourself ----------------------------------------------------------------


def test_article_preset_is_four_tokens_two_heads():
    at = open_step(PAGE, "maps")
    at.button(key="multi_head_preset_article").click().run()
    maps = head_maps(figures(at)["mh_maps"])
    assert len(maps) == 2 and maps[0].shape == (4, 4)
    assert map_tokens(figures(at)["mh_maps"]) == list("机器学习")
    at.button(key="multi_head_preset_long").click().run()
    assert len(head_maps(figures(at)["mh_maps"])) == 8
    assert not at.exception


def test_lecture_mode_shows_one_step_from_the_link(shipped_only):
    at = open_page(PAGE, lecture="1", **{STEP: "2"})
    assert not at.exception
    assert set(figures(at)) == {"mh_maps", "mh_focus_map"}
    at.button(key=f"{STEP}_next").click().run()
    assert set(figures(at)) == set()  # the join needs Q, K, V: not in the shipped maps
    assert at.query_params[STEP] == "3"


@pytest.mark.parametrize("step", range(1, 7))
def test_every_lecture_step_is_the_same_section_and_its_figure_fits_a_projector(step):
    params = {STEP: str(step), **link(source="random", text="the cat sat on the mat " * 3)}
    at = open_page(PAGE, lecture="1", **params)
    assert not at.exception
    shown = figures(at)
    assert set(shown) == FIGURES_OF_STEP[step] - {"mh_focus_map"} or set(shown) == FIGURES_OF_STEP[step]
    for key, spec in shown.items():
        if key != "mh_focus_map":  # the close-up comes under the maps, below the first screen
            assert spec["layout"]["height"] <= LECTURE_HEIGHT_PX, key
        else:  # ... where its 18 rows get 30 px each for their 20 px labels (430 px piled them up)
            assert spec["layout"]["height"] >= 30 * 18, key
    assert not at.subheader  # the step bar names the section
    title = html.escape(t(INFO.steps[SECTIONS[step - 1]]))
    bar = next(m.value for m in at.markdown if t("common.step_of", i=step, n=6) in m.value)
    assert bar.endswith((f"</span> {title}", f'</span> <span class="whole">{title}</span>'))


def test_check_yourself_uses_the_models_sizes():
    at = open_step(PAGE, "check")
    at.number_input(key=NUMBER_CHECK).set_value(32).run()
    assert at.success and t("common.correct", answer="32") in [s.value for s in at.success]
    at.number_input(key=NUMBER_CHECK).set_value(384 / 6).run()
    assert any(e.value == t("common.not_quite", typed="64.0000") for e in at.error)
    at.radio(key=CHOICE_CHECK).set_value("every_token").run()
    assert t("multi_head.choice_expl") in [i.value for i in at.info]


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "word " * 1000,
        "😀 👩‍💻 🎉",
        "我在河边看见了一只猫",
        "مرحبا بالعالم",
        "a\u200bb\u200c\u200dc",
        "<b>bold</b> <script>x</script>",
    ],
    ids=["empty", "blank", "5000 chars", "emoji", "chinese", "rtl", "zero-width", "html"],
)
def test_bad_sentences_never_break_the_page(text):
    at = open_step(PAGE, "maps", **link(text=text))
    assert not at.exception
    labels = map_tokens(figures(at)["mh_maps"])
    assert all("<b>" not in label and "<script>" not in label for label in labels)
    if text.startswith("<b>"):
        assert "&lt;" in labels and "&gt;" in labels  # the tags' brackets arrive as text
    assert len(labels) <= 40


@pytest.mark.parametrize(
    "params",
    [
        {C.d.key: "abc"},
        {C.d.key: "100000"},
        {C.seed.key: "-4"},
        {C.source.key: "zzz"},
        {STEP: "99"},
        {C.source.key: "model", C.layer.key: "99"},
        {C.source.key: "model", C.example.key: "nope"},
        {C.source.key: "random", C.matrix.key: "W"},
        {C.focus.key: "13"},
    ],
)
def test_bad_link_values_fall_back_with_a_notice(params, shipped_only):
    at = open_page(PAGE, whole="1", **params)
    assert not at.exception
    assert at.toast, f"no notice for {params}"
    assert figures(at)


@pytest.mark.parametrize("value", BAD_NUMBERS)
@pytest.mark.parametrize("key", URL_KEYS)
def test_a_number_no_control_can_hold_falls_back_with_a_notice_and_keeps_the_rest(key, value, shipped_only):
    """Every URL key of the page, with a number too large, too small or not finite: a notice, never
    an error, and every other value of the link kept."""
    random_keys = {C.text.key, C.d.key, C.heads.key, C.seed.key, C.matrix.key}
    rest = (
        {
            C.source.key: "random",
            C.text.key: "keep these words",
            C.d.key: "12",
            C.heads.key: "2",
            C.seed.key: "5",
            C.matrix.key: "K",
        }
        if key in random_keys
        else {C.source.key: "model", C.example.key: "keys_cabinet", C.layer.key: "3", C.focus.key: "5", STEP: "2"}
    )
    at = open_page(PAGE, **{**rest, key: value})
    assert not at.exception, [e.value for e in at.exception]
    if key in (C.text.key, C.own_text.key):
        assert at.query_params[key] == value  # text: kept as typed (the own-text box needs the model package)
    elif key == C.heads.key:
        notice = t("multi_head.heads_not_number", value=literal(value), fallback=2, choices="1, 2, 3, 4, 6, 12")
        assert notice in messages(at)
    else:
        assert at.toast, f"no notice for {key}={value}"
    for other, kept in rest.items():
        if other != key and other in at.query_params:
            assert at.query_params[other] == kept, other


def test_cell_numbers_of_the_split_and_the_maps_and_the_maps_keys_are_hidden_on_phones():
    """At 390 px Plotly shrinks the numbers in these cells to 4-5 px; the page asks the browser
    to hide them below 640 px (the numbers tables keep them), and the small maps' key labels,
    which overlap there (the close-up and hover keep them)."""
    at = open_page(PAGE, whole="1", **link(source="random"))
    styles = " ".join(h.proto.body for h in at.get("html"))
    for key in ("mh_split", "mh_maps", "mh_concat"):
        assert f".st-key-{key} .heatmap-label" in styles
    assert ".st-key-mh_maps .xaxislayer-above text { display: none; }" in styles
