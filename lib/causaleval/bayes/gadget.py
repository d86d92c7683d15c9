"""Gadget (Viinikka, Hyttinen, Pensar and Koivisto 2020) as posterior method ``gadget``, through
the authors' package ``sumu`` (the ``bayes`` extra: ``pip install -e ".[bayes]"``; a C++ build),
imported only inside it.

Structure MCMC over root-partitions with candidate-parent restriction, BGe score on the
standardised columns, ``K=min(gadget_K, d-1)`` candidate parents per node chosen by
``cp_algo="greedy-lite"``, at most ``d=min(3, K)`` parents scored exactly outside the candidates,
``gadget_chains`` MC3 chains, ``gadget_burn_in`` burn-in steps, then ``n_samples * gadget_thin`` steps
kept every ``gadget_thin``-th: one DAG per kept state (the last ``n_samples``). sumu draws from numpy's
global generator, which is seeded with ``seed`` before the run.

Target: not the kit's posterior. sumu's ``LocalScore`` (sumu/gadget.py) hard-codes the "fair"
structure prior, ``log p(Pa_v) = -log C(d - 1, |Pa_v|)`` per node, where the kit's MC3 and
:mod:`causaleval.bayes.exact` use a uniform prior over DAGs, and its BGe scorer is built without the
``ess`` argument (``BGe(data, maxid)``: ``ess`` reaches only BDeu), so none is passed here.
sumu's BGe local scores are the kit's (test), so the fair prior is the whole difference, and
:func:`own_target` gives that target: study 6's exact-posterior check (:mod:`causaleval.bayes.check`)
scores Gadget against the kit's posterior (the prior's difference with any sampling error) and against
its own target's exact posterior (sampling error alone). Against the kit's posterior: DAG TV 0.16-0.34 against floors of
0.06-0.08 on d = 4, n = 200, seeds 0-1, 1,500 draws; with ``notebooks/params/06.exact.yaml``'s 12
data sets (d = 4 and 5, 4,000 draws) DAG TV 0.02-0.59, within twice the floor on 3 (the committed full check).

Candidate parents: every parent outside the ``K`` candidates of a node is scored only in sets of at
most ``min(3, K)``, so ``K`` must cover the true parent sets. Study 6's d = 20 graphs (40 expected
edges) have largest in-degrees 4-9 over seeds 0-25, Sachs's 3; ``gadget_K`` 12 covers them all
(``K = d - 1 = 10`` on Sachs). It costs 6.3 s a trial at d = 20, n = 100 against 2.3 s at ``K = 4``
and 122 s at ``K = 16`` (21 DAGs, one run on the 2-core machine).

Options: ``gadget_burn_in`` (default 1000), ``gadget_thin`` (10), ``gadget_K`` (12),
``gadget_chains`` (4), each a positive integer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causaleval.bayes import exact
from causaleval.bayes.posteriors import method_options, optional_modules, register_posterior, standardized

DEFAULTS: dict[str, int] = {"gadget_burn_in": 1000, "gadget_thin": 10, "gadget_K": 12, "gadget_chains": 4}


def own_target(d: int, options: Mapping[str, Any]) -> tuple[str, tuple[float, ...]]:
    """Gadget's own target on ``d`` variables: the BGe posterior (sumu's BGe is the kit's, equal
    local scores) under sumu's fair prior (:func:`causaleval.bayes.exact.fair_prior`)."""
    return "BGe, fair prior (sumu's)", exact.fair_prior(d)


@register_posterior("gadget", options={key: {"type": "int", "min": 1} for key in DEFAULTS}, target=own_target)
def gadget(data: pd.DataFrame, *, n_samples: int, seed: int, options: Mapping[str, Any]) -> np.ndarray:
    """``n_samples`` DAGs from Gadget's MCMC with BGe (module notes); deterministic per seed."""
    opts = method_options("gadget", options, DEFAULTS)
    (sumu,) = optional_modules("gadget", "sumu")
    x = standardized("gadget", data)
    d = x.shape[1]
    k = min(opts["gadget_K"], d - 1)
    np.random.seed(seed)
    out = sumu.Gadget(data=sumu.Data(x, discrete=False), scoref="bge", max_id=-1, K=k, d=min(3, k),
                      cp_algo="greedy-lite", mc3_chains=opts["gadget_chains"], burn_in=opts["gadget_burn_in"],
                      iterations=n_samples * opts["gadget_thin"], thinning=opts["gadget_thin"],
                      tolerance=2**-32).sample()
    dags = out[0] if isinstance(out, tuple) else out
    dags = list(dags)[-n_samples:]
    if len(dags) < n_samples:
        raise RuntimeError(f"gadget: sumu returned {len(dags)} DAGs, expected n_samples={n_samples}")
    g = np.zeros((n_samples, d, d), bool)
    for s, dag in enumerate(dags):
        for node, *rest in dag:
            g[s, list(rest[0]) if rest else [], node] = True
    return g
