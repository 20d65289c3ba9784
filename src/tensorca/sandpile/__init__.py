"""Abelian sandpiles: stabilise a pile of grains, count the topplings, find the group's identity.

::

    import numpy as np, tensorca
    pile = np.full((64, 64), 6)
    stable, topples = tensorca.stabilize(pile, "sandpile", topology="plane", counts=True)
    e = tensorca.sandpile.identity(256)          # the identity of the 256x256 sandpile group

A cell holding ``threshold`` grains or more topples, giving one to each neighbour (:mod:`.model`).
The stable pile and the topple counts do not depend on the order of topplings, so every backend
(NumPy, Numba, torch on any device) returns the same values. Modules: :mod:`.model` (the value,
its checks, the torus errors), :mod:`.inputs` (grids in and out), :mod:`.layout` (the padded grid
and its edges), :mod:`.reference`, :mod:`.fast`, :mod:`.tensor` (the backends), :mod:`.odometer`
(exact solves from guessed topple counts), :mod:`.group` (the identity), :mod:`.api`.
"""

from .api import BACKENDS, identity, stabilize
from .model import NeverStabilizesError, Sandpile

__all__ = ["BACKENDS", "NeverStabilizesError", "Sandpile", "identity", "stabilize"]
