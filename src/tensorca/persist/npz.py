"""Checkpoints: the state of a run written atomically, resumed bit for bit.

A checkpoint is one NumPy ``.npz`` file (no pickle anywhere) holding two arrays:

- ``cells``: the ``(B, H, W)`` states: ``uint8`` for a discrete rule, the run's ``float32`` or
  ``float64`` values for a continuous one (Lenia), stored exactly (for a pattern on the unbounded
  plane, its cells cropped to the bounding box, ``B = 1``); ``(B, C, H, W)`` for a multi-channel
  rule (:class:`~tensorca.lenia.ExpandedLenia`);
- ``manifest``: UTF-8 JSON as a ``uint8`` array: ``format``, ``kind`` (``"grid"`` or
  ``"pattern"``), ``batched`` (the input was ``(B, H, W)``), the canonical ``rule`` (and, for a
  rule defined by a Golly rule file, ``rule_text``: the file itself, so a resume needs no file), the
  ``topology`` (kind, width, height), ``generation``, ``origin`` ``[x, y]`` (patterns), the
  pattern's ``name`` and ``comments``, ``engine`` and ``tensorca_version``; for a stochastic
  rule, the run's ``seed`` (:func:`tensorca.resume` continues with it, so the draws go on exactly).

Writes go to a temporary file in the same directory, are flushed and ``fsync``-ed, then renamed
over the target (and the directory is synced), so a crash leaves either the old checkpoint or the
new one, never half of one (the temporary name is unique, so concurrent saves never collide).

Loading never unpickles and trusts nothing: the zip members' ``.npy`` headers are read first and
the declared size is checked against the cell budget before a byte is decompressed; integer cell
values are checked against 0..255 and the rule's states (never wrapped), float cells (continuous
rules only) must be finite and inside the rule's range; every manifest field is
type-checked (``generation`` a non-negative int, ...). Whatever is wrong, and however the zip,
zlib, npy or JSON layers fail, :func:`load` raises :class:`CheckpointError` naming the file.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..atomic import write_bytes_atomic
from ..errors import CheckpointError, TensorcaError
from ..families.rule_table.loader import rule_definition, rule_from_text
from ..io.budget import resolve_max_cells
from ..manifest_fields import MAX_INT, int_field, topology_from, topology_json
from ..pattern import Pattern
from ..rules import parse_rule
from ..rules.base import Rule
from ..topology import Topology

FORMAT = "tensorca-checkpoint/1"
#: Largest manifest accepted (bytes of JSON).
MAX_MANIFEST_BYTES = 1 << 24
#: The float dtypes a continuous rule's cells are stored in (what the engines compute in).
FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@dataclasses.dataclass
class Checkpoint:
    """A loaded checkpoint: ``state`` is a :class:`Pattern` or a NumPy array, as it was run."""

    state: Any
    rule: Rule
    topology: Topology
    generation: int
    manifest: dict
    #: The run's seed when its rule is stochastic (None otherwise).
    seed: int | None = None


def manifest_for(state_kind: str, rule: Rule, topology: Topology, generation: int, *, batched: bool = True,
                 origin: tuple[int, int] | None = None, pattern: Pattern | None = None, engine: str = "",
                 seed: int | None = None) -> dict:
    """The JSON manifest of a checkpoint (see the module docstring); ``seed`` is kept for a stochastic rule."""
    manifest = {
        "format": FORMAT,
        "kind": state_kind,
        "batched": bool(batched),
        "rule": rule.canonical(),
        "topology": topology_json(topology),
        "generation": int(generation),
        "origin": [int(origin[0]), int(origin[1])] if origin is not None else None,
        "engine": engine,
        "tensorca_version": __version__,
    }
    if seed is not None and rule.compile().stochastic:
        manifest["seed"] = int(seed)
    definition = rule_definition(rule)
    if definition is not None:
        manifest["rule_text"] = definition
    if pattern is not None:
        manifest["name"] = pattern.name
        manifest["comments"] = list(pattern.comments)
        manifest["author"] = pattern.author
    return manifest


def save(path: str | os.PathLike, cells: np.ndarray, manifest: dict) -> Path:
    """Write ``cells`` ``(B, H, W)`` and ``manifest`` to ``path`` atomically (tmp, fsync, rename).

    float32/float64 cells (a continuous rule's) are stored as they are; anything else as ``uint8`` states.
    """
    path = Path(path)
    cells = np.asarray(cells)
    cells = np.ascontiguousarray(cells, dtype=cells.dtype if cells.dtype in FLOAT_DTYPES else np.uint8)
    if cells.ndim not in (3, 4):
        raise CheckpointError(f"checkpoint cells must be (B, H, W) or (B, C, H, W), got shape {cells.shape}")
    blob = np.frombuffer(json.dumps(manifest, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, cells=cells, manifest=blob)
    write_bytes_atomic(path, buffer.getvalue())
    return path


def load(path: str | os.PathLike, *, max_cells: int | None = None) -> Checkpoint:
    """Read a checkpoint written by :func:`save` (no pickle).

    Every way a file can be missing, truncated, corrupt, oversized or inconsistent raises
    :class:`CheckpointError` naming the file and the fault. The cells' declared shape is read
    from the ``.npy`` header inside the zip and checked against ``max_cells`` (default 2**31
    bytes of cells) before anything is decompressed.
    """
    path = Path(path)
    budget = resolve_max_cells(max_cells)
    try:
        cells, manifest = _read_npz(path, budget)
        return _checkpoint_from(cells, manifest)
    except CheckpointError as exc:
        if str(path) in str(exc):
            raise
        raise CheckpointError(f"{path}: {exc}") from exc
    except FileNotFoundError as exc:
        raise CheckpointError(f"{path}: no such checkpoint file") from exc
    except TensorcaError as exc:  # a rule or topology the manifest names that does not parse
        raise CheckpointError(f"{path}: {exc}") from exc
    except Exception as exc:  # a hostile zip/npy/JSON can raise almost anything: report, never leak
        raise CheckpointError(f"{path}: cannot read checkpoint ({type(exc).__name__}: {exc})") from exc


def _read_npz(path: Path, budget: int) -> tuple[np.ndarray, dict]:
    """The ``(B, H, W)`` cells (``uint8``, or float32/float64) and the manifest dict of the ``.npz`` at ``path``."""
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        if "cells.npy" not in names or "manifest.npy" not in names:
            raise CheckpointError("not a tensorca checkpoint (needs 'cells' and 'manifest')")
        blob = _read_member(archive, "manifest.npy", MAX_MANIFEST_BYTES)
        if blob.dtype != np.uint8 or blob.ndim != 1:
            raise CheckpointError(f"manifest must be a 1-D uint8 array, got {blob.dtype} of shape {blob.shape}")
        manifest = json.loads(blob.tobytes().decode("utf-8"))
        cells = _read_member(archive, "cells.npy", budget)
    if not isinstance(manifest, dict):
        raise CheckpointError(f"manifest must be a JSON object, got {type(manifest).__name__}")
    if manifest.get("format") != FORMAT:
        raise CheckpointError(f"unknown checkpoint format {manifest.get('format')!r}")
    if cells.ndim not in (3, 4):
        raise CheckpointError(f"cells must be (B, H, W) (or (B, C, H, W) for a multi-channel rule), "
                              f"got shape {cells.shape}")
    return _as_states(cells), manifest


def _read_member(archive: zipfile.ZipFile, name: str, budget: int) -> np.ndarray:
    """One ``.npy`` member, its declared size checked against ``budget`` bytes before reading it."""
    with archive.open(name) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        if dtype.hasobject or not (dtype.kind in "uib" or (dtype.kind == "f" and dtype.itemsize in (4, 8))):
            raise CheckpointError(f"{name} holds {dtype}, not integers (or float32/float64 cells)")
        count = math.prod(shape)
        nbytes = count * dtype.itemsize
        if nbytes > budget:
            raise CheckpointError(
                f"{name} declares shape {tuple(shape)} of {dtype} ({nbytes} bytes), over the budget of "
                f"{budget} bytes (pass a larger max_cells= to allow it)"
            )
        buffer = bytearray(nbytes)
        view, filled = memoryview(buffer), 0
        while filled < nbytes:
            got = fh.readinto(view[filled:])
            if not got:
                raise CheckpointError(f"{name} is truncated: {filled} of {nbytes} bytes")
            filled += got
    return np.frombuffer(buffer, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def _as_states(cells: np.ndarray) -> np.ndarray:
    """``cells`` as C-contiguous ``uint8`` (float32/float64 kept: checked against the rule later);
    integer values outside 0..255 are refused, never wrapped."""
    if cells.dtype.kind == "f":  # float32/float64 (the header was checked), in native byte order
        return np.ascontiguousarray(cells, dtype=cells.dtype.newbyteorder("="))
    if cells.dtype != np.uint8 and cells.size:
        low, high = int(cells.min()), int(cells.max())
        if low < 0 or high > 255:
            raise CheckpointError(f"cells hold states {low}..{high}, outside 0..255")
    return np.ascontiguousarray(cells, dtype=np.uint8)


def _rule_from(manifest: dict) -> Rule:
    """The manifest's rule: from ``rule_text`` when the checkpoint carries a rule file, else parsed."""
    text = manifest.get("rule_text")
    if text is None:
        return parse_rule(manifest["rule"])
    if not isinstance(text, str):
        raise CheckpointError(f"manifest 'rule_text' must be a string, got {type(text).__name__}")
    return rule_from_text(text, manifest["rule"], source="<checkpoint>")


def _checkpoint_from(cells: np.ndarray, manifest: dict) -> Checkpoint:
    """Validate ``manifest`` against ``cells`` and build the :class:`Checkpoint`."""
    if not isinstance(manifest.get("rule"), str):
        raise CheckpointError(f"manifest 'rule' must be a string, got {manifest.get('rule')!r}")
    rule = _rule_from(manifest)
    topology = topology_from(manifest.get("topology"))
    generation = int_field(manifest, "generation", 0)
    kind, batched = manifest.get("kind", "grid"), manifest.get("batched", True)
    if kind not in ("grid", "pattern") or not isinstance(batched, bool):
        raise CheckpointError(f"manifest 'kind' {kind!r} / 'batched' {batched!r} are not grid/pattern and a bool")
    seed = manifest.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not -(2**63) <= seed < 2**64):
        raise CheckpointError(f"manifest 'seed' must be an integer of at most 64 bits, got {seed!r}")
    _check_values(cells, rule)
    channels = rule.state_space.channels  # a multi-channel rule's cells are (B, C, H, W)
    if cells.ndim != (3 if channels is None else 4) or (channels is not None and cells.shape[1] != channels):
        want = "(B, H, W)" if channels is None else f"(B, {channels}, H, W)"
        raise CheckpointError(f"rule {rule.canonical()!r} takes cells of shape {want}, got {cells.shape}")
    if (kind == "pattern" or not batched) and cells.shape[0] != 1:
        raise CheckpointError(f"a single {kind} needs cells of shape (1, H, W), got {cells.shape}")
    if kind == "pattern" and channels is not None:
        raise CheckpointError(f"a pattern holds one (H, W) plane, not the channels of rule {rule.canonical()!r}")
    if kind == "pattern":
        return Checkpoint(_pattern_from(cells[0], manifest, rule, topology, generation), rule, topology, generation,
                          manifest, seed)
    if not topology.bounded or topology.shape != cells.shape[-2:]:
        raise CheckpointError(f"cells of shape {cells.shape} do not fit topology {topology}")
    state = cells if batched else cells[0]
    return Checkpoint(state=state, rule=rule, topology=topology, generation=generation, manifest=manifest, seed=seed)


