"""Runnable examples that ship with the package: ``python -m tensorca.examples.<name>``.

Each example is one module with a ``main(argv)`` and an argparse ``--help``; ``--quick`` runs it at
small sizes for a few steps (seconds on a CPU), without it the full run. They need PyTorch (the
``[torch]`` extra): without it each exits with one line naming ``pip install 'tensorca[torch]'``.
``python -m tensorca.examples`` lists them. Importing this package does not import torch.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from ..arrays import TORCH_INSTALL
from ..errors import MissingDependencyError, TensorcaError

#: ``(module name, one-line description)`` of each example, in the order ``python -m tensorca.examples`` lists them.
EXAMPLES: tuple[tuple[str, str], ...] = (
    ("grow_nca", "grow a neural cellular automaton into a target image (the Distill recipe)"),
    ("fit_lenia", "recover Lenia's growth parameters m and s from a recorded trajectory, by gradient"),
    ("learn_rule", "learn a cellular automaton's rule from data with a small convolutional net"),
)

__all__ = ["EXAMPLES", "require_torch", "run_main"]


def _program(name: str) -> str:
    return f"python -m tensorca.examples.{name}"


def require_torch(name: str, as_script: bool) -> None:
    """Check that torch imports, before an example imports it.

    Without torch: as a script (``as_script``, the module's ``__name__ == "__main__"``) print one line
    ``python -m tensorca.examples.<name>: error: ...`` on stderr and exit 2; imported, raise
    :class:`~tensorca.errors.MissingDependencyError`.
    """
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        error = MissingDependencyError(f"the example {name} needs PyTorch, which is not importable here ({exc})",
                                       package="torch", install=TORCH_INSTALL)
        if not as_script:
            raise error from None
        print(f"{_program(name)}: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def run_main(name: str, main: Callable[[Sequence[str] | None], int]) -> None:
    """Run an example's ``main`` as a script: exit with its status, a tensorca error as one line (status 2)."""
    try:
        status = main(None)
    except TensorcaError as exc:
        print(f"{_program(name)}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print(f"{_program(name)}: interrupted", file=sys.stderr)
        status = 130
    raise SystemExit(status)
