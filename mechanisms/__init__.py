"""Reference mechanisms: samplers, exact privacy losses, the papers' closed forms and calibrations.

Every mechanism applied to a dataset D and a target individual z yields a
:class:`~pdp_audit.mechanisms.base.NeighbourPair` (D, D±z).  This package knows nothing about audits or reports.
"""
