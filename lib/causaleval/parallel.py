"""Running independent trials in parallel: joblib processes locally, Dask when configured.

Set a Dask scheduler with ``scheduler="tcp://host:8786"`` or the environment variable
``CAUSALEVAL_DASK_SCHEDULER``; the same call then runs its trials on that cluster
through joblib's Dask backend. Results come back in the order of ``grid``, so a run
is deterministic whatever the backend, provided each trial seeds itself from its
own arguments. When ``CAUSALEVAL_PROGRESS`` names a file (the command line sets it for the kernel
of a run, :mod:`causaleval.app.progress`), every finished trial appends a line to it, so the command
shows how far the trials are, whatever the notebook's own ``progress`` setting. Plugins imported in the calling process
(:mod:`causaleval.plugins`) are imported in every worker before its trials, so a plugin's learners run there too.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class _WithPlugins:
    """``fn`` preceded by importing the caller's plugins (picklable, for worker processes)."""

    fn: Callable[..., Any]
    plugins: tuple[str, ...]

    def __call__(self, **kwargs: Any) -> Any:
        from causaleval.plugins import load, loaded

        if not set(self.plugins) <= set(loaded()):  # once per worker process
            load(list(self.plugins))
        return self.fn(**kwargs)


_LOOPS = itertools.count()


class _Channel:
    """The trial loop's lines in the file of ``CAUSALEVAL_PROGRESS`` (nothing when it is unset):
    ``{"loop", "desc", "n", "total", "item"}``, ``item`` naming the last finished trial by its short
    scalar arguments (``learner=pc, seed=3``)."""

    def __init__(self, desc: str, total: int):
        target = os.environ.get("CAUSALEVAL_PROGRESS")
        self.file = open(target, "a") if target else None  # noqa: SIM115 - closed by close()
        self.head = {"loop": f"{os.getpid()}-{next(_LOOPS)}", "desc": desc, "total": total}
        self.send(0, {})

    def send(self, n: int, kwargs: Mapping[str, Any]) -> None:
        if self.file is None:
            return
        item = ", ".join(f"{k}={v}" for k, v in kwargs.items()
                         if isinstance(v, (str, int, float)) and len(str(v)) <= 30)
        self.file.write(json.dumps({**self.head, "n": n, "item": item[:80]}) + "\n")
        self.file.flush()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def run_trials(
    fn: Callable[..., Any],
    grid: Iterable[Mapping[str, Any]],
    *,
    n_jobs: int = -1,
    scheduler: str | None = None,
    progress: bool = True,
    desc: str = "trials",
) -> list[Any]:
    """``[fn(**kwargs) for kwargs in grid]``, in parallel, with a progress bar."""
    from joblib import Parallel, delayed, parallel_backend
    from tqdm import tqdm

    from causaleval.plugins import loaded

    grid = list(grid)
    if loaded():
        fn = _WithPlugins(fn, loaded())
    scheduler = scheduler or os.environ.get("CAUSALEVAL_DASK_SCHEDULER")
    bar = tqdm(total=len(grid), desc=desc, disable=not progress)
    calls = (delayed(fn)(**kwargs) for kwargs in grid)
    results: list[Any] = []
    with contextlib.ExitStack() as stack:
        channel = stack.enter_context(contextlib.closing(_Channel(desc, len(grid))))
        if scheduler:
            from dask.distributed import Client

            stack.enter_context(Client(scheduler))
            stack.enter_context(parallel_backend("dask"))
        for r in Parallel(n_jobs=None if scheduler else n_jobs, return_as="generator")(calls):
            results.append(r)
            bar.update()
            channel.send(len(results), grid[len(results) - 1])
    bar.close()
    return results
