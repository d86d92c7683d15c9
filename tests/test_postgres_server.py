"""The private PostgreSQL server of ``collect postgres``: it never outlives its collection
(not even a ``kill -9`` of the collector), and no one but the collector connects to it."""

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from test_collect import needs_postgres

from causaleval.app import cli
from causaleval.collect import postgres

TINY = ["--subjects", "2", "--trials", "1", "--scale", "0.05"]


@pytest.fixture
def leftovers():
    """Registers collectors and server records; stops and deletes whatever a failed test left."""
    procs, pidfiles = [], []
    yield procs, pidfiles
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    for pidfile in pidfiles:
        if pidfile.exists():
            postgres.stop_stale(pidfile)


def _wait_for(check, seconds: float):
    deadline = time.monotonic() + seconds
    while not (found := check()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def _started(pidfile: Path) -> dict | None:
    """The server record once the server accepts connections."""
    try:
        state = json.loads(pidfile.read_text())
    except (OSError, ValueError):
        return None
    return state if "postmaster" in state else None


def _server_processes(state: dict) -> list[int]:
    """Live processes of the recorded server: its postmaster (by data directory) and children."""
    datadir = str(Path(state["base"]) / "data").encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
            parent = re.search(r"PPid:\s+(\d+)", (entry / "status").read_text())
        except OSError:  # not a process, or gone meanwhile
            continue
        if cmdline and (datadir in cmdline or int(parent.group(1)) == state["postmaster"]):
            found.append(int(entry.name))
    return found


def _gone(state: dict) -> bool:
    return not _server_processes(state) and not Path(state["base"]).exists()


@needs_postgres
def test_kill_9_of_the_collector_stops_the_server_and_the_rerun_completes(tmp_path, leftovers):
    procs, pidfiles = leftovers
    out, args = tmp_path / "pg", ["collect", "postgres", *TINY, "--out", str(tmp_path / "pg")]
    pidfile = out / ".work" / postgres.PIDFILE
    pidfiles.append(pidfile)
    procs.append(subprocess.Popen([sys.executable, "-m", "causaleval", *args],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    state = _wait_for(lambda: _started(pidfile), 120)
    assert state, f"the server did not start: no complete record in {pidfile}"
    assert _server_processes(state) and Path(state["base"]).is_dir()
    procs[0].send_signal(signal.SIGKILL)
    procs[0].wait()
    assert _wait_for(lambda: _gone(state), 15), f"left behind: {_server_processes(state)}, {state['base']}"
    assert cli.main(args) == 0
    runs = pd.read_csv(out / "runs.csv.gz")
    assert len(runs) == 2 * 27 and (runs["status"] == "ok").all()
    assert not (out / ".work").exists()


@needs_postgres
def test_a_server_left_by_killed_collector_and_supervisor_is_removed_by_the_next_run(
        tmp_path, leftovers):
    procs, pidfiles = leftovers
    pidfile = tmp_path / postgres.PIDFILE
    pidfiles.append(pidfile)
    start = f"from causaleval.collect.postgres import PostgresServer as S; S(pidfile={str(pidfile)!r}).start()"
    procs.append(subprocess.Popen([sys.executable, "-c", f"{start}; import time; time.sleep(300)"]))
    state = _wait_for(lambda: _started(pidfile), 60)
    assert state, f"the server did not start: no complete record in {pidfile}"
    for pid in (state["supervisor"], state["collector"]):
        os.kill(pid, signal.SIGKILL)
    # the postmaster gets its parent-death signal (a fast shutdown); the folder stays behind
    assert _wait_for(lambda: not _server_processes(state), 15)
    assert Path(state["base"]).is_dir()
    with postgres.PostgresServer(pidfile=pidfile) as server:
        assert not Path(state["base"]).exists() and server.base != Path(state["base"])
        base = server.base
    assert not base.exists() and not pidfile.exists()


@needs_postgres
@pytest.mark.skipif(os.geteuid() != 0, reason="trying other users' connections needs root")
def test_only_the_collector_connects(tmp_path):
    pidfile = tmp_path / postgres.PIDFILE
    with postgres.PostgresServer(pidfile=pidfile) as server:
        base = server.base
        folder = base.stat()
        owner = postgres._server_user()
        assert stat.S_IMODE(folder.st_mode) == 0o700 and folder.st_uid == owner.pw_uid
        with server.connect() as conn:  # the collector (root) does connect, over the socket
            assert conn.execute("SHOW listen_addresses").fetchone()[0] == ""
            assert conn.execute("SELECT inet_server_addr()").fetchone()[0] is None
        # nobody cannot reach the socket; the server's own user reaches it but is refused
        socket = f'connection to server on socket "{base}/.s.PGSQL.5432" failed: '
        psql = [str(server.bindir / "psql"), "-h", str(base), "-U", "causaleval", "-d", "postgres",
                "-w", "-c", "SELECT 1"]
        for user, refusal in (("nobody", "Permission denied"),
                              (owner.pw_name, 'FATAL:  Peer authentication failed for user "causaleval"')):
            tried = subprocess.run(["runuser", "-u", user, "--", *psql], capture_output=True,
                                   text=True, timeout=60)
            assert tried.returncode == 2 and socket + refusal in tried.stderr, (user, tried.stderr)
        # a rerun does not stop the server of a collection that still runs
        with pytest.raises(RuntimeError, match=r"started this server \(pid \d+\) still runs"):
            postgres.stop_stale(pidfile)
    assert not base.exists() and not pidfile.exists()


@pytest.mark.parametrize("record, message", [
    ("{not json", "unreadable record"),
    ('{"base": "/etc", "collector": 1}', "not a folder causaleval-pg-"),
    ('{"base": "/tmp/causaleval-pg-x/../../etc", "collector": 1}', "not a folder causaleval-pg-"),
    ('{"collector": 1}', "unreadable record"),
])
def test_a_damaged_server_record_is_refused_and_nothing_deleted(tmp_path, record, message):
    pidfile = tmp_path / postgres.PIDFILE
    pidfile.write_text(record)
    with pytest.raises(RuntimeError, match=re.escape(message)) as refused:
        postgres.stop_stale(pidfile)
    assert str(pidfile) in str(refused.value) and pidfile.exists()


@needs_postgres
def test_a_lost_server_connection_stops_the_collection_instead_of_recording_errors(tmp_path):
    engine = object.__new__(postgres.PostgresEngine)  # the run logic without loading databases
    with postgres.PostgresServer(pidfile=tmp_path / postgres.PIDFILE) as engine.server:
        engine.connections = {0: engine.server.connect()}
        cell = {"index_level": 0, "page_cost": 0, "memory_level": 0}
        assert engine.run("SELECT 1", cell, timeout_s=5)["rows_returned"] == 1
        with engine.server.connect() as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = 'postgres' AND pid <> pg_backend_pid()")
        with pytest.raises(RuntimeError, match="lost the connection to the PostgreSQL server"):
            engine.run("SELECT 1", cell, timeout_s=5)
        engine.connections[0].close()


@pytest.mark.parametrize("script", ["collect/pg_supervisor.py", "app/watchdog.py"])
def test_the_supervising_scripts_import_the_standard_library_alone(script):
    """The PostgreSQL supervisor and a run's watchdog are small processes that import nothing of the
    kit (or of any third party), run by their file path."""
    import ast
    import sys as _sys

    from causaleval import paths

    tree = ast.parse((paths.KIT / script).read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert names and names <= set(_sys.stdlib_module_names), names - set(_sys.stdlib_module_names)
