"""Self-attention beside an RNN and a CNN: who each output can see, how strongly the first input
still reaches the last output, and how many steps must run one after another.

Row-vector convention, as in the rest of the core: a sequence is a: [T, d] (row a_t is input t)
and a projection is a @ W. Inputs are a_1..a_T and outputs b_1..b_T, as in the source articles;
an RNN's output b_t is its state h_t. Positions are 0-based in the arrays (row 0 is a_1).

What a layer costs (operations, O(T² d) against O(T d²); steps that must wait for each other; time
measured on this machine) and Table 1 of "Attention Is All You Need" live in
attention_core.sequence_costs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_core.attention import (
    _non_negative_int,
    _positive_int,
    causal_mask,
    local_mask,
    scaled_dot_product_attention,
    softmax,
)

# The layer kinds a visibility picture can show, in the order a page lists them.
KINDS = ("rnn", "birnn", "cnn", "truncated", "self_attention")

# Sizes a page may ask for: T = 512 and d = 512 still run in well under a second.
MAX_T = 4096
MAX_D = 1024
MAX_LONG_RANGE_D = 32  # the curves run a backward pass of [d, d] products per length: O(Σ T · d³)


# --- who each output can see ----------------------------------------------------------------------


@dataclass(frozen=True)
class Visibility:
    """Which inputs each output depends on, and through how many steps the dependence passes."""

    kind: str  # one of KINDS
    mask: np.ndarray  # True where output b_i depends on input a_j                [T, T] bool
    steps: np.ndarray  # sequential steps from a_j to b_i (0 where not visible)  [T, T] int
    reach: int  # how far an output sees on each side (T - 1 for "all")
    n_layers: int  # L: stacked layers (CNN and truncated attention; 1 otherwise)


def visibility(kind: str, T: int, k: int = 3, window: int = 1, n_layers: int = 1) -> Visibility:
    """Who output b_i can see, for one kind of layer over T inputs.

    rnn:            b_i = h_i sees a_1..a_i (left only); a_j reaches it through i - j + 1 steps
                    of the recurrence h_t = tanh(a_t W_xh + h_{t-1} W_hh).
    birnn:          a forward and a backward RNN side by side: every input, but a_j still passes
                    |i - j| + 1 steps of one of the two chains.
    cnn:            L layers of a centred kernel of odd width k: one layer sees (k - 1)/2 inputs
                    on each side, L layers see L·(k - 1)/2 (the receptive field grows by k - 1 a
                    layer); every path passes the L layers.
    truncated:      self-attention restricted to |i - j| <= window (local_mask), so a query sees
                    r = 2·window + 1 keys; L such layers see L·window on each side, in L steps.
    self_attention: every input, in one step.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}.")
    T = _size(T, "T", MAX_T)
    n_layers = _positive_int(n_layers, "n_layers")
    i = np.arange(T)
    distance = i[:, None] - i[None, :]  # [T, T] i - j: positive when a_j lies left of b_i
    if kind == "rnn":
        mask = causal_mask(T)  # [T, T]
        steps = np.where(mask, distance + 1, 0)  # [T, T]
        return Visibility(kind, mask, steps, reach=T - 1, n_layers=1)
    if kind == "birnn":
        mask = np.ones((T, T), dtype=bool)  # [T, T]
        return Visibility(kind, mask, np.abs(distance) + 1, reach=T - 1, n_layers=1)  # steps [T, T]
    if kind == "self_attention":
        mask = np.ones((T, T), dtype=bool)  # [T, T]
        return Visibility(kind, mask, np.ones((T, T), dtype=int), reach=T - 1, n_layers=1)  # steps [T, T]
    if kind == "cnn":
        half = kernel_half_width(k)
    else:
        half = _non_negative_int(window, "window")
    reach = min(n_layers * half, T - 1)
    mask = local_mask(T, reach)  # [T, T]
    steps = np.where(mask, n_layers, 0)  # [T, T]
    return Visibility(kind, mask, steps, reach=reach, n_layers=n_layers)


