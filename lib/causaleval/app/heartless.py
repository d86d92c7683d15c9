"""Kernel clients without jupyter_client's heartbeat channel, for every kernel the kit starts and
talks to itself: papermill's (``causaleval run`` and ``reproduce``, :mod:`causaleval.app.cli`) and
nbval's (``causaleval test`` and ``make test``, through :mod:`causaleval.app.nbval_plugin`).

The manager that starts such a kernel watches its process, and a client a manager made asks the
manager whether the kernel lives (jupyter_client's ``KernelClient.is_alive``), so the heartbeat adds
nothing there; and once it hung a run. On 2026-12-01 ``make test`` stopped at 98%: an xdist worker
waited in nbval's teardown of a notebook (``HBChannel.stop`` joining the heartbeat's thread), whose
thread was blocked in the ``send`` of its ping (jupyter_client 8.10.0, pyzmq 27.3.0), with both cores
idle for minutes, until the run was killed. JupyterLab's server (``causaleval lab``) keeps its own
heartbeat: it restarts kernels that stop answering.
"""

from __future__ import annotations

import functools
from typing import Any


class WithoutHeartbeat:
    """Mixin for a ``jupyter_client`` kernel manager (before it among the bases): its clients start
    every channel but the heartbeat, and :meth:`stop_clients` stops them.

    Whoever starts a client's channels must stop them (papermill, given a manager, leaves them
    running): a client's running heartbeat thread holds its zmq context, but without one an
    unstopped client's context is destroyed by the garbage collector, whenever it runs, and that
    blocked a run's export of its HTML (measured: ``causaleval run`` hung there for minutes)."""

    def client(self, **kwargs: Any) -> Any:
        kc = super().client(**kwargs)  # type: ignore[misc]
        kc.start_channels = functools.partial(kc.start_channels, hb=False)
        self.__dict__.setdefault("_clients", []).append(kc)
        return kc

    def stop_clients(self) -> None:
        """Stop the channels of every client this manager made (which closes their zmq contexts)."""
        for kc in self.__dict__.pop("_clients", []):
            kc.stop_channels()
