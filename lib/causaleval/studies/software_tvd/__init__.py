"""Study 2: Gentzel, Garant, Jensen (NeurIPS 2019, arXiv:1910.05387), TVD on software-system data.

The pipeline of ``notebooks/02_software_tvd.ipynb`` as functions:

* :func:`load_domain`: one factorial domain made ready (complete subjects, binary
  treatments, discretized outcomes and covariates, the biasing covariate) with its
  interventional truth read off the factorial data;
* :func:`figure1_results`: mean TVD of each learner per trial on pseudo-observational
  samples of the empirical data (panel ``empirical``) and on synthetic data sampled from
  a model a learner fitted to the empirical data (panels ``synthetic-pc``, ...;
  ``synthetic-mmhc`` is supplement Figure 7);
* :func:`figure2_results`: SHD, SID and the sum of pairwise TVs on random Dirichlet
  networks (Figure 2 and supplement Figures 4-6);
* orders of learners with paired tests, correlations, and the plots.
"""

from __future__ import annotations

from typing import Any

from causaleval import params
from causaleval.datasets.networks import check_network
from causaleval.studies.software_tvd.claims import agreement, claims_table
from causaleval.studies.software_tvd.data import (
    SOURCES, Domain, check_domains, data_fingerprint, domain_summary, empirical_sample, load_domain, raw_data,
    related_table,
)
from causaleval.studies.software_tvd.figure1 import (
    consistency_check, figure1_results, learned_tables, order_agreement, paired_orders, synthetic_model,
)
from causaleval.studies.software_tvd.figure2 import (
    LABELS, MEASURES, SCHEMES, baseline_sentence, class_sid_bounds, correlations, figure2_results, headline,
    logistic_network, measure_long, measure_orders, measure_summary, pairwise_calls, random_network,
    STRONG_COLUMN, WEAK_COLUMN, strong, weak,
    structural_hamming, user_network,
)
from causaleval.studies.software_tvd.plots import plot_figure1, plot_measures, plot_orders
from causaleval.studies.software_tvd.sensitivity import SENSITIVITY, sensitivity_results, sensitivity_table
from causaleval.studies.software_tvd.text import closing_text, data_sentence

STUDY = "02_software_tvd"

__all__ = ["LABELS", "MEASURES", "SCHEMES", "SENSITIVITY", "SOURCES", "STUDY", "Domain", "agreement",
           "baseline_sentence", "check_domains", "check_params", "claims_table", "class_sid_bounds", "closing_text",
           "consistency_check", "correlations", "data_fingerprint", "data_sentence", "domain_summary",
           "empirical_sample", "figure1_results", "figure2_results", "headline", "learned_tables", "load_domain",
           "logistic_network", "measure_long", "measure_orders", "measure_summary", "order_agreement",
           "paired_orders", "pairwise_calls", "plot_figure1", "plot_measures", "plot_orders", "random_network",
           "raw_data", "related_table", "sensitivity_results", "sensitivity_table", "strong", "STRONG_COLUMN",
           "structural_hamming", "synthetic_model", "user_network", "weak", "WEAK_COLUMN"]


def _check_sensitivity(p: dict[str, Any]) -> None:
    """The sensitivity table reruns the first ``min(n_sensitivity, n_dags)`` random networks: a clip is
    announced, and so is the table's skip with a ``network`` of one's own."""
    wanted = p.get("n_sensitivity", 0)
    if not wanted:
        return
    if p.get("network") is not None:
        params.announce(STUDY, f"n_sensitivity = {wanted} is not run: with network = {p['network']!r} "
                               "there are no random networks to rerun (n_sensitivity 0 says so)")
        return
    if p["n_dags"] < wanted:
        params.announce(STUDY, f"n_sensitivity = {wanted} is more than n_dags = {p['n_dags']}: the sensitivity "
                               f"table reruns the {p['n_dags']} networks there are")


def check_params(p: dict[str, Any]) -> None:
    """Raise a ValueError naming the first parameter of notebook 02 that does not fit: its
    declared type, range or choices (``notebooks/02_software_tvd.params.yaml``), then what
    a schema cannot state (the domains exist in the source and have a biasing covariate; a
    user's network for Figure 2 is readable, and its observations fit it and hold ``n_dags``
    disjoint samples of ``n_samples`` rows)."""
    params.check(STUDY, p)
    taken = sorted(set(p.get("metrics", ())) & {"dag", "learner", "edges", "shd", "sid", "sid_min", "sid_max", "tvd",
                                                   "tvd_true_dag", "excess_tvd"})
    if taken:
        raise ValueError(f"metrics: {taken[0]!r} is a column of Figure 2's results already; "
                         "register the metric under another name")
    check_domains(p)
    _check_sensitivity(p)
    if p.get("network") is not None:
        check_network(p["network"], p.get("data_file"), {"n_samples": (p["n_samples"], p["n_dags"])})
