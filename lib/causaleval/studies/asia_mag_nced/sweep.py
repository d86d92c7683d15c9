"""Study 1's sensitivity sweep: the gaps to the paper under every (test, alpha, sample size) and reading."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from causaleval.datasets import network_graph
from causaleval.datasets.networks import draw_samples
from causaleval.graphs import CausalGraph, GraphBatch, latent_projection
from causaleval.parallel import run_trials
from causaleval.api import learn_one
from causaleval.studies.asia_mag_nced.tables import compare, gaps


# ---------------------------------------------------------------------- sensitivity
#: Learners that run conditional-independence tests: only their graphs change with
#: ``ci_test`` and ``alpha`` (hill climbing scores with BIC).
CI_LEARNERS = ("pc", "fci")


@dataclass(frozen=True)
class MainRun:
    """The main run's graphs and settings, for the sweep to reuse (issue 24): ``graphs["mag"]``
    learned on ``network`` with the latent columns removed, ``graphs[name]`` on each full
    network, every batch ``n_graphs`` graphs of ``n_samples`` rows learned with ``ci_test`` and
    ``alpha`` (:func:`causaleval.api.learn_graphs`)."""

    graphs: Mapping[str, Mapping[str, GraphBatch]]
    ci_test: str
    alpha: float
    n_samples: int
    n_graphs: int


def _reused(main: MainRun | None, key: str, n: int, g: int, alg: str, ci: str, a: float | None,
            n_graphs: int, file: str | None) -> CausalGraph | None:
    """The main run's graph for sweep job (key, n, g, alg, ci, a), or None when the settings do
    not coincide: same rows, the same sample g (seeded ``seed + g`` without a data file; with
    one, the same partition, so the same number of graphs), and for a learner of
    :data:`CI_LEARNERS` the same test and alpha."""
    if main is None or n != main.n_samples or g >= main.n_graphs or alg not in main.graphs.get(key, {}):
        return None
    if file is not None and n_graphs != main.n_graphs:
        return None
    if a is not None and (ci, a) != (main.ci_test, main.alpha):
        return None
    return main.graphs[key][alg][g]


def sensitivity_table(
    network: str, latent: Sequence[str], second_network: str, algorithms: Sequence[str],
    ks: Sequence[float], table2_ks: Sequence[float], paper1: pd.DataFrame, paper2: pd.DataFrame, *,
    ci_tests: Sequence[str], alphas: Sequence[float], sample_sizes: Sequence[int], n_graphs: int,
    seed: int, data_file: str | None = None, second_data_file: str | None = None,
    readings: Sequence[str] = ("kit", "causal-learn endpoint matrix"), n_jobs: int = 1,
    main: MainRun | None = None,
) -> pd.DataFrame:
    """The gaps of :func:`gaps` for every (ci_test, alpha, sample size) and reading, each
    setting learning ``n_graphs`` graphs per algorithm from the main run's first samples
    (seed, seed + 1, ..., or the first disjoint samples of ``data_file`` and
    ``second_data_file``). A learner outside :data:`CI_LEARNERS` is learned once per sample
    size and shared by the settings. Where a job's settings coincide with ``main``'s (the
    notebook's main run), its graph is taken from there instead of learned again
    (:func:`_reused`); the table is the same either way."""
    sources = {"mag": (network, tuple(latent), data_file), network: (network, (), data_file),
               second_network: (second_network, (), second_data_file)}
    samples = {(key, n): draw_samples(net, lat, n, n_graphs, seed, file)
               for key, (net, lat, file) in sources.items() for n in sample_sizes}
    settings = list(itertools.product(ci_tests, alphas, sample_sizes))

    def job(alg: str, ci: str, a: float) -> tuple[str, float | None]:
        return (ci, a) if alg in CI_LEARNERS else ("-", None)

    jobs = sorted({(key, n, g, alg, *job(alg, ci, a)) for key in sources for ci, a, n in settings
                   for g in range(n_graphs) for alg in algorithms}, key=str)
    graphs = {job: got for job in jobs
              if (got := _reused(main, *job, n_graphs=n_graphs, file=sources[job[0]][2])) is not None}
    todo = [job for job in jobs if job not in graphs]
    grid = [dict(learner=alg, data=samples[(key, n)][g], ci_test=ci if ci != "-" else ci_tests[0],
                 alpha=a if a is not None else alphas[0], seed=seed + g,
                 where=f"sweep: learner {alg!r} on network {sources[key][0]!r}, seed {seed + g}")
            for key, n, g, alg, ci, a in todo]
    graphs |= dict(zip(todo, run_trials(learn_one, grid, n_jobs=n_jobs, progress=False)))
    truths = {network: network_graph(network), second_network: network_graph(second_network)}
    truth_mag = latent_projection(truths[network], latent)
    rows = []
    for ci, a, n in settings:
        def batch(key: str, alg: str) -> GraphBatch:
            got = [graphs[(key, n, g, alg, *job(alg, ci, a))] for g in range(n_graphs)]
            return GraphBatch.from_graphs(got, list(samples[(key, n)][0].columns))

        mag = {alg: batch("mag", alg) for alg in algorithms}
        full = {net: {alg: batch(net, alg) for alg in algorithms} for net in truths}
        for reading in readings:
            t1, t2 = compare(truth_mag, mag, truths, full, ks, table2_ks, paper1, paper2, reading)
            rows.append({"ci_test": ci, "alpha": a, "n_samples": n, "reading": reading, **gaps(t1, t2)})
    return pd.DataFrame(rows)


def closest_settings(sensitivity: pd.DataFrame) -> pd.DataFrame:
    """Per reading, the setting of :func:`sensitivity_table` with the smallest sum of the
    Table 1 and Table 2 gaps."""
    total = (sensitivity["Table 1 gap"] + sensitivity["Table 2 gap"]).dropna()  # NaN: no paper value to compare
    best = sensitivity.loc[total.groupby(sensitivity.loc[total.index, "reading"], sort=False).idxmin()]
    return best.assign(**{"gap sum": total[best.index]}).reset_index(drop=True)
