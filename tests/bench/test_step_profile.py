"""bench/step_profile.py sums a sampled JavaScript profile by source file: Plotly apart from React
apart from the browser's own work, idle time left out, a build's file hash dropped."""

from __future__ import annotations

from bench.step_profile import by_file, by_function


def _frame(node_id: int, name: str, url: str) -> dict:
    return {"id": node_id, "callFrame": {"functionName": name, "url": url}}


PROFILE = {
    "nodes": [
        _frame(1, "(idle)", ""),
        _frame(2, "(program)", ""),
        _frame(3, "L", "http://127.0.0.1:8520/static/js/PlotlyChart.D9Z0_fxz.js"),
        _frame(4, "Ul", "http://127.0.0.1:8520/static/js/react-dom.Dzbslgj4.js"),
        _frame(5, "getBoundingClientRect", ""),
    ],
    "samples": [1, 2, 3, 3, 4, 5, 1],
    "timeDeltas": [5000, 1000, 2000, 3000, 500, 250, 9000],  # µs
}


def test_self_time_is_summed_by_file_without_idle_time():
    assert by_file(PROFILE) == {"(native)": 1.25, "PlotlyChart.js": 5.0, "react-dom.js": 0.5}


def test_self_time_by_function_names_the_file_or_none():
    assert by_function(PROFILE) == {
        "(program)@-": 1.0,
        "L@PlotlyChart.js": 5.0,
        "Ul@react-dom.js": 0.5,
        "getBoundingClientRect@-": 0.25,
    }
