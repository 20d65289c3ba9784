"""Loading and saving pattern files: bytes, gzip, text decoding and format dispatch.

gzip is recognised by its magic bytes whatever the file is called; ``save`` compresses when the
name ends in ``.gz``. Text is decoded as UTF-8, falling back to Latin-1 (old pattern files carry
Latin-1 comments). The format is detected from the content unless given.
"""

from __future__ import annotations

import gzip
import io
import itertools
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from importlib import import_module
from typing import IO, Any

from ..errors import PatternError, UsageError
from ..pattern import Pattern
from .budget import DEFAULT_MAX_BYTES, check_text_size, resolve_max_bytes
from .detect import FORMATS, detect_format

PathOrFile = str | os.PathLike | IO[bytes] | IO[str]

_ALIASES = {
    "rle": "rle",
    "cells": "cells",
    "plaintext": "cells",
    "life105": "life105",
    "life1.05": "life105",
    "life106": "life106",
    "life1.06": "life106",
    "lif": "life106",
    "life": "life106",
    "macrocell": "macrocell",
    "mc": "macrocell",
    "mcl": "mcl",
}
#: format -> (module in tensorca.io, function): a format's module is imported when a file of that
#: format is first read or written (``tensorca info x.rle`` need not load the macrocell reader).
_READERS: dict[str, tuple[str, str]] = {
    "rle": ("rle", "read_rle"),
    "cells": ("plaintext", "read_plaintext"),
    "life105": ("life105", "read_life105"),
    "life106": ("life106", "read_life106"),
    "macrocell": ("macrocell", "read_macrocell"),
    "mcl": ("mcell", "read_mcell"),
}
_WRITERS: dict[str, tuple[str, str]] = {
    "rle": ("rle", "write_rle"),
    "cells": ("plaintext", "write_plaintext"),
    "life105": ("life105", "write_life105"),
    "life106": ("life106", "write_life106"),
    "macrocell": ("macrocell", "write_macrocell"),
}
_EXTENSIONS = {".rle": "rle", ".cells": "cells", ".lif": "life106", ".life": "life106", ".mc": "macrocell"}
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20  # compressed bytes read at a time


def _function(table: dict[str, tuple[str, str]], fmt: str) -> Callable[..., Any]:
    """The reader or writer of ``fmt`` in ``table``, its module imported now if it was not yet."""
    module, name = table[fmt]
    return getattr(import_module(f"{__package__}.{module}"), name)


def normalize_format(format: str) -> str:
    """Canonical format name for ``format`` (case-insensitive aliases such as ``"plaintext"``)."""
    key = str(format).lower().lstrip(".")
    if key not in _ALIASES:
        raise UsageError(f"unknown pattern format {format!r}; expected one of {', '.join(FORMATS)}")
    return _ALIASES[key]


def loads(
    text: str | bytes,
    format: str | None = None,
    *,
    source: str | None = None,
    max_cells: int | None = None,
    max_bytes: int | None = None,
    rules_dir: str | os.PathLike | None = None,
) -> Pattern:
    """Parse pattern ``text`` (``str``, or ``bytes`` possibly gzip-compressed) into a :class:`Pattern`.

    ``format`` is one of ``"rle"``, ``"cells"``, ``"life105"``, ``"life106"``, ``"macrocell"``, ``"mcl"``
    (MCell, read only), or ``None`` to
    detect it from the content. ``max_cells`` caps ``H * W`` of the array (default 2**31);
    ``max_bytes`` caps the decoded text of ``bytes`` input (default 256 MiB, or 16 bytes per cell of
    an explicit ``max_cells``). Raises :class:`~tensorca.errors.PatternError` (with line and
    column) for malformed or oversized input.

    A rule named by a Golly rule file (``rule = WireWorld``) is looked up on ``TENSORCA_RULES``,
    then in ``rules_dir``, then next to ``source`` (when it names a file), then among the rules
    bundled with tensorca (:mod:`tensorca.families.rule_table.loader`).
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = decode(text, source, resolve_max_bytes(max_bytes, max_cells))
    if text.startswith("\ufeff"):  # a UTF-8 byte order mark is not part of the first line
        text = text[1:]
    fmt = normalize_format(format) if format is not None else detect_format(text)
    with _rule_search(rules_dir, source):
        return _function(_READERS, fmt)(text, source=source, max_cells=max_cells)


def _rule_search(rules_dir: str | os.PathLike | None, source: str | None):
    """The rule-file search context of one read: ``rules_dir``, then the pattern file's folder."""
    from ..families.rule_table.loader import rule_dirs  # rules is the layer below: imported when reading

    folder = os.path.dirname(os.path.abspath(source)) if source and os.path.isfile(source) else None
    return rule_dirs(rules_dir, folder)


