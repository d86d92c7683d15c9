"""Does a posterior method sample the posterior? The exact check (d <= 5) and a two-run diagnostic (any d).

**Exact check.** On a data set ``D`` of ``d <= 5`` columns the BGe posterior ``p(G | D)`` is known
exactly (:mod:`causaleval.bayes.exact`). A method's ``N`` draws give an empirical distribution
``p_hat`` over DAGs, at total variation

    TV = 1/2 sum_G |p_hat(G) - p(G | D)|

from the posterior. A perfect sampler's TV is not 0: ``N`` i.i.d. draws from ``p(G | D)`` itself have
an expected TV, the *floor*, estimated as the mean TV of :data:`FLOOR_REPLICATES` sets of ``N`` exact
draws (:func:`tv_floor`); it shrinks like ``1 / sqrt(N)`` and grows with the posterior's spread. A
method is *within the floor* on ``D`` when ``TV <= FACTOR * floor`` (:data:`FACTOR` = 2), and the check
can tell only where the floor is small, ``floor <= MAX_FLOOR`` (0.1): with a few hundred draws from a
spread-out posterior at d = 5 even exact draws have a TV near 1, and every method looks alike.
:func:`check_summary` states, per method, whether it samples the exact posterior in the words of
:mod:`causaleval.verdicts`: ``does not hold`` when its TV exceeds ``FACTOR * floor`` on any data set,
``holds`` when it is within the floor on every data set and at least one floor is at most
``MAX_FLOOR`` (a data set whose floor is larger cannot pass a method alone, but can fail one),
``undecided`` otherwise (within the floor only where the floor is too large to tell).

A method that samples under another target (:func:`causaleval.bayes.posteriors.own_target`: Gadget
under sumu's fair prior, DiBS under its Erdos-Renyi prior) is measured against that target's exact
posterior too, beside a floor of as many exact draws from it: its distance to the kit's posterior then
splits into what the other target accounts for and what sampling error leaves. The verdict stays on the
kit's target, the one posterior every method of the table is compared with.

**Two-run diagnostic** (:func:`two_run_gap`), for any ``d``: a method run twice on the same data with
two seeds (two MCMC chains started apart, as Gelman and Rubin (1992) compare chains), the largest
difference between the two runs' edge frequencies,

    gap = max_{i != j} |f1_ij - f2_ij|.

Its reference is the same statistic for two independent sets of ``N`` draws of independent edges with
the two runs' pooled frequencies ``(f1 + f2) / 2`` (binomial), the mean over :data:`FLOOR_REPLICATES`
simulated pairs. Runs whose gap is within ``FACTOR`` times the reference agree as well as independent
draws would: a chain that has not forgotten its start, or whose kept states are too correlated, gives a
larger gap. Emezue et al. (2023) compare the methods only by their downstream ATE distributions; the
three checks here are the kit's.

**Long-chain reference** (:func:`long_chain_reference`, :func:`reference_check`), for ``d`` beyond
enumeration (Sachs's 11, the study's 20): the target is the same as the exact check's, the BGe posterior
under a uniform prior over DAGs, and MC3 samples it; a long MC3 run stands in for the enumeration, tempered
where plain chains do not mix (``copies > 1``: parallel tempering, Geyer 1991; copies of the chain at
inverse temperatures ``1, beta_ratio, beta_ratio^2, ...`` targeting ``p(G | D)^beta`` swap states, and
the copy at ``beta = 1`` is kept; on study 6's d = 20, n = 100 data two plain chains of 400 million
steps still disagree, two tempered ones of 200 million steps and 4 copies agree:
``benchmarks/bench_mc3_tempering.py``). Two chains (seeds ``a``, ``b``) of ``burn_in`` steps and
``n_draws`` kept states every ``thin`` steps give edge frequencies ``r1``, ``r2``; the reference is their mean
``r = (r1 + r2) / 2`` over ``N_ref = 2 n_draws`` states, and it is *converged* when the two chains pass the two-run
diagnostic (``gap <= FACTOR * reference`` above). It is an estimate: agreeing chains can still share a mode they both
failed to leave, and its states are correlated, which the floor below does not model beyond what the two-chain
agreement allows (within ``FACTOR`` of independent draws). A method's ``N`` DAGs, at edge frequencies
``f``, are off by

    max error = max_{i != j} |f_ij - r_ij|,   mean error = mean_{i != j} |f_ij - r_ij|,

and the *floor* of each is its mean over :data:`FLOOR_REPLICATES` simulations of the same statistic
between ``N`` and ``N_ref`` independent draws of independent edges, both binomial at ``r``: the error
of a perfect sampler of ``N`` draws against a reference of ``N_ref`` independent draws (the reference's
own sampling error included). A method is within the floor on a data set when both errors are at most
``FACTOR`` times their floors. :func:`reference_summary` states per method whether it agrees with the
long-chain MC3 reference (:data:`REFERENCE_STATEMENT`): ``does not hold`` when it is outside the floor on
a data set whose reference converged, ``holds`` when it is within the floor on every data set and every
reference converged, ``undecided`` otherwise (an unconverged reference can neither pass nor fail a
method). Edge marginals are a coarser target than the DAG distribution (a sampler can match every
marginal and still miss their dependence); at d = 11 and 20 they are what a sample of a few thousand
DAGs can estimate.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causaleval import parallel, verdicts
from causaleval.bayes import exact
from causaleval.bayes.posteriors import MC3_DEFAULTS, own_target, sample_noted, sample_posterior

FACTOR = 2.0  # within the floor: TV (or gap) at most twice what exact (or independent) draws give
MAX_FLOOR = 0.1  # the exact check can tell only where i.i.d. exact draws are this close to the posterior
FLOOR_REPLICATES = 5  # sets of exact (or independent) draws averaged into a floor
STATEMENT = "samples the exact posterior"
REFERENCE_STATEMENT = "agrees with the long-chain MC3 reference"
REFERENCE_SEEDS = (1000, 1001)  # the reference chains' seeds: apart from the study's data seeds


def tv_floor(data: pd.DataFrame | np.ndarray, n_draws: int, seed: int,
             log_prior: Sequence[float] | None = None) -> float:
    """The mean over :data:`FLOOR_REPLICATES` sets of ``n_draws`` i.i.d. exact draws of their total
    variation to the exact posterior (under ``log_prior``: :mod:`causaleval.bayes.exact`; module notes);
    replicate ``r`` draws with seed ``seed + r``."""
    return float(np.mean([exact.dag_tv(exact.exact_draws(data, n_draws, seed + r, log_prior), data, log_prior)
                          for r in range(FLOOR_REPLICATES)]))


def exact_check(methods: Sequence[str], data_sets: Sequence[tuple[Mapping[str, Any], pd.DataFrame]], *,
                n_draws: int, options: Mapping[str, Any], draws_by_method: Mapping[str, int] | None = None,
                n_jobs: int = 1) -> pd.DataFrame:
    """One row per (data set, method): the labels of the data set (``data_sets`` pairs labels, which
    must hold the ``seed`` the method runs with, with data of at most 5 columns), the method, its
    number of draws (``n_draws``, or ``draws_by_method[method]`` for a method whose cost grows with
    its draws, e.g. DiBS's particles), its DAG TV, the floor at that many draws (module notes), their
    ratio, whether it is within the floor, the mean absolute edge-marginal error, for a method with
    a target of its own (module notes) that target and the same four against its exact posterior
    (empty where the method has none, or its target has no BGe form), and the method's warnings (kept,
    not printed). The (data set, method) pairs run on ``n_jobs`` processes
    (:func:`causaleval.parallel.run_trials`; each seeds itself, so the rows are the same for any ``n_jobs``)."""
    grid = [{"labels": dict(labels), "data": data, "method": method, "options": dict(options),
             "n_draws": int((draws_by_method or {}).get(method, n_draws))}
            for labels, data in data_sets for method in methods]
    return pd.DataFrame(parallel.run_trials(_exact_row, grid, n_jobs=n_jobs, progress=False, desc="exact check"))


def _exact_row(labels: Mapping[str, Any], data: pd.DataFrame, method: str, options: Mapping[str, Any],
               n_draws: int) -> dict[str, Any]:
    """:func:`exact_check`'s row of one method on one data set."""
    seed = int(labels["seed"])
    dags, notes = sample_noted(method, data, n_samples=n_draws, seed=seed, options=options)
    tv, floor = exact.dag_tv(dags, data), tv_floor(data, n_draws, seed)
    label, log_prior = own_target(method, data.shape[1], options) or ("", None)
    own = {"own target": label, "own DAG TV": np.nan, "own floor": np.nan, "own TV / floor": np.nan,
           "own within floor": None}
    if log_prior is not None:
        own_tv, own_floor = exact.dag_tv(dags, data, log_prior), tv_floor(data, n_draws, seed, log_prior)
        own |= {"own DAG TV": own_tv, "own floor": own_floor, "own TV / floor": own_tv / own_floor,
                "own within floor": own_tv <= FACTOR * own_floor}
    return {**labels, "method": method, "draws": n_draws, "DAG TV": tv, "floor": floor,
            "TV / floor": tv / floor, "within floor": tv <= FACTOR * floor,
            "edge MAE": exact.edge_distance(dags, data), **own, "notes": notes}


