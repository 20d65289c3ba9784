"""Make docs/images/flow_lenia_mover.png: the bundled Flow Lenia mover (FGl) at steps 0, 300, 600 and 900.

    .venv/bin/python scripts/make_flow_lenia_mover_png.py [out.png]

The glider starts near the top of an 80x40 torus (rows x columns) and glides down the rows; each panel
shows the whole torus at one step (the NumPy float64 reference), the mass coloured with viridis from 0
to the largest value shown, 4 pixels per cell, with the centre of mass's track so far in white and a
red mark at its start.
"""

import sys

import numpy as np
from PIL import Image, ImageDraw

from tensorca.lenia import flow_creature, run_flow
from tensorca.render.colormaps import colormap, float_index

SHAPE, SCALE, GAP, STEPS = (80, 40), 4, 2, (0, 300, 600, 900)


def centroid(mass: np.ndarray) -> np.ndarray:
    """``(y, x)`` centre of mass on the torus (the circular mean along each axis)."""
    out = []
    for axis, size in ((1, mass.shape[0]), (0, mass.shape[1])):
        phase = np.exp(2j * np.pi * np.arange(size) / size)
        out.append(np.angle((mass.sum(axis=axis) * phase).sum()) * size / (2 * np.pi) % size)
    return np.array(out)


glider = flow_creature("FGl")
state = np.roll(glider.field(SHAPE), -24, axis=1)  # start near the top: it moves down the rows
panels, tracks, track, done = [], [], [centroid(state[0])], 0
for step in STEPS:
    while done < step:
        state = run_flow(state, glider.world, 10)
        done += 10
        track.append(centroid(state[0]))
    panels.append(state[0])
    tracks.append(list(track))
top = max(float(p.max()) for p in panels)
gap = np.full((SHAPE[0], GAP), np.nan)
strip = np.concatenate([x for p in panels for x in (p / top, gap)][:-1], axis=1)
rgb = colormap("viridis")[float_index(np.nan_to_num(strip, nan=0.0))]
rgb[np.isnan(strip)] = 255  # white between the panels
image = Image.fromarray(rgb).resize((strip.shape[1] * SCALE, strip.shape[0] * SCALE), Image.NEAREST)
draw = ImageDraw.Draw(image)
for i, points in enumerate(tracks):
    left = i * (SHAPE[1] + GAP)
    xy = [((left + x + 0.5) * SCALE, (y + 0.5) * SCALE) for y, x in points]  # no wrap: it moves 26 cells
    if len(xy) > 1:
        draw.line(xy, fill=(255, 255, 255), width=2)
    x0, y0 = xy[0]
    draw.ellipse((x0 - 3, y0 - 3, x0 + 3, y0 + 3), fill=(230, 40, 40))
out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/flow_lenia_mover.png"
image.save(out, optimize=True)
moved = np.hypot(*(track[-1] - track[0]))
print(f"wrote {out}: {image.size[0]}x{image.size[1]}, peak mass {top:.2f}, "
      f"moved {moved:.1f} cells in {STEPS[-1]} steps")
