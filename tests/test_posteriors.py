"""causaleval.bayes.posteriors: bootstrap PC/GES, MC3 and the registry."""

import itertools

import numpy as np
import pandas as pd
import pytest

from causaleval.bayes import POSTERIORS, sample_posterior
from causaleval.bayes import posteriors as P
from causaleval.learn.ges import BGeScore
from causaleval.graphs import CausalGraph, _is_acyclic, to_cpdag

OPTIONS = dict(pc_alpha=0.05, ges_score="bic", cpdag_rule="random_extension", mc3_burn_in=200, mc3_thin=5)


def _frame(seed=0, n=60, d=4):
    rng = np.random.default_rng(seed)
    w = np.triu(rng.random((d, d)) < 0.6, 1) * rng.normal(size=(d, d))
    x = rng.normal(size=(n, d)) @ np.linalg.inv(np.eye(d) - w)
    return pd.DataFrame(x, columns=[f"V{i}" for i in range(d)])


def test_random_extension_reaches_every_member_of_the_class():
    chain = CausalGraph.from_edges(["a - b", "b - c"], nodes=["a", "b", "c"])
    rng = np.random.default_rng(0)
    seen = {P.cpdag_to_dag(chain, "random_extension", rng).tobytes() for _ in range(60)}
    uniform = {P.cpdag_to_dag(chain, "uniform", rng).tobytes() for _ in range(60)}
    assert len(seen) == len(uniform) == 3  # a->b->c, a<-b<-c, a<-b->c (never the collider)
    for raw in seen:
        dag = np.frombuffer(raw, dtype=bool).reshape(3, 3)
        assert to_cpdag(CausalGraph.from_adjacency(dag.astype(np.int8), chain.nodes)) == to_cpdag(
            CausalGraph.from_edges(["a->b", "b->c"], nodes=["a", "b", "c"]))
    with pytest.raises(ValueError, match="cpdag_rule 'any'"):
        P.cpdag_to_dag(chain, "any", rng)


def test_mc3_samples_the_bge_posterior():
    """Three variables (25 DAGs): MC3's state frequencies against exp(BGe) normalised."""
    data = _frame(1, n=30, d=3)
    local = BGeScore(data.to_numpy())
    dags = [np.array(bits, dtype=bool).reshape(3, 3) for bits in itertools.product((0, 1), repeat=9)]
    dags = [g for g in dags if not g.diagonal().any() and _is_acyclic(g)]
    assert len(dags) == 25
    logp = np.array([P.log_score(local, g) for g in dags])
    exact = np.exp(logp - logp.max())
    exact /= exact.sum()
    samples = P.mc3(data, n_samples=20000, seed=3, options={**OPTIONS, "mc3_burn_in": 500, "mc3_thin": 3})
    index = {g.tobytes(): k for k, g in enumerate(dags)}
    freq = np.bincount([index[s.tobytes()] for s in samples], minlength=25) / len(samples)
    assert 0.5 * np.abs(freq - exact).sum() < 0.05


def test_methods_are_seeded_and_return_dags():
    data = _frame(2, n=40, d=4)
    for method in ("bootstrap_pc", "bootstrap_ges", "mc3"):
        a = P.sample_posterior(method, data, n_samples=3, seed=7, options=OPTIONS)
        b = P.sample_posterior(method, data, n_samples=3, seed=7, options=OPTIONS)
        assert a.shape == (3, 4, 4) and np.array_equal(a, b)
        assert all(_is_acyclic(g) for g in a)


def test_registry_checks_what_a_method_returns():
    @P.register_posterior("_test_cyclic")
    def cyclic(data, *, n_samples, seed, options):
        g = np.zeros((n_samples, data.shape[1], data.shape[1]), bool)
        g[:, 0, 1] = g[:, 1, 0] = True
        return g

    @P.register_posterior("_test_short")
    def short(data, *, n_samples, seed, options):
        return np.zeros((1, data.shape[1], data.shape[1]), bool)

    try:
        data = _frame()
        with pytest.raises(ValueError, match="'_test_cyclic': sample 0 is not a DAG"):
            P.sample_posterior("_test_cyclic", data, n_samples=2, seed=0, options=OPTIONS)
        with pytest.raises(ValueError, match=r"returned shape \(1, 4, 4\); expected \(2, 4, 4\)"):
            P.sample_posterior("_test_short", data, n_samples=2, seed=0, options=OPTIONS)
        with pytest.raises(ValueError, match="'nope' unknown"):
            P.sample_posterior("nope", data, n_samples=2, seed=0, options=OPTIONS)
    finally:
        P.POSTERIORS.pop("_test_cyclic")
        P.POSTERIORS.pop("_test_short")


@pytest.mark.parametrize("value, shown", [(np.nan, "nan"), (np.inf, "inf"), (0.5, "0.5"), (-1, "-1"), (2, "2")])
def test_a_plugin_entry_other_than_0_or_1_is_refused_never_read_as_an_edge(value, shown):
    """``np.asarray(..., dtype=bool)`` read NaN as True: an edge no method gave."""
    @P.register_posterior("_test_nan")
    def nan_edge(data, *, n_samples, seed, options):
        g = np.zeros((n_samples, data.shape[1], data.shape[1]), float if isinstance(value, float) else int)
        g[1, 2, 3] = value
        return g

    try:
        with pytest.raises(ValueError,
                           match=rf"'_test_nan': sample 1 holds {shown} at \(2, 3\); expected booleans or 0/1"):
            P.sample_posterior("_test_nan", _frame(), n_samples=2, seed=0, options=OPTIONS)
    finally:
        P.POSTERIORS.pop("_test_nan")


