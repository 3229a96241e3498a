"""The shipped examples: deployment files, sweep specs, example data and test files (``pdp-audit examples DIR``)."""
