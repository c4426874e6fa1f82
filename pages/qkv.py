"""Q, K, V step by step (查询、键、值): the seeds' walkthrough of self-attention for one output b_i,
with the real numbers and the shape of every matrix, then the same in matrix form, then the
additive (tanh) scoring beside the dot product. A sequence of steps: in lecture mode one at a time."""

import numpy as np
import pandas as pd
import streamlit as st

from attention_core import additive_attention_scores, scaled_dot_product_attention
from attention_core.steps import project, qkv_walkthrough, query_step, sentence_matrix, walkthrough_weights
from lab_ui import controls, widgets
from lab_ui.figures import qkv as fq
from lab_ui.i18n import current_lang, t
from lab_ui.lecture import is_lecture, stepper

DEFAULT_TEXT = "I saw a saw"  # seed 001's own example: two "saw"s, one word, two meanings
MAX_TOKENS = 16
D_MAX = 8
W_NAMES = ("wq", "wk", "wv")
W_TEX = {"wq": "W_q", "wk": "W_k", "wv": "W_v"}
# The steps in page order. "check" comes right after Q and K are shown and before the steps that
# work its score out; a step's number (heading, lecture stepper, qkv_step in a link) is its place here.
STEPS = ("tokens", "weights", "qkv", "check", "scores", "softmax", "output", "matrix", "additive")
STEP = {name: n for n, name in enumerate(STEPS, start=1)}
SQUARE_MAX = 8  # up to 8 tokens a T × T matrix is printed (if it fits); beyond, A' is drawn as a heatmap
DEFAULT_SEED = 3  # with this seed, token 1 of the default sentence attends clearly to one key


PRESETS = {
    "seeds": {"qkv_text": DEFAULT_TEXT, "qkv_dm": 3, "qkv_dk": 2, "qkv_seed": DEFAULT_SEED, "qkv_w": "random",
              "qkv_q": 1},
    "long": {
        "qkv_text": "the animal did not cross the street because it was too tired to walk any further",
        "qkv_dm": 8, "qkv_dk": 4, "qkv_seed": DEFAULT_SEED, "qkv_w": "random", "qkv_q": 9,
    },
    # W_q = W_k = 2·identity: a score is then (twice) the similarity of two input vectors, so each
    # query finds the keys most like itself. The two "saw"s are one vector: "saw" finds both.
    "match": {
        "qkv_text": DEFAULT_TEXT, "qkv_dm": 4, "qkv_dk": 4, "qkv_seed": 0, "qkv_w": "typed", "qkv_q": 2,
        "qkv_wq": fq.eye_matrix(4, 2.0), "qkv_wk": fq.eye_matrix(4, 2.0), "qkv_wv": fq.eye_matrix(4),
    },
    "chars": {"qkv_text": "机器学习", "qkv_dm": 4, "qkv_dk": 2, "qkv_seed": DEFAULT_SEED, "qkv_w": "random",
              "qkv_q": 1},
}  # fmt: skip


# --- one cached core call, and the figures built from it -------------------------------------------


def walkthrough(tokens: tuple[str, ...], d_model: int, d_k: int, seed: int, typed: str, i: int):
    w_q, w_k, w_v, w_add = walkthrough_weights(d_model, d_k, seed)
    if typed:
        w_q, w_k, w_v = (np.array(fq.parse_matrix([m])) for m in typed.split("|"))  # [d_model, d_k] each
    return qkv_walkthrough(sentence_matrix(list(tokens), d_model, seed), w_q, w_k, w_v, i, w_add)


def build_figures(tokens: tuple[str, ...], d_model: int, d_k: int, seed: int, typed: str, i: int, lang: str):
    names = ("key", "query", "value", "component", "alpha", "scaled", "weight", "dot", "additive")
    keys = ("key_axis", "query_axis", "value_axis", "component_axis", "bar_alpha", "bar_scaled", "bar_weight",
            "dot_map", "add_map")  # fmt: skip
    text = {name: t(f"qkv.{key}", lang) for name, key in zip(names, keys, strict=True)}
    return fq.page_figures(compute(tokens, d_model, d_k, seed, typed, i), tokens, i, text)


