"""Atomic file writes: a crash or a full disk leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory (flush, fsync, rename).

    The temporary file has a unique name (``tempfile.mkstemp``), so threads or processes saving
    the same path at once never share one: each rename installs one whole file, the last one
    wins. The directory is synced too, so the rename itself survives a crash. A failure removes
    the temporary file. Missing parent directories are created. Returns the path written.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _default_mode())  # mkstemp makes 0600; a saved file gets the usual umask mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_directory(directory)
    return path


def _read_umask() -> int:
    umask = os.umask(0)  # the only portable way to read it; done once, at import, before any threads
    os.umask(umask)
    return umask


_UMASK = _read_umask()


def _default_mode() -> int:
    """``0o666`` less the umask (what ``open(path, "w")`` would give)."""
    return 0o666 & ~_UMASK


def _sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (best effort: some filesystems refuse)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:  # pragma: no cover - some filesystems refuse fsync on directories
        pass
