"""Block rules on the Margolus neighbourhood: values, notations and the named rules.

A Margolus rule maps each 2x2 block of cells to a new 2x2 block. With ``n`` states a block is one
of ``n**4`` configurations, numbered as MCell numbers the 16 two-state ones::

    code = TL + n*TR + n**2*BL + n**3*BR        (TL, TR, BL, BR: the block's states)

so for two states the top-left cell is bit 0 (value 1), top-right bit 1 (2), bottom-left bit 2 (4)
and bottom-right bit 3 (8). A rule is the table ``code -> new code`` (:class:`BlockRule.table`).

Notations :func:`parse_block_rule` reads:

- MCell's ``MS,D<16 codes>``: ``MS,D0;8;4;3;2;5;9;7;1;6;10;11;12;13;14;15`` is the billiard-ball
  model: block 1 (a lone top-left cell) becomes block 8 (a lone bottom-right one), ...
- tensorca's extension to ``n`` states, ``M<n>,D<n**4 codes>`` (``M4,D0;1;...``), the same form with
  codes in base ``n``; :meth:`BlockRule.canonical` writes it for rules MCell cannot write.
- Golly's Margolus rule tables (the text its ``RuleTableToTree`` reads): ``n_states:``,
  ``symmetries:`` (``none``, ``rotate4``, ``rotate4reflect``, ``reflect_horizontal``,
  ``reflect_vertical``, ``permute``), ``var x={...}`` and transitions ``a,b,c,d : e,f,g,h`` (a b /
  c d becomes e f / g h). The first transition (or symmetric image) that matches a block wins; a
  variable that occurs twice in an input is bound to one value; blocks no transition matches stay.
- a name from :data:`NAMED` (any case): ``BBM``, ``Critters``, ``Tron``, ``HPP``, ``TMGas``,
  ``Sand``, ``DLA``.

A rule whose table is a permutation is reversible: :meth:`BlockRule.inverse` is the rule that
undoes it block for block.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import RuleError

__all__ = ["NAMED", "BlockRule", "block_rule", "from_transitions", "named_rules", "parse_block_rule"]

#: Largest number of states a block rule may have (tables of ``n**4 <= 65,536`` entries).
MAX_STATES = 16

# The symmetries of a 2x2 block as permutations of (TL, TR, BL, BR): image[i] = block[perm[i]].
_IDENTITY = (0, 1, 2, 3)
_CLOCKWISE = (2, 0, 3, 1)  # rotate a quarter turn clockwise: the new TL is the old BL, ...
_MIRROR_H = (1, 0, 3, 2)  # left <-> right
_MIRROR_V = (2, 3, 0, 1)  # top <-> bottom


def _compose(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation that applies ``q`` and then ``p`` (``image[i] = block[q[p[i]]]``)."""
    return tuple(q[p[i]] for i in range(4))


def _rotations() -> list[tuple[int, ...]]:
    turns = [_IDENTITY]
    for _ in range(3):
        turns.append(_compose(_CLOCKWISE, turns[-1]))
    return turns


SYMMETRIES: dict[str, list[tuple[int, ...]]] = {
    "none": [_IDENTITY],
    "rotate4": _rotations(),
    "rotate4reflect": _rotations() + [_compose(_MIRROR_H, r) for r in _rotations()],
    "reflect_horizontal": [_IDENTITY, _MIRROR_H],
    "reflect_vertical": [_IDENTITY, _MIRROR_V],
    "permute": [tuple(p) for p in itertools.permutations(range(4))],
}


