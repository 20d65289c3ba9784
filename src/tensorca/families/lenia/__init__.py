"""Lenia: Bert Chan's continuous CA in his parameter notation (``R=13,T=10,b=[1],m=0.15,s=0.015,kn=1,gn=1``;
:mod:`tensorca.families.lenia.rule`), run by FFT convolution; float grids, compared within a tolerance."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...rules.base import Rule
from ...rules.stepspec import StepSpec
from ..registry import Family

if TYPE_CHECKING:  # pragma: no cover
    from .rule import LeniaRule

KINDS = ("kernel_fft", "growth")
_STEPS = "tensorca.families.lenia.steps"


_LENIA_KEY = re.compile(r"R\s*=")


def matches(body: str) -> bool:
    """Chan's parameter string (``R=...``), bare or as ``Lenia(...)``: told apart without importing the
    family's module (fractions, NumPy kernels), which :func:`parse` imports on the first Lenia rule."""
    head = body.lstrip()
    if head[:6].lower() == "lenia(":
        return True
    return _LENIA_KEY.match(head) is not None


def parse(text: str, start: int, end: int) -> LeniaRule:
    """:func:`tensorca.families.lenia.rule.parse_lenia`, its module imported on first use."""
    from .rule import parse_lenia

    return parse_lenia(text, start, end)


def claims(rule: Rule) -> bool:
    """Chan's one-channel Lenia rules."""
    return rule.family == "lenia"


def cost(spec: StepSpec) -> tuple[str, float]:
    return "fft", 1.0


FAMILY = Family(
    name="lenia",
    title="Lenia (Chan's continuous CA), one channel",
    claims=claims,
    samples=("R=5,T=10,b=[1],m=0.15,s=0.015,kn=1,gn=1", "R=4,T=5,b=[1,1/3],m=0.2,s=0.03,kn=2,gn=2",
             "R=3,T=10,b=[1/2,1],m=0.25,s=0.05,kn=4,gn=3", "R=6,T=8,b=[1],m=0.1,s=0.05,kn=3,gn=2"),
    cost=cost,
    notation=(matches, parse),
    steps={"numpy": {KINDS: f"{_STEPS}:numpy_step"}, "torch": {KINDS: f"{_STEPS}:torch_build"}},
    # FFT per cell, 512^2, one thread: ~15 ns on NumPy, ~5 on torch
    factors={"fft": {"numpy": {"cell": 6.0}, "torch@cpu": {"cell": 10.0}}},
    # Per cell of the grid padded by R. NumPy computes in float64 whatever the input: the grid, its rfft2
    # and the product, irfft2, growth temporaries, the output (measured peaks 44 B/cell on a 2x1024^2
    # torus, 54 on a plane). torch works in the input's dtype: 48 B/cell in float32, 103 in float64; the
    # dtype is not known when planning, so float64 (autograd keeps every generation's temporaries: more).
    cell_bytes={"numpy": 48.0, "torch": 104.0},
    engines=("numpy", "torch"),
    tolerance=1e-9,
)
