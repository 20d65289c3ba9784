"""The pieces of a ``.rule`` file every section parser shares: its ``@`` sections and the error that
locates a fault (``file:line:column:``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import RuleError

__all__ = ["RuleFileError", "Section", "split_sections"]


class RuleFileError(RuleError):
    """A malformed rule file; ``source``, ``line`` and ``column`` (1-based) locate the fault."""

    def __init__(self, message: str, source: str | None, line: int | None, column: int | None = None):
        where = source or "<rule file>"
        if line is not None:
            where += f":{line}" + (f":{column}" if column is not None else "")
        super().__init__(f"{where}: {message}")
        self.reason = f"{where}: {message}"
        self.source, self.line, self.column = source, line, column


@dataclass(frozen=True)
class Section:
    """One ``@NAME`` section: its name, the 1-based line of its header and its body lines
    as ``(line number, text)`` pairs (text without the line break)."""

    name: str
    line: int
    lines: tuple[tuple[int, str], ...]


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_sections(text: str, source: str | None) -> list[Section]:
    """The ``@`` sections of ``text`` in file order (lines before the first ``@`` are ignored)."""
    sections: list[Section] = []
    name, start, body = None, 0, []
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        if line.startswith("@"):
            if name is not None:
                sections.append(Section(name, start, tuple(body)))
            words = line[1:].split()
            name, start, body = (words[0] if words else ""), number, [(number, line)]
        elif name is not None:
            body.append((number, line))
    if name is not None:
        sections.append(Section(name, start, tuple(body)))
    return sections
