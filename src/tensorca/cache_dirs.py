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
kernels to the user's cache instead. Its keys depend on *contents* only, never on where the package
is installed or on file times: a kernel's folder under ``numba/`` is named by the module's folder
*inside the package* (``search_<SHA-1 of "tensorca/search">``; generated modules by their folder
under the cache root), and its source stamp is the SHA-256 of its file plus a digest of the
contents of every ``.py`` file beside it. So the same version finds its kernels again after a
reinstall anywhere, and kernels compiled when the wheel was built find a match on the user's machine.

Kernels shipped with the package (``tensorca/_kernels/``, compiled when the wheel or the editable
install was built: :mod:`tensorca.prebuild`) are copied into the user's cache on first use, one
function's files at a time and never over the user's own; ``TENSORCA_SHIPPED_KERNELS=0`` turns that
off (a true cold start: everything compiles on this machine).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

#: The environment variable naming tensorca's cache root.
CACHE_ENV = "TENSORCA_CACHE_DIR"
#: Numba's own cache variable (wins for compiled kernels when set).
NUMBA_ENV = "NUMBA_CACHE_DIR"
#: The installed package's own folder: kernels defined in files under it are tensorca's.
PACKAGE_DIR = Path(__file__).resolve().parent
#: Kernels compiled when the package was built (:mod:`tensorca.prebuild`): ``numba/`` (Numba's cache
#: layout), ``bitpack/`` (the generated modules they belong to) and ``manifest.json``;
#: ``TENSORCA_SHIPPED_DIR`` names another such folder (tests, a site's own prebuild).
SHIPPED_DIR = Path(os.environ.get("TENSORCA_SHIPPED_DIR") or PACKAGE_DIR / "_kernels")
#: ``0`` (or false, no, off): ignore the shipped kernels (compile everything on this machine).
SHIPPED_ENV = "TENSORCA_SHIPPED_KERNELS"


def cache_root() -> Path:
    """``$TENSORCA_CACHE_DIR``, else the platform's per-user cache directory for tensorca."""
    return _root(os.environ.get(CACHE_ENV) or "", os.environ.get("HOME") or "")


@functools.lru_cache(maxsize=8)
def _root(configured: str, home: str) -> Path:
    """:func:`cache_root` for these values of the environment (asked several times a run); the
    shipped generated modules are copied there on the first ask (:func:`seed_generated`)."""
    if configured:
        root = Path(configured)
    else:
        try:
            import platformdirs
        except ImportError:  # pragma: no cover - a declared dependency; a bare checkout may lack it
            root = Path(home or Path.home()) / ".cache" / "tensorca"
        else:
            root = Path(platformdirs.user_cache_dir("tensorca", appauthor=False))
    seed_generated(root)
    return root


