"""One trial of study 6: a data set through every posterior method, scored pair by pair.

1. **Truth.** Every DAG of the true graph's Markov equivalence class (CPDAG by
   :func:`causaleval.graphs.to_cpdag`, members by :func:`causaleval.graphs.extensions.mec_members`),
   each counted once.
2. **Posterior.** ``n_posterior`` DAGs per method (:mod:`causaleval.bayes`; seed ``s``), each method
   scoring the same columns (:func:`~.data.scored`: z-scored with ``standardize``).
3. **ATE** of every ordered pair in every DAG, on the trial's raw data (:mod:`causaleval.effects.ate`).
4. **Metrics per pair** (:mod:`causaleval.metrics.ate_distribution`): the Wasserstein distance of
   the raw samples; precision and recall of the ATE modes after ``numpy.isclose`` regrouping, for
   each density filter (0 = no filter). A pair whose filtered *learned* modes are empty has an
   undefined precision, one whose filtered *true* modes are empty an undefined recall: they are
   left out of the means and counted (``no_learned_mode``, ``no_true_mode``), never set to 0.

A run's trials (:func:`grid`, :func:`run`): one per (setting, seed), on ``n_jobs`` processes, each
seeded from its own arguments, so the rows are the same for any ``n_jobs``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import parallel, plugins
from causaleval.bayes import posteriors
from causaleval.effects.ate import LinearATE
from causaleval.graphs import to_cpdag
from causaleval.graphs.extensions import mec_members
from causaleval.metrics import ate_distribution as ad
from causaleval.studies.bayesian_cd_ate.data import scored, settings, trial_data
from causaleval.studies.bayesian_cd_ate.paper import CHOSEN_PAIR, PAPER_PAIR, figure3_pair

POSTERIOR_OPTIONS = ("pc_alpha", "ges_score", "cpdag_rule", "mc3_burn_in", "mc3_thin")
#: the parameters a trial reads (:func:`config`)
TRIAL_KEYS = ("methods", "n_posterior", "densities", "figure_pair", "n_nodes", "expected_edges", "noise_sd",
              "standardize", "plugins", "method_options", *POSTERIOR_OPTIONS)
FRAMES = ("pairs", "counts", "distributions")  # what a trial gives (:func:`run_trial`)


def weighted_unique(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values in order of first appearance, with their summed weights."""
    uniq, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first)
    totals = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(uniq))
    return uniq[order], totals[order]


def pair_scores(true_values: np.ndarray, true_weights: np.ndarray, learned_values: np.ndarray,
                learned_weights: np.ndarray, densities: Sequence[float]) -> list[dict[str, float]]:
    """WD and, per density, mode precision and recall of one pair's two weighted samples.

    The same numbers as :func:`ad.wasserstein` and :func:`ad.mode_precision_recall` on the
    samples with every value repeated ``weight`` times (regrouping each distinct value once,
    in order of first appearance, gives the modes those functions give), except that an
    empty filtered side gives NaN (module notes) instead of 0.
    """
    tv, tw = weighted_unique(true_values, true_weights)
    lv, lw = weighted_unique(learned_values, learned_weights)
    wd = ad.wasserstein(np.repeat(tv, tw.astype(int)), np.repeat(lv, lw.astype(int)))
    modes: list[float] = []
    true_share = _shares(ad.regroup(tv, modes=modes), tw)
    learned_share = _shares(ad.regroup(lv, modes=modes), lw)
    rows = []
    for density in densities:
        t = {m for m, s in true_share.items() if s >= density}
        g = {m for m, s in learned_share.items() if s >= density}
        tp = len(t & g)
        rows.append({"density": density, "wd": wd,
                     "precision": tp / len(g) if g else np.nan, "recall": tp / len(t) if t else np.nan})
    return rows


def _shares(grouped: np.ndarray, weights: np.ndarray) -> dict[float, float]:
    modes, inverse = np.unique(grouped, return_inverse=True)
    share = np.bincount(inverse.reshape(-1), weights=weights) / weights.sum()
    return dict(zip(modes.tolist(), share.tolist()))


def figure_pair(true_effects: np.ndarray, pairs: Sequence[tuple[int, int]]) -> int:
    """The pair Figure 3 shows beside the paper's when none is given: the one whose true (MEC) ATE
    distribution has the most distinct modes (``numpy.isclose`` regrouping), ties to the widest spread
    of its values, then to the first in node order; on a pair with one true mode, capturing every true
    mode is an easy test (the notebook counts the paper's pair's modes)."""
    def key(k: int) -> tuple[int, float, int]:
        values = true_effects[:, k]
        return len(set(ad.regroup(values, modes=[]).tolist())), float(np.ptp(values)), -k
    return max(range(len(pairs)), key=key)


