"""XLA's CPU thread pool when two trials run side by side: study 6's JAX methods with the pool XLA
sizes from the processor (the kit today) against a pool of one thread, as a ratio in one run.

    python benchmarks/bench_xla_pool.py [--methods dag_gflownet dibs bcd_nets] [--workers 2]

XLA sizes the thread pool that runs a compiled program on the CPU by the processors the process may
use (its affinity mask, read when JAX's CPU client is created; jax-ml/jax#1539). The kit's numerical
environment (:mod:`causaleval.numenv`) keeps Eigen to one thread, but this pool stays: on the project's
2-core machine every JAX method runs on two pool threads, and study 6's two trial workers then ask
for four threads on two cores. Here each method runs ``--workers`` processes at once, started
together, in two modes:

* ``processor``: XLA's own pool (two threads on two cores), as every kit process runs today;
* ``one``: a pool of one thread, made by restricting the process to one processor while JAX's
  CPU client is created and then giving every thread of the process its whole mask back (the pool
  keeps its size, the operating system still places the threads on any core).

Each process draws 100 DAGs (DiBS 20, one particle each) from the method on study 6's synthetic data
of seed 0 at its notebook's defaults (d = 20 and its first sample size, n = 20; z-scored, as study 6
scores them), method seed 0, at shortened settings (DAG-GFlowNet 10,000 iterations, DiBS 200 steps,
BCD Nets its default 2,000 steps), through :func:`causaleval.bayes.posteriors.sample_posterior`,
timed once JAX's CPU client exists, in both modes. Printed per method and mode: the slowest process's
wall seconds, the mean CPU seconds a process, XLA pool threads, and the ratio of the two modes' wall
times. The script fails (exit 1) if any process's DAGs differ from the first one's: the pool's size
must not change a number.

Measured results: ``benchmarks/README.md``. In three runs one pool thread ran DAG-GFlowNet 1.19-1.47
times faster side by side, BCD Nets 1.07-1.16 and DiBS 0.85-1.12 (slower in one run), with the same
DAGs; one process alone is faster with XLA's own pool. So a one-thread pool in the kit's trial
workers, when they fill the processors, would pay for DAG-GFlowNet; not done yet.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

OPTIONS = {"dag_gflownet": {"gfn_steps": 10_000}, "dibs": {"dibs_steps": 200}, "bcd_nets": {}}
SAMPLES = {"dag_gflownet": 100, "dibs": 20, "bcd_nets": 100}  # DiBS runs one particle per DAG
MODES = ("processor", "one")


def pool_of_one() -> None:
    """Create JAX's CPU client while this process may use one processor only, so that XLA's pool
    has one thread, then give every thread of the process its whole affinity mask back."""
    mask = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(mask)})
    import jax

    jax.devices("cpu")
    for task in os.listdir("/proc/self/task"):
        os.sched_setaffinity(int(task), mask)


def pool_threads() -> int:
    """Threads of this process that XLA's CPU pool runs (named ``tf_XLAEigen``)."""
    names = [Path(f"/proc/self/task/{task}/comm").read_text().strip() for task in os.listdir("/proc/self/task")]
    return names.count("tf_XLAEigen")


def worker(mode: str, method: str) -> None:
    """One process of the benchmark: draw the DAGs, print a JSON line."""
    if mode == "one":
        pool_of_one()
    else:
        import jax

        jax.devices("cpu")  # the client in both modes before the clock starts
    from causaleval import params, paths
    from causaleval.bayes import posteriors
    from causaleval.studies.bayesian_cd_ate.data import standardised, synthetic

    study = params.defaults(paths.NOTEBOOKS / "06_bayesian_cd_ate.ipynb")
    data = standardised(synthetic(0, study["sample_sizes"][0], study["n_nodes"], study["expected_edges"],
                                  study["noise_sd"])[1])
    wall, cpu = time.perf_counter(), time.process_time()
    dags = posteriors.sample_posterior(method, data, n_samples=SAMPLES[method], seed=0, options=OPTIONS[method])
    print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                      "threads": pool_threads(), "sha256": hashlib.sha256(dags.tobytes()).hexdigest()}))


def side_by_side(mode: str, method: str, workers: int) -> list[dict]:
    """``workers`` processes of ``worker(mode, method)`` started together; their JSON lines."""
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", mode, method], stdout=subprocess.PIPE, text=True)
             for _ in range(workers)]
    outs = [proc.communicate()[0] for proc in procs]
    if any(proc.returncode for proc in procs):
        sys.exit(f"{method} ({mode}): a worker failed")
    return [json.loads(out.strip().splitlines()[-1]) for out in outs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--methods", nargs="+", choices=sorted(OPTIONS), default=list(OPTIONS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker", nargs=2, metavar=("MODE", "METHOD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    differ = []
    print("| method | XLA pool | threads | slowest wall s | CPU s a process | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for method in args.methods:
        runs = {mode: side_by_side(mode, method, args.workers) for mode in MODES}
        walls = {mode: max(r["wall"] for r in rows) for mode, rows in runs.items()}
        for mode, rows in runs.items():
            ratio = f"{walls['processor'] / walls['one']:.2f}" if mode == "one" else ""
            print(f"| {method} | {mode} | {rows[0]['threads']} | {walls[mode]:.1f} | "
                  f"{sum(r['cpu'] for r in rows) / len(rows):.1f} | {ratio} |", flush=True)
        if len({r["sha256"] for rows in runs.values() for r in rows}) != 1:
            differ.append(method)
    if differ:
        sys.exit(f"the DAGs differ between processes or pool sizes: {', '.join(differ)}")
    print("every process drew the same DAGs in both modes")


if __name__ == "__main__":
    main()
