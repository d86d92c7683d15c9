"""The embedded query domain: the generated workload run on SQLite (through apsw).

apsw carries its own SQLite build, so the engine is the same on every machine, and it
exposes the engine's own counters. Treatments (2 x 2 x 2 x 3 = 24 cells):

* ``index_level`` 0/1/2: none / ids and foreign keys / keys plus filtered columns
  (:data:`~causaleval.collect.stackdb.INDEX_LEVELS`);
* ``cache_size`` 0/1: a 64 KiB or a 64 MiB page cache (``PRAGMA cache_size``);
* ``temp_store`` 0/1: sorter and temporary tables on file or in memory (``PRAGMA temp_store``);
* ``statistics`` 0/1: planner statistics absent or present (``ANALYZE``).

Outcomes of a run, all measured by the engine: ``runtime_ms`` (wall time of prepare, step
and fetch), ``vm_steps`` (virtual-machine instructions), ``fullscan_steps``, ``sorts``,
``autoindex_rows`` (rows put into automatic indexes), ``cache_hits`` and ``cache_misses``
(page-cache lookups of the connection), ``rows_returned`` (the same for every cell of a
subject, bar ties under LIMIT; a check that treatments do not change answers).

Independence between runs: every run opens a fresh connection, so SQLite's page cache
starts empty; the database files are read once before collection, so every run sees
the same warm operating-system cache.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from causaleval.collect.engine import QueryFailed
from causaleval.collect.stackdb import StackDatabase, create_statements, index_statements

TREATMENTS = {"index_level": (0, 1, 2), "cache_size": (0, 1), "temp_store": (0, 1),
              "statistics": (0, 1)}
OUTCOMES = ("runtime_ms", "vm_steps", "fullscan_steps", "sorts", "autoindex_rows",
            "cache_hits", "cache_misses", "rows_returned")
CACHE_KIB = {0: 64, 1: 65536}
_STMT = {"vm_steps": "SQLITE_STMTSTATUS_VM_STEP", "fullscan_steps": "SQLITE_STMTSTATUS_FULLSCAN_STEP",
         "sorts": "SQLITE_STMTSTATUS_SORT", "autoindex_rows": "SQLITE_STMTSTATUS_AUTOINDEX"}


class SqliteEngine:
    """Runs queries on the six database files (index level x statistics) it builds."""

    name = "sqlite"
    treatments = TREATMENTS
    outcomes = OUTCOMES

    def __init__(self, db: StackDatabase, workdir: Path):
        self.db = db
        self.folder = Path(workdir) / "sqlite"
        self.files: dict[tuple[int, int], Path] = {}

    def file(self, index_level: int, statistics: int) -> Path:
        """The database file of one (index level, statistics) pair, built on first use."""
        key = index_level, statistics
        if key not in self.files:
            self.files[key] = build_file(self.db, self.folder, index_level, statistics)
        return self.files[key]

    def versions(self) -> dict[str, str]:
        import apsw

        return {"sqlite": apsw.sqlite_lib_version(), "apsw": apsw.apsw_version()}

    def settings(self) -> dict[str, object]:
        return {"cache_kib": CACHE_KIB, "temp_store": {0: "FILE", 1: "MEMORY"},
                "index_levels": {0: "none", 1: "keys", 2: "keys + filtered columns"}}

    def run(self, sql: str, cell: dict, timeout_s: float, max_vm_steps: int | None = None) -> dict:
        """Run ``sql`` once under ``cell``; the outcomes, or :class:`QueryFailed`."""
        import apsw

        conn = apsw.Connection(str(self.file(cell["index_level"], cell["statistics"])),
                               flags=apsw.SQLITE_OPEN_READONLY)
        try:
            conn.execute(f"PRAGMA cache_size = -{CACHE_KIB[cell['cache_size']]}")
            conn.execute(f"PRAGMA temp_store = {2 if cell['temp_store'] else 1}")
            deadline = time.perf_counter() + timeout_s
            conn.set_progress_handler(lambda: time.perf_counter() > deadline, 10_000)
            profile: list[dict] = []
            conn.trace_v2(apsw.SQLITE_TRACE_PROFILE, profile.append)
            conn.status(apsw.SQLITE_DBSTATUS_CACHE_HIT, True)
            conn.status(apsw.SQLITE_DBSTATUS_CACHE_MISS, True)
            start = time.perf_counter()
            try:
                rows = len(conn.execute(sql).fetchall())
            except apsw.InterruptError as err:
                raise QueryFailed("timeout", f"no result within {timeout_s} s") from err
            except apsw.Error as err:
                raise QueryFailed("error", f"{type(err).__name__}: {err}") from err
            runtime = (time.perf_counter() - start) * 1000
            hits = conn.status(apsw.SQLITE_DBSTATUS_CACHE_HIT)[0]
            misses = conn.status(apsw.SQLITE_DBSTATUS_CACHE_MISS)[0]
            conn.trace_v2(0, None)
        finally:
            conn.close()
        status = profile[-1]["stmt_status"]
        counters = {k: status[v] for k, v in _STMT.items()}
        if max_vm_steps is not None and counters["vm_steps"] > max_vm_steps:
            raise QueryFailed("error", f"{counters['vm_steps']} VM steps exceed the limit {max_vm_steps}")
        return {"runtime_ms": runtime, **counters, "cache_hits": hits, "cache_misses": misses,
                "rows_returned": rows}

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def build_file(db: StackDatabase, folder: Path, index_level: int, statistics: int) -> Path:
    """The tables of ``db`` in a fresh database file with the level's indexes, analyzed
    when ``statistics`` is 1, and read once so the operating system caches it."""
    import apsw

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"index{index_level}_stats{statistics}.db"
    path.unlink(missing_ok=True)
    conn = apsw.Connection(str(path))
    with conn:
        for statement in create_statements():
            conn.execute(statement)
        for table, frame in db.tables.items():
            marks = ", ".join("?" * frame.shape[1])
            rows = frame.astype(object).where(frame.notna(), None).itertuples(index=False, name=None)
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        for statement in index_statements(index_level):
            conn.execute(statement)
    if statistics:
        conn.execute("ANALYZE")
    conn.execute("VACUUM")
    conn.close()
    path.read_bytes()
    return path
