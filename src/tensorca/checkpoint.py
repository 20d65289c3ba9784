"""Checkpoints: the state of a run written atomically, resumed bit for bit.

A checkpoint is one NumPy ``.npz`` file (no pickle anywhere) holding two arrays:

- ``cells``: the ``(B, H, W)`` ``uint8`` states (for a pattern on the unbounded plane, its cells
  cropped to the bounding box, ``B = 1``);
- ``manifest``: UTF-8 JSON as a ``uint8`` array: ``format``, ``kind`` (``"grid"`` or
  ``"pattern"``), ``batched`` (the input was ``(B, H, W)``), the canonical ``rule``, the
  ``topology`` (kind, width, height), ``generation``, ``origin`` ``[x, y]`` (patterns), the
  pattern's ``name`` and ``comments``, ``engine`` and ``tensorca_version``.

Writes go to a temporary file in the same directory, are flushed and ``fsync``-ed, then renamed
over the target (and the directory is synced), so a crash leaves either the old checkpoint or the
new one, never half of one. Loading uses ``allow_pickle=False``.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import write_bytes_atomic
from .errors import CheckpointError
from .pattern import Pattern
from .rules import parse_rule
from .rules.base import Rule
from .topology import Topology

FORMAT = "tensorca-checkpoint/1"


@dataclasses.dataclass
class Checkpoint:
    """A loaded checkpoint: ``state`` is a :class:`Pattern` or a NumPy array, as it was run."""

    state: Any
    rule: Rule
    topology: Topology
    generation: int
    manifest: dict


def _topology_json(topology: Topology) -> dict:
    data: dict = {"kind": topology.kind, "width": topology.width, "height": topology.height}
    if topology.bounded and not topology.simple:
        data["suffix"] = topology.suffix()  # twist and shift, in Golly's spelling
    return data


def _topology_from(data: dict) -> Topology:
    kind = data.get("kind")
    if kind == "unbounded":
        return Topology.unbounded()
    if data.get("suffix"):
        from .errors import TopologyError
        from .topology import parse_topology

        try:
            topology = parse_topology(str(data["suffix"]))
        except TopologyError as exc:
            raise CheckpointError(f"checkpoint topology: {exc}") from exc
        if topology.kind != kind:
            raise CheckpointError(f"checkpoint topology suffix {data['suffix']!r} is not a {kind}")
        return topology
    if kind == "torus":
        return Topology.torus(int(data["width"]), int(data["height"]))
    if kind == "plane":
        return Topology.plane(int(data["width"]), int(data["height"]))
    raise CheckpointError(f"checkpoint names an unknown topology kind {kind!r}")


def manifest_for(state_kind: str, rule: Rule, topology: Topology, generation: int, *, batched: bool = True,
                 origin: tuple[int, int] | None = None, pattern: Pattern | None = None, engine: str = "") -> dict:
    """The JSON manifest of a checkpoint (see the module docstring)."""
    from . import __version__

    manifest = {
        "format": FORMAT,
        "kind": state_kind,
        "batched": bool(batched),
        "rule": rule.canonical(),
        "topology": _topology_json(topology),
        "generation": int(generation),
        "origin": [int(origin[0]), int(origin[1])] if origin is not None else None,
        "engine": engine,
        "tensorca_version": __version__,
    }
    if pattern is not None:
        manifest["name"] = pattern.name
        manifest["comments"] = list(pattern.comments)
        manifest["author"] = pattern.author
    return manifest


def save(path: str | os.PathLike, cells: np.ndarray, manifest: dict) -> Path:
    """Write ``cells`` ``(B, H, W)`` uint8 and ``manifest`` to ``path`` atomically (tmp, fsync, rename)."""
    path = Path(path)
    cells = np.ascontiguousarray(cells, dtype=np.uint8)
    if cells.ndim != 3:
        raise CheckpointError(f"checkpoint cells must be (B, H, W), got shape {cells.shape}")
    blob = np.frombuffer(json.dumps(manifest, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, cells=cells, manifest=blob)
    write_bytes_atomic(path, buffer.getvalue())
    return path


def load(path: str | os.PathLike) -> Checkpoint:
    """Read a checkpoint written by :func:`save` (no pickle); :class:`CheckpointError` if malformed."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            if "cells" not in data.files or "manifest" not in data.files:
                raise CheckpointError(f"{path}: not a tensorca checkpoint (needs 'cells' and 'manifest')")
            cells = np.array(data["cells"], dtype=np.uint8)
            manifest = json.loads(bytes(np.asarray(data["manifest"], dtype=np.uint8)).decode("utf-8"))
    except CheckpointError:
        raise
    except (ValueError, OSError, UnicodeDecodeError, KeyError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise CheckpointError(f"{path}: cannot read checkpoint ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CheckpointError(f"{path}: unknown checkpoint format {manifest.get('format') if isinstance(manifest, dict) else None!r}")
    if cells.ndim != 3:
        raise CheckpointError(f"{path}: cells must be (B, H, W), got shape {cells.shape}")
    rule = parse_rule(manifest["rule"])
    topology = _topology_from(manifest["topology"])
    generation = int(manifest["generation"])
    if manifest.get("kind") == "pattern":
        origin = tuple(manifest.get("origin") or (0, 0))
        state: Any = Pattern(cells=cells[0], rule=rule, topology=topology, origin=(int(origin[0]), int(origin[1])),
                             generation=generation, name=manifest.get("name"),
                             comments=list(manifest.get("comments") or []), author=manifest.get("author"))
    else:
        state = cells if manifest.get("batched", True) else cells[0]
    return Checkpoint(state=state, rule=rule, topology=topology, generation=generation, manifest=manifest)
