"""``python -m vizad``: see :mod:`vizad.cli`."""

import sys

from .cli import main

sys.exit(main())
