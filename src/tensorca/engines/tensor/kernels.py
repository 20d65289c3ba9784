"""Tensor kernels for the ``torch`` engine: padding, perceiving a neighbourhood, applying a rule.

Padding (:func:`pad`) is a wrap (torus), zeros (plane) or, for the other topologies, a gather of
the border ring from the grid cells :func:`tensorca.topology.padding_ring` names (:class:`RingPad`,
index tensors cached per topology, radius and device); the kernels below take whichever
:func:`padding` returns and never look at edges themselves.

Every function takes and returns tensors on one device and never synchronises with the host
(no ``.item()``, no ``.cpu()``, no Python branching on tensor values), so a multi-generation
loop built from them runs ahead of the host on CUDA and can be captured in a CUDA graph.

Shapes: grids are ``(B, H, W)``; ``alive`` is the ``uint8`` 0/1 grid of state-1 cells.

Perceive (one of):

- :func:`table_index`: the 9-bit 3x3 index (NW = 256 ... SE = 1), built separably: a 3-bit row
  code per cell from shifted slices of the padded row, then three row codes stacked vertically.
  One path for every two-state 3x3 rule (B/S, V, H, Hensel, MAP, ``Wn``) and Generations.
- :func:`conv_index`: the same index from a weighted 3x3 ``conv2d`` in float32 (exact: at most
  511), the formulation cuDNN accelerates; selectable on any device and measured on CUDA.
- :func:`moore_box_count`: the number of live cells in the 3x3 box (centre included), for
  rules whose table depends only on the centre and the Moore count (outer-totalistic Moore).
- :func:`mask_count`: the number of live cells under a Larger than Life neighbourhood mask,
  from prefix sums (box sums for Moore, horizontal runs otherwise), exact in int32.
- :func:`weighted_count`: Golly's weighted (``NW``, ``NG``) counts, one :func:`mask_count`-style
  sum per distinct weight (and per weighted state), as the reference decomposes them.

Update: a lookup in a small table on the device (:func:`lookup`), then Generations decay
(:func:`apply_decay`), exactly as :mod:`tensorca.engines.numpy_reference` defines them.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import torch
import torch.nn.functional as F

from ...errors import EngineError
from ...rules.neighbourhoods import TABLE_WEIGHTS, weight_levels
from ...topology import Topology, padding_ring
from ..numpy_grid import mask_runs  # the runs of a mask are plain Python: share them


def wrap_index(size: int, radius: int, device: torch.device) -> torch.Tensor:
    """``(size + 2 * radius,)`` int64 indices ``(-radius .. size + radius - 1) mod size`` (any radius)."""
    return (torch.arange(-radius, size + radius, device=device) % size).to(torch.int64)


@dataclasses.dataclass(frozen=True, eq=False)
class RingPad:
    """Padding for the kinds a wrap or zeros cannot express (shifted torus, Klein bottle, ...).

    ``dst``/``src`` are int64 flat indices on one device (from
    :func:`tensorca.topology.padding_ring`): padded cell ``dst[k]`` is grid cell ``src[k]``;
    the interior is copied as is. Built once per (topology, radius, device).
    """

    radius: int
    dst: torch.Tensor
    src: torch.Tensor


_RING_PADS: dict[tuple[Topology, int, str], RingPad] = {}


def padding(topology: Topology, radius: int, device: torch.device) -> str | RingPad:
    """What :func:`pad` needs for ``topology``: ``"torus"``, ``"plane"`` or a cached :class:`RingPad`."""
    if topology.simple:
        return "torus" if topology.kind == "torus" else "plane"
    key = (topology, radius, str(device))
    ring = _RING_PADS.get(key)
    if ring is None:
        dst, src = padding_ring(topology, radius)
        ring = RingPad(radius, torch.from_numpy(dst).to(device), torch.from_numpy(src).to(device))
        if len(_RING_PADS) > 64:
            _RING_PADS.clear()
        _RING_PADS[key] = ring
    return ring


def pad(cells: torch.Tensor, radius: int, kind: str | RingPad) -> torch.Tensor:
    """Pad ``(B, H, W)`` by ``radius`` on each side of H and W: wrap on a torus, zeros on a plane.

    On a torus the radius may exceed the grid (the wrap repeats, as ``np.pad(mode="wrap")``).
    A :class:`RingPad` (any other topology, see :func:`padding`) copies the interior and gathers
    the border ring from the grid cells it names.
    """
    if radius == 0:
        return cells
    batch, height, width = cells.shape
    if isinstance(kind, RingPad):
        if kind.radius != radius:
            raise EngineError(f"padding built for radius {kind.radius}, asked for {radius}")
        out = cells.new_empty((batch, height + 2 * radius, width + 2 * radius))
        out[:, radius : radius + height, radius : radius + width] = cells
        flat = cells.reshape(batch, height * width).index_select(1, kind.src)
        out.view(batch, -1).index_copy_(1, kind.dst, flat)
        return out
    if kind == "plane":
        return F.pad(cells, (radius, radius, radius, radius))
    if radius <= height and radius <= width:
        rows = torch.cat([cells[:, height - radius :], cells, cells[:, :radius]], dim=1)
        return torch.cat([rows[:, :, width - radius :], rows, rows[:, :, :radius]], dim=2)
    rows = cells.index_select(1, wrap_index(height, radius, cells.device))
    return rows.index_select(2, wrap_index(width, radius, cells.device))


def table_index(alive: torch.Tensor, kind: str | RingPad, fused: bool = False) -> torch.Tensor:
    """``(B, H, W)`` int32 9-bit neighbourhood index of ``alive`` (uint8 0/1), NW = 256 ... SE = 1.

    ``fused``: on a torus, read the neighbours through rolls instead of a padded copy (see
    :func:`moore_box_count`)."""
    if fused and kind == "torus":
        row = ((alive.roll(1, 2) << 2) | (alive << 1) | alive.roll(-1, 2)).to(torch.int32)
        return (row.roll(1, 1) << 6) | (row << 3) | row.roll(-1, 1)
    _, height, width = alive.shape
    padded = pad(alive, 1, kind)
    # Row code: west << 2 | centre << 1 | east (3 bits, still uint8), for every padded row.
    row = (padded[:, :, :width] << 2) | (padded[:, :, 1 : width + 1] << 1) | padded[:, :, 2:]
    row = row.to(torch.int32)
    return (row[:, :height] << 6) | (row[:, 1 : height + 1] << 3) | row[:, 2:]


def conv_weights(device: torch.device, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``(1, 1, 3, 3)`` table-index weights (NW = 256 ... SE = 1) for :func:`conv_index`."""
    return torch.tensor(TABLE_WEIGHTS.astype(np.float32), dtype=dtype, device=device)[None, None]


