"""One package per study notebook: the study's pipeline as functions (``__init__.py``, in the
notebook's order) and files by concern, so the notebook stays a readable narrative and the tests
call the same code. :func:`studies` is the list of studies that the command line and the report
read."""

from __future__ import annotations

import re
from pathlib import Path

from causaleval import paths

_NOTEBOOK = re.compile(r"^\d\d_(?P<name>\w+)\.ipynb$")


def studies() -> dict[str, Path]:
    """Study name -> notebook path, from the files in ``notebooks/``."""
    found = {}
    for path in sorted(paths.NOTEBOOKS.glob("*.ipynb")):
        match = _NOTEBOOK.match(path.name)
        if match:
            found[match["name"]] = path
    return found
