"""What a long-chain MC3 reference costs, and when its two chains agree (issue 34), at d = 11 and 20.

    python benchmarks/bench_mc3_reference.py [--steps 5000000] [--every 100] [--data sachs d20n100 d20n20]
                                              [--settings 100000:100:1000 1000000:1000:2000 ...]

Data: Sachs (d = 11, 853 rows, ``studies.bayesian_cd_ate.data.sachs``) and study 6's synthetic data at
d = 20 (seed 0, 40 expected edges, noise sd 0.1, n = 100 and n = 20, not standardised: the study's
data). Per data set, two MC3 chains (:data:`causaleval.bayes.check.REFERENCE_SEEDS`) of ``--steps``
steps each keep every ``--every``-th state from the start (one run per chain, CPU seconds measured);
each ``burn_in:thin:n_draws`` setting is then read off those states (the states at steps ``burn_in +
k * thin - 1``, ``k = 1 .. n_draws``; ``burn_in`` and ``thin`` multiples of ``--every``) and gets the
two-run diagnostic of :func:`causaleval.bayes.check.chain_gap`: the chains' max edge gap beside that of
independent draws, converged when within ``FACTOR`` (2) times. A setting read off a longer chain is the
same Markov chain as :func:`causaleval.bayes.check.long_chain_reference` at that setting, not the same
random numbers (MC3 draws all its proposals up front). Its cost is the measured seconds per step times
``burn_in + n_draws * thin``, per chain. Printed, and written to
``benchmarks/results/bench_mc3_reference.csv``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval.bayes import check
from causaleval.bayes.posteriors import sample_posterior
from causaleval.studies.bayesian_cd_ate.data import sachs, synthetic

DATA = {"sachs": lambda: sachs()[1], "d20n100": lambda: synthetic(0, 100, 20, 40.0, 0.1)[1],
        "d20n20": lambda: synthetic(0, 20, 20, 40.0, 0.1)[1]}
SETTINGS = ("10000:100:500", "10000:100:2000", "100000:100:2000", "100000:1000:1000", "1000000:1000:2000",
            "1000000:2000:1000", "2000000:1000:3000")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5_000_000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--data", nargs="+", default=list(DATA), choices=list(DATA))
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS))
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "bench_mc3_reference.csv"))
    args = parser.parse_args()
    settings = [tuple(int(x) for x in s.split(":")) for s in args.settings]
    rows = []
    for name in args.data:
        data = DATA[name]()
        start = time.process_time()
        chains = [sample_posterior("mc3", data, n_samples=args.steps // args.every, seed=s,
                                   options={"mc3_burn_in": 0, "mc3_thin": args.every}) for s in check.REFERENCE_SEEDS]
        per_step = (time.process_time() - start) / (2 * args.steps)
        print(f"{name}: d = {data.shape[1]}, n = {len(data)}, {per_step * 1e6:.1f} us a step", flush=True)
        for burn_in, thin, n_draws in settings:
            steps = burn_in + n_draws * thin
            if steps > args.steps or burn_in % args.every or thin % args.every:
                continue
            at = (burn_in + thin * np.arange(1, n_draws + 1)) // args.every - 1
            f1, f2 = (c[at].mean(axis=0) for c in chains)
            gap = check.chain_gap(f1, f2, n_draws, check.REFERENCE_SEEDS[0])
            rows.append({"data": name, "d": data.shape[1], "n": len(data), "burn-in": burn_in, "thin": thin,
                         "draws per chain": n_draws, "steps per chain": steps,
                         "CPU s (2 chains)": round(2 * steps * per_step, 1), "max edge gap": round(gap["gap"], 3),
                         "independent draws": round(gap["reference"], 3), "converged": gap["agree"],
                         "edges (chain 1, 2)": f"{f1.sum():.1f}, {f2.sum():.1f}"})
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(table.to_markdown(index=False))


if __name__ == "__main__":
    main()
