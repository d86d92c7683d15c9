"""Study 4: the survey metric tables (Cheng et al. 2022; Gentzel et al. 2019; Shimoni et al. 2018; Emezue et al. 2023)
and worked examples of every metric.

The pipeline of ``notebooks/04_survey_metric_tables.ipynb`` as functions:

* Gentzel et al. (Gentzel et al. 2019) survey Tables 1 and 2 from the published counts, and an audit of
  every percentage the text states (:func:`percentage_audit`, :func:`count_checks`);
* Cheng et al. (Cheng et al. 2022) Tables I-III from structured data, with the kit's implementation and
  its cross-check beside each metric (:func:`with_implementation`);
* worked examples on real or simulated data: effect estimators of causallib on the ACIC 2016
  data the causallib wheel ships (:func:`acic_results`), graphs learned from Asia
  (:func:`asia_example`), a position-biased click log (:func:`ranking_example`), time series
  with a known effect (:func:`time_series_example`), counterfactual explanations of a linear
  classifier (:func:`counterfactual_example`) and ATE distributions of a bootstrapped PC
  against the true Markov equivalence class (:func:`ate_posterior_example`).
"""

from __future__ import annotations

from typing import Any

from causaleval import params
from causaleval.studies.survey_metric_tables.acic import (
    acic_instances, acic_interval_diagnosis, acic_results, acic_truth, calibrated_cic, crossfit_aipw,
    effect_table, ESTIMATORS, ibm_round_trip, Instance, interval_comparison, interval_simulation,
    interval_summary, write_submission,
)
from causaleval.studies.survey_metric_tables.claims import agreement, claims, shimoni_cic
from causaleval.studies.survey_metric_tables.examples import (
    asia_example, ate_posterior_example, counterfactual_example, interventional_table, markdown,
    master_examples, plot_acic, ranking_example, ranking_table, scm_examples, time_series_example,
)
from causaleval.studies.survey_metric_tables.scm import (
    explanation_formula, fairness_example, fairness_scm, fairness_truth, fairness_values, FAIRNESS_WEIGHTS,
    RECONSTRUCTION_EQUATIONS, reconstruction_example, reconstruction_inputs, refutation_data, refutation_table,
)
from causaleval.studies.survey_metric_tables.survey import (
    cheng_table1_layout, cheng_table3, count_checks, COVERED_ELSEWHERE, gentzel_table1, gentzel_table2,
    implementation, NOT_IMPLEMENTED, PERCENT_COLUMN, percentage_audit, plot_survey, printed_totals, TABLE3_COLUMN,
    table3_claim_audit, with_implementation,
)

STUDY = "04_survey_metric_tables"

__all__ = ["acic_instances", "acic_interval_diagnosis", "acic_results", "acic_truth", "agreement", "asia_example",
           "ate_posterior_example", "calibrated_cic", "check_params", "cheng_table1_layout", "cheng_table3", "claims",
           "count_checks", "counterfactual_example", "COVERED_ELSEWHERE", "crossfit_aipw", "effect_table",
           "ESTIMATORS", "explanation_formula", "fairness_example", "fairness_scm", "fairness_truth",
           "fairness_values", "FAIRNESS_WEIGHTS", "gentzel_table1", "gentzel_table2", "ibm_round_trip",
           "implementation", "Instance", "interval_comparison", "interval_simulation", "interval_summary",
           "interventional_table", "markdown", "master_examples", "NOT_IMPLEMENTED", "PERCENT_COLUMN",
           "percentage_audit", "plot_acic", "plot_survey", "printed_totals", "ranking_example", "ranking_table",
           "RECONSTRUCTION_EQUATIONS", "reconstruction_example", "reconstruction_inputs", "refutation_data",
           "refutation_table", "scm_examples", "shimoni_cic", "STUDY", "TABLE3_COLUMN", "table3_claim_audit",
           "time_series_example", "with_implementation", "write_submission"]


def check_params(p: dict[str, Any]) -> None:
    """Raise a ParameterError naming the first parameter of notebook 04 that does not fit its
    declared type, range or choices (``notebooks/04_survey_metric_tables.params.yaml``)."""
    params.check(STUDY, p)
