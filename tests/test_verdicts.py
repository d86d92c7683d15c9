"""The verdict vocabulary, table-driven: each category from synthetic cases that could fail."""

import math

import numpy as np
import pandas as pd
import pytest

from causaleval import verdicts as V


@pytest.mark.parametrize("low, high, threshold, side, expected", [
    (0.75, 0.9, 0.7, ">", V.HOLDS),
    (0.6, 0.695, 0.7, ">", V.DOES_NOT_HOLD),        # the upper end below the threshold
    (0.65, 0.75, 0.7, ">", V.UNDECIDED),            # straddles
    (0.1, 0.4, 0.5, "<", V.HOLDS),
    (0.5, 0.6, 0.5, "<", V.DOES_NOT_HOLD),          # touching counts as the other side
    (0.45, 0.55, 0.5, "<", V.UNDECIDED),
    (math.nan, math.nan, 0.5, "<", V.NOT_TESTED),
])
def test_threshold_verdicts(low, high, threshold, side, expected):
    assert V.threshold_verdict(low, high, threshold, side) == expected


def test_threshold_refuses_a_reversed_interval_and_an_unknown_side():
    with pytest.raises(ValueError, match="low > high"):
        V.threshold_verdict(0.9, 0.1, 0.5, ">")
    with pytest.raises(ValueError, match="side must be"):
        V.threshold_verdict(0.1, 0.9, 0.5, ">=")


def test_an_unchanged_value_is_not_a_raise():
    """0.47 -> 0.47 over seeds: the difference's interval contains 0, so 'raised' is not shown."""
    diff = V.difference_interval([0.47, 0.46, 0.48], [0.47, 0.47, 0.47])
    assert V.threshold_verdict(diff.low, diff.high, 0.0, ">") == V.UNDECIDED
    diff = V.difference_interval([0.40, 0.41, 0.42], [0.50, 0.52, 0.51])
    assert V.threshold_verdict(diff.low, diff.high, 0.0, ">") == V.HOLDS


def test_mean_interval_is_the_t_interval_and_undefined_for_one_run():
    interval = V.mean_interval([1.0, 2.0, 3.0])
    assert interval.mean == 2.0 and interval.low == pytest.approx(2 - 4.302653 / math.sqrt(3), rel=1e-6)
    assert not V.mean_interval([1.0]).defined
    with pytest.raises(ValueError, match="NaN"):
        V.mean_interval([1.0, math.nan])


def test_holm_controls_the_family_and_any_of_all_of_follow_it():
    assert V.holm([0.01, 0.04, 0.03]).tolist() == [True, False, False]
    assert V.holm([0.001, 0.01, 0.02]).tolist() == [True, True, True]
    # 20 tests each at p = 0.04 would 'differ' uncorrected; Holm rejects none
    assert V.any_of([0.04] * 20)[0] == V.UNDECIDED
    assert V.any_of([0.001] + [0.5] * 19)[0] == V.HOLDS
    assert V.all_of([0.001, 0.5])[0] == V.UNDECIDED
    assert V.any_of([])[0] == V.NOT_TESTED


@pytest.mark.parametrize("printed, half", [("0.41", 0.005), ("17", 0.5), ("0.250", 0.0005), ("1e-3", 0.0005)])
def test_half_a_unit_of_the_last_printed_digit(printed, half):
    assert V.printed_half_unit(printed) == pytest.approx(half)


def test_agreement_uses_the_wider_of_interval_and_printed_precision():
    # tight runs far from the paper: differs
    assert V.agreement([0.426, 0.427, 0.425], "0.25", item="f1")["status"] == V.DIFFERS
    # one run, within half a unit of the printed digit: matches by precision
    row = V.agreement(0.4149, "0.41", item="x")
    assert row["status"] == V.MATCHES and row["rule"] == "printed precision"
    # spread runs whose interval holds the paper's value
    row = V.agreement([0.30, 0.45, 0.38, 0.52], "0.38", item="y")
    assert row["status"] == V.MATCHES and "interval" in row["rule"]


def test_a_match_in_an_interval_wider_than_the_resolution_is_undecided():
    """Issue 35: two seeds give a t interval that can cover [0, 1]; a match in it carries no information."""
    wide = [0.2, 0.8]
    assert V.agreement(wide, "0.5", item="x")["status"] == V.MATCHES
    row = V.agreement(wide, "0.5", item="x", resolution=0.3)
    assert row["status"] == V.UNDECIDED and "wider than the resolution" in row["rule"]
    assert V.agreement(wide, "5.0", item="x", resolution=0.3)["status"] == V.DIFFERS  # outside: still informative
    assert V.agreement([0.49, 0.51, 0.5], "0.5", item="x", resolution=0.3)["status"] == V.MATCHES

    named = V.agreement(wide, "0.5", item="x", resolution=0.3, kind="Welch interval")
    assert named["rule"] == "Welch interval and printed precision; the interval is wider than the resolution 0.3"
    assert V.agreement([0.426, 0.427, 0.425], "0.25", item="f1", kind="Welch interval")["rule"] == (
        "Welch interval and printed precision")  # the rules that failed, by their names


