"""causaleval: a reproducible paper kit for evaluating causal discovery and effect estimation.

Heavy libraries (pgmpy, causal-learn, gadjid) are imported inside the functions that
need them, so ``import causaleval`` stays fast.

The numerical environment (BLAS kernel and threads, XLA's instruction set and threads, numba's
target) is fixed first, before anything imports numpy (:mod:`causaleval.numenv`).
"""

from causaleval import numenv

numenv.apply()

from causaleval.graphs import CausalGraph, GraphBatch, GraphClass, GraphError, latent_projection, to_cpdag  # noqa: E402

__version__ = "0.1.0"
__all__ = ["CausalGraph", "GraphBatch", "GraphClass", "GraphError", "latent_projection", "to_cpdag", "__version__"]
