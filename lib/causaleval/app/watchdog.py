"""The watchdog of a study run: a standard-library script, so it imports nothing of the kit.

``causaleval run`` starts it (``python -I watchdog.py PGID [FOLDER]``) once the notebook's kernel runs, with a
pipe on its standard input. The kernel runs in a process group of its own, and every process it
starts (joblib's loky workers, their resource trackers, a local Dask cluster's processes) inherits
that group. When the pipe closes, because the run ended or because the command died (``kill -9``,
an out-of-memory kill, a closed terminal), the watchdog kills the whole group with SIGKILL, so no
process of the run outlives its command; it then removes ``FOLDER`` when given (the kernel's
private socket folder, which a killed command cannot remove itself). It ignores SIGINT, SIGTERM and SIGHUP: a Ctrl-C or
a ``kill`` sent to the command's group must not end it before it has done its work.
"""

import os
import shutil
import signal
import sys


def main(argv: list) -> int:
    if len(argv) not in (2, 3) or not argv[1].isdigit():
        print("usage: watchdog.py PGID [FOLDER] (standard input: a pipe from the run)", file=sys.stderr)
        return 2
    pgid = int(argv[1])
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    while os.read(sys.stdin.fileno(), 4096):  # returns b"" once every writer has closed the pipe
        pass
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # the group is gone already
        pass
    if len(argv) == 3:
        shutil.rmtree(argv[2], ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
