"""causaleval.effects.ate: back-door sets and closed-form linear ATEs over many DAGs."""

import networkx as nx
import numpy as np
import pytest

from causaleval.effects import ate
from causaleval.graphs.bitsets import parent_masks


def _random_dag(rng, d, p):
    a = np.triu(rng.random((d, d)) < p, 1)
    order = rng.permutation(d)
    return a[np.ix_(order, order)]


def _data(rng, dag, n):
    w = dag * rng.normal(size=dag.shape)
    return rng.normal(size=(n, len(dag))) @ np.linalg.inv(np.eye(len(dag)) - w)


def test_textbook_cases():
    # 0 = Z, 1 = T, 2 = Y, 3 = M:  Z -> T -> M -> Y, Z -> Y
    dag = np.zeros((4, 4), bool)
    dag[0, 1] = dag[1, 3] = dag[3, 2] = dag[0, 2] = True
    parents = parent_masks(dag)
    assert ate.backdoor_set(parents, 1, 2) == (0,)       # confounder Z
    assert ate.backdoor_set(parents, 3, 2) == (1,)       # M -> Y: closest minimum cut is Pa(M) = {T}
    assert ate.backdoor_set(parents, 2, 1) is None       # no directed path Y -> T
    assert ate.backdoor_set(parents, 0, 2) == ()         # Z has no back-door path


def test_sets_are_valid_smallest_and_checked_by_networkx():
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(120):
        dag = _random_dag(rng, int(rng.integers(3, 9)), 0.5)
        parents = parent_masks(dag)
        g = nx.DiGraph([(int(i), int(j)) for i, j in zip(*np.nonzero(dag))])
        g.add_nodes_from(range(len(dag)))
        for t in range(len(dag)):
            for y in range(len(dag)):
                z = None if t == y else ate.backdoor_set(parents, t, y)
                if z is None:
                    continue
                backdoor = g.copy()
                backdoor.remove_edges_from(list(g.out_edges(t)))
                assert nx.is_d_separator(backdoor, {t}, {y}, set(z))
                assert not set(z) & nx.descendants(g, t)
                assert len(z) == len(ate.smallest_backdoor_sets(parents, t, y)[0])
                checked += 1
    assert checked > 500


