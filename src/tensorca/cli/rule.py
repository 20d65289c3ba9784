"""``tensorca rule``: a rule string's canonical form, family (:mod:`tensorca.families`), number of states
and the engines that run it.

A rule named by a Golly rule file (``tensorca rule WireWorld``) also shows its neighbourhood,
how the file defines it and where the file was found (``--rules-dir`` adds a folder to search).
"""

from __future__ import annotations

import argparse

from ..families import family_of
from ..families.rule_table.loader import describe, rule_dirs
from ..families.stochastic.rule import describe as describe_draws
from ..rules import parse_spec
from ._console import rows


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``rule`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("rule", help="print a rule's canonical form and family")
    p.add_argument("text", help="rule string, optionally with a Golly topology suffix (B3/S23:T64,64), "
                                "or the name of a Golly rule file (WireWorld)")
    p.add_argument("--rules-dir", default=None, help="a folder of Golly .rule files to search first")
    p.set_defaults(func=cmd_rule)


def cmd_rule(args: argparse.Namespace) -> int:
    """Print the rule's canonical form, family, states (and file facts, topology) as ``key  value`` lines."""
    with rule_dirs(getattr(args, "rules_dir", None)):
        rule, topology = parse_spec(args.text)
    owner = family_of(rule)
    lines = [("canonical", rule.canonical() + (topology.suffix() if topology else "")),
             ("family", owner.name if owner else rule.family),
             ("states", str(rule.n_states)),
             *describe(rule).items(),
             *describe_draws(rule).items()]
    if owner is not None:
        lines.append(("engines", ", ".join(owner.engines)))
    if topology is not None:
        lines.append(("topology", str(topology)))
    rows(lines)  # plain text: this command stays fast without rich
    return 0
