"""What a soup search returns: the census with its samples and timings, and the Ctrl-C that carries it."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Soups kept per apgcode as samples (the lowest indices), as apgsearch keeps ten soup ids per object.
SAMPLES = 10
#: Where a search's time goes (:attr:`SoupSearchResult.phases`): stepping the planes (engine calls
#: and the scans of population and guard band; on a GPU, waiting for it), splitting settled ash into
#: objects, and clearing guard bands (spaceships leaving, soups re-centred).
PHASES = ("stepping", "census", "bands")


@dataclass
class SoupSearchResult:
    """What a soup search found.

    ``counts``: apgcode -> number of objects, most common first; ``soups``: soups run;
    ``seconds``: wall time; ``generations``: generations run, summed over soups; ``unstable``:
    soups not stable by ``max_gens``; ``engine``/``device``: what ran them; ``samples``: apgcode ->
    the indices of the first :data:`SAMPLES` soups (lowest indices) in which it was counted;
    ``phases``: where the time went, seconds by :data:`PHASES` (the rest of ``seconds`` is
    book-keeping: drawing soups, placing and moving planes).
    """

    counts: dict[str, int]
    soups: int
    seconds: float
    generations: int
    unstable: int
    engine: str
    device: str
    rule: str
    escaped: int = 0
    promoted: int = 0
    extra: dict = field(default_factory=dict)
    #: True for the partial census of a search stopped early (:class:`SearchInterrupted`).
    interrupted: bool = False
    #: The seed the soups were drawn from (drawn at random when ``soup_search`` got ``seed=None``).
    seed: int | str | None = None
    samples: dict[str, list[int]] = field(default_factory=dict)
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def soups_per_second(self) -> float:
        return self.soups / self.seconds if self.seconds > 0 else float("inf")

    @property
    def objects(self) -> int:
        return sum(self.counts.values())


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`soup_search`: still a ``KeyboardInterrupt``, carrying the partial census.

    ``result`` is a :class:`SoupSearchResult` with ``interrupted=True`` holding the soups censused
    before the interrupt (``result.soups`` of them; soups still running are not counted).
    """

    def __init__(self, result: SoupSearchResult):
        super().__init__(f"soup search interrupted with {result.soups} soups censused")
        self.result = result


__all__ = ["PHASES", "SAMPLES", "SearchInterrupted", "SoupSearchResult"]
