"""The public building blocks of a study, for the kit's studies and a user's own.

A study learns graphs over networks x learners x seeds, scores them, summarizes over the
independent runs with intervals, judges the paper's claims and cells in one vocabulary, and saves
tables and figures with provenance::

    from causaleval import api

    graphs = api.learn_graphs("asia", ["pc", "my_learner"], n_samples=1000, n_graphs=5, seed=0)
    scores = api.score_graphs(truth, graphs, {"SHD": metrics.shd_dag})    # one row per graph
    summary = api.summarize(scores, by=["learner", "metric"])             # mean, low, high, n
    row = api.agreement(runs, "0.41", item="PC SHD")                      # matches / differs
    claim = api.claim("c1", "PC beats GES", api.threshold_verdict(lo, hi, 0, ">"), "...")
    api.save_table(api.claims_table([claim]).set_index("claim"), "claims", study=..., params=...)

Everything here is a thin face over the wings (:mod:`causaleval.learn`, :mod:`causaleval.datasets`,
:mod:`causaleval.parallel`, :mod:`causaleval.verdicts`, :mod:`causaleval.report`); the names it
re-exports are those modules' own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from causaleval.datasets.networks import draw_samples
from causaleval.graphs import CausalGraph, GraphBatch
from causaleval.learn.learners import learn
from causaleval.parallel import run_trials
from causaleval.report import paper_values, save_figure, save_table
from causaleval.verdicts import (
    Interval, agreement, agreement_table, all_of, any_of, claim, claims_table, difference_interval, explained,
    mean_interval, not_comparable, threshold_verdict,
)

__all__ = ["Interval", "agreement", "agreement_table", "all_of", "any_of", "claim", "claims_table",
           "difference_interval", "explained", "learn_graphs", "learn_one", "mean_interval", "not_comparable",
           "paper_values", "save_figure", "save_table", "score_graphs", "summarize", "threshold_verdict"]


def learn_one(learner: str, data: pd.DataFrame, ci_test: str, alpha: float, seed: int, where: str) -> CausalGraph:
    """One learner's graph of ``data`` (:func:`causaleval.learn.learners.learn`); a refusal (the
    learner's own, or a graph outside its declared class) is prefixed by ``where`` (which learner,
    network and seed)."""
    try:
        return learn(learner, data, ci_test=ci_test, alpha=alpha, seed=seed)
    except ValueError as err:  # the learner's own refusal or a graph not of its declared class
        raise type(err)(f"{where}: {err}") from None


def learn_graphs(
    network: str, learners: Sequence[str], *, latent: Sequence[str] = (), n_samples: int, n_graphs: int,
    seed: int, ci_test: str = "chi_square", alpha: float = 0.05, data_file: str | None = None,
    n_jobs: int = 1, progress: bool = False,
) -> dict[str, GraphBatch]:
    """``n_graphs`` graphs per learner, graph ``g`` learned from its own sample of ``network`` with
    the ``latent`` columns removed (drawn with seed ``seed + g``, or the ``g``-th disjoint sample of
    ``data_file``: :func:`causaleval.datasets.networks.draw_samples`). The samples are shared by the
    learners, so they are compared on the same data; learners run in parallel
    (:func:`causaleval.parallel.run_trials`, joblib or Dask). Every graph is checked against its
    learner's declared class; a refusal names the learner, the network and the seed."""
    samples = draw_samples(network, latent, n_samples, n_graphs, seed, data_file)
    label = network if data_file is None else f"{network} ({data_file})"
    grid = [dict(learner=name, data=samples[g], ci_test=ci_test, alpha=alpha, seed=seed + g,
                 where=f"learner {name!r} on network {label!r}, seed {seed + g}")
            for name in learners for g in range(n_graphs)]
    graphs = run_trials(learn_one, grid, n_jobs=n_jobs, progress=progress, desc=f"learning on {network}")
    observed = list(samples[0].columns)
    return {name: GraphBatch.from_graphs(graphs[i * n_graphs:(i + 1) * n_graphs], observed)
            for i, name in enumerate(learners)}


def score_graphs(truth: CausalGraph, graphs: Mapping[str, GraphBatch],
                 metrics: Mapping[str, Callable[[CausalGraph, GraphBatch], np.ndarray]]) -> pd.DataFrame:
    """A long table ``learner, metric, run, value``: each metric (truth first, then the learned
    batch, as every metric of :mod:`causaleval.metrics` takes them) of every learned graph."""
    rows = []
    for learner, batch in graphs.items():
        for metric, fn in metrics.items():
            values = np.atleast_1d(np.asarray(fn(truth, batch), dtype=float))
            rows += [dict(learner=learner, metric=metric, run=run, value=float(v)) for run, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["learner", "metric", "run", "value"])


def summarize(table: pd.DataFrame, by: Sequence[str], value: str = "value", level: float = 0.95) -> pd.DataFrame:
    """Per group of ``by``: the mean of ``value`` over the group's rows (independent runs), its t
    interval (:func:`causaleval.verdicts.mean_interval`; undefined, NaN, for one run) and the number
    of runs ``n``. A NaN value is refused, naming the group: leave undefined runs out and count them."""
    rows = []
    for key, group in table.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        values = group[value].to_numpy(dtype=float)
        if np.isnan(values).any():
            raise ValueError(f"summarize: {int(np.isnan(values).sum())} NaN {value!r} value(s) in the group "
                             f"{dict(zip(by, key))}; leave undefined runs out (and count them) first")
        interval = mean_interval(values, level)
        rows.append({**dict(zip(by, key)), "mean": interval.mean, "low": interval.low, "high": interval.high,
                     "n": interval.n})
    return pd.DataFrame(rows, columns=[*by, "mean", "low", "high", "n"])