@dataclass(frozen=True)
class VisibilityComparison:
    """The five kinds of layer side by side over the same T inputs; a CNN of kernel k and
    truncated self-attention with window (k - 1)/2, i.e. r = k keys per query, draw the same mask."""

    kinds: tuple[str, ...]  # KINDS
    masks: np.ndarray  # True where b_i depends on a_j, per kind               [5, T, T] bool
    steps: np.ndarray  # sequential steps from a_j to b_i (0: not visible)      [5, T, T] int
    first_seen: np.ndarray  # the first input b_i sees, 0-based                 [5, T] int
    last_seen: np.ndarray  # the last input b_i sees, 0-based                   [5, T] int
    seen: np.ndarray  # how many inputs b_i sees                                [5, T] int
    k: int  # the CNN's kernel width
    window: int  # truncated attention's half-width, (k - 1)/2
    r: int  # keys per query of truncated attention: 2·window + 1 = k
    n_layers: int  # stacked CNN / truncated layers


def compare_visibility(T: int, k: int = 3, n_layers: int = 1) -> VisibilityComparison:
    """visibility() for every kind in KINDS, with truncated attention's window set to the CNN's
    half-width so that the two pictures match. Every kind sees a contiguous run of inputs, so
    first_seen..last_seen says exactly which."""
    window = kernel_half_width(k)
    views = [visibility(kind, T, k=k, window=window, n_layers=n_layers) for kind in KINDS]
    masks = np.stack([v.mask for v in views])  # [5, T, T]
    T = masks.shape[-1]
    return VisibilityComparison(
        kinds=KINDS,
        masks=masks,
        steps=np.stack([v.steps for v in views]),  # [5, T, T]
        first_seen=np.argmax(masks, axis=-1),  # [5, T]
        last_seen=T - 1 - np.argmax(masks[..., ::-1], axis=-1),  # [5, T]
        seen=masks.sum(axis=-1),  # [5, T]
        k=int(k),
        window=window,
        r=keys_per_query(window),
        n_layers=int(n_layers),
    )


def kernel_half_width(k: int) -> int:
    """(k - 1) / 2: how many neighbours a centred kernel of width k sees on each side.
    An even k has no centre, so it is refused."""
    k = _positive_int(k, "k (kernel width)")
    if k % 2 == 0:
        raise ValueError(
            f"k={k} has no centre: a centred kernel covers the input itself and the same number of "
            f"neighbours on each side, so its width is odd. Try k={k - 1} or k={k + 1}."
        )
    return (k - 1) // 2


def keys_per_query(window: int) -> int:
    """r = 2·window + 1: the keys a query of truncated self-attention sees away from the ends
    (Vaswani et al.'s "neighborhood of size r")."""
    return 2 * _non_negative_int(window, "window") + 1


# --- a vanilla tanh RNN and its input gradient -------------------------------------------------------


@dataclass(frozen=True)
class RnnWeights:
    """The weights of h_t = tanh(a_t W_xh + h_{t-1} W_hh + b_h)."""

    w_xh: np.ndarray  # input to state       [d_in, d]
    w_hh: np.ndarray  # state to next state  [d, d]
    b_h: np.ndarray  # bias                  [d]


@dataclass(frozen=True)
class RnnResult:
    """Every state of one run of the RNN; leading batch axes are allowed."""

    x: np.ndarray  # the inputs a_1..a_T                             [..., T, d_in]
    pre: np.ndarray  # z_t = a_t W_xh + h_{t-1} W_hh + b_h            [..., T, d]
    h: np.ndarray  # h_t = tanh(z_t), the outputs b_t                 [..., T, d]
    h0: np.ndarray  # the state before a_1                            [..., d]


