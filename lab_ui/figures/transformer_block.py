"""Figures and words of the whole-layer page (pages/transformer_block.py): one block's arrays as
heatmaps, a token's path through the six blocks, raw attention against rollout, and the heads
switched off one by one against how peaked they look. What is drawn; lab_ui.layout says where.
Every number written here was computed by attention_core.transformer_layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention_core.transformer_layer import (
    AblationResult,
    RankingAgreement,
    RolloutView,
    Stage,
    TokenPaths,
)
from lab_ui.figures.common import DIVERGING_WARM, QUALITATIVE, SEQUENTIAL, heatmap, safe_label
from lab_ui.i18n import literal, t
from lab_ui.layout import layout_dict
from lab_ui.state import labels

COLUMNS = 48  # columns of a [T, d] array drawn: 384 or 1536 cells a row would be a grey blur
STAGE_NAMES = labels(
    "transformer_block.stage_",
    "word",
    "position",
    "segment",
    "embedding_sum",
    "embedding",
    "input",
    "q",
    "k",
    "v",
    "weights",
    "heads",
    "concat",
    "attention",
    "residual_1",
    "norm_1",
    "ff_hidden",
    "ff_activation",
    "ff_output",
    "residual_2",
    "output",
)
STAGE_NAMES_ORDER = tuple(STAGE_NAMES)
MODES = labels("transformer_block.mode_", "zero", "uniform")  # how a head is switched off (pretrained.ABLATIONS)
# Each array's shape in the formula's names, as the reading writes it beside the numbers
SYMBOLIC = {
    "segment": "d_model",
    **dict.fromkeys(("q", "k", "v", "heads"), "h, T, d_head"),
    "weights": "h, T, T",
    **dict.fromkeys(("ff_hidden", "ff_activation"), "T, d_ff"),
}
PER_HEAD = ("q", "k", "v", "weights", "heads")  # drawn one head at a time
# The chain the reading writes out, one arrow per array the block hands on
CHAIN = ("input", "q", "weights", "heads", "concat", "attention", "norm_1", "ff_hidden", "ff_output", "output")
# Formula of each group of stages (KaTeX), beside the functions that compute it (the page names them)
EMBED_TEX = (
    r"\begin{aligned} e_t &= W_{\text{word}}[\text{id}_t] \\ &\quad + P[t] + S_A \\ "
    r"x^{(1)}_t &= \mathrm{LN}(e_t) \end{aligned}"
)
ATTENTION_TEX = (
    r"\begin{aligned} Q &= xW_q + b_q \\ K &= xW_k + b_k \\ V &= xW_v + b_v \\ "
    r"A_i &= \mathrm{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_{head}}}\right) \\ "
    r"c &= [A_1V_1;\dots;A_hV_h] \\ a &= c\,W_o + b_o \end{aligned}"
)
NORM_TEX = (
    r"\begin{aligned} h &= \mathrm{LN}(x + a) \\ "
    r"\mathrm{LN}(z) &= \gamma \odot \frac{z - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta \end{aligned}"
)
FFN_TEX = (
    r"\begin{aligned} f &= \mathrm{GELU}(hW_1 + b_1)\,W_2 \\ &\quad + b_2 \\ "
    r"\mathrm{GELU}(u) &= u\,\Phi(u) \end{aligned}"
)
OUT_TEX = r"x^{(l+1)} = \mathrm{LN}(h + f)"
BLOCK_TEX = (
    r"\begin{aligned} a &= \mathrm{MultiHead}(x) \\ h &= \mathrm{LN}(x + a) \\ "
    r"f &= \mathrm{FFN}(h) \\ x^{(l+1)} &= \mathrm{LN}(h + f) \end{aligned}"
)
PATH_TEX = (
    r"\begin{aligned} &\frac{\lVert a\rVert}{\lVert x\rVert},\quad \frac{\lVert f\rVert}{\lVert h\rVert} \\ "
    r"&\cos(h, x),\; \cos(\mathrm{out}, h) \\ "
    r"&\cos(\mathrm{out}, x) = \frac{\mathrm{out}\cdot x}{\lVert \mathrm{out}\rVert\,\lVert x\rVert} \end{aligned}"
)
ROLLOUT_TEX = (
    r"\begin{aligned} \bar A_l &= \tfrac{1}{h}\textstyle\sum_i A_{l,i} \\ \tilde A_l &= r\,I + (1 - r)\,\bar A_l \\ "
    r"R_l &= \tilde A_l\,R_{l-1} \\ R_1 &= \tilde A_1 \end{aligned}"
)
ABLATION_TEX = (  # e: the sentence embedding, e_off: the same with head (l, i) off; p: how peaked
    r"\begin{aligned} \Delta_{l,i} &= 1 - \cos(e, e_{\text{off}}) \\ "
    r"p_{l,i} &= \tfrac{1}{T}\textstyle\sum_q \max_k A_{qk} \\ "
    r"\rho &= \mathrm{Spearman}(\Delta, p) \end{aligned}"
)


def token_name(position: int, tokens: Sequence[str]) -> str:
    """A piece as the page names it in Markdown: its text, literal, and its position from 1."""
    return f"{literal(tokens[position])} ({position + 1})"


def shape_of(stage: Stage) -> str:
    """The array's shape in numbers, as written beside its symbols: [12, 16, 32]."""
    return "[" + ", ".join(str(n) for n in stage.array.shape) + "]"


