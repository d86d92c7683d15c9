"""Study 6's checks the paper does not have: which method samples the exact posterior, and whether MC3 converged.

At d <= 5 nodes every DAG can be enumerated, so the BGe posterior under a uniform prior is known
exactly (:mod:`causaleval.bayes.exact`). :func:`exact_check` draws synthetic data sets with
``exact_nodes`` nodes and ``exact_rows`` rows at each of the first ``exact_seeds`` seeds (the study's generator with
``expected_edges = d``, the columns standardised: on the raw columns with noise sd 0.1 the BGe prior
matrix is as large as the data's cross-products and the posterior spreads over thousands of DAGs) and
runs :func:`causaleval.bayes.check.exact_check` on them: one row per (data set, method), the method's
DAG total variation to the exact posterior beside the floor that as many i.i.d. exact draws give, and
:func:`causaleval.bayes.check.check_summary` says per method whether it samples the exact posterior
(within twice the floor on every data set). :func:`labelled` puts that verdict beside each method's
numbers in Tables 1-3.

:func:`mc3_convergence` runs MC3 twice (seeds 0 and 1) at the study's ``mc3_burn_in`` and ``mc3_thin``
on a d = 5 data set of the exact check, on Sachs (d = 11) and on a d = ``n_nodes`` data set at each
sample size (seed ``seeds[0]``, the columns the study's methods score), keeping
:data:`DIAGNOSTIC_DRAWS` states, and compares the two runs' edge frequencies
(:func:`causaleval.bayes.check.two_run_gap`). :func:`labelled` puts MC3's verdict on the table's own
data set beside its row in Tables 1-3.

:func:`reference_check` goes beyond enumeration: at each d of ``reference_nodes`` (11: Sachs; any other:
the study's synthetic data with that many nodes, seed ``seeds[0]``, at each of ``sample_sizes``, the
columns the study's methods score: :func:`~.data.scored`) a long MC3 run is the reference
(:func:`causaleval.bayes.check.long_chain_reference`: two chains of ``reference_burn_in`` steps, then
``reference_draws`` states every ``reference_thin`` steps each, tempered with ``reference_copies`` copies
when above 1) and every method's edge marginals are
compared with it (:func:`causaleval.bayes.check.reference_check`; the same BGe posterior as the exact
check's, so the same target). Measured (``benchmarks/bench_mc3_reference.py``, on the z-scored columns
the methods score): Sachs's chains agree from about a million steps a chain; at d = 20, n = 20 two chains
of 1,000 draws agree from burn-in 10,000,000, thin 10,000 (at n = 100 the two-run diagnostic at those
settings, 500 states a run, does not, and MC3 there is off the tempered reference: study 6 now runs MC3 at
burn-in 50,000,000, thin 50,000, ``benchmarks/bench_mc3_tempering.py``), and two of 10,000 draws (the
full check's reference) from about 80 million steps a chain (max edge gap 0.035 against 0.021 for
independent draws; the full check's 200 million, burn-in 100,000,000 and thin 10,000: 0.028 against
0.019; at n = 100 the same 200 million give 0.034 against 0.017, not converged by the rule below).
A reference whose chains do not agree is reported as not converged and its rows decide nothing.

:func:`checks` gives a run both checks and MC3's two-run diagnostic: run here, or read back from a
committed run's folder (``checks_from``; the notebook's default is :data:`CHECK_DIR`, the full check of
``notebooks/params/06.exact.yaml``), which is valid for this run only where it was run with the same data
generator and method settings (:data:`CHECK_SETTINGS`, :func:`check_source`). The diagnostic is read back
only where it ran on this run's data sets too (the same ``seeds[0]`` and ``n_nodes``, every one of
``sample_sizes``: :func:`read_convergence`); otherwise it runs here. The verdicts are recomputed from the
read rows by the current rule, as the paper-scale run's tables are (:mod:`.scale`). :func:`save_checks`
saves what ran here. Checks run here go through :func:`causaleval.parallel.run_trials` on the run's
``n_jobs`` processes, as its trials do: the exact check's and the reference check's (data set, method)
pairs, the reference chains and MC3's two runs per data set, each seeded from its own arguments, so
their rows are the same for any ``n_jobs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from causaleval import parallel, params, paths, report
from causaleval.bayes import check
from causaleval.studies.bayesian_cd_ate.data import sachs, scored, standardised, synthetic
from causaleval.studies.bayesian_cd_ate.paper import paper_name
from causaleval.studies.bayesian_cd_ate.trials import POSTERIOR_OPTIONS

DIAGNOSTIC_DRAWS = 500  # MC3 states kept per run by the two-run diagnostic
DIAGNOSTIC_ROWS = 200  # rows of its d = 5 data set
#: the committed full check (``notebooks/params/06.exact.yaml``), read back by the notebook at its defaults
CHECK_DIR = paths.ROOT / "figures" / "06_bayesian_cd_ate" / "exact_check"
#: what the checks' verdicts depend on besides their own parameters: the data's generator, the methods' settings
CHECK_SETTINGS = ("expected_edges", "noise_sd", "standardize", "method_options", *POSTERIOR_OPTIONS)


def _options(p: Mapping[str, Any]) -> dict[str, Any]:
    return {k: p[k] for k in POSTERIOR_OPTIONS} | dict(p["method_options"])


def exact_check(p: Mapping[str, Any]) -> pd.DataFrame:
    """:func:`causaleval.bayes.check.exact_check` of every method in ``p["methods"]`` on a data set per
    (``exact_nodes``, ``exact_rows``, seed among the first ``exact_seeds`` of ``seeds``), with ``exact_draws`` draws
    (``exact_draws_by_method`` for the methods named there); methods by the paper's names."""
    data_sets = [({"d": d, "n": n, "seed": seed}, standardised(synthetic(seed, n, d, float(d), p["noise_sd"])[1]))
                 for d in p["exact_nodes"] for n in p["exact_rows"] for seed in p["seeds"][:p["exact_seeds"]]]
    table = check.exact_check(p["methods"], data_sets, n_draws=p["exact_draws"], options=_options(p),
                              draws_by_method=p["exact_draws_by_method"], n_jobs=p["n_jobs"])
    return table.assign(method=table["method"].map(paper_name))


