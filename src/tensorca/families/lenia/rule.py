"""Lenia (Bert Chan's continuous CA) as a rule family: parse Chan's parameter string, compile to a spec.

A rule is Chan's own parameter string, as in his ``animals.json`` and notebooks::

    R=13,T=10,b=[1],m=0.15,s=0.015,kn=1,gn=1          (optionally wrapped: Lenia(R=13,...))

One generation on a grid ``A`` of floats in ``[0, 1]`` is ``A <- clip(A + G(K * A) / T, 0, 1)``:

- ``K`` (:func:`kernel_window`): for ``r = distance / R < 1``, ``b[floor(B r)] * core(B r mod 1)``
  with ``B = len(b)`` shells, normalised to sum 1; ``core`` by ``kn``: 1 polynomial
  ``(4r(1-r))^4``, 2 exponential ``exp(4 - 1/(r(1-r)))``, 3 step ``1/4 <= r <= 3/4``, 4 staircase
  (the step plus ``1/2`` for ``r < 1/4``);
- ``G`` (:func:`growth`) by ``gn``: 1 polynomial ``max(0, 1 - (x-m)^2/(9 s^2))^4 * 2 - 1``,
  2 gaussian ``exp(-(x-m)^2/(2 s^2)) * 2 - 1``, 3 step ``(|x-m| <= s) * 2 - 1`` (a potential
  within :data:`STEP_EDGE` of the band's edge counts as inside: see there).

Compiles to perceive :class:`KernelFFT` (``kernel_fft``) and update :class:`GrowthUpdate`
(``growth``) on a continuous state space; engines build the kernel array per grid shape
(:func:`kernel_on_grid`). Malformed text raises :class:`~tensorca.errors.RuleError` with the
position of the offending part.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Literal

import numpy as np

from ...rules._errors import fail
from ...rules.base import Rule
from ...rules.stepspec import StateSpace, StepSpec

__all__ = ["GrowthUpdate", "KernelFFT", "LeniaRule", "growth", "kernel_on_grid", "kernel_window", "parse_lenia"]

#: Radii above this are refused: the kernel window alone would be (2R+1)^2 floats.
MAX_RADIUS = 1024


@dataclass(frozen=True)
class KernelFFT:
    """Perceive ``K * A``: the convolution with the normalised ring kernel of radius ``R``.

    ``b``: the shell peaks (floats), ``kn``: the kernel core. The array is built per grid shape by
    :func:`kernel_on_grid` (float64, sums to 1).
    """

    R: int
    b: tuple[float, ...]
    kn: int
    kind: Literal["kernel_fft"] = "kernel_fft"


@dataclass(frozen=True)
class GrowthUpdate:
    """Update ``A <- clip(A + G(U) / T, 0, 1)`` with ``G`` the growth function ``gn`` at ``m``, ``s``."""

    m: float
    s: float
    gn: int
    T: float
    kind: Literal["growth"] = "growth"


def kernel_core(r: np.ndarray, kn: int) -> np.ndarray:
    """Chan's kernel core ``kn`` at ``r`` in [0, 1] (float64, same shape)."""
    r = np.asarray(r, dtype=np.float64)
    if kn == 1:
        return (4 * r * (1 - r)) ** 4
    if kn == 2:
        inside = (r > 0) & (r < 1)
        safe = np.where(inside, r, 0.5)  # exp(4 - 1/0) is 0: keep the division finite
        return np.where(inside, np.exp(4 - 1 / (safe * (1 - safe))), 0.0)
    step = ((r >= 0.25) & (r <= 0.75)).astype(np.float64)
    return step if kn == 3 else step + 0.5 * (r < 0.25)


def kernel_shell(r: np.ndarray, b: tuple[float, ...], kn: int) -> np.ndarray:
    """Unnormalised kernel at relative distance ``r`` (0 for ``r >= 1``): ``b[floor(B r)] * core(B r mod 1)``."""
    shells = len(b)
    br = shells * np.asarray(r, dtype=np.float64)
    peak = np.asarray(b, dtype=np.float64)[np.minimum(np.floor(br).astype(np.int64), shells - 1)]
    return np.where(br < shells, peak * kernel_core(np.minimum(br % 1, 1), kn), 0.0)


def kernel_window(perceive: KernelFFT) -> np.ndarray:
    """``(2R+1, 2R+1)`` float64 kernel centred on ``[R, R]``, normalised to sum 1."""
    radius = perceive.R
    dy, dx = np.mgrid[-radius : radius + 1, -radius : radius + 1]
    window = kernel_shell(np.sqrt(dy**2 + dx**2) / radius, perceive.b, perceive.kn)
    return window / window.sum()


