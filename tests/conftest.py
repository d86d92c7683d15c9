"""Test-suite set-up: tables and figures written by the notebooks under nbval go to a
temporary folder (never over the committed figures/), and the kernel inherits that."""

import os
import tempfile

import pytest

os.environ.setdefault("CAUSALEVAL_FIGURES", tempfile.mkdtemp(prefix="causaleval-figures-"))
os.environ.setdefault("RAYON_NUM_THREADS", "1")


@pytest.fixture
def asia_edges():
    return ["asia->tub", "smoke->lung", "smoke->bronc", "tub->either", "lung->either",
            "either->xray", "either->dysp", "bronc->dysp"]
