"""Study 4's ``claims`` and ``agreement`` tables on synthetic audits (cases that could fail), in the kit's
one vocabulary. (Studies 1, 2, 3, 5 and 6 test theirs beside their pipelines.)"""

import pandas as pd
import pytest

from causaleval import verdicts as V
from causaleval.studies import survey_metric_tables as S4

SIMULATED = {"coverage": 0.95, "coverage 95% CI": "[0.939, 0.977]", "CIC": 0.21}


def _audit(rows):
    return pd.DataFrame(rows, columns=["section", "text", "percent", "count", "denominator", "computed %",
                                       S4.PERCENT_COLUMN])


AUDIT = _audit([
    (2, "30% (34/111) bivariate", 30, 34, 111, 100 * 34 / 111, "truncated"),     # 30.6 printed as 30
    (2, "60% (55/111) multivariate", 60, 55, 111, 100 * 55 / 111, "a point or more off"),  # 55/91 = 60.4
    (3, "84% (74) synthetic", 84, 74, 91, 100 * 74 / 91, "a point or more off"),         # no denominator gives 84
    (3, "50% (10/20) empirical", 50, 10, 20, 50.0, "nearest integer"),
    (4, "10% of them", 10, None, None, None, "no count given"),
])
CLAIM_AUDIT = pd.DataFrame({"expected": ["absent", "present", "present"],
                            "Table III ticks": ["dowhy: ATE", "none", "none"],
                            S4.TABLE3_COLUMN: ["inconsistent", "consistent", "no Table III row"]},
                           index=pd.Index(["reading a", "reading b", "reading c"], name="claim"))
CHECKS = pd.DataFrame({"stated": [91.0, 7.0], "computed": [91.0, 8.0], "stated equals computed": [True, False]},
                      index=pd.Index(["papers = synthetic + empirical - both", "only empirical"], name="check"))
TOTALS = pd.DataFrame({"total": [20, 21], "computed": [20, 20], "total equals sum": [True, False]},
                      index=pd.Index(["UAI", "NeurIPS"], name="line"))


def test_study4_claims_are_checks_of_the_papers_against_themselves():
    claims = S4.claims(AUDIT, CLAIM_AUDIT, S4.calibrated_cic(), SIMULATED)
    assert set(claims["verdict"]) <= set(V.VERDICTS) and claims.index.is_unique
    evidence_rows = claims[claims["verdict"].isin(V.EVIDENCE)]
    assert evidence_rows.empty  # a survey's numbers against their own counts are no evidence about a method
    assert claims["verdict"].value_counts()[V.NOT_TESTED] == 2  # no count; no Table III row
    sixty = claims[claims["statement"].str.contains("60% (55/111)", regex=False)].iloc[0]
    assert sixty["verdict"] == V.PAPER_VS_ITSELF and sixty["evidence"].startswith("differs, explained")
    assert "denominator 91" in sixty["evidence"]
    table = S4.agreement(TOTALS, AUDIT, CHECKS, S4.calibrated_cic(), SIMULATED).set_index("item")
    for _, claim in claims[claims.index.str.startswith("gentzel_percentage")].iterrows():  # one cell, one verdict
        text = claim["statement"].split('"')[1]
        if text in table.index:
            assert claim["evidence"].startswith(f"{table.loc[text, 'status']} (agreement table)")
    assert claims.loc["cheng_tools_1", "evidence"].startswith("disagrees")
    assert "reading 1 of 3" in claims.loc["cheng_tools_1", "statement"]
    cic = claims.loc["shimoni_cic"]
    assert (cic["verdict"] == V.PAPER_VS_ITSELF and cic["evidence"].startswith("differs (agreement table)")
            and "0.204" in cic["evidence"])


def test_study4_agreement_explains_a_cell_only_by_a_named_alternative_that_gives_its_printed_value():
    table = S4.agreement(TOTALS, AUDIT, CHECKS, S4.calibrated_cic(), SIMULATED).set_index("item")
    assert set(table["status"]) <= set(V.AGREEMENT)
    assert table.loc["30% (34/111) bivariate", "status"] == V.EXPLAINED  # truncation gives 30
    assert "truncated" in table.loc["30% (34/111) bivariate", "alternative"]
    multivariate = table.loc["60% (55/111) multivariate"]
    assert multivariate["status"] == V.EXPLAINED and "denominator 91" in multivariate["alternative"]
    assert multivariate["value_under_alternative"] == pytest.approx(100 * 55 / 91)
    assert table.loc["84% (74) synthetic", "status"] == V.DIFFERS  # no alternative gives 84
    assert table.loc["50% (10/20) empirical", "status"] == V.MATCHES
    assert table.loc["Total, NeurIPS", "status"] == V.DIFFERS and table.loc["Total, UAI", "status"] == V.MATCHES
    assert table.loc["only empirical", "status"] == V.DIFFERS
    cic = table.loc["CIC of a reliable 95% interval"]
    assert cic["status"] == V.DIFFERS and cic["reason"]  # a note, never an explanation
    assert "10% of them" not in table.index  # no count: not compared


def test_markdown_shows_yes_no_and_a_dash_for_missing():
    import numpy as np

    from causaleval import report

    table = pd.DataFrame({"x": [0.12345, np.nan], "flag": [True, False], "note": ["a", None], "maybe": [True, np.nan]})
    text = report.markdown(table, index=False, floatfmt=".3f")
    assert "0.123" in text and "yes" in text and "no" in text and report.MISSING in text
    assert not any(word in text for word in ("nan", "True", "False", "None"))
