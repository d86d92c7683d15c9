"""The PostgreSQL query domain: the generated workload on a private PostgreSQL server.

The kit starts its own server from the machine's PostgreSQL binaries (Debian's
``postgresql`` package; ``make`` installs it) on a fresh data directory, and removes it at
the end. PostgreSQL refuses to run as root: when the kit runs as root it runs the server
as the dedicated system user ``causaleval`` (created with ``useradd`` when missing;
``CAUSALEVAL_PG_USER`` names another).

Who can connect: only the collector. The server listens on no TCP address, only on a Unix
socket inside its private folder ``$TMPDIR/causaleval-pg-*`` (mode 0700, owned by the
server's user, so other users cannot reach the socket), and ``pg_hba.conf`` admits one
role, ``causaleval``, by ``peer`` authentication mapped from the collector's system user
alone (``pg_ident.conf``); every other connection is rejected.

The server never outlives its collection. It runs under a small supervisor
(``collect/pg_supervisor.py``, a standard-library script in its own session, so a Ctrl-C
reaches only the collector): the supervisor reads a pipe from the collector and, when the pipe closes (the
collector closed it, exited, or was killed, even by ``kill -9``) or its parent changes, or
on SIGTERM/SIGINT/SIGHUP, it stops the server with a fast shutdown and deletes the folder.
The server carries the Linux parent-death signal (SIGINT, a fast shutdown) in case the
supervisor itself is killed, and a collection records the folder and the process ids in
``<out>/.work/postgres-server.json``: the next run into the same output folder stops any
server left by a killed collection and deletes its folder before it starts its own.

Treatments, three levels each (27 cells), as in Gentzel et al. (2019, supp. Sec. 1.2):

* ``index_level`` 0/1/2: none / ids and foreign keys / keys plus filtered columns (one
  database per level, loaded with the same tables);
* ``page_cost`` 0/1/2: ``random_page_cost``/``seq_page_cost`` of 5/1, 2/2, 1/5;
* ``memory_level`` 0/1/2: ``temp_buffers``/``work_mem`` of 800kB/64kB, 8MB/1MB, 100MB/50MB.

``shared_buffers`` is 128kB, as in the paper, so little stays cached between runs.
Outcomes come from ``EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)``, measured inside the server
(so the client's connection does not enter them): ``runtime_ms`` (planning plus execution),
``planning_ms``, ``execution_ms``, ``shared_hit_blocks``, ``shared_read_blocks``,
``temp_read_blocks``, ``temp_written_blocks``, ``rows_returned``. A run past the statement
timeout is recorded as ``timeout``; a lost connection to the server stops the collection
(resumable) instead of being recorded as failed runs.

Each index-level database keeps one connection; the cell's settings are SET before
every run, and the run order is shuffled, so consecutive runs rarely share a setting.
"""

from __future__ import annotations

import io
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from causaleval.collect.pg_supervisor import ROLE, STOP_WAIT_S, end, remove, runs

from causaleval.collect.engine import QueryFailed
from causaleval.collect.stackdb import StackDatabase, create_statements, index_statements
from causaleval.report import atomic_write

TREATMENTS = {"index_level": (0, 1, 2), "page_cost": (0, 1, 2), "memory_level": (0, 1, 2)}
OUTCOMES = ("runtime_ms", "planning_ms", "execution_ms", "shared_hit_blocks",
            "shared_read_blocks", "temp_read_blocks", "temp_written_blocks", "rows_returned")
PAGE_COST = {0: (5, 1), 1: (2, 2), 2: (1, 5)}  # random_page_cost, seq_page_cost
MEMORY = {0: ("800kB", "64kB"), 1: ("8MB", "1MB"), 2: ("100MB", "50MB")}  # temp_buffers, work_mem
SERVER_SETTINGS = {"shared_buffers": "128kB", "autovacuum": "off", "fsync": "off",
                   "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "20",
                   "jit": "off", "listen_addresses": "", "port": "5432",
                   "unix_socket_permissions": "0700"}
DEBIAN_ROOT = Path("/usr/lib/postgresql")
FOLDER_PREFIX = "causaleval-pg-"
PIDFILE = "postgres-server.json"  # in the collection's work folder

def find_bindir() -> Path:
    """The folder with ``initdb`` and ``postgres`` (newest Debian version first)."""
    candidates = []
    if os.environ.get("CAUSALEVAL_PG_BINDIR"):
        candidates.append(Path(os.environ["CAUSALEVAL_PG_BINDIR"]))
    debian = sorted(DEBIAN_ROOT.glob("*/bin"),
                    key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)
    candidates += debian
    if shutil.which("initdb"):
        candidates.append(Path(shutil.which("initdb")).parent)
    for folder in candidates:
        if all((folder / tool).exists() for tool in ("initdb", "postgres")):
            return folder
    raise RuntimeError(
        "no PostgreSQL server binaries (initdb, postgres) found in "
        f"{[str(c) for c in candidates] or '/usr/lib/postgresql/*/bin or PATH'}; install Debian's "
        "`postgresql` package (make does this) or set CAUSALEVAL_PG_BINDIR")


