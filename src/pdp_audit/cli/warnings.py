"""Warnings a command prints beside its verdict, on stderr (stdout may carry the JSON document)."""

from __future__ import annotations

import sys


def print_warnings(run) -> None:
    """What the reader must not miss beside the verdict: a large share of rows clipped by the query
    (:class:`pdp_audit.reports.records.Clipping`, warned above 10%)."""
    if run.clipping is not None and run.clipping.warning:
        print(f"pdp-audit: warning: {run.clipping.warning}", file=sys.stderr)
