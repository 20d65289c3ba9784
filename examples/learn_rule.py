"""Moved into the package: run ``python -m tensorca.examples.learn_rule`` (``--help`` for its options).

This file only forwards to it, so ``python examples/learn_rule.py ...`` keeps working from a checkout.
"""

import runpy

if __name__ == "__main__":
    runpy.run_module("tensorca.examples.learn_rule", run_name="__main__", alter_sys=True)
