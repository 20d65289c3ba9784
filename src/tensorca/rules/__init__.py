"""Rule values and the parser for Golly's rule notations.

``parse_rule("B3/S23")`` and ``parse_spec("B3/S23:T64,64")`` return frozen rule values
(:class:`TableRule`, :class:`LargerThanLifeRule`) whose ``canonical()`` is Golly's spelling and
whose ``compile()`` is the step spec engines run (:mod:`.stepspec`). Malformed text raises
:class:`~tensorca.errors.RuleError` (positioned), whatever the input string.
"""

from . import notations as _notations  # Chan's Lenia notation (its module is imported on first use)
from . import ruleloader as _ruleloader  # noqa: F401  rule files, Super/History notations
from . import stochastic as _stochastic
from .base import CENTRE_BIT, TABLE_WEIGHTS, LargerThanLifeRule, Rule, TableRule
from .hensel import letter_class
from .neighbourhoods import neighbourhood_mask
from .spec import parse_rule, parse_spec, register_notation

# ExpandedLenia after the rule files' notations, where it was tried when its module registered it on
# import; now that module (NumPy kernels, the engines' step registry) is imported on the first such rule.
register_notation(_notations.matches_expanded, _notations.parse_expanded)
# `rule:key=value` (noisy and asynchronous rules) wraps every other notation, and DK/ForestFire/SIR are
# names a rule file could also have: tried first.
register_notation(_stochastic.matches, _stochastic.parse, first=True)

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
