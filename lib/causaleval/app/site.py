"""The facts of the report (:mod:`causaleval.app.book` builds the site from them), read from what
the studies wrote, never from prose:

* the notebook's title;
* the verdicts of the study's ``claims`` table (``<figures>/<study>/claims.csv``): one row per
  paper claim with a ``statement``, a ``verdict`` of :mod:`causaleval.verdicts`' vocabulary and
  its ``evidence``. The count that leads a study's row is of the evidence alone (*holds*,
  *does not hold*, *undecided*); *by construction*, *paper vs itself* and *not tested* rows are
  counted apart;
* the agreement with the paper's cells from ``agreement.csv`` when the study writes one (a
  ``status`` column whose values are counted, e.g. *matches*, *differs, explained*,
  *unexplained*);
* run time (papermill's), and provenance (the code hashes and commit of the stamps);
* the runs under ``runs/<study>/<tag>/`` (``causaleval run`` with options of one's own): each with
  its tag, its options beside the defaults, its verdict counts and provenance, and its executed
  notebook;
* the study's committed runs on other data (``figures/<study>/<variant>/``, e.g. ``kdl_jdk``).

A user's own studies (``./studies``, ``CAUSALEVAL_STUDIES``) appear as the kit's do.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from causaleval import paths

VERDICT_COLUMNS = ("verdict", "holds here")


@dataclass
class StudyPage:
    """What the front page says of one study."""

    name: str
    notebook: Path
    title: str
    duration_s: float | None
    claims: pd.DataFrame | None
    agreement: Counter | None
    provenance: dict[str, Any] | None
    figures: list[Path] = field(default_factory=list)
    runs: list[RunEntry] = field(default_factory=list)
    variants: dict[str, pd.DataFrame] = field(default_factory=dict)  # e.g. kdl_jdk: the run on the paper's own file


@dataclass
class RunEntry:
    """One run of a study under ``runs/<study>/<tag>/``."""

    tag: str
    folder: Path
    options: dict[str, tuple[Any, Any]]  # name -> (value of the run, default)
    claims: pd.DataFrame | None
    provenance: dict[str, Any] | None
    notebook: Path | None  # the executed notebook


def study_runs(name: str, notebook: Path, runs_root: Path) -> list[RunEntry]:
    """The finished runs of a study (``runs/<study>/<tag>/parameters.yaml``; hidden, failed and the
    default tag's folders are left out), each with the options that differ from the notebook's
    defaults."""
    from causaleval import params

    defaults = params.defaults(notebook)
    entries = []
    for folder in sorted((runs_root / name).glob("*/parameters.yaml")):
        folder = folder.parent
        if folder.name.startswith(".") or folder.name.endswith(".failed") or folder.name in ("default", "inplace"):
            continue
        given = yaml.safe_load((folder / "parameters.yaml").read_text()) or {}
        options = {k: (v, defaults.get(k)) for k, v in given.items()
                   if k != "output_dir" and not params._same(v, defaults.get(k))}
        outputs = next((d for d in (folder / "figures", folder / "figures" / notebook.stem)
                        if (d / "claims.csv").exists()), folder / "figures")
        stamps = sorted(outputs.glob("*.provenance.json"))
        executed = folder / notebook.name
        entries.append(RunEntry(folder.name, folder, options, read_claims(outputs),
                                json.loads(stamps[0].read_text()) if stamps else None,
                                executed if executed.exists() else None))
    return entries


def verdict(value: Any) -> str:
    """``holds`` / ``does not hold`` / ``undecided`` / ``not tested`` from a claims table's
    verdict cell (other words are kept, in lower case)."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return "not tested"
    text = str(value).strip().lower()
    if text in ("true", "holds", "yes", "1", "1.0"):
        return "holds"
    if text in ("false", "does not hold", "does not", "no", "0", "0.0"):
        return "does not hold"
    if text in ("", "nan", "not tested", "untested", "none"):
        return "not tested"
    return text


def read_claims(folder: Path) -> pd.DataFrame | None:
    """The study's claims as ``statement``, ``verdict``, ``evidence`` (None without a table)."""
    path = folder / "claims.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path)
    column = next((c for c in VERDICT_COLUMNS if c in table.columns), None)
    missing = [c for c in ("statement", "evidence") if c not in table.columns] + ([] if column else ["verdict"])
    if missing:
        raise ValueError(f"{paths.display(path)}: claims table lacks column(s) {missing}; "
                         f"expected statement, evidence and one of {VERDICT_COLUMNS}")
    return pd.DataFrame({"statement": table["statement"].astype(str),
                         "verdict": table[column].map(verdict),
                         "evidence": table["evidence"].fillna("").astype(str)})


def read_agreement(folder: Path) -> Counter | None:
    path = folder / "agreement.csv"
    if not path.exists():
        return None
    table = pd.read_csv(path)
    if "status" not in table.columns:
        raise ValueError(f"{paths.display(path)}: agreement table lacks a 'status' column")
    return Counter(table["status"].astype(str))


def study_page(name: str, notebook: Path, figures_root: Path | None = None) -> StudyPage:
    """Collect the front-page facts of one executed study notebook (its outputs in
    ``figures_root/<stem>``, by default where the study writes: :func:`causaleval.paths.study_figures`)."""
    nb = json.loads(notebook.read_text())
    title = _title(nb)
    folder = figures_root / notebook.stem if figures_root is not None else paths.study_figures(notebook)
    stamps = sorted(folder.glob("*.provenance.json"))
    return StudyPage(
        name=name, notebook=notebook, title=title,
        duration_s=nb.get("metadata", {}).get("papermill", {}).get("duration"),
        claims=read_claims(folder), agreement=read_agreement(folder),
        provenance=json.loads(stamps[0].read_text()) if stamps else None,
        figures=sorted(folder.glob("*.png")),
        runs=study_runs(name, notebook, paths.RUNS),
        variants={sub.name: read_claims(sub) for sub in sorted(folder.glob("*/")) if (sub / "claims.csv").exists()},
    )


def _title(nb: dict[str, Any]) -> str:
    """The first heading of the notebook's first Markdown cell."""
    first = next((c for c in nb["cells"] if c["cell_type"] == "markdown"), None)
    lines = "".join(first["source"]).splitlines() if first else []
    return next((ln.lstrip("# ").strip() for ln in lines if ln.startswith("#")), "untitled")
