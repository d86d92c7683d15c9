"""Exact interventional distributions and smoothed fitting against pgmpy and hand cases."""

import itertools
import warnings

import numpy as np
import pytest

from causaleval.effects import bn
from causaleval.metrics import tvd
from causaleval.datasets import load_network
from causaleval.graphs import CausalGraph
from causaleval.datasets.networks import forward_sample


def _pgmpy_do(model, treatment, outcome):
    from pgmpy.inference import CausalInference

    states = model.get_cpds(treatment).state_names[treatment]
    inference = CausalInference(model)
    rows = []
    for s in states:
        factor = inference.query([outcome], do={treatment: s}, show_progress=False)
        order = [factor.state_names[outcome].index(x) for x in model.get_cpds(outcome).state_names[outcome]]
        rows.append(factor.values[order])
    return np.array(rows)


@pytest.mark.parametrize("network", ["asia", "sachs"])
def test_interventional_matches_pgmpy_causal_inference(network):
    net = bn.from_pgmpy(load_network(network))
    model = net.to_pgmpy()  # the same, exactly normalized, tables on both sides
    compared = 0
    for t, o in itertools.permutations(net.nodes, 2):
        if o in net.ancestors(t):
            continue  # pgmpy raises ValueError here (see the benchmark notes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = _pgmpy_do(model, t, o)
        np.testing.assert_allclose(net.interventional(t, o), expected, atol=1e-9)
        compared += 1
        if compared == 30:
            break
    assert compared == 30


def test_outcome_upstream_of_treatment_gets_its_marginal():
    from pgmpy.inference import VariableElimination

    model = load_network("asia")
    net = bn.from_pgmpy(model)
    marginal = VariableElimination(model).query(["smoke"], show_progress=False).values
    table = net.interventional("dysp", "smoke")  # smoke is an ancestor of dysp
    assert table.shape == (2, 2)
    np.testing.assert_allclose(table, np.tile(marginal, (2, 1)), atol=1e-12)


def test_hand_computed_chain_with_confounder():
    # c -> t, c -> o, t -> o; P(o=1 | do(t)) = sum_c P(c) P(o=1 | t, c)
    cpds = {"c": np.array([0.3, 0.7]),
            "t": np.array([[0.9, 0.2], [0.1, 0.8]]),                  # [t, c]
            "o": np.array([[[0.8, 0.6], [0.5, 0.1]], [[0.2, 0.4], [0.5, 0.9]]])}  # [o, t, c]
    net = bn.DiscreteBN(("c", "t", "o"), {"c": (), "t": ("c",), "o": ("t", "c")},
                        {"c": 2, "t": 2, "o": 2}, cpds)
    expected_o1 = [0.3 * 0.2 + 0.7 * 0.4, 0.3 * 0.5 + 0.7 * 0.9]
    np.testing.assert_allclose(net.interventional("t", "o")[:, 1], expected_o1)
    np.testing.assert_allclose(tvd(net.interventional("t", "o")[0], [0.5, 0.5]), abs(0.66 - 0.5))
    with pytest.raises(ValueError, match="'x' is not a node"):
        net.interventional("x", "o")


def test_bdeu_fit_matches_pgmpy_bayesian_estimator():
    from pgmpy.estimators import BayesianEstimator
    from pgmpy.models import DiscreteBayesianNetwork

    model = load_network("asia")
    data = forward_sample(model, 500, seed=0)
    fitted = bn.fit(CausalGraph.from_pgmpy(model), data, smoothing="bdeu", ess=5)
    estimator = BayesianEstimator(DiscreteBayesianNetwork(model.edges()), data)
    for v in fitted.nodes:
        cpd = estimator.estimate_cpd(v, prior_type="BDeu", equivalent_sample_size=5)
        axes = [0] + [1 + fitted.parents[v].index(p) for p in cpd.variables[1:]]
        np.testing.assert_allclose(fitted.cpds[v].transpose(axes), cpd.values, atol=1e-12)


def test_laplace_and_mle_by_hand():
    import pandas as pd

    data = pd.DataFrame({"a": [0, 0, 1, 1, 1], "b": [0, 1, 1, 1, 1]})
    dag = CausalGraph.from_edges(["a->b"])
    laplace = bn.fit(dag, data, smoothing="laplace", ess=1, cards={"a": 2, "b": 3})
    np.testing.assert_allclose(laplace.cpds["b"][:, 0], [2 / 5, 2 / 5, 1 / 5])  # a=0: counts 1,1,0
    mle = bn.fit(dag, data, smoothing="mle", ess=0)
    np.testing.assert_allclose(mle.cpds["b"][:, 1], [0, 1])
    with pytest.raises(ValueError, match="smoothing must be one of"):
        bn.fit(dag, data, smoothing="kt")
    with pytest.raises(ValueError, match="needs a DAG"):
        bn.fit(CausalGraph.from_edges(["a - b"]), data)


def test_pgmpy_round_trip_keeps_every_table():
    net = bn.from_pgmpy(load_network("sachs"))
    back = bn.from_pgmpy(net.to_pgmpy())
    for v in net.nodes:
        axes = [0] + [1 + back.parents[v].index(p) for p in net.parents[v]]
        np.testing.assert_allclose(back.cpds[v].transpose(axes), net.cpds[v], atol=1e-15)


def test_tvd_aggregates_by_hand():
    from causaleval.metrics import mean_tvd, pairwise_tvd, total_tvd

    truth = {("t", "o"): np.array([[0.5, 0.5], [0.2, 0.8]]), ("t", "p"): np.array([[1.0, 0.0], [0.0, 1.0]])}
    estimate = {("t", "o"): np.array([[0.5, 0.5], [0.5, 0.5]]), ("t", "p"): np.array([[0.9, 0.1], [0.5, 0.5]])}
    assert pairwise_tvd(truth, estimate, level=1) == pytest.approx({("t", "o"): 0.3, ("t", "p"): 0.5})
    assert total_tvd(truth, estimate, level=1) == pytest.approx(0.8)
    assert mean_tvd(truth, estimate) == pytest.approx(((0 + 0.3) / 2 + (0.1 + 0.5) / 2) / 2)
    with pytest.raises(ValueError, match="no estimate"):
        total_tvd(truth, {})
