"""``python -m tensorca.examples``: list the examples, one line each (torch is not imported)."""

from __future__ import annotations

from . import EXAMPLES


def main() -> int:
    """Print each example's run command and description."""
    width = max(len(name) for name, _ in EXAMPLES)
    for name, description in EXAMPLES:
        print(f"python -m tensorca.examples.{name:<{width}}  {description}")
    print("add --quick for a run of seconds, --help for the options; they need: pip install 'tensorca[torch]'")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