def symbols_of(stage: Stage) -> str:
    return "[" + SYMBOLIC.get(stage.name, "T, d_model") + "]"


def stage_group(name: str) -> str:
    """Which part of the block computes a stage: embed, input, attention, norm, ffn or out."""
    index = STAGE_NAMES_ORDER.index(name)
    for group, last in (("embed", "embedding"), ("input", "input"), ("attention", "attention")):
        if index <= STAGE_NAMES_ORDER.index(last):
            return group
    for group, last in (("norm", "norm_1"), ("ffn", "ff_output")):
        if index <= STAGE_NAMES_ORDER.index(last):
            return group
    return "out"


FORMULAS = {"embed": EMBED_TEX, "input": BLOCK_TEX, "attention": ATTENTION_TEX, "norm": NORM_TEX}
FORMULAS |= {"ffn": FFN_TEX, "out": OUT_TEX}


# --- step 1: one layer end to end ------------------------------------------------------------------


def stage_map(stage: Stage, tokens: tuple[str, ...], head: int, layer: int, lang: str) -> go.Figure:
    """One array of the block: a row per piece, its first COLUMNS numbers (a head's, for Q, K, V,
    the weights and the heads' outputs); the weights as the head's T x T map."""
    name = STAGE_NAMES.text(stage.name, lang)
    a = stage.array
    if stage.name in PER_HEAD:
        a = a[head]  # [T, d_head] or [T, T]
    if a.ndim == 1:
        a = a[None, :]  # [1, d_model]: the segment row, added to every piece alike
    rows = [t("transformer_block.every_piece", lang)] if stage.token_axis is None else list(tokens)
    weights = stage.name == "weights"
    z = a if weights else a[:, :COLUMNS]  # [rows, <= COLUMNS] or [T, T]
    x = list(tokens) if weights else [str(j + 1) for j in range(z.shape[1])]
    where = t("transformer_block.map_head", lang, head=head + 1) if stage.name in PER_HEAD else ""
    title = t("transformer_block.map_title", lang, name=name, layer=layer, where=where, shape=shape_of(stage))
    span = float(np.abs(z).max()) or 1.0
    fig = heatmap(
        z,
        x,
        rows,
        x_title=t("transformer_block.map_keys" if weights else "transformer_block.map_columns", lang, n=a.shape[1]),
        y_title=t("transformer_block.map_rows", lang),
        value_name=t("transformer_block.map_value", lang),
        title=title,
        colorscale=SEQUENTIAL if weights else DIVERGING_WARM,
        zmin=0.0 if weights else -span,
        zmax=None if weights else span,
        show_values=False,
        height=min(620, 160 + 16 * len(rows)),
    )
    if weights:
        fig.update_xaxes(tickangle=-60, side="bottom")
    else:  # every 8th column named: 48 numbers side by side ran into one another
        ticks = list(range(0, z.shape[1], 8))
        fig.update_xaxes(tickangle=0, side="bottom", tickvals=ticks, ticktext=[str(j + 1) for j in ticks])
    return fig


