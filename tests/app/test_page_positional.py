"""The page "positional encoding" in AppTest: the declaration (controls declared once, plain
settings), the shuffle check holds without positions and fails with them, the rotation check holds
and its circle says what it draws, figures follow the sliders (odd d_model too), the base changes the
curves, article 003's sequence-first table in a batch-first model pointed out, the steps (one on the
screen, lecture mode's the same), page-level controls only where they act, presets, check-yourself
(not the quiz's questions), the quiz's whole-position period, and bad input."""

import html
from dataclasses import fields

import numpy as np
import pytest
from app_harness import figure_alts, figures, link_of, open_page, open_step, plotly_array

from attention_core import sinusoidal_positional_encoding
from attention_core.positional import batch_first_mixup, pair_frequencies, shift_rotation
from lab_ui import quiz_bank as qb
from lab_ui.figures import positional as figs
from lab_ui.i18n import catalog, t
from lab_ui.registry import info as page_info
from pages import positional as page_module
from pages.positional import Controls as C

PAGE = "pages/positional.py"
INFO = page_info("positional")
STEPS = INFO.step_names
FIGURES = {
    "why": {"positional_shuffle"},
    "sinusoids": {"positional_curves", "positional_heatmap"},
    "similarity": {"positional_dot", "positional_offset", "positional_rotation"},
    "learned": {"positional_learned", "positional_learned_cos", "positional_sin_cos", "positional_learned_offset"},
    "check": set(),
}
ALL_FIGURES = set().union(*FIGURES.values())
link = link_of(C)


def metric(at, key: str) -> float:
    label = t(f"positional.{key}", lang="en")
    return float(next(m.value for m in at.metric if m.label == label))


def texts(at) -> str:
    return "\n".join(e.value for e in (*at.markdown, *at.caption, *at.info, *at.success, *at.warning, *at.error))


def z_of(at, key: str, trace: int = 0) -> np.ndarray:
    return plotly_array(figures(at)[key]["data"][trace]["z"])


def open_table(at, box: str):
    """A step's folded table (built only while its box is open), opened."""
    at.session_state[box] = True
    at.run()
    return [d.value for d in at.dataframe]


def step_line(at, lang: str, i: int) -> str:
    return next(m.value for m in at.markdown if t("common.step_of", lang=lang, i=i, n=5) in m.value)


# --- the declaration -----------------------------------------------------------------------------------


def test_the_page_is_declared_once_and_its_steps_get_plain_values():
    page_module.PAGE.check()
    assert STEPS == ("why", "sinusoids", "similarity", "learned", "check")
    assert [c.key for c in C.entries()] == [  # the links' parameters of old
        "pe_d",
        "pe_n",
        "pe_base",
        "pe_text",
        "pe_order",
        "pe_i",
        "pe_j",
        "pe_seed",
        "pe_dims",
        "pe_k",
        "pe_pair",
    ]
    assert [c.key for c in C.on_step(None)] == [C.d.key, C.n.key, C.base.key]
    assert {f.type for f in fields(page_module.Settings)} <= {int, float}
    assert INFO.checks == ("pe_q_swap", "pe_q_value", "pe_q_offset")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_whole_page_reads_top_to_bottom_in_both_languages(lang):
    at = open_page(PAGE, lang, whole="1")
    assert not at.exception
    assert at.title[0].value == t("positional.title", lang=lang)
    assert set(figures(at)) == ALL_FIGURES
    assert all(alt.strip() for alt in figure_alts(at))
    headings = [h.value for h in at.subheader]
    for i, name in enumerate(STEPS, 1):
        assert f"{i} · {t(f'positional.section_{name}', lang=lang)}" in headings


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("step", STEPS)
def test_each_step_is_alone_on_the_screen_in_both_languages(lang, step):
    at = open_step(PAGE, step, lang)
    assert not at.exception
    assert set(figures(at)) == FIGURES[step]
    assert all(alt.strip() for alt in figure_alts(at))
    at = open_step(PAGE, step, lang, lecture="1")
    assert not at.exception
    assert set(figures(at)) == FIGURES[step]
    line = step_line(at, lang, STEPS.index(step) + 1)
    assert html.escape(t(f"positional.section_{step}", lang=lang)) in line


# --- step 1: why positions --------------------------------------------------------------------------------


