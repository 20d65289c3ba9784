"""Moved into the package: run ``python -m tensorca.examples.grow_nca`` (``--help`` for its options).

This file only forwards to it, so ``python examples/grow_nca.py ...`` keeps working from a checkout.
"""

import runpy

if __name__ == "__main__":
    runpy.run_module("tensorca.examples.grow_nca", run_name="__main__", alter_sys=True)
