"""The exact-posterior check and the two-run diagnostic (causaleval.bayes.check): they tell a sampler
of the posterior from one that is not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causaleval import verdicts
from causaleval.bayes import check, exact, posteriors

MC3 = {"mc3_burn_in": 2000, "mc3_thin": 10}


def chain_data(seed: int, d: int = 4, n: int = 200) -> pd.DataFrame:
    """x0 -> x1 -> x2 (weights 0.8), the other columns independent."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    for v in range(1, 3):
        x[:, v] += 0.8 * x[:, v - 1]
    return pd.DataFrame(x, columns=[f"x{v}" for v in range(d)])


def uniform_dags(data: pd.DataFrame, *, n_samples: int, seed: int, options) -> np.ndarray:
    """A deliberately wrong sampler: uniform over all DAGs, whatever the data."""
    dags = exact.all_dags(data.shape[1])
    return dags[np.random.default_rng(seed).integers(len(dags), size=n_samples)]


def one_dag_per_seed(data: pd.DataFrame, *, n_samples: int, seed: int, options) -> np.ndarray:
    """A sampler stuck where it starts: the empty graph at even seeds, the chain x0 -> x1 at odd ones."""
    dag = np.zeros((data.shape[1],) * 2, dtype=bool)
    dag[0, 1] = seed % 2 == 1
    return np.repeat(dag[None], n_samples, axis=0)


@pytest.fixture
def wrong(monkeypatch):
    monkeypatch.setitem(posteriors.POSTERIORS, "uniform_dags", uniform_dags)
    monkeypatch.setitem(posteriors.POSTERIORS, "one_dag_per_seed", one_dag_per_seed)


def test_the_floor_is_the_tv_of_exact_draws_and_shrinks_with_draws():
    data = chain_data(0)
    few, many = check.tv_floor(data, 100, 0), check.tv_floor(data, 2000, 0)
    assert many < few / 2  # about 1 / sqrt(N)
    expected = np.mean([exact.dag_tv(exact.exact_draws(data, 2000, r), data) for r in range(check.FLOOR_REPLICATES)])
    assert many == pytest.approx(expected)


def test_mc3_samples_the_exact_posterior_and_a_uniform_sampler_does_not(wrong):
    data_sets = [({"seed": s}, chain_data(s)) for s in (0, 1)]
    table = check.exact_check(["mc3", "uniform_dags"], data_sets, n_draws=2000, options=MC3)
    assert len(table) == 4 and (table["floor"] <= check.MAX_FLOOR).all()
    summary = check.check_summary(table).set_index("method")
    assert summary.loc["mc3", "verdict"] == verdicts.HOLDS
    assert summary.loc["uniform_dags", "verdict"] == verdicts.DOES_NOT_HOLD
    assert summary.loc["uniform_dags", "within floor"] == "0 of 2"


def test_too_few_draws_leave_it_undecided():
    table = check.exact_check(["mc3"], [({"seed": 0}, chain_data(0))], n_draws=30, options=MC3)
    assert table["floor"].iloc[0] > check.MAX_FLOOR
    assert check.check_summary(table)["verdict"].iloc[0] in (verdicts.UNDECIDED, verdicts.DOES_NOT_HOLD)


def test_a_data_set_whose_floor_cannot_tell_does_not_pass_alone():
    rows = pd.DataFrame({"method": "m", "DAG TV": [0.05, 0.3], "floor": [0.05, 0.2], "within floor": True,
                         "TV / floor": [1.0, 1.5]})
    assert check.check_summary(rows)["verdict"].iloc[0] == verdicts.HOLDS
    assert check.check_summary(rows.iloc[[1]])["verdict"].iloc[0] == verdicts.UNDECIDED
    failing = rows.assign(**{"within floor": [True, False]})
    assert check.check_summary(failing)["verdict"].iloc[0] == verdicts.DOES_NOT_HOLD


def test_fewer_draws_for_one_method_get_their_own_floor(wrong):
    table = check.exact_check(["mc3", "uniform_dags"], [({"seed": 0}, chain_data(0))], n_draws=500, options=MC3,
                              draws_by_method={"uniform_dags": 50}).set_index("method")
    assert table.loc["uniform_dags", "draws"] == 50
    assert table.loc["uniform_dags", "floor"] == pytest.approx(check.tv_floor(chain_data(0), 50, 0))


