"""Helpers shared by the readers and writers: rule strings inside files, positions, line splitting,
metadata lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..errors import PatternError, RuleError, TopologyError
from ..topology import Topology

if TYPE_CHECKING:
    from ..pattern import Pattern
    from ..rules.base import Rule

_INT = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: int() would also take "٣"
# A line's first non-blank character and the rest of its line; Golly's line endings are \r\n, \r and
# \n (not str.splitlines, which also breaks at form feeds etc.).
_NONBLANK = re.compile(r"\S[^\r\n]*")
#: A line's text from its first non-blank character (shared by the readers that skip blank lines).
NONBLANK = _NONBLANK


def parse_rule_in_file(
    text: str, line: int, column: int, source: str | None
) -> tuple[Rule, Topology]:
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
    except (ValueError, IndexError, KeyError, TypeError, OverflowError, RecursionError) as exc:
        # a rule-parser fault on hostile text is still a bad rule in this file, never a traceback
        raise PatternError(f"bad rule {text[:80]!r}: {type(exc).__name__}: {exc}", line, column, source) from exc
    return rule, topology if topology is not None else Topology.unbounded()


def count_line_breaks(text: str, start: int, stop: int) -> int:
    """Golly's line breaks (``\\r\\n``, ``\\r``, ``\\n``) in ``text[start:stop]``, counted in C."""
    return text.count("\n", start, stop) + text.count("\r", start, stop) - text.count("\r\n", start, stop)


def iter_lines(text: str, pos: int = 0, number: int = 1, stop: int | None = None) -> Iterator[tuple[int, str]]:
    """``(1-based line number, line)`` for every line holding a non-blank character.

    DOS, Mac and Unix line endings are understood and removed. Lines of whitespace only are
    skipped (every reader ignores them, and the plaintext reader counts them from the line
    numbers), found and counted by C-level string searches, so a file of a billion newlines
    costs no Python loop and no list of lines. With ``pos``, ``number`` and ``stop``: the lines of
    ``text[pos:stop]``, where ``pos`` starts line ``number``.
    """
    end = pos  # ``number`` is the line number of the text at ``end``
    for m in _NONBLANK.finditer(text, pos, len(text) if stop is None else stop):
        start = max(text.rfind("\n", end, m.start()), text.rfind("\r", end, m.start()), end - 1) + 1
        if start > end:  # line breaks between the previous line and this one
            number += count_line_breaks(text, end, start)
        yield number, text[start : m.end()]
        end = m.end()


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


def metadata_lines(pattern: Pattern) -> list[str]:
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


def check_writable_states(pattern: Pattern) -> bool:
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
