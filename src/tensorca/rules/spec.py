"""Entry points: ``parse_rule`` (a rule string) and ``parse_spec`` (rule plus Golly topology suffix).

The notation is recognised from the text, in the spirit of Golly trying each algorithm in turn:
``MAP...`` (with one slash: Generations MAP), ``W<n>``, ``R<r>,...`` or five comma-separated
numbers (Larger than Life / HROT), two slashes (Generations), otherwise B/S (with Hensel letters,
``V`` or ``H``).

A colon starts Golly's topology suffix (``B3/S23:T64,64``), except that a segment holding ``=``
right after the rule is the rule's own parameters (a stochastic rule, :mod:`.stochastic`):
``B3/S23:pb=0.9,ps=0.99`` and ``B3/S23:pb=0.9,ps=0.99:T64,64``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ..errors import RuleError, TopologyError, UsageError
from ..topology import Topology, parse_topology, resolve_topology
from ._errors import fail
from .base import Rule, TableRule
from .generations import parse_generations
from .lifelike import parse_lifelike
from .ltl import parse_ltl
from .maprule import MAP_LENGTHS, parse_map
from .wolfram import parse_wolfram

_LTL = re.compile(r"\s*(R[0-9]|[0-9]+\s*,)", re.IGNORECASE | re.ASCII)
#: The start of a name-like text (a letter, then letters, digits, ``_ - . +``) that reads as a
#: built-in notation mistyped, not as a rule-file name: B/S (``B3S23x``, ``S23``, ``BS``, a lone
#: ``V`` or ``H``), Wolfram (``W``, ``W31``), MAP (``MAPABC``; upper case, as ``Mapping`` may be a
#: name) or Larger than Life (``R3``).
_NOTATION_LIKE = re.compile(r"[BS](?:[0-9_]|S(?:[0-9_]|$)|$)|[VH]$|W(?:[0-9]|$)|(?-i:MAP)|R[0-9]",
                            re.IGNORECASE | re.ASCII)
#: Longer texts are parsed every time: a cache entry holds the text and the rule built from it.
CACHE_MAX_CHARS = 4096

Matcher = Callable[[str], bool]
Parser = Callable[[str, int, int], Rule]
#: Notations of other rule families (rule tables, Lenia, ...), tried before the built-in ones.
_NOTATIONS: list[tuple[Matcher, Parser]] = []


#: The entry-point group other packages declare rule families in (:mod:`tensorca.families`).
PLUGIN_GROUP = "tensorca.families"
_plugins_loaded = False


def load_plugins() -> None:
    """Load the rule families other packages declare under :data:`PLUGIN_GROUP`, once per process:
    each entry names a :class:`tensorca.families.Family`, whose ``register()`` adds its notation here.

    Called before the first text with no built-in notation's form is parsed, and when the families are
    listed; never at import. A plug-in that fails to load raises :class:`RuleError` naming it (a broken
    installation is not silently a missing family)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points  # ~40 ms: only when a plug-in could be asked for

    for entry in entry_points(group=PLUGIN_GROUP):
        try:
            entry.load().register()
        except Exception as exc:  # noqa: BLE001 - any failure of foreign code is reported as one error
            raise RuleError(f"rule family plug-in {entry.name!r} ({entry.value}) failed to load: "
                            f"{type(exc).__name__}: {exc}") from exc


def register_notation(matches: Matcher, parse: Parser, *, first: bool = False) -> None:
    """Teach :func:`parse_rule` a notation: ``matches(body)`` says whether the stripped rule text is
    one of its rules, ``parse(text, start, end)`` parses ``text[start:end]`` (raising
    :class:`~tensorca.errors.RuleError` with positions). A rule family's module calls this once
    when it is imported (``rules/__init__.py`` imports it). ``first``: tried before every notation
    registered so far (a notation that wraps others, as the stochastic ``rule:key=value`` does)."""
    if first:
        _NOTATIONS.insert(0, (matches, parse))
    else:
        _NOTATIONS.append((matches, parse))
    _parse_cached.cache_clear()


