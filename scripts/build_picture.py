"""Draw the small picture the image pages cut into patches, and save it in attention_core/data/.

    .venv/bin/python scripts/build_picture.py

A 48 x 48 RGB house under a sky: red roof, light walls, blue windows, brown door, a tree, the
sun, a cloud and grass, each region a distinct colour so that patches of the same thing look
alike. Drawn with NumPy alone, the same bytes on every run; about 7 kB as an .npy file of uint8.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

from attention_core.patches import PICTURE_FILE

SIZE = 48


def draw_picture() -> np.ndarray:
    """The house scene.  -> [48, 48, 3] uint8"""
    y, x = np.mgrid[0:SIZE, 0:SIZE]  # [48, 48] row and column of every pixel
    img = np.zeros((SIZE, SIZE, 3))  # [48, 48, 3] RGB in 0..255

    # Sky: deeper blue at the top, paler at the horizon (row 32).
    t = (y / 32.0)[..., None]  # [48, 48, 1]
    img[:] = (1 - t) * np.array([70, 130, 210]) + t * np.array([170, 210, 245])
    # Grass below the horizon, a little darker towards the bottom.
    ground = y >= 32
    g = ((y - 32) / 16.0)[..., None]  # [48, 48, 1]
    img[ground] = ((1 - g) * np.array([90, 180, 70]) + g * np.array([50, 130, 40]))[ground]
    # The sun, top right, and a cloud, top left.
    img[(y - 8) ** 2 + (x - 40) ** 2 <= 25] = [250, 215, 50]
    cloud = ((y - 7) ** 2 / 6.0 + (x - 8) ** 2 / 30.0 <= 1) | ((y - 5) ** 2 / 6.0 + (x - 11) ** 2 / 12.0 <= 1)
    img[cloud] = [245, 245, 245]
    # The house: walls, a roof whose slopes meet at row 11, two windows and a door.
    img[(y >= 24) & (y < 40) & (x >= 8) & (x < 30)] = [235, 215, 175]
    roof = (y >= 11) & (y < 24) & (np.abs(x - 18.5) <= (y - 11) * 1.0 + 1.5)
    img[roof] = [200, 50, 40]
    for left in (11, 23):
        img[(y >= 27) & (y < 32) & (x >= left) & (x < left + 4)] = [90, 160, 230]
    img[(y >= 31) & (y < 40) & (x >= 17) & (x < 21)] = [120, 70, 30]
    # A tree right of the house: a brown trunk under a dark green crown.
    img[(y >= 30) & (y < 42) & (x >= 38) & (x < 41)] = [110, 70, 35]
    img[(y - 25) ** 2 + (x - 39) ** 2 <= 36] = [30, 110, 45]
    return np.round(img).astype(np.uint8)  # [48, 48, 3]


def main() -> None:
    picture = draw_picture()  # [48, 48, 3]
    PICTURE_FILE.parent.mkdir(parents=True, exist_ok=True)
    np.save(PICTURE_FILE, picture, allow_pickle=False)
    colours = len(np.unique(picture.reshape(-1, 3), axis=0))
    print(f"{PICTURE_FILE.name}: {picture.shape}, {colours} colours, {PICTURE_FILE.stat().st_size} bytes")


if __name__ == "__main__":
    main()
