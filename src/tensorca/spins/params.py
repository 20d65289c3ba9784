"""Checked parameters and the probability tables of the spin models (pure Python, no array library).

Every probability a sweep compares a draw against is computed here, once per run, in IEEE float64
by Python's ``math`` module, exactly as the formulas below are written, so the NumPy and torch
engines (and any other) read the same numbers. A probability ``p`` becomes the integer threshold
``ceil(p * 2^53)``: a site's 53-bit draw ``k`` (``uniform_cells``' value is ``u = k / 2^53``)
passes when ``k < ceil(p * 2^53)``, which is exactly ``u < p`` (both sides scale by a power of two
without rounding). No probability is quantised beyond float64.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..errors import UsageError

#: The dynamics every model runs.
DYNAMICS = ("metropolis", "glauber")
#: The boundaries: a torus (periodic) or a plane with free edges (missing neighbours count nothing).
BOUNDARIES = ("torus", "plane")
#: Initial configurations a shape starts from.
INITS = ("ordered", "random")
#: A draw passes its threshold when its 53-bit value is below it; ``2^53`` passes every draw.
ONE = 1 << 53
#: The largest q (states are stored as uint8 0..q-1).
MAX_Q = 256


def _number(name: str, value: object, needs: str) -> float:
    """``value`` as a float (UsageError for bools, strings and non-numbers)."""
    if isinstance(value, (bool, str, bytes)):
        raise UsageError(f"spins: {name} must be {needs}, got {value!r}")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise UsageError(f"spins: {name} must be {needs}, got {value!r}") from None


def temperature(T: object) -> float:
    """``T`` as a float; UsageError unless it is a number > 0 (``math.inf``: infinite temperature)."""
    value = _number("temperature T", T, "a number > 0")
    if not value > 0.0:
        raise UsageError(f"spins: temperature T must be > 0, got {T!r}")
    return value


def field(h: object) -> float:
    """The external field ``h`` as a finite float (UsageError otherwise)."""
    value = _number("field h", h, "a finite number")
    if not math.isfinite(value):
        raise UsageError(f"spins: field h must be a finite number, got {h!r}")
    return value


def integer(name: str, value: object, minimum: int = 0) -> int:
    """A non-negative (or ``>= minimum``) integer argument, UsageError otherwise."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise UsageError(f"spins: {name} must be an integer, got {value!r}")
    number = int(value)  # type: ignore[call-overload]
    if number < minimum:
        raise UsageError(f"spins: {name} must be >= {minimum}, got {number}")
    return number


def choice(name: str, value: object, allowed: Sequence[str]) -> str:
    """``value`` when it is one of ``allowed`` (UsageError naming them otherwise)."""
    if not isinstance(value, str) or value not in allowed:
        raise UsageError(f"spins: unknown {name} {value!r}; use one of {', '.join(repr(a) for a in allowed)}")
    return value


def potts_q(q: object) -> int:
    """The number of Potts states, 2..256."""
    number = integer("q", q)
    if not 2 <= number <= MAX_Q:
        raise UsageError(f"spins: Potts q must lie in 2..{MAX_Q}, got {number}")
    return number


def threshold(p: float) -> int:
    """``ceil(p * 2^53)`` for a probability ``p`` (clamped to 0..1): the integer a 53-bit draw must be below."""
    return min(ONE, max(0, math.ceil(min(1.0, max(0.0, p)) * ONE)))


def exp(x: float) -> float:
    """IEEE float64 ``exp(x)``: ``math.exp``, with overflow giving infinity instead of an error."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def ising_metropolis_thresholds(T: float, h: float) -> list[int]:
    """Flip thresholds indexed by ``9 * (s > 0) + (n + 4)`` for spin ``s`` and neighbour sum ``n``
    in -4..4: ``p = min(1, exp(-dE / T))`` with ``dE = 2 s (n + h)``."""
    table = []
    for s in (-1, 1):
        for n in range(-4, 5):
            d_e = 2.0 * s * (n + h)
            table.append(ONE if d_e <= 0.0 else threshold(exp(-d_e / T)))
    return table


def ising_glauber_thresholds(T: float, h: float) -> list[int]:
    """Spin-up thresholds indexed by ``n + 4`` (neighbour sum ``n`` in -4..4):
    ``p = 1 / (1 + exp(-2 (n + h) / T))``, the heat-bath probability of ``s' = +1``."""
    return [threshold(1.0 / (1.0 + exp(-2.0 * (n + h) / T))) for n in range(-4, 5)]


def potts_metropolis_thresholds(T: float) -> list[int]:
    """Acceptance thresholds indexed by ``d + 4``, ``d = n_new - n_old`` in -4..4 (neighbours in the
    proposed state minus neighbours in the current one): ``p = min(1, exp(d / T))`` (``dE = -d``)."""
    return [ONE if d >= 0 else threshold(exp(d / T)) for d in range(-4, 5)]


def potts_heat_bath_weights(T: float) -> list[float]:
    """Boltzmann weights indexed by ``m - n_s`` in 0..4, ``exp(-(m - n_s) / T)``, where ``n_s`` counts
    the neighbours in state ``s`` and ``m`` is the largest count: the state with the most neighbours
    weighs 1, so no weight overflows at any T."""
    return [exp(-d / T) for d in range(5)]
