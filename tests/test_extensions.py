"""From CPDAGs to DAGs: consistent extensions and Markov equivalence class members."""

import numpy as np
import pandas as pd
import pytest

from causaleval import extensions as X
from causaleval.graphs import CausalGraph, to_cpdag


def test_chain_class_has_three_members_and_the_extension_is_one_of_them():
    cpdag = to_cpdag(CausalGraph.from_edges(["a->b", "b->c"]))  # a - b - c
    members = X.mec_members(cpdag)
    assert sorted(sorted(m.edges()) for m in members) == sorted([
        sorted(["a -> b", "b -> c"]), sorted(["b -> a", "b -> c"]), sorted(["b -> a", "c -> b"])])
    extension = X.consistent_extension(cpdag)
    assert extension.is_dag() and extension in members


def test_v_structure_is_kept_and_dag_passes_through():
    collider = CausalGraph.from_edges(["a->c", "b->c", "c - d"])
    members = X.mec_members(collider)
    assert [sorted(m.edges()) for m in members] == [sorted(["a -> c", "b -> c", "c -> d"])]
    assert X.consistent_extension(collider) == members[0]
    dag = CausalGraph.from_edges(["a->b"])
    assert X.consistent_extension(dag) is dag


def test_conflicting_pdag_and_limits_are_errors():
    cycle = CausalGraph.from_edges(["a->b", "b->c", "c->d", "d->a"])
    assert sorted(X.consistent_extension(cycle).edges()) == ["a -> b", "a -> d", "b -> c", "c -> d"]
    # either orientation of b - c makes a new v-structure: no extension, so the fallback
    conflict = CausalGraph.from_edges(["a->b", "b - c", "d->c"])
    with pytest.raises(ValueError, match="no consistent DAG extension"):
        X.consistent_extension(conflict, fallback=False)
    assert sorted(X.consistent_extension(conflict).edges()) == ["a -> b", "b -> c", "d -> c"]
    bidirected = CausalGraph.from_edges(["a->b", "b<->c", "d->c"])
    assert X.consistent_extension(bidirected).is_dag()
    with pytest.raises(ValueError, match="past the limit"):
        X.mec_members(to_cpdag(CausalGraph.from_edges(["a->b", "b->c", "c->d"])), limit=2)


def test_mec_average_of_a_symmetric_pair_mixes_both_directions():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 4000)
    b = np.where(rng.random(4000) < 0.9, a, 1 - a)
    data = pd.DataFrame({"a": a, "b": b})
    graph = CausalGraph.from_edges(["a - b"])
    avg = X.interventional_tables(graph, data, [("a", "b")], rule="mec_average")[("a", "b")]
    # a -> b: P(b | do(a)) = P(b | a); b -> a: P(b | do(a)) = P(b); the rule averages them
    cond = pd.crosstab(data.a, data.b, normalize="index").to_numpy()
    marg = np.tile(data.b.value_counts(normalize=True).sort_index().to_numpy(), (2, 1))
    np.testing.assert_allclose(avg, (cond + marg) / 2, atol=1e-3)
    with pytest.raises(ValueError, match="cpdag rule"):
        X.interventional_tables(graph, data, [("a", "b")], rule="random")