def check_summary(check: pd.DataFrame) -> pd.DataFrame:
    """Per method of :func:`exact_check`'s table: whether it samples the exact posterior (module
    notes), the data sets within the floor, those whose floor can tell, and the range of its TV, of the
    floors and of TV / floor."""
    rows = []
    for method, g in check.groupby("method", sort=False):
        rows.append({"method": method, "statement": STATEMENT, "verdict": _verdict(g["within floor"], g["floor"]),
                     "within floor": f"{int(g['within floor'].sum())} of {len(g)}",
                     f"floor <= {MAX_FLOOR:g}": int((g["floor"] <= MAX_FLOOR).sum()),
                     "DAG TV": _range(g["DAG TV"]), "floor": _range(g["floor"]),
                     "TV / floor": _range(g["TV / floor"], ".1f"), **_own_summary(g)})
    return pd.DataFrame(rows)


def _verdict(within: pd.Series, floors: pd.Series) -> str:
    """The exact check's rule (module notes): not within the floor anywhere fails; within everywhere
    with a floor that can tell holds; else undecided."""
    if not within.astype(bool).all():
        return verdicts.DOES_NOT_HOLD
    return verdicts.HOLDS if (floors <= MAX_FLOOR).any() else verdicts.UNDECIDED


def _own_summary(g: pd.DataFrame) -> dict[str, str]:
    """A method's rows against its own target (:func:`exact_check`): whether it samples that target's
    exact posterior (the same rule), how many rows are within its floor and the range of TV / floor;
    only the label (each distinct one, in order) for a target without a BGe form, empty strings for a
    method without one."""
    label = "; ".join(dict.fromkeys(g["own target"].fillna("").astype(str))) if "own target" in g else ""
    own = g.dropna(subset=["own DAG TV"]) if "own DAG TV" in g else g.iloc[:0]
    if own.empty:  # none, or one without a BGe form (its label says so)
        return {"own target": label, "own verdict": "", "own within floor": "", "own TV / floor": ""}
    return {"own target": label, "own verdict": _verdict(own["own within floor"], own["own floor"]),
            "own within floor": f"{int(own['own within floor'].astype(bool).sum())} of {len(own)}",
            "own TV / floor": _range(own["own TV / floor"], ".1f")}


