"""Discrete Bayesian networks shipped inside the pgmpy wheel (bnlearn repository BIF files).

pgmpy's ``example_models.load_model`` downloads from a model hub and fails offline, and
``utils.get_example_model`` is deprecated (removed in pgmpy 1.3), so we read the
``.bif.gz`` files that pgmpy ships under ``pgmpy/utils/example_models`` directly.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path
from typing import Any

from causaleval.graphs import CausalGraph


def _model_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("pgmpy")
    if spec is None or spec.origin is None:
        raise ImportError("pgmpy is not installed; run `make test` or `pip install -e .`")
    return Path(spec.origin).parent / "utils" / "example_models"


def available_networks() -> list[str]:
    """Names of the networks shipped with the installed pgmpy (asia, sachs, alarm, child, ...)."""
    return sorted(p.name.removesuffix(".bif.gz") for p in _model_dir().glob("*.bif.gz"))


@functools.lru_cache(maxsize=16)
def load_network(name: str) -> Any:
    """The pgmpy ``DiscreteBayesianNetwork`` of a shipped network, parsed once per process."""
    path = _model_dir() / f"{name}.bif.gz"
    if not path.exists():
        raise ValueError(f"unknown network {name!r}; pgmpy ships: {', '.join(available_networks())}")
    from pgmpy.readwrite import BIFReader

    with gzip.open(path, "rt") as fh:
        return BIFReader(string=fh.read()).get_model()


def network_graph(name: str) -> CausalGraph:
    """The DAG of a shipped network as a :class:`CausalGraph` named after the network."""
    return CausalGraph.from_pgmpy(load_network(name), name=name)
