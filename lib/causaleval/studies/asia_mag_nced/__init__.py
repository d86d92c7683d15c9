"""Study 1: Rehak, Falkenstein, Doehner, Beyerer, *Metrics for the evaluation of learned
causal graphs based on ground truth* (2024; see REFERENCES.md).

The pipeline of ``notebooks/01_asia_mag_nced.ipynb`` as functions: Table 1 (nCED on
the Asia MAG) with its ties, Table 2 (all metrics on Asia and Sachs), the spread of our
values around the paper's, readings of the paper's graph encoding and a sensitivity sweep
that test the causes of the gaps, the paper checked against itself, Figure 3 (nCED along
stepwise transformations), Figure 6 (metric sensitivity), Table 3 (bounds checked
exhaustively), the closing summary, and the report's ``claims`` and ``agreement`` tables
(:func:`claims`, :func:`agreement`).
"""

from __future__ import annotations

from typing import Any

from causaleval import params
from causaleval.datasets import network_graph
from causaleval.datasets.networks import check_network
from causaleval.studies.asia_mag_nced.claims import CAUSE_READING, agreement, alternative_cells, claims, printed_values
from causaleval.studies.asia_mag_nced.closing import agreement_summary, closing_markdown
from causaleval.studies.asia_mag_nced.consistency import paper_consistency, shd_fit
from causaleval.studies.asia_mag_nced.figures import (
    FIVE_NODE_EDGES, all_dags, all_universal_graphs, check_bounds, figure3_inequalities, figure3_paths,
    figure6_behaviour, figure6_scores, five_node_dag, observed_bounds, plot_figure3, plot_figure6, plot_table1,
    random_path, transformation_path,
)
from causaleval.api import learn_graphs
from causaleval.studies.asia_mag_nced.prc import PRC_READINGS, prc_figure6_linear, prc_readings, prc_support
from causaleval.studies.asia_mag_nced.sweep import CI_LEARNERS, MainRun, closest_settings, sensitivity_table
from causaleval.studies.asia_mag_nced.tables import (
    COUNT_METRICS, FITS, READINGS, bounded_scores, causallearn_matrix, compare, count_within, describe_highest, gaps,
    highest_by_k, mark_spread, read_graphs, reading_table, table1, table2_display, table2_scores,
)

STUDY = "01_asia_mag_nced"

__all__ = ["CAUSE_READING", "CI_LEARNERS", "COUNT_METRICS", "FITS", "FIVE_NODE_EDGES", "MainRun", "PRC_READINGS",
           "READINGS", "STUDY", "agreement", "alternative_cells", "printed_values",
           "agreement_summary", "all_dags", "all_universal_graphs", "bounded_scores", "causallearn_matrix",
           "check_bounds", "check_params", "claims", "closest_settings", "closing_markdown", "compare",
           "count_within", "describe_highest", "figure3_inequalities", "figure3_paths", "figure6_behaviour",
           "figure6_scores", "five_node_dag", "gaps", "highest_by_k", "learn_graphs", "mark_spread",
           "observed_bounds", "paper_consistency", "plot_figure3", "plot_figure6", "plot_table1", "prc_figure6_linear",
           "prc_readings", "prc_support", "random_path", "read_graphs", "reading_table", "sensitivity_table", "shd_fit",
           "table1", "table2_display", "table2_scores", "transformation_path"]


def check_params(p: dict[str, Any]) -> None:
    """Raise a ValueError naming the first parameter of notebook 01 that is out of range: the
    declared types, ranges and choices first (:func:`causaleval.params.check` against
    ``notebooks/01_asia_mag_nced.params.yaml``), then what a schema cannot state: each network
    is a shipped name or a readable file (:mod:`causaleval.datasets.networks`), an edge list
    comes with observations that fit it and hold enough rows for the disjoint samples, every
    latent variable is a node of ``network``."""
    params.check(STUDY, p)
    sizes = {"n_samples": (p["n_samples"], p["n_graphs"])}
    if "sensitivity_sample_sizes" in p:
        sizes |= {f"sensitivity_sample_sizes = {n}": (n, p["sensitivity_graphs"])
                  for n in p["sensitivity_sample_sizes"]}
    for names in (("network", "data_file"), ("second_network", "second_data_file")):
        check_network(p[names[0]], p.get(names[1]), sizes, names)
    if p["network"] == p["second_network"] and p.get("data_file") != p.get("second_data_file"):
        raise ValueError(f"parameter second_data_file = {p.get('second_data_file')!r}: second_network is network "
                         f"({p['network']!r}), whose data are data_file = {p.get('data_file')!r}; give the same file")
    truth = network_graph(p["network"])
    stray = [v for v in p["latent"] if v not in truth.nodes]
    if stray:
        raise ValueError(f"parameter latent = {p['latent']}: {stray} not node(s) of network {p['network']!r}; "
                         f"its nodes: {list(truth.nodes)}")
