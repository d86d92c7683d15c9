"""Study 6: distribution-level ATE evaluation of Bayesian causal discovery, the pipeline of
``notebooks/06_bayesian_cd_ate.ipynb``, in the notebook's order.

Reproduces Tables 1-3 and Figures 2-3 of Emezue, Drouin, Deleu, Bauer and Bengio (2023), "Benchmarking
Bayesian causal discovery methods for downstream treatment effect estimation", ICML 2023 workshop on
Structured Probabilistic Inference and Generative Modeling, arXiv:2307.04988 (REFERENCES.md).

One *trial* is a data set (a synthetic seed at one sample size, or Sachs with a seed for the methods'
randomness) run through every posterior method (:mod:`.data`, :mod:`.trials`), or read back from a
committed run with one of them recomputed (:mod:`.readback`); per (method, seed)
the mean over pairs, then mean and standard error over the seeds (:mod:`.tables`); the paper's values
(:mod:`.paper`) beside ours, its claims tested (:mod:`.claims`), its figures (:mod:`.figures`), the
prose computed (:mod:`.text`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from causaleval import params
from causaleval.bayes.check import check_summary, reference_summary
from causaleval.bayes.posteriors import check_size
from causaleval.studies.bayesian_cd_ate.beside import beside, read_beside
from causaleval.studies.bayesian_cd_ate.claims import claims, claims_text
from causaleval.studies.bayesian_cd_ate.data import sachs, settings, synthetic
from causaleval.studies.bayesian_cd_ate.exact_check import (
    CHECK_DIR, check_source, checks, exact_check, labelled, mc3_convergence, reference_check, save_checks,
)
from causaleval.studies.bayesian_cd_ate.figures import figure2, figure3
from causaleval.studies.bayesian_cd_ate.paper import (
    CHOSEN_PAIR, PAPER_NAMES, PAPER_PAIR, PAPER_SCALE, PAPER_TABLES, SEVEN, paper_table,
)
from causaleval.studies.bayesian_cd_ate.readback import TRIALS_DIR, Trials, gather_trials, save_trials, trials_source
from causaleval.studies.bayesian_cd_ate.scale import PAPER_SCALE_DIR, is_scale_run, load_run
from causaleval.studies.bayesian_cd_ate.tables import (
    agreement, comparison_interval, layout, left_out, per_seed, summary_table, table_setting,
)
from causaleval.studies.bayesian_cd_ate.text import describe_run, figure3_text, methods_table, not_run, summary_text
from causaleval.studies.bayesian_cd_ate.trials import (
    POSTERIOR_OPTIONS, config, grid, pair_scores, run, run_trial, weighted_unique,
)

STUDY = "06_bayesian_cd_ate"

__all__ = ["CHECK_DIR", "CHOSEN_PAIR", "PAPER_NAMES", "PAPER_PAIR", "PAPER_SCALE", "PAPER_SCALE_DIR", "PAPER_TABLES",
           "SEVEN", "STUDY", "agreement", "beside", "check_params", "check_source", "check_summary", "checks", "claims",
           "claims_text", "comparison_interval", "config", "describe_run", "exact_check", "figure3_text", "figure2",
           "figure3", "grid", "is_scale_run", "labelled", "layout", "left_out", "load_run", "mc3_convergence",
           "methods_table", "not_run", "pair_scores", "paper_table", "per_seed", "reference_check", "save_checks",
           "read_beside", "reference_summary", "run", "run_trial", "sachs", "save_trials", "settings", "summary_table",
           "summary_text", "synthetic", "table_setting", "TRIALS_DIR", "Trials", "gather_trials", "trials_source",
           "weighted_unique"]


def check_params(p: Mapping[str, Any]) -> None:
    """Check the notebook's parameters against the schema, then what it cannot state."""
    params.check(STUDY, p)
    if len(set(p["seeds"])) != len(p["seeds"]):
        raise params.ParameterError(f"seeds: {p['seeds']} repeats a seed")
    pair = p["figure_pair"]
    if pair is not None and (len(pair) != 2 or pair[0] == pair[1]):
        raise params.ParameterError(f"figure_pair: {pair}; expected two different Sachs nodes, or null (chosen by "
                                    "the data)")
    if len(set(p["methods"])) != len(p["methods"]):
        raise params.ParameterError(f"methods: {p['methods']} repeats a method")
    if not p["sample_sizes"] and not p["sachs"]:
        raise params.ParameterError("sample_sizes = [] and sachs = false: no data set to run; give a sample size "
                                    "or sachs: true")
    checked_here = check_source(p) is None  # else read back from checks_from, which must fit this run
    if checked_here and p["exact_nodes"] and p["exact_seeds"] > len(p["seeds"]):
        raise params.ParameterError(f"exact_seeds: {p['exact_seeds']} with seeds = {p['seeds']}; the exact check runs "
                                    f"on the first exact_seeds of seeds, so expected at most {len(p['seeds'])} (or "
                                    "more seeds)")
    sizes = ([p["n_nodes"]] if p["sample_sizes"] else []) + ([11] if p["sachs"] else []) \
        + (list(p["exact_nodes"]) + list(p["reference_nodes"]) if checked_here else [])
    for method in p["methods"]:  # e.g. DiBS's prior exists only where its edge probability is below 1
        for d in sorted(set(sizes)):
            try:
                check_size(method, d, p["method_options"])
            except ValueError as err:
                raise params.ParameterError(f"method_options: {err} (a data set of this run has "
                                            f"{d} variables)") from None
    for folder in p["checks_beside"]:  # each must hold a committed check on this run's kind of data
        read_beside(folder, p)
    trials_source(p)  # trials_from must hold saved trials and a readable stamp (other settings: all run here)
    if p["sachs"] and p["sachs_seeds"] > len(p["seeds"]):
        params.announce(STUDY, f"sachs_seeds = {p['sachs_seeds']} is more than the {len(p['seeds'])} seed(s) of "
                               f"seeds = {p['seeds']}: Sachs runs at those {len(p['seeds'])}")
