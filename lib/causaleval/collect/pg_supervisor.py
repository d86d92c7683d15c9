"""The supervisor of the collector's private PostgreSQL server: a standard-library script (it imports
nothing of the kit, so it stays a small process that is easy to trust), started by
:class:`causaleval.collect.postgres.PostgresServer` as ``python -I pg_supervisor.py SPEC``.

It runs initdb with access rules that admit the collector alone, starts the postmaster (with the
Linux parent-death signal, a fast shutdown, in case the supervisor itself is killed), reports
``{"ready": pid}`` or ``{"error": message}`` on its standard output, then waits until the collector
closes the pipe on its standard input or dies, or for SIGTERM/SIGINT/SIGHUP, and stops the server
(fast shutdown, then immediate, then SIGKILL) and deletes its folder.
"""

import contextlib
import ctypes
import json
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROLE = "causaleval"
STOP_WAIT_S = 30.0  # for a fast shutdown, before an immediate one

HBA = ("# causaleval: the role causaleval alone, over the private Unix socket alone, from the\n"
       "# collector's system user alone (map in pg_ident.conf); no TCP, everything else rejected\n"
       f"local all {ROLE} peer map=collector\n")


def supervise(spec_json: str) -> int:
    """The supervisor (run by :meth:`PostgresServer.start`): start the server, report
    ``{"ready": pid}`` or ``{"error": message}`` on stdout, wait until the collector closes
    the pipe on stdin or dies, then stop the server and delete its folder."""
    spec = json.loads(spec_json)
    base, parent = Path(spec["base"]), os.getppid()

    def leave(signum, frame):
        raise SystemExit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, leave)
    try:
        server = _start_server(base, Path(spec["bindir"]), spec["settings"], spec["user"])
        _report({"ready": server.pid})
        while server.poll() is None and os.getppid() == parent:
            readable, _, _ = select.select([sys.stdin], [], [], 0.5)
            if readable and not os.read(sys.stdin.fileno(), 4096):
                break  # the collector closed the pipe, or died
    except RuntimeError as err:
        _report({"error": str(err)})
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        remove(base)  # a server still starting has the parent-death signal when we exit
    return 0


def _start_server(base: Path, bindir: Path, settings: dict, user: str | None) -> subprocess.Popen:
    """initdb, the access rules, then the postmaster; returns once it accepts connections."""
    datadir, log = base / "data", base / "server.log"
    account = pwd.getpwnam(user) if user else None
    as_user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []} if account else {}
    initdb = subprocess.run(
        [str(bindir / "initdb"), "-D", str(datadir), "-U", ROLE, "-A", "reject", "-E", "UTF8",
         "--no-sync", "--no-instructions", "--locale=C"],
        capture_output=True, text=True, cwd=base, **as_user)
    if initdb.returncode != 0:
        raise RuntimeError(f"initdb failed ({initdb.returncode}): {initdb.stderr.strip()}")
    (datadir / "pg_hba.conf").write_text(HBA)
    collector = pwd.getpwuid(os.geteuid()).pw_name
    (datadir / "pg_ident.conf").write_text(f"collector {collector} {ROLE}\n")
    options = [arg for key, value in {**settings, "unix_socket_directories": str(base)}.items()
               for arg in ("-c", f"{key}={value}")]
    with open(log, "wb") as out:
        server = subprocess.Popen([str(bindir / "postgres"), "-D", str(datadir), *options],
                                  stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                  cwd=base, preexec_fn=_parent_death_signal(), **as_user)
    deadline = time.monotonic() + 60
    while server.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(FileNotFoundError):
            status = (datadir / "postmaster.pid").read_text().split("\n")
            if len(status) > 7 and status[7].strip() == "ready":
                return server
        time.sleep(0.05)
    end(server.pid, str(datadir))
    server.wait()
    raise RuntimeError(f"the server did not accept connections within 60 s:\n"
                       f"{log.read_text(errors='replace')[-1500:]}")


def _parent_death_signal():
    """A ``preexec_fn`` giving the server SIGINT (fast shutdown) when the supervisor dies."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # loaded before the fork
    return lambda: prctl(1, signal.SIGINT)  # 1 = PR_SET_PDEATHSIG


def _report(answer: dict) -> None:
    with contextlib.suppress(BrokenPipeError):
        print(json.dumps(answer), flush=True)


def remove(base: Path) -> None:
    """Stop the postmaster of ``base/data`` if one runs, then delete ``base``."""
    datadir = base / "data"
    with contextlib.suppress(OSError, ValueError):
        end(int((datadir / "postmaster.pid").read_text().split("\n", 1)[0]), str(datadir))
    shutil.rmtree(base, ignore_errors=True)


def end(pid: int, marker: str, steps=((signal.SIGINT, STOP_WAIT_S), (signal.SIGQUIT, 10.0),
                                       (signal.SIGKILL, 10.0))) -> None:
    """Signal process ``pid`` (if it still runs with ``marker`` in its command line) until
    it exits: for a postmaster a fast shutdown, then an immediate one, then SIGKILL."""
    for signum, seconds in steps:
        if not runs(pid, marker):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)
        deadline = time.monotonic() + seconds
        while runs(pid, marker) and time.monotonic() < deadline:
            time.sleep(0.05)


def runs(pid: int, marker: str) -> bool:
    """Whether ``pid`` is a live process with ``marker`` in its command line (a reused pid
    or a zombie has not)."""
    try:
        return marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(supervise(sys.argv[1]))