# Both caches hold shared objects (cache_resource): nothing is modified after it is built, and a
# Plotly figure costs far more to build than to send. Their keys are a few short values, cheap to
# hash on every rerun; typed weights arrive as their link text ("" when the weights are random).
# Each cached function is one line: Streamlit reads its source on every rerun to key the cache.
@st.cache_resource(show_spinner=False, max_entries=256)
def compute(*args):
    return walkthrough(*args)


@st.cache_resource(show_spinner=False, max_entries=256)
def figures_for(*args):
    return build_figures(*args)


def typed_weights(source: str, random: tuple[np.ndarray, ...], d_model: int, d_k: int) -> str:
    """The grids for typing W_q, W_k, W_v, kept in the link; returns the typed matrices as link text
    ("" when the random weights are used)."""
    if source == "random":
        for name in W_NAMES:  # typed numbers stay in the session for a return to "typed"
            st.query_params.pop(f"qkv_{name}", None)
        return ""
    if d_model > fq.TYPED_MAX or d_k > fq.TYPED_MAX:
        st.info(t("qkv.typed_too_big", max=fq.TYPED_MAX), icon=":material/info:")
        return ""
    st.caption(t("qkv.typed_help"))
    defaults = {name: fq.link_matrix(w) for name, w in zip(W_NAMES, random, strict=True)}

    def reset() -> None:
        st.session_state.update({f"qkv_{name}": m for name, m in defaults.items()})

    texts = []
    for col, name in zip(st.columns(3), W_NAMES, strict=True):
        key = f"qkv_{name}"
        controls.restore_from_url(key, None, fq.parse_matrix)
        m = fq.fit_shape(st.session_state[key], defaults[name])
        if st.session_state.get(f"_{key}_seen") != m:  # set from outside (link, preset, resize): a fresh grid
            st.session_state[f"_{key}_ver"] = st.session_state.get(f"_{key}_ver", 0) + 1
        frame = pd.DataFrame(m, index=[str(r + 1) for r in range(d_model)], columns=[str(c + 1) for c in range(d_k)])
        limit = fq.TYPED_LIMIT
        number = st.column_config.NumberColumn(min_value=-limit, max_value=limit, step=0.01, format="%.2f")
        with col:
            st.markdown(f"${W_TEX[name]}$ · [{d_model} × {d_k}]")
            edited = st.data_editor(frame, key=f"{key}_ed{st.session_state[f'_{key}_ver']}", num_rows="fixed",
                                    column_config=dict.fromkeys(frame.columns, number))  # fmt: skip
        m = fq.link_matrix(np.nan_to_num(edited.to_numpy(dtype=np.float64), nan=0.0))  # an emptied cell counts as 0
        st.session_state[key] = st.session_state[f"_{key}_seen"] = m
        controls.publish_to_url(key, m, defaults[name], serialize=fq.matrix_to_text)
        texts.append(fq.matrix_to_text(m))
    st.button(t("qkv.reset_typed"), key="qkv_wreset", on_click=reset, icon=":material/restart_alt:")
    return "|".join(texts)


def math(tex: str) -> str:
    """Display maths inside a markdown block: one element for a step's words and formulas."""
    return f"$$\n{tex}\n$$"


def show(*blocks: str, step: str | None = None) -> None:
    """A step's heading, words and formulas as one markdown element (fewer elements, a faster
    rerun). In lecture mode the stepper's bar names the step instead of the heading."""
    if step is not None and not is_lecture():
        blocks = (f"### {STEP[step]} · {t(f'qkv.step_{step}')}", *blocks)
    if any(blocks):
        st.markdown("\n\n".join(b for b in blocks if b))


# --- text, then controls ----------------------------------------------------------------------------

