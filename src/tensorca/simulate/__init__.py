"""``run()``: the one place that resolves rule and topology, moves data and drives an engine.

``run`` returns the same kind of object it was given: a :class:`~tensorca.pattern.Pattern` (origin
and generation kept up to date), a NumPy array (``(H, W)`` or ``(B, H, W)``), or a torch tensor
(on its original device).

Around the engine call it does four things, all without changing the result by a single bit:

- **choosing**: ``backend="auto"`` (the default) asks :mod:`tensorca.costmodel` for the engine
  and device predicted fastest for this rule, shape, batch and run length, among those that
  support the rule (:func:`explain` shows the comparison);
- **memory planning**: a batch whose working set (``engine.bytes_needed``) does not fit the
  device (or ``max_bytes``) is split into chunks; an out-of-memory error halves the chunk and
  retries, keeping finished chunks; a single grid that cannot fit raises
  :class:`~tensorca.errors.MemoryBudgetError` with the numbers;
- **checkpoints**: ``checkpoint=FILE, checkpoint_every=N`` writes the state atomically every
  ``N`` generations and at the end (:mod:`tensorca.persist.npz`); Ctrl-C writes the last completed
  state before :class:`Interrupted` propagates; :func:`resume` continues bit for bit;
- **observers**: ``observe=Population(every=k)`` collects the population every ``k`` generations
  on the device (torch engines count inside :meth:`~tensorca.engines.tensor.engine.TorchEngine.advance_observed`)
  and reads it back once at the end.

The modules: :mod:`.api` (the entry points), :mod:`.checks` (argument checks), :mod:`.select`
(engine and device), :mod:`.plan` (:class:`RunPlan` and its loops), :mod:`.progress` (callbacks
and the ``progress=True`` bar).
"""

from __future__ import annotations

from ..memory import plan_chunk
from ..observers import Population, advance_observed
from ..persist import npz as checkpoint_io
from .api import Decision, decide, explain, resume, run
from .checks import check_states
from .context import with_context
from .plan import Checkpointer, Interrupted, RunPlan, boundaries
from .progress import ProgressCallback
from .select import DEFAULT_BACKEND, choose_engine, select_engine

__all__ = [
    "DEFAULT_BACKEND",
    "Checkpointer",
    "Decision",
    "Interrupted",
    "Population",
    "ProgressCallback",
    "RunPlan",
    "advance_observed",
    "boundaries",
    "check_states",
    "checkpoint_io",
    "choose_engine",
    "decide",
    "explain",
    "plan_chunk",
    "resume",
    "run",
    "select_engine",
    "with_context",
]
