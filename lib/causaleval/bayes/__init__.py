"""Posterior methods over DAGs behind one registry (:mod:`causaleval.bayes.posteriors`), each in
a file of its own, for Emezue et al. (2023)'s distribution-level evaluation."""

# XLA's threads and instruction set are fixed by causaleval.numenv when causaleval is imported.
from causaleval.bayes.posteriors import POSTERIORS, register_posterior, sample_posterior

__all__ = ["POSTERIORS", "register_posterior", "sample_posterior"]
# Each module registers its method; jax, dibs-lib and sumu are imported only inside its functions.
from causaleval.bayes import bcd_nets as _bcd_nets  # noqa: E402,F401
from causaleval.bayes import dag_gflownet as _dag_gflownet  # noqa: E402,F401
from causaleval.bayes import dibs as _dibs  # noqa: E402,F401
from causaleval.bayes import gadget as _gadget  # noqa: E402,F401