def labelled(table: pd.DataFrame, setting: str, exact: pd.DataFrame | None = None,
             reference: pd.DataFrame | None = None, convergence: pd.DataFrame | None = None) -> pd.DataFrame:
    """A table in the paper's layout (:func:`.tables.layout`) of ``setting`` (``n=20``, ``sachs``) with a
    column saying, per method, whether it samples the exact posterior (from the ``exact`` check's table,
    :func:`exact_check`: :func:`causaleval.bayes.check.check_summary`'s verdict, its DAG TV and floor
    ranges) and, given the ``reference`` check's table (:func:`reference_check`), one saying whether it
    agrees with the long-chain reference (verdict, max edge error and floor ranges), judged on the
    reference's data sets of the table's own setting where it has any (Sachs for ``sachs``; the
    synthetic ones with that n for a synthetic setting), else on all of them. Each verdict names the data sets it
    was judged on (the exact check's are never a table's own: d <= 5). MC3's row also gets, from
    ``convergence`` (:func:`mc3_convergence`), whether its two runs agree on a data set of the table's
    own setting. A method that fails is labelled so beside its numbers; a check not run (None or empty)
    or a method not in it: "not checked"."""
    summary = None if exact is None or exact.empty else check.check_summary(exact)
    said = _said(table, summary, "DAG TV", "floor", _on(exact, ["d", "n"]))
    if convergence is not None:
        mc3 = convergence[convergence["setting"] == setting]
        said = [f"{text}; {_two_runs(mc3.iloc[0])}" if m == paper_name("mc3") and len(mc3) else text
                for m, text in zip(table["method"], said)]
    out = table.assign(**{check.STATEMENT: said})
    if reference is None:
        return out
    own = _own_rows(reference, setting)
    rows = own if len(own) else reference
    summary = None if rows.empty else check.reference_summary(rows)
    return out.assign(**{check.REFERENCE_STATEMENT: _said(table, summary, "max error", "max floor",
                                                          _on(rows, ["data", "d", "n"]), _unconverged(rows))})


