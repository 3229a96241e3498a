"""Reports: machine-readable JSON and PDF audit reports (matplotlib only, no TeX)."""
