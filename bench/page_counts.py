"""What the page layer costs to change, counted: the files a new page touches (the commit that added
docs/adding_a_page.md's example page), the formatter's exceptions (`# fmt: skip`, each with its
reason), and catalog keys the catalog test cannot read (built at run time) or that nothing uses.

    .venv/bin/python -m bench.page_counts

tests/app/test_catalogs.py uses the same readings (catalog_usage) and fails on any built or unused key.
"""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_PAGE = "pages/dot_product.py"  # docs/adding_a_page.md walks through it
FILES_PER_PAGE_LIMIT = 6
FMT_SKIP_LIMIT = 20
KEY_SHAPE = re.compile(r"([a-z_]+)\.([A-Za-z_0-9]+)")


def code_files() -> list[Path]:
    """The files whose t() calls must name literal keys: the app, its pages, its ui package."""
    return sorted({ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("lab_ui/**/*.py")})


def literal_keys(tree: ast.AST, stems: set[str]) -> set[str]:
    """Every string literal shaped like a catalog key ("heatmap.d"), and every key that a
    labels("<prefix>", "<id>", ...) call with literal arguments declares (lab_ui.state.labels)."""
    found = set()
    pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces:
            m = KEY_SHAPE.fullmatch(node.value)
            if m and m.group(1) in stems and not node.value.endswith("_"):  # "heatmap.mask_": a labels() prefix
                found.add(node.value)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "labels":
            args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if args and len(args) == len(node.args):
                found |= {args[0] + name for name in args[1:]}
    return found


def built_keys(tree: ast.AST) -> list[str]:
    """Calls t(...) whose key is built at run time: an f-string, or a string added to something."""
    built = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t" and node.args:
            key = node.args[0]
            if isinstance(key, ast.JoinedStr) or (isinstance(key, ast.BinOp) and isinstance(key.op, ast.Add)):
                built.append(f"line {node.lineno}: t({ast.unparse(key)})")
    return built


def declared_keys() -> set[str]:
    """The keys the manifests declare that are not literals: each quiz question's words, options and explanation."""
    from lab_ui.registry import PAGES

    return {key for info in PAGES for question in info.quiz for key in question.catalog_keys()}


@dataclass(frozen=True)
class CatalogUsage:
    used: frozenset[str]  # every key the code names or the manifests declare
    built: dict[str, list[str]]  # file -> its t() calls with keys built at run time
    unused: tuple[str, ...]  # catalog keys nothing names
    missing: tuple[str, ...]  # keys named that no catalog has


def catalog_usage() -> CatalogUsage:
    from lab_ui.i18n import catalog

    keys = catalog()
    stems = {key.split(".", 1)[0] for key in keys}
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in code_files()}
    used = set().union(*(literal_keys(tree, stems) for tree in trees.values())) | declared_keys()
    built = {str(p.relative_to(ROOT)): b for p, tree in trees.items() if (b := built_keys(tree))}
    unused = tuple(sorted(k for k in keys if k not in used))
    missing = tuple(sorted(k for k in used if k not in keys))
    return CatalogUsage(frozenset(used), built, unused, missing)


def fmt_skips() -> list[str]:
    """Every `# fmt: skip` in the project's Python files, as "path:line: the line"."""
    out = subprocess.run(["git", "grep", "-n", "fmt: skip", "--", "*.py"], cwd=ROOT, capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line and not line.startswith("bench/page_counts.py")]


def files_of_new_page(path: str = EXAMPLE_PAGE) -> list[str]:
    """The files changed by the commit that added the page's script."""
    added = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=%H", "--", path], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    if not added:
        return []
    shown = subprocess.run(
        ["git", "show", "--name-only", "--format=", added[-1]], cwd=ROOT, capture_output=True, text=True
    ).stdout
    return [line for line in shown.splitlines() if line]


def main() -> None:
    files = files_of_new_page()
    print(f"files the example page's commit touched ({EXAMPLE_PAGE}): {len(files)} (limit {FILES_PER_PAGE_LIMIT})")
    for name in files:
        print(f"  {name}")
    skips = fmt_skips()
    print(f"# fmt: skip markers: {len(skips)} (limit {FMT_SKIP_LIMIT})")
    for line in skips:
        print(f"  {line}")
    usage = catalog_usage()
    built = sum(len(b) for b in usage.built.values())
    print(f"catalog keys built at run time (unchecked): {built}")
    for path, calls in usage.built.items():
        print(f"  {path}: {len(calls)}, e.g. {calls[0]}")
    print(
        f"catalog keys nothing uses: {len(usage.unused)}"
        + (f", e.g. {', '.join(usage.unused[:5])}" if usage.unused else "")
    )
    print(
        f"keys used that no catalog has: {len(usage.missing)}"
        + (f": {', '.join(usage.missing[:5])}" if usage.missing else "")
    )


if __name__ == "__main__":
    main()
