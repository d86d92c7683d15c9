"""Does tempering give study 6's d = 20, n = 100 data a converged long-chain reference (issue 34)?

    python benchmarks/bench_mc3_tempering.py [--data d20n100z] [--steps 200000000] [--burn-in 100000000]
                                             [--draws 10000] [--copies 4] [--beta-ratio 0.8]
                                             [--seeds 1000 1001 1002 1003] [--mc3 10000000:10000 50000000:50000]

Two plain MC3 chains of 200 to 400 million steps on study 6's z-scored d = 20, n = 100 data do not
agree (``bench_mc3_reference.py``: some edge's frequency still moves between them). Here each chain is
MC3 tempered (``posteriors.mc3``'s ``mc3_copies`` and ``mc3_beta_ratio``; parallel tempering, Geyer
1991): ``--copies`` copies at inverse temperatures ``beta_ratio^k``, adjacent ones swapping states,
copy 0's states kept after ``--burn-in`` steps, ``--draws`` of them. The ``--seeds`` go in pairs; each
pair's two chains get the two-run diagnostic of :func:`causaleval.bayes.check.chain_gap` (max edge gap
against that of independent draws, converged when within twice), and with two pairs or more every
pair's pooled frequencies are compared with the next pair's the same way (at twice the draws). Each
``--mc3 burn_in:thin`` setting then runs study 6's MC3 (untempered, 1,000 draws, its seeds 0 and 1)
and measures its edge marginals against the first pair's pooled reference, as the reference check
does (:func:`causaleval.bayes.check.binomial_error`: max and mean error against their floors; within
when both are at most twice). The swap rate of each adjacent pair of copies is the accepted swaps over
the swaps proposed to it (about steps / (copies - 1)). Chains run on two processes. Printed, and written
to ``benchmarks/results/bench_mc3_tempering.csv`` (and ``..._mc3.csv``).

Measured on the project's 2-core machine (2026-12-02, the defaults: 200 million steps a chain, 4 copies
at ratio 0.8, so 800 million MC3 steps a chain, about 0.22 us each, 175 CPU s a chain; 6.6 minutes for
the whole run on both cores). The plain chains of ``bench_mc3_reference.py`` at the same 200 million
steps give 0.034 against 0.017 (not converged), and at 400 million 0.041 against 0.016:

| seeds | max edge gap | independent draws | converged | swap rates (each chain) | edges a DAG |
| --- | ---: | ---: | --- | --- | --- |
| 1000, 1001 | 0.015 | 0.016 | yes | 0.18 0.21 0.26 / 0.18 0.21 0.26 | 62.7, 62.7 |
| 1002, 1003 | 0.021 | 0.017 | yes | 0.18 0.21 0.26 / 0.18 0.22 0.26 | 62.6, 62.7 |
| pair 1 against pair 2 (20,000 draws each) | 0.016 | 0.013 | yes | | |

Study 6's MC3 (untempered, 1,000 draws) against the first pair's tempered reference (20,000 draws):

| burn-in | thin | seed | max error | max floor | mean error | mean floor | within |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
| 10,000,000 | 10,000 | 0 | 0.170 | 0.036 | 0.0171 | 0.0065 | no |
| 10,000,000 | 10,000 | 1 | 0.101 | 0.037 | 0.0116 | 0.0065 | no |
| 50,000,000 | 50,000 | 0 | 0.063 | 0.036 | 0.0089 | 0.0065 | yes |
| 50,000,000 | 50,000 | 1 | 0.044 | 0.037 | 0.0081 | 0.0065 | yes |

So at d = 20, n = 100 two tempered chains agree, and so do two pairs of them, where plain chains of
the same length (and of twice it) do not. Against that reference, MC3 at study 6's former default settings
(burn-in 10,000,000, thin 10,000: 20 million steps for 1,000 draws) is outside twice the floor, as the
committed full check's untempered reference already suggested (0.183 against 0.041, undecided there
because that reference had not converged); at the paper-scale YAMLs' 100 million steps (burn-in
50,000,000, thin 50,000; study 6's defaults since 2026-12-02) it is within. A prototype of the same
sampler with other random numbers (proposals drawn a million steps at a time) gave 0.023 against 0.016
and 0.016 against 0.017 for the two pairs, and the same verdicts for the four MC3 rows.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval import parallel
from causaleval.bayes import check, posteriors
from causaleval.learn.ges import BGeScore

from bench_mc3_reference import DATA  # the same data sets


def tempered_chain(data: pd.DataFrame, copies: int, beta_ratio: float, burn_in: int, thin: int, n_draws: int,
                   seed: int) -> dict:
    """``posteriors.mc3`` tempered (its compiled chain, the same draws as ``mc3`` with ``mc3_copies``
    and ``mc3_beta_ratio``), with the accepted swaps counted: copy 0's edge frequencies, the swap rates
    and the CPU seconds."""
    start = time.process_time()
    d, steps = data.shape[1], burn_in + n_draws * thin
    swaps = np.zeros(max(copies - 1, 1), dtype=np.int64)
    blocks = posteriors.mc3_proposals(np.random.default_rng(seed), d, steps, copies)
    dags = posteriors._mc3_compiled(BGeScore(data.to_numpy(dtype=float)), d, blocks, burn_in, thin, n_draws,
                                    posteriors.mc3_betas(copies, beta_ratio), swaps)
    return {"frequencies": dags.mean(axis=0), "swap rates": swaps / (steps / max(copies - 1, 1)),
            "seconds": time.process_time() - start}


def mc3_row(data: pd.DataFrame, reference: np.ndarray, reference_draws: int, burn_in: int, thin: int,
            seed: int) -> dict:
    """Study 6's MC3 at ``burn_in``, ``thin`` (1,000 draws) against a reference's edge frequencies."""
    off = ~np.eye(data.shape[1], dtype=bool)
    dags = posteriors.mc3(data, n_samples=1000, seed=seed, options={"mc3_burn_in": burn_in, "mc3_thin": thin})
    error = np.abs(dags.mean(axis=0)[off] - reference[off])
    max_floor, mean_floor = check.binomial_error(reference[off], 1000, reference_draws, seed)
    return {"burn-in": burn_in, "thin": thin, "seed": seed, "max error": round(float(error.max()), 3),
            "max floor": round(max_floor, 3), "mean error": round(float(error.mean()), 4),
            "mean floor": round(mean_floor, 4),
            "within": bool(error.max() <= check.FACTOR * max_floor and error.mean() <= check.FACTOR * mean_floor)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="d20n100z", choices=list(DATA))
    parser.add_argument("--steps", type=int, default=200_000_000)
    parser.add_argument("--burn-in", type=int, default=100_000_000)
    parser.add_argument("--draws", type=int, default=10_000)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--beta-ratio", type=float, default=0.8)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1000, 1001, 1002, 1003])
    parser.add_argument("--mc3", nargs="*", default=["10000000:10000", "50000000:50000"])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "bench_mc3_tempering.csv"))
    args = parser.parse_args()
    if len(args.seeds) % 2:
        parser.error("--seeds go in pairs")
    data = DATA[args.data]()
    thin = (args.steps - args.burn_in) // args.draws
    grid = [{"data": data, "copies": args.copies, "beta_ratio": args.beta_ratio, "burn_in": args.burn_in,
             "thin": thin, "n_draws": args.draws, "seed": s} for s in args.seeds]
    chains = parallel.run_trials(tempered_chain, grid, n_jobs=2, progress=False, desc="tempered chains")
    rows, pooled = [], []
    for at in range(0, len(chains), 2):
        a, b = chains[at], chains[at + 1]
        gap = check.chain_gap(a["frequencies"], b["frequencies"], args.draws, args.seeds[at])
        pooled.append((a["frequencies"] + b["frequencies"]) / 2)
        rows.append({"seeds": f"{args.seeds[at]}, {args.seeds[at + 1]}", "max edge gap": round(gap["gap"], 3),
                     "independent draws": round(gap["reference"], 3), "converged": gap["agree"],
                     "swap rates": " / ".join(" ".join(f"{x:.2f}" for x in c["swap rates"]) for c in (a, b)),
                     "CPU s": round(a["seconds"] + b["seconds"], 1),
                     "edges": f"{a['frequencies'].sum():.1f}, {b['frequencies'].sum():.1f}"})
    for k in range(len(pooled) - 1):
        gap = check.chain_gap(pooled[k], pooled[k + 1], 2 * args.draws, args.seeds[0])
        rows.append({"seeds": f"pair {k + 1} against pair {k + 2}", "max edge gap": round(gap["gap"], 3),
                     "independent draws": round(gap["reference"], 3), "converged": gap["agree"]})
    table = pd.DataFrame(rows).assign(data=args.data, copies=args.copies, beta_ratio=args.beta_ratio,
                                      steps=args.steps, burn_in=args.burn_in, thin=thin, draws=args.draws)
    print(table.to_markdown(index=False), flush=True)
    mc3 = pd.DataFrame([mc3_row(data, pooled[0], 2 * args.draws, *(int(x) for x in s.split(":")), seed)
                        for s in args.mc3 for seed in (0, 1)])
    print(mc3.to_markdown(index=False), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False)
    mc3.to_csv(out.with_name(out.stem + "_mc3.csv"), index=False)


if __name__ == "__main__":
    main()
