"""Adapters to the other structure learners causal-learn and pgmpy ship, each under the kit's one
signature ``fn(data, *, ci_test, alpha, seed) -> CausalGraph`` with its output class declared, so a
study (or a grid of learners x networks x sample sizes) can name them as it names ``pc``.

| name | library, algorithm | family | output |
| --- | --- | --- | --- |
| ``pc_pgmpy`` | pgmpy ``PC`` (stable variant) | constraint-based | CPDAG |
| ``ges_pgmpy`` | pgmpy ``GES`` (discrete BIC) | score-based | CPDAG |
| ``exact_astar``, ``exact_dp`` | causal-learn ``bic_exact_search`` (A*, dynamic programming; Gaussian BIC) | score-based, exact | DAG |
| ``grasp`` | causal-learn ``grasp`` (BDeu) | permutation-based | CPDAG |
| ``boss`` | causal-learn ``boss`` (BDeu) | permutation-based | CPDAG |
| ``ica_lingam``, ``direct_lingam`` | causal-learn ``ICALiNGAM``, ``DirectLiNGAM`` | functional (LiNGAM) | DAG |

The built-in ``pc``, ``pc_causallearn``, ``fci``, ``ges``, ``ges_causallearn``, ``hc`` and ``mmhc``
(:mod:`causaleval.learn.learners`) cover the rest of the constraint- and score-based families.
Not adapted, because they do not fit a learner of one i.i.d. data set over the observed variables:
causal-learn's CD-NOD (needs a domain or time index column), Granger and VAR-LiNGAM (time series),
ANM and PNL (one pair of variables), RCD and CAM-UV (mixed graphs with unnamed latent confounders,
which no graph class of the kit states), GIN and RLCD (graphs over latent variables), and pgmpy's
ExpertInLoop (asks a language model). ``ci_test`` and ``alpha`` are used by ``pc_pgmpy`` only; the
exact searches take at most :data:`EXACT_MAX_NODES` variables (their cost doubles with each).

The data are the kit's integer state codes; the Gaussian and LiNGAM learners read them as
numbers (as causal-learn's ``fisherz`` does), which is a modelling choice a study must state.
"""

from __future__ import annotations

import contextlib
import io
import random
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from causaleval.graphs import CausalGraph
from causaleval.learn.learners import _constants_isolated, register_learner

#: the largest number of variables the exact searches take
EXACT_MAX_NODES = 12
_PGMPY_TESTS = {"fisher_z": "pearsonr", "chi_square": "chi_square", "g_test": "g_sq"}


def _names(data: pd.DataFrame) -> list[str]:
    return [str(c) for c in data.columns]


def _from_adjacency(data: pd.DataFrame, parent_child: np.ndarray, name: str) -> CausalGraph:
    """A DAG from a matrix whose nonzero ``[i, j]`` is the edge ``i -> j``."""
    names = _names(data)
    edges = [(names[i], names[j]) for i, j in zip(*np.nonzero(parent_child))]
    return CausalGraph.from_edge_lists(names, edges, name=name)


def _from_pdag(data: pd.DataFrame, pdag: object, name: str) -> CausalGraph:
    """A CPDAG from pgmpy's PDAG (learned on integer column labels, mapped back to the names)."""
    names = _names(data)
    directed = [(names[u], names[v]) for u, v in pdag.directed_edges]
    undirected = [(names[u], names[v]) for u, v in pdag.undirected_edges]
    return CausalGraph.from_edge_lists(names, directed, undirected=undirected, name=name)


def _run_quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with _quietly():
        return fn(*args, **kwargs)


@contextlib.contextmanager
def _quietly() -> Iterator[None]:
    """No warnings and no printing from the wrapped library (its notes are not the study's output)."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def _pgmpy_fit(est: object, data: pd.DataFrame, name: str) -> CausalGraph:
    """Fit a pgmpy estimator returning a PDAG. On integer column labels: pgmpy's order among equally
    good operations would otherwise follow Python's per-process string hashes."""
    with _quietly():
        est.fit(data.set_axis(range(data.shape[1]), axis=1))
    return _from_pdag(data, est.causal_graph_, name)


