"""Flow Lenia: mass-conserving Lenia by reintegration tracking (Plantec et al. 2022, arXiv:2212.07906).

A world has ``C`` channels of non-negative mass ``A`` (floats, not held to [0, 1]) and kernels
``k = 0..K-1`` as in expanded Lenia (:class:`~tensorca.families.lenia_expanded.rule.Kernel`: ``c=source>target``,
shells ``b``, relative radius ``r``, core ``kn``, growth centre ``m`` and width ``s``, weight ``h``).
One step, with ``dt = 1/T`` and ``A_sum`` the sum over channels:

1. affinity ``U_c = sum_{k: target=c} h_k G_k(K_k * A_source(k))`` (Lenia's kernels and growth ``gn``;
   not divided by the sum of ``h``, as in Plantec's code);
2. flow ``F_c = (1 - alpha) grad(U_c) - alpha grad(A_sum)`` with
   ``alpha = clip((A_sum / theta)^n, 0, 1)``; ``grad`` is the (unnormalised) 3x3 Sobel operator on the
   torus, ``(d/dy, d/dx)``;
3. reintegration tracking: the mass of cell ``q`` moves to ``q + clip(dt F(q), -(dd - sigma), dd - sigma)``
   (per axis), spread uniformly over a ``2 sigma`` x ``2 sigma`` square; cell ``p`` receives the fraction
   of that square its unit square covers, ``prod_axes clip(1/2 + sigma - |p - mu|, 0, min(1, 2 sigma))
   / (4 sigma^2)``. Every square lies within ``dd`` cells of its source, so the ``(2 dd + 1)^2`` offsets
   catch all of it and each cell's mass is handed on whole: the total is conserved up to float rounding.
   Each axis's fractions are differences of the segment's cumulative coverage, snapped to the dtype's
   resolution, so they add up to exactly 1 in floating point (:func:`_overlaps`): computed directly,
   ``1/2 + sigma`` rounded to float32 biased a float32 grid's mass by about -1e-8 a step (-1.3e-5 over
   1,000 steps); what remains is the rounding of the products and sums (1.6e-7 over those 1,000 steps
   of the bundled creature, 2e-16 in float64).

Torus only: the grid's shape is the torus (a shifted torus, plane or other topology raises
:class:`~tensorca.errors.TopologyError`). :class:`FlowLenia` is the parameter value; its text, which
:meth:`FlowLenia.parse` reads back, follows :class:`~tensorca.families.lenia_expanded.rule.ExpandedLenia`'s::

    FlowLenia(R=13,T=5,C=1,gn=1,theta=1,n=2,dd=5,sigma=0.65;c=0>0,b=[1],m=0.15,s=0.015,h=1,r=1,kn=1)

(world fields ``R``, ``T``, ``C`` required, ``gn`` (1), ``theta`` (1), ``n`` (2), ``dd`` (5),
``sigma`` (0.65) optional; then one ``;``-separated group per kernel). It is not a tensorca rule:
``tensorca.run`` does not take it; :func:`run_flow` steps it.

:func:`numpy_step` is the float64 reference; :func:`torch_step` computes the same on any device in
float32 or float64, differentiable in the cells and in ``m``, ``s``, ``h`` (given as tensors).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from ..errors import GridError, RuleError, TopologyError, UsageError
from ..families.lenia.rule import MAX_RADIUS, GrowthUpdate, _float, _int, _number, growth
from ..families.lenia_expanded.rule import (
    MAX_CHANNELS,
    MAX_KERNELS,
    ExpandedLenia,
    Kernel,
    _fields,
    _fraction,
    _kernel,
    kernel_groups,
)
from ..families.lenia_expanded.steps import _kernel_spectra
from ..rules._errors import fail
from ..topology import Topology, resolve_topology

__all__ = ["FlowCreature", "FlowLenia", "flow_creature", "flow_creature_names", "numpy_step", "parse_flow",
           "run_flow", "torch_step"]

PREFIX = "flowlenia("
#: Largest reintegration distance: a step costs ``(2 dd + 1)^2`` weighted shifts of the grid.
MAX_DD = 32


@dataclass(frozen=True)
class FlowLenia:
    """A Flow Lenia world (see the module docstring): kernel radius ``R`` (cells), ``T`` (``dt = 1/T``),
    ``channels``, ``kernels``, growth function ``gn`` (1..3), ``theta`` and ``n`` of ``alpha``,
    reintegration distance ``dd`` (cells) and spread ``sigma`` (``0 < sigma < dd``).

    ``str(world)`` is :meth:`canonical`; bad values raise :class:`~tensorca.errors.UsageError` naming
    the field."""

    R: int
    T: float
    channels: int
    kernels: tuple[Kernel, ...]
    gn: int = 1
    theta: float = 1.0
    n: float = 2.0
    dd: int = 5
    sigma: float = 0.65

    def __post_init__(self) -> None:
        checks = (
            ("R", isinstance(self.R, int) and 1 <= self.R <= MAX_RADIUS, f"an integer in 1..{MAX_RADIUS}"),
            ("T", _finite(self.T) and self.T > 0, "a number > 0"),
            ("C", isinstance(self.channels, int) and 1 <= self.channels <= MAX_CHANNELS,
             f"an integer in 1..{MAX_CHANNELS}"),
            ("gn", self.gn in (1, 2, 3), "1, 2 or 3"),
            ("theta", _finite(self.theta) and self.theta > 0, "a number > 0"),
            ("n", _finite(self.n) and self.n >= 1, "a number >= 1 (alpha's gradient is infinite at 0 below 1)"),
            ("dd", isinstance(self.dd, int) and 1 <= self.dd <= MAX_DD, f"an integer in 1..{MAX_DD}"),
            ("sigma", _finite(self.sigma) and 0 < self.sigma < (self.dd if isinstance(self.dd, int) else 0),
             f"a number in (0, dd={self.dd})"),
        )
        for name, ok, want in checks:
            if not ok:
                value = self.channels if name == "C" else getattr(self, name)
                raise UsageError(f"FlowLenia {name} must be {want}, got {value!r}")
        if not 1 <= len(self.kernels) <= MAX_KERNELS:
            raise UsageError(f"FlowLenia needs 1 to {MAX_KERNELS} kernels, got {len(self.kernels)}")
        for i, k in enumerate(self.kernels):
            if not isinstance(k, Kernel):
                raise UsageError(f"FlowLenia kernel {i} must be a tensorca.lenia.Kernel, got {type(k).__name__}")
            bad = _bad_kernel_field(k, self.channels)
            if bad:
                raise UsageError(f"FlowLenia kernel {i} field {bad}")
        try:
            self.lenia()  # every kernel must weigh at least one cell
        except UsageError as exc:
            raise UsageError(f"FlowLenia {exc}") from None

    # -- text ---------------------------------------------------------------------------------------

    def canonical(self) -> str:
        """The rule text (see the module docstring) that :meth:`parse` reads back as an equal value."""
        head = (f"R={self.R},T={_number(self.T)},C={self.channels},gn={self.gn},theta={_number(self.theta)},"
                f"n={_number(self.n)},dd={self.dd},sigma={_number(self.sigma)}")
        groups = [f"c={k.source}>{k.target},b=[{','.join(_fraction(b) for b in k.b)}],m={_number(k.m)},"
                  f"s={_number(k.s)},h={_number(k.h)},r={_number(k.r)},kn={k.kn}" for k in self.kernels]
        return f"FlowLenia({';'.join([head, *groups])})"

    def __str__(self) -> str:
        return self.canonical()

    @classmethod
    def parse(cls, text: str) -> FlowLenia:
        """:func:`parse_flow`."""
        return parse_flow(text)

    # -- pieces ---------------------------------------------------------------------------------------

    def lenia(self) -> ExpandedLenia:
        """The expanded Lenia world with the same ``R``, ``T``, channels, kernels and ``gn``: the kernels'
        windows and transforms come from it."""
        return _expanded(self.R, self.T, self.channels, self.kernels, self.gn)

    @property
    def dt(self) -> float:
        return 1.0 / self.T

    @property
    def max_shift(self) -> float:
        """``dd - sigma``: the largest move of a cell's mass along one axis in one step."""
        return self.dd - self.sigma


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _bad_kernel_field(k: Kernel, channels: int) -> str | None:
    """``"<name> must be ..., got ..."`` for the first bad field of ``k``, else None."""
    checks = (
        ("c", isinstance(k.source, int) and isinstance(k.target, int) and 0 <= k.source < channels
         and 0 <= k.target < channels, f"source>target channels below C={channels}", f"{k.source}>{k.target}"),
        ("m", _finite(k.m) and k.m >= 0, "a number >= 0", k.m),
        ("s", _finite(k.s) and k.s > 0, "a number > 0", k.s),
        ("h", _finite(k.h) and k.h >= 0, "a number >= 0", k.h),
        ("r", _finite(k.r) and 0 < k.r <= 1, "a number in (0, 1]", k.r),
        ("kn", k.kn in (1, 2, 3, 4), "1, 2, 3 or 4", k.kn),
        ("b", bool(k.b) and all(_finite(b) and 0 <= b <= 1 for b in k.b) and any(k.b),
         "1 or more peaks in [0, 1], one > 0", k.b),
    )
    for name, ok, want, value in checks:
        if not ok:
            return f"{name} must be {want}, got {value!r}"
    return None


