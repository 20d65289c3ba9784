"""Expanded (multi-channel, multi-kernel) Lenia: ``ExpandedLenia(R=13,T=10,C=2,gn=1;c=0>1,b=[1],...)``
(:mod:`tensorca.families.lenia_expanded.rule`); ``(C, H, W)`` float grids."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...rules.base import Rule
from ...rules.stepspec import StepSpec
from ..registry import Family

if TYPE_CHECKING:  # pragma: no cover
    from .rule import ExpandedLenia

KINDS = ("kernel_fft_channels", "growth_channels")
_STEPS = "tensorca.families.lenia_expanded.steps"


#: How an expanded Lenia world's rule string starts, in lower case.
EXPANDED_PREFIX = "expandedlenia("


def matches(body: str) -> bool:
    """``ExpandedLenia(...)`` (any case), told apart without importing the family's module."""
    return body[: len(EXPANDED_PREFIX)].lower() == EXPANDED_PREFIX


def parse(text: str, start: int, end: int) -> ExpandedLenia:
    """:func:`tensorca.families.lenia_expanded.rule.parse_expanded`, its module imported on first use."""
    from .rule import parse_expanded

    return parse_expanded(text, start, end)


def claims(rule: Rule) -> bool:
    """Multi-channel Lenia rules."""
    return rule.family == "lenia-expanded"


def cost(spec: StepSpec) -> tuple[str, float]:
    """FFT, scaled by the transformed planes over 2: C forward and K inverse transforms per grid, where
    one-channel Lenia makes one of each."""
    return "fft", spec.perceive.planes / 2.0  # type: ignore[union-attr]


FAMILY = Family(
    name="lenia-expanded",
    title="multi-channel, multi-kernel Lenia",
    claims=claims,
    samples=("ExpandedLenia(R=5,T=10,C=2,gn=1;c=0>0,b=[1],m=0.15,s=0.015,h=1,r=1,kn=1;"
             "c=1>0,b=[1/2,1],m=0.2,s=0.03,h=0.5,r=0.8,kn=1;c=0>1,b=[1],m=0.25,s=0.04,h=1,r=1,kn=2)",),
    cost=cost,
    notation=(matches, parse),
    steps={"numpy": {KINDS: f"{_STEPS}:engine_numpy_step"}, "torch": {KINDS: f"{_STEPS}:engine_torch_build"}},
    # per channel and kernel, per padded cell (3 channels, 4 kernels, 2x512^2): 26 B in float64 on
    # NumPy; 25 B in float32, 52 in float64 on torch
    cell_bytes={"numpy": lambda spec: 32.0 * spec.perceive.planes, "torch": lambda spec: 64.0 * spec.perceive.planes},
    engines=("numpy", "torch"),
    tolerance=1e-9,
)
