"""Progress of a study run on the command line: the notebook's cell, and the trials inside it.

Papermill runs the notebook cell by cell (:class:`ProgressEngine` reports each code cell as it
starts, named by the section heading above it); inside a cell, :func:`causaleval.parallel.run_trials`
appends a JSON line per finished trial to the file named by ``CAUSALEVAL_PROGRESS`` (set by
:meth:`RunProgress.environ` for the kernel), which a thread of the command reads twice a second.
On a terminal both show as tqdm bars (cells, then trials: count, rate, time left); elsewhere (a log
file, ``make reproduce`` piped, a test) as plain lines, one per cell and at most one per
:data:`LINE_EVERY` seconds per trial loop, in tqdm's own format. ``--quiet`` shows none.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

from papermill.engines import NBClientEngine

#: the environment variable naming the kernel's progress file
CHANNEL = "CAUSALEVAL_PROGRESS"
#: seconds between two plain progress lines of one trial loop
LINE_EVERY = 10.0
_HEADING = re.compile(r"^#{1,6}\s+(.+)$", re.M)


def cell_label(cells: list[Any], index: int) -> str:
    """What a code cell does, for a person: the last heading above it (``Table 2``), its
    ``parameters`` tag, or its first line of code."""
    cell = cells[index]
    tags = cell.get("metadata", {}).get("tags", [])
    if "injected-parameters" in tags:
        return "injected parameters"
    if "parameters" in tags:
        return "parameters"
    for earlier in reversed(cells[:index]):
        if earlier.get("cell_type") == "markdown":
            headings = _HEADING.findall(earlier.get("source", ""))
            if headings:
                return headings[-1].strip()[:60]
    first = next((line for line in cell.get("source", "").splitlines() if line.strip()
                  and not line.lstrip().startswith("#")), "")
    return first.strip()[:60]


class RunProgress:
    """Progress lines of one study run on ``stream`` (stderr); a context manager that reads the
    kernel's progress file while the run lasts. ``quiet`` shows nothing."""

    def __init__(self, study: str, channel: Path, quiet: bool = False, stream: TextIO | None = None):
        self.study, self.channel, self.quiet = study, channel, quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._cells: list[int] = []
        self._cell_bar: Any = None
        self._trial_bar: Any = None
        self._trial: dict[str, Any] = {}
        self._started = time.monotonic()
        self._last_line = 0.0
        self._offset = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)

    def environ(self) -> dict[str, str]:
        """The kernel's environment for trial progress (empty when quiet)."""
        return {} if self.quiet else {CHANNEL: str(self.channel)}

    def __enter__(self) -> RunProgress:
        if not self.quiet:
            self.channel.write_text("")
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.quiet:
            self._stop.set()
            self._thread.join()
            self._read()
        for bar in (self._trial_bar, self._cell_bar):
            if bar is not None:
                bar.close()

    # cells, from papermill (ProgressEngine)
    def cell_start(self, cells: list[Any], index: int) -> None:
        if self.quiet or cells[index].get("cell_type") != "code":
            return
        if not self._cells:
            self._cells = [i for i, c in enumerate(cells) if c.get("cell_type") == "code"]
        position = self._cells.index(index) if index in self._cells else 0
        label = cell_label(cells, index)
        if self.tty:
            from tqdm import tqdm

            if self._cell_bar is None:
                self._cell_bar = tqdm(total=len(self._cells), unit="cell", desc=self.study, file=self.stream,
                                      position=0, leave=False)
            self._cell_bar.n = position
            self._cell_bar.set_postfix_str(label)
        else:
            elapsed = time.monotonic() - self._started
            print(f"{self.study}: cell {position + 1}/{len(self._cells)} ({label}) at {_clock(elapsed)}",
                  file=self.stream, flush=True)

    # trials, from the kernel's file
    def _follow(self) -> None:
        while not self._stop.wait(0.5):
            self._read()

    def _read(self) -> None:
        try:
            with open(self.channel) as handle:
                handle.seek(self._offset)
                text = handle.read()
        except OSError:
            return
        lines = text.split("\n")
        self._offset += len(text) - len(lines[-1])
        for line in lines[:-1]:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            self._trial_event(event)

    def _trial_event(self, event: dict[str, Any]) -> None:
        if event.get("n", 0) == 0 or event.get("loop") != self._trial.get("loop"):
            self._trial = {**event, "start": time.monotonic()}
            if self._trial_bar is not None:
                self._trial_bar.close()
                self._trial_bar = None
        self._trial.update(n=event["n"], item=event.get("item", ""))
        done = event["n"] == event["total"]
        if self.tty:
            from tqdm import tqdm

            if self._trial_bar is None:
                self._trial_bar = tqdm(total=event["total"], desc=event["desc"], unit="trial", file=self.stream,
                                       position=1, leave=False)
            self._trial_bar.update(event["n"] - self._trial_bar.n)
            self._trial_bar.set_postfix_str(event.get("item", ""), refresh=True)
        elif done or time.monotonic() - self._last_line >= LINE_EVERY:
            from tqdm import tqdm

            self._last_line = time.monotonic()
            meter = tqdm.format_meter(event["n"], event["total"], time.monotonic() - self._trial["start"],
                                      prefix=f"{self.study}: {event['desc']}", unit="trial", ncols=0)
            item = f" (last: {event['item']})" if event.get("item") else ""
            print(f"{meter}{item}", file=self.stream, flush=True)


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes:02d}:{secs:02d}"


class ProgressEngine(NBClientEngine):
    """Papermill's nbclient engine, reporting each cell's start to the ``progress`` it is given."""

    @classmethod
    def execute_managed_notebook(cls, nb_man: Any, kernel_name: str, progress: RunProgress | None = None,
                                 **kwargs: Any) -> Any:
        if progress is not None:
            started = nb_man.cell_start

            def cell_start(cell: Any, cell_index: int | None = None, **kw: Any) -> None:
                started(cell, cell_index, **kw)
                progress.cell_start(nb_man.nb.cells, cell_index)

            nb_man.cell_start = cell_start
        return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)


def register() -> str:
    """Register :class:`ProgressEngine` with papermill; returns its engine name."""
    from papermill.engines import papermill_engines

    papermill_engines.register("causaleval", ProgressEngine)
    return "causaleval"
