"""Loading and saving pattern files: bytes, gzip, text decoding and format dispatch.

gzip is recognised by its magic bytes whatever the file is called; ``save`` compresses when the
name ends in ``.gz``. Text is decoded as UTF-8, falling back to Latin-1 (old pattern files carry
Latin-1 comments). The format is detected from the content unless given.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import IO, Callable, Union

from ..atomic import write_bytes_atomic
from ..errors import PatternError
from ..pattern import Pattern
from .budget import DEFAULT_MAX_BYTES
from .detect import FORMATS, detect_format
from .life105 import read_life105, write_life105
from .life106 import read_life106, write_life106
from .macrocell import read_macrocell, write_macrocell
from .plaintext import read_plaintext, write_plaintext
from .rle import read_rle, write_rle

PathOrFile = Union[str, os.PathLike, IO[bytes], IO[str]]

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
}
_READERS: dict[str, Callable[..., Pattern]] = {
    "rle": read_rle,
    "cells": read_plaintext,
    "life105": read_life105,
    "life106": read_life106,
    "macrocell": read_macrocell,
}
_WRITERS: dict[str, Callable[[Pattern], str]] = {
    "rle": write_rle,
    "cells": write_plaintext,
    "life105": write_life105,
    "life106": write_life106,
    "macrocell": write_macrocell,
}
_EXTENSIONS = {".rle": "rle", ".cells": "cells", ".lif": "life106", ".life": "life106", ".mc": "macrocell"}
_GZIP_MAGIC = b"\x1f\x8b"


def normalize_format(format: str) -> str:
    """Canonical format name for ``format`` (case-insensitive aliases such as ``"plaintext"``)."""
    key = str(format).lower().lstrip(".")
    if key not in _ALIASES:
        raise ValueError(f"unknown pattern format {format!r}; expected one of {', '.join(FORMATS)}")
    return _ALIASES[key]


def loads(
    text: str | bytes,
    format: str | None = None,
    *,
    source: str | None = None,
    max_cells: int | None = None,
) -> Pattern:
    """Parse pattern ``text`` (``str``, or ``bytes`` possibly gzip-compressed) into a :class:`Pattern`.

    ``format`` is one of ``"rle"``, ``"cells"``, ``"life105"``, ``"life106"``, ``"macrocell"``, or ``None`` to
    detect it from the content. ``max_cells`` caps ``H * W`` of the array (default 2**31).
    Raises :class:`~tensorca.errors.PatternError` (with line and column) for malformed input.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = decode(bytes(text), source)
    if text.startswith("\ufeff"):  # a UTF-8 byte order mark is not part of the first line
        text = text[1:]
    fmt = normalize_format(format) if format is not None else detect_format(text)
    return _READERS[fmt](text, source=source, max_cells=max_cells)


def load(path_or_file: PathOrFile, format: str | None = None, *, max_cells: int | None = None) -> Pattern:
    """Read a pattern file (path or open file, binary or text; gzip detected by magic bytes)."""
    if isinstance(path_or_file, (str, os.PathLike)):
        source = os.fspath(path_or_file)
        try:
            data: str | bytes = Path(source).read_bytes()
        except OSError as exc:
            raise PatternError(f"cannot read pattern file: {exc.strerror or exc}", source=source) from exc
    else:
        source = str(getattr(path_or_file, "name", "<file>"))
        data = path_or_file.read()
    return loads(data, format, source=source, max_cells=max_cells)


def dumps(pattern: Pattern, format: str = "rle") -> str:
    """Encode ``pattern`` as text in ``format`` (``"rle"``, ``"cells"``, ``"life105"``, ``"life106"``,
    ``"macrocell"``).

    The plaintext and Life formats hold two states only; a multi-state pattern raises
    :class:`~tensorca.errors.PatternError` (use RLE).
    """
    return _WRITERS[normalize_format(format)](pattern)


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
            raise ValueError(
                f"cannot tell the pattern format from {name!r}; use .rle, .cells, .lif, .life or .mc "
                f"(optionally + .gz), or pass format="
            )
        format = _EXTENSIONS[ext]
    data = dumps(pattern, format).encode("utf-8")
    if compress:
        data = gzip.compress(data, mtime=0)  # mtime=0: identical patterns give identical files
    write_bytes_atomic(name, data)  # an existing file is replaced whole or not at all


def decode(data: bytes, source: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Bytes of a pattern file -> text: gunzip if gzip magic, then UTF-8 (Latin-1 fallback)."""
    if data[:2] == _GZIP_MAGIC:
        data = gunzip(data, source, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def gunzip(data: bytes, source: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Decompress gzip ``data`` (all members), refusing output beyond ``max_bytes``.

    A truncated or corrupt stream raises :class:`PatternError`.
    """
    out = bytearray()
    rest = data
    while rest[:2] == _GZIP_MAGIC:
        d = zlib.decompressobj(wbits=31)
        try:
            chunk = d.decompress(rest, max_bytes + 1 - len(out))
        except zlib.error as exc:
            raise PatternError(f"corrupt gzip data: {exc}", source=source) from exc
        out += chunk
        if len(out) > max_bytes:
            raise PatternError(f"decompressed pattern is larger than {max_bytes} bytes", source=source)
        if not d.eof:
            raise PatternError("truncated gzip file (the compressed stream ends early)", source=source)
        rest = d.unused_data
    return bytes(out)
