"""Where a run's state is written and read back: one format registry, one place that tells formats apart.

Three formats hold a checkpoint: ``npz`` (:mod:`.npz`: any grid or pattern, dense cells and a JSON
manifest), ``macrocell`` (:mod:`.macrocell`: Golly's ``.mc``, one two-state pattern, written straight
from a HashLife tree at any size) and ``zarr`` (:mod:`.zarr_store`: a grid larger than memory, written
chunk by chunk by the dask engine). :func:`format_of` says which format a path holds or will hold (its
suffix first, then its contents, ``npz`` otherwise); :func:`load` and :func:`save` dispatch on it, and
``tensorca.resume``, ``run(checkpoint=...)``, the HashLife and unbounded paths and the CLI ask it too.
This module imports neither NumPy nor dask: the CLI reads its suffixes at start-up.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .zarr_paths import is_store


@dataclasses.dataclass(frozen=True)
class Format:
    """A checkpoint format: its ``name``, the ``suffixes`` that choose it for a new path (lower case), what
    it holds (``what``, for messages) and ``holds(path)``: an existing path's contents are this format's."""

    name: str
    suffixes: tuple[str, ...]
    what: str
    holds: Callable[[Path], bool]


def _starts_like_macrocell(path: Path) -> bool:
    """True when the file at ``path`` starts like a macrocell file (``[M2]``, gzipped or not); False for
    anything else, including a file that cannot be read (its loader reports that)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
            if head[:2] == b"\x1f\x8b":
                fh.seek(0)
                with gzip.open(fh) as inner:
                    head = inner.read(4)
    except (OSError, EOFError, gzip.BadGzipFile):
        return False
    return head == b"[M2]"


ZARR = Format("zarr", (".zarr",), "a zarr store (a grid larger than memory, the dask engine's)", is_store)
MACROCELL = Format("macrocell", (".mc", ".mc.gz"), "Golly's macrocell (one two-state pattern, any size)",
                   _starts_like_macrocell)
NPZ = Format("npz", (".npz",), "tensorca's .npz checkpoint (any grid or pattern, dense cells)", lambda path: False)
#: Every format, in the order their suffixes and contents are tried; ``npz`` is the default.
FORMATS: tuple[Format, ...] = (ZARR, MACROCELL, NPZ)


def format_of(path: str | os.PathLike) -> Format:
    """The format ``path`` names: by suffix (``.zarr``, ``.mc``/``.mc.gz``, ``.npz``), else by what an
    existing file or folder holds, else ``npz``."""
    name = os.fspath(path).lower()
    for candidate in FORMATS:
        if name.endswith(candidate.suffixes):
            return candidate
    existing = Path(path)
    for candidate in FORMATS:
        if candidate.holds(existing):
            return candidate
    return NPZ


def file_suffixes() -> tuple[str, ...]:
    """The suffixes of the single-file formats (what ``--checkpoint`` accepts)."""
    return NPZ.suffixes + MACROCELL.suffixes


def load(path: str | os.PathLike, *, max_cells: int | None = None) -> Any:
    """The checkpoint at ``path`` (a :class:`~tensorca.persist.npz.Checkpoint`), from a ``.npz`` or a
    macrocell file; :class:`~tensorca.errors.CheckpointError` for a zarr store (``tensorca.resume`` opens
    those lazily) and for anything unreadable."""
    from . import npz  # NumPy and the rule parser: imported when a checkpoint is read, not at CLI start-up

    chosen = format_of(path)
    if chosen is MACROCELL:
        from . import macrocell

        return npz.Checkpoint(*macrocell.load(path))
    if chosen is ZARR:
        from ..errors import CheckpointError

        raise CheckpointError(f"{path}: {ZARR.what}: resume it with tensorca.resume (it runs lazily, chunk by chunk)")
    return npz.load(path, max_cells=max_cells)


def save(path: str | os.PathLike, cells: Any, manifest: dict) -> Path:
    """Write dense ``cells`` and their ``manifest`` to ``path`` in the format it names (``.npz``, or a
    macrocell file for one two-state pattern), atomically."""
    if format_of(path) is MACROCELL:
        from . import macrocell

        return macrocell.save_cells(path, cells, manifest)
    from . import npz

    return npz.save(path, cells, manifest)


__all__ = ["FORMATS", "MACROCELL", "NPZ", "ZARR", "Format", "file_suffixes", "format_of", "load", "save"]
