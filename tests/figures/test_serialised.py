"""lab_ui.layout.Serialised: a cached figure serialised once sends the browser what the figure
itself would, with fixed margins instead of automargin (lab_ui.layout.fixed_margins), and its JSON,
which the chart element sends on every run, is made once."""

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from lab_ui.layout import Serialised, fixed_margins


def figure() -> go.Figure:
    z = np.arange(12, dtype=np.float32).reshape(3, 4)
    z[1, 2] = np.nan  # a masked cell: null in the JSON
    return go.Figure(
        data=[go.Heatmap(z=z, x=["a", "b", "c", "d"], texttemplate="%{z:.1f}"), go.Scatter(y=[1, 2, 3])],
        layout=dict(title="α · 注意力", height=300, shapes=[dict(type="rect", x0=0, x1=1, y0=0, y1=1)]),
    )


def test_the_browser_gets_the_same_json_but_the_margins():
    fig = figure()
    sent = pio.to_json(Serialised(fig), validate=False)
    assert sent == pio.to_json(fixed_margins(fig.to_dict()), validate=False)
    assert sent != pio.to_json(fig, validate=False)  # the margins were fixed ...
    assert Serialised(fig).to_dict()["data"] == fig.to_dict()["data"]  # ... and nothing else changed


def test_the_chart_element_gets_the_same_json_every_run_made_once():
    prepared = Serialised(figure())
    assert prepared.json() is prepared.json()  # made on the first run only
    assert prepared.json() == pio.to_json(fixed_margins(figure().to_dict()), validate=False)
