"""Multi-channel, multi-kernel Lenia (Chan's "expanded" Lenia, ``LeniaNDKC.py``) as a rule family.

A world has ``C`` channels and kernels ``k = 0..K-1``, each reading a ``source`` channel and writing
a ``target`` channel with its own relative radius ``r``, shells ``b``, growth ``m``, ``s`` and weight
``h``. With ``dt = 1/T`` and ``D = distance / R``, kernel ``k`` is ``b[floor(B D / r)] * core(B D / r
mod 1)`` for ``D < r`` (normalised to sum 1), and one generation is, per channel ``c``::

    A_c <- clip(A_c + sum_{k: target=c} dt h_k G_k(K_k * A_source(k)) / sum_{k: target=c} h_k, 0, 1)

(a channel no kernel writes keeps its values). ``R``, ``T`` and the growth function ``gn`` are shared,
as in Chan's code (his kernel 0 carries them).

:class:`ExpandedLenia` is a rule value: ``tensorca.run(cells, world, n)`` runs ``(C, H, W)`` or
``(B, C, H, W)`` float cells on the NumPy reference (float64) and the torch engine (the input's
float dtype, autograd kept), on every bounded topology (a torus wraps; other kinds pad by the
largest kernel's reach, as plain Lenia does). Its rule string, which ``parse_rule`` reads back::

    ExpandedLenia(R=10,T=10,C=2,gn=1;c=0>1,b=[1,1/2],m=0.2,s=0.03,h=1,r=0.8,kn=1;c=1>0,b=[1],m=0.15,s=0.02)

(world fields, then one ``;``-separated group per kernel: ``c=source>target``, ``b``, ``m``, ``s``
and optionally ``h`` (1), ``r`` (1), ``kn`` (1)). ``parse_rule`` knows the notation without this
module: :mod:`tensorca.families.lenia_expanded` registers its matcher, whose parser imports this module on the
first such rule.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal

import numpy as np

from ...errors import RuleError, UsageError
from ...rules._errors import fail
from ...rules.base import Rule
from ...rules.stepspec import StateSpace, StepSpec
from ..lenia.rule import MAX_RADIUS, GrowthUpdate, _float, _int, _number, _peaks, growth, kernel_shell

__all__ = ["ExpandedLenia", "Kernel", "channel_scale", "parse_expanded"]

#: Most channels and kernels a world may have.
MAX_CHANNELS = 64
MAX_KERNELS = 256
KINDS = ("kernel_fft_channels", "growth_channels")


@dataclass(frozen=True)
class Kernel:
    """One kernel of an expanded world: channel ``source`` -> channel ``target``, see the module docstring."""

    m: float
    s: float
    h: float = 1.0
    r: float = 1.0
    b: tuple[float, ...] = (1.0,)
    source: int = 0
    target: int = 0
    kn: int = 1


@dataclass(frozen=True)
class ChannelKernels:
    """Perceive ``K_k * A_source(k)`` for every kernel of ``world`` (kind ``kernel_fft_channels``).

    ``planes``: the ``(H, W)`` float planes one generation transforms per grid (channels + kernels),
    what memory planning counts."""

    world: ExpandedLenia
    kind: Literal["kernel_fft_channels"] = "kernel_fft_channels"

    @property
    def planes(self) -> int:
        return self.world.channels + len(self.world.kernels)


@dataclass(frozen=True)
class ChannelGrowth:
    """Update every channel by the ``h``-weighted mean growth of the kernels that write it."""

    T: float
    gn: int
    kind: Literal["growth_channels"] = "growth_channels"


def _fraction(value: float) -> str:
    """``1``, ``1/3``: a shell peak as Chan writes it, read back as the same float."""
    near = Fraction(value).limit_denominator(1000)
    return str(near) if float(near) == value else repr(float(value))


@dataclass(frozen=True)
class ExpandedLenia(Rule):
    """An expanded Lenia world: radius ``R`` (cells), ``T``, growth function ``gn``, ``channels``, ``kernels``."""

    family: ClassVar[str] = "lenia-expanded"
    n_states: ClassVar[int] = 0  # continuous: no discrete states

    R: int
    T: float
    channels: int
    kernels: tuple[Kernel, ...]
    gn: int = 1

    def __post_init__(self) -> None:
        if not (1 <= self.R <= MAX_RADIUS and self.T > 0 and 1 <= self.channels <= MAX_CHANNELS
                and 1 <= len(self.kernels) <= MAX_KERNELS and self.gn in (1, 2, 3)):
            raise UsageError(f"bad expanded Lenia world: R={self.R}, T={self.T}, channels={self.channels}, "
                             f"{len(self.kernels)} kernels, gn={self.gn}")
        for i, k in enumerate(self.kernels):
            if not (0 <= k.source < self.channels and 0 <= k.target < self.channels):
                raise UsageError(f"kernel {i} joins channels {k.source} -> {k.target}; the world has {self.channels}")
            if (k.s <= 0 or k.h < 0 or k.m < 0 or not 0 < k.r <= 1 or k.kn not in (1, 2, 3, 4) or not k.b
                    or min(k.b) < 0 or not any(k.b)):
                raise UsageError(f"kernel {i} has bad parameters: {k}")
            if not self._window(i).any():
                raise UsageError(f"kernel {i} has no weight on any cell (R * r = {self.R * k.r:g}); "
                                 "use a larger R or r")

    @classmethod
    def from_chan(cls, params: list[dict[str, Any]], channels: int | None = None) -> ExpandedLenia:
        """A world from Chan's per-kernel params list (``{"R", "T", "b": "1,1/3", "m", "s", "h", "r",
        "kn", "gn", "c": [source, target]}``; ``R``, ``T``, ``gn`` read from the first)."""
        kernels = []
        for p in params:
            peaks = p.get("b", "1")
            peaks = peaks.split(",") if isinstance(peaks, str) else list(peaks)
            source, target = p.get("c", [0, 0])
            kernels.append(Kernel(float(p["m"]), float(p["s"]), float(p.get("h", 1)), float(p.get("r", 1)),
                                  tuple(float(Fraction(str(b))) for b in peaks), int(source), int(target),
                                  int(p.get("kn", 1))))
        first = params[0]
        count = channels if channels is not None else 1 + max(max(k.source, k.target) for k in kernels)
        return cls(int(first["R"]), float(first["T"]), count, tuple(kernels), int(first.get("gn", 1)))

    # -- the rule protocol ----------------------------------------------------------------------

    def canonical(self) -> str:
        head = f"R={self.R},T={_number(self.T)},C={self.channels},gn={self.gn}"
        groups = [f"c={k.source}>{k.target},b=[{','.join(_fraction(b) for b in k.b)}],m={_number(k.m)},"
                  f"s={_number(k.s)},h={_number(k.h)},r={_number(k.r)},kn={k.kn}" for k in self.kernels]
        return f"ExpandedLenia({';'.join([head, *groups])})"

    def _compile(self) -> StepSpec:
        return StepSpec(
            perceive=ChannelKernels(self),  # type: ignore[arg-type]
            update=ChannelGrowth(float(self.T), self.gn),  # type: ignore[arg-type]
            reach=max(self.reach_of(i) for i in range(len(self.kernels))),
            state_space=StateSpace("continuous", None, 0.0, 1.0, channels=self.channels),
            births_from_nothing=bool((self.growth_at_zero() > 0).any()),
        )

    def growth_at_zero(self) -> np.ndarray:
        """``(C,)``: each channel's change per generation in an empty world (positive: births from nothing)."""
        change = np.zeros(self.channels)
        for i, k in enumerate(self.kernels):
            change[k.target] += k.h * float(growth(self.growth_update(i), np.zeros(())))
        return change * channel_scale(self)

    # -- kernels ------------------------------------------------------------------------------

    def reach_of(self, index: int) -> int:
        """Cells kernel ``index`` reaches: ``ceil(R r)``."""
        return int(math.ceil(self.R * self.kernels[index].r))

    def _window(self, index: int) -> np.ndarray:
        """``(2q+1, 2q+1)`` unnormalised kernel ``index`` centred on ``[q, q]``, ``q`` its reach."""
        k, reach = self.kernels[index], self.reach_of(index)
        dy, dx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
        return kernel_shell(np.sqrt(dy**2 + dx**2) / (self.R * k.r), k.b, k.kn)

    def kernel_grid(self, index: int, shape: tuple[int, int]) -> np.ndarray:
        """``(H, W)`` float64 kernel ``index`` embedded in an ``(H, W)`` torus (offset (dy, dx) at [dy % H, dx % W])."""
        reach = self.reach_of(index)
        window = self._window(index)
        grid = np.zeros(shape)
        rows, cols = np.arange(-reach, reach + 1) % shape[0], np.arange(-reach, reach + 1) % shape[1]
        np.add.at(grid, (rows[:, None], cols[None, :]), window / window.sum())
        return grid

    def growth_update(self, index: int) -> GrowthUpdate:
        k = self.kernels[index]
        return GrowthUpdate(k.m, k.s, self.gn, self.T)

    def weights(self) -> np.ndarray:
        """``(C,)`` sum of ``h`` over the kernels writing each channel (0: the channel is left alone)."""
        total = np.zeros(self.channels)
        for k in self.kernels:
            total[k.target] += k.h
        return total


