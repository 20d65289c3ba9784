"""The Lenia notations, told apart here without importing their rule families.

Chan's Lenia (:mod:`tensorca.rules.lenia`) and expanded Lenia (:mod:`tensorca.lenia.expanded`) bring
fractions, NumPy kernels and the engines' step registry; ``parse_rule("B3/S23")`` needs none of it.
The parser is given the cheap matchers below (Chan's when this module is imported, by
:mod:`tensorca.rules` before the rule-file notations; expanded Lenia's by :mod:`tensorca.rules` after
them), and each ``parse_*`` here imports its family's module on the first rule of that family (which
also registers its kernels, so they are known before any engine steps such a rule).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .spec import register_notation

if TYPE_CHECKING:
    from ..lenia.expanded import ExpandedLenia
    from .lenia import LeniaRule

#: How an expanded (multi-channel, multi-kernel) Lenia world's rule string starts, in lower case.
EXPANDED_PREFIX = "expandedlenia("
_LENIA_KEY = re.compile(r"R\s*=")


def matches_lenia(body: str) -> bool:
    """True for Chan's parameter string (``R=...``), bare or as ``Lenia(...)``."""
    head = body.lstrip()
    if head[:6].lower() == "lenia(":
        return True
    return _LENIA_KEY.match(head) is not None


def parse_lenia(text: str, start: int, end: int) -> LeniaRule:
    """:func:`tensorca.rules.lenia.parse_lenia`, its module imported on first use."""
    from .lenia import parse_lenia as parse

    return parse(text, start, end)


def matches_expanded(body: str) -> bool:
    """True for ``ExpandedLenia(...)`` (any case)."""
    return body[: len(EXPANDED_PREFIX)].lower() == EXPANDED_PREFIX


def parse_expanded(text: str, start: int, end: int) -> ExpandedLenia:
    """:func:`tensorca.lenia.expanded.parse_expanded`, its module imported on first use."""
    from ..lenia.expanded import parse_expanded as parse

    return parse(text, start, end)


register_notation(matches_lenia, parse_lenia)
