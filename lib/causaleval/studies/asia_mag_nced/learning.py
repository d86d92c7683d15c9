"""Study 1's learned graphs: each learner on its own samples of a network."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from causaleval.datasets.networks import draw_samples
from causaleval.graphs import CausalGraph, GraphBatch
from causaleval.learn.learners import learn
from causaleval.parallel import run_trials


# ---------------------------------------------------------------------- learning
def _learn_one(algorithm: str, data: pd.DataFrame, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    return learn(algorithm, data, ci_test=ci_test, alpha=alpha, seed=seed)


def learn_graphs(
    network: str, algorithms: Sequence[str], *, latent: Sequence[str] = (), n_samples: int,
    n_graphs: int, ci_test: str, alpha: float, seed: int, data_file: str | None = None,
    n_jobs: int = 1, progress: bool = True,
) -> dict[str, GraphBatch]:
    """``n_graphs`` graphs per algorithm, graph g learned from its own sample of ``network``
    with the ``latent`` columns removed (drawn with seed + g, or the g-th disjoint sample of
    ``data_file``: :func:`causaleval.datasets.networks.draw_samples`). The samples are shared
    by the algorithms, so they are compared on the same data."""
    samples = draw_samples(network, latent, n_samples, n_graphs, seed, data_file)
    grid = [dict(algorithm=a, data=samples[g], ci_test=ci_test, alpha=alpha, seed=seed + g)
            for a in algorithms for g in range(n_graphs)]
    graphs = run_trials(_learn_one, grid, n_jobs=n_jobs, progress=progress, desc=f"learning on {network}")
    observed = list(samples[0].columns)
    return {a: GraphBatch.from_graphs(graphs[i * n_graphs:(i + 1) * n_graphs], observed)
            for i, a in enumerate(algorithms)}
