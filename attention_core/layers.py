"""The two pieces a Transformer block needs besides attention: layer normalisation and GELU.

LayerNorm(x) = γ · (x − mean(x)) / √(var(x) + ε) + β        (per row, over d_model)
GELU(x)      = x · Φ(x) = ½ x (1 + erf(x / √2))             (Φ: the standard normal CDF)
"""

from __future__ import annotations

import numpy as np


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Normalise each row to mean 0 and variance 1, then scale by γ and shift by β.
    [..., d_model], [d_model], [d_model] -> [..., d_model]

    The variance is the biased one (divide by d_model, not d_model − 1), as torch.nn.LayerNorm;
    ε only guards against a constant row and is tiny in BERT (1e-12).
    """
    x = np.asarray(x, dtype=np.float64)  # [..., d_model]
    if np.shape(gamma) != x.shape[-1:] or np.shape(beta) != x.shape[-1:]:
        raise ValueError(
            f"gamma and beta need one number per column of x ({x.shape[-1]}); "
            f"got shapes {np.shape(gamma)} and {np.shape(beta)}."
        )
    mean = x.mean(axis=-1, keepdims=True)  # [..., 1]
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)  # [..., 1]
    return (x - mean) / np.sqrt(var + eps) * gamma + beta  # [..., d_model]


# Abramowitz & Stegun, Handbook of Mathematical Functions (1964), formula 7.1.26:
#   erf(x) ≈ 1 − (a1 t + a2 t² + a3 t³ + a4 t⁴ + a5 t⁵) e^(−x²),  t = 1 / (1 + p x),  x ≥ 0,
# with |error| ≤ 1.5e-7 for every x (tests/core/test_pretrained.py checks this on a dense grid
# against math.erf). NumPy has no erf, math.erf is one Python call per number (far too slow for
# the 6 × T × 1536 values of MiniLM), and SciPy (a 35 MB wheel, 140 MB installed) is a lot for one function.
# docs/real_model.md explains why 1.5e-7 is far below what the model's outputs can notice.
_ERF_P = 0.3275911
_ERF_A1, _ERF_A2, _ERF_A3, _ERF_A4, _ERF_A5 = 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, erf(x) = 2/√π ∫₀ˣ e^(−s²) ds, to within 1.5e-7.  [...] -> [...]"""
    x = np.asarray(x, dtype=np.float64)  # [...]
    # The formula holds for x ≥ 0, and erf is odd: erf(−x) = −erf(x). Beyond 6, erf is 1 to double
    # precision; capping there also keeps z² from overflowing.
    z = np.minimum(np.abs(x), 6.0)  # [...]
    t = 1.0 / (1.0 + _ERF_P * z)  # [...]
    poly = t * (_ERF_A1 + t * (_ERF_A2 + t * (_ERF_A3 + t * (_ERF_A4 + t * _ERF_A5))))  # [...], Horner's rule
    return np.sign(x) * (1.0 - poly * np.exp(-z * z))  # [...]; sign(0) = 0 makes erf(0) exactly 0


def gelu(x: np.ndarray) -> np.ndarray:
    """Gaussian Error Linear Unit in its exact (erf) form, as BERT and torch.nn.GELU() use:
    x is kept in proportion to how likely a standard normal variable is to be below it.  [...] -> [...]

    Not the tanh approximation (GELU(approximate="tanh")), which differs from it by up to 4.7e-4.
    """
    x = np.asarray(x, dtype=np.float64)  # [...]
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))  # [...]
