"""Ground-truth networks: those shipped inside the pgmpy wheel (bnlearn repository BIF
files), a user's BIF/XMLBIF file, or a user's edge list (:mod:`causaleval.datasets.user`).

A *network* is named by a string: a shipped name (``"asia"``), or the path of a file
(``"my/net.bif"``, ``"my/truth.edges"``; see :func:`is_file_spec`). :func:`network_graph`
gives its DAG; :func:`load_network` its probability tables (a shipped name or a BIF file; an
edge list has none, so its data come from observations, :func:`draw_samples`).

pgmpy's ``example_models.load_model`` downloads from a model hub and fails offline, and
``utils.get_example_model`` is deprecated (removed in pgmpy 1.3), so we read the
``.bif.gz`` files that pgmpy ships under ``pgmpy/utils/example_models`` directly.
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causaleval.datasets import user
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


def is_file_spec(network: str) -> bool:
    """A network given as a file path (a path separator or a ``.`` in it) rather than a shipped name."""
    return any(ch in network for ch in "/\\.")


def load_network(name: str) -> Any:
    """The pgmpy ``DiscreteBayesianNetwork`` of a shipped network or of a BIF/XMLBIF file,
    parsed once per process (a file again when it changes)."""
    if is_file_spec(name):
        if not user.is_bif(name):
            raise ValueError(f"network {name!r} is an edge list: it has no probability tables to sample "
                             "from; give its observations (parameter data_file), or a .bif/.xmlbif file")
        return user.read_bif(name)
    return _shipped(name)


@functools.lru_cache(maxsize=16)
def _shipped(name: str) -> Any:
    path = _model_dir() / f"{name}.bif.gz"
    if not path.exists():
        raise ValueError(f"unknown network {name!r}; pgmpy ships: {', '.join(available_networks())} "
                         "(or give the path of a .bif/.xmlbif file or of an edge list)")
    from pgmpy.readwrite import BIFReader

    with gzip.open(path, "rt") as fh:
        return BIFReader(string=fh.read()).get_model()


def network_graph(name: str) -> CausalGraph:
    """The DAG of a network as a :class:`CausalGraph`, named after the network (a file: its stem)."""
    if is_file_spec(name) and not user.is_bif(name):
        return user.read_edge_list(name)
    label = user.resolve(name).name.split(".")[0] if is_file_spec(name) else name
    return CausalGraph.from_pgmpy(load_network(name), name=label)


def draw_samples(network: str, latent: Sequence[str], n_samples: int, n_graphs: int, seed: int,
                 data_file: str | None = None) -> list[pd.DataFrame]:
    """Samples 0, ..., n_graphs - 1 of ``network`` (:func:`draw_sample`)."""
    return [draw_sample(network, latent, n_samples, n_graphs, g, seed, data_file) for g in range(n_graphs)]


def draw_sample(network: str, latent: Sequence[str], n_samples: int, n_graphs: int, g: int, seed: int,
                data_file: str | None = None) -> pd.DataFrame:
    """Sample g of ``n_graphs``, the ``latent`` columns removed, columns in the graph's node
    order: without ``data_file``, ``n_samples`` rows drawn from the network with seed
    ``seed + g``; with it, the g-th of the disjoint samples of its observations
    (:func:`causaleval.datasets.user.disjoint_samples`, shuffled with ``seed``)."""

    graph = network_graph(network)
    observed = [v for v in graph.nodes if v not in set(latent)]
    if data_file is None:
        return forward_sample(load_network(network), n_samples, seed + g)[observed]
    data = user.read_observations(data_file, graph)
    return user.disjoint_samples(data, n_samples, n_graphs, seed, str(user.resolve(data_file)))[g][observed]


def check_network(network: str, data_file: str | None, sizes: dict[str, tuple[int, int]],
                  names: tuple[str, str] = ("network", "data_file")) -> CausalGraph:
    """The DAG of ``network`` after checking, for a study's parameters ``names``, that the
    network is a shipped name or a readable file, that an edge list comes with observations
    (a BIF file or shipped name may too) that fit it, and that they hold enough rows for each
    ``sizes[what] = (rows per sample, samples)``. Raises a ValueError naming the parameter."""
    key, data_key = names
    try:
        graph = network_graph(network)
        if data_file is None:
            load_network(network)
    except (ValueError, FileNotFoundError) as err:
        raise ValueError(f"parameter {key} = {network!r}: {err}") from err
    if data_file is not None:
        try:
            rows = len(user.read_observations(data_file, graph))
        except (ValueError, FileNotFoundError) as err:
            raise ValueError(f"parameter {data_key} = {data_file!r}: {err}") from err
        for what, (n, samples) in sizes.items():
            if n * samples > rows:
                raise ValueError(f"parameter {what}: {samples} disjoint sample(s) of {n} rows need "
                                 f"{n * samples} rows; {data_key} = {data_file!r} has {rows}")
    return graph


def fingerprint(*specs: str | None) -> str:
    """SHA-256 over the bytes of the files among ``specs`` (network files and data files;
    shipped names and None are skipped), for cache keys that change when a file does."""
    import hashlib

    digest = hashlib.sha256()
    for spec in specs:
        if spec is not None and is_file_spec(spec):
            path = user.resolve(spec)
            digest.update(str(path).encode() + b"\0" + (path.read_bytes() if path.is_file() else b"") + b"\0")
    return digest.hexdigest()


def forward_sample(model: Any, n: int, seed: int) -> pd.DataFrame:
    """``n`` i.i.d. rows from a pgmpy discrete Bayesian network by ancestral sampling.

    Each column holds integer state codes in the order of the network's own state
    names (``df.attrs["states"][var]`` lists them), so codes do not depend on
    alphabetical order (unlike pgmpy's ``simulate``). Columns follow the network's
    node order. Deterministic in ``seed``; vectorized over rows.
    """
    import networkx as nx

    if n <= 0:
        raise ValueError(f"n must be a positive number of rows, got {n}")
    rng = np.random.default_rng(seed)
    codes: dict[str, np.ndarray] = {}
    states: dict[str, list[str]] = {}
    for var in nx.topological_sort(model):
        cpd = model.get_cpds(var)
        card = int(cpd.cardinality[0])
        table = cpd.values.reshape(card, -1)
        parents = cpd.variables[1:]
        if parents:
            config = np.ravel_multi_index([codes[p] for p in parents], cpd.cardinality[1:])
        else:
            config = np.zeros(n, dtype=np.intp)
        cum = np.cumsum(table, axis=0)[:, config]
        u = rng.random(n)
        codes[var] = np.minimum((u[None, :] > cum).sum(axis=0), card - 1).astype(np.int16)
        states[var] = [str(s) for s in cpd.state_names[var]]
    order = [str(v) for v in model.nodes()]
    df = pd.DataFrame({v: codes[v] for v in order})
    df.attrs["states"] = {v: states[v] for v in order}
    return df
