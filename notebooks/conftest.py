"""nbval over the notebooks alone (``pytest notebooks/06_bayesian_cd_ate.ipynb``, without tests/)
gets the test suite's set-up too (tests/conftest.py): the kit's numerical environment before
anything imports numpy, and tables and figures written to a temporary folder, never over the
committed figures/ (the kernel inherits both). nbval's kernels run without jupyter_client's
heartbeat channel (``pyproject.toml``'s ``addopts`` load :mod:`causaleval.app.nbval_plugin`)."""

import causaleval  # noqa: F401,I001  (first: causaleval.numenv)

from causaleval import paths

paths.scratch_figures()