def random_rnn_weights(d_in: int, d: int, rng: np.random.Generator, radius: float = 0.9) -> RnnWeights:
    """W_hh = radius · (a random orthogonal matrix), W_xh with N(0, 1/d_in) entries, b_h = 0.

    An orthogonal matrix scaled by `radius` has every singular value equal to `radius`, so the
    spectral radius is exactly `radius` and each step of backpropagation through time multiplies
    the gradient's size by at most radius · max tanh'(z) <= radius. Below 1 the product must
    vanish like radius^T (Pascanu et al. 2013); above 1 it may grow, until tanh saturates.
    """
    d_in = _size(d_in, "d_in", MAX_D)
    d = _size(d, "d", MAX_D)
    radius = _positive_float(radius, "radius")
    w_xh = rng.standard_normal((d_in, d)) / np.sqrt(d_in)  # [d_in, d]
    q, r = np.linalg.qr(rng.standard_normal((d, d)))  # q: [d, d] orthogonal
    q = q * np.sign(np.where(np.diag(r) == 0, 1.0, np.diag(r)))  # [d, d]; uniform over rotations
    return RnnWeights(w_xh=w_xh, w_hh=radius * q, b_h=np.zeros(d))  # [d_in, d], [d, d], [d]


def rnn_forward(x, w_xh, w_hh, b_h=None, h0=None) -> RnnResult:
    """Run h_t = tanh(a_t W_xh + h_{t-1} W_hh + b_h) over t = 1..T, one step after another.

    x: [..., T, d_in]; w_xh: [d_in, d]; w_hh: [d, d]; b_h: [d] (zeros if None); h0: [..., d] or
    [d] (zeros if None). T = 0 gives empty states. The loop is the point: step t needs h_{t-1}.
    """
    x = np.asarray(x, dtype=np.float64)  # [..., T, d_in]
    if x.ndim < 2:
        raise ValueError(f"x must be a sequence of input vectors, shape [T, d_in]; got shape {x.shape}.")
    w_xh, w_hh = np.asarray(w_xh, dtype=np.float64), np.asarray(w_hh, dtype=np.float64)
    d = w_hh.shape[-1] if w_hh.ndim == 2 else -1
    if w_hh.shape != (d, d) or d < 1:
        raise ValueError(f"w_hh must be square [d, d]; got shape {w_hh.shape}.")
    if w_xh.shape != (x.shape[-1], d):
        raise ValueError(
            f"w_xh must have shape [d_in, d] = [{x.shape[-1]}, {d}]: one row per input component, one "
            f"column per state component; got {w_xh.shape}."
        )
    b_h = np.zeros(d) if b_h is None else np.asarray(b_h, dtype=np.float64)  # [d]
    if b_h.shape != (d,):
        raise ValueError(f"b_h must have shape [{d}] (one number per state component); got {b_h.shape}.")
    lead = x.shape[:-2]
    h0 = np.zeros((*lead, d)) if h0 is None else np.broadcast_to(np.asarray(h0, dtype=np.float64), (*lead, d))
    T = x.shape[-2]
    drive = x @ w_xh + b_h  # [..., T, d]: the input's share needs no past, so it is done at once
    pre = np.empty((*lead, T, d))  # [..., T, d]
    h = np.empty((*lead, T, d))  # [..., T, d]
    prev = h0  # [..., d]
    for t in range(T):  # sequential: T steps, each waiting for the one before
        pre[..., t, :] = drive[..., t, :] + prev @ w_hh  # [..., d]
        h[..., t, :] = np.tanh(pre[..., t, :])  # [..., d]
        prev = h[..., t, :]
    return RnnResult(x=x, pre=pre, h=h, h0=np.array(h0))


def rnn_input_jacobian(result: RnnResult, w_xh, w_hh, target: int = -1, source: int = 0) -> np.ndarray:
    """∂b_target / ∂a_source for the RNN, by backpropagation through time written out by hand.
    -> [d, d_in]; entry [i, k] = ∂h_target[i] / ∂a_source[k]. Zero if source > target.

    h_t = tanh(z_t) with z_t = a_t W_xh + h_{t-1} W_hh, so one step back multiplies by
    ∂h_t/∂h_{t-1} = diag(1 - h_t²) W_hhᵀ, and the last factor is ∂h_s/∂a_s = diag(1 - h_s²) W_xhᵀ:
        ∂h_T/∂a_s = diag(1 - h_T²) W_hhᵀ · ... · diag(1 - h_{s+1}²) W_hhᵀ · diag(1 - h_s²) W_xhᵀ.
    T - s factors of W_hhᵀ: this product is what vanishes or explodes. Costs O((T - s)·d³).
    """
    h = _one_sequence(result.h, "result.h")  # [T, d]
    T = h.shape[0]
    target, source = _position(target, T, "target"), _position(source, T, "source")
    w_xh, w_hh = np.asarray(w_xh, dtype=np.float64), np.asarray(w_hh, dtype=np.float64)
    if source > target:
        return np.zeros((h.shape[1], w_xh.shape[0]))  # [d, d_in]: a later input cannot reach back
    grad = np.eye(h.shape[1])  # [d, d]  ∂h_target/∂h_target
    for t in range(target, source, -1):
        grad = (grad * (1.0 - h[t] ** 2)) @ w_hh.T  # [d, d]  ∂h_target/∂h_{t-1}
    return (grad * (1.0 - h[source] ** 2)) @ w_xh.T  # [d, d_in]


