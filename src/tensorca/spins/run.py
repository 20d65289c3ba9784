"""``ising()`` and ``potts()``: run checkerboard sweeps of a batch of lattices on NumPy or torch.

Input and output follow tensorca's arrays: NumPy in gives NumPy out, a tensor in gives a tensor out
on its device, and a shape gives the chosen backend's kind. ``backend="torch"`` runs on ``device``
(a CUDA device too) with no host synchronisation inside the sweep loop; ``"numpy"`` is the
reference. Both give the same cells for the same seed, bit for bit.
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

import numpy as np

from ..arrays import TORCH_INSTALL, check_device, is_tensor
from ..cpu_load import torch_threads_capped
from ..errors import GridError, MissingDependencyError, UsageError
from ..randomness import uniform_cells
from . import params
from .checks import check_ising, check_ndim, check_potts, check_torus
from .observe import ising_values, potts_values
from .ops import ops_for
from .sweep import ising_half, lattice, potts_half

#: The draw index (at generation 0) of ``init="random"``: spin up (Ising) when ``u < 0.5``, Potts
#: state ``floor(u * q)``, ``u`` the site's :func:`tensorca.randomness.uniform_cells` value.
INIT_DRAW = 0xFFFF


class SpinSeries(NamedTuple):
    """Per-sweep observations, measured after each sweep: float64 ``(sweeps,)`` for one lattice,
    ``(sweeps, B)`` for a batch (NumPy, or tensors on the run's device for tensor output).
    ``magnetisation`` is Ising's m per site or Potts' order parameter; ``energy`` is per site."""

    magnetisation: Any
    energy: Any


def _is_shape(cells: Any) -> bool:
    return isinstance(cells, (tuple, list)) and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool)
                                                    for n in cells)


def _initial(shape: tuple[int, ...], model: str, q: int, seed: int, first_grid: int, init: str) -> np.ndarray:
    """A NumPy lattice of ``shape``: ordered (all +1, or all state 0) or random (``INIT_DRAW``)."""
    if len(shape) not in (2, 3) or any(n <= 0 for n in shape):
        raise GridError(f"spins: a lattice shape is (H, W) or (B, H, W) with positive sizes, got {tuple(shape)}")
    batch = (1, *shape) if len(shape) == 2 else tuple(shape)
    if init == "ordered":
        cells = np.ones(batch, np.int8) if model == "ising" else np.zeros(batch, np.uint8)
    else:
        u = np.stack([uniform_cells(seed, 0, batch[1:], draw=INIT_DRAW, grid=first_grid + b) for b in range(batch[0])])
        cells = np.where(u < 0.5, 1, -1).astype(np.int8) if model == "ising" else np.floor(u * q).astype(np.uint8)
    return cells[0] if len(shape) == 2 else cells


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("spins: backend='torch' needs PyTorch, which is not installed here",
                                     package="torch", install=TORCH_INSTALL) from None
    return torch


def _run(model: str, cells: Any, q: int, T: Any, sweeps: Any, seed: Any, dynamics: Any, h: Any, boundary: Any,
         backend: Any, device: Any, start_sweep: Any, first_grid: Any, init: Any, series: bool) -> Any:
    T = params.temperature(T)
    sweeps = params.integer("sweeps", sweeps)
    seed = params.integer("seed", seed, minimum=-(1 << 63))
    start_sweep = params.integer("start_sweep", start_sweep)
    first_grid = params.integer("first_grid", first_grid)
    h = params.field(h)
    dynamics = params.choice("dynamics", dynamics, params.DYNAMICS)
    boundary = params.choice("boundary", boundary, params.BOUNDARIES)
    init = params.choice("init", init, params.INITS)
    if backend is not None:
        backend = params.choice("backend", backend, ("numpy", "torch"))
    if backend == "numpy" and device is not None:
        raise UsageError("spins: device is for backend='torch'; the NumPy backend runs on the host")

    from_shape = _is_shape(cells)
    if from_shape:
        cells = _initial(tuple(int(n) for n in cells), model, q, seed, first_grid, init)
    elif not is_tensor(cells):
        if not isinstance(cells, np.ndarray):
            raise GridError(f"spins: expected a shape, a NumPy array or a torch tensor, got {type(cells).__name__}")
    check_ndim(cells)
    if model == "ising":
        check_ising(cells)
    else:
        check_potts(cells, q)
    check_torus(tuple(cells.shape), boundary)

    tensor_in = is_tensor(cells)
    backend = backend or ("torch" if tensor_in or device is not None else "numpy")
    if backend == "torch":
        torch = _torch()
        run_device = device if device is not None else (cells.device if tensor_in else "cpu")
        check_device(run_device)
        work = (cells if tensor_in else torch.from_numpy(np.ascontiguousarray(cells))).to(run_device)
    else:
        work = cells.detach().cpu().numpy() if tensor_in else cells
    single = work.ndim == 2
    work = work[None] if single else work
    ops = ops_for(backend, device=work.device if backend == "torch" else None)
    work = ops.copy_as(work, "int8" if model == "ising" else "int16")  # the input is never changed
    lat = lattice(ops, tuple(work.shape), boundary, seed, first_grid)  # type: ignore[arg-type]

    if model == "ising":
        values = (params.ising_metropolis_thresholds(T, h) if dynamics == "metropolis"
                  else params.ising_glauber_thresholds(T, h))
        table = ops.table(values, "int64")
    elif dynamics == "metropolis":
        table = ops.table(params.potts_metropolis_thresholds(T), "int64")
    else:
        table = ops.table(params.potts_heat_bath_weights(T), "float64")

    ms: list = []
    es: list = []
    cpu_torch = backend == "torch" and work.device.type == "cpu"
    # OpenMP barriers stall on cores other processes hold: torch on the CPU runs on the free ones
    with torch_threads_capped(_torch()) if cpu_torch else contextlib.nullcontext():
        for sweep in range(start_sweep, start_sweep + sweeps):
            for colour in (0, 1):
                if model == "ising":
                    ising_half(lat, work, sweep, colour, dynamics, table)
                else:
                    potts_half(lat, work, sweep, colour, q, dynamics, table)
            if series:
                m, e = (ising_values(ops, work, h, boundary) if model == "ising"
                        else potts_values(ops, work, q, boundary))
                ms.append(m)
                es.append(e)

    out = work if model == "ising" else ops.cast(work, "uint8")
    out = out[0] if single else out
    out = _like(out, cells, from_shape, backend)
    if not series:
        return out
    if ms:
        m_all, e_all = ops.stack(ms), ops.stack(es)
    else:
        m_all = e_all = ops.zeros((0, work.shape[0]), "float64")
    if single:
        m_all, e_all = m_all[:, 0], e_all[:, 0]
    return out, SpinSeries(_like(m_all, cells, from_shape, backend), _like(e_all, cells, from_shape, backend))


def _like(result: Any, original: Any, from_shape: bool, backend: str) -> Any:
    """``result`` as the kind of the input (a shape: the backend's kind; a tensor: on its device)."""
    if from_shape:
        return result
    if is_tensor(original):
        return result.to(original.device) if is_tensor(result) else _torch().from_numpy(result).to(original.device)
    return result.detach().cpu().numpy() if is_tensor(result) else result


def ising(spins: Any, T: float, sweeps: int, *, seed: int = 0, dynamics: str = "metropolis", h: float = 0.0,
          boundary: str = "torus", backend: str | None = None, device: Any = None, start_sweep: int = 0,
          first_grid: int = 0, init: str = "ordered", series: bool = False) -> Any:
    """Run ``sweeps`` checkerboard sweeps of the Ising model (J = 1) at temperature ``T`` and field ``h``.

    ``spins``: int8 +-1 ``(H, W)`` or ``(B, H, W)`` (NumPy array or torch tensor), or a shape to start
    from (``init="ordered"``: all +1; ``"random"``: +-1 with probability 1/2 from the seed).
    ``dynamics``: ``"metropolis"`` (flip with probability ``min(1, exp(-dE/T))``) or ``"glauber"``
    (heat bath: up with probability ``1 / (1 + exp(-2 (n + h) / T))``). ``boundary``: ``"torus"``
    (even height and width) or ``"plane"`` (free edges). ``T = math.inf`` is allowed (Metropolis
    there flips every spin every sweep, and nearly so far above Tc: use Glauber at high T).

    Randomness: sweep ``t`` (absolute: ``start_sweep + i``) updates colour ``c`` (0 = black, x + y
    even; 1 = white) with draws of generation ``2 t + c``, grid ``first_grid + b`` for batch entry
    ``b``; so ``ising(ising(s, T, 5, seed=1), T, 5, seed=1, start_sweep=5)`` equals
    ``ising(s, T, 10, seed=1)``, and a batch split into parts with their ``first_grid`` equals the
    whole. Returns the spins (int8, same shape, same kind as the input), or ``(spins, SpinSeries)``
    with ``series=True``.
    """
    return _run("ising", spins, 2, T, sweeps, seed, dynamics, h, boundary, backend, device, start_sweep,
                first_grid, init, series)


def potts(states: Any, q: int, T: float, sweeps: int, *, seed: int = 0, dynamics: str = "metropolis",
          boundary: str = "torus", backend: str | None = None, device: Any = None, start_sweep: int = 0,
          first_grid: int = 0, init: str = "ordered", series: bool = False) -> Any:
    """Run ``sweeps`` checkerboard sweeps of the q-state Potts model, ``E = -sum_<ij> [s_i == s_j]``
    (J = 1), at temperature ``T``.

    ``states``: uint8 0..q-1 ``(H, W)`` or ``(B, H, W)``, or a shape (``init="ordered"``: all 0;
    ``"random"``: uniform states from the seed). ``dynamics``: ``"metropolis"`` (a new state proposed
    uniformly from the other q - 1) or ``"glauber"`` (heat bath over all q states). q = 2 is the Ising
    model with J = 1/2: Potts at T behaves as Ising at 2T (Tc = 1 / ln(1 + sqrt(q)), 1.1346 for q = 2).
    Randomness, batches, chunking and the return value as :func:`ising` (states uint8).
    """
    q = params.potts_q(q)
    return _run("potts", states, q, T, sweeps, seed, dynamics, 0.0, boundary, backend, device, start_sweep,
                first_grid, init, series)