@dataclass(frozen=True)
class BlockRule:
    """A Margolus block rule: ``table[code]`` is the new block of block ``code`` (module docstring).

    ``table``: ``n_states**4`` codes (a tuple, so the value is hashable); ``n_states``: 2..16;
    ``name``: what it is called (a name from :data:`NAMED`, or None).
    """

    table: tuple[int, ...]
    n_states: int = 2
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        n = self.n_states
        if not isinstance(n, int) or not 2 <= n <= MAX_STATES:
            raise RuleError(f"a block rule has 2..{MAX_STATES} states, got {n!r}")
        table = tuple(int(v) for v in self.table)
        if len(table) != n**4:
            raise RuleError(f"a {n}-state block rule needs {n**4} entries (one per 2x2 block), got {len(table)}")
        bad = [v for v in table if not 0 <= v < n**4]
        if bad:
            raise RuleError(f"block code {bad[0]} out of range 0..{n**4 - 1}")
        object.__setattr__(self, "table", table)

    # -- tables the engines use ----------------------------------------------------------------

    def lookup(self) -> np.ndarray:
        """``(n**4,)`` int32: the new code of each block code."""
        return _lookup(self.table)

    def new_cells(self) -> np.ndarray:
        """``(n**4, 4)`` uint8: the new (TL, TR, BL, BR) states of each block code."""
        return _new_cells(self.table, self.n_states)

    # -- properties ------------------------------------------------------------------------------

    @property
    def reversible(self) -> bool:
        """True when the table is a permutation: every block has exactly one predecessor."""
        return len(set(self.table)) == len(self.table)

    def inverse(self) -> BlockRule:
        """The rule that undoes this one block for block; :class:`RuleError` when not reversible."""
        if not self.reversible:
            raise RuleError(f"block rule {self.canonical()!r} is not reversible: some blocks have two predecessors")
        inv = [0] * len(self.table)
        for code, new in enumerate(self.table):
            inv[new] = code
        name = None if self.name is None else f"{self.name}^-1"
        return BlockRule(tuple(inv), self.n_states, name)

    def conserves(self) -> bool:
        """True when every block keeps its count of each state (particles are neither made nor lost)."""
        cells = self.new_cells()
        old = _digits(np.arange(len(self.table)), self.n_states)
        return all((np.sort(old, axis=1) == np.sort(cells, axis=1)).all(axis=1))

    def canonical(self) -> str:
        """MCell's ``MS,D...`` for two states, else ``M<n>,D...`` (tensorca's extension)."""
        head = "MS" if self.n_states == 2 else f"M{self.n_states}"
        return f"{head},D" + ";".join(map(str, self.table))

    def __str__(self) -> str:
        return self.name or self.canonical()


@functools.lru_cache(maxsize=64)
def _lookup(table: tuple[int, ...]) -> np.ndarray:
    out = np.array(table, dtype=np.int32)
    out.flags.writeable = False
    return out


