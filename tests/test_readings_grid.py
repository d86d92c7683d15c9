"""Study 3 on the paper's own protocol: the outcome normalisation of Gentzel, Garant and Jensen's
supplement Sec. 1, the other readings of the consistent model's relatedness test, and the readings
grid with the verdict it gives the "2-5x" claim (studies/over_under_specification/grid.py)."""

import itertools

import numpy as np
import pandas as pd
import pytest

from causaleval import verdicts
from causaleval.datasets import consistent as C
from causaleval.datasets.factorial import FactorialData, normalize_outcomes, zero_baseline_offsets
from causaleval.studies import over_under_specification as S
from causaleval.studies import software_tvd


def _hand_made() -> FactorialData:
    """Two subjects, one binary treatment, two trials; y's control runs are 2, 4 (subject a) and
    10, 10 (subject b); z is zero at control for subject a."""
    rows = [("a", 0, 0, 2.0, 0.0), ("a", 1, 0, 4.0, 0.0), ("a", 0, 1, 6.0, 3.0), ("a", 1, 1, 9.0, 1.0),
            ("b", 0, 0, 10.0, 5.0), ("b", 1, 0, 10.0, 5.0), ("b", 0, 1, 20.0, 10.0), ("b", 1, 1, 30.0, 5.0)]
    frame = pd.DataFrame(rows, columns=["s", "trial", "t", "y", "z"])
    return FactorialData("hand", frame, "s", "trial", ("t",), ("y", "z"), ())


def test_normalisation_per_subject_and_per_data_set_by_hand():
    per_subject = normalize_outcomes(_hand_made(), ["y"], per="subject").frame["y"].tolist()
    assert per_subject == [2 / 3, 4 / 3, 6 / 3, 9 / 3, 1.0, 1.0, 2.0, 3.0]  # medians 3 and 10
    per_data_set = normalize_outcomes(_hand_made(), ["y"], per="dataset").frame["y"].tolist()
    assert per_data_set == [v / 7.0 for v in (2, 4, 6, 9, 10, 10, 20, 30)]  # median of 2, 4, 10, 10
    shifted = normalize_outcomes(_hand_made(), ["z"], per="subject", offset={"z": 1.0}).frame["z"].tolist()
    assert shifted == [1.0, 1.0, 4.0, 2.0, 1.0, 1.0, 11 / 6, 1.0]


def test_a_zero_baseline_is_refused_by_name_and_gets_an_offset_only_when_asked():
    with pytest.raises(ValueError, match="outcome 'z' has a zero control-case median"):
        normalize_outcomes(_hand_made(), per="subject")
    assert zero_baseline_offsets(_hand_made(), per="subject") == {"y": 0.0, "z": 1.0}
    assert zero_baseline_offsets(_hand_made(), per="dataset") == {"y": 0.0, "z": 0.0}  # median of 0, 0, 5, 5


def test_load_domain_refuses_an_unknown_normalisation_by_name():
    with pytest.raises(ValueError, match="normalize='median': expected one of none, dataset, subject"):
        software_tvd.load_domain("collected", "sqlite", covariate="num_joins", outcomes=None, bins=3, beta=1.0,
                                 normalize="median")


def _planted(n: int = 60, seed: int = 0) -> FactorialData:
    """t1 raises y by 1 in every cell of t2; t2 does nothing."""
    rng = np.random.default_rng(seed)
    rows = [{"s": s, "trial": 0, "t1": t1, "t2": t2, "c": s % 4, "y": 0.3 * s + t1 + rng.normal(), "z": rng.normal()}
            for s, (t1, t2) in itertools.product(range(n), itertools.product((0, 1), repeat=2))]
    return FactorialData("planted", pd.DataFrame(rows), "s", "trial", ("t1", "t2"), ("y", "z"), ("c",))


@pytest.mark.parametrize("test", C.RELATEDNESS_TESTS)
def test_every_reading_of_the_relatedness_test_finds_the_planted_effect_only(test):
    pairs = C.related_pairs(_planted(), test=test).set_index(["treatment", "outcome"])
    assert pairs.loc[("t1", "y"), "related"] and pairs.loc[("t1", "y"), "p_value"] < 1e-3
    assert not pairs.loc[("t2", "y"), "related"] and not pairs.loc[("t1", "z"), "related"]
    with pytest.raises(ValueError, match="test='anova': expected one of friedman, friedman_cells, paired_t"):
        C.related_pairs(_planted(), test="anova")


