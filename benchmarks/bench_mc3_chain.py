"""MC3's chain: the compiled loop (``causaleval.bayes._mc3_jit``) against the Python chain it replaced.

    python benchmarks/bench_mc3_chain.py [--steps 2000000] [--data sachs d20n20z d20n100z]

The anchor is :func:`causaleval.bayes.posteriors.mc3_chain`, the Python chain ``mc3`` ran until the
compiled loop (and still runs beyond ``_mc3_jit.MAX_NODES`` variables). Per data set (those of
``bench_mc3_reference.py``: Sachs, and study 6's synthetic data at d = 20, seed 0, n = 20 and 100,
z-scored), both chains run the same ``--steps`` proposals and uniforms (seed 0, burn-in a tenth,
then every 1,000th state kept), each with a fresh table of family scores, so each pays for the family
scores it computes (the compiled loop is compiled before timing). CPU us per step of each, their
ratio, and the family scores the chain computed. The script fails (exit 1) when the kept states
differ. Printed, and written to ``benchmarks/results/bench_mc3_chain.csv``.

The compiled loop scores families itself (BGe, logdets by LAPACK through numba), so the ratio is
largest where the chain meets many new families (small n, early in a chain). Measured on the
project's 2-core machine, one run: see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval.bayes import posteriors
from causaleval.learn.ges import BGeScore

sys.path.insert(0, str(Path(__file__).parent))
from bench_mc3_reference import DATA  # noqa: E402  (the same data sets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--data", nargs="+", default=["sachs", "d20n20z", "d20n100z"], choices=list(DATA))
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "bench_mc3_chain.csv"))
    args = parser.parse_args()
    burn_in, thin = args.steps // 10, 1000
    n_kept = (args.steps - burn_in) // thin
    rows, same = [], True
    warm = np.zeros((10, 3))  # compile (or load numba's cache) before timing: a one-off cost per process
    posteriors._mc3_compiled(BGeScore(warm), 3, posteriors.mc3_proposals(np.random.default_rng(0), 3, 10), 0, 1, 10)
    for name in args.data:
        data = DATA[name]().to_numpy(dtype=float)
        d = data.shape[1]
        steps = burn_in + n_kept * thin
        blocks = list(posteriors.mc3_proposals(np.random.default_rng(0), d, steps))
        row: dict[str, object] = {"data": name, "d": d, "n": len(data), "steps": steps}
        kept = []
        for label, chain in (("python", posteriors.mc3_chain), ("compiled", posteriors._mc3_compiled)):
            local = BGeScore(data)
            start = time.process_time()
            kept.append(chain(local, d, blocks, burn_in, thin, n_kept))
            row[f"{label} us/step"] = round((time.process_time() - start) / steps * 1e6, 3)
            if label == "python":
                row["families scored"] = local.computed
        row["ratio"] = round(row["python us/step"] / row["compiled us/step"], 1)
        row["same states"] = bool(np.array_equal(*kept))
        same &= row["same states"]
        rows.append(row)
        print(row, flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame(rows)
    table.to_csv(args.out, index=False)
    print(table.to_markdown(index=False))
    if not same:
        sys.exit("the compiled chain's kept states differ from the Python chain's")


if __name__ == "__main__":
    main()
