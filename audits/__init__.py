"""Monte Carlo auditors: privacy-loss tails, likelihood-ratio attacks, coverage of high-probability bounds.

Auditors estimate; they never decide pass or fail (that is :mod:`verify`).
"""