def _range(values: pd.Series, fmt: str = ".2f") -> str:
    low, high = float(values.min()), float(values.max())
    return f"{low:{fmt}}" if f"{low:{fmt}}" == f"{high:{fmt}}" else f"{low:{fmt}}-{high:{fmt}}"


def binomial_error(p: np.ndarray, n1: int, n2: int, seed: int) -> tuple[float, float]:
    """The max and the mean over the entries of ``|X / n1 - Y / n2|``, ``X ~ Bin(n1, p)`` and ``Y ~
    Bin(n2, p)`` independent per entry of ``p`` (a vector of edge frequencies), each averaged over
    :data:`FLOOR_REPLICATES` simulations from ``default_rng(seed)``: how far apart two sets of ``n1``
    and ``n2`` independent draws of independent edges at frequencies ``p`` are by sampling alone."""
    p = np.asarray(p, dtype=float)
    n = np.array([n1, n2])[None, :, None]
    draws = np.random.default_rng(seed).binomial(n, p, size=(FLOOR_REPLICATES, 2, len(p))) / n
    diff = np.abs(draws[:, 0] - draws[:, 1])
    return float(diff.max(axis=1).mean()), float(diff.mean(axis=1).mean())


def chain_gap(f1: np.ndarray, f2: np.ndarray, n_draws: int, seed: int) -> dict[str, float]:
    """The two-run diagnostic (module notes) of two runs' ``d x d`` edge frequencies ``f1``, ``f2`` of
    ``n_draws`` DAGs each: ``gap``, its independent-draws ``reference`` (:func:`binomial_error` at the
    pooled frequencies) and whether ``gap <= FACTOR * reference`` (``agree``)."""
    off = ~np.eye(len(f1), dtype=bool)
    reference = binomial_error(((f1 + f2) / 2)[off], n_draws, n_draws, seed)[0]
    gap = float(np.abs(f1 - f2)[off].max())
    return {"gap": gap, "reference": reference, "agree": gap <= FACTOR * reference}