def test_without_positions_a_shuffle_only_reorders_the_outputs_and_with_them_it_changes_them():
    at = open_step(PAGE, "why")  # "I saw a saw", words 1 and 3 swapped: "a saw I saw"
    assert "a saw I saw" in texts(at)
    assert metric(at, "metric_plain") < 1e-9
    assert metric(at, "metric_pe") > 1e-3
    assert at.success[0].value == t("positional.verdict_plain", lang="en")
    assert np.allclose(z_of(at, "positional_shuffle", 0), z_of(at, "positional_shuffle", 1), atol=1e-6)
    assert not np.allclose(z_of(at, "positional_shuffle", 2), z_of(at, "positional_shuffle", 3), atol=1e-3)
    notes = [a["text"] for a in figures(at)["positional_shuffle"]["layout"]["annotations"]]
    assert any("max difference 0.7754" in n for n in notes)
    assert "random" in figures(at)["positional_shuffle"]["layout"]["title"]["text"]
    line = next(m.value for m in at.markdown if "appears twice" in m.value)
    assert "differ by 0:" in line and "With positional encoding they differ by 0.0" in line


def test_swapping_the_two_identical_words_changes_nothing_without_positions():
    at = open_step(PAGE, "why", **link(i=2, j=4))  # saw <-> saw: the same sentence again
    assert metric(at, "metric_plain") == 0
    assert metric(at, "metric_pe") > 1e-3


@pytest.mark.parametrize("order", ["reverse", "random"])
def test_every_shuffle_keeps_the_check(order):
    at = open_step(PAGE, "why", **link(text="the quick brown fox jumps over the lazy dog"))
    at.button_group(key=C.order.key).set_value(order).run()
    assert not at.exception
    assert metric(at, "metric_plain") < 1e-9 < 1e-3 < metric(at, "metric_pe")
    if order == "reverse":
        assert "dog lazy the over jumps fox brown quick the" in texts(at)


def test_a_one_word_sentence_says_nothing_moved():
    at = open_step(PAGE, "why", **link(text="hello"))
    assert not at.exception
    assert t("positional.nothing_moved", lang="en") in texts(at)


def test_the_outputs_table_opens_on_demand_with_every_panel():
    at = open_step(PAGE, "why")
    assert not at.dataframe
    (table,) = open_table(at, "pe_why_table")
    assert table.index.name == t("positional.word", lang="en")
    assert list(table.index[:4]) == ["1 a", "2 saw", "3 I", "4 saw"]
    assert len(table) == 4 * 4  # two checks x two panels x four words


# --- step 2: the sinusoids, article 003's code ---------------------------------------------------------------


def test_heatmap_shape_follows_the_sliders():
    at = open_step(PAGE, "sinusoids", **link(n=100, d=37))
    z = z_of(at, "positional_heatmap")
    assert z.shape == (100, 37)
    np.testing.assert_allclose(z, sinusoidal_positional_encoding(100, 37), atol=1e-6)
    at.slider(key=C.n.key).set_value(512).run()
    at.slider(key=C.d.key).set_value(512).run()
    z = z_of(at, "positional_heatmap")
    assert z.shape == (171, 171)  # every 3rd position and dimension is drawn ...
    assert t("positional.thinned", lang="en", rows=3, cols=3) in texts(at)
    spec = figures(at)["positional_heatmap"]["data"][0]
    assert spec.get("y0", 0) + spec["dy"] * (z.shape[0] - 1) == 510  # ... at their true indices


def test_the_numbers_are_the_whole_table_named_by_position():
    at = open_step(PAGE, "sinusoids", **link(n=300, d=9))
    assert not at.dataframe
    (table,) = open_table(at, "pe_sinusoids_table")
    assert table.shape == (300, 9) and table.index.name == "p"  # all of it, not the thinned drawing
    assert table.iloc[1, 0] == pytest.approx(np.sin(1), abs=1e-6)


def test_odd_d_model_works_everywhere():
    at = open_step(PAGE, "sinusoids", **link(d=7))
    assert z_of(at, "positional_heatmap").shape == (64, 7)
    assert t("positional.odd_note", lang="en", d=7, last=6) in texts(at)
    at = open_step(PAGE, "similarity", **link(d=7))
    assert "d_model is odd" in texts(at)
    assert metric(at, "rotation_metric") < 1e-9
    at = open_step(PAGE, "similarity", **link(d=1))
    assert not at.exception and t("positional.no_pairs", lang="en") in texts(at)
    at = open_step(PAGE, "why", **link(d=1))
    assert metric(at, "metric_plain") < 1e-9  # one-number word vectors: the shuffle test still holds


