"""MAP rules: any two-state 3x3 rule as a base64 table of 512 bits (:mod:`tensorca.rules.maprule`).

``MAP-B3/S23`` (a rule respelled as MAP) and ``MAP-random:<seed>`` are sample forms
:func:`tensorca.verify.rule_value` expands."""

from ..native import table_class, table_rule_of
from ..registry import Family

FAMILY = Family(
    name="map",
    title="MAP rules: any two-state 3x3 rule as 512 bits of base64",
    claims=table_rule_of("map"),
    samples=("MAP-B3/S23", "MAP-random:1", "MAP-random:2"),
    cost=table_class,
    engines=("numpy", "torch", "dense-conv", "bitpack-cpu", "bitpack-gpu", "hashlife", "dask"),
)
