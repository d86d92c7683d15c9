"""Run a factorial experiment on a query engine: resumable, in a shuffled order.

The output folder holds, in the layout :func:`causaleval.datasets.software.load_collected`
reads:

* ``manifest.json``: roles of the columns, treatment levels, settings, seed, versions,
  subject and run counts, start and end dates, collection time;
* ``subjects.csv.gz``: one row per query (``subject, template, sql`` and covariates);
* ``runs.csv`` while collecting, ``runs.csv.gz`` when done: one row per run
  (``seq, trial, subject``, the treatments, ``status``, the outcomes, ``error``).

Run order: within each trial, all subject x cell runs in an order shuffled by the seed,
so the previous run's setting is random and slow drift (warming, other load) is not
confounded with a treatment. Resumption: every finished run is appended and flushed
before the next starts; a restarted collection reads the log, drops a torn last line,
and continues with the runs not in it, so none is lost or repeated. A lock file keeps
two collectors out of the same folder.
"""

from __future__ import annotations

import csv
import fcntl
import gzip
import itertools
import json
import os
import platform
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from causaleval.collect import stackdb, workload
from causaleval.collect.engine import Engine, QueryFailed
from causaleval.collect.sqlite import SqliteEngine
from causaleval.report import atomic_write, write_csv_gz

STATUSES = ("ok", "timeout", "error")


def collection_settings(domain: str, subjects: int, trials: int, seed: int, scale: float,
                        timeout_s: float) -> dict:
    """The settings that fix a collection; a resumed collection must match them."""
    if subjects < 1 or trials < 1:
        raise ValueError(f"subjects and trials must be positive, got {subjects} and {trials}")
    if timeout_s <= 0:
        raise ValueError(f"timeout must be positive, got {timeout_s}")
    return {"domain": domain, "subjects": subjects, "trials": trials, "seed": seed,
            "scale": scale, "timeout_s": timeout_s}