def rule_end(text: str) -> tuple[int, int]:
    """``(end, colon)``: where the rule in ``text`` ends (after its ``:key=value`` parameters, if it has
    them) and the index of the colon that starts the topology suffix (-1: none)."""
    colon = text.find(":")
    if colon < 0:
        return len(text), -1
    after = text.find(":", colon + 1)
    segment = text[colon + 1 : after if after >= 0 else len(text)]
    if not _is_parameters(text[:colon], segment):
        return colon, colon
    if after >= 0 and "=" in text[after + 1 :]:
        raise fail("a rule takes one ':key=value,...' list of parameters (put them all in one, before the "
                   "topology suffix)", text, after + 1)
    return (after, after) if after >= 0 else (len(text), -1)


#: Parameter names that are never the start of a topology suffix: ``B3/S23:pb`` lacks a value, it is no suffix.
_PARAMETER_NAMES = frozenset({"pb", "ps", "async"})
#: Rule names whose colon is always followed by parameters (:mod:`.stochastic`'s families).
_PARAMETER_RULES = frozenset({"dk", "forestfire", "sir"})


def _is_parameters(head: str, segment: str) -> bool:
    """Whether ``segment`` (after the first colon) is a rule's ``key=value`` list, not a topology suffix."""
    first = segment.split(",", 1)[0].strip().lower()
    return "=" in segment or first in _PARAMETER_NAMES or head.strip().lower() in _PARAMETER_RULES


def parse_range(text: str, start: int, end: int) -> Rule:
    """The rule in ``text[start:end]`` (surrounding whitespace excluded by the caller), for notations
    that wrap another rule: positions in its errors are positions in ``text``."""
    return _parse(text, start, end)


def _bounds(text: str) -> tuple[int, int]:
    """``(start, end)`` of ``text`` without surrounding whitespace."""
    start = len(text) - len(text.lstrip())
    return start, start + len(text.strip())


def _parse(text: str, start: int, end: int) -> Rule:
    """The rule in ``text[start:end]``, from a bounded cache when ``text`` is short."""
    if len(text) > CACHE_MAX_CHARS:
        return _parse_text(text, start, end)
    return _parse_cached(text, start, end)


@functools.lru_cache(maxsize=1024)  # rules are frozen values; run() parses the same text again and again
def _parse_cached(text: str, start: int, end: int) -> Rule:
    return _parse_text(text, start, end)


def _parse_text(text: str, start: int, end: int) -> Rule:
    if start >= end:
        raise fail("empty rule", text, start)
    body = text[start:end]
    if not _plugins_loaded and not looks_like_notation(body):
        load_plugins()
    for matches, parse in _NOTATIONS:
        if matches(body):
            return parse(text, start, end)
    if body[:3].upper() == "MAP":
        # '/' is a base64 character, so the Generations '/states' suffix is found by length: a
        # body of a valid MAP length is a plain MAP; otherwise the last '/' starts the states.
        data = len(body) - 3 - (2 if body.endswith("==") else 0)
        last_slash = text.rfind("/", start, end)
        if data not in MAP_LENGTHS and last_slash > start + 3:
            return parse_generations(text, start, end, [last_slash, last_slash])
        table, nb, canon = parse_map(text, start, end)
        return TableRule(table=table, kind="map", neighbourhood=nb, text=canon)
    if body[0] in "wW":
        return parse_wolfram(text, start, end)
    if _LTL.match(body):
        return parse_ltl(text, start, end)
    slashes = [i for i in range(start, end) if text[i] in "/_"]
    if len(slashes) > 2:
        raise fail("too many slashes: B/S rules take one, Generations rules two", text, slashes[2])
    if len(slashes) == 2:
        return parse_generations(text, start, end, slashes)
    return parse_lifelike(text, start, end)


def looks_like_notation(body: str) -> bool:
    """Whether ``body``, a stripped rule text, has the form of a built-in notation (B/S, Wolfram,
    MAP, Larger than Life), so that a failure to parse it is that parser's to report; a bare
    name such as ``WireWorld`` or ``Langtons-Loops`` has none of these forms."""
    return _NOTATION_LIKE.match(body) is not None


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
