"""``tensorca rule``: a rule string's canonical form, family and number of states."""

from __future__ import annotations

import argparse

from rich.table import Table

from ..rules import parse_spec
from ._console import out


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``rule`` to the ``tensorca`` sub-parsers."""
    p = subparsers.add_parser("rule", help="print a rule's canonical form and family")
    p.add_argument("text", help="rule string, optionally with a Golly topology suffix (B3/S23:T64,64)")
    p.set_defaults(func=cmd_rule)


def cmd_rule(args: argparse.Namespace) -> int:
    rule, topology = parse_spec(args.text)
    table = Table(show_header=False)
    table.add_row("canonical", rule.canonical() + (topology.suffix() if topology else ""))
    table.add_row("family", rule.family)
    table.add_row("states", str(rule.n_states))
    if topology is not None:
        table.add_row("topology", str(topology))
    out.print(table)
    return 0
