"""``tensorca bench``: where the time goes, per engine and device, and where the GPU starts to win.

- :mod:`.measure`: timing with device synchronisation (CUDA events on a GPU), medians after warm-up;
- :mod:`.sweep`: the sweep over grid size and batch size, overheads, transfers, compile and graphs,
  for every engine in the registry;
- :mod:`.plot`: CUPS against cells per generation, one line per engine/device, crossovers marked;
- :mod:`.calibrate`: fit the cost model of ``backend="auto"`` to repeated sweeps (medians, a
  warning when they disagree) and save it.
"""

from .sweep import BenchReport, bench

__all__ = ["BenchReport", "bench"]
