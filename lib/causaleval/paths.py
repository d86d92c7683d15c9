"""Where the kit reads and writes, resolved from one place.

Runs, caches and the report go to ``runs/`` of the folder the command is run from (the kit's
own ``runs/`` when that folder lies inside the kit's clone; :func:`default_runs`);
``CAUSALEVAL_RUNS`` names another folder. Study notebooks are found in the kit's ``notebooks/`` and in a user's own
study folders (:func:`study_dirs`: each folder of ``CAUSALEVAL_STUDIES``, then ``./studies`` of the working
directory), so a user's study never lives inside the kit. ``CAUSALEVAL_FIGURES`` overrides the
root that the tables and figures of the kit's runs at the notebooks' defaults go to (``figures/``; the test suite points
it at a temporary folder so nbval never rewrites ``figures/``); ``CAUSALEVAL_CACHE`` the folder of cached trial
tables. Runs with other parameters go to ``runs/`` (see :func:`causaleval.report.output_dir`).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "lib" / "causaleval"
NOTEBOOKS = ROOT / "notebooks"
DATA = ROOT / "data"
PAPER_VALUES = DATA / "paper_values"


def default_runs(cwd: Path | None = None) -> Path:
    """``runs/`` of the working directory, or the kit's ``runs/`` when the working directory lies
    inside the kit's clone (so a user's work stays with the user and the kit's with the kit)."""
    here = (cwd or Path.cwd()).resolve()
    inside = here == ROOT or ROOT in here.parents
    return ROOT / "runs" if inside else here / "runs"


RUNS = Path(os.environ.get("CAUSALEVAL_RUNS") or default_runs()).resolve()  # run folders, the report, caches


def cache_root() -> Path:
    """Where studies cache their trial tables (``CAUSALEVAL_CACHE`` overrides ``runs/cache``)."""
    return Path(os.environ.get("CAUSALEVAL_CACHE", RUNS / "cache"))


def figures_root() -> Path:
    """Where runs at the defaults write (``CAUSALEVAL_FIGURES`` overrides ``figures/``)."""
    return Path(os.environ.get("CAUSALEVAL_FIGURES", ROOT / "figures"))


def scratch_figures() -> Path:
    """Send tables and figures of runs at the defaults to a temporary folder (``CAUSALEVAL_FIGURES``)
    instead of ``figures/``, as the test suite and nbval do, so that they never write over the committed
    outputs: made once, by the process that first calls this (child processes and kernels inherit the
    variable), and removed when that process ends."""
    return scratch_dir("CAUSALEVAL_FIGURES", "causaleval-figures-")


def scratch_dir(variable: str, prefix: str) -> Path:
    """The folder the environment variable ``variable`` names; when unset, a new temporary folder
    (its name starting ``prefix``) that this process names there, so that child processes and kernels
    inherit it, and removes when it ends."""
    if variable not in os.environ:
        os.environ[variable] = tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, os.environ[variable], ignore_errors=True)
    return Path(os.environ[variable])


def study_dirs() -> list[Path]:
    """Where study notebooks (``NN_<name>.ipynb``) are looked for: the kit's ``notebooks/``, each
    folder of ``CAUSALEVAL_STUDIES`` (separated by ``os.pathsep``), then ``./studies`` of the
    working directory when it exists; each folder once."""
    found = [NOTEBOOKS]
    extra = [Path(p) for p in os.environ.get("CAUSALEVAL_STUDIES", "").split(os.pathsep) if p]
    for folder in [*extra, Path.cwd() / "studies"]:
        folder = folder.resolve()
        if folder.is_dir() and folder not in found:
            found.append(folder)
    return found


def staged(folder: str | os.PathLike) -> Path:
    """``folder``, or its place in the staging folder while ``causaleval run`` stages it:
    ``CAUSALEVAL_STAGED_OUTPUT`` (``<target><os.pathsep><staging>``, set by the run for its kernel)
    sends what would go to ``<target>`` or below it to ``<staging>``, which the run moves into
    place only when the notebook finished. A relative ``folder`` is the working directory's."""
    folder = Path(folder)
    value = os.environ.get("CAUSALEVAL_STAGED_OUTPUT")
    if not value:
        return folder
    target, _, staging = value.partition(os.pathsep)
    try:
        inside = folder.resolve().relative_to(target)
    except ValueError:
        return folder
    return Path(staging) / inside


def is_user_study(notebook: Path) -> bool:
    """A notebook outside the kit's ``notebooks/`` (a user's own study)."""
    return notebook.resolve().parent != NOTEBOOKS.resolve()


def study_figures(notebook: Path) -> Path:
    """Where a study writes at its defaults: ``<root>/<stem>``, the root being ``CAUSALEVAL_FIGURES``
    when set, else the kit's ``figures/`` for the kit's studies and ``<the study's folder>/figures``
    for a user's own."""
    if "CAUSALEVAL_FIGURES" in os.environ or not is_user_study(notebook):
        return figures_root() / notebook.stem
    return notebook.parent / "figures" / notebook.stem


def study_notebook(study: str) -> Path | None:
    """The notebook ``<study>.ipynb``, or ``NN_<study>.ipynb`` for a study named without its number,
    in the first folder of :func:`study_dirs` that holds it; None when there is none."""
    for folder in study_dirs():
        exact = folder / f"{study}.ipynb"
        if exact.exists():
            return exact
        numbered = sorted(folder.glob(f"[0-9][0-9]_{study}.ipynb"))
        if len(numbered) == 1:
            return numbered[0]
    return None


def shown(path: Path | str) -> str:
    """A path as the user can type it from where they stand: relative to the working directory
    when it lies inside it, else absolute (for every path printed to the user)."""
    full = Path(path).resolve()
    try:
        return str(full.relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(full)


def display(path: Path) -> str:
    """A path relative to the project root when it lies inside it, else its name (recorded in
    notebooks and provenance, so they name no folder of the machine; :func:`shown` is for printing)."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return Path(path).name
