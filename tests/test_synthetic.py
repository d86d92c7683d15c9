"""Random DAGs with Dirichlet tables (Gentzel et al.'s synthetic networks)."""

import numpy as np
import pytest

from causaleval.effects.sampling import dirichlet_network, random_dag


def test_random_dags_have_the_expected_neighbours_and_no_cycle():
    graphs = [random_dag(14, 2.0, seed) for seed in range(300)]
    assert all(g.is_dag() for g in graphs)
    neighbours = np.mean([2 * g.directed_matrix().sum() / 14 for g in graphs])
    assert neighbours == pytest.approx(2.0, abs=0.1)
    assert random_dag(14, 2.0, 5) == random_dag(14, 2.0, 5)
    with pytest.raises(ValueError, match="expected_neighbours"):
        random_dag(3, 5.0, 0)


def test_dirichlet_tables_are_distributions_drawn_per_parent_configuration():
    dag = random_dag(8, 3.0, 1)
    net = dirichlet_network(dag, 3, 1.0, seed=2)
    for v in net.nodes:
        table = net.cpds[v]
        assert table.shape == (3, *([3] * len(net.parents[v])))
        np.testing.assert_allclose(table.sum(axis=0), 1.0)
    assert set(net.graph.directed_edges()) == set(dag.directed_edges())
    again = dirichlet_network(dag, 3, 1.0, seed=2)
    assert all(np.array_equal(net.cpds[v], again.cpds[v]) for v in net.nodes)
    with pytest.raises(ValueError, match="concentration"):
        dirichlet_network(dag, 2, 0.0, seed=0)
