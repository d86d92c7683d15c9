"""The ATE stage of study 6: every ordered pair x posterior DAGs x seeds at d = 20.

    python benchmarks/bench_ate.py [--seeds 26] [--dags 1000] [--anchor-dags 20] [--n 100] [--posterior mc3]

Emezue et al. (2023) ran ``d (d - 1) x 1,000 DAGs x 26 seeds`` ATE estimations per method
(9.9 million at d = 20; 57 million for six methods) through DoWhy, on a cluster. Here, per
seed: the synthetic data set of study 6 (``S.synthetic``, ``n`` rows) and ``--dags`` posterior
DAGs, either (``--posterior mc3``) from the kit's MC3 with the BGe score (the densest posteriors
of the study, nearly all DAGs distinct: the worst case for the caches) or (``--posterior mec``)
drawn uniformly from the true graph's Markov equivalence class (a posterior that has
concentrated on the right class: the best case). Timed: the kit's
:class:`causaleval.effects.ate.LinearATE` on the distinct DAGs (the compiled adjustment-set
search over all of them at once, one regression per (T, Y, Z), batched solves), expanded to all
DAGs, after one warm-up call (the search's compilation, cached on disk). Printed: seconds, the
effects asked for and the regressions actually solved.

Anchor, in the same run: the naive per-(DAG, pair) computation, no cache -- the same
back-door set rule in bit masks (:func:`ate.backdoor_set`, the compiled search's reference) and one
``numpy.linalg.lstsq`` per pair with a directed path -- on the first ``--anchor-dags`` DAGs of the first seed,
extrapolated per estimation; the script checks that both give the same effects (to 1e-9). MC3 sampling time
is not part of either.
"""

from __future__ import annotations

import argparse
import time

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np

from causaleval.effects import ate
from causaleval.bayes import posteriors
from causaleval.graphs import bitsets
from causaleval.graphs.extensions import mec_members
from causaleval.graphs import to_cpdag
from causaleval.studies import bayesian_cd_ate as S

OPTIONS = dict(pc_alpha=0.05, ges_score="bic", cpdag_rule="random_extension", mc3_burn_in=5000, mc3_thin=20)


def naive(data: np.ndarray, dags: np.ndarray) -> np.ndarray:
    d = data.shape[1]
    pairs = [(t, y) for t in range(d) for y in range(d) if t != y]
    out = np.zeros((len(dags), len(pairs)))
    for k, dag in enumerate(dags):
        parents = bitsets.parent_masks(dag)
        for j, (t, y) in enumerate(pairs):
            z = ate.backdoor_set(parents, t, y)
            if z is not None:
                out[k, j] = ate.lstsq_effect(data, t, y, z)
    return out


def kit(data: np.ndarray, dags: np.ndarray) -> tuple[np.ndarray, ate.LinearATE]:
    flat = dags.reshape(len(dags), -1)
    _, first, inverse = np.unique(flat, axis=0, return_index=True, return_inverse=True)
    estimator = ate.LinearATE(data)
    effects = estimator.effects(dags[first])
    return effects[inverse.reshape(-1)], estimator


def posterior(kind: str, seed: int, n: int, dags: int) -> tuple[np.ndarray, np.ndarray]:
    """The data of seed ``seed`` and ``dags`` DAGs of the chosen kind (module notes)."""
    truth, frame = S.synthetic(seed, n, 20, 40, 0.1)
    if kind == "mc3":
        return frame.to_numpy(), posteriors.sample_posterior("mc3", frame, n_samples=dags, seed=seed, options=OPTIONS)
    members = np.stack([m.directed_matrix() for m in mec_members(to_cpdag(truth))])
    return frame.to_numpy(), members[np.random.default_rng(seed).integers(len(members), size=dags)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=26)
    ap.add_argument("--dags", type=int, default=1000)
    ap.add_argument("--anchor-dags", type=int, default=20)
    ap.add_argument("--n", type=int, default=100, help="rows of each synthetic data set")
    ap.add_argument("--posterior", choices=("mc3", "mec"), default="mc3")
    a = ap.parse_args()
    kit(*posterior("mec", 0, a.n, 2))  # warm-up: the compiled search
    total = requested = solved = distinct = 0
    anchor_per_effect = None
    for seed in range(a.seeds):
        data, dags = posterior(a.posterior, seed, a.n, a.dags)
        start = time.process_time()
        effects, est = kit(data, dags)
        seconds = time.process_time() - start
        total += seconds
        requested += effects.size
        solved += est.solved
        distinct += len(np.unique(dags.reshape(len(dags), -1), axis=0))
        if seed == 0 and a.anchor_dags:
            start = time.process_time()
            reference = naive(data, dags[:a.anchor_dags])
            anchor_per_effect = (time.process_time() - start) / reference.size
            if not np.allclose(reference, effects[:a.anchor_dags], rtol=1e-9, atol=1e-9):
                raise SystemExit("the kit's effects differ from the naive computation")
        print(f"seed {seed:2d}: {seconds:7.2f} s, {effects.size:,} effects, {est.solved:,} regressions", flush=True)
    print(f"\n{a.posterior} posteriors -- kit: {total:.1f} CPU s for {requested:,} (DAG, pair) effects "
          f"over {a.seeds} seeds x {a.dags} DAGs "
          f"({distinct:,} distinct); {solved:,} regressions solved "
          f"({solved / requested:.4f} per effect)")
    if anchor_per_effect is not None:
        naive_total = anchor_per_effect * requested
        print(f"naive per-(DAG, pair) search + lstsq: {anchor_per_effect * 1e6:.1f} us per effect on "
              f"{a.anchor_dags} DAGs x 380 pairs -> {naive_total:.0f} CPU s extrapolated; "
              f"kit speed-up {naive_total / total:.1f}x (effects equal to 1e-9)")


if __name__ == "__main__":
    main()