def test_base_changes_the_curves_but_not_dimension_0():
    def curves(at):
        return {tr["name"]: plotly_array(tr["y"]) for tr in figures(at)["positional_curves"]["data"]}

    at = open_step(PAGE, "sinusoids")
    before = curves(at)
    at.select_slider(key=C.base.key).set_value(100).run()
    after = curves(at)
    dim0, dim8 = (next(name for name in before if name.startswith(f"{d} ·")) for d in (0, 8))
    np.testing.assert_allclose(after[dim0], np.sin(np.arange(64)), atol=1e-6)  # ω_0 = 1 for every base
    np.testing.assert_allclose(before[dim0], after[dim0])
    np.testing.assert_allclose(after[dim8], np.sin(np.arange(64) / 100 ** (8 / 64)), atol=1e-6)
    assert not np.allclose(before[dim8], after[dim8], atol=1e-2)


def test_dimensions_missing_or_none():
    at = open_step(PAGE, "sinusoids", **link(d=10))  # default dims 0, 1, 8, 20: 20 does not exist
    assert len(figures(at)["positional_curves"]["data"]) == 3
    assert "Dimension(s) 20 do not exist when d_model = 10" in texts(at)
    at.multiselect(key=C.dims.key).set_value([]).run()
    assert "positional_curves" not in figures(at)
    assert t("positional.no_dims", lang="en") in texts(at)


def test_article_003_adds_a_sequence_first_table_to_a_batch_first_batch():
    """Issue 26 #14: its `self.pe[:x.size(0)]` on the [batch, seq_len, d] x its attention takes adds
    position b's vector to every word of sentence b. The page says so with the article's sizes."""
    view = batch_first_mixup(10, 5, 16)
    assert view.article_rows.shape == (10, 5) and (view.article_rows[3] == 3).all()  # sentence 3: PE_3 five times
    assert (view.right_rows == np.arange(5)).all()
    np.testing.assert_allclose(view.article_added[3, 0], sinusoidal_positional_encoding(10, 16)[3])
    np.testing.assert_allclose(view.right_added[3, 4], sinusoidal_positional_encoding(10, 16)[4])
    assert view.wrong_words == 50 - 5  # only word b of sentences 0..4 gets its own row
    at = open_step(PAGE, "sinusoids")
    said = texts(at)
    assert "batch-first" in said and "`self.pe[:10]`" in said and "45 of the 50 words" in said
    assert "x.size(1)" in said  # the right slice
    codes = " ".join(c.value for c in at.code)
    assert "pe = pe.unsqueeze(0).transpose(0, 1)" in codes and "x = x + self.pe[:x.size(0), :]" in codes
    assert "batch_size = q.size(0)" in codes
    (table,) = open_table(at, "pe_sinusoids_mixup")
    assert table.shape == (10, 5) and table.iloc[3, 0] == "PE3 (should be PE0)" and table.iloc[3, 3] == "PE3"
    zh = texts(open_step(PAGE, "sinusoids", "zh"))
    assert "批次优先" in zh and "45" in zh


# --- step 3: similarity and the rotation ---------------------------------------------------------------


def test_similarity_depends_on_offset_only():
    at = open_step(PAGE, "similarity")
    dot = z_of(at, "positional_dot")
    assert dot.shape == (64, 64)
    np.testing.assert_allclose(np.diag(dot), 32, atol=1e-4)  # d_model / 2
    assert "differ by at most **" in next(m.value for m in at.markdown if "along each diagonal" in m.value.lower())
    (table,) = open_table(at, "pe_similarity_offset")
    assert table.index.name == "|p − q|" and len(table) == 64


def test_rotation_check_holds_and_shows_the_block():
    at = open_step(PAGE, "similarity")
    assert metric(at, "rotation_metric") < 1e-9
    assert at.success[-1].value.startswith("Checked on 64 positions × 32 pairs")
    at.slider(key=C.k.key).set_value(7).run()
    at.slider(key=C.pair.key).set_value(0).run()
    latex = " ".join(e.value for e in at.latex)
    assert f"{np.cos(7):.4f} & {np.sin(7):.4f}" in latex  # pair 0 turns 1 rad per position: 7 rad
    arrow = figures(at)["positional_rotation"]["layout"]["annotations"][0]
    assert (arrow["x"], arrow["y"]) == pytest.approx((np.sin(7), np.cos(7)), abs=1e-6)


