"""``causaleval lab [--port N]`` (``make lab``): JupyterLab on the kit's notebooks and the user's own
studies, for this user only.

The lab opens a private temporary folder holding two links: ``kit`` (the kit's ``notebooks/``) and
``studies`` (each folder of the user's studies, :func:`causaleval.paths.study_dirs`: ``./studies``
and those of ``CAUSALEVAL_STUDIES``; ``studies-2``, ... when there are several), so both are one
click away whatever folder the command runs from. The server listens on 127.0.0.1 only and
requires a random token (``secrets.token_urlsafe``), so no other machine and no other local user
without the token can open the notebooks. As root (containers, CI machines) JupyterLab refuses to
start unless told it may; we tell it, since the server is bound to the loopback address and
token-protected either way. Notebooks run in the kit's kernel ``causaleval``
(:mod:`causaleval.app.kernel`). The URL with its token is printed once the server answers. Ctrl-C,
SIGTERM or SIGHUP stop the server and its kernels and remove the folder of links; a standard-library
watchdog (:mod:`causaleval.app.watchdog`) kills them if this command is killed outright.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from causaleval import paths
from causaleval.app.kernel import NAME as KERNEL, ensure_kernelspec

#: seconds to wait for the server to answer before giving up
START_TIMEOUT = 120.0


def lab_command(port: int, token: str, root: Path) -> list[str]:
    """The ``jupyter lab`` command line: loopback only, token required, no browser."""
    jupyter = Path(sys.executable).with_name("jupyter")
    command = [
        str(jupyter), "lab", f"--ServerApp.root_dir={root}", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--ServerApp.open_browser=False",
        f"--IdentityProvider.token={token}", f"--MappingKernelManager.default_kernel_name={KERNEL}",
    ]
    if os.geteuid() == 0:
        command.append("--ServerApp.allow_root=True")
    return command


def link_folders(root: Path) -> dict[str, Path]:
    """Links in ``root`` to the kit's notebooks (``kit``) and the user's study folders
    (``studies``, ``studies-2``, ...); returns them by name."""
    folders = {"kit": paths.NOTEBOOKS.resolve()}
    for number, folder in enumerate(paths.study_dirs()[1:], start=1):
        folders["studies" if number == 1 else f"studies-{number}"] = folder
    for name, target in folders.items():
        (root / name).symlink_to(target, target_is_directory=True)
    return folders


def _answers(port: int, token: str) -> bool:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/status",
                                     headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP end the lab as Ctrl-C does (KeyboardInterrupt), while it runs."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def serve(port: int) -> int:
    """Run JupyterLab on ``port`` until interrupted; the URL is printed once the server answers."""
    ensure_kernelspec()
    token = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="causaleval-lab-") as root, \
            tempfile.TemporaryFile("w+") as log, _stop_on_signals():
        folders = link_folders(Path(root))
        server = subprocess.Popen(lab_command(port, token, Path(root)), start_new_session=True,
                                  stdout=subprocess.DEVNULL, stderr=log)
        watchdog = subprocess.Popen([sys.executable, "-I", str(Path(__file__).with_name("watchdog.py")),
                                     str(server.pid)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not _answers(port, token):
                if server.poll() is not None:
                    log.seek(0)
                    problem = log.read().strip().splitlines()[-3:]
                    raise RuntimeError(f"lab: JupyterLab stopped before answering on port {port}: "
                                       + " ".join(problem))
                if time.monotonic() > deadline:
                    raise RuntimeError(f"lab: JupyterLab did not answer on port {port} within {START_TIMEOUT:.0f} s")
                time.sleep(0.3)
            opened = ", ".join(f"{name}/ ({paths.shown(target)})" for name, target in folders.items())
            print(f"JupyterLab: http://127.0.0.1:{port}/lab?token={token}", flush=True)
            print(f"lab: opens {opened}; Ctrl-C stops it", file=sys.stderr, flush=True)
            server.wait()
            return server.returncode
        except KeyboardInterrupt:
            return 130
        finally:
            if server.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(server.pid, signal.SIGTERM)
                try:
                    server.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    pass
            watchdog.stdin.close()  # kills what is left of the server's group (kernels included)
            watchdog.wait()
            server.wait()


def check_port(port: int) -> int:
    """``port`` when it is one a server may listen on; ValueError otherwise."""
    if not 0 < port < 65536:
        raise ValueError(f"lab: --port must lie in 1-65535, got {port}")
    return port


def main(argv: list[str] | None = None) -> int:
    """``python -m causaleval.app.lab [--port N]``, the same as ``causaleval lab``."""
    parser = argparse.ArgumentParser(prog="python -m causaleval.app.lab", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8888, help="port on 127.0.0.1 (default 8888)")
    args = parser.parse_args(argv)
    try:
        return serve(check_port(args.port))
    except (ValueError, RuntimeError) as err:
        print(f"causaleval: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
