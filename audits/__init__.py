"""The audits: one subpackage per audit, holding everything that audit is -- its options (a frozen config), its
checks as data, the evidence that decides them, its report pages, its plan, and the estimator code only it uses.

The seed families (``gaussian``, ``objpert``, ``linreg``, ``privacy_report``, ``goe``), the pure-DP audits
(``laplace``, ``geometric``, ``randomized_response``) and the user-facing ones (``blackbox``, ``canaries``,
``coverage``).  An audit imports the framework's lower levels (:mod:`pdp_audit.verify.estimators`,
:mod:`pdp_audit.verify.core`, :mod:`pdp_audit.verify.evidence`) and :mod:`pdp_audit.mechanisms`, never another audit.
"""
