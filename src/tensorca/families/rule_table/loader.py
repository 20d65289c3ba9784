"""Rules defined by Golly rule files (``WireWorld.rule``), found by name (Golly's RuleLoader).

``parse_rule("WireWorld")`` and a pattern's ``rule = WireWorld`` look for ``WireWorld.rule``
(names are case-sensitive file stems, as in Golly) in, in order:

1. the folders of the ``TENSORCA_RULES`` environment variable (an ``os.pathsep`` list);
2. the folders given for the current load (:func:`rule_dirs`: ``tensorca.load(...,
   rules_dir=)``, then the pattern file's own folder);
3. the rules bundled with tensorca (``tensorca/data/rules/``).

Golly's built-in notations win over files, as Golly tries its other algorithms before
RuleLoader: a rule text is looked up as a file name only when no built-in parser accepts it.
:func:`rule_from_text` builds a rule from a file's text (checkpoints store that text).
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from ...errors import RuleError
from ...rules import notation
from ...rules.base import Rule
from ...rules.stepspec import StateSpace, StepSpec
from ..super_history.rule import SuperRule
from .rulefile import RuleFile, parse_rule_file
from .tree import NeighbourStates, TreeUpdate

__all__ = ["RuleTableRule", "find_rule_file", "rule_definition", "rule_dirs", "rule_from_text", "rule_search_path"]

ENV_VAR = "TENSORCA_RULES"
BUNDLED = Path(__file__).resolve().parents[2] / "data" / "rules"  # tensorca/data/rules (package data)
#: Golly rule names: a letter, then letters, digits and ``_ - . +``.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.+\-]*")
#: Rule files larger than this are refused (Golly's biggest shipped file is under 2 MB).
MAX_RULE_FILE_BYTES = 64 << 20
#: Rule names tensorca knows without a file (Golly's Super algorithm), offered as suggestions.
BUILTIN_NAMES = ("LifeHistory", "LifeSuper")
#: Names of rule files in Golly's Rules folder (names only: the files are Golly's, not bundled),
#: offered as suggestions for a misspelt name; one must be copied onto the search path to be used.
GOLLY_RULE_NAMES = (
    "Banks-I", "Banks-II", "Banks-III", "Banks-IV", "BBM-Margolus-emulated", "BriansBrain", "Byl-Loop",
    "Caterpillars", "Chou-Reggia-1", "Chou-Reggia-2", "Codd", "Codd2", "CrittersMargolus_emulated", "Devore",
    "DLA-Margolus-emulated", "Ed-rep", "Evoloop", "Evoloop-finite", "HPP", "Hutton32", "JvN29", "Langtons-Ant",
    "Langtons-Loops", "LifeOnTheEdge", "LifeOnTheSlope", "Nobili32", "Perrier", "Sand-Margolus-emulated",
    "SDSR-Loop", "StarWars", "Tempesti", "WireWorld", "Worm-1040512", "Worm-1042015", "Worm-complement",
    "Worm-shared",
    # Golly's other emulated Margolus rules (tensorca.margolus.emulated_rule_text writes an equivalent file)
    "HPPMargolus_emulated", "TMGasMargolus_emulated", "TripATronMargolus_emulated",
)

_DIRS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("tensorca_rule_dirs", default=())


@dataclass(frozen=True, eq=True)
class RuleTableRule(Rule):
    """A rule from a Golly rule file: ``name`` (its canonical spelling) and the file's ``text``.

    Compiles to ``neighbour_states`` / ``tree``: the states at the tree's offsets, read one per
    level of the decision tree (:mod:`tensorca.families.rule_table.tree`). ``source`` is where the text came
    from (a path, or None).
    """

    family: ClassVar[str] = "ruletable"

    name: str
    text: str = field(repr=False)
    source: str | None = field(default=None, compare=False)

    def parsed(self) -> RuleFile:
        """The parsed rule file (kept on the value)."""
        found = self.__dict__.get("_file")
        if found is None:
            found = parse_rule_file(self.text, self.source, self.name)
            object.__setattr__(self, "_file", found)
        return found

    @property
    def n_states(self) -> int:  # type: ignore[override]
        return self.parsed().n_states

    @property
    def neighbourhood(self) -> str:
        """Golly's neighbourhood name: ``Moore``, ``vonNeumann``, ``hexagonal`` or ``oneDimensional``."""
        return self.parsed().neighbourhood

    def canonical(self) -> str:
        return self.name

    def _compile(self) -> StepSpec:
        tree = self.parsed().tree
        return StepSpec(
            perceive=NeighbourStates(tree.order),
            update=TreeUpdate(tree),
            reach=max(max(abs(dy), abs(dx)) for dy, dx in tree.order),
            state_space=StateSpace("discrete", tree.n_states),
            births_from_nothing=tree.births_from_nothing(),
        )

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("_spec", "_file")}


