"""PC-stable: the kit's ``causaleval.learn.pc`` vs causal-learn's ``pc`` (Fisher z, chi-square, G-square),
time and result.

    python benchmarks/bench_pc.py [--seeds 5] [--alpha 0.05] [--only fisherz|discrete]

Data: linear Gaussian samples of random DAGs (upper-triangular weights uniform in
[0.3, 2] with a random sign, each edge kept with probability edges / (d (d - 1) / 2),
standard normal noise, seed ``0 .. seeds - 1``), at study 6's sizes d = 20 with 40 expected
edges and n = 20, 100, 1000, and a sparser, larger d = 40 with 40 expected edges (n = 200)
and a denser d = 40 with 80 (n = 1000). Both sides get the same array; printed: seconds per
run (one BLAS thread, as the kit fixes it: causaleval.numenv), the ratio causal-learn / kit, and how
many CPDAGs differ, which must be none (exit 1 otherwise).

Discrete (``chisq`` and ``gsq``, each data set run with both): study 1's samples of asia
(``smoke`` latent, as its Table 1 learns, and in full) at its notebook's sample sizes 10,000
and 1,000 (``draw_samples`` with seeds ``0 .. seeds - 1``, as the sweep draws them), and random
binary networks of 20 and 40 nodes as study 2 draws them (``random_dag`` with E[N] = 2,
``dirichlet_network`` with concentration 1, ``forward_sample``; seed ``0 .. seeds - 1``) at its
n = 5,000 and at n = 1,000. Constant columns are dropped first, as the ``pc`` learner does.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval.graphs import CausalGraph
from causaleval.learn.pc import pc_discrete, pc_fisher_z

SETTINGS = [(20, 20, 40), (20, 100, 40), (20, 1000, 40), (40, 200, 40), (40, 1000, 80)]
#: (label, source, n): study 1's asia samples, random binary networks of d nodes
DISCRETE = [("asia, smoke latent", "mag", 10_000), ("asia, smoke latent", "mag", 1_000),
            ("asia", "asia", 10_000), ("asia", "asia", 1_000),
            ("random, d = 20", 20, 5_000), ("random, d = 20", 20, 1_000),
            ("random, d = 40", 40, 5_000), ("random, d = 40", 40, 1_000)]


def sample(d: int, n: int, edges: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.3, 2.0, (d, d)) * rng.choice([-1, 1], (d, d))
    w = np.triu(weights * (rng.random((d, d)) < edges / (d * (d - 1) / 2)), 1)
    x = rng.normal(size=(n, d)) @ np.linalg.inv(np.eye(d) - w)
    return pd.DataFrame(x, columns=[f"x{i}" for i in range(d)])


def causallearn_pc(data: pd.DataFrame, alpha: float, test: str = "fisherz") -> CausalGraph:
    from causallearn.search.ConstraintBased.PC import pc as cl_pc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = cl_pc(data.to_numpy(float), alpha, test, stable=True, uc_rule=0, uc_priority=2,
                       show_progress=False, node_names=list(data.columns))
    return CausalGraph.from_causallearn(result.G)


def discrete_sample(source: str | int, n: int, seed: int) -> pd.DataFrame:
    if isinstance(source, int):
        from causaleval.effects.sampling import dirichlet_sample

        data = dirichlet_sample(source, 2.0, 2, n, seed)[1]
    else:
        from causaleval.datasets.networks import draw_sample

        data = draw_sample("asia", ["smoke"] if source == "mag" else [], n, 1, 0, seed)
    return data.loc[:, data.nunique() > 1]


def fisher_z_table(args: argparse.Namespace) -> int:
    differ = 0
    print(f"{'d':>3} {'n':>5} {'edges':>5} {'kit s/run':>10} {'causal-learn s/run':>18} {'ratio':>6} differ")
    for d, n, edges in SETTINGS:
        kit, ref, bad = side_by_side([sample(d, n, edges, seed) for seed in range(args.seeds)],
                                     lambda data: pc_fisher_z(data, args.alpha),
                                     lambda data: causallearn_pc(data, args.alpha))
        differ += bad
        print(f"{d:>3} {n:>5} {edges:>5} {kit / args.seeds:>10.4f} {ref / args.seeds:>18.4f} "
              f"{ref / kit:>6.1f} {bad}")
    return differ


def side_by_side(datasets: list[pd.DataFrame], kit_pc, reference_pc) -> tuple[float, float, int]:
    """CPU seconds of the kit's and the reference PC summed over ``datasets``, and how many
    of their CPDAGs differ."""
    kit = ref = 0.0
    bad = 0
    for data in datasets:
        t = time.process_time()
        ours = kit_pc(data)
        kit += time.process_time() - t
        t = time.process_time()
        theirs = reference_pc(data)
        ref += time.process_time() - t
        bad += not np.array_equal(ours.matrix, theirs.matrix)
    return kit, ref, bad


def discrete_table(args: argparse.Namespace) -> int:
    differ = 0
    print(f"{'data':>20} {'n':>6} {'test':>5} {'kit s/run':>10} {'causal-learn s/run':>18} {'ratio':>6} differ")
    for label, source, n in DISCRETE:
        samples = [discrete_sample(source, n, seed) for seed in range(args.seeds)]
        for test in ("chisq", "gsq"):
            kit, ref, bad = side_by_side(samples, lambda data: pc_discrete(data, args.alpha, test),
                                         lambda data: causallearn_pc(data, args.alpha, test))
            differ += bad
            print(f"{label:>20} {n:>6} {test:>5} {kit / args.seeds:>10.4f} {ref / args.seeds:>18.4f} "
                  f"{ref / kit:>6.1f} {bad}")
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--only", choices=["fisherz", "discrete"])
    args = parser.parse_args()
    pc_fisher_z(sample(5, 50, 5, 0), args.alpha)  # warm-up (imports)
    causallearn_pc(sample(5, 50, 5, 0), args.alpha)
    warm = discrete_sample(6, 100, 0)
    pc_discrete(warm, args.alpha)
    causallearn_pc(warm, args.alpha, "chisq")
    differ = 0
    if args.only != "discrete":
        differ += fisher_z_table(args)
    if args.only != "fisherz":
        differ += discrete_table(args)
    if differ:
        print(f"FAIL: {differ} CPDAGs differ from causal-learn's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