def conv_index(alive: torch.Tensor, kind: str | RingPad, weights: torch.Tensor) -> torch.Tensor:
    """The 9-bit index as :func:`table_index`, from a weighted 3x3 ``conv2d`` (exact in float32)."""
    padded = pad(alive, 1, kind).to(weights.dtype)[:, None]
    return F.conv2d(padded, weights)[:, 0].to(torch.int32)


def moore_box_count(alive: torch.Tensor, kind: str | RingPad, fused: bool = False) -> torch.Tensor:
    """``(B, H, W)`` uint8 number of live cells in each 3x3 box, centre included (0..9).

    ``fused``: on a torus, read the neighbours through rolls instead of a padded copy. For
    ``torch.compile``: Inductor turns a roll into wrapped indices inside the one kernel that reads
    it, but copies a padding built with ``cat`` in two extra passes (``aten.cat``). Run eagerly,
    each roll is a copy of its own, so the eager step pads once instead."""
    if fused and kind == "torus":
        rows = alive + alive.roll(1, 2) + alive.roll(-1, 2)
        return rows + rows.roll(1, 1) + rows.roll(-1, 1)
    _, height, width = alive.shape
    padded = pad(alive, 1, kind)
    rows = padded[:, :, :width] + padded[:, :, 1 : width + 1] + padded[:, :, 2:]
    return rows[:, :height] + rows[:, 1 : height + 1] + rows[:, 2:]