def test_explained_only_when_the_alternative_moves_the_cell_to_match():
    row = V.agreement([0.426, 0.427, 0.425], "0.25", item="f1")
    assert V.explained(row, "0.25", "endpoint reading", [0.251, 0.249, 0.25], tried=4)["status"] == V.EXPLAINED
    kept = V.explained(row, "0.25", "endpoint reading", [0.3, 0.31, 0.29])
    assert kept["status"] == V.DIFFERS and kept["value_under_alternative"] == pytest.approx(0.3)
    # issue 35: the alternative's interval is shown beside its value
    assert kept["low_under_alternative"] < kept["value_under_alternative"] < kept["high_under_alternative"]


def test_claims_table_refuses_unknown_verdicts_and_untested_claims_without_a_reason():
    with pytest.raises(ValueError, match="not one of"):
        V.claim("c1", "s", "matches", "e")
    with pytest.raises(ValueError, match="must say why"):
        V.claim("c1", "s", V.NOT_TESTED, "")
    with pytest.raises(ValueError, match="more than once"):
        V.claims_table([V.claim("c1", "s", V.HOLDS, "e"), V.claim("c1", "t", V.HOLDS, "e")])
    table = V.claims_table([V.claim("a", "s", V.HOLDS, "e"), V.claim("b", "s", V.BY_CONSTRUCTION, "e"),
                            V.claim("c", "s", V.PAPER_VS_ITSELF, "e")])
    counted = V.counts(table)
    assert counted[V.HOLDS] == 1 and counted[V.BY_CONSTRUCTION] == 1 and counted[V.UNDECIDED] == 0
    assert sum(counted[v] for v in V.EVIDENCE) == 1


def test_agreement_table_checks_statuses_and_not_comparable_needs_a_reason():
    with pytest.raises(ValueError, match="reason is required"):
        V.not_comparable("x", 1.0, 2.0, "")
    table = V.agreement_table([V.not_comparable("x", 1.0, 2.0, "the kit's own data, not the paper's")])
    assert list(table.columns[:len(V.AGREEMENT_COLUMNS)]) == list(V.AGREEMENT_COLUMNS)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        V.agreement_table([{"item": "x", "status": "close"}])
    assert isinstance(table, pd.DataFrame)


def test_all_greater_is_holm_corrected_and_decides_three_ways():
    # every difference clearly above 0
    assert V.all_greater({"a": [0.2, 0.25, 0.3], "b": [0.1, 0.12, 0.11]})[0] == V.HOLDS
    # one clearly below 0: does not hold, naming it
    verdict, text = V.all_greater({"a": [0.2, 0.25, 0.3], "b": [-0.1, -0.12, -0.11]})
    assert verdict == V.DOES_NOT_HOLD and "significantly below 0: b" in text
    # an unchanged value (0.47 -> 0.47) is no raise
    assert V.all_greater({"mc3": [0.0, 0.0, 0.0]})[0] == V.UNDECIDED
    # noisy around 0
    assert V.all_greater({"a": [0.1, -0.1, 0.05, -0.02]})[0] == V.UNDECIDED
    # no spread decides nothing (issue 35: Figure 3's extra mass, 0 in both seeds, is no evidence)
    assert V.all_greater({"constant": [0.05, 0.05]})[0] == V.UNDECIDED
    # one run decides nothing
    assert V.all_greater({"a": [0.5]})[0] == V.UNDECIDED
    assert V.all_greater({})[0] == V.NOT_TESTED
    # each test alone at p ~ 0.03 would pass; ten of them corrected by Holm do not all pass
    marginal = [0.3, 0.5, 0.1, 0.6, 0.2]
    assert V.one_sided_p(marginal)[0] < 0.05
    assert V.all_greater({str(i): marginal for i in range(10)})[0] == V.UNDECIDED


def test_an_interval_known_by_its_summary_is_the_t_interval_of_its_runs():
    runs = [0.3, 0.45, 0.38, 0.52]
    a = V.mean_interval(runs)
    b = V.Interval.from_summary(float(np.mean(runs)), float(np.std(runs, ddof=1)), len(runs))
    assert (b.low, b.high) == pytest.approx((a.low, a.high))
    assert V.agreement(b, "0.38", item="y")["status"] == V.MATCHES
    assert not V.Interval.from_summary(0.4, 0.1, 1).defined
