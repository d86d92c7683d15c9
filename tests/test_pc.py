"""The kit's PC-stable (Fisher z from the correlation matrix): causal-learn's CPDAG exactly."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causaleval.graphs import CausalGraph
from causaleval.learn.pc import pc_fisher_z


def _linear_gaussian(d: int, n: int, density: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.3, 2.0, (d, d)) * rng.choice([-1, 1], (d, d))
    w = np.triu(weights * (rng.random((d, d)) < density), 1)
    x = rng.normal(size=(n, d)) @ np.linalg.inv(np.eye(d) - w)
    return pd.DataFrame(x, columns=[f"x{i}" for i in range(d)])


def _causallearn(data: pd.DataFrame, alpha: float) -> CausalGraph:
    from causallearn.search.ConstraintBased.PC import pc as cl_pc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # causal-learn warns when n < d
        result = cl_pc(data.to_numpy(float), alpha, "fisherz", stable=True, uc_rule=0, uc_priority=2,
                       show_progress=False, node_names=list(data.columns))
    return CausalGraph.from_causallearn(result.G)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.integers(2, 16), n=st.sampled_from([8, 20, 50, 100, 1000]), density=st.floats(0.05, 0.6),
       seed=st.integers(0, 10_000), alpha=st.sampled_from([0.01, 0.05, 0.1, 0.3, 0.5]))
def test_same_cpdag_as_causallearn(d, n, density, seed, alpha):
    data = _linear_gaussian(d, n, density, seed)
    try:
        theirs = _causallearn(data, alpha)
    except ValueError:  # a level reached n - |S| - 3 < 0: math.sqrt fails in causal-learn
        with pytest.raises(ValueError, match="n - \\|S\\| - 3"):
            pc_fisher_z(data, alpha)
        return
    ours = pc_fisher_z(data, alpha)
    assert np.array_equal(ours.matrix, theirs.matrix)
    assert ours.nodes == tuple(data.columns)


@pytest.mark.parametrize("d,n", [(20, 20), (20, 100), (40, 200)])
def test_same_cpdag_at_study_sizes(d, n):
    for seed in range(3):
        data = _linear_gaussian(d, n, 40 / (d * (d - 1) / 2), seed)
        assert np.array_equal(pc_fisher_z(data, 0.05).matrix, _causallearn(data, 0.05).matrix)


def test_zero_degrees_of_freedom_removes_the_edge_as_causallearn():
    data = _linear_gaussian(4, 4, 1.0, 3)  # level 1 has n - |S| - 3 = 0: p = 1, edge removed
    ours = pc_fisher_z(data, 0.05)
    assert np.array_equal(ours.matrix, _causallearn(data, 0.05).matrix)
    corrected = pc_fisher_z(data, 0.05, small_sample="skip")
    assert (corrected.matrix != 0).sum() >= (ours.matrix != 0).sum()
    three = _linear_gaussian(3, 3, 1.0, 0)  # level 0 with n = 3: every edge removed
    assert (pc_fisher_z(three, 0.05).matrix == 0).all()
    assert (pc_fisher_z(three, 0.05, small_sample="skip").matrix != 0).sum() == 6


def test_negative_degrees_of_freedom_is_a_clear_error():
    with pytest.raises(ValueError, match="n=2 rows"):
        pc_fisher_z(_linear_gaussian(3, 2, 1.0, 0), 0.05)


@pytest.mark.parametrize("kwargs,match", [({"alpha": 0.0}, "alpha=0.0"),
                                          ({"alpha": 0.05, "small_sample": "fix"}, "small_sample='fix'")])
def test_bad_parameters_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pc_fisher_z(_linear_gaussian(3, 50, 0.5, 0), **kwargs)


def test_non_finite_data_names_the_column():
    data = _linear_gaussian(3, 50, 0.5, 0)
    data.loc[4, "x1"] = np.nan
    with pytest.raises(ValueError, match=r"\['x1'\]"):
        pc_fisher_z(data, 0.05)


@pytest.mark.parametrize("network", ["asia", "sachs"])
def test_same_cpdag_on_discrete_network_samples(network):
    """Study 1's and 6's networks, Fisher z on the state codes as the studies run it."""
    from causaleval.datasets.networks import forward_sample, load_network

    data = forward_sample(load_network(network), 500, 0)
    data = data.loc[:, data.nunique() > 1]
    for alpha in (0.01, 0.05):
        assert np.array_equal(pc_fisher_z(data, alpha).matrix, _causallearn(data, alpha).matrix)