def test_two_runs_of_a_long_chain_agree_and_a_short_or_stuck_one_does_not(wrong):
    """Measured on this d = 5 data (seeds 0-2 of chain_data): thin 10 gives gaps 0.12-0.14 against
    references 0.05-0.07, thin 100 gaps 0.036-0.040 against 0.044-0.058."""
    data = chain_data(0, d=5)
    assert not check.two_run_gap("mc3", data, n_draws=500, seeds=(0, 1), options=MC3)["agree"]
    long = {"mc3_burn_in": 10000, "mc3_thin": 100}
    assert check.two_run_gap("mc3", data, n_draws=500, seeds=(0, 1), options=long)["agree"]
    stuck = check.two_run_gap("one_dag_per_seed", data, n_draws=500, seeds=(0, 1), options={})
    assert stuck["gap"] == 1.0 and not stuck["agree"]


REFERENCE = {"burn_in": 5000, "thin": 50, "n_draws": 2000}


def test_the_long_chain_reference_converges_to_the_exact_marginals():
    data = chain_data(0)
    ref = check.long_chain_reference(data, **REFERENCE)
    assert ref.converged and ref.draws == 4000 and ref.seeds == check.REFERENCE_SEEDS
    off = ~np.eye(4, dtype=bool)
    truth = exact.edge_marginals(data)[off]
    error = np.abs(ref.frequencies[off] - truth).max()
    assert error <= check.FACTOR * check.binomial_error(truth, ref.draws, 10**9, 0)[0]
    assert ref.edges == pytest.approx(ref.frequencies.sum())
    short = check.long_chain_reference(chain_data(0, d=5), burn_in=0, thin=1, n_draws=500)
    assert not short.converged  # 500 consecutive states from the empty graph


def test_a_tempered_reference_runs_tempered_mc3_chains_and_converges_to_the_exact_marginals():
    data = chain_data(0)
    ref = check.long_chain_reference(data, **REFERENCE, copies=3, beta_ratio=0.5)
    assert ref.converged and (ref.copies, ref.beta_ratio) == (3, 0.5)
    options = {"mc3_burn_in": 5000, "mc3_thin": 50, "mc3_copies": 3, "mc3_beta_ratio": 0.5}
    chains = [posteriors.mc3(data, n_samples=2000, seed=s, options=options).mean(axis=0) for s in check.REFERENCE_SEEDS]
    assert np.array_equal(ref.frequencies, (chains[0] + chains[1]) / 2)
    off = ~np.eye(4, dtype=bool)
    truth = exact.edge_marginals(data)[off]
    floor = check.binomial_error(truth, ref.draws, 10**9, 0)[0]
    assert np.abs(ref.frequencies[off] - truth).max() <= check.FACTOR * floor


def test_the_floor_of_independent_draws_shrinks_with_draws_and_with_the_reference():
    p = np.linspace(0, 1, 30)
    few, many = check.binomial_error(p, 100, 10**6, 0), check.binomial_error(p, 2000, 10**6, 0)
    assert many[0] < few[0] / 3 and many[1] < few[1] / 3  # about 1 / sqrt(N): sqrt(20) = 4.5
    assert check.binomial_error(p, 2000, 2000, 0)[1] > many[1] * 1.2  # a reference of 2000 draws adds its own error
    assert check.binomial_error(np.zeros(30), 50, 50, 0) == (0.0, 0.0)


def test_mc3_agrees_with_its_long_chain_reference_and_a_uniform_sampler_does_not(wrong):
    data_sets = [({"seed": 0}, chain_data(0)), ({"seed": 1}, chain_data(1))]
    table = check.reference_check(["mc3", "uniform_dags"], data_sets, n_draws=1000, options=MC3, reference=REFERENCE)
    assert len(table) == 4 and table["reference converged"].all()
    summary = check.reference_summary(table).set_index("method")
    assert summary.loc["mc3", "verdict"] == verdicts.HOLDS
    assert summary.loc["uniform_dags", "verdict"] == verdicts.DOES_NOT_HOLD
    assert summary.loc["uniform_dags", "within floor"] == "0 of 2"
    rows = table.set_index("method")
    assert (rows.loc["uniform_dags", "edges"] - rows.loc["uniform_dags", "reference edges"]).abs().min() > 0.5


