"""Rule values and the parser for Golly's rule notations.

``parse_rule("B3/S23")`` and ``parse_spec("B3/S23:T64,64")`` return frozen rule values (:class:`TableRule`,
:class:`LargerThanLifeRule`, ...) whose ``canonical()`` is Golly's spelling and whose ``compile()`` is the
step spec engines run (:mod:`.stepspec`). Malformed text raises :class:`~tensorca.errors.RuleError`
(positioned), whatever the input string.

This package holds what every rule family builds on (:mod:`.base`, :mod:`.stepspec`,
:mod:`.neighbourhoods`, the notation table :mod:`.notation`); the families' own notations and values are
in :mod:`tensorca.families`. Its public names are imported on first use (PEP 562): importing
``tensorca.rules.base`` (as every family does) runs nothing here, while ``tensorca.rules.parse_rule``
brings the parser with every family's notation (:mod:`.spec`).
"""

from __future__ import annotations

from typing import Any

from .. import _lazy

#: Where each public name lives: ``name -> module`` (relative to this package).
_LAZY: dict[str, str] = {
    "CENTRE_BIT": ".neighbourhoods",
    "TABLE_WEIGHTS": ".neighbourhoods",
    "Rule": ".base",
    "TableRule": ".base",
    "LargerThanLifeRule": "..families.larger_than_life.notation",
    "letter_class": "..families.life_like.hensel",
    "neighbourhood_mask": ".neighbourhoods",
    "parse_rule": ".spec",
    "parse_spec": ".spec",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept; else a submodule (``tensorca.rules.spec``)."""
    return _lazy.attribute(__name__, globals(), _LAZY, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "CENTRE_BIT",
    "TABLE_WEIGHTS",
    "LargerThanLifeRule",
    "Rule",
    "TableRule",
    "letter_class",
    "neighbourhood_mask",
    "parse_rule",
    "parse_spec",
]
