"""Fitting and inference: exact ``P(O | do(T))`` of discrete networks (:mod:`~causaleval.effects.bn`),
Gentzel et al.'s pseudo-observational sampling (:mod:`~causaleval.effects.sampling`), effect
estimators (:mod:`~causaleval.effects.estimators`), linear ATEs over DAGs
(:mod:`~causaleval.effects.ate`), interventional tables of a learned class
(:mod:`~causaleval.effects.extensions`) and the IBM framework's simulation
(:mod:`~causaleval.effects.simulation`)."""
