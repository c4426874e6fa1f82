"""bench.figure_parts: each variant drops one part of the figure and leaves the rest, and a step's
figures are read as the browser gets them."""

import copy

from bench.figure_parts import step_figures, variants

SPEC = {
    "data": [
        {"type": "heatmap", "z": [[1, 2], [3, 4]], "xgap": 1, "ygap": 1, "texttemplate": "%{z}", "customdata": [[0]]},
        {"type": "scatter", "y": [1, 2]},
    ],
    "layout": {"shapes": [{"type": "line"}], "annotations": [{"text": "a"}, {"text": "b"}]},
}


def test_each_variant_drops_its_part_only():
    before = copy.deepcopy(SPEC)
    out = variants(SPEC)
    assert before == SPEC  # the figure itself is left as it was
    assert list(out) == [
        "whole",
        "no shapes (1)",
        "no annotations (2)",
        "no text in cells or on marks",
        "no gaps between heatmap cells",
        "no customdata",
        "no legend",
        "no hover",
    ]
    assert out["whole"] is SPEC
    assert out["no shapes (1)"]["layout"]["shapes"] == [] and out["no shapes (1)"]["layout"]["annotations"]
    gapless = out["no gaps between heatmap cells"]["data"][0]
    assert "xgap" not in gapless and "ygap" not in gapless and gapless["texttemplate"] == "%{z}"
    assert "texttemplate" not in out["no text in cells or on marks"]["data"][0]
    assert out["no hover"]["layout"]["hovermode"] is False


def test_a_figure_without_a_part_gets_no_variant_for_it():
    out = variants({"data": [{"type": "bar", "y": [1]}], "layout": {}})
    assert list(out) == ["whole", "no legend", "no hover"]


def test_a_steps_figures_come_by_their_keys():
    figures = step_figures("scaling", 2)
    assert set(figures) == {"scaling_weights", "scaling_curves", "scaling_slopes"}
    assert figures["scaling_weights"]["data"][0]["type"] == "bar"
