"""A run's errors with the run in their message: the rule, topology, cell shape and engine a
:class:`~tensorca.errors.TensorcaError` was raised under (:func:`engine_context`), for the in-memory
runs (:mod:`.api`) and the out-of-core ones (:mod:`.lazy`) alike."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..errors import TensorcaError
from ..rules.base import Rule
from ..topology import Topology


def with_context(exc: TensorcaError, context: str) -> TensorcaError:
    """A copy of ``exc`` (same type and attributes) whose message ends with ``context``."""
    text = f"{exc} ({context})"
    # BaseException's own reduction, as copy.copy did until a library registers exception reducers
    # (dask's tblib), whose copies fail for exceptions with two built-in bases (MemoryBudgetError).
    cls, args, *state = BaseException.__reduce__(exc)
    new = cls(*args)
    if state and state[0]:
        new.__dict__.update(state[0])
    new.args = (text,)
    if isinstance(new, ImportError):
        new.msg = text  # ImportError.__str__ reads msg, not args
    new.run_context = context  # type: ignore[attr-defined]
    return new


@contextlib.contextmanager
def engine_context(rule: Rule, topology: Topology, shape: tuple[int, ...], engine: str) -> Iterator[None]:
    """Re-raise a :class:`TensorcaError` from the block with the run's rule, topology, shape and engine."""
    try:
        yield
    except TensorcaError as exc:
        if getattr(exc, "run_context", None) is not None:
            raise
        where = "the unbounded plane" if not topology.bounded else f"topology {topology}"
        context = f"running rule {rule.canonical()} on {where}, cells of shape {shape}, engine {engine}"
        raise with_context(exc, context) from exc