# -- the rule string ---------------------------------------------------------------------------------

_KEY = re.compile(r"\s*([A-Za-z]+)\s*=\s*", re.ASCII)
_ARROW = re.compile(r"\s*([0-9]{1,3})\s*>\s*([0-9]{1,3})\s*", re.ASCII)


def _fields(text: str, start: int, end: int, keys: tuple[str, ...]) -> dict[str, tuple[int, int, int]]:
    """``key -> (key position, value start, value end)`` of the ``key=value`` list in ``text[start:end]``
    (commas inside ``[...]`` do not split)."""
    found: dict[str, tuple[int, int, int]] = {}
    pos = start
    while pos < end:
        match = _KEY.match(text, pos, end)
        if match is None:
            raise fail(f"expected key=value (keys {', '.join(keys)})", text, pos)
        key, cur, depth = match.group(1), match.end(), 0
        while cur < end and (text[cur] != "," or depth):
            depth += {"[": 1, "]": -1}.get(text[cur], 0)
            cur += 1
        if key not in keys:
            raise fail(f"unknown parameter {key!r} here (expected {', '.join(keys)})", text, match.start(1))
        if key in found:
            raise fail(f"parameter {key} given twice", text, match.start(1))
        found[key] = (match.start(1), match.end(), cur)
        pos = cur + 1
        if cur < end and pos >= end:
            raise fail("trailing comma", text, cur)
    return found