def load(
    path_or_file: PathOrFile,
    format: str | None = None,
    *,
    max_cells: int | None = None,
    max_bytes: int | None = None,
    rules_dir: str | os.PathLike | None = None,
) -> Pattern:
    """Read a pattern file (path or open file, binary or text; gzip detected by magic bytes), or a
    built-in pattern by name (``load("gosper-glider-gun")``; see :func:`tensorca.data.library`).

    A string that names an existing file is always read as that file; otherwise a bare name (no
    folder) is looked up in the library, case-insensitively with ``_``, ``-`` and spaces alike.
    A name found in neither raises :class:`~tensorca.errors.PatternError` with the closest names.

    ``rules_dir``: a folder of Golly ``.rule`` files for a rule named in the file (see :func:`loads`;
    the pattern file's own folder is searched after it).

    gzip is decompressed in chunks and refused once it passes ``max_bytes`` (see :func:`loads`);
    a plain file larger than ``max_bytes`` is refused before it is read.
    """
    budget = resolve_max_bytes(max_bytes, max_cells)
    if isinstance(path_or_file, (str, os.PathLike)):
        source = library_path(path_or_file) if isinstance(path_or_file, str) else os.fspath(path_or_file)
        try:
            with open(source, "rb") as fh:
                text = read_text(fh, source, budget)
        except OSError as exc:
            hint = _not_in_library(source) if isinstance(exc, FileNotFoundError) else ""
            raise PatternError(f"cannot read pattern file: {exc.strerror or exc}{hint}", source=source) from exc
    else:
        source = str(getattr(path_or_file, "name", "<file>"))
        text = read_text(path_or_file, source, budget)
    return loads(text, format, source=source, max_cells=max_cells, rules_dir=rules_dir)


def library_path(name: str) -> str:
    """``name`` itself when it exists (a path always wins); else the file of the built-in pattern of
    that name (``"gosper-glider-gun"``, ``"Glider"``, ``"gosper_gun.rle"``); else ``name`` unchanged."""
    if os.path.exists(name):
        return name
    from ..data.catalog import find, is_bare_name  # standard library only: info stays quick

    entry = find(name) if is_bare_name(name) else None
    return entry.path if entry is not None else name


def _not_in_library(source: str) -> str:
    """The tail of a file-not-found error for a bare name: nor a built-in pattern, did you mean ..."""
    from ..data.catalog import did_you_mean, is_bare_name

    return f", nor is {source!r} a built-in pattern{did_you_mean(source)}" if is_bare_name(source) else ""


def read_text(fh: IO[bytes] | IO[str], source: str | None, max_bytes: int) -> str:
    """The text of an open pattern file, gunzipped in chunks when it starts with gzip's magic."""
    head = fh.read(2)
    if isinstance(head, str):  # a text file object: the caller already holds its text
        return head + fh.read()
    if head == _GZIP_MAGIC:
        chunks = itertools.chain([head], iter(lambda: fh.read(_CHUNK), b""))
        return to_text(gunzip(chunks, source, max_bytes))
    try:
        size = os.fstat(fh.fileno()).st_size
    except (OSError, AttributeError, io.UnsupportedOperation):
        size = None
    if size is not None:
        check_text_size(size, max_bytes, source)
    data = bytearray(head)
    for chunk in iter(lambda: fh.read(_CHUNK), b""):
        data += chunk
        check_text_size(len(data), max_bytes, source)
    return to_text(data)


