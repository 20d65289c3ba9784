"""Where a zarr store lives and whether a path names one, answered without importing dask or zarr."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def next_path(path: Path) -> Path:
    """Where a new state is written before it replaces the store."""
    return path.with_name(path.name + ".next")


def prev_path(path: Path) -> Path:
    """Where the old store waits while the new one takes its name."""
    return path.with_name(path.name + ".prev")


def is_zarr_dir(path: Path) -> bool:
    """True for a directory holding a zarr array (v3 ``zarr.json`` or v2 ``.zarray``)."""
    return path.is_dir() and any((path / name).exists() for name in ("zarr.json", ".zarray"))


def is_store(path: Any) -> bool:
    """True when ``path`` ends in ``.zarr`` or names a zarr store (or an interrupted save of one)."""
    if not isinstance(path, (str, os.PathLike)):
        return False
    path = Path(path)
    return path.suffix == ".zarr" or any(is_zarr_dir(p) for p in (path, next_path(path), prev_path(path)))
