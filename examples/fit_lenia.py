"""Moved into the package: run ``python -m tensorca.examples.fit_lenia`` (``--help`` for its options).

This file only forwards to it, so ``python examples/fit_lenia.py ...`` keeps working from a checkout.
"""

import runpy

if __name__ == "__main__":
    runpy.run_module("tensorca.examples.fit_lenia", run_name="__main__", alter_sys=True)
