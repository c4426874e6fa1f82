"""lab_ui.layout.fixed_margins: the room an outer axis's labels and title need is reserved
in the margins and that axis's automargin is off; where the room cannot be told from the figure
(a log axis, word labels Plotly may slant, a legend under the plot whose rows cannot be counted),
automargin stays; margins only grow."""

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lab_ui.layout import fixed_margins, text_px


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


def test_a_square_plot_gets_the_same_room_as_any_other():
    square = spec(line([0, 1], yaxis=dict(scaleanchor="x", title=dict(text="dim 1"))))
    plain = spec(line([0, 1], yaxis=dict(title=dict(text="dim 1"))))
    assert square["yaxis"]["automargin"] is False and square["xaxis"]["automargin"] is False
    assert square["margin"] == plain["margin"]
    playing = line([0, 1], yaxis=dict(scaleanchor="x"), updatemenus=[dict(type="buttons", x=0, buttons=[])])
    assert "automargin" not in spec(playing)["yaxis"]  # its buttons sit where automargin put the plot


BOTTOM_ROW = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0)


def named_lines(*names: str, **layout) -> go.Figure:
    traces = [go.Scatter(y=[0, 1], name=name) for name in names]
    return go.Figure(traces, layout={"margin": dict(l=10, r=10, t=50, b=10), **layout})


def test_a_legend_along_the_bottom_gets_its_rows_under_the_x_axis():
    alone = spec(named_lines("a", "b"))  # no legend layout: Plotly puts it on the right
    one_row = spec(named_lines("a", "b", legend=BOTTOM_ROW))
    two_rows = spec(named_lines("positions 0 to 54", "p = 0 → 5", "p = 16 → 21", legend=BOTTOM_ROW))
    assert one_row["xaxis"]["automargin"] is False and two_rows["xaxis"]["automargin"] is False
    row = one_row["margin"]["b"] - alone["margin"]["b"]
    assert row > 12  # at least a row of 12 px text
    assert two_rows["margin"]["b"] - alone["margin"]["b"] > row + 12  # a second row on a phone
    big = spec(named_lines("a", "b", legend=dict(BOTTOM_ROW, font=dict(size=20))))
    assert big["margin"]["b"] > one_row["margin"]["b"]
    two_big = spec(named_lines("positions 0 to 54", "p = 0 → 5", legend=dict(BOTTOM_ROW, font=dict(size=20))))
    assert "automargin" not in two_big.get("xaxis", {})  # two rows of lecture text: too much empty room on a projector


def test_one_trace_draws_no_legend_and_needs_no_room_for_one():
    one = spec(named_lines("a", legend=BOTTOM_ROW))
    assert one["margin"]["b"] == spec(named_lines("a"))["margin"]["b"]


def numbered_map(ticks: list[int], cells: int, **xaxis) -> go.Figure:
    axis = dict(tickmode="array", tickvals=ticks, ticktext=[str(v) for v in ticks], range=[0.5, cells + 0.5], **xaxis)
    return go.Figure(go.Heatmap(z=[[0.0] * cells]), layout=dict(xaxis=axis, height=400))


def test_numbered_ticks_that_stay_level_on_a_phone_get_fixed_room():
    few = spec(numbered_map([1, 17, 33, 49], 64))  # 16 cells apart: a two-digit label fits a phone's width
    assert few["xaxis"]["automargin"] is False
    many = spec(numbered_map(list(range(1, 65, 4)), 64))  # 4 cells apart: Plotly slants them on a phone
    assert "automargin" not in many["xaxis"]
    narrow = spec(numbered_map([1, 17, 33, 49], 64, domain=[0, 0.2]))  # one map of five in a row
    assert "automargin" not in narrow["xaxis"]
    third = spec(numbered_map([1, 17, 33, 49], 64, domain=[0, 0.3]))  # one map of three in a row
    assert third["xaxis"]["automargin"] is False
    big = spec(numbered_map([1, 17, 33, 49], 64, domain=[0, 0.3], tickfont=dict(size=20)))  # lecture mode's labels
    assert "automargin" not in big["xaxis"]


def test_axes_whose_room_is_unknown_keep_automargin():
    many = spec(named_lines(*(f"head {h} of layer {h}" for h in range(8)), legend=BOTTOM_ROW))
    assert "automargin" not in many.get("xaxis", {})  # too many rows on a phone
    assert many["yaxis"]["automargin"] is False
    unnamed = spec(go.Figure([go.Scatter(y=[0, 1]), go.Scatter(y=[1, 0], name="b")], layout=dict(legend=BOTTOM_ROW)))
    assert "automargin" not in unnamed.get("xaxis", {})  # Plotly names the first "trace 0"
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
