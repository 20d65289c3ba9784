"""Moving grids between NumPy arrays and torch tensors at the engine boundary.

torch is imported only when a tensor is given or a torch engine is chosen.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .errors import EngineError, GridError, MissingDependencyError, UsageError

#: The command that adds PyTorch.
TORCH_INSTALL = "pip install 'tensorca[torch]'"


def is_tensor(x: Any) -> bool:
    """True for a torch tensor (checked without importing torch)."""
    return type(x).__module__.startswith("torch") and hasattr(x, "device")


def as_uint8_grid(array: np.ndarray) -> np.ndarray:
    """Validate an integer or boolean NumPy grid and return it as ``uint8`` (values 0..255)."""
    if array.dtype == np.uint8:
        return array
    if array.dtype == bool:
        return array.astype(np.uint8)
    if not np.issubdtype(array.dtype, np.integer):
        raise GridError(f"grid dtype must be integer or bool (cell states), got {array.dtype}")
    if array.size and (array.min() < 0 or array.max() > 255):
        raise GridError(f"cell states must lie in 0..255, got values {array.min()}..{array.max()}")
    return array.astype(np.uint8)


def as_uint8_tensor(tensor: Any) -> Any:
    """Validate an integer or boolean tensor and return it as ``torch.uint8`` on the same device."""
    import torch

    if tensor.dtype == torch.uint8:
        return tensor
    if tensor.dtype == torch.bool:
        return tensor.to(torch.uint8)
    if tensor.dtype.is_floating_point or tensor.dtype.is_complex:
        raise GridError(f"grid dtype must be integer or bool (cell states), got {tensor.dtype}")
    if tensor.numel() and (int(tensor.min()) < 0 or int(tensor.max()) > 255):
        raise GridError(f"cell states must lie in 0..255, got values {int(tensor.min())}..{int(tensor.max())}")
    return tensor.to(torch.uint8)


#: Float dtypes continuous rules (Lenia) run in; NumPy and torch spell them alike.
FLOAT_DTYPES = ("float32", "float64")


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def as_float_cells(grid: Any, rule_name: str) -> Any:
    """A float32/float64 NumPy grid or tensor for a continuous rule, returned as is (same dtype).

    Integer, bool and other float dtypes raise :class:`GridError` naming the conversion to make:
    Lenia's cells are floats in [0, 1], not states.
    """
    name = _dtype_name(grid.dtype)
    if name not in FLOAT_DTYPES:
        hint = ("its cells are floats in [0, 1]: pass grid.astype(np.float32) (or .float() for a tensor), "
                "scaled to [0, 1]")
        raise GridError(f"rule {rule_name!r} is continuous and needs a float32 or float64 grid, got {name}; {hint}")
    return grid


def as_state_cells(grid: Any, rule_name: str) -> Any:
    """A ``uint8`` grid or tensor for a discrete rule; float grids raise :class:`GridError` naming the rule."""
    name = _dtype_name(grid.dtype)
    if name.startswith(("float", "bfloat", "complex")):
        raise GridError(f"grid dtype must be integer or bool (cell states) for the discrete rule {rule_name!r}, "
                        f"got {name}; float grids are for continuous rules such as Lenia")
    return as_uint8_tensor(grid) if is_tensor(grid) else as_uint8_grid(np.asarray(grid))


def as_cells(grid: Any, continuous: bool, rule_name: str) -> Any:
    """``grid`` in the form a rule's engines take: float (same dtype) when ``continuous``, else uint8."""
    return as_float_cells(grid, rule_name) if continuous else as_state_cells(grid, rule_name)


def value_range_error(cells: Any, low: float, high: float) -> str | None:
    """Why ``cells`` (float) do not lie in ``[low, high]`` (NaN included), or None; one host read."""
    if is_tensor(cells):
        data = cells.detach()
        bad = ~((data >= low) & (data <= high))
        if not data.numel() or not bool(bad.any()):
            return None
        where = tuple(int(i) for i in np.unravel_index(int(bad.flatten().nonzero()[0, 0]), tuple(data.shape)))
        value = float(data[where])
    else:
        data = np.asarray(cells)
        bad = ~((data >= low) & (data <= high))
        if not data.size or not bad.any():
            return None
        where = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), data.shape))
        value = float(data[where])
    return f"cell {where} holds {value!r}, outside the rule's range [{low}, {high}]"


