"""Friedman-test edge detection, the consistent DAG, and interventional truth from factorial data."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from causaleval.datasets import consistent as C
from causaleval.datasets import FactorialData
from causaleval.datasets.factorial import discretize
from causaleval.datasets.factorial import assignment_probabilities


def test_friedman_equals_scipy_for_three_groups_and_handles_ties():
    rng = np.random.default_rng(0)
    blocks = rng.integers(0, 4, size=(30, 3)).astype(float)  # many ties
    expected = stats.friedmanchisquare(*blocks.T)
    got = C.friedman(blocks)
    assert got == pytest.approx((expected.statistic, expected.pvalue), rel=1e-12)
    assert C.friedman(np.ones((5, 2))) == (0.0, 1.0)
    with pytest.raises(ValueError, match="missing values"):
        C.friedman(np.array([[1.0, np.nan]]))


def _planted(n=60, seed=0) -> FactorialData:
    """t1 raises y by 1 (noise sd 1); t2 does nothing; c varies by subject."""
    rng = np.random.default_rng(seed)
    rows = []
    for s, (t1, t2) in itertools.product(range(n), itertools.product((0, 1), repeat=2)):
        rows.append({"s": s, "trial": 0, "t1": t1, "t2": t2, "c": s % 4,
                     "y": 0.3 * s + t1 + rng.normal(), "z": rng.normal()})
    return FactorialData("planted", pd.DataFrame(rows), "s", "trial", ("t1", "t2"), ("y", "z"), ("c",))


def test_friedman_finds_the_planted_effect_only():
    pairs = C.related_pairs(_planted()).set_index(["treatment", "outcome"])
    assert pairs.loc[("t1", "y"), "related"]
    assert pairs.loc[("t1", "y"), "p_value"] < 1e-3
    assert not pairs.loc[("t2", "y"), "related"] and not pairs.loc[("t1", "z"), "related"]
    dag = C.consistent_dag(_planted(), "c", pairs.reset_index())
    d = dag.directed_matrix()
    idx = {v: i for i, v in enumerate(dag.nodes)}
    assert {(dag.nodes[i], dag.nodes[j]) for i, j in zip(*np.nonzero(d))} == {
        ("c", "t1"), ("c", "t2"), ("t1", "y")}
    wide = C.consistent_dag(_planted(), "c", pairs.reset_index(), covariate_to_outcomes=True)
    assert wide.directed_matrix()[idx["c"], idx["z"]]


def test_factorial_interventional_by_hand_and_under_the_biased_policy():
    data = discretize(_planted(n=40), bins=2, columns=["y"])
    table = C.factorial_interventional(data, "t1", "y")
    frame = data.frame
    for t in (0, 1):
        share = (frame.loc[frame["t1"] == t, "y"] == 1).mean()
        assert table[t, 1] == pytest.approx(share)
    # other treatment t2 distributed as Algorithm 1 with beta: brute-force mixture per subject
    beta = 1.5
    weighted = C.factorial_interventional(data, "t1", "y", biasing_covariate="c", beta=beta)
    p2 = assignment_probabilities(data, "c", beta)[:, 1]
    for t in (0, 1):
        expected = np.mean([
            sum((p2[s] if t2 else 1 - p2[s]) *
                frame.loc[(frame.s == s) & (frame.t1 == t) & (frame.t2 == t2), "y"].iloc[0]
                for t2 in (0, 1))
            for s in range(40)])
        assert weighted[t, 1] == pytest.approx(expected)
