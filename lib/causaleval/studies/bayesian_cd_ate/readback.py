"""Study 6's trials read back from a committed run, one of them recomputed and compared bit for bit.

Running the trials of the notebook's defaults (seeds 0 and 1 at d = 20, n = 20, and Sachs, through all
seven methods) takes minutes on two cores (``notebooks/params/06.trials.yaml`` states the times
measured), so the notebook at its defaults reads them back (``trials_from``; default :data:`TRIALS_DIR`,
the committed run of ``06.trials.yaml``: the defaults with ``trials_from = None``, every trial run there)
and recomputes the last ``recompute_trials`` of them here (at the defaults the Sachs trial, the
cheapest), which must give the committed rows bit for bit,
else the run stops naming the trial, the file and the first line that differs (:func:`gather_trials`).
A trial is read back only from a run whose trials read the same parameters (:data:`~.trials.TRIAL_KEYS`)
and only when that run holds it (the same setting and seed): a run with other seeds reads back those
it shares and runs the rest; one with other trial settings runs every trial, and the sentence it
shows says why. A ``trials_from`` folder without trials or with a damaged stamp is refused before the kernel
starts (:func:`trials_source`). With ``trials_from = None`` every trial runs here (:func:`~.trials.run`).
A run that ran any trial here (besides those it recomputed) saves the rows of all its trials
(:func:`save_trials`: ``trials_pairs.csv.gz``, ``trials_counts.csv.gz``, ``trials_distributions.csv.gz``)
for a later run to read: so seeds are added to a run a few at a time, each run reading back the
last one's trials (its ``trials_from``) and saving them with its own. A run that ran none saves none,
except into the folder it read them from, which it replaces: there it keeps them as they were, files
and stamps. The trials read back and not
recomputed are taken as committed: the code of the stamp's commit made them, which a rerun with
``trials_from = None`` (e.g. of ``06.trials.yaml``) checks in full.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from causaleval import params, paths, report
from causaleval.studies.bayesian_cd_ate.trials import FRAMES, TRIAL_KEYS, grid, run

#: the committed run of ``notebooks/params/06.trials.yaml``, read back by the notebook at its defaults
TRIALS_DIR = paths.ROOT / "figures" / "06_bayesian_cd_ate" / "trials"
#: each frame's rows (:func:`causaleval.report.save_rows`; the pairs': about 18,000 at the defaults)
NAMES = {frame: f"trials_{frame}" for frame in FRAMES}
TEXT_COLUMNS = ("not run", "notes")  # saved empty when a method ran and said nothing: read back as ""


class Trials(NamedTuple):
    """A run's trials: ``results``, the frames of :func:`~.trials.run`; ``source``, a sentence saying
    where they come from; ``ran``, how many ran here and were not read back; ``folder``, the folder of
    those read back (None when every trial ran here)."""

    results: dict[str, pd.DataFrame]
    source: str
    ran: int
    folder: Path | None = None


def trials_source(p: Mapping[str, Any]) -> tuple[Path, dict[str, Any]] | None:
    """The folder of ``p["trials_from"]`` (relative to ``notebooks/``, where the kernel runs) and the
    provenance stamp of its trials, or None when ``trials_from`` is None (every trial runs here). Raises
    :class:`causaleval.params.ParameterError`, naming the folder, when it holds no trials with a readable
    stamp."""
    if p["trials_from"] is None:
        return None
    folder = paths.NOTEBOOKS / p["trials_from"]
    how = ("expected the folder of a run with trials_from = None (e.g. notebooks/params/06.trials.yaml), or "
           "trials_from = None to run every trial here")
    absent = [f"{name}.csv.gz" for name in NAMES.values() if not (folder / f"{name}.csv.gz").is_file()]
    if absent:
        raise params.ParameterError(f"trials_from: {paths.display(folder)} holds no {', '.join(absent)}; {how}")
    try:
        return folder, report.read_stamp(folder, NAMES["pairs"])
    except ValueError as err:
        raise params.ParameterError(f"trials_from: {err}; {how}") from None


def gather_trials(p: Mapping[str, Any]) -> Trials:
    """The trials of a run. With ``p["trials_from"]`` None, or naming a run whose trials had other
    :data:`TRIAL_KEYS` (then the sentence says which), every trial of :func:`~.trials.grid` runs here.
    Else each trial that run holds (the same setting and seed) is read back, the others run here, and
    the last ``p["recompute_trials"]`` of those read back are recomputed and compared with the read
    rows, line for line as CSV text (floats in full precision). Raises ValueError, naming the trial, the
    file and the first line that differs, when a recomputed trial is not the committed one."""
    source = trials_source(p)
    if source is None:
        return Trials(run(p), "Every trial ran here.", ran=len(grid(p)))
    folder, stamp = source
    ran = stamp["parameters"]
    differ = [k for k in TRIAL_KEYS if ran.get(k) != p[k]]
    if differ:
        said = "; ".join(f"{k} = {ran.get(k)!r} there, {p[k]!r} here" for k in differ)
        return Trials(run(p), f"Every trial ran here: those in {paths.display(folder)} (`trials_from`) ran with other "
                      f"settings ({said}).", ran=len(grid(p)))
    committed = {k: _read(folder, k) for k in FRAMES}
    held = set(zip(committed["counts"]["setting"], committed["counts"]["seed"]))
    wanted = grid(p)
    old = [t for t in wanted if (t["setting"], t["seed"]) in held]
    new = [t for t in wanted if (t["setting"], t["seed"]) not in held]
    again = old[-p["recompute_trials"]:]  # recompute_trials >= 1 (the notebook's declared parameters)
    fresh = run(p, again + new)
    for trial in again:
        _compare(fresh, committed, trial["setting"], trial["seed"], folder)
    results = {k: pd.concat([_own((fresh if t in new else committed)[k], t) for t in wanted], ignore_index=True)
               for k in FRAMES}
    commit = (stamp["code"].get("commit") or "unknown")[:7]
    said = (f"{len(old)} of the {len(wanted)} trials are read back from {paths.display(folder)} (`trials_from`, run at "
            f"commit {commit} with this run's trial settings); recomputed here and equal to its rows bit for bit: "
            f"{_named(again)}.")
    if new:
        said += f" Run here, as it does not hold them: {_named(new)}."
    return Trials(results, said + " `trials_from = None` runs every trial here.", ran=len(new), folder=folder)


def _named(trials: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{t['setting']} seed {t['seed']}" for t in trials) or "none"


def _own(table: pd.DataFrame, trial: Mapping[str, Any]) -> pd.DataFrame:
    """One trial's rows of ``table`` (empty when the table is: no distributions without Sachs)."""
    return table if table.empty else table[(table["setting"] == trial["setting"]) & (table["seed"] == trial["seed"])]


