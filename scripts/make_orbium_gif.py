"""Make docs/images/orbium.gif: Orbium unicaudatus (Bert Chan's Lenia) gliding on a 96^2 torus.

    .venv/bin/python scripts/make_orbium_gif.py
"""

import io

import numpy as np
from PIL import Image

import tensorca
from tensorca.lenia import creature
from tensorca.view.display import to_png

orbium = creature("O2u")
state = np.zeros((96, 96), np.float32)
cells = np.asarray(orbium.cells, np.float32)
state[30 : 30 + cells.shape[0], 20 : 20 + cells.shape[1]] = cells
frames = []
for _ in range(60):  # 300 steps, a frame every 5
    frames.append(Image.open(io.BytesIO(to_png(state, max_px=288))).convert("P", palette=Image.ADAPTIVE))
    state = tensorca.run(state, orbium.rule.canonical() + ":T96,96", 5, backend="torch")
frames[0].save("docs/images/orbium.gif", save_all=True, append_images=frames[1:], duration=60, loop=0, optimize=True)
