"""The kit's Jupyter kernel, ``causaleval``: IPython started with the kit's numerical environment
(:mod:`causaleval.numenv`) in force before the first cell imports numpy.

``python -m causaleval.app.kernel -f CONNECTION_FILE`` is the kernel's command line; papermill
(``causaleval run``), ``causaleval lab`` and the notebooks' own metadata name it, and
:func:`ensure_kernelspec` installs its spec into the environment the kit runs in
(``<sys.prefix>/share/jupyter/kernels/causaleval``), where Jupyter finds it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import causaleval  # noqa: F401  (fixes the numerical environment first)

NAME = "causaleval"
DISPLAY_NAME = "Python (causaleval)"


def kernelspec() -> dict:
    """The ``kernel.json`` of the kit's kernel, for this Python."""
    return {"argv": [sys.executable, "-m", "causaleval.app.kernel", "-f", "{connection_file}"],
            "display_name": DISPLAY_NAME, "language": "python", "metadata": {"debugger": True}}


def ensure_kernelspec(prefix: str | Path = sys.prefix) -> Path:
    """Write the kernel's spec under ``prefix/share/jupyter/kernels/causaleval/`` (or, where that
    cannot be written, e.g. a system Python, the user's Jupyter data folder) when it is missing or
    names another Python; return its folder."""
    from jupyter_core.paths import jupyter_data_dir

    spec = json.dumps(kernelspec(), indent=1) + "\n"
    for root in (Path(prefix) / "share" / "jupyter", Path(jupyter_data_dir())):
        path = root / "kernels" / NAME / "kernel.json"
        try:
            if not path.exists() or path.read_text() != spec:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(spec)
            return path.parent
        except OSError as err:
            problem = err
    raise RuntimeError(f"cannot install the kernel spec {NAME!r}: {problem}")


def main() -> None:
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main()
