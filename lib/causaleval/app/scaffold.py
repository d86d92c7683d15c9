"""``causaleval new NAME --paper "Author et al. 2026"``: a new study on the kit's conventions.

Writes, from the skeletons in ``causaleval/templates/``:

* ``notebooks/NN_NAME.ipynb`` (NN: one more than the highest study number): a title cell, a
  typed and commented ``parameters`` cell (``plugins`` included), the standard imports, one
  section per reproduced item and the agreement section, which writes the ``agreement`` and
  ``claims`` tables the report's front page reads;
* ``notebooks/NN_NAME.params.yaml``, the parameters' declared types (:mod:`causaleval.params`);
* ``lib/causaleval/studies/NAME.py``, the pipeline as functions;
* ``data/paper_values/NAME_table1.csv``, a placeholder for the paper's numbers;
* ``tests/test_study_NAME.py``.

The CLI and ``make reproduce`` find studies by their notebooks, so nothing else registers
the study. The notebook is then executed in place (``--no-run`` skips it), so it is stored
with its outputs and passes nbval unchanged. Existing files are never overwritten.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path
from string import Template

import nbformat

from causaleval import paths

NAME = re.compile(r"[a-z][a-z0-9_]*")
_CELL = re.compile(r"^# %%(?: \[(?P<kind>markdown)\])?(?: tags=\[(?P<tags>[^\]]*)\])?$", re.M)


def _template(template: str, **values: str) -> str:
    return Template((files("causaleval") / "templates" / template).read_text()).substitute(values)


def notebook_from_percent(text: str) -> nbformat.NotebookNode:
    """Cells from the ``# %%`` (code) and ``# %% [markdown]`` markers of a percent-format
    script; ``tags=["a", "b"]`` after a marker tags the cell; markdown lines lose ``# ``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    marks = list(_CELL.finditer(text))
    for mark, following in zip(marks, marks[1:] + [None]):
        body = text[mark.end():following.start() if following else len(text)].strip("\n")
        tags = re.findall(r'"([^"]+)"', mark["tags"] or "")
        if mark["kind"] == "markdown":
            body = "\n".join(re.sub(r"^# ?", "", line) for line in body.splitlines())
            cell = nbformat.v4.new_markdown_cell(body)
        else:
            cell = nbformat.v4.new_code_cell(body)
        cell.metadata["tags"] = tags
        nb.cells.append(cell)
    return nb


def next_number(notebooks: Path) -> int:
    numbers = [int(p.name[:2]) for p in notebooks.glob("[0-9][0-9]_*.ipynb")]
    return max(numbers, default=0) + 1


def new_study(name: str, paper: str, title: str | None = None, root: Path = paths.ROOT) -> dict[str, Path]:
    """Write the new study's files under ``root`` and return them by role.

    Raises ValueError for a name that is not a lowercase identifier, a study that exists, a
    blank paper, or any target file that exists already (nothing is written then)."""
    if not NAME.fullmatch(name):
        raise ValueError(f"study name {name!r}: expected lowercase letters, digits and _, "
                         "starting with a letter (it becomes a module name)")
    if not paper.strip():
        raise ValueError("--paper: expected the paper's short citation, e.g. 'Author et al. 2026'")
    notebooks = root / "notebooks"
    if list(notebooks.glob(f"[0-9][0-9]_{name}.ipynb")):
        raise ValueError(f"study {name!r} exists already in {notebooks}")
    number = next_number(notebooks)
    if number > 99:
        raise ValueError("studies are numbered 01-99 and 99 is taken")
    stem = f"{number:02d}_{name}"
    values = dict(name=name, stem=stem, number=str(number), paper=paper.strip(),
                  title=(title or name.replace("_", " ").capitalize()).strip())
    targets = {
        "notebook": notebooks / f"{stem}.ipynb",
        "schema": notebooks / f"{stem}.params.yaml",
        "module": root / "lib" / "causaleval" / "studies" / f"{name}.py",
        "paper_values": root / "data" / "paper_values" / f"{name}_table1.csv",
        "test": root / "tests" / f"test_study_{name}.py",
    }
    existing = [str(p) for p in targets.values() if p.exists()]
    if existing:
        raise ValueError(f"study {name!r}: refusing to overwrite {', '.join(existing)}")
    texts = {
        "schema": _template("params.yaml.tmpl", **values),
        "module": _template("study.py.tmpl", **values),
        "paper_values": _template("paper_values.csv.tmpl", **values),
        "test": _template("test_study.py.tmpl", **values),
    }
    for role, text in texts.items():
        targets[role].parent.mkdir(parents=True, exist_ok=True)
        targets[role].write_text(text)
    nbformat.write(notebook_from_percent(_template("notebook.py.tmpl", **values)), targets["notebook"])
    return targets
