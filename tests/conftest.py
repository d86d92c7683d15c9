"""Test-suite set-up: the kit's numerical environment fixed before anything imports numpy
(``import causaleval``; xdist's workers and nbval's kernels inherit it); tables and figures
written by the notebooks under nbval go to a temporary folder (never over the committed
figures/), and the kernel inherits that; so does one JAX compilation cache for the run."""

import causaleval  # noqa: F401,I001  (first: causaleval.numenv)

import os

import pytest

from causaleval import paths

paths.scratch_figures()
# One JAX compilation cache for the run's processes (xdist's workers, nbval's kernels, the commands the
# tests start inherit it): a program compiles once, not once per process. Removed when the run ends.
paths.scratch_dir("JAX_COMPILATION_CACHE_DIR", "causaleval-jax-cache-")
os.environ.setdefault("RAYON_NUM_THREADS", "1")
# The paper's own KDL files (licence unknown, never in the repository) beside the checkout, when there
_SHARED_KDL = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "kdl")
if os.path.isdir(_SHARED_KDL):
    os.environ.setdefault("CAUSALEVAL_KDL_DIR", os.path.abspath(_SHARED_KDL))


@pytest.fixture(autouse=True)
def _caller_folder_restored():
    """``cli.main`` records the caller's folder in the environment (relative file parameters are read
    from it); a test that calls it in-process must not leave that folder to the tests after it."""
    before = os.environ.get("CAUSALEVAL_CALLER_CWD")
    yield
    if before is None:
        os.environ.pop("CAUSALEVAL_CALLER_CWD", None)
    else:
        os.environ["CAUSALEVAL_CALLER_CWD"] = before


@pytest.fixture
def asia_edges():
    return ["asia->tub", "smoke->lung", "smoke->bronc", "tub->either", "lung->either",
            "either->xray", "either->dysp", "bronc->dysp"]
