"""The pages of the app, in course order, each with its manifest: what it teaches, how long it
takes, its steps, its check-yourself boxes and its quiz. app.py builds the navigation from this
list, the home page maps it, the course counts progress from it, so a page is named in exactly one
place. A page whose script is not in the tree is left out, so the app never lists a page that
does not exist.

LEDGER, at the end, is the order of the progress code's bits (lab_ui.progress): append only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lab_ui import quiz_bank as qb
from lab_ui.quiz_bank import Question
from lab_ui.state import Labels, labels

ROOT = Path(__file__).resolve().parents[1]
NO_STEPS = labels("")  # a page that is not a stepper (home, the final quiz)


@dataclass(frozen=True)
class PageInfo:
    path: str  # script, relative to the project root; its stem is the page's address (/heatmap)
    ns: str  # catalog namespace: lab_ui/locales/<ns>.toml holds every text of the page
    icon: str  # Material icon shown in the navigation (drawn from a font bundled with Streamlit)
    section: str  # catalog key of the navigation section
    text: Labels  # catalog keys of nav, title, intro (and summary, objective on a concept page)
    minutes: int = 10  # a student's time for the page, read and tried, shown on the home page
    prefix: str = ""  # the page's control-key prefix: its step is <prefix>_step in a link
    steps: Labels = NO_STEPS  # step name -> catalog key of its title, in order (lab_ui.page)
    checks: tuple[str, ...] = ()  # its check-yourself boxes' widget keys, each a progress item
    quiz: tuple[Question, ...] = ()  # the questions at the end of the page (the final quiz: the page itself)
    scored: bool = False  # the final quiz: its progress is the best score, not each question

    @property
    def url_path(self) -> str:
        """The stable ASCII address slides link to: the file's stem (lab_ui/shell.py says why); "" for home."""
        return "" if self.ns == "home" else Path(self.path).stem

    @property
    def step_key(self) -> str:
        return f"{self.prefix}_step"

    @property
    def step_names(self) -> tuple[str, ...]:
        return tuple(self.steps)

    @property
    def items(self) -> tuple[str, ...]:
        """Its progress items: the page visited, its checks, its quiz questions; for the final quiz the
        best score, as a ladder: "final:best:k" is passed once an attempt had k right answers."""
        if self.scored:
            return (f"page:{self.ns}", *(f"final:best:{k}" for k in range(1, len(self.quiz) + 1)))
        return (f"page:{self.ns}", *self.checks, *(q.id for q in self.quiz))


HOME = PageInfo(
    "pages/home.py",
    "home",
    ":material/home:",
    "",
    text=labels("home.", "nav", "title", "intro"),
    prefix="home",
)