def kernel_on_grid(perceive: KernelFFT, shape: tuple[int, int]) -> np.ndarray:
    """``(H, W)`` float64 kernel for a circular convolution: offset ``(dy, dx)`` at ``[dy % H, dx % W]``.

    Offsets that land on the same cell (a grid smaller than the kernel) add up, exactly as the
    torus folds them.
    """
    height, width = shape
    radius = perceive.R
    window = kernel_window(perceive)
    grid = np.zeros(shape, dtype=np.float64)
    rows = np.arange(-radius, radius + 1) % height
    cols = np.arange(-radius, radius + 1) % width
    np.add.at(grid, (rows[:, None], cols[None, :]), window)
    return grid


#: The step growth (``gn=3``) counts a potential within this of its band's edge, ``|x - m| = s``, as
#: inside. Under step growth a cell moves by exactly ``1/T`` a generation and saturates at 0 or 1,
#: so potentials land *on* the edge (``U = 0.3`` for ``m=0.25, s=0.05``), and there an FFT's round-off
#: (~1e-15 in float64, different for NumPy's and torch's FFTs, CPU and GPU) would decide the cell:
#: engines disagreed on such cells within 7 generations (``tensorca verify``). Differences below
#: 1e-10 are round-off, not dynamics; float32 grids (round-off ~1e-7) cannot be tie-exact.
STEP_EDGE = 1e-10


def growth(update: GrowthUpdate, potential: np.ndarray) -> np.ndarray:
    """Chan's growth ``G`` (values in [-1, 1]) of ``potential``, float64."""
    x = np.asarray(potential, dtype=np.float64)
    m, s = update.m, update.s
    if update.gn == 1:
        return np.maximum(0.0, 1 - (x - m) ** 2 / (9 * s**2)) ** 4 * 2 - 1
    if update.gn == 2:
        return np.exp(-((x - m) ** 2) / (2 * s**2)) * 2 - 1
    return (np.abs(x - m) <= s + STEP_EDGE) * 2.0 - 1


def _number(value: float) -> str:
    """Shortest spelling that reads back as ``value``: ``10``, ``0.15``."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))


@dataclass(frozen=True, eq=True)
class LeniaRule(Rule):
    """Chan's Lenia: radius ``R`` (cells), time resolution ``T``, shell peaks ``b``, growth centre ``m``
    and width ``s``, kernel core ``kn`` (1..4) and growth function ``gn`` (1..3); see the module docstring.
    ``b`` holds exact fractions (``1/3``); ``canonical()`` writes Chan's parameter string."""

    family: ClassVar[str] = "lenia"
    n_states: ClassVar[int] = 0  # continuous: no discrete states

    R: int
    T: float
    b: tuple[Fraction, ...]
    m: float
    s: float
    kn: int = 1
    gn: int = 1

    def canonical(self) -> str:
        peaks = ",".join(str(f) for f in self.b)
        return (f"R={self.R},T={_number(self.T)},b=[{peaks}],m={_number(self.m)},s={_number(self.s)},"
                f"kn={self.kn},gn={self.gn}")

    def growth_at_zero(self) -> float:
        """``G(0)``: positive means empty space grows (births from nothing)."""
        return float(growth(self._update(), np.zeros(())))

    def _update(self) -> GrowthUpdate:
        return GrowthUpdate(float(self.m), float(self.s), self.gn, float(self.T))

    def _compile(self) -> StepSpec:
        return StepSpec(
            perceive=KernelFFT(self.R, tuple(float(f) for f in self.b), self.kn),
            update=self._update(),
            reach=self.R,
            state_space=StateSpace("continuous", None, 0.0, 1.0),
            births_from_nothing=self.growth_at_zero() > 0,
        )


# -- parsing ------------------------------------------------------------------------------------

_KEYS = ("R", "T", "b", "m", "s", "kn", "gn")
_REQUIRED = ("R", "T", "b", "m", "s")
_FIELD = re.compile(r"\s*([A-Za-z]+)\s*=\s*", re.ASCII)
_FLOAT = re.compile(r"[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|\.[0-9]+([eE][-+]?[0-9]+)?", re.ASCII)
_FRACTION = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)(?:\s*/\s*([0-9]+))?\s*", re.ASCII)


