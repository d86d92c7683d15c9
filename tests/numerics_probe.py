"""One small computation of each kind whose outputs depended on the processor (issue: "same numbers
on every machine"), run through the kit's entry points; prints a JSON object of exact results
(floats as hex, graphs as edge lists) and of the numerical environment each process saw.

    python tests/numerics_probe.py [--jax] [--dask]
    python tests/numerics_probe.py --dots    (XLA's dots alone: fast enough for an emulated processor)

Run by tests/test_numerics.py in subprocesses started with other BLAS kernels and XLA settings
already in their environment, as another machine or a user's shell would give them.
"""

import causaleval  # noqa: F401,I001  (the kit's entry point: fixes the numerical environment first)

import json
import sys

import numpy as np


def _environment() -> dict:
    from threadpoolctl import threadpool_info

    import os

    return {"blas": sorted({info.get("architecture") or "" for info in threadpool_info()}),
            "threads": sorted({info["num_threads"] for info in threadpool_info()}),
            "xla": os.environ.get("XLA_FLAGS"), "numba": os.environ.get("NUMBA_CPU_NAME")}


def _gaussian(d: int, n: int, seed: int) -> "pd.DataFrame":
    import pandas as pd

    rng = np.random.default_rng(seed)
    weights = np.triu(rng.uniform(0.5, 1.5, (d, d)) * (rng.random((d, d)) < 0.4), 1)
    x = rng.normal(size=(n, d)) @ np.linalg.inv(np.eye(d) - weights)
    return pd.DataFrame(x, columns=[f"x{i}" for i in range(d)])


def _posterior(name: str, data, options: dict) -> dict:
    from causaleval.bayes import sample_posterior
    from causaleval.effects.ate import LinearATE

    dags = sample_posterior(name, data, n_samples=20, seed=0, options=options)
    distinct = {dag.tobytes() for dag in dags}
    effects = LinearATE(data).effects(dags, [(0, data.shape[1] - 1)])
    return {"distinct": len(distinct), "edges": dags.sum(axis=0).tolist(),
            "ate": [float(v).hex() for v in np.asarray(effects).ravel()]}


def numpy_loops() -> dict:
    """SHA-256 (first 16 hex digits) of numpy's float64 loops that have AVX-512 versions, on fixed
    data; the AVX2 loops' values are test_numerics.AVX2_LOOPS."""
    import hashlib

    x = np.random.default_rng(0).normal(size=100_000)
    y = np.abs(x) + 0.1
    loops = {"exp": np.exp(x), "log": np.log(y), "power": np.power(y, 1.7), "log1p": np.log1p(y),
             "expm1": np.expm1(x), "arctan2": np.arctan2(x, y)}
    return {name: hashlib.sha256(v.tobytes()).hexdigest()[:16] for name, v in loops.items()}


def jax_dots() -> dict:
    """SHA-256 (first 16 hex digits) of jitted XLA dots of each layout the JAX methods compile
    (plain, transposed, batched, as autodiff writes them) and of an MLP's gradient, after
    :func:`causaleval.numenv.pin_jax`; on an AVX-512 processor the transposed and batched ones
    differed from an AVX2 one before it."""
    import hashlib

    import jax
    import jax.numpy as jnp

    from causaleval import numenv

    numenv.pin_jax()
    rng = np.random.default_rng(0)
    a, b, c = (rng.normal(size=shape).astype(np.float32) for shape in [(64, 128), (64, 36), (128, 36)])
    cube = rng.normal(size=(64, 6, 6)).astype(np.float32)

    def mlp(w, x):
        return jnp.sum(jax.nn.gelu(x @ w) ** 2)

    # operands are arguments, not constants, which XLA would fold while compiling
    dots = {"plain": (lambda x, y: x @ y, a, c), "transposed": (lambda x, y: x.T @ y, a, b),
            "by_rows": (lambda x, y: x @ y.T, a, a),
            "batched": (lambda x, y: jnp.einsum("bai,baj->bij", x, y), cube, cube),
            "chained": (lambda x, y: jnp.einsum("bai,bac,bcj->bij", x, y, x), cube, cube),
            "mlp_gradient": (jax.grad(mlp), c, a)}
    return {name: hashlib.sha256(np.asarray(jax.jit(f)(x, y)).tobytes()).hexdigest()[:16]
            for name, (f, x, y) in dots.items()}


def main() -> None:
    if "--dots" in sys.argv:
        print(json.dumps({"jax_dots": jax_dots()}, sort_keys=True))
        return
    from scipy import stats  # here, not above: ``--dots`` runs under an emulator, where imports are slow

    from causaleval.effects.sampling import dirichlet_sample
    from causaleval.learn.learners import learn
    from causaleval.metrics.structural import shd_cpdag
    from causaleval.parallel import run_trials

    out = {"main": _environment(),
           "workers": run_trials(_environment, [{}, {}], n_jobs=2, progress=False)}
    if "--dask" in sys.argv:
        from dask.distributed import LocalCluster

        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            out["dask"] = run_trials(_environment, [{}], scheduler=cluster.scheduler_address, progress=False)
    out["numpy_loops"] = numpy_loops()
    # a discrete learn feeding a p-value (study 2's comparison of learners by SHD)
    gaps = []
    for seed in range(6):
        truth, data = dirichlet_sample(8, 2.0, 2, 500, seed)
        ges, pc = learn("ges", data), learn("pc", data, ci_test="chi_square")
        gaps.append(float(shd_cpdag(truth, ges) - shd_cpdag(truth, pc)))
    out["discrete"] = {"gaps": gaps, "p": float(stats.ttest_1samp(gaps, 0.0).pvalue).hex()}
    data = _gaussian(6, 60, seed=1)
    out["bootstrap_ges"] = _posterior("bootstrap_ges", data, {"ges_score": "bic", "cpdag_rule": "uniform"})
    if "--jax" in sys.argv:
        out["dag_gflownet"] = _posterior("dag_gflownet", data, {"gfn_steps": 60, "gfn_prefill": 10, "gfn_batch": 8,
                                                                "gfn_width": 8, "gfn_layers": 1, "gfn_head_layers": 1})
        out["dibs"] = _posterior("dibs", data, {"dibs_steps": 20})
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