def prepare_subjects(db: stackdb.StackDatabase, n: int, seed: int, workdir: Path,
                     max_vm_steps: int = 1_500_000) -> pd.DataFrame:
    """The workload's first ``n`` queries that run on SQLite within ``max_vm_steps``.

    As in the paper, only queries that execute successfully become subjects. Each
    candidate runs once without indexes and statistics and once with all of them, and
    is kept when both finish within ``max_vm_steps`` virtual-machine steps (about 0.1 s;
    the paper's limit was 30 s per query on a larger database). Counting steps, not
    seconds, makes the subject set the same on every machine. ``rows`` (rows retrieved)
    is a covariate: it exists before treatment and does not change with it.
    """
    candidates = workload.generate_workload(db, 2 * n + 20, seed)
    engine = SqliteEngine(db, workdir / "calibration")
    extremes = [{"index_level": level, "cache_size": 1, "temp_store": 1, "statistics": level // 2}
                for level in (0, 2)]
    kept = []
    try:
        for row in candidates.itertuples():
            try:
                rows = [engine.run(row.sql, cell, timeout_s=60, max_vm_steps=max_vm_steps)["rows_returned"]
                        for cell in extremes]
            except QueryFailed:
                continue
            kept.append({"template": row.template, "sql": row.sql, "rows": rows[0]})
            if len(kept) == n:
                break
    finally:
        engine.close()
    if len(kept) < n:
        raise ValueError(f"only {len(kept)} of {len(candidates)} generated queries ran within "
                         f"{max_vm_steps} VM steps; ask for fewer subjects or a larger scale")
    table_rows = db.rows()
    frame = pd.DataFrame(kept)
    covariates = pd.DataFrame([workload.query_covariates(s, table_rows) for s in frame["sql"]])
    frame = pd.concat([frame, covariates], axis=1)
    frame.insert(0, "subject", np.arange(len(frame)))
    return frame


def run_order(n_subjects: int, cells: list[dict], trials: int, seed: int) -> Iterator[tuple[int, int, int]]:
    """(trial, subject, cell index) in the collection's order: each trial shuffled by the seed."""
    for trial in range(trials):
        rng = np.random.default_rng([seed, trial])
        pairs = np.array(list(itertools.product(range(n_subjects), range(len(cells)))))
        for subject, cell in pairs[rng.permutation(len(pairs))]:
            yield trial, int(subject), int(cell)


def design_cells(treatments: dict[str, tuple]) -> list[dict]:
    return [dict(zip(treatments, levels)) for levels in itertools.product(*treatments.values())]


def collect(engine_factory, settings: dict, out: Path, *, progress: bool = True) -> Path:
    """Collect (or resume) the factorial experiment ``settings`` describe into ``out``.

    ``engine_factory(db, workdir)`` returns an :class:`Engine`; it is called after the
    database and the subjects are fixed.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with _lock(out), _sigterm_as_interrupt():
        manifest = _start_manifest(out, settings)
        if manifest.get("finished"):
            print(f"{out}: collection already complete ({manifest['runs']} runs)")
            return out
        db = stackdb.generate(settings["seed"], settings["scale"])
        workdir = out / ".work"
        subjects_file = out / "subjects.csv.gz"
        if subjects_file.exists():
            subjects = pd.read_csv(subjects_file)
        else:
            subjects = prepare_subjects(db, settings["subjects"], settings["seed"], workdir)
            atomic_write(subjects_file, lambda p: write_csv_gz(subjects, p, index=False))
        started = time.perf_counter()
        engine = engine_factory(db, workdir)
        try:
            manifest.update(versions=_versions(engine), engine_settings=engine.settings(),
                            treatments={k: list(v) for k, v in engine.treatments.items()},
                            outcomes=list(engine.outcomes))
            _write_manifest(out, manifest)
            performed, run_seconds = _run_all(engine, subjects, settings, out, progress)
        finally:  # an interrupted part counts too: a resumed collection adds its own seconds to it
            engine.close()
            shutil.rmtree(workdir, ignore_errors=True)
            manifest["collection_seconds"] = round(
                manifest.get("collection_seconds", 0) + time.perf_counter() - started, 1)
            _write_manifest(out, manifest)
        if performed:
            manifest["runs_per_second"] = round(performed / run_seconds, 1)
        _finish(out, manifest)
    return out


def _run_all(engine: Engine, subjects: pd.DataFrame, settings: dict, out: Path,
             progress: bool) -> tuple[int, float]:
    """Append every run not yet in the log; the number performed and the seconds taken."""
    cells = design_cells(engine.treatments)
    columns = ["seq", "trial", "subject", *engine.treatments, "status", *engine.outcomes, "error"]
    log = out / "runs.csv"
    done = _finished_runs(log, columns, engine.treatments, cells)
    order = list(run_order(len(subjects), cells, settings["trials"], settings["seed"]))
    sql = subjects["sql"].tolist()
    new = not log.exists() or log.stat().st_size == 0
    with open(log, "a", newline="") as fh:
        writer = csv.writer(fh)
        if new:
            writer.writerow(columns)
        bar = tqdm(total=len(order), initial=len(done), desc=f"{engine.name} runs",
                   disable=not progress, mininterval=1.0)
        started, performed = time.perf_counter(), 0
        for seq, (trial, subject, c) in enumerate(order):
            if (trial, subject, c) in done:
                continue
            cell = cells[c]
            try:
                outcomes, status, error = engine.run(sql[subject], cell, settings["timeout_s"]), "ok", ""
            except QueryFailed as failed:
                outcomes, status, error = {}, failed.status, str(failed)
            writer.writerow([seq, trial, subject, *cell.values(), status,
                             *(outcomes.get(o, "") for o in engine.outcomes), error])
            fh.flush()
            performed += 1
            bar.update()
        bar.close()
        os.fsync(fh.fileno())
    return performed, time.perf_counter() - started


def _finished_runs(log: Path, columns: list[str], treatments: dict, cells: list[dict]) -> set:
    """The (trial, subject, cell) keys already in the log; a torn last line is cut off."""
    if not log.exists():
        return set()
    data = log.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(log, "r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)
    frame = pd.read_csv(log)
    if list(frame.columns) != columns:
        raise ValueError(f"{log}: columns {list(frame.columns)} do not match this collection's "
                         f"{columns}; use another --out folder")
    index = {tuple(cell.values()): i for i, cell in enumerate(cells)}
    keys = frame[list(treatments)].itertuples(index=False, name=None)
    return {(t, s, index[k]) for t, s, k in zip(frame["trial"], frame["subject"], keys)}


@contextmanager
def _sigterm_as_interrupt():
    """A ``kill`` ends the collection like Ctrl-C: servers stop and the log is closed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _lock(out: Path):
    with open(out / ".lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            raise RuntimeError(f"{out}: another collection is writing to this folder") from err
        yield


def _start_manifest(out: Path, settings: dict) -> dict:
    path = out / "manifest.json"
    if path.exists():
        manifest = json.loads(path.read_text())
        if manifest["settings"] != settings:
            raise ValueError(f"{out} holds a collection with settings {manifest['settings']}, not "
                             f"{settings}; resume with the same settings or use another --out")
        return manifest
    manifest = {"settings": settings, "started": _now(), "finished": None,
                "subject": "subject", "trial": "trial",
                "system": {"python": platform.python_version(), "platform": platform.platform(),
                           "machine": platform.machine()}}
    _write_manifest(out, manifest)
    return manifest


def _finish(out: Path, manifest: dict) -> None:
    log = out / "runs.csv"
    runs = pd.read_csv(log)
    atomic_write(out / "runs.csv.gz", lambda p: _gzip_copy(log, p))
    log.unlink()
    counts = runs["status"].value_counts()
    manifest.update(
        finished=_now(), runs=len(runs), status_counts={s: int(counts.get(s, 0)) for s in STATUSES},
        covariates=[c for c in pd.read_csv(out / "subjects.csv.gz", nrows=1).columns
                    if c not in ("subject", "template", "sql")])
    _write_manifest(out, manifest)


def _gzip_copy(source: Path, target: str) -> None:
    # mtime=0 keeps the archive the same bytes for the same runs
    with open(source, "rb") as src, open(target, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as dst:
        shutil.copyfileobj(src, dst)


def _write_manifest(out: Path, manifest: dict) -> None:
    text = json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n"
    atomic_write(out / "manifest.json", lambda p: Path(p).write_text(text))


def _versions(engine: Engine) -> dict[str, str]:
    return {"causaleval": version("causaleval"), "numpy": np.__version__,
            "pandas": pd.__version__, **engine.versions()}


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