def test_a_reference_run_once_serves_every_method_and_must_match_the_data(wrong):
    data = chain_data(0)
    ref = check.long_chain_reference(data, **REFERENCE)
    table = check.reference_check(["mc3", "uniform_dags"], [({"seed": 0}, data)], n_draws=500, options=MC3,
                                  reference=[ref], draws_by_method={"uniform_dags": 50}).set_index("method")
    assert table.loc["uniform_dags", "draws"] == 50
    off = ~np.eye(4, dtype=bool)
    floor = check.binomial_error(ref.frequencies[off], 50, ref.draws, 0)
    assert (table.loc["uniform_dags", "max floor"], table.loc["uniform_dags", "mean floor"]) == pytest.approx(floor)
    assert table.loc["mc3", "max floor"] < table.loc["uniform_dags", "max floor"]
    with pytest.raises(ValueError, match="one each"):
        check.reference_check(["mc3"], [({"seed": 0}, data)] * 2, n_draws=10, options=MC3, reference=[ref])
    with pytest.raises(ValueError, match="columns"):
        check.reference_check(["mc3"], [({"seed": 0}, chain_data(0, d=5))], n_draws=10, options=MC3, reference=[ref])


def test_an_unconverged_reference_neither_passes_nor_fails_a_method():
    rows = pd.DataFrame({"method": "m", "within floor": [True, False], "reference converged": [True, False],
                         "max error": [0.02, 0.3], "max floor": [0.02, 0.05]})
    assert check.reference_summary(rows)["verdict"].iloc[0] == verdicts.UNDECIDED
    assert check.reference_summary(rows.iloc[[0]])["verdict"].iloc[0] == verdicts.HOLDS
    failing = rows.assign(**{"within floor": [False, True]})
    assert check.reference_summary(failing)["verdict"].iloc[0] == verdicts.DOES_NOT_HOLD
    assert check.reference_summary(failing)["statement"].iloc[0] == check.REFERENCE_STATEMENT


def test_the_study_runs_the_reference_check_from_its_parameters():
    import importlib

    exact_check = importlib.import_module("causaleval.studies.bayesian_cd_ate.exact_check")

    p = {"methods": ["mc3"], "seeds": [0], "sample_sizes": [50, 80], "expected_edges": 4.0, "noise_sd": 0.5,
         "standardize": True, "pc_alpha": 0.05, "ges_score": "bic", "cpdag_rule": "random_extension",
         "mc3_burn_in": 2000, "mc3_thin": 10, "method_options": {}, "exact_draws": 300, "exact_draws_by_method": {},
         "reference_nodes": [4], "reference_burn_in": 2000, "reference_thin": 20, "reference_draws": 500,
         "reference_copies": 1, "reference_beta_ratio": 0.8, "reference_method_draws": 300, "n_jobs": 1}
    table, summary, seconds = exact_check.reference_check(p)
    assert list(table["n"]) == [50, 80] and (table["d"] == 4).all() and (table["draws"] == 300).all()
    assert list(table["method"]) == ["mc3"] * 2 and (table["reference draws"] == 1000).all()
    assert summary["statement"].iloc[0] == check.REFERENCE_STATEMENT
    # CPU time apart, so a saved table is the same on every rerun
    assert "seconds" not in table and list(seconds) == ["data", "d", "n", "seed", "method", "seconds"]
    assert seconds[["n", "method"]].equals(table[["n", "method"]]) and (seconds["seconds"] > 0).all()
    assert exact_check.reference_check(p | {"reference_nodes": []}).table.empty


def fair_sampler(data: pd.DataFrame, *, n_samples: int, seed: int, options) -> np.ndarray:
    """Exact i.i.d. draws from the BGe posterior under sumu's fair prior, not the kit's uniform one."""
    return exact.exact_draws(data, n_samples, seed + 100, exact.fair_prior(data.shape[1]))


