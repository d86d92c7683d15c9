"""Saving tables and figures with a provenance stamp, and joining paper values.

Every output ``<dir>/<name>.<ext>`` gets a sidecar ``<name>.provenance.json`` with the
study, the parameters and their hash, what identifies the code (:func:`code_state`: a
SHA-256 of the kit's sources and one of the notebook's cell sources, the git commit the
code was checked out at and the files that differed from it), the versions of the packages
that made it and the numerical environment it was computed in (:func:`causaleval.numenv.describe`:
the BLAS libraries with their kernels and threads, the XLA flags and numba's target).
:func:`code_matches` tells whether a checkout holds the code a stamp names. Files are
written atomically (to a temporary file, then renamed), so an interrupted run never
leaves half a table. :func:`compare_figures` lists the outputs that differ from the
committed ones (``causaleval check-figures``).
"""

from __future__ import annotations

import functools
import glob
import gzip
import hashlib
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from causaleval import numenv, paths
from causaleval.params import is_default, study_name

PACKAGES = ("causaleval", "numpy", "pandas", "scipy", "matplotlib", "pgmpy", "causal-learn", "gadjid", "numba",
            "jax", "jaxlib")


def output_dir(study: str, override: str | os.PathLike | None = None,
               params: Mapping[str, Any] | None = None) -> Path:
    """Where a study's tables and figures go:

    1. ``override`` (the notebook's ``output_dir`` parameter) when given (its staging folder while
       ``causaleval run`` stages it, :func:`causaleval.paths.staged`);
    2. ``figures/<study>`` (``$CAUSALEVAL_FIGURES/<study>``) when every value of ``params``
       equals the committed notebook's default (:func:`causaleval.params.is_default`);
    3. otherwise ``runs/<study>/papermill-<parameter hash>/figures``, so a plain
       ``papermill`` run with changed parameters never overwrites the committed figures.
    """
    if override:
        return paths.staged(override)
    if params is None or is_default(study, params):
        notebook = paths.study_notebook(study)
        return paths.study_figures(notebook) if notebook is not None else paths.figures_root() / study
    return paths.RUNS / study_name(study) / f"papermill-{parameter_hash(params)}" / "figures"


def parameter_hash(params: Mapping[str, Any]) -> str:
    """A short hash of the parameters, independent of their order."""
    return hashlib.sha256(_canonical(params).encode()).hexdigest()[:12]


def provenance(study: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The stamp written beside every output."""
    return {
        "study": study,
        "parameters": json.loads(_canonical(params)),
        "parameter_hash": parameter_hash(params),
        "code": code_state(study),
        "versions": {p: _version(p) for p in PACKAGES},
        "numerics": numenv.describe(),
    }


def kit_hash() -> str:
    """SHA-256 over the kit's sources ``lib/causaleval/**/*.py``: each file's path relative to
    the kit and its bytes, in sorted path order (caches and data files do not count).

    Computed once per process, when ``causaleval.report`` is first imported: a
    running kernel keeps the code it imported, so an edit of the kit after that must not be
    credited with (or key the cache of) results the old code makes; restart the kernel to
    run and stamp the edited code."""
    return _kit_start(paths.KIT).sha256


class _KitStart(NamedTuple):
    """The kit as this process imported it: its :func:`kit_hash`, git's HEAD then (None outside
    git) and the kit's files that differed from that HEAD (None outside git)."""

    sha256: str
    commit: str | None
    changed: tuple[str, ...] | None


@functools.lru_cache(maxsize=None)
def _kit_start(kit: Path) -> _KitStart:
    """:class:`_KitStart` of ``kit``, taken once per process and folder (at the import of this module
    for the kit's own; keyed by folder so that tests can point :data:`causaleval.paths.KIT` at a kit of
    their own), so a commit or an edit made while a run goes on is not credited to it."""
    head_commit = head()
    try:
        changed = None if head_commit is None else tuple(sorted(
            line[3:].strip() for line in _git("status", "--porcelain", "--", str(kit)).splitlines() if line.strip()))
    except (OSError, subprocess.CalledProcessError):
        head_commit, changed = None, None
    return _KitStart(_kit_hash(kit), head_commit, changed)


