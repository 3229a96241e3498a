"""The framework's records and rules: checks, evidence and verdicts (``checks``), options and configs (``config``),
the plan protocol (``plan``), output files, worker processes and Dask clusters, module fingerprints."""