def two_run_gap(method: str, data: pd.DataFrame, *, n_draws: int, seeds: tuple[int, int],
                options: Mapping[str, Any]) -> dict[str, float]:
    """The two-run diagnostic of the module notes: ``gap``, its independent-draws ``reference`` and
    whether ``gap <= FACTOR * reference`` (``agree``)."""
    f1, f2 = (sample_posterior(method, data, n_samples=n_draws, seed=s, options=options).mean(axis=0) for s in seeds)
    return chain_gap(f1, f2, n_draws, seeds[0])


@dataclass(frozen=True)
class Reference:
    """A long-chain MC3 reference (module notes): the pooled ``d x d`` edge ``frequencies`` of ``draws``
    kept states (both chains), the chains' ``gap`` and its independent-draws ``gap_reference``,
    whether they agree (``converged``), the chains' settings (their tempered ``copies`` and
    ``beta_ratio`` too) and their CPU ``seconds``."""

    frequencies: np.ndarray
    draws: int
    gap: float
    gap_reference: float
    converged: bool
    burn_in: int
    thin: int
    seeds: tuple[int, int]
    seconds: float
    copies: int = MC3_DEFAULTS["mc3_copies"]
    beta_ratio: float = MC3_DEFAULTS["mc3_beta_ratio"]

    @property
    def edges(self) -> float:
        """Expected edges per DAG under the reference, ``sum_{i != j} r_ij``."""
        return float(self.frequencies.sum())


