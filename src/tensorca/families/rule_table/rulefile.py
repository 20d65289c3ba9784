"""Golly's rule-file format (``.rule``): sections ``@RULE``, ``@TABLE``, ``@TREE``, ``@COLORS``, ``@NAMES``.

A file is split into sections at lines starting with ``@``; ``@ICONS`` and unknown sections are
skipped as Golly skips them, and a file needs ``@RULE`` plus one of ``@TABLE``/``@TREE`` (Golly's
RuleLoader help page). :func:`parse_rule_file` returns a :class:`RuleFile`: the rule's name, its
number of states, its neighbourhood, and its transition function as a decision tree
(:class:`~tensorca.families.rule_table.tree.Tree`), plus the ``@COLORS`` and ``@NAMES`` it declares.

Every malformed line raises :class:`RuleFileError` (a :class:`~tensorca.errors.RuleError`) whose
message starts ``file:line:column:``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .sections import RuleFileError, Section, split_sections

__all__ = ["RuleFile", "RuleFileError", "Section", "parse_rule_file"]


@dataclass(frozen=True, eq=False)
class RuleFile:
    """A parsed rule file. ``tree`` is the compiled transition function; ``neighbourhood`` is
    ``"Moore"``, ``"vonNeumann"``, ``"hexagonal"`` or ``"oneDimensional"``; ``colors`` maps a
    state to ``(r, g, b)``; ``names`` maps a state to its ``@NAMES`` label; ``kind`` is
    ``"table"`` or ``"tree"`` (which section defined it)."""

    name: str
    n_states: int
    neighbourhood: str
    tree: object = field(repr=False)
    kind: str = "table"
    symmetries: str | None = None
    colors: dict[int, tuple[int, int, int]] = field(default_factory=dict, repr=False)
    gradient: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
    names: dict[int, str] = field(default_factory=dict, repr=False)
    source: str | None = None


def parse_rule_file(text: str, source: str | None = None, expected_name: str | None = None) -> RuleFile:
    """Parse the text of a ``.rule`` file (see the module docstring).

    ``expected_name``: the name the file was looked up by (Golly runs the rule under that name,
    whatever ``@RULE`` says); without it the ``@RULE`` name is used.
    """
    # the section parsers (and NumPy's tree building) load with the first rule file, not with parse_rule
    from .rulecolors import parse_colors, parse_names
    from .ruletable import parse_table
    from .tree import parse_tree

    sections = split_sections(text, source)
    by_name = {s.name: s for s in reversed(sections)}  # the first of each name wins
    head = by_name.get("RULE")
    if head is None:
        raise RuleFileError("no @RULE line", source, 1, 1)
    header = head.lines[0][1]
    name = header[len("@RULE"):].strip()
    if not name or header[len("@RULE"):][:1] not in (" ", "\t"):
        raise RuleFileError("@RULE must be followed by the rule's name", source, head.line, 6)
    # Golly runs the first @TABLE or @TREE of the file under the name it looked the file up by
    name = expected_name or name
    body = next((s for s in sections if s.name in ("TABLE", "TREE")), None)
    if body is None:
        raise RuleFileError("no @TABLE or @TREE section", source, head.line, 1)
    if body.name == "TABLE":
        n_states, nbhd, symmetries, tree = parse_table(body, source)
        kind = "table"
    else:
        n_states, nbhd, tree = parse_tree(body, source)
        symmetries, kind = None, "tree"
    colors, gradient = parse_colors(by_name.get("COLORS"), n_states, source)
    names = parse_names(by_name.get("NAMES"), n_states, source)
    return RuleFile(name, n_states, nbhd, tree, kind, symmetries, colors, gradient, names, source)