def figure_pairs(names: Sequence[str], pairs: Sequence[tuple[int, int]], true_effects: np.ndarray,
                 given: Sequence[str] | None) -> dict[str, int]:
    """Figure 3's pairs on Sachs by role: the paper's own (:func:`~.paper.figure3_pair`, PKA -> PIP3),
    shown as the paper shows it, and beside it the pair ``given`` (the ``figure_pair`` parameter) or,
    without one, the pair whose true ATE has the most modes (:func:`figure_pair`)."""
    index = {(names[t], names[y]): k for k, (t, y) in enumerate(pairs)}
    chosen = index[tuple(given)] if given else figure_pair(true_effects, pairs)
    paper = index.get(figure3_pair())
    return ({PAPER_PAIR: paper} if paper is not None else {}) | {CHOSEN_PAIR: chosen}


def run_trial(setting: str, seed: int, config: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """One data set through every method: per-pair scores, run counts and, on Sachs, the ATE
    distributions of Figure 3's pairs (:func:`figure_pairs`)."""
    plugins.load(config["plugins"])
    truth, data = trial_data(setting, seed, config)
    columns = scored(setting, data, config)
    members = np.stack([m.directed_matrix() for m in mec_members(to_cpdag(truth))])
    estimator = LinearATE(data.to_numpy())
    pairs = estimator.pairs()
    true_effects = estimator.effects(members)
    options = {k: config[k] for k in POSTERIOR_OPTIONS} | dict(config.get("method_options") or {})
    names = list(data.columns)
    rows, counts, dists = [], [], []
    figures = figure_pairs(names, pairs, true_effects, config["figure_pair"]) if setting == "sachs" else {}
    for role, k in figures.items():
        dists.append(_distribution("MEC (truth)", true_effects[:, k], np.ones(len(members)), pairs[k], names, role))
    for method in config["methods"]:
        limit = getattr(posteriors.POSTERIORS[method], "max_nodes", None)
        if limit is not None and len(names) > limit:
            counts.append({"method": method, "posterior_dags": 0, "distinct_dags": 0, "mec_size": len(members),
                           "effects": 0, "regressions_solved": 0,
                           "not run": f"{len(names)} variables; {method} takes at most {limit}", "notes": ""})
            continue
        # a method's warnings go to its counts row
        dags, notes = posteriors.sample_noted(method, columns, n_samples=config["n_posterior"], seed=seed,
                                              options=options)
        flat = dags.reshape(len(dags), -1)
        _, first, weight = np.unique(flat, axis=0, return_index=True, return_counts=True)
        order = np.argsort(first)
        unique_dags, weight = dags[first[order]], weight[order].astype(float)
        solved_before = estimator.solved
        effects = estimator.effects(unique_dags)
        for k, (t, y) in enumerate(pairs):
            for r in pair_scores(true_effects[:, k], np.ones(len(members)), effects[:, k], weight, config["densities"]):
                rows.append({"method": method, "treatment": names[t], "outcome": names[y], **r})
        counts.append({"method": method, "posterior_dags": len(dags), "distinct_dags": len(unique_dags),
                       "mec_size": len(members), "effects": len(unique_dags) * len(pairs),
                       "regressions_solved": estimator.solved - solved_before, "not run": "", "notes": notes})
        for role, k in figures.items():
            dists.append(_distribution(method, effects[:, k], weight, pairs[k], names, role))
    tag = {"setting": setting, "seed": seed}
    return {"pairs": pd.DataFrame(rows).assign(**tag), "counts": pd.DataFrame(counts).assign(**tag),
            "distributions": pd.concat(dists, ignore_index=True).assign(**tag) if dists else pd.DataFrame()}


def _distribution(method: str, values: np.ndarray, weights: np.ndarray, pair: tuple[int, int],
                  names: Sequence[str], role: str) -> pd.DataFrame:
    v, w = weighted_unique(values, weights)
    return pd.DataFrame({"method": method, "pair": role, "treatment": names[pair[0]], "outcome": names[pair[1]],
                         "ate": v, "mass": w / w.sum()})


def config(p: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters a trial needs (plain values, so a Dask worker can take them)."""
    return {k: p[k] for k in TRIAL_KEYS}


def grid(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One trial per (setting, seed): each synthetic sample size at every seed; Sachs at the first
    ``sachs_seeds`` seeds (the paper: one; more give Table 3 an interval over the methods' randomness)."""
    c = config(p)
    return [{"setting": s, "seed": seed, "config": c} for s in settings(p)
            for seed in (p["seeds"][:p["sachs_seeds"]] if s == "sachs" else p["seeds"])]


def run(p: Mapping[str, Any], trials: Sequence[Mapping[str, Any]] | None = None) -> dict[str, pd.DataFrame]:
    """Every trial of :func:`grid` (or the ``trials`` given, entries of it) through
    :func:`parallel.run_trials` (joblib, or Dask when ``CAUSALEVAL_DASK_SCHEDULER`` is set), results
    concatenated in grid order."""
    results = parallel.run_trials(run_trial, grid(p) if trials is None else trials, n_jobs=p["n_jobs"],
                                  progress=False, desc="data sets")
    return {k: pd.concat([r[k] for r in results], ignore_index=True) for k in FRAMES}
