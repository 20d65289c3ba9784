"""Lenia creatures and Chan's cell format.

``creature("O2u")`` returns Orbium unicaudatus as a :class:`~tensorca.pattern.Pattern` (float cells
in [0, 1], its :class:`~tensorca.families.lenia.rule.LeniaRule`); ``load_animals(path)`` reads a full
``animals.json``. :mod:`.expanded`: multi-channel, multi-kernel Lenia, the rule value
:class:`ExpandedLenia` that ``tensorca.run`` steps on ``(C, H, W)`` / ``(B, C, H, W)`` cells;
:mod:`.module`: a ``torch.nn.Module`` with learnable ``m``, ``s``, ``T`` (imports torch);
:mod:`.flow`: Flow Lenia, the mass-conserving variant (:class:`FlowLenia`, :func:`run_flow`,
:func:`flow_creature`; torus only).
The rule family itself lives in :mod:`tensorca.families.lenia.rule`, its kernels in
:mod:`tensorca.families.lenia.steps`.
"""

from ..families.lenia_expanded.rule import ExpandedLenia, Kernel
from .cells import decode_cells, encode_cells
from .flow import FlowLenia, flow_creature, flow_creature_names, parse_flow, run_flow
from .library import animal_entry, creature, creature_names, load_animals, params_rule, save_animals

__all__ = ["ExpandedLenia", "FlowLenia", "Kernel", "animal_entry", "creature", "creature_names", "decode_cells",
           "encode_cells", "flow_creature", "flow_creature_names", "load_animals", "params_rule", "parse_flow",
           "run_flow", "save_animals"]