@functools.lru_cache(maxsize=32)
def _expanded(R: int, T: float, channels: int, kernels: tuple[Kernel, ...], gn: int) -> ExpandedLenia:
    return ExpandedLenia(R, T, channels, kernels, gn)


def parse_flow(text: str) -> FlowLenia:
    """A :class:`FlowLenia` from its text (``FlowLenia(R=..,T=..,C=..;c=0>0,b=..,m=..,s=..;...)``, the
    prefix in any case); :class:`~tensorca.errors.RuleError` naming the bad field and its position."""
    if not isinstance(text, str):
        raise UsageError(f"a Flow Lenia rule is a string, got {type(text).__name__}")
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    if text[start : start + len(PREFIX)].lower() != PREFIX:
        raise fail("a Flow Lenia rule starts with 'FlowLenia('", text, start)
    bounds = kernel_groups(text, start, end, "FlowLenia")
    head = _fields(text, *bounds[0], ("R", "T", "C", "gn", "theta", "n", "dd", "sigma"))
    missing = [key for key in ("R", "T", "C") if key not in head]
    if missing:
        raise fail(f"FlowLenia lacks {', '.join(missing)}", text, bounds[0][0])
    values: dict[str, Any] = {
        "R": _int(text, *head["R"][1:], "R", range(1, MAX_RADIUS + 1)),
        "T": _float(text, *head["T"][1:], "T"),
        "channels": _int(text, *head["C"][1:], "C", range(1, MAX_CHANNELS + 1)),
    }
    if "gn" in head:
        values["gn"] = _int(text, *head["gn"][1:], "gn", range(1, 4))
    if "dd" in head:
        values["dd"] = _int(text, *head["dd"][1:], "dd", range(1, MAX_DD + 1))
    for key in ("theta", "n", "sigma"):
        if key in head:
            values[key] = _float(text, *head[key][1:], key)
    if "n" in values and values["n"] < 1:
        raise fail(f"n must be >= 1, got {_number(values['n'])}", text, head["n"][1])
    if "sigma" in values and values["sigma"] >= values.get("dd", 5):
        raise fail(f"sigma must be below dd={values.get('dd', 5)}, got {_number(values['sigma'])}", text,
                   head["sigma"][1])
    kernels = tuple(_kernel(text, lo, hi, values["channels"]) for lo, hi in bounds[1:])
    try:
        return FlowLenia(kernels=kernels, **values)
    except UsageError as exc:  # a kernel with no weight on any cell
        raise RuleError(str(exc), text, start) from None


