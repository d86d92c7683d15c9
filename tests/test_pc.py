"""The kit's PC-stable (Fisher z from the correlation matrix; chi-square and G-square from bulk-counted
contingency tables): causal-learn's CPDAG exactly."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causaleval.graphs import CausalGraph
from causaleval.learn.pc import DiscreteTests, pc_discrete, pc_fisher_z


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


# ---------------------------------------------------------------------- chi-square, G-square


def _discrete_network(d: int, n: int, cards: int, neighbours: float, seed: int) -> pd.DataFrame:
    """A random discrete network's sample, as study 2 draws them."""
    from causaleval.effects.sampling import dirichlet_sample

    return dirichlet_sample(d, min(neighbours, d - 1), cards, n, seed)[1]


def _causallearn_discrete(data: pd.DataFrame, alpha: float, test: str) -> CausalGraph:
    from causallearn.search.ConstraintBased.PC import pc as cl_pc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # causal-learn warns when n < d
        result = cl_pc(data.to_numpy(float), alpha, test, stable=True, uc_rule=0, uc_priority=2,
                       show_progress=False, node_names=list(data.columns))
    return CausalGraph.from_causallearn(result.G)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.integers(2, 12), n=st.sampled_from([3, 10, 30, 100, 500, 3000]), cards=st.integers(2, 3),
       neighbours=st.sampled_from([1.0, 2.0, 4.0]), seed=st.integers(0, 10_000),
       alpha=st.sampled_from([0.01, 0.05, 0.1, 0.3]), test=st.sampled_from(["chisq", "gsq"]))
def test_discrete_same_cpdag_as_causallearn(d, n, cards, neighbours, seed, alpha, test):
    """Constant columns included (causal-learn separates them at level 0 with dof 0, p = 1)."""
    data = _discrete_network(d, n, cards, neighbours, seed)
    ours = pc_discrete(data, alpha, test)
    assert np.array_equal(ours.matrix, _causallearn_discrete(data, alpha, test).matrix)
    assert ours.nodes == tuple(data.columns)


@pytest.mark.parametrize("d,n", [(20, 5000), (40, 1000)])
def test_discrete_same_cpdag_at_benchmark_sizes(d, n):
    data = _discrete_network(d, n, 2, 2.0, 1)
    for test in ("chisq", "gsq"):
        assert np.array_equal(pc_discrete(data, 0.05, test).matrix,
                              _causallearn_discrete(data, 0.05, test).matrix)


def _random_tests(d: int, rng: np.random.Generator, per_size: int = 25):
    for k in range(0, min(4, d - 2) + 1):
        rows = np.array([rng.choice(d, k + 2, replace=False) for _ in range(per_size)])
        pairs = np.sort(rows[:, :2], axis=1)
        yield pairs, np.sort(rows[:, 2:], axis=1).reshape(per_size, k)


@pytest.mark.parametrize("test", ["chisq", "gsq"])
def test_discrete_pvalues_equal_causallearns_to_the_bit(test):
    """Mixed cardinalities, unseen levels per stratum, empty strata, float and negative codes."""
    from causallearn.utils.cit import CIT

    rng = np.random.default_rng(7)
    for data in (_discrete_network(8, 300, 3, 2.0, 1).to_numpy(float),
                 np.column_stack([rng.integers(0, c, 60) for c in (2, 3, 4, 2, 5, 2, 3)]) * 1.5 - 2,
                 _discrete_network(6, 20000, 2, 2.0, 2).to_numpy(float),
                 rng.integers(0, 8, (500, 7)).astype(float)):  # 8**6 cells: the per-test (sparse) path
        ours, theirs = DiscreteTests(data, g_square=test == "gsq"), CIT(data, test)
        for pairs, sets in _random_tests(data.shape[1], rng):
            expected = [theirs(int(x), int(y), tuple(int(v) for v in s)) for (x, y), s in zip(pairs, sets)]
            np.testing.assert_array_equal(ours(pairs, sets), expected)


def test_discrete_zero_degrees_of_freedom_give_p_one_as_causallearn():
    from causallearn.utils.cit import CIT

    rng = np.random.default_rng(0)
    x, z, w = rng.integers(0, 2, 200), rng.integers(0, 2, 200), rng.integers(0, 3, 200)
    data = pd.DataFrame({"x": x, "y": x ^ z, "z": z, "c": np.zeros(200, int), "w": (w + x) % 3})
    pairs, sets = np.array([[1, 4], [3, 4]]), np.array([[0, 2], [0, 1]])
    # y is a function of (x, z): constant in every stratum of {x, z}, dof 0, p = 1; so is c
    tests = DiscreteTests(data.to_numpy(float))
    assert tests(pairs, sets).tolist() == [1.0, 1.0]
    assert [CIT(data.to_numpy(float), "chisq")(int(a), int(b), tuple(s)) for (a, b), s in zip(pairs, sets)] == [1, 1]
    assert np.isnan(DiscreteTests(data.to_numpy(float), zero_dof="skip")(pairs, sets)).all()
    theirs = _causallearn_discrete(data, 0.05, "chisq")
    assert np.array_equal(pc_discrete(data, 0.05).matrix, theirs.matrix)
    corrected = pc_discrete(data, 0.05, zero_dof="skip")
    assert (corrected.matrix[:, 3] != 0).sum() == 4  # the constant column is no longer separated


@pytest.mark.parametrize("kwargs,match", [({"alpha": 1.0}, "alpha=1.0"), ({"alpha": 0.05, "test": "fisherz"},
                                          "test='fisherz'"), ({"alpha": 0.05, "zero_dof": "x"}, "zero_dof='x'")])
def test_discrete_bad_parameters_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pc_discrete(_discrete_network(3, 50, 2, 1.0, 0), **kwargs)


@pytest.mark.parametrize("ci_test", ["chi_square", "g_test"])
def test_learner_pc_equals_causallearn_on_study_one_networks(ci_test):
    """Study 1's sweep settings: asia with ``smoke`` latent and in full, sachs, at its sample sizes
    and alphas, through the registered learners (the kit's ``pc`` vs ``pc_causallearn``)."""
    from causaleval.datasets.networks import draw_sample
    from causaleval.learn.learners import learn

    for network, latent, n in [("asia", ["smoke"], 10_000), ("asia", [], 10_000), ("asia", ["smoke"], 1_000),
                               ("asia", [], 1_000), ("sachs", [], 1_000)]:
        data = draw_sample(network, latent, n, 3, 0, 0)
        for alpha in (0.01, 0.05, 0.1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = learn("pc", data, ci_test=ci_test, alpha=alpha)
                theirs = learn("pc_causallearn", data, ci_test=ci_test, alpha=alpha).renamed("pc")
            assert np.array_equal(ours.matrix, theirs.matrix), (network, latent, n, alpha)
