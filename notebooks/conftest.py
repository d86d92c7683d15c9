"""nbval over the notebooks alone (``pytest notebooks/06_bayesian_cd_ate.ipynb``, without tests/)
gets the test suite's set-up too (tests/conftest.py): the kit's numerical environment before
anything imports numpy, and tables and figures written to a temporary folder, never over the
committed figures/ (the kernel inherits both)."""

import causaleval  # noqa: F401,I001  (first: causaleval.numenv)

import atexit
import os
import shutil
import tempfile

if "CAUSALEVAL_FIGURES" not in os.environ:  # made once, by the process that starts the run, and removed at its end
    os.environ["CAUSALEVAL_FIGURES"] = tempfile.mkdtemp(prefix="causaleval-figures-")
    atexit.register(shutil.rmtree, os.environ["CAUSALEVAL_FIGURES"], ignore_errors=True)
