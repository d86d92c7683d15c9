"""What one training iteration of DAG-GFlowNet costs on this machine, by settings and number of
variables d (issue 34): at the authors' settings (Deleu et al. 2022: their linear transformer of
width 128, 3 blocks and 2 head blocks, with a target network; :data:`~causaleval.bayes.dag_gflownet.PAPER`)
beside the kit's defaults (the MLP policy trained by the loss's full gradient, the anchor;
:data:`~causaleval.bayes.dag_gflownet.DEFAULTS`), as a ratio, with the time the authors' 101,000
iterations (1,000 of prefill, 100,000 with an update) would take.

    python benchmarks/bench_gfn_network_cost.py [--nodes 5 9 11 20] [--settings kit authors]

Data: study 6's synthetic setting (``studies.bayesian_cd_ate.data.synthetic``: d expected edges,
notebook 6's ``noise_sd``, 100 rows, seed 0, z-scored); the cost does not depend on the values.
Options: those settings with ``gfn_prefill`` 1 and ``gfn_steps`` 2,000 (kit) and 16 (authors). Each
(settings, d) compiles the training program ahead of time (``_gfn_jax.train_program``, the program
``_gfn_jax.train`` runs, XLA's dots pinned as in a study's run), then runs it once: a row's time is of iterations only,
its compile beside it.
An iteration is one environment step of ``gfn_envs`` graphs plus, after the prefill, one update of
``gfn_batch`` transitions (its cost does not depend on how far training has gone); the one prefill
iteration has no update, so a row's cost per iteration is a lower bound, by at most 1 in 17 for the
authors' settings and a negligible share for the kit's.
"""

from __future__ import annotations

import argparse
import time

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np

from causaleval import params, paths
from causaleval.bayes.dag_gflownet import DEFAULTS, PAPER, gfn_options
from causaleval.bayes.posteriors import optional_modules
from causaleval.studies.bayesian_cd_ate.data import standardised, synthetic

#: the kit's defaults (the MLP, the full gradient) and the authors' settings (the transformer, a target network)
SETTINGS = {"kit": DEFAULTS, "authors": PAPER}
STEPS = {"kit": 2000, "authors": 16}  # enough that the timed call takes seconds, not hours
PREFILL = 1
PAPER_ITERATIONS = PAPER["gfn_prefill"] + PAPER["gfn_steps"]


def seconds(setting: str, d: int, noise_sd: float) -> tuple[float, float]:
    """(compile, run) of DAG-GFlowNet's training program in seconds of wall time: compiled ahead of
    time as ``_gfn_jax.train`` compiles it, then run once."""
    jax, optax = optional_modules("dag_gflownet", "jax", "optax")  # pins XLA's dots, as a study's run does
    from causaleval.bayes import _gfn_jax

    data = standardised(synthetic(0, 100, d, float(d), noise_sd)[1])
    opts = gfn_options(SETTINGS[setting] | {"gfn_steps": STEPS[setting], "gfn_prefill": PREFILL})
    terms = {name: np.asarray(v) for name, v in _gfn_jax.bge_terms(data.to_numpy(dtype=float)).items()}
    key = jax.random.PRNGKey(0)
    with jax.enable_x64(True):
        start = time.perf_counter()
        program = _gfn_jax.train_program(jax, optax, d, opts).lower(terms, key).compile()
        compiled = time.perf_counter()
        jax.block_until_ready(program(terms, key))
    return compiled - start, time.perf_counter() - compiled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", nargs="+", type=int, default=[5, 9, 11, 20])
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    args = parser.parse_args()
    noise_sd = params.defaults(paths.NOTEBOOKS / "06_bayesian_cd_ate.ipynb")["noise_sd"]
    print("| d | settings | policy | iterations timed | ms per iteration | compile (s) | x kit | the authors' "
          f"{PAPER_ITERATIONS:,} iterations (h) |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for d in args.nodes:
        anchor = None
        for setting in args.settings:
            compile_s, run_s = seconds(setting, d, noise_sd)
            per = run_s / (PREFILL + STEPS[setting])
            anchor = per if setting == "kit" else anchor
            ratio = f"{per / anchor:.0f}" if anchor else ""
            hours = per * PAPER_ITERATIONS / 3600
            print(f"| {d} | {setting} | {SETTINGS[setting]['gfn_network']} | {PREFILL + STEPS[setting]} | "
                  f"{1000 * per:.2f} | {compile_s:.0f} | {ratio} | {hours:.2f} |", flush=True)


if __name__ == "__main__":
    main()
