"""The core against PyTorch in float64, when PyTorch is installed (CI installs it; the app never
needs it). Random shapes, masks and scales."""

import numpy as np
import pytest

from attention_core import multi_head_attention, scaled_dot_product_attention

torch = pytest.importorskip("torch")
F = torch.nn.functional


@pytest.mark.parametrize("seed", range(25))
def test_sdpa_matches_torch(seed):
    rng = np.random.default_rng(seed)
    lead = tuple(rng.integers(1, 4, size=rng.integers(0, 3)))
    T_q, T_k, d_k, d_v = (int(n) for n in rng.integers(1, 9, size=4))
    q = rng.standard_normal((*lead, T_q, d_k)) * rng.uniform(0.1, 5)
    k = rng.standard_normal((*lead, T_k, d_k))
    v = rng.standard_normal((*lead, T_k, d_v))
    mask = rng.random((T_q, T_k)) < 0.7
    mask[:, 0] = True  # torch gives NaN for a row with nothing visible; ours gives 0 (tested elsewhere)
    scale = None if seed % 3 == 0 else float(rng.uniform(-2, 2))
    ours = scaled_dot_product_attention(q, k, v, mask=mask, scale=scale).output
    ref = F.scaled_dot_product_attention(
        *(torch.from_numpy(a) for a in (q, k, v)), attn_mask=torch.from_numpy(mask), scale=scale
    ).numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(15))
def test_multi_head_attention_matches_torch(seed):
    rng = np.random.default_rng(100 + seed)
    h = int(rng.choice([1, 2, 3, 4]))
    d_model = h * int(rng.integers(1, 6))
    T = int(rng.integers(1, 9))
    x = rng.standard_normal((T, d_model))
    w = [rng.standard_normal((d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]
    b = [rng.standard_normal(d_model) for _ in range(4)]
    mask = rng.random((T, T)) < 0.7
    np.fill_diagonal(mask, True)

    mha = torch.nn.MultiheadAttention(d_model, h, bias=True, batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch stores weights in the column form: out = x @ W.T + b
        mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([w[0].T, w[1].T, w[2].T])))
        mha.in_proj_bias.copy_(torch.from_numpy(np.concatenate(b[:3])))
        mha.out_proj.weight.copy_(torch.from_numpy(w[3].T))
        mha.out_proj.bias.copy_(torch.from_numpy(b[3]))
    xt = torch.from_numpy(x)[None]
    # nn.MultiheadAttention's boolean mask means the opposite: True = may NOT attend.
    out, weights = mha(xt, xt, xt, attn_mask=torch.from_numpy(~mask), average_attn_weights=False)

    ours = multi_head_attention(x, *w, n_heads=h, mask=mask, b_q=b[0], b_k=b[1], b_v=b[2], b_o=b[3])
    np.testing.assert_allclose(ours.output, out[0].detach().numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.weights, weights[0].detach().numpy(), rtol=1e-9, atol=1e-9)
