"""Lenia creatures: Bert Chan's ``animals.json`` entries as :class:`~tensorca.pattern.Pattern` values.

An entry is ``{"code": "O2u", "name": "Orbium unicaudatus", "params": {"R": 13, "T": 10, "b": "1",
"m": 0.15, "s": 0.015, "kn": 1, "gn": 1}, "cells": "7.MD6.qL$..."}`` (Chan's Lenia repository,
MIT). The bundled library (``data/creatures.json``) holds six; :func:`load_animals` reads a full
``animals.json`` a user has (its section headers, entries without cells, are skipped).
"""

from __future__ import annotations

import functools
import json
import os
from importlib import resources
from typing import Any

import numpy as np

from ..errors import PatternError, RuleError, UsageError
from ..families.lenia.rule import LeniaRule
from ..pattern import Pattern
from ..rules.spec import parse_rule
from .cells import MAX_CELLS, decode_cells, encode_cells

__all__ = ["animal_entry", "creature", "creature_names", "load_animals", "params_rule", "save_animals"]

#: Largest animals.json read (Chan's full file is about 2 MB).
MAX_BYTES = 64 << 20


def params_rule(params: dict[str, Any], source: str = "<params>") -> LeniaRule:
    """The rule of an entry's ``params`` (``b`` as ``"1,1/3"`` or a list): Chan's string, parsed."""
    if not isinstance(params, dict):
        raise PatternError(f"params must be an object, got {type(params).__name__}", source=source)
    peaks = params.get("b", "1")
    peaks = ",".join(str(p) for p in peaks) if isinstance(peaks, list) else str(peaks)
    parts = [f"R={params.get('R')}", f"T={params.get('T')}", f"b=[{peaks}]", f"m={params.get('m')}",
             f"s={params.get('s')}", f"kn={params.get('kn', 1)}", f"gn={params.get('gn', 1)}"]
    try:
        rule = parse_rule(",".join(parts))
    except RuleError as exc:
        raise PatternError(f"bad Lenia params: {exc}", source=source) from exc
    return rule  # type: ignore[return-value]


def entry_pattern(entry: dict[str, Any], source: str, dtype: type = np.float64,
                  max_cells: int = MAX_CELLS) -> Pattern:
    """The :class:`Pattern` of one animals.json entry (``(H, W)`` ``dtype`` cells in [0, 1], its rule,
    unbounded plane); :class:`PatternError` naming the entry for a field of the wrong type or value."""
    code, name = _text(entry, "code", source), _text(entry, "name", source)
    where = f"{source} ({code or name or 'entry'})"
    if not isinstance(entry.get("cells"), str):
        raise PatternError(f"'cells' must be a string, got {type(entry.get('cells')).__name__}", source=where)
    rule = params_rule(entry.get("params"), where)
    cells = decode_cells(entry["cells"], where, dtype, max_cells)
    comments = [f"{code} {name}".strip(), "from Bert Chan's Lenia animals (MIT)"]
    return Pattern(cells, rule=rule, name=entry.get("name"), comments=comments)


def _text(entry: dict[str, Any], key: str, source: str) -> str:
    """``entry[key]`` when it is a string, ``""`` when absent; else :class:`PatternError`."""
    value = entry.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PatternError(f"{key!r} must be a string, got {type(value).__name__} {str(value)[:40]}", source=source)
    return value


def _entries(data: Any, source: str) -> list[dict[str, Any]]:
    if isinstance(data, dict) and "animals" in data:
        data = data["animals"]
    if not isinstance(data, list):
        raise PatternError("expected a JSON list of animals", source=source)
    return [e for e in data if isinstance(e, dict) and e.get("cells") and e.get("params")]


