"""ASCII whole numbers in rule text.

``str.isdigit`` and the ``\\d`` of ``re`` accept superscripts and other scripts' digits
(``"B³/S23"``), and ``int`` refuses more than 4300 digits with a bare ``ValueError``; rule text
is read through these two functions instead.
"""

from __future__ import annotations

from ._errors import fail

DIGITS = "0123456789"
#: More significant digits than any count, range or state number a rule can hold.
MAX_DIGITS = 30


def is_digits(text: str) -> bool:
    """True when ``text`` is one or more ASCII digits ``0-9``."""
    return bool(text) and all(ch in DIGITS for ch in text)


def whole_number(text: str, src: str, pos: int, what: str) -> int:
    """``text`` (at ``pos`` in the rule ``src``) as an int; a :class:`RuleError` unless it is ASCII
    digits with at most :data:`MAX_DIGITS` significant ones (larger is out of every range)."""
    if not is_digits(text):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise fail(f"{what} must be a whole number, got {shown!r}", src, pos)
    if len(text.lstrip("0")) > MAX_DIGITS:
        raise fail(f"{what} has {len(text)} digits, far out of range", src, pos)
    return int(text.lstrip("0") or "0")


def small_int(text: str) -> int | None:
    """``text`` as an int when it is ASCII digits with at most :data:`MAX_DIGITS` significant ones,
    else None (for readers that report the error with their own position)."""
    if not is_digits(text) or len(text.lstrip("0")) > MAX_DIGITS:
        return None
    return int(text)
