"""Rule families: one folder each, one :class:`Family` declaration each, one registry (:mod:`.registry`).

``families()`` lists them (built-in first, in the order they are asked to claim a rule, then those
other packages declare under the entry-point group ``tensorca.families``); ``family_of(rule)`` is the
family a parsed rule belongs to. The stochastic family comes first: a noisy rule wraps a rule of
another family and is priced and verified as stochastic.

Adding a family: a folder here (or a package of your own, see ``examples/plugin_family``) whose
declaration gives its notation, samples, cost class, kernels and their memory; see
``docs/architecture.md``.
"""

from ..rules.notation import register_notation
from . import (
    generations,
    isotropic,
    larger_than_life,
    lenia,
    lenia_expanded,
    life_like,
    map_rules,
    rule_table,
    stochastic,
    super_history,
    wolfram,
)
from .registry import (
    ENTRY_POINT_GROUP,
    Family,
    class_factor,
    cost_class,
    extra_kinds,
    families,
    family,
    family_names,
    family_of,
    kernel_cell_bytes,
    register_family,
    register_step,
    step_for,
)

#: The order families are listed and asked to claim a rule (stochastic first: a noisy rule wraps a rule of
#: another family).
LISTING_ORDER = (stochastic, life_like, isotropic, map_rules, generations, wolfram, larger_than_life, rule_table,
                 super_history, lenia, lenia_expanded)
#: The order ``parse_rule`` tries the built-in notations, Golly's: parameters wrap every other rule; Lenia;
#: Super/History before rule-file names (a name ending in History is Golly's History rule); expanded Lenia;
#: then the notations of a form (MAP, W<n>, R<r>, two slashes), and B/S last, whose parser reports what
#: is wrong with a rule no notation took. Plug-ins' notations go before all of these.
NOTATION_ORDER = (stochastic, lenia, super_history, rule_table, lenia_expanded, map_rules, wolfram, larger_than_life,
                  generations, life_like)

for _module in LISTING_ORDER:
    register_family(_module.FAMILY, notation=False)
for _module in NOTATION_ORDER:
    register_notation(*_module.FAMILY.notation)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Family",
    "class_factor",
    "cost_class",
    "extra_kinds",
    "families",
    "family",
    "family_names",
    "family_of",
    "kernel_cell_bytes",
    "register_family",
    "register_step",
    "step_for",
]
