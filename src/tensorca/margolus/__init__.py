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

The public names are imported on first use (PEP 562): the ``margolus`` engine (:mod:`.engine`, which
the engine registry's precheck imports) and the block kernels it runs sit on the engines' floor and
need neither :class:`tensorca.Pattern` nor :mod:`.pattern`, so importing them runs nothing here.
"""

from __future__ import annotations

from typing import Any

from .. import _lazy

#: Where each public name lives: ``name -> module`` (relative to this package).
_LAZY: dict[str, str] = {
    **dict.fromkeys(("decode", "emulated_rule_text", "encode", "recognise"), ".emulated"),
    **dict.fromkeys(("BlockPattern", "from_emulated", "to_emulated"), ".pattern"),
    **dict.fromkeys(("NAMED", "BlockRule", "block_rule", "from_transitions", "named_rules", "parse_block_rule"),
                    ".rules"),
    **dict.fromkeys(("next_phase", "run"), ".simulate"),
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept; else a submodule (``margolus.engine``)."""
    return _lazy.attribute(__name__, globals(), _LAZY, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