@dataclasses.dataclass(frozen=True)
class MaskPlan:
    """How :func:`mask_count` sums a neighbourhood mask: plain Python values, fixed per rule.

    ``box`` is ``"full"`` for a full square (Moore with the centre), ``"holed"`` for a square
    without its centre, ``None`` otherwise; ``runs`` lists ``(dy, first, last)`` mask runs.
    """

    radius: int
    box: str | None
    runs: tuple[tuple[int, int, int], ...]

    @classmethod
    def of(cls, mask: np.ndarray) -> MaskPlan:
        mask = np.asarray(mask)
        radius = mask.shape[0] // 2
        size = int(mask.sum())
        box = None
        if size == mask.size:
            box = "full"
        elif size == mask.size - 1 and not mask[radius, radius]:
            box = "holed"
        return cls(radius, box, tuple(mask_runs(mask)))


def mask_count(alive: torch.Tensor, plan: MaskPlan, kind: str | RingPad) -> torch.Tensor:
    """``(B, H, W)`` int32 number of live cells under a mask (see :class:`MaskPlan`) around each cell.

    A square mask (Moore; without the centre, the box minus the centre) is a box sum: one
    horizontal and one vertical prefix sum, two differences, whatever the range. Any other mask
    is summed from a horizontal prefix sum: each distinct run ``[first, last]`` of the mask rows
    is one difference, shared by every row that has it, then one add per row: the cost grows
    with the range, not its square.
    """
    return _plan_sum(_row_prefix(alive, plan.radius, kind), alive, plan)


def _row_prefix(alive: torch.Tensor, radius: int, kind: str | RingPad) -> torch.Tensor:
    """``prefix[..., j]`` = sum of the padded ``alive`` rows ``[..., :j]`` (int32)."""
    padded = pad(alive, radius, kind).to(torch.int32)
    return F.pad(padded, (1, 0)).cumsum(dim=2, dtype=torch.int32)


def _plan_sum(prefix: torch.Tensor, alive: torch.Tensor, plan: MaskPlan) -> torch.Tensor:
    _, height, width = alive.shape
    radius = plan.radius
    side = 2 * radius + 1
    if plan.box is not None:
        across = prefix[:, :, side:] - prefix[:, :, : width + 2 * radius + 1 - side]
        down = F.pad(across, (0, 0, 1, 0)).cumsum(dim=1, dtype=torch.int32)
        box = down[:, side:] - down[:, : height + 2 * radius + 1 - side]
        return box - alive.to(torch.int32) if plan.box == "holed" else box
    spans: dict[tuple[int, int], torch.Tensor] = {}
    count = torch.zeros(alive.shape, dtype=torch.int32, device=alive.device)
    for dy, first, last in plan.runs:
        span = spans.get((first, last))
        if span is None:
            span = prefix[:, :, last + 1 : last + 1 + width] - prefix[:, :, first : first + width]
            spans[(first, last)] = span
        count = count + span[:, dy : dy + height]
    return count