def chain_text(stages: Sequence[Stage], lang: str) -> str:
    """x [16, 384] → Q [12, 16, 32] → ...: the block's arrays in order with their shapes."""
    by_name = {s.name: s for s in stages}
    steps = [f"{STAGE_NAMES.text(n, lang)} {shape_of(by_name[n])}" for n in CHAIN]
    return " → ".join(steps)


def stage_words(stages: Sequence[Stage], name: str, token: int, tokens: Sequence[str], lang: str) -> str:
    """The chosen array read in numbers: its shape in symbols and in numbers, its mean and spread,
    the followed piece's norm there, and the norms of the stream before and after the block."""
    s = {x.name: x for x in stages}
    stage = s[name]
    return t(
        "transformer_block.stage_reading",
        lang,
        name=STAGE_NAMES.text(name, lang),
        symbols=symbols_of(stage),
        shape=shape_of(stage),
        mean=f"{stage.mean:.3f}",
        std=f"{stage.std:.3f}",
        token=token_name(token, tokens),
        norm=f"{stage.token_norms[token]:.2f}",
        x=f"{s['input'].token_norms[token]:.2f}",
        a=f"{s['attention'].token_norms[token]:.2f}",
        f=f"{s['ff_output'].token_norms[token]:.2f}",
        out=f"{s['output'].token_norms[token]:.2f}",
    )


def stages_table(stages: Sequence[Stage], token: int, tokens: Sequence[str], lang: str) -> pd.DataFrame:
    piece = f"{tokens[token]} ({token + 1})"
    return pd.DataFrame(
        {
            t("transformer_block.col_stage", lang): [STAGE_NAMES.text(s.name, lang) for s in stages],
            t("transformer_block.col_symbols", lang): [symbols_of(s) for s in stages],
            t("transformer_block.col_shape", lang): [shape_of(s) for s in stages],
            t("transformer_block.col_mean", lang): [s.mean for s in stages],
            t("transformer_block.col_std", lang): [s.std for s in stages],
            t("transformer_block.col_norm", lang, token=piece): [float(s.token_norms[token]) for s in stages],
        }
    )


# --- step 2: one token through all six blocks -------------------------------------------------------


def update_bars(paths: TokenPaths, token: int, lang: str) -> go.Figure:
    """Per block: how big each sublayer's update is against the stream it is added to."""
    layers = list(range(1, paths.attention_ratio.shape[0] + 1))
    rows = (
        (t("transformer_block.bar_attention", lang), paths.attention_ratio[:, token], QUALITATIVE[0]),
        (t("transformer_block.bar_ffn", lang), paths.ffn_ratio[:, token], QUALITATIVE[1]),
    )
    data = [
        go.Bar(
            x=layers,
            y=np.asarray(y, dtype=np.float32),
            name=name,
            marker_color=colour,
            text=[f"{v:.2f}" for v in y],
            textposition="auto",
            hovertemplate=f"{name}<br>%{{x}}: %{{y:.4f}}<extra></extra>",
        )
        for name, y, colour in rows
    ]
    layout = layout_dict(
        title=t("transformer_block.bars_title", lang),
        height=340,
        barmode="group",
        xaxis=dict(title=t("transformer_block.axis_layer", lang), tickmode="array", tickvals=layers, tickangle=0),
        yaxis=dict(title=t("transformer_block.axis_ratio", lang), rangemode="tozero"),
        legend=dict(orientation="h", y=-0.3),
    )
    return go.Figure(data=data, layout=layout)


