"""SID of an equivalence class: its lower and upper bound over the class's DAGs.

Peters and Buehlmann (2015), *Structural intervention distance for evaluating causal
graphs*, Neural Computation 27(3), doi:10.1162/NECO_a_00708 (arXiv:1306.1043): when the
learned graph H is a CPDAG, the SID is reported as the interval

    [ min_{H' in MEC(H)} SID(G, H'),  max_{H' in MEC(H)} SID(G, H') ]

over the DAGs H' of H's Markov equivalence class (their R package ``SID`` returns
``sidLowerBound`` and ``sidUpperBound``). Taking the SID of one member (say the
consistent extension a learner's CPDAG is fitted through) scores an arbitrary choice
among graphs the data cannot tell apart: a learner that found the true CPDAG can still
get SID > 0. The bounds are exact here: the class is enumerated
(:func:`causaleval.graphs.extensions.mec_members`, at most ``MAX_UNDIRECTED`` undirected
edges). A DAG is its own class (both bounds equal its SID). A PDAG without a consistent
extension (PC's conflicting orientations, written as bidirected edges and read here as
undirected) has no member: it is scored through the fallback extension of
:func:`causaleval.graphs.extensions.consistent_extension` and reported with ``members = 0``.
A class past the enumeration limit gets NaN bounds and ``members = -1``, never a guess.
The graphs are checked once, as by the other metrics (:mod:`causaleval.metrics._checks`): the
truth must be a DAG, and the learned graph (its bidirected edges read as undirected) a
DAG or PDAG; a directed cycle or a circle mark (a PAG) is refused, naming the graph. The class
members built from the checked graph are DAGs by construction and are scored without a second
check.
"""

from __future__ import annotations

import numpy as np

from causaleval.graphs import CausalGraph
from causaleval.metrics._checks import CPDAGS, DAGS, graph_pair, require_class
from causaleval.metrics.structural import _gadjid_sid


def as_pdag(graph: CausalGraph) -> CausalGraph:
    """``graph`` with its bidirected edges (PC's orientation conflicts) read as undirected."""
    m = graph.matrix.copy()
    bidirected = (m == 1) & (m.T == 1)
    m[bidirected] = -1
    return CausalGraph(graph.nodes, m, graph.name)


def sid_bounds(truth: CausalGraph, learned: CausalGraph) -> dict[str, float | int]:
    """``{"sid_min", "sid_max", "members"}``: the SID of the true DAG ``truth`` against
    every DAG of ``learned``'s equivalence class (Peters and Buehlmann 2015);
    ``members`` is the class size (0 when the PDAG has no consistent extension, -1
    with NaN bounds when the class is past the enumeration limit)."""
    from causaleval.graphs.extensions import NoExtension, TooManyOrientations, consistent_extension, mec_members

    truth_batch, learned_batch, _ = graph_pair("sid_bounds", truth, as_pdag(learned), CPDAGS)
    require_class(truth_batch, DAGS, "truth", "sid_bounds")
    pdag = learned_batch[0]  # in the truth's node order, as the truth's matrix below
    if pdag.is_dag():
        members = [pdag]
    else:
        try:
            members = mec_members(pdag)
        except TooManyOrientations:
            return {"sid_min": float("nan"), "sid_max": float("nan"), "members": -1}
        except NoExtension:
            members = []
    truth_matrix = truth_batch.matrices[0]
    scores = np.array([_gadjid_sid(truth_matrix, dag.matrix) for dag in members or [consistent_extension(pdag)]])
    return {"sid_min": float(scores.min()), "sid_max": float(scores.max()), "members": len(members)}