widgets.page_header("qkv")
with st.expander(t("qkv.controls"), expanded=not is_lecture(), icon=":material/tune:"):  # tucked away in lecture mode
    widgets.presets(PRESETS, key="qkv_preset", format_func=lambda p: t(f"qkv.preset_{p}"))
    tokens = widgets.sentence_tokens(
        t("qkv.sentence"), DEFAULT_TEXT, key="qkv_text", max_tokens=MAX_TOKENS, help=t("qkv.sentence_help")
    )
    c1, c2, c3 = st.columns(3)
    with c1:
        d_model = controls.slider(t("qkv.d_model"), 1, D_MAX, 3, key="qkv_dm", help=t("qkv.d_model_help"))
    with c2:
        d_k = controls.slider(t("qkv.d_k"), 1, D_MAX, 2, key="qkv_dk", help=t("qkv.d_k_help"))
    with c3:
        seed = widgets.seed_input(key="qkv_seed", value=DEFAULT_SEED)
    source = controls.segmented(
        t("qkv.w_source"), ["random", "typed"], key="qkv_w", format_func=lambda s: t(f"qkv.w_{s}"),
        help=t("qkv.w_source_help", max=fq.TYPED_MAX),
    )  # fmt: skip
    typed = typed_weights(source, walkthrough_weights(d_model, d_k, seed)[:3], d_model, d_k)
    tables = controls.toggle(t("qkv.show_tables"), key="qkv_tables", help=t("qkv.show_tables_help"))

T = len(tokens)
if isinstance(st.session_state.get("qkv_q"), int) and st.session_state["qkv_q"] > T:
    st.session_state["qkv_q"] = T  # the sentence got shorter: keep the last token rather than fail
query = controls.segmented(
    t("qkv.query"), list(range(1, T + 1)), key="qkv_q", default=1,
    format_func=lambda j: f"{j} · {widgets.escape_markdown(fq.short(tokens[j - 1]))}", help=t("qkv.query_help"),
)  # fmt: skip
i = query - 1

# --- one core call ----------------------------------------------------------------------------------

try:
    r = compute(tuple(tokens), d_model, d_k, seed, typed, i)
    figs = figures_for(tuple(tokens), d_model, d_k, seed, typed, i, current_lang())
except ValueError as error:
    widgets.friendly_error(error)
    st.stop()
s = r.query
labels = fq.key_labels(tokens)
repeats = [(a, b) for a in range(T) for b in range(a + 1, T) if tokens[a] == tokens[b]]

stepper_at = stepper("qkv_step", [t(f"qkv.step_{name}") for name in STEPS])


def visible(name: str) -> bool:
    return stepper_at(STEP[name])


def unlock() -> None:
    """The button under a hidden number: the same as showing the check's answer."""
    st.session_state["qkv_check_show"] = True


def hidden(name: str) -> None:
    """Stands where a number that answers the check would be, until the check is answered."""
    st.info(t("qkv.hidden", step=STEP["check"]), icon=":material/lock:")
    st.button(t("qkv.unlock"), key=f"qkv_unlock_{name}", on_click=unlock, icon=":material/lock_open:")


# The check asks for α_{1,j} with j = 2 (1 for a one-token sentence), from q_1 and k_j shown in step 3.
check_j = min(1, T - 1)
check_answer = float(r.matrix.scores[0, check_j])
width = 630 if is_lecture() else fq.WIDTH  # lecture mode's text is 1.4x larger
a_labels, q_labels, k_labels = fq.row_labels("a", T), fq.row_labels("q", T), fq.row_labels("k", T)

# --- 1. tokens become vectors -----------------------------------------------------------------------

if visible("tokens"):
    chips = "\u2003".join(
        f"$a_{{{j + 1}}}$ = **{widgets.escape_markdown(fq.short(tok, 24))}**" for j, tok in enumerate(tokens)
    )
    show(t("qkv.tokens_body", T=T, d_model=d_model), chips,
         math(fq.matrix_tex(r.x, name="I", row_labels=a_labels, highlight_row=i)), step="tokens")  # fmt: skip
    if repeats:
        a, b = repeats[0]
        st.info(t("qkv.repeated", a=a + 1, b=b + 1, token=widgets.escape_markdown(fq.short(tokens[a], 24))),
                icon=":material/content_copy:")  # fmt: skip

# --- 2. three weight matrices -----------------------------------------------------------------------

if visible("weights"):
    parts = [fq.matrix_tex(getattr(r, f"w_{n[1]}"), name=W_TEX[n]) for n in W_NAMES]
    typed_now = source == "typed" and max(d_model, d_k) <= fq.TYPED_MAX
    note = t("qkv.weights_typed") if typed_now else t("qkv.weights_random", seed=seed)
    show(t("qkv.weights_body", d_model=d_model, d_k=d_k),
         *map(math, fq.matrices_tex(parts, [fq.matrix_px(d_k)] * 3, width)), f"*{note}*", step="weights")  # fmt: skip

