"""The shared figure blocks of lab_ui.figures.common: row_rules, and the rule that no heatmap draws
gaps between its cells (row_rules' docstring says what a gap costs in the browser)."""

import ast
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from lab_ui.figures import common

FIGURES = Path(common.__file__).parent


def test_no_figure_builder_asks_for_cell_gaps():
    """xgap / ygap make Plotly paint a heatmap cell by cell and encode a PNG on every draw."""
    found = []
    for path in sorted(FIGURES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg in ("xgap", "ygap"):
                found.append(f"{path.name}:{node.value.lineno}")
            if isinstance(node, ast.Constant) and node.value in ("xgap", "ygap"):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, found


def test_row_rules_draw_one_line_between_each_two_rows_across_the_plot():
    shape = common.row_rules(4, first=1, xref="x2", yref="y2")
    assert shape["type"] == "path" and shape["xref"] == "x2 domain" and shape["yref"] == "y2"
    lines = re.findall(r"M0,([\d.]+) L1,([\d.]+)", shape["path"])  # across the whole width (x in 0..1)
    assert [(float(a), float(b)) for a, b in lines] == [(1.5, 1.5), (2.5, 2.5), (3.5, 3.5)]  # 4 rows, 3 lines
    fig = go.Figure(go.Heatmap(z=np.eye(4)), layout={"shapes": [common.row_rules(4)]})  # Plotly accepts it
    assert fig.layout.shapes[0].layer == "above"  # over the cells, not under them


def test_one_row_needs_no_rule():
    shape = common.row_rules(1)
    assert not shape["visible"]
    go.Figure(layout={"shapes": [shape]})  # still a valid shape