def _check_values(cells: np.ndarray, rule: Rule) -> None:
    """Discrete rules take integer states below ``n_states``; continuous ones finite floats in their range."""
    space = rule.state_space
    if not space.discrete:
        if cells.dtype not in FLOAT_DTYPES:
            raise CheckpointError(f"rule {rule.canonical()!r} is continuous, but the cells hold {cells.dtype} states, "
                                  "not float32/float64 values")
        bad = ~((cells >= space.low) & (cells <= space.high))  # NaN fails both comparisons
        if bad.any():
            where = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), cells.shape))
            raise CheckpointError(f"cell {where} holds {float(cells[where])!r}, outside the range "
                                  f"[{space.low}, {space.high}] of rule {rule.canonical()!r}")
        return
    if cells.dtype in FLOAT_DTYPES:
        raise CheckpointError(f"cells hold {cells.dtype} values, but rule {rule.canonical()!r} has discrete states")
    if cells.size and int(cells.max()) >= rule.n_states:
        raise CheckpointError(
            f"cells hold state {int(cells.max())}, not a state of rule {rule.canonical()!r} ({rule.n_states} states)"
        )


def _pattern_from(cells: np.ndarray, manifest: dict, rule: Rule, topology: Topology, generation: int) -> Pattern:
    origin = manifest.get("origin") or [0, 0]
    if not isinstance(origin, list) or len(origin) != 2:
        raise CheckpointError(f"manifest 'origin' must be [x, y], got {origin!r}")
    x, y = (int_field({"origin": v}, "origin", -MAX_INT) for v in origin)
    name, author, comments = manifest.get("name"), manifest.get("author"), manifest.get("comments") or []
    if not all(v is None or isinstance(v, str) for v in (name, author)) or not (
        isinstance(comments, list) and all(isinstance(c, str) for c in comments)
    ):
        raise CheckpointError("manifest 'name', 'author' and 'comments' must be strings")
    return Pattern(cells=cells, rule=rule, topology=topology, origin=(x, y), generation=generation, name=name,
                   comments=list(comments), author=author)