def long_chain_reference(data: pd.DataFrame, *, burn_in: int, thin: int, n_draws: int,
                         seeds: tuple[int, int] = REFERENCE_SEEDS, copies: int = MC3_DEFAULTS["mc3_copies"],
                         beta_ratio: float = MC3_DEFAULTS["mc3_beta_ratio"]) -> Reference:
    """Two MC3 chains on ``data`` (seeds ``seeds``), each ``burn_in + n_draws * thin`` steps keeping
    ``n_draws`` states, pooled into a :class:`Reference` (module notes); with ``copies > 1`` each chain
    is MC3 tempered (``posteriors.mc3``'s ``mc3_copies`` and ``mc3_beta_ratio``: copies at inverse
    temperatures ``beta_ratio^k``, adjacent ones swapping states, copy 0's states kept), which costs
    ``copies`` MC3 steps a step. Cost on the project's machine with MC3's chain and its family scores
    compiled (``posteriors.mc3`` over 100 million steps, proposals included, 2026-12-02): about 0.2 us
    a step on Sachs (d = 11), 0.35 us on study 6's z-scored d = 20 data at n = 100 and 0.6 us at n =
    20 (about 63 and 78 edges a DAG); 200 million steps a chain, study 6's full check, so take about 80
    CPU s for both chains on Sachs and 250 s at d = 20, n = 20. Tempered with 4 copies at ratio 0.8,
    200 million steps a chain at d = 20, n = 100 took about 350 CPU s for both chains
    (``benchmarks/bench_mc3_tempering.py``, 2026-12-02)."""
    return long_chain_references([data], burn_in=burn_in, thin=thin, n_draws=n_draws, seeds=seeds,
                                 copies=copies, beta_ratio=beta_ratio)[0]


def long_chain_references(datas: Sequence[pd.DataFrame], *, burn_in: int, thin: int, n_draws: int,
                          seeds: tuple[int, int] = REFERENCE_SEEDS, copies: int = MC3_DEFAULTS["mc3_copies"],
                          beta_ratio: float = MC3_DEFAULTS["mc3_beta_ratio"], n_jobs: int = 1) -> list[Reference]:
    """:func:`long_chain_reference` of each data set of ``datas``, its chains (two per data set) run on
    ``n_jobs`` processes (:func:`causaleval.parallel.run_trials`; each chain seeds itself, so the
    references are the same for any ``n_jobs``); ``seconds`` sums the two chains' CPU seconds."""
    options = {"mc3_burn_in": int(burn_in), "mc3_thin": int(thin), "mc3_copies": int(copies),
               "mc3_beta_ratio": float(beta_ratio)}
    grid = [{"data": data, "options": options, "n_draws": int(n_draws), "seed": s} for data in datas for s in seeds]
    chains = parallel.run_trials(_chain, grid, n_jobs=n_jobs, progress=False, desc="reference chains")
    references = []
    for (f1, t1), (f2, t2) in zip(chains[::2], chains[1::2]):
        gap = chain_gap(f1, f2, n_draws, seeds[0])
        references.append(Reference(frequencies=(f1 + f2) / 2, draws=2 * int(n_draws), gap=gap["gap"],
                                    gap_reference=gap["reference"], converged=bool(gap["agree"]),
                                    burn_in=int(burn_in), thin=int(thin), seeds=tuple(seeds), seconds=t1 + t2,
                                    copies=int(copies), beta_ratio=float(beta_ratio)))
    return references


def _chain(data: pd.DataFrame, options: Mapping[str, Any], n_draws: int, seed: int) -> tuple[np.ndarray, float]:
    """One reference chain's edge frequencies and its CPU seconds."""
    start = time.process_time()
    dags = sample_posterior("mc3", data, n_samples=n_draws, seed=seed, options=options)
    return dags.mean(axis=0), time.process_time() - start


