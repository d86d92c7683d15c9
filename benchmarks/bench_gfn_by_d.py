"""Where the kit's DAG-GFlowNet stops sampling the posterior (issue 34): its edge marginals against a
long-chain MC3 reference, by number of variables d, on study 6's synthetic data.

    python benchmarks/bench_gfn_by_d.py [--nodes 5 6 7 8 9 10] [--seeds 0 1 2] [--rows 200]
                                        [--options '{"gfn_steps": 150000}'] [--draws 1000]
                                        [--reference 100000:200:2500] [--sachs]

Per d and seed: study 6's synthetic linear-Gaussian data (``studies.bayesian_cd_ate.data.synthetic``:
d expected edges, notebook 6's ``noise_sd``, ``--rows`` rows, z-scored as study 6 scores them), and with ``--sachs``
also Sachs (d = 11, its 853 rows; the seed is then the method's only, and one reference serves every
seed). On each, the reference check of study 6 (:func:`causaleval.bayes.check.reference_check`): two MC3 chains
(``burn_in:thin:draws`` of ``--reference``, seeds :data:`causaleval.bayes.check.REFERENCE_SEEDS`) pooled as the
reference, and ``dag_gflownet`` at its defaults updated by ``--options`` (the data seed is the method's seed),
``--draws`` DAGs. Columns as that function's: ``max error`` is the largest edge-marginal error against the
reference and ``max floor`` that of as many independent draws; ``within floor`` when both the max and
the mean error are at most twice their floors. ``reference converged`` says whether the two chains
agree (when not, the row cannot tell). Printed, and written to ``benchmarks/results/bench_gfn_by_d.csv``.

A trial is chaotic in its numerics: the same options and seed give another result when the XLA dots
are not the kit's pinned ones (:func:`causaleval.numenv.pin_jax`, which :func:`sample_posterior`
applies), so judge an option on several seeds, never on one.

Measured on the project's 2-core machine, 2026-11-27, with the target network of the defaults
before e5efe42 (``--options '{"gfn_target_every": 1000}'`` today: the MLP policy, 50,000 steps,
learning rate cosine 1e-3 to 1e-5; 0.4-0.8 ms an iteration at d = 5-10), one run beside another job.
``within`` is ``within floor``; every reference converged but two at d = 10 (marked "no"), whose rows
cannot tell:

| d | seed | reference edges | DAG-GFlowNet edges | max error | max floor | within |
| ---: | ---: | ---: | ---: | ---: | ---: | --- |
| 5 | 0 | 4.5 | 4.5 | 0.021 | 0.023 | yes |
| 5 | 1 | 4.4 | 4.4 | 0.022 | 0.026 | yes |
| 5 | 2 | 1.9 | 1.9 | 0.040 | 0.027 | yes |
| 6 | 0 | 6.7 | 6.5 | 0.042 | 0.024 | no (mean error 0.011 against 0.006) |
| 6 | 1 | 5.0 | 4.9 | 0.026 | 0.023 | yes |
| 6 | 2 | 5.9 | 5.8 | **0.210** | 0.027 | no |
| 7 | 0 | 4.7 | 4.6 | 0.026 | 0.031 | yes |
| 7 | 1 | 7.1 | 7.0 | 0.052 | 0.024 | no |
| 7 | 2 | 6.2 | 6.1 | **0.112** | 0.031 | no |
| 8 | 0 | 7.0 | **22.4** | **0.849** | 0.028 | no |
| 8 | 1 | 7.7 | **9.8** | **0.499** | 0.027 | no |
| 8 | 2 | 6.5 | 6.3 | 0.043 | 0.034 | yes |
| 9 | 0 | 9.0 | **29.0** | **0.976** | 0.031 | no |
| 9 | 1 | 12.4 | **34.4** | **1.000** | 0.029 | no |
| 9 | 2 | 14.5 | **35.3** | **0.993** | 0.027 | no |
| 10 | 0 | 11.0 (no) | **45.0** | **0.978** | 0.037 | no |
| 10 | 1 | 16.7 | **37.7** | **0.987** | 0.040 | no |
| 10 | 2 | 12.3 (no) | **33.6** | **0.924** | 0.041 | no |

So with the target network the kit's DAG-GFlowNet samples the posterior at d = 5, misses on some
data sets from d = 6 (largest edge error up to 0.21, with the right number of edges), and from d = 8
drifts to dense graphs (two to four times the reference's edges), on every data set from d = 9.
Whether a trial drifts depends on its random numbers too: on the d = 8, seed 0 data with the method's
seed 1 or 2 instead, it gives 7.0 and 28.0 edges.

Without the target network (the full gradient of the loss, the defaults since e5efe42; ``--nodes 5 6
7 8 9``, measured 2026-11-28 on the same machine beside another job, at ff54f38; the same numbers
as a run through the patched library the day before):

| d | seed | reference edges | DAG-GFlowNet edges | max error | max floor | within |
| ---: | ---: | ---: | ---: | ---: | ---: | --- |
| 5 | 0 | 4.5 | 4.5 | 0.016 | 0.023 | yes |
| 5 | 1 | 4.4 | 4.4 | 0.019 | 0.026 | yes |
| 5 | 2 | 1.9 | 1.9 | 0.040 | 0.027 | yes |
| 6 | 0 | 6.7 | 6.7 | 0.022 | 0.024 | yes |
| 6 | 1 | 5.0 | 5.0 | 0.025 | 0.023 | yes |
| 6 | 2 | 5.9 | 5.9 | 0.029 | 0.027 | yes |
| 7 | 0 | 4.7 | 4.6 | 0.019 | 0.031 | yes |
| 7 | 1 | 7.1 | 7.2 | 0.041 | 0.024 | yes |
| 7 | 2 | 6.2 | 6.2 | 0.034 | 0.031 | yes |
| 8 | 0 | 7.0 | 7.1 | 0.040 | 0.028 | yes |
| 8 | 1 | 7.7 | 7.8 | 0.047 | 0.027 | yes |
| 8 | 2 | 6.5 | 6.4 | 0.041 | 0.034 | yes |
| 9 | 0 | 9.0 | 9.6 | **0.077** | 0.031 | no |
| 9 | 1 | 12.4 | **31.7** | **0.755** | 0.029 | no |
| 9 | 2 | 14.5 | **18.7** | **0.743** | 0.027 | no |

So every data set is within up to d = 8 (at 100,000 steps too: 0.019-0.042), and none at d = 9: seed 1
still drifts to dense graphs, and on seed 2 the reference holds X3 -> X7 <- X4 at 0.85 where
DAG-GFlowNet puts 4 -> 7 at 0.08-0.14 (a missed mode). 150,000 steps give 0.44 and 0.69 on seeds 1
and 2. At d = 10 (measured the day before) none is within (0.44-0.73; 12.4, 44.0 and 16.1 edges). On
Sachs (``--sachs``, seeds 0-2) the largest error is 0.40, 0.73 and 0.32 at 50,000 steps and 0.125,
0.083 and 0.060 at 100,000 (11.2, 10.5 and 11.4 edges against the reference's 10.6), against a floor
of 0.025-0.036.
Options tried at d = 9 (``--nodes 9``, seeds 0-2, 2026-11-28 at 7b79b82, alone on the machine; the
defaults reproduce the table above to the digit), max error on seeds 0, 1 and 2 (DAG-GFlowNet's mean
edges on seeds 1 and 2, against the reference's 12.4 and 14.5):

| ``--options`` | seed 0 | seed 1 | seed 2 | edges, seeds 1 and 2 |
| --- | ---: | ---: | ---: | --- |
| (defaults) | 0.077 | 0.755 | 0.743 | 31.7, 18.7 |
| ``{"gfn_batch": 128}`` | 0.073 | 0.774 | 0.714 | 27.4, 18.3 |
| ``{"gfn_lr": 3e-4}`` | 0.137 | 0.971 | 0.694 | 17.0, 34.5 |
| ``{"gfn_width": 256, "gfn_layers": 3}`` | 0.086 | 0.970 | 0.737 | 15.8, 17.6 |
| ``{"gfn_min_exploration": 0.5}`` | 0.773 | 0.888 | 0.622 | 33.8, 35.6 (seed 0: 36.0) |
| ``{"gfn_min_exploration": 0.0}`` | 0.059 (within) | 0.894 | 0.878 | 33.4, 18.0 |
| ``{"gfn_min_exploration": 0.02, "gfn_steps": 100000}`` | 0.064 | 0.831 | 0.712 | 32.2, 30.3 |
| ``{"gfn_prefill": 0}`` | 0.069 | 0.847 | 0.728 | 16.0, 19.4 |
| ``{"gfn_replay": 10000}`` | 0.058 (within) | 0.966 | 0.814 | 15.6, 17.2 |
| ``{"gfn_steps": 300000}`` | not run | 0.551 | 0.608 | 23.1, 15.6 |
| ``{"gfn_steps": 300000, "gfn_batch": 128}`` | not run | 0.945 | (stopped) | 35.7 |
| ``{"gfn_envs": 32}`` | not run | 0.980 | 0.742 | 16.0, 16.1 |

The two rows of 300,000 steps (``--seeds 1 2``) ran on 2026-11-28 at e8ffaaa, two runs side by side,
about 3.5 and 7.5 minutes a data set; the second was stopped before seed 2. The last row (``--seeds 1
2``, 2026-11-29 at 3349927, alone, about 2 minutes a data set) grows 32 graphs at once instead of 8:
fewer edges on seed 1 (16.0 against 31.7), the same misses. None brings seeds 1 and 2 within:
six times the steps lower the largest error (0.755 and 0.743 at 50,000; 0.44 and 0.69 at 150,000;
0.55 and 0.61 at 300,000) but slowly and not monotonically. More exploration makes every sample
denser (at 0.5, 34-36 of the 36 possible edges): the sampler's graphs depend on the states the loss
was trained on, so the detailed-balance errors are not small on the states the sampler passes through.
Tried and not kept (2026-11-28, branch ``next/gfn-lookahead``, not merged; most runs beside the
regeneration of study 6): a look-ahead policy, whose log-odds of adding edge e against stopping are the
network's output plus e's BGe delta score and log P_B (the untrained policy adds e with the one-step
reward ratio R(G + e) P_B / R(G)), the deltas kept per state and recomputed for the changed node only.
Untrained it is not dense at d = 9: 6.3, 11.8 and 12.6 edges on seeds 0-2 (the references 9.0, 12.4 and
14.5). Trained with the defaults' exploration it drifts to near-complete graphs (31.8, 35.1 and 35.0 of
the 36 possible edges; largest error 0.72, 0.90 and 0.92), and with a constant 5% of uniform actions too
(25.0, 16.5 and 35.3 edges; 0.89, 0.75 and 0.92). Trained on its own actions only (no prefill, no
uniform action: the branch's probe-only switch) it stays sparse: largest error 0.102, 0.124 and 0.851
(7.1, 10.9 and 12.9 edges; on seed 2 every sample orients 0 - 8 as 0 -> 8, which the reference holds at
0.149) and 0.279 on Sachs (8.7 edges against 10.6; 50,000 steps each). The same on-policy training
without the look-ahead is denser than the references (seeds 1 and 2: 15.4 and 19.2 edges; 1.00 and
0.83). With the look-ahead and a constant 20% of actions drawn from the policy tempered at T = 3 (not
uniformly; the branch's other probe-only switch): 0.105, 0.142 and 0.851 (7.2, 11.3 and 13.2 edges), the
same. So the uniform exploration feeds the drift and the look-ahead start lets training do without it,
but trained on its own actions it fixes an orientation one way (seed 2; 0.851 with the tempered policy
too). On Sachs at 100,000 steps (seeds 0-2, on-policy) it gives 0.278, 0.270 and 0.254 with 8.6-8.7
edges against the reference's 10.6: worse than the defaults' 0.125, 0.083 and 0.060, about two edges
per sample fewer than the reference.
Where it misses at d = 9 (2026-11-29 at 4c6de35, beside the full check; probes outside the kit, not
kept): on seed 1 the reference holds a collider of four parents, X4, X5, X7, X8 -> X1, each at 1.00;
the defaults' samples hold them at 0.47, 0.28, 0.64 and 0.41 and put 0.2-0.7 on most absent edges
(the largest error, 0.755, is an absent edge, X7 -> X8 at 0.78; X5 -> X1 misses by 0.72), and score
60 nats below MC3's on average (BGe, -2,088 against -2,027 over 200 samples each). Seed 2's miss is
also a collider (X3 -> X7 <- X4, above). A single edge of a collider is score-equivalent in either
direction, so building a graph one edge at a time it pays only once two or more parents are in:
credit over several steps, which a detailed-balance loss passes on one transition at a time. The
minibatch loss (``_gfn_jax.train``'s trace, means over 5,000 updates) shows it: at d = 8, seed 0 it
is 0.66-0.90 from 5,000 to 30,000 updates (exploration reaches its floor at 25,000), then 0.17 over
the next 5,000 and 0.06 by the end, the share of stop actions rising to the reference's 1 in 8; at
d = 9, seed 1 it is still 0.71 after 50,000 updates, 1 action in 20 a stop. Not helping at d = 9
(largest error on seeds 1 and 2; the defaults 0.755 and 0.743; the learning rate by ``--options
'{"gfn_lr": 3e-3}'``, the others by a modified copy of ``_gfn_jax`` that the kit does not hold): a
reward tempered as ``R^beta``, beta rising geometrically from 0.01 to 1 over the first half of the
updates, 0.98 and 0.69 (15.9 and 17.4 edges); from 0.1 over the first 80%, 0.997 and 0.772 (seed 0:
0.078); a learning rate of 3e-3, 0.85 and 0.73; exploration falling over the first 10% of the updates
instead of 50%, 0.99 and 0.73.
Sub-trajectory balance (Madan et al. 2023) in place of detailed balance does not help either (2026-11-29
at 4154223, alone on the machine; a probe outside the kit, not kept). Whole trajectories were stored
(actions and delta scores), and the loss was taken over a window of up to ``K`` transitions from a
random start. Each (a, b) sub-window in it was weighted lambda^(b - a), and its residual was the sum of
the kit's detailed-balance residuals, whose stop terms telescope. Everything else was the defaults.
K = 6, lambda 0.9: 0.881 and 0.713 (16.3 and 17.0 edges; 2.5 min a data set). K = 12, lambda 0.99:
0.935 and 0.690 (17.3 and 17.8 edges; 4.5 min). So it stops the drift to dense graphs (31.7 edges
on seed 1 at the defaults) but not the miss: credit over a window of transitions alone does not find
seed 1's four-parent collider.
Prioritized replay of the best graphs found (Shen et al. 2023's "PRT", 2026-12-01 at ab542f7, seeds 1 and 2
side by side on the two cores; a probe outside the kit, not kept) does not help either. The 32 best
terminal graphs the environments reached, scored by their summed delta scores, were kept. Each iteration
then pushed ``NB`` transitions into the replay buffer beside the environments' own: each came from a random
kept graph, the first ``k`` edges of a uniformly random order of its edges, then edge ``k + 1``, so it lay
on a backward trajectory of the uniform ``P_B``. Loss and target unchanged. ``NB`` 8: largest error 0.244
and 0.820 (13.8 and 34.8 edges); ``NB`` 24: 0.371 and 0.739 (14.2 and 36.0 edges, the complete DAGs on
seed 2); ``NB`` 8 with ``{"gfn_min_exploration": 0.0}``: 0.796 and 0.873 (30.9 and 34.1 edges). So replaying
the best graphs' paths brings seed 1's density down in one setting, but seed 2 still drifts to dense
graphs, and no setting is within.
At d = 20 (``--nodes 20 --rows 20 --seeds 0 --reference 100000000:10000:10000``: 20 expected edges, so
not study 6's data set of 40, n = 20; two runs side by side on 2026-12-01 at d8387bb, chains that agree)
the defaults give 48.9 edges against the reference's 59.2, largest error 0.385 (mean 0.063) against a
floor of 0.038 (0.008), and the authors' 100,000 steps (``{"gfn_steps": 100000}``) 51.1 edges, 0.332
(mean 0.042): twice the training moves it a little towards the reference, not within.
The authors' own settings (their transformer with a target network) are not a row here: they take 1.4 s
an iteration at d = 5 and 2.9 s at d = 9 on this machine, 38 and 82 hours a trial
(``bench_gfn_network_cost.py``), so whether their method fails here too cannot be checked on a CPU.
For d >= 10 give a longer ``--reference`` (e.g. ``200000:500:2500``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import pandas as pd

from causaleval import params, paths
from causaleval.bayes import check
from causaleval.studies.bayesian_cd_ate.data import sachs, standardised, synthetic

COLUMNS = ["data", "d", "seed", "edges", "reference edges", "max error", "max floor", "mean error", "mean floor",
           "within floor", "reference converged", "seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", nargs="+", type=int, default=[5, 6, 7, 8, 9, 10])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--options", type=json.loads, default={}, help="dag_gflownet options, a JSON object")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--reference", default="100000:200:2500", help="burn_in:thin:draws of each MC3 chain")
    parser.add_argument("--sachs", action="store_true", help="also Sachs (d = 11), once per seed")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "bench_gfn_by_d.csv"))
    args = parser.parse_args()
    burn_in, thin, n_draws = (int(x) for x in args.reference.split(":"))
    noise_sd = params.defaults(paths.NOTEBOOKS / "06_bayesian_cd_ate.ipynb")["noise_sd"]
    data_sets = [({"data": "synthetic", "d": d, "seed": seed},
                  standardised(synthetic(seed, args.rows, d, float(d), noise_sd)[1]))
                 for d in args.nodes for seed in args.seeds]
    if args.sachs:
        data_sets += [({"data": "sachs", "d": 11, "seed": seed}, sachs()[1]) for seed in args.seeds]
    references: dict[tuple, check.Reference] = {}  # Sachs's data are the same for every seed: one reference
    rows = []
    for labels, data in data_sets:
        key = ("sachs",) if labels["data"] == "sachs" else (labels["d"], labels["seed"])
        if key not in references:
            references[key] = check.long_chain_reference(data, burn_in=burn_in, thin=thin, n_draws=n_draws)
        row = check.reference_check(["dag_gflownet"], [(labels, data)], n_draws=args.draws, options=args.options,
                                    reference=[references[key]])
        rows.append(row[COLUMNS].round(3))
        print(rows[-1].to_dict("records")[0], flush=True)
    table = pd.concat(rows, ignore_index=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(f"options {args.options}")
    print(table.to_markdown(index=False))


if __name__ == "__main__":
    main()