def cosine_lines(paths: TokenPaths, token: int, lang: str) -> go.Figure:
    """Per block: the cosine of the piece's vector after each step with the vector before it."""
    layers = list(range(1, paths.cosine_to_input.shape[0] + 1))
    rows = (
        (t("transformer_block.line_attention", lang), paths.cosine_after_attention[:, token], QUALITATIVE[0], "dot"),
        (t("transformer_block.line_ffn", lang), paths.cosine_after_ffn[:, token], QUALITATIVE[1], "dash"),
        (t("transformer_block.line_block", lang), paths.cosine_to_input[:, token], QUALITATIVE[2], "solid"),
    )
    data = [
        go.Scatter(
            x=layers,
            y=np.asarray(y, dtype=np.float32),
            name=name,
            mode="lines+markers",
            line=dict(color=colour, dash=dash, width=2.5),
            hovertemplate=f"{name}<br>%{{x}}: %{{y:.4f}}<extra></extra>",
        )
        for name, y, colour, dash in rows
    ]
    layout = layout_dict(
        title=t("transformer_block.lines_title", lang),
        height=340,
        xaxis=dict(title=t("transformer_block.axis_layer", lang), tickmode="array", tickvals=layers, tickangle=0),
        yaxis=dict(title=t("transformer_block.axis_cosine", lang), range=[-0.05, 1.05]),
        legend=dict(orientation="h", y=-0.3),
    )
    return go.Figure(data=data, layout=layout)


def neighbour_text(paths: TokenPaths, state: int, token: int, tokens: Sequence[str], lang: str) -> str:
    """'animal (3) 0.81, street (8) 0.64 (the same piece)': hidden state `state`'s nearest others."""
    parts = []
    for j, cos, same in zip(
        paths.neighbours[state, token], paths.neighbour_cosines[state, token], paths.neighbour_same_piece[state, token],
        strict=True,
    ):  # fmt: skip
        mark = t("transformer_block.same_piece", lang) if same else ""
        parts.append(f"{token_name(int(j), tokens)} {cos:.2f}{mark}")
    return ", ".join(parts)


def path_words(paths: TokenPaths, token: int, tokens: Sequence[str], lang: str) -> str:
    """Where the piece's vector changes most, and its nearest other pieces before and after."""
    a, f = paths.attention_ratio[:, token], paths.ffn_ratio[:, token]
    la, lf = int(np.argmax(a)), int(np.argmax(f))
    last = paths.neighbours.shape[0] - 1
    return t(
        "transformer_block.path_reading",
        lang,
        token=token_name(token, tokens),
        la=la + 1,
        ra=f"{a[la]:.2f}",
        lf=lf + 1,
        rf=f"{f[lf]:.2f}",
        first=neighbour_text(paths, 0, token, tokens, lang),
        last=neighbour_text(paths, last, token, tokens, lang),
        cos=f"{paths.cosine_to_input[:, token].min():.2f}",
        lc=int(np.argmin(paths.cosine_to_input[:, token])) + 1,
    )


def path_table(paths: TokenPaths, token: int, tokens: Sequence[str], lang: str) -> pd.DataFrame:
    L = paths.attention_ratio.shape[0]
    df = pd.DataFrame(
        {
            t("transformer_block.axis_layer", lang): range(1, L + 1),
            "|x|": paths.stream_norms[:-1, token],
            "|a|": paths.attention_update_norms[:, token],
            "|a| / |x|": paths.attention_ratio[:, token],
            "|h|": paths.ffn_stream_norms[:, token],
            "|f|": paths.ffn_update_norms[:, token],
            "|f| / |h|": paths.ffn_ratio[:, token],
            "cos(h, x)": paths.cosine_after_attention[:, token],
            "cos(out, h)": paths.cosine_after_ffn[:, token],
            "cos(out, x)": paths.cosine_to_input[:, token],
            t("transformer_block.col_nearest", lang): [
                neighbour_text(paths, layer, token, tokens, lang).replace("\\", "") for layer in range(1, L + 1)
            ],
        }
    )
    return df.astype({c: "float64" for c in df.columns[1:-1]})


# --- step 3: raw attention against rollout ----------------------------------------------------------


