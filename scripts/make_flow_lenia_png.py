"""Make docs/images/flow_lenia.png: the bundled Flow Lenia creature (FOr) at steps 0, 20, 60 and 300.

    .venv/bin/python scripts/make_flow_lenia_png.py [out.png]

Orbium's cells gather into a ring under Flow Lenia; the mass (not held to [0, 1]) is coloured with
viridis from 0 to the largest value shown, 4 pixels per cell, the panels' 48x48 tori side by side.
"""

import sys

import numpy as np
from PIL import Image

from tensorca.lenia import flow_creature, run_flow
from tensorca.render.colormaps import colormap, float_index

ring = flow_creature("FOr")
state, panels, done = ring.field((48, 48)), [], 0
for step in (0, 20, 60, 300):
    state = run_flow(state, ring.world, step - done)
    panels.append(state[0])
    done = step
top = max(float(p.max()) for p in panels)
gap = np.full((48, 2), np.nan)
strip = np.concatenate([x for p in panels for x in (p / top, gap)][:-1], axis=1)
rgb = colormap("viridis")[float_index(np.nan_to_num(strip, nan=0.0))]
rgb[np.isnan(strip)] = 255  # white between the panels
image = Image.fromarray(rgb).resize((strip.shape[1] * 4, strip.shape[0] * 4), Image.NEAREST)
out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/flow_lenia.png"
image.save(out, optimize=True)
print(f"wrote {out}: {image.size[0]}x{image.size[1]}, peak mass {top:.2f}")