def reference_check(methods: Sequence[str], data_sets: Sequence[tuple[Mapping[str, Any], pd.DataFrame]], *,
                    n_draws: int, options: Mapping[str, Any], reference: Mapping[str, Any] | Sequence[Reference],
                    draws_by_method: Mapping[str, int] | None = None, n_jobs: int = 1) -> pd.DataFrame:
    """One row per (data set, method) of the long-chain reference check (module notes). ``data_sets``
    pairs labels (which must hold the ``seed`` the method runs with) with data; ``reference`` is either
    the keyword arguments of :func:`long_chain_reference` (``burn_in``, ``thin``, ``n_draws``, optionally
    ``seeds``, ``copies`` and ``beta_ratio``), run once per data set, or one :class:`Reference` per data
    set, already run. A method draws ``n_draws`` DAGs (``draws_by_method[method]`` for those named there) with
    ``options``. The reference chains, then the (data set, method) pairs, run on ``n_jobs`` processes
    (:func:`causaleval.parallel.run_trials`; the rows are the same for any ``n_jobs``). Columns:
    the labels, ``method``, ``draws``, ``max error`` and ``mean error`` against the reference, their
    floors (``max floor``, ``mean floor``), ``within floor`` (both errors at most ``FACTOR`` times their
    floors), ``edges`` and ``reference edges`` (expected edges per DAG), the reference's ``reference
    draws``, ``reference gap``, ``gap reference`` and ``reference converged``, the method's CPU
    ``seconds`` and its warnings (``notes``, kept, not printed)."""
    if isinstance(reference, Mapping):
        references = long_chain_references([data for _, data in data_sets], **reference, n_jobs=n_jobs)
    else:
        references = list(reference)
        if len(references) != len(data_sets):
            raise ValueError(f"{len(references)} references for {len(data_sets)} data sets; expected one each")
    for (_, data), ref in zip(data_sets, references):
        d = data.shape[1]
        if ref.frequencies.shape != (d, d):
            raise ValueError(f"reference of shape {ref.frequencies.shape} for data of {d} columns")
    grid = [{"labels": dict(labels), "data": data, "method": method, "options": dict(options), "reference": ref,
             "n_draws": int((draws_by_method or {}).get(method, n_draws))}
            for (labels, data), ref in zip(data_sets, references) for method in methods]
    return pd.DataFrame(parallel.run_trials(_reference_row, grid, n_jobs=n_jobs, progress=False,
                                            desc="reference check"))


def _reference_row(labels: Mapping[str, Any], data: pd.DataFrame, method: str, options: Mapping[str, Any],
                   reference: Reference, n_draws: int) -> dict[str, Any]:
    """:func:`reference_check`'s row of one method on one data set."""
    seed = int(labels["seed"])
    off = ~np.eye(data.shape[1], dtype=bool)
    r = reference.frequencies[off]
    max_floor, mean_floor = binomial_error(r, n_draws, reference.draws, seed)
    start = time.process_time()
    dags, notes = sample_noted(method, data, n_samples=n_draws, seed=seed, options=options)
    seconds = time.process_time() - start
    error = np.abs(dags.mean(axis=0)[off] - r)
    max_error, mean_error = float(error.max()), float(error.mean())
    return {**labels, "method": method, "draws": n_draws, "max error": max_error, "max floor": max_floor,
            "mean error": mean_error, "mean floor": mean_floor,
            "within floor": max_error <= FACTOR * max_floor and mean_error <= FACTOR * mean_floor,
            "edges": float(dags.sum(axis=(1, 2)).mean()), "reference edges": reference.edges,
            "reference draws": reference.draws, "reference gap": reference.gap,
            "gap reference": reference.gap_reference, "reference converged": reference.converged,
            "seconds": seconds, "notes": notes}


def reference_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per method of :func:`reference_check`'s table: whether it agrees with the long-chain MC3
    reference (module notes), the data sets within the floor, those whose reference converged, and
    the range of its max error and of max error / max floor."""
    rows = []
    for method, g in table.groupby("method", sort=False):
        converged = g["reference converged"].astype(bool)
        within = g["within floor"].astype(bool)
        if not within[converged].all():
            verdict = verdicts.DOES_NOT_HOLD
        elif converged.all():
            verdict = verdicts.HOLDS
        else:
            verdict = verdicts.UNDECIDED
        rows.append({"method": method, "statement": REFERENCE_STATEMENT, "verdict": verdict,
                     "within floor": f"{int(within.sum())} of {len(g)}",
                     "reference converged": f"{int(converged.sum())} of {len(g)}",
                     "max error": _range(g["max error"]), "max floor": _range(g["max floor"]),
                     "max error / floor": _range(g["max error"] / g["max floor"], ".1f")})
    return pd.DataFrame(rows)
