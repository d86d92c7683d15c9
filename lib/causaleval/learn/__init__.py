"""Graph learners behind one seeded signature (:mod:`causaleval.learn.learners`, the registry),
the kit's own GES (:mod:`causaleval.learn.ges`) and MMHC (:mod:`causaleval.learn.mmhc`), and
adapters to causal-learn and pgmpy as cross-checks."""

from causaleval.learn.learners import LEARNERS, get_learner, register_learner

__all__ = ["LEARNERS", "get_learner", "register_learner"]