class PostgresServer:
    """A private PostgreSQL server: ``with PostgresServer() as server: server.connect(db)``.

    ``pidfile`` (optional) records the server's folder and process ids while it runs; a
    server started with the same ``pidfile`` first stops the one recorded there, if any.
    """

    def __init__(self, bindir: Path | None = None, settings: dict[str, str] | None = None,
                 pidfile: Path | None = None):
        self.bindir = Path(bindir) if bindir else find_bindir()
        self.settings = {**SERVER_SETTINGS, **(settings or {})}
        self.pidfile = Path(pidfile) if pidfile else None
        self.base: Path | None = None  # the private folder: data directory, socket, log
        self._supervisor: subprocess.Popen | None = None
        self._user = _server_user()

    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def datadir(self) -> Path | None:
        return None if self.base is None else self.base / "data"

    def version(self) -> str:
        return subprocess.run([str(self.bindir / "postgres"), "--version"], capture_output=True,
                              text=True, check=True).stdout.strip()

    def start(self) -> None:
        if self.pidfile is not None and self.pidfile.exists():
            stop_stale(self.pidfile)
        self.base = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))  # mode 0700
        try:
            answer = self._launch()
        except BaseException:
            self.stop()
            raise
        if "ready" not in answer:
            base = self.base
            self.stop()
            raise RuntimeError(f"PostgreSQL did not start in {base}: {answer['error']}")

    def _launch(self) -> dict:
        """Start the supervisor; its answer, ``{"ready": postmaster pid}`` or ``{"error": ...}``."""
        if self._user:
            os.chown(self.base, self._user.pw_uid, self._user.pw_gid)
        state = {"base": str(self.base), "collector": os.getpid()}
        self._record(state)
        spec = {"base": str(self.base), "bindir": str(self.bindir), "settings": self.settings,
                "user": self._user.pw_name if self._user else None}
        # a standard-library script run by its path (-I: no current folder, no PYTHON* variables),
        # so it imports nothing of the kit; a session of its own, so a Ctrl-C in the terminal reaches
        # only the collector, which then stops the server
        self._supervisor = subprocess.Popen(
            [sys.executable, "-I", str(Path(__file__).with_name("pg_supervisor.py")), json.dumps(spec)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd="/",
            start_new_session=True)
        state["supervisor"] = self._supervisor.pid
        self._record(state)
        line = self._supervisor.stdout.readline()
        if not line:
            return {"error": f"its supervisor exited with code {self._supervisor.wait()} (see above)"}
        answer = json.loads(line)
        if "ready" in answer:
            self._record({**state, "postmaster": answer["ready"]})
        return answer

    def stop(self) -> None:
        """Close the supervisor's pipe: it stops the server (fast shutdown) and deletes the folder."""
        if self.base is None:
            return
        if self._supervisor is not None:
            self._supervisor.stdin.close()
            try:
                self._supervisor.wait(timeout=STOP_WAIT_S + 30)
            except subprocess.TimeoutExpired:
                self._supervisor.kill()
                self._supervisor.wait()
            self._supervisor.stdout.close()
            self._supervisor = None
        remove(self.base)  # what a failed supervisor left, if anything
        if self.pidfile is not None:
            self.pidfile.unlink(missing_ok=True)
        self.base = None

    def connect(self, dbname: str = "postgres"):
        import psycopg

        return psycopg.connect(host=str(self.base), port=self.settings["port"], user=ROLE,
                               dbname=dbname, autocommit=True, connect_timeout=30)

    def _record(self, state: dict) -> None:
        if self.pidfile is not None:
            text = json.dumps(state, indent=1) + "\n"
            atomic_write(self.pidfile, lambda p: Path(p).write_text(text))


def stop_stale(pidfile: Path) -> None:
    """Stop the server a killed collection left (``pidfile`` records it) and delete its folder."""
    try:
        state = json.loads(Path(pidfile).read_text())
        base, collector = Path(state["base"]), int(state["collector"])
        supervisor = int(state.get("supervisor", 0))
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise RuntimeError(
            f"{pidfile}: unreadable record of an earlier PostgreSQL server ({err}); stop that "
            f"server if it still runs, delete its {FOLDER_PREFIX}* folder, then this file") from err
    if not (base.is_absolute() and base.name.startswith(FOLDER_PREFIX) and ".." not in base.parts):
        raise RuntimeError(f"{pidfile}: names {base}, not a folder {FOLDER_PREFIX}* this kit makes; "
                           "delete the file after checking")
    if supervisor and runs(supervisor, str(base)):
        if _parent(supervisor) == collector:
            raise RuntimeError(f"{pidfile}: the collection that started this server (pid "
                               f"{collector}) still runs; let it finish or stop it first")
        end(supervisor, str(base), ((signal.SIGTERM, STOP_WAIT_S + 10), (signal.SIGKILL, 10)))
    remove(base)
    Path(pidfile).unlink(missing_ok=True)


def _parent(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:")),
                None)


def _server_user() -> pwd.struct_passwd | None:
    """None when not root; else the dedicated user the server runs as (created if missing)."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("CAUSALEVAL_PG_USER", "causaleval")
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    try:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        name], check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as err:
        raise RuntimeError(f"PostgreSQL cannot run as root and the user {name!r} could not be "
                           f"created: {err}; create it or set CAUSALEVAL_PG_USER") from err
    return pwd.getpwnam(name)


class PostgresEngine:
    """Runs queries on the three index-level databases of a private server.

    The server's record (:data:`PIDFILE`) is kept in ``workdir``, in the collection's output
    folder, so a rerun there stops a server a killed collection left.
    """

    name = "postgres"
    treatments = TREATMENTS
    outcomes = OUTCOMES

    def __init__(self, db: StackDatabase, workdir: Path):
        self.server = PostgresServer(pidfile=Path(workdir) / PIDFILE)
        self.server.start()
        try:
            self.connections = {level: self._load(db, level) for level in TREATMENTS["index_level"]}
        except BaseException:
            self.server.stop()
            raise

    def _load(self, db: StackDatabase, level: int):
        name = f"stack_index{level}"
        with self.server.connect() as admin:
            admin.execute(f"CREATE DATABASE {name}")
        conn = self.server.connect(name)
        for statement in create_statements():
            conn.execute(statement)
        for table, frame in db.tables.items():
            buffer = io.StringIO()
            frame.to_csv(buffer, index=False, header=False, na_rep="\\N")
            with conn.cursor().copy(f"COPY {table} FROM STDIN WITH (FORMAT csv, NULL '\\N')") as copy:
                copy.write(buffer.getvalue())
        for statement in index_statements(level):
            conn.execute(statement)
        conn.execute("VACUUM ANALYZE")
        return conn

    def versions(self) -> dict[str, str]:
        import psycopg

        return {"postgres": self.server.version(), "psycopg": psycopg.__version__}

    def settings(self) -> dict[str, object]:
        return {"server": self.server.settings, "page_cost": PAGE_COST, "memory": MEMORY,
                "index_levels": {0: "none", 1: "keys", 2: "keys + filtered columns"}}

    def run(self, sql: str, cell: dict, timeout_s: float) -> dict:
        import psycopg

        conn = self.connections[cell["index_level"]]
        random_cost, seq_cost = PAGE_COST[cell["page_cost"]]
        temp_buffers, work_mem = MEMORY[cell["memory_level"]]
        try:
            conn.execute(f"SET random_page_cost = {random_cost}; SET seq_page_cost = {seq_cost}; "
                         f"SET temp_buffers = '{temp_buffers}'; SET work_mem = '{work_mem}'; "
                         f"SET statement_timeout = {int(timeout_s * 1000)}")
            plan = conn.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}").fetchone()[0][0]
        except psycopg.errors.QueryCanceled as err:
            raise QueryFailed("timeout", f"no result within {timeout_s} s") from err
        except psycopg.Error as err:
            if conn.broken:  # the server went away: not an outcome of this run
                raise RuntimeError(f"lost the connection to the PostgreSQL server in "
                                   f"{self.server.base}: {err}") from err
            raise QueryFailed("error", f"{type(err).__name__}: {str(err).strip()}") from err
        top = plan["Plan"]
        return {
            "runtime_ms": plan["Planning Time"] + plan["Execution Time"],
            "planning_ms": plan["Planning Time"], "execution_ms": plan["Execution Time"],
            "shared_hit_blocks": top["Shared Hit Blocks"], "shared_read_blocks": top["Shared Read Blocks"],
            "temp_read_blocks": top["Temp Read Blocks"], "temp_written_blocks": top["Temp Written Blocks"],
            "rows_returned": top["Actual Rows"],
        }

    def close(self) -> None:
        for conn in getattr(self, "connections", {}).values():
            conn.close()
        self.server.stop()
