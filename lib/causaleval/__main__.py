"""``python -m causaleval``: see :mod:`causaleval.cli`."""

import sys

from causaleval.cli import main

sys.exit(main())