@register_learner("pc_pgmpy", output="CPDAG", library="pgmpy", constant_columns=True)
def pc_pgmpy(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """pgmpy's PC, stable variant, with the matching test (``fisher_z``: ``pearsonr``)."""
    from pgmpy.causal_discovery import PC

    est = PC(variant="stable", ci_test=_PGMPY_TESTS[ci_test], return_type="pdag", significance_level=alpha,
             max_cond_vars=max(len(data.columns) - 2, 0), n_jobs=1, show_progress=False)
    return _constants_isolated(lambda d: _pgmpy_fit(est, d, "pc_pgmpy"))(data)


@register_learner("ges_pgmpy", output="CPDAG", library="pgmpy", constant_columns=True)
def ges_pgmpy(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """pgmpy's GES with the discrete BIC score; no tests."""
    from pgmpy.causal_discovery import GES

    est = GES(scoring_method="bic-d", return_type="pdag")
    return _constants_isolated(lambda d: _pgmpy_fit(est, d, "ges_pgmpy"))(data)


def _exact(data: pd.DataFrame, method: str, name: str) -> CausalGraph:
    if data.shape[1] > EXACT_MAX_NODES:
        raise ValueError(f"learner {name!r}: an exact search over {data.shape[1]} variables; expected at most "
                         f"{EXACT_MAX_NODES} (its cost doubles with each variable)")
    from causallearn.search.ScoreBased.ExactSearch import bic_exact_search

    def run(d: pd.DataFrame) -> CausalGraph:
        with _quietly():
            dag, _ = bic_exact_search(d.to_numpy(float), search_method=method)
        return _from_adjacency(d, dag, name)

    return _constants_isolated(run)(data)


@register_learner("exact_astar", output="DAG", library="causal-learn", constant_columns=True)
def exact_astar(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """causal-learn's exact search, A* (Yuan and Malone 2013), Gaussian BIC; at most 12 variables."""
    return _exact(data, "astar", "exact_astar")


@register_learner("exact_dp", output="DAG", library="causal-learn", constant_columns=True)
def exact_dp(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """causal-learn's exact search, dynamic programming (Silander and Myllymaki 2006), Gaussian BIC."""
    return _exact(data, "dp", "exact_dp")


def _permutation(data: pd.DataFrame, algorithm: str, seed: int) -> CausalGraph:
    from causallearn.search.PermutationBased.BOSS import boss
    from causallearn.search.PermutationBased.GRaSP import grasp

    search = grasp if algorithm == "grasp" else boss
    state = random.getstate()  # both shuffle their orders with Python's global generator
    random.seed(seed)
    try:
        return _constants_isolated(lambda d: CausalGraph.from_causallearn(_run_quietly(
            search, d.to_numpy(float), score_func="local_score_BDeu", verbose=False, node_names=_names(d)),
            name=algorithm))(data)
    finally:
        random.setstate(state)


@register_learner("grasp", output="CPDAG", library="causal-learn", constant_columns=True)
def grasp_learner(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """causal-learn's GRaSP (Lam, Andrews and Ramsey 2022) with the BDeu score, seeded by ``seed``."""
    return _permutation(data, "grasp", seed)


@register_learner("boss", output="CPDAG", library="causal-learn", constant_columns=True)
def boss_learner(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """causal-learn's BOSS (Andrews et al. 2023) with the BDeu score, seeded by ``seed``."""
    return _permutation(data, "boss", seed)


def _lingam(data: pd.DataFrame, model: object, name: str) -> CausalGraph:
    def run(d: pd.DataFrame) -> CausalGraph:
        with _quietly():
            model.fit(d.to_numpy(float))
        return _from_adjacency(d, (np.asarray(model.adjacency_matrix_) != 0).T, name)  # B[i, j] != 0: j -> i

    return _constants_isolated(run)(data)


@register_learner("ica_lingam", output="DAG", library="causal-learn", constant_columns=True)
def ica_lingam(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """causal-learn's ICA-LiNGAM (Shimizu et al. 2006), seeded by ``seed``."""
    from causallearn.search.FCMBased.lingam import ICALiNGAM

    return _lingam(data, ICALiNGAM(random_state=seed), "ica_lingam")


@register_learner("direct_lingam", output="DAG", library="causal-learn", constant_columns=True)
def direct_lingam(data: pd.DataFrame, *, ci_test: str, alpha: float, seed: int) -> CausalGraph:
    """causal-learn's DirectLiNGAM (Shimizu et al. 2011), seeded by ``seed``."""
    from causallearn.search.FCMBased.lingam import DirectLiNGAM

    return _lingam(data, DirectLiNGAM(random_state=seed), "direct_lingam")