def shipped_enabled() -> bool:
    """Whether the shipped kernels may be used: not under :data:`SHIPPED_ENV` ``0``, nor where this
    process compiles for the CPU's own model (``TENSORCA_CPU_LEVEL=native``, ``NUMBA_CPU_NAME`` or
    ``NUMBA_CPU_FEATURES`` set), where they could never load (:mod:`tensorca._numba`)."""
    if os.environ.get(SHIPPED_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    if os.environ.get("TENSORCA_CPU_LEVEL", "").strip().lower() == "native":
        return False
    return not (os.environ.get("NUMBA_CPU_NAME") or os.environ.get("NUMBA_CPU_FEATURES"))


@functools.lru_cache(maxsize=1)
def shipped_manifest() -> dict:
    """What :mod:`tensorca.prebuild` wrote beside the shipped kernels (``{}`` when none were built):
    ``numba`` and ``python`` (the versions they were compiled with), ``levels`` (the x86-64 levels
    compiled for, lowest first), ``vector_bits``."""
    try:
        return json.loads((SHIPPED_DIR / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}


def shipped_numba_dir() -> Path | None:
    """The shipped Numba cache when there is one, it may be used and it was compiled by this
    Python and the installed Numba (read without importing Numba), else None."""
    if not shipped_enabled() or not _shipped_fits():
        return None
    folder = SHIPPED_DIR / "numba"
    return folder if folder.is_dir() else None


@functools.lru_cache(maxsize=1)
def _shipped_fits() -> bool:
    """Whether the shipped kernels were compiled by this Python (``pyXY``) and the Numba installed
    here: else none could load, and no engine should count them as compiled."""
    manifest = shipped_manifest()
    if not manifest or manifest.get("python") != f"py{sys.version_info[0]}{sys.version_info[1]}":
        return False
    try:
        from importlib.metadata import version

        return version("numba") == manifest.get("numba")
    except Exception:  # noqa: BLE001 - no Numba (or no metadata): nothing shipped can load
        return False


def _copy_new(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` through a temporary name (a reader never sees half a file)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def seed_generated(root: Path) -> None:
    """Copy the shipped generated kernel modules (and the ``.ref`` files naming them) into
    ``root/bitpack`` where missing: their compiled kernels are shipped too, and the engines judge a
    rule's kernels compiled by these files. Never raises (a read-only cache just stays cold)."""
    if shipped_numba_dir() is None:
        return
    source = SHIPPED_DIR / "bitpack"
    try:
        names = [entry.name for entry in os.scandir(source) if entry.name.endswith((".py.txt", ".ref"))]
        if not names:
            return
        target = root / "bitpack"
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            seeded = target / name.removesuffix(".txt")  # modules are shipped as .py.txt
            if not seeded.exists():
                _copy_new(source / name, seeded)
    except OSError:
        pass


@functools.lru_cache(maxsize=256)
def seed_kernels(cache_path: str, subpath: str) -> None:
    """Copy the shipped Numba cache of the folder ``subpath`` into ``cache_path`` (its place in the
    user's cache), a function at a time (an index ``.nbi`` and its ``.nbc`` data files), only for
    functions whose index the user's cache lacks: the user's own compiles are never replaced. The
    data files go first and the index last, so a process reading meanwhile finds either nothing or
    everything. Once per folder and process; never raises."""
    shipped = shipped_numba_dir()
    if shipped is None:
        return
    source = shipped / subpath
    try:
        files = [entry.name for entry in os.scandir(source)]
    except OSError:
        return
    target = Path(cache_path)
    for index in (name for name in files if name.endswith(".nbi")):
        base = index[: -len(".nbi")]
        try:
            if (target / index).exists():
                continue
            target.mkdir(parents=True, exist_ok=True)
            for data in files:
                if data.startswith(base + ".") and data.endswith(".nbc"):
                    _copy_new(source / data, target / data)
            _copy_new(source / index, target / index)
        except OSError:
            return


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
    """The folder of ``py_file``'s kernels under :func:`numba_cache_dir`, computed here so that
    asking whether a kernel is cached never imports Numba: Numba's layout (the file's folder name,
    ``_``, a SHA-1), where the SHA-1 is of the folder's place *inside the package* (``tensorca/…``)
    or under the cache root (``<cache>/bitpack``), so the same kernels have the same place wherever
    the package is installed; other files keep Numba's SHA-1 of the absolute folder."""
    folder = os.path.dirname(os.path.abspath(py_file))
    return "_".join([os.path.split(folder)[-1], hashlib.sha1(_portable_folder(folder).encode()).hexdigest()])


def _portable_folder(folder: str) -> str:
    """``folder`` as a path that does not depend on the install: ``tensorca/<relative>`` for the
    package, ``<cache>/<relative>`` for the cache root, else ``folder`` itself."""
    path = Path(folder)
    for base, label in ((PACKAGE_DIR, "tensorca"), (cache_root(), "<cache>")):
        try:
            relative = path.resolve().relative_to(base.resolve())
        except (ValueError, OSError):
            continue
        return "/".join((label, *relative.parts))
    return folder


def compiled_on_disk(py_file: str | os.PathLike, index_glob: str) -> bool:
    """True when Numba's cache of ``py_file`` (or the kernels shipped with the package, copied there
    on first use) holds an index matching ``index_glob`` (e.g. ``"step.result-*.nbi"``): that
    function was compiled and loads in a fraction of a second. Only looks at the file system."""
    try:
        if any(numba_cache_path(py_file).glob(index_glob)):
            return True
        shipped = shipped_numba_dir()
        return shipped is not None and any((shipped / cache_subpath(py_file)).glob(index_glob))
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
    """SHA-1 of the names and contents of the ``.py`` files in ``folder`` (once per process): part
    of the cache stamp of every kernel defined there. Contents, not file times, so that a wheel's
    kernels compiled where it was built match the installed files."""
    entries = []
    with os.scandir(folder) as found:
        for entry in found:
            if entry.name.endswith(".py") and entry.is_file():
                with open(entry.path, "rb") as handle:
                    entries.append(f"{entry.name}:{hashlib.sha1(handle.read()).hexdigest()}")
    return hashlib.sha1("\n".join(sorted(entries)).encode()).hexdigest()


def is_generated_module(py_file: str | os.PathLike) -> bool:
    """True for a kernel module tensorca generated into its cache (``tensorca_<engine>_<hash>.py``,
    importing nothing of tensorca's)."""
    path = Path(py_file)
    return path.name.startswith("tensorca_") and not path.resolve().is_relative_to(PACKAGE_DIR)


def install_locator() -> None:
    """Send Numba's cache of tensorca's kernels to :func:`numba_cache_dir` (``NUMBA_CACHE_DIR``
    when set), in the install-independent layout of :func:`cache_subpath`, seeded from the shipped
    kernels (:func:`seed_kernels`). Other packages' kernels keep Numba's default places.
    Idempotent; called by :mod:`tensorca._numba` before any kernel is decorated."""
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
            self._subpath = cache_subpath(py_file)
            self._cache_path = str(numba_cache_dir() / self._subpath)

        def get_source_stamp(self):
            # Numba's own stamp is the SHA-256 of the defining file. A cached kernel also holds the
            # code of the kernels it calls from sibling modules (records.build_records holds tree's
            # find_node and its hash): a change to any module of the folder must miss the cache.
            # Generated kernel modules (``tensorca_*`` in the cache) are self-contained, named by a
            # hash of their source, and their folder gains a module with every new rule, so theirs
            # is the file's stamp alone.
            own = super().get_source_stamp()
            if is_generated_module(self._py_file):
                return own
            return own, folder_stamp(os.path.dirname(self._py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.exists(py_file) or not is_tensorca_source(py_file):
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:  # an unwritable cache: Numba's own locators decide, as before
                return None
            seed_kernels(self._cache_path, self._subpath)
            return self

    impl._locator_classes = [TensorcaCacheLocator, *locators]
    _load_shipped_levels(caching)


#: Numba's codegen keys (``magic_tuple()``: target triple, CPU name, features) of the shipped kernels
#: this CPU runs, best first (:func:`set_shipped_keys`, from :mod:`tensorca._numba`).
_SHIPPED_KEYS: list[tuple] = []


def set_shipped_keys(keys: list[tuple]) -> None:
    """The codegen keys under which a kernel missing from the cache under this process's own key
    may be loaded (shipped kernels compiled for an x86-64 level this CPU runs)."""
    _SHIPPED_KEYS[:] = keys


def _load_shipped_levels(caching) -> None:
    """Let Numba load, for tensorca's kernels, a cache entry compiled for an x86-64 level this CPU
    runs when there is none for the CPU's own model: a shipped kernel (:mod:`tensorca.prebuild`)
    then loads instead of compiling, while everything compiled here still gets the CPU's own model
    (object code for ``x86-64-v4`` runs on any CPU with those features; nothing else in the entry
    depends on the CPU). Numba's ``Cache._load_overload`` is wrapped once."""
    cache_class = getattr(caching, "Cache", None)
    load = getattr(cache_class, "_load_overload", None)
    if load is None or getattr(load, "_tensorca", False):
        return

    def _load_overload(self, sig, target_context):
        data = load(self, sig, target_context)
        if data is not None or not _SHIPPED_KEYS or not getattr(self._impl.locator, "_tensorca", False):
            return data
        key = self._index_key(sig, target_context.codegen())
        for magic in _SHIPPED_KEYS:
            data = self._cache_file.load((key[0], magic, *key[2:]))
            if data is not None:
                return self._impl.rebuild(target_context, data)
        return None

    _load_overload._tensorca = True
    cache_class._load_overload = _load_overload


__all__ = ["CACHE_ENV", "NUMBA_ENV", "SHIPPED_DIR", "SHIPPED_ENV", "cache_changed", "cache_epoch", "cache_root",
           "cache_subpath", "compiled_on_disk", "folder_stamp", "install_locator", "is_generated_module",
           "is_tensorca_source", "numba_cache_dir", "numba_cache_path", "seed_generated", "seed_kernels",
           "set_shipped_keys", "shipped_enabled", "shipped_manifest", "shipped_numba_dir"]