def rollout_map(view: RolloutView, token: int, lang: str) -> go.Figure:
    """The piece's row in every block: raw (heads averaged) above, rollout below, a gap between."""
    r = view.rollout
    L, T = r.raw.shape[0], r.raw.shape[-1]
    gap = np.full((1, T), np.nan)  # [1, T]
    z = np.vstack([r.raw[:, token], gap, r.rollout[:, token]])  # [2L + 1, T]
    raw_name, roll_name = t("transformer_block.row_raw", lang), t("transformer_block.row_rollout", lang)
    rows = (
        [f"{raw_name} {layer}" for layer in range(1, L + 1)]
        + ["—"]  # the gap between the two maps
        + [f"{roll_name} {layer}" for layer in range(1, L + 1)]
    )
    fig = heatmap(
        z,
        list(view.pieces.tokens),
        rows,
        x_title=t("transformer_block.map_keys", lang, n=T),
        y_title=t("transformer_block.rollout_rows", lang),
        value_name=t("transformer_block.rollout_value", lang),
        title=t("transformer_block.rollout_title", lang, token=safe_label(view.pieces.tokens[token]), n=token + 1),
        zmin=0.0,
        show_values=False,
        height=460,
    )
    fig.update_xaxes(tickangle=-60 if T > 8 else 0, side="bottom")
    return fig


def rollout_words(view: RolloutView, token: int, lang: str) -> str:
    r, tokens = view.rollout, view.pieces.tokens
    raw, rolled = r.raw[-1, token], r.rollout[-1, token]  # [T] x2: the last block
    j_raw, j_roll = int(np.argmax(raw)), int(np.argmax(rolled))
    return t(
        "transformer_block.rollout_reading",
        lang,
        token=token_name(token, tokens),
        L=r.raw.shape[0],
        raw=token_name(j_raw, tokens),
        w=f"{raw[j_raw]:.2f}",
        roll=token_name(j_roll, tokens),
        r=f"{rolled[j_roll]:.2f}",
        own=f"{rolled[token]:.2f}",
        own_raw=f"{raw[token]:.2f}",
    )


def rollout_table(view: RolloutView, token: int, lang: str) -> pd.DataFrame:
    r, tokens = view.rollout, view.pieces.tokens
    out = {t("transformer_block.map_rows", lang): [f"{p} ({j + 1})" for j, p in enumerate(tokens)]}
    for layer in range(r.raw.shape[0]):
        out[f"{t('transformer_block.row_raw', lang)} {layer + 1}"] = r.raw[layer, token].astype(np.float64)
        out[f"{t('transformer_block.row_rollout', lang)} {layer + 1}"] = r.rollout[layer, token].astype(np.float64)
    return pd.DataFrame(out)


# --- step 4: is attention an explanation? -----------------------------------------------------------


def ablation_scatter(result: AblationResult, selected: tuple[int, int], lang: str) -> go.Figure:
    """Every head a point: how peaked its map is (x) against how far switching it off moves the
    sentence embedding (y, log scale); a colour per block, the chosen head ringed."""
    L, H = result.embedding_shift.shape
    data = []
    for layer in range(L):
        heads = np.arange(H)
        data.append(
            go.Scatter(
                x=np.asarray(result.mean_max_weight[layer], dtype=np.float32),
                y=np.maximum(result.embedding_shift[layer], 1e-9).astype(np.float32),
                mode="markers",
                name=t("transformer_block.legend_layer", lang, layer=layer + 1),
                marker=dict(size=9, color=QUALITATIVE[layer % len(QUALITATIVE)]),
                customdata=np.stack([heads + 1, result.effect_rank[layer], result.peak_rank[layer]], axis=-1),
                hovertemplate=t("transformer_block.scatter_hover", lang, layer=layer + 1) + "<extra></extra>",
            )
        )
    layer, head = selected
    data.append(
        go.Scatter(
            x=[float(result.mean_max_weight[layer, head])],
            y=[max(float(result.embedding_shift[layer, head]), 1e-9)],
            mode="markers",
            name=t("transformer_block.legend_chosen", lang, layer=layer + 1, head=head + 1),
            marker=dict(size=20, color="rgba(0,0,0,0)", line=dict(width=3, color=QUALITATIVE[7])),
            hoverinfo="skip",
        )
    )
    layout = layout_dict(
        title=t("transformer_block.scatter_title", lang, mode=MODES.text(result.mode, lang)),
        height=420,
        xaxis=dict(title=t("transformer_block.axis_peak", lang), tickangle=0),
        yaxis=dict(title=t("transformer_block.axis_shift", lang), type="log", exponentformat="power"),
        legend=dict(orientation="h", y=-0.25),
    )
    return go.Figure(data=data, layout=layout)


