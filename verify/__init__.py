"""Verification: statistics, claims, verdicts, the claims ledger, the CLI."""
