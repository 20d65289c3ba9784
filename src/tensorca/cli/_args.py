"""Argument types checked at parse time, output paths checked before step 1, bundled pattern names.

Every ``type=`` function here raises :class:`argparse.ArgumentTypeError`, so a bad number ends in
one usage line (``tensorca: error: argument --batch: ...``) before anything runs: no overflow,
no allocation of 1e23 grids, no thread pool of 99999 workers.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import re
import tempfile
from collections.abc import Callable

from .. import persist
from ..errors import UsageError

#: Upper bound for counts (grids, soups, batches, generations): what fits an int64 comfortably.
MAX_COUNT = 2**62
#: Upper bound of a memory budget: 1 EiB (int64 bytes, and more than any machine has).
MAX_BYTES = 2**60

_DEVICE = re.compile(r"^(cpu|cuda(:\d{1,3})?|mps)$")
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 10**3, "kib": 1 << 10, "m": 1 << 20, "mb": 10**6, "mib": 1 << 20,
          "g": 1 << 30, "gb": 10**9, "gib": 1 << 30, "t": 1 << 40, "tb": 10**12, "tib": 1 << 40}


def integer(low: int = 0, high: int = MAX_COUNT) -> Callable[[str], int]:
    """An argparse type: a whole number in ``[low, high]`` (``"1e3"`` is refused: say 1000)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            wanted = {0: "non-negative", 1: "positive"}.get(low, f"at least {low}")
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high}, got {text}")
        return value

    parse.__name__ = "integer"
    return parse


_POWER = re.compile(r"^(\d+)\s*(?:\^|\*\*)\s*(\d+)$")
_SCIENTIFIC = re.compile(r"^(\d+)(?:\.(\d*))?[eE]\+?(\d+)$")


def generations(low: int = 0, high: int = MAX_COUNT) -> Callable[[str], int]:
    """An argparse type: a whole number of generations in ``[low, high]``, written as digits
    (``1_000_000``), a power (``2^30``, ``10**9``) or in scientific notation when that is whole
    (``1e9``, ``2.5e3``; not ``1.5`` or ``1e-3``). Sizes are checked before anything is computed,
    so ``9^99999999`` is refused at once."""

    def parse(text: str) -> int:
        raw = text.strip().replace("_", "")
        value = _whole(raw, high)
        shown = text if len(text) <= 40 else text[:37] + "..."
        if value is None:
            raise argparse.ArgumentTypeError(
                f"{shown!r} is not a whole number of generations (write 1000, 1e9, 2^30 or 10**9)")
        if value < low:
            wanted = {0: "non-negative", 1: "positive"}.get(low, f"at least {low}")
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {shown}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high} (2^{high.bit_length() - 1}), got {shown}")
        return value

    parse.__name__ = "generations"
    return parse


def _whole(raw: str, high: int) -> int | None:
    """``raw`` as an int (``-`` allowed on plain digits), ``high + 1`` when it is certainly larger
    than ``high``, None when it is not a whole number in one of the accepted forms."""
    if re.fullmatch(r"[+-]?\d+", raw):
        value = _small(raw.lstrip("+-"))
        sign = -1 if raw.startswith("-") else 1
        return sign * (high + 1 if value is None else value)
    power = _POWER.match(raw)
    if power:
        base, exponent = _small(power.group(1)), _small(power.group(2))
        if base in (0, 1):
            return 1 if exponent == 0 else base
        if exponent == 0:
            return 1
        if base is None or exponent is None or exponent * math.log2(base) > high.bit_length() + 1:
            return high + 1
        return base**exponent
    sci = _SCIENTIFIC.match(raw)
    if sci:
        fraction = (sci.group(2) or "").rstrip("0")
        mantissa, exponent = _small(sci.group(1) + fraction), _small(sci.group(3))
        if mantissa == 0:
            return 0
        if exponent is not None and len(fraction) > exponent:
            return None  # 1.25e1: not whole
        if mantissa is None or exponent is None:
            return high + 1
        if (len(str(mantissa)) + exponent) * math.log2(10) > high.bit_length() + 40:
            return high + 1
        return mantissa * 10 ** (exponent - len(fraction))
    return None