def test_the_rotation_circle_s_legend_says_what_is_drawn():
    """Issue 26 #8: with n = 64 and k = 5 it said "positions 0 to 68": 64 positions of the table and
    the 5 more that p + k reaches are drawn, and the legend says both."""
    view = shift_rotation(64, 64, 5, 0)
    dots = figs.shift_rotation(view, "en").data[1]
    assert len(dots.x) == 64 + 5
    assert dots.name == "positions 0 to 63 (the table) and 64 to 68 (reached by p + 5)"
    assert figs.shift_rotation(shift_rotation(64, 64, 0, 0), "en").data[1].name == "positions 0 to 63"
    at = open_step(PAGE, "similarity", "zh")
    names = [tr.get("name") for tr in figures(at)["positional_rotation"]["data"]]
    assert "位置 0 到 63（表中的位置）以及 64 到 68（p + 5 到达的位置）" in names


@pytest.mark.parametrize(("n", "d", "k", "base"), [(512, 511, 512, 2), (2, 2, 0, 1000000), (100, 3, 1, 10)])
def test_rotation_check_holds_at_the_extremes(n, d, k, base):
    at = open_step(PAGE, "similarity", lecture="1", **link(n=n, d=d, k=k, base=base))
    assert not at.exception
    assert metric(at, "rotation_metric") < 1e-9
    assert at.success and not at.error


def test_pair_beyond_d_model_is_clamped_with_a_note():
    at = open_step(PAGE, "similarity", **link(d=6, pair=100))
    assert t("positional.pair_clamped", lang="en", d=6, last=2) in texts(at)
    assert figures(at)["positional_rotation"]["layout"]["xaxis"]["title"]["text"].startswith("PE[p, 4]")


def test_the_rotation_s_own_controls_rerun_it_alone_and_keep_the_step():
    at = open_step(PAGE, "similarity", **link(n=30))
    at.slider(key=C.k.key).set_value(11).run()
    assert at.slider(key=C.k.key).value == 11 and set(figures(at)) == FIGURES["similarity"]
    assert figures(at)["positional_rotation"]["layout"]["annotations"][0]["x"] == pytest.approx(np.sin(11), abs=1e-6)
    (table,) = open_table(at, "pe_similarity_rotation")
    assert table.shape == (30, 4) and table.index.name == "p"


# --- step 4: learned ------------------------------------------------------------------------------------


def test_the_learned_table_is_the_model_s():
    at = open_step(PAGE, "learned", **link(n=512))
    learned = z_of(at, "positional_learned")
    assert learned.shape == (171, 192)  # [512, 384] thinned to every 3rd position, every 2nd dimension
    for key in ("positional_learned_cos", "positional_sin_cos"):
        (cos,) = figures(at)[key]["data"]
        np.testing.assert_allclose(np.diag(plotly_array(cos["z"])), 1, atol=1e-5)
    (table,) = open_table(at, "pe_learned_table")
    assert table.shape == (512, 384)


# --- settings, steps, presets ------------------------------------------------------------------------------


def test_page_level_controls_show_only_where_they_act():
    """Issue 11: "Number of positions n" sat beside the shuffle test, which it does not change."""
    shown = {}
    for step in STEPS:
        at = open_step(PAGE, step)
        shown[step] = {w.key for w in (*at.slider, *at.select_slider)} & {C.d.key, C.n.key, C.base.key}
    assert shown == {
        "why": {"pe_d", "pe_base"},
        "sinusoids": {"pe_d", "pe_n", "pe_base"},
        "similarity": {"pe_d", "pe_n", "pe_base"},
        "learned": {"pe_n", "pe_base"},
        "check": set(),
    }
    assert t("positional.settings_note", lang="en") in texts(open_step(PAGE, "why"))