def _unconverged(reference: pd.DataFrame) -> str:
    """``; the reference converged on k of n data sets`` when some of a reference check's two-chain
    references did not (there a method can neither pass nor fail: hence an undecided verdict whatever
    its error), else empty."""
    if reference.empty:
        return ""
    converged = reference.groupby(["data", "d", "n", "seed"], sort=False)["reference converged"].first().astype(bool)
    return "" if converged.all() else (f"; the reference converged on {int(converged.sum())} of {len(converged)} "
                                       "data sets")


def _own_rows(reference: pd.DataFrame, setting: str) -> pd.DataFrame:
    """The rows of a reference check's table on the data of ``setting`` (``sachs`` or ``n=<rows>``)."""
    if reference.empty:
        return reference
    if setting == "sachs":
        return reference[reference["data"] == "Sachs"]
    return reference[(reference["data"] == "synthetic") & (reference["n"] == int(setting.removeprefix("n=")))]


def _said(table: pd.DataFrame, summary: pd.DataFrame | None, error: str, floor: str, on: str,
          after: str = "") -> list[str]:
    """Per row of ``table``: its method's verdict in ``summary`` judged ``on`` those data sets, with the
    ``error`` and ``floor`` ranges and ``after`` them, or "not checked" (no summary, an empty one, or a
    method not in it)."""
    said = {} if summary is None or summary.empty else {
        row["method"]: f"{row['verdict']} on {on} ({error} {row[error]}, floor {row[floor]}{after})"
        for _, row in summary.iterrows()}
    return [said.get(m, "not checked") for m in table["method"]]


def _on(check_table: pd.DataFrame | None, keys: list[str]) -> str:
    """The data sets of a check's table: ``d = 4, n = 200 (2 seeds)``, ``Sachs d = 11, n = 853 (1 seed)``."""
    if check_table is None or check_table.empty:
        return ""
    groups = check_table.groupby(keys, sort=False)["seed"].nunique()
    return "; ".join(" ".join([str(v) for k, v in zip(keys, key) if k == "data"]
                              + [", ".join(f"{k} = {v}" for k, v in zip(keys, key) if k != "data")])
                     + f" ({seeds} seed{'s' if seeds > 1 else ''})" for key, seeds in groups.items())


def _two_runs(row: pd.Series) -> str:
    """MC3's two-run verdict on one data set of :func:`mc3_convergence`."""
    agree = "agree" if row[f"within {check.FACTOR:g}x"] else "disagree (not converged)"
    return (f"its two runs on {row['data']} {agree}: max edge gap {row['max edge gap']:.3f}, "
            f"independent draws {row['independent draws']:.3f}")


def mc3_convergence(p: Mapping[str, Any]) -> pd.DataFrame:
    """The two-run diagnostic of MC3 at the study's settings (module notes): one row per data set, its
    ``setting`` the study's (``n=20``, ``sachs``; empty for the d = 5 one); the data sets on ``n_jobs``
    processes (:func:`causaleval.parallel.run_trials`)."""
    seed = p["seeds"][0]
    data_sets = [(f"synthetic d = 5, n = {DIAGNOSTIC_ROWS}, standardised", "",
                  standardised(synthetic(seed, DIAGNOSTIC_ROWS, 5, 5.0, p["noise_sd"])[1])),
                 ("Sachs (d = 11)", "sachs", sachs()[1])]
    for n in p["sample_sizes"]:
        data = synthetic(seed, n, p["n_nodes"], p["expected_edges"], p["noise_sd"])[1]
        data_sets.append((f"synthetic d = {p['n_nodes']}, n = {n}, seed {seed}", f"n={n}", scored(f"n={n}", data, p)))
    grid = [{"method": "mc3", "data": data, "n_draws": DIAGNOSTIC_DRAWS, "seeds": (0, 1), "options": _options(p)}
            for _, _, data in data_sets]
    gaps = parallel.run_trials(check.two_run_gap, grid, n_jobs=p["n_jobs"], progress=False, desc="MC3 two runs")
    rows = []
    for (name, setting, _), gap in zip(data_sets, gaps):
        rows.append({"data": name, "setting": setting, "burn-in": p["mc3_burn_in"], "thin": p["mc3_thin"],
                     "kept states": DIAGNOSTIC_DRAWS, "max edge gap": gap["gap"], "independent draws": gap["reference"],
                     f"within {check.FACTOR:g}x": gap["agree"]})
    return pd.DataFrame(rows)


