"""Macrocell checkpoints: the state of an unbounded HashLife run as a Golly ``.mc`` file.

A checkpoint path ending in ``.mc`` (or ``.mc.gz``) is written as macrocell text, atomically
(:func:`tensorca.atomic.write_bytes_atomic`): ``#R`` the rule, ``#G`` the generation, ``#N``,
``#O`` and ``#C`` the pattern's name, author and comments, then the tree's nodes straight from
HashLife's records, so a 2**40-generation breeder of 10**21 cells checkpoints in milliseconds
and Golly opens the file. Dense runs (any engine, two-state rules Golly can name) write the same
format from their cells. :func:`load` reads one back as a :class:`Checkpoint`-shaped tuple; the
universe keeps its exact position (macrocell roots are centred as HashLife's are).

This module needs no Numba: writing a tree asks the universe for its records, and reading goes
through :mod:`tensorca.io` (tree-backed when Numba is there, dense otherwise).
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import write_bytes_atomic
from ..errors import CheckpointError, TensorcaError
from ..manifest_fields import topology_from  # the topology as the .npz manifest spells it
from ..pattern import Pattern
from ..rules import parse_rule
from ..topology import Topology

#: The ``format`` a loaded macrocell checkpoint's manifest reports.
FORMAT = "macrocell"


def save_tree(path: str | os.PathLike, universe: Any, manifest: dict) -> Path:
    """Write HashLife ``universe`` as a macrocell checkpoint with ``manifest``'s rule, generation
    and metadata (:func:`tensorca.persist.npz.manifest_for`'s fields)."""
    pattern = Pattern(tree=universe, **_fields(manifest, Topology.unbounded()))
    return _write(path, pattern)


def save_cells(path: str | os.PathLike, cells: np.ndarray, manifest: dict) -> Path:
    """Write ``(1, H, W)`` two-state ``cells`` as a macrocell checkpoint; ``manifest`` gives the
    rule, topology, generation, origin (``cells[0, 0]``) and metadata."""
    cells = np.asarray(cells)
    if manifest.get("kind") != "pattern":
        raise CheckpointError("a macrocell checkpoint holds a pattern; an array run (a grid or a batch) checkpoints "
                              "to a .npz file")
    if cells.ndim != 3 or cells.shape[0] != 1:
        raise CheckpointError(f"a macrocell checkpoint holds one pattern, not cells of shape {cells.shape}; "
                              "use a .npz checkpoint for batches")
    fields = _fields(manifest, topology_from(manifest.get("topology")))
    origin = manifest.get("origin") or [0, 0]
    return _write(path, Pattern(cells[0], origin=(int(origin[0]), int(origin[1])), **fields))


def _fields(manifest: dict, topology: Topology) -> dict:
    """Pattern fields from a checkpoint manifest: the rule must be one Golly names by its string."""
    if manifest.get("rule_text") is not None:
        raise CheckpointError(f"rule {manifest['rule']!r} comes from a rule file, which a macrocell checkpoint "
                              "cannot carry; use a .npz checkpoint")
    if manifest.get("seed") is not None:
        raise CheckpointError(f"rule {manifest['rule']!r} is stochastic and a macrocell checkpoint cannot carry the "
                              "run's seed; use a .npz checkpoint")
    rule = parse_rule(manifest["rule"])
    if rule.n_states != 2 or not rule.state_space.discrete:
        raise CheckpointError(f"a macrocell checkpoint holds two-state patterns, not rule {rule.canonical()!r}; "
                              "use a .npz checkpoint")
    return dict(rule=rule, topology=topology, generation=int(manifest["generation"]), name=manifest.get("name"),
                comments=list(manifest.get("comments") or []), author=manifest.get("author"))


def _write(path: str | os.PathLike, pattern: Pattern) -> Path:
    from ..io.macrocell import write_macrocell  # io reads trees through this package: import late

    data = write_macrocell(pattern).encode("utf-8")
    path = Path(path)
    if path.name.lower().endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    write_bytes_atomic(path, data)
    return path


def load(path: str | os.PathLike) -> tuple[Pattern, Any, Topology, int, dict]:
    """``(pattern, rule, topology, generation, manifest)`` of a macrocell checkpoint (a
    tree-backed pattern when Numba is installed). :class:`CheckpointError` names the file for
    anything unreadable."""
    from .. import io as pattern_io

    path = Path(path)
    try:
        pattern = pattern_io.load(path, format="macrocell")
    except FileNotFoundError as exc:
        raise CheckpointError(f"{path}: no such checkpoint file") from exc
    except (TensorcaError, OSError) as exc:
        raise CheckpointError(f"{path}: cannot read macrocell checkpoint ({exc})") from exc
    rule = pattern.rule if pattern.rule is not None else parse_rule("B3/S23")
    manifest = {"format": FORMAT, "kind": "pattern", "batched": False, "rule": rule.canonical(),
                "generation": pattern.generation, "name": pattern.name, "comments": list(pattern.comments),
                "author": pattern.author}
    return pattern, rule, pattern.topology, pattern.generation, manifest
