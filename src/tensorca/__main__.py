"""``python -m tensorca``: the same as the ``tensorca`` command."""

import sys

from .cli import main

sys.exit(main())
