"""The notation table behind ``parse_rule``: each rule family's ``(matches, parse)``, tried in order.

Rule families register their notations here (:mod:`tensorca.families`: built-in ones in the order
Golly tries its algorithms, plug-ins first); this module knows none of them. It also finds where a
rule ends in ``rule[:key=value,...][:topology]`` and loads the families other packages declare
(entry points, on first need). :mod:`.spec` is the public face (``parse_rule``, ``parse_spec``,
``resolve``), above the families.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from ..errors import RuleError
from ._errors import fail
from .base import Rule

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
#: Every family's notation, in the order they are tried (:mod:`tensorca.families` registers the built-in
#: ones; plug-in families go first).
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


def clear_cache() -> None:
    """Forget parsed texts (a rule-file name means another file once the search path changes)."""
    _parse_cached.cache_clear()


def register_notation(matches: Matcher, parse: Parser, *, first: bool = False) -> None:
    """Teach the parser a notation: ``matches(body)`` says whether the stripped rule text is one of its
    rules, ``parse(text, start, end)`` parses ``text[start:end]`` (raising
    :class:`~tensorca.errors.RuleError` with positions). :func:`tensorca.families.register_family` calls
    it with a family's ``notation``. ``first``: tried before every notation registered so far (a
    plug-in family's, which must then accept only its own texts)."""
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
        return parse_text(text, start, end)
    return _parse_cached(text, start, end)


@functools.lru_cache(maxsize=1024)  # rules are frozen values; run() parses the same text again and again
def _parse_cached(text: str, start: int, end: int) -> Rule:
    return parse_text(text, start, end)


def parse_text(text: str, start: int, end: int) -> Rule:
    """The rule in ``text[start:end]``, uncached: the first registered notation that matches parses it."""
    if start >= end:
        raise fail("empty rule", text, start)
    body = text[start:end]
    if not _plugins_loaded and not looks_like_notation(body):
        load_plugins()
    for matches, parse in _NOTATIONS:
        if matches(body):
            return parse(text, start, end)
    raise fail("not a rule in any notation", text, start)  # pragma: no cover - life-like's matcher takes all


def looks_like_notation(body: str) -> bool:
    """Whether ``body``, a stripped rule text, has the form of a built-in notation (B/S, Wolfram,
    MAP, Larger than Life), so that a failure to parse it is that parser's to report; a bare
    name such as ``WireWorld`` or ``Langtons-Loops`` has none of these forms."""
    return _NOTATION_LIKE.match(body) is not None


