"""One package per study notebook: the study's pipeline as functions (``__init__.py``, in the
notebook's order) and files by concern, so the notebook stays a readable narrative and the tests
call the same code. :func:`studies` is the list of studies that the command line and the report
read."""

from __future__ import annotations

import re
from pathlib import Path

from causaleval import paths

_NOTEBOOK = re.compile(r"^\d\d_(?P<name>\w+)\.ipynb$")

#: runs of the kit's studies on a paper's own data file, which the kit may not ship (its licence is
#: unknown): (study, folder under the study's figures, parameters, KDL domain whose file it needs).
#: ``make reproduce`` runs each when the file is there (:func:`causaleval.datasets.kdl.kdl_path`).
PAPER_DATA_RUNS = (
    ("software_tvd", "kdl_jdk", {"source": "kdl", "domains": ["jdk"]}, "jdk"),
    ("over_under_specification", "kdl_jdk", {"source": "kdl", "domains": ["jdk"]}, "jdk"),
)


def studies() -> dict[str, Path]:
    """Study name -> notebook path: the kit's notebooks, then a user's (``NN_<name>.ipynb`` in each
    folder of :func:`causaleval.paths.study_dirs`). A user's study may not take a name already
    taken (the error names both notebooks)."""
    found: dict[str, Path] = {}
    for folder in paths.study_dirs():
        for path in sorted(folder.glob("*.ipynb")):
            match = _NOTEBOOK.match(path.name)
            if not match:
                continue
            if match["name"] in found:
                raise ValueError(f"study {match['name']!r} is defined twice: {paths.display(found[match['name']])} "
                                 f"and {paths.display(path)}; rename one of them")
            found[match["name"]] = path
    return found
