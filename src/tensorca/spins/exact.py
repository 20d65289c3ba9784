"""Exact results for the infinite 2-D square-lattice models (J = 1, no field), to check simulations.

Onsager (1944) for the Ising energy, Yang (1952) for its spontaneous magnetisation, and the Potts
critical temperature (Baxter): pure Python floats.
"""

from __future__ import annotations

import math

#: Ising's critical temperature ``2 / ln(1 + sqrt 2)`` = 2.269185...
ISING_TC = 2.0 / math.log(1.0 + math.sqrt(2.0))


def _elliptic_k(k: float) -> float:
    """The complete elliptic integral of the first kind ``K(k)`` (modulus ``k`` < 1), by the AGM."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    for _ in range(64):
        if abs(a - b) <= 1e-16 * a:
            break
        a, b = (a + b) / 2.0, math.sqrt(a * b)
    return math.pi / (2.0 * a)


def ising_magnetisation(T: float) -> float:
    """Yang's spontaneous magnetisation per site, ``(1 - sinh(2/T)^-4)^(1/8)`` below Tc, 0 above."""
    if T >= ISING_TC:
        return 0.0
    return (1.0 - math.sinh(2.0 / T) ** -4) ** 0.125


def ising_energy(T: float) -> float:
    """Onsager's energy per site ``-coth(2b) [1 + (2/pi) (2 tanh(2b)^2 - 1) K(k)]``,
    ``b = 1/T``, ``k = 2 sinh(2b) / cosh(2b)^2`` (``-sqrt 2`` at Tc)."""
    b2 = 2.0 / T
    k = 2.0 * math.sinh(b2) / math.cosh(b2) ** 2
    if k >= 1.0:
        return -math.sqrt(2.0)
    return -(1.0 / math.tanh(b2)) * (1.0 + (2.0 / math.pi) * (2.0 * math.tanh(b2) ** 2 - 1.0) * _elliptic_k(k))


def potts_tc(q: int) -> float:
    """The q-state Potts critical temperature ``1 / ln(1 + sqrt q)`` (J = 1; 1.1346 for q = 2, 0.9950 for q = 3)."""
    return 1.0 / math.log(1.0 + math.sqrt(q))
