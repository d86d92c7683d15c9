"""The kit's GES: local scores bit for bit and CPDAGs identical to causal-learn's GES."""

import ast
import functools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causaleval.graphs.extensions import consistent_extension
from causaleval.learn.ges import BDeuScore, BGeScore, BICScore, ges
from causaleval.graphs import CausalGraph, to_cpdag
from causaleval.learn.learners import learn
from causaleval.effects.sampling import dirichlet_sample


def _network_sample(n_nodes: int, card: int, rows: int, seed: int) -> pd.DataFrame:
    return dirichlet_sample(n_nodes, 2.0, card, rows, seed)[1]


@functools.cache
def _study2_samples() -> dict[str, pd.DataFrame]:
    """One pseudo-observational sample per study 2 domain, at notebook 02's defaults."""
    from causaleval import paths
    from causaleval.app import cli
    from causaleval.studies import software_tvd as S

    declared = cli.declared_parameters(paths.NOTEBOOKS / "02_software_tvd.ipynb")
    p = {name: ast.literal_eval(spec["default"]) for name, spec in declared.items()}
    samples = {}
    for name in p["domains"]:
        domain = S.load_domain(p["source"], name, covariate=p["covariates"][name],
                               outcomes=p["outcomes"].get(name), bins=p["bins"], beta=p["beta"])
        samples[name] = S.empirical_sample(domain, p["beta"], p["seed"])
    return samples


def _causallearn_ges(data: pd.DataFrame, score_func: str) -> tuple[dict, int]:
    """causal-learn's GES result and how many local scores it computed (its cache misses)."""
    import causallearn.search.ScoreBased.GES as cl

    original = getattr(cl, score_func)
    calls = 0

    @functools.wraps(original)
    def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    setattr(cl, score_func, counted)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = cl.ges(data.to_numpy(float), score_func=score_func,
                            node_names=[str(c) for c in data.columns])
    finally:
        setattr(cl, score_func, original)
    return record, calls


def _assert_same_as_causallearn(data: pd.DataFrame, score: str = "bdeu"):
    score_func = {"bdeu": "local_score_BDeu", "bic": "local_score_BIC_from_cov"}[score]
    record, calls = _causallearn_ges(data, score_func)
    ours = ges(data, score=score)
    assert ours.graph == CausalGraph.from_causallearn(record["G"])
    assert ours.score == record["score"]  # the same floats, summed in the same order
    names = [str(c) for c in data.columns]
    for steps, theirs in ((ours.inserts, record["update1"]), (ours.deletes, record["update2"])):
        assert list(steps) == [(names[x], names[y], tuple(names[v] for v in vs)) for x, y, vs in theirs]
    assert ours.computed == calls  # distinct (node, parents) both searches asked for
    assert ours.served > 0 and ours.computed > 0
    return ours