def _small(digits: str) -> int | None:
    """``digits`` as an int, None when it has more than 40 significant digits (never a 4,300-digit
    conversion, which Python refuses)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 40 else None


def number(low: float = 0.0, high: float = 1e12, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite float in ``[low, high]`` (``(low, high]`` with ``low_open``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        too_low = value <= low if low_open else value < low
        if not math.isfinite(value) or too_low or value > high:
            bracket = "(" if low_open else "["
            raise argparse.ArgumentTypeError(f"{text} is out of range {bracket}{low:g}, {high:g}]")
        return value

    parse.__name__ = "number"
    return parse


def byte_size(text: str) -> int:
    """An argparse type: ``"64M"``, ``"2GiB"``, ``"100000"`` -> bytes (positive, at most 1 EiB)."""
    raw = text.strip().lower().replace(" ", "")
    digits = raw.rstrip("kmgtib")
    unit = raw[len(digits):]
    try:
        value = float(digits)
    except ValueError:
        value = math.nan
    if unit not in _UNITS or not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 512M or 2G")
    if value * _UNITS[unit] > MAX_BYTES:
        raise argparse.ArgumentTypeError(f"{text!r} is more than 1 EiB")
    return max(1, int(value * _UNITS[unit]))


def device(text: str) -> str:
    """An argparse type: ``cpu``, ``cuda``, ``cuda:N`` or ``mps`` (whether it exists is checked later)."""
    value = text.strip().lower()
    if not _DEVICE.match(value):
        raise argparse.ArgumentTypeError(f"unknown device {text!r}; use cpu, cuda, cuda:N or mps")
    return value


def devices(text: str) -> list[str] | None:
    """An argparse type: ``all`` (None: every device each engine has) or comma-separated devices."""
    if text.strip().lower() == "all":
        return None
    return [device(part) for part in text.split(",")]


def grid_size(text: str) -> tuple[int, int]:
    """An argparse type: ``"WIDTHxHEIGHT"`` (or ``"N"`` for a square) -> ``(height, width)``."""
    from ..random_grids import parse_size

    try:
        height, width = parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if height > 2**31 or width > 2**31:
        raise argparse.ArgumentTypeError(f"size {text!r} is too large: at most 2**31 cells a side")
    return height, width


def int_list(low: int, high: int) -> Callable[[str], list[int]]:
    """An argparse type: comma-separated whole numbers, each in ``[low, high]``."""
    one = integer(low, high)

    def parse(text: str) -> list[int]:
        return [one(part) for part in text.split(",") if part.strip()] or [one(text)]

    parse.__name__ = "list"
    return parse


# -- paths ------------------------------------------------------------------------------------

#: What each kind of output may be called (a pattern may add ``.gz``).
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "pattern": (".rle", ".cells", ".lif", ".life", ".mc"),
    "checkpoint": persist.file_suffixes(),
    "csv": (".csv",),
    "json": (".json",),
    "gif": (".gif",),
    "mp4": (".mp4",),
    "png": (".png",),
    "plot": (".png", ".svg", ".pdf"),
    "haul": (".txt", ".haul"),
}


def check_output(path: str | None, kind: str, option: str) -> None:
    """Refuse an output path that would fail only after the run: a wrong extension for ``kind``, a
    missing or unwritable directory, an existing directory of that name. None passes."""
    if path is None:
        return
    allowed = EXTENSIONS[kind]
    name = path.lower()
    stem = name[:-3] if kind == "pattern" and name.endswith(".gz") else name
    if not stem.endswith(allowed):
        extra = " (optionally + .gz)" if kind == "pattern" else ""
        raise UsageError(f"{option} {path}: unknown extension; use {', '.join(allowed)}{extra}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        what = "is a file, not a folder" if os.path.exists(folder) else "does not exist"
        raise UsageError(f"{option} {path}: folder {folder} {what}")
    if os.path.isdir(path):
        raise UsageError(f"{option} {path}: is a folder")
    _probe(folder, f"{option} {path}")


def _probe(folder: str, what: str) -> None:
    """Create and remove a scratch file in ``folder``: the one test of writability that also holds
    for root and for special file systems (``/proc``), where ``os.access`` says yes."""
    try:
        handle, scratch = tempfile.mkstemp(dir=folder, prefix=".tensorca-probe-")
    except OSError as exc:
        reason = "" if exc.errno == errno.ENOENT else f" ({exc.strerror or exc})"  # ENOENT: e.g. /proc
        raise UsageError(f"{what}: folder {folder} is not writable{reason}") from None
    os.close(handle)
    os.unlink(scratch)


def pattern_input(path: str) -> str:
    """``path`` itself when it exists; else a bundled pattern of that bare name (``gosper_gun.rle``);
    else ``path`` unchanged, so that reading it reports the missing file under the name given."""
    if os.path.exists(path) or os.path.basename(path) != path:
        return path
    from ..data import pattern_path

    bundled = pattern_path(path)
    return bundled if os.path.isfile(bundled) else path