def rnn_first_input_influence(result: RnnResult, w_xh, w_hh) -> np.ndarray:
    """‖∂h_t / ∂a_1‖ (Frobenius) for every t = 1..T, in one forward pass.  -> [T]

    Forward mode: J_1 = diag(1 - h_1²) W_xhᵀ and J_t = diag(1 - h_t²) W_hhᵀ J_{t-1}, so the prefix
    of length t gives the influence of a_1 on b_t for every t at once.
    """
    h = _one_sequence(result.h, "result.h")  # [T, d]
    w_xh, w_hh = np.asarray(w_xh, dtype=np.float64), np.asarray(w_hh, dtype=np.float64)
    norms = np.zeros(h.shape[0])  # [T]
    if h.shape[0] == 0:
        return norms
    jac = (1.0 - h[0] ** 2)[:, None] * w_xh.T  # [d, d_in]  ∂h_1/∂a_1
    norms[0] = np.linalg.norm(jac)
    for t in range(1, h.shape[0]):
        jac = (1.0 - h[t] ** 2)[:, None] * (w_hh.T @ jac)  # [d, d_in]  ∂h_t/∂a_1
        norms[t] = np.linalg.norm(jac)
    return norms  # [T]


def rnn_influence_on_last(result: RnnResult, w_xh, w_hh) -> np.ndarray:
    """‖∂h_T / ∂a_j‖ (Frobenius) for every j = 1..T, in one backward pass through time.  -> [T]

    The same product as rnn_input_jacobian, kept at every step on the way back, so entry j is
    how strongly input j still reaches the last output.
    """
    h = _one_sequence(result.h, "result.h")  # [T, d]
    w_xh, w_hh = np.asarray(w_xh, dtype=np.float64), np.asarray(w_hh, dtype=np.float64)
    T = h.shape[0]
    norms = np.zeros(T)  # [T]
    grad = np.eye(h.shape[1])  # [d, d]  ∂h_T/∂h_T
    for t in range(T - 1, -1, -1):
        into_z = grad * (1.0 - h[t] ** 2)  # [d, d]  ∂h_T/∂z_t
        norms[t] = np.linalg.norm(into_z @ w_xh.T)  # ‖∂h_T/∂a_t‖
        grad = into_z @ w_hh.T  # [d, d]  ∂h_T/∂h_{t-1}
    return norms  # [T]


# --- the same question for self-attention ------------------------------------------------------------


def attention_input_jacobian(x, w_q, w_k, w_v, target: int = -1, source: int = 0) -> np.ndarray:
    """∂b_target / ∂a_source for one head of self-attention, from the formula.  -> [d_v, d_in]

    b_i = Σ_l α_il v_l with α_i = softmax(s_i), s_il = c·q_i·k_l, q = a W_q, k = a W_k, v = a W_v,
    c = 1/√d_k. Differentiating (m = source):
        ∂b_i/∂a_m = α_im W_vᵀ                                   (a_m's own value)
                  + c·α_im (v_m - b_i)ᵀ (q_i W_kᵀ)              (a_m's key moves its weight)
                  + [i = m] · c·Σ_l α_il (v_l - b_i)ᵀ (k_l W_qᵀ) (the query, only from a_i itself)
    One step, whatever the distance between i and m: the size is set by α_im, not by |i - m|.
    """
    x = _one_sequence(x, "x")  # [T, d_in]
    T = x.shape[0]
    i, m = _position(target, T, "target"), _position(source, T, "source")
    w_q, w_k, w_v = (np.asarray(w, dtype=np.float64) for w in (w_q, w_k, w_v))
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # [T, d_k], [T, d_k], [T, d_v]
    att = scaled_dot_product_attention(q[i : i + 1], k, v)  # weights [1, T], output [1, d_v]
    c = att.scale
    alpha, b_i = att.weights[0], att.output[0]  # [T], [d_v]
    jac = alpha[m] * w_v.T + c * alpha[m] * np.outer(v[m] - b_i, q[i] @ w_k.T)  # [d_v, d_in]
    if i == m:
        jac = jac + c * ((v - b_i).T * alpha) @ (k @ w_q.T)  # [d_v, T] @ [T, d_in] -> [d_v, d_in]
    return jac  # [d_v, d_in]


