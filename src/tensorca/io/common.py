"""Helpers shared by the readers and writers: rule strings inside files, positions, line splitting,
metadata lines."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..errors import PatternError, RuleError, TopologyError
from ..topology import Topology

if TYPE_CHECKING:
    from ..pattern import Pattern
    from ..rules.base import Rule

_INT = re.compile(r"[+-]?\d+")
_EOL = re.compile(r"\r\n|\r|\n")  # Golly's line endings; not str.splitlines (form feeds etc.)


def parse_rule_in_file(
    text: str, line: int, column: int, source: str | None
) -> tuple["Rule", Topology]:
    """Parse a rule (with optional topology suffix) found at ``line``/``column`` of a file.

    A :class:`RuleError` or :class:`TopologyError` becomes a :class:`PatternError` pointing at
    the rule in the file (at the offending character when the rule parser says which), with the
    original error chained as the cause.
    """
    from ..rules import parse_spec  # imported lazily: rules is a separate layer

    try:
        rule, topology = parse_spec(text)
    except (RuleError, TopologyError) as exc:
        position = getattr(exc, "position", None)
        if not isinstance(position, int) and isinstance(exc, TopologyError) and ":" in text:
            position = text.index(":") + 1  # point at the suffix
        col = column + position if isinstance(position, int) else column
        reason = getattr(exc, "reason", None) or str(exc)
        raise PatternError(f"bad rule {text!r}: {reason}", line, col, source) from exc
    return rule, topology if topology is not None else Topology.unbounded()


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(1-based line number, line)`` for DOS, Mac and Unix line endings, endings removed."""
    for number, line in enumerate(_EOL.split(text), start=1):
        yield number, line


def parse_int(token: str, line: int, column: int, source: str | None, what: str) -> int:
    """An integer token, or a :class:`PatternError` naming ``what`` was expected."""
    if not _INT.fullmatch(token):
        raise PatternError(f"expected an integer {what}, got {token!r}", line, column, source)
    if len(token) > 30:  # int() of thousands of digits is slow and never a real coordinate
        raise PatternError(f"{what} {token[:20]}... is too large", line, column, source)
    return int(token)


def int_fields(body: str, line: int, start_col: int, source: str | None, count: int, what: str) -> list[int]:
    """Parse exactly ``count`` whitespace-separated integers from ``body``.

    ``start_col`` is the 1-based column of ``body[0]`` in the line, so errors point at the
    offending field.
    """
    values: list[int] = []
    for m in re.finditer(r"\S+", body):
        col = start_col + m.start()
        if len(values) == count:
            raise PatternError(f"unexpected {m.group()!r} after the {what}", line, col, source)
        values.append(parse_int(m.group(), line, col, source, what))
    if len(values) < count:
        raise PatternError(
            f"expected {count} integers ({what}), got {len(values)}", line, start_col + len(body), source
        )
    return values


def metadata_lines(pattern: "Pattern") -> list[str]:
    """Golly's ``#N`` name, ``#O`` author and ``#C`` comment lines for ``pattern`` (RLE and macrocell)."""
    lines = []
    if pattern.name:
        lines.append(f"#N {' '.join(str(pattern.name).splitlines())}")
    if pattern.author:
        lines.append(f"#O {' '.join(str(pattern.author).splitlines())}")
    for comment in pattern.comments:
        for part in str(comment).splitlines() or [""]:
            lines.append(f"#C {part}" if part else "#C")
    return lines


def check_writable_states(pattern: "Pattern") -> bool:
    """Raise :class:`PatternError` if a cell holds a state the pattern's rule lacks.

    Returns True when the pattern is two-state (a two-state rule, or no rule and only states 0/1),
    the case the RLE and macrocell writers encode with their two-state alphabet.
    """
    rule, max_state = pattern.rule, pattern.max_state
    if rule is not None and max_state >= rule.n_states:
        raise PatternError(
            f"cannot write state {max_state} with rule {rule.canonical()!r}, which has {rule.n_states} states"
        )
    return rule.n_states == 2 if rule is not None else max_state <= 1
