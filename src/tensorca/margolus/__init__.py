"""Block cellular automata on the Margolus neighbourhood: 2x2 blocks on alternating offsets.

Each step partitions the grid into 2x2 blocks and replaces every block by the rule's image of it;
the partition moves by one cell diagonally each step (blocks at (0, 0) on even generations, at
(1, 1) on odd ones, from phase (0, 0)). A rule is a table over the ``n**4`` blocks, written in
MCell's ``MS,D...`` notation, as a Golly Margolus rule table, or by name::

    from tensorca import margolus
    rule = margolus.parse_block_rule("BBM")            # MCell: MS,D0;8;4;3;2;5;9;7;1;6;10;11;12;13;14;15
    later = margolus.run(cells, rule, 1000)            # (H, W) or (B, H, W); torus by default
    again = margolus.run(later, rule, -1000)           # reversible rules run backwards exactly

- :mod:`.rules`: :class:`BlockRule`, the notations and the named rules (:data:`NAMED`).
- :mod:`.simulate`: :func:`run` (NumPy reference, torch, Numba backends) and the phase rule.
- :mod:`.reference`, :mod:`.torch_step`, :mod:`.fast`: the three implementations of one step.
- :mod:`.emulated`, :mod:`.pattern`: Golly's ``*Margolus*emulated`` rule files: recognising their
  trees, :func:`from_emulated` / :func:`to_emulated` for their patterns.
- :mod:`.engine`: the ``margolus`` engine, through which ``tensorca.run`` of such a pattern runs
  on the block kernel and gives Golly's cells.
"""

from __future__ import annotations

from .emulated import decode, emulated_rule_text, encode, recognise
from .pattern import BlockPattern, from_emulated, to_emulated
from .rules import NAMED, BlockRule, block_rule, from_transitions, named_rules, parse_block_rule
from .simulate import next_phase, run

__all__ = [
    "NAMED",
    "BlockPattern",
    "BlockRule",
    "block_rule",
    "decode",
    "emulated_rule_text",
    "encode",
    "from_emulated",
    "from_transitions",
    "named_rules",
    "next_phase",
    "parse_block_rule",
    "recognise",
    "run",
    "to_emulated",
]