def test_a_control_a_step_does_not_draw_keeps_its_value():
    at = open_step(PAGE, "similarity", lecture="1", **link(n=30, k=9))
    for _ in range(2):
        at.button(key="pe_step_prev").click().run()
    assert C.n.key not in [w.key for w in at.slider]  # step 1 does not use n
    for _ in range(2):
        at.button(key="pe_step_next").click().run()
    assert at.slider(key=C.n.key).value == 30 and at.slider(key=C.k.key).value == 9


def test_each_step_button_click_moves_exactly_one_step_and_the_link_follows():
    at = open_page(PAGE, "en", lecture="1")
    for step in (2, 3, 4, 5):
        at.button(key="pe_step_next").click().run()
        assert at.query_params["pe_step"] == str(step)
        assert set(figures(at)) == FIGURES[STEPS[step - 1]]
    for step in (4, 3):
        at.button(key="pe_step_prev").click().run()
        assert at.query_params["pe_step"] == str(step)
    at.slider(key=C.k.key).set_value(11).run()  # a step's own control, then the next click
    at.button(key="pe_step_next").click().run()
    assert at.query_params["pe_step"] == "4" and set(figures(at)) == FIGURES["learned"]
    at.sidebar.radio(key="lang_pick").set_value("zh").run()  # relabelled; the step stays
    assert set(figures(at)) == FIGURES["learned"]
    assert step_line(at, "zh", 4).count("4") == 1


def test_an_old_step_link_opens_that_step():
    at = open_page(PAGE, "en", pe_step="3")
    assert set(figures(at)) == FIGURES["similarity"]
    assert "3 · " + t("positional.section_similarity", lang="en") in [h.value for h in at.subheader]


def test_presets():
    at = open_step(PAGE, "why")
    at.button(key="positional_preset_shuffle").click().run()
    assert "the dog bit the man → **shuffled:** the man bit the dog" in texts(at)
    assert metric(at, "metric_plain") < 1e-9
    at = open_step(PAGE, "sinusoids")
    at.button(key="positional_preset_article").click().run()
    assert at.slider(key=C.n.key).value == 4 and at.slider(key=C.d.key).value == 4
    assert z_of(at, "positional_heatmap").shape == (4, 4)
    at.button(key="positional_preset_long").click().run()
    assert at.slider(key=C.n.key).value == 512 and at.slider(key=C.d.key).value == 512
    assert at.query_params[C.n.key] == "512"
    assert not at.exception


# --- check yourself, and the quiz ---------------------------------------------------------------------------


def test_check_yourself():
    at = open_step(PAGE, "check")
    right = sinusoidal_positional_encoding(101, 4)[100, 2]  # sin(100 / 100)
    at.number_input(key="pe_q_value").set_value(round(float(right), 4)).run()
    assert at.success and f"{right:.4f}" in at.success[0].value
    at.number_input(key="pe_q_value").set_value(1.0).run()
    assert at.error
    at.radio(key="pe_q_swap").set_value("same").run()
    assert any(t("positional.q_swap_why", lang="en") == i.value for i in at.info)
    at.radio(key="pe_q_offset").set_value("first").run()
    assert len(at.error) == 2  # the typed 1.0 and the wrong prediction
    assert "PE_{10}" not in " ".join(i.value for i in at.info)  # a wrong pick does not reveal the answer
    at.radio(key="pe_q_offset").set_value("equal").run()
    table = sinusoidal_positional_encoding(15, 64)
    assert f"{table[3] @ table[7]:.6f}" in texts(at) and f"{table[10] @ table[14]:.6f}" in texts(at)
    assert "pe_q_value" not in at.query_params and "pe_q_offset" not in at.query_params


def test_the_checks_ask_other_questions_than_the_quiz():
    """Issue 26 #8: check-yourself questions were the quiz's, nearly word for word."""
    texts_of = catalog()
    checks = [texts_of[f"positional.{key}"]["en"] for key in ("q_swap", "q_value", "q_offset")]
    quiz = [texts_of[q.text]["en"] for q in INFO.quiz]

    def words(text: str) -> set[str]:
        return set(text.lower().replace("$", " ").split())

    for check in checks:
        for question in quiz:
            overlap = len(words(check) & words(question)) / len(words(check) | words(question))
            assert overlap < 0.3, (check, question)  # today's 0.16 at most; the old checks shared 0.38 and 0.43
    quiz_options = {tuple(sorted(q.make(np.random.default_rng(0)).options)) for q in INFO.quiz}
    for names in (page_module.SWAP_ANSWERS, page_module.OFFSET_ANSWERS):  # not the quiz's choices either
        assert tuple(sorted(names)) not in quiz_options