# --- 3. Q, K, V -------------------------------------------------------------------------------------

if visible("qkv"):
    full = fq.product_tex([("I", r.x, a_labels), ("W_q", r.w_q, None)], ("Q", r.Q, q_labels), highlight_row=i,
                          budget=width)  # fmt: skip
    parts = [
        fq.matrix_tex(m, name=rf"{X} = I\,W_{x}", row_labels=fq.row_labels(x, T), highlight_row=i)
        for X, x, m in (("Q", "q", r.Q), ("K", "k", r.K), ("V", "v", r.V))
    ]
    show(t("qkv.qkv_body", T=T, d_model=d_model, d_k=d_k), math(full) if full else "",
         fq.lines_md([fq.entry_tex("q", i, 0, r.x[i], r.w_q[:, 0], r.Q[i, 0], "W_q")]), t("qkv.qkv_all"),
         *map(math, fq.matrices_tex(parts, [max(fq.matrix_px(d_k, True), 190)] * 3, width)), step="qkv")  # fmt: skip
    st.info(t("qkv.rows_vs_columns"), icon=":material/swap_horiz:")
    if tables:
        columns = [f"{p}[{c + 1}]" for p, n in (("a", d_model), ("q", d_k), ("k", d_k), ("v", d_k)) for c in range(n)]
        widgets.show_table(pd.DataFrame(np.hstack([r.x, r.Q, r.K, r.V]), index=labels, columns=columns),
                           key="qkv_qkv", filename="qkv_I_Q_K_V.csv", caption=t("qkv.table_qkv"))  # fmt: skip

# --- 4. check yourself, before the steps that work the score out -----------------------------------

if visible("check"):
    q1, kj = r.Q[0], r.K[check_j]
    show(step="check")
    # The shown numbers are rounded to 2 places: allow the error that rounding can cause.
    tolerance = 0.006 + 0.005 * float(np.abs(q1).sum() + np.abs(kj).sum())
    terms = " + ".join(f"({fq.num(a)})({fq.num(b)})" for a, b in zip(q1, kj, strict=True))
    solved = widgets.check_number(
        t("qkv.check_question", j=check_j + 1, q1=fq.vector_tex(q1), kj=fq.vector_tex(kj)), check_answer,
        key="qkv_check", tolerance=tolerance,
        explanation=t("qkv.check_explain", j=check_j + 1, terms=terms, answer=f"{check_answer:.4f}"),
    )  # fmt: skip
    # Scrolling on would show the answer: until it is typed right or shown, the numbers below that
    # equal it stay hidden. In lecture mode each step is on its own, so nothing below is on screen.
    locked = not is_lecture() and not solved and not st.session_state.get("qkv_check_show")
    if locked:
        st.caption(t("qkv.check_hides", j=check_j + 1))
else:
    locked = False


def spoils(values) -> bool:
    """Would these shown numbers give the check's answer away (the same dot product, whichever
    query is followed)?"""
    return locked and bool(np.isclose(values, check_answer, rtol=1e-9, atol=1e-12).any())


# --- 5. the scores of one query ---------------------------------------------------------------------

if visible("scores"):
    parts = [rf"q_{{{i + 1}}} = {fq.vector_tex(s.q_i)}", fq.matrix_tex(r.K, name="K", row_labels=k_labels)]
    sums = "" if spoils(s.alpha) else fq.lines_md(fq.dot_terms_tex(i, s.q_i, r.K, s.products, s.alpha))
    show(t("qkv.scores_body", i=i + 1, token=widgets.escape_markdown(fq.short(tokens[i], 24))),
         *map(math, fq.matrices_tex(parts, [fq.matrix_px(d_k) + 60, fq.matrix_px(d_k, True)], width)),
         sums, step="scores")  # fmt: skip
    if not sums:
        hidden("scores")
    with st.container(border=True):
        st.markdown(t("qkv.seed_mistake", d_k=d_k, k2=fq.vector_tex(r.K[check_j]), j=check_j + 1))
    if tables and sums:
        columns = [f"q{i + 1}[{c + 1}]·k[{c + 1}]" for c in range(d_k)] + [f"α{i + 1},j"]
        frame = pd.DataFrame(np.column_stack([s.products, s.alpha]), index=labels, columns=columns)
        widgets.show_table(frame, key="qkv_products", filename="qkv_products.csv", caption=t("qkv.table_products"))