def test_0_and_1_as_numbers_are_edges():
    @P.register_posterior("_test_ints")
    def ints(data, *, n_samples, seed, options):
        g = np.zeros((n_samples, data.shape[1], data.shape[1]), int)
        g[:, 0, 1] = 1
        return g

    try:
        dags = P.sample_posterior("_test_ints", _frame(), n_samples=2, seed=0, options=OPTIONS)
        assert dags.dtype == bool and dags[:, 0, 1].all() and dags.sum() == 2
    finally:
        P.POSTERIORS.pop("_test_ints")


@pytest.mark.parametrize("n_samples", [0, -3, 2.5, True])
def test_a_sample_size_that_is_not_a_positive_integer_is_refused_before_any_method_runs(n_samples):
    with pytest.raises(ValueError, match=rf"'mc3': n_samples={n_samples!r}; expected a positive integer"):
        P.sample_posterior("mc3", _frame(), n_samples=n_samples, seed=0, options=OPTIONS)


def test_standardized_refuses_a_constant_column_naming_it():
    data = _frame().assign(flat=1.0)
    with pytest.raises(ValueError, match="dibs: column 'flat' is constant"):
        P.standardized("dibs", data)
    x = P.standardized("dibs", _frame())
    np.testing.assert_allclose(x.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(x.std(0), 1)


def test_method_options_refuses_what_a_method_did_not_declare_or_was_not_given():
    from causaleval.bayes.posteriors import OPTIONS, method_options, register_posterior

    register_posterior("_test_opts", options={"my_steps": {"type": "int", "min": 1}})(lambda *a, **k: None)
    try:
        assert method_options("_test_opts", {"my_steps": 3, "other": 1}, {"my_steps": 2}) == {"my_steps": 3}
        with pytest.raises(ValueError, match=r"'_test_opts' has defaults for 'my_rate' but does not declare"):
            method_options("_test_opts", {}, {"my_steps": 2, "my_rate": 0.1})
        with pytest.raises(ValueError, match=r"_test_opts: option\(s\) 'my_steps' not given and without a default"):
            method_options("_test_opts", {}, {})
        with pytest.raises(ValueError, match=r"'_never_declared' has defaults for 'x'"):
            method_options("_never_declared", {}, {"x": 1})
    finally:
        POSTERIORS.pop("_test_opts")
        OPTIONS.pop("_test_opts")


@pytest.mark.parametrize(("method", "bad", "message"), [
    ("mc3", {"mc3_burn_in": 10, "mc3_thin": 0}, r"mc3 option mc3_thin=0 \(int\): expected int >= 1"),
    ("mc3", {"mc3_burn_in": 10, "mc3_thin": 2.5}, r"mc3 option mc3_thin=2.5 \(float\): expected int >= 1"),
    ("bootstrap_pc", {"pc_alpha": 1.5, "cpdag_rule": "uniform"}, r"pc_alpha=1.5 \(float\): expected float in \(0, 1\)"),
    ("bootstrap_ges", {"ges_score": "aic", "cpdag_rule": "uniform"}, r"ges_score='aic' \(str\): expected str among"),
    ("bootstrap_pc", {"pc_alpha": 0.05}, r"option\(s\) 'cpdag_rule' not given"),
    ("mc3", {"mc3_burn_in": 10, "mc3_thin": 1, "gfn_stepz": 5},
     r"'mc3': option\(s\) 'gfn_stepz' declared by no registered method; 'mc3' declares 'mc3_burn_in', 'mc3_thin'"),
])
def test_the_kits_own_samplers_check_their_options_from_python(method, bad, message):
    data = pd.DataFrame(np.random.default_rng(0).normal(size=(30, 3)), columns=list("abc"))
    with pytest.raises(ValueError, match=message):
        sample_posterior(method, data, n_samples=2, seed=0, options=bad)


def test_a_modules_import_warnings_reach_every_call_not_only_the_first(tmp_path, monkeypatch):
    """Study 6 records a method's warnings in its counts row; a warning a module raises only when a
    process first imports it (sumu's, from SciPy) must be recorded on every call, else the row depends
    on which trial a worker ran first."""
    import sys
    import warnings

    (tmp_path / "warns_on_import.py").write_text('import warnings\nwarnings.warn("old API", DeprecationWarning)\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "warns_on_import", raising=False)
    monkeypatch.delitem(P._IMPORT_WARNINGS, "warns_on_import", raising=False)
    try:
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                (module,) = P.optional_modules("m", "warns_on_import")
            assert module.__name__ == "warns_on_import"
            assert [(w.category, str(w.message)) for w in caught] == [(DeprecationWarning, "old API")]
    finally:
        sys.modules.pop("warns_on_import", None)
        P._IMPORT_WARNINGS.pop("warns_on_import", None)
    with pytest.raises(ImportError, match=r'm needs absent_module \(the bayes extra\): pip install'):
        P.optional_modules("m", "absent_module")


def test_a_methods_notes_keep_its_warnings_but_not_those_meant_for_developers():
    """Study 6's counts and checks record a method's warnings; a DeprecationWarning of a library it
    imports (sumu's, from SciPy) says nothing of the DAGs and is left out; a RuntimeWarning stays."""
    import warnings

    @P.register_posterior("_test_warns")
    def warns(data, *, n_samples, seed, options):
        warnings.warn("old API", DeprecationWarning)
        warnings.warn("overflow encountered in exp", RuntimeWarning)
        warnings.warn("overflow encountered in exp", RuntimeWarning)
        return np.zeros((n_samples, data.shape[1], data.shape[1]), bool)

    try:
        dags, notes = P.sample_noted("_test_warns", _frame(), n_samples=2, seed=0, options=OPTIONS)
        assert dags.shape[0] == 2 and notes == "RuntimeWarning: overflow encountered in exp"
    finally:
        P.POSTERIORS.pop("_test_warns")
