"""The NumPy reference engine: the definition of every rule. Short and obviously correct.

Every step runs the rule's compiled :class:`~tensorca.rules.stepspec.StepSpec` in its three parts:

1. *perceive*: pad the grid of state-1 cells as the topology says (wrap for a torus, zeros for a
   bounded plane, a gather from :func:`~tensorca.topology.padding_index` for the other kinds),
   then read each cell's neighbourhood: the 9-bit 3x3 index (``index3x3``), the count under a
   0/1 mask (``mask_count``) or a weighted sum (``weighted_count``);
2. *update*: look the index up in the 512-entry table (``table``) or test the count against
   the birth/survival intervals (``intervals``);
3. *decay*: Generations states when the rule has more than two.

Speed is not this engine's job; clarity is. Fast engines are checked against it bit for bit.
"""

from __future__ import annotations

import numpy as np

from ..errors import EngineError
from ..families.registry import extra_kinds, kernel_cell_bytes, step_for
from ..randomness import Clock
from ..rules.base import Rule
from ..rules.neighbourhoods import weight_levels
from ..rules.stepspec import MaskCount, StepSpec, TableUpdate, WeightedCount
from ..topology import Topology
from .base import Engine
from .numpy_grid import mask_runs, neighbourhood_index, pad
from .stochastic_steps import advance_numpy
from .stochastic_steps import runs as stochastic_runs

#: The ``(perceive, update)`` kinds this engine runs.
KINDS = frozenset({("index3x3", "table"), ("mask_count", "intervals"), ("weighted_count", "intervals")})


def neighbourhood_count(alive: np.ndarray, mask: np.ndarray, topology: Topology) -> np.ndarray:
    """``(B, H, W)`` int32 number of state-1 cells under ``mask`` (``(2r+1, 2r+1)``) around each cell.

    Each horizontal run of the mask is summed from row-wise prefix sums, so the cost grows with
    the number of mask rows, not the number of mask cells (ranges up to 500 stay affordable).
    """
    _, height, width = alive.shape
    radius = mask.shape[0] // 2
    padded = pad(alive.astype(np.int32), radius, topology)
    prefix = np.zeros(padded.shape[:2] + (padded.shape[2] + 1,), dtype=np.int32)
    np.cumsum(padded, axis=2, out=prefix[:, :, 1:])
    count = np.zeros(alive.shape, dtype=np.int32)
    for dy, first, last in mask_runs(mask):
        rows = prefix[:, dy : dy + height, :]
        count += rows[:, :, last + 1 : last + 1 + width] - rows[:, :, first : first + width]
    return count


def weighted_count(cells: np.ndarray, stage: WeightedCount, topology: Topology) -> np.ndarray:
    """``(B, H, W)`` int64 weighted sum of every cell's window (see :class:`WeightedCount`).

    Decomposed into one 0/1 mask per distinct weight ``v``: ``sum(v * neighbourhood_count(mask_v))``.
    With state weights ``sw`` every padded cell, off-grid ones included, is in some state, so
    ``sum_s sw[s] * count(state == s)`` is ``sw[0] * sum(weights) + sum_{s >= 1} (sw[s] - sw[0]) *
    count(state == s)``.
    """
    levels = weight_levels(stage.weights)

    def weighted(alive: np.ndarray) -> np.ndarray:
        out = np.zeros(alive.shape, dtype=np.int64)
        for value, mask in levels:
            out += value * neighbourhood_count(alive, mask, topology).astype(np.int64)
        return out

    sw = stage.state_weights
    if sw is None:
        return weighted(cells == 1)
    count = np.full(cells.shape, int(stage.weights.sum()) * sw[0], dtype=np.int64)
    for state in range(1, len(sw)):
        if sw[state] != sw[0]:
            count += (sw[state] - sw[0]) * weighted(cells == state)
    return count


def perceive(cells: np.ndarray, spec: StepSpec, topology: Topology) -> np.ndarray:
    """``(B, H, W)`` what each cell perceives under ``spec.perceive``: 3x3 index, count or weighted sum."""
    p = spec.perceive
    if isinstance(p, MaskCount):
        return neighbourhood_count(cells == 1, p.mask, topology)
    if isinstance(p, WeightedCount):
        return weighted_count(cells, p, topology)
    return neighbourhood_index(cells == 1, topology)