def _kit_hash(kit: Path) -> str:
    """The SHA-256 of :func:`kit_hash` over the files as they are now."""
    digest = hashlib.sha256()
    for path in sorted(kit.rglob("*.py"), key=lambda p: p.relative_to(kit).as_posix()):
        digest.update(path.relative_to(kit).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def notebook_hash(text: str) -> str:
    """SHA-256 over a notebook's cell types and sources (not outputs, counts or metadata;
    papermill's injected-parameters cell left out), so an executed notebook hashes like its source."""
    cells = [[c["cell_type"], "".join(c["source"])] for c in json.loads(text)["cells"]
             if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()


def code_state(study: str) -> dict[str, Any]:
    """What identifies the code that made a study's output: ``kit_sha256`` (:func:`kit_hash`),
    ``notebook`` and ``notebook_sha256`` (:func:`notebook_hash`; None without a notebook),
    ``commit``: git's HEAD when this process imported the kit (None outside git), and ``dirty``:
    the kit's files that differed from it then and the notebook if it differs from it now (empty
    for a run from a clean tree; None outside git).

    Outputs are written before the commit that holds them exists, so a stamp names the commit
    the code started from and what had changed (a commit made while the run goes on is not
    named); the hashes say whether a checkout holds that code (:func:`code_matches`)."""
    notebook = paths.study_notebook(study)
    nb_hash = _hash_if_readable(notebook)
    head, dirty = _head_and_changes(notebook, nb_hash)
    return {"kit_sha256": kit_hash(), "notebook": paths.display(notebook) if notebook else None,
            "notebook_sha256": nb_hash, "commit": head, "dirty": dirty}


def code_matches(code: Mapping[str, Any], study: str) -> bool:
    """Whether this checkout holds the code a stamp's ``code`` (:func:`code_state`) names: its
    kit's sources and the study's notebook hash as recorded. A fresh clone of the commit that
    holds an output and its code matches, whichever commit the run started from."""
    notebook = paths.study_notebook(study)
    return (code.get("kit_sha256") == _kit_hash(paths.KIT)
            and code.get("notebook_sha256") == _hash_if_readable(notebook))


def head() -> str | None:
    """git's HEAD of the kit's checkout; None outside git."""
    try:
        return _git("rev-parse", "HEAD").strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _hash_if_readable(notebook: Path | None) -> str | None:
    """The notebook's hash; None without one, or while papermill rewrites it in place."""
    try:
        return notebook_hash(notebook.read_text()) if notebook else None
    except (OSError, ValueError, KeyError):
        return None


def save_table(
    table: pd.DataFrame, name: str, *, study: str, params: Mapping[str, Any],
    out: str | os.PathLike | None = None, float_format: str = "{:.3f}",
) -> list[Path]:
    """Write ``table`` as CSV (full precision), LaTeX and Markdown (rounded; :func:`readable`: yes/no
    and a dash for a missing value) plus provenance, to :func:`output_dir`."""
    folder = output_dir(study, out, params)
    fmt = float_format.format
    written = [
        atomic_write(folder / f"{name}.csv", lambda p: table.to_csv(p)),
        atomic_write(folder / f"{name}.tex", lambda p: Path(p).write_text(
            table.to_latex(float_format=fmt, na_rep="--"))),
        atomic_write(folder / f"{name}.md", lambda p: Path(p).write_text(
            markdown(table.reset_index(), index=False, floatfmt=float_format.strip("{}:")) + "\n")),
    ]
    written.append(_stamp(folder, name, study, params))
    return written


def read_table(folder: str | os.PathLike, name: str, *, text: Sequence[str] = ()) -> pd.DataFrame:
    """The table :func:`save_table` wrote as ``<folder>/<name>.csv`` (or :func:`save_rows` as
    ``<name>.csv.gz``), floats bit for bit (``round_trip``) and only an empty cell missing (a ``"None"``
    or ``"NA"`` text stays text), except in the ``text`` columns, whose empty cells read as ``""``;
    empty when there is none."""
    path = next((p for p in (Path(folder) / f"{name}.csv", Path(folder) / f"{name}.csv.gz") if p.exists()), None)
    if path is None:
        return pd.DataFrame()
    try:
        table = pd.read_csv(path, float_precision="round_trip", keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:  # a table of no columns (:func:`save_rows` of an empty frame)
        return pd.DataFrame()
    return table.fillna({c: "" for c in text if c in table})


def save_rows(table: pd.DataFrame, name: str, *, study: str, params: Mapping[str, Any],
              out: str | os.PathLike | None = None) -> list[Path]:
    """Write ``table``'s rows, too many to read as Markdown or LaTeX, as a gzip-compressed CSV
    ``<name>.csv.gz`` (full precision, no index; :func:`write_csv_gz`) plus provenance, to
    :func:`output_dir`; :func:`read_table` reads it back."""
    folder = output_dir(study, out, params)
    return [atomic_write(folder / f"{name}.csv.gz", lambda p: write_csv_gz(table, p, index=False)),
            _stamp(folder, name, study, params)]


def write_csv_gz(table: pd.DataFrame, path: str | os.PathLike, **to_csv: Any) -> None:
    """``table.to_csv(**to_csv)`` gzip-compressed into ``path``, the same bytes for the same rows: the
    gzip header holds no time and no file name (pandas's own gzip records the name it writes to,
    under :func:`atomic_write` a temporary one)."""
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as packed:
        packed.write(table.to_csv(**to_csv).encode())


def read_stamp(folder: str | os.PathLike, name: str) -> dict[str, Any]:
    """The provenance stamp :func:`save_table` or :func:`save_figure` wrote beside ``<folder>/<name>``.
    Raises ValueError, naming the file, when it is absent, not JSON, or lacks the ``parameters`` and
    ``code`` it always holds."""
    path = Path(folder) / f"{name}.provenance.json"
    try:
        stamp = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{paths.shown(path)}: not a readable provenance stamp ({err})") from None
    if not isinstance(stamp, dict) or not all(isinstance(stamp.get(k), dict) for k in ("parameters", "code")):
        raise ValueError(f"{paths.shown(path)}: not a provenance stamp; expected a JSON object with "
                         "'parameters' and 'code' objects")
    return stamp


MISSING = "\u2014"


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """A table for reading (Markdown): a true/false value as ``yes``/``no`` and a missing one as None
    (which ``to_markdown(missingval=MISSING)`` prints as an em dash); numbers stay numbers, so the
    float format still applies."""
    def cell(v: Any) -> Any:
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        return None if pd.api.types.is_scalar(v) and pd.isna(v) else v

    out = pd.DataFrame({i: pd.Series([cell(v) for v in table.iloc[:, i]], index=table.index, dtype=object)
                        for i in range(table.shape[1])})
    out.columns = table.columns
    return out


def markdown(table: pd.DataFrame, *, index: bool = True, floatfmt: str = "g") -> str:
    """``table`` as a Markdown table for reading (:func:`readable`: yes/no, and :data:`MISSING` for a
    missing value); the notebooks display their tables through it, as :func:`save_table` writes them."""
    return readable(table).to_markdown(index=index, floatfmt=floatfmt, missingval=MISSING)


def save_figure(
    fig: Any, name: str, *, study: str, params: Mapping[str, Any],
    out: str | os.PathLike | None = None,
) -> list[Path]:
    """Write a matplotlib figure as PNG and PDF (no timestamps, so reruns are identical),
    to :func:`output_dir`."""
    folder = output_dir(study, out, params)
    written = [
        atomic_write(folder / f"{name}.png", lambda p: fig.savefig(
            p, format="png", dpi=150, bbox_inches="tight", metadata={"Software": None})),
        atomic_write(folder / f"{name}.pdf", lambda p: fig.savefig(
            p, format="pdf", bbox_inches="tight", metadata={"CreationDate": None, "Creator": None})),
    ]
    written.append(_stamp(folder, name, study, params))
    return written


def paper_values(name: str) -> pd.DataFrame:
    """A table of published values from ``data/paper_values/<name>.csv``."""
    path = paths.PAPER_VALUES / f"{name}.csv"
    if not path.exists():
        raise ValueError(f"no paper values {name!r}: expected {paths.display(path)}")
    return pd.read_csv(path, comment="#")


def beside(ours: pd.DataFrame, paper: pd.DataFrame, on: list[str], value: str = "value") -> pd.DataFrame:
    """Join our long table with the paper's on the key columns: ``ours``, ``paper``, ``diff``."""
    merged = ours.rename(columns={value: "ours"}).merge(
        paper.rename(columns={value: "paper"})[on + ["paper"]], on=on, how="left")
    merged["diff"] = merged["ours"] - merged["paper"]
    return merged


def _canonical(params: Mapping[str, Any]) -> str:
    return json.dumps(dict(params), sort_keys=True, default=str)


def _stamp(folder: Path, name: str, study: str, params: Mapping[str, Any]) -> Path:
    text = json.dumps(provenance(study, params), indent=2, sort_keys=True) + "\n"
    return atomic_write(folder / f"{name}.provenance.json", lambda p: Path(p).write_text(text))


def cached_frame(study: str, name: str, params: Mapping[str, Any],
                 compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """``compute()``, or the table a previous call with the same parameters and the same code
    stored under ``runs/cache/<study>/<name>-<hash>.csv`` (so a rerun that only changes a
    plot does not recompute the trials; ``CAUSALEVAL_CACHE`` moves the folder). The hash
    covers the parameters, the kit's sources (:func:`kit_hash`) and the loaded plugins'
    (:func:`causaleval.plugins.fingerprint`): a table is never served to changed code. Delete
    the file to force a recomputation. Floats are read back bit for bit (``round_trip``),
    so a cached rerun gives the same tables as the first run: a last-bit difference can
    turn a tie between learners into a non-tie and change a rank test."""
    from causaleval.plugins import fingerprint

    key = {"parameters": dict(params), "kit": kit_hash(), "plugins": fingerprint()}
    path = paths.cache_root() / study / f"{name}-{parameter_hash(key)}.csv"
    if path.exists():
        return pd.read_csv(path, float_precision="round_trip")
    frame = compute()
    atomic_write(path, lambda p: frame.to_csv(p, index=False))
    return frame


def atomic_write(path: Path, write: Callable[[str], Any]) -> Path:
    """Call ``write(tmp)`` on a temporary file ``.<name>.<pid>.<random><suffix>`` beside
    ``path``, then rename it into place. The temporary file is removed when ``write``
    fails (or is interrupted), and temporaries of ``path`` left by a killed process are
    removed on the next write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; outputs are for reading
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _remove_stale_temporaries(path: Path) -> None:
    """Remove ``path``'s temporaries whose writing process is gone (or that carry no pid)."""
    pattern = re.compile(rf"\.{re.escape(path.name)}\.(?:(\d+)\.)?[a-z0-9_]{{8}}{re.escape(path.suffix)}")
    for other in path.parent.glob(f".{glob.escape(path.name)}.*"):
        match = pattern.fullmatch(other.name)
        # our own temporaries are removed when their write ends: any left are stale
        if match and not (match[1] and int(match[1]) != os.getpid() and process_alive(int(match[1]))):
            other.unlink(missing_ok=True)


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _git(*args: str, text: bool = True) -> Any:
    return subprocess.run(["git", *args], cwd=paths.ROOT, capture_output=True, text=text, check=True).stdout


def _head_and_changes(notebook: Path | None, nb_hash: str | None) -> tuple[str | None, list[str] | None]:
    """``(HEAD, changed)``: git's HEAD when this process imported the kit and the files of
    ``lib/causaleval`` (tracked or untracked) that differed from it then (:func:`_kit_start`), with
    the notebook if it differs from that commit's (by its sources' hash, so outputs do not count); a user's
    study's notebook is outside the kit's history and counts as changed. ``(None, None)``
    outside git."""
    _, head_commit, kit_changed = _kit_start(paths.KIT)
    if head_commit is None or kit_changed is None:
        return None, None
    changed = list(kit_changed)
    try:
        if notebook is not None:
            if paths.is_user_study(notebook):
                changed.append(paths.display(notebook))
            else:
                relative = notebook.resolve().relative_to(paths.ROOT).as_posix()
                if notebook_hash(_git("show", f"{head_commit}:{relative}")) != nb_hash:
                    changed.append(relative)
        return head_commit, changed
    except (OSError, ValueError, subprocess.CalledProcessError):
        return None, None


def _version(pkg: str) -> str | None:
    try:
        return version(pkg)
    except PackageNotFoundError:
        return None


#: two numbers of a stored table are the same value rounded differently when
#: ``|a - b| <= max(RTOL * max(|a|, |b|), ATOL)``: the last digits of a float64 computed by other
#: kernels or in another order (``0.08897738466319782`` vs ``...781``), never a changed count or decision
RTOL, ATOL = 1e-9, 1e-12


def compare_figures(rev: str = "HEAD") -> tuple[list[tuple[str, str]], int]:
    """Compare the outputs under :func:`causaleval.paths.figures_root` (as a fresh run left
    them) with the committed ``figures/`` of ``rev``. Returns ``(status, path)`` rows and the
    number of committed outputs compared. Status (:func:`compare_output`):

    * ``changed``: a decision differs: a verdict, a count, an order, a learned graph, a number
      beyond :data:`RTOL`, a printed cell at its printed precision (Markdown, LaTeX), a figure's
      pixels (PNG) or its PDF;
    * ``last digits``: a CSV whose cells are equal but for numbers within :data:`RTOL` (CSVs keep
      full precision, so a run on other kernels shows here, not as a change);
    * ``missing`` (committed, not written by the run) or ``new`` (written, not committed).

    Provenance sidecars are left out: they differ whenever the code or the machine does. So are
    outputs git ignores: measurements that vary by machine (``figures/*/measured_*``, e.g. study
    5's run times) are shown and saved, never committed."""
    committed = [name for name in _git("ls-tree", "-r", "--name-only", rev, "--", "figures").splitlines()
                 if not name.endswith(".provenance.json")]
    root = paths.figures_root()
    rows = []
    for name in committed:
        fresh = root / Path(name).relative_to("figures")
        status = ("missing" if not fresh.exists() else
                  compare_output(_git("show", f"{rev}:{name}", text=False), fresh.read_bytes(), fresh.suffix))
        if status:
            rows.append((status, name))
    known = {Path(name).relative_to("figures") for name in committed}
    new = [(Path("figures") / fresh.relative_to(root)).as_posix() for fresh in sorted(root.rglob("*"))
           if fresh.is_file() and fresh.relative_to(root) not in known and not fresh.name.endswith(".provenance.json")
           and not any(part.startswith(".") for part in fresh.relative_to(root).parts)]
    ignored = set(subprocess.run(["git", "check-ignore", "--no-index", "--", *new], cwd=paths.ROOT, text=True,
                                 capture_output=True).stdout.splitlines()) if new else set()
    rows += [("new", name) for name in new if name not in ignored]
    return rows, len(committed)


def compare_output(old: bytes, new: bytes, suffix: str) -> str | None:
    """None when two versions of an output are the same (byte-equal; for PNG images the same
    size and RGBA pixels; for a ``.csv.gz`` the same CSV text), ``"last digits"`` for a CSV whose
    cells differ only in numbers within :data:`RTOL`, else ``"changed"``."""
    if old == new:
        return None
    if suffix == ".png":
        import io

        from PIL import Image

        a, b = (Image.open(io.BytesIO(data)).convert("RGBA") for data in (old, new))
        return None if a.size == b.size and a.tobytes() == b.tobytes() else "changed"
    if suffix == ".gz":  # a compressed CSV (:func:`save_rows`): its text compared, not the compressor's bytes
        try:
            return compare_output(gzip.decompress(old), gzip.decompress(new), ".csv")
        except (OSError, EOFError):  # not gzip, or cut short
            return "changed"
    if suffix == ".csv" and _same_but_last_digits(old, new):
        return "last digits"
    return "changed"


def _same_but_last_digits(old: bytes, new: bytes) -> bool:
    """Two CSV texts with the same rows and columns whose differing cells are all finite numbers
    within :data:`RTOL` (or :data:`ATOL` near zero) of each other."""
    import csv
    import io
    import math

    a, b = (list(csv.reader(io.StringIO(data.decode()))) for data in (old, new))
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)):
        return False
    for x, y in ((x, y) for row_a, row_b in zip(a, b) for x, y in zip(row_a, row_b) if x != y):
        try:
            u, v = float(x), float(y)
        except ValueError:
            return False
        if not (math.isfinite(u) and math.isfinite(v)) or abs(u - v) > max(RTOL * max(abs(u), abs(v)), ATOL):
            return False
    return True


kit_hash()  # the code this process imports, hashed (with git's HEAD) before any of it can be edited
