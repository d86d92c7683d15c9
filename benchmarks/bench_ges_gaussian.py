"""Gaussian GES (BIC, BGe): the kit's ``causaleval.learn.ges`` vs its previous search and causal-learn's.

    python benchmarks/bench_ges_gaussian.py [--resamples 3] [--before eecabcb] [--no-causallearn]

Data: study 6's synthetic linear-Gaussian model (``studies.bayesian_cd_ate.data.synthetic``, seed
0, expected edges 40 at d = 20, and 40 at d = 40) at n = 20, 100 and 1000 rows (d = 20; the paper's
n are 20 and 100) and n = 200 (d = 40), each as ``--resamples`` bootstrap resamples (seeds 0, 1, ...),
which is what bootstrap GES learns from. Three searches per resample, CPU seconds per run:

* the kit's GES (this checkout);
* the kit's GES as of commit ``--before`` (the search before the bulk scoring of issue 24), loaded
  from git; it is the anchor of the issue's target (15x);
* causal-learn's ``ges`` with ``local_score_BIC_from_cov`` (BIC only: it has no BGe).

The script fails (exit 1) when a CPDAG differs from either reference.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval.learn.ges import ges
from causaleval.studies.bayesian_cd_ate.data import synthetic

SETTINGS = [(20, 20, 40.0), (20, 100, 40.0), (20, 1000, 40.0), (40, 200, 40.0)]
ROOT = Path(__file__).resolve().parents[1]


def previous_ges(commit: str):
    """The ``ges`` function of ``lib/causaleval/learn/ges.py`` at ``commit``."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:lib/causaleval/learn/ges.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "ges_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ges_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.ges


def resamples(d: int, n: int, edges: float, count: int) -> list[pd.DataFrame]:
    _, data = synthetic(0, n, d, edges, 0.1)
    return [data.iloc[np.random.default_rng(k).integers(0, n, n)].reset_index(drop=True) for k in range(count)]


def timed(fn, *args, **kwargs):
    start = time.process_time()
    result = fn(*args, **kwargs)
    return result, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=3)
    parser.add_argument("--before", default="eecabcb", help="commit of the previous search (the anchor)")
    parser.add_argument("--no-causallearn", action="store_true", help="skip causal-learn (slow at d = 40)")
    args = parser.parse_args()
    before = previous_ges(args.before)
    warm = resamples(5, 50, 4.0, 1)[0]
    for warm_up in (ges, before):  # imports and first calls
        warm_up(warm, score="bic")
    causallearn_bic(warm)
    rows, differ = [], 0
    for score in ("bic", "bge"):
        for d, n, edges in SETTINGS:
            kit = old = ref = 0.0
            bad = 0
            cases = resamples(d, n, edges, args.resamples)
            for data in cases:
                ours, s = timed(ges, data, score=score)
                kit += s
                theirs, s = timed(before, data, score=score)
                old += s
                bad += ours.graph != theirs.graph
                if score == "bic" and not args.no_causallearn:
                    graph, s = timed(causallearn_bic, data)
                    ref += s
                    bad += ours.graph != graph
            differ += bad
            k = len(cases)
            rows.append({"score": score, "d": d, "n": n, "kit s/run": kit / k, "before s/run": old / k,
                         "x before": old / kit,
                         "causal-learn s/run": ref / k if ref else float("nan"),
                         "x causal-learn": ref / kit if ref else float("nan"), "CPDAGs differing": bad})
    table = pd.DataFrame(rows)
    print(table.to_markdown(index=False, floatfmt=".3g"))
    for score, part in table.groupby("score", sort=False):
        print(f"{score}: kit {part['kit s/run'].sum():.3f} s, before {part['before s/run'].sum():.3f} s "
              f"({part['before s/run'].sum() / part['kit s/run'].sum():.1f}x) summed over the settings' mean runs")
    if differ:
        print(f"FAIL: {differ} CPDAGs differ", file=sys.stderr)
        return 1
    return 0


def causallearn_bic(data: pd.DataFrame):
    """causal-learn's GES with its covariance BIC, as a CausalGraph."""
    import causallearn.search.ScoreBased.GES as cl

    from causaleval.graphs import CausalGraph

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record = cl.ges(data.to_numpy(float), score_func="local_score_BIC_from_cov",
                        node_names=[str(c) for c in data.columns])
    return CausalGraph.from_causallearn(record["G"])


if __name__ == "__main__":
    sys.exit(main())