def head_name(head: tuple[int, int]) -> str:
    """L6 H12: a head of the model, from 1, as the legend names it (6.12 read as a decimal)."""
    return f"L{head[0] + 1} H{head[1] + 1}"


def chosen_words(result: AblationResult, selected: tuple[int, int], lang: str) -> str:
    """What switching the chosen head off did, in numbers."""
    layer, head = selected
    total = result.embedding_shift.size
    words = t(
        "transformer_block.chosen_reading",
        lang,
        head=head_name(selected),
        mode=MODES.text(result.mode, lang),
        shift=f"{result.embedding_shift[layer, head]:.2e}",
        cos=f"{1.0 - result.embedding_shift[layer, head]:.6f}",
        rank=int(result.effect_rank[layer, head]),
        peak=f"{result.mean_max_weight[layer, head]:.2f}",
        peak_rank=int(result.peak_rank[layer, head]),
        total=total,
    )
    if result.similarity is not None:
        words += " " + t(
            "transformer_block.pair_reading",
            lang,
            before=f"{result.similarity:.4f}",
            after=f"{result.ablated_similarity[layer, head]:.4f}",
            change=f"{result.similarity_shift[layer, head]:+.4f}",
        )
    return words


def agreement_words(agreement: RankingAgreement, result: AblationResult, lang: str) -> str:
    """The two rankings set side by side, and the verdict the numbers give, for this model and text."""
    rho = "—" if agreement.spearman is None else f"{agreement.spearman:+.2f}"
    verdict = {
        "agree": "transformer_block.verdict_agree",
        "opposite": "transformer_block.verdict_opposite",
        "unrelated": "transformer_block.verdict_unrelated",
        "none": "transformer_block.verdict_none",
    }[agreement.verdict]
    sim = result.similarity_spearman_max_weight
    return t(
        "transformer_block.agreement_reading",
        lang,
        k=agreement.k,
        effect=", ".join(head_name(h) for h in agreement.top_effect),
        peaked=", ".join(head_name(h) for h in agreement.top_peaked),
        n_shared=len(agreement.shared),
        ranks=", ".join(str(r) for r in agreement.effect_rank_of_peaked),
        rho=rho,
        sim_rho="—" if sim is None else f"{sim:+.2f}",
        verdict=t(verdict, lang),
        total=result.embedding_shift.size,
    )


def ablation_table(result: AblationResult, lang: str) -> pd.DataFrame:
    L, H = result.embedding_shift.shape
    out = {
        t("transformer_block.axis_layer", lang): np.repeat(np.arange(1, L + 1), H),
        t("transformer_block.col_head", lang): np.tile(np.arange(1, H + 1), L),
        t("transformer_block.axis_shift", lang): result.embedding_shift.ravel().astype(np.float64),
        t("transformer_block.col_effect_rank", lang): result.effect_rank.ravel(),
        t("transformer_block.axis_peak", lang): result.mean_max_weight.ravel(),
        t("transformer_block.col_peak_rank", lang): result.peak_rank.ravel(),
        t("transformer_block.col_entropy", lang): result.mean_entropy.ravel(),
    }
    if result.ablated_similarity is not None:
        out[t("transformer_block.col_pair", lang)] = result.ablated_similarity.ravel().astype(np.float64)
    return pd.DataFrame(out)
