"""Make docs/images/margolus.png: a pressure pulse in the HPP lattice gas, run forwards and back.

    .venv/bin/python scripts/make_margolus_png.py [out.png]

A 384^2 torus of HPP gas at density 0.2 with a disc at density 0.8 in the middle; the local density
(mean over 8x8 cells) after 0, 60 and 120 steps, then after 120 steps back, which is the start cell
for cell (HPP is reversible). HPP's square lattice shows in the pulse's square front. A second of CPU.
"""

from __future__ import annotations

import sys

import numpy as np
from PIL import Image, ImageDraw

from tensorca import margolus

SIZE, CELL, SCALE = 384, 8, 2
rng = np.random.default_rng(40)
y, x = np.mgrid[:SIZE, :SIZE]
disc = (y - SIZE / 2) ** 2 + (x - SIZE / 2) ** 2 < (SIZE / 8) ** 2
start = (rng.random((SIZE, SIZE)) < np.where(disc, 0.8, 0.2)).astype(np.uint8)

frames = [("t = 0", start)]
later = start
for t in (60, 120):
    later = margolus.run(later, "HPP", 60, phase=margolus.next_phase(0, t - 60))
    frames.append((f"t = {t}", later))
back = margolus.run(later, "HPP", -120, phase=margolus.next_phase(0, 120))
assert np.array_equal(back, start)
frames.append(("120 steps back", back))


def density(cells: np.ndarray) -> np.ndarray:
    return cells.reshape(SIZE // CELL, CELL, SIZE // CELL, CELL).mean(axis=(1, 3))


def colour(values: np.ndarray) -> np.ndarray:
    """Density 0.1..0.6 on a dark blue -> orange -> yellow ramp, (h, w, 3) uint8."""
    t = np.clip((values - 0.1) / 0.5, 0, 1)[..., None]
    stops = np.array([[12, 16, 48], [40, 60, 140], [220, 110, 40], [255, 230, 120]], dtype=float)
    pos = t * (len(stops) - 1)
    low = np.floor(pos).astype(int).clip(0, len(stops) - 2)
    frac = pos - low
    return (stops[low[..., 0]] * (1 - frac) + stops[low[..., 0] + 1] * frac).astype(np.uint8)


tile = SIZE // CELL * SCALE * 2
pad, label = 8, 18
image = Image.new("RGB", (len(frames) * (tile + pad) + pad, tile + label + 2 * pad), (255, 255, 255))
draw = ImageDraw.Draw(image)
for i, (text, cells) in enumerate(frames):
    panel = Image.fromarray(colour(density(cells))).resize((tile, tile), Image.NEAREST)
    left = pad + i * (tile + pad)
    image.paste(panel, (left, pad + label))
    draw.text((left, pad), text, fill=(0, 0, 0))
out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/margolus.png"
image.save(out, optimize=True)
print(out, image.size)
