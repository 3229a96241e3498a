"""The audit of a DP program a team ships: record and replay of its noise primitives, a neighbour search, exact
composition, and the black box's confirmation on the witness pair (``pdp_audit.audit_program``)."""