def _split_fields(text: str, start: int, end: int) -> list[tuple[str, int, int, int]]:
    """``(key, key position, value start, value end)`` for each ``key=value`` of ``text[start:end]``;
    commas inside ``[...]`` do not split."""
    fields, pos = [], start
    while pos < end:
        match = _FIELD.match(text, pos, end)
        if match is None:
            raise fail("expected key=value (keys R, T, b, m, s, kn, gn)", text, pos)
        depth, value_start, cur = 0, match.end(), match.end()
        while cur < end and (text[cur] != "," or depth):
            depth += {"[": 1, "]": -1}.get(text[cur], 0)
            cur += 1
        fields.append((match.group(1), match.start(1), value_start, cur))
        pos = cur + 1
        if cur < end and pos >= end:
            raise fail("trailing comma", text, cur)
    return fields


def _float(text: str, start: int, end: int, key: str, positive: bool = True) -> float:
    value = text[start:end].strip()
    at = start + len(text[start:end]) - len(text[start:end].lstrip())
    if not _FLOAT.fullmatch(value):
        raise fail(f"{key} must be a non-negative decimal number, got {value!r}", text, at)
    number = float(value)
    if not math.isfinite(number) or (positive and number <= 0):
        raise fail(f"{key} must be a finite number > 0, got {value!r}", text, at)
    return number


def _int(text: str, start: int, end: int, key: str, allowed: range) -> int:
    value = text[start:end].strip()
    at = start + len(text[start:end]) - len(text[start:end].lstrip())
    if not value.isascii() or not value.isdigit() or len(value) > 6 or int(value) not in allowed:
        raise fail(f"{key} must be an integer in {allowed.start}..{allowed.stop - 1}, got {value!r}", text, at)
    return int(value)


def _peaks(text: str, start: int, end: int) -> tuple[Fraction, ...]:
    """``[1,1/3]`` (brackets optional, as in animals.json's ``"b": "1,1/3"``) as fractions."""
    inner_start, inner_end = start, end
    stripped = text[start:end].strip()
    if stripped.startswith("["):
        inner_start = text.index("[", start) + 1
        inner_end = text.rindex("]", start, end) if stripped.endswith("]") else -1
        if inner_end < 0:
            raise fail("b's '[' has no matching ']'", text, inner_start - 1)
    peaks, pos = [], inner_start
    for part in text[inner_start:inner_end].split(","):
        match = _FRACTION.fullmatch(part)
        if match is None or len(part) > 40:
            raise fail(f"b must list numbers or fractions like [1,1/3], got {part.strip()!r}", text, pos)
        if match.group(2) and int(match.group(2)) == 0:
            raise fail("b has a fraction with denominator 0", text, pos)
        value = Fraction(match.group(1)) / (int(match.group(2)) if match.group(2) else 1)
        if value < 0 or value > 1:
            raise fail(f"b's peaks lie in [0, 1], got {part.strip()!r}", text, pos)
        peaks.append(value)
        pos += len(part) + 1
    if len(peaks) > 64 or not any(peaks):
        raise fail("b must list 1 to 64 peaks, at least one of them > 0", text, start)
    return tuple(peaks)


def parse_lenia(text: str, start: int, end: int) -> LeniaRule:
    """Parse Chan's parameter string in ``text[start:end]`` (bare or ``Lenia(...)``) into a :class:`LeniaRule`."""
    body = text[start:end]
    if body[:6].lower() == "lenia(":
        if not body.endswith(")"):
            raise fail("Lenia( has no closing ')'", text, end - 1)
        start, end = start + 6, end - 1
    values: dict[str, object] = {}
    for key, at, lo, hi in _split_fields(text, start, end):
        if key not in _KEYS:
            raise fail(f"unknown Lenia parameter {key!r} (expected R, T, b, m, s, kn, gn)", text, at)
        if key in values:
            raise fail(f"Lenia parameter {key} given twice", text, at)
        if key == "R":
            values[key] = _int(text, lo, hi, key, range(1, MAX_RADIUS + 1))
        elif key in ("kn", "gn"):
            values[key] = _int(text, lo, hi, key, range(1, 5 if key == "kn" else 4))
        elif key == "b":
            values[key] = _peaks(text, lo, hi)
        else:
            values[key] = _float(text, lo, hi, key, positive=key != "m")
    missing = [key for key in _REQUIRED if key not in values]
    if missing:
        raise fail(f"Lenia rule lacks {', '.join(missing)}", text, end)
    rule = LeniaRule(**values)  # type: ignore[arg-type]
    shells = KernelFFT(rule.R, tuple(float(f) for f in rule.b), rule.kn)
    if not kernel_shell(np.hypot(*np.mgrid[-rule.R : rule.R + 1, -rule.R : rule.R + 1]) / rule.R,
                        shells.b, shells.kn).any():
        raise fail(f"the kernel has no weight on any cell at R={rule.R} (kn={rule.kn}, b={list(map(str, rule.b))}); "
                   "use a larger R", text, start)
    return rule

