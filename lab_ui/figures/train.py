"""Figures and tables of the live-training page: core results (attention_core.train) and a language
in, go.Figure or DataFrame out, no Streamlit calls. Each builder looks up its own labels.

Accuracies are shown in percent; steps count updates, 0 is the untrained model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.train import Comparison, ComparisonRow, Fit, Prediction, Progress, Task
from attention_core.train_views import attention_entropy, first_step_at, tag_examples
from lab_ui.figures.common import QUALITATIVE, SEQUENTIAL, safe_label
from lab_ui.i18n import t
from lab_ui.layout import TITLE_ROOM_PX, layout_dict, title_below_toolbar
from lab_ui.state import labels

# The words of the options and of the rows, columns and curves, by id (catalog keys declared once).
MODEL_NAMES = labels("train.model_", "word", "window", "attention")  # model_window takes {w}
POSITION_NAMES = labels("train.pos_", "sinusoidal", "learned", "none")
SCALE_NAMES = labels("train.scale_", "sqrt", "d", "none")
CURVE_NAMES = labels("train.curve_", "train", "test", "ambiguous")
COLUMN_NAMES = labels("train.col_", "ambiguous_accuracy", "test_accuracy")
CEILING_NAMES = labels("train.ceiling_", "models", "positions")
TAG_NAMES = labels("train.tag_", "PRON", "DET", "ADJ", "NOUN", "VERB", "AUX", "PART", "CONJ", "PUNCT")
DIVERGED = labels("train.diverged_", "loss_not_finite", "loss_exploded", "weights_exploded")  # Fit.divergence
YES = labels("train.yes_", "True", "False")
TITLES = {"models": "train.models_title", "positions": "train.positions_title"}
ROW_NAMES = {"models": "train.models_row", "positions": "train.positions_row"}

HEIGHT = 360  # under a 1280 x 720 projector's title row and step bar, with the slider of the frames
LEGEND = dict(orientation="h", x=0, xanchor="left", y=0, yref="container", yanchor="bottom")
CURVES = ("train", "test", "ambiguous")
COLOUR = {"loss": QUALITATIVE[7], "train": QUALITATIVE[4], "test": QUALITATIVE[0], "ambiguous": QUALITATIVE[5]}
ROW_COLOUR = (QUALITATIVE[1], QUALITATIVE[2], QUALITATIVE[0])
SCALING_STEPS = (25, 50, 100, 200, 300)
WORDS_LEVEL = 10  # a typed sentence's words stay level up to this many (a phone: about 40 px each)
FRAMES_LECTURE_PX = 390  # the frames' height on a projector: whole under the title row and the step bar
PANELS_TOP = TITLE_ROOM_PX + 6 + 26 + 4  # px above two panels: the title, then the panel titles (20 px)


def _curves(run: Fit | Progress) -> tuple[np.ndarray, ...]:
    """(losses, eval steps, train, test, ambiguous accuracy) of a finished run or a running one."""
    if isinstance(run, Progress):
        return run.losses, run.eval_steps, run.train_accuracy, run.test_accuracy, run.ambiguous_accuracy
    return run.losses, run.eval_steps, run.train_accuracy_curve, run.test_accuracy_curve, run.ambiguous_accuracy_curve


def _two_panels(title: str, left: str, right: str, steps: int, lang: str, **more) -> dict:
    """The layout of a figure with two panels side by side over the steps, each panel named by a
    title above it: an axis title of the right panel would stand in the gap, over the left
    panel's curves on a phone. The figure's title sits at the top edge, the panel titles under it."""
    x_title = t("train.step", lang)
    layout = layout_dict(
        title=title,
        height=HEIGHT,
        legend=LEGEND,
        showlegend=True,
        xaxis=dict(domain=[0, 0.44], title=x_title, range=[0, steps]),
        xaxis2=dict(domain=[0.56, 1], title=x_title, range=[0, steps], anchor="y2"),
        annotations=[
            dict(
                text=f"<b>{text}</b>",
                x=x,
                xref="paper",
                xanchor="center",
                y=1,
                yref="paper",
                yanchor="bottom",
                yshift=6,
                showarrow=False,
            )
            for text, x in ((left, 0.22), (right, 0.78))
        ],
        **more,
    )
    title_below_toolbar(layout)
    layout["margin"].update(t=PANELS_TOP, b=95)
    return layout


def curves(run: Fit | Progress, steps: int, lang: str) -> go.Figure:
    """The loss (left) and the three accuracies (right) against the step, of a finished run or a
    running one (before a run the page shows a message, not empty axes)."""
    losses, at, *accuracies = _curves(run)
    data = [
        go.Scatter(
            x=np.arange(len(losses)),
            y=np.asarray(losses, dtype=np.float32),
            mode="lines",
            name=t("train.curve_loss", lang),
            line=dict(color=COLOUR["loss"], width=2),
            hovertemplate="%{x}: %{y:.4f}<extra></extra>",
        )
    ]
    for name, curve in zip(CURVES, accuracies, strict=True):
        # The training words' curve is drawn wide, under the others: where the test words' curve lies on
        # it (both at 100 % once the tagger has learned), it shows as a light edge instead of vanishing.
        wide = name == "train"
        data.append(
            go.Scatter(
                x=np.asarray(at),
                y=100 * np.asarray(curve, dtype=np.float32),
                mode="lines+markers",
                xaxis="x2",
                yaxis="y2",
                name=CURVE_NAMES.text(name, lang),
                line=dict(color=COLOUR[name], width=6 if wide else 2, dash="solid" if name == "ambiguous" else "dot"),
                marker=dict(size=10 if wide else 5),
                hovertemplate="%{x}: %{y:.1f}%<extra></extra>",
            )
        )
    layout = _two_panels(
        t("train.curves_title", lang),
        t("train.curve_loss", lang),
        t("train.accuracy", lang),
        steps,
        lang,
        yaxis=dict(rangemode="tozero"),
        yaxis2=dict(range=[0, 102], anchor="x2"),
    )
    return go.Figure(data=data, layout=layout)


def curves_table(fit: Fit, lang: str) -> pd.DataFrame:
    """One row per evaluated step: the three accuracies (%, one decimal, as the figure's hover) and
    the training loss there (four)."""
    steps = np.asarray(fit.eval_steps)  # [n_evals]
    losses = np.append(fit.losses, fit.final_loss)  # [steps_run + 1]: the loss of the weights after each step
    return pd.DataFrame(
        {
            t("train.curve_loss", lang): np.round(losses[np.minimum(steps, len(losses) - 1)], 4),
            **{
                CURVE_NAMES.text(name, lang): np.round(100 * curve, 1)
                for name, curve in zip(CURVES, _curves(fit)[2:], strict=True)
            },
        },
        index=pd.Index(steps, name=t("train.step", lang)),
    )


# --- the attention of "I saw a saw ." over training ---------------------------------------------------


def frames(fit: Fit, head: int, lang: str, big: bool = False) -> go.Figure:
    """One head's attention map of the recorded sentence, one Plotly frame per snapshot, played in
    the browser (play / pause and a step slider in the figure: no rerun per frame). `big` (a
    projector, FRAMES_LECTURE_PX tall with 20 px text): cells
    wider than tall so their numbers fit; the buttons and the slider get their room in pixels."""
    maps = np.asarray(fit.attention_frames[:, 0, head], dtype=np.float32)  # [n_frames, T, T]
    words = list(fit.frame_words)
    labels = [f"{safe_label(w)} ({i + 1})" for i, w in enumerate(words)]
    ticks = list(range(len(words)))
    value = t("train.weight", lang)
    start = len(maps) - 1  # the trained map first; play runs it from step 0

    def cells(k: int) -> dict:
        return {"type": "heatmap", "z": np.round(maps[k], 3).tolist()}

    heat = go.Heatmap(
        **{k: v for k, v in cells(start).items() if k != "type"},
        x=ticks,
        y=ticks,
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=1,
        texttemplate="%{z:.2f}",
        colorbar=dict(title=dict(text=value, side="right"), thickness=12),
        hovertemplate=f"{t('train.query', lang)} %{{y}} → {t('train.key', lang)} %{{x}}: %{{z:.3f}}<extra></extra>",
    )
    names = [str(int(s)) for s in fit.frame_steps]
    still = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate", "transition": {"duration": 0}}
    playing = {"frame": {"duration": 350, "redraw": True}, "fromcurrent": True, "transition": {"duration": 0}}
    text = 20 if big else 13  # px of the largest text: lecture mode's, or Plotly's default here
    height = FRAMES_LECTURE_PX if big else HEIGHT + 80
    top = 2 * text + 24  # the keys and their axis title above the map (no figure title: it would meet them)
    button_h = text + 16
    slider_at = 10 + button_h + 6  # px below the map: the buttons, then the slider's rail
    bottom = slider_at + 2 * text + 30
    plot = height - top - bottom
    label_every = max(1, len(names) // 10)
    layout = layout_dict(
        height=height,
        xaxis=dict(
            tickmode="array",
            tickvals=ticks,
            ticktext=labels,
            side="top",
            title=t("train.key", lang),
            showgrid=False,
            zeroline=False,
            constrain="domain",
        ),
        yaxis=dict(
            tickmode="array",
            tickvals=ticks,
            ticktext=labels,
            autorange="reversed",
            showgrid=False,
            zeroline=False,
            title=t("train.query", lang),
            scaleanchor=None if big else "x",
        ),
        updatemenus=[
            dict(
                type="buttons",
                direction="left",
                x=0,
                y=-10 / plot,
                xanchor="left",
                yanchor="top",
                showactive=False,
                pad=dict(t=0, r=0, b=0, l=0),
                buttons=[
                    dict(label="▶ " + t("train.play", lang), method="animate", args=[None, playing]),
                    dict(label="❚❚ " + t("train.pause", lang), method="animate", args=[[None], still]),
                ],
            )
        ],
        sliders=[
            dict(
                active=start,
                x=0,
                len=1,
                y=-slider_at / plot,
                xanchor="left",
                yanchor="top",
                pad=dict(t=0, r=0, b=0, l=0),
                currentvalue=dict(prefix=t("train.frames_slider", lang), xanchor="right", offset=4),
                steps=[
                    dict(label=n if k % label_every == 0 else "", method="animate", args=[[n], still])
                    for k, n in enumerate(names)
                ],
            )
        ],
    )
    layout["margin"].update(t=top, b=bottom)
    if len(names) < 2:  # one snapshot (a run that diverged at once): nothing to play, no buttons that do nothing
        del layout["updatemenus"], layout["sliders"]
        return go.Figure(data=[heat], layout=layout)
    figure_frames = [go.Frame(name=n, data=[cells(k)], traces=[0]) for k, n in enumerate(names)]
    return go.Figure(data=[heat], layout=layout, frames=figure_frames)


def frames_table(fit: Fit, head: int, lang: str) -> pd.DataFrame:
    """Every snapshot's map of one head, one row per (step, query word)."""
    maps = fit.attention_frames[:, 0, head]  # [n_frames, T, T]
    words = [f"{w} ({i + 1})" for i, w in enumerate(fit.frame_words)]
    n_frames, T, _ = maps.shape
    table = pd.DataFrame(maps.reshape(n_frames * T, T), columns=words)
    table.insert(0, t("train.query", lang), words * n_frames)
    table.index = pd.Index(np.repeat(fit.frame_steps, T), name=t("train.step", lang))
    return table


# --- a typed sentence -------------------------------------------------------------------------------


def tag_name(tag: str | None, lang: str) -> str | None:
    """A tag's full name ("PRON" -> "pronoun"), None for an unknown word's missing tag."""
    return None if tag is None else TAG_NAMES.text(tag, lang)


def tag_legend(task: Task, lang: str) -> str:
    """Markdown naming each of the task's tags in words, with example words of the corpus: the
    short tags (PRON, DET, ...) stand on the bars and in the table unexplained otherwise."""
    items = [
        t(
            "train.tag_item",
            lang,
            tag=tag,
            name=tag_name(tag, lang),
            examples=t("train.tag_examples_sep", lang).join(t("train.tag_example", lang, word=w) for w in words),
        )
        for tag, words in zip(task.tags, tag_examples(task), strict=True)
    ]
    return t("train.tag_legend", lang, items=" · ".join(items))


def tags(prediction: Prediction, lang: str) -> go.Figure:
    """Each word's predicted tag (the bar's text; the hover names it in words) and how sure the
    model is (its height)."""
    n = len(prediction.words)
    ticks = list(range(n))
    labels = [safe_label(w) for w in prediction.words]
    unknown = t("train.unknown_tag", lang)
    shown = [tag if tag is not None else unknown for tag in prediction.tags]
    hover = [
        f"{label}: {t('train.tag_hover', lang, tag=tag, name=tag_name(tag, lang))}"
        if tag is not None
        else f"{label}: {unknown}"
        for label, tag in zip(labels, prediction.tags, strict=True)
    ]
    colours = [QUALITATIVE[0] if known else "rgba(150,150,150,0.6)" for known in prediction.known]
    bar = go.Bar(
        x=ticks,
        y=100 * np.asarray(prediction.confidence, dtype=np.float32),
        text=shown,
        textposition="outside",
        cliponaxis=False,
        marker_color=colours,
        hovertext=hover,
        hovertemplate="%{hovertext} (%{y:.1f}%)<extra></extra>",
    )
    layout = layout_dict(
        title=t("train.tags_title", lang),
        height=320,
        xaxis=dict(
            tickmode="array",
            tickvals=ticks,
            ticktext=labels,
            tickangle=0 if n <= WORDS_LEVEL else -60,  # a long sentence's words slanted
            title=t("train.word", lang),
        ),
        yaxis=dict(title=t("train.confidence", lang), range=[0, 115]),
    )
    title_below_toolbar(layout)
    return go.Figure(data=[bar], layout=layout)


def tags_table(prediction: Prediction, lang: str) -> pd.DataFrame:
    unknown = t("train.unknown_tag", lang)
    return pd.DataFrame(
        {
            t("train.word", lang): list(prediction.words),
            t("train.tag", lang): [tag if tag is not None else unknown for tag in prediction.tags],
            t("train.tag_meaning", lang): [tag_name(tag, lang) for tag in prediction.tags],  # None: shown as missing
            t("train.confidence", lang): 100 * np.asarray(prediction.confidence),
        },
        index=pd.Index(np.arange(1, len(prediction.words) + 1), name=t("train.position", lang)),
    )


# --- comparisons ------------------------------------------------------------------------------------


def row_name(row: ComparisonRow, kind: str, lang: str) -> str:
    """A comparison's row in words: the model, the positional encoding or the scaling it changes."""
    if kind == "models":
        return MODEL_NAMES.text(row.config.model, lang, w=row.config.window)
    if kind == "positions":
        return POSITION_NAMES.text(row.config.positional, lang)
    return SCALE_NAMES.text(row.config.scale, lang)


def comparison(comp: Comparison, kind: str, ceiling: float, lang: str) -> go.Figure:
    """Accuracy on the words that need context (or order) and on every test word, per row, with
    the per-word ceiling as a dashed line."""
    names = [row_name(r, kind, lang) for r in comp.rows]
    ticks = list(range(len(names)))
    data = [
        go.Bar(
            x=ticks,
            y=[100 * getattr(r, field) for r in comp.rows],
            name=COLUMN_NAMES.text(field, lang),
            marker_color=colour,
            texttemplate="%{y:.1f}%",
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y:.1f}%<extra></extra>",
        )
        for field, colour in (("ambiguous_accuracy", COLOUR["ambiguous"]), ("test_accuracy", COLOUR["test"]))
    ]
    # The ceiling: a dashed line named in the legend (a label on the line would sit on the bars).
    data.append(
        go.Scatter(
            x=[-0.5, len(names) - 0.5],
            y=[100 * ceiling] * 2,
            mode="lines",
            name=CEILING_NAMES.text(kind, lang, p=f"{100 * ceiling:.0f}"),
            hoverinfo="skip",
            line=dict(color="rgba(90,90,90,0.9)", dash="dash", width=2),
        )
    )
    layout = layout_dict(
        title=t(TITLES[kind], lang),
        height=HEIGHT,
        barmode="group",
        legend=LEGEND,
        xaxis=dict(tickmode="array", tickvals=ticks, ticktext=names, tickangle=0, range=[-0.5, len(names) - 0.5]),
        yaxis=dict(title=t("train.accuracy", lang), range=[0, 112]),
    )
    title_below_toolbar(layout)
    layout["margin"]["b"] = 70
    return go.Figure(data=data, layout=layout)


