"""Golly's topology suffixes: the two bounded kinds parse, the others are refused by name."""

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
    ],
)
def test_parse(suffix, expected):
    topology = parse_topology(suffix)
    assert topology == expected
    assert parse_topology(topology.suffix()) == topology


def test_suffix_and_shape():
    t = Topology.torus(100, 75)
    assert t.suffix() == ":T100,75" and t.shape == (75, 100) and t.bounded
    assert Topology.unbounded().suffix() == "" and not Topology.unbounded().bounded
    with pytest.raises(TopologyError, match="no fixed shape"):
        Topology.unbounded().shape


@pytest.mark.parametrize(
    "suffix,message",
    [
        (":K30*,20", "Klein bottle"),
        (":C30,20", "cross-surface"),
        (":S30", "sphere"),
        (":T30+5,20", "shifted tori"),
        (":T30,20-2", "shifted tori"),
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
        Topology("klein", 5, 5)  # type: ignore[arg-type]
