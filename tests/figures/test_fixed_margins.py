"""lab_ui.figures.common.fixed_margins: the room an outer axis's labels and title need is reserved
in the margins and that axis's automargin is off; where the room cannot be told from the figure
(a square plot, a log axis, word labels Plotly may slant, a legend under the plot), automargin
stays; margins only grow."""

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lab_ui.figures.common import fixed_margins, text_px


def spec(fig: go.Figure) -> dict:
    return fixed_margins(fig.to_dict())["layout"]


def line(y, **layout) -> go.Figure:
    return go.Figure(go.Scatter(y=y), layout={"margin": dict(l=10, r=10, t=50, b=10), **layout})


def test_a_titled_numeric_axis_gets_room_for_its_labels_and_title():
    plain = spec(line([0.0, 0.5, 1.0]))
    titled = spec(line([0.0, 0.5, 1.0], yaxis=dict(title=dict(text="weight")), xaxis=dict(title=dict(text="j"))))
    assert plain["yaxis"]["automargin"] is False and plain["xaxis"]["automargin"] is False
    assert 10 < plain["margin"]["l"] < titled["margin"]["l"]  # the title needs its own room
    assert plain["margin"]["b"] < titled["margin"]["b"]
    assert titled["margin"]["r"] == 10 and titled["margin"]["t"] == 50  # sides without axes are left alone


def test_wider_labels_get_a_wider_margin_and_chinese_is_wider_than_latin():
    short = spec(go.Figure(go.Bar(x=[1, 2], y=["a", "b"], orientation="v")))
    long = spec(go.Figure(go.Bar(x=[1, 2], y=["attention", "b"])))
    assert long["margin"]["l"] > short["margin"]["l"]
    assert text_px("注意力", 12) > text_px("att", 12)
    assert text_px("<b>it</b>", 12) == text_px("it", 12)  # markup takes no room


def test_large_numbers_and_negative_ones_widen_the_margin():
    small, large = spec(line([0, 1])), spec(line([0, 3_000_000]))
    assert large["margin"]["l"] > small["margin"]["l"]
    assert spec(line([-1, 1]))["margin"]["l"] > spec(line([0, 1]))["margin"]["l"]  # the minus sign


def test_a_lecture_sized_axis_needs_more_room():
    normal = spec(line([0, 1], yaxis=dict(title=dict(text="weight"))))
    lecture = spec(line([0, 1], yaxis=dict(title=dict(text="weight", font=dict(size=20)), tickfont=dict(size=20))))
    assert lecture["margin"]["l"] > normal["margin"]["l"]


def test_margins_only_grow():
    roomy = spec(line([0, 1], margin=dict(l=300, r=10, t=50, b=200)))
    assert roomy["margin"]["l"] == 300 and roomy["margin"]["b"] == 200


def test_axes_whose_room_is_unknown_keep_automargin():
    square = spec(line([0, 1], yaxis=dict(scaleanchor="x")))
    assert "automargin" not in square["yaxis"] and "automargin" not in square.get("xaxis", {})
    log = spec(line([1, 1000], yaxis=dict(type="log")))
    assert "automargin" not in log["yaxis"]
    words = spec(go.Figure(go.Heatmap(z=[[1, 2]]), layout=dict(xaxis=dict(tickvals=[0, 1], ticktext=["I", "saw"]))))
    assert "automargin" not in words["xaxis"]  # Plotly may slant them on a phone
    assert words["yaxis"]["automargin"] is False
    legend = spec(line([0, 1], legend=dict(orientation="h", y=-0.3)))
    assert "automargin" not in legend.get("xaxis", {}) and legend["yaxis"]["automargin"] is False


def test_only_outer_axes_push_the_margins():
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Scatter(y=[0, 1]), row=1, col=1)
    fig.add_trace(go.Scatter(y=[0, 10_000_000]), row=1, col=2)  # wide labels, but between the plots
    fig.update_layout(margin=dict(l=10, r=10, t=50, b=10))
    both = spec(fig)
    alone = spec(line([0, 1]))
    assert both["margin"]["l"] == alone["margin"]["l"]
    assert both["yaxis2"]["automargin"] is False


def test_figures_without_cartesian_axes_are_left_as_they_are():
    pie = go.Figure(go.Pie(values=[1, 2]))
    assert fixed_margins(pie.to_dict()) == pie.to_dict()


def test_a_histograms_count_axis_keeps_automargin():
    counts = spec(go.Figure(go.Histogram(x=list(range(5000)))))  # its y labels are counts, not 0..4999
    assert "automargin" not in counts.get("yaxis", {})


def test_upright_labels_on_two_lines_get_two_lines_of_room():
    """one_hot's sizes chart names its bars on two lines ("a sentence<br>of 6 words"): with room for
    one, the second line was cut off at the figure's edge."""

    def bars(names):
        axis = dict(tickmode="array", tickvals=[0, 1], ticktext=names, tickangle=0)
        return spec(go.Figure(go.Bar(x=[0, 1], y=[1, 2]), layout=dict(xaxis=axis, margin=dict(b=10))))

    one, two = bars(["a", "b"]), bars(["a", "a<br>b"])
    assert two["xaxis"]["automargin"] is False and two["margin"]["b"] - one["margin"]["b"] >= 12  # a line of 12 px
