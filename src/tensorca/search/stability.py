"""When a soup's ash is tested for stability: every tier of the soup search (generic planes, lane groups)
asks the same two questions."""

from __future__ import annotations

from collections.abc import Iterable

#: Every this many generations a soup's ash is tested for stability even without the population cue.
FORCED_CHECK = 400


def periodic_tail(history: Iterable[int], quiet: int, chunk: int) -> bool:
    """True when the last population samples (one per ``chunk`` generations) repeat with some
    period q (three times over, within the ``quiet`` generations since the last removal)."""
    samples = list(history)
    for q in range(1, len(samples) // 3 + 1):
        if 3 * q * chunk > quiet:
            break
        tail = samples[-3 * q :]
        if tail[:q] == tail[q : 2 * q] == tail[2 * q :]:
            return True
    return False