def comparison_table(comp: Comparison, kind: str, lang: str) -> pd.DataFrame:
    """Per row: the two accuracies in percent with the figure's one decimal, the final loss with four."""
    return pd.DataFrame(
        {
            t("train.col_ambiguous_accuracy", lang): [round(100 * r.ambiguous_accuracy, 1) for r in comp.rows],
            t("train.col_test_accuracy", lang): [round(100 * r.test_accuracy, 1) for r in comp.rows],
            t("train.col_final_loss", lang): [round(r.final_loss, 4) for r in comp.rows],
            t("train.col_steps_run", lang): [str(r.fit.steps_run) for r in comp.rows],  # a count: no decimals
            t("train.col_diverged", lang): [YES.text(str(r.diverged), lang) for r in comp.rows],
        },
        index=pd.Index([row_name(r, kind, lang) for r in comp.rows], name=t(ROW_NAMES[kind], lang)),
    )


def scaling(comp: Comparison, lang: str) -> go.Figure:
    """The three scalings' learning curves side by side: the loss (log axis) and the accuracy on
    the ambiguous words."""
    data = []
    for row, colour in zip(comp.rows, ROW_COLOUR, strict=False):
        name, fit = row_name(row, "scaling", lang), row.fit
        data.append(
            go.Scatter(
                x=np.arange(len(fit.losses)),
                y=np.asarray(fit.losses, dtype=np.float32),
                name=name,
                mode="lines",
                line=dict(color=colour, width=2),
                legendgroup=name,
                hovertemplate=f"{name} %{{x}}: %{{y:.4f}}<extra></extra>",
            )
        )
        data.append(
            go.Scatter(
                x=fit.eval_steps,
                y=100 * fit.ambiguous_accuracy_curve,
                name=name,
                xaxis="x2",
                yaxis="y2",
                mode="lines+markers",
                line=dict(color=colour, width=2),
                marker=dict(size=5),
                legendgroup=name,
                showlegend=False,
                hovertemplate=f"{name} %{{x}}: %{{y:.1f}}%<extra></extra>",
            )
        )
    layout = _two_panels(
        t("train.scaling_title", lang, lr=f"{comp.learning_rate:g}"),
        t("train.curve_loss", lang),
        t("train.curve_ambiguous", lang),
        comp.steps,
        lang,
        yaxis=dict(type="log", dtick=1),  # a label at each power of ten only: 0.01, 0.1, 1
        yaxis2=dict(range=[0, 102], anchor="x2"),
    )
    return go.Figure(data=data, layout=layout)