# -- checks ---------------------------------------------------------------------------------------------


def _torus(topology: str | Topology | None, shape: tuple[int, int]) -> None:
    """Refuse anything but the plain torus of the grid's ``shape`` (None is that torus)."""
    value = resolve_topology(topology, shape)
    if value is None:
        return
    if value.kind != "torus" or not value.simple:
        raise TopologyError(f"Flow Lenia runs on a plain torus only, got {value.suffix() or 'the unbounded plane'}")
    if value.shape != shape:
        raise TopologyError(f"topology {value.suffix()} does not match the grid's {shape[0]} x {shape[1]} cells")


def _batched(shape: tuple[int, ...], world: FlowLenia) -> bool:
    """True for ``(B, C, H, W)``, False for ``(C, H, W)``; GridError for other shapes or channel counts."""
    if len(shape) not in (3, 4) or shape[-3] != world.channels:
        raise GridError(f"Flow Lenia takes (C, H, W) or (B, C, H, W) cells with C={world.channels}, "
                        f"got shape {tuple(shape)}")
    return len(shape) == 4


def _check_values(cells: np.ndarray) -> None:
    """GridError for NaN, infinite or negative mass, naming the first such cell."""
    bad = ~np.isfinite(cells) | (cells < 0)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise GridError(f"Flow Lenia mass must be finite and >= 0, got {cells[where]!r} at index {where}")