def dumps(pattern: Pattern, format: str = "rle") -> str:
    """Encode ``pattern`` as text in ``format`` (``"rle"``, ``"cells"``, ``"life105"``, ``"life106"``,
    ``"macrocell"``).

    The plaintext and Life formats hold two states only; a multi-state pattern raises
    :class:`~tensorca.errors.PatternError` (use RLE). No format holds float cells (Lenia): such a
    pattern raises :class:`~tensorca.errors.PatternError` naming checkpoints and ``animals.json``.
    """
    fmt = normalize_format(format)
    if fmt not in _WRITERS:
        raise UsageError(f"tensorca reads {fmt} files but does not write them; use rle")
    if pattern.continuous:  # no pattern format holds floats: refuse rather than round them to states
        raise PatternError(
            f"pattern files hold discrete states, but pattern {pattern.name or ''!r} has float cells (continuous "
            f"rule {pattern.rule}); save it exactly as a checkpoint: tensorca.run(pattern, generations=0, "
            "checkpoint='file.npz'), read back with tensorca.persist.load or continued with tensorca.resume; "
            "or in Chan's animals.json format (tensorca.lenia.save_animals, values in steps of 1/255)")
    return _function(_WRITERS, fmt)(pattern)


def save(path: str | os.PathLike, pattern: Pattern, format: str | None = None) -> None:
    """Write ``pattern`` to ``path``; the format comes from the extension unless given.

    ``.rle`` -> RLE, ``.cells`` -> plaintext, ``.lif``/``.life`` -> Life 1.06, ``.mc`` -> macrocell;
    a further ``.gz`` compresses with gzip.
    """
    name = os.fspath(path)
    compress = name.lower().endswith(".gz")
    if format is None:
        stem = name[:-3] if compress else name
        ext = os.path.splitext(stem)[1].lower()
        if ext not in _EXTENSIONS:
            raise UsageError(
                f"cannot tell the pattern format from {name!r}; use .rle, .cells, .lif, .life or .mc "
                f"(optionally + .gz), or pass format="
            )
        format = _EXTENSIONS[ext]
    data = dumps(pattern, format).encode("utf-8")
    if compress:
        data = gzip.compress(data, mtime=0)  # mtime=0: identical patterns give identical files
    from ..atomic import write_bytes_atomic  # tempfile and shutil: not imported to read a file

    write_bytes_atomic(name, data)  # an existing file is replaced whole or not at all


def decode(data: bytes | bytearray | memoryview, source: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Bytes of a pattern file -> text: gunzip if gzip magic (at most ``max_bytes`` out), then
    UTF-8 (Latin-1 fallback)."""
    if bytes(data[:2]) == _GZIP_MAGIC:
        return to_text(gunzip(data, source, max_bytes))
    check_text_size(len(data), max_bytes, source)
    return to_text(data)


def to_text(data: bytes | bytearray | memoryview) -> str:
    """UTF-8, or Latin-1 when the bytes are not UTF-8 (old files carry Latin-1 comments)."""
    try:
        return str(data, "utf-8")
    except UnicodeDecodeError:
        return str(data, "latin-1")


def gunzip(
    data: bytes | bytearray | memoryview | Iterable[bytes],
    source: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> bytearray:
    """Decompress gzip ``data`` (bytes, or an iterable of byte chunks; all members) in bounded steps,
    refusing output beyond ``max_bytes`` as soon as it is reached (never holding more than
    ``max_bytes + 1`` bytes). Bytes after the last member that are not gzip are ignored.

    A truncated or corrupt stream raises :class:`PatternError`.
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        view = memoryview(data)
        data = (view[i : i + _CHUNK] for i in range(0, len(view), _CHUNK))
    chunks = iter(data)
    out = bytearray()
    pending = b""
    while True:
        while len(pending) < 2:  # a member starts with the magic bytes; anything else ends the data
            more = next(chunks, None)
            if more is None:
                break
            pending = bytes(pending) + bytes(more)
        if bytes(pending[:2]) != _GZIP_MAGIC:
            return out
        pending = _gunzip_member(zlib.decompressobj(wbits=31), pending, chunks, out, source, max_bytes)


def _gunzip_member(
    d: Any, pending: bytes, chunks: Iterator[bytes], out: bytearray, source: str | None, max_bytes: int
) -> bytes:
    """Decompress one gzip member into ``out``; returns the input that follows the member."""
    while True:
        if not pending:
            more = next(chunks, None)
            if more is None:
                raise PatternError("truncated gzip file (the compressed stream ends early)", source=source)
            pending = more
        try:
            out += d.decompress(pending, max_bytes + 1 - len(out))
        except zlib.error as exc:
            raise PatternError(f"corrupt gzip data: {exc}", source=source) from exc
        check_text_size(len(out), max_bytes, source, what="decompressed pattern")
        if d.eof:
            return d.unused_data
        pending = d.unconsumed_tail