def attention_influence_of_all(x, w_q, w_k, w_v) -> tuple[np.ndarray, np.ndarray]:
    """‖∂b_T / ∂a_j‖ (Frobenius) for every j = 1..T, and the last query's weights α_Tj.
    -> [T], [T]. Vectorised form of attention_input_jacobian for target = T."""
    x = _one_sequence(x, "x")  # [T, d_in]
    w_q, w_k, w_v = (np.asarray(w, dtype=np.float64) for w in (w_q, w_k, w_v))
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # [T, d_k], [T, d_k], [T, d_v]
    c = 1.0 / np.sqrt(q.shape[1])
    alpha = softmax(c * (k @ q[-1]))  # [T]
    b_T = alpha @ v  # [d_v]
    u = v - b_T  # [T, d_v]
    key_dir = q[-1] @ w_k.T  # [d_in]
    # ‖α_j (W_vᵀ + c u_j key_dirᵀ)‖_F² expanded, so no [T, d_v, d_in] array is ever built:
    # ‖W_v‖² + 2c·u_jᵀ W_vᵀ key_dir + c²‖u_j‖²‖key_dir‖².
    squared = np.sum(w_v**2) + 2 * c * (u @ (w_v.T @ key_dir)) + c**2 * np.sum(u**2, axis=1) * np.sum(key_dir**2)  # [T]
    norms = alpha * np.sqrt(np.maximum(squared, 0.0))  # [T]
    last = alpha[-1] * (w_v.T + c * np.outer(u[-1], key_dir)) + c * (u.T * alpha) @ (k @ w_q.T)  # [d_v, d_in]
    norms[-1] = np.linalg.norm(last)  # a_T also sets the query
    return norms, alpha  # [T], [T]


@dataclass(frozen=True)
class LongRangeCurves:
    """How strongly a_1 still reaches b_T as T grows, medians over trials."""

    T_values: np.ndarray  # the sequence lengths                                         [n]
    rnn: np.ndarray  # ‖∂h_T/∂a_1‖ for the tanh RNN                                       [n]
    attention: np.ndarray  # ‖∂b_T/∂a_1‖ for one self-attention head                      [n]
    rnn_relative: np.ndarray  # ‖∂h_T/∂a_1‖ / mean_j ‖∂h_T/∂a_j‖: a_1 against a typical input  [n]
    attention_relative: np.ndarray  # the same ratio for self-attention                       [n]
    attention_weight: np.ndarray  # α_T1, the weight b_T's query gives a_1                  [n]
    uniform_weight: np.ndarray  # 1/T: α_T1 if attention were spread evenly               [n]
    rnn_bound: np.ndarray  # ‖W_xh‖_F · radius^(T-1): the RNN can never exceed it          [n]
    d: int  # width of inputs and states
    radius: float  # spectral radius of W_hh
    n_trials: int  # independent draws of weights and inputs


