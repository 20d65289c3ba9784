"""Golly's ``@TABLE`` section: ``n_states``, ``neighborhood``, ``symmetries``, variables, transitions.

Semantics follow Golly's RuleTable algorithm (``ruletable_algo.cpp`` and Help/formats.html):

- ``n_states:`` 2..256, ``neighborhood:`` one of :data:`NEIGHBOURHOODS`, ``symmetries:`` one of the
  symmetries that neighbourhood accepts (:data:`SYMMETRIES`); all three before the first
  variable or transition.
- ``var name={a,b,...}`` (values may name earlier variables; a later definition replaces one). A
  value named twice counts once (Golly keeps the repeat, which only repeats transitions).
- A transition lists the inputs in Golly's order (:data:`INPUTS`: centre first, then the
  neighbours clockwise from north) and the output. A variable named more than once in one
  transition is *bound*: it takes one value throughout. The output is a state, a one-state
  variable or a bound variable. With at most 10 states, no variables and no comma, the
  comma-free form ``012345`` is read one digit per entry.
- Each transition stands for all its images under the symmetries; the first transition any of
  whose images matches decides the next state; a cell no transition matches keeps its state. An
  image equal to an earlier one can never decide a cell and is dropped; a table whose bound
  variables and symmetries make more than :data:`MAX_TRANSITIONS` images is refused at the line
  that passes it (Golly's own tables make at most a few thousand).

The transitions compile to a decision tree (:func:`tensorca.families.rule_table.tree.compile_transitions`).
"""

from __future__ import annotations

import itertools
import math
import re

from ...rules._numbers import small_int
from .sections import RuleFileError, Section
from .tree import TableTooLarge, compile_transitions

__all__ = ["INPUTS", "MAX_TRANSITIONS", "NEIGHBOURHOODS", "SYMMETRIES", "parse_table", "symmetry_images"]

#: Most transition images (bound-variable values x symmetry images, before repeats are dropped) a
#: table may make: ~300x the largest of Golly's own tables (Tempesti, 3066), and a bound on the
#: time and memory a hostile line costs (four bound variables of 256 states are 2^32 lines).
MAX_TRANSITIONS = 1 << 20

#: Golly's input order per neighbourhood as ``(dy, dx)`` offsets: centre, then clockwise from N.
INPUTS: dict[str, tuple[tuple[int, int], ...]] = {
    "vonNeumann": ((0, 0), (-1, 0), (0, 1), (1, 0), (0, -1)),
    "Moore": ((0, 0), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)),
    "hexagonal": ((0, 0), (-1, 0), (0, 1), (1, 1), (1, 0), (0, -1), (-1, -1)),
    "oneDimensional": ((0, 0), (0, -1), (0, 1)),
}
NEIGHBOURHOODS = tuple(INPUTS)
#: The symmetries Golly accepts for each neighbourhood.
SYMMETRIES: dict[str, tuple[str, ...]] = {
    "vonNeumann": ("none", "rotate4", "rotate4reflect", "reflect_horizontal", "permute"),
    "Moore": ("none", "rotate4", "rotate8", "rotate4reflect", "rotate8reflect", "reflect_horizontal", "permute"),
    "hexagonal": ("none", "rotate2", "rotate3", "rotate6", "rotate6reflect", "permute"),
    "oneDimensional": ("none", "reflect", "permute"),
}

Inputs = tuple[frozenset[int], ...]
_TOKEN = re.compile(r"[^,\s#]+")
_VAR_TOKEN = re.compile(r"[^=\s{,}]+")


