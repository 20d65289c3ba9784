"""A plain two-state RLE body read in bulk: every run found with NumPy over the body's bytes at once.

The run-by-run reader (:mod:`.rle`) spends a regular-expression match and a few Python branches
per run: ~3 ms for a 5 KB file like Golly's ``p90-rake-factory.rle``. Most files are two-state
bodies of ``<count><tag>`` runs with tags ``b``, ``o``, ``$`` and ``!``; here the runs come from
array operations: the tags' positions, the counts from the digit runs right before them, the rows
from a cumulative sum of the ``$`` counts and each run's column from the cumulative sum of the
run lengths since its row began.

A fast path only: :func:`read_two_state_body` returns None for anything else (a body over
:data:`MAX_BODY_BYTES`, other tags, a count
split from its tag by whitespace, a count of 0 or of ten digits or more, a count with no tag, a
size beyond the cell budget), and the run-by-run reader then reads the file and reports what is
wrong and where. :func:`fill_runs` writes runs into an array, for both readers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_ZERO, _NINE = ord("0"), ord("9")
_B, _O, _ROW, _END = (ord(c) for c in "bo$!")
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[ord(c) for c in " \t\n\r\f\v"]] = True
_ALLOWED = _WHITESPACE.copy()
_ALLOWED[[_B, _O, _ROW, _END, *range(_ZERO, _NINE + 1)]] = True
#: Largest body read here: the work arrays cost ~60 bytes per byte of body, and a big body is
#: usually a hostile or machine-made one (``20000000o``), which the run-by-run reader holds in a
#: few runs.
MAX_BODY_BYTES = 1 << 20
#: Most digits of a count here (larger counts: the run-by-run reader checks them against the budget).
_MAX_DIGITS = 9


def read_two_state_body(body: str, header: tuple[int, int] | None, budget: int) -> np.ndarray | None:
    """The ``(H, W)`` uint8 cells of RLE ``body`` (the text after the header and ``#`` lines):
    the header's ``(width, height)`` grown to cover every live cell; None where the run-by-run
    reader must decide (see the module docstring)."""
    if len(body) > MAX_BODY_BYTES:
        return None
    try:
        raw = np.frombuffer(body.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    end = np.flatnonzero(raw == _END)
    raw = raw[: end[0] + 1] if end.size else raw  # anything after '!' is ignored
    if not _ALLOWED[raw].all():
        return None
    space = _WHITESPACE[raw]
    digit = (raw >= _ZERO) & (raw <= _NINE)
    if (digit[:-1] & space[1:]).any():  # '12 o' or '1 2o': the run-by-run reader's rules decide
        return None
    a = raw[~space]
    digit = (a >= _ZERO) & (a <= _NINE)
    if a.size and digit[-1]:  # a count with no tag
        return None
    tags = np.flatnonzero(~digit)
    counts = _counts(a, digit, tags)
    if counts is None:
        return None
    kind = a[tags]
    rows = np.where(kind == _ROW, counts, 0)
    y = np.cumsum(rows) - rows  # the row each run starts on
    step = np.where((kind == _B) | (kind == _O), counts, 0)
    before = np.cumsum(step) - step  # the run lengths before each tag, from the body's start
    new_row = np.concatenate(([True], kind[:-1] == _ROW))  # tags that begin a row
    x = before - before[new_row][np.cumsum(new_row) - 1]  # each run's column in its row
    live = kind == _O
    ys, xs, ns = y[live], x[live], counts[live]
    width, height = (int((xs + ns).max()), int(ys.max()) + 1) if ns.size else (0, 0)
    if header is not None:
        width, height = max(width, header[0]), max(height, header[1])
    if y.size and (int(y[-1] + rows[-1]) > budget or int((x + step).max()) > budget):
        return None  # a row index or a row length past the budget: the careful reader's error
    if width * height > budget:
        return None
    cells = np.zeros((height, width), dtype=np.uint8)
    fill_runs(cells, ys, xs, ns, np.ones(ns.size, dtype=np.uint8))
    return cells


def _counts(a: np.ndarray, digit: np.ndarray, tags: np.ndarray) -> np.ndarray | None:
    """The count of each tag: the digits right before it, 1 where there are none; None for a
    count of 0 or of more than :data:`_MAX_DIGITS` digits."""
    counts = np.ones(tags.size, dtype=np.int64)
    positions = np.flatnonzero(digit)
    if not positions.size:
        return counts
    begins = np.flatnonzero(np.concatenate(([True], np.diff(positions) > 1)))
    length = np.diff(np.concatenate((begins, [positions.size])))
    if length.max() > _MAX_DIGITS:
        return None
    token = np.repeat(np.arange(begins.size), length)
    place = np.arange(positions.size) - begins[token]
    values = np.add.reduceat((a[positions].astype(np.int64) - _ZERO)
                             * np.power(10, length[token] - 1 - place, dtype=np.int64), begins)
    if (values == 0).any():
        return None
    owner = np.searchsorted(tags, positions[begins + length - 1])  # the tag right after each count
    counts[owner] = values
    return counts


def fill_runs(
    cells: np.ndarray, ys: Sequence[int], xs: Sequence[int], ns: Sequence[int], states: Sequence[int]
) -> None:
    """Set ``cells[y, x : x + n] = state`` for every run, in place (``cells``: ``(H, W)`` ``uint8``).

    The runs are int sequences or typed arrays (``array('q')``, ``array('B')``). Short runs are
    scattered in vectorised chunks (one flat index per cell, at most 2**22 cells at a time);
    long runs are written as slices.
    """
    if not len(ys):
        return
    width = cells.shape[1]
    flat = cells.reshape(-1)
    y = np.asarray(ys, dtype=np.int64)
    x = np.asarray(xs, dtype=np.int64)
    n = np.asarray(ns, dtype=np.int64)
    s = np.asarray(states, dtype=np.uint8)
    long = n > 256
    for i in np.flatnonzero(long).tolist():
        start = int(y[i] * width + x[i])
        flat[start : start + int(n[i])] = s[i]
    short = ~long
    y, x, n, s = y[short], x[short], n[short], s[short]
    chunk = 1 << 14  # runs per chunk: at most 2**22 cells of int64 indices at a time
    for lo in range(0, n.size, chunk):
        cn = n[lo : lo + chunk]
        starts = y[lo : lo + chunk] * width + x[lo : lo + chunk]
        total = int(cn.sum())
        offsets = np.cumsum(cn) - cn  # where each run begins in the expanded index
        index = np.repeat(starts - offsets, cn) + np.arange(total, dtype=np.int64)
        flat[index] = np.repeat(s[lo : lo + chunk], cn)


__all__ = ["fill_runs", "read_two_state_body"]