def long_range_influence(
    T_values, d: int, rng: np.random.Generator | int = 0, radius: float = 0.9, n_trials: int = 8
) -> LongRangeCurves:
    """The influence of input 1 on output T, for a tanh RNN and for self-attention, as T grows.

    Each trial draws inputs a_t ~ N(0, I_d) of length max(T_values), RNN weights from
    random_rnn_weights(d, d, rng, radius) and attention weights W_q, W_k, W_v with N(0, 1/d)
    entries; each T uses the first T inputs. The RNN's influence shrinks like radius^T when
    radius < 1: the signal of a_1 passes T - 1 contractions. Self-attention's is one step at any
    distance: it equals α_T1 times a matrix of fixed size, so it only shrinks as 1/T when b_T's
    attention spreads evenly over T inputs, by sharing, not by distance. The relative curves
    divide by the mean influence of all T inputs on b_T: for the RNN it falls towards 0 (a_1 is
    drowned by recent inputs), for self-attention it stays near 1 (a_1 counts like any input).
    Medians over trials, because single draws scatter. d is at most 32: the RNN's Jacobians cost
    O(T·d³) each; d = 16 with T up to 512 takes about 0.4 s. rng: a Generator, or a seed for one
    (a page passes the seed, so that the same call is the same cache entry).
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    T_values = np.asarray(T_values)
    if T_values.ndim != 1 or T_values.size == 0 or not np.issubdtype(T_values.dtype, np.integer):
        raise ValueError("T_values must be a non-empty list of whole numbers, e.g. [1, 2, 4, 8, 16].")
    for T in T_values:
        _size(int(T), "every T", MAX_T)
    d = _size(d, "d", MAX_LONG_RANGE_D)
    n_trials = _positive_int(n_trials, "n_trials")
    T_max = int(T_values.max())
    rnn, att, rnn_rel, att_rel, weight, bound = (np.zeros((n_trials, T_values.size)) for _ in range(6))  # [n_trials, n]
    for trial in range(n_trials):
        a = rng.standard_normal((T_max, d))  # [T_max, d]
        w = random_rnn_weights(d, d, rng, radius)
        w_q, w_k, w_v = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))  # 3 x [d, d]
        states = rnn_forward(a, w.w_xh, w.w_hh, w.b_h)
        bound[trial] = np.linalg.norm(w.w_xh) * float(radius) ** (T_values - 1.0)  # [n]
        for n, T in enumerate(T_values):
            r_norms = rnn_influence_on_last(_prefix(states, T), w.w_xh, w.w_hh)  # [T]
            a_norms, alpha = attention_influence_of_all(a[:T], w_q, w_k, w_v)  # [T], [T]
            rnn[trial, n], att[trial, n], weight[trial, n] = r_norms[0], a_norms[0], alpha[0]
            rnn_rel[trial, n] = _ratio(r_norms[0], r_norms.mean())
            att_rel[trial, n] = _ratio(a_norms[0], a_norms.mean())
    return LongRangeCurves(
        T_values=T_values.copy(),  # [n]
        rnn=np.median(rnn, axis=0),  # [n]
        attention=np.median(att, axis=0),  # [n]
        rnn_relative=np.median(rnn_rel, axis=0),  # [n]
        attention_relative=np.median(att_rel, axis=0),  # [n]
        attention_weight=np.median(weight, axis=0),  # [n]
        uniform_weight=1.0 / T_values,  # [n]
        rnn_bound=np.median(bound, axis=0),  # [n]
        d=d,
        radius=float(radius),
        n_trials=n_trials,
    )


def _prefix(result: RnnResult, T: int) -> RnnResult:
    """The run on the first T inputs: a later input never changes an earlier state."""
    return RnnResult(x=result.x[:T], pre=result.pre[:T], h=result.h[:T], h0=result.h0)


def _ratio(a: float, b: float) -> float:
    return float(a / b) if b > 0 else 0.0


# --- argument checks ------------------------------------------------------------------------------


def _size(n, name: str, largest: int) -> int:
    n = _positive_int(n, name)
    if n > largest:
        raise ValueError(f"{name}={n} is more than this lab draws; choose at most {largest}.")
    return n


def _positive_float(value, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}.") from None
    if not np.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}.")
    return x


def _one_sequence(a, name: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"{name} must be one sequence shaped [T, d]; got shape {a.shape}.")
    return a


def _position(p, T: int, name: str) -> int:
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise ValueError(f"{name} must be a whole-number position; got {p!r}.")
    if not -T <= p < T:
        raise ValueError(f"{name}={p} is outside a sequence of {T} (positions 0..{T - 1}, or -1 for the last).")
    return int(p) % T
