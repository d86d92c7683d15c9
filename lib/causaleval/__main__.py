"""``python -m causaleval``: see :mod:`causaleval.app.cli`. SIGTERM and SIGHUP stop the command as
Ctrl-C does, also outside a run's own handling (while the command loads, checks parameters, or
between the studies of ``reproduce``): the kit says so and exits with 130, instead of Python's default
action (the process killed where it stood) or a traceback. Only the package's own import, which
``python -m`` runs before this module (about 0.3 s: numba), is left to the default action."""

import signal
import sys


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


for _signum in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(_signum, _stop)
try:
    from causaleval.app.cli import main

    code = main()
except KeyboardInterrupt as err:
    print(f"causaleval: stopped ({err or 'SIGINT'})", file=sys.stderr)  # a staging folder left: the next run removes it
    code = 130
sys.exit(code)