def _kernel(text: str, start: int, end: int, channels: int) -> Kernel:
    fields = _fields(text, start, end, ("c", "b", "m", "s", "h", "r", "kn"))
    missing = [key for key in ("c", "b", "m", "s") if key not in fields]
    if missing:
        raise fail(f"a kernel needs c=source>target, b, m and s; this one lacks {', '.join(missing)}", text, start)
    at, lo, hi = fields["c"]
    arrow = _ARROW.fullmatch(text, lo, hi)
    if arrow is None:
        raise fail("c must be source>target channels, like c=0>1", text, lo)
    source, target = int(arrow.group(1)), int(arrow.group(2))
    if max(source, target) >= channels:
        raise fail(f"c={source}>{target} names a channel the world does not have (C={channels})", text, lo)
    r = _float(text, *fields["r"][1:], "r") if "r" in fields else 1.0
    if r > 1:
        raise fail(f"r is relative to R and lies in (0, 1], got {r:g}", text, fields["r"][1])
    return Kernel(
        m=_float(text, *fields["m"][1:], "m", positive=False),
        s=_float(text, *fields["s"][1:], "s"),
        h=_float(text, *fields["h"][1:], "h", positive=False) if "h" in fields else 1.0,
        r=r,
        b=tuple(float(f) for f in _peaks(text, *fields["b"][1:])),
        source=source,
        target=target,
        kn=_int(text, *fields["kn"][1:], "kn", range(1, 5)) if "kn" in fields else 1,
    )


def kernel_groups(text: str, start: int, end: int, name: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each ``;``-separated group inside ``name(...)`` in ``text[start:end]``: the world's
    fields, then one group per kernel (at most :data:`MAX_KERNELS`); RuleError with positions."""
    if not text[start:end].endswith(")"):
        raise fail(f"{name}( has no closing ')'", text, end - 1)
    inner, close = text.index("(", start) + 1, end - 1  # the matcher saw '<name>('
    bounds, pos = [], inner
    for i in range(inner, close + 1):
        if i == close or text[i] == ";":
            bounds.append((pos, i))
            pos = i + 1
    if len(bounds) < 2:
        raise fail(f"{name} needs the world's R, T, C, then one ';'-separated group per kernel", text, inner)
    if len(bounds) - 1 > MAX_KERNELS:
        raise fail(f"at most {MAX_KERNELS} kernels", text, bounds[MAX_KERNELS + 1][0])
    return bounds


def parse_expanded(text: str, start: int, end: int) -> ExpandedLenia:
    """Parse ``ExpandedLenia(...)`` in ``text[start:end]`` (see the module docstring); RuleError with positions."""
    bounds = kernel_groups(text, start, end, "ExpandedLenia")
    head = _fields(text, *bounds[0], ("R", "T", "C", "gn"))
    missing = [key for key in ("R", "T", "C") if key not in head]
    if missing:
        raise fail(f"ExpandedLenia lacks {', '.join(missing)}", text, bounds[0][0])
    radius = _int(text, *head["R"][1:], "R", range(1, MAX_RADIUS + 1))
    period = _float(text, *head["T"][1:], "T")
    channels = _int(text, *head["C"][1:], "C", range(1, MAX_CHANNELS + 1))
    gn = _int(text, *head["gn"][1:], "gn", range(1, 4)) if "gn" in head else 1
    kernels = tuple(_kernel(text, lo, hi, channels) for lo, hi in bounds[1:])
    try:
        return ExpandedLenia(radius, period, channels, kernels, gn)
    except UsageError as exc:  # a kernel with no weight on any cell
        raise RuleError(str(exc), text, start) from None


# -- steps -----------------------------------------------------------------------------------------


def channel_scale(world: ExpandedLenia) -> np.ndarray:
    """``(C,)`` float64: 1 / (sum of ``h`` over the kernels writing each channel), 0 where none does."""
    weight = world.weights()
    return np.where(weight > 0, 1 / np.where(weight > 0, weight, 1), 0)
