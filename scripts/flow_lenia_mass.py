"""Flow Lenia's mass conservation over 1,000 steps: the bundled creature on a 64^2 torus.

    .venv/bin/python scripts/flow_lenia_mass.py [steps] [size]

Prints the relative change of the total mass for the NumPy reference (float64) and the torch step in
float64 and float32 (CPU, one thread); about 15 s on one core. The test suite runs 300 steps.
"""

import sys
import time

import numpy as np
import torch

from tensorca.lenia import flow_creature, run_flow

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
size = int(sys.argv[2]) if len(sys.argv) > 2 else 64
torch.set_num_threads(1)
ring = flow_creature("FOr")
start = ring.field((size, size))
print(f"{ring.name} ({ring.code}) on a {size}x{size} torus, {steps} steps: {ring.world}")
runs = [("numpy float64", lambda: run_flow(start, ring.world, steps))]
for dtype in (torch.float64, torch.float32):
    runs.append((f"torch {str(dtype)[6:]}", lambda dtype=dtype: run_flow(torch.from_numpy(start).to(dtype),
                                                                         ring.world, steps)))
with torch.no_grad():
    for name, run in runs:
        began = time.perf_counter()
        end = run()
        seconds = time.perf_counter() - began
        total = float(end.sum()) if isinstance(end, np.ndarray) else end.double().sum().item()
        print(f"{name:14s} relative mass change {total / start.sum() - 1:+.2e}  ({seconds:.1f} s)")
