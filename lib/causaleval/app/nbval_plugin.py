"""pytest plugin (``-p causaleval.app.nbval_plugin``): nbval's kernels start without jupyter_client's
heartbeat channel (:mod:`causaleval.app.heartless` says why). ``make test`` loads it through
``pyproject.toml``'s ``addopts``; ``causaleval test`` through its command line
(:func:`causaleval.app.usertest.pytest_command`)."""

from __future__ import annotations

import nbval.kernel

from causaleval.app.heartless import WithoutHeartbeat


class ManagerWithoutHeartbeat(WithoutHeartbeat, nbval.kernel.KernelManager):
    """nbval's kernel manager whose clients start every channel but the heartbeat."""


nbval.kernel.KernelManager = ManagerWithoutHeartbeat
