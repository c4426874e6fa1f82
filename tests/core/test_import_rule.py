"""attention_core stays pure NumPy: it must not import a UI library, directly or through a
module it imports."""

import ast
import pathlib
import subprocess
import sys

CORE = pathlib.Path(__file__).resolve().parents[2] / "attention_core"
FORBIDDEN = {"streamlit", "plotly", "pandas"}


def test_no_core_file_names_a_ui_library():
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_importing_the_core_loads_no_ui_library():
    code = (
        "import sys, attention_core, pkgutil, importlib\n"
        "for m in pkgutil.iter_modules(attention_core.__path__):\n"
        "    importlib.import_module('attention_core.' + m.name)\n"
        f"print(sorted(m for m in {sorted(FORBIDDEN)!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=CORE.parent, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
