"""nbval over the notebooks alone (``pytest notebooks/06_bayesian_cd_ate.ipynb``, without tests/)
gets the test suite's set-up too (tests/conftest.py): the kit's numerical environment before
anything imports numpy, and tables and figures written to a temporary folder, never over the
committed figures/ (the kernel inherits both).

nbval's kernels run without jupyter_client's heartbeat channel: their manager tells whether the
kernel lives (it watches the process), so the heartbeat adds nothing, and once it hung a run. On
2026-12-01 ``make test`` stopped at 98%: an xdist worker waited in nbval's teardown of a notebook
(``HBChannel.stop`` joining the heartbeat's thread), whose thread was blocked in the ``send`` of its
ping (jupyter_client 8.10.0, pyzmq 27.3.0), with both cores idle for minutes, until the run was killed."""

import functools

import causaleval  # noqa: F401,I001  (first: causaleval.numenv)

import nbval.kernel

from causaleval import paths

paths.scratch_figures()


class _ManagerWithoutHeartbeat(nbval.kernel.KernelManager):
    """nbval's kernel manager whose clients start every channel but the heartbeat."""

    def client(self, **kwargs):
        kc = super().client(**kwargs)
        kc.start_channels = functools.partial(kc.start_channels, hb=False)
        return kc


nbval.kernel.KernelManager = _ManagerWithoutHeartbeat
