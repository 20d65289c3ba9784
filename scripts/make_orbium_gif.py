"""Make docs/images/orbium.gif: Orbium unicaudatus (Bert Chan's Lenia) gliding on a 96^2 torus.

    .venv/bin/python scripts/make_orbium_gif.py [out.gif]

300 generations, a frame every 5, 3 pixels per cell, viridis (tensorca.render's colormap for float cells).
"""

import sys

import numpy as np

import tensorca.render
from tensorca.lenia import creature

orbium = creature("O2u")
state = np.zeros((96, 96), np.float32)
cells = np.asarray(orbium.cells, np.float32)
state[30 : 30 + cells.shape[0], 20 : 20 + cells.shape[1]] = cells
out = sys.argv[1] if len(sys.argv) > 1 else "docs/images/orbium.gif"
tensorca.render.gif(out, state, gens=295, rule=orbium.rule.canonical() + ":T96,96", every=5, scale=3, duration=60,
                    backend="torch")