# ------------------------------------------------------------------ local scores
def test_bdeu_local_score_equals_causallearn_bit_for_bit():
    from causallearn.score.LocalScoreFunction import local_score_BDeu

    data = _network_sample(7, 3, 600, seed=3)
    data["gappy"] = data["X1"].map({0: -4, 1: 2, 2: 17})  # any integers are states
    data["constant"] = 5  # a node with one state
    rng = np.random.default_rng(0)
    p = data.shape[1]
    for rows in (600, 40):  # 40 rows: 3^4 parent configurations outnumber the rows
        values = data.iloc[:rows].to_numpy(float)
        score = BDeuScore(data.iloc[:rows].to_numpy())
        for _ in range(30):
            node = int(rng.integers(p))
            others = [v for v in range(p) if v != node]
            parents = tuple(sorted(int(v) for v in rng.choice(others, size=rng.integers(0, 6), replace=False)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = local_score_BDeu(values, node, list(parents))
            assert score.compute(node, parents) == expected, (rows, node, parents)


def test_bic_local_score_equals_causallearn():
    from causallearn.score.LocalScoreFunction import local_score_BIC, local_score_BIC_from_cov

    rng = np.random.default_rng(1)
    values = rng.normal(size=(300, 5)) @ rng.normal(size=(5, 5))
    cov = np.cov(values.T, ddof=0)
    score = BICScore(values)
    for node, parents in [(0, ()), (1, (0,)), (4, (0, 2, 3)), (2, (0, 1, 3, 4))]:
        assert score.compute(node, parents) == local_score_BIC_from_cov((cov, 300), node, list(parents), None)
        assert score.compute(node, parents) == pytest.approx(local_score_BIC(values, node, list(parents)), abs=1e-9)


def test_bge_equals_the_closed_form_marginal_likelihood_and_is_score_equivalent():
    from scipy.special import multigammaln

    rng = np.random.default_rng(4)
    n, p = 200, 4
    values = rng.normal(size=(n, p)) @ rng.normal(size=(p, p)) + 0.5
    score = BGeScore(values)
    # complete DAG: the Gaussian-Wishart marginal likelihood of all the data (Geiger and
    # Heckerman 2002, eq. 20; Kuipers et al. 2014) with T = t I, alpha_mu = 1, alpha_w = p + 2
    aw, t = p + 2, score.t
    closed = (-n * p / 2 * np.log(np.pi) + p / 2 * np.log(1 / (n + 1)) + multigammaln((n + aw) / 2, p)
              - multigammaln(aw / 2, p) + aw / 2 * p * np.log(t) - (n + aw) / 2 * np.linalg.slogdet(score.r)[1])
    assert sum(score(i, tuple(range(i))) for i in range(p)) == pytest.approx(closed, rel=1e-12)
    chain = score(0, ()) + score(1, (0,)) + score(2, (1,))
    assert score(2, ()) + score(1, (2,)) + score(0, (1,)) == pytest.approx(chain, rel=1e-12)
    assert score(1, ()) + score(0, (1,)) + score(2, (1,)) == pytest.approx(chain, rel=1e-12)
    assert score(0, ()) + score(2, ()) + score(1, (0, 2)) != pytest.approx(chain, rel=1e-6)


@pytest.mark.parametrize("score", ["bic", "bge"])
def test_gaussian_scores_find_a_v_structure(score):
    rng = np.random.default_rng(3)
    a, b, d = rng.normal(size=(3, 2000))
    c = 0.8 * a - 0.7 * b + rng.normal(size=2000)
    data = pd.DataFrame({"a": a, "b": b, "c": c, "d": 0.9 * c + rng.normal(size=2000)})
    assert ges(data, score=score).graph == CausalGraph.from_edges(["a->c", "b->c", "c->d"], ["a", "b", "c", "d"])


def test_cache_counts_every_call_once():
    data = _network_sample(6, 2, 400, seed=5)
    result = ges(data)
    score = BDeuScore(data.to_numpy())
    assert score(0, (1, 2)) == score(0, (1, 2))
    assert (score.computed, score.served, len(score.cache)) == (1, 1, 1)
    assert result.computed >= data.shape[1]  # at least every node without parents
    assert result.served > 0


# ------------------------------------------------------------------ whole searches
@pytest.mark.parametrize("n_nodes,card,rows,seed", [(6, 2, 800, 0), (7, 3, 600, 1), (8, 2, 1500, 2),
                                                    (5, 4, 1000, 3)])
def test_same_cpdag_as_causallearn_on_random_networks(n_nodes, card, rows, seed):
    result = _assert_same_as_causallearn(_network_sample(n_nodes, card, rows, seed))
    assert result.inserts and result.graph.skeleton().any()


@pytest.mark.parametrize("domain", ["sqlite", "postgres"])
def test_same_cpdag_as_causallearn_on_study2_domains(domain):
    result = _assert_same_as_causallearn(_study2_samples()[domain])
    assert result.inserts and result.graph.skeleton().any()


def test_same_cpdag_as_causallearn_with_a_constant_node():
    data = _network_sample(5, 2, 500, seed=7).assign(constant=1)
    _assert_same_as_causallearn(data)
    assert not ges(data).graph.skeleton()[-1].any()  # a one-state node explains nothing


def test_same_cpdag_as_causallearn_with_bic_on_linear_gaussian_data():
    rng = np.random.default_rng(2)
    a = rng.normal(size=500)
    b = 0.8 * a + rng.normal(size=500)
    c = -0.6 * a + 0.5 * b + rng.normal(size=500)
    d = rng.normal(size=500) + 0.7 * c
    data = pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": rng.normal(size=500)})
    _assert_same_as_causallearn(data, score="bic")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_nodes=st.integers(4, 12), rows=st.sampled_from([12, 20, 100, 1000]), seed=st.integers(0, 10_000))
def test_same_cpdag_as_causallearn_with_bic_on_random_linear_gaussian_networks(n_nodes, rows, seed):
    """Study 6's data (a bootstrap resample, as bootstrap GES sees it), including fewer rows than
    variables, where covariance submatrices are singular and the floats decide."""
    from causaleval.studies.bayesian_cd_ate.data import synthetic

    _, data = synthetic(seed, rows, n_nodes, expected_edges=min(2.0 * n_nodes, n_nodes * (n_nodes - 1) / 2),
                        noise_sd=0.1)
    resample = data.iloc[np.random.default_rng(seed).integers(0, rows, rows)].reset_index(drop=True)
    _assert_same_as_causallearn(resample, score="bic")


@pytest.mark.parametrize("score", [BICScore, BGeScore])
def test_batched_gaussian_scores_equal_one_at_a_time(score):
    rng = np.random.default_rng(5)
    for rows in (12, 100):  # 12 rows of 15 variables: singular covariance submatrices
        values = rng.normal(size=(rows, 15)) @ rng.normal(size=(15, 15))
        one, batched = score(values), score(values)
        for size in (1, 4, 11):
            sets = sorted({tuple(sorted(rng.choice(14, size=size, replace=False).tolist())) for _ in range(10)})
            assert batched.batch(14, sets) == [one.compute(14, s) for s in sets]


def test_learner_ges_is_the_kits_and_ges_causallearn_agrees():
    data = _network_sample(6, 2, 500, seed=11)
    kit, theirs = learn("ges", data), learn("ges_causallearn", data)
    assert kit.name == "ges" and theirs.name == "ges_causallearn"
    assert kit == theirs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_nodes=st.integers(3, 6), card=st.integers(2, 3), rows=st.integers(30, 400),
       seed=st.integers(0, 10_000))