# --- 6. scale, then softmax -------------------------------------------------------------------------

if visible("softmax"):
    show(t("qkv.softmax_body", d_k=d_k), math(fq.scale_tex(d_k, s.scale)), step="softmax")
    best = int(np.argmax(s.alpha_prime))
    if spoils(s.alpha):  # the chart writes each score above its bar
        hidden("softmax")
    else:
        widgets.show_figure(figs["scores"], key="qkv_scores", alt=t("qkv.alt_scores", i=i + 1, best=labels[best]))
    formula, weights = fq.softmax_tex(i, s.alpha_prime)
    show(math(formula), weights)
    if tables and not spoils(s.alpha):
        frame = pd.DataFrame(
            {"α": s.alpha, "α/√d_k": s.alpha_scaled, "exp(α/√d_k − max)": s.exp_shifted, "α'": s.alpha_prime},
            index=labels,
        )
        widgets.show_table(frame, key="qkv_softmax", filename="qkv_softmax.csv", caption=t("qkv.table_softmax"))

# --- 7. the weighted sum of the values --------------------------------------------------------------

if visible("output"):
    best = int(np.argmax(s.alpha_prime))
    show(
        t("qkv.output_body", i=i + 1),
        fq.lines_md(fq.weighted_sum_tex(i, s.alpha_prime, r.V, s.contributions, s.b_i)),
        step="output",
    )
    widgets.show_figure(figs["sum"], key="qkv_sum", alt=t("qkv.alt_sum", i=i + 1))
    if s.alpha_prime[best] < 1.5 / T:  # no key stands out: b_i is close to the plain average of the values
        st.markdown(t("qkv.even", i=i + 1, w=f"{s.alpha_prime[best]:.3f}", avg=f"{1 / T:.3f}"))
    else:
        st.markdown(t("qkv.leans", i=i + 1, j=best + 1, w=f"{s.alpha_prime[best]:.3f}",
                      token=widgets.escape_markdown(fq.short(tokens[best], 24))))  # fmt: skip
    if tables:
        index = [*(f"α'·v {lab}" for lab in labels), f"b{i + 1}"]
        columns = [f"[{c + 1}]" for c in range(d_k)]
        frame = pd.DataFrame(np.vstack([s.contributions, s.b_i]), index=index, columns=columns)
        widgets.show_table(frame, key="qkv_parts", filename="qkv_weighted_sum.csv", caption=t("qkv.table_sum"))
    widgets.formula_and_code(
        r"Q = I\,W_q \quad K = I\,W_k \\ V = I\,W_v \\[6pt] \alpha_{i,j} = q_i \cdot k_j \\[6pt]"
        r"\alpha'_{i,j} = \frac{e^{\alpha_{i,j}/\sqrt{d_k}}}{\sum_m e^{\alpha_{i,m}/\sqrt{d_k}}} \\[6pt]"
        r"b_i = \sum_j \alpha'_{i,j}\, v_j",
        project,
        query_step,
    )

# --- 8. every query at once: the matrix form ------------------------------------------------------