def _ring_maps(ring: int, symmetries: str) -> list[tuple[int, ...]]:
    """Golly's remaps of neighbour positions ``1..ring``: ``image[j] = inputs[map[j - 1]]``."""
    if ring == 2:  # one-dimensional: west and east
        return [(1, 2), (2, 1)] if symmetries == "reflect" else [(1, 2)]
    steps = {"rotate2": ring // 2, "rotate3": ring // 3, "rotate4": ring // 4, "rotate6": ring // 6,
             "rotate8": ring // 8, "rotate4reflect": ring // 4, "rotate8reflect": ring // 8,
             "rotate6reflect": ring // 6}.get(symmetries, ring)
    rotations = [tuple((j + k) % ring + 1 for j in range(ring)) for k in range(0, ring, steps)]
    mirror = tuple((-j) % ring + 1 for j in range(ring))  # left-right about the north neighbour
    if symmetries == "reflect_horizontal":
        return [rotations[0], mirror]
    if symmetries.endswith("reflect"):  # the rotations of the mirror image too
        rotations += [tuple(mirror[m - 1] for m in r) for r in rotations]
    return rotations


def _distinct_permutations(items: list[frozenset[int]]):
    """Every distinct ordering of ``items`` (C++ ``next_permutation`` from the sorted order)."""
    keyed = sorted(items, key=sorted)
    keys = [tuple(sorted(x)) for x in keyed]
    n = len(keys)
    while True:
        yield tuple(keyed)
        i = n - 2
        while i >= 0 and keys[i] >= keys[i + 1]:
            i -= 1
        if i < 0:
            return
        j = n - 1
        while keys[j] <= keys[i]:
            j -= 1
        keys[i], keys[j] = keys[j], keys[i]
        keyed[i], keyed[j] = keyed[j], keyed[i]
        keys[i + 1:], keyed[i + 1:] = keys[i + 1:][::-1], keyed[i + 1:][::-1]


def symmetry_images(inputs: Inputs, neighbourhood: str, symmetries: str):
    """The images of one transition's inputs under ``symmetries`` (centre stays first)."""
    if symmetries == "none":
        yield inputs
        return
    if symmetries == "permute":
        for rest in _distinct_permutations(list(inputs[1:])):
            yield (inputs[0], *rest)
        return
    seen = set()
    for remap in _ring_maps(len(inputs) - 1, symmetries):
        image = (inputs[0], *(inputs[m] for m in remap))
        if image not in seen:
            seen.add(image)
            yield image


class _TableReader:
    """Line-by-line state of one ``@TABLE`` section (Golly's ``LoadRuleTable``)."""

    def __init__(self, source: str | None):
        self.source = source
        self.n_states: int | None = None
        self.neighbourhood: str | None = None
        self.symmetries: str | None = None
        self.variables: dict[str, list[int]] = {}
        self.transitions: list[tuple[list[frozenset[int]], int, int]] = []  # (inputs, output, line)
        self.lines_made = 0  # transitions the bound variables have made so far

    def fail(self, message: str, line: int, column: int) -> RuleFileError:
        return RuleFileError(message, self.source, line, column)

    def header_ready(self, number: int, column: int, what: str) -> None:
        if self.n_states is None or self.neighbourhood is None or self.symmetries is None:
            raise self.fail(f"n_states, neighborhood and symmetries must come before the first {what}",
                            number, column)

    def state(self, token: str, number: int, column: int) -> int:
        value = small_int(token)
        if value is None:
            raise self.fail(f"expected a state or a variable, got {token[:40]!r}", number, column)
        if value >= (self.n_states or 0):
            raise self.fail(f"state {value} out of range (n_states is {self.n_states})", number, column)
        return value

    def line(self, number: int, raw: str) -> None:
        text = raw.split("#", 1)[0]
        stripped = text.strip()
        if not stripped:
            return
        column = len(text) - len(text.lstrip()) + 1
        for key, handler in (("n_states:", self.read_n_states), ("neighborhood:", self.read_neighbourhood),
                             ("symmetries:", self.read_symmetries), ("var ", self.read_variable)):
            if stripped.startswith(key):
                handler(text, number, column + len(key), stripped[len(key):].strip())
                return
        self.header_ready(number, column, "transition")
        if self.n_states <= 10 and not self.variables and "," not in stripped:  # type: ignore[operator]
            self.read_compact(stripped, number, column)
        else:
            self.read_transition(text, number)

    def read_n_states(self, text: str, number: int, column: int, value: str) -> None:
        digits = re.match(r"[0-9]+", value)
        if digits is None:
            raise self.fail(f"n_states needs a number, got {value!r}", number, column)
        n = small_int(digits.group())
        if n is None or not 2 <= n <= 256:
            raise self.fail(f"n_states {digits.group()[:40]} out of range (min 2, max 256)", number, column)
        self.n_states = n

    def read_neighbourhood(self, text: str, number: int, column: int, value: str) -> None:
        if value not in INPUTS:
            raise self.fail(f"unsupported neighborhood {value!r}; expected one of {', '.join(INPUTS)}",
                            number, column)
        self.neighbourhood = value

    def read_symmetries(self, text: str, number: int, column: int, value: str) -> None:
        if self.neighbourhood is None:
            raise self.fail("neighborhood must be declared before symmetries", number, column)
        allowed = SYMMETRIES[self.neighbourhood]
        if value not in allowed:
            raise self.fail(f"unsupported symmetries {value!r} for {self.neighbourhood}; expected one of "
                            f"{', '.join(allowed)}", number, column)
        self.symmetries = value

    def read_variable(self, text: str, number: int, column: int, value: str) -> None:
        self.header_ready(number, column, "variable")
        start = text.index("var") + 3
        tokens = [(m.group(), m.start() + 1) for m in _VAR_TOKEN.finditer(text, start)]
        if len(tokens) < 2:
            raise self.fail("a variable needs a name and at least one state: var a={0,1}", number, column)
        states: list[int] = []
        for token, col in tokens[1:]:
            if token in self.variables:
                states.extend(self.variables[token])
            else:
                states.append(self.state(token, number, col))
        self.variables[tokens[0][0]] = list(dict.fromkeys(states))  # at most n_states: {a,a} does not double

    def read_compact(self, stripped: str, number: int, column: int) -> None:
        n_inputs = len(INPUTS[self.neighbourhood])  # type: ignore[index]
        if len(stripped) < n_inputs + 1:
            raise self.fail(f"too few entries: {n_inputs} inputs and an output needed", number,
                            column + len(stripped))
        values = [self.state(c, number, column + i) for i, c in enumerate(stripped[: n_inputs + 1])]
        self.transitions.append(([frozenset((v,)) for v in values[:-1]], values[-1], number))

    def read_transition(self, text: str, number: int) -> None:
        n_inputs = len(INPUTS[self.neighbourhood])  # type: ignore[index]
        tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(text)]
        if len(tokens) < n_inputs + 1:
            raise self.fail(f"too few entries: {n_inputs} inputs and an output needed, got {len(tokens)}",
                            number, len(text.rstrip()) + 1)
        names = [t for t, _ in tokens[: n_inputs + 1]]
        bound = sorted({t for t in names if t in self.variables and names.count(t) > 1})
        self.lines_made += math.prod(len(self.variables[b]) for b in bound)
        if self.lines_made > MAX_TRANSITIONS:
            raise self.fail(f"the bound variables make the table more than {MAX_TRANSITIONS} transitions", number,
                            tokens[0][1])
        for values in itertools.product(*(self.variables[b] for b in bound)):
            binding = dict(zip(bound, values, strict=True))
            inputs = [frozenset((binding[t],)) if t in binding else
                      frozenset(self.variables[t]) if t in self.variables else
                      frozenset((self.state(t, number, col),)) for t, col in tokens[:n_inputs]]
            self.transitions.append((inputs, self.output(tokens[n_inputs], binding, number), number))

    def output(self, token: tuple[str, int], binding: dict[str, int], number: int) -> int:
        name, col = token
        if name in binding:
            return binding[name]
        if name in self.variables:
            if len(self.variables[name]) == 1:
                return self.variables[name][0]
            raise self.fail(f"output {name!r} must be a state, a one-state variable or a bound variable",
                            number, col)
        return self.state(name, number, col)


def parse_table(section: Section, source: str | None):
    """``(n_states, neighbourhood, symmetries, tree)`` of a ``@TABLE`` section (see the module docstring)."""

    reader = _TableReader(source)
    for number, raw in section.lines[1:]:
        reader.line(number, raw)
    if reader.n_states is None or reader.neighbourhood is None or reader.symmetries is None:
        raise RuleFileError("one or more of n_states, neighborhood or symmetries missing", source, section.line, 1)
    first: dict[Inputs, int] = {}  # image -> output of the first transition making it (the one that decides)
    images = 0
    for inputs, out, number in reader.transitions:
        for image in symmetry_images(tuple(inputs), reader.neighbourhood, reader.symmetries):
            images += 1
            if images > MAX_TRANSITIONS:
                raise RuleFileError(f"the table's transitions have more than {MAX_TRANSITIONS} images under "
                                    f"symmetries:{reader.symmetries}", source, number, 1)
            first.setdefault(image, out)
    try:
        tree = compile_transitions(list(first.items()), reader.n_states, INPUTS[reader.neighbourhood])
    except TableTooLarge as exc:
        raise RuleFileError(str(exc), source, section.line, 1) from None
    return reader.n_states, reader.neighbourhood, reader.symmetries, tree
