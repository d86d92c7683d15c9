"""Where the kit reads and writes, resolved from one place.

``CAUSALEVAL_FIGURES`` overrides the root that figures and tables go to (the test
suite points it at a temporary folder so nbval never rewrites ``figures/``);
``CAUSALEVAL_CACHE`` the folder of cached trial tables.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
DATA = ROOT / "data"
PAPER_VALUES = DATA / "paper_values"
RUNS = ROOT / "runs"


def cache_root() -> Path:
    """Where studies cache their trial tables (``CAUSALEVAL_CACHE`` overrides ``runs/cache``)."""
    return Path(os.environ.get("CAUSALEVAL_CACHE", RUNS / "cache"))


def figures_root() -> Path:
    return Path(os.environ.get("CAUSALEVAL_FIGURES", ROOT / "figures"))


def display(path: Path) -> str:
    """A path relative to the project root when it lies inside it (for printing)."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return Path(path).name
