"""From CPDAGs to DAGs: consistent extensions and Markov equivalence class members."""

import numpy as np
import pandas as pd
import pytest

from causaleval.effects.extensions import interventional_tables
from causaleval.graphs import extensions as X
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
    avg = interventional_tables(graph, data, [("a", "b")], rule="mec_average")[("a", "b")]
    # a -> b: P(b | do(a)) = P(b | a); b -> a: P(b | do(a)) = P(b); the rule averages them
    cond = pd.crosstab(data.a, data.b, normalize="index").to_numpy()
    marg = np.tile(data.b.value_counts(normalize=True).sort_index().to_numpy(), (2, 1))
    np.testing.assert_allclose(avg, (cond + marg) / 2, atol=1e-3)
    with pytest.raises(ValueError, match="cpdag rule"):
        interventional_tables(graph, data, [("a", "b")], rule="random")


def test_undirected_edge_between_collider_parents_is_no_v_structure():
    """a - b with a -> c <- b: a and b are adjacent, so a -> c <- b is no v-structure and
    both orientations of a - b are members (the PDAG of PC's conflict marks read as undirected)."""
    pdag = CausalGraph.from_edges(["a - b", "a->c", "b->c"])
    members = X.mec_members(pdag)
    assert sorted(sorted(m.edges()) for m in members) == sorted([
        sorted(["a -> b", "a -> c", "b -> c"]), sorted(["b -> a", "a -> c", "b -> c"])])


def test_mec_average_refuses_a_class_past_the_limit_instead_of_falling_back():
    chain = to_cpdag(CausalGraph.from_edges([f"x{i}->x{i + 1}" for i in range(X.MAX_UNDIRECTED + 1)]))
    data = pd.DataFrame({v: np.zeros(10, dtype=int) for v in chain.nodes})
    with pytest.raises(X.TooManyOrientations, match="past the limit"):
        interventional_tables(chain, data, [("x0", "x1")], rule="mec_average")


def test_members_by_component_equal_the_whole_class():
    """On random CPDAGs the component-wise enumeration finds exactly the DAGs whose CPDAG is
    the given one (checked against every orientation of the undirected edges at once)."""
    import itertools

    from causaleval.effects.sampling import random_dag

    for seed in range(12):
        dag = random_dag(7, 2.5, seed)
        cpdag = to_cpdag(dag)
        members = X.mec_members(cpdag)
        edges = list(zip(*np.nonzero(np.triu(cpdag.undirected_matrix()))))
        whole = 0
        for flips in itertools.product((False, True), repeat=len(edges)):
            d = cpdag.directed_matrix().copy()
            for (i, j), flip in zip(edges, flips):
                d[(j, i) if flip else (i, j)] = True
            candidate = CausalGraph.from_adjacency(d.astype(np.int8), cpdag.nodes)
            whole += candidate.is_dag() and to_cpdag(candidate) == cpdag
        assert len(members) == whole and dag in members
        assert all(to_cpdag(m) == cpdag for m in members)


def test_many_small_components_are_capped_as_a_whole():
    """Eleven separate a - b - c chains: 3^11 members, past 2^MAX_UNDIRECTED in all though no
    component is large."""
    chains = [f"a{i} - b{i}" for i in range(11)] + [f"b{i} - c{i}" for i in range(11)]
    assert 3 ** 11 > 2 ** X.MAX_UNDIRECTED
    with pytest.raises(X.TooManyOrientations, match="candidate members"):
        X.mec_members(CausalGraph.from_edges(chains))