def test_a_method_with_its_own_target_is_measured_against_it_too(monkeypatch):
    monkeypatch.setitem(posteriors.POSTERIORS, "fair_sampler", fair_sampler)
    monkeypatch.setitem(posteriors.TARGETS, "fair_sampler", lambda d, options: ("BGe, fair", exact.fair_prior(d)))
    data_sets = [({"seed": s}, chain_data(s, n=30)) for s in (0, 1)]
    table = (check.exact_check(["mc3", "fair_sampler"], data_sets, n_draws=2000, options=MC3)
             .set_index(["seed", "method"]))
    ours = table.xs("fair_sampler", level="method")
    assert (ours["own target"] == "BGe, fair").all() and ours["own within floor"].all()
    assert (ours["own DAG TV"] < ours["DAG TV"]).all()  # nearer its own target than the kit's
    assert (ours["own floor"] != ours["floor"]).all()  # its own target's floor, from its own exact draws
    mc3 = table.xs("mc3", level="method")
    assert (mc3["own target"] == "").all() and mc3["own DAG TV"].isna().all() and mc3["own within floor"].isna().all()
    summary = check.check_summary(table.reset_index()).set_index("method")
    assert (summary.loc["fair_sampler", "own within floor"] == "2 of 2"
            and summary.loc["fair_sampler", "own verdict"] == verdicts.HOLDS)
    assert summary.loc["fair_sampler", "own target"] == "BGe, fair" and summary.loc["mc3", "own target"] == ""
    # a target that differs between data sets (DiBS's prior between d = 4 and 5): every label is named
    per_seed = table.reset_index().assign(**{"own target": lambda t: t["own target"].where(t["seed"] == 0, "other")})
    assert check.check_summary(per_seed).set_index("method").loc["fair_sampler", "own target"] == "BGe, fair; other"


def test_a_target_without_a_bge_form_is_named_and_not_measured(monkeypatch):
    monkeypatch.setitem(posteriors.POSTERIORS, "uniform_dags", uniform_dags)
    monkeypatch.setitem(posteriors.TARGETS, "uniform_dags", lambda d, options: ("its own model's", None))
    table = check.exact_check(["uniform_dags"], [({"seed": 0}, chain_data(0))], n_draws=200, options={})
    assert table["own DAG TV"].isna().all() and (table["own target"] == "its own model's").all()
    summary = check.check_summary(table).iloc[0]
    assert summary["own target"] == "its own model's" and summary["own verdict"] == summary["own within floor"] == ""


def test_the_kits_wrapped_methods_name_their_own_targets():
    assert posteriors.own_target("mc3", 4, {}) is None
    label, prior = posteriors.own_target("gadget", 4, {})
    assert "fair" in label and prior == exact.fair_prior(4)
    label, prior = posteriors.own_target("dibs", 5, {})
    assert "1 expected edge per node" in label and prior == exact.erdos_renyi_prior(5, 0.5)  # p = 2 k / (d - 1)
    label, prior = posteriors.own_target("dibs", 11, {})
    assert "2 expected edges per node" in label and prior == exact.erdos_renyi_prior(11, 0.4)
    assert posteriors.own_target("bcd_nets", 4, {})[1] is None


def test_the_checks_give_the_same_rows_on_two_processes_as_on_one():
    """Each (data set, method) pair and each reference chain seeds itself: two loky workers give the
    rows one process gives, in the same order (only the CPU seconds may differ)."""
    data_sets = [({"seed": 0}, chain_data(0)), ({"seed": 1}, chain_data(1, d=3))]
    methods = ["bootstrap_pc", "mc3"]
    options = MC3 | {"pc_alpha": 0.05, "cpdag_rule": "random_extension"}
    one, two = (check.exact_check(methods, data_sets, n_draws=200, options=options, n_jobs=n) for n in (1, 2))
    pd.testing.assert_frame_equal(one, two)
    reference = {"burn_in": 500, "thin": 5, "n_draws": 200}
    one, two = (check.reference_check(methods, data_sets, n_draws=200, options=options, reference=reference,
                                      n_jobs=n).drop(columns="seconds") for n in (1, 2))
    pd.testing.assert_frame_equal(one, two)
    assert list(one["method"]) == ["bootstrap_pc", "mc3"] * 2
