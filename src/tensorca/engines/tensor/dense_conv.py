"""``backend="dense-conv"``: the textbook PyTorch Life that users start from, kept as the baseline.

A float32 grid, circular padding (zero padding on a bounded plane), a 3x3 ``conv2d`` with a
kernel of ones and a zero centre, and the birth/survival comparisons::

    n = conv2d(pad(grid, circular), ones_with_zero_centre)
    grid = (dead & n in B) | (alive & n in S)

It is the "before" in every benchmark. It computes two-state outer-totalistic Moore rules
(Life-like B/S rules) only, and does so exactly (float32 counts up to 8 are exact).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ...errors import EngineError
from ...rules.base import Rule
from ...rules.stepspec import TableUpdate
from ...topology import Topology
from ..base import Engine
from .kernels import moore_count_table


def life_like_sets(rule: Rule) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(birth counts, survival counts)`` of a two-state outer-totalistic Moore rule, else None.

    Derived from the 512-entry table of the rule's step spec, so any spelling of such a rule qualifies.
    """
    spec = rule.compile()
    if spec.perceive.kind != "index3x3" or not isinstance(spec.update, TableUpdate) or spec.n_states != 2:
        return None
    counts = moore_count_table(spec.update.lookup())
    if counts is None:
        return None
    birth = tuple(n for n in range(9) if counts[n])
    survival = tuple(n for n in range(9) if counts[10 + n + 1])
    return birth, survival


class DenseConvEngine(Engine):
    """The conv2d-of-ones baseline for Life-like rules on torus and bounded plane, any device."""

    name = "dense-conv"
    array_module = "torch"

    def devices(self) -> list[str]:
        return ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]

    #: float32 grid, padded copy, counts, boolean comparisons, uint8 input and output.
    bytes_per_cell = 22.0

    def supports(self, rule: Rule, topology: Topology) -> bool:
        return topology.bounded and topology.simple and life_like_sets(rule) is not None

    def why_unsupported(self, rule: Rule, topology: Topology) -> str:
        if not topology.bounded or not topology.simple:
            return (
                f"engine 'dense-conv' runs the plain torus and the bounded plane only (circular or zero "
                f"padding), not {topology}; use backend='torch'"
            )
        return (
            f"engine 'dense-conv' is the Life-like baseline (two-state B/S rules on the Moore "
            f"neighbourhood); rule {rule.canonical()!r} ({rule.family}) needs backend='torch'"
        )

    def advance(self, cells: torch.Tensor, rule: Rule, topology: Topology, generations: int) -> torch.Tensor:
        sets = life_like_sets(rule)
        if sets is None or not self.supports(rule, topology):
            raise EngineError(self.why_unsupported(rule, topology))
        birth, survival = sets
        both = tuple(k for k in birth if k in survival)  # B3/S23: n == 3 whatever the cell
        only_survive = tuple(k for k in survival if k not in birth)  # B3/S23: alive & n == 2
        only_birth = tuple(k for k in birth if k not in survival)
        kernel = torch.ones((1, 1, 3, 3), dtype=torch.float32, device=cells.device)
        kernel[0, 0, 1, 1] = 0
        mode = "circular" if topology.kind == "torus" else "constant"
        grid = (cells == 1).to(torch.float32)[:, None]  # (B, 1, H, W)
        for _ in range(generations):
            n = F.conv2d(F.pad(grid, (1, 1, 1, 1), mode=mode), kernel)
            nxt = _isin(n, both)
            if only_survive:
                nxt = nxt | ((grid == 1) & _isin(n, only_survive))
            if only_birth:
                nxt = nxt | ((grid == 0) & _isin(n, only_birth))
            grid = nxt.to(torch.float32)
        return grid[:, 0].to(torch.uint8)


def _isin(n: torch.Tensor, counts: tuple[int, ...]) -> torch.Tensor:
    """``n == k`` for any ``k`` in ``counts`` (all False when empty)."""
    if not counts:
        return torch.zeros(n.shape, dtype=torch.bool, device=n.device)
    hit = n == counts[0]
    for k in counts[1:]:
        hit = hit | (n == k)
    return hit