def scaling_table(comp: Comparison, lang: str) -> pd.DataFrame:
    """One row per measure, one column per scaling: the loss at a few steps (four decimals), the
    end's accuracy (%, one), the first step with >= 90% on the ambiguous words, and the mean entropy
    of the attention rows at the start and the end (nats, three). Measures down the side and the
    three scalings across, so the table fits a phone's width (ten columns were cut at the right
    edge, "First ste..."). Each cell written as the figure and the text read it."""
    columns = {}
    for row in comp.rows:
        fit = row.fit
        entropy = attention_entropy(fit.attention_frames)  # [n_frames]
        first = first_step_at(fit.eval_steps, fit.ambiguous_accuracy_curve, 0.9)
        columns[row_name(row, "scaling", lang)] = {
            **{
                t("train.col_loss_at", lang, step=s): (f"{fit.losses[s - 1]:.4f}" if s <= len(fit.losses) else None)
                for s in SCALING_STEPS
                if s <= comp.steps
            },
            t("train.col_ambiguous_accuracy", lang): f"{100 * row.ambiguous_accuracy:.1f}",
            t("train.col_first_90", lang): None if first is None else str(first),
            t("train.col_entropy_start", lang): f"{entropy[0]:.3f}",
            t("train.col_entropy_end", lang): f"{entropy[-1]:.3f}",
        }
    table = pd.DataFrame(columns)
    table.index.name = t("train.measure", lang)
    table.columns.name = t("train.scaling_row", lang)
    return table


