"""MAP rules: any two-state 3x3 rule as a base64 table of 512 bits (:mod:`tensorca.families.map_rules.notation`).

``MAP-B3/S23`` (a rule respelled as MAP) and ``MAP-random:<seed>`` are sample forms
:func:`tensorca.verify.rule_value` expands."""

from ..native import named, table_class
from ..registry import Family
from .notation import matches, parse

FAMILY = Family(
    name="map",
    title="MAP rules: any two-state 3x3 rule as 512 bits of base64",
    claims=named("map"),
    samples=("MAP-B3/S23", "MAP-random:1", "MAP-random:2"),
    notation=(matches, parse),
    cost=table_class,
    engines=("numpy", "torch", "dense-conv", "bitpack-cpu", "bitpack-gpu", "hashlife", "dask"),
)
