"""nbval's kernels under the test suite start without jupyter_client's heartbeat channel
(notebooks/conftest.py, whose docstring says why: its thread once blocked and hung a run), and a
kernel started so is still seen alive, and stops."""

import importlib.util

import nbval.kernel

from causaleval import paths


def test_nbvals_kernels_start_every_channel_but_the_heartbeat_and_stop():
    spec = importlib.util.spec_from_file_location("notebooks_conftest", paths.NOTEBOOKS / "conftest.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))  # as pytest does for the notebooks
    kernel = nbval.kernel.RunningKernel(nbval.kernel.CURRENT_ENV_KERNEL_NAME, cwd=str(paths.NOTEBOOKS))
    try:
        assert kernel.is_alive()
        assert kernel.kc.shell_channel.is_alive() and kernel.kc.iopub_channel.is_alive()
        assert not kernel.kc.hb_channel.is_alive()  # never started: no thread to join at teardown
    finally:
        kernel.stop()
