"""A user's own ground truths and data, read strictly (the layouts of ``data/examples/README.md``).

Three layouts, each with a tiny example under ``data/examples/``:

* **A Bayesian network file** (``.bif``, ``.bif.gz``, ``.xmlbif``, ``.xml``): BIF read by the kit's
  reader (:mod:`causaleval.datasets.bif`: errors with line and column), XMLBIF by pgmpy's
  ``XMLBIFReader``; the study samples it as it samples a shipped network.
* **A ground-truth edge list** (any other suffix, e.g. ``truth.edges`` or ``truth.csv``): a
  comma-separated file with the header ``cause,effect`` and one directed edge per row; a node
  without edges is declared on a row of its own with an empty ``effect``. The graph must be a
  DAG. It has no probability tables, so it comes with **observations**: a CSV whose header
  names every node of the graph once (any order, no other column) and whose cells are integer
  state codes ``0, 1, ...`` (no missing value; every column takes at least two values).
* **Factorial data in a long CSV** (:func:`load_factorial_csv`): ``<data_dir>/<domain>.csv``,
  one row per run, columns ``subject``, ``trial``, ``treatment:<name>`` (numeric levels, or
  True/False), ``outcome:<name>`` (numbers; an empty cell is a failed run) and
  ``covariate:<name>`` (a property of the subject: the same value in each of its runs). The
  prefixes are dropped from the names the study uses (``outcome:runtime`` is ``runtime``).

Every file goes through :mod:`causaleval.datasets.readers`, so a damaged file raises a
:class:`~causaleval.datasets.readers.DataFileError` naming the file, line and column. A
relative path is read from the repository root (:func:`resolve`), wherever the kernel runs.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causaleval import paths
from causaleval.datasets.bif import parse_bif
from causaleval.datasets.factorial import FactorialData, binarize
from causaleval.datasets.kdl import KdlSchema, _to_flags
from causaleval.datasets.readers import DataFileError, Table, check_keys, check_numbers, read_table
from causaleval.graphs import CausalGraph, GraphError

BIF_SUFFIXES = (".bif", ".bif.gz", ".xmlbif", ".xml")
EDGE_COLUMNS = ("cause", "effect")
ROLES = ("treatment", "outcome", "covariate")


def resolve(path: str | Path) -> Path:
    """``path`` with ``~`` expanded; a relative path is taken from the folder the user ran
    ``causaleval run`` in (``CAUSALEVAL_CALLER_CWD``, which the command line passes to the kernel),
    else from the repository root (a kernel runs in its notebook's folder, which would surprise)."""
    path = Path(path).expanduser()
    return path if path.is_absolute() else Path(os.environ.get("CAUSALEVAL_CALLER_CWD", paths.ROOT)) / path


def is_bif(path: str | Path) -> bool:
    return str(path).lower().endswith(BIF_SUFFIXES)


def _stamp(path: Path) -> tuple[str, int, int]:
    """A cache key that changes when the file does."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    stat = path.stat()
    return str(path), stat.st_mtime_ns, stat.st_size


# ------------------------------------------------------------------ BIF / XMLBIF
def read_bif(path: str | Path) -> Any:
    """The pgmpy ``DiscreteBayesianNetwork`` in a BIF or XMLBIF file (``.bif.gz`` decompressed),
    checked by pgmpy's ``check_model`` (every node has a table, each sums to 1)."""
    return _read_bif(*_stamp(resolve(path)))


@functools.lru_cache(maxsize=8)
def _read_bif(name: str, _mtime: int, _size: int) -> Any:
    from pgmpy.readwrite import XMLBIFReader

    from causaleval.datasets.readers import read_bytes

    path = Path(name)
    expected = "a BIF network (network, variable and probability blocks)"
    try:
        text = read_bytes(path, expected).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise DataFileError(f"{path}: bytes that are not UTF-8 text at byte {err.start}; expected {expected}") from err
    if name.lower().endswith((".xmlbif", ".xml")):
        try:
            model = XMLBIFReader(string=text).get_model()
            model.check_model()
        except Exception as err:  # XML and pgmpy's own errors: all mean a damaged file
            raise DataFileError(f"{path}: not a readable XMLBIF network ({type(err).__name__}: {err}); expected "
                                "an XMLBIF document whose tables cover every variable and sum to 1") from err
    else:
        model = parse_bif(path, text)
    if len(model.nodes()) < 2:
        raise DataFileError(f"{path}: holds a network of {len(model.nodes())} variable(s); expected {expected} "
                            "with at least 2 variables")
    return model


# ------------------------------------------------------------------ edge list + observations
def read_edge_list(path: str | Path) -> CausalGraph:
    """The DAG of an edge-list file (header ``cause,effect``), named after the file's stem.
    Refused, naming the file and line: a row without a cause, a self-loop, an edge given twice
    or in both directions, a directed cycle."""
    return _read_edge_list(*_stamp(resolve(path)))


@functools.lru_cache(maxsize=8)
def _read_edge_list(name: str, _mtime: int, _size: int) -> CausalGraph:
    table = read_table(name, required=EDGE_COLUMNS, exact=True, text=EDGE_COLUMNS)
    frame = table.frame.apply(lambda c: c.str.strip())
    no_cause = np.flatnonzero(frame["cause"].isna().to_numpy() | (frame["cause"] == "").to_numpy())
    if len(no_cause):
        raise DataFileError(f"{table.path}: {len(no_cause)} row(s) without a cause ({table.where(no_cause)}); "
                            "expected a node name in 'cause' on every row (an empty 'effect' declares "
                            "a node without edges)")
    frame["effect"] = frame["effect"].fillna("")
    check_keys(table, list(EDGE_COLUMNS), frame, what="row")
    edges = frame[frame["effect"] != ""]
    nodes = list(dict.fromkeys([*frame["cause"], *edges["effect"]]))
    graph_name = table.path.name.split(".")[0]
    try:
        graph = CausalGraph.from_edge_lists(nodes, list(edges.itertuples(index=False, name=None)),
                                            name=graph_name)
        graph.require_dag("a ground truth")
    except GraphError as err:
        raise DataFileError(f"{table.path}: {err}") from err
    return graph


def read_observations(path: str | Path, graph: CausalGraph) -> pd.DataFrame:
    """Observations of ``graph``'s nodes: integer codes, columns in the graph's node order.
    Refused, naming the file, column and lines: missing or extra columns, an empty cell, a value
    that is not a whole number >= 0, a column with a single value."""
    return _read_observations(*_stamp(resolve(path)), graph).copy()


@functools.lru_cache(maxsize=8)
def _read_observations(name: str, _mtime: int, _size: int, graph: CausalGraph) -> pd.DataFrame:
    nodes = list(graph.nodes)
    try:
        table = read_table(name, required=nodes, exact=True, numeric=nodes, nonnegative=nodes)
    except DataFileError as err:
        raise DataFileError(f"{err} (the observations of graph {graph.name!r}: one column per node)") from err
    frame = table.frame[nodes]
    for column in nodes:
        values = frame[column].to_numpy(dtype=float)
        empty = np.flatnonzero(np.isnan(values))
        if len(empty):
            raise DataFileError(f"{table.path}: column {column!r} has {len(empty)} empty cell(s) "
                                f"({table.where(empty)}); expected an integer code in every cell")
        fractional = np.flatnonzero(values % 1 != 0)
        if len(fractional):
            raise DataFileError(f"{table.path}: column {column!r} holds {float(values[fractional[0]]):g} "
                                f"({table.where(fractional)}); expected integer state codes 0, 1, ...")
        if len(np.unique(values)) < 2:
            raise DataFileError(f"{table.path}: column {column!r} holds the single value {values[0]:g}; "
                                "expected at least two states (a constant variable cannot be tested)")
    return frame.astype("int64")


def disjoint_samples(data: pd.DataFrame, n_samples: int, n_graphs: int, seed: int,
                     what: str = "the observations") -> list[pd.DataFrame]:
    """``n_graphs`` disjoint samples of ``n_samples`` rows: the rows shuffled once with
    ``seed``, sample g the rows ``g * n_samples`` to ``(g + 1) * n_samples - 1`` of that order.
    Like the independent samples drawn from a network, no row is used twice, so the spread
    over the graphs is sampling spread. Refused when the data hold too few rows."""
    needed = n_samples * n_graphs
    if needed > len(data):
        raise ValueError(f"{what}: {n_graphs} disjoint sample(s) of {n_samples} rows need {needed} rows; the "
                         f"file has {len(data)}: lower n_samples or n_graphs (or the sweep's sizes)")
    order = np.random.default_rng(seed).permutation(len(data))
    return [data.iloc[np.sort(order[g * n_samples:(g + 1) * n_samples])].reset_index(drop=True)
            for g in range(n_graphs)]


# ------------------------------------------------------------------ factorial long CSV
def csv_domains(data_dir: str | Path) -> list[str]:
    """Domains of a folder of factorial CSV files: the stems of its ``*.csv`` files."""
    folder = resolve(data_dir)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder (data_dir of source='csv': a folder of "
                                "<domain>.csv files)")
    return sorted(p.name.removesuffix(".csv") for p in folder.glob("*.csv"))


def load_factorial_csv(domain: str, data_dir: str | Path, *, binary: bool = True) -> FactorialData:
    """``<data_dir>/<domain>.csv`` in the long layout of the module docstring as
    :class:`~causaleval.datasets.factorial.FactorialData` (with ``binary``, treatments made
    binary by :func:`~causaleval.datasets.factorial.binarize`'s extremes rule).

    Refused, naming the file and line or column: a column that is neither ``subject``,
    ``trial`` nor ``<role>:<name>``; no treatment or no outcome; a non-numeric trial,
    treatment level or outcome; a row without subject, trial or treatment; a repeated
    (subject, trial, treatments) key; a treatment with one level; a covariate that changes
    between runs of one subject. A row without some outcome is kept as a failed run
    (``status`` ``"missing outcome"``), which ``.ok()`` and ``.complete()`` leave out."""
    path = resolve(data_dir) / f"{domain}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file; source='csv' reads <data_dir>/<domain>.csv "
                                f"(domains in {path.parent}: "
                                f"{csv_domains(data_dir) if path.parent.is_dir() else 'none'})")
    table = read_table(path, required=["subject", "trial"], text=["subject"])
    roles = _roles(table)
    treatments, outcomes, covariates = (tuple(roles[r]) for r in ROLES)
    frame = table.frame.rename(columns={f"{r}:{c}": c for r in ROLES for c in roles[r]})
    check_keys(table, ["subject", "trial", *treatments], frame)
    check_numbers(table, ["trial", *outcomes], frame=frame)
    layout = KdlSchema(domain, path.name, "subject", treatments, outcomes, covariates)
    frame, notes = _to_flags(frame, layout, table)  # True/False treatments as 1/0, as in the KDL files
    check_numbers(table, list(treatments), frame=frame)
    for t in treatments:
        if frame[t].nunique() < 2:
            raise DataFileError(f"{path}: treatment {t!r} takes the single level {frame[t].iloc[0].item()!r}; "
                                "expected at least two levels")
    _check_covariates(table, frame, covariates)
    failed = frame[list(outcomes)].isna().any(axis=1).to_numpy()
    if failed.any():
        rows = np.flatnonzero(failed)
        frame = frame.assign(status=np.where(failed, "missing outcome", "ok"))
        notes.append(f"{len(rows)} run(s) with a missing outcome ({table.where(rows)}) kept with status "
                     "'missing outcome': .ok() and .complete() leave them out")
    data = FactorialData(name=f"csv/{domain}", frame=frame, subject="subject", trial="trial",
                         treatments=treatments, outcomes=outcomes, covariates=covariates, notes=tuple(notes))
    return binarize(data) if binary else data