#: Device kinds a torch engine can run on here; ``meta`` holds no data and others have no engine.
DEVICE_KINDS = ("cpu", "cuda", "mps")
_DEVICE = re.compile(rf"({'|'.join(DEVICE_KINDS)})(?::([0-9]+))?")


def device_kind(device: Any) -> str:
    """``"cpu"``, ``"cuda"`` or ``"mps"`` from a device string or ``torch.device``; :class:`UsageError` otherwise."""
    text = str(device) if type(device).__module__.startswith("torch") else device
    match = _DEVICE.fullmatch(text.strip().lower()) if isinstance(text, str) else None
    if match is None:
        raise UsageError(f"unknown device {device!r}: expected 'cpu', 'cuda', 'cuda:N' or 'mps'")
    return match.group(1)


def check_device(device: Any) -> None:
    """Raise a typed error unless ``device`` can run a torch engine here.

    :class:`UsageError` for a device that is not ``cpu``/``cuda[:N]``/``mps`` (``"meta"``, typos),
    :class:`MissingDependencyError` when a GPU device is asked for without PyTorch installed, and
    :class:`EngineError` when torch sees no such device (``"cuda"`` with a CPU-only build).
    """
    kind = device_kind(device)
    if kind == "cpu":
        return
    try:
        import torch
    except ImportError:
        raise MissingDependencyError(f"device {str(device)!r} needs PyTorch, which is not installed here",
                                     package="torch", install=TORCH_INSTALL) from None
    dev = torch.device(str(device).strip().lower())
    if kind == "cuda":
        if not torch.cuda.is_available():
            build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
            raise EngineError(f"device {str(device)!r} is not available: CUDA is not available to torch "
                              f"{torch.__version__} ({build}) here; use device='cpu' or install the CUDA build "
                              "of torch on a GPU machine")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise EngineError(f"device {str(device)!r} does not exist: {torch.cuda.device_count()} CUDA device(s) here")
    elif not torch.backends.mps.is_available():
        raise EngineError(f"device {str(device)!r} is not available here (no Apple MPS)")


def to_engine(cells: Any, array_module: str, device: str | None) -> Any:
    """``cells`` (NumPy or torch, uint8) in the engine's array type, on ``device`` for torch engines."""
    if array_module == "torch":
        import torch

        tensor = cells if is_tensor(cells) else torch.from_numpy(np.ascontiguousarray(cells))
        if device is None:
            return tensor
        check_device(device)
        return tensor.to(device)
    if is_tensor(cells):
        return cells.detach().cpu().numpy()
    return np.asarray(cells)


def like_input(result: Any, original: Any) -> Any:
    """``result`` converted back to the kind of ``original``: NumPy stays NumPy, a tensor returns to its device."""
    if is_tensor(original):
        import torch

        tensor = result if is_tensor(result) else torch.from_numpy(np.ascontiguousarray(result))
        return tensor.to(original.device)
    return result.detach().cpu().numpy() if is_tensor(result) else np.asarray(result)


def max_state(cells: Any) -> tuple[int, tuple[int, ...]] | None:
    """The largest state and the index of its first occurrence, or None for an empty grid."""
    if cells.numel() if is_tensor(cells) else cells.size:
        flat = int(cells.argmax()) if not is_tensor(cells) else int(cells.flatten().argmax())
        index = tuple(int(i) for i in np.unravel_index(flat, tuple(cells.shape)))
        return int(cells[index]), index
    return None


def to_host(cells: Any) -> np.ndarray:
    """``cells`` as a NumPy array on the host (a tensor is copied from its device)."""
    return cells.detach().cpu().numpy() if is_tensor(cells) else np.asarray(cells)
