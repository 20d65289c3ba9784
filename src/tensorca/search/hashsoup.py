"""apgsearch's soups: a 16x16 C1 soup from the SHA-256 of ``seed + str(index)``, bit for bit.

apgsearch (apgmera/apgluxe, ``lifelib``'s ``hashsoup``) hashes the string ``root + suffix`` (the
suffix is the soup's index in decimal) and lays the 32 digest bytes out as a 16x16 soup: row ``y``
is bytes ``2y`` and ``2y + 1``; byte ``2y + 1`` fills columns 0-7 and byte ``2y`` columns 8-15, each
byte least significant bit first (lifelib's 8x8 tiles hold cell ``(x, y)`` in bit ``x + 8y``: tile
(0, 0) gets the odd bytes, tile (1, 0) the even ones). apgsearch 1.x (Python) put byte ``2y`` on
the left, most significant bit first: the same soup mirrored left to right, so both censuses agree.
Catagolue names a soup ``C1/<root><index>``; a census is reproducible from ``(root, range)`` alone.

These are tensorca's soups everywhere: :func:`~tensorca.search.soups.soup_search` (one process,
``tensorca soup``) and :func:`~tensorca.search.distributed.soup_census` (``--workers``, a cluster)
both draw soup ``i`` of seed ``S`` as ``hashsoups(S, i, i + 1)``; an integer seed is its decimal
string, so ``--seed 12345`` names apgsearch's root ``"12345"``.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..errors import UsageError

SOUP_SIZE = 16
#: Longest seed accepted (apgsearch's roots are ~12 characters; Catagolue's soup ids must stay short).
MAX_SEED_LENGTH = 256


def check_seed(seed: object) -> str:
    """``seed`` as apgsearch's root string: printable ASCII without spaces, 1..256 characters.

    A non-negative int is taken as its decimal string. Anything else raises :class:`UsageError`
    (a haul lists soups as ``root`` + index, separated by spaces, so a space could not be read back).
    """
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        seed = str(int(seed))
    if not isinstance(seed, str):
        raise UsageError(f"soup seed must be a string (apgsearch's root, e.g. 'k_abc123'), got {type(seed).__name__}")
    if not 1 <= len(seed) <= MAX_SEED_LENGTH:
        raise UsageError(f"soup seed must be 1..{MAX_SEED_LENGTH} characters, got {len(seed)}")
    bad = [c for c in seed if not (33 <= ord(c) <= 126)]
    if bad:
        raise UsageError(f"soup seed must be printable ASCII without spaces; it holds {bad[0]!r}")
    return seed


def digest(seed: str, index: int) -> bytes:
    """The 32 bytes apgsearch draws soup ``index`` of root ``seed`` from."""
    return hashlib.sha256(f"{seed}{int(index)}".encode("ascii")).digest()


def soup_from_digest(data: bytes) -> np.ndarray:
    """The ``(16, 16)`` uint8 C1 soup of a 32-byte digest, as lifelib lays it out (module docstring)."""
    return _layout(data, 1)[0]


def _layout(data: bytes, count: int) -> np.ndarray:
    """``count`` concatenated digests as ``(count, 16, 16)`` soups: row ``y`` of a soup is its bytes
    ``2y + 1`` (columns 0-7) and ``2y`` (columns 8-15), least significant bit first."""
    rows = np.frombuffer(data, dtype=np.uint8).reshape(count, SOUP_SIZE, 2)
    return np.unpackbits(rows[:, :, ::-1], axis=2, bitorder="little")


def hashsoup(seed: str, index: int) -> np.ndarray:
    """Soup ``index`` of root ``seed``: ``(16, 16)`` uint8, indexed ``[y, x]``."""
    return soup_from_digest(digest(check_seed(seed), index))


def hashsoups(seed: str | int, start: int, stop: int, density: float = 0.5) -> np.ndarray:
    """Soups ``start .. stop - 1`` of root ``seed`` as one ``(stop - start, 16, 16)`` uint8 array.

    At ``density`` 0.5 these are apgsearch's soups (the digest's bits). At any other density soup
    ``i`` is still a pure function of ``(seed, i, density)``: cell ``[y, x]`` is alive when the
    ``16 y + x``-th ``random()`` of ``numpy.random.default_rng`` seeded with the digest (as eight
    little-endian uint32 words) is below ``density``.
    """
    seed = check_seed(seed)
    if start < 0 or stop < start:
        raise UsageError(f"soup indices must satisfy 0 <= start <= stop, got {start}..{stop}")
    if isinstance(density, bool) or not isinstance(density, (int, float, np.integer, np.floating)):
        raise UsageError(f"density must be a number in [0, 1], got {density!r}")
    if not 0.0 <= density <= 1.0:
        raise UsageError(f"density must lie in [0, 1], got {density}")
    if density == 0.5:
        return _layout(b"".join(digest(seed, i) for i in range(start, stop)), stop - start)
    out = np.empty((stop - start, SOUP_SIZE, SOUP_SIZE), dtype=np.uint8)
    for k, i in enumerate(range(start, stop)):
        rng = np.random.default_rng(np.frombuffer(digest(seed, i), dtype="<u4"))
        out[k] = rng.random((SOUP_SIZE, SOUP_SIZE)) < density
    return out