def in_intervals(count: np.ndarray, intervals: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Boolean array: ``count`` lies in one of the inclusive ``(lo, hi)`` intervals."""
    hit = np.zeros(count.shape, dtype=bool)
    for lo, hi in intervals:
        hit |= (count >= lo) & (count <= hi)
    return hit


def apply_decay(cells: np.ndarray, on: np.ndarray, n_states: int) -> np.ndarray:
    """Next states from the rule's verdict ``on`` (birth for state 0, survival for state 1).

    Two states: the verdict is the next state. More (Generations): a state-1 cell that fails to
    survive becomes 2; states 2..n-1 advance by one whatever ``on`` says, n-1 wrapping to 0;
    only state-0 cells can be born.
    """
    if n_states == 2:
        return on.astype(np.uint8)
    decayed = ((cells.astype(np.int16) + 1) % n_states).astype(np.uint8)
    nxt = np.where(cells >= 2, decayed, 0).astype(np.uint8)
    nxt[(cells == 0) & on] = 1
    nxt[(cells == 1) & on] = 1
    nxt[(cells == 1) & ~on] = 2
    return nxt


def update(cells: np.ndarray, perceived: np.ndarray, spec: StepSpec) -> np.ndarray:
    """Boolean verdict of ``spec.update``: birth for state-0 cells, survival for state-1 cells."""
    u = spec.update
    if isinstance(u, TableUpdate):
        return u.lookup()[perceived].astype(bool)
    return np.where(cells == 1, in_intervals(perceived, u.survival), in_intervals(perceived, u.birth))


def runs(spec: StepSpec) -> bool:
    """True when this engine has a step for ``spec``: built in, or registered by a rule family
    (:func:`tensorca.families.register_step` with engine ``"numpy"`` and a function
    ``step(cells, spec, topology) -> cells`` on ``(B, H, W)`` arrays of the spec's state space), or a
    stochastic spec (:mod:`.stochastic_steps`) over such a step."""
    if spec.stochastic:
        return stochastic_runs(spec, runs)
    return spec.kinds in KINDS or spec.kinds in extra_kinds("numpy")


def step(cells: np.ndarray, spec: StepSpec, topology: Topology) -> np.ndarray:
    """One generation of ``spec`` on ``(B, H, W)`` states: perceive, update, decay."""
    extra = None if spec.kinds in KINDS else step_for("numpy", spec.kinds)
    if extra is not None:
        return extra(cells, spec, topology)
    if spec.kinds not in KINDS:
        raise EngineError(f"the NumPy reference has no step for perceive {spec.kinds[0]!r} with update "
                          f"{spec.kinds[1]!r}")
    return apply_decay(cells, update(cells, perceive(cells, spec, topology), spec), spec.n_states)


class NumpyEngine(Engine):
    """``backend="numpy"``: the reference for every rule family on every bounded topology."""

    name = "numpy"

    def bytes_needed(self, batch: int, shape: tuple[int, int], rule: Rule | None = None) -> int:
        if rule is not None and rule.compile().perceive.kind.startswith("kernel_fft"):  # Lenia: the grid padded by R
            shape = (shape[0] + 2 * rule.reach, shape[1] + 2 * rule.reach)
        return super().bytes_needed(batch, shape, rule)

    def cell_bytes(self, rule: Rule | None = None) -> float:
        # input + int16 padded grid + int16 index + bool verdict + output (+ decay temporaries);
        # counted neighbourhoods: int32 padded grid, prefix sums and counts.
        if rule is None:
            return 9.0
        spec = rule.compile()
        decay = spec.decay
        declared = kernel_cell_bytes(self.name, spec)  # a family's own kernel: its declaration says
        if declared is not None:
            return declared
        if spec.perceive.kind != "index3x3":
            return 18.0 + (4.0 if decay else 0.0)
        return 9.0 + (6.0 if decay else 0.0)

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return runs(rule.compile()) and topology.bounded

    def advance(self, cells: np.ndarray, rule: Rule, topology: Topology, generations: int, *,
                clock: Clock | None = None) -> np.ndarray:
        """As :meth:`Engine.advance`; a stochastic rule draws from ``clock`` (None: seed 0, generation 0)."""
        spec = rule.compile()
        if not runs(spec) or not topology.bounded:
            raise EngineError(self.why_unsupported(rule, topology))
        # discrete states are uint8; continuous ones (Lenia) keep their float dtype
        cells = np.asarray(cells, dtype=np.uint8) if spec.state_space.discrete else np.asarray(cells)
        if spec.stochastic:
            out = advance_numpy(cells, spec, topology, generations, clock, step)
            return out.copy() if generations == 0 else out
        for _ in range(generations):
            cells = step(cells, spec, topology)
        return cells.copy() if generations == 0 else cells
