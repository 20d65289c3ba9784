"""Where tensorca keeps what it computes once per machine: compiled kernels and calibrations.

One root, chosen per process from the environment when first asked:

* ``$TENSORCA_CACHE_DIR`` when set (an empty directory there is a cold start: a CI job or a
  benchmark chooses warm or cold by pointing it somewhere);
* else the per-user cache directory of the platform (``platformdirs``: ``~/.cache/tensorca`` on
  Linux, ``~/Library/Caches/tensorca`` on macOS, ``%LOCALAPPDATA%\\tensorca\\Cache`` on Windows).

Under it: ``numba/`` (Numba's on-disk cache of every tensorca kernel), ``bitpack/`` (kernel
modules generated per rule), ``costmodel.json`` (``tensorca bench --calibrate``). ``NUMBA_CACHE_DIR``,
when set, wins for Numba's part, as it does for every Numba user.

Numba's own default puts a module's cache in ``__pycache__`` beside the module, which disappears
with a reinstall and is not writable in a system-wide install; the locator here sends tensorca's
kernels to the user's cache instead. Numba keys each entry by the source file's *content* hash
and the install path, so reinstalling the same version in the same place finds its kernels again.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

#: The environment variable naming tensorca's cache root.
CACHE_ENV = "TENSORCA_CACHE_DIR"
#: Numba's own cache variable (wins for compiled kernels when set).
NUMBA_ENV = "NUMBA_CACHE_DIR"
#: The installed package's own folder: kernels defined in files under it are tensorca's.
PACKAGE_DIR = Path(__file__).resolve().parent


def cache_root() -> Path:
    """``$TENSORCA_CACHE_DIR``, else the platform's per-user cache directory for tensorca."""
    return _root(os.environ.get(CACHE_ENV) or "", os.environ.get("HOME") or "")


@functools.lru_cache(maxsize=8)
def _root(configured: str, home: str) -> Path:
    """:func:`cache_root` for these values of the environment (asked several times a run)."""
    if configured:
        return Path(configured)
    try:
        import platformdirs
    except ImportError:  # pragma: no cover - a declared dependency; a bare checkout may lack it
        return Path(home or Path.home()) / ".cache" / "tensorca"
    return Path(platformdirs.user_cache_dir("tensorca", appauthor=False))


def numba_cache_dir() -> Path:
    """Where Numba's cache of tensorca's kernels lives: ``$NUMBA_CACHE_DIR`` when set, else
    ``<cache root>/numba``."""
    configured = os.environ.get(NUMBA_ENV)
    return Path(configured) if configured else cache_root() / "numba"


def numba_cache_path(py_file: str | os.PathLike) -> Path:
    """The folder holding Numba's cache of the kernels defined in ``py_file``: Numba's
    user-provided layout (the file's folder name and a hash of its absolute path) under
    :func:`numba_cache_dir`, the same whichever of the two variables chose the root."""
    return numba_cache_dir() / cache_subpath(py_file)


def cache_subpath(py_file: str | os.PathLike) -> str:
    """Numba's ``_CacheLocator.get_suitable_cache_subpath``, computed here so that asking whether a
    kernel is cached never imports Numba: the file's folder name, ``_``, the SHA-1 of the folder's
    absolute path (a test checks it against Numba's own)."""
    folder = os.path.dirname(os.path.abspath(py_file))
    return "_".join([os.path.split(folder)[-1], hashlib.sha1(folder.encode()).hexdigest()])


def compiled_on_disk(py_file: str | os.PathLike, index_glob: str) -> bool:
    """True when Numba's cache of ``py_file`` holds an index matching ``index_glob`` (e.g.
    ``"step.result-*.nbi"``): that function was compiled on this machine and loads in a fraction
    of a second. Only looks at the file system."""
    try:
        return any(numba_cache_path(py_file).glob(index_glob))
    except OSError:
        return False


#: Bumped when another process may have added kernels to the cache (a background compile finished):
#: the engines' remembered "is it on disk?" answers are keyed by it.
_EPOCH = [0]


def cache_epoch() -> int:
    """A number that changes whenever :func:`cache_changed` was called (memo keys of disk checks)."""
    return _EPOCH[0]


def cache_changed() -> None:
    """Say that kernels may have been added to the cache by another process."""
    _EPOCH[0] += 1


def is_tensorca_source(py_file: str | os.PathLike) -> bool:
    """True for a module of the tensorca package, or one generated into tensorca's cache."""
    path = Path(py_file).resolve()
    return path.is_relative_to(PACKAGE_DIR) or path.is_relative_to(cache_root().resolve())


@functools.lru_cache(maxsize=64)
def folder_stamp(folder: str) -> str:
    """SHA-1 of the names, sizes and modification times of the ``.py`` files in ``folder`` (once
    per process: a stat per file): part of the cache stamp of every kernel defined there."""
    entries = []
    with os.scandir(folder) as found:
        for entry in found:
            if entry.name.endswith(".py") and entry.is_file():
                info = entry.stat()
                entries.append(f"{entry.name}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha1("\n".join(sorted(entries)).encode()).hexdigest()


def install_locator() -> None:
    """Send Numba's cache of tensorca's kernels to :func:`numba_cache_dir` (unless
    ``NUMBA_CACHE_DIR`` is set, where Numba's own locator already does). Other packages' kernels
    keep Numba's default places. Idempotent; called by :mod:`tensorca._numba` before any kernel
    is decorated."""
    from numba.core import caching

    # Numba's cache implementation keeps its list of locators on the class (``_CacheImpl`` before
    # Numba 0.61, ``CacheImpl`` since); without either, Numba's default places stay.
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    locators = getattr(impl, "_locator_classes", None)
    if not isinstance(locators, list) or any(getattr(cls, "_tensorca", False) for cls in locators):
        return

    class TensorcaCacheLocator(caching.UserProvidedCacheLocator):
        """Numba's user-provided-directory locator, for tensorca's files, rooted at the user cache."""

        _tensorca = True

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = str(numba_cache_path(py_file))

        def get_source_stamp(self):
            # Numba compares only the defining file's stamp, but a cached kernel also holds the code
            # of the kernels it calls from sibling modules (records.build_records holds tree's
            # find_node and its hash): a change to any module of the folder must miss the cache.
            return super().get_source_stamp(), folder_stamp(os.path.dirname(self._py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.environ.get(NUMBA_ENV) or not os.path.exists(py_file) or not is_tensorca_source(py_file):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:  # an unwritable cache: Numba's own locators decide, as before
                return None
            return self

    impl._locator_classes = [TensorcaCacheLocator, *locators]


__all__ = ["CACHE_ENV", "NUMBA_ENV", "cache_changed", "cache_epoch", "cache_root", "cache_subpath", "compiled_on_disk",
           "folder_stamp", "install_locator", "is_tensorca_source", "numba_cache_dir", "numba_cache_path"]
