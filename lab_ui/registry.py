"""The pages of the app, in order. app.py builds the navigation from this list and the home page
maps it, so a page is named in exactly one place. A page whose script is not in the tree is
left out, so the app never lists a page that does not exist."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class PageInfo:
    path: str  # script, relative to the project root
    ns: str  # catalog namespace: lab_ui/locales/<ns>.toml holds nav, title, intro, summary
    url_path: str  # stable ASCII address, links in slides point here; equal to the file's stem (lab_ui/shell.py)
    icon: str  # Material icon shown in the navigation (drawn from a font bundled with Streamlit)
    section: str  # catalog key of the navigation section
    minutes: int = 10  # a student's time for the page, read and tried, shown on the home page
    sections: tuple[str, ...] = ()  # the page's sections in order: its lecture steps (lab_ui.page)
    step_prefix: str = ""  # the pages' control-key prefix: the lecture step is <prefix>_step in a link

    @property
    def step_key(self) -> str:
        return f"{self.step_prefix or self.ns}_step"


HOME = PageInfo("pages/home.py", "home", "", ":material/home:", "")

_ALL = (
    PageInfo(
        "pages/one_hot.py",
        "one_hot",
        "one_hot",
        ":material/grid_on:",
        "app.section_basics",
        minutes=12,
        step_prefix="oh",
        sections=("vectors", "similarity", "map", "sizes", "sequences"),
    ),
    PageInfo(
        "pages/before_self_attention.py",
        "before_self_attention",
        "before_self_attention",
        ":material/translate:",
        "app.section_basics",
        minutes=15,
        step_prefix="ed",
        sections=("maps", "bottleneck", "shapes", "check"),
    ),
    PageInfo(
        "pages/qkv.py",
        "qkv",
        "qkv",
        ":material/calculate:",
        "app.section_basics",
        minutes=20,
        step_prefix="qkv",
        # section n is qkv_step=n in links made before sections; the check before its score is worked out
        sections=("tokens", "weights", "qkv", "check", "scores", "softmax", "output", "matrix", "additive"),
    ),
    PageInfo(
        "pages/heatmap.py",
        "heatmap",
        "heatmap",
        ":material/grid_view:",
        "app.section_basics",
        minutes=15,
        step_prefix="hm",
        sections=("map", "query", "speech", "check"),
    ),
    PageInfo(
        "pages/multi_head.py",
        "multi_head",
        "multi_head",
        ":material/view_column:",
        "app.section_deeper",
        minutes=15,
        step_prefix="mh",
        sections=("split", "maps", "join", "differ", "cost", "check"),
    ),
    PageInfo(
        "pages/positional.py",
        "positional",
        "positional",
        ":material/waves:",
        "app.section_deeper",
        minutes=15,
        step_prefix="pe",
        sections=("why", "sinusoids", "similarity", "learned", "check"),
    ),
    PageInfo(
        "pages/rnn_cnn.py",
        "rnn_cnn",
        "rnn_cnn",
        ":material/compare_arrows:",
        "app.section_deeper",
        minutes=15,
        step_prefix="rc",
        sections=("see", "long_range", "parallel", "cost", "images", "check"),
    ),
    PageInfo(
        "pages/scaling.py",
        "scaling",
        "scaling",
        ":material/functions:",
        "app.section_deeper",
        minutes=12,
        step_prefix="sc",
        sections=("spread", "softmax", "derivation"),
    ),
    PageInfo(
        "pages/train.py",
        "train",
        "train",
        ":material/model_training:",
        "app.section_deeper",
        minutes=15,
        step_prefix="tr",
        sections=("train", "frames", "tag", "compare", "order", "scale", "check"),
    ),
    PageInfo(
        "pages/real_model.py",
        "real_model",
        "real_model",
        ":material/psychology:",
        "app.section_real",
        minutes=15,
        step_prefix="rm",
        sections=("grid", "head", "sink", "jobs", "check"),
    ),
    PageInfo("pages/quiz.py", "quiz", "quiz", ":material/quiz:", "app.section_check", minutes=15),
)


def available(pages: tuple[PageInfo, ...], root: Path = ROOT) -> tuple[PageInfo, ...]:
    """The pages whose script is in the tree at `root`, in their order."""
    return tuple(p for p in pages if (root / p.path).is_file())


PAGES: tuple[PageInfo, ...] = available(_ALL)


def info(ns: str) -> PageInfo:
    """The page called `ns` (home included)."""
    return next(p for p in (HOME, *_ALL) if p.ns == ns)