# -- NumPy reference --------------------------------------------------------------------------------------


def _sobel(a: Any, roll: Any) -> tuple[Any, Any]:
    """``(d/dy, d/dx)`` of ``(..., H, W)`` by the unnormalised 3x3 Sobel operator on the torus
    (``roll(x, shift, axis)`` with NumPy's semantics: ``roll(x, 1, -1)[..., i] = x[..., i - 1]``)."""
    ys = roll(a, -1, -2) - roll(a, 1, -2)  # a[y + 1] - a[y - 1]
    xs = roll(a, -1, -1) - roll(a, 1, -1)
    return roll(ys, 1, -1) + 2 * ys + roll(ys, -1, -1), roll(xs, 1, -2) + 2 * xs + roll(xs, -1, -2)


def _np_roll(a: np.ndarray, shift: int, axis: int) -> np.ndarray:
    return np.roll(a, shift, axis)


def numpy_affinity(cells: np.ndarray, world: FlowLenia) -> np.ndarray:
    """``(B, C, H, W)`` float64 affinity ``U`` of ``(B, C, H, W)`` cells (step 1 of the module docstring)."""
    a = np.asarray(cells, dtype=np.float64)
    shape = (int(a.shape[-2]), int(a.shape[-1]))
    lenia = world.lenia()
    spectra = np.fft.rfft2(a)
    kernels = _kernel_spectra(lenia, shape)
    affinity = np.zeros_like(a)
    for i, k in enumerate(world.kernels):
        potential = np.fft.irfft2(spectra[:, k.source] * kernels[i], s=shape)
        affinity[:, k.target] += k.h * growth(GrowthUpdate(k.m, k.s, world.gn, world.T), potential)
    return affinity


def numpy_flow(cells: np.ndarray, world: FlowLenia) -> tuple[np.ndarray, np.ndarray]:
    """``(F_y, F_x)``, each ``(B, C, H, W)`` float64: the flow of ``(B, C, H, W)`` cells (step 2)."""
    a = np.asarray(cells, dtype=np.float64)
    total = a.sum(axis=1, keepdims=True)
    alpha = np.clip((total / world.theta) ** world.n, 0, 1)
    uy, ux = _sobel(numpy_affinity(a, world), _np_roll)
    ay, ax = _sobel(total, _np_roll)
    return uy * (1 - alpha) - ay * alpha, ux * (1 - alpha) - ax * alpha


