"""Rule values and the parser for Golly's rule notations.

``parse_rule("B3/S23")`` and ``parse_spec("B3/S23:T64,64")`` return frozen rule values
(:class:`TableRule`, :class:`LargerThanLifeRule`) whose ``canonical()`` is Golly's spelling and
whose ``compile()`` is the step spec engines run (:mod:`.stepspec`). Malformed text raises
:class:`~tensorca.errors.RuleError` (positioned), whatever the input string.
"""

from . import lenia as _lenia  # noqa: F401,E402  registers Chan's Lenia notation
from . import ruleloader as _ruleloader  # noqa: F401,E402  rule files, Super/History notations
from .base import CENTRE_BIT, TABLE_WEIGHTS, LargerThanLifeRule, Rule, TableRule
from .hensel import letter_class
from .neighbourhoods import neighbourhood_mask
from .spec import parse_rule, parse_spec

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
