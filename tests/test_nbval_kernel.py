"""Every kernel the kit starts and talks to itself starts without jupyter_client's heartbeat channel
(causaleval.app.heartless, whose docstring says why: its thread once blocked and hung a run): nbval's
under ``make test`` and ``causaleval test`` (causaleval.app.nbval_plugin) and papermill's under
``causaleval run`` (cli's guarded manager, which stops the clients it made: one left running, its zmq
context destroyed by the garbage collector, hung a run); a kernel started so is still seen alive, and stops."""

import os

import nbval.kernel

from causaleval import paths
from causaleval.app import cli, usertest
from causaleval.app.kernel import NAME as KERNEL, ensure_kernelspec


def _alive_without_heartbeat(kc, is_alive) -> None:
    assert is_alive()
    assert kc.shell_channel.is_alive() and kc.iopub_channel.is_alive()
    assert not kc.hb_channel.is_alive()  # never started: no thread to join at teardown


def test_nbvals_kernels_start_every_channel_but_the_heartbeat_and_stop(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("causaleval.app.nbval_plugin")  # as pyproject's addopts ask
    kernel = nbval.kernel.RunningKernel(nbval.kernel.CURRENT_ENV_KERNEL_NAME, cwd=str(paths.NOTEBOOKS))
    try:
        _alive_without_heartbeat(kernel.kc, kernel.is_alive)
    finally:
        kernel.stop()
    assert not kernel.is_alive()


def test_causaleval_test_loads_the_plugin(tmp_path):
    command = usertest.pytest_command(tmp_path)
    assert command[command.index("causaleval.app.nbval_plugin") - 1] == "-p"


def test_the_runners_kernel_starts_every_channel_but_the_heartbeat_and_stops(tmp_path):
    ensure_kernelspec()
    km = cli._guarded_kernel_manager(KERNEL, ip=os.path.join(tmp_path, "kernel"))
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        _alive_without_heartbeat(kc, kc.is_alive)
    finally:
        km.stop_clients()  # as the runner does: papermill leaves the client it made running
        km.shutdown_kernel(now=True)
        km.release_watchdog()
    assert not km.is_alive() and not kc.shell_channel.is_alive() and kc.context.closed
