"""Warm-up jobs and the worker processes that run them: the part of :mod:`tensorca.warmup` that the
engines' background compiles (:mod:`tensorca.background`) need, on the base floor.

A :class:`WarmJob` is one small run that makes Numba compile (or load from its on-disk cache) the
kernels a real run of that kind will call; :func:`start_worker` runs a list of them in a process of
its own (``python -m tensorca.warmup JOB_JSON...``). What a job runs (engines, HashLife, soups) is
:mod:`tensorca.warmup`'s: this module imports nothing above the standard library and
:mod:`tensorca.errors`, so the engines and ``auto``'s selection can queue a compile without importing
the packages a worker uses. :mod:`tensorca.warmup` re-exports every name here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Sequence

from .errors import UsageError

#: What a job runs: an engine on a grid, HashLife on a pattern, or soups to a census.
KINDS = ("engine", "hashlife", "soups")


@dataclasses.dataclass(frozen=True)
class WarmJob:
    """One warm-up run. ``kind`` ``"engine"``: ``engine`` advances a random ``(B, H, W)`` grid
    ``shape`` of ``rule`` on a ``topology`` (``"torus"`` or ``"plane"``) for ``generations``;
    ``"hashlife"``: the Gosper gun to ``generations`` on HashLife; ``"soups"``: ``generations``
    soups of ``rule`` censused (the soup search's kernels)."""

    kind: str
    rule: str = "B3/S23"
    engine: str = ""
    shape: tuple[int, int, int] = (1, 64, 64)
    topology: str = "torus"
    generations: int = 8
    label: str = ""
    #: ``bitpack-cpu``'s kernels to compile: "" (as a run would choose), ``specialised`` (the
    #: rule's own) or ``generic`` (the rule as data; see ``TENSORCA_BITPACK_KERNELS``).
    kernels: str = ""

    def describe(self) -> str:
        """The job in words, for the progress bar."""
        if self.label:
            return self.label
        if self.kind == "engine":
            b, h, w = self.shape
            return f"{self.engine} {self.rule} {'' if b == 1 else f'{b} x '}{w}x{h} {self.topology}"
        return f"{self.kind} {self.rule}"

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> WarmJob:
        try:
            data = json.loads(text)
            data["shape"] = tuple(int(v) for v in data.get("shape", (1, 64, 64)))
            job = cls(**data)
        except (ValueError, TypeError) as exc:
            raise UsageError(f"not a warm-up job: {text[:80]!r} ({exc})") from exc
        if job.kind not in KINDS:
            raise UsageError(f"warm-up job kind {job.kind!r}: use one of {', '.join(KINDS)}")
        return job


def worker_command(jobs: Sequence[WarmJob]) -> list[str]:
    """The command line of a worker process that runs ``jobs`` in order."""
    return [sys.executable, "-m", "tensorca.warmup", *(job.to_json() for job in jobs)]


#: The environment variable naming a lock file the worker removes when it exits.
LOCK_ENV = "TENSORCA_WARM_LOCK"


def start_worker(jobs: Sequence[WarmJob], *, detach: bool = False, lock: os.PathLike | None = None) -> subprocess.Popen:
    """A worker process running ``jobs``; one JSON line per finished job on its stdout.
    ``detach``: its own session, so it finishes its compile even after this process exits (the
    next process finds the kernels in the cache). ``lock``: a file the worker removes as it exits."""
    # A worker never starts workers of its own, and compiles the kernels an idle run would use.
    env = dict(os.environ, TENSORCA_BACKGROUND_COMPILE="0", TENSORCA_ASSUME_IDLE="1")
    if lock is not None:
        env[LOCK_ENV] = str(lock)
    return subprocess.Popen(worker_command(jobs), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=detach, env=env)


__all__ = ["KINDS", "LOCK_ENV", "WarmJob", "start_worker", "worker_command"]
