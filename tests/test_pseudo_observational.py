"""Algorithm 1 of Gentzel et al. (2019, supplement): hand case and statistical behaviour."""

import itertools

import numpy as np
import pandas as pd
import pytest

from causaleval.datasets import FactorialData
from causaleval.effects.sampling import pseudo_observational


def _factorial(n_subjects=4, k=2, trials=1, covariate=None) -> FactorialData:
    rows = []
    for s, trial, cell in itertools.product(range(n_subjects), range(trials),
                                            itertools.product((0, 1), repeat=k)):
        rows.append({"s": f"e{s}", "trial": trial, **{f"t{j + 1}": v for j, v in enumerate(cell)},
                     "y": 100 * s + 10 * trial + int("".join(map(str, cell)), 2),
                     "c": (covariate or {}).get(s, 10 * (s % 3))})
    return FactorialData("toy", pd.DataFrame(rows), "s", "trial",
                         tuple(f"t{j + 1}" for j in range(k)), ("y",), ("c",))


def test_hand_worked_case_at_large_beta():
    # covariate values 0, 10, 20, 0 -> ranks C_e = 1, 2, 3, 1
    # C=1: j=1 odd -> t1=0, j=2 even -> t2=1;  C=2: even, even -> 1, 1;  C=3: odd, even -> 0, 1
    sample = pseudo_observational(_factorial(), "c", beta=50.0, seed=0)
    assert sample["s"].tolist() == ["e0", "e1", "e2", "e3"]
    assert sample[["t1", "t2"]].values.tolist() == [[0, 1], [1, 1], [0, 1], [0, 1]]
    # the record kept is the subject's own run in that cell
    assert sample["y"].tolist() == [1, 103, 201, 301]


def test_beta_zero_is_a_randomized_trial_and_large_beta_follows_parity():
    data = _factorial(n_subjects=4000, k=3)
    sample = pseudo_observational(data, "c", beta=0.0, seed=1)
    assert np.allclose(sample[["t1", "t2", "t3"]].mean(), 0.5, atol=0.03)
    by_covariate = sample.groupby("c")[["t1", "t2", "t3"]].mean()
    assert np.allclose(by_covariate, 0.5, atol=0.05)  # assignment ignores the covariate
    biased = pseudo_observational(data, "c", beta=3.0, seed=1)
    rank = biased["c"].rank(method="dense").astype(int)
    for j, t in enumerate(["t1", "t2", "t3"], start=1):
        even = (rank * j) % 2 == 0
        p = 1 / (1 + np.exp(-3.0))
        assert abs(biased.loc[even, t].mean() - p) < 0.03
        if (~even).any():  # C_e * 2 is always even
            assert abs(biased.loc[~even, t].mean() - (1 - p)) < 0.03


def test_deterministic_in_seed_and_draws_among_trials():
    data = _factorial(n_subjects=200, trials=3)
    first = pseudo_observational(data, "c", 1.0, seed=7)
    assert first.equals(pseudo_observational(data, "c", 1.0, seed=7))
    assert set(first["trial"]) == {0, 1, 2}  # several trials: one record drawn among them


def test_bad_input_is_named():
    data = _factorial()
    with pytest.raises(ValueError, match="beta must be >= 0"):
        pseudo_observational(data, "c", -1, 0)
    with pytest.raises(ValueError, match="no biasing covariate column 'z'"):
        pseudo_observational(data, "z", 1, 0)
    gap = FactorialData("gap", data.frame.iloc[1:], "s", "trial", ("t1", "t2"), ("y",), ("c",),
                        levels=data.levels)
    with pytest.raises(ValueError, match=r"1 subject\(s\) lack a finished run.*'e0'"):
        pseudo_observational(gap, "c", 1, 0)
    three = FactorialData("three", data.frame.assign(t1=data.frame["t1"] * 2), "s", "trial",
                          ("t1", "t2"), ("y",), ("c",))
    with pytest.raises(ValueError, match=r"treatments \['t1'\] are not binary"):
        pseudo_observational(three, "c", 1, 0)
