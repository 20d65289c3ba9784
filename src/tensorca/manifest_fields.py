"""The fields of a checkpoint's JSON manifest that more than one checkpoint format reads: bounded
integers and the topology (:mod:`tensorca.persist.npz`'s ``.npz`` files, HashLife's macrocell
checkpoints, the out-of-core store). Below all three, so none imports another for them."""

from __future__ import annotations

from typing import Any

from .errors import CheckpointError, TopologyError
from .topology import Topology, parse_topology

#: Largest magnitude of a generation, size or coordinate in a manifest.
MAX_INT = 2**62


def topology_json(topology: Topology) -> dict:
    data: dict = {"kind": topology.kind, "width": topology.width, "height": topology.height}
    if topology.bounded and not topology.simple:
        data["suffix"] = topology.suffix()  # twist and shift, in Golly's spelling
    return data


def topology_from(data: Any) -> Topology:
    if not isinstance(data, dict):
        raise CheckpointError(f"manifest 'topology' must be an object, got {type(data).__name__}")
    kind = data.get("kind")
    if kind == "unbounded":
        return Topology.unbounded()
    if data.get("suffix"):
        try:
            topology = parse_topology(str(data["suffix"]))
        except TopologyError as exc:
            raise CheckpointError(f"checkpoint topology: {exc}") from exc
        if topology.kind != kind:
            raise CheckpointError(f"checkpoint topology suffix {data['suffix']!r} is not a {kind}")
        return topology
    if kind not in ("torus", "plane"):
        raise CheckpointError(f"checkpoint names an unknown topology kind {kind!r}")
    width, height = (int_field(data, key, 1, "topology ") for key in ("width", "height"))
    return Topology.torus(width, height) if kind == "torus" else Topology.plane(width, height)


def int_field(data: dict, key: str, minimum: int, where: str = "") -> int:
    """``data[key]`` as an int ``>= minimum`` (not a bool, a float or a string), else CheckpointError."""
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= MAX_INT:
        raise CheckpointError(f"manifest {where}{key!r} must be an integer in {minimum}..2**62, got {value!r}")
    return value