def _overlaps(shift: Any, world: FlowLenia, clip: Any, snap: Any) -> list[Any]:
    """Per offset ``d = -dd..dd``: the fraction along one axis of the ``2 sigma`` segment centred at
    ``shift`` (an array or tensor, relative to each source cell) that the unit cell at ``d`` covers.

    Written as ``E(d + 1/2) - E(d - 1/2)`` with ``E(t) = clip((t - shift + sigma) / (2 sigma), 0, 1)``,
    the part of the segment below ``t``, each ``E`` snapped (``snap``) to a multiple of the dtype's
    resolution at 1 (``2^-24`` float32, ``2^-53`` float64): the differences and their running sums are
    then exact in floating point, so the fractions add up to exactly ``E(dd + 1/2) - E(-dd - 1/2) = 1``
    and no rounding (of ``sigma`` in float32, say) biases the mass."""
    start, width = world.sigma - 0.5, 2 * world.sigma
    edges = [snap(clip((start + d - shift) / width, 0.0, 1.0)) for d in range(-world.dd, world.dd + 2)]
    return [upper - lower for lower, upper in zip(edges[:-1], edges[1:], strict=True)]


def _np_snap(edge: np.ndarray) -> np.ndarray:
    """``edge`` in [0, 1] rounded to a multiple of 2^-53 (float64's resolution at 1)."""
    return np.round(edge * 2.0**53) / 2.0**53


def _torch_snap(edge: Any) -> Any:
    """``edge`` in [0, 1] rounded to a multiple of its dtype's resolution at 1; the gradient is the
    unrounded edge's (straight through: the change is at most half that resolution)."""
    import torch

    scale = 2.0 ** (24 if edge.dtype == torch.float32 else 53)
    return edge - (edge - torch.round(edge * scale) / scale).detach()


def numpy_step(cells: np.ndarray, world: FlowLenia, topology: str | Topology | None = None) -> np.ndarray:
    """One Flow Lenia step of ``(C, H, W)`` or ``(B, C, H, W)`` mass on the torus of the grid's shape:
    float64 arithmetic, the same shape out (float64, or the input's float dtype)."""
    batched = _batched(np.shape(cells), world)
    _torus(topology, (int(np.shape(cells)[-2]), int(np.shape(cells)[-1])))
    a = np.asarray(cells, dtype=np.float64)
    a = a if batched else a[None]
    fy, fx = numpy_flow(a, world)
    limit = world.max_shift
    shift_y, shift_x = np.clip(fy * world.dt, -limit, limit), np.clip(fx * world.dt, -limit, limit)
    out = np.zeros_like(a)
    offsets = range(-world.dd, world.dd + 1)
    for dy, along_y in zip(offsets, _overlaps(shift_y, world, np.clip, _np_snap), strict=True):
        for dx, along_x in zip(offsets, _overlaps(shift_x, world, np.clip, _np_snap), strict=True):
            out += np.roll(a * along_y * along_x, (dy, dx), axis=(-2, -1))  # source q feeds q + (dy, dx)
    out = out if batched else out[0]
    dtype = cells.dtype if isinstance(cells, np.ndarray) and cells.dtype in (np.float32, np.float64) else np.float64
    return out.astype(dtype, copy=False)


# -- torch ------------------------------------------------------------------------------------------------


def _torch_tables(world: FlowLenia, shape: tuple[int, int], dtype: Any, device: Any) -> tuple[Any, ...]:
    """On ``device`` in ``dtype``: the kernels' ``rfft2`` ``(K, H, W // 2 + 1)``, their source and target
    channel indices ``(K,)``, and their ``m``, ``s``, ``h`` as ``(1, K, 1, 1)`` tensors."""
    import torch

    lenia = world.lenia()
    kernels = np.stack([lenia.kernel_grid(i, shape) for i in range(len(world.kernels))])
    fields = (torch.tensor([[getattr(k, name) for k in world.kernels]], dtype=dtype, device=device).view(1, -1, 1, 1)
              for name in ("m", "s", "h"))
    return (torch.fft.rfft2(torch.from_numpy(kernels).to(device, dtype)),
            torch.tensor([k.source for k in world.kernels], device=device),
            torch.tensor([k.target for k in world.kernels], device=device), *fields)