def scale_formula(lang: str) -> str:
    """The scaling comparison's formula: the three factors c its runs multiply the scores by."""
    either = rf"\ \text{{{t('train.or', lang)}}}\ "
    return rf"A = \mathrm{{softmax}}(c\,Q K^\top), \quad c = 1/\sqrt{{d_k}}{either}1/d_k{either}1"


# --- words around a run: its numbers, how it ended ------------------------------------------------


def run_values(fit: Fit) -> dict[str, str]:
    """A finished run's numbers as the alt text and the reading say them."""
    return dict(
        amb=f"{100 * fit.ambiguous_accuracy:.1f}",
        steps=str(fit.steps_run),
        test=f"{100 * fit.test_accuracy:.1f}",
        loss=f"{fit.final_loss:.4f}",
        seconds=f"{fit.seconds:.1f}",
    )


def ending_words(fit: Fit, rates: tuple[float, ...], lang: str) -> tuple[str, str] | None:
    """("error" | "warning", words) for a run that diverged or was stopped, None for one that ran
    to the end. A diverged run's suggestion is a rate the slider offers, ten times smaller at least."""
    if fit.diverged:
        smaller = max((r for r in rates if r <= fit.learning_rate / 10), default=rates[0])
        words = DIVERGED.text(
            fit.divergence,
            lang,
            at=fit.diverged_at,
            lr=f"{fit.learning_rate:g}",
            shown=fit.steps_run,
            smaller=f"{smaller:g}",
        )
        return "error", words
    if fit.stopped:
        return "warning", t("train.stopped", lang, k=fit.steps_run, n=fit.steps)
    return None
