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