def _parameter(value: Any, default: Any, name: str) -> Any:
    """``value`` (a ``(K,)`` tensor, kept in the graph) as ``(1, K, 1, 1)`` in ``default``'s dtype, or
    ``default``, the world's own values, when ``value`` is None."""
    if value is None:
        return default
    if tuple(value.shape) != (default.shape[1],):
        raise UsageError(f"{name} must be a ({default.shape[1]},) tensor, one per kernel, got {tuple(value.shape)}")
    return value.to(dtype=default.dtype, device=default.device).view(1, -1, 1, 1)


def _torch_roll(a: Any, shift: int, axis: int) -> Any:
    import torch

    return torch.roll(a, shift, axis)


def torch_step(cells: Any, world: FlowLenia, *, m: Any = None, s: Any = None, h: Any = None,
               _cache: dict | None = None) -> Any:
    """One Flow Lenia step of a ``(C, H, W)`` or ``(B, C, H, W)`` float32/float64 tensor on its torus and
    device (the same shape and dtype out; tensor operations only, no host synchronisation).

    ``m``, ``s``, ``h``: optional ``(K,)`` tensors replacing the kernels' values, so autograd reaches
    them as it reaches the cells. ``_cache`` (a dict the caller keeps) holds the kernels' transforms.
    """
    import torch

    from ..families.lenia.steps import growth_of

    batched = _batched(tuple(cells.shape), world)
    if cells.dtype not in (torch.float32, torch.float64):
        raise GridError(f"Flow Lenia takes float32 or float64 tensors, got {cells.dtype}")
    a = cells if batched else cells[None]
    shape = (int(a.shape[-2]), int(a.shape[-1]))
    cache = _cache if _cache is not None else {}
    key = (world, shape, a.dtype, str(a.device))
    if key not in cache:
        cache[key] = _torch_tables(world, shape, a.dtype, a.device)
    kernel_rfft, sources, targets, *defaults = cache[key]
    m_, s_, h_ = (_parameter(v, d, name) for v, d, name in zip((m, s, h), defaults, "msh", strict=True))

    potential = torch.fft.irfft2(torch.fft.rfft2(a[:, sources]) * kernel_rfft, s=shape)  # (B, K, H, W)
    affinity = torch.zeros_like(a).index_add(1, targets, h_ * growth_of(world.gn, potential, m_, s_))
    total = a.sum(dim=1, keepdim=True)
    alpha = torch.clamp(total / world.theta, max=1.0) ** world.n  # (x / theta)^n clipped to 1, x >= 0
    uy, ux = _sobel(affinity, _torch_roll)
    ay, ax = _sobel(total, _torch_roll)
    limit = world.max_shift
    shift_y = torch.clamp((uy * (1 - alpha) - ay * alpha) * world.dt, -limit, limit)
    shift_x = torch.clamp((ux * (1 - alpha) - ax * alpha) * world.dt, -limit, limit)

    offsets = range(-world.dd, world.dd + 1)
    along_x = _overlaps(shift_x, world, torch.clamp, _torch_snap)
    out = torch.zeros_like(a)
    for dy, along_y in zip(offsets, _overlaps(shift_y, world, torch.clamp, _torch_snap), strict=True):
        weighted = a * along_y
        row = torch.zeros_like(a)
        for dx, weight_x in zip(offsets, along_x, strict=True):
            row = row + torch.roll(weighted * weight_x, dx, -1)
        out = out + torch.roll(row, dy, -2)  # source q feeds q + (dy, dx)
    return out if batched else out[0]


# -- running ----------------------------------------------------------------------------------------------


