"""``python -m vizad``: see :mod:`vizad.cli`."""

import sys

from vizad.cli import main

sys.exit(main())