if visible("matrix"):
    A, A_prime, O = r.matrix.scores, r.matrix.weights, r.matrix.output  # noqa: E741 (the formula's names)
    square = T <= SQUARE_MAX and fq.matrix_px(T, True) + 110 <= width  # a T × T matrix, its row names, "A ="
    scores = fq.product_tex([("Q", r.Q, q_labels), (r"K^{\top}", r.K.T, None)], ("A", A, q_labels), highlight_row=i,
                            budget=width)  # fmt: skip
    if not scores and square:
        scores = r"A = Q K^{\top} = " + fq.matrix_tex(A, name="A", row_labels=q_labels, highlight_row=i)
    softmaxed = fq.matrix_tex(A_prime, name=r"A' = \operatorname{softmax}(A/\sqrt{d_k})", row_labels=q_labels,
                              highlight_row=i)  # fmt: skip
    b_labels = fq.row_labels("b", T)
    output = fq.product_tex([("A'", A_prime, q_labels), ("V", r.V, None)], ("O", O, b_labels), highlight_row=i,
                            budget=width) or r"O = A' V = " + fq.matrix_tex(O, name="O", row_labels=b_labels,
                                                                             highlight_row=i)  # fmt: skip
    same = bool(np.allclose(O[i], s.b_i)) and bool(np.allclose(A_prime[i], s.alpha_prime))
    agree = t("qkv.same_as_steps" if same else "qkv.not_same", i=i + 1, softmax=STEP["softmax"],
              output=STEP["output"])  # fmt: skip
    if square:
        if scores and spoils(A):  # A holds every score, the check's among them
            show(t("qkv.matrix_body", T=T, d_k=d_k), step="matrix")
            hidden("matrix")
            show(math(softmaxed), math(output), agree)
        else:
            show(t("qkv.matrix_body", T=T, d_k=d_k), math(scores) if scores else "", math(softmaxed), math(output),
                 agree, step="matrix")  # fmt: skip
    else:  # too many tokens to print a T × T matrix: draw A' instead
        show(t("qkv.matrix_body", T=T, d_k=d_k), t("qkv.too_wide", T=T), step="matrix")
        widgets.show_figure(figs["weights"], key="qkv_weights", alt=t("qkv.alt_weights", T=T, i=i + 1))
        show(math(output), agree)
    if tables or not square:
        widgets.show_table(pd.DataFrame(A_prime, index=labels, columns=labels), key="qkv_weights",
                           filename="qkv_attention_weights.csv", caption=t("qkv.table_weights"))  # fmt: skip
    if repeats:
        a, b = repeats[0]
        st.info(t("qkv.repeated_out", a=a + 1, b=b + 1), icon=":material/content_copy:")
    widgets.formula_and_code(
        r"A = Q K^{\top} \\[4pt] A' = \operatorname{softmax}\!\left(\frac{A}{\sqrt{d_k}}\right) \\[4pt] O = A' V",
        scaled_dot_product_attention,
    )

# --- 9. dot product vs additive ---------------------------------------------------------------------

if visible("additive"):
    j = check_j
    pair = rf"\alpha_{{{i + 1},{j + 1}}} = "
    dot_hidden = spoils(s.alpha[j])
    dot = pair + rf"q_{{{i + 1}}} \cdot k_{{{j + 1}}} = " + (r"\;?" if dot_hidden else fq.num(s.alpha[j], 3))
    add = pair + rf"w \cdot \tanh(q_{{{i + 1}}} + k_{{{j + 1}}}) = " + fq.num(r.additive_scores[i, j], 3)
    notes = [note.replace("|", "\\|") for note in (t("qkv.dot_note"), t("qkv.add_note"))]  # a bare "|" ends a cell
    side_by_side = "\n".join([
        f"| {t('qkv.dot_title')} | {t('qkv.add_title')} |", "|---|---|", f"| ${dot}$ | ${add}$ |",
        f"| {notes[0]} | {notes[1]} |",
    ])  # fmt: skip
    show(t("qkv.additive_body"), side_by_side, step="additive")
    if dot_hidden:
        hidden("additive")
    show(t("qkv.add_worked", i=i + 1, j=j + 1),
         math(fq.additive_tex(i, j, s.q_i, r.K[j], r.w_additive, r.additive_scores[i, j])))  # fmt: skip
    widgets.show_figure(figs["both"], key="qkv_dot_vs_add", alt=t("qkv.alt_dot_vs_add", i=i + 1))
    if tables:
        index = [f"{t(f'qkv.{m}_short')} · {lab}" for m in ("dot", "add") for lab in labels]
        both = pd.DataFrame(np.vstack([r.matrix.weights, r.additive_weights]), index=index, columns=labels)
        widgets.show_table(both, key="qkv_both", filename="qkv_dot_vs_additive.csv", caption=t("qkv.table_both"))
    widgets.formula_and_code(r"\alpha_{i,j} = w \cdot \tanh(q_i + k_j)", additive_attention_scores)