def run_flow(cells: Any, world: FlowLenia | str, steps: int, topology: str | Topology | None = None) -> Any:
    """``steps`` Flow Lenia steps of ``(C, H, W)`` or ``(B, C, H, W)`` mass on the torus of the grid's shape.

    A NumPy array runs on the float64 reference (float32 in, float32 out, rounded each step); a torch
    tensor on :func:`torch_step` on its device in its dtype, autograd kept. ``world``: a
    :class:`FlowLenia` or its text. Mass must be finite and >= 0
    (:class:`~tensorca.errors.GridError` otherwise, checked once before the first step).
    """
    world = parse_flow(world) if isinstance(world, str) else world
    if not isinstance(world, FlowLenia):
        raise UsageError(f"run_flow needs a FlowLenia world or its text, got {type(world).__name__}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise UsageError(f"steps must be an integer >= 0, got {steps!r}")
    _batched(tuple(np.shape(cells)) if isinstance(cells, np.ndarray) else tuple(cells.shape), world)
    _torus(topology, (int(cells.shape[-2]), int(cells.shape[-1])))
    if isinstance(cells, np.ndarray):
        if not np.issubdtype(cells.dtype, np.floating):
            raise GridError(f"Flow Lenia takes float32 or float64 mass, got {cells.dtype}; convert it with "
                            ".astype(np.float64)")
        _check_values(cells)
        for _ in range(steps):
            cells = numpy_step(cells, world)
        return cells
    import torch

    if not isinstance(cells, torch.Tensor):
        raise UsageError(f"run_flow takes a NumPy array or a torch tensor, got {type(cells).__name__}")
    _check_values(cells.detach().cpu().double().numpy())
    cache: dict = {}
    for _ in range(steps):
        cells = torch_step(cells, world, _cache=cache)
    return cells


# -- creatures --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)  # compared by identity: cells is an array
class FlowCreature:
    """A bundled Flow Lenia creature: ``world`` and its start ``cells``, ``(C, h, w)`` float64 mass."""

    code: str
    name: str
    world: FlowLenia
    cells: np.ndarray
    note: str = ""

    def field(self, shape: tuple[int, int] = (64, 64), dtype: type = np.float64) -> np.ndarray:
        """``(C, H, W)`` ``dtype`` mass: the creature's cells centred on an empty ``shape`` torus."""
        channels, h, w = self.cells.shape
        height, width = shape
        if h > height or w > width:
            raise UsageError(f"{self.name} is {h} x {w} cells, larger than the {height} x {width} grid")
        out: np.ndarray = np.zeros((channels, height, width), dtype=dtype)
        top, left = (height - h) // 2, (width - w) // 2
        out[:, top : top + h, left : left + w] = self.cells
        return out


@functools.lru_cache(maxsize=1)
def _bundled() -> tuple[dict[str, Any], ...]:
    text = resources.files(__package__).joinpath("data/flow_creatures.json").read_text(encoding="utf-8")
    return tuple(json.loads(text))


def flow_creature_names() -> list[tuple[str, str]]:
    """``(code, name)`` of every bundled Flow Lenia creature."""
    return [(e["code"], e["name"]) for e in _bundled()]


def flow_creature(code_or_name: str) -> FlowCreature:
    """A bundled Flow Lenia creature by name (case-insensitive) or code; its cells are stored in Chan's
    cell format (one string per channel, levels 0..255 read as ``level / 255``), as Lenia's are."""
    from .cells import decode_cells

    if not isinstance(code_or_name, str):
        raise UsageError(f"flow_creature takes a code or name string, got {type(code_or_name).__name__}")
    key = code_or_name.strip()
    found = [e for e in _bundled() if key.lower() in (e["name"].lower(), e["code"].lower())]
    if not found:
        known = ", ".join(f"{c} ({n})" for c, n in flow_creature_names())
        raise UsageError(f"no bundled Flow Lenia creature {key!r}; known: {known}")
    entry = found[0]
    planes = [decode_cells(text, "flow_creatures.json") for text in entry["cells"]]
    height, width = max(p.shape[0] for p in planes), max(p.shape[1] for p in planes)
    cells = np.zeros((len(planes), height, width))
    for i, plane in enumerate(planes):
        cells[i, : plane.shape[0], : plane.shape[1]] = plane
    return FlowCreature(entry["code"], entry["name"], parse_flow(entry["rule"]), cells, entry.get("note", ""))
