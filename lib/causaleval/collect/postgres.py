"""The PostgreSQL query domain: the generated workload on a private PostgreSQL server.

The kit starts its own server from the machine's PostgreSQL binaries (Debian's
``postgresql`` package; ``make`` installs it), on a fresh data directory in a temporary
folder, listening on 127.0.0.1 at a free port, and stops it at the end. PostgreSQL
refuses to run as root: when the kit runs as root it runs the server as the dedicated
system user ``causaleval`` (created with ``useradd`` when missing; ``CAUSALEVAL_PG_USER``
names another).

Treatments, three levels each (27 cells), as in Gentzel et al. (2019, supp. Sec. 1.2):

* ``index_level`` 0/1/2: none / ids and foreign keys / keys plus filtered columns (one
  database per level, loaded with the same tables);
* ``page_cost`` 0/1/2: ``random_page_cost``/``seq_page_cost`` of 5/1, 2/2, 1/5;
* ``memory_level`` 0/1/2: ``temp_buffers``/``work_mem`` of 800kB/64kB, 8MB/1MB, 100MB/50MB.

``shared_buffers`` is 128kB, as in the paper, so little stays cached between runs.
Outcomes come from ``EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)``: ``runtime_ms`` (planning
plus execution), ``planning_ms``, ``execution_ms``, ``shared_hit_blocks``,
``shared_read_blocks``, ``temp_read_blocks``, ``temp_written_blocks``, ``rows_returned``.
A run past the statement timeout is recorded as ``timeout``.

Each index-level database keeps one connection; the cell's settings are SET before
every run, and the run order is shuffled, so consecutive runs rarely share a setting.
"""

from __future__ import annotations

import io
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from causaleval.collect.engine import QueryFailed
from causaleval.collect.stackdb import StackDatabase, create_statements, index_statements

TREATMENTS = {"index_level": (0, 1, 2), "page_cost": (0, 1, 2), "memory_level": (0, 1, 2)}
OUTCOMES = ("runtime_ms", "planning_ms", "execution_ms", "shared_hit_blocks",
            "shared_read_blocks", "temp_read_blocks", "temp_written_blocks", "rows_returned")
PAGE_COST = {0: (5, 1), 1: (2, 2), 2: (1, 5)}  # random_page_cost, seq_page_cost
MEMORY = {0: ("800kB", "64kB"), 1: ("8MB", "1MB"), 2: ("100MB", "50MB")}  # temp_buffers, work_mem
SERVER_SETTINGS = {"shared_buffers": "128kB", "autovacuum": "off", "fsync": "off",
                   "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "20",
                   "jit": "off", "listen_addresses": "127.0.0.1"}
ROLE = "causaleval"
DEBIAN_ROOT = Path("/usr/lib/postgresql")


def find_bindir() -> Path:
    """The folder with ``initdb``, ``pg_ctl`` and ``postgres`` (newest Debian version first)."""
    candidates = []
    if os.environ.get("CAUSALEVAL_PG_BINDIR"):
        candidates.append(Path(os.environ["CAUSALEVAL_PG_BINDIR"]))
    debian = sorted(DEBIAN_ROOT.glob("*/bin"),
                    key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)
    candidates += debian
    if shutil.which("initdb"):
        candidates.append(Path(shutil.which("initdb")).parent)
    for folder in candidates:
        if all((folder / tool).exists() for tool in ("initdb", "pg_ctl", "postgres")):
            return folder
    raise RuntimeError(
        "no PostgreSQL server binaries (initdb, pg_ctl, postgres) found in "
        f"{[str(c) for c in candidates] or '/usr/lib/postgresql/*/bin or PATH'}; install Debian's "
        "`postgresql` package (make does this) or set CAUSALEVAL_PG_BINDIR")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    """A private PostgreSQL server: ``with PostgresServer() as server: server.connect(db)``."""

    def __init__(self, port: int | None = None, bindir: Path | None = None,
                 settings: dict[str, str] | None = None):
        self.bindir = Path(bindir) if bindir else find_bindir()
        self.port = port or free_port()
        self.settings = {**SERVER_SETTINGS, **(settings or {})}
        self.datadir: Path | None = None
        self._user = _server_user()

    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def version(self) -> str:
        return subprocess.run([str(self.bindir / "postgres"), "--version"], capture_output=True,
                              text=True, check=True).stdout.strip()

    def start(self) -> None:
        base = Path(tempfile.mkdtemp(prefix="causaleval-pg-"))
        self.datadir = base / "data"
        if self._user:
            os.chown(base, self._user.pw_uid, self._user.pw_gid)
        self._pg("initdb", "-D", str(self.datadir), "-U", ROLE, "-A", "trust", "-E", "UTF8",
                 "--no-sync", "--no-instructions", "--locale=C")
        options = " ".join(f"-c {k}={v}" for k, v in self.settings.items())
        options += f" -p {self.port} -c unix_socket_directories={base}"
        started = self._pg("pg_ctl", "-D", str(self.datadir), "-l", str(base / "server.log"),
                           "-o", options, "-w", "-t", "60", "start", check=False)
        if started.returncode != 0:
            log = (base / "server.log").read_text(errors="replace") if (base / "server.log").exists() else ""
            self._remove()
            hint = " (the port is taken; pass another port)" if "already in use" in log else ""
            raise RuntimeError(f"PostgreSQL did not start on 127.0.0.1:{self.port}{hint}:\n"
                               f"{started.stderr.strip()}\n{log[-1500:]}")

    def stop(self) -> None:
        if self.datadir is None:
            return
        self._pg("pg_ctl", "-D", str(self.datadir), "-m", "fast", "-w", "stop", check=False)
        self._remove()

    def connect(self, dbname: str = "postgres"):
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user=ROLE, dbname=dbname,
                               autocommit=True, connect_timeout=30)

    def _pg(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        kwargs = {"user": self._user.pw_uid, "group": self._user.pw_gid, "extra_groups": []} \
            if self._user else {}
        result = subprocess.run([str(self.bindir / tool), *args], capture_output=True, text=True,
                                cwd=tempfile.gettempdir(), **kwargs)
        if check and result.returncode != 0:
            raise RuntimeError(f"{tool} failed ({result.returncode}): {result.stderr.strip()}")
        return result

    def _remove(self) -> None:
        if self.datadir is not None:
            shutil.rmtree(self.datadir.parent, ignore_errors=True)
            self.datadir = None


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
    """Runs queries on the three index-level databases of a private server."""

    name = "postgres"
    treatments = TREATMENTS
    outcomes = OUTCOMES

    def __init__(self, db: StackDatabase, workdir: Path, port: int | None = None):
        self.server = PostgresServer(port=port)
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
        conn.execute(f"SET random_page_cost = {random_cost}; SET seq_page_cost = {seq_cost}; "
                     f"SET temp_buffers = '{temp_buffers}'; SET work_mem = '{work_mem}'; "
                     f"SET statement_timeout = {int(timeout_s * 1000)}")
        try:
            plan = conn.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}").fetchone()[0][0]
        except psycopg.errors.QueryCanceled as err:
            raise QueryFailed("timeout", f"no result within {timeout_s} s") from err
        except psycopg.Error as err:
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
