"""What the collection runner needs of a query engine, and how a run fails."""

from __future__ import annotations

from typing import Protocol


class QueryFailed(Exception):
    """A run that did not finish: ``status`` is ``timeout`` or ``error``."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


class Engine(Protocol):
    """Runs one query under one treatment cell and returns its outcomes."""

    name: str
    treatments: dict[str, tuple]
    outcomes: tuple[str, ...]

    def run(self, sql: str, cell: dict, timeout_s: float) -> dict: ...
    def versions(self) -> dict[str, str]: ...
    def settings(self) -> dict[str, object]: ...
    def close(self) -> None: ...