def load_animals(path: str | os.PathLike, dtype: type = np.float64,
                 max_cells: int = MAX_CELLS) -> dict[str, Pattern]:
    """Every creature of an ``animals.json`` file, keyed ``"code name"`` (``"O2u Orbium unicaudatus"``), in
    file order, each of ``(H, W)`` ``dtype`` cells (at most ``max_cells``). Raises :class:`PatternError`
    naming the file (and the entry) for a file that is not such a list, or not UTF-8 JSON."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:  # missing, a directory, unreadable: the same typed error as io.load's
        raise PatternError(f"cannot read animals file: {exc.strerror or exc}", source=source) from exc
    if len(raw) > MAX_BYTES:
        raise PatternError(f"file larger than {MAX_BYTES} bytes", source=source)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PatternError(f"not UTF-8 text: byte {exc.start} is {raw[exc.start:exc.start + 1]!r}",
                           source=source) from None
    except json.JSONDecodeError as exc:
        raise PatternError(f"not JSON: {exc.msg}", exc.lineno, exc.colno, source) from None
    except ValueError as exc:  # a number of more than 4300 digits, which Python will not read
        raise PatternError(f"not JSON that Python reads: {exc}", source=source) from None
    except RecursionError:
        raise PatternError("JSON nested too deeply", source=source) from None
    patterns = (entry_pattern(e, source, dtype, max_cells) for e in _entries(data, source))
    return {pattern.comments[0]: pattern for pattern in patterns}  # "code name"


def animal_entry(pattern: Pattern, code: str = "", name: str | None = None) -> dict[str, Any]:
    """``pattern`` (float cells, a Lenia rule) as an animals.json entry; cells rounded to levels 0..255."""
    rule = pattern.rule
    if not isinstance(rule, LeniaRule):
        given = rule.canonical() if rule is not None else None
        raise UsageError(f"an animals.json entry needs a Lenia rule, got {given!r}")
    params = {"R": rule.R, "T": int(rule.T) if float(rule.T).is_integer() else rule.T,
              "b": ",".join(str(f) for f in rule.b), "m": rule.m, "s": rule.s, "kn": rule.kn, "gn": rule.gn}
    return {"code": code, "name": name if name is not None else (pattern.name or ""), "params": params,
            "cells": encode_cells(pattern.cells)}


def save_animals(path: str | os.PathLike, entries: list[dict[str, Any]]) -> None:
    """Write ``entries`` (from :func:`animal_entry`) as an animals.json list that :func:`load_animals` reads."""
    with open(os.fspath(path), "w", encoding="utf-8") as fh:
        json.dump(entries, fh, indent=1)


@functools.lru_cache(maxsize=1)
def _bundled() -> tuple[dict[str, Any], ...]:
    text = resources.files(__package__).joinpath("data/creatures.json").read_text(encoding="utf-8")
    return tuple(_entries(json.loads(text), "creatures.json"))


def creature_names() -> list[tuple[str, str]]:
    """``(code, name)`` of every bundled creature."""
    return [(e["code"], e["name"]) for e in _bundled()]


def creature(code_or_name: str, dtype: type = np.float64) -> Pattern:
    """A bundled creature by name (``"Orbium unicaudatus"``, case-insensitive) or Chan's code (``"O2u"``).

    Returns a :class:`Pattern` of ``(H, W)`` ``dtype`` cells in [0, 1] with its :class:`LeniaRule`
    on the unbounded plane; run it on a torus with ``run(p, generations, topology=":T128,128")``.
    A code shared by several creatures (``K4s``) raises :class:`UsageError` listing their names.
    """
    if not isinstance(code_or_name, str):
        raise UsageError(f"creature takes a code or name string, got {type(code_or_name).__name__}")
    key = code_or_name.strip()
    found = [e for e in _bundled() if e["name"].lower() == key.lower()] or \
            [e for e in _bundled() if e["code"] == key]
    if len(found) > 1:
        names = ", ".join(repr(e["name"]) for e in found)
        raise UsageError(f"creature code {key!r} names several creatures ({names}): pass the name")
    if not found:
        known = ", ".join(f"{c} ({n})" for c, n in creature_names())
        raise UsageError(f"no bundled creature {key!r}; known: {known}")
    return entry_pattern(found[0], "creatures.json", dtype)
