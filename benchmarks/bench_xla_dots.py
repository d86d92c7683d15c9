"""The cost of same numbers on every machine for study 6's JAX-trained methods: each of DiBS,
BCD Nets and DAG-GFlowNet timed with XLA's dots compiled as calls of the pinned OpenBLAS
(:func:`causaleval.numenv.pin_jax`, :mod:`causaleval.xla_dots`; YNNPACK and XNNPACK fusions off:
the kit's setting) and with XLA's own dot kernels (Eigen with oneDNN's sgemm, YNNPACK: the
anchor, which picks kernels by processor), side by side in one run, as a ratio.

    python benchmarks/bench_xla_dots.py [--methods dag_gflownet bcd_nets dibs]

Data: study 6's synthetic setting at the paper's size (d = 20, n = 100, 40 expected edges, noise
sd 0.1, seed 0, z-scored). Settings shortened so the run takes minutes: DAG-GFlowNet 2,000
training steps, BCD Nets 500, DiBS 20 particles for 50 steps; 100 DAGs drawn. Each method and
variant runs in a fresh process (XLA reads its flags once, and the lowering is set per process);
the time is the wall time of ``sample_posterior`` in that process, compiling included.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

SHORT = {"dag_gflownet": {"gfn_steps": 2000}, "bcd_nets": {"bcd_steps": 500},
         "dibs": {"dibs_steps": 50, "dibs_particles": 20}}
KIT_ONLY = ("--xla_cpu_experimental_ynn_fusion_type=", "--xla_cpu_experimental_xnn_fusion_type=")


def _one(method: str, variant: str) -> float:
    """Seconds of ``sample_posterior(method)`` in this process; ``variant`` 'library' undoes the
    kit's dots (its lowering and its two fusion flags) before JAX starts."""
    import os

    from causaleval import numenv

    if variant == "library":
        os.environ["XLA_FLAGS"] = " ".join(f for f in os.environ["XLA_FLAGS"].split() if f not in KIT_ONLY)
        numenv.pin_jax = lambda: False
    from causaleval.bayes import sample_posterior
    from causaleval.studies.bayesian_cd_ate.data import standardised, synthetic

    _, data = synthetic(0, 100, 20, 40.0, 0.1)
    start = time.perf_counter()
    sample_posterior(method, standardised(data), n_samples=100, seed=0, options=SHORT[method])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", nargs="+", default=list(SHORT), choices=list(SHORT))
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_one(*args.child)))
        return
    print("| method | settings | XLA's dot kernels (s) | kit's pinned dots (s) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for method in args.methods:
        seconds = {}
        for variant in ("library", "pinned"):
            done = subprocess.run([sys.executable, __file__, "--child", method, variant], capture_output=True,
                                  text=True, check=True)
            seconds[variant] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"| {method} | {SHORT[method]} | {seconds['library']:.1f} | {seconds['pinned']:.1f} | "
              f"{seconds['pinned'] / seconds['library']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
