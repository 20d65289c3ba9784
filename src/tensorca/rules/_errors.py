"""The positioned error of the rule parsers (neighbourhood geometry lives in :mod:`.neighbourhoods`)."""

from __future__ import annotations

from ..errors import RuleError


def fail(message: str, text: str, position: int | None) -> RuleError:
    """A :class:`RuleError` naming ``text`` and the 0-based ``position`` (raise the result)."""
    return RuleError(message, text, position)
