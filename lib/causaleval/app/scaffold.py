"""``causaleval new NAME --paper "Author et al. 2026" [--dir DIR]``: a new study of a user's own.

A user's study lives in a folder of theirs (``DIR``, default ``./studies`` of the working
directory, where the command line and the report find it: :func:`causaleval.paths.study_dirs`),
never inside ``lib/causaleval``, so the kit's hash and caches stay as they are. Written from the
skeletons in ``causaleval/templates/``, on the kit's public building blocks (:mod:`causaleval.api`):

* ``NN_NAME.ipynb`` (NN: one more than the highest study number anywhere): a title cell, a typed
  and commented ``parameters`` cell (``plugins`` included), one section per reproduced item and
  the agreement section, which writes the ``agreement`` and ``claims`` tables the report reads;
* ``NN_NAME.params.yaml``, the parameters' declared types (:mod:`causaleval.params`);
* ``study_NAME.py``, the pipeline as functions; ``test_NAME.py``, its test;
* ``paper_values/NAME_table1.csv``, a placeholder for the paper's numbers;
* an entry in ``REFERENCES.md`` and ``references.bib`` of the folder (created when missing).

The notebook is then executed in place (``--no-run`` skips it), so it is stored with its outputs.
Existing files are never overwritten.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path
from string import Template

import nbformat

from causaleval import paths
from causaleval.app.kernel import DISPLAY_NAME, NAME as KERNEL

NAME = re.compile(r"[a-z][a-z0-9_]*")
_CELL = re.compile(r"^# %%(?: \[(?P<kind>markdown)\])?(?: tags=\[(?P<tags>[^\]]*)\])?$", re.M)


def _template(template: str, **values: str) -> str:
    return Template((files("causaleval") / "templates" / template).read_text()).substitute(values)


def notebook_from_percent(text: str) -> nbformat.NotebookNode:
    """Cells from the ``# %%`` (code) and ``# %% [markdown]`` markers of a percent-format
    script; ``tags=["a", "b"]`` after a marker tags the cell; markdown lines lose ``# ``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": DISPLAY_NAME, "language": "python", "name": KERNEL}
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


def next_number(folders: list[Path]) -> int:
    numbers = [int(p.name[:2]) for folder in folders for p in folder.glob("[0-9][0-9]_*.ipynb")]
    return max(numbers, default=0) + 1


def new_study(name: str, paper: str, title: str | None = None, folder: Path | None = None) -> dict[str, Path]:
    """Write the new study's files into ``folder`` (default ``./studies``) and return them by role.

    Raises ValueError for a name that is not a lowercase identifier, a name any study already
    has, a blank paper, a folder inside the kit's package, or any target file that exists already
    (nothing is written then)."""
    if not NAME.fullmatch(name):
        raise ValueError(f"study name {name!r}: expected lowercase letters, digits and _, "
                         "starting with a letter (it becomes a module name)")
    if not paper.strip():
        raise ValueError("--paper: expected the paper's short citation, e.g. 'Author et al. 2026'")
    folder = (folder or Path.cwd() / "studies").resolve()
    if folder == paths.KIT.resolve() or paths.KIT.resolve() in folder.parents:
        raise ValueError(f"--dir {folder}: a user's study lives outside the kit's package {paths.display(paths.KIT)}")
    known = [d for d in [*paths.study_dirs(), folder] if d.is_dir()]
    taken = [p for d in known for p in d.glob(f"[0-9][0-9]_{name}.ipynb")]
    if taken:
        raise ValueError(f"study {name!r} exists already: {paths.display(taken[0])}")
    number = next_number(known)
    if number > 99:
        raise ValueError("studies are numbered 01-99 and 99 is taken")
    stem = f"{number:02d}_{name}"
    values = dict(name=name, stem=stem, number=str(number), paper=paper.strip(),
                  title=(title or name.replace("_", " ").capitalize()).strip())
    targets = {
        "notebook": folder / f"{stem}.ipynb",
        "schema": folder / f"{stem}.params.yaml",
        "module": folder / f"study_{name}.py",
        "paper_values": folder / "paper_values" / f"{name}_table1.csv",
        "test": folder / f"test_{name}.py",
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
    for role, template, header in (("references", "references.md.tmpl", "# References\n"),
                                   ("bibtex", "references.bib.tmpl", "")):
        target = folder / ("REFERENCES.md" if role == "references" else "references.bib")
        before = target.read_text() if target.exists() else header
        target.write_text(before + _template(template, **values))
        targets[role] = target
    return targets