def rule_search_path() -> list[Path]:
    """The folders searched for ``<name>.rule``, in order (see the module docstring)."""
    env = [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
    return [Path(p) for p in (*env, *_DIRS.get())] + [BUNDLED]


def find_rule_file(name: str) -> Path | None:
    """The first ``<name>.rule`` on :func:`rule_search_path` (exact, case-sensitive name), or None."""
    if not NAME.fullmatch(name):
        return None
    for folder in rule_search_path():
        candidate = folder / f"{name}.rule"
        with contextlib.suppress(OSError):
            if candidate.is_file() and name + ".rule" in os.listdir(folder):
                return candidate
    return None


_NAMED_SEEN = [False]  # a rule file has been parsed by name since the parse cache was last cleared


def _clear_parse_cache() -> None:
    # parse_rule caches by text, but which file a name means depends on the search path
    if _NAMED_SEEN[0]:
        notation.clear_cache()
        _NAMED_SEEN[0] = False


@contextlib.contextmanager
def rule_dirs(*folders: str | os.PathLike | None) -> Iterator[None]:
    """Search ``folders`` (after ``TENSORCA_RULES``, before the bundled rules) inside the block."""
    extra = tuple(os.fspath(f) for f in folders if f is not None)
    if not extra:
        yield
        return
    token = _DIRS.set(extra + _DIRS.get())
    _clear_parse_cache()
    try:
        yield
    finally:
        _DIRS.reset(token)
        _clear_parse_cache()


def rule_from_text(text: str, name: str | None = None, source: str | None = None) -> RuleTableRule:
    """A rule from the text of a ``.rule`` file (named by ``name``, else by its ``@RULE`` line).

    Raises :class:`~tensorca.families.rule_table.rulefile.RuleFileError` (file, line, column) when malformed.
    """
    parsed = parse_rule_file(text, source, name)
    rule = RuleTableRule(parsed.name, text, source)
    object.__setattr__(rule, "_file", parsed)
    return rule


def rule_definition(rule: Rule) -> str | None:
    """The rule-file text that defines ``rule`` (None for rules a rule string defines)."""
    return rule.text if isinstance(rule, RuleTableRule) else None


def rule_colours(rule: Rule) -> list[tuple[int, int, int]] | None:
    """Golly's colours for ``rule``, state by state, or None when Golly has no rule-specific ones:
    a rule file's ``@COLORS`` over RuleLoader's defaults (0 black, 1..n-1 red to yellow), and the
    Super algorithm's defaults for ``[R]History`` / ``[R]Super``."""
    from .rulecolors import HISTORY_COLOURS, SUPER_COLOURS, default_colors  # with the first picture, not parse_rule

    if isinstance(rule, SuperRule):
        return list(HISTORY_COLOURS if rule.n_states == 7 else SUPER_COLOURS)
    if not isinstance(rule, RuleTableRule):
        return None
    parsed = rule.parsed()
    colours = default_colors(parsed.n_states)
    for state, rgb in parsed.colors.items():
        colours[state] = rgb
    return colours


def describe(rule: Rule) -> dict[str, str]:
    """Rows that describe a rule-file or Super rule for people: neighbourhood, how it is given, its file."""
    if isinstance(rule, SuperRule):
        nbhd = {"M": "Moore", "V": "vonNeumann", "H": "hexagonal"}.get(rule.neighbourhood, rule.neighbourhood)
        return {"neighbourhood": nbhd, "defined by": f"Golly's Super algorithm ({rule.mode}) over {rule.base}"}
    if not isinstance(rule, RuleTableRule):
        return {}
    parsed = rule.parsed()
    spec = rule.compile()
    symmetries = f" (symmetries {parsed.symmetries})" if parsed.symmetries else ""
    rows = {"neighbourhood": parsed.neighbourhood,
            "defined by": f"@{parsed.kind.upper()}{symmetries}",
            "tree nodes": str(len(spec.update.tree.nodes)),  # type: ignore[union-attr]
            "source": rule.source or "<text>"}
    if parsed.names:
        rows["state names"] = ", ".join(f"{k} {v}" for k, v in sorted(parsed.names.items()))
    return rows


def load_named(name: str) -> RuleTableRule:
    """The rule ``<name>.rule`` on the search path; :class:`RuleError` when there is none."""
    path = find_rule_file(name)
    if path is None:
        where = ", ".join(str(p) for p in rule_search_path())
        raise RuleError(f"unknown rule {name!r}: not a rule Golly's built-in algorithms know, and no "
                        f"{name}.rule in {where} (set {ENV_VAR} or pass rules_dir=)")
    try:
        if path.stat().st_size > MAX_RULE_FILE_BYTES:
            raise RuleError(f"{path}: rule file larger than {MAX_RULE_FILE_BYTES} bytes")
        data = path.read_bytes()
    except OSError as exc:
        raise RuleError(f"cannot read rule file {path}: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return rule_from_text(text, name, str(path))


_GUARD: contextvars.ContextVar[bool] = contextvars.ContextVar("tensorca_rule_name_guard", default=False)


def _builtin_error(body: str) -> RuleError | None:
    """None when a built-in notation parses ``body`` (tried with rule-file names off), else its error."""
    token = _GUARD.set(True)
    try:
        notation.parse_text(body, 0, len(body))
        return None
    except RuleError as exc:
        return exc
    finally:
        _GUARD.reset(token)


def matches_name(body: str) -> bool:
    """``body`` is a rule-file name: name-like, and no built-in notation (nor Super) takes it."""
    if _GUARD.get() or not NAME.fullmatch(body):
        return False
    return _builtin_error(body) is not None


def parse_name(text: str, start: int, end: int) -> Rule:
    """The rule file named ``text[start:end]``.

    An unknown name is reported by the parser its form calls for: one shaped like a built-in
    notation (``B3S23x``, ``W31``) gets that parser's reason and position, then where no such file
    was found; a bare name (``WireWorlds``) gets :func:`unknown_name_error`, with suggestions.
    """
    _NAMED_SEEN[0] = True
    name = text[start:end]
    if find_rule_file(name) is not None:
        return load_named(name)
    builtin = _builtin_error(name) if notation.looks_like_notation(name) else None
    if builtin is None:
        raise unknown_name_error(name, text, start)
    where = ", ".join(str(p) for p in rule_search_path())
    missing = f"no {name}.rule in {where} (set {ENV_VAR} or pass rules_dir=)"
    position = start + builtin.position if builtin.position is not None else start
    raise RuleError(f"{builtin.reason}, and as a rule-file name: {missing}", text, position)


def _searched() -> str:
    """The search path in words: each folder with why it is searched."""
    env = [p for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p]
    folders = [f"{p} ({ENV_VAR})" for p in env]
    folders += [f"{p} (rules_dir or the pattern's folder)" for p in _DIRS.get()]
    folders.append(f"{BUNDLED} (bundled)")
    return ", ".join(folders)


def rule_file_names() -> list[str]:
    """The names of the ``.rule`` files on :func:`rule_search_path`, first folder first."""
    names: dict[str, None] = {}
    for folder in rule_search_path():
        with contextlib.suppress(OSError):  # a missing or unreadable folder has no names to offer
            for entry in sorted(os.listdir(folder)):
                stem = entry[:-5] if entry.endswith(".rule") else ""
                if NAME.fullmatch(stem):
                    names.setdefault(stem)
    return list(names)


def suggest_names(name: str, limit: int = 3) -> list[str]:
    """Known rule names close to ``name`` (case-insensitive), closest first: tensorca's built-in
    names, the rule files on the search path and Golly's well-known rule files."""
    known: dict[str, str] = {}  # lower case -> spelling; the first source of a spelling wins
    for candidate in (*BUILTIN_NAMES, *rule_file_names(), *GOLLY_RULE_NAMES):
        known.setdefault(candidate.lower(), candidate)
    return [known[k] for k in difflib.get_close_matches(name.lower(), list(known), n=limit, cutoff=0.6)]


def unknown_name_error(name: str, text: str, start: int) -> RuleError:
    """The error for a rule-file name no folder holds: where it looked and what was perhaps meant
    (a name of Golly's that is not here is said to be Golly's, with where to copy its file)."""
    message = f"unknown rule {name!r}: no rule file {name}.rule was found in {_searched()}"
    if name in GOLLY_RULE_NAMES:
        message += f"; {name} is one of Golly's rule files: {_copy_hint([name])}"
    elif suggestions := suggest_names(name):
        message += f"; did you mean {' or '.join(map(repr, suggestions))}?"
        if suggestions[0].lower() == name.lower():
            message += " (rule names are case-sensitive)"
        available = {*BUILTIN_NAMES, *rule_file_names()}
        golly = [s for s in suggestions if s not in available]
        if golly:
            which = f"{golly[0]} is" if len(golly) == 1 else f"{', '.join(golly)} are"
            message += f" ({which} Golly's, not here: {_copy_hint(golly)})"
    else:
        message += f"; set {ENV_VAR} or pass rules_dir= to search another folder"
    error = RuleError(message)  # the message names the rule already: no "in rule ..." suffix
    error.text, error.position = text, start
    return error


def _copy_hint(names: list[str]) -> str:
    files = " and ".join(f"{n}.rule" for n in names)
    return f"copy {files} from Golly's Rules folder into a folder on {ENV_VAR} or rules_dir="

