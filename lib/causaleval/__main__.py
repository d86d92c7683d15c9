"""``python -m causaleval``: see :mod:`causaleval.app.entry`."""

import sys

from causaleval.app.entry import main

sys.exit(main())
