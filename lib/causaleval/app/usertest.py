"""``causaleval test [PATH]``: a user's studies tested as ``make test`` tests the kit's.

pytest over ``PATH`` (default ``./studies``) with the kit's nbval settings: every ``test_*.py``
(the unit tests ``causaleval new`` writes) and every notebook, executed in lax mode with the cells
tagged ``nbval-check-output`` compared with their stored outputs, masked by the kit's
``tests/nbval_sanitize.cfg`` (addresses, timings, progress bars, paths), their kernels without the
heartbeat channel (:mod:`causaleval.app.nbval_plugin`). As under ``make test``, the
notebooks' tables and figures go to a temporary folder (``CAUSALEVAL_FIGURES``), never over the
study's own ``figures/``, and the kernel finds the studies of ``PATH`` (``CAUSALEVAL_STUDIES``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from causaleval import paths

#: the kit's masks for outputs that change from run to run
SANITIZE = paths.ROOT / "tests" / "nbval_sanitize.cfg"


def pytest_command(folder: Path, jobs: int = 1) -> list[str]:
    """The pytest command line for ``folder`` (the kit's ``addopts`` of ``pyproject.toml``, without
    its ``testpaths``); ``jobs`` > 1 runs on that many xdist workers, each notebook on one."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--rootdir={folder}",
               "-o", "addopts=", "-o", "testpaths=", "-p", "causaleval.app.nbval_plugin", "--nbval-lax",
               "--nbval-current-env", "--nbval-cell-timeout=1800"]
    if SANITIZE.is_file():
        command.append(f"--nbval-sanitize-with={SANITIZE}")
    command += ["-n", str(jobs), "--dist", "loadscope"] if jobs > 1 else ["-p", "no:xdist"]
    return [*command, str(folder)]


def run_tests(folder: Path | None = None, jobs: int = 1, extra: list[str] | None = None) -> int:
    """Run pytest on ``folder`` (default ``./studies``) and return its exit status. Raises
    ValueError when the folder is missing or holds neither a notebook nor a test."""
    folder = (folder or Path.cwd() / "studies").resolve()
    if not folder.is_dir():
        raise ValueError(f"test: {paths.shown(folder)} is not a folder (expected your studies' folder, "
                         "e.g. the ./studies that `causaleval new` writes)")
    if not list(folder.glob("*.ipynb")) and not list(folder.glob("test_*.py")):
        raise ValueError(f"test: {paths.shown(folder)} holds no notebook (*.ipynb) and no test (test_*.py)")
    if jobs < 1:
        raise ValueError(f"test: --jobs {jobs}: expected a number of workers >= 1")
    studies = os.pathsep.join(filter(None, [str(folder), os.environ.get("CAUSALEVAL_STUDIES")]))
    with tempfile.TemporaryDirectory(prefix="causaleval-test-figures-") as figures:
        env = {**os.environ, "CAUSALEVAL_FIGURES": figures, "CAUSALEVAL_STUDIES": studies,
               "CAUSALEVAL_RUNS": str(paths.RUNS)}
        return subprocess.run([*pytest_command(folder, jobs), *(extra or [])], cwd=folder, env=env).returncode