def test_result_is_a_valid_cpdag(n_nodes, card, rows, seed):
    graph = ges(_network_sample(n_nodes, card, rows, seed)).graph
    assert graph.is_cpdag_like()
    assert to_cpdag(consistent_extension(graph, fallback=False)) == graph


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("column,message", [
    (np.array([0.0, 1.5, 1.0, 0.0]), r"column 'bad' holds float64 values \(e.g. 1.5 in row 1\).*integer state codes"),
    (np.array(["x", "y", "x", "y"], dtype=object), r"column 'bad' holds object values \(e.g. 'x' in row 0\)"),
    (np.array([True, False, True, True]), r"column 'bad' holds bool values \(e.g. True in row 0\)"),
])
def test_bdeu_refuses_data_that_are_not_integer_codes(column, message):
    data = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0], "bad": column})
    with pytest.raises(ValueError, match=message):
        ges(data)


def test_bad_input_errors():
    good = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0], "c": [0, 0, 1, 1]})
    with pytest.raises(ValueError, match=r"missing values in columns \['b'\]"):
        ges(good.astype(float).assign(b=[1.0, np.nan, 0.0, 0.0]), score="bic")
    with pytest.raises(ValueError, match=r"at least 3 variables.*\['a', 'b'\]"):
        ges(good[["a", "b"]])
    with pytest.raises(ValueError, match="at least two variable columns and one row"):
        ges(good.iloc[:0])
    with pytest.raises(ValueError, match="score 'bdue' unknown"):
        ges(good, score="bdue")
    with pytest.raises(TypeError, match="DataFrame.*got ndarray"):
        ges(good.to_numpy())
    with pytest.raises(ValueError, match=r"columns \['s'\] are not numeric; the bge score"):
        ges(good.assign(s="x"), score="bge")
    with pytest.raises(ValueError, match=r"infinite values in columns \['c'\]"):
        ges(good.astype(float).assign(c=[0.0, np.inf, 1.0, 2.0]), score="bic")
    with pytest.raises(ValueError, match="lambda_value must be positive"):
        ges(good.astype(float), score="bic", lambda_value=0)
