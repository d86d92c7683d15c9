"""Study 6 at the paper's scale: one trial per setting and method, timed, and the whole
``notebooks/params/06.paper.yaml`` extrapolated.

    python benchmarks/bench_study6_scale.py [--methods bootstrap_pc bootstrap_ges mc3] [--n-posterior N]
    python benchmarks/bench_study6_scale.py --whole

Parameters: ``06.paper.yaml`` (26 seeds, d = 20 with n = 20
and 100, Sachs at 3 seeds, 1,000 DAGs per posterior, MC3 burn-in 100,000 and thinning 100), seed 0.
For each setting one trial runs with no method (the data, the true graph's MEC and its ATEs:
the trial's base cost) and then once per method alone (``studies.bayesian_cd_ate.run_trial``:
the posterior, then the ATE of every ordered pair in every distinct DAG and the per-pair
scores); a method's cost is its trial's CPU seconds minus the base. ``--n-posterior`` times the
methods at fewer DAGs (for the slow ones), scaled linearly to the YAML's count and marked so.

Printed: CPU seconds per trial (setting x method), the YAML's trial count per setting, the
extrapolated CPU seconds of the whole YAML and its wall time on ``--workers`` processes
(trials are independent). Before timing, the first three bootstrap resamples of the n = 100
data set are learned by the kit's PC and GES and by causal-learn's (the cross-checks): the
script fails (exit 1) if a CPDAG differs.

``--whole`` measures instead of extrapolating: the wall time of the whole notebook at
``notebooks/params/06.paper_scale.yaml`` (the seven methods at the paper's scale for 8 of its
26 seeds, every trial, table and figure), run by ``causaleval run`` with the YAML's ``n_jobs``
worker processes (joblib; no server is started) and BLAS at one thread each. It writes that run's
outputs to ``figures/06_bayesian_cd_ate/paper_scale/``, as the committed run did.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd
import yaml

from causaleval import paths

DEFAULT_METHODS = ["bootstrap_pc", "bootstrap_ges", "mc3"]


def paper_params() -> dict:
    """The YAML's parameters (it sets every parameter of the notebook)."""
    return yaml.safe_load((paths.NOTEBOOKS / "params" / "06.paper.yaml").read_text())


def cross_check(data: pd.DataFrame, alpha: float) -> int:
    """CPDAGs of three bootstrap resamples on which the kit and causal-learn differ."""
    import causallearn.search.ScoreBased.GES as cl

    from causaleval.graphs import CausalGraph
    from causaleval.learn.ges import ges
    from causaleval.learn.learners import learn

    differ = 0
    for k in range(3):
        rows = np.random.default_rng(k).integers(0, len(data), len(data))
        resample = data.iloc[rows].reset_index(drop=True)
        differ += learn("pc", resample, ci_test="fisher_z", alpha=alpha) != learn(
            "pc_causallearn", resample, ci_test="fisher_z", alpha=alpha)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = cl.ges(resample.to_numpy(float), score_func="local_score_BIC_from_cov",
                            node_names=list(resample.columns))
        differ += ges(resample, score="bic").graph != CausalGraph.from_causallearn(record["G"])
    return differ


def whole_run() -> float:
    """Wall seconds of ``causaleval run bayesian_cd_ate`` at ``06.paper_scale.yaml`` (module notes)."""
    env = {k: v for k, v in os.environ.items() if k != "CAUSALEVAL_DASK_SCHEDULER"}  # threads: causaleval.numenv
    start = time.time()
    subprocess.run([sys.executable, "-m", "causaleval", "run", "bayesian_cd_ate", "--params-file",
                    str(paths.NOTEBOOKS / "params" / "06.paper_scale.yaml"), "--tag", "paper_scale", "--force"],
                   check=True, env=env)
    return time.time() - start


def cpu(fn, *args) -> float:
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


def main() -> int:
    from causaleval.studies import bayesian_cd_ate as S
    from causaleval.studies.bayesian_cd_ate.data import trial_data

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=DEFAULT_METHODS)
    parser.add_argument("--n-posterior", type=int, default=None,
                        help="DAGs per posterior when timing (default: the YAML's)")
    parser.add_argument("--workers", type=int, default=2, help="processes for the wall-time extrapolation")
    parser.add_argument("--whole", action="store_true", help="measure the whole paper-scale notebook instead")
    args = parser.parse_args()
    if args.whole:
        seconds = whole_run()
        print(f"whole notebook at 06.paper_scale.yaml: {seconds:,.0f} s of wall time ({seconds / 60:.1f} min)")
        return 0
    p = paper_params()
    full = p["n_posterior"]
    timed_at = args.n_posterior or full
    config = S.config(p) | {"n_posterior": timed_at}
    _, data = trial_data("n=100", 0, config)
    differ = cross_check(data, p["pc_alpha"])
    print(f"cross-check on 3 bootstrap resamples (n = 100): {differ} CPDAGs differ from causal-learn's")
    if differ:
        return 1
    trials = {s: sum(1 for g in S.grid(p) if g["setting"] == s) for s in S.settings(p)}
    rows = []
    for setting in trials:
        S.run_trial(setting, 0, config | {"methods": []})  # warm-up: data loading and caches
        base = cpu(S.run_trial, setting, 0, config | {"methods": []})
        rows.append({"setting": setting, "method": "(base: data, MEC, true ATEs)", "CPU s per trial": base,
                     "trials": trials[setting], "CPU s, whole YAML": base * trials[setting]})
        for method in args.methods:
            seconds = (cpu(S.run_trial, setting, 0, config | {"methods": [method]}) - base) * full / timed_at
            rows.append({"setting": setting, "method": method + ("" if timed_at == full else f" (timed at {timed_at})"),
                         "CPU s per trial": seconds, "trials": trials[setting],
                         "CPU s, whole YAML": seconds * trials[setting]})
    table = pd.DataFrame(rows)
    print(table.to_markdown(index=False, floatfmt=",.1f"))
    total = table["CPU s, whole YAML"].sum()
    print(f"\nwhole 06.paper.yaml for {', '.join(args.methods)}: {total:,.0f} CPU s, "
          f"{total / args.workers / 60:,.1f} min on {args.workers} workers (trials are independent)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
