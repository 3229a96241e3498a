"""Monte Carlo estimators and their statistics, generic over audits: the seeded block engine, hockey-stick tails
(plain and importance-sampled), exponential tilting, likelihood-ratio attacks, loss/sampler consistency, coverage
counts, confidence intervals.  Estimators estimate; they never decide pass or fail (that is
:mod:`pdp_audit.verify.core.checks`).
"""
