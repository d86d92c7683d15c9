"""The ``causaleval`` command's entry point (``python -m causaleval`` and the console script; the
commands are in :mod:`causaleval.app.cli`). SIGTERM and SIGHUP stop the command as Ctrl-C does from
the moment this module runs, also outside a run's own handling (while the command loads, checks its
parameters, or between the studies of ``reproduce``): the kit says so and exits with 130, instead of
Python's default action (the process killed where it stood) or a traceback. Only the package's own
import, which comes first (about 0.3 s: numba), is left to the default action. A SIGHUP that the
command inherits as ignored (``nohup``) stays ignored."""

from __future__ import annotations

import signal
import sys
from typing import Any


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP (a scheduler, ``timeout``, a closed terminal): stop as Ctrl-C does."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signal = signal.Signals(signum).name


def stop_signals() -> tuple[int, ...]:
    """The signals that stop the command: SIGTERM, SIGHUP (unless ignored, as under ``nohup``) and SIGINT."""
    hangup = () if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN else (signal.SIGHUP,)
    return (signal.SIGTERM, *hangup, signal.SIGINT)


def raise_stop(signum: int, frame: Any = None) -> None:
    """Raise the stop of ``signum``: :class:`Stopped`, or KeyboardInterrupt for SIGINT."""
    raise Stopped(signum) if signum != signal.SIGINT else KeyboardInterrupt()


def main(argv: list[str] | None = None) -> int:
    """Run :func:`causaleval.app.cli.main` with the stop signals raising (module notes)."""
    for signum in stop_signals():
        if signum != signal.SIGINT:  # Python raises KeyboardInterrupt for SIGINT already
            signal.signal(signum, raise_stop)
    try:
        from causaleval.app.cli import main as commands

        return commands(argv)
    except KeyboardInterrupt as err:
        print(f"causaleval: stopped ({getattr(err, 'signal', 'SIGINT')})", file=sys.stderr)
        return 130