def _read(folder: Path, frame: str) -> pd.DataFrame:
    return report.read_table(folder, NAMES[frame], text=TEXT_COLUMNS)


def _compare(fresh: Mapping[str, pd.DataFrame], committed: Mapping[str, pd.DataFrame], setting: str, seed: int,
             folder: Path) -> None:
    for frame in FRAMES:
        ours, theirs = (_rows(t[frame], setting, seed) for t in (fresh, committed))
        if ours == theirs:
            continue
        line = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        here, there = (lines[line] if line < len(lines) else "(no line)" for lines in (ours, theirs))
        raise ValueError(f"trials_from: the trial {setting} seed {seed} recomputed here differs from its rows in "
                         f"{paths.shown(folder / NAMES[frame])}.csv.gz at line {line} of them (0: the header):\n"
                         f"  here:  {here}\n  there: {there}\nso the committed trials are not what this code gives; "
                         "rerun notebooks/params/06.trials.yaml to regenerate them, or set trials_from = None")


def _rows(table: pd.DataFrame, setting: str, seed: int) -> list[str]:
    """The CSV lines of one trial's rows of ``table``, the header first (floats in full, as ``to_csv`` writes them)."""
    own = _own(table, {"setting": setting, "seed": seed})
    return own.to_csv(index=False).splitlines() if not own.empty else []


def save_trials(trials: Trials, **save: Any) -> None:
    """Save a run's trials (:func:`gather_trials`) as :data:`NAMES`, with provenance
    (:func:`causaleval.report.save_rows`; ``save``: its ``study``, ``params`` and ``out``), when any of
    them ran here: those read back with those run here. A run that read every trial back saves none,
    but when it writes into the folder it read them from through a staging folder (``causaleval run``,
    which then replaces that folder whole: :func:`causaleval.paths.staged`), it copies their files and
    stamps there unchanged, so the run does not delete them."""
    if trials.ran:
        for frame in FRAMES:
            report.save_rows(trials.results[frame], NAMES[frame], **save)
        return
    if trials.folder is None:
        return
    out = report.output_dir(save["study"], save.get("out"), save.get("params")).resolve()
    if out != trials.folder.resolve() and paths.staged(trials.folder).resolve() == out:
        out.mkdir(parents=True, exist_ok=True)
        for name in NAMES.values():
            for suffix in (".csv.gz", ".provenance.json"):
                shutil.copyfile(trials.folder / f"{name}{suffix}", out / f"{name}{suffix}")
