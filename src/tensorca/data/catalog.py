"""The built-in pattern library: classic Life patterns by name, like Golly's Patterns folder.

``tensorca.load("gosper-glider-gun")`` and ``tensorca run glider --gens 100`` find these files by
name (:func:`find`); ``tensorca patterns`` lists them (:func:`library`). Names are lower-case and
hyphenated, matched case-insensitively with ``_``, ``-`` and spaces alike; a file's own name
(``gosper_gun.rle``) matches too. Only the standard library is imported here: resolving a name must
not slow down ``tensorca info``.

Every file in ``patterns/`` was written for tensorca from the well-known cell coordinates of the
pattern (see ``README.md`` in this folder for each one's provenance).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import resources

from ..errors import PatternError

__all__ = ["PatternEntry", "find", "library", "lookup", "normalize", "suggestions"]


@dataclass(frozen=True)
class PatternEntry:
    """One built-in pattern: its ``name``, the bundled ``file`` holding it, a one-line ``description``."""

    name: str
    file: str
    description: str

    @property
    def path(self) -> str:
        """The file's path inside the installed package."""
        return str(resources.files("tensorca").joinpath("data", "patterns", self.file))


#: Every built-in pattern, in ``tensorca patterns`` order: guns, methuselahs, spaceships,
#: oscillators, still lifes, growth.
_ENTRIES: tuple[PatternEntry, ...] = tuple(PatternEntry(*row) for row in (
    ("gosper-glider-gun", "gosper_gun.rle", "the first gun: a glider every 30 generations (Gosper, 1970)"),
    ("simkin-glider-gun", "simkin_glider_gun.rle", "a glider every 120 generations (Simkin, 2015)"),
    ("r-pentomino", "r_pentomino.rle", "methuselah: stabilises at generation 1103 with 116 cells"),
    ("acorn", "acorn.rle", "methuselah: stabilises at generation 5206 with 633 cells"),
    ("diehard", "diehard.rle", "methuselah: vanishes at generation 130"),
    ("b-heptomino", "b_heptomino.rle", "heptomino: stabilises at generation 148 with 28 cells"),
    ("glider", "glider.rle", "spaceship: one cell diagonally every 4 generations (c/4)"),
    ("lwss", "lwss.rle", "lightweight spaceship: 2 cells orthogonally every 4 generations (c/2)"),
    ("mwss", "mwss.rle", "middleweight spaceship: 2 cells orthogonally every 4 generations (c/2)"),
    ("hwss", "hwss.rle", "heavyweight spaceship: 2 cells orthogonally every 4 generations (c/2)"),
    ("copperhead", "copperhead.rle", "slow spaceship: 1 cell orthogonally every 10 generations (c/10)"),
    ("blinker", "blinker.rle", "oscillator, period 2: the smallest"),
    ("toad", "toad.rle", "oscillator, period 2"),
    ("beacon", "beacon.rle", "oscillator, period 2"),
    ("pulsar", "pulsar.rle", "oscillator, period 3"),
    ("pentadecathlon", "pentadecathlon.rle", "oscillator, period 15"),
    ("block", "block.rle", "still life, 4 cells"),
    ("beehive", "beehive.rle", "still life, 6 cells"),
    ("loaf", "loaf.rle", "still life, 7 cells"),
    ("boat", "boat.rle", "still life, 5 cells"),
    ("switch-engine", "switch_engine.rle", "puffer engine, period 96; alone it stabilises with 842 cells"),
    ("infinite-growth", "infinite_growth.rle", "5x5 pattern that grows without bound (try --gens 2^30)"),
))


def normalize(name: str) -> str:
    """The lookup key of ``name``: lower-case, ``_`` and spaces as ``-``, a trailing ``.rle`` dropped."""
    key = re.sub(r"[\s_-]+", "-", name.strip().lower())
    return key[: -len(".rle")] if key.endswith(".rle") else key


def _index() -> dict[str, PatternEntry]:
    """Key -> entry: each entry's name and its file's name (``gosper_gun.rle`` was bundled before names)."""
    index: dict[str, PatternEntry] = {}
    for entry in _ENTRIES:
        index.setdefault(normalize(entry.file), entry)
        index[normalize(entry.name)] = entry  # a name wins over another entry's file stem
    return index


def library() -> dict[str, PatternEntry]:
    """Every built-in pattern: name -> :class:`PatternEntry` (``.path``, ``.description``), in listing order."""
    return {entry.name: entry for entry in _ENTRIES}


def find(name: str) -> PatternEntry | None:
    """The built-in pattern called ``name`` (see :func:`normalize`), or None."""
    return _index().get(normalize(name))


def suggestions(name: str, n: int = 3) -> list[str]:
    """Library names close to ``name`` (difflib), best first."""
    import difflib  # only when a name is not found

    return difflib.get_close_matches(normalize(name), [entry.name for entry in _ENTRIES], n=n, cutoff=0.6)


def lookup(name: str) -> PatternEntry:
    """The built-in pattern called ``name``; raises :class:`~tensorca.errors.PatternError` with the
    closest names when there is none."""
    entry = find(name)
    if entry is None:
        raise PatternError(f"no built-in pattern {name!r}{did_you_mean(name)}", source=name)
    return entry


def did_you_mean(name: str) -> str:
    """``"; did you mean 'glider'? (`tensorca patterns` lists them)"``: the tail of a not-found error."""
    close = suggestions(name)
    guess = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"{guess} (`tensorca patterns` or tensorca.data.library() lists the built-in patterns)"


def is_bare_name(path: str) -> bool:
    """True when ``path`` names no folder (``glider``, ``gosper_gun.rle``): only such may be a library name."""
    return os.path.basename(path) == path and os.sep not in path and (os.altsep or os.sep) not in path
