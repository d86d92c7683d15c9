"""Sampling: pseudo-observational samples of factorial experiments (Gentzel et al. 2019,
supplement Algorithm 1; the assignment probabilities are
:func:`causaleval.datasets.factorial.assignment_probabilities`), and random DAGs with Dirichlet
tables (their synthetic networks). Ancestral sampling of a network is
:func:`causaleval.datasets.networks.forward_sample`."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd

from causaleval.effects.bn import DiscreteBN, parents_of
from causaleval.datasets.factorial import FactorialData, assignment_probabilities
from causaleval.datasets.networks import forward_sample
from causaleval.graphs import CausalGraph


def pseudo_observational(data: FactorialData, biasing_covariate: str, beta: float,
                         seed: int) -> pd.DataFrame:
    """One record per subject, treatments assigned by Algorithm 1 of Gentzel et al. (2019).

    Supplement Algorithm 1 (logistic sampling of observational data): let ``C_e`` in
    ``{1..l}`` be the rank of subject e's value of the biasing covariate among its ``l``
    distinct values; for treatment ``T_j`` (j = 1..k, in ``data.treatments`` order)
    ``s_ej = +1`` if ``C_e * j`` is even, else ``-1``; ``t_j ~ Bernoulli(logistic(s_ej * beta))``;
    keep the record of subject e with that assignment. ``beta = 0`` is a randomized
    trial; a large ``beta`` assigns treatment by the parity of ``C_e * j``. Note what the
    algorithm implies: for even ``j``, ``C_e * j`` is always even, so even-numbered
    treatments get ``P(t_j = 1) = logistic(beta)`` for every subject (biased towards 1 but
    not confounded); only odd-numbered treatments depend on the covariate.

    Only finished runs count. When the data hold several records of a subject with the
    chosen assignment (several trials), one of them is drawn uniformly. Treatments must
    be binary (0/1) and every subject must have a record in every cell.
    """
    not_binary = [t for t in data.treatments if tuple(data.levels[t]) != (0, 1)]
    if not_binary:
        raise ValueError(f"{data.name}: treatments {not_binary} are not binary 0/1 (levels "
                         f"{[data.levels[t] for t in not_binary]}); binarize them first")
    frame = data.ok()
    subject_codes, subjects = pd.factorize(frame[data.subject], sort=True)
    n, k = len(subjects), len(data.treatments)
    p_treated = assignment_probabilities(data, biasing_covariate, beta)
    cell = (frame[list(data.treatments)].to_numpy(dtype=np.int64) << np.arange(k)).sum(axis=1)
    key = subject_codes.astype(np.int64) * 2**k + cell
    cells_seen = pd.Series(cell).groupby(subject_codes).nunique().reindex(range(n), fill_value=0)
    incomplete = subjects[cells_seen.to_numpy() < 2**k]
    if len(incomplete):
        raise ValueError(f"{data.name}: {len(incomplete)} subject(s) lack a finished run in some "
                         f"of the 2^{k} treatment cells, e.g. {list(incomplete[:5])}; "
                         "use data.complete()")
    rng = np.random.default_rng(seed)
    assign = rng.random((n, k)) < p_treated
    wanted = np.arange(n) * 2**k + (assign.astype(np.int64) << np.arange(k)).sum(axis=1)
    order = np.argsort(key, kind="stable")
    start = np.searchsorted(key[order], wanted, side="left")
    count = np.searchsorted(key[order], wanted, side="right") - start
    pick = order[start + np.floor(rng.random(n) * count).astype(np.int64)]
    return frame.iloc[pick].reset_index(drop=True)


def random_dag(n_nodes: int, expected_neighbours: float, seed: int) -> CausalGraph:
    """An Erdos-Renyi DAG: each pair i < j of a random node order is an edge with
    probability ``expected_neighbours / (n_nodes - 1)``, so a node has ``expected_neighbours``
    parents plus children on average (our reading of Gentzel et al.'s ``E[N] = 2``)."""
    if n_nodes < 2 or not 0 <= expected_neighbours <= n_nodes - 1:
        raise ValueError(f"need n_nodes >= 2 and 0 <= expected_neighbours <= n_nodes - 1, "
                         f"got {n_nodes} and {expected_neighbours}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n_nodes)
    upper = np.triu(rng.random((n_nodes, n_nodes)) < expected_neighbours / (n_nodes - 1), k=1)
    adjacency = np.zeros((n_nodes, n_nodes), dtype=np.int8)
    adjacency[np.ix_(order, order)] = upper
    names = [f"X{i + 1}" for i in range(n_nodes)]
    return CausalGraph.from_adjacency(adjacency, names, name=f"random_dag_{seed}")


def dirichlet_network(dag: CausalGraph, cards: int | dict[str, int], concentration: float,
                      seed: int) -> DiscreteBN:
    """Conditional probability tables drawn from a symmetric Dirichlet(``concentration``),
    one draw per parent configuration (Gentzel et al.'s "Dirichlet" synthetic parameters)."""
    if concentration <= 0:
        raise ValueError(f"concentration must be positive, got {concentration}")
    dag.require_dag("drawing conditional probability tables")
    cards = {v: cards for v in dag.nodes} if isinstance(cards, int) else dict(cards)
    rng = np.random.default_rng(seed)
    parents = parents_of(dag)
    cpds = {}
    for v in dag.nodes:
        shape = (cards[v], *(cards[p] for p in parents[v]))
        draws = rng.dirichlet(np.full(cards[v], concentration), size=int(np.prod(shape[1:])))
        cpds[v] = draws.T.reshape(shape)
    order = list(nx.topological_sort(nx.DiGraph(dag.directed_edges())))
    order += [v for v in dag.nodes if v not in order]
    return DiscreteBN(tuple(order), parents, cards, cpds)


def dirichlet_sample(n_nodes: int, expected_neighbours: float, cards: int, n: int, seed: int,
                     concentration: float = 1.0) -> tuple[CausalGraph, pd.DataFrame]:
    """A random discrete network as study 2's Figure 2 draws one (:func:`random_dag`, then
    :func:`dirichlet_network`, both seeded ``seed``) and ``n`` rows forward-sampled from it
    (seed ``seed``): the DAG and the state codes (int64), one column per node in node order."""
    dag = random_dag(n_nodes, expected_neighbours, seed)
    net = dirichlet_network(dag, cards, concentration, seed)
    return dag, forward_sample(net.to_pgmpy(), n, seed)[list(dag.nodes)].astype("int64")


def position_based_clicks(relevance: np.ndarray, seed: int, *, epsilon: float = 0.1, eta: float = 1.0,
                          examination: np.ndarray | None = None, max_grade: int = 4) -> np.ndarray:
    """Clicks of the position-based click model (Cheng et al. 2022 survey, eqs. 33-34).

    ``relevance[q, i]`` is the grade (0..``max_grade``) of the item shown at position i + 1
    for query q. A click needs examination and perceived relevance:
    ``P(c = 1) = P(o = 1) P(z = 1)`` with ``P(o_i = 1) = p_i^eta`` (eq. 34; ``examination``
    gives p_i per position, default ``1 / i``) and
    ``P(z = 1) = epsilon + (1 - epsilon) (2^r - 1) / (2^max_grade - 1)`` (eq. 33 as in the
    survey's sources, Ai et al. 2018; the survey prints ``2^r`` in the numerator, which gives
    probabilities above 1 for r = 4).
    """
    r = np.asarray(relevance, dtype=float)
    if r.ndim != 2 or (r < 0).any() or (r > max_grade).any():
        raise ValueError(f"relevance: expected a (queries, positions) array of grades in 0..{max_grade}")
    if not 0 <= epsilon <= 1 or eta < 1:
        raise ValueError(f"epsilon={epsilon}, eta={eta}: expected 0 <= epsilon <= 1 and eta >= 1")
    p = 1.0 / np.arange(1, r.shape[1] + 1) if examination is None else np.asarray(examination, dtype=float)
    if p.shape != (r.shape[1],) or (p < 0).any() or (p > 1).any():
        raise ValueError(f"examination: expected {r.shape[1]} probabilities, one per position")
    rng = np.random.default_rng(seed)
    examined = rng.random(r.shape) < p**eta
    relevant = rng.random(r.shape) < epsilon + (1 - epsilon) * (2**r - 1) / (2**max_grade - 1)
    return (examined & relevant).astype(int)
