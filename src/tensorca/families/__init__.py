"""Rule families: one folder each, one :class:`Family` declaration each, one registry (:mod:`.registry`).

``families()`` lists them (built-in first, in the order they are asked to claim a rule, then those
other packages declare under the entry-point group ``tensorca.families``); ``family_of(rule)`` is the
family a parsed rule belongs to. The stochastic family comes first: a noisy rule wraps a rule of
another family and is priced and verified as stochastic.

Adding a family: a folder here (or a package of your own, see ``examples/plugin_family``) whose
declaration gives its notation, samples, cost class, kernels and their memory; see
``docs/architecture.md``.
"""

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
    class_samples,
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

for _module in (stochastic, life_like, isotropic, map_rules, generations, wolfram, larger_than_life, rule_table,
                super_history, lenia, lenia_expanded):
    register_family(_module.FAMILY)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Family",
    "class_factor",
    "class_samples",
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