def _roles(table: Table) -> dict[str, list[str]]:
    roles: dict[str, list[str]] = {r: [] for r in ROLES}
    for column in table.frame.columns:
        if column in ("subject", "trial"):
            continue
        role, _, name = column.partition(":")
        if role not in roles or not name.strip():
            raise DataFileError(f"{table.path}: column {column!r} has no role; expected 'subject', 'trial' or "
                                "'treatment:<name>', 'outcome:<name>', 'covariate:<name>'")
        roles[role].append(name)
    names = [n for r in ROLES for n in roles[r]]
    repeated = sorted({n for n in names if names.count(n) > 1 or n in ("subject", "trial", "status")})
    if repeated:
        raise DataFileError(f"{table.path}: name(s) {repeated} used by more than one column (or reserved); "
                            "expected each name once")
    for role in ("treatment", "outcome"):
        if not roles[role]:
            raise DataFileError(f"{table.path}: no '{role}:<name>' column; expected at least one "
                                f"(the header has {list(table.frame.columns)})")
    return roles


def _check_covariates(table: Table, frame: pd.DataFrame, covariates: tuple[str, ...]) -> None:
    """A covariate belongs to the subject: one value (or none) across its runs."""
    for c in covariates:
        varying = frame.groupby("subject")[c].nunique(dropna=True)
        varying = varying[varying > 1]
        if len(varying):
            subject = varying.index[0]
            rows = np.flatnonzero((frame["subject"] == subject).to_numpy())
            raise DataFileError(f"{table.path}: covariate {c!r} takes {int(varying.iloc[0])} values for subject "
                                f"{subject!r} ({table.where(rows)}; {len(varying)} such subject(s)); expected a "
                                "covariate to be a property of the subject, the same in each of its runs")