def test_compiled_sets_equal_the_bit_mask_reference():
    """``_backdoor_jit.adjustment_sets`` (the stage's engine) gives :func:`ate.backdoor_set`'s
    set for every ordered pair of random DAGs, sparse to dense, 2 to 24 nodes."""
    from causaleval.effects._backdoor_jit import adjustment_sets

    rng = np.random.default_rng(7)
    cuts = 0
    for _ in range(60):
        d = int(rng.integers(2, 25))
        dags = np.stack([_random_dag(rng, d, float(rng.uniform(0.05, 0.7))) for _ in range(5)])
        pairs = [(t, y) for t in range(d) for y in range(d) if t != y]
        path, sets = adjustment_sets(dags, np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
        for k, dag in enumerate(dags):
            parents = parent_masks(dag)
            for q, (t, y) in enumerate(pairs):
                z = ate.backdoor_set(parents, t, y)
                assert path[k, q] == (z is not None)
                if z is not None:
                    assert tuple(np.flatnonzero(sets[k, q]).tolist()) == z, (d, t, y)
                    cuts += len(z) > 1
    assert cuts > 1000


def test_effects_equal_per_pair_lstsq_and_zero_without_path():
    rng = np.random.default_rng(1)
    for _ in range(20):
        dag = _random_dag(rng, 7, 0.4)
        x = _data(rng, dag, 50)
        est = ate.LinearATE(x)
        effects = est.effects(dag[None])[0]
        parents = parent_masks(dag)
        for k, (t, y) in enumerate(est.pairs()):
            z = ate.backdoor_set(parents, t, y)
            expected = 0.0 if z is None else ate.lstsq_effect(x, t, y, z)
            assert effects[k] == pytest.approx(expected, abs=1e-9, rel=1e-9)


def test_more_columns_than_rows_take_the_minimum_norm_solution():
    rng = np.random.default_rng(2)
    d = 8
    dag = np.zeros((d, d), bool)
    dag[:6, 6] = True  # six parents of T = 6
    dag[:6, 7] = True
    dag[6, 7] = True
    x = _data(rng, dag, 6)  # 6 rows: regressing on T and 6 parents is rank deficient
    est = ate.LinearATE(x)
    k = est.pairs().index((6, 7))
    assert est.effects(dag[None])[0, k] == pytest.approx(ate.lstsq_effect(x, 6, 7, tuple(range(6))), abs=1e-8)


def test_regressions_are_cached_by_adjustment_set():
    rng = np.random.default_rng(3)
    dag = _random_dag(rng, 6, 0.5)
    est = ate.LinearATE(_data(rng, dag, 40))
    first = est.effects(np.stack([dag, dag]))
    solved = est.solved
    again = est.effects(dag[None])
    assert np.array_equal(first[0], first[1]) and np.array_equal(first[0], again[0])
    assert est.solved == solved and est.requested == 3 * len(est.pairs())


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="infinite or missing"):
        ate.LinearATE(np.array([[1.0, np.nan], [2.0, 3.0], [1.0, 1.0]]))
    est = ate.LinearATE(np.random.default_rng(0).normal(size=(10, 3)))
    with pytest.raises(ValueError, match="k x 3 x 3"):
        est.effects(np.zeros((2, 4, 4), bool))
    cycle = np.zeros((2, 3, 3), bool)
    cycle[1, 0, 1] = cycle[1, 1, 0] = True
    with pytest.raises(ValueError, match="graph 1 of the stack has a directed cycle"):
        est.effects(cycle)
    for pair in [(0, 0), (0, 3), (-1, 1)]:
        with pytest.raises(ValueError, match=r"is not \(T, Y\) with T != Y in 0..2"):
            est.effects(np.zeros((1, 3, 3), bool), [pair])


def test_agrees_with_dowhy_where_the_estimand_is_the_same(monkeypatch):
    """DoWhy's back-door linear regression, on pairs whose smallest back-door set is unique and
    for which DoWhy finds no effect modifiers (it would add treatment x modifier terms).
    DoWhy 0.12 calls ``networkx.algorithms.d_separated``, which networkx 3.5 removed."""
    dowhy = pytest.importorskip("dowhy")
    import logging
    import warnings

    import pandas as pd

    monkeypatch.setattr(nx.algorithms, "d_separated", nx.is_d_separator, raising=False)
    rng = np.random.default_rng(4)
    names = list("ABCDEF")
    compared = 0
    for _ in range(6):
        dag = _random_dag(rng, 6, 0.45)
        x = _data(rng, dag, 80)
        est = ate.LinearATE(x)
        effects = est.effects(dag[None])[0]
        parents = parent_masks(dag)
        graph = nx.DiGraph([(names[i], names[j]) for i, j in zip(*np.nonzero(dag))])
        graph.add_nodes_from(names)
        frame = pd.DataFrame(x, columns=names)
        for k, (t, y) in enumerate(est.pairs()):
            z = ate.backdoor_set(parents, t, y)
            if z is None or len(ate.smallest_backdoor_sets(parents, t, y)) > 1:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                logging.disable(logging.WARNING)
                model = dowhy.CausalModel(data=frame, treatment=names[t], outcome=names[y], graph=graph)
                estimand = model.identify_effect(proceed_when_unidentifiable=True)
                estimate = model.estimate_effect(estimand, method_name="backdoor.linear_regression",
                                                 treatment_value=1, control_value=0)
                logging.disable(logging.NOTSET)
            if estimate.estimator._effect_modifier_names:
                continue
            value = estimate.value
            assert sorted(estimand.get_backdoor_variables()) == sorted(names[v] for v in z)
            assert effects[k] == pytest.approx(value, abs=1e-9)
            compared += 1
    assert compared >= 5
