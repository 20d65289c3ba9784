"""Entry points: ``parse_rule`` (a rule string), ``parse_spec`` (rule plus Golly topology suffix) and
``resolve`` (what a user passed as rule and topology).

The notation is recognised from the text by the rule families' notations (:mod:`.notation`), in the
spirit of Golly trying each algorithm in turn: stochastic parameters, Lenia, Super/History, rule-file
names, expanded Lenia, ``MAP...`` (with one slash: Generations MAP), ``W<n>``, ``R<r>,...`` or five
comma-separated numbers (Larger than Life / HROT), two slashes (Generations), otherwise B/S (with Hensel
letters, ``V`` or ``H``); families from other packages first.

A colon starts Golly's topology suffix (``B3/S23:T64,64``), except that a segment holding ``=``
right after the rule is the rule's own parameters (a stochastic rule):
``B3/S23:pb=0.9,ps=0.99`` and ``B3/S23:pb=0.9,ps=0.99:T64,64``.
"""

from __future__ import annotations

from .. import families as _families  # noqa: F401  every built-in family registers its notation
from ..errors import TopologyError, UsageError
from ..topology import Topology, parse_topology, resolve_topology
from ._errors import fail
from .base import Rule
from .notation import _bounds, _parse, rule_end


def parse_rule(text: str) -> Rule:
    """Parse a Golly rule string (no topology suffix) into a rule value.

    Raises :class:`tensorca.errors.RuleError` with the offending position; a ``:`` suffix is
    refused with a pointer to :func:`parse_spec`.
    """
    if not isinstance(text, str):
        raise UsageError(f"rule must be a string, got {type(text).__name__}")
    end, colon = rule_end(text)
    if colon >= 0:
        raise fail("topology suffix ':' not allowed here; use parse_spec() for rule plus topology", text, colon)
    start, end = _bounds(text[:end])
    return _parse(text, start, end)


def parse_spec(text: str) -> tuple[Rule, Topology | None]:
    """Parse ``rule[:topology]`` (e.g. ``"B3/S23:T64,64"``): the rule and its topology or ``None``."""
    if not isinstance(text, str):
        raise UsageError(f"rule must be a string, got {type(text).__name__}")
    end, colon = rule_end(text)
    start, end = _bounds(text[:end])
    rule = _parse(text, start, end)
    if colon < 0:
        return rule, None
    return rule, parse_topology(text[colon + 1 :].strip())


#: The rule ``resolve`` falls back to when neither a rule nor a fallback is given.
DEFAULT_RULE = "B3/S23"


def resolve(
    rule: str | Rule | None,
    topology: str | Topology | None = None,
    *,
    shape: tuple[int, int] | None = None,
    fallback: Rule | None = None,
) -> tuple[Rule, Topology | None]:
    """The one resolver of what a user passed as ``rule`` and ``topology``.

    ``rule``: a rule string (optionally with a Golly suffix, ``"B3/S23:T64,64"``), a rule value,
    or None (``fallback``, then B3/S23). ``topology``: a suffix, ``"torus"``/``"plane"`` (sized by
    ``shape`` ``(H, W)``), ``"unbounded"``, a :class:`Topology`, or None. Returns the rule and the
    topology from ``topology`` or the suffix (``TopologyError`` when both are given and differ),
    or None when neither names one: the caller applies its own default.
    """
    suffix: Topology | None = None
    if isinstance(rule, Rule):
        value = rule
    elif rule is None:
        value = fallback if fallback is not None else parse_rule(DEFAULT_RULE)
    elif isinstance(rule, str):
        value, suffix = parse_spec(rule)
    else:
        raise UsageError(f"rule must be a rule string or a Rule, not {type(rule).__name__}")
    given = resolve_topology(topology, shape)
    if given is not None and suffix is not None and given != suffix:
        raise TopologyError(f"topology {given} conflicts with the rule's suffix {suffix}")
    return value, given or suffix