def _domain_csv(folder, name: str, effect: float, seed: int = 0, subjects: int = 400) -> None:
    """A factorial domain: treatments t1, t2, covariate c; o1 = effect * t1, o2 = effect * t2 (noise sd 1),
    o3 noise. ``effect`` large: under-specification must cost more; 0: nothing is related, so an
    under-specified model is the consistent one and over-specification costs more."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(subjects):
        c = int(rng.integers(0, 6))
        for t1, t2 in itertools.product((0, 1), repeat=2):
            rows.append({"subject": f"s{s}", "trial": 0, "treatment:t1": t1, "treatment:t2": t2,
                         "outcome:o1": 5 + effect * t1 + rng.normal(), "outcome:o2": 5 + effect * t2 + rng.normal(),
                         "outcome:o3": 5 + rng.normal(), "covariate:c": c})
    pd.DataFrame(rows).to_csv(folder / f"{name}.csv", index=False)


SMALL = {"normalize": ("none", "subject"), "test": ("friedman",), "alpha": (0.05,), "bins": (3,), "beta": (1.0,)}
BASE = dict(normalize="subject", alpha=0.05, bins=3, beta=1.0, covariate="c", outcomes=None, seed=0,
            smoothing="bdeu", ess=1.0, level=1, sid_covariate=False)


@pytest.mark.parametrize("name, effect, under_costs_more", [("strong", 3.0, True), ("null", 0.0, False)])
def test_the_grid_on_domains_whose_answer_is_built_in(tmp_path, name, effect, under_costs_more):
    _domain_csv(tmp_path, name, effect)
    grid = S.grid_table("csv", name, BASE, ["c"], data_dir=str(tmp_path), n_samples=3, axes=SMALL, n_jobs=1)
    assert len(grid) == 2 * 3 and set(grid["reference"]) == set(S.GRID_REFERENCES)  # 2 normalisations x 3 references
    assert (grid["cells matching"] == "no paper row").all()  # not a domain of the paper
    if under_costs_more:
        assert (grid["ratio mean"] > 1).all() and (grid["under-specify median"] > grid["over-specify median"]).all()
    else:  # against the paper's reference, nothing related: under-specifying changes little or nothing
        paper_reference = grid[grid["reference"] == "sample fit"]
        assert (paper_reference["ratio mean"] < 1).all() and (paper_reference["over-specify median"] > 0).all()
        assert (grid["ratio in 2-5"] == verdicts.DOES_NOT_HOLD).all()
    summary = S.grid_summary(grid, BASE)
    assert summary["protocol"]["normalize"] == "subject" and summary["readings"] == 6


def _claims() -> pd.DataFrame:
    return pd.DataFrame({"statement": ["2-5x"], "verdict": [verdicts.HOLDS], "evidence": ["ratio 3.1 [2.4, 3.8]"]},
                        index=pd.Index(["ratio_d"], name="claim"))


def _grid(outcomes: list[str]) -> pd.DataFrame:
    rows = []
    for i, outcome in enumerate(outcomes):
        rows.append({"normalize": "subject" if i == 0 else "none", "test": "friedman", "alpha": 0.05, "bins": 3,
                     "beta": 1.0, "covariate": "c", "treatments": "all", "reference": "sample fit",
                     "ratio mean": 3.0 if outcome == verdicts.HOLDS else 1.0, "ratio low": 2.5, "ratio high": 3.5,
                     "ratio in 2-5": outcome, "cells matching": "0 of 6"})
    return pd.DataFrame(rows)


def test_depends_on_reading_only_when_decided_readings_go_both_ways():
    both = S.with_readings(_claims(), _grid([verdicts.HOLDS, verdicts.DOES_NOT_HOLD, verdicts.UNDECIDED]),
                           BASE, "d", n_samples=5)
    assert both.loc["ratio_d", "verdict"] == verdicts.DEPENDS_ON_READING
    assert (f"{verdicts.HOLDS} 1, {verdicts.DOES_NOT_HOLD} 1, {verdicts.UNDECIDED} 1"
            in both.loc["ratio_d", "evidence"])
    assert "ranges 1.00-3.00" in both.loc["ratio_d", "evidence"]
    one_way = S.with_readings(_claims(), _grid([verdicts.HOLDS, verdicts.UNDECIDED]), BASE, "d", n_samples=5)
    assert one_way.loc["ratio_d", "verdict"] == verdicts.HOLDS  # the stated protocol's verdict stands
    assert "readings grid (2 readings" in one_way.loc["ratio_d", "evidence"]
