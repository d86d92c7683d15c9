"""``python -m causaleval.app.lab`` (``make lab``): JupyterLab on the study notebooks, for this user only.

The server listens on 127.0.0.1 only and requires a random token (``secrets.token_urlsafe``),
so no other machine and no other local user without the token can open the notebooks. As root
(containers, CI machines) JupyterLab refuses to start unless told it may; we tell it, since
the server is bound to the loopback address and token-protected either way. Notebooks run in the
kit's kernel ``causaleval`` (:mod:`causaleval.app.kernel`), with the numerical environment fixed. The URL with its
token is printed before the server starts; the server replaces this process (``os.execv``), so
stopping it with Ctrl-C leaves nothing behind.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path

from causaleval import paths
from causaleval.app.kernel import NAME as KERNEL, ensure_kernelspec


def lab_command(port: int, token: str, root: Path = paths.NOTEBOOKS) -> list[str]:
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m causaleval.app.lab", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8888, help="port on 127.0.0.1 (default 8888)")
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port must lie in 1-65535, got {args.port}")
    ensure_kernelspec()
    token = secrets.token_urlsafe(32)
    command = lab_command(args.port, token)
    print(f"JupyterLab: http://127.0.0.1:{args.port}/lab?token={token}", flush=True)
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