def _digits(codes: np.ndarray, n: int) -> np.ndarray:
    """``(len(codes), 4)`` uint8: the (TL, TR, BL, BR) states of block ``codes``."""
    return np.stack([(codes // n**k) % n for k in range(4)], axis=1).astype(np.uint8)


@functools.lru_cache(maxsize=64)
def _new_cells(table: tuple[int, ...], n: int) -> np.ndarray:
    out = _digits(np.array(table, dtype=np.int64), n)
    out.flags.writeable = False
    return out


# -- Golly's Margolus rule tables -------------------------------------------------------------------

Transition = tuple[tuple["int | str", ...], tuple["int | str", ...]]


def from_transitions(n_states: int, transitions: list[Transition], symmetries: str = "none",
                     variables: dict[str, tuple[int, ...]] | None = None, name: str | None = None) -> BlockRule:
    """A rule from transitions ``((a, b, c, d), (e, f, g, h))``: states, or variable names bound
    in ``variables`` (a name occurring twice in an input takes one value; an output name is the
    value its input bound). Each transition is expanded by ``symmetries`` (:data:`SYMMETRIES`);
    the first transition or image matching a block wins and unmatched blocks stay as they are."""
    if symmetries not in SYMMETRIES:
        raise RuleError(f"unknown Margolus symmetries {symmetries!r}; use one of {', '.join(SYMMETRIES)}")
    variables = variables or {}
    n = n_states
    table: list[int | None] = [None] * n**4
    for inputs, outputs in transitions:
        names = sorted({t for t in inputs if isinstance(t, str)})
        for t in (*inputs, *outputs):
            if isinstance(t, str) and t not in variables:
                raise RuleError(f"unknown variable {t!r} in transition {inputs} : {outputs}")
            if isinstance(t, str) and t not in inputs:
                raise RuleError(f"output variable {t!r} is not bound by the input {inputs}")
            if isinstance(t, int) and not 0 <= t < n:
                raise RuleError(f"state {t} out of range 0..{n - 1} in transition {inputs} : {outputs}")
        for values in itertools.product(*(variables[v] for v in names)):
            bound = dict(zip(names, values, strict=True))
            before = [bound[t] if isinstance(t, str) else t for t in inputs]
            after = [bound[t] if isinstance(t, str) else t for t in outputs]
            for perm in SYMMETRIES[symmetries]:
                code_in = sum(before[perm[i]] * n**i for i in range(4))
                if table[code_in] is None:
                    table[code_in] = sum(after[perm[i]] * n**i for i in range(4))
    return BlockRule(tuple(code if value is None else value for code, value in enumerate(table)), n, name)


_VAR = re.compile(r"var\s+(\w+)\s*=\s*\{([^}]*)\}\s*$")
_TRANSITION = re.compile(r"([\w\s,]+):([\w\s,]+)$")


def parse_table(text: str, name: str | None = None) -> BlockRule:
    """A rule from Golly's Margolus rule-table text (module docstring); ``@RULE``/``@TABLE`` lines,
    comments (``#``) and ``neighborhood:Margolus`` are allowed. :class:`RuleError` names the line."""
    n_states, symmetries = 2, "none"
    variables: dict[str, tuple[int, ...]] = {}
    transitions: list[Transition] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("@"):
            if line.upper().startswith("@RULE") and name is None:
                name = line[5:].strip() or None
            continue
        key, _, value = line.partition(":")
        key = key.strip()
        try:
            if key == "n_states":
                n_states = int(value)
            elif key == "neighborhood":
                if value.strip() != "Margolus":
                    raise RuleError(f"neighborhood {value.strip()!r}: only Margolus tables are block rules")
            elif key == "symmetries":
                symmetries = value.strip()
            elif m := _VAR.match(line):
                variables[m.group(1)] = tuple(_token(t, variables) for t in m.group(2).split(","))  # type: ignore[misc]
            elif m := _TRANSITION.match(line):
                ins = tuple(_token(t, variables) for t in m.group(1).split(","))
                outs = tuple(_token(t, variables) for t in m.group(2).split(","))
                if len(ins) != 4 or len(outs) != 4:
                    raise RuleError("a Margolus transition is a,b,c,d : e,f,g,h")
                transitions.append((ins, outs))
            else:
                raise RuleError(f"cannot read {line[:40]!r}")
        except (RuleError, ValueError) as exc:
            raise RuleError(f"line {number}: {getattr(exc, 'reason', exc)}") from exc
    return from_transitions(n_states, transitions, symmetries, {k: tuple(map(int, v)) for k, v in variables.items()},
                            name)


def _token(text: str, variables: dict[str, tuple[int, ...]]) -> int | str:
    text = text.strip()
    if text.isdigit():
        return int(text)
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        return text
    raise RuleError(f"expected a state or a variable, got {text!r}")


# -- named rules ----------------------------------------------------------------------------------

Block = tuple[int, int, int, int]


def _clockwise(b: Block) -> Block:
    """``b`` turned a quarter clockwise: TL -> TR -> BR -> BL -> TL."""
    return (b[2], b[0], b[3], b[1])


def _anticlockwise(b: Block) -> Block:
    return (b[1], b[3], b[0], b[2])


def _tmgas(b: Block) -> Block:
    """Toffoli and Margolus's gas with walls: 0 empty, 1 wall, 2 and 3 a particle on even and odd
    steps. A block whose particles all carry one phase flips that phase (2 <-> 3); without walls it
    also turns (clockwise on even steps, anticlockwise on odd ones), unless its particles would
    collide: two on a diagonal, or four. Blocks with both phases, or no particles, stay."""
    gas = {s for s in b if s >= 2}
    if len(gas) != 1:
        return b
    phase = gas.pop()
    new: Block = tuple(5 - s if s >= 2 else s for s in b)  # type: ignore[assignment]
    count = sum(s >= 2 for s in b)
    if 1 in b or count == 4 or (count == 2 and b[0] == b[3]):
        return new
    return _clockwise(new) if phase == 2 else _anticlockwise(new)


def _mirror(b: Block) -> Block:
    return (b[1], b[0], b[3], b[2])


def _sand(b: Block) -> Block:
    """Falling sand: 0 air, 1 sand, 2 wood, 3 a source of sand. In order, each tried on the block
    and on its mirror image: two grains side by side over air fall together; a grain over air falls;
    a grain with air beside it and diagonally below topples; a source over air makes a grain."""
    if b == (1, 1, 0, 0):
        return (0, 0, 1, 1)
    for test, make in (
        (lambda tl, tr, bl, br: tl == 1 and bl == 0, lambda tl, tr, bl, br: (0, tr, 1, br)),
        (lambda tl, tr, bl, br: tl == 1 and tr == 0 and br == 0, lambda tl, tr, bl, br: (0, 0, bl, 1)),
        (lambda tl, tr, bl, br: tl == 3 and bl == 0, lambda tl, tr, bl, br: (3, tr, 1, br)),
    ):
        for flip in (False, True):
            seen = _mirror(b) if flip else b
            if test(*seen):
                new = make(*seen)
                return _mirror(new) if flip else new
    return b


#: Diffusion-limited aggregation as Margolus transitions (0 vacuum, 1 gas, 2 stuck), expanded by
#: rotations and reflections: a lone particle crosses the block; two side by side stay; two on a
#: diagonal swap to the other one; of three, the one opposite the hole moves into it; gas beside
#: stuck cells sticks.
_DLA: list[Transition] = [
    ((1, 0, 0, 0), (0, 0, 0, 1)),
    ((1, 1, 0, 0), (1, 1, 0, 0)),
    ((0, 1, 1, 0), (1, 0, 0, 1)),
    ((1, 1, 1, 0), (1, 1, 0, 1)),
    ((1, 0, 2, 0), (2, 0, 2, 0)),
    ((1, 0, 2, 2), (2, 0, 2, 2)),
]


def _from_function(n: int, function) -> tuple[int, ...]:
    table = []
    for code in range(n**4):
        block = tuple((code // n**k) % n for k in range(4))
        new = function(block)
        table.append(sum(s * n**k for k, s in enumerate(new)))
    return tuple(table)


#: Named rules: lower-case name -> (spelling, definition, description). A definition is an MCell
#: string, or ``(n_states, builder)`` for the multi-state rules of Golly's emulated rule files.
NAMED: dict[str, tuple[str, object, str]] = {
    "bbm": ("BBM", "MS,D0;8;4;3;2;5;9;7;1;6;10;11;12;13;14;15",
            "Fredkin's billiard-ball model: lone balls fly diagonally, two meeting head-on turn by 90 degrees; "
            "reversible, conserves balls"),
    "critters": ("Critters", "MS,D15;14;13;3;11;5;6;1;7;9;10;2;12;4;8;0",
                 "Margolus's Critters: blocks of two unchanged, others complemented, three then turned "
                 "by 180 degrees; reversible, with gliders"),
    "tron": ("Tron", "MS,D15;1;2;3;4;5;6;7;8;9;10;11;12;13;14;0",
             "Trip-a-Tron: all-empty and all-full blocks flip, the rest stay; reversible"),
    "hpp": ("HPP", "MS,D0;8;4;12;2;10;9;14;1;6;5;13;3;11;7;15",
            "the HPP lattice gas on blocks: particles cross the block diagonally, two meeting head-on "
            "leave sideways; reversible, conserves particles"),
    "tmgas": ("TMGas", (4, lambda: _from_function(4, _tmgas)), "the Toffoli-Margolus gas with walls: "
              "0 empty, 1 wall, 2 and 3 a particle on even and odd steps; reversible"),
    "sand": ("Sand", (4, lambda: _from_function(4, _sand)),
             "falling sand after MCell's: 0 air, 1 sand, 2 wood, 3 a source of sand"),
    "dla": ("DLA", (3, lambda: from_transitions(3, _DLA, "rotate4reflect").table),
            "diffusion-limited aggregation: 0 vacuum, 1 gas, 2 stuck; gas that touches a stuck cell sticks"),
}


def named_rules() -> dict[str, BlockRule]:
    """Every named rule, by its spelling."""
    return {spelling: block_rule(spelling) for spelling, _, _ in NAMED.values()}


@functools.lru_cache(maxsize=128)
def parse_block_rule(text: str) -> BlockRule:
    """A block rule from a name, an MCell ``MS,D...`` / ``M<n>,D...`` string or Golly Margolus table
    text (module docstring). :class:`RuleError` says what is wrong."""
    if not isinstance(text, str):
        raise RuleError(f"a block rule is a string, got {type(text).__name__}")
    stripped = text.strip()
    named = NAMED.get(stripped.lower())
    if named is not None:
        spelling, definition, _ = named
        if isinstance(definition, str):
            return BlockRule(parse_block_rule(definition).table, 2, spelling)
        n, build = definition  # type: ignore[misc]
        return BlockRule(build(), n, spelling)
    m = re.fullmatch(r"M(S|[0-9]+)\s*,\s*D\s*(.*)", stripped, re.IGNORECASE | re.DOTALL)
    if m:
        n = 2 if m.group(1).upper() == "S" else int(m.group(1))
        codes = [c.strip() for c in re.split(r"[;,]", m.group(2)) if c.strip()]
        if not all(c.isdigit() for c in codes):
            raise RuleError("the D list of a Margolus rule holds whole numbers separated by ';'", text)
        return BlockRule(tuple(int(c) for c in codes), n)
    if ":" in stripped:
        return parse_table(stripped)
    known = ", ".join(spelling for spelling, _, _ in NAMED.values())
    raise RuleError(f"not a block rule: use a name ({known}), MCell's MS,D... or a Margolus rule table", text)


def block_rule(rule: str | BlockRule) -> BlockRule:
    """``rule`` as a :class:`BlockRule` (a value is returned as it is; a string is parsed)."""
    return rule if isinstance(rule, BlockRule) else parse_block_rule(rule)