_ALL = (
    PageInfo(
        "pages/one_hot.py",
        "one_hot",
        ":material/grid_on:",
        "app.section_basics",
        text=labels("one_hot.", "nav", "title", "intro", "summary", "objective"),
        minutes=12,
        prefix="oh",
        steps=labels("one_hot.section_", "vectors", "similarity", "map", "sizes", "sequences"),
        checks=("oh_q_cos", "oh_q_frames"),
        quiz=(
            Question("one_hot.quiz_1", "vectors", qb.one_hot_zeros),  # the check asks two words' similarity
            Question("one_hot.quiz_2", "similarity", qb.choice("meaning", "size", "order")),
            Question("one_hot.quiz_3", "sizes", qb.embedding_table_size),
            Question("one_hot.quiz_4", "sequences", qb.sound_vectors),
        ),
    ),
    PageInfo(
        "pages/before_self_attention.py",
        "before_self_attention",
        ":material/translate:",
        "app.section_basics",
        text=labels("before_self_attention.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="ed",
        steps=labels("before_self_attention.section_", "maps", "bottleneck", "shapes", "outputs", "check"),
        checks=("ed_check_shape", "ed_check_ceiling"),
        quiz=(
            Question("before_self_attention.quiz_1", "bottleneck", qb.choice("one", "each", "none")),
            Question("before_self_attention.quiz_2", "shapes", qb.cross_shape),
            Question("before_self_attention.quiz_3", "shapes", qb.choice("target", "source", "both")),
            Question("before_self_attention.quiz_4", "maps", qb.choice("same", "reversed", "none")),
        ),
    ),
    PageInfo(
        "pages/qkv.py",
        "qkv",
        ":material/calculate:",
        "app.section_basics",
        text=labels("qkv.", "nav", "title", "intro", "summary", "objective"),
        minutes=20,
        prefix="qkv",
        # step n is qkv_step=n in links made before steps (dropout came after them); the check comes
        # before its score is worked out
        steps=labels(
            "qkv.section_",
            "tokens",
            "weights",
            "qkv",
            "check",
            "scores",
            "softmax",
            "output",
            "matrix",
            "additive",
            "dropout",
        ),
        checks=("qkv_check",),
        quiz=(  # the check asks one score q·k by hand: the quiz asks on from there, never the same task
            Question("qkv.quiz_1", "softmax", qb.two_key_weight),
            Question("qkv.quiz_2", "softmax", qb.softmax_weight),
            Question("qkv.quiz_3", "scores", qb.choice("vector", "number", "matrix")),
            Question("qkv.quiz_4", "output", qb.choice("v", "q", "k")),
        ),
    ),
    PageInfo(
        "pages/dot_product.py",
        "dot_product",
        ":material/north_east:",
        "app.section_basics",
        text=labels("dot_product.", "nav", "title", "intro", "summary", "objective"),
        minutes=10,
        prefix="dp",
        steps=labels("dot_product.section_", "dot", "keys", "check"),
        checks=("dp_check",),
        quiz=(
            Question("dot_product.quiz_1", "dot", qb.dot_score),
            Question("dot_product.quiz_2", "dot", qb.choice("zero", "positive", "negative")),
            Question("dot_product.quiz_3", "keys", qb.softmax_weight),
            Question("dot_product.quiz_4", "keys", qb.scale_value),
        ),
    ),
    PageInfo(
        "pages/heatmap.py",
        "heatmap",
        ":material/grid_view:",
        "app.section_basics",
        text=labels("heatmap.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="hm",
        steps=labels("heatmap.section_", "map", "query", "speech", "check"),
        checks=("hm_check",),
        quiz=(
            Question("heatmap.quiz_1", "map", qb.row_sum),
            Question("heatmap.quiz_2", "map", qb.choice("upto", "all", "self")),
            Question("heatmap.quiz_3", "speech", qb.window_keys),
            Question("heatmap.quiz_4", "map", qb.choice("flat", "sharp", "same")),
        ),
    ),
    PageInfo(
        "pages/multi_head.py",
        "multi_head",
        ":material/view_column:",
        "app.section_deeper",
        text=labels("multi_head.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="mh",
        steps=labels("multi_head.section_", "split", "maps", "join", "differ", "cost", "check"),
        checks=("mh_check", "mh_choice"),
        quiz=(
            Question("multi_head.quiz_1", "split", qb.d_head),
            Question("multi_head.quiz_2", "cost", qb.projection_parameters),
            Question("multi_head.quiz_3", "maps", qb.choice("own", "shared", "average")),
            Question("multi_head.quiz_4", "softmax", qb.choice("flatter", "sharper", "same"), taught_on="scaling"),
        ),
    ),
    PageInfo(
        "pages/positional.py",
        "positional",
        ":material/waves:",
        "app.section_deeper",
        text=labels("positional.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="pe",
        steps=labels("positional.section_", "why", "sinusoids", "similarity", "learned", "check"),
        checks=("pe_q_swap", "pe_q_value", "pe_q_offset"),
        quiz=(
            Question("positional.quiz_1", "why", qb.choice("shuffled", "same", "different")),
            Question("positional.quiz_2", "sinusoids", qb.pe_value),
            Question("positional.quiz_3", "similarity", qb.choice("offset", "sum", "both")),
            Question("positional.quiz_4", "sinusoids", qb.fastest_period),
        ),
    ),
    PageInfo(
        "pages/rnn_cnn.py",
        "rnn_cnn",
        ":material/compare_arrows:",
        "app.section_deeper",
        text=labels("rnn_cnn.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="rc",
        steps=labels("rnn_cnn.section_", "see", "long_range", "parallel", "cost", "images", "patches", "check"),
        checks=("rc_check_cheaper", "rc_check_products"),
        quiz=(
            Question("rnn_cnn.quiz_1", "see", qb.choice("left", "all", "window")),
            Question("rnn_cnn.quiz_2", "parallel", qb.rnn_steps),
            Question("rnn_cnn.quiz_3", "cost", qb.attention_products),
            Question("rnn_cnn.quiz_4", "cost", qb.choice("shorter", "longer", "never")),
        ),
    ),
    PageInfo(
        "pages/scaling.py",
        "scaling",
        ":material/functions:",
        "app.section_deeper",
        text=labels("scaling.", "nav", "title", "intro", "summary", "objective"),
        minutes=12,
        prefix="sc",
        steps=labels("scaling.section_", "spread", "softmax", "derivation"),
        checks=("sc_check",),
        quiz=(
            Question("scaling.quiz_1", "spread", qb.score_variance),
            Question("scaling.quiz_2", "spread", qb.scale_value),
            Question("scaling.quiz_3", "softmax", qb.choice("peaked", "flat", "unchanged")),
            Question("scaling.quiz_4", "softmax", qb.choice("too_small", "right", "too_large")),
        ),
    ),
    PageInfo(
        "pages/train.py",
        "train",
        ":material/model_training:",
        "app.section_deeper",
        text=labels("train.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="tr",
        steps=labels("train.section_", "train", "frames", "tag", "compare", "order", "scale", "check"),
        checks=("tr_check_ceiling", "tr_check_order"),
        quiz=(
            Question("train.quiz_1", "compare", qb.word_model_ceiling),
            Question("train.quiz_2", "order", qb.choice("same", "swapped", "random")),
            Question("train.quiz_3", "compare", qb.window_inputs),
            Question("train.quiz_4", "scale", qb.choice("slower", "faster", "never")),
        ),
    ),
    PageInfo(
        "pages/real_model.py",
        "real_model",
        ":material/psychology:",
        "app.section_real",
        text=labels("real_model.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="rm",
        steps=labels("real_model.section_", "grid", "head", "sink", "jobs", "check"),
        checks=("rm_check", "rm_num"),
        quiz=(
            Question("real_model.quiz_1", "grid", qb.model_maps),
            Question("real_model.quiz_2", "sink", qb.choice("park", "meaning", "error")),
            Question("real_model.quiz_3", "learned", qb.choice("learned", "sinusoid", "none"), taught_on="positional"),
            Question("real_model.quiz_4", "head", qb.choice("one", "zero", "varies")),
        ),
    ),
    PageInfo(
        "pages/transformer_block.py",
        "transformer_block",
        ":material/stacks:",
        "app.section_real",
        text=labels("transformer_block.", "nav", "title", "intro", "summary", "objective"),
        minutes=20,
        prefix="tb",
        steps=labels("transformer_block.section_", "layer", "path", "rollout", "explain", "check"),
        checks=("tb_check",),
        quiz=(
            Question("transformer_block.quiz_1", "layer", qb.ffn_width),
            Question("transformer_block.quiz_2", "layer", qb.residual_sum),
            Question("transformer_block.quiz_3", "rollout", qb.choice("a", "b", "c")),
            Question("transformer_block.quiz_4", "explain", qb.choice("a", "b", "c")),
        ),
    ),
    PageInfo(
        "pages/decoder.py",
        "decoder",
        ":material/edit_note:",
        "app.section_real",
        text=labels("decoder.", "nav", "title", "intro", "summary", "objective"),
        minutes=20,
        prefix="dc",
        steps=labels("decoder.section_", "write", "triangle", "cache", "compare", "check"),
        checks=("dc_check",),
        quiz=(
            Question("decoder.quiz_1", "cache", qb.decoder_cache_bytes),
            Question("decoder.quiz_2", "cache", qb.cached_step_rows),
            Question("decoder.quiz_3", "triangle", qb.choice("a", "b", "c")),
            Question("decoder.quiz_4", "compare", qb.choice("a", "b", "c")),
        ),
    ),
    PageInfo(
        "pages/rotary.py",
        "rotary",
        ":material/rotate_right:",
        "app.section_modern",
        text=labels("rotary.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="ro",
        steps=labels("rotary.section_", "rotate", "relative", "decay", "alibi", "check"),
        checks=("ro_check",),
        quiz=(
            Question("rotary.quiz_1", "rotate", qb.rope_angle),
            Question("rotary.quiz_2", "alibi", qb.alibi_penalty),
            Question("rotary.quiz_3", "relative", qb.choice("a", "b", "c")),
            Question("rotary.quiz_4", "decay", qb.choice("a", "b", "c")),
        ),
    ),
    PageInfo(
        "pages/kv_heads.py",
        "kv_heads",
        ":material/call_split:",
        "app.section_modern",
        text=labels("kv_heads.", "nav", "title", "intro", "summary", "objective"),
        minutes=12,
        prefix="kv",
        steps=labels("kv_heads.section_", "share", "maps", "bytes", "check"),
        checks=("kv_check",),
        quiz=(
            Question("kv_heads.quiz_1", "bytes", qb.shared_cache_bytes),
            Question("kv_heads.quiz_2", "share", qb.queries_per_kv_head),
            Question("kv_heads.quiz_3", "maps", qb.choice("a", "b", "c")),
            Question("kv_heads.quiz_4", "bytes", qb.choice("a", "b", "c")),
        ),
    ),
    PageInfo(
        "pages/flash.py",
        "flash",
        ":material/grid_4x4:",
        "app.section_modern",
        text=labels("flash.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="fa",
        steps=labels("flash.section_", "tiles", "online", "memory", "check"),
        checks=("fa_check",),
        quiz=(
            Question("flash.quiz_1", "tiles", qb.flash_tiles),
            Question("flash.quiz_2", "memory", qb.score_matrix_bytes),
            Question("flash.quiz_3", "online", qb.choice("a", "b", "c")),
            Question("flash.quiz_4", "memory", qb.choice("a", "b", "c")),
        ),
    ),
    PageInfo(
        "pages/windows.py",
        "windows",
        ":material/view_week:",
        "app.section_modern",
        text=labels("windows.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="sw",
        steps=labels("windows.section_", "window", "cost", "sinks", "check"),
        checks=("sw_check",),
        quiz=(
            Question("windows.quiz_1", "window", qb.window_keys_seen),
            Question("windows.quiz_2", "cost", qb.window_step_cost),
            Question("windows.quiz_3", "sinks", qb.choice("a", "b", "c")),
            Question("windows.quiz_4", "sinks", qb.choice("a", "b", "c")),
        ),
    ),
    PageInfo(
        "pages/quiz.py",
        "quiz",
        ":material/quiz:",
        "app.section_check",
        text=labels("quiz.", "nav", "title", "intro", "summary", "objective"),
        minutes=15,
        prefix="qz",
        # questions of its own, each joining what pages taught; numbers drawn afresh per attempt
        quiz=(
            Question("quiz.final_1", "cost", qb.attention_weights_per_layer, taught_on="multi_head"),
            Question("quiz.final_2", "spread", qb.scaled_score, taught_on="scaling"),
            Question("quiz.final_3", "map", qb.causal_weights, taught_on="heatmap"),
            Question("quiz.final_4", "cost", qb.projection_weights, taught_on="multi_head"),
            Question("quiz.final_5", "sinusoids", qb.positional_cosine, taught_on="positional"),
            Question("quiz.final_6", "speech", qb.window_weights, taught_on="heatmap"),
            Question("quiz.final_7", "map", qb.temperature_weight, taught_on="heatmap"),
            Question("quiz.final_8", "spread", qb.choice("d_k", "one", "sqrt"), taught_on="scaling"),
            Question("quiz.final_9", "parallel", qb.choice("attention", "rnn", "neither"), taught_on="rnn_cnn"),
            Question("quiz.final_10", "maps", qb.choice("target", "source", "both"), taught_on="before_self_attention"),
            Question("quiz.final_11", "why", qb.choice("shuffled", "different", "error"), taught_on="positional"),
            Question("quiz.final_12", "similarity", qb.choice("zero", "one", "depends"), taught_on="one_hot"),
        ),
        scored=True,
    ),
)


def available(pages: tuple[PageInfo, ...], root: Path = ROOT) -> tuple[PageInfo, ...]:
    """The pages whose script and catalog are in the tree at `root`, in their order. A page being
    written has one before the other; test_registry and test_catalogs insist on both."""
    return tuple(
        p for p in pages if (root / p.path).is_file() and (root / "lab_ui" / "locales" / f"{p.ns}.toml").is_file()
    )


PAGES: tuple[PageInfo, ...] = available(_ALL)


def info(ns: str) -> PageInfo:
    """The page called `ns` (home included)."""
    return next(p for p in (HOME, *_ALL) if p.ns == ns)


# The progress code's items (lab_ui.progress), one bit each, in this order: APPEND ONLY. A saved
# code's n-th bit is the n-th item here, so an item is never removed or moved, and a new page
# appends its own (tests/app/test_course.py checks that every manifest's items are here, and that
# this list only ever grew in the project's history).
LEDGER: tuple[str, ...] = (
    "page:one_hot",
    "page:before_self_attention",
    "page:qkv",
    "page:heatmap",
    "page:multi_head",
    "page:positional",
    "page:rnn_cnn",
    "page:scaling",
    "page:real_model",
    "page:quiz",
    "oh_q_cos",
    "oh_q_frames",
    "ed_check_shape",
    "ed_check_ceiling",
    "qkv_check",
    "hm_check",
    "mh_check",
    "mh_choice",
    "pe_q_swap",
    "pe_q_value",
    "pe_q_offset",
    "rc_check_cheaper",
    "rc_check_products",
    "sc_check",
    "rm_check",
    "rm_num",
    "quiz:one_hot:1",
    "quiz:one_hot:2",
    "quiz:one_hot:3",
    "quiz:one_hot:4",
    "quiz:before_self_attention:1",
    "quiz:before_self_attention:2",
    "quiz:before_self_attention:3",
    "quiz:before_self_attention:4",
    "quiz:qkv:1",
    "quiz:qkv:2",
    "quiz:qkv:3",
    "quiz:qkv:4",
    "quiz:heatmap:1",
    "quiz:heatmap:2",
    "quiz:heatmap:3",
    "quiz:heatmap:4",
    "quiz:multi_head:1",
    "quiz:multi_head:2",
    "quiz:multi_head:3",
    "quiz:multi_head:4",
    "quiz:positional:1",
    "quiz:positional:2",
    "quiz:positional:3",
    "quiz:positional:4",
    "quiz:rnn_cnn:1",
    "quiz:rnn_cnn:2",
    "quiz:rnn_cnn:3",
    "quiz:rnn_cnn:4",
    "quiz:scaling:1",
    "quiz:scaling:2",
    "quiz:scaling:3",
    "quiz:scaling:4",
    "quiz:real_model:1",
    "quiz:real_model:2",
    "quiz:real_model:3",
    "quiz:real_model:4",
    "page:train",
    "tr_check_ceiling",
    "tr_check_order",
    "quiz:train:1",
    "quiz:train:2",
    "quiz:train:3",
    "quiz:train:4",
    # the scores-by-hand page
    "page:dot_product",
    "dp_check",
    "quiz:dot_product:1",
    "quiz:dot_product:2",
    "quiz:dot_product:3",
    "quiz:dot_product:4",
    # the final quiz's best score (issue 26 #3)
    *(f"final:best:{k}" for k in range(1, 13)),
    # a whole Transformer layer (issue 27), a decoder that writes (issue 28), attention since 2017 (issue 29)
    "page:transformer_block",
    "tb_check",
    "quiz:transformer_block:1",
    "quiz:transformer_block:2",
    "quiz:transformer_block:3",
    "quiz:transformer_block:4",
    "page:decoder",
    "dc_check",
    "quiz:decoder:1",
    "quiz:decoder:2",
    "quiz:decoder:3",
    "quiz:decoder:4",
    "page:rotary",
    "ro_check",
    "quiz:rotary:1",
    "quiz:rotary:2",
    "quiz:rotary:3",
    "quiz:rotary:4",
    "page:kv_heads",
    "kv_check",
    "quiz:kv_heads:1",
    "quiz:kv_heads:2",
    "quiz:kv_heads:3",
    "quiz:kv_heads:4",
    "page:flash",
    "fa_check",
    "quiz:flash:1",
    "quiz:flash:2",
    "quiz:flash:3",
    "quiz:flash:4",
    "page:windows",
    "sw_check",
    "quiz:windows:1",
    "quiz:windows:2",
    "quiz:windows:3",
    "quiz:windows:4",
)