class ReferenceCheck(NamedTuple):
    """The long-chain reference check of a run: ``table``, one row per data set and method;
    ``summary``, the per-method verdicts; and ``seconds``, each method's CPU seconds per data set
    (the data set and method keys, then ``seconds``). The seconds vary by run and machine, so they
    are kept out of ``table``, and a saved ``table`` is the same on every rerun."""

    table: pd.DataFrame
    summary: pd.DataFrame
    seconds: pd.DataFrame


def reference_check(p: Mapping[str, Any]) -> ReferenceCheck:
    """The long-chain reference check of every method in ``p["methods"]`` (module notes) and its
    per-method verdicts (:func:`causaleval.bayes.check.reference_summary`), methods by the paper's
    names, as a :class:`ReferenceCheck`. Parameters read from ``p``, besides the study's (``methods``,
    ``seeds``, ``sample_sizes``, ``expected_edges``, ``noise_sd``, the methods' options):

    * ``reference_nodes`` (list of int; ``[]`` skips the check and returns empty tables): 11 is
      Sachs (853 rows); any other d is the study's synthetic data with d nodes at seed ``seeds[0]`` and
      each of ``sample_sizes``. Recommended ``[11, 20]``.
    * ``reference_burn_in``, ``reference_thin`` (int): each reference chain's discarded steps and the
      steps between kept states. Recommended 1,000,000 and 1,000.
    * ``reference_draws`` (int): states kept per chain (the reference pools both chains). Recommended 2,000.
    * ``reference_copies`` (int) and ``reference_beta_ratio`` (float): each reference chain's tempered
      copies (1: plain MC3) and the ratio of adjacent copies' inverse temperatures
      (:func:`causaleval.bayes.check.long_chain_reference`). Recommended 4 and 0.8 where plain chains do
      not agree (study 6's d = 20, n = 100).
    * ``reference_method_draws`` (int) and ``exact_draws_by_method``
      (fewer draws for the methods named there, e.g. DiBS's particles): each method's DAGs per data set.
    """
    if not p["reference_nodes"]:
        return ReferenceCheck(pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    data_sets = []
    for d in p["reference_nodes"]:
        if d == 11:
            data_sets.append(({"data": "Sachs", "d": 11, "n": 853, "seed": p["seeds"][0]}, sachs()[1]))
        else:
            data_sets += [({"data": "synthetic", "d": d, "n": n, "seed": p["seeds"][0]},
                           scored(f"n={n}", synthetic(p["seeds"][0], n, d, p["expected_edges"], p["noise_sd"])[1], p))
                          for n in p["sample_sizes"]]
    reference = {"burn_in": p["reference_burn_in"], "thin": p["reference_thin"], "n_draws": p["reference_draws"],
                 "copies": p["reference_copies"], "beta_ratio": p["reference_beta_ratio"]}
    table = check.reference_check(p["methods"], data_sets, n_draws=p["reference_method_draws"],
                                  options=_options(p), reference=reference,
                                  draws_by_method=p["exact_draws_by_method"], n_jobs=p["n_jobs"])
    table = table.assign(method=table["method"].map(paper_name))
    keys = [*data_sets[0][0], "method"]
    return ReferenceCheck(table.drop(columns="seconds"), check.reference_summary(table), table[[*keys, "seconds"]])


class Checks(NamedTuple):
    """A run's two checks: ``exact``, the exact-posterior check's rows (None when not run), its
    ``exact_summary``, the ``reference`` check, ``source``, a sentence saying where they come from, and
    ``here``, whether they ran here (else they were read back from ``checks_from``); MC3's two-run
    diagnostic (:func:`mc3_convergence`; None when MC3 is not among the methods) and
    ``convergence_here``, whether it ran here."""

    exact: pd.DataFrame | None
    exact_summary: pd.DataFrame | None
    reference: ReferenceCheck
    source: str
    here: bool
    convergence: pd.DataFrame | None
    convergence_here: bool


def check_source(p: Mapping[str, Any]) -> tuple[Path, dict[str, Any]] | None:
    """The folder of ``p["checks_from"]`` (relative to ``notebooks/``, where the kernel runs) and the
    provenance stamp of its check, or None when ``checks_from`` is None (the checks run here). Raises
    :class:`causaleval.params.ParameterError` when the folder holds no check with a readable provenance
    stamp, or when that check ran with other :data:`CHECK_SETTINGS` than ``p`` (its verdicts would be
    another configuration's)."""
    if p["checks_from"] is None:
        return None
    folder = paths.NOTEBOOKS / p["checks_from"]
    stamp = check_stamp(folder, "checks_from", "expected a run with exact_nodes (e.g. notebooks/params/06.exact.yaml), "
                        "or checks_from = None to run the checks here")
    ran = stamp["parameters"]
    differ = [k for k in CHECK_SETTINGS if ran.get(k) != p[k]]
    if differ:
        said = "; ".join(f"{k} = {ran.get(k)!r} there, {p[k]!r} here" for k in differ)
        raise params.ParameterError(f"checks_from: the check in {paths.display(folder)} ran with other settings "
                                    f"({said}), so its verdicts are not this run's; set checks_from = None to run "
                                    "the checks with this run's settings")
    return folder, stamp


def check_stamp(folder: Path, parameter: str, expected: str) -> dict[str, Any]:
    """The provenance stamp of the exact-posterior check committed in ``folder``, which the parameter
    ``parameter`` names. Raises :class:`causaleval.params.ParameterError`, naming both and what was
    ``expected``, when the folder holds no ``exact_posterior.csv`` or no readable stamp of it."""
    if not (folder / "exact_posterior.csv").is_file():
        raise params.ParameterError(f"{parameter}: {paths.display(folder)} holds no exact_posterior.csv; {expected}")
    try:
        return report.read_stamp(folder, "exact_posterior")
    except ValueError as err:
        raise params.ParameterError(f"{parameter}: {err}; {expected}") from None


def read_convergence(folder: Path, stamp: Mapping[str, Any], p: Mapping[str, Any]) -> pd.DataFrame | None:
    """The rows of :func:`mc3_convergence` that the check in ``folder`` (its ``exact_posterior`` ``stamp``,
    :func:`check_source`) saved for this run's data sets, or None when it saved none from the same run, or
    ran on other ones (another ``seeds[0]`` or ``n_nodes``, or without one of ``sample_sizes``). Its MC3
    settings are this run's: :func:`check_source` refused any other :data:`CHECK_SETTINGS`."""
    ran = stamp["parameters"]
    if (not (folder / "mc3_convergence.provenance.json").is_file() or ran["seeds"][:1] != p["seeds"][:1]
            or ran["n_nodes"] != p["n_nodes"]
            or report.read_stamp(folder, "mc3_convergence").get("parameter_hash") != stamp.get("parameter_hash")):
        return None
    rows = report.read_table(folder, "mc3_convergence", text=["setting"])  # the d = 5 data set's, saved empty
    wanted = ["", "sachs", *(f"n={n}" for n in p["sample_sizes"])]
    if not set(wanted) <= set(rows["setting"]):
        return None
    return rows[rows["setting"].isin(wanted)].reset_index(drop=True)


def checks(p: Mapping[str, Any]) -> Checks:
    """The exact-posterior and reference checks of a run and MC3's two-run diagnostic: read back from
    ``p["checks_from"]`` (:func:`check_source`, :func:`read_convergence`; the verdicts recomputed from the
    rows) or, when it is None or (the diagnostic) holds other data sets, run here (:func:`exact_check`,
    :func:`reference_check`, :func:`mc3_convergence`)."""
    source = check_source(p)
    mc3 = "mc3" in p["methods"]
    if source is None:
        exact = exact_check(p) if p["exact_nodes"] else None
        summary = None if exact is None else check.check_summary(exact)
        return Checks(exact, summary, reference_check(p), "The checks below ran here, with this run's `exact_*` and "
                      "`reference_*` parameters, and MC3's two-run diagnostic with its MC3 settings.", here=True,
                      convergence=mc3_convergence(p) if mc3 else None, convergence_here=mc3)
    folder, stamp = source
    ran = stamp["parameters"]
    exact, table = (report.read_table(folder, name, text=["notes"]) for name in ("exact_posterior", "reference_check"))
    commit = stamp["code"].get("commit") or "unknown"
    absent = [m for m in map(paper_name, p["methods"]) if m not in set(exact["method"])]
    copies = ran.get("reference_copies", 1)  # a run from before the parameter existed ran plain chains
    said = (f"The checks below are read back from {paths.display(folder)} (run at commit {commit[:7]} with "
            f"`exact_nodes` {ran['exact_nodes']}, `exact_rows` {ran['exact_rows']}, "
            f"`exact_seeds` {ran['exact_seeds']}, "
            f"`exact_draws` {ran['exact_draws']}, `reference_nodes` {ran['reference_nodes']}, "
            f"`reference_copies` {copies}), which ran with this "
            "run's data generator and method settings; their verdicts are recomputed here from its rows. "
            + (f"Methods of this run it does not hold, so not checked: {', '.join(absent)}. " if absent else "")
            + "`checks_from = None` runs the checks here with this run's `exact_*` and `reference_*` parameters.")
    reference = ReferenceCheck(table, check.reference_summary(table) if not table.empty else pd.DataFrame(),
                               pd.DataFrame())
    convergence = read_convergence(folder, stamp, p) if mc3 else None
    if mc3:
        said += (" MC3's two-run diagnostic is read back from there too: it ran on this run's data sets (the same "
                 "`seeds[0]`, `n_nodes` and `sample_sizes`) at its MC3 settings." if convergence is not None else
                 " MC3's two-run diagnostic runs here: the check holds none for this run's data sets (the same "
                 "`seeds[0]` and `n_nodes`, each of `sample_sizes`).")
    here = mc3 and convergence is None
    return Checks(exact, check.check_summary(exact), reference, said, here=False,
                  convergence=mc3_convergence(p) if here else convergence, convergence_here=here)


def save_checks(checks: Checks, **save: Any) -> None:
    """Save the checks that ran here (:func:`checks`) with :func:`causaleval.report.save_table`
    (``save``: its ``study``, ``params`` and ``out``); checks read back stay where they are. The
    reference check's CPU seconds go to ``measured_reference_check_seconds`` (they vary by run and
    machine: git ignores ``measured_*``)."""
    if checks.convergence_here:
        report.save_table(checks.convergence.set_index("data"), "mc3_convergence", **save, float_format="{:.4f}")
    if not checks.here:
        return
    if checks.exact is not None:
        report.save_table(checks.exact.set_index(["d", "n", "seed", "method"]), "exact_posterior", **save,
                          float_format="{:.4f}")
        report.save_table(checks.exact_summary.set_index("method"), "exact_posterior_summary", **save)
    reference = checks.reference
    if not reference.table.empty:
        keys = ["data", "d", "n", "seed", "method"]
        report.save_table(reference.table.set_index(keys), "reference_check", **save, float_format="{:.4f}")
        report.save_table(reference.seconds.set_index(keys), "measured_reference_check_seconds", **save,
                          float_format="{:.2g}")
        report.save_table(reference.summary.set_index("method"), "reference_check_summary", **save)
