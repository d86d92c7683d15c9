"""Where the kit reads and writes, resolved from one place.

``CAUSALEVAL_FIGURES`` overrides the root that the tables and figures of runs at the
notebooks' defaults go to (``figures/``; the test suite points it at a temporary folder
so nbval never rewrites ``figures/``); ``CAUSALEVAL_CACHE`` the folder of cached trial
tables. Runs with other parameters go to ``runs/`` (see :func:`causaleval.report.output_dir`).
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "lib" / "causaleval"
NOTEBOOKS = ROOT / "notebooks"
DATA = ROOT / "data"
PAPER_VALUES = DATA / "paper_values"
RUNS = ROOT / "runs"


def cache_root() -> Path:
    """Where studies cache their trial tables (``CAUSALEVAL_CACHE`` overrides ``runs/cache``)."""
    return Path(os.environ.get("CAUSALEVAL_CACHE", RUNS / "cache"))


def figures_root() -> Path:
    """Where runs at the defaults write (``CAUSALEVAL_FIGURES`` overrides ``figures/``)."""
    return Path(os.environ.get("CAUSALEVAL_FIGURES", ROOT / "figures"))


def study_notebook(study: str) -> Path | None:
    """``notebooks/<study>.ipynb``, or ``notebooks/NN_<study>.ipynb`` for a study named
    without its number; None when there is no such notebook."""
    exact = NOTEBOOKS / f"{study}.ipynb"
    if exact.exists():
        return exact
    numbered = sorted(NOTEBOOKS.glob(f"[0-9][0-9]_{study}.ipynb"))
    return numbered[0] if len(numbered) == 1 else None


def display(path: Path) -> str:
    """A path relative to the project root when it lies inside it (for printing)."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return Path(path).name
