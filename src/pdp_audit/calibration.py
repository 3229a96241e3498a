"""The Gaussian mechanism's exact calibration, in the public API (:mod:`pdp_audit`: ``gaussian_delta``,
``gaussian_sigma``, ``gaussian_epsilon``): Balle & Wang (2018), Theorem 8, with arguments validated in one line."""

from __future__ import annotations


def gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """The exact δ(ε) of the Gaussian mechanism: the smallest δ for which adding N(0, σ²I) to a query of L2
    sensitivity Δ is (ε, δ)-DP (Balle & Wang 2018, Theorem 8).

        δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)

    Args:
      epsilon: ε >= 0.
      sigma: the noise's standard deviation, > 0.
      sensitivity: the query's L2 sensitivity Δ, >= 0.

    Returns:
      δ(ε), computed in log space (accurate far into the tail).

    Raises:
      InputError: an argument out of its range.

    Example::

        pdp_audit.gaussian_delta(1.0, 3.7306)  # ≈ 1e-05
    """
    # deferred: loads pdp_audit.mechanisms.gaussian; list --help must not
    from pdp_audit.mechanisms.gaussian import analytic_delta

    return analytic_delta(epsilon, sigma, sensitivity)


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ for which the Gaussian mechanism is (ε, δ)-DP: the analytic calibration (Balle & Wang 2018,
    Theorem 8 and Algorithm 1), solved to machine precision.  Unlike the classical Δ√(2 log(1.25/δ))/ε it holds
    for every ε and is never larger than needed.

    Args:
      epsilon: ε >= 0.
      delta: δ in (0, 1).
      sensitivity: the query's L2 sensitivity Δ, > 0.

    Returns:
      σ.

    Raises:
      InputError: an argument out of its range.

    Example::

        pdp_audit.gaussian_sigma(1.0, 1e-5)  # 3.7306...
    """
    # deferred: loads pdp_audit.mechanisms.gaussian; list --help must not
    from pdp_audit.mechanisms.gaussian import analytic_sigma

    return analytic_sigma(epsilon, delta, sensitivity)


def gaussian_epsilon(delta: float, sigma: float, sensitivity: float = 1.0) -> float:
    """The smallest ε for which the Gaussian mechanism with noise σ is (ε, δ)-DP (Balle & Wang 2018, Theorem 8,
    inverted in ε); 0 when δ(0) <= δ already.

    Args:
      delta: δ in (0, 1).
      sigma: the noise's standard deviation, > 0.
      sensitivity: the query's L2 sensitivity Δ, >= 0.

    Returns:
      ε.

    Raises:
      InputError: an argument out of its range.

    Example::

        pdp_audit.gaussian_epsilon(1e-5, 3.7306)  # ≈ 1.0
    """
    # deferred: loads pdp_audit.mechanisms.gaussian; list --help must not
    from pdp_audit.mechanisms.gaussian import analytic_epsilon

    return analytic_epsilon(delta, sigma, sensitivity)


# --------------------------------------------------------------------------------------------------
# The built-in audits, deployments, reports and sweeps
# --------------------------------------------------------------------------------------------------
