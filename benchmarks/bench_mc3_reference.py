"""What a long-chain MC3 reference costs, and when its two chains agree (issue 34), at d = 11 and 20.

    python benchmarks/bench_mc3_reference.py [--steps 5000000] [--every 100] [--data sachs d20n100 d20n20 d20n20z d20n100z]
                                              [--settings 100000:100:1000 1000000:1000:2000 ...]

Data: Sachs (d = 11, 853 rows, ``studies.bayesian_cd_ate.data.sachs``) and study 6's synthetic data at
d = 20 (seed 0, 40 expected edges, noise sd 0.1, n = 100 and n = 20, the raw columns: the study's data
before its ``standardize`` parameter, which now z-scores them by default, so the d = 20 rows below are
for the raw columns; ``d20n20z`` and ``d20n100z`` are the same data z-scored, the columns study 6's methods
and its reference check score by default). Per data set, two MC3 chains (:data:`causaleval.bayes.check.REFERENCE_SEEDS`)
of ``--steps`` steps each keep every ``--every``-th state from the start (one run per chain, CPU seconds measured);
each ``burn_in:thin:n_draws`` setting is then read off those states (the states at steps ``burn_in +
k * thin - 1``, ``k = 1 .. n_draws``; ``burn_in`` and ``thin`` multiples of ``--every``) and gets the
two-run diagnostic of :func:`causaleval.bayes.check.chain_gap`: the chains' max edge gap beside that of
independent draws, converged when within ``FACTOR`` (2) times. A setting read off a longer chain is the
same Markov chain as :func:`causaleval.bayes.check.long_chain_reference` at that setting, not the same
random numbers (MC3 draws all its proposals up front). Its cost is the measured seconds per step times
``burn_in + n_draws * thin``, per chain. Printed, and written to
``benchmarks/results/bench_mc3_reference.csv``.

Measured on the project's 2-core machine (one run each, shared with other jobs; CPU s of both chains
at that setting; converged: max edge gap <= 2 x that of independent draws). Sachs, ``--steps
4000000``: 4.4 us a step.

| burn-in | thin | draws per chain | CPU s | max edge gap | independent draws | converged |
| ---: | ---: | ---: | ---: | ---: | ---: | --- |
| 10,000 | 100 | 500 | 0.5 | 0.106 | 0.064 | yes |
| 10,000 | 100 | 2,000 | 1.8 | 0.045 | 0.033 | yes |
| 100,000 | 100 | 5,000 | 5.2 | 0.050 | 0.018 | no |
| 100,000 | 200 | 5,000 | 9.6 | 0.040 | 0.020 | yes |
| 100,000 | 500 | 5,000 | 22.7 | 0.037 | 0.020 | yes |
| 100,000 | 1,000 | 3,000 | 27.1 | 0.038 | 0.023 | yes |
| 1,000,000 | 1,000 | 3,000 | 35.0 | 0.025 | 0.021 | yes |

d = 20, ``--steps 5000000`` (24.7 us a step at n = 100, 29.0 us at n = 20; about 129 and 114
edges a DAG):

| n | burn-in | thin | draws per chain | CPU s | max edge gap | independent draws | converged |
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
| 100 | 10,000 | 100 | 500 | 3.0 | 0.728 | 0.090 | no |
| 100 | 100,000 | 1,000 | 1,000 | 54.4 | 0.245 | 0.061 | no |
| 100 | 1,000,000 | 1,000 | 2,000 | 148.4 | 0.127 | 0.050 | no |
| 100 | 1,000,000 | 2,000 | 1,000 | 148.4 | 0.126 | 0.068 | yes |
| 100 | 2,000,000 | 1,000 | 3,000 | 247.3 | 0.132 | 0.039 | no |
| 100 | 2,500,000 | 500 | 5,000 | 247.3 | 0.127 | 0.032 | no |
| 100 | 4,000,000 | 1,000 | 1,000 | 247.3 | 0.311 | 0.065 | no |
| 20 | 10,000 | 100 | 500 | 3.5 | 0.394 | 0.099 | no |
| 20 | 100,000 | 1,000 | 1,000 | 63.8 | 0.101 | 0.061 | yes |
| 20 | 1,000,000 | 1,000 | 2,000 | 173.9 | 0.087 | 0.045 | yes |
| 20 | 2,000,000 | 1,000 | 3,000 | 289.8 | 0.048 | 0.042 | yes |
| 20 | 2,500,000 | 500 | 5,000 | 289.8 | 0.066 | 0.032 | no |

z-scored d = 20, n = 20 (``d20n20z``, the columns study 6 scores by default; ``--steps 20000000`` and
``--steps 80000000``, ``--every 1000``; 5.4 us a step, about 78 edges a DAG; 2026-11-27):

| burn-in | thin | draws per chain | CPU s (2 chains) | max edge gap | independent draws | converged |
| ---: | ---: | ---: | ---: | ---: | ---: | --- |
| 1,000,000 | 1,000 | 2,000 | 32.4 | 0.151 | 0.040 | no |
| 2,000,000 | 1,000 | 3,000 | 53.9 | 0.101 | 0.037 | no |
| 5,000,000 | 1,000 | 5,000 | 107.8 | 0.143 | 0.027 | no |
| 10,000,000 | 1,000 | 10,000 | 182.5 | 0.070 | 0.019 | no |
| 20,000,000 | 2,000 | 10,000 | 365.1 | 0.062 | 0.018 | no |
| 40,000,000 | 4,000 | 10,000 | 730.2 | 0.035 | 0.021 | yes |
| 40,000,000 | 2,000 | 20,000 | 730.2 | 0.034 | 0.014 | no |

So on the z-scored columns the chains need tens of millions of steps: at 80 million a chain their gap
(0.035) is within twice that of 10,000 independent draws but not of 20,000, so they are near agreement,
not past it. ``06.exact.yaml``'s reference was the first row (3 million steps), not converged, until
6f49b8a; it is now the 80-million-step row (burn-in 40,000,000, thin 4,000, 10,000 draws).

Sachs's chains agree from about a million steps a chain; at d = 20 with n = 20 from one to three
million. At d = 20 with n = 100 they do not within five million steps a chain (four minutes for both):
the gap stays at 0.12-0.13 whatever the burn-in, and the last million steps alone give 0.31, so some
edges' frequencies drift over millions of steps (a slowly mixing mode, not a start-up transient). The
one "yes" there (thin 2,000, 1,000 draws) is within 2x only because its independent-draws reference is
larger at fewer draws, not because the chains agree better.

Since MC3's chain is compiled (2026-11-28; ``bench_mc3_chain.py``) a step costs about 0.1 us on Sachs,
0.3-0.6 us on ``d20n100z`` and 0.8-1.2 us on ``d20n20z`` (2.4 us with the other core busy), so chains of
hundreds of millions of steps are affordable. The compiled chain keeps the Python chain's states: rerun
at ``--steps 80000000 --every 1000``, the z-scored n = 20 rows from 20 million steps on are the table's
above to the digit (0.062 and 0.035); the shorter rows above came from a separate 20-million-step run,
whose uniforms differ. Chains above 10 million steps now draw their proposals in blocks
(``posteriors.mc3_proposals``), so they are other chains than before, of the same law.

| data | burn-in | thin | draws per chain | max edge gap | independent draws | converged |
| --- | ---: | ---: | ---: | ---: | ---: | --- |
| d20n20z | 5,000,000 | 10,000 | 500 | 0.090 | 0.090 | yes |
| d20n20z | 10,000,000 | 10,000 | 500 | 0.086 | 0.072 | yes |
| d20n20z | 10,000,000 | 10,000 | 1,000 | 0.081 | 0.059 | yes |
| d20n20z | 40,000,000 | 40,000 | 1,000 | 0.070 | 0.059 | yes |
| d20n20z | 100,000,000 | 10,000 | 10,000 | 0.028 | 0.019 | yes |
| d20n20z | 100,000,000 | 20,000 | 5,000 | 0.029 | 0.028 | yes |
| d20n100z | 5,000,000 | 10,000 | 500 | 0.160 | 0.073 | no |
| d20n100z | 5,000,000 | 10,000 | 1,000 | 0.119 | 0.050 | no |
| d20n100z | 10,000,000 | 10,000 | 500 | 0.088 | 0.072 | yes |
| d20n100z | 10,000,000 | 10,000 | 1,000 | 0.066 | 0.051 | yes |
| d20n100z | 10,000,000 | 1,000 | 10,000 | 0.154 | 0.018 | no |
| d20n100z | 40,000,000 | 4,000 | 10,000 | 0.091 | 0.018 | no |
| d20n100z | 100,000,000 | 10,000 | 10,000 | 0.017 | 0.019 | yes |
| d20n100z | 200,000,000 | 20,000 | 10,000 | 0.025 | 0.018 | yes |
| sachs | 5,000,000 | 10,000 | 500 | 0.070 | 0.070 | yes |
| sachs | 10,000,000 | 10,000 | 1,000 | 0.040 | 0.050 | yes |
| sachs | 40,000,000 | 4,000 | 10,000 | 0.012 | 0.014 | yes |

(``--steps 20000000 --every 10000`` for the 500- and 1,000-draw rows at burn-in 5 and 10 million;
``--steps 80000000 --every 1000`` for thin 1,000 and 4,000; ``--steps 200000000 --every 10000`` for the
other n = 20 rows; ``--steps 400000000 --every 10000`` for the other n = 100 rows, run just before the
proposals were drawn in blocks.) So study 6's MC3 settings were burn-in 10,000,000 and thin 10,000
until 2026-12-02 (20 million steps for 1,000 draws; 500 and 1,000 draws agree at n = 20 and 100 and on
Sachs; since then burn-in 50,000,000 and thin 50,000, ``bench_mc3_tempering.py``), and its
full check's reference two chains of 200 million steps (burn-in 100,000,000, thin 10,000, 10,000
draws), which agree at n = 20 and 100. At 10,000 draws the n = 100 chains need more than 80 million
steps: the slowly mixing mode above is mixed over by 200 million. These chains' seeds are this
script's; study 6's own two-run diagnostic (``exact_check.mc3_convergence``: MC3's seeds 0 and 1, 500
states) at the same settings disagreed at n = 100 in the paper-scale run (max edge gap 0.144 against
0.068 for independent draws), so at n = 100 20 million steps sit at the edge of convergence, and the
paper-scale YAMLs run 100 million (burn-in 50,000,000, thin 50,000; their diagnostic in
``figures/06_bayesian_cd_ate/paper_scale/mc3_convergence.csv``).

Longer chains do not settle n = 100 (2026-12-01, ``--data d20n100z --steps 400000000 --every 10000``,
the proposals in blocks as study 6's chains now draw them; 0.4 us a step, 350 CPU s for both chains,
one core, the other running ``bench_gfn_network_cost.py``):

| burn-in | thin | draws per chain | steps per chain | max edge gap | independent draws | converged |
| ---: | ---: | ---: | ---: | ---: | ---: | --- |
| 100,000,000 | 10,000 | 10,000 | 200,000,000 | 0.034 | 0.017 | no |
| 200,000,000 | 10,000 | 10,000 | 300,000,000 | 0.048 | 0.018 | no |
| 200,000,000 | 20,000 | 10,000 | 400,000,000 | 0.042 | 0.016 | no |
| 100,000,000 | 30,000 | 10,000 | 400,000,000 | 0.041 | 0.016 | no |

The first row is the committed full check's reference to the digit (its ``reference gap`` 0.0341 against
0.0170: the same chains). Its two chains give 62.6-62.7 edges a DAG, as the reference does, yet twice
the length leaves their largest edge gap at 2.5 times that of independent draws, and the gap grows from
200 to 300 million steps: some edge's frequency still moves between the chains after hundreds of
millions of steps (the rows above from the earlier proposals agreed at 200 million, 0.025 against
0.018, so whether two chains agree there depends on their random numbers). At d = 20, n = 100, chain
length alone does not give the reference check a converged reference: it needs more chains or a
better-mixing sampler, and until then that data set cannot tell (MC3's reference verdict stays
undecided). Tempered chains (``bench_mc3_tempering.py``: 4 copies, 200 million steps) agree there.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval import params, paths
from causaleval.bayes import check
from causaleval.bayes.posteriors import sample_posterior
from causaleval.studies.bayesian_cd_ate.data import sachs, standardised, synthetic

STUDY = params.defaults(paths.NOTEBOOKS / "06_bayesian_cd_ate.ipynb")  # d, expected edges, noise sd


def study_data(n: int) -> pd.DataFrame:
    """Study 6's synthetic data at seed 0 with ``n`` rows and the notebook's defaults otherwise."""
    return synthetic(0, n, STUDY["n_nodes"], STUDY["expected_edges"], STUDY["noise_sd"])[1]


DATA = {"sachs": lambda: sachs()[1], "d20n100": lambda: study_data(100), "d20n20": lambda: study_data(20),
        "d20n20z": lambda: standardised(study_data(20)), "d20n100z": lambda: standardised(study_data(100))}
SETTINGS = ("10000:100:500", "10000:100:2000", "100000:100:2000", "100000:1000:1000", "1000000:1000:2000",
            "1000000:2000:1000", "2000000:1000:3000")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5_000_000)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--data", nargs="+", default=["sachs", "d20n100", "d20n20"], choices=list(DATA))
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
