"""The verification framework, one subpackage per level (lowest first): ``inputs`` (below even the mechanisms:
``InputError`` and the checks of a user's values, the data readers, the shipped data's store, BLAS's threads,
interruptions), ``estimators`` (Monte Carlo estimators and their statistics), ``core`` (records, verdict rules,
options, plans, processes), ``evidence`` (evidence builders shared by every audit, the contract suite); the audits
(:mod:`pdp_audit.audits`) stand on these; the application above them is not here but in the namespace root
``src/pdp_audit/`` (the catalogue of plans, sweeps, the ledger, deployments and the mutant zoo, the use cases and
public API, and on top the command line and the pytest plugin)."""