def test_the_quiz_s_fastest_pair_comes_round_at_a_whole_position():
    """Issue 26 #8: it expected 6.2832, where positions are whole numbers; the answer is the first
    whole position past 2π, and the explanation says 2π."""
    for seed in range(5):
        task = qb.fastest_period(np.random.default_rng(seed))
        period = 2 * np.pi / pair_frequencies(task.values["d_model"])[0]
        assert task.answer == 7 == np.ceil(period) and 6 < period < 7
        assert task.tolerance < 0.5  # 6.28 is not a whole position
        why = t("positional.quiz_4_why", lang="en", **task.values, answer="7")
        assert "6.2832" in why and "2\\pi" in why


# --- bad input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"pe_n": "abc"},
        {"pe_n": "9999"},
        {"pe_d": "0"},
        {"pe_d": "-3"},
        {"pe_base": "3"},
        {"pe_dims": "999"},
        {"pe_k": "-5"},
        {"pe_pair": "x"},
        {"pe_order": "sideways"},
        {"pe_step": "9"},
        {"pe_i": "0"},
        *({c.key: value} for c in C.entries() if c is not C.text for value in ("1e309", "-1e309", "1e-400", "9e999")),
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()),
)
def test_bad_link_values_fall_back_with_a_notice(params):
    control = next((c for c in C.entries() if c.key in params), None)
    step = (control.on if control else None) or "similarity"  # similarity draws d, n and the base
    if INFO.step_key in params:  # a step the page does not have: the first step, with a notice
        step = "why"
    step_param = {INFO.step_key: str(STEPS.index(step) + 1)}
    at = open_page(PAGE, "en", **{**step_param, **link(text="the dog bit the man"), **params})
    assert not at.exception
    assert at.toast, f"no notice for {params}"
    if step != "why":
        assert at.slider(key=C.n.key).value == 64
    assert at.slider(key=C.d.key).value == 64
    assert at.select_slider(key=C.base.key).value == 10000
    if step == "why":
        assert at.text_input(key=C.text.key).value == "the dog bit the man"  # nothing else in the link is lost


@pytest.mark.parametrize("value", ["1e309", "-1e309", "1e-400", "9e999"])
def test_a_number_no_control_holds_in_the_sentence_is_just_text(value):
    at = open_step(PAGE, "why", **link(text=value))
    assert not at.exception
    assert at.text_input(key=C.text.key).value == value
    assert metric(at, "metric_plain") < 1e-9


def test_a_bad_value_keeps_the_others():
    at = open_step(PAGE, "similarity", **link(d=12, base=100, pair=3), pe_n="abc", pe_k="1e309")
    assert at.toast
    assert at.slider(key=C.d.key).value == 12 and at.select_slider(key=C.base.key).value == 100
    assert at.slider(key=C.k.key).value == 5 and at.slider(key=C.pair.key).value == 3
    assert z_of(at, "positional_dot").shape == (64, 64)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("   ", 4),  # empty: the example sentence
        ("\u200b\u200b", 4),  # invisible only: the example sentence
        ("我看见一把锯", 6),
        ("مرحبا بالعالم", 2),
        ("🙂 saw 🙂", 3),
        ("<b>bold</b> <script>x</script>", None),
        ("word " * 1000, 64),
    ],
)
def test_any_text_gives_a_result_never_a_traceback(text, tokens):
    at = open_step(PAGE, "why", **link(text=text))
    assert not at.exception
    assert metric(at, "metric_plain") < 1e-9
    ticks = figures(at)["positional_shuffle"]["layout"]["yaxis"]["ticktext"]
    if tokens is not None:  # 64 words: rows of 7.5 px, too short for a label each; every other word is labelled
        assert len(ticks) == (tokens if tokens <= 24 else -(-tokens // 2))
    assert not any("<b>" in tick or "<script>" in tick for tick in ticks)
    assert at.text_input(key=C.text.key).value == text


def test_swap_numbers_beyond_the_sentence_are_clamped_with_a_note():
    at = open_step(PAGE, "why", **link(i=1, j=40))
    assert not at.exception
    assert t("positional.swap_clamped", lang="en", T=4, i=1, j=4) in texts(at)
    assert "saw saw a I" in texts(at)
