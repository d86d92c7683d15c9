"""The committed outputs: the files of ``figures/`` that git tracks, not the git-ignored ones a local
``make reproduce`` leaves beside them (the measured run times), so every checkout tests the same files."""

import subprocess

from causaleval import paths


def committed_figures() -> list[str] | None:
    """The tracked files of ``figures/``, relative to the repository root; None outside a git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "figures"], cwd=paths.ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        return None
    return [name for name in listed if name] or None
