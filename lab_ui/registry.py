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


HOME = PageInfo("pages/home.py", "home", "", ":material/home:", "")

_ALL = (
    PageInfo("pages/one_hot.py", "one_hot", "one_hot", ":material/grid_on:", "app.section_basics"),
    PageInfo(
        "pages/before_self_attention.py",
        "before_self_attention",
        "before_self_attention",
        ":material/translate:",
        "app.section_basics",
    ),
    PageInfo("pages/qkv.py", "qkv", "qkv", ":material/calculate:", "app.section_basics"),
    PageInfo("pages/heatmap.py", "heatmap", "heatmap", ":material/grid_view:", "app.section_basics"),
    PageInfo("pages/multi_head.py", "multi_head", "multi_head", ":material/view_column:", "app.section_deeper"),
    PageInfo("pages/positional.py", "positional", "positional", ":material/waves:", "app.section_deeper"),
    PageInfo("pages/rnn_cnn.py", "rnn_cnn", "rnn_cnn", ":material/compare_arrows:", "app.section_deeper"),
    PageInfo("pages/scaling.py", "scaling", "scaling", ":material/functions:", "app.section_deeper"),
    PageInfo("pages/real_model.py", "real_model", "real_model", ":material/psychology:", "app.section_real"),
)


def available(pages: tuple[PageInfo, ...], root: Path = ROOT) -> tuple[PageInfo, ...]:
    """The pages whose script is in the tree at `root`, in their order."""
    return tuple(p for p in pages if (root / p.path).is_file())


PAGES: tuple[PageInfo, ...] = available(_ALL)
