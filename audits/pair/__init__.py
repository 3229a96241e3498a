"""The audit of a user's white-box pair: ``pdp_audit.audit_pair`` (:mod:`.audit`) and a user's own mechanism in a
deployment file, ``mechanism = "module:factory"`` (:mod:`.deployed`)."""