@dataclasses.dataclass(frozen=True)
class WeightPlan:
    """How :func:`weighted_count` sums a weighted neighbourhood: plain Python values, fixed per rule.

    ``levels`` pairs each distinct non-zero weight with the :class:`MaskPlan` of its cells;
    ``passes`` pairs a state with the factor its cells count (``((1, 1),)`` without state
    weights); ``base`` is added to every count; ``dtype`` is int32 unless a count could overflow it.
    """

    radius: int
    levels: tuple[tuple[int, MaskPlan], ...]
    passes: tuple[tuple[int, int], ...]
    base: int
    dtype: torch.dtype

    @classmethod
    def of(cls, weights: np.ndarray, state_weights: tuple[int, ...] | None) -> WeightPlan:
        weights = np.asarray(weights, dtype=np.int64)
        levels = tuple((v, MaskPlan.of(m)) for v, m in weight_levels(weights))
        if state_weights is None:
            passes, base = ((1, 1),), 0
        else:
            sw0 = state_weights[0]
            passes = tuple((s, w - sw0) for s, w in enumerate(state_weights) if s >= 1 and w != sw0)
            base = int(weights.sum()) * sw0
        bound = int(np.abs(weights).sum()) * (abs(base) + 1 + sum(abs(f) for _, f in passes))
        dtype = torch.int32 if bound < 2**31 else torch.int64
        return cls(weights.shape[0] // 2, levels, passes, base, dtype)


def weighted_count(cells: torch.Tensor, plan: WeightPlan, kind: str | RingPad) -> torch.Tensor:
    """``(B, H, W)`` weighted count (``plan.dtype``) of ``cells`` (uint8 states) around each cell:
    ``base + sum over passes (state, factor) and levels (value, mask) of factor * value *
    (cells == state under mask)``, exactly the reference's decomposition."""
    count = torch.full(cells.shape, plan.base, dtype=plan.dtype, device=cells.device)
    for state, factor in plan.passes:
        alive = (cells == state).to(torch.uint8)
        prefix = _row_prefix(alive, plan.radius, kind)
        for value, mask_plan in plan.levels:
            count = count + (factor * value) * _plan_sum(prefix, alive, mask_plan).to(plan.dtype)
    return count


def lookup(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``table[index]`` elementwise (``table`` 1-D on the device, ``index`` int32/int64 in range)."""
    return table.index_select(0, index.reshape(-1)).reshape(index.shape)


def apply_decay(cells: torch.Tensor, on: torch.Tensor, n_states: int) -> torch.Tensor:
    """Next states from the rule's verdict ``on`` (uint8 0/1: birth for state 0, survival for 1).

    Two states: ``on`` is the next state. Generations: state 0 -> ``on``; state 1 -> 1 if ``on``
    else 2; states 2..n-1 -> the next state, n-1 wrapping to 0 (``on`` ignored).
    """
    if n_states == 2:
        return on
    decayed = cells + 1  # uint8: 255 + 1 wraps to 0, which is right for 256 states
    if n_states < 256:
        decayed = torch.where(decayed >= n_states, torch.zeros_like(decayed), decayed)
    young = torch.where(cells == 1, 2 - on, on)
    return torch.where(cells >= 2, decayed, young)


def moore_count_table(table: np.ndarray) -> np.ndarray | None:
    """The 20-entry table ``t[10 * centre + box_count]`` equivalent to a 512-entry table, if any.

    Returns ``None`` unless the table's verdict depends only on the centre bit and the number
    of live cells in the 3x3 box (outer-totalistic Moore); derived from the table itself, so it
    is exact whatever the rule was called.
    """
    found = _moore_count_table(np.asarray(table, dtype=np.uint8).tobytes())
    return None if found is None else np.frombuffer(found, dtype=np.uint8).copy()


@functools.lru_cache(maxsize=256)
def _moore_count_table(table: bytes) -> bytes | None:
    out = [255] * 20
    for index in range(512):
        slot = 10 * ((index >> 4) & 1) + bin(index).count("1")
        if out[slot] == 255:
            out[slot] = table[index]
        elif out[slot] != table[index]:
            return None
    # Slots no index reaches (centre 1 with box count 0, centre 0 with box count 9) stay 0.
    return bytes(0 if v == 255 else v for v in out)


def interval_table(intervals: tuple[tuple[int, int], ...], max_count: int) -> np.ndarray:
    """``(max_count + 1,)`` uint8: 1 where the count lies in one of the inclusive intervals."""
    hit = np.zeros(max_count + 1, dtype=np.uint8)
    for lo, hi in intervals:
        lo, hi = max(lo, 0), min(hi, max_count)
        if lo <= hi:
            hit[lo : hi + 1] = 1
    return hit


def topology_kind(topology: Topology) -> str | Topology:
    """A cache key for the padding ``topology`` needs: ``"torus"`` or ``"plane"`` for those
    (any size), else the topology value itself (its padding depends on its size)."""
    if topology.simple:
        return "torus" if topology.kind == "torus" else "plane"
    return topology
