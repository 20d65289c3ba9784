"""Golly's topology suffixes: every bounded kind parses to its canonical spelling; invalid ones say why."""

from __future__ import annotations

import pytest

from tensorca.errors import TopologyError
from tensorca.topology import Topology, parse_topology


@pytest.mark.parametrize(
    "suffix,expected",
    [
        (":T64,64", Topology("torus", 64, 64)),
        ("T100,75", Topology("torus", 100, 75)),
        (":t30,20", Topology("torus", 30, 20)),
        (":P40,40", Topology("plane", 40, 40)),
        (":P96,64", Topology("plane", 96, 64)),
        (":T30", Topology("torus", 30, 30)),
        (":T30+5,20", Topology.torus(30, 20, shift_x=5)),
        (":T30,20-2", Topology.torus(30, 20, shift_y=-2)),
        (":K30*,20", Topology.klein(30, 20, "h")),
        (":K30,20*", Topology.klein(30, 20, "v")),
        (":K30*+1,20", Topology.klein(30, 20, "h", shift=True)),
        (":K30,20*+1", Topology.klein(30, 20, "v", shift=True)),
        (":C30,20", Topology.cross(30, 20)),
        (":S30", Topology.sphere(30)),
        (":s7", Topology("sphere", 7, 7)),
    ],
)
def test_parse(suffix, expected):
    topology = parse_topology(suffix)
    assert topology == expected
    assert parse_topology(topology.suffix()) == topology


@pytest.mark.parametrize(
    "suffix,canonical",
    [
        (":T30+35,20", ":T30+5,20"),  # Golly: the magnitude modulo the side, the sign kept
        (":T30-32,20", ":T30-2,20"),
        (":T30+30,20", ":T30,20"),  # a whole turn is no shift
        (":T30,20+0", ":T30,20"),
        (":K30,20", ":K30,20*"),  # Golly reads an unmarked Klein bottle as a vertical twist
        (":K30*+7,20", ":K30*+1,20"),  # every Klein shift is equivalent to 1
        (":K30*-1,20", ":K30*+1,20"),
        (":K30*+30,20", ":K30*,20"),
        (":k10,8*-3", ":K10,8*+1"),
        (":c4,3", ":C4,3"),
        (":S30,30", ":S30"),
    ],
)
def test_canonical_suffix(suffix, canonical):
    topology = parse_topology(suffix)
    assert topology.suffix() == canonical and str(topology) == canonical
    assert parse_topology(canonical) == topology


def test_new_kinds_keep_the_old_attributes():
    k = parse_topology(":K30*,20")
    assert (k.kind, k.width, k.height, k.shape, k.bounded, k.twist) == ("klein", 30, 20, (20, 30), True, "h")
    t = parse_topology(":T30+5,20")
    assert (t.kind, t.shape, t.shift_x, t.shift_y, t.simple) == ("torus", (20, 30), 5, 0, False)
    assert Topology.torus(30, 20).simple and Topology.plane(3, 4).simple
    assert not any(parse_topology(s).simple for s in (":K30*,20", ":C30,20", ":S30", ":T30,20-2"))


def test_suffix_and_shape():
    t = Topology.torus(100, 75)
    assert t.suffix() == ":T100,75" and t.shape == (75, 100) and t.bounded
    assert Topology.unbounded().suffix() == "" and not Topology.unbounded().bounded
    with pytest.raises(TopologyError, match="no fixed shape"):
        _ = Topology.unbounded().shape


@pytest.mark.parametrize(
    "suffix,message",
    [
        (":T30+5,20-2", "not both|one or the other"),
        (":K31*+1,20", "dimension is even; ':K31\\*\\+1,20' has width 31"),
        (":K30,21*+1", "dimension is even.*height 21"),
        (":K30*,20+1", "shift must be on its twisted edges"),
        (":K30+1,20*", "shift must be on its twisted edges"),
        (":K30*,20*", "both horizontal and vertical twists"),
        (":T30*,20", "twist '\\*' is only meaningful for a Klein bottle"),
        (":C30,20*", "only meaningful for a Klein bottle"),
        (":P30*,20", "only meaningful for a Klein bottle"),
        (":C30+1,20", "cross-surface can't have a shift"),
        (":S30+1", "sphere can't have a shift"),
        (":P30,20+1", "plane can't have a shift"),
        (":S30,20", "sphere must be square"),
        (":K0,20*", "infinite dimension"),
        (":T0,20", "infinite dimension"),
        (":P30,0", "infinite dimension"),
        (":X30,20", "unknown topology letter 'X'"),
        (":T", "needs a size"),
        (":T30,", "cannot parse"),
        (":Tab", "cannot parse"),
        (":T3000000000,5", "exceeds Golly's maximum"),
    ],
)
def test_errors_name_what_was_asked(suffix, message):
    with pytest.raises(TopologyError, match=message):
        parse_topology(suffix)


def test_invalid_values():
    with pytest.raises(TopologyError, match="positive"):
        Topology("torus", 0, 5)
    with pytest.raises(TopologyError, match="unknown topology kind"):
        Topology("mobius", 5, 5)  # type: ignore[arg-type]
    with pytest.raises(TopologyError, match="needs twist"):
        Topology("klein", 5, 5)
    with pytest.raises(TopologyError, match="only meaningful for a Klein bottle"):
        Topology("torus", 5, 5, "h")
    with pytest.raises(TopologyError, match="not both"):
        Topology.torus(5, 5, shift_x=1, shift_y=1)
    with pytest.raises(TopologyError, match="smaller than the edge"):
        Topology.torus(5, 5, shift_x=5)
    with pytest.raises(TopologyError, match="sphere must be square"):
        Topology("sphere", 5, 6)
    with pytest.raises(TopologyError, match="width is 5"):
        Topology.klein(5, 6, "h", shift=True)
    with pytest.raises(TopologyError, match="can't have a shift"):
        Topology("cross", 6, 6, shift_x=1)
