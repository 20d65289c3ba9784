"""A ``(B, H, W)`` grid as a zarr store, written chunk by chunk: the checkpoints of dask runs.

Layout: one zarr array at the store's root, ``uint8``, chunked ``(b, h, w)``; its attribute
``"tensorca"`` holds the checkpoint manifest of :mod:`tensorca.persist.npz` (format, rule, topology,
generation, batched, engine, version) plus ``packed`` and ``width``. A two-state rule's cells are
stored bit-packed, 8 cells a byte along rows (``numpy.packbits``, first cell in the high bit), which
is 8x less to compress and write: a 131072^2 soup is 2 GiB packed against 16 GiB of bytes. Other
rules store one byte a cell.

Saving never overwrites the store being read: a segment is written to ``NAME.next``, marked
complete, then renamed over ``NAME`` (the old store goes to ``NAME.prev`` and is removed), so a crash
leaves a whole store; :func:`open_store` finishes an interrupted swap. Opening validates the
manifest as :func:`tensorca.persist.npz.load` does; cell values (unpacked stores) are checked chunk
by chunk when they are read, a bad one raising :class:`~tensorca.errors.CheckpointError`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np

from ..errors import CheckpointError, MissingDependencyError, TensorcaError
from ..manifest_fields import int_field, topology_from
from ..rules.base import Rule
from ..topology import Topology
from .npz import FORMAT, _rule_from
from .zarr_paths import is_store, is_zarr_dir, next_path, prev_path

__all__ = ["Store", "is_store", "open_store", "save_store", "store_chunks"]

#: The attribute holding the manifest.
ATTRIBUTE = "tensorca"


@dataclasses.dataclass
class Store:
    """An opened store: ``grid`` is a lazy ``(B, H, W)`` uint8 dask array reading it chunk by chunk."""

    path: Path
    grid: da.Array
    rule: Rule
    topology: Topology
    generation: int
    manifest: dict

    @property
    def state(self) -> da.Array:
        """The grid as it was run: ``(B, H, W)``, or ``(H, W)`` for an unbatched run."""
        return self.grid if self.manifest.get("batched", True) else self.grid[0]


def store_chunks(grid: da.Array, packed: bool) -> tuple[int, int, int]:
    """Regular zarr chunks for ``grid`` (zarr chunks are all equal but the last): the largest dask chunk
    per axis, a multiple of 8 cells along rows when ``packed`` (so chunks pack independently)."""
    b, h, w = (max(c) for c in grid.chunks)
    if packed:
        w = min(-(-w // 8) * 8, -(-int(grid.shape[2]) // 8) * 8)
    return int(b), int(h), int(w)


def save_store(path: str | os.PathLike, grid: da.Array, manifest: dict, *, packed: bool | None = None) -> Path:
    """Write the lazy ``(B, H, W)`` uint8 ``grid`` to the zarr store ``path``, chunk by chunk, with ``manifest``.

    ``packed``: bit-pack the cells (default: when the manifest's rule has two states). Computes
    ``grid`` (on the current dask.distributed Client, else the local scheduler); each task writes its
    own chunk, so no worker holds more than a few chunks. Returns ``path``.
    """
    zarr = _zarr()
    path = Path(path)
    if grid.ndim != 3:
        raise CheckpointError(f"a store holds (B, H, W) cells, got shape {grid.shape}")
    if packed is None:
        packed = _rule_from(manifest).n_states == 2
    batch, height, width = (int(s) for s in grid.shape)
    chunks = store_chunks(grid, packed)
    grid = grid.astype(np.uint8).rechunk(chunks)
    if packed:
        wchunks = tuple(-(-c // 8) for c in grid.chunks[2])
        grid = grid.map_blocks(np.packbits, axis=-1, chunks=(grid.chunks[0], grid.chunks[1], wchunks),
                               dtype=np.uint8)
        chunks = (chunks[0], chunks[1], chunks[2] // 8)
    target = next_path(path)
    shutil.rmtree(target, ignore_errors=True)
    array = zarr.open_array(store=str(target), mode="w", shape=tuple(int(s) for s in grid.shape), chunks=chunks,
                            dtype="uint8", fill_value=0)
    info = {**manifest, "packed": bool(packed), "width": width, "complete": False}
    array.attrs.update({ATTRIBUTE: info})
    da.store(grid, array, lock=False, compute=True)
    array.attrs.update({ATTRIBUTE: {**info, "complete": True}})
    _swap(path)
    return path


def _swap(path: Path) -> None:
    """``NAME.next`` (complete) becomes ``NAME``; the old store is removed."""
    previous = prev_path(path)
    shutil.rmtree(previous, ignore_errors=True)
    if path.exists():
        os.replace(path, previous)
    os.replace(next_path(path), path)
    shutil.rmtree(previous, ignore_errors=True)


def _complete(path: Path) -> bool:
    try:
        return bool(_open_zarr(path).attrs.get(ATTRIBUTE, {}).get("complete"))
    except Exception:  # a half-written store: not complete, whatever fails to read
        return False


def _recover(path: Path) -> None:
    """Finish a swap a crash interrupted: a complete ``NAME.next`` or the ``NAME.prev`` becomes ``NAME``."""
    if path.exists():
        return
    if is_zarr_dir(next_path(path)) and _complete(next_path(path)):
        os.replace(next_path(path), path)
    elif is_zarr_dir(prev_path(path)):
        os.replace(prev_path(path), path)


def _zarr() -> Any:
    """The zarr module; :class:`MissingDependencyError` with the pip command when it is absent."""
    try:
        import zarr
    except ImportError as exc:
        raise MissingDependencyError(f"zarr stores need zarr, which is not installed here ({exc})", package="zarr",
                                     install="pip install 'tensorca[dask]'") from exc
    return zarr


def _open_zarr(path: Path) -> Any:
    return _zarr().open_array(store=str(path), mode="r")


def open_store(path: str | os.PathLike) -> Store:
    """Open a store written by :func:`save_store` as a lazy grid with its rule, topology and generation.

    Any fault (missing, not a store, incomplete, a manifest that does not parse or does not fit the
    array) raises :class:`CheckpointError` naming the store.
    """
    path = Path(path)
    try:
        _recover(path)
        if not is_zarr_dir(path):
            raise CheckpointError("no such zarr store")
        return _open(path)
    except CheckpointError as exc:
        raise CheckpointError(f"{path}: {exc}") from exc
    except MissingDependencyError:
        raise
    except TensorcaError as exc:  # a rule or topology in the manifest that does not parse
        raise CheckpointError(f"{path}: {exc}") from exc
    except Exception as exc:  # a hostile store can fail in zarr, JSON or NumPy: report, never leak
        raise CheckpointError(f"{path}: cannot read zarr store ({type(exc).__name__}: {exc})") from exc


def _open(path: Path) -> Store:
    array = _open_zarr(path)
    info = array.attrs.get(ATTRIBUTE)
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise CheckpointError("not a tensorca store (no checkpoint manifest in its attributes)")
    if not info.get("complete"):
        raise CheckpointError("the store was not completely written")
    if not isinstance(info.get("rule"), str):
        raise CheckpointError(f"manifest 'rule' must be a string, got {info.get('rule')!r}")
    rule, topology = _rule_from(info), topology_from(info.get("topology"))
    generation = int_field(info, "generation", 0)
    width = int_field(info, "width", 1)
    packed, batched = info.get("packed"), info.get("batched", True)
    if not isinstance(packed, bool) or not isinstance(batched, bool) or info.get("kind", "grid") != "grid":
        raise CheckpointError("manifest 'packed' and 'batched' must be booleans and 'kind' 'grid'")
    if str(array.dtype) != "uint8" or len(array.shape) != 3:
        raise CheckpointError(f"store holds {array.dtype} of shape {array.shape}, not (B, H, W) uint8")
    batch, height, stored = (int(s) for s in array.shape)
    if stored != (math.ceil(width / 8) if packed else width) or (packed and rule.n_states != 2):
        raise CheckpointError(f"store width {stored} does not hold {width} {'packed ' if packed else ''}cells "
                              f"of rule {rule.canonical()!r}")
    if not topology.bounded or topology.shape != (height, width):
        raise CheckpointError(f"cells of shape {(batch, height, width)} do not fit topology {topology}")
    if not batched and batch != 1:
        raise CheckpointError(f"an unbatched grid needs cells of shape (1, H, W), got {(batch, height, width)}")
    stored_grid = da.from_zarr(array)
    if packed:
        chunk_w = int(array.chunks[2]) * 8
        cols = tuple(min(chunk_w, width - x) for x in range(0, width, chunk_w))
        grid = stored_grid.map_blocks(_unpack, chunks=(stored_grid.chunks[0], stored_grid.chunks[1], cols),
                                      dtype=np.uint8)
    else:
        grid = stored_grid.map_blocks(_checked, n_states=rule.n_states, where=str(path), dtype=np.uint8)
    return Store(path, grid, rule, topology, generation, dict(info))


def _unpack(block: np.ndarray, block_info: dict | None = None) -> np.ndarray:
    """A packed chunk back to one byte a cell, as wide as the output chunk."""
    width = block_info[None]["chunk-shape"][2] if block_info else block.shape[2] * 8
    return np.unpackbits(block, axis=-1, count=width)


def _checked(block: np.ndarray, n_states: int, where: str) -> np.ndarray:
    """A chunk of an unpacked store, refused if a cell holds a state the rule does not have."""
    if block.size and int(block.max()) >= n_states:
        raise CheckpointError(f"{where}: a chunk holds state {int(block.max())}, but the rule has {n_states} states")
    return block
