"""attention_core.train's loss and hand-written gradients against PyTorch autograd, in float64,
when PyTorch is installed (CI installs it; the app never needs it). The PyTorch models are written
independently: torch's own scaled_dot_product_attention and cross_entropy, sinusoids from the
formula, and the window model as the convolution it is (torch.nn.functional.conv1d)."""

import math

import numpy as np
import pytest

from attention_core.train import IGNORE, PAD, Config, init_params, loss_and_grads, saw_task

torch = pytest.importorskip("torch")
F = torch.nn.functional

CONFIGS = [
    *(
        Config(d_model=d_model, heads=heads, layers=layers, positional=positional, scale=scale)
        for positional in ("sinusoidal", "learned", "none")
        for scale in ("sqrt", "d", "none")
        for d_model, heads, layers in ((8, 2, 1), (12, 3, 2))
    ),
    *(Config(model="window", d_model=6, window=w) for w in (0, 1, 3)),
    Config(model="word", d_model=5),
]


def torch_loss(params: dict[str, np.ndarray], tokens: np.ndarray, tags: np.ndarray, config: Config):
    """The same model, built from torch's parts."""
    p = {name: torch.tensor(a, dtype=torch.float64, requires_grad=True) for name, a in params.items()}
    tok = torch.from_numpy(tokens)
    N, T = tokens.shape
    d = config.d_model
    if config.model == "attention":
        x = p["embedding"][tok]  # [N, T, d]
        if config.positional == "sinusoidal":
            pos = torch.arange(T, dtype=torch.float64)[:, None]
            freq = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float64) / d)
            pe = torch.zeros(T, d, dtype=torch.float64)
            pe[:, 0::2] = torch.sin(pos * freq)
            pe[:, 1::2] = torch.cos(pos * freq[: d // 2])
            x = x + pe
        elif config.positional == "learned":
            x = x + p["position"][:T]
        h, d_k = config.heads, d // config.heads
        scale = {"sqrt": 1 / math.sqrt(d_k), "d": 1 / d_k, "none": 1.0}[config.scale]
        mask = (tok != PAD)[:, None, None, :]  # True = may attend
        for layer in range(config.layers):
            q, k, v = ((x @ p[f"{name}.{layer}"]).view(N, T, h, d_k).transpose(1, 2) for name in ("w_q", "w_k", "w_v"))
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)  # [N, h, T, d_k]
            x = x + heads.transpose(1, 2).reshape(N, T, d) @ p[f"w_o.{layer}"]
        logits = x @ p["w_tag"] + p["b_tag"]
    else:
        w = config.reach
        x = p["embedding"][tok] * (tok != PAD)[..., None]  # [N, T, d]
        C = p["b_tag"].shape[0]
        # w_tag's row o·d + i is input channel i at offset o - w: a conv1d weight [C, d, 2w + 1]
        kernel = p["w_tag"].reshape(2 * w + 1, d, C).permute(2, 1, 0)
        logits = F.conv1d(x.transpose(1, 2), kernel, p["b_tag"], padding=w).transpose(1, 2)
    loss = F.cross_entropy(logits.reshape(N * T, -1), torch.from_numpy(tags).reshape(-1), ignore_index=IGNORE)
    loss.backward()
    return loss.item(), {name: t.grad.numpy() for name, t in p.items()}


def _id(config):
    if config.model == "attention":
        return f"attention-d{config.d_model}-h{config.heads}-L{config.layers}-{config.positional}-{config.scale}"
    return f"{config.model}-w{config.reach}"


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_loss_and_gradients_match_torch_autograd(config):
    task = saw_task(seed=2, n_train=12, n_test=2)
    rng = np.random.default_rng(7)
    params = {name: a + 0.5 * rng.standard_normal(a.shape) for name, a in init_params(config, task, 5).items()}
    tokens = np.pad(task.train_tokens[:10], ((0, 0), (0, 2)))  # padding inside and after every sentence
    tags = np.pad(task.train_tags[:10], ((0, 0), (0, 2)), constant_values=IGNORE)
    loss, grads = loss_and_grads(params, tokens, tags, config)
    ref_loss, ref_grads = torch_loss(params, tokens, tags, config)
    assert loss == pytest.approx(ref_loss, rel=1e-12)
    assert set(grads) == set(ref_grads)
    for name in grads:
        np.testing.assert_allclose(grads[name], ref_grads[name], rtol=1e-9, atol=1e-12, err_msg=name)
