"""``python -m causaleval``: see :mod:`causaleval.app.cli`."""

import sys

from causaleval.app.cli import main

sys.exit(main())
