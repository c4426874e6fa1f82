"""Write assets/icon.png, the browser-tab icon: a 4 x 4 attention map in Viridis colours.

A local file, because Streamlit fetches a ':material/...' page icon from a font host on the
internet, and a classroom may have none. Run: .venv/bin/python scripts/build_icon.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

from attention_core import causal_mask, softmax

VIRIDIS = np.array(
    [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]], dtype=float
)  # five stops of Viridis


def viridis(x: np.ndarray) -> np.ndarray:
    """Linear interpolation between the stops.  [...] in [0, 1] -> [..., 3]"""
    pos = np.clip(x, 0, 1) * (len(VIRIDIS) - 1)
    lo = np.floor(pos).astype(int).clip(0, len(VIRIDIS) - 2)
    frac = (pos - lo)[..., None]
    return VIRIDIS[lo] * (1 - frac) + VIRIDIS[lo + 1] * frac


def main() -> None:
    scores = np.array([[2.0, 0, 0, 0], [1.5, 2.0, 0, 0], [0.2, 1.8, 1.0, 0], [1.0, 0.1, 0.6, 2.2]])
    weights = softmax(np.where(causal_mask(4), scores, -np.inf))  # [4, 4], rows sum to 1
    cells = viridis(weights / weights.max()).astype(np.uint8)  # [4, 4, 3]
    cell, gap = 14, 2
    size = 4 * cell + 5 * gap
    img = np.full((size, size, 4), 0, dtype=np.uint8)
    for i in range(4):
        for j in range(4):
            y, x = gap + i * (cell + gap), gap + j * (cell + gap)
            img[y : y + cell, x : x + cell, :3] = cells[i, j]
            img[y : y + cell, x : x + cell, 3] = 255
    out = Path(__file__).resolve().parents[1] / "assets" / "icon.png"
    Image.fromarray(img, "RGBA").save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
